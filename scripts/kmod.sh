#!/usr/bin/env bash
# Build the test suite's own module (tests/vm/kmod/vt_stall.c: it holds up
# one call of a chosen kernel function, to open a race window on purpose)
# against the kernel in $OBJ, whose configuration must have kprobes
# (configs/debug.config), and pack it as $OBJ/vt-kmod.cpio.gz.
# scripts/boot.sh appends that archive to the initramfs of the kernel's
# boots, whose tests find the module as /lib/vt/vt_stall.ko.  The module is
# never part of the series.  scripts/kernel.sh runs this after each build
# of such a kernel (a build that changed nothing leaves the archive as it
# is); a warning fails it, as one in the series would.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$ROOT/tests/vm/kmod
work=$OBJ/vt-kmod
archive=$OBJ/vt-kmod.cpio.gz
log=$LOGS/build-kmod-$FLAVOR.log
grep -q '^CONFIG_KPROBES=y$' "$OBJ/.config" ||
	die "the kernel in ${OBJ#"$ROOT"/} has no kprobes: no test module for it"
# Built again only when the kernel or the module's sources are newer
if [ -f "$archive" ] && [ -z "$(find "$OBJ/arch/x86/boot/bzImage" "$src" -newer "$archive" -print -quit)" ]; then
	info "test module up to date: ${archive#"$ROOT"/}"
	exit 0
fi
rm -rf "$work" "$archive"
mkdir -p "$work/src" "$work/root/lib/vt" "$LOGS"
cp "$src"/*.c "$src/Kbuild" "$work/src/"
# The kernel's own modules first: a bzImage build leaves out
# Module.symvers and the module linker script, which the module needs.
# KMOD_CC: the compiler the kernel was built with (scripts/kernel.sh's).
cc=${KMOD_CC:-gcc}
if ! { make -C "$OBJ" ARCH="$KARCH" -j"$JOBS" CC="$cc" modules &&
	make -C "$OBJ" ARCH="$KARCH" CC="$cc" M="$work/src" modules; } >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "the test module did not build; full log: ${log#"$ROOT"/}"
fi
! grep -E 'warning:|WARNING:' "$log" >&2 ||
	die "the test module built with warnings (above); full log: ${log#"$ROOT"/}"
cp "$work/src/vt_stall.ko" "$work/root/lib/vt/"
(cd "$work/root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$archive.tmp"
mv "$archive.tmp" "$archive"
info "test module ready: ${archive#"$ROOT"/}"
