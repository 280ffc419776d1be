#!/usr/bin/env bash
# Boot the built kernel and initramfs in QEMU: boot.sh test|demo|bench|shell|crash1|crash2|coexist
#
# test, demo and bench run under a hard timeout with the console in
# build/logs/console-MODE.log and the result stream (the guest's ttyS1) in
# build/logs/results-MODE.log, then judge the run with check-log.sh.
# shell gives an interactive busybox shell on the terminal.
#
# On a machine with two or more cores, 'test' splits the suite over two VMs
# run side by side: one runs the ext4 groups and the "once" groups, the
# other the f2fs groups (vtest.fs=, vtest.once=); both check their own
# kernel log.  Their lines show up prefixed ("ext4| ", "f2fs| ") on stderr as
# they arrive; at the end the two result streams are merged, renumbered,
# into results-MODE.log and printed on stdout with one closing line.
# VTEST_SPLIT=0 runs the whole suite in one VM.
#
# In mode test the guests' result streams are judged on the host
# (merge_results): renumbered, their TAP plans checked, every skip checked
# against tests/expected-skips.txt (a skip it does not list for the boot's
# kind, scripts/lib.sh's boot_kind, is a failure), then printed on stdout
# with the TAP plan of the whole ("1..N") and one closing line; the lines
# as they arrive go to stderr.
#
# Environment: VTEST_FILTER (test-ID glob), VTEST_TIMEOUT (seconds),
# VTEST_GROUP_TIMEOUT (seconds, the default limit of a test group, see
# tests/vm/run), VTEST_TIMEOUT_SCALE (multiplies the limits of the groups
# and, unless VTEST_TIMEOUT is set, of the whole run), VTEST_HUNG_TASK_SECS (the guest's hung-task timeout),
# VTEST_MEM (MiB; default 1024, 1536 for FLAVOR=i386), VTEST_ACCEL (auto|tcg|kvm), VTEST_CMDLINE (extra words), VTEST_INJECT (fail|panic|hang|...,
# for the harness self-test: initramfs/init), VTEST_DISK_SIZE (per scratch disk), BOOT_TAG
# (names the logs; default MODE, or FLAVOR-MODE), KOBJ (the kernel's build
# folder), VTEST_SPLIT (auto|0|1), VTEST_DISKDIR (keep the scratch disks in
# this folder, reusing the ones there: scripts/crash.sh boots twice on the
# same disks), VTEST_KILL_ON (a result line: when the guest prints it, QEMU
# is killed with SIGKILL, like a power cut, and the run goes on to be judged
# as if the guest had ended), VTEST_EXTRA_DISKS (image files attached
# read-only after the scratch disks, as vdc, vdd...: make bench's dm-verity
# image), VTEST_KERNEL (boot this bzImage instead of KOBJ's: make coexist
# boots the pristine kernel and the series' built without its ext4/f2fs glue).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-test}
case $mode in test|demo|bench|shell|crash1|crash2|coexist) ;; *) die "usage: boot.sh test|demo|bench|shell|crash1|crash2|coexist" ;; esac

kernel=${VTEST_KERNEL:-$OBJ/arch/x86/boot/bzImage}
initrd=$INITRAMFS
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kernel'"
[ -f "$initrd" ] || die "no initramfs at $initrd: run 'make initramfs'"
command -v "$QEMU" >/dev/null || die "$QEMU is missing: run 'make deps'"
# The suite's test module of a kernel built with kprobes (scripts/kmod.sh)
# comes in a second archive after the initramfs
kmod=$OBJ/vt-kmod.cpio.gz
if [ -z "${VTEST_KERNEL:-}" ] && [ -f "$kmod" ]; then
	initrd=$OBJ/initramfs+vt-kmod.cpio.gz
	cat "$INITRAMFS" "$kmod" >"$initrd.tmp.$$"
	mv "$initrd.tmp.$$" "$initrd"
fi

# A task blocked (D state) for longer than this many seconds is a hung task;
# the guest panics on it, and on a soft lockup (where the config has the
# detector), instead of waiting for the time limit of the whole run.
hung_task_secs=${VTEST_HUNG_TASK_SECS:-30}
cmdline="console=ttyS0 panic=-1 loglevel=7 printk.devkmsg=on vtest.mode=$mode"
[ -z "$GUEST_CMDLINE" ] || cmdline+=" $GUEST_CMDLINE"
cmdline+=" hung_task_panic=1 softlockup_panic=1 sysctl.kernel.hung_task_timeout_secs=$hung_task_secs"
# The default time limit of a test group (tests/vm/run's watchdog).
[ -n "${VTEST_GROUP_TIMEOUT:-}" ] && cmdline+=" vtest.group_timeout=$VTEST_GROUP_TIMEOUT"
scale=${VTEST_TIMEOUT_SCALE:-1}
[[ $scale =~ ^[1-9][0-9]*$ ]] || die "VTEST_TIMEOUT_SCALE must be a positive integer, not '$scale'"
[ "$scale" = 1 ] || cmdline+=" vtest.timeout_scale=$scale"
# The command line splits at spaces: a space in the filter matches any one
# character instead.
[ -n "${VTEST_FILTER:-}" ] && cmdline+=" vtest.filter=${VTEST_FILTER// /?}"
# VTEST_GROUPS="10 20" (or 10,20): only those groups, and the "end" ones
# (/init reads the list with commas for spaces)
[ -z "${VTEST_GROUPS:-}" ] || cmdline+=" vtest.groups=${VTEST_GROUPS// /,}"
# Extra kernel command line words, e.g. VTEST_CMDLINE=vfuzz.seed=N
[ -n "${VTEST_CMDLINE:-}" ] && cmdline+=" $VTEST_CMDLINE"
[ -n "${VTEST_INJECT:-}" ] && cmdline+=" vtest.inject=$VTEST_INJECT"
# --- make coverage (scripts/coverage.sh): VTEST_GCOV_DIR=DIR gives each
# guest a writable disk DIR/NAME.img (serial vtest-gcov, not a scratch
# disk) onto which its /init writes a tar of the gcov counters at the end.
[ -n "${VTEST_GCOV_DIR:-}" ] && cmdline+=" vtest.gcov=1"
# --- end of make coverage

split=${VTEST_SPLIT:-auto}
if [ "$split" = auto ]; then
	split=0
	[ "$mode" = test ] && [ -z "${VTEST_INJECT:-}" ] && [ "$(nproc)" -ge 2 ] && split=1
fi
[ "$mode" = test ] || split=0
# Guest CPUs: two, except for the two VMs side by side, which get one each.
# Under TCG every guest CPU is a host thread: two guests of two CPUs on two
# host cores ran the suite in 180 s, two guests of one CPU in 126 s.
# (make check adds a two-CPU boot of the concurrency group, 70-stress.)
if [ -n "${VTEST_SMP:-}" ]; then
	smp=$VTEST_SMP
elif [ "$split" = 1 ]; then
	smp=1
else
	smp=2
fi
# Persistent memory for the DAX tests: /dev/pmem0, PMEM_MIB of the guest's
# RAM from PMEM_START_MIB on (memmap=SIZE!START, 64-bit kernels: see
# configs/test.config), in guests with RAM to spare.
mem=${VTEST_MEM:-$GUEST_MEM}
if [ "$KARCH" = x86_64 ] && [ "$mem" -ge "$PMEM_MIN_GUEST_MIB" ]; then
	cmdline+=" memmap=${PMEM_MIB}M!${PMEM_START_MIB}M"
fi
qemu_base=("$QEMU" -M pc -smp "$smp" -m "$mem" -nodefaults -display none
	-no-reboot -kernel "$kernel" -initrd "$initrd")

# KVM is used only when a short boot of this very kernel under KVM reaches
# /init; on machines where KVM is present but broken, the guest hangs and we
# fall back to TCG.  The verdict is cached per kernel image.
accel() {
	case ${VTEST_ACCEL:-auto} in
	tcg) echo tcg; return ;;
	kvm) echo kvm; return ;;
	esac
	[ -w /dev/kvm ] || { echo tcg; return; }
	local cache sum
	sum=$(sha256sum "$kernel" | cut -c1-16)
	cache=$BUILD/kvm-probe.$sum
	if [ ! -f "$cache" ]; then
		if timeout -k 2 15 "${qemu_base[@]}" -enable-kvm -cpu host -serial stdio \
			-append "console=ttyS0 panic=-1 vtest.mode=probe" 2>/dev/null </dev/null |
			grep -q 'vtest: probe ok'; then
			echo kvm >"$cache"
		else
			echo tcg >"$cache"
		fi
	fi
	cat "$cache"
}
if [ "$(accel)" = kvm ]; then
	qemu=("${qemu_base[@]}" -enable-kvm -cpu host)
else
	qemu=("${qemu_base[@]}" -cpu "$QEMU_TCG_CPU")
fi
info "booting $FLAVOR kernel ($(accel), $smp CPU(s)), mode $mode"

# new_disks DIR: fresh sparse scratch disks vda and vdb in DIR, so that runs
# never share them (with VTEST_DISKDIR, the disks there, made only if
# missing); sets the array disks to their -drive options.
new_disks() {
	local img d dir=${VTEST_DISKDIR:-$1}
	mkdir -p "$dir"
	disks=()
	for d in vda vdb; do
		img=$dir/$d.img
		if [ -z "${VTEST_DISKDIR:-}" ] || [ ! -f "$img" ]; then
			rm -f "$img"
			truncate -s "${VTEST_DISK_SIZE:-2G}" "$img"
		fi
		disks+=(-drive "file=$img,format=raw,if=virtio,cache=unsafe")
	done
	for img in ${VTEST_EXTRA_DISKS:-}; do
		[ -f "$img" ] || die "VTEST_EXTRA_DISKS: no image file $img"
		disks+=(-drive "file=$img,format=raw,if=virtio,readonly=on")
	done
}
diskroot=$BUILD/disks/run.$$
mkdir -p "$LOGS"
trap 'rm -rf "$diskroot"' EXIT

if [ "$mode" = shell ]; then
	new_disks "$diskroot"
	"${qemu[@]}" -serial mon:stdio -serial null "${disks[@]}" -append "$cmdline" || exit
	exit 0
fi

tag=$mode
[ "$FLAVOR" = test ] || tag=$FLAVOR-$mode
tag=${BOOT_TAG:-$tag}
limit=${VTEST_TIMEOUT:-$((2400 * scale))}

# start_vm NAME EXTRA-CMDLINE: start one VM in the background with its own
# disks and logs console-NAME.log / results-NAME.log; sets vm_pid.
start_vm() {
	new_disks "$diskroot/$1"
	# --- make coverage: the guest's gcov disk (VTEST_GCOV_DIR, above)
	if [ -n "${VTEST_GCOV_DIR:-}" ]; then
		rm -f "$VTEST_GCOV_DIR/$1.img"
		truncate -s 64M "$VTEST_GCOV_DIR/$1.img"
		disks+=(-drive "file=$VTEST_GCOV_DIR/$1.img,format=raw,if=none,id=gcov"
			-device virtio-blk-pci,drive=gcov,serial=vtest-gcov)
	fi
	# --- end of make coverage
	: >"$LOGS/console-$1.log"
	: >"$LOGS/results-$1.log"
	timeout -k 5 "$limit" "${qemu[@]}" -serial "file:$LOGS/console-$1.log" \
		-serial "file:$LOGS/results-$1.log" "${disks[@]}" -append "$cmdline$2" </dev/null &
	vm_pid=$!
}

# merge_results LOG...: (mode test) the guests' result streams through
# tap_merge: renumbered, each stream's TAP plan checked, each skip judged
# against tests/expected-skips.txt for this kind of boot (boot_kind: a skip
# it does not list is a failure); then the TAP plan of the whole and one
# closing line.  A stream without its closing line counts as one failure.
merge_results() {
	local log
	for log in "$@"; do
		tap_merge "$log" "$(boot_kind)" ||
			tap_report FAIL "${log#"$LOGS"/}: the suite ran to its closing line"
	done
	echo "1..$tap_n"
	tap_closing
}

if [ "$split" != 1 ]; then
	start_vm "$tag" ""
	qpid=$vm_pid
	# Show the results as they arrive (the suite's on stderr: the judged
	# stream comes on stdout at the end).
	if [ "$mode" = test ]; then
		tail -n +1 -F --pid=$qpid "$LOGS/results-$tag.log" 2>/dev/null | tr -d '\r' >&2 &
	else
		tail -n +1 -F --pid=$qpid "$LOGS/results-$tag.log" 2>/dev/null | tr -d '\r' &
	fi
	tpid=$!
	killed=
	if [ -n "${VTEST_KILL_ON:-}" ]; then
		while kill -0 $qpid 2>/dev/null; do
			if tr -d '\r' <"$LOGS/results-$tag.log" | grep -qxF -- "$VTEST_KILL_ON"; then
				# timeout(1) runs QEMU as its child: kill QEMU itself.
				pkill -KILL -P $qpid -f qemu-system || kill -KILL $qpid
				killed=1
				break
			fi
			sleep 0.2
		done
	fi
	status=0
	wait $qpid || status=$?
	wait $tpid 2>/dev/null || true
	if [ -n "$killed" ]; then
		info "QEMU killed (SIGKILL) on '$VTEST_KILL_ON', the guest's filesystems still mounted"
		status=0
	fi
	info "guest finished (status $status) after its run; console: logs/console-$tag.log"
	if [ "$mode" != test ]; then
		"$(dirname "$0")/check-log.sh" "$LOGS/console-$tag.log" "$LOGS/results-$tag.log" "$status" "$mode"
		exit
	fi
	rc=0
	verdict=$("$(dirname "$0")/check-log.sh" "$LOGS/console-$tag.log" "$LOGS/results-$tag.log" "$status" "$mode") || rc=$?
	merge_results "$LOGS/results-$tag.log"
	[ -z "$verdict" ] || echo "$verdict"
	[ "$rc" -eq 0 ] && [ "$tap_fail" -eq 0 ]
	exit
fi

# Two VMs side by side: by default the first runs ext4 and the "once"
# groups, the second f2fs.  VTEST_PASSES_EXT4 and VTEST_PASSES_F2FS give
# each VM its passes instead (words FS or FS:MODE, tests/vm/run), without
# the "once" groups: scripts/modes.sh shares the mount modes out that way.
parts=(ext4 f2fs)
declare -A extra=([ext4]=" vtest.fs=ext4" [f2fs]=" vtest.fs=f2fs vtest.once=0")
if [ -n "${VTEST_PASSES_EXT4:-}${VTEST_PASSES_F2FS:-}" ]; then
	passes_ext4=${VTEST_PASSES_EXT4:-ext4}
	passes_f2fs=${VTEST_PASSES_F2FS:-f2fs}
	extra=([ext4]=" vtest.fs=${passes_ext4// /,} vtest.once=0" [f2fs]=" vtest.fs=${passes_f2fs// /,} vtest.once=0")
fi
declare -A pids
for p in "${parts[@]}"; do
	start_vm "$tag-$p" "${extra[$p]}"
	pids[$p]=$vm_pid
	tail -n +1 -F --pid="$vm_pid" "$LOGS/results-$tag-$p.log" 2>/dev/null |
		tr -d '\r' | sed -u "s/^/$p| /" >&2 &
done
ok=1
merged=$LOGS/results-$tag.log
: >"$merged"
for p in "${parts[@]}"; do
	status=0
	wait "${pids[$p]}" || status=$?
	info "$p guest finished (status $status); console: logs/console-$tag-$p.log"
	CHECKLOG_PART=$p "$(dirname "$0")/check-log.sh" "$LOGS/console-$tag-$p.log" \
		"$LOGS/results-$tag-$p.log" "$status" "$mode" || ok=0
done
wait 2>/dev/null || true

# Merge: the two streams, renumbered and judged, one plan and one closing
# line.
merge_results "$LOGS/results-$tag-ext4.log" "$LOGS/results-$tag-f2fs.log" >"$merged"
summary=$(closing_line "$merged")
cat "$merged"
if ! grep -qE '^(not )?ok [0-9]+ ' "$merged"; then
	echo "FAIL: no test ran (does VTEST_FILTER match any test ID?)" >&2
	ok=0
fi
[ "$ok" = 1 ] && [ "$tap_fail" -eq 0 ] || exit 1
echo "PASS: $summary over two VMs (ext4, f2fs); kernel logs clean"
