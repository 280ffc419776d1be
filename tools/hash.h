/* SPDX-License-Identifier: GPL-2.0 */
/* The fs-verity hash algorithms and a salted block hasher. */
#ifndef FSVERITY_HASH_H
#define FSVERITY_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#define MAX_DIGEST_SIZE	64	/* SHA-512 */

struct hash_alg {
	const char *name;		/* as in "--hash=NAME" and in output */
	uint16_t id;			/* FS_VERITY_ALG_* */
	unsigned int digest_size;
	bool cryptographic;		/* may be signed */
	const EVP_MD *(*evp_md)(void);	/* NULL for CRC-32C */
};

const struct hash_alg *hash_alg_by_name(const char *name);
const struct hash_alg *hash_alg_by_id(unsigned int id);

/*
 * Computes H(salt || data) for many inputs.  The state after the salt is
 * computed once and copied for each input.  One hasher per thread.
 */
struct hasher {
	const struct hash_alg *alg;
	EVP_MD_CTX *salted;	/* SHA-2: state after hashing the salt */
	EVP_MD_CTX *ctx;	/* SHA-2: scratch state */
	uint32_t crc_salted;	/* CRC-32C: state after the salt */
};

/* On failure, prints an error. */
bool hasher_init(struct hasher *h, const struct hash_alg *alg,
		 const uint8_t *salt, size_t salt_len);
/* Writes alg->digest_size bytes to @out.  Fails only on OpenSSL errors. */
bool hasher_digest(struct hasher *h, const void *data, size_t len,
		   uint8_t *out);
void hasher_free(struct hasher *h);

#endif /* FSVERITY_HASH_H */
