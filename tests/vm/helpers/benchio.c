/*
 * Timing helpers for tests/vm/bench.sh.  Times are CLOCK_MONOTONIC
 * microseconds measured around the operation only (not the exec).
 *
 *   benchio rand FILE COUNT SEED [GROUP]
 *                                 COUNT pread(2)s of 4 KiB at pseudo-random
 *                                 4 KiB-aligned offsets inside st_size (the
 *                                 same SEED gives the same offsets).  With
 *                                 GROUP (in blocks), read i goes to a random
 *                                 block of group g(i), g a fixed permutation
 *                                 of the st_size / (GROUP * 4 KiB) groups,
 *                                 the same for every SEED: with GROUP = the
 *                                 hashes per tree block, every read of a
 *                                 pass needs a different tree block, and
 *                                 another SEED reads other data blocks
 *                                 under the same tree blocks.
 *       reads=N bytes=N usec=T end=done|EOF|ERRNAME
 *   benchio enable FILE           open O_RDONLY, then FS_IOC_ENABLE_VERITY:
 *       usec=T (the ioctl alone) open_usec=T end=OK|ERRNAME
 *   benchio measure FILE [N]      open + the first FS_IOC_MEASURE_VERITY, then
 *                                 the mean of N more calls (default 1000):
 *       usec=T (open + first call) each_usec=T end=OK|ERRNAME
 *   benchio time CMD [ARGS...]    run CMD (stdout to /dev/null), time it:
 *       usec=T status=S
 *   benchio copies SRC DIR N [enable]
 *                                 N copies DIR/0 .. DIR/N-1 of the file SRC
 *                                 (made with `fsverity setup`: its
 *                                 metadata is copied too), each enabled
 *                                 with "enable"; no timing:
 *       files=N end=OK|ERRNAME
 *   benchio statdir DIR           readdir DIR and stat(2) every entry, as
 *                                 `ls -l` does:
 *       files=N usec=T end=OK|ERRNAME
 */
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/fsverity.h>

#define BS 4096

static long long now_usec(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static unsigned long long gcd(unsigned long long a, unsigned long long b)
{
	while (b) {
		unsigned long long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int do_rand(const char *path, unsigned long long count, uint64_t seed,
		   unsigned long long group)
{
	unsigned long long ngroups = 0, step = 0;
	static unsigned char buf[BS];
	unsigned long long i, nblocks, bytes = 0;
	const char *end = "done";
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
	struct stat st;
	long long t0, t1;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		die("benchio: %s: %s", path, errname(errno));
	nblocks = (st.st_size + BS - 1) / BS;
	if (!nblocks)
		die("benchio: %s is empty", path);
	if (group) {
		ngroups = nblocks / group;
		if (!ngroups)
			die("benchio: %s is smaller than one group", path);
		/* a step coprime with ngroups visits every group once */
		for (step = ngroups * 5 / 8 + 1; gcd(step, ngroups) != 1; step++)
			;
	}
	t0 = now_usec();
	for (i = 0; i < count; i++) {
		ssize_t n;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (group)
			n = pread(fd, buf, BS, (off_t)((((i * step) % ngroups) * group +
							 x % group) * BS));
		else
			n = pread(fd, buf, BS, (off_t)((x % nblocks) * BS));
		if (n <= 0) {
			end = n < 0 ? errname(errno) : "EOF";
			break;
		}
		bytes += n;
	}
	t1 = now_usec();
	printf("reads=%llu bytes=%llu usec=%lld end=%s\n", i, bytes, t1 - t0, end);
	return 0;
}

static int do_enable(const char *path)
{
	long long t0, t1, t2;
	const char *end = "OK";
	int fd;

	t0 = now_usec();
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("benchio: %s: %s", path, errname(errno));
	t1 = now_usec();
	if (ioctl(fd, FS_IOC_ENABLE_VERITY, NULL) < 0)
		end = errname(errno);
	t2 = now_usec();
	printf("usec=%lld open_usec=%lld end=%s\n", t2 - t1, t1 - t0, end);
	close(fd);
	return 0;
}

static int do_measure(const char *path, unsigned long long n)
{
	static unsigned char mem[sizeof(struct fsverity_digest) + 128];
	struct fsverity_digest *d = (struct fsverity_digest *)mem;
	const char *end = "OK";
	long long t0, t1, t2;
	unsigned long long i;
	int fd;

	t0 = now_usec();
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("benchio: %s: %s", path, errname(errno));
	d->digest_size = 128;
	if (ioctl(fd, FS_IOC_MEASURE_VERITY, d) < 0)
		end = errname(errno);
	t1 = now_usec();
	for (i = 0; i < n && !strcmp(end, "OK"); i++) {
		d->digest_size = 128;
		if (ioctl(fd, FS_IOC_MEASURE_VERITY, d) < 0)
			end = errname(errno);
	}
	t2 = now_usec();
	printf("usec=%lld each_usec=%.2f end=%s\n", t1 - t0,
	       n ? (double)(t2 - t1) / (double)n : 0.0, end);
	close(fd);
	return 0;
}

static int do_time(char **argv)
{
	long long t0, t1;
	int status;
	pid_t pid;

	t0 = now_usec();
	pid = fork();
	if (pid < 0)
		die("benchio: fork: %s", errname(errno));
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "benchio: exec %s: %s\n", argv[0], errname(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("benchio: waitpid: %s", errname(errno));
	t1 = now_usec();
	printf("usec=%lld status=%d\n", t1 - t0,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

static int do_copies(const char *src, const char *dir, unsigned long long n,
		     int enable)
{
	static char buf[1 << 16];
	const char *end = "OK";
	unsigned long long i;

	for (i = 0; i < n && !strcmp(end, "OK"); i++) {
		char path[4096];
		int in, out;
		ssize_t r = 0;

		snprintf(path, sizeof(path), "%s/%llu", dir, i);
		in = open(src, O_RDONLY);
		if (in < 0)
			die("benchio: %s: %s", src, errname(errno));
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0)
			die("benchio: %s: %s", path, errname(errno));
		while ((r = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, r) != r)
				die("benchio: writing %s: %s", path, errname(errno));
		if (r < 0)
			die("benchio: reading %s: %s", src, errname(errno));
		close(in);
		if (close(out) < 0)
			die("benchio: closing %s: %s", path, errname(errno));
		if (!enable)
			continue;
		in = open(path, O_RDONLY);
		if (in < 0)
			die("benchio: %s: %s", path, errname(errno));
		if (ioctl(in, FS_IOC_ENABLE_VERITY, NULL) < 0)
			end = errname(errno);
		close(in);
	}
	printf("files=%llu end=%s\n", i, end);
	return 0;
}

static int do_statdir(const char *dir)
{
	const char *end = "OK";
	unsigned long long n = 0;
	long long t0, t1;
	struct dirent *e;
	struct stat st;
	DIR *d;

	t0 = now_usec();
	d = opendir(dir);
	if (!d)
		die("benchio: %s: %s", dir, errname(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			end = errname(errno);
			break;
		}
		n++;
	}
	closedir(d);
	t1 = now_usec();
	printf("files=%llu usec=%lld end=%s\n", n, t1 - t0, end);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "rand"))
		return do_rand(argv[2], parse_u64(argv[3], "count"),
			       parse_u64(argv[4], "seed"),
			       argc == 6 ? parse_u64(argv[5], "group") : 0);
	if (argc == 3 && !strcmp(argv[1], "enable"))
		return do_enable(argv[2]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "measure"))
		return do_measure(argv[2], argc == 4 ? parse_u64(argv[3], "count") : 1000);
	if (argc >= 3 && !strcmp(argv[1], "time"))
		return do_time(argv + 2);
	if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "enable"))) &&
	    !strcmp(argv[1], "copies"))
		return do_copies(argv[2], argv[3], parse_u64(argv[4], "count"),
				 argc == 6);
	if (argc == 3 && !strcmp(argv[1], "statdir"))
		return do_statdir(argv[2]);
	die("usage: benchio rand FILE COUNT SEED [GROUP] | enable FILE | measure FILE [N] | time CMD [ARGS...] | copies SRC DIR N [enable] | statdir DIR");
	return 2;
}
