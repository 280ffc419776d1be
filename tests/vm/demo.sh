#!/bin/sh
# fs-verity walk-through, booted by `make demo`: on ext4, then on f2fs,
# make a file, set it up with `fsverity setup`, enable and measure it, show
# its size, then flip one byte of one of its blocks on the raw disk and show
# that this block now fails with EIO while the others still read.
#
# Every step prints the command ("$ ...") and what it printed.  The demo
# checks what it shows: the write after ENABLE fails and leaves the file
# as it was, the corrupted block (and only it) fails with EIO, through
# read(2) and mmap; a check that does not hold prints "demo: FAILED: ..."
# and the demo ends without its "demo finished" line, which
# scripts/check-log.sh requires.
# Env: VTEST_DISKS (the first disk is used), DEMO_FS (default "ext4 f2fs"),
# DEMO_FLIP (the XOR mask of the corrupted byte, hex, default 20; the
# harness self-test sets 00, which leaves the block intact).

VT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$VT_DIR/lib.sh"
PATH=/usr/local/bin:$PATH
M=${DEMO_MNT:-/mnt/demo}
F=$M/hello.txt
REF=/tmp/demo-original
BAD=3				# the block we corrupt
NBLOCKS=8			# the blocks of the demo file
OUT=/tmp/demo-step		# the output of the last step
failed=0

say() {
	printf '\n### %s\n' "$*"
}

# step 'COMMAND': print it, run it with eval, show its output (kept in
# $OUT) and status
step() {
	printf '$ %s\n' "$1"
	eval "$1" > "$OUT" 2>&1
	_rc=$?
	cat "$OUT"
	[ $_rc -ne 0 ] && echo "(exit status $_rc)"
	return $_rc
}

# demo_fail WHAT: a check of the demo does not hold
demo_fail() {
	echo "demo: FAILED: $FS: $*"
	failed=1
}

# The checks, on the last step: must_fail WHAT [TEXT]: it failed, printing
# TEXT; must_print WHAT TEXT: it printed TEXT (grep -F)
must_fail() {
	if [ "$_rc" -eq 0 ]; then
		demo_fail "$1 succeeded"
	elif [ -n "${2:-}" ] && ! grep -q -F -- "$2" "$OUT"; then
		demo_fail "$1 failed, but without '$2'"
	fi
}
must_print() {
	grep -q -F -- "$2" "$OUT" || demo_fail "$1: expected '$2'"
}

demo_fs() {
	FS=$1
	say "fs-verity on $FS"
	[ -n "$VT_DEV" ] || { echo "VTEST_DISKS is not set: no disk for the demo"; return 1; }
	fs_umount "$M"
	vt_disk_is_free "$VT_DEV" || return 1
	case $FS in
	ext4) step "mkfs.ext4 -q -F -O verity $VT_DEV" || return 1 ;;
	f2fs) step "mkfs.f2fs -q -f -O verity $VT_DEV > /dev/null" || return 1 ;;
	esac
	mkdir -p "$M"
	step "mount -t $FS $VT_DEV $M" || return 1

	say "A file of 8 blocks of 4 KiB, each block saying its number"
	: > "$F"
	i=0
	while [ $i -lt $NBLOCKS ]; do
		yes "this is block $i of the demo file" | head -c 4096 >> "$F"
		i=$((i + 1))
	done
	cp "$F" "$REF"
	step "ls -l $F"
	step "head -n 1 $F"
	step "sha256sum $F"

	say "Append the Merkle tree and the descriptor (userspace only)"
	step "fsverity setup $F" || return 1
	step "ls -l $F"

	say "Turn verity on: the kernel checks the metadata; the file becomes read-only"
	step "fsverity enable $F" || { echo "The kernel refused FS_IOC_ENABLE_VERITY: the demo stops here."; return 1; }
	step "stat -c 'st_size=%s' $F"
	step "fsverity measure $F"
	step "lsattr $F"
	step "sha256sum $F"
	step "echo more >> $F"
	must_fail "writing to the file after ENABLE"
	step "cmp $F $REF && echo unchanged"
	must_print "the file after the refused write" unchanged

	say "Where block $BAD of the file is on the disk (FIEMAP)"
	off=$((BAD * 4096 + 8))
	phys=$(physoff "$F" $off) || { echo "physoff failed"; return 1; }
	step "physoff $F $off"

	say "Unmount, flip one byte of block $BAD on the raw disk, mount again"
	step "umount $M" || return 1
	step "poke $VT_DEV $phys xor ${DEMO_FLIP:-20}"
	step "mount -t $FS $VT_DEV $M" || return 1

	say "Block $BAD no longer verifies: reads of it fail, nothing unverified comes back"
	step "cat $F > /dev/null"
	must_fail "reading the whole file" "Input/output error"
	step "dd if=$F of=/dev/null bs=4096 skip=$BAD count=1"
	must_fail "reading the corrupted block $BAD" "Input/output error"
	say "The other blocks still read, verified"
	step "dd if=$F bs=4096 skip=$((BAD - 1)) count=1 2>/dev/null | head -n 1"
	must_print "block $((BAD - 1))" "this is block $((BAD - 1)) of the demo file"
	step "dd if=$F bs=4096 skip=$((BAD + 1)) count=1 2>/dev/null | head -n 1"
	must_print "block $((BAD + 1))" "this is block $((BAD + 1)) of the demo file"
	step "rdtest blocks $F $REF"
	must_print "pread of each block" "blocks=$NBLOCKS ok=$((NBLOCKS - 1)) eio=1 mismatch=0 other=0 bad=$BAD "
	step "rdtest mmap $F $REF 0"
	must_print "mmap of each page" "pages=$NBLOCKS ok=$((NBLOCKS - 1)) sigbus=1 mismatch=0 bad=$BAD "
	step "fsverity measure $F"
	step "umount $M"
}

echo "fs-verity (2018 RFC design) demo, kernel $(uname -r)"
command -v fsverity > /dev/null || { echo "the fsverity utility is not on PATH"; exit 1; }
rc=0
for fs in ${DEMO_FS:-ext4 f2fs}; do
	demo_fs "$fs" || rc=1
	fs_umount "$M" 2>/dev/null
done
[ $failed -eq 0 ] || rc=1
echo
if [ $rc -eq 0 ]; then
	echo "demo finished"
elif [ $failed -ne 0 ]; then
	echo "demo failed: what it shows did not hold (the 'demo: FAILED:' lines above)"
else
	echo "demo stopped early (see above)"
fi
exit $rc
