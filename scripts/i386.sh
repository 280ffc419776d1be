#!/usr/bin/env bash
# 'make i386': the suite on a 32-bit x86 kernel with highmem:
# 32-bit size_t and unsigned long offsets, and page-cache pages in
# ZONE_HIGHMEM that the series must kmap, are where length checks break.
#
# FLAVOR=i386 (scripts/lib.sh) builds the test config with ARCH=i386 and
# configs/i386.config (HIGHMEM4G) from the same patched tree in
# build/obj-i386, makes build/initramfs-i386.cpio.gz from Debian's i386
# programs and the helpers built with gcc -m32 (scripts/initramfs.sh), and
# boots it with qemu-system-i386 in guests of 1536 MiB, the usual two side
# by side (ext4, f2fs), running the groups of I386_GROUPS (default: 10
# roundtrip, 15 large, 20 corrupt, 30 errors, 35 hardening, 50 signatures,
# 60 fuzz with VFUZZ_CASES cases, default 1500).  One more test checks that
# the guests had highmem: the HighTotal of the suite's "# machine:" line.
# Output: the suite's lines, that test, and the closing line of both.
set -euo pipefail
export FLAVOR=i386
. "$(dirname "$0")/lib.sh"

groups=${I386_GROUPS:-10,15,20,30,35,50,60}
"$ROOT/scripts/kernel.sh"
"$ROOT/scripts/initramfs.sh"

out=$LOGS/results-i386.out
rc=0
VTEST_CMDLINE="vtest.groups=$groups vfuzz.cases=${VFUZZ_CASES:-1500}${VTEST_CMDLINE:+ $VTEST_CMDLINE}" \
	"$ROOT/scripts/boot.sh" test | tee "$out" || rc=$?
closing=$(closing_line "$out")
# No closing line: the run is broken, and says so already.
[ -n "$closing" ] || exit 1
read -r np nf nk < <(closing_counts "$closing")

# The guests' memory, from the "# machine: MACHINE; MemTotal: N kB
# HighTotal: N kB" line of each.
machines=$(tr -d '\r' <"$out" | grep '^# machine: ' || true)
tap_pass=$np tap_fail=$nf tap_skip=$nk tap_n=$((np + nf + nk))
if [ -n "$machines" ] && ! grep -qv 'HighTotal: [1-9][0-9]* kB' <<<"$machines"; then
	tap_report OK "i386: the guests have highmem ($(sed -n '1s/^# machine: //p' <<<"$machines"))"
else
	echo "${machines:-no '# machine:' line in the results}" >"$out.machines"
	tap_report FAIL "i386: the guests have highmem" "$out.machines"
fi
# The TAP plan again, with that test (boot.sh's came before it).
echo "1..$tap_n"
tap_closing
[ "$rc" -eq 0 ] && [ "$tap_fail" -eq 0 ]
