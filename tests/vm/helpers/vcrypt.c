/*
 * vcrypt: the fscrypt ioctls the fscrypt + fs-verity tests need (v2 policies
 * only), as a small static program: Debian's fscrypt tool is Go and heavy,
 * fscryptctl is not packaged for bookworm.
 *
 *   vcrypt add MNT KEYFILE   FS_IOC_ADD_ENCRYPTION_KEY: KEYFILE ("-" for
 *                            stdin) holds the raw 64-byte master key; prints
 *                            the key identifier the kernel derived (32 hex)
 *   vcrypt set DIR ID        FS_IOC_SET_ENCRYPTION_POLICY, v2: AES-256-XTS
 *                            contents, AES-256-CTS filenames, padding 32,
 *                            master key ID; prints OK
 *   vcrypt get PATH          FS_IOC_GET_ENCRYPTION_POLICY_EX; prints
 *                            "v2 contents=AES-256-XTS filenames=AES-256-CTS
 *                            flags=0x3 id=HEX" (v1 policies: "v1 ...")
 *   vcrypt status MNT ID     FS_IOC_GET_ENCRYPTION_KEY_STATUS; prints
 *                            "absent", "present users=N[,self]" or
 *                            "incompletely_removed users=N[,self]"
 *   vcrypt remove MNT ID     FS_IOC_REMOVE_ENCRYPTION_KEY; prints OK, then
 *                            " files_busy" / " other_users" if flagged
 *
 * MNT is any path on the filesystem (the ioctl goes to its superblock).
 * When an ioctl fails, the errno name (ENOKEY, ENOTEMPTY ...) is printed on
 * stdout, so that shell tests compare strings, a full message on stderr, and
 * the exit status is 1; usage and input errors exit 2.
 */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fscrypt.h>	/* the system's UAPI header (linux-libc-dev) */

#define KEY_SIZE 64

static const char *mode_name(unsigned int m)
{
	switch (m) {
	case FSCRYPT_MODE_AES_256_XTS: return "AES-256-XTS";
	case FSCRYPT_MODE_AES_256_CTS: return "AES-256-CTS";
	case FSCRYPT_MODE_AES_128_CBC: return "AES-128-CBC";
	case FSCRYPT_MODE_AES_128_CTS: return "AES-128-CTS";
	case FSCRYPT_MODE_ADIANTUM: return "Adiantum";
	default: return NULL;
	}
}

static void print_mode(const char *what, unsigned int m)
{
	const char *n = mode_name(m);

	if (n)
		printf(" %s=%s", what, n);
	else
		printf(" %s=%u", what, m);
}

static void print_hex(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void parse_id(const char *s, unsigned char id[FSCRYPT_KEY_IDENTIFIER_SIZE])
{
	size_t i;

	if (strlen(s) != 2 * FSCRYPT_KEY_IDENTIFIER_SIZE)
		die("vcrypt: key identifier '%s': expected %d hex digits", s,
		    2 * FSCRYPT_KEY_IDENTIFIER_SIZE);
	for (i = 0; i < FSCRYPT_KEY_IDENTIFIER_SIZE; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			die("vcrypt: key identifier '%s': not hex", s);
		id[i] = hi << 4 | lo;
	}
}

static int open_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOCTTY);

	if (fd < 0) {
		fprintf(stderr, "vcrypt: open %s: %s\n", path, strerror(errno));
		printf("open:%s\n", errname(errno));
		exit(1);
	}
	return fd;
}

/* An ioctl failed: errno name on stdout, the whole story on stderr. */
static int failed(const char *ioc, const char *path)
{
	int e = errno;

	fprintf(stderr, "vcrypt: %s on %s: %s (%s)\n", ioc, path, errname(e),
		strerror(e));
	printf("%s\n", errname(e));
	return 1;
}

static void read_key(const char *file, unsigned char *key)
{
	int fd = strcmp(file, "-") ? open(file, O_RDONLY) : 0;
	size_t got = 0;
	ssize_t n;
	char extra;

	if (fd < 0)
		die("vcrypt: open key file %s: %s", file, strerror(errno));
	while (got < KEY_SIZE) {
		n = read(fd, key + got, KEY_SIZE - got);
		if (n < 0)
			die("vcrypt: read key file %s: %s", file, strerror(errno));
		if (n == 0)
			die("vcrypt: key file %s: %zu bytes, expected %d", file,
			    got, KEY_SIZE);
		got += n;
	}
	n = read(fd, &extra, 1);
	if (n != 0)
		die("vcrypt: key file %s: longer than %d bytes", file, KEY_SIZE);
	if (fd)
		close(fd);
}

static int cmd_add(const char *mnt, const char *file)
{
	struct fscrypt_add_key_arg *arg;
	int fd, rc;

	arg = calloc(1, sizeof(*arg) + KEY_SIZE);
	if (!arg)
		die("out of memory");
	read_key(file, arg->raw);
	arg->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	arg->raw_size = KEY_SIZE;
	fd = open_path(mnt);
	rc = ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, arg);
	memset(arg->raw, 0, KEY_SIZE);
	if (rc < 0)
		return failed("FS_IOC_ADD_ENCRYPTION_KEY", mnt);
	print_hex(arg->key_spec.u.identifier, FSCRYPT_KEY_IDENTIFIER_SIZE);
	putchar('\n');
	return 0;
}

static int cmd_set(const char *dir, const char *id)
{
	struct fscrypt_policy_v2 p;
	int fd;

	memset(&p, 0, sizeof(p));
	p.version = FSCRYPT_POLICY_V2;
	p.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS;
	p.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS;
	p.flags = FSCRYPT_POLICY_FLAGS_PAD_32;
	parse_id(id, p.master_key_identifier);
	fd = open_path(dir);
	if (ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &p) < 0)
		return failed("FS_IOC_SET_ENCRYPTION_POLICY", dir);
	printf("OK\n");
	return 0;
}

static int cmd_get(const char *path)
{
	struct fscrypt_get_policy_ex_arg arg;
	int fd;

	memset(&arg, 0, sizeof(arg));
	arg.policy_size = sizeof(arg.policy);
	fd = open_path(path);
	if (ioctl(fd, FS_IOC_GET_ENCRYPTION_POLICY_EX, &arg) < 0)
		return failed("FS_IOC_GET_ENCRYPTION_POLICY_EX", path);
	switch (arg.policy.version) {
	case FSCRYPT_POLICY_V1:
		printf("v1");
		print_mode("contents", arg.policy.v1.contents_encryption_mode);
		print_mode("filenames", arg.policy.v1.filenames_encryption_mode);
		printf(" flags=0x%x descriptor=", arg.policy.v1.flags);
		print_hex(arg.policy.v1.master_key_descriptor,
			  FSCRYPT_KEY_DESCRIPTOR_SIZE);
		break;
	case FSCRYPT_POLICY_V2:
		printf("v2");
		print_mode("contents", arg.policy.v2.contents_encryption_mode);
		print_mode("filenames", arg.policy.v2.filenames_encryption_mode);
		printf(" flags=0x%x id=", arg.policy.v2.flags);
		print_hex(arg.policy.v2.master_key_identifier,
			  FSCRYPT_KEY_IDENTIFIER_SIZE);
		break;
	default:
		printf("version=%u size=%llu", arg.policy.version,
		       (unsigned long long)arg.policy_size);
	}
	putchar('\n');
	return 0;
}

static void key_spec(struct fscrypt_key_specifier *ks, const char *id)
{
	memset(ks, 0, sizeof(*ks));
	ks->type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	parse_id(id, ks->u.identifier);
}

static int cmd_status(const char *mnt, const char *id)
{
	struct fscrypt_get_key_status_arg arg;
	int fd;

	memset(&arg, 0, sizeof(arg));
	key_spec(&arg.key_spec, id);
	fd = open_path(mnt);
	if (ioctl(fd, FS_IOC_GET_ENCRYPTION_KEY_STATUS, &arg) < 0)
		return failed("FS_IOC_GET_ENCRYPTION_KEY_STATUS", mnt);
	switch (arg.status) {
	case FSCRYPT_KEY_STATUS_ABSENT:
		printf("absent\n");
		return 0;
	case FSCRYPT_KEY_STATUS_PRESENT:
		printf("present");
		break;
	case FSCRYPT_KEY_STATUS_INCOMPLETELY_REMOVED:
		printf("incompletely_removed");
		break;
	default:
		printf("status=%u", arg.status);
	}
	printf(" users=%u%s\n", arg.user_count,
	       arg.status_flags & FSCRYPT_KEY_STATUS_FLAG_ADDED_BY_SELF ? ",self" : "");
	return 0;
}

static int cmd_remove(const char *mnt, const char *id)
{
	struct fscrypt_remove_key_arg arg;
	int fd;

	memset(&arg, 0, sizeof(arg));
	key_spec(&arg.key_spec, id);
	fd = open_path(mnt);
	if (ioctl(fd, FS_IOC_REMOVE_ENCRYPTION_KEY, &arg) < 0)
		return failed("FS_IOC_REMOVE_ENCRYPTION_KEY", mnt);
	printf("OK%s%s\n",
	       arg.removal_status_flags & FSCRYPT_KEY_REMOVAL_STATUS_FLAG_FILES_BUSY ?
	       " files_busy" : "",
	       arg.removal_status_flags & FSCRYPT_KEY_REMOVAL_STATUS_FLAG_OTHER_USERS ?
	       " other_users" : "");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "add"))
		return cmd_add(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "set"))
		return cmd_set(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "get"))
		return cmd_get(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "status"))
		return cmd_status(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "remove"))
		return cmd_remove(argv[2], argv[3]);
	die("usage: vcrypt add MNT KEYFILE | set DIR ID | get PATH |"
	    " status MNT ID | remove MNT ID");
	return 2;
}
