// SPDX-License-Identifier: GPL-2.0
/* Small helpers shared by the fsverity utility: errors, I/O, bytes, hex. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void verror(int err, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (err)
		fprintf(stderr, "fsverity: %s: %s\n", msg, strerror(err));
	else
		fprintf(stderr, "fsverity: %s\n", msg);
}

void error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(0, fmt, ap);
	va_end(ap);
}

void error_msg_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(err, fmt, ap);
	va_end(ap);
}

void *xzalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		error_msg("out of memory (allocating %zu bytes)", size);
	return p;
}

ssize_t pread_full(int fd, void *buf, size_t count, off_t offset)
{
	size_t done = 0;

	while (done < count) {
		ssize_t n = pread(fd, (char *)buf + done, count - done,
				  offset + done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

int write_full(int fd, const void *buf, size_t count)
{
	while (count) {
		ssize_t n = write(fd, buf, count);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf = (const char *)buf + n;
		count -= n;
	}
	return 0;
}

bool read_file(const char *path, uint8_t **buf, size_t *len)
{
	struct stat st;
	ssize_t n;
	int fd;

	*buf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_msg_errno(errno, "cannot open '%s'", path);
		return false;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		error_msg("'%s' is not a readable regular file", path);
		goto fail;
	}
	*buf = xzalloc(st.st_size);
	if (!*buf)
		goto fail;
	n = pread_full(fd, *buf, st.st_size, 0);
	if (n < 0) {
		error_msg_errno(errno, "cannot read '%s'", path);
		goto fail;
	}
	*len = n;
	close(fd);
	return true;
fail:
	free(*buf);
	*buf = NULL;
	close(fd);
	return false;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool hex2bin(const char *hex, uint8_t **bin, size_t *len)
{
	size_t n = strlen(hex);
	size_t i;

	*bin = NULL;
	*len = 0;
	if (n % 2)
		return false;
	if (n == 0)
		return true;
	*bin = malloc(n / 2);
	if (!*bin)
		return false;
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]);
		int lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(*bin);
			*bin = NULL;
			return false;
		}
		(*bin)[i] = (hi << 4) | lo;
	}
	*len = n / 2;
	return true;
}

void bin2hex(const uint8_t *bin, size_t len, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[bin[i] >> 4];
		hex[2 * i + 1] = digits[bin[i] & 0xf];
	}
	hex[2 * len] = '\0';
}

bool bytebuf_append(struct bytebuf *b, const void *src, size_t len)
{
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p) {
			error_msg("out of memory");
			return false;
		}
		b->data = p;
		b->cap = cap;
	}
	if (src)
		memcpy(b->data + b->len, src, len);
	else
		memset(b->data + b->len, 0, len);
	b->len += len;
	return true;
}

void bytebuf_free(struct bytebuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
