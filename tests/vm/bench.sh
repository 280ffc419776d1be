#!/bin/sh
# Speed numbers of issue #4, in one VM run (for a future `make bench`):
#  - sequential read of a 100 MiB verity file after drop_caches, against the
#    same data in a file without verity;
#  - the time of the first 4 KiB read after drop_caches of verity files of
#    1 MiB, 10 MiB and 100 MiB (near-constant: one path up the tree, not a
#    hash of the whole file), the same for the plain file, and for
#    comparison the time to hash the whole 100 MiB in userspace.
# Prints "bench: ..." lines; exits non-zero only if it could not measure.
# Env: VTEST_DISKS (first disk used), BENCH_FS (default "ext4 f2fs"),
# BENCH_RUNS (repetitions of each measurement, default 3).

VT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$VT_DIR/lib.sh"
PATH=/usr/local/bin:$PATH
RUNS=${BENCH_RUNS:-3}
M=$VT_MNT
MiB=1048576
mkdir -p "$VT_STATE" "$VT_WORK"

# timed FILE OFF LEN: microseconds of one read after drop_caches
timed() {
	drop_caches
	set -- $(rdtest timed "$1" "$2" "$3")
	case $3 in end=done|end=EOF) ;; *) echo "read failed: $*" >&2; return 1 ;; esac
	echo "${2#usec=}"
}

# best_of FILE OFF LEN: the smallest of RUNS timings
best_of() {
	_best=
	_i=0
	while [ $_i -lt "$RUNS" ]; do
		_t=$(timed "$@") || return 1
		[ -z "$_best" ] || [ "$_t" -lt "$_best" ] && _best=$_t
		_i=$((_i + 1))
	done
	echo "$_best"
}

mbps() {	# BYTES USEC
	echo "$(($1 / $2)).$(((($1 * 10) / $2) % 10)) MB/s"
}

bench_fs() {
	FS=$1
	fs_fresh verity > /dev/null || { echo "bench: $FS: cannot make the filesystem"; return 1; }
	for n in 1 10 100; do
		gen $((n * MiB)) 7 > "$M/v$n" || return 1
		fsverity setup "$M/v$n" > /dev/null || { echo "bench: $FS: fsverity setup failed"; return 1; }
		r=$(vioctl enable "$M/v$n")
		[ "$r" = OK ] || { echo "bench: $FS: FS_IOC_ENABLE_VERITY failed: $r"; return 1; }
	done
	gen $((100 * MiB)) 7 > "$M/plain100"
	sync

	tv=$(best_of "$M/v100" 0 0) || return 1
	tp=$(best_of "$M/plain100" 0 0) || return 1
	echo "bench: $FS: sequential read of 100 MiB after drop_caches: verity $((tv / 1000)) ms ($(mbps $((100 * MiB)) "$tv")), plain $((tp / 1000)) ms ($(mbps $((100 * MiB)) "$tp")), verity/plain $((tv * 100 / tp))%"

	for n in 1 10 100; do
		t=$(best_of "$M/v$n" 0 4096) || return 1
		echo "bench: $FS: first 4 KiB read of a $n MiB verity file after drop_caches: $t us"
	done
	t=$(best_of "$M/plain100" 0 4096) || return 1
	echo "bench: $FS: first 4 KiB read of the 100 MiB plain file after drop_caches: $t us"
	drop_caches
	s0=$(cut -d' ' -f1 /proc/uptime)
	sha256sum "$M/plain100" > /dev/null
	s1=$(cut -d' ' -f1 /proc/uptime)
	echo "bench: $FS: for comparison, sha256sum of the whole 100 MiB in userspace: $(echo "$s0 $s1" | awk '{printf "%d", ($2 - $1) * 1000}') ms"
	fs_umount "$M"
}

echo "bench: kernel $(uname -r), best of $RUNS runs each"
need() { command -v "$1" > /dev/null || { echo "bench: '$1' not on PATH"; exit 1; }; }
need fsverity
need rdtest
need vioctl
need gen
rc=0
for fs in ${BENCH_FS:-ext4 f2fs}; do
	bench_fs "$fs" || rc=1
	fs_umount "$M" 2>/dev/null
done
exit $rc
