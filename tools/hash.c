// SPDX-License-Identifier: GPL-2.0
/* The fs-verity hash algorithms and a salted block hasher. */
#include "hash.h"

#include <linux/fsverity.h>
#include <pthread.h>
#include <string.h>

#include "util.h"

static const struct hash_alg hash_algs[] = {
	{ "sha256", FS_VERITY_ALG_SHA256, 32, true, EVP_sha256 },
	{ "sha512", FS_VERITY_ALG_SHA512, 64, true, EVP_sha512 },
	{ "crc32c", FS_VERITY_ALG_CRC32C, 4, false, NULL },
};

const struct hash_alg *hash_alg_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hash_algs); i++)
		if (strcmp(hash_algs[i].name, name) == 0)
			return &hash_algs[i];
	return NULL;
}

const struct hash_alg *hash_alg_by_id(unsigned int id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hash_algs); i++)
		if (hash_algs[i].id == id)
			return &hash_algs[i];
	return NULL;
}

/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), computed like the
 * kernel crypto API's "crc32c": initial value ~0, final inversion, the
 * result stored little endian.
 */
#define CRC32C_POLY_REFLECTED	0x82F63B78u

static uint32_t crc32c_table[256];
static pthread_once_t crc32c_table_once = PTHREAD_ONCE_INIT;

static void crc32c_init_table(void)
{
	uint32_t i, bit, crc;

	for (i = 0; i < 256; i++) {
		crc = i;
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ ((crc & 1) ? CRC32C_POLY_REFLECTED : 0);
		crc32c_table[i] = crc;
	}
}

/* Raw CRC update: no initial or final inversion. */
static uint32_t crc32c_update(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--)
		crc = (crc >> 8) ^ crc32c_table[(crc ^ *p++) & 0xff];
	return crc;
}

bool hasher_init(struct hasher *h, const struct hash_alg *alg,
		 const uint8_t *salt, size_t salt_len)
{
	memset(h, 0, sizeof(*h));
	h->alg = alg;
	if (!alg->evp_md) {
		pthread_once(&crc32c_table_once, crc32c_init_table);
		h->crc_salted = crc32c_update(~0u, salt, salt_len);
		return true;
	}
	h->salted = EVP_MD_CTX_new();
	h->ctx = EVP_MD_CTX_new();
	if (!h->salted || !h->ctx ||
	    !EVP_DigestInit_ex(h->salted, alg->evp_md(), NULL) ||
	    !EVP_DigestUpdate(h->salted, salt, salt_len)) {
		error_msg("cannot initialize %s (OpenSSL error)", alg->name);
		hasher_free(h);
		return false;
	}
	return true;
}

bool hasher_digest(struct hasher *h, const void *data, size_t len,
		   uint8_t *out)
{
	if (!h->alg->evp_md) {
		put_le32(out, ~crc32c_update(h->crc_salted, data, len));
		return true;
	}
	return EVP_MD_CTX_copy_ex(h->ctx, h->salted) &&
	       EVP_DigestUpdate(h->ctx, data, len) &&
	       EVP_DigestFinal_ex(h->ctx, out, NULL);
}

void hasher_free(struct hasher *h)
{
	EVP_MD_CTX_free(h->salted);
	EVP_MD_CTX_free(h->ctx);
	h->salted = h->ctx = NULL;
}
