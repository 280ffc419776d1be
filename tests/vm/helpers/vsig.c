/*
 * Signature tests' metadata tool: build the PKCS#7 content of a signed
 * measurement, and edit the extensions of a file that `fsverity setup`
 * prepared (not enabled), for layouts the utility refuses to write.
 *
 * vsig digest ALG SIZE HEX OUT
 *	write struct fsverity_digest_disk { le16 ALG; le16 SIZE; HEX bytes }
 *	to OUT (ALG and SIZE are written as given, so that tests can make
 *	them wrong; HEX need not be SIZE bytes long)
 * vsig add FILE auth|unauth SIG
 *	add a PKCS7_SIGNATURE extension holding the bytes of SIG to FILE's
 *	authenticated list (auth_ext_count + 1) or at the end of its
 *	unauthenticated list (unauth_ext_count + 1); the footer is rewritten
 *	(desc_reverse_offset; moved to the next page if it would cross one)
 * vsig extract FILE OUT
 *	write the payload of FILE's first unauthenticated PKCS7_SIGNATURE
 *	extension to OUT
 * vsig where FILE
 *	print "OFFSET LENGTH": file offset and size of the payload of FILE's
 *	first unauthenticated PKCS7_SIGNATURE extension
 * vsig list FILE
 *	print "auth=TYPE,... unauth=TYPE,..." (extension types in order)
 * vsig write PATH STRING
 *	write STRING (no newline) to PATH with one write(); print OK or the
 *	errno name (for sysctl files)
 *
 * Exit status 0 on success, 1 if FILE's metadata cannot be parsed or I/O
 * fails, 2 on usage errors.
 */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fsverity.h>

#define PAGE		4096
#define MAX_REGION	(16 * PAGE)
#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

static unsigned le16(const uint8_t *p) { return p[0] | p[1] << 8; }
static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put_le16(uint8_t *p, unsigned v) { p[0] = v; p[1] = v >> 8; }
static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("vsig: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		fail("cannot open %s: %s", path, errname(errno));
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				fail("out of memory");
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	if (ferror(f))
		fail("cannot read %s", path);
	fclose(f);
	*len = n;
	return buf;
}

static void write_all(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		fail("cannot write %s", path);
}

/* The descriptor region of a set-up file, split into its parts. */
struct region {
	int fd;
	uint64_t desc_off;	/* file offset of the descriptor */
	uint8_t *buf;		/* desc_off .. end of file */
	size_t len;
	size_t auth_end;	/* offset in buf: end of the authenticated list */
	size_t unauth_end;	/* end of the unauthenticated list */
	unsigned nauth, nunauth;
};

/* Walk COUNT extensions from *pos; print their types if OUT. */
static void walk(const struct region *r, size_t *pos, unsigned count, FILE *out)
{
	unsigned i;

	for (i = 0; i < count; i++) {
		uint32_t len;

		if (*pos + 8 > r->len)
			fail("extension %u runs past the end of the file", i);
		len = le32(r->buf + *pos);
		if (len < 8 || *pos + len > r->len)
			fail("extension %u has a bad length %u", i, len);
		if (out)
			fprintf(out, "%s%u", i ? "," : "", le16(r->buf + *pos + 4));
		*pos = ALIGN8(*pos + len);
	}
}

static void load(struct region *r, const char *path, int wr)
{
	struct stat st;
	uint8_t foot[12];
	uint32_t rev;
	size_t pos;
	ssize_t n;

	r->fd = open(path, wr ? O_RDWR : O_RDONLY);
	if (r->fd < 0 || fstat(r->fd, &st))
		fail("cannot open %s: %s", path, errname(errno));
	if (st.st_size < 12 + 64 ||
	    pread(r->fd, foot, 12, st.st_size - 12) != 12 ||
	    memcmp(foot + 4, FS_VERITY_MAGIC, 8))
		fail("%s: no fs-verity footer at its end", path);
	rev = le32(foot);
	if (rev < 12 + 64 || rev > MAX_REGION || rev > st.st_size)
		fail("%s: bad desc_reverse_offset %u", path, rev);
	r->desc_off = st.st_size - rev;
	r->len = rev;
	r->buf = malloc(MAX_REGION * 2);
	if (!r->buf)
		fail("out of memory");
	n = pread(r->fd, r->buf, r->len, r->desc_off);
	if (n != (ssize_t)r->len)
		fail("%s: cannot read the descriptor region", path);
	if (memcmp(r->buf, FS_VERITY_MAGIC, 8))
		fail("%s: no descriptor magic at offset %llu", path,
		     (unsigned long long)r->desc_off);
	r->nauth = le16(r->buf + 32);
	pos = 64;
	walk(r, &pos, r->nauth, NULL);
	r->auth_end = pos;
	if (pos + 8 > r->len)
		fail("%s: no unauthenticated-extension header", path);
	r->nunauth = le16(r->buf + pos);
	pos += 8;
	walk(r, &pos, r->nunauth, NULL);
	r->unauth_end = pos;
}

static void cmd_list(const char *path)
{
	struct region r;
	size_t pos = 64;

	load(&r, path, 0);
	printf("auth=");
	walk(&r, &pos, r.nauth, stdout);
	pos += 8;
	printf(" unauth=");
	walk(&r, &pos, r.nunauth, stdout);
	printf("\n");
}

/* The first unauthenticated PKCS7_SIGNATURE: offset in r->buf, length */
static size_t find_sig(const struct region *r, const char *path, size_t *len)
{
	size_t pos = r->auth_end + 8;
	unsigned i;

	for (i = 0; i < r->nunauth; i++) {
		uint32_t l = le32(r->buf + pos);

		if (le16(r->buf + pos + 4) == FS_VERITY_EXT_PKCS7_SIGNATURE) {
			*len = l - 8;
			return pos + 8;
		}
		pos = ALIGN8(pos + l);
	}
	fail("%s has no unauthenticated PKCS7_SIGNATURE extension", path);
	return 0;
}

static void cmd_extract(const char *path, const char *out)
{
	struct region r;
	size_t at, len;

	load(&r, path, 0);
	at = find_sig(&r, path, &len);
	write_all(out, r.buf + at, len);
}

static void cmd_where(const char *path)
{
	struct region r;
	size_t at, len;

	load(&r, path, 0);
	at = find_sig(&r, path, &len);
	printf("%llu %zu\n", (unsigned long long)(r.desc_off + at), len);
}

static void cmd_write(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		printf("open:%s\n", errname(errno));
		exit(1);
	}
	n = write(fd, str, strlen(str));
	if (n < 0) {
		printf("%s\n", errname(errno));
		exit(1);
	}
	if (close(fd)) {
		printf("close:%s\n", errname(errno));
		exit(1);
	}
	if ((size_t)n != strlen(str))
		printf("short:%zd\n", n);
	else
		printf("OK\n");
}

static void cmd_add(const char *path, const char *where, const char *sig_path)
{
	struct region r;
	uint8_t *sig, *nb;
	size_t sig_len, ext_len, at, n, footer_pos;
	int auth;

	if (!strcmp(where, "auth"))
		auth = 1;
	else if (!strcmp(where, "unauth"))
		auth = 0;
	else
		die("vsig add: auth or unauth, not '%s'", where);
	load(&r, path, 1);
	sig = read_all(sig_path, &sig_len);
	ext_len = 8 + sig_len;
	if (r.unauth_end + ALIGN8(ext_len) + PAGE + 12 > 2 * MAX_REGION)
		fail("signature too large");

	/* new region: [0, at) + extension + [at, unauth_end) + footer */
	at = auth ? r.auth_end : r.unauth_end;
	nb = calloc(1, 2 * MAX_REGION);
	if (!nb)
		fail("out of memory");
	memcpy(nb, r.buf, at);
	put_le32(nb + at, ext_len);
	put_le16(nb + at + 4, FS_VERITY_EXT_PKCS7_SIGNATURE);
	memcpy(nb + at + 8, sig, sig_len);
	n = at + ALIGN8(ext_len);
	memcpy(nb + n, r.buf + at, r.unauth_end - at);
	n += r.unauth_end - at;
	if (auth) {
		put_le16(nb + 32, r.nauth + 1);
	} else {
		put_le16(nb + r.auth_end, r.nunauth + 1);
	}
	/* as the utility does: the footer must not cross a page */
	footer_pos = r.desc_off + n;
	if (footer_pos / PAGE != (footer_pos + 11) / PAGE)
		n += PAGE - footer_pos % PAGE;
	put_le32(nb + n, n + 12);
	memcpy(nb + n + 4, FS_VERITY_MAGIC, 8);
	n += 12;
	if (n > MAX_REGION)
		fail("the descriptor region would be %zu bytes, more than the kernel reads", n);
	if (pwrite(r.fd, nb, n, r.desc_off) != (ssize_t)n ||
	    ftruncate(r.fd, r.desc_off + n) || fsync(r.fd) || close(r.fd))
		fail("cannot rewrite %s: %s", path, errname(errno));
}

static void cmd_digest(const char *alg, const char *size, const char *hex,
		       const char *out)
{
	size_t hl = strlen(hex), i;
	uint8_t *buf;

	if (hl % 2)
		die("vsig digest: odd number of hex digits");
	buf = malloc(4 + hl / 2);
	if (!buf)
		fail("out of memory");
	put_le16(buf, parse_u64(alg, "algorithm"));
	put_le16(buf + 2, parse_u64(size, "size"));
	for (i = 0; i < hl / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			die("vsig digest: bad hex '%s'", hex);
		buf[4 + i] = hi << 4 | lo;
	}
	write_all(out, buf, 4 + hl / 2);
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "digest"))
		cmd_digest(argv[2], argv[3], argv[4], argv[5]);
	else if (argc == 5 && !strcmp(argv[1], "add"))
		cmd_add(argv[2], argv[3], argv[4]);
	else if (argc == 4 && !strcmp(argv[1], "extract"))
		cmd_extract(argv[2], argv[3]);
	else if (argc == 3 && !strcmp(argv[1], "where"))
		cmd_where(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "list"))
		cmd_list(argv[2]);
	else if (argc == 4 && !strcmp(argv[1], "write"))
		cmd_write(argv[2], argv[3]);
	else
		die("usage: vsig digest ALG SIZE HEX OUT | add FILE auth|unauth SIG | extract FILE OUT | where FILE | list FILE | write PATH STRING");
	return 0;
}
