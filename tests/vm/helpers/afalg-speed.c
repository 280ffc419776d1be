/*
 * afalg-speed [-b BLOCK] [-p PROCS] ALG MIB
 *     hash MIB MiB through the kernel's crypto API (AF_ALG "hash", ALG e.g.
 *     sha256, sha512, crc32c) and time it:
 *       alg=ALG procs=P bytes=N usec=T mbps=X
 *
 * Without -b the data goes in as one stream of 1 MiB messages (MSG_MORE),
 * one digest at the end: the raw hash throughput.  With -b BLOCK every
 * BLOCK bytes are a separate digest (send, then read the digest), which is
 * how fs-verity hashes data blocks; the syscalls per block are included.
 * With -p PROCS, PROCS processes hash MIB MiB each at the same time (bytes
 * and MB/s are the total).  MB/s is 10^6 bytes per second.  The same 1 MiB
 * buffer of pseudo-random bytes is sent again and again.
 */
#include "common.h"
#include <linux/if_alg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_ALG
#define AF_ALG 38
#endif

#define CHUNK (1 << 20)

static long long now_usec(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static void send_all(int fd, const unsigned char *p, size_t n, int more)
{
	while (n) {
		ssize_t w = send(fd, p, n, more ? MSG_MORE : 0);

		if (w < 0)
			die("afalg-speed: send: %s", errname(errno));
		p += w;
		n -= w;
		/* a partial send leaves the rest for the same digest */
		more = more || n;
	}
}

static unsigned char buf[CHUNK];

/* Hash TOTAL bytes with a fresh AF_ALG socket of ALG. */
static void hash_all(const char *alg, unsigned long long total,
		     unsigned long long block)
{
	static unsigned char digest[128];
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "hash" };
	unsigned long long done = 0;
	int tfm, op;
	size_t i;

	if (strlen(alg) >= sizeof(sa.salg_name))
		die("afalg-speed: algorithm name too long");
	strcpy((char *)sa.salg_name, alg);
	tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (tfm < 0)
		die("afalg-speed: socket(AF_ALG): %s (CONFIG_CRYPTO_USER_API_HASH?)",
		    errname(errno));
	if (bind(tfm, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("afalg-speed: bind hash '%s': %s", alg, errname(errno));
	op = accept(tfm, NULL, 0);
	if (op < 0)
		die("afalg-speed: accept: %s", errname(errno));
	while (done < total) {
		if (block) {
			for (i = 0; i < CHUNK; i += block) {
				send_all(op, buf + i, block, 0);
				if (read(op, digest, sizeof(digest)) <= 0)
					die("afalg-speed: read digest: %s", errname(errno));
			}
		} else {
			send_all(op, buf, CHUNK, done + CHUNK < total);
		}
		done += CHUNK;
	}
	if (!block && read(op, digest, sizeof(digest)) <= 0)
		die("afalg-speed: read digest: %s", errname(errno));
	close(op);
	close(tfm);
}

int main(int argc, char **argv)
{
	unsigned long long mib, total, block = 0, procs = 1, p;
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	long long t0, t1;
	int bad = 0, opt;
	size_t i;

	while ((opt = getopt(argc, argv, "+b:p:")) != -1) {
		switch (opt) {
		case 'b':
			block = parse_u64(optarg, "block size");
			if (!block || block > CHUNK || CHUNK % block)
				die("afalg-speed: block size must divide %d", CHUNK);
			break;
		case 'p':
			procs = parse_u64(optarg, "process count");
			if (!procs || procs > 64)
				die("afalg-speed: 1 to 64 processes");
			break;
		default:
			bad = 1;
		}
	}
	if (bad || argc - optind != 2)
		die("usage: afalg-speed [-b BLOCK] [-p PROCS] ALG MIB");
	mib = parse_u64(argv[optind + 1], "MiB");
	if (!mib)
		die("afalg-speed: MIB must be > 0");
	total = mib << 20;

	for (i = 0; i < CHUNK; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}

	t0 = now_usec();
	if (procs == 1) {
		hash_all(argv[optind], total, block);
	} else {
		for (p = 0; p < procs; p++) {
			pid_t pid = fork();

			if (pid < 0)
				die("afalg-speed: fork: %s", errname(errno));
			if (!pid) {
				hash_all(argv[optind], total, block);
				_exit(0);
			}
		}
		for (p = 0; p < procs; p++) {
			int status;

			if (wait(&status) < 0)
				die("afalg-speed: wait: %s", errname(errno));
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				bad = 1;
		}
		if (bad)
			die("afalg-speed: a hashing process failed");
	}
	t1 = now_usec();
	if (t1 <= t0)
		t1 = t0 + 1;
	printf("alg=%s procs=%llu bytes=%llu usec=%lld mbps=%.1f\n", argv[optind],
	       procs, total * procs, t1 - t0,
	       (double)(total * procs) / (double)(t1 - t0));
	return 0;
}
