#!/usr/bin/env bash
# make bench: the benchmark in one VM boot, then the table, the plots and
# the verdict on its goals.
#
#  1. waits until no other QEMU runs (the machine's cores are shared: an
#     overlapping VM would skew the numbers), notes the load average;
#  2. the host side: tests/host/bench-setup.sh ('fsverity setup' single- and
#     multi-threaded against sha256sum), and the dm-verity image;
#  3. boots the kernel in vtest.mode=bench (tests/vm/bench.sh), through
#     boot.sh, which judges the run (kernel log clean, every section ok);
#  4. scripts/bench_report.py takes the medians and the ratios of the
#     guest's records and writes build/bench/results.md (printed at the
#     end), the verdicts and the plots' data, which scripts/bench-*.gp draw
#     into seq-read.png and ttfb.png;
#  5. prints one line per goal, "bench: goal met|NOT met|not measured: ...",
#     and exits non-zero when a goal is NOT met or the boot failed.
#
# Outputs in build/bench/: results.md, seq-read.png, ttfb.png, raw.log (the
# guest's result stream), host-setup.txt, boot.log, the gnuplot inputs.
# Environment: as boot.sh (VTEST_MEM, VTEST_DISK_SIZE, VTEST_TIMEOUT,
# VTEST_ACCEL; VTEST_FILTER picks the guest's sections: hash seq rand ttfb
# enable), BENCH_HOST=0 skips the host side, BENCH_DMVERITY=0 the dm-verity
# image, BENCH_DMV_OPTS adds optional arguments to its table (with their
# count, e.g. '1 try_verify_in_tasklet', which verifies in softirq context
# when the hash blocks are cached), BENCH_WAIT (seconds to wait for another
# QEMU to finish, default 1800).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/bench
mkdir -p "$OUT"
rm -f "$OUT"/*.png "$OUT"/*.dat "$OUT"/results.md
command -v gnuplot >/dev/null || die "gnuplot is missing: run 'make deps' (gnuplot-nox)"
command -v python3 >/dev/null || die "python3 is missing: run 'make deps'"

start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
info "bench: load average at start $load_start, $(nproc) host CPUs"

# Wait while another VM runs.
other_qemu() { pgrep -f 'qemu-system-(x86_64|i386)' >/dev/null; }
waited=0
while other_qemu; do
	[ $waited = 0 ] && info "bench: another QEMU is running ($(pgrep -f 'qemu-system-(x86_64|i386)' | tr '\n' ' ')); waiting for it to finish"
	[ $waited -ge "${BENCH_WAIT:-1800}" ] && die "another QEMU still runs after ${BENCH_WAIT:-1800} s; try again later"
	sleep 10
	waited=$((waited + 10))
done
[ $waited -gt 0 ] && info "bench: waited $waited s for the other QEMU"

# Sample, every 5 s, the load and whether more than our own QEMU runs.
monitor=$OUT/monitor.log
: >"$monitor"
(
	while :; do
		# the QEMU processes themselves (comm is cut at 15 characters)
		echo "$(date +%s) $(pgrep -c -x qemu-system-x86 || true) $(cut -d' ' -f1 /proc/loadavg)"
		sleep 5
	done
) >>"$monitor" 2>/dev/null &
mon=$!
trap 'kill $mon 2>/dev/null || true' EXIT

host_start=$(date +%s)
if [ "${BENCH_HOST:-1}" != 0 ]; then
	info "bench: host side, tests/host/bench-setup.sh"
	fsv=()
	[ -x "$BUILD/tools/fsverity" ] && fsv=(env "FSVERITY=$BUILD/tools/fsverity")
	if ! "${fsv[@]}" "$ROOT/tests/host/bench-setup.sh" 2>&1 | tee "$OUT/host-setup.txt"; then
		echo "bench-setup.sh failed" >>"$OUT/host-setup.txt"
	fi
else
	echo "skipped (BENCH_HOST=0)" >"$OUT/host-setup.txt"
fi
host_end=$(date +%s)

# dm-verity, for the comparison: an ext4 image holding plain-N files of the
# guest's sizes, its SHA-256 hash tree made by veritysetup on separate
# image (no superblock: the tree starts at block 0), both attached
# read-only as vdc and vdd; the guest kernel creates /dev/dm-0 at boot from
# dm-mod.create= (CONFIG_DM_INIT), so the guest needs no device-mapper tool.
# BENCH_DMVERITY=0 leaves it out.
dmv_dir=$OUT/dm-verity
rm -rf "$dmv_dir"
if [ "${BENCH_DMVERITY:-1}" != 0 ]; then
	command -v veritysetup >/dev/null || die "veritysetup is missing: run 'make deps' (cryptsetup-bin)"
	gen=$BUILD/vm-helpers/gen
	[ -x "$gen" ] || die "no $gen: run 'make initramfs'"
	mkdir -p "$dmv_dir/files"
	for n in 16 64 256; do	# tests/vm/bench.sh: SIZES and SEQ_MIB
		"$gen" $((n * 1048576)) $((500 + n)) >"$dmv_dir/files/plain-$n"
	done
	truncate -s 400M "$dmv_dir/data.img"
	mkfs.ext4 -q -F -b 4096 -O ^has_journal -d "$dmv_dir/files" "$dmv_dir/data.img" ||
		die "mkfs.ext4 -d of the dm-verity image failed"
	rm -rf "$dmv_dir/files"
	veritysetup format --no-superblock --hash=sha256 --data-block-size=4096 \
		--hash-block-size=4096 "$dmv_dir/data.img" "$dmv_dir/hash.img" >"$dmv_dir/format.txt" ||
		die "veritysetup format failed: see ${dmv_dir#"$ROOT"/}/format.txt"
	root_hash=$(sed -n 's/^Root hash:[[:space:]]*//p' "$dmv_dir/format.txt")
	salt=$(sed -n 's/^Salt:[[:space:]]*//p' "$dmv_dir/format.txt")
	[ -n "$root_hash" ] && [ -n "$salt" ] || die "no root hash or salt in ${dmv_dir#"$ROOT"/}/format.txt"
	blocks=$(($(stat -c %s "$dmv_dir/data.img") / 4096))
	table="0 $((blocks * 8)) verity 1 /dev/vdc /dev/vdd 4096 4096 $blocks 0 sha256 $root_hash $salt${BENCH_DMV_OPTS:+ $BENCH_DMV_OPTS}"
	info "bench: dm-verity image of $blocks blocks, root hash ${root_hash:0:16}..."
	export VTEST_EXTRA_DISKS="$dmv_dir/data.img $dmv_dir/hash.img"
	export VTEST_CMDLINE="${VTEST_CMDLINE:+$VTEST_CMDLINE }dm-mod.create=\"dmv,,,ro,$table\""
fi

# The bench boot: 3 GiB scratch disks (the files take about 1.5 GiB per
# filesystem), a limit well under the 20 minutes with margin for slow hosts.
export VTEST_DISK_SIZE=${VTEST_DISK_SIZE:-3G}
export VTEST_TIMEOUT=${VTEST_TIMEOUT:-1500}
vm_start=$(date +%s)
boot_status=0
"$ROOT/scripts/boot.sh" bench 2>&1 | tee "$OUT/boot.log" || boot_status=$?
vm_end=$(date +%s)
tr -d '\r' <"$LOGS/results-bench.log" >"$OUT/raw.log"
kill $mon 2>/dev/null || true
wait $mon 2>/dev/null || true
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# The goals: verified sequential SHA-256 reads at least as fast as
# dm-verity's in the same run, SHA-512 ones at this fraction of
# min(plain read, one-stream kernel hash); fs-verity's time to first byte
# within these factors of the plain file's, at every size; random 4 KiB
# reads within these factors of the plain file's, cold and warm; stat of
# uncached verity files within this factor of plain ones.
GOAL_SEQ_VS_DMVERITY=1
GOAL_SHA512_FRACTION=0.9
GOAL_TTFB_EXT4=1.8
GOAL_TTFB_F2FS=1.5
GOAL_RAND_COLD=1.8
GOAL_RAND_WARM=1.4
GOAL_STAT=1.3

seq_mib=$(sed -n 's/^B info .* seq_mib=\([0-9]*\).*/\1/p' "$OUT/raw.log" | head -n 1)
accel=$(sed -n 's/.*booting .* kernel (\([a-z]*\), .*), mode bench.*/\1/p' "$OUT/boot.log" | head -n 1)
export OUT accel load_start load_end start host_start host_end vm_start vm_end boot_status \
	VTEST_MEM VTEST_DISK_SIZE GOAL_SEQ_VS_DMVERITY GOAL_SHA512_FRACTION \
	GOAL_TTFB_EXT4 GOAL_TTFB_F2FS GOAL_RAND_COLD GOAL_RAND_WARM GOAL_STAT
python3 "$ROOT/scripts/bench_report.py"

# The plots: scripts/bench-seq-read.gp and bench-ttfb.gp, of the .dat files
# bench_report.py wrote; the sizes of ttfb.dat are the time-to-first-byte
# plot's x tics.
xtics=$(awk '!/^#/ { print $2 }' "$OUT/ttfb.dat" | sort -nu | awk '{printf "%s\"%s\" %s", (NR > 1 ? ", " : ""), $1, $1}')
plots=()
for p in seq-read ttfb; do
	case $p in
	seq-read) args=("${seq_mib:-?}") ;;
	ttfb) args=("$GOAL_TTFB_EXT4" "$GOAL_TTFB_F2FS" "$xtics") ;;
	esac
	if [ -s "$OUT/$p.dat" ] && [ "$(grep -vc '^#' "$OUT/$p.dat")" -gt 0 ] &&
		gnuplot -c "$ROOT/scripts/bench-$p.gp" "$OUT" "${args[@]}" 2>"$OUT/$p.gnuplot.log"; then
		plots+=("${OUT#"$ROOT"/}/$p.png")
	else
		info "bench: no $p plot (no data, or gnuplot failed: ${OUT#"$ROOT"/}/$p.gnuplot.log)"
	fi
done

echo
cat "$OUT/results.md"
echo
info "bench: ${OUT#"$ROOT"/}/results.md${plots[*]:+, ${plots[*]}}; $(($(date +%s) - start)) s; load average at end $load_end"

# The verdicts last, one line each: a goal NOT met fails make bench, as
# does a failed boot (a section that failed, a kernel log not clean).
missed=0
while IFS=$'\t' read -r verdict what; do
	echo "bench: goal $verdict: $what"
	[ "$verdict" != "NOT met" ] || missed=$((missed + 1))
done <"$OUT/goals.txt"
[ "$boot_status" -eq 0 ] || { echo "bench: FAILED: the bench boot failed (status $boot_status, see ${OUT#"$ROOT"/}/boot.log)"; exit "$boot_status"; }
[ "$missed" -eq 0 ] || { echo "bench: FAILED: $missed goal(s) NOT met"; exit 1; }
