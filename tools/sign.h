/* SPDX-License-Identifier: GPL-2.0 */
/* Signing the file measurement as the PKCS#7 message of a verity file. */
#ifndef FSVERITY_SIGN_H
#define FSVERITY_SIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "hash.h"

struct signer {
	EVP_PKEY *key;
	X509 *cert;
};

/*
 * Load a PEM private key and certificate and check that they match, so that
 * a bad pair is reported before the file is hashed.  Prints on error.
 */
bool signer_load(struct signer *s, const char *key_path, const char *cert_path);

/*
 * Sign struct fsverity_digest_disk { alg, size, @measurement } with the
 * digest @alg, giving a DER PKCS#7 SignedData with the content embedded and
 * neither attributes nor certificates.  *der is malloc'ed.
 */
bool signer_sign(const struct signer *s, const struct hash_alg *alg,
		 const uint8_t *measurement, uint8_t **der, size_t *der_len);

void signer_free(struct signer *s);

#endif /* FSVERITY_SIGN_H */
