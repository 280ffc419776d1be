#!/bin/sh
# The fs-verity benchmark, run by `make bench` (vtest.mode=bench):
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
#           sha256sum of the whole plain file after drop_caches; in the
#           first repetition one more read of each file with its block
#           requests traced: "B rq" records (the timeline) and a "B waves"
#           record, the dependent round trips (requests issued while none
#           was in flight)
#   stat    readdir + stat(2) of every file of a directory after
#           drop_caches, as `ls -l` does: $STAT_N plain files, $STAT_N
#           verity files, $STAT_N signed verity files (4 KiB each)
#   enable  FS_IOC_ENABLE_VERITY (after sync + drop_caches) and open +
#           FS_IOC_MEASURE_VERITY (cold, then the mean of 1000 more calls)
#           across $SIZES MiB, on $ENABLE_RUNS files of each size (the extra
#           ones are deleted right after); without this section only the
#           files the others need are enabled (and timed)
#
# The alternatives, measured in seq, rand and ttfb beside fs-verity:
#   dm-verity  when the host built a dm-verity image (scripts/bench.sh:
#           an ext4 image holding plain-N files, on the third disk, its
#           SHA-256 hash tree on the fourth, the device made at boot by
#           dm-mod.create= on the command line): /dev/dm-0 mounted
#           read-only, the same reads on its files; dm-bufio's cache of
#           hash blocks is emptied before every cold read (retain_bytes=0,
#           then drop_caches runs its shrinker) and what it still holds is
#           recorded (bufio=BYTES)
#   IMA     two policy rules for files of two owners: 3000, IMA's own way
#           (hash the whole file at open, template ima-ng), and 3001,
#           digest_type=verity (the fs-verity measurement, no data read),
#           on files of their own (ip-N, iv-N-sha256) given to those
#           owners when made.  At the end the measurement list must show
#           both kinds of record, or the section fails.
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
STAT_N=${BENCH_STAT_FILES:-1000}
BENCH_FS=${BENCH_FS:-ext4 f2fs}
FULLHASH_FS=${BENCH_FULLHASH_FS:-ext4 f2fs}
NCPU=$(grep -c ^processor /proc/cpuinfo)
ALGS="sha256 sha512 crc32c"
MiB=1048576
UID_IMA_HASH=3000
UID_IMA_VERITY=3001
DMV_MNT=/mnt/dmv
BUFIO=/sys/module/dm_bufio/parameters
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

# read_ios: read requests the virtio disks have completed so far
read_ios() {
	cat /sys/block/vd*/stat | awk '{ n += $1 } END { print n + 0 }'
}

# timed_read SECTION FS CFG MIB REP FILE LEN [dm]: one read after
# drop_caches, with the number of read requests it made (ios=); with "dm",
# a file of the dm-verity device: dm-bufio's hash blocks are dropped too
# and what it still holds is recorded (bufio=)
timed_read() {
	_extra=
	if [ "${8:-}" = dm ]; then
		bufio_drop
		_extra=" bufio=$bufio_left"
	else
		drop_caches
	fi
	_i0=$(read_ios)
	_r=$(rdtest timed "$6" 0 "$7") || { echo "# rdtest timed $6 failed"; return 1; }
	_i1=$(read_ios)
	check_end "$_r" || return 1
	echo "B $1 fs=$2 cfg=$3 mib=$4 rep=$5 $_r ios=$((_i1 - _i0))$_extra"
}

# rq_timeline FS CFG MIB FILE [dm]: timed_read's open + first 4 KiB read
# once more, with the block requests of every disk traced (trace events
# block_rq_issue and block_rq_complete): a "B rq" record per read request
# event, t= in µs from the first, then "B waves": reqs= read requests,
# waves= dependent round trips, the times a read request was issued while
# none was in flight
rq_timeline() {
	[ -d "$TRACEFS/events/block" ] || mount -t tracefs tracefs "$TRACEFS" 2>/dev/null
	[ -d "$TRACEFS/events/block" ] ||
		{ echo "# no block trace events in $TRACEFS (CONFIG_FTRACE and tracefs are needed)"; return 1; }
	if [ "${5:-}" = dm ]; then bufio_drop; else drop_caches; fi
	for _e in block_rq_issue block_rq_complete; do
		echo 1 > "$TRACEFS/events/block/$_e/enable"
	done
	echo > "$TRACEFS/trace"
	echo 1 > "$TRACEFS/tracing_on"
	_r=$(rdtest timed "$4" 0 4096)
	_rc=$?
	echo 0 > "$TRACEFS/tracing_on"
	for _e in block_rq_issue block_rq_complete; do
		echo 0 > "$TRACEFS/events/block/$_e/enable"
	done
	[ $_rc = 0 ] || { echo "# rdtest timed $4 failed"; return 1; }
	check_end "$_r" || return 1
	# "... TIME: block_rq_issue: MAJ,MIN RWBS BYTES (CMD) SECTOR + NR [COMM]",
	# "... TIME: block_rq_complete: MAJ,MIN RWBS (CMD) SECTOR + NR [ERR]"
	awk -v pre="fs=$1 cfg=$2 mib=$3" '
	/ block_rq_(issue|complete): / {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^block_rq_(issue|complete):$/) break
		if ($(i + 2) !~ /R/) next
		for (j = i; j <= NF && $j != "+"; j++) ;
		t = $(i - 1); sub(/:$/, "", t); t *= 1000000
		if (t0 == "") t0 = t
		ev = ($i ~ /issue/) ? "issue" : "complete"
		printf "B rq %s t=%d ev=%s dev=%s sector=%s sectors=%s\n", pre, t - t0, ev, $(i + 1), $(j - 1), $(j + 1)
		if (ev == "issue") { if (inflight == 0) waves++; inflight++; reqs++ }
		else if (inflight > 0) inflight--
	}
	END { printf "B waves %s reqs=%d waves=%d\n", pre, reqs, waves }' "$TRACEFS/trace"
}

# bufio_drop: drop_caches, then wait (up to 3 s, dropping again each
# second) until dm-bufio's shrinker work has freed its hash blocks down to
# 64 KiB; bufio_left is the bytes it still holds
bufio_drop() {
	drop_caches
	for _i in $(seq_n 30); do
		bufio_left=$(cat "$BUFIO/current_allocated_bytes")
		[ "$bufio_left" -le 65536 ] && break
		[ $((_i % 10)) = 0 ] && echo 3 > /proc/sys/vm/drop_caches
		sleep 0.1
	done
}

# make_plain FS NAME MIB SEED
make_plain() {
	_f=$(mnt_of "$1")/$2
	[ -f "$_f" ] && return 0
	gen $(($3 * MiB)) "$4" > "$_f" || { echo "# gen $_f failed"; return 1; }
}

# make_verity FS NAME MIB ALG SEED REP [quiet]: gen, setup, then ENABLE and
# MEASURE timed, each after sync + drop_caches (no record with "quiet")
make_verity() {
	_f=$(mnt_of "$1")/$2
	[ -f "$_f" ] && return 0
	gen $(($3 * MiB)) "$5" > "$_f" || { echo "# gen $_f failed"; return 1; }
	fsverity setup "$_f" --hash="$4" --threads=2 > /dev/null ||
		{ echo "# fsverity setup $_f --hash=$4 failed"; return 1; }
	drop_caches
	_r=$(benchio enable "$_f")
	check_end "$_r" || return 1
	[ -n "${7:-}" ] || record "B enable fs=$1 cfg=$4 mib=$3 rep=$6 $_r"
	drop_caches
	_r=$(benchio measure "$_f")
	check_end "$_r" || return 1
	[ -n "${7:-}" ] || record "B measure fs=$1 cfg=$4 mib=$3 rep=$6 $_r"
}

# record LINE: print a record, and keep it in $RECORDS for the checks
record() {
	echo "$*"
	echo "$*" >> "$RECORDS"
}

# enable_check FS: an ENABLE and a MEASURE record with a time (usec=T, T >
# 0) for every size and run of the enable section; says what is missing
enable_check() {
	for _n in $SIZES; do
		for _r in $(seq_n "$ENABLE_RUNS"); do
			for _what in enable measure; do
				grep -q -E "^B $_what fs=$1 cfg=sha256 mib=$_n rep=$_r usec=[1-9][0-9]* " "$RECORDS" ||
					{ echo "no $_what time for $_n MiB, run $_r"; return 1; }
			done
		done
	done
}

# make_ima_files FS: the files IMA's rules match, by their owner: ip-N
# (plain, whole-file hash at open) and iv-N-sha256 (verity, digest_type=
# verity); separate files, so that no chown during the run leaves dirty
# inode-table blocks in the cache of the files the other reads time
make_ima_files() {
	_m=$(mnt_of "$1")
	_ns=
	want ttfb && _ns=$SIZES
	want seq && _ns="$_ns $SEQ_MIB"
	for _n in $_ns; do
		make_plain "$1" ip-$_n "$_n" $((30 + _n)) || return 1
		chown $UID_IMA_HASH "$_m/ip-$_n" || return 1
		want ttfb || continue
		make_verity "$1" iv-$_n-sha256 "$_n" sha256 $((40 + _n)) 1 quiet || return 1
		chown $UID_IMA_VERITY "$_m/iv-$_n-sha256" || return 1
	done
}

# make_stat_files FS: st-plain, st-verity, st-signed: $STAT_N copies each of
# one 4 KiB file, plain, set up, set up and signed with a key trusted in
# the .fs-verity keyring (one file's data, so one signature fits them all)
make_stat_files() {
	_sd=$(mnt_of "$1")	# not _m: setup_measure sets it
	mkdir -p "$_sd/st-plain" "$_sd/st-verity" "$_sd/st-signed" || return 1
	gen 4096 60 > "$VT_STATE/st.plain" || return 1
	cp "$VT_STATE/st.plain" "$VT_STATE/st.verity" &&
	cp "$VT_STATE/st.plain" "$VT_STATE/st.signed" || return 1
	setup_measure "$VT_STATE/st.verity" > /dev/null || return 1
	{ sig_key trusted && sig_trust trusted; } || return 1
	sig_setup "$VT_STATE/st.signed" trusted > /dev/null || return 1
	for _c in plain verity signed; do
		_r=$(benchio copies "$VT_STATE/st.$_c" "$_sd/st-$_c" "$STAT_N" \
			$([ $_c = plain ] || echo enable)) || return 1
		[ "$_r" = "files=$STAT_N end=OK" ] || { echo "# st-$_c: $_r"; return 1; }
	done
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
	if want seq || want ttfb; then
		make_ima_files "$FS" || return 1
	fi
	if want stat; then
		make_stat_files "$FS" || return 1
	fi
	sync
	progress "$FS: files ready, $(df -m "$_m" | awk 'NR == 2 { print $3 }') MiB used"
}

# dmv_setup: mount the host's dm-verity image, if the host made one
# (dm-mod.create= on the command line); dmv=1 when it is ready
dmv=0
dmv_setup() {
	case " $(cat /proc/cmdline) " in
	*" dm-mod.create="*) ;;
	*) progress "dm-verity: no image from the host (no dm-mod.create= on the command line), not measured"; return 0 ;;
	esac
	[ -b /dev/dm-0 ] || { echo "# /dev/dm-0 is missing though dm-mod.create= was given (see the kernel log)"; return 1; }
	mkdir -p "$DMV_MNT"
	mount -t ext4 -o ro,noload /dev/dm-0 "$DMV_MNT" || { echo "# mounting /dev/dm-0 failed"; return 1; }
	for _n in $SEQ_MIB $SIZES; do
		[ -f "$DMV_MNT/plain-$_n" ] || { echo "# the dm-verity image has no plain-$_n"; return 1; }
	done
	[ -w "$BUFIO/retain_bytes" ] || { echo "# $BUFIO/retain_bytes is missing"; return 1; }
	echo 0 > "$BUFIO/retain_bytes"
	# read everything once: any block that fails verification fails here
	cat "$DMV_MNT"/plain-* > /dev/null || { echo "# reading the dm-verity files failed"; return 1; }
	dmv=1
	progress "dm-verity: /dev/dm-0 ($(cat /sys/block/dm-0/size) sectors) mounted on $DMV_MNT"
}

# dmv_on FS: the dm-verity files are measured beside FS's (its image is ext4)
dmv_on() {
	[ $dmv = 1 ] && [ "$1" = ext4 ]
}

# ima_setup: the two IMA rules; ima=1 when they are in
ima=0
ima_setup() {
	ima_mount
	[ -w "$IMA_POLICY" ] || { echo "# no writable IMA policy ($IMA_POLICY: CONFIG_IMA, CONFIG_IMA_WRITE_POLICY)"; return 1; }
	_out=$(ima_add_rules \
		"measure func=FILE_CHECK mask=MAY_READ fowner=$UID_IMA_HASH template=ima-ng" \
		"measure func=FILE_CHECK mask=MAY_READ fowner=$UID_IMA_VERITY digest_type=verity template=ima-ngv2") ||
		{ echo "# $_out"; return 1; }
	ima=1
}

# ima_check FS: the measurement list has IMA's records of this run: a
# whole-file sha256 of a plain file (ttfb and seq) and a verity record of a
# verity file (ttfb)
ima_check() {
	_m=$(mnt_of "$1")
	_n=${SIZES%% *}
	want ttfb || _n=$SEQ_MIB
	grep -q " ima-ng sha256:[0-9a-f]* $_m/ip-$_n\$" "$IMA_LIST" ||
		{ echo "# no ima-ng sha256 record of $_m/ip-$_n in $IMA_LIST"; return 1; }
	want ttfb || return 0
	grep -q " ima-ngv2 verity:sha256:[0-9a-f]* $_m/iv-$_n-sha256\$" "$IMA_LIST" ||
		{ echo "# no ima-ngv2 verity record of $_m/iv-$_n-sha256 in $IMA_LIST"; return 1; }
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
	if [ $ima = 1 ]; then
		timed_read seq "$1" ima "$SEQ_MIB" "$2" "$_m/ip-$SEQ_MIB" 0 || return 1
	fi
	if dmv_on "$1"; then
		timed_read seq ext4 dmverity "$SEQ_MIB" "$2" "$DMV_MNT/plain-$SEQ_MIB" 0 dm || return 1
	fi
}

bench_rand() {	# FS REP
	_m=$(mnt_of "$1")
	_cfgs="plain sha256"
	dmv_on "$1" && _cfgs="$_cfgs dmverity"
	for _c in $_cfgs; do
		case $_c in
		plain) _f=$_m/plain-$SEQ_MIB ;;
		sha256) _f=$_m/v-$SEQ_MIB-sha256 ;;
		dmverity) _f=$DMV_MNT/plain-$SEQ_MIB ;;
		esac
		if [ $_c = dmverity ]; then bufio_drop; else drop_caches; fi
		for _s in cold:$2 warm:$((1000 + $2)) hot:$2; do
			_r=$(benchio rand "$_f" "$RAND_N" "${_s#*:}" $RAND_GROUP) || return 1
			check_end "$_r" || return 1
			echo "B rand fs=$1 cfg=$_c state=${_s%%:*} mib=$SEQ_MIB rep=$2 $_r"
		done
	done
}

# bench_stat FS REP: readdir + stat of each file of the stat directories
# after drop_caches
bench_stat() {
	for _c in plain verity signed; do
		drop_caches
		_r=$(benchio statdir "$(mnt_of "$1")/st-$_c") || return 1
		check_end "$_r" || return 1
		case $_r in "files=$STAT_N "*) ;; *) echo "# st-$_c: $_r, not $STAT_N files"; return 1 ;; esac
		echo "B stat fs=$1 cfg=$_c rep=$2 $_r"
	done
}

bench_ttfb() {	# FS REP
	_m=$(mnt_of "$1")
	for _n in $SIZES; do
		for _k in $(seq_n "$TTFB_N"); do
			timed_read ttfb "$1" verity "$_n" "$2.$_k" "$_m/v-$_n-sha256" 4096 || return 1
			timed_read ttfb "$1" plain "$_n" "$2.$_k" "$_m/plain-$_n" 4096 || return 1
			if dmv_on "$1"; then
				timed_read ttfb ext4 dmverity "$_n" "$2.$_k" "$DMV_MNT/plain-$_n" 4096 dm || return 1
			fi
			if [ $ima = 1 ]; then
				timed_read ttfb "$1" ima-verity "$_n" "$2.$_k" "$_m/iv-$_n-sha256" 4096 || return 1
			fi
		done
		if [ "$2" = 1 ]; then
			rq_timeline "$1" verity "$_n" "$_m/v-$_n-sha256" || return 1
			rq_timeline "$1" plain "$_n" "$_m/plain-$_n" || return 1
			if dmv_on "$1"; then
				rq_timeline ext4 dmverity "$_n" "$DMV_MNT/plain-$_n" dm || return 1
			fi
		fi
		# IMA's whole-file hash at open: one sample per repetition, as
		# sha256sum below (each costs the whole file)
		if [ $ima = 1 ]; then
			timed_read ttfb "$1" ima "$_n" "$2" "$_m/ip-$_n" 4096 || return 1
		fi
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
echo "# sections: hash seq rand ttfb enable stat (VTEST_FILTER picks them)"
echo "B info kernel=$(uname -r) build=$(uname -v | cut -d' ' -f1) runs=$RUNS seq_mib=$SEQ_MIB hash_mib=$HASH_MIB rand_reads=$RAND_N" \
	"ttfb_samples=$TTFB_N enable_runs=$ENABLE_RUNS stat_files=$STAT_N" \
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
RECORDS=$VT_STATE/bench-records
: > "$RECORDS"

fss=
for fs in $BENCH_FS; do
	if prepare "$fs" 2>&1; then
		fss="$fss $fs"
		want enable && tap "$(enable_check "$fs" > "$VT_STATE/enable-check"; echo $?)" \
			"$fs: ENABLE and MEASURE across $SIZES MiB" "$(cat "$VT_STATE/enable-check")"
	else
		tap 1 "$fs: making the filesystem and the test files" "see above"
	fi
done

if [ -n "$fss" ] && { want seq || want ttfb; }; then
	if ima_setup; then
		progress "IMA: rules for owners $UID_IMA_HASH (whole-file hash) and $UID_IMA_VERITY (digest_type=verity)"
	else
		tap 1 "IMA policy rules for the comparison" "see above"
	fi
fi
if [ -n "$fss" ] && { want seq || want rand || want ttfb; }; then
	dmv_setup || tap 1 "dm-verity: the host's image on /dev/dm-0" "see above"
fi

hash_rc=0 ; for fs in $fss; do eval "seq_rc_$fs=0 rand_rc_$fs=0 ttfb_rc_$fs=0 stat_rc_$fs=0"; done
for rep in $(seq_n "$RUNS"); do
	progress "repetition $rep of $RUNS"
	if want hash && [ $hash_rc = 0 ]; then
		bench_hash "$rep" || hash_rc=1
	fi
	for fs in $fss; do
		for sec in seq rand ttfb stat; do
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
	want stat && eval "tap \$stat_rc_$fs '$fs: stat of $STAT_N uncached files, plain, verity, signed'"
	if [ $ima = 1 ]; then
		ima_check "$fs"
		tap $? "$fs: IMA recorded the whole-file hash and the verity digest"
	fi
	fs_umount "$(mnt_of "$fs")"
done
if [ $dmv = 1 ]; then umount "$DMV_MNT"; fi
progress "done"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
