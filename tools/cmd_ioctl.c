// SPDX-License-Identifier: GPL-2.0
/* fsverity enable / measure: the two ioctls, with readable errors. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fsverity.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "commands.h"
#include "hash.h"
#include "util.h"

struct errno_msg {
	int err;
	const char *msg;
};

static const struct errno_msg enable_errors[] = {
	{ EOPNOTSUPP, "filesystem lacks the verity feature: mkfs.ext4 -O verity / tune2fs -O verity (or mkfs.f2fs -O verity)" },
	{ ENOTTY, "this filesystem/kernel does not support fs-verity (FS_IOC_ENABLE_VERITY)" },
	{ EEXIST, "file is already a verity file" },
	{ ETXTBSY, "file is open for writing (or mapped writable) by some process" },
	{ EBADMSG, "invalid or missing verity metadata (or bad signature): run 'fsverity setup' first" },
	{ EACCES, "permission denied: enabling verity needs write permission on the file" },
	{ EPERM, "operation not permitted: append-only file, or signatures required (fs.verity.require_signatures)" },
	{ EROFS, "read-only filesystem" },
	{ EISDIR, "is a directory" },
	{ EINVAL, "invalid argument: not a regular file, or verity metadata rejected by the kernel" },
	{ ENOKEY, "signing certificate is not in the .fs-verity keyring" },
	{ EKEYREJECTED, "signature rejected by the .fs-verity keyring" },
};

static const struct errno_msg measure_errors[] = {
	{ ENODATA, "not a verity file" },
	{ EOPNOTSUPP, "filesystem lacks the verity feature: mkfs.ext4 -O verity / tune2fs -O verity (or mkfs.f2fs -O verity)" },
	{ ENOTTY, "this filesystem/kernel does not support fs-verity (FS_IOC_MEASURE_VERITY)" },
	{ EOVERFLOW, "measurement larger than the utility's buffer" },
	{ EINVAL, "invalid argument" },
};

static void report_ioctl_error(const struct errno_msg *table, size_t n,
			       const char *path, int err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (table[i].err == err) {
			error_msg("%s: %s", path, table[i].msg);
			return;
		}
	}
	error_msg_errno(err, "%s", path);
}

/* Parse a command taking only file names; returns argv index or -1. */
static int parse_file_args(int argc, char *argv[], int max_files)
{
	static const struct option no_options[] = { { NULL, 0, NULL, 0 } };

	optind = 1;
	if (next_option(argc, argv, no_options) != -1)
		return -1;
	if (optind >= argc) {
		usage_error(argv[0], "missing FILE");
		return -1;
	}
	if (max_files && argc - optind > max_files) {
		usage_error(argv[0], "too many arguments");
		return -1;
	}
	return optind;
}

static int open_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		error_msg_errno(errno, "cannot open '%s'", path);
	return fd;
}

int cmd_enable(int argc, char *argv[])
{
	int first = parse_file_args(argc, argv, 1);
	int fd;

	if (first < 0)
		return EXIT_USAGE;
	fd = open_file(argv[first]);
	if (fd < 0)
		return EXIT_FAILURE;
	if (ioctl(fd, FS_IOC_ENABLE_VERITY, NULL) != 0) {
		report_ioctl_error(enable_errors, ARRAY_SIZE(enable_errors),
				   argv[first], errno);
		close(fd);
		return EXIT_FAILURE;
	}
	close(fd);
	return EXIT_SUCCESS;
}

static bool measure_one(const char *path)
{
	union {
		struct fsverity_digest d;
		uint8_t bytes[sizeof(struct fsverity_digest) + MAX_DIGEST_SIZE];
	} buf = { .d.digest_size = MAX_DIGEST_SIZE };
	char hex[2 * MAX_DIGEST_SIZE + 1];
	const struct hash_alg *alg;
	int fd = open_file(path);
	int ret;

	if (fd < 0)
		return false;
	ret = ioctl(fd, FS_IOC_MEASURE_VERITY, &buf.d);
	if (ret != 0)
		report_ioctl_error(measure_errors, ARRAY_SIZE(measure_errors),
				   path, errno);
	close(fd);
	if (ret != 0)
		return false;
	if (buf.d.digest_size > MAX_DIGEST_SIZE) {
		error_msg("%s: kernel returned a bad digest size %u", path,
			  buf.d.digest_size);
		return false;
	}
	alg = hash_alg_by_id(buf.d.digest_algorithm);
	bin2hex(buf.d.digest, buf.d.digest_size, hex);
	if (alg)
		printf("%s:%s %s\n", alg->name, hex, path);
	else
		printf("alg%u:%s %s\n", buf.d.digest_algorithm, hex, path);
	return true;
}

int cmd_measure(int argc, char *argv[])
{
	int first = parse_file_args(argc, argv, 0);
	int status = EXIT_SUCCESS;
	int i;

	if (first < 0)
		return EXIT_USAGE;
	for (i = first; i < argc; i++)
		if (!measure_one(argv[i]))
			status = EXIT_FAILURE;
	return status;
}
