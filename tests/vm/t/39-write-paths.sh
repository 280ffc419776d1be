#!/bin/sh
#@ fs: ext4 f2fs
# The write paths of ext4 and f2fs that the series changes without adding
# to them: 6.1's own fs-verity wrote the Merkle tree past EOF through the
# page cache and kept a failed write's blocks past EOF while it did; the
# series takes that writer out (userspace appends the metadata), so these
# paths truncate a failed write's blocks again.  A write that fails in
# ->write_begin (ENOSPC) or copies less than asked in ->write_end (the
# source buffer runs into an unmapped page) must leave the file its size,
# its bytes, no block past EOF (ext4's ENABLE would refuse such a file:
# 36.09), and a clean filesystem.  ext4 runs each test under nodelalloc
# (ext4_write_begin/ext4_write_end) and data=journal (the journalled ones,
# and ext4_writepage at writeback); f2fs under its default options.
. "$VT_DIR/lib.sh"

D=$VT_MNT/wp
W=$VT_WORK/wp
SZ=5000				# the file before the write: 1 block and a part
OFF=8192			# the write: a fresh page, past a hole
LEN=4096
GOOD=100			# the bytes of the source buffer that are mapped
SMALL_MIB=64			# the filesystem that fills up

g_setup() {
	fresh_group "$W"
}
vt_setup g_setup

# wp_fresh OPTIONS [MIB]: a new filesystem on $VT_DEV (MIB MiB of it, or the
# whole), mounted with OPTIONS, and an empty $D
wp_fresh() {
	fs_fresh verity "$1" "${2:-}" || fail "a fresh filesystem${2:+ of $2 MiB}${1:+ mounted -o $1} failed"
	mkdir -p "$D"
}

# expected_file NAME: $W/NAME.exp, what $D/NAME must hold: SZ bytes of
# data, zeros up to OFF, then the mapped bytes of the short write (0x5a)
expected_file() {
	{
		cat "$W/data"
		head -c $((OFF - SZ)) /dev/zero
		head -c $GOOD /dev/zero | tr '\0' 'Z'
	} > "$W/$1.exp"
}

# settled NAME WANTSIZE: $D/NAME has WANTSIZE bytes and those of its
# reference ($W/NAME.exp) after a remount; `fsverity setup` and ENABLE then
# succeed (ext4 refuses blocks past EOF) and it measures as set up; fsck of
# the unmounted filesystem is clean
settled() {
	f=$D/$1
	fs_remount || fail "remount failed"
	expect "size of $1" "$2" "$(fsize "$f")"
	expect "contents of $1" "$(sum_of "$W/$1.exp")" "$(sum_of "$f")"
	m=$(setup_measure "$f") || fail "fsverity setup of $1 failed"
	expect "ENABLE of $1 after the failed write" OK "$(vioctl enable "$f")"
	expect "measurement of $1" "$m" "$(vioctl measure "$f")"
	expect "contents of $1 read verified" "$(sum_of "$W/$1.exp")" "$(sum_of "$f")"
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "fsck found problems"
}

# t_short_copy OPTIONS: a write of a whole fresh page past EOF whose source
# has only GOOD bytes mapped: write_end gets a short copy of a page that is
# not uptodate, takes none of it and drops the block it allocated; the
# write then goes on with what it can copy, and returns GOOD
t_short_copy() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	wp_fresh "$1"
	gen $SZ 39 > "$W/data"
	cp "$W/data" "$D/short" && sync || fail "writing the file failed"
	expected_file short
	expect "pwrite of $LEN bytes at $OFF, $GOOD of them mapped" "wrote=$GOOD" \
		"$(vfsops shortwrite "$D/short" $OFF $LEN $GOOD)"
	sync
	settled short $((OFF + GOOD))
}

# t_enospc OPTIONS: on a full filesystem a write past EOF fails ENOSPC in
# write_begin, and whatever it allocated goes
t_enospc() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	wp_fresh "$1" $SMALL_MIB
	gen $SZ 39 > "$W/data"
	cp "$W/data" "$D/full" && sync || fail "writing the file failed"
	cp "$W/data" "$W/full.exp"
	dd if=/dev/zero of="$D/filler" bs=65536 2> /dev/null
	sync
	# what delayed or reserved allocation still held back is now taken
	dd if=/dev/zero of="$D/filler2" bs=4096 2> /dev/null
	sync
	r=$(vfsops shortwrite "$D/full" $OFF $LEN $((LEN - 1)))
	note "the filesystem full (df: $(df -k "$VT_MNT" | awk 'NR == 2 { print $3 " used, " $4 " free" }') KiB), a write at $OFF: $r"
	expect "pwrite of $LEN bytes at $OFF on the full filesystem" ENOSPC "$r"
	rm -f "$D/filler" "$D/filler2"
	settled full $SZ
}

case $FS in
ext4)	vt_test 39.01 "ext4 (nodelalloc): a write past EOF copying $GOOD of $LEN bytes writes $GOOD, keeps no block past EOF; ENABLE works, e2fsck clean" t_short_copy nodelalloc
	vt_test 39.02 "ext4 (data=journal): a write past EOF copying $GOOD of $LEN bytes writes $GOOD, keeps no block past EOF; ENABLE works, e2fsck clean" t_short_copy data=journal
	vt_test 39.03 "ext4 (nodelalloc): a write past EOF on a full filesystem fails ENOSPC, file unchanged, no block past EOF; ENABLE works, e2fsck clean" t_enospc nodelalloc
	vt_test 39.04 "ext4 (data=journal): a write past EOF on a full filesystem fails ENOSPC, file unchanged, no block past EOF; ENABLE works, e2fsck clean" t_enospc data=journal ;;
f2fs)	vt_test 39.01 "f2fs: a write past EOF copying $GOOD of $LEN bytes writes $GOOD, keeps no block past EOF; ENABLE works, fsck clean" t_short_copy ""
	vt_test 39.03 "f2fs: a write past EOF on a full filesystem fails ENOSPC, file unchanged, no block past EOF; ENABLE works, fsck clean" t_enospc "" ;;
esac
exit 0
