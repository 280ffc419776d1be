/*
 * vioctl: issue the fs-verity ioctls and the system calls around them the
 * way the tests need, printing "OK" or the errno NAME (EEXIST, ETXTBSY, ...)
 * so that shell tests compare strings.  Exit status: 0 on success, 1 when
 * the call failed (the errno name is printed), 2 on usage errors.
 *
 *   vioctl enable FILE           FS_IOC_ENABLE_VERITY, fd O_RDONLY, arg NULL
 *   vioctl enable-arg FILE [N]   same with the (reserved) argument N (1)
 *   vioctl enable-rw FILE        same through an fd opened O_RDWR
 *   vioctl measure FILE [SIZE]   FS_IOC_MEASURE_VERITY with digest_size SIZE
 *                                (default 64); prints ALG:HEX
 *   vioctl measure-efault FILE   FS_IOC_MEASURE_VERITY with an unmapped pointer
 *   vioctl measure-rofault FILE header|digest
 *                                FS_IOC_MEASURE_VERITY (digest_size 64) with
 *                                a struct fsverity_digest the kernel can read
 *                                but not write (header: all of it in a
 *                                read-only page), or whose header it can
 *                                write but not its digest (digest: the header
 *                                ends a writable page, a read-only page
 *                                follows)
 *   vioctl flags FILE            FS_IOC_GETFLAGS: "verity 0xFLAGS" or "- 0xFLAGS"
 *   vioctl statx FILE            STATX_ATTR_VERITY: "verity SIZE", "- SIZE",
 *                                or "unsupported SIZE" (bit not in the mask)
 *   vioctl lstatx FILE           the same, of a symbolic link itself
 *   vioctl dax FILE              STATX_ATTR_DAX: "dax", "-" or "unsupported"
 *   vioctl open FILE MODE        open(2); MODE r w rw trunc rtrunc append
 *   vioctl truncate FILE LEN     truncate(2)
 *   vioctl hold MODE FILE CMD... keep FILE open while CMD runs, exit with its
 *                                status; MODE w (O_WRONLY fd), rw (O_RDWR fd),
 *                                r (O_RDONLY fd), mmap (a shared writable
 *                                mapping, the fd itself closed)
 *   vioctl cow FILE CMD...       map FILE's first two pages MAP_PRIVATE,
 *                                write a marker into the first (its private
 *                                copy-on-write copy), run CMD, then print
 *                                "kept" or "LOST" for the marker and the
 *                                second page's first 8 bytes in hex (read
 *                                through the mapping after CMD; "SIGBUS" if
 *                                that read faults), exit with CMD's status
 *   vioctl cow-at FILE PAGE CMD...  the same with the pages PAGE and PAGE+1
 *   vioctl cow-pages FILE PAGE N CMD...
 *                                the same with the N pages from PAGE (N >= 2):
 *                                the marker in the first, every other one
 *                                mapped from the page cache before CMD and
 *                                read after it, one word each ("kept HEX
 *                                SIGBUS" for N = 3)
 *   vioctl readpast FILE OFF N   N rounds: wait until FILE opens (the first
 *                                open after drop_caches sets it up), then
 *                                pread at OFF (the data size); prints
 *                                "exposed BYTES" when a read returned bytes
 *                                there, else "none"
 */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fs.h>
#include "verity-uapi.h"

#ifndef STATX_ATTR_VERITY
#define STATX_ATTR_VERITY 0x00100000
#endif
#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif
#ifndef FS_VERITY_FL
#define FS_VERITY_FL 0x00100000
#endif

static int do_enable(const char *path, int flags, unsigned long arg)
{
	/* O_NONBLOCK: a fifo must not wait for a writer; no effect on files */
	int fd = open_or_report(path, flags | O_NONBLOCK);

	return report(ioctl(fd, FS_IOC_ENABLE_VERITY, arg));
}

static int do_measure(const char *path, unsigned int size)
{
	struct fsverity_digest *d;
	/* O_NONBLOCK: a fifo must not wait for a writer; no effect on files */
	int fd = open_or_report(path, O_RDONLY | O_NONBLOCK);

	d = calloc(1, sizeof(*d) + (size > 256 ? size : 256));
	if (!d)
		die("out of memory");
	d->digest_size = size;
	if (ioctl(fd, FS_IOC_MEASURE_VERITY, d) < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	if (d->digest_size > size) {
		printf("BADSIZE %u > %u\n", d->digest_size, size);
		return 1;
	}
	print_digest(alg_name(d->digest_algorithm), d->digest, d->digest_size);
	return 0;
}

static int do_measure_rofault(const char *path, const char *where)
{
	int fd = open_or_report(path, O_RDONLY);
	long ps = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct fsverity_digest *d;

	if (p == MAP_FAILED)
		die("mmap: %s", errname(errno));
	if (!strcmp(where, "header"))
		d = (struct fsverity_digest *)(p + ps);
	else if (!strcmp(where, "digest"))
		d = (struct fsverity_digest *)(p + ps - sizeof(*d));
	else
		die("measure-rofault: header or digest, not '%s'", where);
	d->digest_size = 64;
	if (mprotect(p + ps, ps, PROT_READ))
		die("mprotect: %s", errname(errno));
	return report(ioctl(fd, FS_IOC_MEASURE_VERITY, d));
}

static int do_measure_efault(const char *path)
{
	int fd = open_or_report(path, O_RDONLY);
	long ps = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap: %s", errname(errno));
	munmap(p, ps);		/* now an address that is certainly unmapped */
	return report(ioctl(fd, FS_IOC_MEASURE_VERITY, p));
}

static int do_flags(const char *path)
{
	int fd = open_or_report(path, O_RDONLY | O_NONBLOCK);
	int flags = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	printf("%s 0x%08x\n", (flags & FS_VERITY_FL) ? "verity" : "-", flags);
	return 0;
}

static int do_dax(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &stx) < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	printf("%s\n", !(stx.stx_attributes_mask & STATX_ATTR_DAX) ? "unsupported" :
	       (stx.stx_attributes & STATX_ATTR_DAX) ? "dax" : "-");
	return 0;
}

static int do_statx(const char *path, int flags)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, flags, STATX_BASIC_STATS, &stx) < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	printf("%s %llu\n",
	       !(stx.stx_attributes_mask & STATX_ATTR_VERITY) ? "unsupported" :
	       (stx.stx_attributes & STATX_ATTR_VERITY) ? "verity" : "-",
	       (unsigned long long)stx.stx_size);
	return 0;
}

static int mode_flags(const char *mode)
{
	static const struct { const char *name; int flags; } modes[] = {
		{ "r", O_RDONLY }, { "w", O_WRONLY }, { "rw", O_RDWR },
		{ "trunc", O_WRONLY | O_TRUNC }, { "rtrunc", O_RDONLY | O_TRUNC },
		{ "append", O_WRONLY | O_APPEND },
	};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(mode, modes[i].name))
			return modes[i].flags;
	die("unknown open mode '%s' (r w rw trunc rtrunc append)", mode);
	return -1;
}

static int run_cmd(char **cmd)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", errname(errno));
	if (pid == 0) {
		execvp(cmd[0], cmd);
		die("exec %s: %s", cmd[0], errname(errno));
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid: %s", errname(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int do_hold(const char *mode, const char *path, char **cmd)
{
	int fd, rc;

	if (!strcmp(mode, "mmap")) {
		long ps = sysconf(_SC_PAGESIZE);
		void *p;

		fd = open(path, O_RDWR);
		if (fd < 0)
			die("hold: open %s: %s", path, errname(errno));
		p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			die("hold: mmap %s: %s", path, errname(errno));
		close(fd);	/* only the mapping keeps write access */
		return run_cmd(cmd);
	}
	fd = open(path, mode_flags(mode));
	if (fd < 0)
		die("hold: open %s: %s", path, errname(errno));
	/* the command must not inherit the fd: only this process holds it */
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		die("hold: fcntl: %s", errname(errno));
	rc = run_cmd(cmd);
	close(fd);
	return rc;
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

#define COW_MARKER "private copy-on-write page of vioctl cow"

/*
 * Print " HEX", the first 8 bytes of @pg in hex, read through the mapping,
 * or " SIGBUS" when that read faults.  SIGBUS must be caught (on_sigbus).
 */
static void print_head(volatile unsigned char *pg)
{
	unsigned char head[8];
	int i;

	if (sigsetjmp(bus_jmp, 1)) {
		printf(" SIGBUS");
		return;
	}
	for (i = 0; i < 8; i++)
		head[i] = pg[i];
	printf(" ");
	for (i = 0; i < 8; i++)
		printf("%02x", head[i]);
}

static int do_cow(const char *path, unsigned long long page,
		  unsigned long long npages, char **cmd)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned long long k;
	char *p;
	int fd, rc;

	if (npages < 2 || npages > 64)
		die("cow: %llu pages: 2 to 64", npages);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("cow: open %s: %s", path, errname(errno));
	p = mmap(NULL, npages * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		 (off_t)(page * ps));
	if (p == MAP_FAILED)
		die("cow: mmap %s: %s", path, errname(errno));
	close(fd);
	/* map the other pages from the page cache */
	for (k = 1; k < npages; k++)
		(void)((volatile unsigned char *)p)[k * ps];
	memcpy(p, COW_MARKER, sizeof(COW_MARKER));

	rc = run_cmd(cmd);

	printf("%s", memcmp(p, COW_MARKER, sizeof(COW_MARKER)) ? "LOST" : "kept");
	signal(SIGBUS, on_sigbus);
	for (k = 1; k < npages; k++)
		print_head((volatile unsigned char *)p + k * ps);
	printf("\n");
	return rc;
}

static int do_readpast(const char *path, unsigned long long off,
		       unsigned long long rounds)
{
	unsigned long long r;
	unsigned char buf[64];
	ssize_t n;
	int fd, i;

	for (r = 0; r < rounds; r++) {
		do {
			fd = open(path, O_RDONLY);
		} while (fd < 0 && (errno == EINTR || errno == EAGAIN));
		if (fd < 0) {
			printf("open:%s\n", errname(errno));
			return 1;
		}
		n = pread(fd, buf, sizeof(buf), off);
		close(fd);
		if (n > 0) {
			printf("exposed ");
			for (i = 0; i < n && i < 16; i++)
				printf("%02x", buf[i]);
			printf(" (round %llu)\n", r);
			return 1;
		}
	}
	printf("none\n");
	return 0;
}

static void usage(void)
{
	die("usage: vioctl enable|enable-arg|enable-rw|measure|measure-efault|"
	    "measure-rofault|flags|statx|lstatx|dax|open|truncate|hold|cow|cow-at|cow-pages|readpast ...  (see the source)");
}

int main(int argc, char **argv)
{
	const char *cmd, *path;

	if (argc < 3)
		usage();
	cmd = argv[1];
	path = argv[2];
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(cmd, "enable") && argc == 3)
		return do_enable(path, O_RDONLY, 0);
	if (!strcmp(cmd, "enable-arg") && argc <= 4)
		return do_enable(path, O_RDONLY,
				 argc == 4 ? parse_u64(argv[3], "arg") : 1);
	if (!strcmp(cmd, "enable-rw") && argc == 3)
		return do_enable(path, O_RDWR, 0);
	if (!strcmp(cmd, "measure") && argc <= 4)
		return do_measure(path, argc == 4 ?
				  parse_u64(argv[3], "digest size") : 64);
	if (!strcmp(cmd, "measure-efault") && argc == 3)
		return do_measure_efault(path);
	if (!strcmp(cmd, "measure-rofault") && argc == 4)
		return do_measure_rofault(path, argv[3]);
	if (!strcmp(cmd, "flags") && argc == 3)
		return do_flags(path);
	if (!strcmp(cmd, "statx") && argc == 3)
		return do_statx(path, 0);
	if (!strcmp(cmd, "dax") && argc == 3)
		return do_dax(path);
	if (!strcmp(cmd, "lstatx") && argc == 3)
		return do_statx(path, AT_SYMLINK_NOFOLLOW);
	if (!strcmp(cmd, "open") && argc == 4) {
		int fd = open(path, mode_flags(argv[3]) | O_NOCTTY | O_NONBLOCK);

		return report(fd);
	}
	if (!strcmp(cmd, "truncate") && argc == 4)
		return report(truncate(path, parse_u64(argv[3], "length")));
	if (!strcmp(cmd, "hold") && argc >= 5)
		return do_hold(argv[2], argv[3], argv + 4);
	if (!strcmp(cmd, "cow") && argc >= 4)
		return do_cow(path, 0, 2, argv + 3);
	if (!strcmp(cmd, "cow-at") && argc >= 5)
		return do_cow(path, parse_u64(argv[3], "page"), 2, argv + 4);
	if (!strcmp(cmd, "cow-pages") && argc >= 6)
		return do_cow(path, parse_u64(argv[3], "page"),
			      parse_u64(argv[4], "number of pages"), argv + 5);
	if (!strcmp(cmd, "readpast") && argc == 5)
		return do_readpast(path, parse_u64(argv[3], "offset"),
				   parse_u64(argv[4], "rounds"));
	usage();
	return 2;
}
