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

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define BLK		4096u
#define MAX_LEVELS	16
#define MAX_REGION	(16u * BLK)	/* descriptor region incl. footer */
#define VERITY_FL	0x00100000

/* ============================================================ hashes */

static const u32 k256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const u64 k512[80] = {
	0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL,
	0xe9b5dba58189dbbcULL, 0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL,
	0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL, 0xd807aa98a3030242ULL,
	0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
	0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL,
	0xc19bf174cf692694ULL, 0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL,
	0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL, 0x2de92c6f592b0275ULL,
	0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
	0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL,
	0xbf597fc7beef0ee4ULL, 0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
	0x06ca6351e003826fULL, 0x142929670a0e6e70ULL, 0x27b70a8546d22ffcULL,
	0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
	0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL,
	0x92722c851482353bULL, 0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL,
	0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL, 0xd192e819d6ef5218ULL,
	0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
	0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL,
	0x34b0bcb5e19b48a8ULL, 0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL,
	0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL, 0x748f82ee5defb2fcULL,
	0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
	0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL,
	0xc67178f2e372532bULL, 0xca273eceea26619cULL, 0xd186b8c721c0c207ULL,
	0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL, 0x06f067aa72176fbaULL,
	0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
	0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL,
	0x431d67c49c100d4cULL, 0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL,
	0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};

static u32 crc32c_table[256];

static void crc32c_init(void)
{
	u32 i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (c & 1 ? 0x82F63B78u : 0);
		crc32c_table[i] = c;
	}
}

#define ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define ROR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))

static void sha256_block(u32 *h, const u8 *p)
{
	u32 w[64], a, b, c, d, e, f, g, hh, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (u32)p[4 * i] << 24 | (u32)p[4 * i + 1] << 16 |
		       (u32)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		u32 s0 = ROR32(w[i - 15], 7) ^ ROR32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		u32 s1 = ROR32(w[i - 2], 17) ^ ROR32(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (i = 0; i < 64; i++) {
		t1 = hh + (ROR32(e, 6) ^ ROR32(e, 11) ^ ROR32(e, 25)) +
		     ((e & f) ^ (~e & g)) + k256[i] + w[i];
		t2 = (ROR32(a, 2) ^ ROR32(a, 13) ^ ROR32(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		hh = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

static void sha512_block(u64 *h, const u8 *p)
{
	u64 w[80], a, b, c, d, e, f, g, hh, t1, t2;
	int i, j;

	for (i = 0; i < 16; i++) {
		w[i] = 0;
		for (j = 0; j < 8; j++)
			w[i] = w[i] << 8 | p[8 * i + j];
	}
	for (i = 16; i < 80; i++) {
		u64 s0 = ROR64(w[i - 15], 1) ^ ROR64(w[i - 15], 8) ^ (w[i - 15] >> 7);
		u64 s1 = ROR64(w[i - 2], 19) ^ ROR64(w[i - 2], 61) ^ (w[i - 2] >> 6);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (i = 0; i < 80; i++) {
		t1 = hh + (ROR64(e, 14) ^ ROR64(e, 18) ^ ROR64(e, 41)) +
		     ((e & f) ^ (~e & g)) + k512[i] + w[i];
		t2 = (ROR64(a, 28) ^ ROR64(a, 34) ^ ROR64(a, 39)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		hh = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

enum { ALG_SHA256 = 1, ALG_SHA512 = 2, ALG_CRC32C = 3 };

static const struct { const char *name; unsigned int ds; } algs[] = {
	[ALG_SHA256] = { "sha256", 32 },
	[ALG_SHA512] = { "sha512", 64 },
	[ALG_CRC32C] = { "crc32c", 4 },
};

static int alg_known(unsigned int a)
{
	return a >= 1 && a <= 3;
}

struct hctx {
	int alg;
	u64 n;			/* bytes hashed */
	size_t used;		/* bytes in buf */
	u32 h32[8];
	u64 h64[8];
	u32 crc;
	u8 buf[128];
};

static void h_init(struct hctx *c, int alg)
{
	static const u32 i256[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	static const u64 i512[8] = {
		0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
		0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
		0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
		0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
	};

	c->alg = alg;
	c->n = 0;
	c->used = 0;
	memcpy(c->h32, i256, sizeof(i256));
	memcpy(c->h64, i512, sizeof(i512));
	c->crc = 0xffffffffu;
}

static void h_update(struct hctx *c, const u8 *p, size_t len)
{
	size_t bs = c->alg == ALG_SHA512 ? 128 : 64;

	if (c->alg == ALG_CRC32C) {
		u32 crc = c->crc;

		while (len--)
			crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
		c->crc = crc;
		return;
	}
	c->n += len;
	if (c->used) {
		size_t k = bs - c->used < len ? bs - c->used : len;

		memcpy(c->buf + c->used, p, k);
		c->used += k;
		p += k;
		len -= k;
		if (c->used < bs)
			return;
		if (bs == 64)
			sha256_block(c->h32, c->buf);
		else
			sha512_block(c->h64, c->buf);
		c->used = 0;
	}
	while (len >= bs) {
		if (bs == 64)
			sha256_block(c->h32, p);
		else
			sha512_block(c->h64, p);
		p += bs;
		len -= bs;
	}
	memcpy(c->buf, p, len);
	c->used = len;
}

static void h_final(struct hctx *c, u8 *out)
{
	size_t bs = c->alg == ALG_SHA512 ? 128 : 64, lenpos = bs - (bs / 8);
	u8 pad[256] = { 0x80 };
	u64 bits = c->n * 8;
	size_t padlen;
	int i;

	if (c->alg == ALG_CRC32C) {
		u32 v = ~c->crc;

		out[0] = v; out[1] = v >> 8; out[2] = v >> 16; out[3] = v >> 24;
		return;
	}
	padlen = (c->used < lenpos ? lenpos : lenpos + bs) - c->used;
	/* length field: 8 bytes for SHA-256, 16 (high half 0) for SHA-512 */
	for (i = 0; i < 8; i++)
		pad[padlen + bs / 8 - 1 - i] = bits >> (8 * i);
	h_update(c, pad, padlen + bs / 8);
	if (c->alg == ALG_SHA256) {
		for (i = 0; i < 32; i++)
			out[i] = c->h32[i / 4] >> (24 - 8 * (i % 4));
	} else {
		for (i = 0; i < 64; i++)
			out[i] = c->h64[i / 8] >> (56 - 8 * (i % 8));
	}
}

static void h_buf(int alg, const u8 *salt, size_t salt_len, const u8 *p,
		  size_t len, u8 *out)
{
	struct hctx c;

	h_init(&c, alg);
	if (salt_len)
		h_update(&c, salt, salt_len);
	h_update(&c, p, len);
	h_final(&c, out);
}

/* ============================================================ helpers */

static u64 splitmix(u64 *s)
{
	u64 z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static u64 rng;			/* the current case's generator */

static u64 rnd(u64 n)
{
	return n ? splitmix(&rng) % n : 0;
}

static u16 get16(const u8 *p) { return p[0] | p[1] << 8; }
static u32 get32(const u8 *p) { return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24; }
static u64 get64(const u8 *p) { return get32(p) | (u64)get32(p + 4) << 32; }
static void put16(u8 *p, u16 v) { p[0] = v; p[1] = v >> 8; }
static void put32(u8 *p, u32 v) { put16(p, v); put16(p + 2, v >> 16); }
static void put64(u8 *p, u64 v) { put32(p, v); put32(p + 4, v >> 32); }

static size_t up8(size_t x) { return (x + 7) & ~(size_t)7; }

static void hex(char *out, const u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

/* The byte stream of the `gen` helper: `gen SIZE SEED` writes its first SIZE bytes. */
static void gen_data(u8 *buf, size_t n, u64 seed)
{
	u64 s = 0x9E3779B97F4A7C15ULL ^ seed * 0xD1B54A32D192ED03ULL;
	size_t i;

	if (!s)
		s = 1;
	for (i = 0; i < n; i += 8) {
		u64 x;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		x = s * 0x2545F4914F6CDD1DULL;
		memcpy(buf + i, &x, n - i < 8 ? n - i : 8);
	}
}

/* ============================================================ base files */

/* A valid verity file as `fsverity setup` writes it, and where things are. */
struct base {
	int alg;
	u64 dsize, dseed;
	const u8 *data;			/* the data, or NULL: the `gen` stream of dseed */
	size_t salt_len;
	u8 salt[MAX_REGION];
	u8 *img;
	size_t len;
	u64 nblocks, tree_blocks;
	int depth;
	u64 lstart[MAX_LEVELS];		/* first block of each level */
	u64 lblocks[MAX_LEVELS];
	size_t desc;			/* descriptor offset */
	size_t ext[4];			/* offsets of the extension headers */
	int next, nauth;
	size_t unauth;			/* unauthenticated-extension header */
	size_t unauth_end;		/* after the unauthenticated extensions */
	size_t footer;
	u8 meas[64];
	char label[96];
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("vfuzz: out of memory (%zu bytes)", n);
	return p;
}

static void append_ext(u8 *r, size_t *pos, u16 type, const u8 *pl, size_t n)
{
	put32(r + *pos, 8 + n);
	put16(r + *pos + 4, type);
	put16(r + *pos + 6, 0);
	memcpy(r + *pos + 8, pl, n);
	memset(r + *pos + 8 + n, 0, up8(8 + n) - 8 - n);
	*pos += up8(8 + n);
}

/* The tree geometry of b->dsize: nblocks, depth, levels, descriptor offset. */
static void base_geometry(struct base *b)
{
	unsigned int hpb = BLK / algs[b->alg].ds;
	u64 blocks, idx;
	int l;

	b->nblocks = (b->dsize + BLK - 1) / BLK;
	b->depth = 0;
	for (blocks = b->nblocks; blocks > 1; ) {
		blocks = (blocks + hpb - 1) / hpb;
		b->lblocks[b->depth++] = blocks;
	}
	idx = b->nblocks;
	for (l = b->depth - 1; l >= 0; l--) {
		b->lstart[l] = idx;
		idx += b->lblocks[l];
	}
	b->tree_blocks = idx - b->nblocks;
	b->desc = idx * BLK;
}

/* The most bytes base_region() writes. */
static size_t region_max(const struct base *b)
{
	return 64 + 8 + 64 + up8(8 + b->salt_len) + 8 + BLK + 12;
}

/*
 * The descriptor region (descriptor, extensions, unauthenticated header,
 * footer) of b with root hash root into r (region_max(b) zeroed bytes, r[0]
 * at file offset b->desc); sets the offsets, b->meas and b->len.
 */
static void base_region(struct base *b, u8 *r, const u8 *root)
{
	unsigned int ds = algs[b->alg].ds;
	size_t pos, rlen;

	memcpy(r, FS_VERITY_MAGIC, 8);
	r[8] = 1;
	r[9] = 0;
	r[10] = 12;
	r[11] = 12;
	put16(r + 12, b->alg);
	put16(r + 14, b->alg);
	put64(r + 24, b->dsize);
	b->nauth = b->salt_len ? 2 : 1;
	put16(r + 32, b->nauth);
	pos = 64;
	b->next = 0;
	b->ext[b->next++] = b->desc + pos;
	append_ext(r, &pos, FS_VERITY_EXT_ROOT_HASH, root, ds);
	if (b->salt_len) {
		b->ext[b->next++] = b->desc + pos;
		append_ext(r, &pos, FS_VERITY_EXT_SALT, b->salt, b->salt_len);
	}
	h_buf(b->alg, NULL, 0, r, pos, b->meas);
	b->unauth = b->desc + pos;
	put16(r + pos, 0);
	pos += 8;
	b->unauth_end = b->desc + pos;
	/* a footer that would cross a page starts on the next one */
	if ((b->desc + pos) / BLK != (b->desc + pos + 11) / BLK)
		pos = (b->desc + pos + BLK - 1) / BLK * BLK - b->desc;
	rlen = pos + 12;
	put32(r + pos, rlen);
	memcpy(r + pos + 4, FS_VERITY_MAGIC, 8);
	b->footer = b->desc + pos;
	b->len = b->desc + rlen;
}

/*
 * Build b->img from alg, dsize, salt and the data (b->data if set, else the
 * `gen` stream of dseed): the data, zero padding, the tree (root level
 * first), the descriptor region and the footer, laid out as the format and the
 * 2018 utility do it.
 */
static void build_base(struct base *b)
{
	unsigned int ds = algs[b->alg].ds, hpb = BLK / ds;
	u8 root[64];
	struct hctx salted, c;
	u64 i;
	int l;

	base_geometry(b);
	b->img = xmalloc(b->desc + region_max(b));
	memset(b->img, 0, b->desc + region_max(b));
	if (b->data)
		memcpy(b->img, b->data, b->dsize);
	else
		gen_data(b->img, b->dsize, b->dseed);

	h_init(&salted, b->alg);
	if (b->salt_len)
		h_update(&salted, b->salt, b->salt_len);
	for (i = 0; i < b->nblocks && b->depth; i++) {
		c = salted;
		h_update(&c, b->img + i * BLK, BLK);
		h_final(&c, b->img + (b->lstart[0] + i / hpb) * BLK + (i % hpb) * ds);
	}
	for (l = 1; l < b->depth; l++) {
		for (i = 0; i < b->lblocks[l - 1]; i++) {
			c = salted;
			h_update(&c, b->img + (b->lstart[l - 1] + i) * BLK, BLK);
			h_final(&c, b->img + (b->lstart[l] + i / hpb) * BLK + (i % hpb) * ds);
		}
	}
	c = salted;
	h_update(&c, b->img + (b->depth ? b->lstart[b->depth - 1] : 0) * BLK, BLK);
	h_final(&c, root);
	base_region(b, b->img + b->desc, root);
	snprintf(b->label, sizeof(b->label), "%s, %llu bytes, salt %zu",
		 algs[b->alg].name, (unsigned long long)b->dsize, b->salt_len);
}

/* ============================================================ the model */

struct model {
	int valid;
	int sig;			/* rejected only for carrying a signature */
	char why[200];
	int alg;
	unsigned int ds;
	u64 dsize, nblocks;
	size_t desc, rsize;
	u8 meas[64], root[64];
	const u8 *salt;
	size_t salt_len;
	int depth;
	u64 lstart[MAX_LEVELS], lblocks[MAX_LEVELS];
};

static int reject(struct model *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
	m->valid = 0;
	return 0;
}

/* One extension at *pos of the region r[0..size); 0 = invalid */
static int model_ext(struct model *m, const u8 *r, size_t size, size_t *pos,
		     int auth, const u8 **root, int *have_salt, int *have_sig)
{
	u64 length;
	u16 type;

	if (size - *pos < 8)
		return reject(m, "%s extension header past the region end",
			      auth ? "authenticated" : "unauthenticated");
	length = get32(r + *pos);
	type = get16(r + *pos + 4);
	if (length < 8 || ((length + 7) & ~7ULL) > size - *pos)
		return reject(m, "extension length %llu at region offset %zu (region %zu)",
			      (unsigned long long)length, *pos, size);
	if (get16(r + *pos + 6))
		return reject(m, "extension reserved field set");
	switch (type) {
	case FS_VERITY_EXT_ROOT_HASH:
		if (!auth || *root)
			return reject(m, "root hash %s", auth ? "twice" : "in the unauthenticated list");
		if (length - 8 != m->ds)
			return reject(m, "root hash of %llu bytes", (unsigned long long)length - 8);
		*root = r + *pos + 8;
		break;
	case FS_VERITY_EXT_SALT:
		if (!auth || *have_salt)
			return reject(m, "salt %s", auth ? "twice" : "in the unauthenticated list");
		*have_salt = 1;
		m->salt = r + *pos + 8;
		m->salt_len = length - 8;
		break;
	case FS_VERITY_EXT_PKCS7_SIGNATURE:
		if (auth || *have_sig)
			return reject(m, "signature %s", auth ? "in the authenticated list" : "twice");
		*have_sig = 1;
		break;
	default:
		return reject(m, "unknown extension type %u", type);
	}
	*pos += (length + 7) & ~7ULL;
	return 1;
}

/* Parse file bytes f[0..len) as the format says; m->valid tells the verdict. */
static int model_parse(const u8 *f, size_t len, struct model *m)
{
	size_t page, end, rev, pos, i;
	const u8 *r, *root = NULL;
	int have_salt = 0, have_sig = 0;
	unsigned int count, hpb;
	u64 blocks, idx;
	int l;

	memset(m, 0, sizeof(*m));
	if (len < 12)
		return reject(m, "file of %zu bytes", len);
	page = (len - 1) / BLK * BLK;
	end = len;
	while (end > page && !f[end - 1])
		end--;
	if (end - page < 12)
		return reject(m, "no footer in the last page (last non-zero byte at %zd)",
			      (ssize_t)end - 1);
	if (memcmp(f + end - 8, FS_VERITY_MAGIC, 8))
		return reject(m, "no footer magic before offset %zu", end);
	rev = get32(f + end - 12);
	if (rev < 64 + 12 || rev > end || rev > MAX_REGION)
		return reject(m, "desc_reverse_offset %zu (footer ends at %zu)", rev, end);
	m->desc = end - rev;
	if (m->desc % 8)
		return reject(m, "descriptor at unaligned offset %zu", m->desc);
	r = f + m->desc;
	m->rsize = rev - 12;

	if (memcmp(r, FS_VERITY_MAGIC, 8))
		return reject(m, "descriptor magic");
	if (r[8] != 1 || r[9] != 0)
		return reject(m, "version %u.%u", r[8], r[9]);
	if (r[10] != 12 || r[11] != 12)
		return reject(m, "block sizes 2^%u, 2^%u", r[10], r[11]);
	if (get16(r + 12) != get16(r + 14))
		return reject(m, "data algorithm %u, tree algorithm %u", get16(r + 12), get16(r + 14));
	if (get32(r + 16))
		return reject(m, "flags 0x%x", get32(r + 16));
	if (get32(r + 20))
		return reject(m, "reserved1 set");
	for (i = 34; i < 64; i++)
		if (r[i])
			return reject(m, "reserved2 byte %zu set", i - 34);
	m->dsize = get64(r + 24);
	if (m->dsize == 0 || m->dsize > m->desc)
		return reject(m, "orig_file_size %llu, descriptor at %zu",
			      (unsigned long long)m->dsize, m->desc);
	m->alg = get16(r + 12);
	if (!alg_known(m->alg))
		return reject(m, "unknown algorithm %d", m->alg);
	m->ds = algs[m->alg].ds;
	hpb = BLK / m->ds;
	m->nblocks = (m->dsize + BLK - 1) / BLK;
	for (blocks = m->nblocks; blocks > 1; ) {
		if (m->depth >= MAX_LEVELS)
			return reject(m, "more than %d tree levels", MAX_LEVELS);
		blocks = (blocks + hpb - 1) / hpb;
		m->lblocks[m->depth++] = blocks;
	}
	idx = m->nblocks;
	for (l = m->depth - 1; l >= 0; l--) {
		m->lstart[l] = idx;
		idx += m->lblocks[l];
	}
	if (idx > m->desc / BLK)
		return reject(m, "tree (blocks %llu-%llu) overlaps the descriptor page %zu",
			      (unsigned long long)m->nblocks, (unsigned long long)idx - 1,
			      m->desc / BLK);

	count = get16(r + 32);
	pos = 64;
	for (i = 0; i < count; i++)
		if (!model_ext(m, r, m->rsize, &pos, 1, &root, &have_salt, &have_sig))
			return 0;
	h_buf(m->alg, NULL, 0, r, pos, m->meas);
	if (m->rsize - pos < 8)
		return reject(m, "no unauthenticated-extension header");
	count = get16(r + pos);
	for (i = 2; i < 8; i++)
		if (r[pos + i])
			return reject(m, "unauthenticated header padding set");
	pos += 8;
	for (i = 0; i < count; i++)
		if (!model_ext(m, r, m->rsize, &pos, 0, &root, &have_salt, &have_sig))
			return 0;
	if (!root)
		return reject(m, "no root hash");
	memcpy(m->root, root, m->ds);
	if (have_sig) {
		m->sig = 1;
		return reject(m, "a signature (no trusted key)");
	}
	m->valid = 1;
	return 1;
}

/*
 * For a valid model: ok[i] = 1 iff data block i verifies (every hash on its
 * path matches).  f is the whole file image.
 */
static void model_blocks(const struct model *m, const u8 *f, u8 *ok)
{
	unsigned int ds = m->ds, hpb = BLK / ds;
	u8 h[64], blk[BLK], *tv[MAX_LEVELS];
	struct hctx salted, c;
	u64 i;
	int l;

	h_init(&salted, m->alg);
	if (m->salt_len)
		h_update(&salted, m->salt, m->salt_len);
	for (l = m->depth - 1; l >= 0; l--) {
		tv[l] = xmalloc(m->lblocks[l]);
		for (i = 0; i < m->lblocks[l]; i++) {
			const u8 *want;

			c = salted;
			h_update(&c, f + (m->lstart[l] + i) * BLK, BLK);
			h_final(&c, h);
			if (l == m->depth - 1) {
				want = m->root;
				tv[l][i] = 1;
			} else {
				want = f + (m->lstart[l + 1] + i / hpb) * BLK + (i % hpb) * ds;
				tv[l][i] = tv[l + 1][i / hpb];
			}
			tv[l][i] &= !memcmp(h, want, ds);
		}
	}
	for (i = 0; i < m->nblocks; i++) {
		const u8 *want;
		size_t n = m->dsize - i * BLK < BLK ? m->dsize - i * BLK : BLK;

		memcpy(blk, f + i * BLK, n);
		memset(blk + n, 0, BLK - n);	/* the tail past orig_file_size reads as zeroes */
		c = salted;
		h_update(&c, blk, BLK);
		h_final(&c, h);
		if (!m->depth) {
			ok[i] = !memcmp(h, m->root, ds);
		} else {
			want = f + (m->lstart[0] + i / hpb) * BLK + (i % hpb) * ds;
			ok[i] = tv[0][i / hpb] && !memcmp(h, want, ds);
		}
	}
	for (l = 0; l < m->depth; l++)
		free(tv[l]);
}

/* ============================================================ mutations */

struct img {
	u8 *p;
	size_t len, cap;
};

static void img_reserve(struct img *im, size_t n)
{
	if (n <= im->cap)
		return;
	im->cap = n + 2 * BLK;
	im->p = realloc(im->p, im->cap);
	if (!im->p)
		die("vfuzz: out of memory");
}

/* insert n bytes (copied from src, zeroes if NULL) at off */
static void img_insert(struct img *im, size_t off, const u8 *src, size_t n)
{
	img_reserve(im, im->len + n);
	memmove(im->p + off + n, im->p + off, im->len - off);
	if (src)
		memcpy(im->p + off, src, n);
	else
		memset(im->p + off, 0, n);
	im->len += n;
}

static char mdesc[512];

static void say(const char *fmt, ...)
{
	size_t l = strlen(mdesc);
	va_list ap;

	if (l && l < sizeof(mdesc) - 3) {
		strcpy(mdesc + l, "; ");
		l += 2;
	}
	va_start(ap, fmt);
	vsnprintf(mdesc + l, sizeof(mdesc) - l, fmt, ap);
	va_end(ap);
}

static void flip_bits(struct img *im, size_t lo, size_t hi, const char *what)
{
	int n = 1 + rnd(3), i;

	if (hi <= lo)
		return;
	for (i = 0; i < n; i++) {
		size_t off = lo + rnd(hi - lo);
		int bit = rnd(8);

		im->p[off] ^= 1u << bit;
		say("flip %s bit %d of byte %zu (+%zu)", what, bit, off, off - lo);
	}
}

/* the footer's desc_reverse_offset moves with inserted bytes before it */
static void bump_rev(struct img *im, size_t footer, long delta)
{
	put32(im->p + footer, get32(im->p + footer) + delta);
}

static const u32 lens[] = { 0, 1, 7, 8, 9, 12, 16, 40, 72, 4096, 65536,
	0x7fffffff, 0x80000000, 0xfffffff0, 0xfffffff8, 0xfffffff9, 0xfffffffc,
	0xffffffff };

static u32 pick_len(u32 cur, size_t room)
{
	switch (rnd(5)) {
	case 0: return cur + 1;
	case 1: return cur - 1 + 8 * rnd(3);
	case 2: return room + 1 + rnd(8);	/* just past the region end */
	case 3: return room;			/* exactly to the end */
	default: return lens[rnd(sizeof(lens) / sizeof(lens[0]))];
	}
}

/* A PKCS#7-looking payload: DER headers with huge lengths, then junk. */
static size_t fake_sig(u8 *p, size_t max)
{
	static const u8 der[] = { 0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x06, 0x09,
		0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02, 0xa0, 0x84,
		0x7f, 0xff, 0xff, 0xf0, 0x30, 0x84, 0x7f, 0xff, 0xff, 0xe0, 0x02,
		0x01, 0x01, 0x31, 0x84, 0x7f, 0xff, 0xff, 0x00 };
	size_t n = rnd(3) ? sizeof(der) : 1 + rnd(max - 1), i;

	if (n > max)
		n = max;
	if (n == sizeof(der) || rnd(2))
		memcpy(p, der, n < sizeof(der) ? n : sizeof(der));
	else
		for (i = 0; i < n; i++)
			p[i] = rnd(256);
	return n;
}

enum mut {
	M_NONE, M_FLIP_DESC, M_FLIP_AUTH, M_FLIP_UNAUTH, M_FLIP_FOOTER,
	M_FLIP_REGION, M_BYTE_REGION, M_EXT_LEN, M_EXT_TYPE, M_EXT_RSV,
	M_AUTH_COUNT, M_UNAUTH_COUNT, M_UNAUTH_RSV, M_REVOFF, M_FOOTER_PAGE,
	M_TRAIL_ZEROS, M_TRAIL_JUNK, M_BIG_REGION, M_ORIG_SIZE, M_DEPTH,
	M_BLOCKSIZE, M_ALG, M_UNEQUAL_ALG, M_VERSION, M_FLAGS, M_DESC_SHIFT,
	M_ADD_UNAUTH, M_ADD_AUTH, M_SWAP_EXT, M_ROOT, M_SALT, M_DATA,
	M_DATA_PAD, M_TREE, M_TREE_ZERO, M_TRUNCATE, M_MULTI, M_COUNT
};

static const char *const mut_names[M_COUNT] = {
	"none", "flip-desc", "flip-auth", "flip-unauth", "flip-footer",
	"flip-region", "byte-region", "ext-length", "ext-type", "ext-reserved",
	"auth-count", "unauth-count", "unauth-reserved", "reverse-offset",
	"footer-page", "trailing-zeros", "trailing-junk", "big-region",
	"orig-size", "depth", "block-size", "algorithm", "unequal-alg",
	"version", "flags-reserved", "desc-shift", "add-unauth-ext",
	"add-auth-ext", "swap-ext", "root-hash", "salt", "data", "data-pad",
	"tree", "tree-zero", "truncate", "multi",
};

static void mutate(struct img *im, const struct base *b, enum mut k)
{
	size_t d = b->desc, ext, room, off, n, pos;
	u8 *r = im->p + d, tmp[256];
	u32 v;
	int i;

	switch (k) {
	case M_NONE:
		say("unmutated");
		break;
	case M_FLIP_DESC:
		flip_bits(im, d, d + 64, "descriptor");
		break;
	case M_FLIP_AUTH:
		flip_bits(im, d + 64, b->unauth, "auth extensions");
		break;
	case M_FLIP_UNAUTH:
		flip_bits(im, b->unauth, b->unauth_end, "unauth header");
		break;
	case M_FLIP_FOOTER:
		flip_bits(im, b->footer, b->footer + 12, "footer");
		break;
	case M_FLIP_REGION:
		flip_bits(im, d, im->len, "region");
		break;
	case M_BYTE_REGION:
		off = d + rnd(im->len - d);
		v = rnd(3) == 0 ? 0 : rnd(3) == 0 ? 0xff : rnd(256);
		say("byte %zu (region +%zu) 0x%02x -> 0x%02x", off, off - d, im->p[off], v);
		im->p[off] = v;
		break;
	case M_EXT_LEN:
		i = rnd(b->next);
		ext = b->ext[i];
		room = b->footer - ext;
		v = pick_len(get32(im->p + ext), room);
		say("extension %d (type %u) length %u -> %u (room %zu)", i,
		    get16(im->p + ext + 4), get32(im->p + ext), v, room);
		put32(im->p + ext, v);
		break;
	case M_EXT_TYPE: {
		static const u16 types[] = { 0, 1, 2, 3, 4, 5, 0x100, 0x8001, 0xffff };

		i = rnd(b->next);
		v = types[rnd(sizeof(types) / sizeof(types[0]))];
		say("extension %d type %u -> %u", i, get16(im->p + b->ext[i] + 4), v);
		put16(im->p + b->ext[i] + 4, v);
		break;
	}
	case M_EXT_RSV:
		i = rnd(b->next);
		v = 1u << rnd(16);
		say("extension %d reserved -> 0x%x", i, v);
		put16(im->p + b->ext[i] + 6, v);
		break;
	case M_AUTH_COUNT: {
		u32 c[] = { 0, b->nauth - 1, b->nauth + 1, b->nauth + 2, 0x100, 0x8000, 0xffff };

		v = c[rnd(7)] & 0xffff;
		say("auth_ext_count %d -> %u", b->nauth, v);
		put16(r + 32, v);
		break;
	}
	case M_UNAUTH_COUNT: {
		static const u16 c[] = { 1, 2, 3, 0x100, 0x8000, 0xffff };

		v = c[rnd(6)];
		say("unauth_ext_count 0 -> %u", v);
		put16(im->p + b->unauth, v);
		break;
	}
	case M_UNAUTH_RSV:
		i = 2 + rnd(6);
		v = 1 + rnd(255);
		say("unauth header byte %d -> 0x%02x", i, v);
		im->p[b->unauth + i] = v;
		break;
	case M_REVOFF: {
		size_t cur = get32(im->p + b->footer);
		u32 c[] = { 0, 1, 8, 63, 64, 75, 76, 77, cur + 1 + rnd(7), cur - 1 - rnd(7),
			cur + 8, cur - 8, cur + BLK, b->len, b->len + 1, b->len + 8,
			b->len - 4, b->len - 8, MAX_REGION, MAX_REGION + 1, MAX_REGION + 8,
			0x7fffffff, 0xffffffff };

		v = c[rnd(sizeof(c) / sizeof(c[0]))];
		say("desc_reverse_offset %zu -> %u (file %zu)", cur, v, b->len);
		put32(im->p + b->footer, v);
		break;
	}
	case M_FOOTER_PAGE: {
		/* move the footer so that s bytes of it precede a page boundary */
		size_t s = rnd(13), p = (b->footer + 12 + BLK - 1) / BLK * BLK;

		if (p - s < b->footer)
			p += BLK;
		n = p - s - b->footer;
		img_insert(im, b->footer, NULL, n);
		bump_rev(im, b->footer + n, n);
		say("footer moved by %zu zero bytes to offset %zu: %zu of its bytes before the page boundary",
		    n, b->footer + n, s);
		break;
	}
	case M_TRAIL_ZEROS: {
		size_t to_page = (BLK - im->len % BLK) % BLK;
		size_t c[] = { 1, 7, 8, 12, to_page, to_page + 1, to_page ? to_page - 1 : 0,
			rnd(to_page + 1), BLK, BLK + rnd(BLK) };

		n = c[rnd(10)];
		img_reserve(im, im->len + n);
		memset(im->p + im->len, 0, n);
		im->len += n;
		say("%zu trailing zero bytes appended (%zu to the page end)", n, to_page);
		break;
	}
	case M_TRAIL_JUNK:
		n = 1 + rnd(16);
		img_reserve(im, im->len + n);
		for (i = 0; i < (int)n; i++)
			im->p[im->len + i] = rnd(256);
		if (rnd(2))
			im->p[im->len + n - 1] |= 1;
		im->len += n;
		say("%zu junk bytes appended", n);
		break;
	case M_BIG_REGION: {
		/* zeroes after the unauth header, the footer then at rev = T */
		size_t cur = get32(im->p + b->footer);
		size_t c[] = { MAX_REGION - BLK, MAX_REGION - 8, MAX_REGION, MAX_REGION + 4,
			MAX_REGION + 8, MAX_REGION + 12, MAX_REGION + BLK, MAX_REGION + 12 + BLK };
		size_t t = c[rnd(8)];

		if (t <= cur)
			break;
		n = t - cur;
		img_insert(im, b->footer, NULL, n);
		bump_rev(im, b->footer + n, n);
		say("descriptor region grown by %zu zero bytes: desc_reverse_offset %zu", n, t);
		break;
	}
	case M_ORIG_SIZE: {
		u64 s = b->dsize, rb = b->nblocks * BLK;
		u64 c[] = { 0, 1, s - 1, s + 1, s + 2, rb, rb + 1, rb - 1, s + BLK, s - BLK,
			d, d + 1, d - 1, d + 8, 1ULL << 32, 1ULL << 63, ~0ULL, rnd(2 * d) };

		s = c[rnd(sizeof(c) / sizeof(c[0]))];
		say("orig_file_size %llu -> %llu (descriptor at %zu)",
		    (unsigned long long)b->dsize, (unsigned long long)s, d);
		put64(r + 24, s);
		break;
	}
	case M_DEPTH: {
		/*
		 * An orig_file_size implying more than 16 levels needs more
		 * than 2^64 bytes with 4 KiB blocks; the largest sizes imply
		 * the most levels (sha512: 9 levels at 2^64-1).
		 */
		u64 c[] = { ~0ULL, ~0ULL - BLK, 1ULL << 62, 1ULL << 52 };

		v = rnd(4);
		say("orig_file_size %llu -> %llu (many levels)",
		    (unsigned long long)b->dsize, (unsigned long long)c[v]);
		put64(r + 24, c[v]);
		break;
	}
	case M_BLOCKSIZE: {
		static const u8 c[] = { 0, 1, 9, 10, 11, 13, 14, 16, 20, 63, 64, 255 };
		u8 a = c[rnd(sizeof(c))], t = c[rnd(sizeof(c))];

		switch (rnd(3)) {
		case 0: t = 12; break;
		case 1: a = 12; break;
		}
		say("log_data_blocksize %u, log_tree_blocksize %u", a, t);
		r[10] = a;
		r[11] = t;
		break;
	}
	case M_ALG: {
		static const u16 c[] = { 0, 1, 2, 3, 4, 5, 7, 0x100, 0x101, 0x8001, 0xffff };

		v = c[rnd(sizeof(c) / sizeof(c[0]))];
		say("data and tree algorithm %d -> %u", b->alg, v);
		put16(r + 12, v);
		put16(r + 14, v);
		break;
	}
	case M_UNEQUAL_ALG: {
		u16 a = 1 + rnd(5), t = 1 + rnd(5);

		if (a == t)
			t = a % 5 + 1;
		if (rnd(2))
			a = b->alg;
		else
			t = b->alg;
		if (a == t)
			t = a % 3 + 1;
		say("data algorithm %u, tree algorithm %u", a, t);
		put16(r + 12, a);
		put16(r + 14, t);
		break;
	}
	case M_VERSION:
		r[8 + rnd(2)] = rnd(2) ? 1 + rnd(255) : 0;
		if (r[8] == 1 && r[9] == 0)
			r[9] = 1;
		say("version %u.%u", r[8], r[9]);
		break;
	case M_FLAGS:
		off = rnd(3) == 0 ? 16 + rnd(4) : rnd(3) == 0 ? 20 + rnd(4) : 34 + rnd(30);
		v = 1u << rnd(8);
		r[off] ^= v;
		say("descriptor byte %zu ^= 0x%02x (flags/reserved)", off, v);
		break;
	case M_DESC_SHIFT: {
		static const size_t c[] = { 1, 2, 4, 7, 8, 12, 16, 24, 4088, 4096 };

		n = c[rnd(sizeof(c) / sizeof(c[0]))];
		img_insert(im, d, NULL, n);
		say("%zu zero bytes inserted before the descriptor (now at %zu)", n, d + n);
		break;
	}
	case M_ADD_UNAUTH: {
		static const u16 types[] = { 1, 2, 3, 3, 3, 0, 4, 0xffff };
		u16 t = types[rnd(sizeof(types) / sizeof(types[0]))];
		u32 len;

		n = t == 3 ? fake_sig(tmp, sizeof(tmp)) : rnd(2) ? algs[b->alg].ds : rnd(40);
		if (t != 3)
			for (i = 0; i < (int)n; i++)
				tmp[i] = rnd(256);
		pos = up8(8 + n);
		len = rnd(3) ? 8 + n : pick_len(8 + n, b->footer - b->unauth_end + pos);
		if (t == 3 && !rnd(4))	/* a length that wraps when rounded up to 8 */
			len = 0xfffffff9 + rnd(7);
		img_insert(im, b->unauth_end, NULL, pos);
		put32(im->p + b->unauth_end, len);
		put16(im->p + b->unauth_end + 4, t);
		memcpy(im->p + b->unauth_end + 8, tmp, n);
		if (rnd(4))
			put16(im->p + b->unauth, 1);
		else
			put16(im->p + b->unauth, rnd(2) ? 2 : 0xffff);
		bump_rev(im, b->footer + pos, pos);
		say("unauthenticated extension added: type %u, %zu payload bytes, length %u, unauth_ext_count %u",
		    t, n, len, get16(im->p + b->unauth));
		break;
	}
	case M_ADD_AUTH: {
		static const u16 types[] = { 1, 2, 3, 0, 9 };
		u16 t = types[rnd(5)];

		n = t == 1 ? algs[b->alg].ds : rnd(24);
		if (t == 3)
			n = fake_sig(tmp, sizeof(tmp));
		else
			for (i = 0; i < (int)n; i++)
				tmp[i] = rnd(256);
		pos = up8(8 + n);
		img_insert(im, b->unauth, NULL, pos);
		put32(im->p + b->unauth, 8 + n);
		put16(im->p + b->unauth + 4, t);
		memcpy(im->p + b->unauth + 8, tmp, n);
		put16(im->p + d + 32, b->nauth + (rnd(4) ? 1 : 0));
		bump_rev(im, b->footer + pos, pos);
		say("authenticated extension added: type %u, %zu payload bytes, auth_ext_count %u",
		    t, n, get16(im->p + d + 32));
		break;
	}
	case M_SWAP_EXT:
		if (b->next < 2) {
			say("no second extension to swap with");
			break;
		}
		n = b->unauth - b->ext[1];
		pos = b->ext[1] - b->ext[0];
		memcpy(tmp, im->p + b->ext[0], pos);	/* the root hash ext */
		memmove(im->p + b->ext[0], im->p + b->ext[1], n);
		memcpy(im->p + b->ext[0] + n, tmp, pos);
		say("salt extension moved before the root hash");
		break;
	case M_ROOT:
		flip_bits(im, b->ext[0] + 8, b->ext[0] + 8 + algs[b->alg].ds, "root hash");
		break;
	case M_SALT:
		if (b->next < 2) {
			say("no salt to change");
			break;
		}
		flip_bits(im, b->ext[1] + 8, b->ext[1] + 8 + b->salt_len, "salt");
		break;
	case M_DATA:
		n = 1 + rnd(3);
		for (i = 0; i < (int)n; i++) {
			off = rnd(b->dsize);
			v = 1 + rnd(255);
			im->p[off] ^= v;
			say("data byte %zu (block %zu) ^= 0x%02x", off, off / BLK, v);
		}
		break;
	case M_DATA_PAD:
		if (b->dsize % BLK == 0) {
			say("no data padding");
			break;
		}
		off = b->dsize + rnd(b->nblocks * BLK - b->dsize);
		v = 1 + rnd(255);
		im->p[off] ^= v;
		say("padding byte %zu after the data ^= 0x%02x", off, v);
		break;
	case M_TREE:
		if (!b->tree_blocks) {
			say("no tree blocks");
			break;
		}
		n = 1 + rnd(2);
		for (i = 0; i < (int)n; i++) {
			off = b->nblocks * BLK + rnd(b->tree_blocks * BLK);
			v = 1 + rnd(255);
			im->p[off] ^= v;
			say("tree byte %zu (tree block %zu, +%zu) ^= 0x%02x", off,
			    off / BLK - b->nblocks, off % BLK, v);
		}
		break;
	case M_TREE_ZERO:
		if (!b->tree_blocks) {
			say("no tree blocks");
			break;
		}
		off = b->nblocks + rnd(b->tree_blocks);
		memset(im->p + off * BLK, 0, BLK);
		say("tree block %zu zeroed", off - b->nblocks);
		break;
	case M_TRUNCATE: {
		size_t c[] = { 1, 4, 11, 12, 13, 1 + rnd(im->len - d), im->len - d, im->len - d + 1 + rnd(BLK) };

		n = c[rnd(8)];
		if (n >= im->len)
			n = im->len - 1;
		im->len -= n;
		say("truncated by %zu bytes to %zu", n, im->len);
		break;
	}
	case M_MULTI:
		n = 2 + rnd(4);
		for (i = 0; i < (int)n; i++) {
			off = rnd(3) ? d + rnd(im->len - d) : rnd(im->len);
			v = 1u << rnd(8);
			im->p[off] ^= v;
			say("byte %zu ^= 0x%02x", off, v);
		}
		break;
	case M_COUNT:
		break;
	}
}

static const u8 weights[M_COUNT] = {
	[M_NONE] = 1, [M_FLIP_DESC] = 6, [M_FLIP_AUTH] = 5, [M_FLIP_UNAUTH] = 3,
	[M_FLIP_FOOTER] = 4, [M_FLIP_REGION] = 4, [M_BYTE_REGION] = 3,
	[M_EXT_LEN] = 6, [M_EXT_TYPE] = 3, [M_EXT_RSV] = 2, [M_AUTH_COUNT] = 3,
	[M_UNAUTH_COUNT] = 3, [M_UNAUTH_RSV] = 2, [M_REVOFF] = 5,
	[M_FOOTER_PAGE] = 3, [M_TRAIL_ZEROS] = 3, [M_TRAIL_JUNK] = 1,
	[M_BIG_REGION] = 2, [M_ORIG_SIZE] = 6, [M_DEPTH] = 1, [M_BLOCKSIZE] = 3,
	[M_ALG] = 3, [M_UNEQUAL_ALG] = 2, [M_VERSION] = 2, [M_FLAGS] = 3,
	[M_DESC_SHIFT] = 3, [M_ADD_UNAUTH] = 5, [M_ADD_AUTH] = 3,
	[M_SWAP_EXT] = 1, [M_ROOT] = 2, [M_SALT] = 1, [M_DATA] = 4,
	[M_DATA_PAD] = 2, [M_TREE] = 4, [M_TREE_ZERO] = 1, [M_TRUNCATE] = 2,
	[M_MULTI] = 3,
};

static enum mut pick_mut(void)
{
	unsigned int total = 0, x, k;

	for (k = 0; k < M_COUNT; k++)
		total += weights[k];
	x = rnd(total);
	for (k = 0; k < M_COUNT; k++) {
		if (x < weights[k])
			return k;
		x -= weights[k];
	}
	return M_NONE;
}

/* ============================================================ the pool */

#define NPOOL 24
static struct base pool[NPOOL];
static int npool;
static u64 seed;

static u64 case_seed(u64 tag, u64 n)
{
	u64 s = seed ^ tag;

	splitmix(&s);
	s ^= n * 0xD1B54A32D192ED03ULL;
	return splitmix(&s);
}

/* Base i of the pool, from the seed: mostly small, all algorithms, salts */
static void make_base(struct base *b, int i)
{
	static const size_t salts[] = { 0, 0, 0, 1, 8, 16, 32, 33, 100, 255 };
	u64 nb;

	memset(b, 0, offsetof(struct base, salt));
	b->alg = 1 + i % 3;
	nb = rnd(4) ? 1 + rnd(8) : 1 + rnd(40);
	b->dsize = rnd(3) ? (nb - 1) * BLK + 1 + rnd(BLK) : nb * BLK;
	b->dseed = rnd(1u << 30);
	b->salt_len = salts[rnd(sizeof(salts) / sizeof(salts[0]))];
	if (i == NPOOL - 2)	/* the footer needs page padding */
		b->salt_len = BLK - 64 - 8 - up8(8 + algs[b->alg].ds) - 8 - 8 + 1 + rnd(8);
	if (i == NPOOL - 1)	/* the largest descriptor region the kernel reads */
		b->salt_len = MAX_REGION - 12 - 8 - up8(8 + algs[b->alg].ds) - 8 - 64 - rnd(8);
	for (size_t k = 0; k < b->salt_len; k++)
		b->salt[k] = rnd(256);
	build_base(b);
}

static void make_pool(void)
{
	rng = case_seed(0x706f6f6c, 0);
	for (npool = 0; npool < NPOOL; npool++)
		make_base(&pool[npool], npool);
}

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

	rng = case_seed(0x656e61626c65, c);
	mdesc[0] = 0;
	b = &pool[c < (u64)npool ? c : rnd(npool)];
	k = c < (u64)npool ? M_NONE : pick_mut();
	img_reserve(&im, b->len);
	memcpy(im.p, b->img, b->len);
	im.len = b->len;
	mutate(&im, b, k);
	/* sometimes a second, in-place mutation on top */
	if (k != M_NONE && !rnd(6)) {
		static const enum mut extra[] = { M_FLIP_REGION, M_DATA, M_TREE, M_FLIP_DESC };

		k2 = extra[rnd(4)];
		mutate(&im, b, k2);
	}
	model_parse(im.p, im.len, &m);
	snprintf(ctx, sizeof(ctx), "case %llu base %ld (%s) [%s%s%s]", c,
		 (long)(b - pool), b->label, mut_names[k], k2 != M_COUNT ? "+" : "",
		 k2 != M_COUNT ? mut_names[k2] : "");
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
		printf(" %s=%llu/%llu", mut_names[k], per_mut[k][0], per_mut[k][1]);
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
		const struct base *b;
		enum mut mk;

		rng = case_seed(0x656e61626c65, c);
		mdesc[0] = 0;
		b = &pool[c < (u64)npool ? c : rnd(npool)];
		mk = c < (u64)npool ? M_NONE : pick_mut();
		img_reserve(&im, b->len);
		memcpy(im.p, b->img, b->len);
		im.len = b->len;
		mutate(&im, b, mk);
		model_parse(im.p, im.len, &m);
		per[mk][m.valid]++;
		valid += m.valid;
		if (m.valid) {
			u8 *ok = xmalloc(m.nblocks);

			model_blocks(&m, im.p, ok);
			free(ok);
		}
		if (getenv("VFUZZ_VERBOSE"))
			printf("case %lu [%s] %s: %s\n", c, mut_names[mk], mdesc,
			       m.valid ? "valid" : m.why);
	}
	printf("selftest ok: %d bases, %lu mutated copies, %lu valid\n", npool, n, valid);
	for (k = 0; k < M_COUNT; k++)
		printf("  %-16s invalid %5lu  valid %5lu\n", mut_names[k], per[k][0], per[k][1]);
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
