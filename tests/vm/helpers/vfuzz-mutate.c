/*
 * vfuzz's cases: a seeded generator (splitmix64), the pool of base files
 * it draws, and the mutations of a base file's image, one function per
 * kind in the table mutations[], each saying what it did (mdesc).  The
 * draws of a case depend on the seed and the case number alone, so a
 * seed replays a run.  See vfuzz.c for the tool.
 */
#include "common.h"
#include "vfuzz-mutate.h"

/* a parameter some mutations leave unused (the kernel's name for it) */
#define __maybe_unused __attribute__((__unused__))

/* ============================================================ the generator */

u64 seed;
u64 rng;

static u64 splitmix(u64 *s)
{
	u64 z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

u64 rnd(u64 n)
{
	return n ? splitmix(&rng) % n : 0;
}

/* ============================================================ the pool */

struct base pool[NPOOL];
int npool;

u64 case_seed(u64 tag, u64 n)
{
	u64 s = seed ^ tag;

	splitmix(&s);
	s ^= n * 0xD1B54A32D192ED03ULL;
	return splitmix(&s);
}

/* Base i of the pool, from the seed: mostly small, all algorithms, salts */
void make_base(struct base *b, int i)
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

void make_pool(void)
{
	rng = case_seed(0x706f6f6c, 0);
	for (npool = 0; npool < NPOOL; npool++)
		make_base(&pool[npool], npool);
}

/* ============================================================ mutations */

void img_reserve(struct img *im, size_t n)
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

char mdesc[512];

void say(const char *fmt, ...)
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

/*
 * A PKCS#7-looking payload into p[0..max), its length returned: DER headers
 * with huge lengths (cut short, or followed by zeroes), or junk.
 */
static size_t fake_sig(u8 *p, size_t max)
{
	static const u8 der[] = { 0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x06, 0x09,
		0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02, 0xa0, 0x84,
		0x7f, 0xff, 0xff, 0xf0, 0x30, 0x84, 0x7f, 0xff, 0xff, 0xe0, 0x02,
		0x01, 0x01, 0x31, 0x84, 0x7f, 0xff, 0xff, 0x00 };
	size_t n = rnd(3) ? sizeof(der) : 1 + rnd(max - 1), i;

	if (n > max)
		n = max;
	if (n == sizeof(der) || rnd(2)) {
		memcpy(p, der, n < sizeof(der) ? n : sizeof(der));
		if (n > sizeof(der))
			memset(p + sizeof(der), 0, n - sizeof(der));
	} else {
		for (i = 0; i < n; i++)
			p[i] = rnd(256);
	}
	return n;
}

static void mut_none(struct img *im __maybe_unused,
		     const struct base *b __maybe_unused)
{
	say("unmutated");
}

static void mut_flip_desc(struct img *im, const struct base *b)
{
	size_t d = b->desc;

	flip_bits(im, d, d + 64, "descriptor");
}

static void mut_flip_auth(struct img *im, const struct base *b)
{
	flip_bits(im, b->desc + 64, b->unauth, "auth extensions");
}

static void mut_flip_unauth(struct img *im, const struct base *b)
{
	flip_bits(im, b->unauth, b->unauth_end, "unauth header");
}

static void mut_flip_footer(struct img *im, const struct base *b)
{
	flip_bits(im, b->footer, b->footer + 12, "footer");
}

static void mut_flip_region(struct img *im, const struct base *b)
{
	flip_bits(im, b->desc, im->len, "region");
}

static void mut_byte_region(struct img *im, const struct base *b)
{
	size_t d = b->desc;
	size_t off;
	u32 v;

	off = d + rnd(im->len - d);
	v = rnd(3) == 0 ? 0 : rnd(3) == 0 ? 0xff : rnd(256);
	say("byte %zu (region +%zu) 0x%02x -> 0x%02x", off, off - d, im->p[off], v);
	im->p[off] = v;
}

static void mut_ext_len(struct img *im, const struct base *b)
{
	size_t ext, room;
	u32 v;
	int i;

	i = rnd(b->next);
	ext = b->ext[i];
	room = b->footer - ext;
	v = pick_len(get32(im->p + ext), room);
	say("extension %d (type %u) length %u -> %u (room %zu)", i,
	    get16(im->p + ext + 4), get32(im->p + ext), v, room);
	put32(im->p + ext, v);
}

static void mut_ext_type(struct img *im, const struct base *b)
{
	static const u16 types[] = { 0, 1, 2, 3, 4, 5, 0x100, 0x8001, 0xffff };
	u32 v;
	int i;

	i = rnd(b->next);
	v = types[rnd(sizeof(types) / sizeof(types[0]))];
	say("extension %d type %u -> %u", i, get16(im->p + b->ext[i] + 4), v);
	put16(im->p + b->ext[i] + 4, v);
}

static void mut_ext_rsv(struct img *im, const struct base *b)
{
	u32 v;
	int i;

	i = rnd(b->next);
	v = 1u << rnd(16);
	say("extension %d reserved -> 0x%x", i, v);
	put16(im->p + b->ext[i] + 6, v);
}

static void mut_auth_count(struct img *im, const struct base *b)
{
	u8 *r = im->p + b->desc;
	u32 v;
	u32 c[] = { 0, b->nauth - 1, b->nauth + 1, b->nauth + 2, 0x100, 0x8000, 0xffff };

	v = c[rnd(7)] & 0xffff;
	say("auth_ext_count %d -> %u", b->nauth, v);
	put16(r + 32, v);
}

static void mut_unauth_count(struct img *im, const struct base *b)
{
	static const u16 c[] = { 1, 2, 3, 0x100, 0x8000, 0xffff };
	u32 v;

	v = c[rnd(6)];
	say("unauth_ext_count 0 -> %u", v);
	put16(im->p + b->unauth, v);
}

static void mut_unauth_rsv(struct img *im, const struct base *b)
{
	u32 v;
	int i;

	i = 2 + rnd(6);
	v = 1 + rnd(255);
	say("unauth header byte %d -> 0x%02x", i, v);
	im->p[b->unauth + i] = v;
}

static void mut_revoff(struct img *im, const struct base *b)
{
	u32 v;
	size_t cur = get32(im->p + b->footer);
	u32 c[] = { 0, 1, 8, 63, 64, 75, 76, 77, cur + 1 + rnd(7), cur - 1 - rnd(7),
		cur + 8, cur - 8, cur + BLK, b->len, b->len + 1, b->len + 8,
		b->len - 4, b->len - 8, MAX_REGION, MAX_REGION + 1, MAX_REGION + 8,
		0x7fffffff, 0xffffffff };

	v = c[rnd(sizeof(c) / sizeof(c[0]))];
	say("desc_reverse_offset %zu -> %u (file %zu)", cur, v, b->len);
	put32(im->p + b->footer, v);
}

/* move the footer so that s bytes of it precede a page boundary */
static void mut_footer_page(struct img *im, const struct base *b)
{
	size_t n;
	size_t s = rnd(13), p = (b->footer + 12 + BLK - 1) / BLK * BLK;

	if (p - s < b->footer)
		p += BLK;
	n = p - s - b->footer;
	img_insert(im, b->footer, NULL, n);
	bump_rev(im, b->footer + n, n);
	say("footer moved by %zu zero bytes to offset %zu: %zu of its bytes before the page boundary",
	    n, b->footer + n, s);
}

static void mut_trail_zeros(struct img *im, const struct base *b __maybe_unused)
{
	size_t n;
	size_t to_page = (BLK - im->len % BLK) % BLK;
	size_t c[] = { 1, 7, 8, 12, to_page, to_page + 1, to_page ? to_page - 1 : 0,
		rnd(to_page + 1), BLK, BLK + rnd(BLK) };

	n = c[rnd(10)];
	img_reserve(im, im->len + n);
	memset(im->p + im->len, 0, n);
	im->len += n;
	say("%zu trailing zero bytes appended (%zu to the page end)", n, to_page);
}

static void mut_trail_junk(struct img *im, const struct base *b __maybe_unused)
{
	size_t n;
	int i;

	n = 1 + rnd(16);
	img_reserve(im, im->len + n);
	for (i = 0; i < (int)n; i++)
		im->p[im->len + i] = rnd(256);
	if (rnd(2))
		im->p[im->len + n - 1] |= 1;
	im->len += n;
	say("%zu junk bytes appended", n);
}

/* zeroes after the unauth header, the footer then at rev = T */
static void mut_big_region(struct img *im, const struct base *b)
{
	size_t n;
	size_t cur = get32(im->p + b->footer);
	size_t c[] = { MAX_REGION - BLK, MAX_REGION - 8, MAX_REGION, MAX_REGION + 4,
		MAX_REGION + 8, MAX_REGION + 12, MAX_REGION + BLK, MAX_REGION + 12 + BLK };
	size_t t = c[rnd(8)];

	if (t <= cur)
		return;
	n = t - cur;
	img_insert(im, b->footer, NULL, n);
	bump_rev(im, b->footer + n, n);
	say("descriptor region grown by %zu zero bytes: desc_reverse_offset %zu", n, t);
}

static void mut_orig_size(struct img *im, const struct base *b)
{
	size_t d = b->desc;
	u8 *r = im->p + d;
	u64 s = b->dsize, rb = b->nblocks * BLK;
	u64 c[] = { 0, 1, s - 1, s + 1, s + 2, rb, rb + 1, rb - 1, s + BLK, s - BLK,
		d, d + 1, d - 1, d + 8, 1ULL << 32, 1ULL << 63, ~0ULL, rnd(2 * d) };

	s = c[rnd(sizeof(c) / sizeof(c[0]))];
	say("orig_file_size %llu -> %llu (descriptor at %zu)",
	    (unsigned long long)b->dsize, (unsigned long long)s, d);
	put64(r + 24, s);
}

/*
 * An orig_file_size implying more than 16 levels needs more
 * than 2^64 bytes with 4 KiB blocks; the largest sizes imply
 * the most levels (sha512: 9 levels at 2^64-1).
 */
static void mut_depth(struct img *im, const struct base *b)
{
	u8 *r = im->p + b->desc;
	u32 v;
	u64 c[] = { ~0ULL, ~0ULL - BLK, 1ULL << 62, 1ULL << 52 };

	v = rnd(4);
	say("orig_file_size %llu -> %llu (many levels)",
	    (unsigned long long)b->dsize, (unsigned long long)c[v]);
	put64(r + 24, c[v]);
}

static void mut_blocksize(struct img *im, const struct base *b)
{
	u8 *r = im->p + b->desc;
	static const u8 c[] = { 0, 1, 9, 10, 11, 13, 14, 16, 20, 63, 64, 255 };
	u8 a = c[rnd(sizeof(c))], t = c[rnd(sizeof(c))];

	switch (rnd(3)) {
	case 0: t = 12; break;
	case 1: a = 12; break;
	}
	say("log_data_blocksize %u, log_tree_blocksize %u", a, t);
	r[10] = a;
	r[11] = t;
}

static void mut_alg(struct img *im, const struct base *b)
{
	u8 *r = im->p + b->desc;
	u32 v;
	static const u16 c[] = { 0, 1, 2, 3, 4, 5, 7, 0x100, 0x101, 0x8001, 0xffff };

	v = c[rnd(sizeof(c) / sizeof(c[0]))];
	say("data and tree algorithm %d -> %u", b->alg, v);
	put16(r + 12, v);
	put16(r + 14, v);
}

static void mut_unequal_alg(struct img *im, const struct base *b)
{
	u8 *r = im->p + b->desc;
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
}

static void mut_version(struct img *im, const struct base *b)
{
	u8 *r = im->p + b->desc;

	r[8 + rnd(2)] = rnd(2) ? 1 + rnd(255) : 0;
	if (r[8] == 1 && r[9] == 0)
		r[9] = 1;
	say("version %u.%u", r[8], r[9]);
}

static void mut_flags(struct img *im, const struct base *b)
{
	u8 *r = im->p + b->desc;
	size_t off;
	u32 v;

	off = rnd(3) == 0 ? 16 + rnd(4) : rnd(3) == 0 ? 20 + rnd(4) : 34 + rnd(30);
	v = 1u << rnd(8);
	r[off] ^= v;
	say("descriptor byte %zu ^= 0x%02x (flags/reserved)", off, v);
}

static void mut_desc_shift(struct img *im, const struct base *b)
{
	size_t d = b->desc;
	size_t n;
	static const size_t c[] = { 1, 2, 4, 7, 8, 12, 16, 24, 4088, 4096 };

	n = c[rnd(sizeof(c) / sizeof(c[0]))];
	img_insert(im, d, NULL, n);
	say("%zu zero bytes inserted before the descriptor (now at %zu)", n, d + n);
}

static void mut_add_unauth(struct img *im, const struct base *b)
{
	size_t n, pos;
	u8 tmp[256];
	int i;
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
}

static void mut_add_auth(struct img *im, const struct base *b)
{
	size_t d = b->desc;
	size_t n, pos;
	u8 tmp[256];
	int i;
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
}

static void mut_swap_ext(struct img *im, const struct base *b)
{
	size_t n, pos;
	u8 tmp[256];

	if (b->next < 2) {
		say("no second extension to swap with");
		return;
	}
	n = b->unauth - b->ext[1];
	pos = b->ext[1] - b->ext[0];
	memcpy(tmp, im->p + b->ext[0], pos);	/* the root hash ext */
	memmove(im->p + b->ext[0], im->p + b->ext[1], n);
	memcpy(im->p + b->ext[0] + n, tmp, pos);
	say("salt extension moved before the root hash");
}

static void mut_root(struct img *im, const struct base *b)
{
	flip_bits(im, b->ext[0] + 8, b->ext[0] + 8 + algs[b->alg].ds, "root hash");
}

static void mut_salt(struct img *im, const struct base *b)
{
	if (b->next < 2) {
		say("no salt to change");
		return;
	}
	flip_bits(im, b->ext[1] + 8, b->ext[1] + 8 + b->salt_len, "salt");
}

static void mut_data(struct img *im, const struct base *b)
{
	size_t off, n;
	u32 v;
	int i;

	n = 1 + rnd(3);
	for (i = 0; i < (int)n; i++) {
		off = rnd(b->dsize);
		v = 1 + rnd(255);
		im->p[off] ^= v;
		say("data byte %zu (block %zu) ^= 0x%02x", off, off / BLK, v);
	}
}

static void mut_data_pad(struct img *im, const struct base *b)
{
	size_t off;
	u32 v;

	if (b->dsize % BLK == 0) {
		say("no data padding");
		return;
	}
	off = b->dsize + rnd(b->nblocks * BLK - b->dsize);
	v = 1 + rnd(255);
	im->p[off] ^= v;
	say("padding byte %zu after the data ^= 0x%02x", off, v);
}

static void mut_tree(struct img *im, const struct base *b)
{
	size_t off, n;
	u32 v;
	int i;

	if (!b->tree_blocks) {
		say("no tree blocks");
		return;
	}
	n = 1 + rnd(2);
	for (i = 0; i < (int)n; i++) {
		off = b->nblocks * BLK + rnd(b->tree_blocks * BLK);
		v = 1 + rnd(255);
		im->p[off] ^= v;
		say("tree byte %zu (tree block %zu, +%zu) ^= 0x%02x", off,
		    off / BLK - b->nblocks, off % BLK, v);
	}
}

static void mut_tree_zero(struct img *im, const struct base *b)
{
	size_t off;

	if (!b->tree_blocks) {
		say("no tree blocks");
		return;
	}
	off = b->nblocks + rnd(b->tree_blocks);
	memset(im->p + off * BLK, 0, BLK);
	say("tree block %zu zeroed", off - b->nblocks);
}

static void mut_truncate(struct img *im, const struct base *b)
{
	size_t d = b->desc;
	size_t n;
	size_t c[] = { 1, 4, 11, 12, 13, 1 + rnd(im->len - d), im->len - d, im->len - d + 1 + rnd(BLK) };

	n = c[rnd(8)];
	if (n >= im->len)
		n = im->len - 1;
	im->len -= n;
	say("truncated by %zu bytes to %zu", n, im->len);
}

static void mut_multi(struct img *im, const struct base *b)
{
	size_t d = b->desc;
	size_t off, n;
	u32 v;
	int i;

	n = 2 + rnd(4);
	for (i = 0; i < (int)n; i++) {
		off = rnd(3) ? d + rnd(im->len - d) : rnd(im->len);
		v = 1u << rnd(8);
		im->p[off] ^= v;
		say("byte %zu ^= 0x%02x", off, v);
	}
}

/* Each mutation kind: its name, its weight in pick_mut()'s draw, its function. */
static const struct mutation {
	const char *name;
	unsigned int weight;
	void (*fn)(struct img *im, const struct base *b);
} mutations[M_COUNT] = {
	[M_NONE] = { "none", 1, mut_none },
	[M_FLIP_DESC] = { "flip-desc", 6, mut_flip_desc },
	[M_FLIP_AUTH] = { "flip-auth", 5, mut_flip_auth },
	[M_FLIP_UNAUTH] = { "flip-unauth", 3, mut_flip_unauth },
	[M_FLIP_FOOTER] = { "flip-footer", 4, mut_flip_footer },
	[M_FLIP_REGION] = { "flip-region", 4, mut_flip_region },
	[M_BYTE_REGION] = { "byte-region", 3, mut_byte_region },
	[M_EXT_LEN] = { "ext-length", 6, mut_ext_len },
	[M_EXT_TYPE] = { "ext-type", 3, mut_ext_type },
	[M_EXT_RSV] = { "ext-reserved", 2, mut_ext_rsv },
	[M_AUTH_COUNT] = { "auth-count", 3, mut_auth_count },
	[M_UNAUTH_COUNT] = { "unauth-count", 3, mut_unauth_count },
	[M_UNAUTH_RSV] = { "unauth-reserved", 2, mut_unauth_rsv },
	[M_REVOFF] = { "reverse-offset", 5, mut_revoff },
	[M_FOOTER_PAGE] = { "footer-page", 3, mut_footer_page },
	[M_TRAIL_ZEROS] = { "trailing-zeros", 3, mut_trail_zeros },
	[M_TRAIL_JUNK] = { "trailing-junk", 1, mut_trail_junk },
	[M_BIG_REGION] = { "big-region", 2, mut_big_region },
	[M_ORIG_SIZE] = { "orig-size", 6, mut_orig_size },
	[M_DEPTH] = { "depth", 1, mut_depth },
	[M_BLOCKSIZE] = { "block-size", 3, mut_blocksize },
	[M_ALG] = { "algorithm", 3, mut_alg },
	[M_UNEQUAL_ALG] = { "unequal-alg", 2, mut_unequal_alg },
	[M_VERSION] = { "version", 2, mut_version },
	[M_FLAGS] = { "flags-reserved", 3, mut_flags },
	[M_DESC_SHIFT] = { "desc-shift", 3, mut_desc_shift },
	[M_ADD_UNAUTH] = { "add-unauth-ext", 5, mut_add_unauth },
	[M_ADD_AUTH] = { "add-auth-ext", 3, mut_add_auth },
	[M_SWAP_EXT] = { "swap-ext", 1, mut_swap_ext },
	[M_ROOT] = { "root-hash", 2, mut_root },
	[M_SALT] = { "salt", 1, mut_salt },
	[M_DATA] = { "data", 4, mut_data },
	[M_DATA_PAD] = { "data-pad", 2, mut_data_pad },
	[M_TREE] = { "tree", 4, mut_tree },
	[M_TREE_ZERO] = { "tree-zero", 1, mut_tree_zero },
	[M_TRUNCATE] = { "truncate", 2, mut_truncate },
	[M_MULTI] = { "multi", 3, mut_multi },
};

const char *mut_name(enum mut k)
{
	return mutations[k].name;
}

void mutate(struct img *im, const struct base *b, enum mut k)
{
	if (k < M_COUNT)
		mutations[k].fn(im, b);
}

enum mut pick_mut(void)
{
	unsigned int total = 0, x, k;

	for (k = 0; k < M_COUNT; k++)
		total += mutations[k].weight;
	x = rnd(total);
	for (k = 0; k < M_COUNT; k++) {
		if (x < mutations[k].weight)
			return k;
		x -= mutations[k].weight;
	}
	return M_NONE;
}

/*
 * Case c of the enable mode (and of the selftest) into im: its base, and
 * the base's image with one mutation, *k (none for the first npool cases:
 * each base unmutated).  Leaves rng where the case may draw more.
 */
const struct base *make_case(struct img *im, u64 c, enum mut *k)
{
	const struct base *b;

	rng = case_seed(0x656e61626c65, c);
	mdesc[0] = 0;
	b = &pool[c < (u64)npool ? c : rnd(npool)];
	*k = c < (u64)npool ? M_NONE : pick_mut();
	img_reserve(im, b->len);
	memcpy(im->p, b->img, b->len);
	im->len = b->len;
	mutate(im, b, *k);
	return b;
}
