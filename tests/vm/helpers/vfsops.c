/*
 * vfsops: filesystem calls around fs-verity that the other helpers do not
 * issue, for t/36-fs-hardening.sh and t/39-write-paths.sh.  Prints "OK" (or the value asked for),
 * or the errno NAME when the call fails, so that shell tests compare
 * strings.  Exit status: 0 on success, 1 when the call failed, 2 on usage
 * errors.
 *
 *   vfsops clearflags FILE MASK   FS_IOC_GETFLAGS, clear the bits of MASK
 *                                 (e.g. 0x80000, EXT4_EXTENTS_FL: what
 *                                 `chattr -e` asks), FS_IOC_SETFLAGS with
 *                                 the result, through an O_RDONLY fd
 *   vfsops gc PATH [N]            F2FS_IOC_GARBAGE_COLLECT (foreground,
 *                                 sync = 1) up to N times (default 1) on an
 *                                 O_RDONLY fd of PATH (a directory works):
 *                                 prints "OK" or "runs=K end=ERRNAME", the
 *                                 errno that stopped it (ENODATA: no victim
 *                                 left)
 *   vfsops gc-range PATH DEVOFF   F2FS_IOC_GARBAGE_COLLECT_RANGE, foreground,
 *                                 of the one block holding device byte
 *                                 DEVOFF (from physoff): f2fs migrates the
 *                                 valid blocks of its whole segment
 *   vfsops inode-block FILE       FIEMAP with FIEMAP_FLAG_XATTR: on f2fs the
 *                                 first extent is the inline xattr area inside
 *                                 the inode's node block; prints the device
 *                                 byte offset of that 4 KiB block
 *   vfsops advise FILE            getxattr "system.advise" (f2fs: the
 *                                 inode's i_advise byte, FADVISE_* bits;
 *                                 opens nothing): prints 0xHH
 *   vfsops prealloc FILE LEN      fallocate(FALLOC_FL_KEEP_SIZE) of LEN
 *                                 bytes from the end of FILE: blocks past
 *                                 EOF, i_size unchanged
 *   vfsops mksock PATH            mknod(2) of a socket inode (S_IFSOCK), which
 *                                 busybox's mknod cannot make
 *   vfsops fsync FILE             fsync(2) through an O_RDONLY fd
 *   vfsops fsync-on-advise FILE MASK SECONDS
 *                                 open FILE O_RDONLY, wait (up to SECONDS)
 *                                 until its i_advise has all of MASK, then
 *                                 fsync(2) that fd
 *   vfsops shutdown PATH nosync   F2FS_IOC_SHUTDOWN with
 *                                 F2FS_GOING_DOWN_NOSYNC on an O_RDONLY fd
 *                                 of PATH: the filesystem stops with no
 *                                 checkpoint, as after a power cut (its
 *                                 last fsyncs are what the next mount
 *                                 rolls forward)
 *   vfsops shortwrite FILE OFF LEN GOOD
 *                                 pwrite of LEN bytes at OFF from a buffer
 *                                 of which only the first GOOD bytes (0x5a)
 *                                 are mapped: the copy from user memory
 *                                 stops short inside the filesystem's
 *                                 write_begin/write_end; prints "wrote=N"
 *                                 or the errno name
 *
 * Only prealloc and shortwrite open a file for writing (and close it before
 * they return).  `vfsops gc` never opens a file other than PATH.
 */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/f2fs.h>		/* the system's UAPI header (linux-libc-dev) */
#include <linux/fiemap.h>
#include <linux/fs.h>

#define BLK 4096ULL

/* open PATH with FLAGS, or print the errno name and exit 1 */
static int open_or_exit(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0) {
		printf("%s\n", errname(errno));
		fprintf(stderr, "vfsops: open %s%s: %s\n", path,
			flags & O_ACCMODE ? " for writing" : "", errname(errno));
		exit(1);
	}
	return fd;
}

static int open_ro(const char *path)
{
	return open_or_exit(path, O_RDONLY);
}

static int failed(const char *what, const char *path)
{
	int e = errno;

	printf("%s\n", errname(e));
	fprintf(stderr, "vfsops: %s %s: %s\n", what, path, errname(e));
	return 1;
}

static int cmd_clearflags(const char *path, const char *mask_s)
{
	unsigned long long mask = parse_u64(mask_s, "mask");
	int fd = open_ro(path);
	int flags;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return failed("FS_IOC_GETFLAGS", path);
	flags &= ~(int)mask;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)
		return failed("FS_IOC_SETFLAGS", path);
	printf("OK\n");
	return 0;
}

static int cmd_gc(const char *path, const char *n_s)
{
	unsigned long long n = n_s ? parse_u64(n_s, "count") : 1, i;
	int fd = open_ro(path);
	__u32 sync = 1;

	for (i = 0; i < n; i++) {
		if (ioctl(fd, F2FS_IOC_GARBAGE_COLLECT, &sync) < 0) {
			printf("runs=%llu end=%s\n", i, errname(errno));
			return 1;
		}
	}
	printf("OK\n");
	return 0;
}

static int cmd_gc_range(const char *path, const char *off_s)
{
	struct f2fs_gc_range r = {
		.sync = 1,
		.start = parse_u64(off_s, "device offset") / BLK,
		.len = 1,
	};
	int fd = open_ro(path);

	if (ioctl(fd, F2FS_IOC_GARBAGE_COLLECT_RANGE, &r) < 0)
		return failed("F2FS_IOC_GARBAGE_COLLECT_RANGE", path);
	printf("OK\n");
	return 0;
}

static int cmd_inode_block(const char *path)
{
	struct fiemap *fm;
	int fd = open_ro(path);

	fm = calloc(1, sizeof(*fm) + 4 * sizeof(struct fiemap_extent));
	if (!fm)
		die("out of memory");
	fm->fm_start = 0;
	fm->fm_length = ~0ULL;
	fm->fm_flags = FIEMAP_FLAG_SYNC | FIEMAP_FLAG_XATTR;
	fm->fm_extent_count = 4;
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0)
		return failed("FIEMAP(XATTR)", path);
	if (!fm->fm_mapped_extents || !fm->fm_extents[0].fe_physical) {
		printf("none\n");
		fprintf(stderr, "vfsops: %s: FIEMAP_FLAG_XATTR maps nothing\n", path);
		return 1;
	}
	printf("%llu\n", (unsigned long long)(fm->fm_extents[0].fe_physical / BLK * BLK));
	return 0;
}

/* f2fs's i_advise, read by path (the system.advise xattr): 0, or -1 */
static int get_advise(const char *path, unsigned char *b)
{
	return getxattr(path, "system.advise", b, 1) == 1 ? 0 : -1;
}

static int cmd_advise(const char *path)
{
	unsigned char b;

	if (get_advise(path, &b))
		return failed("getxattr(system.advise)", path);
	printf("0x%02x\n", b);
	return 0;
}

static int cmd_prealloc(const char *path, const char *len_s)
{
	off_t len = parse_u64(len_s, "length");
	int fd = open_or_exit(path, O_WRONLY);
	off_t end = lseek(fd, 0, SEEK_END);

	if (end < 0)
		return failed("lseek", path);
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, end, len) < 0)
		return failed("fallocate(KEEP_SIZE)", path);
	if (close(fd) < 0)
		return failed("close", path);
	printf("OK\n");
	return 0;
}

/*
 * fsync(2) of a file through an O_RDONLY fd opened first, once its
 * i_advise has all of MASK (none: at once), polled every POLL_US for up to
 * SECONDS: an open while ENABLE runs would wait for it, the fd opened
 * before it does not.
 */
#define POLL_US 20000
static int fsync_on_advise(const char *path, unsigned long long mask,
			   unsigned long long secs)
{
	unsigned long long polls = secs * 1000000 / POLL_US;
	int fd = open_ro(path);
	unsigned char b = 0;

	while ((b & mask) != mask) {
		if (polls-- == 0) {
			printf("TIMEOUT advise=0x%02x\n", b);
			return 1;
		}
		if (get_advise(path, &b))
			return failed("getxattr(system.advise)", path);
		if ((b & mask) != mask)
			usleep(POLL_US);
	}
	if (fsync(fd) < 0)
		return failed("fsync", path);
	printf("OK\n");
	return 0;
}

static int cmd_shutdown(const char *path, const char *how)
{
	__u32 mode = F2FS_GOING_DOWN_NOSYNC;
	int fd;

	if (strcmp(how, "nosync"))
		die("shutdown: unknown mode %s (nosync)", how);
	fd = open_ro(path);
	if (ioctl(fd, F2FS_IOC_SHUTDOWN, &mode) < 0)
		return failed("F2FS_IOC_SHUTDOWN", path);
	printf("OK\n");
	return 0;
}

static int cmd_mksock(const char *path)
{
	if (mknod(path, S_IFSOCK | 0644, 0) < 0)
		return failed("mknod(S_IFSOCK)", path);
	printf("OK\n");
	return 0;
}

static int cmd_shortwrite(const char *path, const char *off_s, const char *len_s,
			  const char *good_s)
{
	off_t off = parse_u64(off_s, "offset");
	size_t len = parse_u64(len_s, "length");
	size_t good = parse_u64(good_s, "mapped bytes");
	long pg = sysconf(_SC_PAGESIZE);
	size_t map = (good + pg - 1) / pg * pg + pg;
	unsigned char *buf;
	ssize_t n;
	int fd;

	if (good >= len)
		die("shortwrite: GOOD (%zu) must be below LEN (%zu)", good, len);
	/* the mapped bytes end where an inaccessible page begins */
	buf = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap: %s", errname(errno));
	if (mprotect(buf + map - pg, pg, PROT_NONE) < 0)
		die("mprotect: %s", errname(errno));
	memset(buf + map - pg - good, 0x5a, good);
	fd = open_or_exit(path, O_WRONLY);
	n = pwrite(fd, buf + map - pg - good, len, off);
	if (n < 0)
		return failed("pwrite", path);
	if (close(fd) < 0)
		return failed("close", path);
	printf("wrote=%zd\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "clearflags"))
		return cmd_clearflags(argv[2], argv[3]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "gc"))
		return cmd_gc(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 4 && !strcmp(argv[1], "gc-range"))
		return cmd_gc_range(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "inode-block"))
		return cmd_inode_block(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "advise"))
		return cmd_advise(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "prealloc"))
		return cmd_prealloc(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "fsync"))
		return fsync_on_advise(argv[2], 0, 0);
	if (argc == 5 && !strcmp(argv[1], "fsync-on-advise"))
		return fsync_on_advise(argv[2], parse_u64(argv[3], "mask"),
				       parse_u64(argv[4], "seconds"));
	if (argc == 4 && !strcmp(argv[1], "shutdown"))
		return cmd_shutdown(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "mksock"))
		return cmd_mksock(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "shortwrite"))
		return cmd_shortwrite(argv[2], argv[3], argv[4], argv[5]);
	die("usage: vfsops clearflags FILE MASK | gc PATH [N] | gc-range PATH DEVOFF | inode-block FILE | advise FILE | prealloc FILE LEN | fsync FILE | fsync-on-advise FILE MASK SECONDS | shutdown PATH nosync | mksock PATH | shortwrite FILE OFF LEN GOOD");
	return 2;
}
