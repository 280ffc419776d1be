#!/bin/sh
#@ fs: ext4 f2fs
# Hardening of the fs/verity core against what an attacker or a failing disk
# can do: another process's private copy-on-write pages survive ENABLE, its
# other pages are read again, verified; a failed first open leaves no
# unverified data page cached; a failure inside ENABLE after the filesystem
# was asked to set its flag (injected I/O errors) never leaves pages read
# before ENABLE to be served unverified; racing first opens never read the
# metadata past the data size; require_signatures also
# refuses inodes already in the cache; a random read brings in one tree page
# per level and no metadata page; an extension length near 2^32 is refused;
# read errors at the first open and during reads, of a tree page in the
# verification worker, and of a descriptor page other than the footer's,
# give EIO, never wrong bytes; an ENABLE that fails leaves the file as it
# was, other processes' private pages included, and an open or stat() that
# waited for it sets up nothing.
#
# Page-cache contents are observed through the filemap trace events
# (mm_filemap_add_to_page_cache / mm_filemap_delete_from_page_cache), I/O
# errors injected with fail_make_request (CONFIG_FAIL_MAKE_REQUEST).
. "$VT_DIR/lib.sh"

D=$VT_MNT/hd
W=$VT_WORK/hd
FAILMR=/sys/kernel/debug/fail_make_request

g_setup() {
	fresh_group "$W"
}
vt_setup g_setup

# ------------------------------------------------------------- raw device

# raw_set DEVOFF HEX: after unmounting, write HEX at byte DEVOFF of the
# raw device (physoff gives it, before ENABLE), then mount again
raw_set() {
	fs_umount "$VT_MNT" || fail "umount failed"
	poke "$VT_DEV" "$1" set "$2" > /dev/null || fail "poke $VT_DEV $1 set $2 failed"
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount failed"
}

# mk_setup NAME SIZE SEED: a file set up with `fsverity setup`, not enabled
mk_setup() {
	need_helpers
	need_fsverity
	gen "$2" "$3" > "$D/$1" || fail "cannot write $D/$1"
	gen "$2" "$3" > "$W/$1.ref"
	setup_measure "$D/$1" > "$W/$1.meas" || fail "fsverity setup $D/$1 failed"
	fsize "$D/$1" > "$W/$1.full"
}

# mk_verity NAME SIZE SEED: the same, enabled
mk_verity() {
	mk_setup "$@"
	expect "FS_IOC_ENABLE_VERITY $1" OK "$(vioctl enable "$D/$1")"
}

hex8_at() {	# FILE OFF: the 8 bytes at OFF, in hex
	dd if="$1" bs=1 skip="$2" count=8 2>/dev/null | od -An -tx1 | tr -d ' \n'
}

# -------------------------------------------------------------------- tests

# ENABLE must drop the page cache (the pages were read unverified) but not
# the private copy-on-write copies of another process's MAP_PRIVATE mapping:
# they are that process's memory.  The pages the mapping never wrote are
# mapped from the page cache again and verified: with data block 2 changed
# on the disk behind the page cache right after ENABLE (the page cache
# holding it before ENABLE), page 1 reads its bytes and page 2 SIGBUS.  A
# page cache that ENABLE kept would give page 2 its old, unverified bytes.
t_cow() {
	mk_setup cow $((3 * BS)) 350
	p=$(physoff "$D/cow" $((2 * BS))) || fail "physoff failed"
	sync	# nothing left to write over the poke: ENABLE writes no data
	# the mapping (pages 0-2, all mapped) runs ENABLE, then the poke
	# shellcheck disable=SC2016 # expanded by the sh -c
	out=$(vioctl cow-pages "$D/cow" 0 3 sh -c \
		'vioctl enable "$1" && poke "$2" "$3" xor ff > /dev/null || echo FAILED' \
		sh "$D/cow" "$VT_DEV" "$p")
	expect "ENABLE, then block 2 changed on the disk, under the mapping; then the marker, page 1, page 2" \
		"OK kept $(hex8_at "$W/cow.ref" $BS) SIGBUS" "$(echo $out)"
	expect "GETFLAGS" verity "$(vioctl flags "$D/cow" | cut -d' ' -f1)"
}

# A footer pointing into the data (desc_reverse_offset reaching offset 0)
# makes the first open fail; the data pages read on the way must not stay
# in the page cache, where a later successful open would serve them
# without verification.  The control: on the same mount, with the same
# trace, reading a plain file of as many pages must show each page added
# and left cached, or the trace could not have seen the failed open's.
t_failed_open_cache() {
	mk_setup fo $((10 * BS)) 351	# data 0-9, tree 10, descriptor 11
	gen $((10 * BS)) 351 > "$D/fo.plain" || fail "cannot write $D/fo.plain"
	ino=$(stat -c %i "$D/fo")
	pino=$(stat -c %i "$D/fo.plain")
	fend=$(cat "$W/fo.full")	# the footer ends the set-up file
	[ "$fend" -le $((16 * BS)) ] || fail "the test file's metadata ends at $fend, past 16 pages"
	p=$(physoff "$D/fo" $((fend - 12))) || fail "physoff failed"
	expect "FS_IOC_ENABLE_VERITY" OK "$(vioctl enable "$D/fo")"
	raw_set "$p" "$(le32 "$fend")"	# the remount leaves no page cached
	tr_start "$ino"
	r=$(vioctl open "$D/fo" r)
	ev=$(tr_stop)
	expect_one_of "first open with the footer pointing at offset 0" "$r" EINVAL EBADMSG
	left=$(echo "$ev" | still_cached 0 9)
	[ -z "$left" ] || fail "data pages left in the page cache, unverified, after the failed open: $left (events: $(echo $ev))"
	tr_start "$pino"
	got=$(sum_of "$D/fo.plain")
	ev=$(tr_stop)
	expect "control: the plain file's contents" "$(sum_of "$W/fo.ref")" "$got"
	expect "control: pages of the plain file that its read added and left cached" \
		"0 1 2 3 4 5 6 7 8 9 " "$(echo "$ev" | still_cached 0 9 | tr ' ' '\n' | sort -n | tr '\n' ' ')"
}

le32() {	# N: 8 hex digits, little endian
	le64 "$1" | cut -c1-8
}

# Injected write errors make ENABLE fail after the data was written back,
# while the filesystem commits the verity flag.  Whatever state the inode
# is left in, a page read before ENABLE must never be served unverified: a
# block changed on the disk behind the page cache must then fail to read
# if the file reads as a verity file.
t_enable_fault() {
	mk_setup ef $((8 * BS)) 352
	sync
	cat "$D/ef" > /dev/null		# every page of the file is cached
	p=$(physoff "$D/ef" $((3 * BS))) || fail "physoff failed"
	poke "$VT_DEV" "$p" xor ff > /dev/null || fail "poke failed"
	# Nothing left to write (the atime of the read included): ENABLE's
	# fsync then writes nothing, and the errors hit ->set_verity().
	sync
	# The failed commit leaves the filesystem unusable (journal aborted,
	# checkpoints stopped): the next tests get a fresh one.
	trap 'fail_off "$VT_DEV"; fs_fresh > /dev/null; mkdir -p "$D"' EXIT
	fail_on "$VT_DEV"
	r=$(vioctl enable "$D/ef")
	fail_off "$VT_DEV"
	note "ENABLE under injected write errors: $r"
	[ "$r" != OK ] || fail "ENABLE succeeded although every write failed"
	fl=$(vioctl flags "$D/ef" | cut -d' ' -f1)
	if [ "$fl" = verity ]; then
		got=$(rdtest blocks "$D/ef" "$W/ef.ref")
		case $got in
		*" eio=1 "*"bad=3 "*) ;;
		*) fail "the file reads as verity after the failed ENABLE, block 3 (changed on the disk) must fail: $got" ;;
		esac
	fi
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount failed"
	fl=$(vioctl flags "$D/ef" | cut -d' ' -f1)
	if [ "$fl" = verity ]; then
		note "after a remount the file is a verity file"
	else
		note "after a remount the file is not a verity file"
	fi
	if [ "$fl" = verity ]; then
		expect "measure after the remount" "$(cat "$W/ef.meas")" "$(vioctl measure "$D/ef")"
		got=$(rdtest blocks "$D/ef" "$W/ef.ref")
		case $got in
		*" eio=1 "*"bad=3 "*) ;;
		*) fail "verity after the remount, block 3 changed on the disk must fail: $got" ;;
		esac
	fi
}

# kworkers_fail 0|1: the fault flag (/proc/PID/make-it-fail) of every
# kworker; with the attribute's task-filter on, only flagged tasks' bios
# to a make-it-fail disk fail
kworkers_fail() {
	for _p in /proc/[0-9]*; do
		case $(cat "$_p/comm" 2>/dev/null) in
		kworker*) echo "$1" > "$_p/make-it-fail" 2>/dev/null ;;
		esac
	done
}

# fail_on DEV [kworkers]: from now on every bio with data to DEV fails
# (empty flushes pass), or with "kworkers" only the kworkers' bios
# (task-filter; a kworker started later escapes); fail_off DEV ends it
fail_on() {
	[ -d "$FAILMR" ] || fail "no $FAILMR (CONFIG_FAIL_MAKE_REQUEST, CONFIG_FAULT_INJECTION_DEBUG_FS)"
	[ -e "/sys/block/${1#/dev/}/make-it-fail" ] || fail "no /sys/block/${1#/dev/}/make-it-fail"
	echo 100 > "$FAILMR/probability"
	echo 1 > "$FAILMR/space"
	echo -1 > "$FAILMR/times"
	echo 0 > "$FAILMR/verbose"
	if [ "${2:-}" = kworkers ]; then
		echo Y > "$FAILMR/task-filter"
		kworkers_fail 1
	else
		echo N > "$FAILMR/task-filter"
	fi
	echo 1 > "/sys/block/${1#/dev/}/make-it-fail"
}
fail_off() {
	echo 0 > "/sys/block/${1#/dev/}/make-it-fail"
	if [ "$(cat "$FAILMR/task-filter" 2>/dev/null)" = Y ]; then
		kworkers_fail 0
		echo N > "$FAILMR/task-filter"
	fi
}

FAULT_BLOCKS=301
FAULT_OK="blocks=$FAULT_BLOCKS ok=$FAULT_BLOCKS eio=0 mismatch=0 other=0 bad=- eof=0"

# fault_file NAME SEED: $D/NAME, a verity file of FAULT_BLOCKS blocks, on
# the filesystem remounted noatime (while the disk fails, it must have
# nothing to write).  However the test ends, the faults go off, fd 3
# closes and the next test gets a fresh filesystem: a background write
# may have failed.
fault_file() {
	mk_verity "$1" $(((FAULT_BLOCKS - 1) * BS + 1000)) "$2"
	VT_MNT_OPTS=noatime
	fs_remount || fail "remount failed"
	trap 'fail_off "$VT_DEV"; exec 3<&-; fs_fresh > /dev/null; mkdir -p "$D"' EXIT
	sync
}

# no_wrong_bytes WHEN RDTEST-RESULT: fail if a read returned other bytes
no_wrong_bytes() {
	case $2 in
	*" mismatch=0 "*) ;;
	*) fail "reads $1: wrong bytes returned: $2" ;;
	esac
}

# Read errors from the disk while a verity file is first opened (its
# metadata) and while it is read (data and tree pages): the open fails,
# the reads fail with EIO, no byte is ever wrong, and once the disk works
# again the same inode opens and reads correctly, without a remount.
t_read_fault() {
	fault_file rf 357
	fail_on "$VT_DEV"
	r=$(vioctl open "$D/rf" r)
	fail_off "$VT_DEV"
	expect_one_of "first open while the disk fails every read" "$r" EIO EINVAL EBADMSG
	expect "open once the disk works" OK "$(vioctl open "$D/rf" r)"
	drop_caches
	expect "open after drop_caches" OK "$(vioctl open "$D/rf" r)"
	# The info is set up (the inode stays cached); now data and tree reads fail.
	fail_on "$VT_DEV"
	got=$(rdtest blocks "$D/rf" "$W/rf.ref")
	fail_off "$VT_DEV"
	no_wrong_bytes "while the disk fails" "$got"
	case $got in
	*" ok=0 "*) ;;
	*) note "reads while the disk fails: $got" ;;
	esac
	expect "reads once the disk works" "$FAULT_OK" "$(rdtest blocks "$D/rf" "$W/rf.ref")"
	expect "measure" "$(cat "$W/rf.meas")" "$(vioctl measure "$D/rf")"
}

# fail_block NAME DEVOFF: enable $D/NAME, then mount the filesystem again
# on $DM/vt-NAME, a device-mapper table over $VT_DEV whose filesystem block
# at byte DEVOFF fails every request (the error target); heal_block NAME
# maps that block back.  However the test ends, the device goes and the
# next test gets a fresh filesystem.
fail_block() {
	need_cmd dmsetup
	expect "ENABLE" OK "$(vioctl enable "$D/$1")"
	sync
	trap "fs_umount \"\$VT_MNT\"; dm_remove vt-$1; fs_fresh > /dev/null; mkdir -p \"\$D\"" EXIT
	fs_umount "$VT_MNT" || fail "umount failed"
	dm_create "vt-$1" "$(dm_block_table "$2" error)" || fail "cannot map the error target"
	fs_mount "$DM/vt-$1" "$VT_MNT" noatime || fail "cannot mount $DM/vt-$1"
}
heal_block() {
	dm_switch "vt-$1" "0 $(dev_sectors "$VT_DEV") linear $VT_DEV 0" || fail "cannot map the disk back"
}

# A level-0 tree page whose sectors fail to read while the data reads
# fine: a device-mapper table over the scratch disk maps the error target
# onto that page.  The page is read where the data read is submitted and
# again by the verification worker, and fails both times: the 128 data
# blocks it covers fail EIO, never wrong bytes, the others read, and once
# the sectors work again the same file reads right.
# Layout: data 0-300, root 301, level 0 302-304, descriptor 305.
t_tree_read_fault() {
	mk_setup tf $(((FAULT_BLOCKS - 1) * BS + 1000)) 358
	t=$(raw_target "$D/tf" $(((FAULT_BLOCKS + 1) * BS))) || fail "$t"
	fail_block tf "${t%%:*}"
	expect "reads while level-0 page 0 fails" \
		"blocks=$FAULT_BLOCKS ok=$((FAULT_BLOCKS - 128)) eio=128 mismatch=0 other=0 bad=0-127 eof=0" \
		"$(rdtest blocks "$D/tf" "$W/tf.ref")"
	heal_block tf
	drop_caches
	expect "reads once the disk works" "$FAULT_OK" "$(rdtest blocks "$D/tf" "$W/tf.ref")"
	expect "measure" "$(cat "$W/tf.meas")" "$(vioctl measure "$D/tf")"
}

# A descriptor region of more than a page (a salt of DR_SALT bytes), its
# first page unreadable (dm error target) while the footer's page, the
# next one, reads: the first open fails EIO where the descriptor is read,
# never with a wrong measurement, and once the sectors work again the same
# file opens, reads and measures right.
DR_SALT=4200
t_desc_read_fault() {
	need_helpers
	need_fsverity
	gen $((8 * BS)) 359 > "$D/dr" || fail "cannot write $D/dr"
	gen $((8 * BS)) 359 > "$W/dr.ref"
	salt=$(head -c "$DR_SALT" /dev/urandom | od -An -v -tx1 | tr -d ' \n')
	setup_measure "$D/dr" --salt="$salt" > "$W/dr.meas" || fail "fsverity setup $D/dr failed"
	set -- $(desc_offset "$D/dr")
	[ $# -eq 2 ] || fail "cannot find the descriptor of $D/dr"
	expect "descriptor page before the footer's page" $(($1 / BS + 1)) $((($2 - 1) / BS))
	t=$(raw_target "$D/dr" "$1") || fail "$t"
	fail_block dr "${t%%:*}"
	expect "first open while the descriptor's first page fails" EIO "$(vioctl open "$D/dr" r)"
	expect "open again, the page still failing" EIO "$(vioctl open "$D/dr" r)"
	heal_block dr
	expect "open once the disk works" OK "$(vioctl open "$D/dr" r)"
	expect "reads once the disk works" "blocks=8 ok=8 eio=0 mismatch=0 other=0 bad=- eof=0" \
		"$(rdtest blocks "$D/dr" "$W/dr.ref")"
	expect "measure" "$(cat "$W/dr.meas")" "$(vioctl measure "$D/dr")"
}

# The info of a verity inode and its data i_size must be published together:
# a first open racing with others must never read past the data size.
t_race_first_open() {
	mk_verity race $((5 * BS + 100)) 353
	i=0
	while [ $i -lt 30 ]; do
		drop_caches
		for j in 1 2 3 4; do
			vioctl readpast "$D/race" $((5 * BS + 100)) 1 > "$W/race.$j" &
		done
		wait
		for j in 1 2 3 4; do
			expect "read at the data size, round $i, reader $j" none "$(cat "$W/race.$j")"
		done
		i=$((i + 1))
	done
}

# The same race, made to fail where the test module is (the debug kernel):
# the first open is held up in fsverity_drop_page_cache(), the step of the
# setup between parsing the metadata and publishing the info with the data
# size, while another open reads the footer, past the data size: the held
# setup has just read it into the page cache, so that read needs no lock.
# That open must find no info yet (and wait for the first one) or the info
# with the data size, never the info with the full size: a setup that
# published the info before lowering i_size fails here.  f2fs only: its
# inode keeps the full size, while ext4's keeps the data size, so that on
# ext4 a read past it has nothing to race with.
FO_HOLD_MS=3000
t_race_first_open_held() {
	kstall_need fsverity_drop_page_cache
	mk_verity fo $((5 * BS + 100)) 357
	kstall_first_open "$D/fo" $FO_HOLD_MS "$W/fo.first"
	first=$kstall_pid
	kill -0 "$first" 2> /dev/null ||
		fail "precondition: the first open ended before the second began: $(cat "$W/fo.first")"
	r=$(vioctl readpast "$D/fo" $(($(cat "$W/fo.full") - 1)) 1)
	wait "$first" || true
	expect "the first open (held up $FO_HOLD_MS ms in its setup)" OK "$(cat "$W/fo.first")"
	expect "read of the footer's last byte by an open made while the first was held up" none "$r"
	expect "contents" "$(sum_of "$W/fo.ref")" "$(sum_of "$D/fo")"
}

# fs.verity.require_signatures=1 refuses unsigned files at open, including
# one whose inode (and verity info) is still in the cache.
t_reqsig_cached() {
	sig_need trusted
	trap 'sig_require 0' EXIT
	mk_verity rq $((2 * BS)) 354
	expect "open of the unsigned file, require_signatures=0" OK "$(vioctl open "$D/rq" r)"
	sig_require 1 || fail "cannot set require_signatures=1"
	r=$(vioctl open "$D/rq" r)
	sig_require 0
	expect "open of the same cached inode once require_signatures=1" EBADMSG "$r"
	expect "stat still works" $((2 * BS)) "$(fsize "$D/rq")"
}

# A read of one data block brings in the tree pages on its path, one per
# level, and nothing past level 0: no speculative read of the descriptor,
# footer or of pages past the end of the file.
t_random_read_tree_pages() {
	mk_verity rr $((300 * BS)) 355	# data 0-299, root 300, level 0 301-303, descriptor 304
	ino=$(stat -c %i "$D/rr")
	fs_remount || fail "remount failed"
	# The first open reads the descriptor and footer (page 304): done
	# before recording, the inode stays cached
	expect "first open" OK "$(vioctl open "$D/rr" r)"
	tr_start "$ino"
	got=$(rdtest sample "$D/rr" "$W/rr.ref" 0 77)
	ev=$(tr_stop)
	case $got in *" ok=1 "*) ;; *) fail "read of block 77: $got" ;; esac
	tree=$(echo "$ev" | awk '$1 == "add" && $2 >= 300 { print $2 }' | sort -n | tr '\n' ' ')
	expect "tree and metadata pages read for block 77 (the root page, then its level-0 page)" "300 301 " "$tree"
}

# An unauthenticated PKCS7_SIGNATURE extension whose length is within 8 of
# 2^32: rounding it up to 8 wraps a 32-bit size_t to 0, so the length must
# be compared with the bytes left before rounding.
t_ext_len_wrap() {
	need_cmd openssl
	for len in 4294967288 4294967289 4294967292 4294967295; do
		mk_setup "wr$len" $((2 * BS)) 356
		head -c 200 /dev/urandom > "$W/wr.sig"
		vsig add "$D/wr$len" unauth "$W/wr.sig" || fail "vsig add failed"
		set -- $(vsig where "$D/wr$len")
		[ $# -eq 2 ] || fail "vsig where failed"
		poke "$D/wr$len" $(($1 - 8)) set "$(le32 "$len")" > /dev/null || fail "poke failed"
		sum=$(sum_of "$D/wr$len")
		expect "ENABLE with a signature extension of length $len" EBADMSG "$(vioctl enable "$D/wr$len")"
		expect "file unchanged" "$sum" "$(sum_of "$D/wr$len")"
		rm -f "$D/wr$len"
	done
}

# ENABLE failing in ->set_verity() (ext4: blocks allocated past EOF,
# EINVAL; f2fs: checkpoint=disable, EOPNOTSUPP) leaves the file a regular
# file of its full size: another process's private copy-on-write copy of a
# page past the data (where the metadata lies) is that process's memory and
# stays, as does the file.
t_cow_failed_enable() {
	need_helpers
	need_fsverity
	need_cmd vfsops
	# a mount of its own (f2fs: checkpoint=disable): the next tests get a
	# fresh filesystem
	trap 'fs_fresh > /dev/null; mkdir -p "$D"' EXIT
	case $FS in
	ext4)	fs_fresh verity || fail "a fresh filesystem failed"
		want=EINVAL ;;
	f2fs)	fs_fresh verity checkpoint=disable ||
			fail "a fresh filesystem mounted -o checkpoint=disable failed"
		want=EOPNOTSUPP ;;
	esac
	mkdir -p "$D"
	mk_setup cowf $((3 * BS)) 354
	if [ "$FS" = ext4 ]; then
		expect "fallocate KEEP_SIZE of 16 blocks past EOF" OK "$(vfsops prealloc "$D/cowf" $((16 * BS)))"
	fi
	cp "$D/cowf" "$W/cowf.full"
	remember cowf
	# pages 3 and 4: the tree block and the descriptor's, past the data
	out=$(vioctl cow-at "$D/cowf" 3 vioctl enable "$D/cowf")
	expect "ENABLE run under the mapping, then the marker and page 4" \
		"$want kept $(hex8_at "$W/cowf.full" $((4 * BS)))" "$(echo $out)"
	unchanged cowf
	expect "MEASURE after the failed ENABLE" ENODATA "$(vioctl measure "$D/cowf")"
}

# An open (ext4) or a stat() (f2fs, whose ->getattr() sets up a verity
# file) that finds the file verity while ENABLE is committing, and waits
# for ENABLE's lock, must not set up verity on the file once ENABLE has
# failed and left it a regular file: its size would become the data size
# and MEASURE would answer.  Every write fails OW_DELAY_MS after it is
# issued (dm-delay over a dm error target), so ENABLE's commit or
# checkpoint fails late, with S_VERITY set meanwhile.
OW_DELAY_MS=3000
OW_POLL_LIMIT=30	# seconds to wait for S_VERITY
OW_WAIT_MIN_MS=$((OW_DELAY_MS / 2))	# a racer this long waited for ENABLE
t_open_failed_enable() {
	need_helpers
	need_fsverity
	need_cmd dmsetup
	trap 'fs_umount "$VT_MNT"; dm_remove vt-ow vt-owerr; fs_fresh > /dev/null; mkdir -p "$D"' EXIT
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_mkfs "$VT_DEV" verity || fail "mkfs failed"
	n=$(dev_sectors "$VT_DEV")
	dm_create vt-ow "0 $n linear $VT_DEV 0" || fail "cannot map $VT_DEV"
	dm_create vt-owerr "0 $n error" || fail "cannot make the error target"
	fs_mount "$DM/vt-ow" "$VT_MNT" || fail "cannot mount $DM/vt-ow"
	mkdir -p "$D"
	mk_setup ow $((40 * BS + 100)) 355
	cp "$D/ow" "$W/ow.full"
	full=$(fsize "$D/ow")
	sync
	dm_switch vt-ow "0 $n delay $VT_DEV 0 0 $DM/vt-owerr 0 $OW_DELAY_MS" ||
		fail "cannot switch $DM/vt-ow to failing writes"
	(vioctl enable "$D/ow" > "$W/ow.enable" 2>&1; now_cs > "$W/ow.end") &
	en=$!
	: > "$W/ow.racer"
	limit=$(($(now_cs) + OW_POLL_LIMIT * 100))
	if [ "$FS" = ext4 ]; then
		# statx shows S_VERITY without waiting; then an open waits
		while [ "$(vioctl statx "$D/ow" | cut -d' ' -f1)" != verity ] &&
			kill -0 "$en" 2>/dev/null && [ "$(now_cs)" -lt $limit ]; do
			sleep 0.1
		done
		t0=$(now_cs)
		r=$(vioctl open "$D/ow" r)
		echo "$t0 $(now_cs) open $r" >> "$W/ow.racer"
	else
		# the stat() that finds S_VERITY waits for ENABLE's lock
		while kill -0 "$en" 2>/dev/null && [ "$(now_cs)" -lt $limit ]; do
			t0=$(now_cs)
			r=$(vioctl statx "$D/ow")
			echo "$t0 $(now_cs) statx $r" >> "$W/ow.racer"
		done
	fi
	wait "$en"
	t_end=$(cat "$W/ow.end")
	r=$(cat "$W/ow.enable")
	note "ENABLE with every write failing after $OW_DELAY_MS ms: $r"
	[ "$r" != OK ] || fail "ENABLE succeeded although every write failed"
	# the race was set up: a racer began before ENABLE's end and waited
	# for it.  Its end is no sign: ENABLE's end is stamped by the shell
	# after vioctl exits, which can be later than a waiting open's own
	# end.  Its length is: an open or stat() that does not wait takes
	# milliseconds, one that waited for the failing commit takes seconds.
	held=$(awk -v e="$t_end" -v min=$((OW_WAIT_MIN_MS / 10)) \
		'$1 < e && $2 - $1 >= min' "$W/ow.racer")
	note "racer: $(tail -n 1 "$W/ow.racer")"
	[ -n "$held" ] || fail "no open or stat() waited for the failing ENABLE: the race was not set up ($(cat "$W/ow.racer"))"
	expect "size after the failed ENABLE" "$full" "$(fsize "$D/ow")"
	expect "GETFLAGS after the failed ENABLE" - "$(vioctl flags "$D/ow" | cut -d' ' -f1)"
	# f2fs answers every ioctl EIO after a checkpoint error
	case $FS in ext4) want=ENODATA ;; f2fs) want=EIO ;; esac
	expect "MEASURE after the failed ENABLE" "$want" "$(vioctl measure "$D/ow")"
	expect "contents after the failed ENABLE" "$(sum_of "$W/ow.full")" "$(sum_of "$D/ow")"
	fs_umount "$VT_MNT" || fail "umount failed"
	dm_remove vt-ow vt-owerr || fail "cannot remove the device-mapper devices"
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount failed"
	expect "size after a remount" "$full" "$(fsize "$D/ow")"
	expect "GETFLAGS after a remount" - "$(vioctl flags "$D/ow" | cut -d' ' -f1)"
	expect "contents after a remount" "$(sum_of "$W/ow.full")" "$(sum_of "$D/ow")"
}

# ENABLE changes the size stat() reports, from the full size to the data
# size: a change of the inode, which its ctime must show (NFS and backup
# tools compare it), on the disk too; a refused ENABLE changes nothing.
t_enable_ctime() {
	mk_setup ct $((3 * BS)) 359
	gen $((3 * BS)) 360 > "$D/ctno" || fail "cannot write $D/ctno"
	sync
	c0=$(stat -c %Z "$D/ct")
	n0=$(stat -c %Z "$D/ctno")
	sleep 1		# the next ctime is at least one second later
	expect "FS_IOC_ENABLE_VERITY" OK "$(vioctl enable "$D/ct")"
	r=$(vioctl enable "$D/ctno")
	[ "$r" != OK ] || fail "ENABLE of a file without metadata succeeded"
	c1=$(stat -c %Z "$D/ct")
	[ "$c1" -gt "$c0" ] || fail "ctime after ENABLE: $c1, before it: $c0 (the size went from $(cat "$W/ct.full") to $(fsize "$D/ct"))"
	expect "ctime after a refused ENABLE ($r)" "$n0" "$(stat -c %Z "$D/ctno")"
	fs_remount > /dev/null || fail "remount failed"
	expect "ctime after a remount" "$c1" "$(stat -c %Z "$D/ct")"
	expect "the refused file's ctime after a remount" "$n0" "$(stat -c %Z "$D/ctno")"
}

H="$FS: hardening:"
vt_test 35.01 "$H ENABLE keeps another process's MAP_PRIVATE copy-on-write page, remaps the others verified (a block changed on the disk after ENABLE: SIGBUS)" t_cow
vt_test 35.02 "$H a first open failing on a footer that points into the data leaves no data page cached (the trace shows a plain file's pages, the control)" t_failed_open_cache
vt_test 35.03 "$H ENABLE failing under injected write errors never leaves cached pages served unverified" t_enable_fault
vt_test 35.04 "$H read errors at the first open and during reads: EIO, never a wrong byte; the inode recovers" t_read_fault
vt_test 35.05 "$H racing first opens after drop_caches never read past the data size" t_race_first_open
vt_test 35.06 "$H require_signatures=1 refuses an unsigned file whose inode is still cached" t_reqsig_cached
vt_test 35.07 "$H a read of one block brings in its tree path only: no level-0 readahead, no metadata page" t_random_read_tree_pages
vt_test 35.08 "$H a signature extension length within 8 of 2^32 fails EBADMSG, file unchanged" t_ext_len_wrap
vt_test 35.09 "$H a level-0 tree page whose sectors fail (dm error target): its 128 blocks EIO, never a wrong byte, the rest read; all once it works" t_tree_read_fault
vt_test 35.10 "$H a first open whose descriptor page before the footer's fails (dm error target): EIO; opens, reads and measures once it works" t_desc_read_fault
vt_test 35.11 "$H a failed ENABLE keeps another process's MAP_PRIVATE copy-on-write page past the data; the file is unchanged" t_cow_failed_enable
vt_test 35.12 "$H an open or stat() that waited for an ENABLE whose commit failed sets up nothing: size, flags, MEASURE, contents unchanged" t_open_failed_enable
vt_test 35.13 "$H ENABLE changes the ctime with the size, on the disk too; a refused ENABLE leaves it" t_enable_ctime
if [ "$FS" = f2fs ]; then
	vt_test 35.14 "$H an open made while the first open is held up in its setup (test module, debug kernel) never reads past the data size" t_race_first_open_held
fi
