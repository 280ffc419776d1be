// SPDX-License-Identifier: GPL-2.0
/* Signing the file measurement as the PKCS#7 message of a verity file. */
#include "sign.h"

#include <linux/fsverity.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>

#include "util.h"

/* Print "fsverity: MESSAGE (OpenSSL: reason)" and clear OpenSSL's errors. */
static void __attribute__((format(printf, 1, 2)))
openssl_error(const char *fmt, ...)
{
	unsigned long err = ERR_peek_last_error();
	char reason[256] = "unknown error";
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err)
		ERR_error_string_n(err, reason, sizeof(reason));
	error_msg("%s (OpenSSL: %s)", msg, reason);
	ERR_clear_error();
}

static BIO *open_pem(const char *path)
{
	BIO *bio = BIO_new_file(path, "r");

	if (!bio)
		openssl_error("cannot open '%s'", path);
	return bio;
}

bool signer_load(struct signer *s, const char *key_path, const char *cert_path)
{
	BIO *bio;

	memset(s, 0, sizeof(*s));
	bio = open_pem(key_path);
	if (!bio)
		return false;
	s->key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (!s->key) {
		openssl_error("cannot read a PEM private key from '%s'",
			      key_path);
		return false;
	}

	bio = open_pem(cert_path);
	if (!bio)
		goto fail;
	s->cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (!s->cert) {
		openssl_error("cannot read a PEM certificate from '%s'",
			      cert_path);
		goto fail;
	}

	if (!X509_check_private_key(s->cert, s->key)) {
		ERR_clear_error();
		error_msg("the private key '%s' does not match the certificate '%s'",
			  key_path, cert_path);
		goto fail;
	}
	return true;
fail:
	signer_free(s);
	return false;
}

static bool pkcs7_to_der(PKCS7 *p7, uint8_t **der, size_t *der_len)
{
	unsigned char *p;
	int len = i2d_PKCS7(p7, NULL);

	if (len <= 0)
		return false;
	*der = malloc(len);
	if (!*der)
		return false;
	p = *der;
	i2d_PKCS7(p7, &p);
	*der_len = len;
	return true;
}

bool signer_sign(const struct signer *s, const struct hash_alg *alg,
		 const uint8_t *measurement, uint8_t **der, size_t *der_len)
{
	const int flags = PKCS7_BINARY | PKCS7_NOATTR | PKCS7_NOCERTS;
	uint8_t content[sizeof(struct fsverity_digest_disk) + MAX_DIGEST_SIZE];
	size_t content_len = sizeof(struct fsverity_digest_disk) +
			     alg->digest_size;
	PKCS7 *p7 = NULL;
	BIO *bio;
	bool ok;

	put_le16(content, alg->id);
	put_le16(content + 2, alg->digest_size);
	memcpy(content + 4, measurement, alg->digest_size);

	*der = NULL;
	bio = BIO_new_mem_buf(content, content_len);
	/* PKCS7_sign() would pick its default digest: name alg's instead. */
	ok = bio &&
	     (p7 = PKCS7_sign(NULL, NULL, NULL, NULL, flags | PKCS7_PARTIAL)) &&
	     PKCS7_sign_add_signer(p7, s->cert, s->key, alg->evp_md(), flags) &&
	     PKCS7_final(p7, bio, flags) &&
	     pkcs7_to_der(p7, der, der_len);
	if (!ok)
		openssl_error("cannot sign the file measurement");
	PKCS7_free(p7);
	BIO_free(bio);
	return ok;
}

void signer_free(struct signer *s)
{
	EVP_PKEY_free(s->key);
	X509_free(s->cert);
	s->key = NULL;
	s->cert = NULL;
}
