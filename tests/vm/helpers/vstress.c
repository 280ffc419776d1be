/*
 * vstress: the concurrency stress of t/70-stress.sh.  For a bounded time,
 * forked workers read verity files while another task drops the caches, and
 * rounds of processes race FS_IOC_ENABLE_VERITY against a second ENABLE and
 * against opens for writing; every outcome is checked as it happens.
 *
 *   vstress [-t SECONDS] [-s SEED] [-w READERS] [-G GRACE] [-n] [-H COMMAND]
 *           -g FILE:REF [-g FILE:REF ...] [-c FILE:REF:BLOCK]
 *           [-e DIR:TEMPLATE:MEASUREMENT]
 *
 *   -t SECONDS  how long the workers run (default 20); no new race round
 *               starts after that
 *   -s SEED     the seed of the workers' random choices (default: the clock);
 *               printed, though the interleavings never repeat
 *   -w READERS  readers of each kind on the good files (default 2)
 *   -G GRACE    seconds the workers get after the end to finish (default 60);
 *               one still running then is reported as hung and killed
 *   -n          no drop_caches task (for trying vstress outside the VM)
 *   -H COMMAND  run by sh -c before hung workers are killed, which ends
 *               their killable waits: it shows what they wait on
 *
 *   -g FILE:REF a good verity file and a copy of its data (on tmpfs).  Every
 *               reader reads every good file:
 *       seq     sequential pread(2) passes from offset 0 to EOF in chunks of
 *               4 KiB to 1 MiB (some odd sizes), the file reopened for every
 *               pass and POSIX_FADV_DONTNEED now and then, EOF read at the end
 *       random  pread(2) of 4 KiB at random offsets, aligned or not
 *       mmap    a fresh MAP_SHARED mapping per pass, MADV_NORMAL, RANDOM or
 *               SEQUENTIAL, every page touched in order or in a random order,
 *               SIGBUS caught (sigsetjmp)
 *               every read must succeed, be complete and return the
 *               reference bytes; a page's tail past EOF must be zeros.
 *   -c FILE:REF:BLOCK
 *               a verity file whose data block BLOCK is corrupted on disk:
 *               a pread reader (the block itself, a part of it, a read that
 *               starts before it and must stop exactly at its start with EIO,
 *               random other blocks) and an mmap reader (every page); every
 *               read of BLOCK must fail with EIO (SIGBUS through mmap), every
 *               other block must read correctly.
 *   -e DIR:TEMPLATE:MEASUREMENT
 *               race rounds until the time is up.  A round copies TEMPLATE (a
 *               file as `fsverity setup` left it: data, tree, descriptor,
 *               footer; MEASUREMENT is what setup printed, ALG:HEX) to a new
 *               file in DIR, forks 2-4 enablers, 0-2 writers and a reader,
 *               and releases them together (they block on one pipe whose
 *               write end is then closed):
 *       enabler FS_IOC_ENABLE_VERITY on an O_RDONLY fd (opened before or
 *               after the release); retried on ETXTBSY until it returns 0 or
 *               EEXIST.  0: the file is verity, st_size is the data size, and
 *               no writer held the file for writing during the whole call.
 *               EEXIST: the file is verity.  ETXTBSY: a writer was opening or
 *               holding the file during the call.  Anything else is wrong.
 *       writer  1-4 times: open(2) O_WRONLY or O_RDWR, or O_RDWR plus a shared
 *               writable mapping with the fd closed; hold it for 0-3 ms,
 *               perhaps rewriting the first block with its own bytes.  Success:
 *               the file is not verity and no ENABLE has returned 0 while it
 *               is held.  ETXTBSY: an ENABLE was in progress.  EPERM: the file
 *               is verity (then the writer stops).  Anything else is wrong.
 *               In every 4th round (the first one included) a writer opens
 *               the file before the release and holds it until an ENABLE has
 *               failed with ETXTBSY meanwhile (at most 10 s: else a violation).
 *       reader  until the enablers and writers are done, pread(2) of random
 *               ranges, the file sometimes reopened: no error, the bytes of
 *               TEMPLATE, ending at its full size or at the data size (at the
 *               data size once an ENABLE has returned 0); st_size one of the two.
 *               Then: exactly one ENABLE returned 0 and all the others ended
 *               with EEXIST; the file is verity; opens O_WRONLY and O_RDWR
 *               fail with EPERM, one more ENABLE with EEXIST; its st_size is
 *               the data size; FS_IOC_MEASURE_VERITY gives MEASUREMENT; it
 *               reads back as TEMPLATE's data.  It is removed.
 *   A drop_caches task writes 3 to /proc/sys/vm/drop_caches in a loop (after
 *   one 4, which stops the kernel's log line for each write).  The drops evict
 *   the data and tree pages and, with the slab, the inodes of files nobody
 *   holds open, whose next open sets up their verity info again.
 *
 * Output: "FAIL [CATEGORY] ..." for each violation (at most 10 per process),
 * then one summary line per category, e.g.
 *   seq: readers=2 passes=P reads=N mib=M errors=0 short=0 mismatches=0
 *   random: readers=2 reads=N errors=0 short=0 mismatches=0
 *   mmap: readers=2 passes=P pages=N sigbus=0 mismatches=0
 *   corrupt: block=K block-reads=N block-eio=N spans=S span-stop-ok=S
 *            other-reads=N other-ok=N mmap-block=N mmap-sigbus=N
 *            mmap-other=N mmap-other-ok=N
 *   drop_caches: writes=N
 *   race: rounds=R wins=R enable-calls=N eexist=N etxtbsy=N
 *         etxtbsy-while-held=N writer-opens=N writer-ok=N writer-etxtbsy=N
 *         writer-eperm=N writer-rewrites=N held-rounds=H eperm-after=2R
 *         reader-reads=N reader-reopens=N measured-ok=R
 *   vstress: ok | vstress: N violations
 * Exit status: 0 without violations, 1 with, 2 on usage or setup errors.
 */
#include "common.h"
#include <endian.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/fsverity.h>	/* the project's UAPI, tools/uapi */

#ifndef FS_VERITY_FL
#define FS_VERITY_FL 0x00100000
#endif

#define BS 4096
#define MAXFILES 16
#define MAXPROCS 64
#define MAXFAILS 10

typedef unsigned long long u64;

struct vfile {
	const char *path;
	unsigned char *ref;
	size_t size;
	long bad;		/* corrupted block, or -1 */
};

/* Everything the processes share (one MAP_SHARED anonymous mapping). */
struct shared {
	int stop;
	u64 violations;

	u64 seq_passes, seq_reads, seq_bytes, seq_err, seq_short, seq_mismatch;
	u64 rnd_reads, rnd_err, rnd_short, rnd_mismatch;
	u64 mm_passes, mm_pages, mm_sigbus, mm_mismatch;
	u64 cr_block_reads, cr_block_eio, cr_spans, cr_span_ok;
	u64 cr_other_reads, cr_other_ok;
	u64 cm_block, cm_block_sigbus, cm_other, cm_other_ok;
	u64 drops;
	u64 rounds, wins, en_calls, en_eexist, en_etxtbsy, en_etxtbsy_held;
	u64 wr_opens, wr_ok, wr_etxtbsy, wr_eperm, wr_rewrites;
	u64 rr_reads, rr_reopens, measured_ok, held_rounds, eperm_after;

	/* the current race round */
	struct {
		int trying;		/* writers between before-open and after-close */
		int held;		/* writers holding write access for sure */
		u64 try_starts, releases;
		int en_active;		/* enablers inside the ioctl */
		u64 en_starts;
		int wins, eexist, etxtbsy_held;
		int won;		/* an ENABLE has returned 0 */
		int left;		/* enablers and writers still running */
	} r;
};

static struct shared *sh;
static const char *who = "main";	/* category of this process */
static int nfails;
static u64 rng;

#define ADD(f, n)	__atomic_fetch_add(&sh->f, (n), __ATOMIC_RELAXED)
#define INC(f)		ADD(f, 1)
#define SINC(f)		__atomic_fetch_add(&sh->f, 1, __ATOMIC_SEQ_CST)
#define SDEC(f)		__atomic_fetch_sub(&sh->f, 1, __ATOMIC_SEQ_CST)
#define LOAD(f)		__atomic_load_n(&sh->f, __ATOMIC_SEQ_CST)
#define STORE(f, v)	__atomic_store_n(&sh->f, (v), __ATOMIC_SEQ_CST)

/* A violation: counted, and the first few printed as one write(2). */
static void __attribute__((format(printf, 1, 2))) bad(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	__atomic_fetch_add(&sh->violations, 1, __ATOMIC_SEQ_CST);
	if (++nfails > MAXFAILS)
		return;
	n = snprintf(buf, sizeof(buf), "FAIL [%s] ", who);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0)
		_exit(2);
}

static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng * 0x2545F4914F6CDD1DULL;
}

static u64 below(u64 n)
{
	return n ? rnd() % n : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int stopping(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	if (us > 0)
		nanosleep(&ts, NULL);
	else
		sched_yield();
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("vstress: out of memory");
	return p;
}

static unsigned char *load(const char *path, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	unsigned char *buf;
	size_t done = 0;

	if (fd < 0 || fstat(fd, &st) < 0)
		die("vstress: %s: %s", path, errname(errno));
	buf = xmalloc(st.st_size);
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, st.st_size - done);

		if (n <= 0)
			die("vstress: reading %s failed", path);
		done += n;
	}
	close(fd);
	*size = st.st_size;
	return buf;
}

static int is_verity(int fd)
{
	int flags = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return -errno;
	return !!(flags & FS_VERITY_FL);
}

static int path_is_verity(const char *path)
{
	int fd = open(path, O_RDONLY);
	int v;

	if (fd < 0)
		return -errno;
	v = is_verity(fd);
	close(fd);
	return v;
}

/* ------------------------------------------------------------ good files */

static struct vfile good[MAXFILES];
static int ngood;
static struct vfile corrupt;
static int have_corrupt;

static int open_ro(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		bad("open %s: %s", path, errname(errno));
	return fd;
}

/* Compare n bytes read at off with the reference; 0 if they match. */
static int check_bytes(const struct vfile *f, const unsigned char *buf,
		       size_t off, size_t n, const char *how)
{
	size_t i;

	if (!memcmp(buf, f->ref + off, n))
		return 0;
	for (i = 0; buf[i] == f->ref[off + i]; i++)
		;
	bad("%s %s: %zu bytes at %zu: unverified data, first difference at %zu",
	    how, f->path, n, off, off + i);
	return 1;
}

static void seq_reader(int id)
{
	static const size_t chunks[] = { 4096, 8192, 16384, 65536, 262144,
					 1 << 20, 5000, 12345, 1 };
	unsigned char *buf = xmalloc(1 << 20);
	u64 pass = id;

	while (!stopping()) {
		const struct vfile *f = &good[pass++ % ngood];
		size_t chunk = chunks[below(sizeof(chunks) / sizeof(chunks[0]))];
		size_t off = 0;
		int fd = open_ro(f->path);
		ssize_t n;

		if (fd < 0)
			return;
		if (chunk == 1)		/* a few single bytes, then big reads */
			chunk = 1 + below(4096);
		if (!below(4))
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		while (off < f->size && !stopping()) {
			size_t want = f->size - off < chunk ? f->size - off : chunk;

			n = pread(fd, buf, chunk, off);
			INC(seq_reads);
			if (n < 0) {
				INC(seq_err);
				bad("pread %s: %zu bytes at %zu: %s", f->path, chunk,
				    off, errname(errno));
				break;
			}
			if ((size_t)n != want) {
				INC(seq_short);
				bad("pread %s: %zu bytes at %zu returned %zd, expected %zu",
				    f->path, chunk, off, n, want);
				if (n == 0)
					break;
			}
			if (check_bytes(f, buf, off, n, "pread")) {
				INC(seq_mismatch);
				break;
			}
			ADD(seq_bytes, n);
			off += n;
		}
		if (off == f->size) {
			n = pread(fd, buf, chunk, off);
			if (n != 0)
				bad("pread %s at EOF (%zu) returned %zd (%s)", f->path,
				    off, n, n < 0 ? errname(errno) : "data");
			INC(seq_passes);
		}
		close(fd);
	}
}

static void random_reader(int id)
{
	unsigned char buf[BS];
	int fds[MAXFILES], i;

	(void)id;
	for (i = 0; i < ngood; i++) {
		fds[i] = open_ro(good[i].path);
		if (fds[i] < 0)
			return;
	}
	while (!stopping()) {
		const struct vfile *f;
		size_t off, want;
		ssize_t n;

		i = below(ngood);
		f = &good[i];
		off = below(f->size + 1);
		if (below(2))
			off &= ~(size_t)(BS - 1);
		want = f->size - off < BS ? f->size - off : BS;
		n = pread(fds[i], buf, BS, off);
		INC(rnd_reads);
		if (n < 0) {
			INC(rnd_err);
			bad("pread %s: 4096 bytes at %zu: %s", f->path, off,
			    errname(errno));
			continue;
		}
		if ((size_t)n != want) {
			INC(rnd_short);
			bad("pread %s: 4096 bytes at %zu returned %zd, expected %zu",
			    f->path, off, n, want);
		}
		if (check_bytes(f, buf, off, n, "pread"))
			INC(rnd_mismatch);
	}
}

static sigjmp_buf jb;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

static void catch_sigbus(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
}

static const int advice[] = { MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL };

/* A random order of n pages, or 0..n-1 */
static void page_order(long *order, long n, int shuffle)
{
	long i;

	for (i = 0; i < n; i++)
		order[i] = i;
	if (!shuffle)
		return;
	for (i = n - 1; i > 0; i--) {
		long j = below(i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

/*
 * One mmap pass over f: touch every page in a random or sequential order.
 * Returns through the counters of the caller's category.
 */
static void mmap_pass(const struct vfile *f, int fd, long *order)
{
	static const unsigned char zero[BS];
	static unsigned char page[BS];
	static volatile long k;
	long npages = (f->size + BS - 1) / BS;
	unsigned char *map;

	map = mmap(NULL, npages * BS, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		bad("mmap %s: %s", f->path, errname(errno));
		sleep_us(100000);
		return;
	}
	madvise(map, npages * BS, advice[below(3)]);
	page_order(order, npages, below(2));
	for (k = 0; k < npages && !stopping(); k++) {
		long p = order[k];
		size_t want = f->size - p * BS < BS ? f->size - p * BS : BS;

		if (sigsetjmp(jb, 1)) {
			/* SIGBUS on page p */
			if (p == f->bad) {
				INC(cm_block);
				INC(cm_block_sigbus);
			} else if (f->bad >= 0) {
				INC(cm_other);
				bad("mmap %s: SIGBUS on page %ld (only %ld is corrupted)",
				    f->path, p, f->bad);
			} else {
				INC(mm_pages);
				INC(mm_sigbus);
				bad("mmap %s: SIGBUS on page %ld", f->path, p);
			}
			continue;
		}
		memcpy(page, map + p * BS, BS);
		if (p == f->bad) {
			INC(cm_block);
			bad("mmap %s: page %ld, the corrupted one, was readable", f->path, p);
			continue;
		}
		if (f->bad >= 0)
			INC(cm_other);
		else
			INC(mm_pages);
		if (check_bytes(f, page, p * BS, want, "mmap") ||
		    memcmp(page + want, zero, BS - want)) {
			if (memcmp(page + want, zero, BS - want))
				bad("mmap %s: the tail of the last page past EOF is not zeros",
				    f->path);
			if (f->bad < 0)
				INC(mm_mismatch);
			continue;
		}
		if (f->bad >= 0)
			INC(cm_other_ok);
	}
	munmap(map, npages * BS);
}

static void mmap_reader(int id)
{
	long maxpages = 0, *order;
	int fds[MAXFILES], i;
	u64 pass = id;

	for (i = 0; i < ngood; i++) {
		fds[i] = open_ro(good[i].path);
		if (fds[i] < 0)
			return;
		if ((long)((good[i].size + BS - 1) / BS) > maxpages)
			maxpages = (good[i].size + BS - 1) / BS;
	}
	order = xmalloc(maxpages * sizeof(*order));
	catch_sigbus();
	while (!stopping()) {
		i = pass++ % ngood;
		mmap_pass(&good[i], fds[i], order);
		INC(mm_passes);
	}
}

/* --------------------------------------------------------- corrupted file */

static void corrupt_preader(void)
{
	const struct vfile *f = &corrupt;
	long nblocks = (f->size + BS - 1) / BS, K = f->bad;
	unsigned char *buf = xmalloc(16 * BS);
	int fd = open_ro(f->path);

	if (fd < 0)
		return;
	while (!stopping()) {
		unsigned int op = below(8);
		size_t off, len;
		ssize_t n;

		if (!below(16))
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (op < 3) {
			/* the block, whole or a part of it */
			if (op == 0) {
				off = K * BS;
				len = BS;
			} else {
				off = K * BS + below(BS);
				len = 1 + below((K + 1) * BS - off);
			}
			n = pread(fd, buf, len, off);
			INC(cr_block_reads);
			if (n < 0 && errno == EIO) {
				INC(cr_block_eio);
			} else if (n < 0) {
				bad("pread %s: %zu bytes at %zu in block %ld: %s, not EIO",
				    f->path, len, off, K, errname(errno));
			} else {
				bad("pread %s: %zu bytes at %zu in the corrupted block %ld returned %zd bytes",
				    f->path, len, off, K, n);
			}
		} else if (op < 5 && K > 0) {
			/* from before the block, across it: stops at its start */
			size_t start = (K - 1 - below(K < 4 ? K : 4)) * BS + below(BS);
			size_t pos = start;

			len = K * BS - start + 1 + below(3 * BS);
			if (len > 16 * BS)
				len = 16 * BS;
			INC(cr_spans);
			for (;;) {
				n = pread(fd, buf, start + len - pos, pos);
				if (n <= 0)
					break;
				if (pos + n > (size_t)K * BS) {
					bad("pread %s from %zu: returned bytes up to %zu, past the start of the corrupted block %ld",
					    f->path, start, pos + n, K);
					break;
				}
				if (check_bytes(f, buf, pos, n, "pread"))
					break;
				pos += n;
			}
			if (n < 0 && errno == EIO && pos == (size_t)K * BS)
				INC(cr_span_ok);
			else if (n <= 0)
				bad("pread %s of %zu bytes from %zu: stopped at %zu with %s, expected EIO at %zu",
				    f->path, len, start, pos,
				    n < 0 ? errname(errno) : "EOF", (size_t)K * BS);
		} else {
			/* any other block */
			long b = below(nblocks - 1);
			size_t want;

			if (b >= K)
				b++;
			off = b * BS;
			want = f->size - off < BS ? f->size - off : BS;
			n = pread(fd, buf, BS, off);
			INC(cr_other_reads);
			if (n < 0)
				bad("pread %s: block %ld (not the corrupted one): %s",
				    f->path, b, errname(errno));
			else if ((size_t)n != want)
				bad("pread %s: block %ld returned %zd bytes, expected %zu",
				    f->path, b, n, want);
			else if (!check_bytes(f, buf, off, n, "pread"))
				INC(cr_other_ok);
		}
	}
}

static void corrupt_mreader(void)
{
	long *order = xmalloc(((corrupt.size + BS - 1) / BS) * sizeof(*order));
	int fd = open_ro(corrupt.path);

	if (fd < 0)
		return;
	catch_sigbus();
	while (!stopping())
		mmap_pass(&corrupt, fd, order);
}

/* ------------------------------------------------------------ drop_caches */

static void dropper(void)
{
	const char *val = "4";	/* only silences the log line of each write */

	while (!stopping()) {
		int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

		if (fd < 0 || write(fd, val, 1) != 1) {
			bad("writing %s to /proc/sys/vm/drop_caches: %s", val,
			    errname(errno));
			if (fd >= 0)
				close(fd);
			return;
		}
		close(fd);
		if (*val == '3')
			INC(drops);
		val = "3";
		sleep_us(below(10000));
	}
}

/* ------------------------------------------------------------ race rounds */

static const char *race_dir;
static unsigned char *tmpl;
static size_t tmpl_size, data_size;
static struct fsverity_digest *want_digest;
static char want_meas[300];

static void parse_template(const char *path, const char *meas)
{
	struct fsverity_descriptor d;
	unsigned int rev, alg, i;
	const char *hex = strchr(meas, ':');
	size_t len;

	tmpl = load(path, &tmpl_size);
	if (tmpl_size < sizeof(d) + 12 || memcmp(tmpl + tmpl_size - 8, FS_VERITY_MAGIC, 8))
		die("vstress: %s has no fs-verity footer: not a set-up file", path);
	rev = tmpl[tmpl_size - 12] | tmpl[tmpl_size - 11] << 8 |
	      tmpl[tmpl_size - 10] << 16 | (unsigned int)tmpl[tmpl_size - 9] << 24;
	if (rev > tmpl_size || rev < sizeof(d))
		die("vstress: %s: bad descriptor offset", path);
	memcpy(&d, tmpl + tmpl_size - rev, sizeof(d));
	data_size = le64toh(d.orig_file_size);
	if (data_size >= tmpl_size)
		die("vstress: %s: data size %zu >= file size", path, data_size);

	if (!hex)
		die("vstress: measurement '%s' is not ALG:HEX", meas);
	if (!strncmp(meas, "sha256:", 7))
		alg = FS_VERITY_ALG_SHA256;
	else if (!strncmp(meas, "sha512:", 7))
		alg = FS_VERITY_ALG_SHA512;
	else if (!strncmp(meas, "crc32c:", 7))
		alg = FS_VERITY_ALG_CRC32C;
	else
		die("vstress: unknown algorithm in '%s'", meas);
	hex++;
	len = strlen(hex);
	if (!len || len % 2 || len > 128)
		die("vstress: bad measurement '%s'", meas);
	want_digest = calloc(1, sizeof(*want_digest) + 64);
	if (!want_digest)
		die("out of memory");
	want_digest->digest_algorithm = alg;
	want_digest->digest_size = len / 2;
	for (i = 0; i < len / 2; i++) {
		int h = hexval(hex[2 * i]), l = hexval(hex[2 * i + 1]);

		if (h < 0 || l < 0)
			die("vstress: bad measurement '%s'", meas);
		want_digest->digest[i] = h << 4 | l;
	}
	snprintf(want_meas, sizeof(want_meas), "%s", meas);
}

/* Block on the go pipe until the coordinator closes its write end. */
static void ready_and_wait(int ready, int go)
{
	char c = 'r';

	if (write(ready, &c, 1) != 1)
		_exit(2);
	close(ready);
	if (read(go, &c, 1) != 0)
		_exit(2);
	close(go);
}

static void enabler(const char *path, int ready, int go)
{
	int fd = -1, early = below(2), v;
	double t0;

	if (early)
		fd = open_ro(path);
	ready_and_wait(ready, go);
	if (!early)
		fd = open_ro(path);
	if (fd < 0)
		goto out;
	t0 = now();
	for (;;) {
		int held, trying, r, e;
		u64 rel1, rel2, ts1, ts2;

		SINC(r.en_active);
		SINC(r.en_starts);
		held = LOAD(r.held);
		rel1 = LOAD(r.releases);
		trying = LOAD(r.trying);
		ts1 = LOAD(r.try_starts);
		r = ioctl(fd, FS_IOC_ENABLE_VERITY, NULL);
		e = errno;
		rel2 = LOAD(r.releases);
		ts2 = LOAD(r.try_starts);
		SDEC(r.en_active);
		INC(en_calls);
		if (r == 0 || e == EEXIST) {
			int held_through = held > 0 && rel1 == rel2;

			if (r == 0) {
				__atomic_fetch_add(&sh->r.wins, 1, __ATOMIC_SEQ_CST);
				STORE(r.won, 1);
				INC(wins);
			} else {
				__atomic_fetch_add(&sh->r.eexist, 1, __ATOMIC_SEQ_CST);
				INC(en_eexist);
			}
			if (held_through)
				bad("%s: ENABLE returned %s while a writer held the file open for writing throughout",
				    path, r ? "EEXIST" : "0");
			v = is_verity(fd);
			if (v != 1)
				bad("%s: ENABLE returned %s but FS_IOC_GETFLAGS shows %s",
				    path, r ? "EEXIST" : "0",
				    v < 0 ? errname(-v) : "no verity flag");
			if (r == 0) {
				struct stat st;

				if (fstat(fd, &st) < 0 || (size_t)st.st_size != data_size)
					bad("%s: after ENABLE st_size is %lld, not the data size %zu",
					    path, (long long)st.st_size, data_size);
			}
			break;
		}
		if (e != ETXTBSY) {
			bad("%s: ENABLE failed with %s, expected 0, EEXIST or ETXTBSY",
			    path, errname(e));
			break;
		}
		INC(en_etxtbsy);
		if (held > 0 && rel1 == rel2) {
			SINC(r.etxtbsy_held);
			INC(en_etxtbsy_held);
		} else if (trying == 0 && ts1 == ts2)
			bad("%s: ENABLE failed with ETXTBSY while no writer had it open",
			    path);
		if (now() - t0 > 30) {
			bad("%s: no ENABLE won within 30 s of ETXTBSY", path);
			break;
		}
		sleep_us(below(400));
	}
	close(fd);
out:
	SDEC(r.left);
}

/*
 * One open for writing: O_WRONLY, O_RDWR, or O_RDWR turned into a shared
 * writable mapping (KIND 0, 1, 2).  Returns 1 if it got write access (then
 * *fd or *map holds it and r.held counts it), 0 if it failed as allowed,
 * -1 if the writer should stop (EPERM: the file is verity now).
 */
static int writer_open(const char *path, int kind, int *fd, void **map)
{
	int en_active, e, v;
	u64 es1, es2;

	*map = MAP_FAILED;
	SINC(r.trying);
	SINC(r.try_starts);
	en_active = LOAD(r.en_active);
	es1 = LOAD(r.en_starts);
	*fd = open(path, kind == 0 ? O_WRONLY : O_RDWR);
	e = errno;
	es2 = LOAD(r.en_starts);
	INC(wr_opens);
	if (*fd < 0) {
		SDEC(r.trying);
		if (e == ETXTBSY) {
			INC(wr_etxtbsy);
			if (en_active == 0 && es1 == es2)
				bad("%s: open for writing failed with ETXTBSY while no ENABLE was running",
				    path);
			return 0;
		}
		if (e == EPERM) {
			INC(wr_eperm);
			v = path_is_verity(path);
			if (v != 1)
				bad("%s: open for writing failed with EPERM but the file is %s",
				    path, v < 0 ? errname(-v) : "not verity");
			return -1;
		}
		bad("%s: open for writing failed with %s, expected success, ETXTBSY or EPERM",
		    path, errname(e));
		return 0;
	}
	SINC(r.held);
	INC(wr_ok);
	if (LOAD(r.won))
		bad("%s: open for writing succeeded after an ENABLE had returned 0",
		    path);
	v = is_verity(*fd);
	if (v != 0)
		bad("%s: open for writing succeeded and FS_IOC_GETFLAGS shows %s",
		    path, v < 0 ? errname(-v) : "the verity flag");
	if (below(2)) {
		/* dirty the first block with the same bytes */
		if (pwrite(*fd, tmpl, BS, 0) != BS)
			bad("%s: pwrite of block 0 through the write fd: %s",
			    path, errname(errno));
		else
			INC(wr_rewrites);
	}
	if (kind == 2) {
		/* only the shared writable mapping keeps write access */
		*map = mmap(NULL, BS, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
		if (*map == MAP_FAILED)
			bad("%s: shared writable mmap: %s", path, errname(errno));
		close(*fd);
		*fd = -1;
	}
	return 1;
}

static void writer_release(int fd, void *map)
{
	SDEC(r.held);
	SINC(r.releases);
	if (map != MAP_FAILED)
		munmap(map, BS);
	if (fd >= 0)
		close(fd);
	SDEC(r.trying);
}

/*
 * PRE: the first open happens before the release, and the file is held
 * until an ENABLE has failed with ETXTBSY while it was held (10 s at most).
 */
static void writer(const char *path, int ready, int go, int pre)
{
	int attempts = 1 + below(4), a, fd, got = 0;
	void *map;

	if (pre) {
		got = writer_open(path, below(3), &fd, &map);
		if (got != 1)
			bad("%s: the first open for writing, before any ENABLE, did not succeed",
			    path);
	}
	ready_and_wait(ready, go);
	if (got == 1) {
		double t0 = now();

		while (!LOAD(r.etxtbsy_held) && now() - t0 < 10)
			sleep_us(200);
		if (!LOAD(r.etxtbsy_held))
			bad("%s: held open for writing for 10 s and no ENABLE failed with ETXTBSY meanwhile",
			    path);
		writer_release(fd, map);
		INC(held_rounds);
	}
	for (a = 0; a < attempts; a++) {
		long hold = (long[]){ 0, 50, 500, 3000 }[below(4)];

		got = writer_open(path, below(3), &fd, &map);
		if (got < 0)
			break;
		if (got) {
			sleep_us(hold);
			writer_release(fd, map);
		}
		sleep_us(below(500));
	}
	SDEC(r.left);
}

static void race_reader(const char *path, int ready, int go)
{
	unsigned char *buf = xmalloc(65536);
	int fd = open_ro(path), last = 0;

	ready_and_wait(ready, go);
	if (fd < 0)
		return;
	while (!last) {
		size_t off = below(tmpl_size + 100), len = 1 + below(65536);
		size_t efull = off < tmpl_size ? tmpl_size - off : 0;
		size_t edata = off < data_size ? data_size - off : 0;
		int won;
		struct stat st;
		ssize_t n;

		last = LOAD(r.left) == 0;
		won = LOAD(r.won);
		if (below(4) == 0) {
			close(fd);
			fd = open_ro(path);
			if (fd < 0)
				return;
			INC(rr_reopens);
		}
		if (fstat(fd, &st) < 0)
			bad("fstat %s: %s", path, errname(errno));
		else if ((size_t)st.st_size != data_size &&
			 (won || (size_t)st.st_size != tmpl_size))
			bad("%s: st_size %lld during the round (full size %zu, data size %zu%s)",
			    path, (long long)st.st_size, tmpl_size, data_size,
			    won ? ", ENABLE done" : "");
		n = pread(fd, buf, len, off);
		INC(rr_reads);
		if (n < 0) {
			bad("pread %s: %zu bytes at %zu during the round: %s",
			    path, len, off, errname(errno));
			continue;
		}
		if ((size_t)n > (len < efull ? len : efull) ||
		    (size_t)n < (len < edata ? len : edata) ||
		    (won && (size_t)n != (len < edata ? len : edata))) {
			bad("pread %s: %zu bytes at %zu returned %zd (full size %zu, data size %zu%s)",
			    path, len, off, n, tmpl_size, data_size,
			    won ? ", ENABLE done" : "");
			continue;
		}
		if (n && memcmp(buf, tmpl + off, n))
			bad("pread %s: %zd bytes at %zu during the round differ from the file's",
			    path, n, off);
		if (!last)
			sleep_us(below(300));
	}
	close(fd);
}

static void check_round(const char *path, int nen)
{
	struct fsverity_digest *d = calloc(1, sizeof(*d) + 64);
	unsigned char *buf = xmalloc(data_size + 1);
	int fd = open_ro(path), wins = LOAD(r.wins), v;
	size_t got = 0;
	struct stat st;
	ssize_t n = 0;

	if (wins != 1)
		bad("%s: %d ENABLEs returned 0 in the round, expected exactly one",
		    path, wins);
	if (LOAD(r.eexist) != nen - 1)
		bad("%s: %d of the round's %d ENABLEs ended with EEXIST, expected %d",
		    path, LOAD(r.eexist), nen, nen - 1);
	if (fd < 0 || !d)
		return;
	/* now and forever: no write access, no second ENABLE */
	for (v = 0; v < 2; v++) {
		int wfd = open(path, v ? O_RDWR : O_WRONLY);

		if (wfd >= 0 || errno != EPERM) {
			bad("%s: open %s after the round: %s, expected EPERM", path,
			    v ? "O_RDWR" : "O_WRONLY", wfd >= 0 ? "success" : errname(errno));
			if (wfd >= 0)
				close(wfd);
		} else {
			INC(eperm_after);
		}
	}
	if (ioctl(fd, FS_IOC_ENABLE_VERITY, NULL) == 0)
		bad("%s: ENABLE after the round succeeded, expected EEXIST", path);
	else if (errno != EEXIST)
		bad("%s: ENABLE after the round: %s, expected EEXIST", path,
		    errname(errno));
	v = is_verity(fd);
	if (v != 1)
		bad("%s: after the round FS_IOC_GETFLAGS shows %s", path,
		    v < 0 ? errname(-v) : "no verity flag");
	if (fstat(fd, &st) < 0 || (size_t)st.st_size != data_size)
		bad("%s: after the round st_size is %lld, not %zu", path,
		    (long long)st.st_size, data_size);
	d->digest_size = 64;
	if (ioctl(fd, FS_IOC_MEASURE_VERITY, d) < 0)
		bad("%s: FS_IOC_MEASURE_VERITY: %s", path, errname(errno));
	else if (d->digest_algorithm != want_digest->digest_algorithm ||
		 d->digest_size != want_digest->digest_size ||
		 memcmp(d->digest, want_digest->digest, d->digest_size))
		bad("%s: FS_IOC_MEASURE_VERITY differs from '%s' (alg %u, %u bytes)",
		    path, want_meas, d->digest_algorithm, d->digest_size);
	else
		INC(measured_ok);
	while (got <= data_size) {
		n = pread(fd, buf + got, data_size + 1 - got, got);
		if (n <= 0)
			break;
		got += n;
	}
	if (n < 0)
		bad("%s: reading it back after the round: %s at %zu", path,
		    errname(errno), got);
	else if (got != data_size || memcmp(buf, tmpl, data_size))
		bad("%s: after the round it reads back %zu bytes, not the %zu of the data",
		    path, got, data_size);
	close(fd);
	free(buf);
	free(d);
}

static int make_round_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	size_t done = 0;

	if (fd < 0) {
		bad("creating %s: %s", path, errname(errno));
		return -1;
	}
	while (done < tmpl_size) {
		ssize_t n = write(fd, tmpl + done, tmpl_size - done);

		if (n <= 0) {
			bad("writing %s: %s", path, errname(errno));
			close(fd);
			return -1;
		}
		done += n;
	}
	close(fd);
	return 0;
}

static void race_coordinator(void)
{
	char path[4096];
	u64 round = 0;

	while (!stopping()) {
		int nen = 2 + below(3), nwr = below(3), pre = round % 4 == 0, n, i;
		int ready[2], go[2];
		pid_t pids[8];
		char c;

		if (pre && !nwr)
			nwr = 1;
		n = nen + nwr + 1;
		snprintf(path, sizeof(path), "%s/r%llu", race_dir, round++);
		if (make_round_file(path) < 0)
			return;
		memset(&sh->r, 0, sizeof(sh->r));
		STORE(r.left, nen + nwr);
		if (pipe(ready) < 0 || pipe(go) < 0)
			die("vstress: pipe: %s", errname(errno));
		for (i = 0; i < n; i++) {
			u64 seed = rnd();

			pids[i] = fork();
			if (pids[i] < 0)
				die("vstress: fork: %s", errname(errno));
			if (pids[i] == 0) {
				rng = seed | 1;
				close(ready[0]);
				close(go[1]);
				if (i < nen)
					enabler(path, ready[1], go[0]);
				else if (i < nen + nwr)
					writer(path, ready[1], go[0], pre && i == nen);
				else
					race_reader(path, ready[1], go[0]);
				_exit(0);
			}
		}
		close(ready[1]);
		close(go[0]);
		for (i = 0; i < n; i++)
			if (read(ready[0], &c, 1) != 1)
				bad("round %llu: a process died before the release", round - 1);
		close(ready[0]);
		close(go[1]);		/* the release: every read(go) returns 0 */
		for (i = 0; i < n; i++) {
			int status;

			if (waitpid(pids[i], &status, 0) < 0)
				die("vstress: waitpid: %s", errname(errno));
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				bad("round %llu: %s %d ended with %s %d", round - 1,
				    i < nen ? "enabler" : i < nen + nwr ? "writer" : "reader", i,
				    WIFEXITED(status) ? "status" : "signal",
				    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		}
		check_round(path, nen);
		INC(rounds);
		if (unlink(path) < 0)
			bad("unlink %s: %s", path, errname(errno));
	}
}

/* ------------------------------------------------------------------ main */

struct proc {
	pid_t pid;
	const char *cat;
	char name[24];
};

static struct proc procs[MAXPROCS];
static int nprocs;

static u64 seed;

static void spawn(const char *cat, const char *name, int id, void (*fn)(int))
{
	struct proc *p = &procs[nprocs];
	pid_t pid;

	if (nprocs == MAXPROCS)
		die("vstress: too many workers");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("vstress: fork: %s", errname(errno));
	if (pid == 0) {
		who = cat;
		rng = (seed ^ (0x9E3779B97F4A7C15ULL * (nprocs + 1))) | 1;
		fn(id);
		_exit(0);
	}
	p->pid = pid;
	p->cat = cat;
	snprintf(p->name, sizeof(p->name), "%s#%d", name, id);
	nprocs++;
}

static void run_corrupt_preader(int id) { (void)id; corrupt_preader(); }
static void run_corrupt_mreader(int id) { (void)id; corrupt_mreader(); }
static void run_dropper(int id) { (void)id; dropper(); }
static void run_race(int id) { (void)id; race_coordinator(); }

/* split "A:B[:C]" in place; the last field takes the rest */
static int split(char *s, char **f, int n)
{
	int i;

	for (i = 0; i < n - 1; i++) {
		f[i] = s;
		s = strchr(s, ':');
		if (!s)
			return -1;
		*s++ = 0;
	}
	f[i] = s;
	return *s ? 0 : -1;
}

static void usage(void)
{
	die("usage: vstress [-t SECONDS] [-s SEED] [-w READERS] [-G GRACE] [-n] [-H COMMAND] "
	    "-g FILE:REF ... [-c FILE:REF:BLOCK] [-e DIR:TEMPLATE:MEASUREMENT]");
}

static void set_file(struct vfile *v, char *path, char *ref)
{
	struct stat st;

	v->path = path;
	v->ref = load(ref, &v->size);
	v->bad = -1;
	if (stat(path, &st) < 0)
		die("vstress: %s: %s", path, errname(errno));
	if ((size_t)st.st_size != v->size)
		die("vstress: %s has %lld bytes, its reference %s %zu", path,
		    (long long)st.st_size, ref, v->size);
}

int main(int argc, char **argv)
{
	double seconds = 20, grace = 60, t_end;
	int readers = 2, nodrop = 0, c, i, alive;
	const char *hang_cmd = NULL;
	char *f[3];

	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("vstress: mmap: %s", errname(errno));
	seed = time(NULL) * 7919 + getpid();
	while ((c = getopt(argc, argv, "t:s:w:G:nH:g:c:e:")) != -1) {
		switch (c) {
		case 't': seconds = parse_u64(optarg, "seconds"); break;
		case 's': seed = parse_u64(optarg, "seed"); break;
		case 'w': readers = parse_u64(optarg, "readers"); break;
		case 'G': grace = parse_u64(optarg, "grace"); break;
		case 'n': nodrop = 1; break;
		case 'H': hang_cmd = optarg; break;
		case 'g':
			if (ngood == MAXFILES || split(optarg, f, 2))
				usage();
			good[ngood].path = f[0];
			good[ngood++].ref = (unsigned char *)f[1];
			break;
		case 'c':
			if (have_corrupt || split(optarg, f, 3))
				usage();
			corrupt.path = f[0];
			corrupt.ref = (unsigned char *)f[1];
			corrupt.bad = parse_u64(f[2], "block");
			have_corrupt = 1;
			break;
		case 'e':
			if (race_dir || split(optarg, f, 3))
				usage();
			race_dir = f[0];
			parse_template(f[1], f[2]);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (!ngood && !have_corrupt && !race_dir))
		usage();
	if (sysconf(_SC_PAGESIZE) != BS)
		die("vstress: the page size is not 4096");
	printf("# vstress: seed %llu, %g s, %d readers of each kind, %d good files%s%s, %ld CPUs\n",
	       seed, seconds, readers, ngood, have_corrupt ? ", a corrupted file" : "",
	       race_dir ? ", race rounds" : "", sysconf(_SC_NPROCESSORS_ONLN));

	/* the race rounds fork often: their process holds no reference data */
	rng = seed | 1;
	if (race_dir)
		spawn("race", "race", 0, run_race);
	for (i = 0; i < ngood; i++)
		set_file(&good[i], (char *)good[i].path, (char *)good[i].ref);
	if (have_corrupt) {
		long b = corrupt.bad;

		set_file(&corrupt, (char *)corrupt.path, (char *)corrupt.ref);
		corrupt.bad = b;
		if ((size_t)b * BS >= corrupt.size)
			die("vstress: block %ld is past the end of %s", b, corrupt.path);
	}
	for (i = 0; ngood && i < readers; i++) {
		spawn("seq", "seq", i, seq_reader);
		spawn("random", "random", i, random_reader);
		spawn("mmap", "mmap", i, mmap_reader);
	}
	if (have_corrupt) {
		spawn("corrupt", "corrupt-pread", 0, run_corrupt_preader);
		spawn("corrupt", "corrupt-mmap", 0, run_corrupt_mreader);
	}
	if (!nodrop)
		spawn("drop_caches", "drop_caches", 0, run_dropper);

	sleep_us((long)(seconds * 1e6));
	__atomic_store_n(&sh->stop, 1, __ATOMIC_SEQ_CST);
	t_end = now();
	do {
		int status;

		alive = 0;
		for (i = 0; i < nprocs; i++) {
			pid_t r;

			if (!procs[i].pid)
				continue;
			r = waitpid(procs[i].pid, &status, WNOHANG);
			if (r == 0) {
				alive++;
				continue;
			}
			procs[i].pid = 0;
			if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
				who = procs[i].cat;
				bad("worker %s ended with %s %d", procs[i].name,
				    r < 0 ? "waitpid error" :
				    WIFEXITED(status) ? "status" : "signal",
				    r < 0 ? errno : WIFEXITED(status) ?
				    WEXITSTATUS(status) : WTERMSIG(status));
			}
		}
		if (alive)
			sleep_us(50000);
	} while (alive && now() - t_end < grace);
	if (alive && hang_cmd && system(hang_cmd) != 0) {
		who = "main";
		bad("the hang report '%s' failed", hang_cmd);
	}
	for (i = 0; i < nprocs; i++) {
		if (!procs[i].pid)
			continue;
		who = procs[i].cat;
		bad("worker %s still running %g s after the end: hung (see the kernel log); killed",
		    procs[i].name, grace);
		kill(procs[i].pid, SIGKILL);
	}
	who = "main";
	if (ngood) {
		printf("seq: readers=%d passes=%llu reads=%llu mib=%llu errors=%llu short=%llu mismatches=%llu\n",
		       readers, sh->seq_passes, sh->seq_reads, sh->seq_bytes >> 20,
		       sh->seq_err, sh->seq_short, sh->seq_mismatch);
		printf("random: readers=%d reads=%llu errors=%llu short=%llu mismatches=%llu\n",
		       readers, sh->rnd_reads, sh->rnd_err, sh->rnd_short, sh->rnd_mismatch);
		printf("mmap: readers=%d passes=%llu pages=%llu sigbus=%llu mismatches=%llu\n",
		       readers, sh->mm_passes, sh->mm_pages, sh->mm_sigbus, sh->mm_mismatch);
	}
	if (have_corrupt)
		printf("corrupt: block=%ld block-reads=%llu block-eio=%llu spans=%llu span-stop-ok=%llu other-reads=%llu other-ok=%llu mmap-block=%llu mmap-sigbus=%llu mmap-other=%llu mmap-other-ok=%llu\n",
		       corrupt.bad, sh->cr_block_reads, sh->cr_block_eio, sh->cr_spans,
		       sh->cr_span_ok, sh->cr_other_reads, sh->cr_other_ok,
		       sh->cm_block, sh->cm_block_sigbus, sh->cm_other, sh->cm_other_ok);
	printf("drop_caches: writes=%llu\n", sh->drops);
	if (race_dir)
		printf("race: rounds=%llu wins=%llu enable-calls=%llu eexist=%llu etxtbsy=%llu etxtbsy-while-held=%llu writer-opens=%llu writer-ok=%llu writer-etxtbsy=%llu writer-eperm=%llu writer-rewrites=%llu held-rounds=%llu eperm-after=%llu reader-reads=%llu reader-reopens=%llu measured-ok=%llu\n",
		       sh->rounds, sh->wins, sh->en_calls, sh->en_eexist, sh->en_etxtbsy,
		       sh->en_etxtbsy_held, sh->wr_opens, sh->wr_ok, sh->wr_etxtbsy,
		       sh->wr_eperm, sh->wr_rewrites, sh->held_rounds, sh->eperm_after,
		       sh->rr_reads, sh->rr_reopens,
		       sh->measured_ok);
	if (sh->violations) {
		printf("vstress: %llu violations\n", sh->violations);
		return 1;
	}
	printf("vstress: ok\n");
	return 0;
}
