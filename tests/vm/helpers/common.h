/* Shared bits of the in-VM test helpers: errno names, number parsing. */
#ifndef VT_COMMON_H
#define VT_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "EEXIST" for EEXIST; shell tests compare these names as strings. */
static inline const char *errname(int e)
{
	static char buf[16];
	const char *n = strerrorname_np(e);

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static inline void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* Parse a non-negative integer (decimal, 0x hex or 0 octal) or die. */
static inline unsigned long long parse_u64(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		die("invalid %s: '%s'", what, s);
	return v;
}

/* The value of a hex digit, or -1. */
static inline int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Print "OK" when rc >= 0, else errno's name; return the exit status. */
static inline int report(int rc)
{
	if (rc < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	printf("OK\n");
	return 0;
}

/* open(2), or print "open:ERRNO" and exit 1. */
static inline int open_or_report(const char *path, int flags)
{
	int fd = open(path, flags | O_NOCTTY);

	if (fd < 0) {
		printf("open:%s\n", errname(errno));
		exit(1);
	}
	return fd;
}

/* A file digest as the tests compare it: "ALG:HEX". */
static inline void print_digest(const char *alg, const unsigned char *digest,
				unsigned int size)
{
	unsigned int i;

	printf("%s:", alg);
	for (i = 0; i < size; i++)
		printf("%02x", digest[i]);
	printf("\n");
}

#endif
