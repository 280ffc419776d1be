/*
 * physoff FILE OFFSET
 *   Print the byte offset on the underlying device that holds byte OFFSET of
 *   FILE, found with FS_IOC_FIEMAP (FIEMAP_FLAG_SYNC: dirty data is written
 *   back first).  Exit 3 if OFFSET lies in a hole, 4 if the extent cannot be
 *   used for raw-device writes (inline, encoded, encrypted, delalloc,
 *   unwritten, not aligned, unknown location); the reason goes to stderr.
 * physoff -e FILE OFFSET
 *   The same, but an extent flagged data_encrypted (f2fs flags every extent
 *   of an encrypted file; ext4 flags none) is usable: for fscrypt the bytes
 *   on the device are the ciphertext of the file's bytes at the same place.
 * physoff -F FILE OFFSET
 *   Print the FIEMAP flags of the extent holding OFFSET ("hole" if none),
 *   e.g. "last,data_inline".
 */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#define NEXT 64

static const struct { uint32_t bit; const char *name; } flagnames[] = {
	{ FIEMAP_EXTENT_LAST, "last" },
	{ FIEMAP_EXTENT_UNKNOWN, "unknown" },
	{ FIEMAP_EXTENT_DELALLOC, "delalloc" },
	{ FIEMAP_EXTENT_ENCODED, "encoded" },
	{ FIEMAP_EXTENT_DATA_ENCRYPTED, "data_encrypted" },
	{ FIEMAP_EXTENT_NOT_ALIGNED, "not_aligned" },
	{ FIEMAP_EXTENT_DATA_INLINE, "data_inline" },
	{ FIEMAP_EXTENT_DATA_TAIL, "data_tail" },
	{ FIEMAP_EXTENT_UNWRITTEN, "unwritten" },
	{ FIEMAP_EXTENT_MERGED, "merged" },
	{ FIEMAP_EXTENT_SHARED, "shared" },
};

static void print_flags(FILE *f, uint32_t flags)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < sizeof(flagnames) / sizeof(flagnames[0]); i++) {
		if (flags & flagnames[i].bit) {
			fprintf(f, "%s%s", sep, flagnames[i].name);
			sep = ",";
			flags &= ~flagnames[i].bit;
		}
	}
	if (flags)
		fprintf(f, "%s0x%x", sep, flags);
	if (!*sep && !flags)
		fprintf(f, "none");
	fputc('\n', f);
}

int main(int argc, char **argv)
{
	const uint32_t unusable = FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
		FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED |
		FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_DATA_INLINE |
		FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_UNWRITTEN;
	int flags_only = 0, encrypted_ok = 0, fd;
	unsigned long long off;
	struct fiemap *fm;
	unsigned int i;

	if (argc == 4 && !strcmp(argv[1], "-F")) {
		flags_only = 1;
		argv++;
		argc--;
	} else if (argc == 4 && !strcmp(argv[1], "-e")) {
		encrypted_ok = 1;
		argv++;
		argc--;
	}
	if (argc != 3)
		die("usage: physoff [-F|-e] FILE OFFSET");
	off = parse_u64(argv[2], "offset");
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		die("physoff: open %s: %s", argv[1], errname(errno));

	fm = calloc(1, sizeof(*fm) + NEXT * sizeof(struct fiemap_extent));
	if (!fm)
		die("out of memory");
	fm->fm_start = off;
	fm->fm_length = 1;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = NEXT;
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
		fprintf(stderr, "physoff: FIEMAP %s: %s\n", argv[1], errname(errno));
		return 1;
	}
	for (i = 0; i < fm->fm_mapped_extents; i++) {
		struct fiemap_extent *fe = &fm->fm_extents[i];
		uint32_t bad = fe->fe_flags & unusable;

		if (off < fe->fe_logical || off - fe->fe_logical >= fe->fe_length)
			continue;
		if (flags_only) {
			print_flags(stdout, fe->fe_flags);
			return 0;
		}
		/* DATA_ENCRYPTED is meant to come with ENCODED (fiemap.rst) */
		if (encrypted_ok && (fe->fe_flags & FIEMAP_EXTENT_DATA_ENCRYPTED))
			bad &= ~(FIEMAP_EXTENT_DATA_ENCRYPTED | FIEMAP_EXTENT_ENCODED);
		if (bad) {
			fprintf(stderr, "physoff: %s offset %llu: extent not usable "
				"for raw writes, flags: ", argv[1], off);
			print_flags(stderr, fe->fe_flags);
			return 4;
		}
		printf("%llu\n", (unsigned long long)fe->fe_physical +
		       (off - fe->fe_logical));
		return 0;
	}
	if (flags_only) {
		printf("hole\n");
		return 0;
	}
	fprintf(stderr, "physoff: %s offset %llu is not mapped (hole or past "
		"the last extent)\n", argv[1], off);
	return 3;
}
