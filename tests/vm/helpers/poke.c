/*
 * poke PATH OFFSET get N        print N bytes at OFFSET as hex
 * poke PATH OFFSET getle N      print the N-byte (1..8) little-endian
 *                               unsigned integer at OFFSET in decimal
 * poke PATH OFFSET set HEX      write the bytes HEX (e.g. 0a0b) at OFFSET
 * poke PATH OFFSET xor MASK     XOR the byte at OFFSET with MASK (hex, ff)
 *
 * PATH may be a regular file or a block device.  On a block device the
 * access is O_DIRECT read-modify-write of the aligned 4 KiB around OFFSET,
 * followed by fsync and BLKFLSBUF, so the change is on the disk and no stale
 * copy stays in the device's page cache.  set/xor print "OFFSET: OLD -> NEW".
 */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#define CHUNK 4096ULL

static int fd, isblk;

static void xfer(int wr, unsigned char *buf, size_t len, unsigned long long off)
{
	unsigned char *al;
	unsigned long long start, end;
	ssize_t n;

	if (!isblk) {
		n = wr ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
		if (n != (ssize_t)len)
			die("poke: %s %zu bytes at %llu: %s", wr ? "write" : "read",
			    len, off, n < 0 ? errname(errno) : "short");
		return;
	}
	start = off / CHUNK * CHUNK;
	end = (off + len + CHUNK - 1) / CHUNK * CHUNK;
	if (posix_memalign((void **)&al, CHUNK, end - start))
		die("out of memory");
	n = pread(fd, al, end - start, start);
	if (n != (ssize_t)(end - start))
		die("poke: read device at %llu: %s", start,
		    n < 0 ? errname(errno) : "short");
	if (!wr) {
		memcpy(buf, al + (off - start), len);
	} else {
		memcpy(al + (off - start), buf, len);
		n = pwrite(fd, al, end - start, start);
		if (n != (ssize_t)(end - start))
			die("poke: write device at %llu: %s", start,
			    n < 0 ? errname(errno) : "short");
	}
	free(al);
}

static size_t parse_hex(const char *s, unsigned char *out, size_t max)
{
	size_t n = 0, len = strlen(s);

	if (len == 0 || len % 2 || len / 2 > max)
		die("poke: bad hex string '%s'", s);
	for (; *s; s += 2) {
		int hi = hexval(s[0]), lo = hexval(s[1]);

		if (hi < 0 || lo < 0)
			die("poke: bad hex string");
		out[n++] = hi << 4 | lo;
	}
	return n;
}

static void print_hex(const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", b[i]);
}

int main(int argc, char **argv)
{
	unsigned char buf[4096], old[4096];
	unsigned long long off;
	const char *op;
	struct stat st;
	size_t n, i;
	int wr;

	if (argc != 5)
		die("usage: poke PATH OFFSET get|getle|set|xor ARG");
	off = parse_u64(argv[2], "offset");
	op = argv[3];
	wr = !strcmp(op, "set") || !strcmp(op, "xor");
	if (!wr && strcmp(op, "get") && strcmp(op, "getle"))
		die("poke: unknown operation '%s'", op);
	if (stat(argv[1], &st) < 0)
		die("poke: %s: %s", argv[1], errname(errno));
	isblk = S_ISBLK(st.st_mode);
	fd = open(argv[1], (wr ? O_RDWR : O_RDONLY) | (isblk ? O_DIRECT : 0));
	if (fd < 0)
		die("poke: open %s: %s", argv[1], errname(errno));

	if (!strcmp(op, "get") || !strcmp(op, "getle")) {
		n = parse_u64(argv[4], "count");
		if (n == 0 || n > sizeof(buf) || (op[3] && n > 8))
			die("poke: bad count");
		xfer(0, buf, n, off);
		if (op[3]) {
			unsigned long long v = 0;

			for (i = n; i-- > 0;)
				v = v << 8 | buf[i];
			printf("%llu\n", v);
		} else {
			print_hex(buf, n);
			printf("\n");
		}
		return 0;
	}

	if (!strcmp(op, "xor")) {
		n = 1;
		parse_hex(argv[4], buf, 1);
		xfer(0, old, 1, off);
		buf[0] ^= old[0];
	} else {
		n = parse_hex(argv[4], buf, sizeof(buf));
		xfer(0, old, n, off);
	}
	xfer(1, buf, n, off);
	if (fsync(fd) < 0)
		die("poke: fsync: %s", errname(errno));
	if (isblk && ioctl(fd, BLKFLSBUF, 0) < 0)
		die("poke: BLKFLSBUF: %s", errname(errno));
	printf("%llu: ", off);
	print_hex(old, n);
	printf(" -> ");
	print_hex(buf, n);
	printf("\n");
	return 0;
}
