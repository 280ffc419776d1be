/*
 * vupstream: the fs-verity ioctls of the upstream (5.4+) design, which a
 * stock kernel implements, for the cross-kernel boots (tests/vm/coexist.sh).
 * The helpers build against the series' UAPI, whose FS_IOC_ENABLE_VERITY
 * takes no argument (_IO('f', 133)): the upstream structures are defined
 * here under names of their own.  Prints "OK", ALG:HEX or the errno NAME
 * ("open:NAME" when the open itself failed); exit status 0 on success, 1
 * when the call failed, 2 on usage errors.
 *
 *   vupstream enable FILE sha256|sha512   upstream FS_IOC_ENABLE_VERITY:
 *                                         version 1, 4096-byte blocks, no
 *                                         salt, no signature
 *   vupstream measure FILE                upstream FS_IOC_MEASURE_VERITY;
 *                                         prints ALG:HEX
 */
#include "common.h"
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/types.h>

/* struct fsverity_enable_arg of the upstream UAPI (128 bytes) */
struct upstream_enable_arg {
	__u32 version;
	__u32 hash_algorithm;
	__u32 block_size;
	__u32 salt_size;
	__u64 salt_ptr;
	__u32 sig_size;
	__u32 reserved1;
	__u64 sig_ptr;
	__u64 reserved2[11];
};

#define UPSTREAM_ENABLE_ARG_SIZE 128
_Static_assert(sizeof(struct upstream_enable_arg) == UPSTREAM_ENABLE_ARG_SIZE,
	       "the upstream enable argument is 128 bytes");

/* struct fsverity_digest of the upstream UAPI */
struct upstream_digest {
	__u16 digest_algorithm;
	__u16 digest_size;
	__u8 digest[];
};

#define UPSTREAM_IOC_ENABLE_VERITY _IOW('f', 133, struct upstream_enable_arg)
#define UPSTREAM_IOC_MEASURE_VERITY _IOWR('f', 134, struct upstream_digest)

#define UPSTREAM_ENABLE_VERSION 1
#define UPSTREAM_BLOCK_SIZE 4096
#define UPSTREAM_MAX_DIGEST_SIZE 64

static const struct {
	const char *name;
	unsigned int id;
} algs[] = {
	{ "sha256", 1 },	/* FS_VERITY_HASH_ALG_SHA256 */
	{ "sha512", 2 },	/* FS_VERITY_HASH_ALG_SHA512 */
};

static unsigned int alg_id(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (!strcmp(name, algs[i].name))
			return algs[i].id;
	die("unknown hash algorithm '%s' (sha256 sha512)", name);
	return 0;
}

static const char *alg_name(unsigned int id)
{
	static char buf[16];
	size_t i;

	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (algs[i].id == id)
			return algs[i].name;
	snprintf(buf, sizeof(buf), "alg%u", id);
	return buf;
}

static int do_enable(const char *path, const char *alg)
{
	struct upstream_enable_arg arg;
	int fd = open_or_report(path, O_RDONLY);

	memset(&arg, 0, sizeof(arg));
	arg.version = UPSTREAM_ENABLE_VERSION;
	arg.hash_algorithm = alg_id(alg);
	arg.block_size = UPSTREAM_BLOCK_SIZE;
	return report(ioctl(fd, UPSTREAM_IOC_ENABLE_VERITY, &arg));
}

static int do_measure(const char *path)
{
	struct {
		struct upstream_digest d;
		__u8 buf[UPSTREAM_MAX_DIGEST_SIZE];
	} m;
	int fd = open_or_report(path, O_RDONLY);

	memset(&m, 0, sizeof(m));
	m.d.digest_size = UPSTREAM_MAX_DIGEST_SIZE;
	if (ioctl(fd, UPSTREAM_IOC_MEASURE_VERITY, &m) < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	if (m.d.digest_size > UPSTREAM_MAX_DIGEST_SIZE) {
		printf("BADSIZE %u\n", m.d.digest_size);
		return 1;
	}
	print_digest(alg_name(m.d.digest_algorithm), m.d.digest, m.d.digest_size);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "enable"))
		return do_enable(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "measure"))
		return do_measure(argv[2]);
	die("usage: vupstream enable FILE sha256|sha512 | vupstream measure FILE");
	return 2;
}
