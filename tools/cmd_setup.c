// SPDX-License-Identifier: GPL-2.0
/*
 * fsverity setup: append the Merkle tree and the fs-verity metadata to a file.
 *
 * Everything is computed before the first byte is written.  In place, the
 * metadata is then appended to INFILE, which is truncated back to its
 * original size if that fails; with OUTFILE, INFILE is only read and the
 * output is built in a temporary file renamed over OUTFILE at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <linux/fsverity.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "hash.h"
#include "metadata.h"
#include "sign.h"
#include "tree.h"
#include "util.h"

/* The kernel requires the block size to be PAGE_SIZE, 4096 on its arches. */
#define BLOCK_SIZE	4096
#define LOG_BLOCK_SIZE	12
#define MAX_THREADS	256
#define COPY_BUF_SIZE	(1u << 20)

struct setup_options {
	const char *in_path;
	const char *out_path;		/* NULL: in place */
	const struct hash_alg *alg;
	uint8_t *salt;
	size_t salt_len;
	const char *key_path;
	const char *cert_path;
	const char *sig_path;
	unsigned int nthreads;
};

enum {
	OPT_HASH = 256,
	OPT_SALT,
	OPT_BLOCKSIZE,
	OPT_SIGNING_KEY,
	OPT_SIGNING_CERT,
	OPT_SIGNATURE,
	OPT_THREADS,
};

static const struct option setup_longopts[] = {
	{ "hash", required_argument, NULL, OPT_HASH },
	{ "salt", required_argument, NULL, OPT_SALT },
	{ "blocksize", required_argument, NULL, OPT_BLOCKSIZE },
	{ "signing-key", required_argument, NULL, OPT_SIGNING_KEY },
	{ "signing-cert", required_argument, NULL, OPT_SIGNING_CERT },
	{ "signature", required_argument, NULL, OPT_SIGNATURE },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ NULL, 0, NULL, 0 },
};

/* Parse a decimal number in [min, max]; false if not exactly that. */
static bool parse_uint(const char *s, unsigned long min, unsigned long max,
		       unsigned long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*val = strtoul(s, &end, 10);
	return !errno && !*end && *val >= min && *val <= max;
}

static bool parse_option(int c, const char *arg, struct setup_options *o)
{
	unsigned long val;

	switch (c) {
	case OPT_HASH:
		o->alg = hash_alg_by_name(arg);
		if (!o->alg)
			error_msg("setup: unknown hash algorithm '%s' (use sha256, sha512 or crc32c)",
				  arg);
		return o->alg;
	case OPT_SALT:
		free(o->salt);
		if (hex2bin(arg, &o->salt, &o->salt_len))
			return true;
		error_msg("setup: invalid salt '%s': need an even number of hex digits",
			  arg);
		return false;
	case OPT_BLOCKSIZE:
		if (parse_uint(arg, 1, ULONG_MAX, &val) && val == BLOCK_SIZE)
			return true;
		error_msg("setup: unsupported block size '%s': the kernel supports only %u (its page size)",
			  arg, BLOCK_SIZE);
		return false;
	case OPT_SIGNING_KEY:
		o->key_path = arg;
		return true;
	case OPT_SIGNING_CERT:
		o->cert_path = arg;
		return true;
	case OPT_SIGNATURE:
		o->sig_path = arg;
		return true;
	case OPT_THREADS:
		if (parse_uint(arg, 1, MAX_THREADS, &val)) {
			o->nthreads = val;
			return true;
		}
		error_msg("setup: invalid thread count '%s': need a number from 1 to %u",
			  arg, MAX_THREADS);
		return false;
	}
	return false;	/* '?': next_option() reported it */
}

static unsigned int default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

static bool check_signing_options(const struct setup_options *o)
{
	if (!o->key_path != !o->cert_path) {
		usage_error("setup", "--signing-key and --signing-cert go together");
		return false;
	}
	if (o->key_path && o->sig_path) {
		usage_error("setup", "use either --signing-key/--signing-cert or --signature");
		return false;
	}
	if ((o->key_path || o->sig_path) && !o->alg->cryptographic) {
		error_msg("setup: %s is not a cryptographic hash: its measurement cannot be signed",
			  o->alg->name);
		return false;
	}
	return true;
}

static bool parse_setup_args(int argc, char *argv[], struct setup_options *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->alg = hash_alg_by_name("sha256");
	o->nthreads = default_threads();
	optind = 1;
	while ((c = next_option(argc, argv, setup_longopts)) != -1) {
		if (!parse_option(c, optarg, o))
			return false;
	}
	if (optind >= argc) {
		usage_error("setup", "missing INFILE");
		return false;
	}
	if (argc - optind > 2) {
		usage_error("setup", "too many arguments");
		return false;
	}
	o->in_path = argv[optind];
	o->out_path = argv[optind + 1];		/* NULL if absent */
	return check_signing_options(o);
}

/* Refuse to stack a second set of metadata on a file already set up. */
static bool has_verity_footer(int fd, uint64_t size)
{
	char magic[8];

	return size >= sizeof(magic) &&
	       pread_full(fd, magic, sizeof(magic), size - sizeof(magic)) ==
			sizeof(magic) &&
	       !memcmp(magic, FS_VERITY_MAGIC, sizeof(magic));
}

/* Open INFILE (for writing if in place); returns the fd or -1. */
static int open_infile(const struct setup_options *o, uint64_t *size)
{
	int flags = (o->out_path ? O_RDONLY : O_RDWR) | O_CLOEXEC;
	struct stat st;
	int fd = open(o->in_path, flags);

	if (fd < 0) {
		error_msg_errno(errno, "cannot open '%s'", o->in_path);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		error_msg("'%s' is not a regular file", o->in_path);
	} else if (st.st_size == 0) {
		error_msg("'%s' is empty: fs-verity does not support empty files",
			  o->in_path);
	} else if (has_verity_footer(fd, st.st_size)) {
		error_msg("'%s' already ends with an fs-verity footer: it was set up already",
			  o->in_path);
	} else {
		*size = st.st_size;
		return fd;
	}
	close(fd);
	return -1;
}

/* Everything setup writes after the data, computed up front. */
struct setup_output {
	uint64_t data_size;
	size_t pad_len;			/* zeroes up to a block boundary */
	struct merkle_tree tree;
	struct bytebuf region;		/* descriptor .. footer */
	uint8_t measurement[MAX_DIGEST_SIZE];
};

/* Write the padding, tree and descriptor region at fd's current offset. */
static bool write_metadata(int fd, const char *path,
			   const struct setup_output *out)
{
	static const uint8_t zeroes[BLOCK_SIZE];

	if (write_full(fd, zeroes, out->pad_len) == 0 &&
	    write_full(fd, out->tree.buf, out->tree.size) == 0 &&
	    write_full(fd, out->region.data, out->region.len) == 0 &&
	    (fsync(fd) == 0 || errno == EINVAL))	/* a FIFO, a tty... */
		return true;
	error_msg_errno(errno, "cannot write '%s'", path);
	return false;
}

static bool append_in_place(int fd, const char *path,
			    const struct setup_output *out)
{
	if (lseek(fd, out->data_size, SEEK_SET) < 0) {
		error_msg_errno(errno, "cannot seek in '%s'", path);
		return false;
	}
	if (write_metadata(fd, path, out))
		return true;
	if (ftruncate(fd, out->data_size) != 0)
		error_msg_errno(errno, "cannot truncate '%s' back to its original %llu bytes",
				path, (unsigned long long)out->data_size);
	return false;
}

static bool copy_data(int in_fd, const char *in_path, int out_fd,
		      const char *out_path, uint64_t size)
{
	uint8_t *buf = xzalloc(COPY_BUF_SIZE);
	uint64_t off;
	bool ok = buf;

	for (off = 0; ok && off < size; off += COPY_BUF_SIZE) {
		size_t len = size - off < COPY_BUF_SIZE ? size - off :
							   COPY_BUF_SIZE;
		ssize_t n = pread_full(in_fd, buf, len, off);

		if (n < 0 || (size_t)n != len) {
			if (n < 0)
				error_msg_errno(errno, "cannot read '%s'", in_path);
			else
				error_msg("'%s' shrank while it was being read",
					  in_path);
			ok = false;
		} else if (write_full(out_fd, buf, len) != 0) {
			error_msg_errno(errno, "cannot write '%s'", out_path);
			ok = false;
		}
	}
	free(buf);
	return ok;
}

static bool write_file(int in_fd, const char *in_path, int out_fd,
		       const char *out_path, const struct setup_output *out)
{
	return copy_data(in_fd, in_path, out_fd, out_path, out->data_size) &&
	       write_metadata(out_fd, out_path, out);
}

/* OUTFILE is a device, FIFO, ...: write to it directly. */
static bool write_special_outfile(int in_fd, const struct setup_options *o,
				  const struct setup_output *out)
{
	int fd = open(o->out_path, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0) {
		error_msg_errno(errno, "cannot open '%s'", o->out_path);
		return false;
	}
	ok = write_file(in_fd, o->in_path, fd, o->out_path, out);
	if (close(fd) != 0 && ok) {
		error_msg_errno(errno, "cannot write '%s'", o->out_path);
		ok = false;
	}
	return ok;
}

/* Build OUTFILE as a temporary file beside it, then rename it into place. */
static bool write_outfile(int in_fd, const struct setup_options *o,
			  const struct setup_output *out)
{
	size_t len = strlen(o->out_path) + sizeof(".XXXXXX");
	char *tmp_path = xzalloc(len);
	struct stat st;
	mode_t mask;
	bool ok;
	int fd;

	if (stat(o->out_path, &st) == 0 && !S_ISREG(st.st_mode)) {
		free(tmp_path);
		return write_special_outfile(in_fd, o, out);
	}
	if (!tmp_path)
		return false;
	snprintf(tmp_path, len, "%s.XXXXXX", o->out_path);
	fd = mkostemp(tmp_path, O_CLOEXEC);
	if (fd < 0) {
		error_msg_errno(errno, "cannot create '%s'", tmp_path);
		free(tmp_path);
		return false;
	}
	mask = umask(0);
	umask(mask);
	ok = write_file(in_fd, o->in_path, fd, o->out_path, out);
	if (ok && fchmod(fd, 0666 & ~mask) != 0) {
		error_msg_errno(errno, "cannot set the mode of '%s'", tmp_path);
		ok = false;
	}
	if (close(fd) != 0 && ok) {
		error_msg_errno(errno, "cannot write '%s'", o->out_path);
		ok = false;
	}
	if (ok && rename(tmp_path, o->out_path) != 0) {
		error_msg_errno(errno, "cannot rename '%s' to '%s'", tmp_path,
				o->out_path);
		ok = false;
	}
	if (!ok)
		unlink(tmp_path);
	free(tmp_path);
	return ok;
}

/* Hash INFILE and build everything that goes after its data. */
static bool compute_output(int fd, const struct setup_options *o,
			   const struct signer *signer, uint8_t *sig,
			   size_t sig_len, struct setup_output *out)
{
	const struct tree_params tp = {
		.alg = o->alg,
		.salt = o->salt,
		.salt_len = o->salt_len,
		.block_size = BLOCK_SIZE,
		.nthreads = o->nthreads,
	};
	struct descriptor_params dp = {
		.alg = o->alg,
		.log_blocksize = LOG_BLOCK_SIZE,
		.data_size = out->data_size,
		.salt = o->salt,
		.salt_len = o->salt_len,
	};
	uint8_t *der = NULL;
	bool ok;

	out->pad_len = ROUND_UP(out->data_size, BLOCK_SIZE) - out->data_size;
	if (!build_merkle_tree(fd, o->in_path, out->data_size, &tp, &out->tree))
		return false;
	dp.root_hash = out->tree.root_hash;
	if (!build_authenticated_part(&dp, &out->region, out->measurement))
		return false;
	if (signer->key) {
		if (!signer_sign(signer, o->alg, out->measurement, &der,
				 &sig_len))
			return false;
		sig = der;
	}
	ok = finish_desc_region(&out->region, sig, sig_len,
				out->data_size + out->pad_len + out->tree.size);
	free(der);
	return ok;
}

/*
 * Write the output with termination signals held back until it is complete
 * or undone, so that an interrupted setup never leaves INFILE half-appended
 * or a temporary file behind.  Writing to a closed pipe fails with EPIPE.
 */
static bool write_output(int fd, const struct setup_options *o,
			 const struct setup_output *out)
{
	sigset_t deferred, old;
	bool ok;

	sigemptyset(&deferred);
	sigaddset(&deferred, SIGHUP);
	sigaddset(&deferred, SIGINT);
	sigaddset(&deferred, SIGQUIT);
	sigaddset(&deferred, SIGTERM);
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_BLOCK, &deferred, &old);
	ok = o->out_path ? write_outfile(fd, o, out) :
			   append_in_place(fd, o->in_path, out);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ok;
}

static void print_measurement(const struct hash_alg *alg, const uint8_t *m)
{
	char hex[2 * MAX_DIGEST_SIZE + 1];

	bin2hex(m, alg->digest_size, hex);
	printf("File measurement: %s:%s\n", alg->name, hex);
}

static bool setup(const struct setup_options *o)
{
	struct setup_output out = { 0 };
	struct signer signer = { 0 };
	uint8_t *sig = NULL;
	size_t sig_len = 0;
	bool ok = false;
	int fd = -1;

	/* Check the signing inputs before spending time on hashing. */
	if (o->key_path && !signer_load(&signer, o->key_path, o->cert_path))
		goto out;
	if (o->sig_path) {
		if (!read_file(o->sig_path, &sig, &sig_len))
			goto out;
		if (sig_len == 0) {
			error_msg("signature file '%s' is empty", o->sig_path);
			goto out;
		}
	}
	fd = open_infile(o, &out.data_size);
	if (fd < 0 || !compute_output(fd, o, &signer, sig, sig_len, &out))
		goto out;
	ok = write_output(fd, o, &out);
	if (ok)
		print_measurement(o->alg, out.measurement);
out:
	if (fd >= 0)
		close(fd);
	free_merkle_tree(&out.tree);
	bytebuf_free(&out.region);
	free(sig);
	signer_free(&signer);
	return ok;
}

int cmd_setup(int argc, char *argv[])
{
	struct setup_options o;
	int status;

	if (!parse_setup_args(argc, argv, &o)) {
		free(o.salt);
		return EXIT_USAGE;
	}
	status = setup(&o) ? EXIT_SUCCESS : EXIT_FAILURE;
	free(o.salt);
	return status;
}
