/*
 * vreplay: read the log of a dm-log-writes target and replay it onto a
 * device, for t/80-power-cut.sh (power cuts at every flush of a workload).
 * Written from the format in drivers/md/dm-log-writes.c and
 * Documentation/admin-guide/device-mapper/log-writes.rst.
 *
 * The log: sector 0 holds the super block (magic, version 1, the number of
 * entries, the sector size of the logged device); the entries follow from
 * sector 1 (units of that sector size), each one sector of header (sector,
 * nr_sectors, flags, data_len; a MARK's name follows the header in the same
 * sector) then nr_sectors sectors of the data written, none for a DISCARD
 * or a MARK.  Writes are logged when a FLUSH covering them completes (FUA
 * writes when they complete), so a replay stopped at any entry is a state
 * the disk could hold after a power cut.
 *
 *   vreplay list LOG            the FLUSH, FUA and MARK entries, one a line:
 *                               "INDEX FLAGS [NAME]" (FLAGS e.g. FLUSH|FUA,
 *                               MARK), then "end N" (the number of entries)
 *   vreplay replay LOG DEV TO STATE [--skip A-B]
 *                               apply the entries up to and including entry
 *                               TO to DEV (a DISCARD zeroes its range), then
 *                               fsync DEV; STATE (a file) records where it
 *                               stopped, and a later call with the same
 *                               STATE continues from there (TO must not go
 *                               back: remove STATE and start over instead).
 *                               --skip A-B leaves out the data of entries A
 *                               to B (a deliberately broken replay, to show
 *                               that the checks can fail)
 *   vreplay check FILE REF DATALEN
 *                               the state of FILE against REF (the file as
 *                               `fsverity setup` left it: data and
 *                               metadata) and DATALEN (its data size):
 *                               "absent" (ENOENT), "open-error ERRNAME",
 *                               "verity ok" (size DATALEN, contents REF's
 *                               first DATALEN bytes), "plain full" (not
 *                               verity, size and contents those of REF),
 *                               "plain prefix N" (not verity, N bytes, a
 *                               prefix of REF), "plain zeroed N K" (not
 *                               verity, N bytes, a prefix of REF but for K
 *                               4 KiB blocks that read as zeroes: data
 *                               not yet durable), else "verity BAD: ..." or
 *                               "plain BAD: ..." saying what differs
 *   vreplay fsync PATH...       fsync(2) each PATH (files or directories)
 *
 * Exit status: 0, 1 when something failed (a message on stderr), 2 on
 * usage errors.  "check" exits 0 whatever it finds.
 */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#define LOG_FLUSH_FLAG		(1 << 0)
#define LOG_FUA_FLAG		(1 << 1)
#define LOG_DISCARD_FLAG	(1 << 2)
#define LOG_MARK_FLAG		(1 << 3)
#define LOG_METADATA_FLAG	(1 << 4)

#define WRITE_LOG_VERSION	1ULL
#define WRITE_LOG_MAGIC		0x6a736677736872ULL

/* On disk, little endian (the guests are x86: no conversion needed) */
struct log_write_super {
	uint64_t magic;
	uint64_t version;
	uint64_t nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct log_write_entry {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_len;
} __attribute__((packed));

struct log {
	int fd;
	uint64_t nr_entries;
	uint32_t sectorsize;
	uint64_t log_sectors;	/* size of the log device in sectorsize units */
	unsigned char *sect;	/* one sector: the current entry's header */
};

static void preadn(int fd, void *buf, size_t len, uint64_t off, const char *what)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("reading %s at byte %llu: %s", what,
			    (unsigned long long)(off + done),
			    n < 0 ? errname(errno) : "end of device");
		done += n;
	}
}

static void pwriten(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("writing the replay device at byte %llu: %s",
			    (unsigned long long)(off + done),
			    n < 0 ? errname(errno) : "short write");
		done += n;
	}
}

static uint64_t dev_size(int fd, const char *path)
{
	struct stat st;
	uint64_t size;

	if (fstat(fd, &st) < 0)
		die("stat %s: %s", path, errname(errno));
	if (!S_ISBLK(st.st_mode))
		return st.st_size;
	if (ioctl(fd, BLKGETSIZE64, &size) < 0)
		die("BLKGETSIZE64 %s: %s", path, errname(errno));
	return size;
}

static void log_open(struct log *log, const char *path)
{
	struct log_write_super super;

	log->fd = open(path, O_RDONLY);
	if (log->fd < 0)
		die("open %s: %s", path, errname(errno));
	preadn(log->fd, &super, sizeof(super), 0, "the log's super block");
	if (super.magic != WRITE_LOG_MAGIC)
		die("%s: not a dm-log-writes log (magic 0x%llx)", path,
		    (unsigned long long)super.magic);
	if (super.version != WRITE_LOG_VERSION)
		die("%s: log version %llu, not %llu", path,
		    (unsigned long long)super.version, WRITE_LOG_VERSION);
	if (super.sectorsize < 512 || super.sectorsize > 65536 ||
	    (super.sectorsize & (super.sectorsize - 1)))
		die("%s: bad sector size %u", path, super.sectorsize);
	log->nr_entries = super.nr_entries;
	log->sectorsize = super.sectorsize;
	log->log_sectors = dev_size(log->fd, path) / super.sectorsize;
	log->sect = malloc(super.sectorsize);
	if (!log->sect)
		die("out of memory");
}

/* Read the header of the entry at log sector POS into *e; checks it. */
static void log_entry(struct log *log, uint64_t idx, uint64_t pos,
		      struct log_write_entry *e)
{
	preadn(log->fd, log->sect, log->sectorsize, pos * log->sectorsize,
	       "an entry header");
	memcpy(e, log->sect, sizeof(*e));
	if (e->flags & ~(uint64_t)(LOG_FLUSH_FLAG | LOG_FUA_FLAG |
				   LOG_DISCARD_FLAG | LOG_MARK_FLAG |
				   LOG_METADATA_FLAG))
		die("entry %llu (log sector %llu): unknown flags 0x%llx",
		    (unsigned long long)idx, (unsigned long long)pos,
		    (unsigned long long)e->flags);
	if ((e->flags & LOG_MARK_FLAG) &&
	    e->data_len > log->sectorsize - sizeof(*e) - 1)
		die("entry %llu: mark of %llu bytes", (unsigned long long)idx,
		    (unsigned long long)e->data_len);
}

/* The log sectors entry E occupies: its header and its data */
static uint64_t entry_len(const struct log_write_entry *e)
{
	if (e->flags & (LOG_DISCARD_FLAG | LOG_MARK_FLAG))
		return 1;
	return 1 + e->nr_sectors;
}

static void flag_names(uint64_t flags, char *buf, size_t len)
{
	static const struct { uint64_t bit; const char *name; } names[] = {
		{ LOG_FLUSH_FLAG, "FLUSH" }, { LOG_FUA_FLAG, "FUA" },
		{ LOG_DISCARD_FLAG, "DISCARD" }, { LOG_MARK_FLAG, "MARK" },
		{ LOG_METADATA_FLAG, "META" },
	};
	size_t i;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & names[i].bit))
			continue;
		if (buf[0])
			strncat(buf, "|", len - strlen(buf) - 1);
		strncat(buf, names[i].name, len - strlen(buf) - 1);
	}
	if (!buf[0])
		snprintf(buf, len, "WRITE");
}

static int cmd_list(const char *path)
{
	struct log log;
	struct log_write_entry e;
	uint64_t i, pos = 1;
	char fl[64];

	log_open(&log, path);
	for (i = 0; i < log.nr_entries; i++) {
		log_entry(&log, i, pos, &e);
		if (e.flags & (LOG_FLUSH_FLAG | LOG_FUA_FLAG | LOG_MARK_FLAG)) {
			flag_names(e.flags & ~(uint64_t)LOG_METADATA_FLAG,
				   fl, sizeof(fl));
			if (e.flags & LOG_MARK_FLAG)
				printf("%llu %s %.*s\n", (unsigned long long)i,
				       fl, (int)e.data_len,
				       (char *)log.sect + sizeof(e));
			else
				printf("%llu %s\n", (unsigned long long)i, fl);
		}
		pos += entry_len(&e);
	}
	printf("end %llu\n", (unsigned long long)log.nr_entries);
	return 0;
}

/* Zero LEN bytes of FD at OFF: BLKZEROOUT, else plain writes */
static void zero_range(int fd, uint64_t off, uint64_t len)
{
	static const unsigned char zeroes[1 << 16];
	uint64_t range[2] = { off, len };

	if (!len || ioctl(fd, BLKZEROOUT, range) == 0)
		return;
	while (len) {
		size_t n = len < sizeof(zeroes) ? len : sizeof(zeroes);

		pwriten(fd, zeroes, n, off);
		off += n;
		len -= n;
	}
}

static int cmd_replay(const char *logpath, const char *devpath,
		      const char *to_s, const char *statepath,
		      const char *skip)
{
	unsigned long long next = 0, pos = 1, skip_a = 1, skip_b = 0;
	uint64_t to = parse_u64(to_s, "entry"), devsize, written = 0;
	struct log_write_entry e;
	struct log log;
	FILE *st;
	size_t buflen = 1 << 20;
	unsigned char *buf = malloc(buflen);
	int fd;

	if (!buf)
		die("out of memory");
	if (skip && sscanf(skip, "%llu-%llu", &skip_a, &skip_b) != 2)
		die("--skip wants A-B, not '%s'", skip);
	log_open(&log, logpath);
	if (to >= log.nr_entries)
		die("entry %llu: the log has %llu entries",
		    (unsigned long long)to, (unsigned long long)log.nr_entries);
	st = fopen(statepath, "r");
	if (st) {
		if (fscanf(st, "%llu %llu", &next, &pos) != 2)
			die("%s: not a replay state", statepath);
		fclose(st);
	}
	if (next > to + 1)
		die("the replay is at entry %llu already, past %llu: start over",
		    next, (unsigned long long)to);
	fd = open(devpath, O_WRONLY);
	if (fd < 0)
		die("open %s: %s", devpath, errname(errno));
	devsize = dev_size(fd, devpath);
	for (; next <= to; next++) {
		uint64_t off, len, done;

		log_entry(&log, next, pos, &e);
		off = e.sector * log.sectorsize;
		len = e.nr_sectors * log.sectorsize;
		if (pos + entry_len(&e) > log.log_sectors)
			die("entry %llu runs past the end of the log", next);
		if (!(e.flags & LOG_MARK_FLAG) &&
		    (off > devsize || len > devsize - off))
			die("entry %llu: sectors %llu+%llu are past the end of %s",
			    next, (unsigned long long)e.sector,
			    (unsigned long long)e.nr_sectors, devpath);
		if (next >= skip_a && next <= skip_b) {
			/* left out on purpose */
		} else if (e.flags & LOG_MARK_FLAG) {
			/* nothing to write */
		} else if (e.flags & LOG_DISCARD_FLAG) {
			zero_range(fd, off, len);
		} else {
			for (done = 0; done < len; ) {
				size_t n = len - done < buflen ? len - done : buflen;

				preadn(log.fd, buf, n,
				       (pos + 1) * log.sectorsize + done,
				       "entry data");
				pwriten(fd, buf, n, off + done);
				done += n;
			}
			written += len;
		}
		pos += entry_len(&e);
	}
	if (fsync(fd) < 0)
		die("fsync %s: %s", devpath, errname(errno));
	close(fd);
	st = fopen(statepath, "w");
	if (!st || fprintf(st, "%llu %llu\n", next, pos) < 0 || fclose(st))
		die("cannot write %s", statepath);
	return 0;
}

/*
 * FILE against REF's first EXPECT bytes: returns the first difference, or
 * NULL with *at = the bytes read.  With ZEROED, a 4 KiB block (or the
 * part of one before EOF) that reads as zeroes where REF has other bytes
 * is counted there instead of being a difference.
 */
static const char *compare(int fd, int ref, uint64_t expect, uint64_t *at,
			   uint64_t *zeroed)
{
	static unsigned char a[1 << 16], b[1 << 16];
	static char msg[64];
	uint64_t off = 0;

	for (;;) {
		ssize_t n = pread(fd, a, sizeof(a), off), m, i, j, end;

		if (n < 0) {
			*at = off;
			snprintf(msg, sizeof(msg), "read-error %s", errname(errno));
			return msg;
		}
		if (n == 0)
			break;
		if (off + n > expect) {
			*at = expect;
			return "longer";
		}
		m = pread(ref, b, n, off);
		if (m != n)
			die("reading the reference: %s", m < 0 ? errname(errno) : "short");
		for (i = 0; i < n; i = end) {
			end = (i / 4096 + 1) * 4096;
			if (end > n)
				end = n;
			if (!memcmp(a + i, b + i, end - i))
				continue;
			for (j = i; zeroed && j < end && !a[j]; j++)
				;
			if (zeroed && j == end) {
				(*zeroed)++;
				continue;
			}
			for (j = i; a[j] == b[j]; j++)
				;
			*at = off + j;
			return "differs";
		}
		off += n;
	}
	*at = off;
	return NULL;
}

static int cmd_check(const char *path, const char *refpath, const char *len_s)
{
	uint64_t datalen = parse_u64(len_s, "data size"), at, fullsize;
	uint64_t zeroed = 0;
	int fd, ref, flags = 0, verity;
	struct stat st;
	const char *d;

	ref = open(refpath, O_RDONLY);
	if (ref < 0 || fstat(ref, &st) < 0)
		die("open %s: %s", refpath, errname(errno));
	fullsize = st.st_size;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		if (errno == ENOENT)
			printf("absent\n");
		else
			printf("open-error %s\n", errname(errno));
		return 0;
	}
	if (fstat(fd, &st) < 0) {
		printf("open-error fstat:%s\n", errname(errno));
		return 0;
	}
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) {
		printf("open-error FS_IOC_GETFLAGS:%s\n", errname(errno));
		return 0;
	}
	verity = !!(flags & FS_VERITY_FL);
	if (verity) {
		if ((uint64_t)st.st_size != datalen) {
			printf("verity BAD: st_size %llu, the data size is %llu\n",
			       (unsigned long long)st.st_size,
			       (unsigned long long)datalen);
			return 0;
		}
		d = compare(fd, ref, datalen, &at, NULL);
		if (!d && at != datalen)
			printf("verity BAD: read %llu bytes of %llu\n",
			       (unsigned long long)at, (unsigned long long)datalen);
		else if (d)
			printf("verity BAD: %s at byte %llu\n", d,
			       (unsigned long long)at);
		else
			printf("verity ok\n");
		return 0;
	}
	d = compare(fd, ref, fullsize, &at, &zeroed);
	if (d)
		printf("plain BAD: %s at byte %llu (st_size %llu)\n", d,
		       (unsigned long long)at, (unsigned long long)st.st_size);
	else if (at != (uint64_t)st.st_size)
		printf("plain BAD: read %llu bytes, st_size %llu\n",
		       (unsigned long long)at, (unsigned long long)st.st_size);
	else if (zeroed)
		printf("plain zeroed %llu %llu\n", (unsigned long long)at,
		       (unsigned long long)zeroed);
	else if (at == fullsize)
		printf("plain full\n");
	else
		printf("plain prefix %llu\n", (unsigned long long)at);
	return 0;
}

static int cmd_fsync(int argc, char **argv)
{
	int i, ret = 0;

	for (i = 0; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);

		if (fd < 0 || fsync(fd) < 0) {
			fprintf(stderr, "fsync %s: %s\n", argv[i], errname(errno));
			ret = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "list"))
		return cmd_list(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "replay"))
		return cmd_replay(argv[2], argv[3], argv[4], argv[5], NULL);
	if (argc == 8 && !strcmp(argv[1], "replay") && !strcmp(argv[6], "--skip"))
		return cmd_replay(argv[2], argv[3], argv[4], argv[5], argv[7]);
	if (argc == 5 && !strcmp(argv[1], "check"))
		return cmd_check(argv[2], argv[3], argv[4]);
	if (argc >= 3 && !strcmp(argv[1], "fsync"))
		return cmd_fsync(argc - 2, argv + 2);
	die("usage: vreplay list LOG | replay LOG DEV TO STATE [--skip A-B] | check FILE REF DATALEN | fsync PATH...");
	return 2;
}
