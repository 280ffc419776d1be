#!/bin/sh
#@ fs: ext4 f2fs
# Hardening of the ext4 and f2fs glue: what the owner of a verity
# file, a tampered disk or an unusual mount can do to it.  ext4: the owner
# cannot turn a small verity file into a block-mapped one (FS_IOC_SETFLAGS
# without the extents flag, `chattr -e`); bytes after the footer in the last
# block cannot make ENABLE succeed and every later open fail; a verity
# filesystem with blocks smaller than a page mounts; ENABLE refuses a file
# that is block-mapped or has blocks past EOF, and an open a verity inode
# left block-mapped on disk; a read that sampled the file's size before
# ENABLE lowered it neither hangs nor verifies metadata as data.  f2fs: garbage
# collection before the first open never leaves unverified data cached; a
# FADVISE_TRUNC_BIT on an enabled inode never lets the first open truncate
# the tree; stat() of a verity file with bad metadata succeeds, showing
# the full size (and `ls -l` of 1000 uncached verity files is timed against
# plain files); ENABLE under checkpoint=disable is refused, also when the
# remount to it comes during ENABLE (held up by the test module); an inode
# fsynced during ENABLE and rolled forward after a shutdown keeps its full
# size.
#
# Each test starts on a fresh filesystem: several of them damage it on
# purpose.  The tests of one filesystem only are registered only on it.
. "$VT_DIR/lib.sh"

D=$VT_MNT/fh
W=$VT_WORK/fh

g_setup() {
	fresh_group "$W"
}
vt_setup g_setup

# fh_fresh [MOUNT-OPTIONS]: a new filesystem with -O verity, mounted with
# MOUNT-OPTIONS, and an empty $D
fh_fresh() {
	fs_fresh verity "${1:-}" || fail "a fresh filesystem${1:+ mounted -o $1} failed"
	mkdir -p "$D" "$W"
}

# fh_setup NAME SIZE SEED: f=$D/NAME made of `gen SIZE SEED` (also kept in
# $W/NAME.ref) and set up, written back; sets m (its measurement) and full
# (its size with the metadata)
fh_setup() {
	f=$D/$1
	gen "$2" "$3" > "$W/$1.ref"
	cp "$W/$1.ref" "$f"
	m=$(setup_measure "$f") || fail "fsverity setup failed"
	sync
	full=$(fsize "$f")
}

# mount_opts: the options $VT_MNT is mounted with (ro or rw first)
mount_opts() {
	awk -v m="$VT_MNT" '$2 == m { print $4 }' /proc/mounts
}

# still_rw: fail unless $VT_MNT is still mounted read-write
still_rw() {
	case $(mount_opts) in
	rw*) ;;
	*) fail "the filesystem is not read-write any more: $(mount_opts)" ;;
	esac
}

# ------------------------------------------------------------------ ext4

# ext4_ind_migrate() turns a verity file of one extent and at most
# 12 blocks into a block-mapped one; ext4_find_extent() then reads block
# numbers as an extent header when an open looks for the end of the
# metadata.
t_noextents() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	fh_fresh
	fh_setup small 20000 60
	p0=$(physoff "$f" 0) && pl=$(physoff "$f" $((full - 1))) ||
		fail "physoff failed"
	[ $((pl - p0)) -eq $((full - 1)) ] ||
		fail "precondition: the $full-byte file is not one contiguous extent ($p0, $pl)"
	expect "ENABLE" OK "$(vioctl enable "$f")"
	set -- $(vioctl flags "$f")
	note "flags before: $*"
	r=$(vfsops clearflags "$f" 0x80000)
	set -- $(vioctl flags "$f")
	fl_after=$2
	note "FS_IOC_SETFLAGS without EXT4_EXTENTS_FL (0x80000): $r; flags after: $*"
	# errors=remount-ro (Debian's fstab default) makes a filesystem error
	# visible as a read-only mount
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_mount "$VT_DEV" "$VT_MNT" errors=remount-ro || fail "mount failed"
	s=$(sum_of "$f" 2>/dev/null)
	m2=$(measure_of "$f")
	opts=$(mount_opts)
	note "after remount (errors=remount-ro): checksum $s, measure $m2, mount options $opts"
	dmesg | grep -i 'EXT4-fs error' | tail -n 3 | while read -r l; do note "kernel: $l"; done
	expect_one_of "FS_IOC_SETFLAGS clearing EXT4_EXTENTS_FL on a verity file" "$r" \
		EPERM EOPNOTSUPP EINVAL
	expect "extents and verity flags after the refused change" 0x180000 \
		"0x$(printf '%x' $((fl_after & 0x180000)))"
	expect "checksum after remount" "$(sum_of "$W/small.ref")" "$s"
	expect "measure after remount" "$m" "$m2"
	case $opts in rw,*|rw) ;; *) fail "the filesystem is mounted '$opts' after the read, not rw" ;; esac
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "e2fsck found problems"
}

# ENABLE validates the footer at the pre-enable i_size, opens look
# for it from the end of the last extent: a non-zero byte after the footer
# in the same block must not let ENABLE succeed and every later open fail.
t_post_eof() {
	need_helpers
	need_fsverity
	fh_fresh
	fh_setup tail 20000 61
	[ $((full % BS)) -ne 0 ] ||
		fail "precondition: the set-up file ends on a block boundary ($full bytes)"
	p=$(physoff "$f" $((full - 1))) || fail "physoff failed"
	remember tail
	fs_umount "$VT_MNT" || fail "umount failed"
	out=$(poke "$VT_DEV" $((p + 1)) set 5a) || fail "poke $VT_DEV failed: $out"
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount failed"
	expect "file unchanged by the write after EOF" "$(cat "$W/tail.state")" \
		"$(fsize "$f") $(sum_of "$f")"
	r=$(vioctl enable "$f")
	note "ENABLE with 0x5a in the byte after the footer (end of i_size, same block): $r"
	if [ "$r" = EBADMSG ]; then
		unchanged tail
		return 0
	fi
	expect "ENABLE" OK "$r"
	fs_remount || fail "remount failed"
	expect "open after remount" OK "$(vioctl open "$f" r)"
	expect "checksum after remount" "$(sum_of "$W/tail.ref")" "$(sum_of "$f")"
	expect "measure after remount" "$m" "$(measure_of "$f")"
	expect "st_size" 20000 "$(fsize "$f")"
}

SMALL_BS=1024			# an ext4 block size smaller than PAGE_SIZE
VERITY_FL_EXTENTS=0x180000	# EXT4_VERITY_FL | EXT4_EXTENTS_FL

# fs-verity needs ext4 blocks of PAGE_SIZE, but a filesystem with the
# verity feature and smaller blocks must still mount, read-only and
# read-write, with its other files usable: only ENABLE and the opening of
# a verity file are refused (EOPNOTSUPP).  The verity file is made by
# setting the flag with debugfs, as another kernel would have left it.
t_small_blocks() {
	need_helpers
	need_fsverity
	need_cmd debugfs
	fs_umount "$VT_MNT" || fail "umount failed"
	mkfs.ext4 -q -F -b "$SMALL_BS" -O verity "$VT_DEV" ||
		fail "mkfs.ext4 -b $SMALL_BS -O verity failed"
	fs_mount "$VT_DEV" "$VT_MNT" ro ||
		fail "a verity filesystem with $SMALL_BS-byte blocks does not mount read-only"
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_mount "$VT_DEV" "$VT_MNT" ||
		fail "a verity filesystem with $SMALL_BS-byte blocks does not mount read-write"
	mkdir -p "$D" "$W"
	gen 50000 71 > "$W/plain.ref"
	cp "$W/plain.ref" "$D/plain" && sync || fail "writing a plain file failed"
	fh_setup small 30000 72
	remember small
	r=$(vioctl enable "$f")
	note "ENABLE with $SMALL_BS-byte ext4 blocks: $r"
	expect "ENABLE with $SMALL_BS-byte blocks" EOPNOTSUPP "$r"
	unchanged small
	fs_umount "$VT_MNT" || fail "umount failed"
	out=$(debugfs -w -R "set_inode_field /fh/small flags $VERITY_FL_EXTENTS" "$VT_DEV" 2>&1) ||
		fail "debugfs set_inode_field failed: $out"
	fs_mount "$VT_DEV" "$VT_MNT" || fail "remount after debugfs failed"
	expect "open of a verity file with $SMALL_BS-byte blocks" EOPNOTSUPP "$(vioctl open "$f" r)"
	expect "open for writing of that file" EPERM "$(vioctl open "$f" w)"
	stat "$f" > /dev/null || fail "stat of that file failed"
	expect "the plain file reads back" "$(sum_of "$W/plain.ref")" "$(sum_of "$D/plain")"
	still_rw
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "e2fsck found problems"
}

# ext4_set_verity() refuses what the end of the last extent cannot describe:
# a file that is not extent-mapped (migrated to a block map with `chattr
# -e` before ENABLE: EOPNOTSUPP), or one with blocks allocated past EOF
# (fallocate KEEP_SIZE: the metadata would seem to end there; EINVAL);
# either way the file stays as it was.
t_set_verity_refused() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	fh_fresh
	fh_setup "$1" 20000 64
	case $1 in
	blockmap)
		expect "FS_IOC_SETFLAGS without EXT4_EXTENTS_FL (migration to a block map)" OK \
			"$(vfsops clearflags "$f" 0x80000)"
		set -- "$1" EOPNOTSUPP 0x80000 ;;
	prealloc)
		expect "fallocate KEEP_SIZE of 64 KiB past EOF" OK "$(vfsops prealloc "$f" 65536)"
		set -- "$1" EINVAL "" ;;
	esac
	remember "$1"
	expect "ENABLE" "$2" "$(vioctl enable "$f")"
	unchanged "$1"
	if [ -n "$3" ]; then
		fl=$(vioctl flags "$f" | cut -d' ' -f2)
		expect "the extents flag after the refused ENABLE" 0x0 "0x$(printf '%x' $((fl & $3)))"
	fi
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "e2fsck found problems"
}

# A verity inode that another kernel or a tampered disk left without the
# extents flag (its block map empty, so that the inode itself loads): the
# open fails EUCLEAN (EFSCORRUPTED) and reads nothing; the filesystem stays
# read-write and its other files read.
t_verity_blockmap_ondisk() {
	need_helpers
	need_fsverity
	need_cmd debugfs
	fh_fresh
	fh_setup vbm 20000 65
	gen 30000 66 > "$W/other.ref"
	cp "$W/other.ref" "$D/other" || fail "writing another file failed"
	expect "ENABLE" OK "$(vioctl enable "$f")"
	fs_umount "$VT_MNT" || fail "umount failed"
	cmds="set_inode_field /fh/vbm flags 0x100000"
	i=0
	while [ $i -lt 15 ]; do
		cmds="$cmds
set_inode_field /fh/vbm block[$i] 0"
		i=$((i + 1))
	done
	out=$(echo "$cmds" | debugfs -w -f - "$VT_DEV" 2>&1) || fail "debugfs failed: $out"
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount failed"
	expect "st_size (stat opens nothing)" 20000 "$(fsize "$f")"
	expect "open of the verity inode without extents" EUCLEAN "$(vioctl open "$f" r)"
	expect "the other file reads back" "$(sum_of "$W/other.ref")" "$(sum_of "$D/other")"
	still_rw
}

# ------------------------------------------------------------------ f2fs

GC_SIZE=409000			# 100 data blocks, the last one partial
GC_K=37				# the tampered data block

# gc_tampered NAME SEED: f=$D/NAME, GC_SIZE bytes, enabled, with its data
# block GC_K changed on the device after ENABLE, in a segment that is not
# the current one; p: that block's device offset, ref: the reference copy
gc_tampered() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	fh_fresh
	fh_setup "$1" $GC_SIZE "$2"
	ref=$W/$1.ref
	# moves the current data segment past the file's: GC leaves the
	# current segments alone
	gen 4194304 63 > "$D/filler"
	sync
	t=$(raw_target "$f" $((GC_K * BS + 100))) || fail "$t"
	p=${t%:*}
	expect "ENABLE" OK "$(vioctl enable "$f")"
	rm -f "$D/filler"
	out=$(raw_corrupt "$t") || fail "$out"
}

# gc_segment: garbage-collect the segment holding device offset $p
# (F2FS_IOC_GARBAGE_COLLECT_RANGE, tried again on EAGAIN), noted; it must
# end OK, or ENODATA when background GC emptied the segment first
gc_segment() {
	for i in 1 2 3 4 5; do
		r=$(vfsops gc-range "$VT_MNT" "$p")
		[ "$r" = EAGAIN ] || break
	done
	note "F2FS_IOC_GARBAGE_COLLECT_RANGE of the segment holding block $GC_K (device offset $p): $r"
	expect_one_of "garbage collection of the file's segment" "$r" OK ENODATA
}

# gc_moved_reads_eio: block GC_K moved, and it reads EIO, the others right
gc_moved_reads_eio() {
	got=$(rdtest range "$f" $((GC_K * BS)) $BS "$ref")
	p2=$(physoff "$f" $((GC_K * BS + 100))) || fail "physoff after the read failed"
	[ "$p2" != "$p" ] ||
		fail "precondition: GC did not move block $GC_K (device offset still $p)"
	note "GC moved block $GC_K from device offset $p to $p2"
	expect "first read of the tampered block $GC_K after GC" "bytes=0 end=EIO data=ok" "$got"
	expect "pread of every block" \
		"blocks=100 ok=99 eio=1 mismatch=0 other=0 bad=$GC_K eof=0" \
		"$(rdtest blocks "$f" "$ref")"
}

# GC loads the inode and reads its blocks through the page cache before the
# first open, without the verity step (the inode has no verity info yet):
# the first open must not serve such a page.
t_gc() {
	gc_tampered gc 62
	# From here until the read, nothing opens or stats $f (on f2fs, stat()
	# sets up the verity info, which would change GC's path).
	gc_segment
	gc_moved_reads_eio
	drop_caches
	expect "pread of every block after drop_caches" \
		"blocks=100 ok=99 eio=1 mismatch=0 other=0 bad=$GC_K eof=0" \
		"$(rdtest blocks "$f" "$ref")"
}

# The same GC, during the first open's setup: the test module holds the
# open up in fsverity_set_info(), after the setup dropped the page cache
# and before it publishes the info, while GC moves the tampered block.  A
# GC that read the block into the file's page cache then (the inode has no
# info yet, so nothing verifies it) would leave it there, up to date, once
# the info is published: the read must still fail EIO.
GCS_HOLD_MS=4000
t_gc_during_setup() {
	kstall_need fsverity_set_info
	gc_tampered gcs 64
	kstall_first_open "$f" $GCS_HOLD_MS "$W/gcs.open"
	op=$kstall_pid
	gc_segment
	kill -0 "$op" 2> /dev/null ||
		fail "precondition: the first open ended before GC did: $(cat "$W/gcs.open")"
	wait "$op" || true
	expect "the first open (held up $GCS_HOLD_MS ms before publishing the info)" OK "$(cat "$W/gcs.open")"
	gc_moved_reads_eio
}

# finish_preallocate_blocks() runs after fsverity_file_open() and,
# for an inode whose FADVISE_TRUNC_BIT is set, truncates to i_size, which
# is then the data size: the tree, descriptor and footer go.  No sequence
# of system calls leaves the bit set on a file at ENABLE (every write path
# that sets it clears it before returning, and every first open clears
# it), so the bit is set in the enabled inode on the raw device, as a crash
# at the wrong time or a crafted image leaves it; the inode's node block is
# found with FIEMAP_FLAG_XATTR (the inline xattr area is in it).
# The data size is a whole number of blocks: with a partial last block the
# truncation also reads that page, whose verification needs a tree page
# read under the invalidate lock the truncation holds (on the unfixed
# series the first open then deadlocks, a hung task, instead of failing).
TB_SIZE=409600

t_truncbit() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	fh_fresh
	fh_setup tb $TB_SIZE 64
	ref=$W/tb.ref
	expect "ENABLE" OK "$(vioctl enable "$f")"
	sync
	expect "i_advise after ENABLE (system.advise)" 0x40 "$(vfsops advise "$f")"
	ino=$(stat -c %i "$f")
	blk=$(vfsops inode-block "$f") || fail "vfsops inode-block failed: $blk"
	fs_umount "$VT_MNT" || fail "umount failed"
	# the node footer (nid, ino at 4072, 4076) names the inode
	expect "node footer nid and ino of the block at $blk" "$ino $ino" \
		"$(poke "$VT_DEV" $((blk + 4072)) getle 4) $(poke "$VT_DEV" $((blk + 4076)) getle 4)"
	adv=$(poke "$VT_DEV" $((blk + 2)) getle 1)
	[ $((adv & 0x40)) -ne 0 ] || fail "i_advise 0x$(printf '%x' "$adv") has no FADVISE_VERITY_BIT"
	[ $((adv & 0x80)) -eq 0 ] || fail "i_advise 0x$(printf '%x' "$adv") already has FADVISE_TRUNC_BIT"
	out=$(poke "$VT_DEV" $((blk + 2)) xor 80) || fail "poke failed: $out"
	note "i_advise of inode $ino (node block at $blk): $out"
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount failed"
	# getxattr opens nothing: the bit is there for the first open
	expect "i_advise after the raw write, before any open" 0xc0 "$(vfsops advise "$f")"
	s1=$(sum_of "$f" 2>/dev/null)
	m1=$(measure_of "$f")
	fs_remount || fail "remount failed"
	o2=$(vioctl open "$f" r)
	s2=$(sum_of "$f" 2>/dev/null)
	m2=$(measure_of "$f")
	expect "checksum at the first open after mount" "$(sum_of "$ref")" "$s1"
	expect "measure at the first open" "$m" "$m1"
	expect "open after another remount" OK "$o2"
	expect "checksum after another remount" "$(sum_of "$ref")" "$s2"
	expect "measure after another remount" "$m" "$m2"
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "fsck.f2fs found problems"
}

NMANY=1000

# mk_many DIR verity|plain: NMANY files of 5000 bytes (verity: set up once,
# copied, each enabled)
mk_many() {
	mkdir -p "$1"
	gen 5000 65 > "$W/many.t"
	[ "$2" = verity ] && { setup_measure "$W/many.t" > /dev/null || return 1; }
	i=0
	while [ $i -lt $NMANY ]; do
		cp "$W/many.t" "$1/$i" || return 1
		if [ "$2" = verity ]; then
			r=$(vioctl enable "$1/$i")
			[ "$r" = OK ] || { echo "ENABLE $1/$i: $r"; return 1; }
		fi
		i=$((i + 1))
	done
}

# ls_time DIR: microseconds `ls -l DIR` takes right after a remount
ls_time() {
	fs_remount > /dev/null || return 1
	r=$(benchio time ls -l "$1")
	case $r in *status=0) ;; *) echo "ls -l $1: $r" >&2; return 1 ;; esac
	r=${r#usec=}
	echo "${r%% *}"
}

# f2fs keeps a verity file's full size (data and metadata) in its inode;
# f2fs_getattr() sets up the verity info to report the data size, but a
# setup that fails does not fail stat() (patch 11): the file shows the
# full size of its inode, the only size known without a valid descriptor
# (which holds the data size), in stat() and ls -l, also after the failed
# open.
t_stat_corrupt() {
	need_helpers
	need_fsverity
	need_cmd benchio
	fh_fresh
	mk_many "$D/plain" plain || fail "making $NMANY plain files failed"
	mk_many "$D/verity" verity || fail "making $NMANY verity files failed"
	tp=$(ls_time "$D/plain") && tv=$(ls_time "$D/verity") || fail "timing ls -l failed"
	note "$(awk -v n=$NMANY -v p="$tp" -v v="$tv" 'BEGIN { printf "ls -l of %d uncached files (right after mount): plain %.0f ms, verity %.0f ms (%.1fx)", n, p / 1000, v / 1000, (p > 0 ? v / p : 0) }')"
	# the control: intact verity files, never opened since the mount
	# (the timed ls -l above stat()ed them right after it), show their
	# data size
	expect "the sizes ls -l shows for $NMANY intact verity files, never opened (their data size)" \
		"5000 " "$(ls -l "$D/verity" | awk 'NR > 1 { print $5 }' | sort -u | tr '\n' ' ')"
	f=$D/bad
	gen 20000 66 > "$f"
	setup_measure "$f" > /dev/null || fail "fsverity setup failed"
	set -- $(desc_offset "$f")
	full=$2
	t=$(raw_target "$f" "$1") || fail "$t"
	expect "ENABLE" OK "$(vioctl enable "$f")"
	out=$(raw_corrupt "$t") || fail "$out"
	st=$(stat -c %s "$f" 2>&1)
	rs=$?
	ls=$(ls -l "$D/bad" 2>&1)
	rl=$?
	o=$(vioctl open "$f" r)
	st2=$(stat -c %s "$f" 2>&1)
	rs2=$?
	note "descriptor magic flipped: stat: $st; ls -l: $ls; open: $o"
	expect "stat() of the verity file with a corrupt descriptor (status)" 0 "$rs"
	expect "st_size (the full size, data 20000 and metadata)" "$full" "$st"
	expect "ls -l of it (status)" 0 "$rl"
	expect "size ls -l shows" "$full" "$(echo "$ls" | awk '{ print $5 }')"
	expect_one_of "open (the corruption is still caught there)" "$o" EINVAL EBADMSG
	expect "stat() again after the failed open (status)" 0 "$rs2"
	expect "st_size again after the failed open" "$full" "$st2"
}

# f2fs_sync_fs() returns 0 without a checkpoint under
# checkpoint=disable, so ENABLE would report success without making the
# flag durable: it must be refused instead.
t_cpdisable() {
	need_helpers
	need_fsverity
	fh_fresh checkpoint=disable
	case $(mount_opts) in
	*checkpoint=disable*) ;;
	*) fail "the filesystem is not mounted with checkpoint=disable: $(mount_opts)" ;;
	esac
	f=$D/cp
	gen 20000 67 > "$f"
	setup_measure "$f" > /dev/null || fail "fsverity setup failed"
	remember cp
	r=$(vioctl enable "$f")
	note "ENABLE under checkpoint=disable: $r"
	expect "ENABLE under checkpoint=disable" EOPNOTSUPP "$r"
	unchanged cp
	mount -o remount,checkpoint=enable "$VT_MNT" || fail "remount,checkpoint=enable failed"
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "fsck.f2fs found problems"
}

# A remount to checkpoint=disable that lands after ENABLE checked for it
# and before ENABLE's checkpoint: f2fs_sync_fs() then returns 0 without a
# checkpoint.  The test module holds ENABLE up in
# f2fs_convert_inline_inode(), which ->set_verity() calls between the two,
# while the remount runs.  ENABLE must then fail EOPNOTSUPP with the file
# unchanged, or succeed durably: after a shutdown without a checkpoint and
# a mount, the file is verity.
CPR_HOLD_MS=5000
t_cpdisable_race() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	kstall_need f2fs_convert_inline_inode
	fh_fresh
	fh_setup cpr 40000 77
	remember cpr
	# shellcheck disable=SC2046 # kstall_id: DEV INO
	kstall_arm $(kstall_id "$f") $CPR_HOLD_MS || fail "cannot arm the test module"
	vioctl enable "$f" > "$W/cpr.enable" 2>&1 &
	en=$!
	kstall_held || fail "precondition: ENABLE was not held up in f2fs_convert_inline_inode()"
	mount -o remount,checkpoint=disable "$VT_MNT" || fail "remount -o checkpoint=disable failed"
	kill -0 "$en" 2> /dev/null ||
		fail "precondition: ENABLE ended before the remount did: $(cat "$W/cpr.enable")"
	wait "$en" || true
	r=$(cat "$W/cpr.enable")
	note "ENABLE with a remount to checkpoint=disable while it was held up: $r"
	case $r in
	OK)
		expect "F2FS_IOC_SHUTDOWN (NOSYNC) after ENABLE returned 0" OK \
			"$(vfsops shutdown "$VT_MNT" nosync)"
		fs_umount "$VT_MNT" || fail "umount after the shutdown failed"
		fs_mount "$VT_DEV" "$VT_MNT" || fail "mount after the shutdown failed"
		expect "verity flag after a shutdown without a checkpoint: ENABLE returned 0, so it must be durable" \
			verity "$(vioctl flags "$f")"
		expect "size" 40000 "$(fsize "$f")"
		expect "contents" "$(sum_of "$W/cpr.ref")" "$(sum_of "$f")"
		expect "measure" "$m" "$(measure_of "$f")"
		;;
	EOPNOTSUPP)
		unchanged cpr
		mount -o remount,checkpoint=enable "$VT_MNT" || fail "remount,checkpoint=enable failed"
		;;
	*) fail "ENABLE with a remount to checkpoint=disable during it: expected EOPNOTSUPP, or OK and durable; got '$r'" ;;
	esac
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "fsck.f2fs found problems"
}

# The readahead code samples i_size before it takes the invalidate_lock,
# which ENABLE holds while the filesystem lowers i_size to the data size: a
# read that begins during ENABLE adds the pages up to the old size, the
# tree among them, once ENABLE is done.  Those past the data are metadata:
# they must not be read in the bio of the data pages, whose verification
# reads them (in that bio they stay locked until it completes, and the
# verification worker would wait for them for ever).  On ext4, ENABLE reads
# the file's last block from the disk with the lock held, before i_size
# changes (ext4_verity_check_tail()): a dm-delay target over that block
# holds the read for ENABLE_DELAY_MS, and meanwhile a reader reads the file
# in a loop, the page cache emptied before each read.
#
# The reader reads the first MiB: the first readahead window of a file
# covers its whole size as sampled.  t_enable_sampled_size dense: a file of
# 6 blocks less 100 bytes.  t_enable_sampled_size hole: a file of 4 blocks
# of data and 2 of hole, whose window holds the data pages, the hole pages,
# the tree page and the descriptor's page, all locked until submitted; a
# hole page is verified as soon as it is zeroed, and its verification reads
# that tree page, which the same readahead holds locked and has not
# submitted yet.
ENABLE_DELAY_MS=3000	# each read of the file's last block
READ_LIMIT=20		# seconds the reads get after ENABLE, under the 30 s
			# after which a task blocked in the kernel panics the guest
SS_HOLE_DATA=4		# blocks of data before the hole
SS_HOLE_BLOCKS=6	# blocks of the file's data size
t_enable_sampled_size() {
	need_helpers
	need_fsverity
	need_cmd dmsetup
	fh_fresh
	case $1 in
	dense)	fh_setup ss $((6 * BS - 100)) 68 ;;
	hole)	f=$D/ss
		gen $((SS_HOLE_DATA * BS)) 69 > "$W/ss.ref"
		truncate -s $((SS_HOLE_BLOCKS * BS)) "$W/ss.ref"
		gen $((SS_HOLE_DATA * BS)) 69 > "$f"
		truncate -s $((SS_HOLE_BLOCKS * BS)) "$f"
		m=$(setup_measure "$f") || fail "fsverity setup failed"
		sync
		full=$(fsize "$f") ;;
	esac
	p=$(physoff "$f" $((full - 1))) || fail "physoff failed"
	table=$(dm_block_table "$p" delay "$VT_DEV" $((p / BS * BS / 512)) "$ENABLE_DELAY_MS")
	# A read that hangs keeps its pages locked: then nothing unmounts.
	trap '[ -e "$W/ss.hung" ] || { fs_umount "$VT_MNT"; dm_remove vt-ss; }' EXIT
	fs_umount "$VT_MNT" || fail "umount failed"
	dm_create vt-ss "$table" || fail "cannot map the delay target"
	fs_mount "$DM/vt-ss" "$VT_MNT" || fail "cannot mount $DM/vt-ss"
	rm -f "$W/ss.done" "$W/ss.reads" "$W/ss.err"
	(
		while [ ! -e "$W/ss.done" ]; do
			echo 1 > /proc/sys/vm/drop_caches
			t0=$(now_cs)
			dd if="$f" of=/dev/null bs=1M count=1 2> "$W/ss.dd" ||
				echo "dd: $(tail -n 1 "$W/ss.dd")" >> "$W/ss.err"
			echo "$t0 $(now_cs)" >> "$W/ss.reads"
		done
	) &
	reader=$!
	r=$(vioctl enable "$f")
	t_end=$(now_cs)
	touch "$W/ss.done"
	i=0
	while kill -0 "$reader" 2>/dev/null && [ $i -lt $((READ_LIMIT * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$reader" 2>/dev/null; then
		touch "$W/ss.hung"
		vt_klog "vtest: 36: a read that began during ENABLE still runs ${READ_LIMIT} s after it"
		fail "a read of the file that began during ENABLE did not end within $READ_LIMIT s (the kernel log has the blocked tasks once the guest halts)"
	fi
	wait "$reader"
	expect "ENABLE" OK "$r"
	[ ! -s "$W/ss.err" ] || fail "reads failed: $(head -n 3 "$W/ss.err")"
	# The window was used: a read began before ENABLE returned and ended
	# after it (it waited for ENABLE's lock).
	held=$(awk -v e="$t_end" '$1 < e && $2 >= e' "$W/ss.reads" | wc -l)
	note "reads: $(wc -l < "$W/ss.reads"), held behind ENABLE: $held"
	[ "$held" -ge 1 ] || { echo "ENABLE ended at $t_end; the reads (start, end, in centiseconds):"
		cat "$W/ss.reads"; fail "no read overlapped the end of ENABLE: the race was not set up"; }
	expect "checksum" "$(sum_of "$W/ss.ref")" "$(sum_of "$f")"
	expect "measure" "$m" "$(measure_of "$f")"
	fs_umount "$VT_MNT" || fail "umount failed"
	dm_remove vt-ss || fail "cannot remove the device-mapper device"
	trap - EXIT
	fs_check "$VT_DEV" || fail "e2fsck found problems"
}

# ext4 with data=journal: the data written before ENABLE and not yet
# committed (the file is set up on tmpfs and copied in, so that no fsync
# commits it: `fsverity setup` itself fsyncs) is committed by ENABLE's
# fsync but not yet written to its home blocks, and dropping a page from the
# page cache discards its journalled buffers (jbd2 takes that for a
# truncation): the home blocks would keep what they held before.  Whether
# ENABLE succeeds or fails in ->set_verity() (blocks allocated past EOF),
# every byte must read back once the cache is dropped.
JD_SIZE=409600		# 100 blocks
t_journal_data() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	fh_fresh data=journal
	case $(mount_opts) in
	*data=journal*) ;;
	*) fail "the filesystem is not mounted with data=journal: $(mount_opts)" ;;
	esac
	f=$D/jd
	gen $JD_SIZE 70 > "$W/jd.ref"
	cp "$W/jd.ref" "$W/jd.full"
	m=$(setup_measure "$W/jd.full") || fail "fsverity setup failed"
	cp "$W/jd.full" "$f"
	all_ok="blocks=100 ok=100 eio=0 mismatch=0 other=0 bad=- eof=0"
	case $1 in
	enabled)
		expect "ENABLE right after the writes" OK "$(vioctl enable "$f")"
		drop_caches
		expect "pread of every block after drop_caches" "$all_ok" "$(rdtest blocks "$f" "$W/jd.ref")"
		expect "measure" "$m" "$(measure_of "$f")"
		fs_remount || fail "remount failed"
		expect "pread of every block after a remount" "$all_ok" "$(rdtest blocks "$f" "$W/jd.ref")"
		;;
	failed)
		expect "fallocate KEEP_SIZE past EOF" OK "$(vfsops prealloc "$f" $((16 * BS)))"
		expect "ENABLE of the file with blocks past EOF" EINVAL "$(vioctl enable "$f")"
		drop_caches
		expect "contents after the failed ENABLE and drop_caches" "$(sum_of "$W/jd.full")" "$(sum_of "$f")"
		fs_remount || fail "remount failed"
		expect "contents after a remount" "$(sum_of "$W/jd.full")" "$(sum_of "$f")"
		;;
	esac
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "e2fsck found problems"
}

# f2fs garbage collection of a verity file that nothing opened or stat()ed
# since the mount reads the blocks it moves.  It must not read them into
# the file's page cache, where they would lie unverified until the first
# open, whatever that open then does: f2fs moves the blocks of a verity
# file through its meta mapping, as it does those of encrypted files (and
# only leaves in the file's page cache the pages it locks, not up to date:
# /proc/kpageflags of the pages the filemap trace events name).
t_gc_page_cache() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	fh_fresh
	fh_setup gcp $GC_SIZE 71
	gen 4194304 72 > "$D/filler"
	sync
	p=$(physoff "$f" $((GC_K * BS))) || fail "physoff failed"
	expect "ENABLE" OK "$(vioctl enable "$f")"
	# stat() sets up the verity info: the inode number is taken before the
	# remount that evicts it
	ino=$(stat -c %i "$f")
	rm -f "$D/filler"
	fs_remount || fail "remount failed"
	tr_start "$ino"
	for i in 1 2 3 4 5; do
		r=$(vfsops gc-range "$VT_MNT" "$p")
		[ "$r" = EAGAIN ] || break
	done
	ev=$(tr_stop)
	note "F2FS_IOC_GARBAGE_COLLECT_RANGE of the segment holding block $GC_K: $r"
	expect_one_of "garbage collection of the file's segment" "$r" OK ENODATA
	filled=$(echo "$ev" | awk -v n=$(((GC_SIZE + BS - 1) / BS)) '$2 < n { print $1, $2, $3 }' |
		{ while read -r op idx pfn; do
			case $op in add) [ -n "$pfn" ] && page_uptodate "$pfn" && c="$c $idx" ;; esac
		done; echo "${c:-}"; })
	note "data pages GC added to the page cache: $(echo "$ev" | awk '$1 == "add"' | wc -l)"
	[ -z "$filled" ] || fail "GC read data pages of the verity file into its page cache (up to date):$filled"
	p2=$(physoff "$f" $((GC_K * BS))) || fail "physoff after GC failed"
	[ "$p2" != "$p" ] || fail "precondition: GC did not move block $GC_K (device offset still $p)"
	expect "checksum after GC" "$(sum_of "$W/gcp.ref")" "$(sum_of "$f")"
	expect "measure after GC" "$m" "$(measure_of "$f")"
}

# f2fs roll-forward recovery: an fsync after the last checkpoint writes the
# inode's node block, which the next mount replays onto the inode it reads
# from the checkpoint (recover_inode(): i_size, i_advise and the rest).  A
# verity file keeps its full size on disk in i_verity_full_size, which the
# inode's writeback writes instead of i_size: recovery must set it from the
# node it replays too, or the inode goes back to the disk with the size of
# the checkpoint.  The node that carries the verity bit is written by an
# fsync (any fd, read-only too) between ->set_verity() setting the bit and
# its checkpoint; a shutdown without a checkpoint then leaves it to
# recovery.  ENABLE's checkpoint is held up by the truncation of another
# file, which holds the lock a checkpoint takes to block operations
# (cp_rwsem, f2fs_lock_op()) while it reads that file's direct node block
# (its blocks past the inode's own addresses) from a disk whose reads
# take RF_DELAY_MS; a remount first leaves no node block cached.  The
# checkpoint has the file at its data size (the metadata was appended
# after it): the replayed inode must come back as a verity file whose
# full size is the fsynced one.
RF_SIZE=40000		# the file's data size
RF_VICTIM=5242880	# the truncated file: 1280 blocks, one direct node block
RF_DELAY_MS=6000	# each read of the disk once the truncation starts
RF_WAIT=5		# seconds to wait for the verity bit
t_recover_enable() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	need_cmd dmsetup
	need_cmd truncate
	fh_fresh
	fs_umount "$VT_MNT" || fail "umount failed"
	sectors=$(dev_sectors "$VT_DEV")
	trap 'fs_umount "$VT_MNT"; dm_remove vt-rf' EXIT
	dm_create vt-rf "0 $sectors delay $VT_DEV 0 0 $VT_DEV 0 0" || fail "cannot map the delay target"
	fs_mount "$DM/vt-rf" "$VT_MNT" || fail "cannot mount $DM/vt-rf"
	mkdir -p "$D"
	f=$D/rf
	gen $RF_SIZE 75 > "$W/rf.ref"
	cp "$W/rf.ref" "$f"
	gen $RF_VICTIM 76 > "$D/victim"
	# a remount: no node block stays cached; the victim's inode is read
	# back (stat), its direct node block is not
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_mount "$DM/vt-rf" "$VT_MNT" || fail "cannot mount $DM/vt-rf again"
	stat "$D/victim" > /dev/null || fail "stat of the victim failed"
	# From here on, nothing may make a checkpoint before the shutdown
	m=$(setup_measure "$f") || fail "fsverity setup failed"
	full=$(fsize "$f")
	# ENABLE's own fsync writes the inode if setup's reads changed its
	# atime: the fsync here does it first
	expect "fsync before the reads are delayed" OK "$(vfsops fsync "$f")"
	dm_switch vt-rf "0 $sectors delay $VT_DEV 0 $RF_DELAY_MS $VT_DEV 0 0" --nolockfs ||
		fail "cannot delay the reads of $DM/vt-rf"
	(
		t0=$(now_cs)
		truncate -s 0 "$D/victim"
		echo "$t0 $(now_cs)" > "$W/rf.trunc"
	) &
	tr=$!
	# The fd is opened before ENABLE: an open once the file is a verity
	# file waits for ENABLE
	vfsops fsync-on-advise "$f" 0x40 $RF_WAIT > "$W/rf.fsync" 2>&1 &
	fs=$!
	sleep 0.5
	vioctl enable "$f" > "$W/rf.enable" 2>&1 &
	en=$!
	wait "$fs" || true
	expect "fsync (an fd opened before ENABLE) once FADVISE_VERITY_BIT shows" OK "$(cat "$W/rf.fsync")"
	kill -0 "$en" 2> /dev/null ||
		fail "precondition: ENABLE made its checkpoint before the shutdown (ENABLE: $(cat "$W/rf.enable"); the truncation: $(cat "$W/rf.trunc" 2> /dev/null))"
	expect "F2FS_IOC_SHUTDOWN (NOSYNC) while ENABLE waits for its checkpoint" OK "$(vfsops shutdown "$VT_MNT" nosync)"
	wait "$en" || true
	wait "$tr" || true
	note "ENABLE: $(cat "$W/rf.enable"); the truncation (start, end, in centiseconds): $(cat "$W/rf.trunc" 2> /dev/null)"
	expect "ENABLE after the shutdown" EIO "$(cat "$W/rf.enable")"
	fs_umount "$VT_MNT" || fail "umount after the shutdown failed"
	dm_remove vt-rf || fail "cannot remove the device-mapper device"
	trap - EXIT
	fs_mount "$VT_DEV" "$VT_MNT" || fail "the mount that rolls the fsync forward failed"
	expect "i_advise after recovery (the fsynced node's FADVISE_VERITY_BIT)" 0x40 "$(vfsops advise "$f")"
	expect "size after recovery" $RF_SIZE "$(fsize "$f")"
	expect "checksum after recovery" "$(sum_of "$W/rf.ref")" "$(sum_of "$f")"
	expect "measure after recovery" "$m" "$(measure_of "$f")"
	fs_remount || fail "remount failed"
	expect "size after a remount (full size $full on disk)" $RF_SIZE "$(fsize "$f")"
	expect "checksum after a remount" "$(sum_of "$W/rf.ref")" "$(sum_of "$f")"
	expect "measure after a remount" "$m" "$(measure_of "$f")"
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "fsck.f2fs found problems"
}

# ext4 on DAX: an emulated persistent memory device (VTEST_PMEM, from
# memmap= on the kernel command line) mounted dax=always, where every
# regular file is a DAX file whose reads bypass the page cache, and so
# verification: ENABLE of such a file fails EINVAL before reading any
# metadata (a DAX mapping has no ->read_folio), the file unchanged.  A file
# enabled on a mount without DAX stays out of DAX under dax=always (the
# verity flag excludes it): it reads through the page cache, verified, and
# a block changed on the device reads EIO.
DAX_BAD=5			# the block changed on the device
t_dax() {
	need_helpers
	need_fsverity
	[ -b "${VTEST_PMEM:-}" ] ||
		fail "no persistent memory device (VTEST_PMEM: /dev/pmem0, from memmap= on the kernel command line)"
	VT_DEV=$VTEST_PMEM
	trap 'fs_umount "$VT_MNT"' EXIT
	fh_fresh dax=always
	case $(mount_opts) in
	*dax=always*) ;;
	*) fail "the filesystem on $VT_DEV is not mounted with dax=always: $(mount_opts)" ;;
	esac
	fh_setup dx 40000 73
	expect "STATX_ATTR_DAX of the set-up file" dax "$(vioctl dax "$f")"
	remember dx
	expect "ENABLE of a DAX file" EINVAL "$(vioctl enable "$f")"
	unchanged dx
	VT_MNT_OPTS=dax=never
	fs_remount || fail "remount -o dax=never failed"
	expect "STATX_ATTR_DAX under dax=never" - "$(vioctl dax "$f")"
	t=$(raw_target "$f" $((DAX_BAD * BS + 7))) || fail "$t"
	expect "ENABLE under dax=never" OK "$(vioctl enable "$f")"
	VT_MNT_OPTS=dax=always
	fs_remount || fail "remount -o dax=always failed"
	expect "STATX_ATTR_DAX of the verity file under dax=always" - "$(vioctl dax "$f")"
	expect "pread of every block under dax=always" \
		"blocks=10 ok=10 eio=0 mismatch=0 other=0 bad=- eof=0" "$(rdtest blocks "$f" "$W/dx.ref")"
	expect "measure" "$m" "$(measure_of "$f")"
	out=$(raw_corrupt "$t") || fail "$out"
	expect "pread of every block after block $DAX_BAD changed on the device" \
		"blocks=10 ok=9 eio=1 mismatch=0 other=0 bad=$DAX_BAD eof=0" "$(rdtest blocks "$f" "$W/dx.ref")"
	fs_umount "$VT_MNT" || fail "umount failed"
}

if [ "$FS" = ext4 ]; then
	vt_test 36.01 "ext4: FS_IOC_SETFLAGS clearing the extents flag (chattr -e) of a small verity file is refused; it reads back after remount, fs stays rw" t_noextents
	vt_test 36.02 "ext4: a non-zero byte after the footer in its block: ENABLE fails EBADMSG, or the file opens and reads after remount" t_post_eof
	vt_test 36.03 "ext4: a verity filesystem with blocks smaller than a page mounts ro and rw; ENABLE and opening a verity file fail EOPNOTSUPP" t_small_blocks
	vt_test 36.08 "ext4: ENABLE of a file migrated to a block map (chattr -e) fails EOPNOTSUPP, unchanged; e2fsck clean" t_set_verity_refused blockmap
	vt_test 36.09 "ext4: ENABLE of a file with blocks allocated past EOF (fallocate KEEP_SIZE) fails EINVAL, unchanged; e2fsck clean" t_set_verity_refused prealloc
	vt_test 36.10 "ext4: opening a verity inode left without the extents flag on disk fails EUCLEAN; the filesystem stays rw" t_verity_blockmap_ondisk
	vt_test 36.11 "ext4: a read that began during ENABLE and sampled the full size reads the metadata pages apart from the data: no hang, right bytes" t_enable_sampled_size dense
	vt_test 36.13 "ext4 data=journal: ENABLE right after the writes, then drop_caches: every block reads back, after a remount too" t_journal_data enabled
	vt_test 36.14 "ext4 data=journal: ENABLE failing in ->set_verity() (blocks past EOF), then drop_caches: the file reads back unchanged" t_journal_data failed
	vt_test 36.16 "ext4 DAX (dax=always): ENABLE of a DAX file fails EINVAL, unchanged; a file enabled without DAX reads verified under dax=always" t_dax
	vt_test 36.12 "ext4: a read of a hole that began during ENABLE and sampled the full size verifies the hole without waiting on its own readahead's tree page" t_enable_sampled_size hole
fi
if [ "$FS" = f2fs ]; then
	vt_test 36.04 "f2fs: GC before the first open caches no unverified data: a tampered block moved by GC reads EIO" t_gc
	vt_test 36.05 "f2fs: stat() and ls -l of a verity file with a corrupt descriptor succeed and show its full size, intact ones their data size (ls -l of $NMANY uncached files timed)" t_stat_corrupt
	vt_test 36.06 "f2fs: ENABLE under checkpoint=disable fails EOPNOTSUPP, file unchanged" t_cpdisable
	vt_test 36.15 "f2fs: GC of a verity file before its first open puts none of its data pages in its page cache" t_gc_page_cache
	vt_test 36.17 "f2fs: an fsync during ENABLE, then a shutdown before its checkpoint: roll-forward recovery keeps the full size; the file reads and measures" t_recover_enable
	vt_test 36.19 "f2fs: GC during the first open's setup (held up by the test module before it publishes the info) caches no unverified data: the tampered block moved by GC reads EIO" t_gc_during_setup
	vt_test 36.18 "f2fs: a remount to checkpoint=disable between ENABLE's check for it and its checkpoint (ENABLE held up there by the test module): ENABLE fails EOPNOTSUPP, file unchanged, or succeeds durably" t_cpdisable_race
	vt_test 36.07 "f2fs: FADVISE_TRUNC_BIT on an enabled inode: the first open keeps the tree, the file reads and measures, fsck clean" t_truncbit
fi
exit 0
