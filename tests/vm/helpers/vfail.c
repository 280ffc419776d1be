/*
 * vfail: allocation and I/O fault injection on fs-verity's paths, one fault
 * per run, the way syzkaller does it: for N = 1, 2, ... write N to
 * /proc/thread-self/fail-nth, run one operation, read fail-nth back (0: the
 * N-th should_fail() call of this task failed, the fault was consumed),
 * check the end state, until a run completes without consuming the fault:
 * N - 1 is then the number of injection points of the operation.  What
 * counts as a call of should_fail() depends on debugfs (failslab,
 * fail_page_alloc with their gfp filters off, fail_make_request with the
 * disk's make-it-fail set), which t/38-alloc-faults.sh sets up.
 *
 *   vfail enable TEMPLATE REF MEAS DIR
 *	TEMPLATE: a file set up by `fsverity setup` (its data is REF, its
 *	measurement MEAS, "ALG:HEX").  Each run copies it to a new file in
 *	DIR (written, fsynced, its pages dropped from the cache), then
 *	FS_IOC_ENABLE_VERITY with the fault armed.  Success: the file is a
 *	verity file (GETFLAGS, statx), measures MEAS, reads REF after
 *	drop_caches.  Failure: an errno, the file is no verity file, its size
 *	and bytes are TEMPLATE's, and an ENABLE without a fault then succeeds
 *	on that same file (and it is checked as above).
 *   vfail open FILE REF MEAS
 *	FILE: an enabled file.  Each run drops the caches (the inode is
 *	evicted), then open(2) and a pread(2) of every block and at the end
 *	of the file with the fault armed: the open fails with an errno, or each
 *	block reads REF's bytes or fails with EIO or ENOMEM, never other bytes,
 *	and the end reads 0 bytes.  Then, without a fault, the file reads REF
 *	and measures MEAS with the caches as they are (pages a failed setup
 *	left must not be served unverified), and again after drop_caches.
 *   vfail measure FILE MEAS
 *	Each run drops the caches, opens FILE and FS_IOC_MEASURE_VERITY with
 *	the fault armed: an errno or MEAS.
 *
 * Options (before the command): -n MAX, the largest N (default 2000; a run
 * still consuming its fault at MAX fails); -l LABEL, the name of the
 * operation in the output and the kernel log (default: the command).
 *
 * The stack of each injected failure: the fault attributes are verbose=1
 * (one line in the kernel log, no stack: the suite's end check rejects any
 * "Call Trace" in the kernel log), and the stacktrace trigger of the
 * printk:console trace event, filtered on "FAULT_INJECTION*", records the
 * stack of that printk in the trace buffer, read from TRACE (environment
 * VFAIL_TRACE, default /sys/kernel/tracing/trace) and cleared after every
 * run.  The call site is the first frame outside printk, tracing, fault
 * injection, the allocators and the bio submission; a kernel without
 * CONFIG_KALLSYMS shows addresses only, and the sites are then counted as
 * distinct stacks (their first 24 frames) and each written once to the
 * kernel log ("vfail: stack OP: ADDR...") for symbolization on the host.
 * __GFP_NOWARN allocations fail without a message: "nostack".
 *
 * The kernel log is read from /dev/kmsg after every run: filesystem errors
 * (EXT4-fs error, aborted journal, read-only remount, f2fs errors and
 * stopped checkpoints) are counted per run and their first 20 lines printed
 * ("klog OP run N: LINE"); the other lines of ext4, f2fs and fs-verity
 * (e.g. fs-verity's "Error -12 verifying file signature") are counted, the
 * first printed ("klogv OP run N: LINE").
 *
 * Output: "FAIL ..." lines, then "points N", "state NAME COUNT" per end
 * state, "sites D NAME...", "attr NAME COUNT" per fault attribute and
 * "nostack K", "fserr RUNS", "klogother LINES".  Exit status 1 if a check failed, 2 on usage
 * or environment errors.
 */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include "verity-uapi.h"

#ifndef STATX_ATTR_VERITY
#define STATX_ATTR_VERITY 0x00100000
#endif
#ifndef FS_VERITY_FL
#define FS_VERITY_FL 0x00100000
#endif

#define BLK 4096
#define MAX_SITES 512
#define MAX_STATES 32
#define MAX_FRAMES 64
#define SIG_FRAMES 24
#define SITE_WINDOW 12

static unsigned int max_n = 2000;
static int fail_fd = -1;
static int kmsg_fd = -1;
static const char *trace_path;
static const char *op_name;
static const char *label;
static int failed;
static unsigned int cur_n;

/* ------------------------------------------------------------ results */

static struct { char name[32]; unsigned int count; } states[MAX_STATES];
static unsigned int nstates;
static char *sites[MAX_SITES];
static unsigned int nsites;
static int sites_unresolved;
static unsigned int attr_slab, attr_page, attr_bio, attr_other, nostack;
static unsigned int fserr_runs, klog_lines_shown, klog_other;

static void state_add(const char *name)
{
	unsigned int i;

	for (i = 0; i < nstates; i++)
		if (!strcmp(states[i].name, name))
			break;
	if (i == nstates) {
		if (nstates == MAX_STATES)
			die("too many states");
		snprintf(states[nstates++].name, sizeof(states[0].name), "%s",
			 name);
	}
	states[i].count++;
}

__attribute__((format(printf, 1, 2)))
static void check_failed(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s run %u: ", op_name, cur_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failed = 1;
}

/* ------------------------------------------------------------ fail-nth */

static void fail_set(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(fail_fd, buf, len, 0) != len)
		die("writing %u to /proc/thread-self/fail-nth: %s", n,
		    errname(errno));
}

/* Disarm; return 1 if the armed fault was consumed (fail-nth read 0). */
static int fail_disarm(void)
{
	char buf[16] = "";
	ssize_t r = pread(fail_fd, buf, sizeof(buf) - 1, 0);

	if (r <= 0)
		die("reading /proc/thread-self/fail-nth: %s", errname(errno));
	fail_set(0);
	return strtoul(buf, NULL, 10) == 0;
}

/* ------------------------------------------------------- kernel log */

static int fs_error_line(const char *msg)
{
	static const char *const pats[] = {
		"EXT4-fs error", "EXT4-fs warning", "EXT4-fs (", "JBD2",
		"Aborting journal", "read-only", "F2FS-fs", "fs-verity",
		"verity",
	};
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		if (strstr(msg, pats[i]))
			return 1;
	return 0;
}

static int serious_fs_error(const char *msg)
{
	return strstr(msg, "EXT4-fs error") || strstr(msg, "Aborting journal") ||
	       strstr(msg, "read-only") || strstr(msg, "JBD2") ||
	       (strstr(msg, "F2FS-fs") &&
		(strstr(msg, "error") || strstr(msg, "checkpoint") ||
		 strstr(msg, "Stopped")));
}

/* The new kernel log records: count the filesystem errors of this run. */
static void klog_scan(void)
{
	char rec[2048];
	int serious = 0;
	ssize_t r;

	if (kmsg_fd < 0)
		return;
	for (;;) {
		char *msg;

		r = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (r <= 0)
			break;
		rec[r] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = 0;
		if (!strncmp(msg, "FAULT_INJECTION", 15) ||
		    !strncmp(msg, "vfail:", 6) || !fs_error_line(msg))
			continue;
		if (!serious_fs_error(msg)) {
			/* fs-verity's own messages: counted, the first shown */
			if (!klog_other++)
				printf("klogv %s run %u: %s\n", op_name, cur_n,
				       msg);
			continue;
		}
		serious = 1;
		if (klog_lines_shown < 20) {
			printf("klog %s run %u: %s\n", op_name, cur_n, msg);
			klog_lines_shown++;
		}
	}
	if (serious)
		fserr_runs++;
}

/* ------------------------------------------------------------ stacks */

/* Frames of printk, tracing, fault injection, the allocators, bio submission */
static int skipped_frame(const char *f)
{
	static const char *const pre[] = {
		"__trace_stack", "trace_", "event_trigger", "stacktrace",
		"printk", "vprintk", "_printk", "__printk", "console",
		"dump_stack", "should_fail", "__should_fail", "fail_dump",
		"should_failslab", "__should_failslab", "slab_pre_alloc_hook",
		"slab_alloc", "__slab_alloc", "___slab_alloc", "kmem_cache_alloc",
		"__kmem_cache_alloc", "kmalloc", "__kmalloc", "kvmalloc",
		"__kvmalloc", "kzalloc", "kcalloc", "kmemdup", "kstrdup",
		"krealloc", "__krealloc", "alloc_pages", "__alloc_pages",
		"alloc_page", "__get_free_pages", "get_zeroed_page",
		"prepare_alloc_pages", "folio_alloc", "__folio_alloc",
		"filemap_alloc_folio", "__filemap_alloc_folio",
		"__page_cache_alloc", "page_cache_alloc", "mempool_alloc",
		"new_slab", "allocate_slab", "submit_bio", "__submit_bio",
		"submit_bio_noacct", "submit_bio_noacct_nocheck", "bio_alloc",
		"bvec_alloc", "alloc_inode_sb",
	};
	size_t i;

	if (!strncmp(f, "0x", 2))
		return 0;
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(f, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

static void site_add(const char *s)
{
	unsigned int i;

	for (i = 0; i < nsites; i++)
		if (!strcmp(sites[i], s))
			return;
	if (nsites == MAX_SITES)
		return;
	sites[nsites] = strdup(s);
	if (!sites[nsites])
		die("out of memory");
	nsites++;
}

static char *read_file(const char *path, size_t *sizep)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (!buf)
		die("out of memory");
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while ((r = read(fd, buf + len, cap - len)) > 0) {
		len += r;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf)
				die("out of memory");
		}
	}
	close(fd);
	buf[len] = 0;
	if (sizep)
		*sizep = len;
	return buf;
}

static void trace_clear(void)
{
	int fd;

	if (!trace_path)
		return;
	fd = open(trace_path, O_WRONLY | O_TRUNC);
	if (fd >= 0)
		close(fd);
}

/* Parse the trace buffer after a run whose fault was consumed. */
static void trace_scan(void)
{
	char *buf, *line, *save = NULL;
	char *frames[MAX_FRAMES];
	unsigned int nf = 0, i;
	int seen = 0, in_stack = 0;
	const char *attr = NULL;

	buf = trace_path ? read_file(trace_path, NULL) : NULL;
	if (!buf) {
		nostack++;
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p;

		if (line[0] == '#')
			continue;
		if (strstr(line, "FAULT_INJECTION: forcing a failure")) {
			seen = 1;
			continue;
		}
		if ((p = strstr(line, "name ")) && !attr && seen) {
			if (!strncmp(p + 5, "failslab", 8))
				attr = "failslab";
			else if (!strncmp(p + 5, "fail_page_alloc", 15))
				attr = "fail_page_alloc";
			else if (!strncmp(p + 5, "fail_make_request", 17))
				attr = "fail_make_request";
			else
				attr = "other";
			continue;
		}
		if (strstr(line, "<stack trace>")) {
			in_stack = seen && nf == 0;
			continue;
		}
		if (in_stack && (p = strstr(line, "=> "))) {
			p += 3;
			if (!strncmp(p, "? ", 2))
				p += 2;
			p[strcspn(p, "+ ")] = 0;
			if (nf < MAX_FRAMES)
				frames[nf++] = p;
			continue;
		}
		in_stack = 0;
	}
	if (!seen) {
		/* __GFP_NOWARN: the fault was injected without a message */
		nostack++;
		free(buf);
		return;
	}
	if (!attr || !strcmp(attr, "other"))
		attr_other++;
	else if (!strcmp(attr, "failslab"))
		attr_slab++;
	else if (!strcmp(attr, "fail_page_alloc"))
		attr_page++;
	else
		attr_bio++;
	if (nf == 0) {
		site_add("(no stack)");
	} else if (!strncmp(frames[0], "0x", 2)) {
		/* no symbols: the first frames of the stack stand for the site */
		char sig[MAX_FRAMES * 20] = "";
		unsigned int before = nsites;

		for (i = 0; i < nf && i < SIG_FRAMES; i++) {
			strcat(sig, i ? " " : "");
			strcat(sig, frames[i]);
		}
		sites_unresolved = 1;
		site_add(sig);
		if (nsites > before && kmsg_fd >= 0) {
			char msg[MAX_FRAMES * 20 + 64];
			int fd = open("/dev/kmsg", O_WRONLY);

			snprintf(msg, sizeof(msg), "vfail: stack %s %s:", op_name,
				 attr);
			for (i = 0; i < nf && i < 40; i++) {
				strcat(msg, " ");
				strcat(msg, frames[i]);
			}
			if (fd >= 0) {
				/* a lost line only costs the host's view */
				if (write(fd, msg, strlen(msg)) < 0)
					errno = 0;
				close(fd);
			}
		}
	} else {
		/*
		 * The frame after the last skipped one in the window that
		 * follows the first should_fail frame: a kernel without a
		 * reliable unwinder (UNWINDER_GUESS) shows stale return
		 * addresses among the real ones.
		 */
		unsigned int first = 0, last = 0;
		int found = 0;

		for (i = 0; i < nf; i++)
			if (!strncmp(frames[i], "should_fail", 11))
				break;
		first = i < nf ? i : 0;
		for (i = first; i < nf && i < first + SITE_WINDOW; i++)
			if (skipped_frame(frames[i])) {
				last = i;
				found = 1;
			}
		for (i = found ? last + 1 : 0; i < nf && skipped_frame(frames[i]); i++)
			;
		if (i < nf) {
			char *dot = strchr(frames[i], '.');

			if (dot)	/* .isra.0, .constprop.0, .cold */
				*dot = 0;
			site_add(frames[i]);
		} else {
			site_add("(allocator only)");
		}
	}
	free(buf);
}

/* ------------------------------------------------------------ files */

/*
 * Twice: an inode used since the last scan of the inode LRU (I_REFERENCED)
 * only loses that bit in the first pass, which may end before a second
 * scan; the second drop_caches then evicts it
 */
static void drop_caches(void)
{
	int fd, i;

	sync();
	for (i = 0; i < 2; i++) {
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
		if (fd < 0 || write(fd, "3", 1) != 1)
			die("drop_caches: %s", errname(errno));
		close(fd);
	}
}

/*
 * The buffers the kernel writes into while a fault is armed are static and
 * touched before (main): a page fault on them would consume the fault
 */
static unsigned char rbuf[BLK + 1];
static union {
	struct fsverity_digest d;
	unsigned char raw[sizeof(struct fsverity_digest) + 256];
} mbuf;

/* FS_IOC_MEASURE_VERITY of fd as "ALG:HEX" into out, or -1 with errno */
static int measure_fd(int fd, char *out, size_t outsz)
{
	size_t pos;
	unsigned int i;

	memset(&mbuf, 0, sizeof(mbuf));
	mbuf.d.digest_size = 256;
	if (ioctl(fd, FS_IOC_MEASURE_VERITY, &mbuf.d) < 0)
		return -1;
	pos = snprintf(out, outsz, "%s:", alg_name(mbuf.d.digest_algorithm));
	for (i = 0; i < mbuf.d.digest_size && i < 256 && pos + 3 < outsz; i++)
		pos += snprintf(out + pos, outsz - pos, "%02x",
				mbuf.d.digest[i]);
	return 0;
}

/* 1 if path is a verity file by GETFLAGS and by statx, 0 if by neither */
static int verity_flags(const char *path)
{
	struct statx stx;
	int fd, flags = 0, fl, sx;

	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0 || ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) {
		check_failed("GETFLAGS of %s: %s", path, errname(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &stx) < 0) {
		check_failed("statx of %s: %s", path, errname(errno));
		return -1;
	}
	fl = !!(flags & FS_VERITY_FL);
	sx = !!(stx.stx_attributes & STATX_ATTR_VERITY);
	if (fl != sx) {
		check_failed("%s: GETFLAGS says %sverity, statx %sverity", path,
			     fl ? "" : "not ", sx ? "" : "not ");
		return -1;
	}
	return fl;
}

/*
 * pread every block of fd and at its end, compare with ref[size]: the
 * counts of good blocks, wrong ones and errors (by errno) go to *res.
 */
struct readres {
	unsigned int ok, bad, eio, enomem, other, eof_bad;
	int other_errno;
	long long first_bad;
};

static void read_all(int fd, const unsigned char *ref, size_t size,
		     struct readres *res)
{
	unsigned char *buf = rbuf;
	size_t off;

	memset(res, 0, sizeof(*res));
	res->first_bad = -1;
	for (off = 0; off < size; off += BLK) {
		size_t want = size - off < BLK ? size - off : BLK;
		ssize_t r = pread(fd, buf, want, off);

		if (r < 0) {
			if (errno == EIO)
				res->eio++;
			else if (errno == ENOMEM)
				res->enomem++;
			else {
				res->other++;
				res->other_errno = errno;
			}
		} else if ((size_t)r != want || memcmp(buf, ref + off, want)) {
			res->bad++;
			if (res->first_bad < 0)
				res->first_bad = off / BLK;
		} else {
			res->ok++;
		}
	}
	/* nothing past the data: not the metadata, not a byte */
	if (pread(fd, buf, 1, size) != 0)
		res->eof_bad = 1;
}

static const char *readres_str(const struct readres *r)
{
	static char s[160];

	snprintf(s, sizeof(s), "ok=%u bad=%u eio=%u enomem=%u other=%u%s%s eof=%s",
		 r->ok, r->bad, r->eio, r->enomem, r->other,
		 r->other ? ":" : "", r->other ? errname(r->other_errno) : "",
		 r->eof_bad ? "BAD" : "ok");
	return s;
}

/* Without a fault: path reads ref in full and measures meas */
static void check_verity_reads(const char *path, const unsigned char *ref,
			       size_t size, const char *meas, const char *when)
{
	char got[300];
	struct readres r;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		check_failed("open of %s %s: %s", path, when, errname(errno));
		return;
	}
	if (measure_fd(fd, got, sizeof(got)) < 0)
		check_failed("MEASURE of %s %s: %s", path, when,
			     errname(errno));
	else if (strcmp(got, meas))
		check_failed("MEASURE of %s %s: %s, expected %s", path, when,
			     got, meas);
	read_all(fd, ref, size, &r);
	if (r.ok * (size_t)BLK < size || r.eof_bad)
		check_failed("reads of %s %s: %s (first wrong block %lld)",
			     path, when, readres_str(&r), r.first_bad);
	close(fd);
}

/* A verity file: flags, measurement, reads after drop_caches */
static void check_enabled(const char *path, const unsigned char *ref,
			  size_t size, const char *meas)
{
	if (verity_flags(path) != 1) {
		check_failed("%s: ENABLE succeeded but the file is not verity",
			     path);
		return;
	}
	drop_caches();
	if (verity_flags(path) != 1)
		check_failed("%s: not verity after drop_caches", path);
	check_verity_reads(path, ref, size, meas, "after drop_caches");
}

static unsigned char *load(const char *path, size_t *sizep)
{
	unsigned char *b = (unsigned char *)read_file(path, sizep);

	if (!b)
		die("cannot read %s: %s", path, errname(errno));
	return b;
}

static int write_copy(const char *path, const unsigned char *data,
		      size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t off = 0;

	if (fd < 0)
		die("creating %s: %s (run %u)", path, errname(errno), cur_n);
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);

		if (w <= 0)
			die("writing %s: %s (run %u)", path, errname(errno),
			    cur_n);
		off += w;
	}
	if (fsync(fd) < 0)
		die("fsync of %s: %s (run %u)", path, errname(errno), cur_n);
	close(fd);
	/*
	 * Nothing of the file cached (POSIX_FADV_DONTNEED leaves the pages
	 * of a file just written on ext4 and f2fs): ENABLE reads the
	 * metadata from the disk
	 */
	drop_caches();
	return 0;
}

/* ------------------------------------------------------------ operations */

/*
 * After run cur_n of an operation: the last one when it consumed no fault
 * (the operation has no more injection points), or, failing the check,
 * when max_n runs still consumed theirs.
 */
static int last_run(int consumed)
{
	if (!consumed && cur_n > 0)
		return 1;
	if (cur_n >= max_n) {
		check_failed("still consuming the fault at N=%u", max_n);
		return 1;
	}
	return 0;
}

static void op_enable(const char *tpath, const char *rpath, const char *meas,
		      const char *dir)
{
	size_t tsize, rsize;
	unsigned char *tmpl = load(tpath, &tsize);
	unsigned char *ref = load(rpath, &rsize);
	char path[4096], st[48];

	/* run 0 arms nothing: it warms up the paths of the helper itself */
	for (cur_n = 0;; cur_n++) {
		int fd, rc, err, consumed;
		struct stat sb;

		snprintf(path, sizeof(path), "%s/e%u", dir, cur_n);
		write_copy(path, tmpl, tsize);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			die("open %s: %s", path, errname(errno));
		trace_clear();
		fail_set(cur_n);
		rc = ioctl(fd, FS_IOC_ENABLE_VERITY, NULL);
		err = errno;
		consumed = fail_disarm() && cur_n > 0;
		close(fd);
		if (consumed)
			trace_scan();
		klog_scan();
		if (rc == 0) {
			if (consumed)
				state_add("ok");
			check_enabled(path, ref, rsize, meas);
		} else if (!consumed) {
			check_failed("ENABLE failed (%s) although no fault was injected",
				     errname(err));
		} else {
			snprintf(st, sizeof(st), "%s", errname(err));
			state_add(st);
			if (verity_flags(path) != 0)
				check_failed("ENABLE failed (%s) but the file is verity",
					     errname(err));
			if (stat(path, &sb) < 0 || (size_t)sb.st_size != tsize) {
				check_failed("ENABLE failed (%s), size %lld, expected %zu",
					     errname(err),
					     (long long)sb.st_size, tsize);
			} else {
				size_t sz;
				unsigned char *now = load(path, &sz);

				if (sz != tsize || memcmp(now, tmpl, tsize))
					check_failed("ENABLE failed (%s) and the file's bytes changed",
						     errname(err));
				free(now);
			}
			/* the same, once the inode is read again from the disk */
			drop_caches();
			if (verity_flags(path) != 0)
				check_failed("ENABLE failed (%s) but the file is verity after drop_caches",
					     errname(err));
			if (stat(path, &sb) < 0 || (size_t)sb.st_size != tsize)
				check_failed("ENABLE failed (%s), size %lld after drop_caches, expected %zu",
					     errname(err),
					     (long long)sb.st_size, tsize);
			/* the same file enables once nothing fails */
			fd = open(path, O_RDONLY);
			if (fd < 0 || ioctl(fd, FS_IOC_ENABLE_VERITY, NULL) < 0)
				check_failed("ENABLE without a fault after a failed one (%s): %s",
					     errname(err), errname(errno));
			else
				check_enabled(path, ref, rsize, meas);
			if (fd >= 0)
				close(fd);
			klog_scan();
		}
		unlink(path);
		if (last_run(consumed))
			break;
	}
	free(tmpl);
	free(ref);
}

static void op_open(const char *path, const char *rpath, const char *meas)
{
	size_t rsize;
	unsigned char *ref = load(rpath, &rsize);
	char st[64];

	/* run 0 arms nothing: it warms up the paths of the helper itself */
	for (cur_n = 0;; cur_n++) {
		struct readres r;
		int fd, err, consumed;

		drop_caches();
		trace_clear();
		fail_set(cur_n);
		fd = open(path, O_RDONLY);
		err = errno;
		if (fd >= 0)
			read_all(fd, ref, rsize, &r);
		consumed = fail_disarm() && cur_n > 0;
		if (fd >= 0)
			close(fd);
		if (consumed)
			trace_scan();
		klog_scan();
		if (fd < 0) {
			snprintf(st, sizeof(st), "open:%s", errname(err));
			if (!consumed)
				check_failed("open failed (%s) although no fault was injected",
					     errname(err));
		} else if (r.bad || r.other || r.eof_bad) {
			check_failed("reads under the fault: %s (first wrong block %lld)",
				     readres_str(&r), r.first_bad);
			snprintf(st, sizeof(st), "WRONG");
		} else if (r.eio || r.enomem) {
			snprintf(st, sizeof(st), "read:%s",
				 r.eio ? "EIO" : "ENOMEM");
			if (!consumed)
				check_failed("reads failed (%s) although no fault was injected",
					     readres_str(&r));
		} else {
			snprintf(st, sizeof(st), "ok");
		}
		if (consumed)
			state_add(st);
		/* nothing fails now: first with the caches as they are */
		check_verity_reads(path, ref, rsize, meas,
				   "after the run, caches kept");
		drop_caches();
		check_verity_reads(path, ref, rsize, meas,
				   "after the run and drop_caches");
		if (last_run(consumed))
			break;
	}
	free(ref);
}

static void op_measure(const char *path, const char *meas)
{
	char got[300], st[64];

	/* run 0 arms nothing: it warms up the paths of the helper itself */
	for (cur_n = 0;; cur_n++) {
		int fd, rc = -1, err, consumed;

		drop_caches();
		trace_clear();
		fail_set(cur_n);
		fd = open(path, O_RDONLY);
		if (fd >= 0)
			rc = measure_fd(fd, got, sizeof(got));
		err = errno;
		consumed = fail_disarm() && cur_n > 0;
		if (fd >= 0)
			close(fd);
		if (consumed)
			trace_scan();
		klog_scan();
		if (fd < 0)
			snprintf(st, sizeof(st), "open:%s", errname(err));
		else if (rc < 0)
			snprintf(st, sizeof(st), "measure:%s", errname(err));
		else if (strcmp(got, meas)) {
			check_failed("MEASURE gave %s, expected %s", got, meas);
			snprintf(st, sizeof(st), "WRONG");
		} else
			snprintf(st, sizeof(st), "ok");
		if ((fd < 0 || rc < 0) && !consumed)
			check_failed("%s although no fault was injected", st);
		if (consumed)
			state_add(st);
		if (last_run(consumed))
			break;
	}
}

static void usage(void)
{
	die("usage: vfail [-n MAX] [-l LABEL] enable TEMPLATE REF MEAS DIR\n"
	    "       vfail [-n MAX] [-l LABEL] open FILE REF MEAS\n"
	    "       vfail [-n MAX] [-l LABEL] measure FILE MEAS");
}

int main(int argc, char **argv)
{
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (argc > 2 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-n"))
			max_n = parse_u64(argv[2], "MAX");
		else if (!strcmp(argv[1], "-l"))
			label = argv[2];
		else
			usage();
		argc -= 2;
		argv += 2;
	}
	if (argc < 2)
		usage();
	trace_path = getenv("VFAIL_TRACE");
	if (!trace_path)
		trace_path = "/sys/kernel/tracing/trace";
	if (!*trace_path || access(trace_path, R_OK | W_OK))
		trace_path = NULL;
	fail_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_fd < 0)
		die("open /proc/thread-self/fail-nth: %s (CONFIG_FAULT_INJECTION)",
		    errname(errno));
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	memset(rbuf, 0, sizeof(rbuf));
	memset(&mbuf, 0, sizeof(mbuf));
	op_name = label ? label : argv[1];
	if (!strcmp(argv[1], "enable") && argc == 6)
		op_enable(argv[2], argv[3], argv[4], argv[5]);
	else if (!strcmp(argv[1], "open") && argc == 5)
		op_open(argv[2], argv[3], argv[4]);
	else if (!strcmp(argv[1], "measure") && argc == 4)
		op_measure(argv[2], argv[3]);
	else
		usage();

	printf("points %u\n", cur_n - 1);
	for (i = 0; i < nstates; i++)
		printf("state %s %u\n", states[i].name, states[i].count);
	printf("sites %u%s", nsites, sites_unresolved ? " unresolved" : "");
	if (!sites_unresolved)
		for (i = 0; i < nsites; i++)
			printf(" %s", sites[i]);
	printf("\n");
	printf("attr failslab %u fail_page_alloc %u fail_make_request %u other %u\n",
	       attr_slab, attr_page, attr_bio, attr_other);
	printf("nostack %u\n", nostack);
	printf("fserr %u\n", fserr_runs);
	printf("klogother %u\n", klog_other);
	return failed;
}
