/*
 * vfuzz's cases (vfuzz-mutate.c): the seeded generator, the pool of base
 * files drawn from the seed, and the mutations of a base file's image.
 */
#ifndef VFUZZ_MUTATE_H
#define VFUZZ_MUTATE_H

#include "vfuzz-format.h"

/* ============================================================ the generator */

extern u64 seed;		/* the run's seed (VFUZZ_SEED) */
extern u64 rng;			/* the current case's generator */

u64 rnd(u64 n);
u64 case_seed(u64 tag, u64 n);

/* ============================================================ the pool */

#define NPOOL 24
extern struct base pool[NPOOL];
extern int npool;

void make_base(struct base *b, int i);
void make_pool(void);

/* ============================================================ mutations */

struct img {
	u8 *p;
	size_t len, cap;
};

void img_reserve(struct img *im, size_t n);

/* What the mutations of the current case did, "; "-separated (say()). */
extern char mdesc[512];
void say(const char *fmt, ...);

enum mut {
	M_NONE, M_FLIP_DESC, M_FLIP_AUTH, M_FLIP_UNAUTH, M_FLIP_FOOTER,
	M_FLIP_REGION, M_BYTE_REGION, M_EXT_LEN, M_EXT_TYPE, M_EXT_RSV,
	M_AUTH_COUNT, M_UNAUTH_COUNT, M_UNAUTH_RSV, M_REVOFF, M_FOOTER_PAGE,
	M_TRAIL_ZEROS, M_TRAIL_JUNK, M_BIG_REGION, M_ORIG_SIZE, M_DEPTH,
	M_BLOCKSIZE, M_ALG, M_UNEQUAL_ALG, M_VERSION, M_FLAGS, M_DESC_SHIFT,
	M_ADD_UNAUTH, M_ADD_AUTH, M_SWAP_EXT, M_ROOT, M_SALT, M_DATA,
	M_DATA_PAD, M_TREE, M_TREE_ZERO, M_TRUNCATE, M_MULTI, M_COUNT
};

const char *mut_name(enum mut k);
void mutate(struct img *im, const struct base *b, enum mut k);
enum mut pick_mut(void);
const struct base *make_case(struct img *im, u64 c, enum mut *k);

#endif
