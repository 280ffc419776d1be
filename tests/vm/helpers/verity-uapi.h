/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The project's fs-verity UAPI (tools/uapi) and the names of its hash
 * algorithms, for the helpers that print measurements.
 */
#ifndef VT_VERITY_UAPI_H
#define VT_VERITY_UAPI_H

#include <stdio.h>
#include <linux/fsverity.h>

static inline const char *alg_name(unsigned int alg)
{
	static char buf[16];

	switch (alg) {
	case FS_VERITY_ALG_SHA256: return "sha256";
	case FS_VERITY_ALG_SHA512: return "sha512";
	case FS_VERITY_ALG_CRC32C: return "crc32c";
	}
	snprintf(buf, sizeof(buf), "alg%u", alg);
	return buf;
}

#endif
