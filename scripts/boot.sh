#!/usr/bin/env bash
# Boot the built kernel and initramfs in QEMU: boot.sh test|demo|bench|shell
#
# test, demo and bench run under a hard timeout with the console in
# build/logs/console-MODE.log and the result stream (the guest's ttyS1) in
# build/logs/results-MODE.log, then judge the run with check-log.sh.
# shell gives an interactive busybox shell on the terminal.
#
# Environment: VTEST_FILTER (test-name glob), VTEST_TIMEOUT (seconds),
# VTEST_MEM (MiB), VTEST_ACCEL (auto|tcg|kvm), VTEST_CMDLINE (extra words), VTEST_INJECT (fail|panic|hang,
# for the harness self-test), VTEST_DISK_SIZE (per scratch disk), BOOT_TAG
# (names the logs; default MODE, or FLAVOR-MODE), KOBJ (the kernel's build
# folder).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-test}
case $mode in test|demo|bench|shell) ;; *) die "usage: boot.sh test|demo|bench|shell" ;; esac

kernel=$OBJ/arch/x86/boot/bzImage
initrd=$BUILD/initramfs.cpio.gz
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kernel'"
[ -f "$initrd" ] || die "no initramfs at $initrd: run 'make initramfs'"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing: run 'make deps'"

# Fresh scratch disks for each run, so that runs never share them.
diskdir=$BUILD/disks/run.$$
mkdir -p "$LOGS" "$diskdir"
trap 'rm -rf "$diskdir"' EXIT
disks=()
for d in vda vdb; do
	img=$diskdir/$d.img
	rm -f "$img"
	truncate -s "${VTEST_DISK_SIZE:-2G}" "$img"
	disks+=(-drive "file=$img,format=raw,if=virtio,cache=unsafe")
done

cmdline="console=ttyS0 panic=-1 loglevel=7 printk.devkmsg=on vtest.mode=$mode"
# The command line splits at spaces: a space in the filter matches any one
# character instead.
[ -n "${VTEST_FILTER:-}" ] && cmdline+=" vtest.filter=${VTEST_FILTER// /?}"
# Under KASAN and TCG, ACPI's AML interpreter runs so slowly that its
# loops time out and PCI interrupt routing fails: boot the debug kernel
# without ACPI (the PC's MP and PIRQ tables suffice).
[ "$FLAVOR" = debug ] && cmdline+=" acpi=off"
# Extra kernel command line words, e.g. VTEST_CMDLINE=vfuzz.seed=N
[ -n "${VTEST_CMDLINE:-}" ] && cmdline+=" $VTEST_CMDLINE"
[ -n "${VTEST_INJECT:-}" ] && cmdline+=" vtest.inject=$VTEST_INJECT"

qemu_base=(qemu-system-x86_64 -M pc -smp 2 -m "${VTEST_MEM:-1024}" -nodefaults -display none
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
	qemu=("${qemu_base[@]}" -cpu max)
fi
info "booting $FLAVOR kernel ($(accel)), mode $mode"

if [ "$mode" = shell ]; then
	"${qemu[@]}" -serial mon:stdio -serial null "${disks[@]}" -append "$cmdline" || exit
	exit 0
fi

tag=$mode
[ "$FLAVOR" = test ] || tag=$FLAVOR-$mode
tag=${BOOT_TAG:-$tag}
console=$LOGS/console-$tag.log
results=$LOGS/results-$tag.log
: >"$console"
: >"$results"
limit=${VTEST_TIMEOUT:-2400}
status=0
timeout -k 5 "$limit" "${qemu[@]}" -serial "file:$console" -serial "file:$results" \
	"${disks[@]}" -append "$cmdline" </dev/null &
qpid=$!
# Show the results as they arrive.
tail -n +1 -F --pid=$qpid "$results" 2>/dev/null | tr -d '\r' &
tpid=$!
wait $qpid || status=$?
wait $tpid 2>/dev/null || true
info "guest finished (status $status) after its run; console: ${console#"$ROOT"/}"

"$(dirname "$0")/check-log.sh" "$console" "$results" "$status" "$mode"
