/*
 * runas UID GID CMD [ARGS...]
 *
 * Drop all supplementary groups, set the gid and uid, and exec CMD (looked
 * up in PATH), so tests can check what an unprivileged user may do.
 */
#include "common.h"
#include <grp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4)
		die("usage: runas UID GID CMD [ARGS...]");
	uid = parse_u64(argv[1], "uid");
	gid = parse_u64(argv[2], "gid");
	if (setgroups(0, NULL) || setgid(gid) || setuid(uid))
		die("runas: cannot become %u:%u: %s", uid, gid, errname(errno));
	if (getuid() != uid || geteuid() != uid || getegid() != gid)
		die("runas: credentials not changed");
	execvp(argv[3], argv + 3);
	die("runas: exec %s: %s", argv[3], errname(errno));
}
