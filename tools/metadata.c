// SPDX-License-Identifier: GPL-2.0
/*
 * The fs-verity descriptor region: descriptor, extensions and footer, as
 * written after the Merkle tree.  The layout matches the 2018 utility byte
 * for byte: no padding between the items except the 8-byte alignment of
 * extensions, and, only if the footer would cross a page, zeroes before it.
 */
#include "metadata.h"

#include <endian.h>
#include <linux/fsverity.h>
#include <string.h>

_Static_assert(sizeof(struct fsverity_descriptor) == 64, "descriptor size");
_Static_assert(sizeof(struct fsverity_extension) == 8, "extension size");
_Static_assert(sizeof(struct fsverity_footer) == 12, "footer size");

#define EXT_ALIGN	8

static bool append_extension(struct bytebuf *b, uint16_t type,
			     const void *payload, size_t len)
{
	struct fsverity_extension ext = {
		.length = htole32(sizeof(ext) + len),
		.type = htole16(type),
	};
	size_t padded = ROUND_UP(sizeof(ext) + len, EXT_ALIGN);

	return bytebuf_append(b, &ext, sizeof(ext)) &&
	       bytebuf_append(b, payload, len) &&
	       bytebuf_append(b, NULL, padded - sizeof(ext) - len);
}

bool build_authenticated_part(const struct descriptor_params *p,
			      struct bytebuf *region, uint8_t *measurement)
{
	struct fsverity_descriptor desc = {
		.major_version = 1,
		.minor_version = 0,
		.log_data_blocksize = p->log_blocksize,
		.log_tree_blocksize = p->log_blocksize,
		.data_algorithm = htole16(p->alg->id),
		.tree_algorithm = htole16(p->alg->id),
		.orig_file_size = htole64(p->data_size),
		.auth_ext_count = htole16(p->salt_len ? 2 : 1),
	};
	struct hasher h;
	bool ok;

	memcpy(desc.magic, FS_VERITY_MAGIC, sizeof(desc.magic));
	if (!bytebuf_append(region, &desc, sizeof(desc)) ||
	    !append_extension(region, FS_VERITY_EXT_ROOT_HASH, p->root_hash,
			      p->alg->digest_size) ||
	    (p->salt_len && !append_extension(region, FS_VERITY_EXT_SALT,
					      p->salt, p->salt_len)))
		return false;

	/* The measurement covers the descriptor and authenticated extensions. */
	if (!hasher_init(&h, p->alg, NULL, 0))
		return false;
	ok = hasher_digest(&h, region->data, region->len, measurement);
	hasher_free(&h);
	if (!ok)
		error_msg("computing the file measurement failed (OpenSSL error)");
	return ok;
}

bool finish_desc_region(struct bytebuf *region, const uint8_t *sig,
			size_t sig_len, uint64_t desc_offset)
{
	uint8_t unauth_header[8] = { 0 };
	struct fsverity_footer footer;
	uint64_t footer_pos;

	put_le16(unauth_header, sig_len ? 1 : 0);
	if (!bytebuf_append(region, unauth_header, sizeof(unauth_header)) ||
	    (sig_len && !append_extension(region, FS_VERITY_EXT_PKCS7_SIGNATURE,
					  sig, sig_len)))
		return false;

	footer_pos = desc_offset + region->len;
	if (footer_pos / VERITY_PAGE_SIZE !=
	    (footer_pos + sizeof(footer) - 1) / VERITY_PAGE_SIZE &&
	    !bytebuf_append(region, NULL,
			    ROUND_UP(footer_pos, VERITY_PAGE_SIZE) - footer_pos))
		return false;

	if (region->len + sizeof(footer) > MAX_DESC_REGION_SIZE) {
		error_msg("the fs-verity metadata after the tree would be %zu bytes, more than the kernel's limit of %u: signature or salt too large",
			  region->len + sizeof(footer), MAX_DESC_REGION_SIZE);
		return false;
	}
	footer.desc_reverse_offset = htole32(region->len + sizeof(footer));
	memcpy(footer.magic, FS_VERITY_MAGIC, sizeof(footer.magic));
	return bytebuf_append(region, &footer, sizeof(footer));
}
