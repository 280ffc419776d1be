/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fs-verity descriptor region: descriptor, extensions and footer, as
 * written after the Merkle tree.
 */
#ifndef FSVERITY_METADATA_H
#define FSVERITY_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "util.h"

/* The kernel cannot read a footer that crosses a page (of this size). */
#define VERITY_PAGE_SIZE	4096
/* The kernel rejects a descriptor region (descriptor..footer) above this. */
#define MAX_DESC_REGION_SIZE	(16 * VERITY_PAGE_SIZE)

struct descriptor_params {
	const struct hash_alg *alg;
	unsigned int log_blocksize;
	uint64_t data_size;
	const uint8_t *root_hash;
	const uint8_t *salt;		/* NULL/0: no SALT extension */
	size_t salt_len;
};

/*
 * Start @region with the authenticated part (descriptor and authenticated
 * extensions) and compute the file measurement over it into @measurement.
 */
bool build_authenticated_part(const struct descriptor_params *p,
			      struct bytebuf *region, uint8_t *measurement);

/*
 * Complete @region with the unauthenticated extensions (the PKCS#7
 * signature if @sig_len > 0) and the footer.  @desc_offset is the file
 * offset of the descriptor, used to keep the footer within one page.
 */
bool finish_desc_region(struct bytebuf *region, const uint8_t *sig,
			size_t sig_len, uint64_t desc_offset);

#endif /* FSVERITY_METADATA_H */
