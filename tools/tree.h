/* SPDX-License-Identifier: GPL-2.0 */
/* Building the fs-verity Merkle tree of a file's data. */
#ifndef FSVERITY_TREE_H
#define FSVERITY_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/* Enough for 2^64 bytes even with 1 KiB blocks and SHA-512 (8 per block). */
#define MAX_TREE_LEVELS	32

struct tree_params {
	const struct hash_alg *alg;
	const uint8_t *salt;
	size_t salt_len;
	unsigned int block_size;
	unsigned int nthreads;
};

/*
 * The tree exactly as stored on disk: all levels in one buffer, the root
 * level first and level 0 (the hashes of the data blocks) last.
 */
struct merkle_tree {
	unsigned int depth;			/* number of levels */
	uint64_t level_blocks[MAX_TREE_LEVELS];	/* blocks in level l */
	uint64_t level_offset[MAX_TREE_LEVELS];	/* offset of level l in buf */
	uint8_t *buf;
	size_t size;				/* bytes, a block multiple */
	uint8_t root_hash[MAX_DIGEST_SIZE];
};

/*
 * Hash the first @data_size bytes of @fd (data_size > 0) into @tree.
 * @path is used in messages.  On failure, prints an error.
 */
bool build_merkle_tree(int fd, const char *path, uint64_t data_size,
		       const struct tree_params *params,
		       struct merkle_tree *tree);
void free_merkle_tree(struct merkle_tree *tree);

#endif /* FSVERITY_TREE_H */
