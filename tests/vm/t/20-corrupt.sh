#!/bin/sh
#@ fs: ext4 f2fs
# Corruption: bytes of verity files are flipped on the raw device (offsets
# found with FIEMAP, the filesystem unmounted), then the files are read by
# pread, mmap and O_DIRECT and every byte returned is compared with the
# original.  A bad data block fails alone, a bad tree block fails the blocks
# it covers, a bad descriptor or footer fails the open; nothing unverified
# is ever returned.
. "$VT_DIR/lib.sh"

CR=$VT_STATE/cr			# records (tmpfs)
D=$VT_MNT/cr			# the files
REF=$VT_WORK/cr-ref		# the original data
SIZE=1228700			# 300 data blocks, the last one partial
NBLK=300			# level 0: 3 tree blocks (128 hashes each), root: 1
K=137				# the corrupted data block

g_setup() {
	fresh_group "$CR"
}
vt_setup g_setup

# FILE OFFSET XORMASK, the byte of each corruption (offsets filled in later)
FILES='twin data tree root roothash desc footer dflags'

record_target() {	# NAME OFFSET: remember where NAME gets corrupted
	t=$(raw_target "$D/$1" "$2") || { echo "$t"; return 1; }
	echo "$1 $2 $t" >> "$CR/targets"
}

# cr_prepare: once: make the files, set them up, locate the bytes to
# corrupt, enable, unmount, corrupt on the raw device, mount again.
cr_prepare() {
	[ -e "$CR/error" ] && fail "preparation failed earlier: $(cat "$CR/error")"
	[ -e "$CR/done" ] && return 0
	need_helpers
	need_fsverity
	cr_do_prepare > "$CR/log" 2>&1
	rc=$?
	[ $rc -eq 77 ] && skip "$(cat "$CR/log")"
	if [ $rc -ne 0 ]; then
		cp "$CR/log" "$CR/error"
		fail "$(cat "$CR/log")"
	fi
	touch "$CR/done"
}

cr_do_prepare() {
	gen $SIZE 20 > "$REF" || return 1
	: > "$CR/targets"
	for n in $FILES; do
		cp "$REF" "$D/$n" || return 1
		setup_measure "$D/$n" > "$CR/meas.$n" || return 1
	done
	sync
	set -- $(desc_offset "$D/data")
	desc=$1
	full=$2
	dblk=$((desc / BS))
	set -- $(tree_levels $NBLK 32)
	[ "$*" = "2 3 1" ] || { echo "unexpected tree geometry: $*"; return 1; }
	[ $dblk -eq $((NBLK + 4)) ] || { echo "descriptor at block $dblk, expected $((NBLK + 4))"; return 1; }
	echo "$desc $full" > "$CR/layout"
	# layout: data 0-299, root block 300, level 0 blocks 301-303, descriptor
	record_target data $((K * BS + 1000)) &&
	record_target tree $(((NBLK + 2) * BS + 100)) &&
	record_target root $((NBLK * BS + 7)) &&
	record_target roothash $((desc + 64 + 8)) &&
	record_target desc $desc &&
	record_target footer $((full - 1)) &&
	record_target dflags $((desc + 16)) || return 1
	for n in $FILES; do
		r=$(vioctl enable "$D/$n")
		[ "$r" = OK ] || { echo "FS_IOC_ENABLE_VERITY $D/$n: $r"; return 1; }
	done
	raw_corrupt_listed "$CR/targets"
}

# The method itself, on a plain file: a byte written on the raw device at
# the FIEMAP offset, the filesystem unmounted, is that file's byte after
# mounting again.  Needs no fs-verity.
t_method() {
	need_helpers
	f=$D/method
	gen 65536 21 > "$f"
	sync
	off=$((5 * BS + 77))
	t=$(raw_target "$f" $off) || fail "$t"
	out=$(raw_corrupt "$t") || fail "$out"
	expect "file byte $off after the raw write and a remount" "${out##* }" "$(poke "$f" $off get 1)"
	rm -f "$f"
}

ok_blocks="blocks=$NBLK ok=$NBLK eio=0 mismatch=0 other=0 bad=- eof=0"
ok_pages="pages=$NBLK ok=$NBLK sigbus=0 mismatch=0 bad=- past=1 exposed=0"

t_twin() {
	cr_prepare
	drop_caches
	expect "pread of every block" "$ok_blocks" "$(rdtest blocks "$D/twin" "$REF")"
	expect "mmap of every page" "$ok_pages" "$(rdtest mmap "$D/twin" "$REF")"
	expect "O_DIRECT read of every block" "$ok_blocks" "$(rdtest direct "$D/twin" "$REF")"
	expect "checksum" "$(sum_of "$REF")" "$(sum_of "$D/twin")"
}

t_data_pread() {
	cr_prepare
	drop_caches
	expect "pread of every block" \
		"blocks=$NBLK ok=$((NBLK - 1)) eio=1 mismatch=0 other=0 bad=$K eof=0" \
		"$(rdtest blocks "$D/data" "$REF")"
	cat "$D/data" > /dev/null 2>&1 && fail "cat of the whole file succeeded"
	return 0
}

t_data_span() {
	cr_prepare
	drop_caches
	expect "read(3 blocks) from block $((K - 1))" "bytes=4096 end=EIO data=ok" \
		"$(rdtest range "$D/data" $(((K - 1) * BS)) $((3 * BS)) "$REF")"
	expect "read(3 blocks) from block $((K + 1))" "bytes=12288 end=done data=ok" \
		"$(rdtest range "$D/data" $(((K + 1) * BS)) $((3 * BS)) "$REF")"
	expect "read(1 byte) inside block $K" "bytes=0 end=EIO data=ok" \
		"$(rdtest range "$D/data" $((K * BS + 4095)) 1 "$REF")"
}

t_data_mmap() {
	cr_prepare
	drop_caches
	expect "mmap of every page" \
		"pages=$NBLK ok=$((NBLK - 1)) sigbus=1 mismatch=0 bad=$K past=1 exposed=0" \
		"$(rdtest mmap "$D/data" "$REF")"
}

t_data_direct() {
	cr_prepare
	drop_caches
	expect "O_DIRECT read of every block" \
		"blocks=$NBLK ok=$((NBLK - 1)) eio=1 mismatch=0 other=0 bad=$K eof=0" \
		"$(rdtest direct "$D/data" "$REF")"
}

t_tree() {
	cr_prepare
	drop_caches
	expect "pread of every block" \
		"blocks=$NBLK ok=$((NBLK - 128)) eio=128 mismatch=0 other=0 bad=128-255 eof=0" \
		"$(rdtest blocks "$D/tree" "$REF")"
	drop_caches
	expect "mmap of every page" \
		"pages=$NBLK ok=$((NBLK - 128)) sigbus=128 mismatch=0 bad=128-255 past=1 exposed=0" \
		"$(rdtest mmap "$D/tree" "$REF")"
}

t_root() {
	cr_prepare
	drop_caches
	expect "pread of every block" \
		"blocks=$NBLK ok=0 eio=$NBLK mismatch=0 other=0 bad=0-$((NBLK - 1)) eof=0" \
		"$(rdtest blocks "$D/root" "$REF")"
}

t_roothash() {
	cr_prepare
	drop_caches
	r=$(rdtest blocks "$D/roothash" "$REF")
	case $r in
	open:EINVAL|open:EBADMSG) note "open fails: ${r#open:}"; return 0 ;;
	esac
	expect "pread of every block" \
		"blocks=$NBLK ok=0 eio=$NBLK mismatch=0 other=0 bad=0-$((NBLK - 1)) eof=0" "$r"
	m=$(measure_of "$D/roothash")
	[ "$m" != "$(cat "$CR/meas.roothash")" ] ||
		fail "the measurement did not change although the root hash did"
}

t_badopen() {	# FILE-NAME
	cr_prepare
	drop_caches
	expect_one_of "open(O_RDONLY)" "$(vioctl open "$D/$1" r)" EINVAL EBADMSG
	r=$(rdtest blocks "$D/$1" "$REF")
	case $r in open:*) ;; *) fail "reading succeeded: $r" ;; esac
	cat "$D/$1" > /dev/null 2>&1 && fail "cat succeeded"
	return 0
}

vt_test 20.01 "$FS: corruption method: a raw-device write at the FIEMAP offset changes that file byte" t_method
vt_test 20.02 "$FS: corruption control: an uncorrupted twin file reads correctly by pread, mmap, O_DIRECT" t_twin
vt_test 20.03 "$FS: flipped byte in data block $K: pread fails EIO for that block only, the others read correctly" t_data_pread
vt_test 20.04 "$FS: flipped byte in data block $K: reads spanning it stop there with EIO, after it succeed" t_data_span
vt_test 20.05 "$FS: flipped byte in data block $K: mmap raises SIGBUS for that page only" t_data_mmap
vt_test 20.06 "$FS: flipped byte in data block $K: O_DIRECT reads are verified, EIO for that block only" t_data_direct
vt_test 20.07 "$FS: corrupted level-0 tree block 1: blocks 128-255 fail (pread EIO, mmap SIGBUS), others read" t_tree
vt_test 20.08 "$FS: corrupted root tree block: every data block fails EIO" t_root
vt_test 20.09 "$FS: corrupted root hash in the descriptor: no block readable, measurement changes" t_roothash
vt_test 20.10 "$FS: corrupted descriptor magic: open fails with EINVAL or EBADMSG" t_badopen desc
vt_test 20.11 "$FS: corrupted footer magic: open fails with EINVAL or EBADMSG" t_badopen footer
vt_test 20.12 "$FS: descriptor flags made non-zero: open fails with EINVAL or EBADMSG" t_badopen dflags
exit 0
