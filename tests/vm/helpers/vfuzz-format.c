/*
 * vfuzz's model of the 2018 fs-verity format: its own SHA-256, SHA-512 and
 * CRC-32C; the base files, valid files laid out as `fsverity setup` writes
 * them (tree geometry, descriptor, extensions, footer); and the parser that
 * checks a file against every rule of the format and tells which data
 * blocks verify.  See vfuzz.c for the tool.
 */
#include "common.h"
#include <linux/fsverity.h>
#include "vfuzz-format.h"

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

void crc32c_init(void)
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

const struct alg_info algs[] = {
	[ALG_SHA256] = { "sha256", 32 },
	[ALG_SHA512] = { "sha512", 64 },
	[ALG_CRC32C] = { "crc32c", 4 },
};

int alg_known(unsigned int a)
{
	return a >= 1 && a <= 3;
}

void h_init(struct hctx *c, int alg)
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

void h_update(struct hctx *c, const u8 *p, size_t len)
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

void h_final(struct hctx *c, u8 *out)
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

void h_buf(int alg, const u8 *salt, size_t salt_len, const u8 *p,
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

void hex(char *out, const u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

/* The byte stream of the `gen` helper: `gen SIZE SEED` writes its first SIZE bytes. */
void gen_data(u8 *buf, size_t n, u64 seed)
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

void *xmalloc(size_t n)
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
void base_geometry(struct base *b)
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
size_t region_max(const struct base *b)
{
	return 64 + 8 + 64 + up8(8 + b->salt_len) + 8 + BLK + 12;
}

/*
 * The descriptor region (descriptor, extensions, unauthenticated header,
 * footer) of b with root hash root into r (region_max(b) zeroed bytes, r[0]
 * at file offset b->desc); sets the offsets, b->meas and b->len.
 */
void base_region(struct base *b, u8 *r, const u8 *root)
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
void build_base(struct base *b)
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
int model_parse(const u8 *f, size_t len, struct model *m)
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
void model_blocks(const struct model *m, const u8 *f, u8 *ok)
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
