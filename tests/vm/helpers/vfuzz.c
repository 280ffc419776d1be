/*
 * vfuzz: seeded fuzzer of fs-verity (2018 format) metadata.
 *
 *   vfuzz enable DIR            mutate valid verity files, ENABLE each copy in
 *                               DIR and check the outcome against an
 *                               independent model of the format (see below)
 *   vfuzz raw-prep DIR PLAN ROUND N
 *                               make N valid files in DIR, pick bytes to flip,
 *                               locate them with FIEMAP, enable the files and
 *                               write PLAN
 *   vfuzz raw-poke PLAN DEV     (filesystem unmounted) flip the planned bytes
 *                               on the block device DEV
 *   vfuzz raw-check PLAN        (mounted again) open/read/measure every file
 *                               of PLAN and check it against the model
 *   vfuzz gen OUT SIZE ALG SALTHEX DATASEED
 *                               write a base file (data of `gen SIZE DATASEED`
 *                               plus metadata), print "ALG:MEASUREMENT"
 *   vfuzz wrap IN OUT ALG       write IN plus metadata over all of IN (even if
 *                               IN was set up already), print the measurement
 *   vfuzz deep OUT REF SIZE ALG SEED [full] BLOCK...
 *                               a sparse file with the tree geometry of SIZE
 *                               in which only the listed data blocks and their
 *                               tree paths (or the whole tree) are written
 *                               (see cmd_deep())
 *   vfuzz selftest [N]          hash test vectors, the model on the base files
 *                               and N mutated copies (no ioctl: host-safe)
 *
 * Environment: VFUZZ_SEED (default: time-derived, printed as "# vfuzz seed
 * S"), VFUZZ_CASES (enable cases, default 5000), VFUZZ_CASE (run only this
 * case number: reproduces one failure), VFUZZ_VERBOSE=1 (a line per case).
 *
 * The model is a second implementation of the format: it finds the footer
 * (last non-zero byte of the last page), checks every rule of the format,
 * computes the measurement H(descriptor || authenticated extensions) with
 * its own SHA-256/SHA-512/CRC-32C, and for a valid file which data blocks
 * verify against the tree (a block verifies iff every hash on its path to
 * the root hash matches).  The kernel must agree exactly: ENABLE fails with
 * EBADMSG/EINVAL (file unchanged, not verity) iff the model rejects; on
 * success MEASURE equals the model's measurement, st_size is
 * orig_file_size, blocks that verify read back byte for byte, the others
 * fail with EIO.
 *
 * Exit status: 0 all cases passed, 1 a case failed, 2 usage or setup error.
 *
 * The sources: vfuzz-format.c, the model of the format (hashes, the layout
 * of the base files, the parser); vfuzz-mutate.c, the cases (the seeded
 * generator, the pool of base files, the mutations); this file, the
 * command line, the modes and the checks of the kernel's answers.
 */
#include "common.h"
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include "vfuzz-format.h"
#include "vfuzz-mutate.h"

#define VERITY_FL	0x00100000

/* ============================================================ file I/O */

static int fails;
static unsigned long long n_rejected, n_enabled, n_eio_cases, n_eio_blocks;
static unsigned long long per_mut[M_COUNT][2];
static unsigned long long errnos[140];

static void failure(const char *ctx, const char *fmt, ...)
{
	va_list ap;

	fails++;
	printf("FAIL seed %llu %s: ", (unsigned long long)seed, ctx);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n  mutation: %s\n", mdesc);
	fflush(stdout);
}

static int write_file(const char *path, const u8 *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	size_t done = 0;

	if (fd < 0)
		die("vfuzz: create %s: %s", path, errname(errno));
	while (done < len) {
		ssize_t n = write(fd, p + done, len - done);

		if (n <= 0)
			die("vfuzz: write %s: %s", path, n ? errname(errno) : "short");
		done += n;
	}
	if (fsync(fd) < 0)
		die("vfuzz: fsync %s: %s", path, errname(errno));
	close(fd);
	return 0;
}

static int get_flags(int fd, long *flags)
{
	int v = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &v) < 0)
		return -1;
	*flags = v;
	return 0;
}

/* The whole file equals p[0..len) and is not verity */
static void check_unchanged(const char *ctx, int fd, const u8 *p, size_t len)
{
	static u8 buf[MAX_REGION + 64 * BLK];
	struct stat st;
	size_t done = 0;
	long flags = 0;

	if (fstat(fd, &st) < 0 || (size_t)st.st_size != len) {
		failure(ctx, "after the failed ENABLE, st_size %lld, wrote %zu",
			(long long)st.st_size, len);
		return;
	}
	if (get_flags(fd, &flags) < 0 || (flags & VERITY_FL)) {
		failure(ctx, "after the failed ENABLE, GETFLAGS 0x%lx (%s)", flags,
			errname(errno));
		return;
	}
	while (done < len) {
		ssize_t n = pread(fd, buf, len - done > sizeof(buf) ? sizeof(buf) : len - done, done);

		if (n <= 0) {
			failure(ctx, "after the failed ENABLE, read at %zu: %s", done,
				n ? errname(errno) : "EOF");
			return;
		}
		if (memcmp(buf, p + done, n)) {
			failure(ctx, "after the failed ENABLE, contents changed near offset %zu", done);
			return;
		}
		done += n;
	}
}

/*
 * A verity file open on fd whose full contents are f (model m valid): the
 * measurement, the flag, st_size, every data block (exact bytes iff the
 * model says it verifies, else EIO) and EOF.
 */
static void check_verity(const char *ctx, int fd, const u8 *f, const struct model *m)
{
	struct { struct fsverity_digest d; u8 buf[64]; } dg;
	static u8 buf[BLK];
	struct stat st;
	u8 *ok;
	long flags = 0;
	u64 i, eio = 0;
	ssize_t n;

	memset(&dg, 0, sizeof(dg));
	dg.d.digest_size = 64;
	if (ioctl(fd, FS_IOC_MEASURE_VERITY, &dg) < 0) {
		failure(ctx, "MEASURE: %s", errname(errno));
		return;
	}
	if (dg.d.digest_algorithm != m->alg || dg.d.digest_size != m->ds ||
	    memcmp(dg.d.digest, m->meas, m->ds)) {
		char a[129], b[129];

		hex(a, dg.d.digest, dg.d.digest_size <= 64 ? dg.d.digest_size : 64);
		hex(b, m->meas, m->ds);
		failure(ctx, "MEASURE gives %u:%s, recomputed %d:%s", dg.d.digest_algorithm,
			a, m->alg, b);
		return;
	}
	if (get_flags(fd, &flags) < 0 || !(flags & VERITY_FL)) {
		failure(ctx, "GETFLAGS 0x%lx (%s): no FS_VERITY_FL", flags, errname(errno));
		return;
	}
	if (fstat(fd, &st) < 0 || (u64)st.st_size != m->dsize) {
		failure(ctx, "st_size %lld, orig_file_size %llu", (long long)st.st_size,
			(unsigned long long)m->dsize);
		return;
	}
	ok = xmalloc(m->nblocks);
	model_blocks(m, f, ok);
	for (i = 0; i < m->nblocks; i++) {
		size_t want = m->dsize - i * BLK < BLK ? m->dsize - i * BLK : BLK;

		n = pread(fd, buf, BLK, i * BLK);
		if (ok[i]) {
			if (n != (ssize_t)want) {
				failure(ctx, "block %llu of %llu verifies but pread gives %zd (%s)",
					(unsigned long long)i, (unsigned long long)m->nblocks,
					n, n < 0 ? errname(errno) : "short");
				break;
			}
			if (memcmp(buf, f + i * BLK, want)) {
				failure(ctx, "block %llu: WRONG BYTES returned", (unsigned long long)i);
				break;
			}
		} else if (n >= 0 || errno != EIO) {
			failure(ctx, "block %llu does not verify but pread gives %zd (%s)%s",
				(unsigned long long)i, n, n < 0 ? errname(errno) : "data",
				n > 0 && memcmp(buf, f + i * BLK, n) ? ", WRONG BYTES" : "");
			break;
		} else {
			eio++;
		}
	}
	free(ok);
	if (i == m->nblocks && (n = pread(fd, buf, BLK, m->dsize)) != 0)
		failure(ctx, "pread at orig_file_size gives %zd (%s), not EOF", n,
			n < 0 ? errname(errno) : "data");
	if (eio) {
		n_eio_cases++;
		n_eio_blocks += eio;
	}
}

static void count_errno(int e)
{
	errnos[e >= 0 && e < 139 ? e : 139]++;
}

/* ============================================================ enable mode */

static int errno_allowed(const struct model *m, int e)
{
	if (e == EBADMSG || e == EINVAL)
		return 1;
	/* Signatures: a bad signature may also fail with the key layer's error */
	return m->sig && (e == ENOKEY || e == EKEYREJECTED);
}

static int verbose;

static void run_case(const char *dir, unsigned long long c)
{
	static struct img im;
	struct model m;
	const struct base *b;
	char path[4096], ctx[160];
	enum mut k, k2 = M_COUNT;
	int fd, rc, e;

	b = make_case(&im, c, &k);
	/* sometimes a second, in-place mutation on top */
	if (k != M_NONE && !rnd(6)) {
		static const enum mut extra[] = { M_FLIP_REGION, M_DATA, M_TREE, M_FLIP_DESC };

		k2 = extra[rnd(4)];
		mutate(&im, b, k2);
	}
	model_parse(im.p, im.len, &m);
	snprintf(ctx, sizeof(ctx), "case %llu base %ld (%s) [%s%s%s]", c,
		 (long)(b - pool), b->label, mut_name(k), k2 != M_COUNT ? "+" : "",
		 k2 != M_COUNT ? mut_name(k2) : "");
	snprintf(path, sizeof(path), "%s/f%06llu", dir, c);
	write_file(path, im.p, im.len);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("vfuzz: open %s: %s", path, errname(errno));
	rc = ioctl(fd, FS_IOC_ENABLE_VERITY, NULL);
	e = errno;
	if (verbose)
		printf("# %s: %s -> %s (model: %s)\n  %s\n", ctx, path, rc ? errname(e) : "OK",
		       m.valid ? "valid" : m.why, mdesc);
	per_mut[k][rc == 0]++;
	if (rc == 0) {
		n_enabled++;
		if (!m.valid)
			failure(ctx, "ENABLE succeeded, but the metadata is invalid: %s", m.why);
		else
			check_verity(ctx, fd, im.p, &m);
	} else {
		n_rejected++;
		count_errno(e);
		if (!errno_allowed(&m, e))
			failure(ctx, "ENABLE failed with %s (model: %s)", errname(e),
				m.valid ? "valid metadata" : m.why);
		else if (m.valid)
			failure(ctx, "ENABLE failed with %s, but the metadata is valid", errname(e));
		check_unchanged(ctx, fd, im.p, im.len);
	}
	close(fd);
	if (unlink(path) < 0)
		die("vfuzz: unlink %s: %s", path, errname(errno));
}

static void init_seed(void)
{
	const char *s = getenv("VFUZZ_SEED");

	if (s && *s) {
		seed = parse_u64(s, "VFUZZ_SEED");
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((u64)ts.tv_sec * 1000003u + ts.tv_nsec / 1000) % 1000000000u;
	}
	printf("# vfuzz seed %llu\n", (unsigned long long)seed);
	fflush(stdout);
}

static unsigned long long env_num(const char *name, unsigned long long def)
{
	const char *s = getenv(name);

	return s && *s ? parse_u64(s, name) : def;
}

static int cmd_enable(const char *dir)
{
	unsigned long long cases = env_num("VFUZZ_CASES", 5000), c, first = 0;
	const char *one = getenv("VFUZZ_CASE");
	time_t t0 = time(NULL);
	int k;

	init_seed();
	make_pool();
	if (one && *one) {
		first = parse_u64(one, "VFUZZ_CASE");
		cases = first + 1;
		verbose = 1;
	}
	for (c = first; c < cases; c++)
		run_case(dir, c);
	printf("# vfuzz enable: seed %llu, %llu cases in %lld s: %llu rejected, %llu enabled (%llu with EIO blocks, %llu blocks), %d failures\n",
	       (unsigned long long)seed, cases - first, (long long)(time(NULL) - t0),
	       n_rejected, n_enabled, n_eio_cases, n_eio_blocks, fails);
	printf("# errnos:");
	for (k = 0; k < 140; k++)
		if (errnos[k])
			printf(" %s=%llu", k < 139 ? errname(k) : "other", errnos[k]);
	printf("\n# per mutation (rejected/enabled):");
	for (k = 0; k < M_COUNT; k++)
		printf(" %s=%llu/%llu", mut_name(k), per_mut[k][0], per_mut[k][1]);
	printf("\n");
	if (fails)
		printf("# reproduce one case: VFUZZ_SEED=%llu VFUZZ_CASE=N vfuzz enable DIR\n",
		       (unsigned long long)seed);
	return fails ? 1 : 0;
}

/* ============================================================ raw-device mode */

#define RAW_TAG 0x726177
#define MAX_FLIPS 3

struct flip {
	u64 off, phys;
	unsigned int xor, orig;
};

/* The raw-mode base of file (round, i): small files, no big salts */
static void raw_base(struct base *b, unsigned long round, unsigned long i)
{
	rng = case_seed(RAW_TAG, round * 1000000 + i);
	make_base(b, rnd(NPOOL - 2));
}

static void raw_flips(const struct base *b, struct flip *fl, int *nfl)
{
	int n = rnd(4) ? 1 : 1 + rnd(MAX_FLIPS), i;

	for (i = 0; i < n; i++) {
		u64 lo, hi;
		int j;

		switch (rnd(10)) {
		case 0: case 1: case 2: case 3:		/* data */
			lo = 0; hi = b->dsize; break;
		case 4: case 5:				/* tree (or data) */
			lo = b->tree_blocks ? b->nblocks * BLK : 0;
			hi = b->tree_blocks ? b->desc : b->dsize; break;
		case 6: case 7: case 8:			/* descriptor region */
			lo = b->desc; hi = b->footer; break;
		default:				/* footer */
			lo = b->footer; hi = b->len; break;
		}
		fl[i].off = lo + rnd(hi - lo);
		/*
		 * Each flip must hit its own byte: raw-poke checks that the
		 * device still holds the original byte before flipping it.
		 */
		for (j = 0; j < i; j++)
			if (fl[j].off == fl[i].off)
				break;
		if (j < i) {
			i--;
			continue;
		}
		fl[i].xor = rnd(2) ? 1u << rnd(8) : 1 + rnd(255);
		fl[i].orig = b->img[fl[i].off];
	}
	*nfl = n;
}

static int fiemap_phys(int fd, u64 off, u64 *phys)
{
	const u32 unusable = FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
		FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED |
		FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_DATA_INLINE |
		FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_UNWRITTEN;
	struct { struct fiemap fm; struct fiemap_extent fe[8]; } x;
	unsigned int i;

	memset(&x, 0, sizeof(x));
	x.fm.fm_start = off;
	x.fm.fm_length = 1;
	x.fm.fm_flags = FIEMAP_FLAG_SYNC;
	x.fm.fm_extent_count = 8;
	if (ioctl(fd, FS_IOC_FIEMAP, &x.fm) < 0)
		return -1;
	for (i = 0; i < x.fm.fm_mapped_extents; i++) {
		struct fiemap_extent *fe = &x.fm.fm_extents[i];

		if (off < fe->fe_logical || off - fe->fe_logical >= fe->fe_length)
			continue;
		if (fe->fe_flags & unusable)
			return -1;
		*phys = fe->fe_physical + (off - fe->fe_logical);
		return 0;
	}
	return -1;
}

static int cmd_raw_prep(const char *dir, const char *plan, unsigned long round,
			unsigned long n)
{
	static struct base b;
	FILE *pf = fopen(plan, "w");
	unsigned long i, made = 0;
	char path[4096];

	if (!pf)
		die("vfuzz: cannot write %s", plan);
	init_seed();
	fprintf(pf, "seed %llu round %lu dir %s\n", (unsigned long long)seed, round, dir);
	for (i = 0; i < n; i++) {
		struct flip fl[MAX_FLIPS];
		int nfl, fd, j;

		raw_base(&b, round, i);
		raw_flips(&b, fl, &nfl);
		snprintf(path, sizeof(path), "%s/r%lu-%05lu", dir, round, i);
		write_file(path, b.img, b.len);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			die("vfuzz: open %s: %s", path, errname(errno));
		for (j = 0; j < nfl; j++)
			if (fiemap_phys(fd, fl[j].off, &fl[j].phys) < 0)
				break;
		if (j < nfl) {		/* not a plain mapped extent: skip it */
			close(fd);
			unlink(path);
			continue;
		}
		if (ioctl(fd, FS_IOC_ENABLE_VERITY, NULL) < 0) {
			snprintf(mdesc, sizeof(mdesc), "unmutated raw base %s", b.label);
			failure(path, "ENABLE of a valid file: %s", errname(errno));
			close(fd);
			continue;
		}
		close(fd);
		fprintf(pf, "file %lu %d", i, nfl);
		for (j = 0; j < nfl; j++)
			fprintf(pf, " %llu %llu %u %u", (unsigned long long)fl[j].off,
				(unsigned long long)fl[j].phys, fl[j].xor, fl[j].orig);
		fprintf(pf, "\n");
		made++;
		free(b.img);
	}
	fclose(pf);
	printf("# vfuzz raw-prep: round %lu: %lu files enabled and planned, %lu skipped, %d failures\n",
	       round, made, n - made, fails);
	return fails ? 1 : 0;
}

struct plan_file {
	unsigned long i;
	int nfl;
	struct flip fl[MAX_FLIPS];
};

static FILE *plan_open(const char *plan, unsigned long *round, char *dir)
{
	FILE *pf = fopen(plan, "r");
	unsigned long long s;

	if (!pf || fscanf(pf, "seed %llu round %lu dir %4000s\n", &s, round, dir) != 3)
		die("vfuzz: cannot read plan %s", plan);
	seed = s;
	return pf;
}

static int plan_next(FILE *pf, struct plan_file *p)
{
	int j;

	if (fscanf(pf, " file %lu %d", &p->i, &p->nfl) != 2)
		return 0;
	if (p->nfl < 1 || p->nfl > MAX_FLIPS)
		die("vfuzz: bad plan line");
	for (j = 0; j < p->nfl; j++) {
		unsigned long long o, ph;

		if (fscanf(pf, " %llu %llu %u %u", &o, &ph, &p->fl[j].xor, &p->fl[j].orig) != 4)
			die("vfuzz: bad plan line");
		p->fl[j].off = o;
		p->fl[j].phys = ph;
	}
	return 1;
}

static int cmd_raw_poke(const char *plan, const char *dev)
{
	unsigned long round, files = 0, bytes = 0;
	char dir[4096];
	struct plan_file p;
	FILE *pf = plan_open(plan, &round, dir);
	u8 *blk;
	int fd = open(dev, O_RDWR | O_DIRECT);

	if (fd < 0)
		die("vfuzz: open %s: %s", dev, errname(errno));
	if (posix_memalign((void **)&blk, BLK, BLK))
		die("vfuzz: out of memory");
	while (plan_next(pf, &p)) {
		int j;

		for (j = 0; j < p.nfl; j++) {
			u64 a = p.fl[j].phys / BLK * BLK;
			size_t o = p.fl[j].phys % BLK;

			if (pread(fd, blk, BLK, a) != BLK)
				die("vfuzz: read %s at %llu: %s", dev, (unsigned long long)a, errname(errno));
			if (blk[o] != p.fl[j].orig) {
				printf("FAIL seed %llu: raw method: %s byte %llu is 0x%02x, file r%lu-%05lu byte %llu was 0x%02x (FIEMAP wrong or block moved)\n",
				       (unsigned long long)seed, dev, (unsigned long long)p.fl[j].phys,
				       blk[o], round, p.i, (unsigned long long)p.fl[j].off, p.fl[j].orig);
				fails++;
				continue;
			}
			blk[o] ^= p.fl[j].xor;
			if (pwrite(fd, blk, BLK, a) != BLK)
				die("vfuzz: write %s at %llu: %s", dev, (unsigned long long)a, errname(errno));
			bytes++;
		}
		files++;
	}
	if (fsync(fd) < 0 || ioctl(fd, BLKFLSBUF, 0) < 0)
		die("vfuzz: fsync/BLKFLSBUF %s: %s", dev, errname(errno));
	close(fd);
	fclose(pf);
	printf("# vfuzz raw-poke: round %lu: %lu bytes of %lu files flipped on %s\n",
	       round, bytes, files, dev);
	return fails ? 1 : 0;
}

static int cmd_raw_check(const char *plan)
{
	static struct base b;
	unsigned long round, files = 0, openfail = 0, opened = 0;
	char dir[4096], path[4200], ctx[4400];
	struct plan_file p;
	FILE *pf = plan_open(plan, &round, dir);
	struct model m;

	while (plan_next(pf, &p)) {
		int j, fd;
		u64 eio0 = n_eio_blocks;

		raw_base(&b, round, p.i);
		mdesc[0] = 0;
		for (j = 0; j < p.nfl; j++) {
			b.img[p.fl[j].off] ^= p.fl[j].xor;
			say("byte %llu ^= 0x%02x", (unsigned long long)p.fl[j].off, p.fl[j].xor);
		}
		model_parse(b.img, b.len, &m);
		snprintf(path, sizeof(path), "%s/r%lu-%05lu", dir, round, p.i);
		snprintf(ctx, sizeof(ctx), "raw round %lu file %s (%s)", round, path, b.label);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			int e = errno;

			openfail++;
			if (e != EINVAL && e != EBADMSG && e != EIO)
				failure(ctx, "open fails with %s (model: %s)", errname(e),
					m.valid ? "valid" : m.why);
			else if (m.valid)
				failure(ctx, "open fails with %s, but the metadata is valid", errname(e));
		} else {
			opened++;
			if (!m.valid)
				failure(ctx, "open succeeded, but the metadata is invalid: %s", m.why);
			else
				check_verity(ctx, fd, b.img, &m);
			close(fd);
		}
		if (verbose)
			printf("# %s: %s; open %s, %llu EIO blocks (model: %s)\n", ctx, mdesc,
			       fd < 0 ? "failed" : "ok", (unsigned long long)(n_eio_blocks - eio0),
			       m.valid ? "valid" : m.why);
		files++;
		free(b.img);
	}
	fclose(pf);
	printf("# vfuzz raw-check: seed %llu round %lu: %lu files: %lu open failed, %lu opened (%llu with EIO blocks, %llu blocks), %d failures\n",
	       (unsigned long long)seed, round, files, openfail, opened, n_eio_cases,
	       n_eio_blocks, fails);
	return fails ? 1 : 0;
}

/* ============================================================ host-safe modes */

static int cmd_gen(char **argv)
{
	static struct base b;
	char m[129];
	const char *a = argv[2], *s = argv[3];
	size_t k;

	memset(&b, 0, offsetof(struct base, salt));
	b.dsize = parse_u64(argv[1], "size");
	for (b.alg = 1; b.alg <= 3 && strcmp(algs[b.alg].name, a); b.alg++)
		;
	if (b.alg > 3)
		die("vfuzz gen: unknown algorithm %s", a);
	b.salt_len = strlen(s) / 2;
	for (k = 0; k < b.salt_len; k++)
		if (sscanf(s + 2 * k, "%2hhx", &b.salt[k]) != 1)
			die("vfuzz gen: bad salt");
	b.dseed = parse_u64(argv[4], "seed");
	if (!b.dsize)
		die("vfuzz gen: size 0");
	build_base(&b);
	write_file(argv[0], b.img, b.len);
	hex(m, b.meas, algs[b.alg].ds);
	printf("%s:%s\n", a, m);
	return 0;
}

/* The algorithm named a, or die. */
static int alg_by_name(const char *a)
{
	int i;

	for (i = 1; i <= 3; i++)
		if (!strcmp(algs[i].name, a))
			return i;
	die("vfuzz: unknown algorithm %s", a);
	return 0;
}

/*
 * wrap IN OUT ALG: OUT = the bytes of IN as data, plus metadata over all of
 * them, whatever IN holds (e.g. a file set up already, whose own metadata
 * becomes data): what `fsverity setup` refuses to write.
 */
static int cmd_wrap(char **argv)
{
	static struct base b;
	struct stat st;
	char m[129];
	size_t done = 0;
	u8 *data;
	int fd;

	memset(&b, 0, offsetof(struct base, salt));
	fd = open(argv[0], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		die("vfuzz wrap: %s: %s", argv[0], errname(errno));
	if (st.st_size == 0)
		die("vfuzz wrap: %s is empty", argv[0]);
	b.dsize = st.st_size;
	data = xmalloc(b.dsize);
	while (done < b.dsize) {
		ssize_t n = read(fd, data + done, b.dsize - done);

		if (n <= 0)
			die("vfuzz wrap: read %s: %s", argv[0], n ? errname(errno) : "short");
		done += n;
	}
	close(fd);
	b.data = data;
	b.alg = alg_by_name(argv[2]);
	build_base(&b);
	write_file(argv[1], b.img, b.len);
	hex(m, b.meas, algs[b.alg].ds);
	printf("%s:%s\n", algs[b.alg].name, m);
	return 0;
}

/* One written block of a deep file: level (-1 = data), index, contents. */
struct dblock {
	int level;
	u64 idx;
	u8 *buf;
};

static int dcmp(const void *x, const void *y)
{
	const struct dblock *p = x, *q = y;

	if (p->level != q->level)
		return p->level < q->level ? -1 : 1;
	return p->idx < q->idx ? -1 : p->idx > q->idx;
}

static struct dblock *dfind(struct dblock *v, size_t n, int level, u64 idx)
{
	struct dblock key = { level, idx, NULL };

	return bsearch(&key, v, n, sizeof(*v), dcmp);
}

static void pwrite_all(int fd, const u8 *p, size_t len, u64 off, const char *path)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, p + done, len - done, off + done);

		if (n <= 0)
			die("vfuzz: write %s at %llu: %s", path,
			    (unsigned long long)(off + done), n ? errname(errno) : "short");
		done += n;
	}
}

#define DEEP_MAX_FULL	65536	/* tree blocks kept in memory by "full" */

/*
 * deep OUT REF SIZE ALG SEED [full] BLOCK...: a sparse file with the tree
 * geometry of SIZE data bytes (the format's layout, no salt) of which only a few
 * blocks are written: the listed data blocks (block i holds
 * `gen 4096 SEED+i`, cut at SIZE) and the tree blocks on their paths to the
 * root, or with "full" every tree block.  A tree block written holds the
 * hashes of all its children as they are in the file (a child never written
 * is a hole: a zero block); every other block is a hole.  So the data blocks
 * under a written level-0 block verify, the others fail (a hole level-0
 * block holds zero hashes); with "full" the file is exactly what
 * `fsverity setup REF` writes, only fast on a sparse file (the holes are
 * not read nor hashed).  REF gets the data alone (SIZE bytes, sparse).
 * Prints "ALG:MEASUREMENT DEPTH DESC_OFFSET FULL_SIZE".
 */
static int cmd_deep(int argc, char **argv)
{
	static struct base b;
	const char *out = argv[0], *ref = argv[1];
	unsigned int ds, hpb, lg;
	u8 zhash[64], root[64], *r;
	struct dblock *v, *p, *q;
	size_t nv = 0, cap, i, k, rlen;
	int fd, rfd, l, full = 0;
	u64 desc;
	char m[129];
	u64 seed, blk;

	memset(&b, 0, offsetof(struct base, salt));
	b.dsize = parse_u64(argv[2], "size");
	b.alg = alg_by_name(argv[3]);
	seed = parse_u64(argv[4], "seed");
	argc -= 5;
	argv += 5;
	if (argc && !strcmp(argv[0], "full")) {
		full = 1;
		argc--;
		argv++;
	}
	if (!b.dsize || argc < 1)
		die("vfuzz deep: size 0 or no block listed");
	ds = algs[b.alg].ds;
	hpb = BLK / ds;
	for (lg = 0; (1u << lg) < hpb; lg++)
		;
	base_geometry(&b);
	if (full && b.tree_blocks > DEEP_MAX_FULL)
		die("vfuzz deep: %llu tree blocks: too many for \"full\"",
		    (unsigned long long)b.tree_blocks);
	cap = (size_t)argc * (b.depth + 1) + (full ? b.tree_blocks : 0);
	v = xmalloc(cap * sizeof(*v));
	for (i = 0; i < (size_t)argc; i++) {
		blk = parse_u64(argv[i], "block");
		if (blk >= b.nblocks)
			die("vfuzz deep: block %llu past the data (%llu blocks)",
			    (unsigned long long)blk, (unsigned long long)b.nblocks);
		for (l = -1; l < (full ? 0 : b.depth); l++)
			v[nv++] = (struct dblock){ l, blk >> (lg * (l + 1)), NULL };
	}
	for (l = 0; full && l < b.depth; l++)
		for (blk = 0; blk < b.lblocks[l]; blk++)
			v[nv++] = (struct dblock){ l, blk, NULL };
	qsort(v, nv, sizeof(*v), dcmp);
	for (i = k = 0; i < nv; i++)		/* drop duplicates */
		if (!k || dcmp(&v[k - 1], &v[i]))
			v[k++] = v[i];
	nv = k;
	for (p = v; p < v + nv; p++) {
		p->buf = xmalloc(BLK);
		memset(p->buf, 0, BLK);
		if (p->level < 0) {
			size_t n = b.dsize - p->idx * BLK < BLK ? b.dsize - p->idx * BLK : BLK;

			gen_data(p->buf, n, seed + p->idx);
		}
	}
	h_buf(b.alg, NULL, 0, (const u8[BLK]){ 0 }, BLK, zhash);
	/* bottom up (v is sorted by level): each tree block hashes its children */
	for (p = v; p < v + nv; p++) {
		u64 below;

		if (p->level < 0)
			continue;
		below = p->level ? b.lblocks[p->level - 1] : b.nblocks;
		for (k = 0; k < hpb && p->idx * hpb + k < below; k++) {
			q = dfind(v, nv, p->level - 1, p->idx * hpb + k);
			if (q)
				h_buf(b.alg, NULL, 0, q->buf, BLK, p->buf + k * ds);
			else
				memcpy(p->buf + k * ds, zhash, ds);
		}
	}
	q = dfind(v, nv, b.depth - 1, 0);
	h_buf(b.alg, NULL, 0, q->buf, BLK, root);
	r = xmalloc(region_max(&b));
	memset(r, 0, region_max(&b));
	base_region(&b, r, root);

	fd = open(out, O_WRONLY | O_CREAT | O_EXCL, 0644);
	rfd = open(ref, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || rfd < 0)
		die("vfuzz deep: create %s / %s: %s", out, ref, errname(errno));
	for (p = v; p < v + nv; p++) {
		if (p->level < 0) {
			size_t n = b.dsize - p->idx * BLK < BLK ? b.dsize - p->idx * BLK : BLK;

			pwrite_all(fd, p->buf, n, p->idx * BLK, out);
			pwrite_all(rfd, p->buf, n, p->idx * BLK, ref);
		} else {
			pwrite_all(fd, p->buf, BLK, (b.lstart[p->level] + p->idx) * BLK, out);
		}
	}
	/*
	 * b.desc and b.len are size_t, which a 32-bit build wraps for files
	 * past 4 GiB; their difference, the region's length, stays exact.
	 */
	desc = (b.nblocks + b.tree_blocks) * BLK;
	rlen = b.len - b.desc;
	pwrite_all(fd, r, rlen, desc, out);
	if (ftruncate(rfd, b.dsize) < 0 || fsync(fd) < 0 || fsync(rfd) < 0)
		die("vfuzz deep: ftruncate/fsync: %s", errname(errno));
	close(fd);
	close(rfd);
	hex(m, b.meas, ds);
	printf("%s:%s %d %llu %llu\n", algs[b.alg].name, m, b.depth,
	       (unsigned long long)desc, (unsigned long long)(desc + rlen));
	return 0;
}

static int cmd_selftest(unsigned long n)
{
	static const struct { int alg; const char *in, *out; } v[] = {
		{ ALG_SHA256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ ALG_SHA256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ ALG_SHA512, "abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f" },
		{ ALG_CRC32C, "123456789", "839206e3" },
	};
	static struct img im;
	unsigned long c, valid = 0, per[M_COUNT][2] = { { 0 } };
	struct model m;
	size_t i;
	int k;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		u8 h[64];
		char x[129];

		h_buf(v[i].alg, NULL, 0, (const u8 *)v[i].in, strlen(v[i].in), h);
		hex(x, h, algs[v[i].alg].ds);
		if (strcmp(x, v[i].out))
			die("selftest: %s(\"%s\") = %s, expected %s", algs[v[i].alg].name,
			    v[i].in, x, v[i].out);
	}
	/* a long message, through all the buffering paths */
	{
		u8 big[1000], h1[64], h2[64];
		struct hctx c1;

		memset(big, 'a', sizeof(big));
		for (k = 1; k <= 3; k++) {
			h_buf(k, NULL, 0, big, sizeof(big), h1);
			h_init(&c1, k);
			for (i = 0; i < sizeof(big); i += 37)
				h_update(&c1, big + i, sizeof(big) - i < 37 ? sizeof(big) - i : 37);
			h_final(&c1, h2);
			if (memcmp(h1, h2, algs[k].ds))
				die("selftest: %s incremental mismatch", algs[k].name);
		}
	}
	if (!getenv("VFUZZ_SEED"))
		setenv("VFUZZ_SEED", "1", 1);
	init_seed();
	make_pool();
	for (k = 0; k < npool; k++) {
		u8 *ok;
		u64 j;

		model_parse(pool[k].img, pool[k].len, &m);
		if (!m.valid)
			die("selftest: base %d (%s) invalid: %s", k, pool[k].label, m.why);
		if (memcmp(m.meas, pool[k].meas, m.ds))
			die("selftest: base %d measurement differs", k);
		ok = xmalloc(m.nblocks);
		model_blocks(&m, pool[k].img, ok);
		for (j = 0; j < m.nblocks; j++)
			if (!ok[j])
				die("selftest: base %d block %llu does not verify", k, (unsigned long long)j);
		free(ok);
	}
	for (c = 0; c < n; c++) {
		enum mut mk;

		make_case(&im, c, &mk);
		model_parse(im.p, im.len, &m);
		per[mk][m.valid]++;
		valid += m.valid;
		if (m.valid) {
			u8 *ok = xmalloc(m.nblocks);

			model_blocks(&m, im.p, ok);
			free(ok);
		}
		if (getenv("VFUZZ_VERBOSE"))
			printf("case %lu [%s] %s: %s\n", c, mut_name(mk), mdesc,
			       m.valid ? "valid" : m.why);
	}
	printf("selftest ok: %d bases, %lu mutated copies, %lu valid\n", npool, n, valid);
	for (k = 0; k < M_COUNT; k++)
		printf("  %-16s invalid %5lu  valid %5lu\n", mut_name(k), per[k][0], per[k][1]);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	crc32c_init();
	verbose = getenv("VFUZZ_VERBOSE") && *getenv("VFUZZ_VERBOSE") == '1';
	if (argc == 3 && !strcmp(argv[1], "enable"))
		return cmd_enable(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "raw-prep"))
		return cmd_raw_prep(argv[2], argv[3], parse_u64(argv[4], "round"),
				    parse_u64(argv[5], "count"));
	if (argc == 4 && !strcmp(argv[1], "raw-poke"))
		return cmd_raw_poke(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "raw-check"))
		return cmd_raw_check(argv[2]);
	if (argc == 7 && !strcmp(argv[1], "gen"))
		return cmd_gen(argv + 2);
	if (argc == 5 && !strcmp(argv[1], "wrap"))
		return cmd_wrap(argv + 2);
	if (argc >= 8 && !strcmp(argv[1], "deep"))
		return cmd_deep(argc - 2, argv + 2);
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "selftest"))
		return cmd_selftest(argc == 3 ? parse_u64(argv[2], "count") : 20000);
	die("usage: vfuzz enable DIR | raw-prep DIR PLAN ROUND N | raw-poke PLAN DEV |\n"
	    "       raw-check PLAN | gen OUT SIZE ALG SALTHEX DATASEED | selftest [N] |\n"
	    "       wrap IN OUT ALG | deep OUT REF SIZE ALG SEED [full] BLOCK...");
	return 2;
}