#!/bin/sh
# The fs-verity benchmark of issue #9, run by `make bench` (vtest.mode=bench):
# every number comes with its baseline from this same boot; the host side
# (scripts/bench.sh) takes the medians and the ratios.
#
# Sections (VTEST_FILTER, a glob list joined by '|', picks them; empty = all):
#   hash    the kernel's hash throughput through AF_ALG (afalg-speed) for
#           sha256, sha512 and crc32c: one stream; one digest per 4 KiB
#           block as fs-verity does it; one stream per CPU at the same time
#           (fs-verity's read workqueue verifies on every CPU)
#   seq     sequential read of a $SEQ_MIB MiB file after drop_caches: plain,
#           verity sha256, sha512, crc32c
#   rand    random 4 KiB preads of the $SEQ_MIB MiB plain and sha256 files,
#           one in each 512 KiB region (the data one SHA-256 tree block
#           covers), the regions in a scrambled order: cold (after
#           drop_caches: each read needs its own tree block), warm (right
#           after, another random block of each region: the data is not
#           cached, the verified tree blocks are), hot (the cold pass's
#           blocks again: all in the page cache)
#   ttfb    open + first 4 KiB read after drop_caches of sha256 verity and
#           plain files of $SIZES MiB ($TTFB_N samples per repetition);
#           sha256sum of the whole plain file after drop_caches
#   enable  FS_IOC_ENABLE_VERITY (after sync + drop_caches) and open +
#           FS_IOC_MEASURE_VERITY (cold, then the mean of 1000 more calls)
#           across $SIZES MiB, on $ENABLE_RUNS files of each size (the extra
#           ones are deleted right after); without this section only the
#           files the others need are enabled (and timed)
#
# ext4 on the first disk, f2fs on the second.  Each measurement is repeated
# $RUNS times, the repetitions interleaved across configurations.
#
# Output: "B SECTION key=value..." records (one per sample), "# ..."
# progress lines, one "ok N - bench: ..." / "not ok N - ..." line per
# section and filesystem, and the closing "N passed, M failed".
# Env: VTEST_DISKS, VTEST_FILTER, and the BENCH_* defaults below (the
# harness passes none of them: they are for running this by hand in
# `make shell`).

VT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$VT_DIR/lib.sh"
PATH=/usr/local/bin:$PATH
RUNS=${BENCH_RUNS:-5}
SEQ_MIB=${BENCH_SEQ_MIB:-256}
SIZES=${BENCH_SIZES:-16 64 256}
HASH_MIB=${BENCH_HASH_MIB:-64}
# sha256: 128 hashes per 4 KiB tree block; one read per tree block
RAND_GROUP=128
RAND_N=$((SEQ_MIB * 256 / RAND_GROUP))
TTFB_N=${BENCH_TTFB_SAMPLES:-3}
ENABLE_RUNS=${BENCH_ENABLE_RUNS:-3}
BENCH_FS=${BENCH_FS:-ext4 f2fs}
FULLHASH_FS=${BENCH_FULLHASH_FS:-ext4 f2fs}
NCPU=$(grep -c ^processor /proc/cpuinfo)
ALGS="sha256 sha512 crc32c"
MiB=1048576
T0=$(cut -d' ' -f1 /proc/uptime)

passed=0
failed=0
tapn=0
tap() {	# STATUS(0=ok) NAME [DETAIL]
	tapn=$((tapn + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tapn - bench: $2"
		passed=$((passed + 1))
	else
		echo "not ok $tapn - bench: $2"
		[ -n "${3:-}" ] && echo "# $3"
		failed=$((failed + 1))
	fi
}

want() {	# SECTION: selected by VTEST_FILTER?
	vt_want "$1"
}

elapsed() {	# seconds since the start of the run
	awk -v a="$T0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%d", b - a }'
}

progress() {
	echo "# [$(elapsed) s] $*"
}

mnt_of() {	# FS: its mount point
	case $1 in ext4) echo "$VT_MNT" ;; f2fs) echo "$VT_MNT2" ;; esac
}

dev_of() {
	case $1 in ext4) echo "$VT_DEV" ;; f2fs) echo "$VT_DEV2" ;; esac
}

seq_n() {	# N: 1 .. N
	_i=1
	while [ "$_i" -le "$1" ]; do
		echo "$_i"
		_i=$((_i + 1))
	done
}

# check_end LINE: the helper's "end=" must be a success
check_end() {
	case $1 in
	*end=done*|*end=EOF*|*end=OK*) return 0 ;;
	*) echo "# measurement failed: $1"; return 1 ;;
	esac
}

# timed_read SECTION FS CFG MIB REP FILE LEN: one read after drop_caches
timed_read() {
	drop_caches
	_r=$(rdtest timed "$6" 0 "$7") || { echo "# rdtest timed $6 failed"; return 1; }
	check_end "$_r" || return 1
	echo "B $1 fs=$2 cfg=$3 mib=$4 rep=$5 $_r"
}

# make_plain FS NAME MIB SEED
make_plain() {
	_f=$(mnt_of "$1")/$2
	[ -f "$_f" ] && return 0
	gen $(($3 * MiB)) "$4" > "$_f" || { echo "# gen $_f failed"; return 1; }
}

# make_verity FS NAME MIB ALG SEED REP: gen, setup, then ENABLE and MEASURE
# timed, each after sync + drop_caches
make_verity() {
	_f=$(mnt_of "$1")/$2
	[ -f "$_f" ] && return 0
	gen $(($3 * MiB)) "$5" > "$_f" || { echo "# gen $_f failed"; return 1; }
	fsverity setup "$_f" --hash="$4" --threads=2 > /dev/null ||
		{ echo "# fsverity setup $_f --hash=$4 failed"; return 1; }
	drop_caches
	_r=$(benchio enable "$_f")
	check_end "$_r" || return 1
	echo "B enable fs=$1 cfg=$4 mib=$3 rep=$6 $_r"
	drop_caches
	_r=$(benchio measure "$_f")
	check_end "$_r" || return 1
	echo "B measure fs=$1 cfg=$4 mib=$3 rep=$6 $_r"
}

# prepare FS: mkfs, mount and the files the selected sections need
prepare() {
	FS=$1
	_m=$(mnt_of "$FS")
	fs_umount "$_m" || return 1
	fs_mkfs "$(dev_of "$FS")" verity || return 1
	fs_mount "$(dev_of "$FS")" "$_m" || return 1
	progress "$FS: writing the test files"
	if want seq || want rand; then
		make_plain "$FS" plain-$SEQ_MIB "$SEQ_MIB" 1 || return 1
		make_verity "$FS" v-$SEQ_MIB-sha256 "$SEQ_MIB" sha256 2 1 || return 1
	fi
	if want seq; then
		make_verity "$FS" v-$SEQ_MIB-sha512 "$SEQ_MIB" sha512 3 1 || return 1
		make_verity "$FS" v-$SEQ_MIB-crc32c "$SEQ_MIB" crc32c 4 1 || return 1
	fi
	for _n in $SIZES; do
		if want ttfb; then
			make_plain "$FS" plain-$_n "$_n" $((10 + _n)) || return 1
			make_verity "$FS" v-$_n-sha256 "$_n" sha256 $((20 + _n)) 1 || return 1
		fi
		if want enable; then
			make_verity "$FS" v-$_n-sha256 "$_n" sha256 $((20 + _n)) 1 || return 1
			for _r in $(seq_n "$ENABLE_RUNS"); do
				[ "$_r" = 1 ] && continue
				make_verity "$FS" v-$_n-sha256-$_r "$_n" sha256 $((20 + _n + 100 * _r)) "$_r" || return 1
				rm -f "$(mnt_of "$FS")/v-$_n-sha256-$_r"
			done
		fi
	done
	sync
	progress "$FS: files ready, $(df -m "$_m" | awk 'NR == 2 { print $3 }') MiB used"
}

bench_hash() {	# REP
	for _a in $ALGS; do
		_r=$(afalg-speed "$_a" "$HASH_MIB") || return 1
		echo "B hash cfg=$_a mode=stream rep=$1 $_r"
		_r=$(afalg-speed -b 4096 "$_a" "$HASH_MIB") || return 1
		echo "B hash cfg=$_a mode=block4k rep=$1 $_r"
		_r=$(afalg-speed -p "$NCPU" "$_a" "$HASH_MIB") || return 1
		echo "B hash cfg=$_a mode=allcpus rep=$1 $_r"
	done
}

bench_seq() {	# FS REP
	_m=$(mnt_of "$1")
	timed_read seq "$1" plain "$SEQ_MIB" "$2" "$_m/plain-$SEQ_MIB" 0 || return 1
	for _a in $ALGS; do
		timed_read seq "$1" "$_a" "$SEQ_MIB" "$2" "$_m/v-$SEQ_MIB-$_a" 0 || return 1
	done
}

bench_rand() {	# FS REP
	_m=$(mnt_of "$1")
	for _c in plain sha256; do
		[ $_c = plain ] && _f=$_m/plain-$SEQ_MIB || _f=$_m/v-$SEQ_MIB-sha256
		drop_caches
		for _s in cold:$2 warm:$((1000 + $2)) hot:$2; do
			_r=$(benchio rand "$_f" "$RAND_N" "${_s#*:}" $RAND_GROUP) || return 1
			check_end "$_r" || return 1
			echo "B rand fs=$1 cfg=$_c state=${_s%%:*} mib=$SEQ_MIB rep=$2 $_r"
		done
	done
}

bench_ttfb() {	# FS REP
	_m=$(mnt_of "$1")
	for _n in $SIZES; do
		for _k in $(seq_n "$TTFB_N"); do
			timed_read ttfb "$1" verity "$_n" "$2.$_k" "$_m/v-$_n-sha256" 4096 || return 1
			timed_read ttfb "$1" plain "$_n" "$2.$_k" "$_m/plain-$_n" 4096 || return 1
		done
		case " $FULLHASH_FS " in *" $1 "*) ;; *) continue ;; esac
		drop_caches
		_r=$(benchio time sha256sum "$_m/plain-$_n") || return 1
		case $_r in *status=0) ;; *) echo "# sha256sum failed: $_r"; return 1 ;; esac
		echo "B fullhash fs=$1 cfg=sha256sum mib=$_n rep=$2 $_r"
	done
}

echo "# fs-verity benchmark: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs," \
	"$(awk '/MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo)," \
	"runs $RUNS, sequential $SEQ_MIB MiB, sizes $SIZES MiB, hash $HASH_MIB MiB," \
	"random reads $RAND_N, filter '${VTEST_FILTER:-all}'"
echo "# sections: hash seq rand ttfb enable (VTEST_FILTER picks them)"
echo "B info kernel=$(uname -r) build=$(uname -v | cut -d' ' -f1) runs=$RUNS seq_mib=$SEQ_MIB hash_mib=$HASH_MIB rand_reads=$RAND_N" \
	"ttfb_samples=$TTFB_N enable_runs=$ENABLE_RUNS" \
	"sizes=$(echo $SIZES | tr ' ' ,) fullhash_fs=$(echo $FULLHASH_FS | tr ' ' ,)" \
	"cpus=$NCPU mem_mib=$(awk '/MemTotal/ { printf "%d", $2 / 1024 }' /proc/meminfo)"
for _a in $ALGS; do
	# the driver the crypto API picks for each algorithm (highest priority)
	_d=$(awk -v a="$_a" '$1 == "name" { n = $3 } $1 == "driver" { d = $3 }
		$1 == "priority" && n == a && $3 + 0 >= best { best = $3 + 0; drv = d }
		END { print drv }' /proc/crypto)
	echo "B driver cfg=$_a driver=${_d:-unknown}"
done
for _c in fsverity rdtest gen afalg-speed benchio sha256sum; do
	command -v "$_c" > /dev/null || { echo "'$_c' is not on PATH"; echo "0 passed, 1 failed"; exit 1; }
done
mkdir -p "$VT_STATE"

fss=
for fs in $BENCH_FS; do
	if prepare "$fs" 2>&1; then
		fss="$fss $fs"
		want enable && tap 0 "$fs: ENABLE and MEASURE across $SIZES MiB"
	else
		tap 1 "$fs: making the filesystem and the test files" "see above"
	fi
done

hash_rc=0 ; for fs in $fss; do eval "seq_rc_$fs=0 rand_rc_$fs=0 ttfb_rc_$fs=0"; done
for rep in $(seq_n "$RUNS"); do
	progress "repetition $rep of $RUNS"
	if want hash && [ $hash_rc = 0 ]; then
		bench_hash "$rep" || hash_rc=1
	fi
	for fs in $fss; do
		for sec in seq rand ttfb; do
			want $sec || continue
			_rc=0
			eval "_rc=\$${sec}_rc_$fs"
			[ "$_rc" = 0 ] || continue
			bench_$sec "$fs" "$rep" || eval "${sec}_rc_$fs=1"
		done
	done
done
want hash && tap $hash_rc "kernel hash throughput through AF_ALG ($ALGS)"
for fs in $fss; do
	want seq && eval "tap \$seq_rc_$fs '$fs: sequential read of $SEQ_MIB MiB, plain and verity ($ALGS)'"
	want rand && eval "tap \$rand_rc_$fs '$fs: random 4 KiB reads, plain and verity sha256'"
	want ttfb && eval "tap \$ttfb_rc_$fs '$fs: time to first byte, $SIZES MiB'"
	fs_umount "$(mnt_of "$fs")"
done
progress "done"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
