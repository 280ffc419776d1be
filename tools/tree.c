// SPDX-License-Identifier: GPL-2.0
/*
 * Building the fs-verity Merkle tree of a file's data.
 *
 * Level 0 (the hashes of the data blocks) is where nearly all the work is:
 * the data is read in chunks of CHUNK_SIZE bytes, which worker threads claim
 * one at a time and hash into their fixed place in level 0, so the result
 * does not depend on the number of threads.  Only the tree is kept in
 * memory, about digest_size/block_size of the data size.
 */
#include "tree.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define CHUNK_SIZE	(1u << 20)	/* a multiple of any block size */

enum leaf_status {
	LEAF_OK,
	LEAF_READ_ERROR,	/* read_errno says why */
	LEAF_SHORT_READ,	/* the file shrank while we read it */
	LEAF_HASH_ERROR,
};

struct leaf_job {
	int fd;
	uint64_t data_size;
	unsigned int block_size;
	unsigned int digest_size;
	uint8_t *out;			/* level 0, or the root hash if depth 0 */
	uint64_t nchunks;
	atomic_uint_fast64_t next_chunk;
	atomic_int status;		/* first failure, enum leaf_status */
	int read_errno;			/* written only by who sets status */
};

struct leaf_worker {
	struct leaf_job *job;
	struct hasher hasher;
	uint8_t *buf;			/* CHUNK_SIZE bytes */
	pthread_t thread;
};

static bool compute_geometry(uint64_t data_size, const struct tree_params *p,
			     struct merkle_tree *tree)
{
	uint64_t hashes_per_block = p->block_size / p->alg->digest_size;
	uint64_t nblocks = DIV_ROUND_UP(data_size, p->block_size);
	uint64_t offset = 0;
	unsigned int level;

	tree->depth = 0;
	while (nblocks > 1) {
		nblocks = DIV_ROUND_UP(nblocks, hashes_per_block);
		if (tree->depth == MAX_TREE_LEVELS)
			return false;
		tree->level_blocks[tree->depth++] = nblocks;
	}
	for (level = tree->depth; level-- > 0;) {
		tree->level_offset[level] = offset;
		offset += tree->level_blocks[level] * p->block_size;
	}
	if (offset > SIZE_MAX)
		return false;
	tree->size = offset;
	return true;
}

static bool leaf_fail(struct leaf_job *job, enum leaf_status status, int err)
{
	int expected = LEAF_OK;

	if (atomic_compare_exchange_strong(&job->status, &expected, status))
		job->read_errno = err;
	return false;
}

static bool hash_chunk(struct leaf_worker *w, uint64_t chunk)
{
	struct leaf_job *job = w->job;
	uint64_t offset = chunk * CHUNK_SIZE;
	size_t len = job->data_size - offset < CHUNK_SIZE ?
		     job->data_size - offset : CHUNK_SIZE;
	size_t padded = ROUND_UP(len, job->block_size);
	uint8_t *out = job->out + offset / job->block_size * job->digest_size;
	ssize_t n;
	size_t i;

	n = pread_full(job->fd, w->buf, len, offset);
	if (n < 0)
		return leaf_fail(job, LEAF_READ_ERROR, errno);
	if ((size_t)n != len)
		return leaf_fail(job, LEAF_SHORT_READ, 0);
	memset(w->buf + len, 0, padded - len);	/* pad the last block */

	for (i = 0; i < padded; i += job->block_size) {
		if (!hasher_digest(&w->hasher, w->buf + i, job->block_size, out))
			return leaf_fail(job, LEAF_HASH_ERROR, 0);
		out += job->digest_size;
	}
	return true;
}

static void *leaf_worker_fn(void *arg)
{
	struct leaf_worker *w = arg;
	struct leaf_job *job = w->job;

	while (atomic_load(&job->status) == LEAF_OK) {
		uint64_t chunk = atomic_fetch_add(&job->next_chunk, 1);

		if (chunk >= job->nchunks || !hash_chunk(w, chunk))
			break;
	}
	return NULL;
}

static bool report_leaf_status(const struct leaf_job *job, const char *path)
{
	switch (job->status) {
	case LEAF_OK:
		return true;
	case LEAF_READ_ERROR:
		error_msg_errno(job->read_errno, "cannot read '%s'", path);
		break;
	case LEAF_SHORT_READ:
		error_msg("'%s' shrank while it was being read", path);
		break;
	default:
		error_msg("hashing '%s' failed (OpenSSL error)", path);
		break;
	}
	return false;
}

/* Also frees partly set up workers: hasher_free() of a zeroed hasher is fine. */
static void free_workers(struct leaf_worker *workers, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		hasher_free(&workers[i].hasher);
		free(workers[i].buf);
	}
	free(workers);
}

/* Set up @n workers (hashers and buffers) in this thread: errors print once. */
static struct leaf_worker *alloc_workers(struct leaf_job *job, unsigned int n,
					 const struct tree_params *p)
{
	struct leaf_worker *workers = xzalloc(n * sizeof(*workers));
	unsigned int i;

	if (!workers)
		return NULL;
	for (i = 0; i < n; i++) {
		workers[i].job = job;
		workers[i].buf = xzalloc(CHUNK_SIZE);
		if (!workers[i].buf ||
		    !hasher_init(&workers[i].hasher, p->alg, p->salt,
				 p->salt_len)) {
			free_workers(workers, i + 1);
			return NULL;
		}
	}
	return workers;
}

static bool hash_data_blocks(int fd, const char *path, uint64_t data_size,
			     const struct tree_params *p, uint8_t *out)
{
	struct leaf_job job = {
		.fd = fd,
		.data_size = data_size,
		.block_size = p->block_size,
		.digest_size = p->alg->digest_size,
		.out = out,
		.nchunks = DIV_ROUND_UP(data_size, CHUNK_SIZE),
	};
	unsigned int n = p->nthreads < job.nchunks ? p->nthreads : job.nchunks;
	struct leaf_worker *workers = alloc_workers(&job, n, p);
	unsigned int started, i;
	bool ok;

	if (!workers)
		return false;
	/*
	 * Chunks are claimed dynamically, so if a thread cannot be created
	 * the others (at least this one) still do all the work.
	 */
	for (started = 1; started < n; started++)
		if (pthread_create(&workers[started].thread, NULL,
				   leaf_worker_fn, &workers[started]) != 0)
			break;
	leaf_worker_fn(&workers[0]);
	for (i = 1; i < started; i++)
		pthread_join(workers[i].thread, NULL);

	ok = report_leaf_status(&job, path);
	free_workers(workers, n);
	return ok;
}

/* Hash each level into the next one up, then the root block. */
static bool hash_upper_levels(struct merkle_tree *tree,
			      const struct tree_params *p)
{
	unsigned int ds = p->alg->digest_size;
	struct hasher h;
	unsigned int level;
	uint64_t i;
	bool ok = true;

	if (!hasher_init(&h, p->alg, p->salt, p->salt_len))
		return false;
	for (level = 1; level < tree->depth && ok; level++) {
		const uint8_t *src = tree->buf + tree->level_offset[level - 1];
		uint8_t *dst = tree->buf + tree->level_offset[level];

		for (i = 0; i < tree->level_blocks[level - 1] && ok; i++)
			ok = hasher_digest(&h, src + i * p->block_size,
					   p->block_size, dst + i * ds);
	}
	if (ok)
		ok = hasher_digest(&h, tree->buf +
				   tree->level_offset[tree->depth - 1],
				   p->block_size, tree->root_hash);
	if (!ok)
		error_msg("hashing the Merkle tree failed (OpenSSL error)");
	hasher_free(&h);
	return ok;
}

bool build_merkle_tree(int fd, const char *path, uint64_t data_size,
		       const struct tree_params *params,
		       struct merkle_tree *tree)
{
	memset(tree, 0, sizeof(*tree));
	if (!compute_geometry(data_size, params, tree)) {
		error_msg("'%s' is too large", path);
		return false;
	}
	tree->buf = xzalloc(tree->size);
	if (!tree->buf)
		return false;

	/* A single data block has no tree: its hash is the root hash. */
	if (hash_data_blocks(fd, path, data_size, params,
			     tree->depth ? tree->buf + tree->level_offset[0] :
					   tree->root_hash) &&
	    (tree->depth == 0 || hash_upper_levels(tree, params)))
		return true;
	free_merkle_tree(tree);
	return false;
}

void free_merkle_tree(struct merkle_tree *tree)
{
	free(tree->buf);
	tree->buf = NULL;
}
