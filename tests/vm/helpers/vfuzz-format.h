/*
 * vfuzz's model of the 2018 fs-verity format (vfuzz-format.c): the hashes,
 * the layout of a valid file (tree geometry, descriptor, extensions, footer)
 * as `fsverity setup` writes it, and an independent parser that checks a
 * file against every rule of the format.
 */
#ifndef VFUZZ_FORMAT_H
#define VFUZZ_FORMAT_H

#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define BLK		4096u
#define MAX_LEVELS	16
#define MAX_REGION	(16u * BLK)	/* descriptor region incl. footer */

/* ============================================================ hashes */

enum { ALG_SHA256 = 1, ALG_SHA512 = 2, ALG_CRC32C = 3 };

struct alg_info {
	const char *name;
	unsigned int ds;		/* digest size */
};

extern const struct alg_info algs[];

int alg_known(unsigned int a);

struct hctx {
	int alg;
	u64 n;			/* bytes hashed */
	size_t used;		/* bytes in buf */
	u32 h32[8];
	u64 h64[8];
	u32 crc;
	u8 buf[128];
};

void crc32c_init(void);
void h_init(struct hctx *c, int alg);
void h_update(struct hctx *c, const u8 *p, size_t len);
void h_final(struct hctx *c, u8 *out);
void h_buf(int alg, const u8 *salt, size_t salt_len, const u8 *p,
	   size_t len, u8 *out);

/* ============================================================ helpers */

static inline u16 get16(const u8 *p) { return p[0] | p[1] << 8; }
static inline u32 get32(const u8 *p) { return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24; }
static inline u64 get64(const u8 *p) { return get32(p) | (u64)get32(p + 4) << 32; }
static inline void put16(u8 *p, u16 v) { p[0] = v; p[1] = v >> 8; }
static inline void put32(u8 *p, u32 v) { put16(p, v); put16(p + 2, v >> 16); }
static inline void put64(u8 *p, u64 v) { put32(p, v); put32(p + 4, v >> 32); }

static inline size_t up8(size_t x) { return (x + 7) & ~(size_t)7; }

void hex(char *out, const u8 *p, size_t n);
void gen_data(u8 *buf, size_t n, u64 seed);
void *xmalloc(size_t n);

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

void base_geometry(struct base *b);
size_t region_max(const struct base *b);
void base_region(struct base *b, u8 *r, const u8 *root);
void build_base(struct base *b);

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

int model_parse(const u8 *f, size_t len, struct model *m);
void model_blocks(const struct model *m, const u8 *f, u8 *ok);

#endif
