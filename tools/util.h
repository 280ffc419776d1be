/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the fsverity utility: errors, I/O, bytes, hex. */
#ifndef FSVERITY_UTIL_H
#define FSVERITY_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define ROUND_UP(n, d)		(DIV_ROUND_UP(n, d) * (d))

/* Print "fsverity: MESSAGE" on stderr. */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "fsverity: MESSAGE: strerror(err)" on stderr. */
void error_msg_errno(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Allocate zeroed memory; on failure print an error and return NULL. */
void *xzalloc(size_t size);

/*
 * Read up to @count bytes at @offset, retrying short reads; stops early only
 * at end of file.  Returns the number of bytes read, or -1 with errno set.
 */
ssize_t pread_full(int fd, void *buf, size_t count, off_t offset);
/* Write all @count bytes, retrying short writes.  -1 with errno on error. */
int write_full(int fd, const void *buf, size_t count);
/* Read a whole (small) file into a malloc'ed buffer; prints on error. */
bool read_file(const char *path, uint8_t **buf, size_t *len);

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, v);
	put_le16(p + 2, v >> 16);
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, v);
	put_le32(p + 4, v >> 32);
}

/* Parse an even-length hex string into a malloc'ed buffer (NULL if empty). */
bool hex2bin(const char *hex, uint8_t **bin, size_t *len);
/* Write 2*len lowercase hex digits and a NUL to @hex. */
void bin2hex(const uint8_t *bin, size_t len, char *hex);

/* A growable byte buffer. */
struct bytebuf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

/* Append @len bytes (zeroes if @src is NULL); false (with message) on ENOMEM. */
bool bytebuf_append(struct bytebuf *b, const void *src, size_t len);
void bytebuf_free(struct bytebuf *b);

#endif /* FSVERITY_UTIL_H */
