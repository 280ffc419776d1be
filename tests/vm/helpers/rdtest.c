/*
 * rdtest: read a file the ways the corruption tests need and compare every
 * byte with a reference copy of the original data, printing one summary line.
 *
 *   rdtest blocks FILE REF     pread(2) each 4 KiB block of REF's size, then
 *                              once at the end:
 *       blocks=N ok=A eio=B mismatch=C other=D bad=LIST eof=BYTES
 *   rdtest direct FILE REF     the same through an O_DIRECT fd
 *   rdtest mmap FILE REF [X]   mmap REF's size plus X extra pages (default 1)
 *                              and touch each page, catching SIGBUS:
 *       pages=N ok=A sigbus=B mismatch=C bad=LIST past=X exposed=E
 *   rdtest timed FILE OFF LEN  read(2) LEN bytes (to EOF if LEN is 0) from OFF
 *                              in 1 MiB chunks and time it:
 *       bytes=N usec=T (open + reads) open_usec=T end=done|EOF|ERRNAME
 *   rdtest sample FILE REF N [BLOCK...]
 *                              pread(2) N 4 KiB blocks spread evenly over
 *                              REF's size (block i * NBLOCKS / N, i < N),
 *                              the last block if N > 0, then each BLOCK
 *                              listed, from FILE and from REF at the same
 *                              offset (REF is never read whole: it may be a
 *                              huge sparse file), then at the end:
 *       blocks=K ok=A eio=B mismatch=C other=D bad=LIST eof=BYTES
 *                              (LIST: block numbers, in reading order)
 *   rdtest range FILE OFF LEN [REF]
 *                              read(2) from OFF until LEN bytes, EOF or error:
 *       bytes=N end=done|EOF|ERRNAME [data=ok|mismatch@OFFSET]
 *
 * "mismatch" means bytes that differ from REF were returned: unverified data.
 * LIST is the failing block/page indexes as ranges ("137", "128-255", "-").
 * Pages past the end of REF in mmap mode must raise SIGBUS; a readable one
 * counts as "exposed".  The tail of the last page past REF's end must read
 * as zeros through mmap.
 */
#include "common.h"
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BS 4096

static unsigned char *ref;
static size_t refsize;

static void load_ref(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	size_t done = 0;

	if (fd < 0 || fstat(fd, &st) < 0)
		die("rdtest: reference %s: %s", path, errname(errno));
	refsize = st.st_size;
	ref = malloc(refsize + 1);
	if (!ref)
		die("out of memory");
	while (done < refsize) {
		ssize_t n = read(fd, ref + done, refsize - done);

		if (n <= 0)
			die("rdtest: reading reference %s failed", path);
		done += n;
	}
	close(fd);
}

/* Failing indexes, printed as ranges (long long: past 2^31 on 32-bit too). */
static char badlist[8192];
static long long last_bad = -2, range_start = -1;

static void flush_range(void)
{
	size_t l = strlen(badlist);

	if (range_start < 0 || l > sizeof(badlist) - 64)
		return;
	if (range_start == last_bad)
		snprintf(badlist + l, sizeof(badlist) - l, "%s%lld",
			 l ? "," : "", last_bad);
	else
		snprintf(badlist + l, sizeof(badlist) - l, "%s%lld-%lld",
			 l ? "," : "", range_start, last_bad);
}

static void add_bad(long long i)
{
	if (i != last_bad + 1) {
		flush_range();
		range_start = i;
	}
	last_bad = i;
}

static const char *bad_str(void)
{
	flush_range();
	range_start = -1;
	return *badlist ? badlist : "-";
}

static int open_file(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0) {
		printf("open:%s\n", errname(errno));
		exit(1);
	}
	return fd;
}

static int do_blocks(const char *path, int direct)
{
	int fd = open_file(path, O_RDONLY | (direct ? O_DIRECT : 0));
	long nblocks = (refsize + BS - 1) / BS, i;
	long ok = 0, eio = 0, mismatch = 0, other = 0;
	const char *first_other = NULL;
	unsigned char *buf;
	ssize_t n;

	if (posix_memalign((void **)&buf, BS, BS))
		die("out of memory");
	for (i = 0; i < nblocks; i++) {
		size_t want = refsize - i * BS < BS ? refsize - i * BS : BS;

		n = pread(fd, buf, BS, (off_t)i * BS);
		if (n < 0) {
			if (errno == EIO) {
				eio++;
			} else {
				other++;
				if (!first_other)
					first_other = strdup(errname(errno));
			}
			add_bad(i);
		} else if ((size_t)n != want || memcmp(buf, ref + i * BS, want)) {
			mismatch++;
			add_bad(i);
		} else {
			ok++;
		}
	}
	printf("blocks=%ld ok=%ld eio=%ld mismatch=%ld other=%ld bad=%s",
	       nblocks, ok, eio, mismatch, other, bad_str());
	/* at the end: 0 bytes (O_DIRECT needs an aligned offset) */
	n = pread(fd, buf, BS, direct ? (off_t)nblocks * BS : (off_t)refsize);
	if (n < 0)
		printf(" eof=%s", errname(errno));
	else
		printf(" eof=%zd", n);
	if (first_other)
		printf(" first_other=%s", first_other);
	printf("\n");
	return 0;
}

static int do_sample(const char *path, const char *refpath,
		     unsigned long long n, int nlist, char **list)
{
	int fd = open_file(path, O_RDONLY), rfd = open(refpath, O_RDONLY);
	unsigned long long nblocks, count, k, blk, size;
	long ok = 0, eio = 0, mismatch = 0, other = 0;
	const char *first_other = NULL;
	static unsigned char buf[BS], rbuf[BS];
	struct stat st;
	ssize_t r;

	if (rfd < 0 || fstat(rfd, &st) < 0)
		die("rdtest: reference %s: %s", refpath, errname(errno));
	size = st.st_size;
	nblocks = (size + BS - 1) / BS;
	if (!nblocks)
		die("rdtest: reference %s is empty", refpath);
	count = n + (n > 0) + nlist;
	for (k = 0; k < count; k++) {
		size_t want;

		if (k < n)
			/* k * nblocks / n, with no product past 64 bits */
			blk = nblocks / n * k + nblocks % n * k / n;
		else if (k == n && n > 0)
			blk = nblocks - 1;
		else
			blk = parse_u64(list[k - n - (n > 0)], "block");
		if (blk >= nblocks)
			die("rdtest: block %llu past the reference (%llu blocks)", blk, nblocks);
		want = size - blk * BS < BS ? size - blk * BS : BS;
		if (pread(rfd, rbuf, want, (off_t)(blk * BS)) != (ssize_t)want)
			die("rdtest: reading reference %s at block %llu failed", refpath, blk);
		r = pread(fd, buf, BS, (off_t)(blk * BS));
		if (r < 0) {
			if (errno == EIO) {
				eio++;
			} else {
				other++;
				if (!first_other)
					first_other = strdup(errname(errno));
			}
			add_bad(blk);
		} else if ((size_t)r != want || memcmp(buf, rbuf, want)) {
			mismatch++;
			add_bad(blk);
		} else {
			ok++;
		}
	}
	printf("blocks=%llu ok=%ld eio=%ld mismatch=%ld other=%ld bad=%s",
	       count, ok, eio, mismatch, other, bad_str());
	r = pread(fd, buf, BS, (off_t)size);
	if (r < 0)
		printf(" eof=%s", errname(errno));
	else
		printf(" eof=%zd", r);
	if (first_other)
		printf(" first_other=%s", first_other);
	printf("\n");
	return 0;
}

static sigjmp_buf jb;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

static int do_mmap(const char *path, long extra)
{
	int fd = open_file(path, O_RDONLY);
	long npages = (refsize + BS - 1) / BS;
	static volatile long i, ok, sigbus, mismatch, exposed;
	static unsigned char buf[BS];
	static const unsigned char zero[BS];
	struct sigaction sa;
	unsigned char *map;

	if (sysconf(_SC_PAGESIZE) != BS)
		die("rdtest: page size is not 4096");
	map = mmap(NULL, (npages + extra) * BS, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		printf("mmap:%s\n", errname(errno));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);

	for (i = 0; i < npages + extra; i++) {
		if (sigsetjmp(jb, 1)) {
			if (i < npages) {
				sigbus++;
				add_bad(i);
			}
			continue;
		}
		memcpy(buf, map + i * BS, BS);
		if (i >= npages) {
			exposed++;
			continue;
		}
		{
			size_t want = refsize - i * BS < BS ? refsize - i * BS : BS;

			if (memcmp(buf, ref + i * BS, want) ||
			    memcmp(buf + want, zero, BS - want)) {
				mismatch++;
				add_bad(i);
			} else {
				ok++;
			}
		}
	}
	printf("pages=%ld ok=%ld sigbus=%ld mismatch=%ld bad=%s past=%ld exposed=%ld\n",
	       npages, ok, sigbus, mismatch, bad_str(), extra, exposed);
	return 0;
}

static int do_range(const char *path, unsigned long long off,
		    unsigned long long len, const char *refpath)
{
	int fd = open_file(path, O_RDONLY);
	unsigned long long got = 0;
	unsigned char *buf = malloc(len + 1);
	const char *end = "done";

	if (!buf)
		die("out of memory");
	if (lseek(fd, off, SEEK_SET) < 0)
		die("rdtest: lseek: %s", errname(errno));
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0) {
			end = errname(errno);
			break;
		}
		if (n == 0) {
			end = "EOF";
			break;
		}
		got += n;
	}
	printf("bytes=%llu end=%s", got, end);
	if (refpath) {
		unsigned long long i;

		load_ref(refpath);
		for (i = 0; i < got; i++)
			if (off + i >= refsize || buf[i] != ref[off + i])
				break;
		if (i < got)
			printf(" data=mismatch@%llu", off + i);
		else
			printf(" data=ok");
	}
	printf("\n");
	return 0;
}

static int do_timed(const char *path, unsigned long long off,
		    unsigned long long len)
{
	struct timespec t0, t1, topen;
	unsigned long long got = 0;
	const char *end = "done";
	size_t bufsz = 1 << 20;
	unsigned char *buf = malloc(bufsz);
	int fd;

	if (!buf)
		die("out of memory");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = open_file(path, O_RDONLY);
	clock_gettime(CLOCK_MONOTONIC, &topen);
	while (!len || got < len) {
		size_t want = len && len - got < bufsz ? len - got : bufsz;
		ssize_t n = pread(fd, buf, want, off + got);

		if (n < 0) {
			end = errname(errno);
			break;
		}
		if (n == 0) {
			end = "EOF";
			break;
		}
		got += n;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("bytes=%llu usec=%lld open_usec=%lld end=%s\n", got,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000 +
	       (t1.tv_nsec - t0.tv_nsec) / 1000,
	       (long long)(topen.tv_sec - t0.tv_sec) * 1000000 +
	       (topen.tv_nsec - t0.tv_nsec) / 1000, end);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "blocks")) {
		load_ref(argv[3]);
		return do_blocks(argv[2], 0);
	}
	if (argc == 4 && !strcmp(argv[1], "direct")) {
		load_ref(argv[3]);
		return do_blocks(argv[2], 1);
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "mmap")) {
		load_ref(argv[3]);
		return do_mmap(argv[2], argc == 5 ? (long)parse_u64(argv[4], "extra") : 1);
	}
	if (argc >= 5 && !strcmp(argv[1], "sample"))
		return do_sample(argv[2], argv[3], parse_u64(argv[4], "count"),
				 argc - 5, argv + 5);
	if (argc == 5 && !strcmp(argv[1], "timed"))
		return do_timed(argv[2], parse_u64(argv[3], "offset"),
				parse_u64(argv[4], "length"));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "range"))
		return do_range(argv[2], parse_u64(argv[3], "offset"),
				parse_u64(argv[4], "length"),
				argc == 6 ? argv[5] : NULL);
	die("usage: rdtest blocks|direct FILE REF | mmap FILE REF [EXTRA] | "
	    "sample FILE REF N [BLOCK...] | timed FILE OFF LEN | range FILE OFF LEN [REF]");
	return 2;
}
