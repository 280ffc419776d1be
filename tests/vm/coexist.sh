#!/bin/sh
# Cross-kernel boots: coexist.sh PHASE (vtest.coexist=PHASE on the kernel
# command line; scripts/coexist.sh boots the kernels one after the other on
# the same disk images).  ext4 on the first scratch disk, f2fs on the
# second (vtest.fs= restricts them).
#
# The series reuses ext4's RO_COMPAT_VERITY and EXT4_VERITY_FL and f2fs's
# verity feature and inode flag for the 2018 on-disk format, which the
# upstream (5.4+) fs-verity of a stock kernel does not share: each kernel
# takes the other's verity files for broken files of its own format.  A
# PHASE is a scenario letter and a step:
#
#   A1 the pristine kernel makes 5.4-format files (vupstream enable)
#   A2 the series' kernel meets them
#   A3 the pristine kernel checks them again
#   B1 the series' kernel makes 2018-format files (fsverity setup + enable)
#   B2 the pristine kernel meets them
#   B3 the series' kernel checks them again
#   C1 as B1
#   C2 the series built without its ext4/f2fs glue
#      (CONFIG_EXT4_FS_VERITY=n, CONFIG_F2FS_FS_VERITY=n) meets them
#   C3 as B3
#
# Step 1 records, in a plain file on the filesystem, each file's size,
# measurement and data checksum, and a fingerprint of the blocks the file
# owns on the disk (its extents as FIEMAP lists them and the checksum of
# their bytes on the raw device).  Step 2 checks that the files stat,
# refuse writers, truncation and reads with the errno this kernel gives
# (never a byte of unverified data), that the filesystem stays read-write
# with no error in the kernel log, and that fsck is clean after.  Step 3,
# on the kernel of step 1, finds the same fingerprint, measurement and
# contents, and fsck clean.  The kernel messages of steps 2 and 3 are
# shown as notes.
#
# One exception is the stock kernel's, and documented (cover letter,
# fsverity.rst): on ext4 it takes a 2018-format file for a corrupt one of
# its own format and says so with ext4_error(), "verity file corrupted;
# can't find descriptor", which records the error in the superblock (and
# remounts read-only under errors=remount-ro, panics under errors=panic).
# The series cannot avoid it while it keeps the shared bit and flag.  In
# B2 on ext4 that report, and nothing else, must appear for every file the
# test opens, and the superblock must say "with errors"; e2fsck -fy then
# clears that state (and must find nothing else), so that B3 starts clean.
VT_DIR=${VT_DIR:-/tests}
. "$VT_DIR/lib.sh"

phase=$1
scenario=${phase%?}
step=${phase#?}
case $scenario$step in
[ABC][123]) ;;
*) echo "coexist.sh: PHASE is A1..A3, B1..B3 or C1..C3, not '$phase'"; exit 2 ;;
esac
vt_init
echo "# cross-kernel boots, phase $phase, kernel $(uname -r) $(uname -v)"

# The verity files: NAME SIZE HASH (seed: the line number)
FILES="
f4097 4097 sha256
f1m17 1048593 sha256
f300k 300000 sha512
"
MANIFEST=coexist.manifest

# kind: the kernel of this phase: pristine, series or noglue; maker: the
# kernel that made the files (step 1 and step 3 run on it)
case $phase in
A1|A3|B2) kind=pristine ;;
C2) kind=noglue ;;
*) kind=series ;;
esac
case $scenario in
A) maker=pristine ;;
*) maker=series ;;
esac
case $kind in
pristine) KERNEL="the pristine kernel" ;;
series) KERNEL="the series' kernel" ;;
noglue) KERNEL="the series' kernel without ext4/f2fs glue" ;;
esac

# dev_of FS: its scratch disk
dev_of() {
	case $1 in
	ext4) echo "$VT_DEV" ;;
	f2fs) echo "$VT_DEV2" ;;
	esac
}

files() {	# the lines of $FILES: "NAME SIZE HASH"
	echo "$FILES" | sed '/^$/d'
}

# measure FILE: the measurement, through the ioctl of the kernel that made
# the files ("ALG:HEX"), or the error
measure() {
	case $maker in
	pristine) vupstream measure "$1" ;;
	series) measure_of "$1" ;;
	esac
}

# make_one FILE SIZE HASH SEED: a verity file of the maker's format; prints
# its measurement and its full size (data and the metadata the 2018 format
# appends to it before ENABLE; the data size for the 5.4 format, whose
# metadata lies past EOF)
make_one() {
	gen "$2" "$4" > "$1" || { echo "cannot write $1" >&2; return 1; }
	case $maker in
	pristine)
		_r=$(vupstream enable "$1" "$3")
		[ "$_r" = OK ] || { echo "upstream FS_IOC_ENABLE_VERITY $1 ($3): $_r" >&2; return 1; }
		_full=$2
		;;
	series)
		setup_measure "$1" --hash="$3" > /dev/null || return 1
		_full=$(fsize "$1")
		_r=$(vioctl enable "$1")
		[ "$_r" = OK ] || { echo "FS_IOC_ENABLE_VERITY $1: $_r" >&2; return 1; }
		;;
	esac
	echo "$(measure "$1") $_full"
}

# fingerprint FILE DEV: the file's extents (FIEMAP, through filefrag) and
# the checksum of their blocks read from the raw device, one line
fingerprint() {
	_ext=$(filefrag -v -b"$BS" "$1" | awk '$1 ~ /^[0-9]+:/ {
		l = $0; gsub(/\.\./, " ", l); gsub(/:/, " ", l); split(l, f, " ")
		print f[2] "+" f[4] "+" f[6] }') || return 1
	[ -n "$_ext" ] || { echo "filefrag lists no extent for $1" >&2; return 1; }
	drop_caches
	_sum=$(for _e in $_ext; do
		_phys=$(echo "$_e" | cut -d+ -f2)
		_len=$(echo "$_e" | cut -d+ -f3)
		dd if="$2" bs="$BS" skip="$_phys" count="$_len" 2> /dev/null
	done | $VT_SUM)
	echo "$(echo "$_ext" | tr '\n' ' ')${_sum%% *}"
}

# klog_new: the kernel's fs messages since the last call (the ring buffer
# is cleared; the console keeps them all for the host's checks)
klog_new() {
	dmesg -c | grep -E 'verity|EXT4-fs|F2FS-fs' | sed 's/^\[[ 0-9.]*\] //'
}

# klog_take: the kernel's fs messages since the last klog_new into $_log,
# shown as notes
klog_take() {
	_log=$(klog_new)
	[ -z "$_log" ] || note "$(echo "$_log" | sed "s|^|$KERNEL: |")"
}

# no_fs_error: the kernel log since the last klog_new shows no filesystem
# error; the messages are shown as notes
fs_errors_re='EXT4-fs error|Remounting filesystem read-only|EXT4-fs .*[Aa]bort|F2FS-fs .*([Ee]rror|[Ii]nconsistent|[Cc]orrupt|fsck|read-only|[Ss]top)'
no_fs_error() {
	klog_take
	if echo "$_log" | grep -E "$fs_errors_re"; then
		fail "$KERNEL logged a filesystem error (above)"
	fi
	return 0
}

# The stock kernel's documented report of a 2018-format ext4 file (above)
stock_ext4_report_re="EXT4-fs error .*ext4_get_verity_descriptor_location:[0-9]+: inode #[0-9]+: .*verity file corrupted; can't find descriptor"

# stock_ext4_reports: B2 on ext4: since the last klog_new, the stock
# kernel reported each of the files (one inode each) as corrupt, and
# logged no other filesystem error
stock_ext4_reports() {
	klog_take
	if echo "$_log" | grep -E "$fs_errors_re" | grep -vE "$stock_ext4_report_re"; then
		fail "$KERNEL logged a filesystem error other than its documented report (above)"
	fi
	_inodes=$(echo "$_log" | grep -E "$stock_ext4_report_re" | sed -E 's/.*inode #([0-9]+):.*/\1/' | sort -u | wc -l)
	expect "inodes the stock kernel reported as corrupt" "$(files | wc -l)" "$_inodes"
}

# stock_ext4_case: this step is B2 on ext4, the documented exception
stock_ext4_case() {
	[ "$phase/$FS" = B2/ext4 ]
}

# e2fsck_stock_ext4: B2 on ext4, the unmounted $DEV "clean with errors":
# e2fsck -fy finds nothing but the error state, which it clears without a
# word or a repair counted: the filesystem was unmounted cleanly, and
# e2fsck rewrites the state of a valid filesystem at its end, the error
# records with it, exiting 0.  So: status 0, its version on stderr, the
# five passes and the summary on stdout, nothing else (a problem found,
# "Pass 3A", "FILE SYSTEM WAS MODIFIED" all fail).  sb_clean then shows
# the state cleared.
E2FSCK_PASSES="Pass 1: Checking inodes, blocks, and sizes
Pass 2: Checking directory structure
Pass 3: Checking directory connectivity
Pass 4: Checking reference counts
Pass 5: Checking group summary information"
e2fsck_stock_ext4() {
	_out=$(e2fsck -fy "$DEV" 2> "$W/e2fsck.err")
	_rc=$?
	note "e2fsck -fy $DEV: status $_rc, stderr: $(cat "$W/e2fsck.err")
$_out"
	expect "e2fsck -fy $DEV: status" 0 "$_rc"
	if grep -vxE 'e2fsck [0-9.]+ \([^)]*\)' "$W/e2fsck.err"; then
		fail "e2fsck -fy $DEV wrote more than its version to stderr (above)"
	fi
	expect "e2fsck -fy $DEV: its output, the summary's figures left out" \
		"$E2FSCK_PASSES
$DEV: FILES files (N% non-contiguous), BLOCKS blocks" \
		"$(echo "$_out" | sed -E "s|^$DEV: [0-9]+/[0-9]+ files \([0-9.]+% non-contiguous\), [0-9]+/[0-9]+ blocks\$|$DEV: FILES files (N% non-contiguous), BLOCKS blocks|")"
}

# sb_state: the state ext4's superblock records for the unmounted $DEV
sb_state() {
	tune2fs -l "$DEV" | sed -n 's/^Filesystem state: *//p'
}

# sb_clean: the unmounted filesystem records no error: ext4's superblock
# state (an ext4 error marks it "with errors" on the disk, and every later
# mount warns of it); f2fs has fsck alone
sb_clean() {
	[ "$FS" = ext4 ] || return 0
	expect "ext4 superblock state" clean \
		"$(sb_state)"
}

# mount_rw: mounted read-write, as /proc/mounts says
mount_rw() {
	awk -v m="$VT_MNT" '$2 == m { split($4, o, ","); print o[1] }' /proc/mounts
}

# ------------------------------------------------------------------ step 1

t_make() {
	need_helpers
	need_cmd vupstream filefrag
	[ "$maker" = pristine ] || need_fsverity
	klog_new > /dev/null
	VT_DEV=$DEV
	fs_fresh verity || fail "cannot make the $FS filesystem with the verity feature"
	mkdir -p "$D" || fail "mkdir $D"
	: > "$D/$MANIFEST"
	_seed=0
	files | while read -r _n _size _hash; do
		_seed=$((_seed + 1))
		_made=$(make_one "$D/$_n" "$_size" "$_hash" "$_seed" 2>&1) || fail "$_n: $_made"
		case $_made in "$_hash:"*" "*) ;; *) fail "$_n: measurement '$_made' is not $_hash" ;; esac
		_d=$(gen "$_size" "$_seed" | $VT_SUM)
		echo "$_n $_size ${_made% *} ${_d%% *} ${_made##* }" >> "$D/$MANIFEST" ||
			fail "cannot write the manifest"
	done || exit 1
	sync
	files | while read -r _n _x; do
		_fp=$(fingerprint "$D/$_n" "$DEV") || fail "no fingerprint of $_n"
		echo "$_n $_fp" >> "$D/$MANIFEST.fp" || fail "cannot write the fingerprints"
	done || exit 1
	note "$(sed 's/^/made: /' "$D/$MANIFEST")"
	note "$(sed 's/^/extents (logical+physical+blocks) and checksum: /' "$D/$MANIFEST.fp")"
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$DEV" || fail "fsck after making the files"
	sb_clean
	no_fs_error
}

# ------------------------------------------------------------------ step 2

# The errno names each kernel gives (see the cover letter): an open for
# reading of the other format's file (OPEN_ERR) and a writer (WRITE_ERR).
expect_open_err() {
	case $kind/$FS in
	series/*) echo "$SERIES_OPEN_ERR" ;;
	pristine/ext4) echo "$PRISTINE_EXT4_OPEN_ERR" ;;
	pristine/f2fs) echo "$PRISTINE_F2FS_OPEN_ERR" ;;
	noglue/*) echo EOPNOTSUPP ;;
	esac
}
SERIES_OPEN_ERR=EINVAL
PRISTINE_EXT4_OPEN_ERR=EUCLEAN
PRISTINE_F2FS_OPEN_ERR=ENODATA

t_mount_other() {
	need_helpers
	klog_new > /dev/null
	if [ "$kind/$FS" = noglue/ext4 ]; then
		# Without CONFIG_EXT4_FS_VERITY, RO_COMPAT_VERITY is unknown.
		fs_mount "$DEV" "$VT_MNT" > /dev/null 2>&1 &&
			fail "$KERNEL mounted the verity ext4 read-write"
		fs_mount "$DEV" "$VT_MNT" ro || fail "$KERNEL does not mount the verity ext4 read-only"
		expect "mount state" ro "$(mount_rw)"
		note "$(klog_new | grep -i 'RDWR' | sed "s|^|$KERNEL: |")"
	else
		fs_mount "$DEV" "$VT_MNT" || fail "$KERNEL does not mount the $FS filesystem"
		expect "mount state" rw "$(mount_rw)"
	fi
	[ -s "$D/$MANIFEST" ] || fail "the manifest of step 1 is missing"
	for _n in $(files | cut -d' ' -f1); do
		stat -c '%s %b %Y %Z %a' "$D/$_n" > "$W/$_n.stat" || fail "stat $_n failed"
	done
	no_fs_error
}

# stat_size DATA FULL: the st_size this kernel shows for a file of the
# other one before any open: f2fs keeps the 2018 format's full size in
# its inode, which only the series' glue turns into the data size; ext4
# keeps the data size, like the 5.4 format
stat_size() {
	if [ "$FS" = f2fs ] && [ "$maker" = series ] && [ "$kind" != series ]; then
		echo "$2"
	else
		echo "$1"
	fi
}

t_stat() {
	while read -r _n _size _m _d _full; do
		expect "$_n: statx (STATX_ATTR_VERITY, st_size)" "verity $(stat_size "$_size" "$_full")" \
			"$(vioctl statx "$D/$_n")"
		note "$_n: statx: STATX_ATTR_VERITY, st_size $(fsize "$D/$_n") (data size $_size, full size $_full)"
	done < "$D/$MANIFEST"
	no_fs_error
}

t_read_refused() {
	_want=$(expect_open_err)
	while read -r _n _size _m _d _full; do
		_got=$(head -c "$_size" "$D/$_n" 2> /dev/null | wc -c)
		expect "$_n: bytes read (unverified)" 0 "$_got"
		expect "$_n: open O_RDONLY" "$_want" "$(vioctl open "$D/$_n" r)"
		case $kind in
		pristine) _r=$(vupstream measure "$D/$_n") ;;
		*) _r=$(vioctl measure "$D/$_n") ;;
		esac
		expect "$_n: measure" "open:$_want" "$_r"
	done < "$D/$MANIFEST"
	if stock_ext4_case; then stock_ext4_reports; else no_fs_error; fi
}

t_write_refused() {
	_want=EPERM
	[ "$(mount_rw)" = ro ] && _want=EROFS
	while read -r _n _size _m _d _full; do
		for _mode in w rw append trunc; do
			expect "$_n: open $_mode" "$_want" "$(vioctl open "$D/$_n" "$_mode")"
		done
		expect "$_n: truncate" "$_want" "$(vioctl truncate "$D/$_n" 0)"
		expect "$_n: truncate to 1 block" "$_want" "$(vioctl truncate "$D/$_n" "$BS")"
	done < "$D/$MANIFEST"
	no_fs_error
}

t_unchanged_other() {
	expect "mount state" "$(if [ "$kind/$FS" = noglue/ext4 ]; then echo ro; else echo rw; fi)" "$(mount_rw)"
	# An ext4 error under errors=remount-ro shuts the filesystem down
	# while /proc/mounts still says rw: a plain file must still write.
	if [ "$(mount_rw)" = rw ]; then
		echo probe > "$D/probe" && sync && rm "$D/probe" ||
			fail "the filesystem no longer takes a write of a plain file"
	fi
	for _n in $(files | cut -d' ' -f1); do
		expect "$_n: stat (size blocks mtime ctime mode)" "$(cat "$W/$_n.stat")" \
			"$(stat -c '%s %b %Y %Z %a' "$D/$_n")"
	done
	fs_umount "$VT_MNT" || fail "umount failed"
	if stock_ext4_case; then
		expect "ext4 superblock state after the stock kernel's report" "clean with errors" \
			"$(sb_state)"
		e2fsck_stock_ext4
	fi
	fs_check "$DEV" || fail "fsck after $KERNEL"
	sb_clean
	no_fs_error
}

# Without CONFIG_F2FS_FS_VERITY, FS_IOC_ENABLE_VERITY fails as fs-verity's
# own stubs do, without blaming the filesystem's verity feature, which is
# set here
t_enable_noglue() {
	need_helpers
	need_fsverity
	klog_new > /dev/null
	gen 20000 91 > "$D/plain" || fail "cannot write a plain file"
	setup_measure "$D/plain" > /dev/null || fail "fsverity setup failed"
	expect "ENABLE of a set-up plain file" EOPNOTSUPP "$(vioctl enable "$D/plain")"
	klog_take
	if echo "$_log" | grep -i 'feature is not enabled'; then
		fail "$KERNEL blames the filesystem's verity feature (above), which is set"
	fi
	rm "$D/plain" || fail "cannot remove the plain file"
}

# ------------------------------------------------------------------ step 3

t_mount_again() {
	need_helpers
	klog_new > /dev/null
	fs_mount "$DEV" "$VT_MNT" || fail "$KERNEL does not mount the $FS filesystem again"
	expect "mount state" rw "$(mount_rw)"
	[ -s "$D/$MANIFEST.fp" ] || fail "the fingerprints of step 1 are missing"
	while read -r _n _fp; do
		expect "$_n: extents and their bytes on the disk" "$_fp" "$(fingerprint "$D/$_n" "$DEV")"
	done < "$D/$MANIFEST.fp"
	no_fs_error
}

t_verify_again() {
	while read -r _n _size _m _d _full; do
		expect "$_n: measurement" "$_m" "$(measure "$D/$_n")"
		expect "$_n: st_size" "$_size" "$(fsize "$D/$_n")"
		expect "$_n: checksum of the contents" "$_d" "$(sum_of "$D/$_n")"
	done < "$D/$MANIFEST"
	drop_caches
	while read -r _n _size _m _d _full; do
		expect "$_n: checksum of the contents read from the disk again" "$_d" "$(sum_of "$D/$_n")"
	done < "$D/$MANIFEST"
	no_fs_error
}

t_fsck_again() {
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$DEV" || fail "fsck at the end"
	sb_clean
	no_fs_error
}

# ------------------------------------------------------------------- main

case $scenario in
A) FMT="5.4-format"; MADE="the pristine kernel's" ;;
*) FMT="2018-format"; MADE="the series'" ;;
esac
for FS in ${VTEST_FS:-ext4 f2fs}; do
	VT_PREFIX=$FS
	DEV=$(dev_of "$FS")
	D=$VT_MNT/coexist
	W=$VT_WORK/$FS
	mkdir -p "$W"
	S="$FS: coexist $phase:"
	case $step in
	1)	vt_test coexist.01 "$S $KERNEL makes $FMT verity files (sha256, sha512), records their measurements, contents and blocks; fsck clean, no error recorded in the superblock" t_make ;;
	2)	if [ "$kind/$FS" = noglue/ext4 ]; then
			vt_test coexist.11 "$S $KERNEL refuses to mount the verity ext4 read-write (unknown RO_COMPAT_VERITY) and mounts it read-only" t_mount_other
		else
			vt_test coexist.11 "$S $KERNEL mounts the filesystem with $MADE verity files read-write" t_mount_other
		fi
		vt_test coexist.12 "$S stat of $MADE verity files works: STATX_ATTR_VERITY, st_size $([ "$(stat_size d f)" = d ] && echo "the data size" || echo "data and metadata (the full size f2fs keeps)")" t_stat
		if stock_ext4_case; then
			vt_test coexist.13 "$S $KERNEL refuses to open $MADE verity files for reading ($(expect_open_err)): no byte read, no measurement; it reports each as corrupt (ext4_error, documented) and nothing else" t_read_refused
		else
			vt_test coexist.13 "$S $KERNEL refuses to open $MADE verity files for reading ($(expect_open_err)): no byte read, no measurement" t_read_refused
		fi
		vt_test coexist.14 "$S $KERNEL refuses writers and truncation of $MADE verity files" t_write_refused
		if [ "$kind/$FS" = noglue/f2fs ]; then
			vt_test coexist.15 "$S $KERNEL fails ENABLE with EOPNOTSUPP and does not blame the filesystem's verity feature" t_enable_noglue
		fi
		if stock_ext4_case; then
			vt_test coexist.16 "$S nothing else changed: the mount state (a plain file still writes), the files' stat; the superblock says 'with errors' (documented), e2fsck clears it and finds nothing else" t_unchanged_other
		else
			vt_test coexist.16 "$S nothing changed: the mount state (a plain file still writes), the files' stat; fsck clean, no error recorded in the superblock" t_unchanged_other
		fi ;;
	3)	vt_test coexist.21 "$S $KERNEL mounts read-write again; every file's extents and their bytes on the disk are those of step 1" t_mount_again
		vt_test coexist.22 "$S $KERNEL measures every $FMT file as in step 1 and reads the same contents" t_verify_again
		vt_test coexist.23 "$S fsck clean at the end, no error recorded in the superblock" t_fsck_again ;;
	esac
done

vt_summary
