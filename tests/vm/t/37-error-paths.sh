#!/bin/sh
#@ fs: ext4 f2fs
# Error exits of fs/verity that no other group takes for sure (make
# coverage lists what the suite executes; the fuzzer of 60-fuzz reaches
# some of them only with some seeds): one test per exit, each with the
# exact errno, the file unchanged, and the kernel's warning that names the
# check, so that a test passes only through the exit it is written for.
# The metadata is that of `fsverity setup` (SHA-256, no salt), rewritten
# after the fixed descriptor: the root hash extension (40 bytes), the
# unauthenticated extension header (8 bytes), the footer (12 bytes).
. "$VT_DIR/lib.sh"

D=$VT_MNT/ep
W=$VT_WORK/ep
SZ=10000			# 3 data blocks, one tree block

g_setup() {
	fresh_group "$W"
}
vt_setup g_setup

# mk_setup NAME: $D/NAME, SZ bytes set up by `fsverity setup`, not enabled;
# its measurement in $W/NAME.meas
mk_setup() {
	need_helpers
	need_fsverity
	gen $SZ 37 > "$D/$1" || fail "cannot write $D/$1"
	setup_measure "$D/$1" > "$W/$1.meas" || fail "fsverity setup $D/$1 failed"
}

# klog_has TEXT: the kernel log has a line with TEXT since klog_mark
# (lib.sh); klog_has fails the test showing those lines, klog_seen only
# answers
klog_seen() {
	klog_since > "$W/klog.new"
	grep -qF -- "$1" "$W/klog.new"
}
klog_has() {
	klog_seen "$1" && return 0
	sed 's/^/kernel: /' "$W/klog.new"
	fail "no kernel warning '$1' since the test began"
}

# fs-verity's messages are rate limited: at most 10 in 5 s
# (DEFAULT_RATELIMIT_BURST and _INTERVAL), and this group's tests follow
# each other faster than that.  A test whose warning is not in the log
# waits this many seconds, for a new interval, and tries again once.
RATELIMIT_WAIT=6

# refused NAME WARNING: ENABLE of $D/NAME fails EBADMSG with WARNING in
# the kernel log; size, contents and flags unchanged
refused() {
	remember "$1"
	for try in first again; do
		klog_mark
		expect "FS_IOC_ENABLE_VERITY on $1 ($try)" EBADMSG "$(vioctl enable "$D/$1")"
		unchanged "$1"
		klog_seen "$2" && return 0
		[ "$try" = again ] || sleep "$RATELIMIT_WAIT"
	done
	klog_has "$2"
}

# Extensions as hex: the root hash (sha256), a salt of 8 bytes, the
# unauthenticated extension header with 0 or 1 extension; RH stands for
# the file's root hash
X_RH=2800000001000000RH
X_SALT=10000000020000000102030405060708
X_UNAUTH0=0000000000000000
X_UNAUTH1=0100000000000000

# rewrite NAME AUTH-COUNT HEX: the descriptor region of $D/NAME after the
# fixed descriptor (64 bytes) becomes HEX, auth_ext_count AUTH-COUNT, with
# a footer pointing at the descriptor after it; the file ends there (poke
# writes inside the file only: it is cut or extended first)
rewrite() {
	f=$D/$1
	set -- "$1" "$2" "$3" $(desc_offset "$f")
	[ $# -eq 5 ] || fail "cannot find the descriptor of $f"
	ds=$4
	rh=$(poke "$f" $((ds + 72)) get 32) || fail "poke get failed"
	magic=$(poke "$f" $(($5 - 8)) get 8) || fail "poke get failed"
	hex=$(echo "$3" | sed "s/RH/$rh/g")
	end=$((ds + 64 + ${#hex} / 2))
	rev=$(le64 $((end + 12 - ds)))
	truncate -s $((end + 12)) "$f" &&
		poke "$f" $((ds + 32)) set "$(le64 "$2" | cut -c1-4)" > /dev/null &&
		poke "$f" $((ds + 64)) set "$hex" > /dev/null &&
		poke "$f" "$end" set "$(echo "$rev" | cut -c1-8)$magic" > /dev/null ||
		fail "rewriting the metadata of $f failed"
	sync
}

t_rh_size() {
	mk_setup rhsize
	set -- $(desc_offset "$D/rhsize")
	poke "$D/rhsize" $(($1 + 64)) set 27000000 > /dev/null || fail "poke failed"
	refused rhsize "Root hash of 31 bytes, sha256 needs 32"
}

t_rh_twice() {
	mk_setup rh2
	rewrite rh2 2 "$X_RH$X_RH$X_UNAUTH0"
	refused rh2 "Duplicate extension of type 1"
}

t_rh_unauth() {
	mk_setup rhu
	rewrite rhu 1 "$X_RH$X_UNAUTH1$X_RH"
	refused rhu "Extension type 1 in the unauthenticated list"
}

t_salt_unauth() {
	mk_setup saltu
	rewrite saltu 1 "$X_RH$X_UNAUTH1$X_SALT"
	refused saltu "Extension type 2 in the unauthenticated list"
}

t_salt_twice() {
	mk_setup salt2
	rewrite salt2 3 "$X_RH$X_SALT$X_SALT$X_UNAUTH0"
	refused salt2 "Duplicate extension of type 2"
}

t_no_unauth_header() {
	mk_setup nohdr
	rewrite nohdr 1 "$X_RH"
	refused nohdr "Unauthenticated extension header missing"
}

t_unauth_reserved() {
	mk_setup hdrres
	rewrite hdrres 1 "${X_RH}0000000001000000"
	refused hdrres "Reserved bits set in unauthenticated extension header"
}

t_ext_past_end() {
	mk_setup pastend
	rewrite pastend 2 "$X_RH"
	refused pastend "Extension header past the end of the descriptor region"
}

t_misaligned() {
	mk_setup misal
	set -- $(desc_offset "$D/misal")
	poke "$D/misal" $(($2 - 12)) set "$(le64 $(($2 - $1 + 1)) | cut -c1-8)" > /dev/null ||
		fail "poke failed"
	refused misal "Misaligned descriptor at offset $(($1 - 1))"
}

t_tree_overlap() {
	mk_setup overlap
	set -- $(desc_offset "$D/overlap")
	# orig_file_size = the descriptor's offset: the tree of that much data
	# would start where the descriptor is
	poke "$D/overlap" $(($1 + 24)) set "$(le64 "$1")" > /dev/null || fail "poke failed"
	refused overlap "overlaps the descriptor"
}

# A file shorter than a footer (12 bytes) cannot hold one: empty, or 11
# bytes of data that end in a footer's magic
t_too_small() {
	need_helpers
	: > "$D/empty"
	printf 'xxxFSVerity' > "$D/tiny"
	sync
	refused empty "File is too small to have verity metadata"
	refused tiny "File is too small to have verity metadata"
}

# ENABLE writes (the inode, through the filesystem), so it takes the mount's
# write access: through a read-only bind mount of a read-write filesystem
# (where the inode's own permission check passes) it fails EROFS
t_ro_bind() {
	mk_setup rob
	remember rob
	B=$VT_WORK/ep-bind
	mkdir -p "$B"
	mount --bind "$D" "$B" || fail "mount --bind $D $B failed"
	trap 'umount "$B" 2>/dev/null' EXIT
	mount -o remount,bind,ro "$B" || fail "remount of the bind mount read-only failed"
	expect "FS_IOC_ENABLE_VERITY through the read-only bind mount" EROFS "$(vioctl enable "$B/rob")"
	umount "$B" || fail "umount $B failed"
	trap - EXIT
	unchanged rob
	expect "ENABLE through the filesystem's own read-write mount" OK "$(vioctl enable "$D/rob")"
	expect "measurement" "$(cat "$W/rob.meas")" "$(vioctl measure "$D/rob")"
}

# MEASURE into a struct fsverity_digest the kernel can read but not write,
# whole (header) or from the digest on (digest): EFAULT, and the next
# MEASURE gives the measurement
t_measure_rofault() {
	mk_setup "ro$1"
	expect "ENABLE" OK "$(vioctl enable "$D/ro$1")"
	expect "MEASURE, the $1 read-only" EFAULT "$(vioctl measure-rofault "$D/ro$1" "$1")"
	expect "MEASURE afterwards" "$(cat "$W/ro$1.meas")" "$(vioctl measure "$D/ro$1")"
}

E="$FS: ENABLE with"
vt_test 37.01 "$E a root hash extension of 31 bytes (sha256) fails EBADMSG, unchanged" t_rh_size
vt_test 37.02 "$E two root hash extensions fails EBADMSG, unchanged" t_rh_twice
vt_test 37.03 "$E the root hash in the unauthenticated list fails EBADMSG, unchanged" t_rh_unauth
vt_test 37.04 "$E the salt in the unauthenticated list fails EBADMSG, unchanged" t_salt_unauth
vt_test 37.05 "$E two salt extensions fails EBADMSG, unchanged" t_salt_twice
vt_test 37.06 "$E no unauthenticated extension header fails EBADMSG, unchanged" t_no_unauth_header
vt_test 37.07 "$E reserved bytes set in the unauthenticated header fails EBADMSG, unchanged" t_unauth_reserved
vt_test 37.08 "$E an extension header past the end of the region fails EBADMSG, unchanged" t_ext_past_end
vt_test 37.09 "$E a misaligned descriptor fails EBADMSG, unchanged" t_misaligned
vt_test 37.10 "$E a tree that would overlap the descriptor fails EBADMSG, unchanged" t_tree_overlap
vt_test 37.11 "$FS: MEASURE into a read-only struct fails EFAULT, then measures" t_measure_rofault header
vt_test 37.12 "$FS: MEASURE with the digest in a read-only page fails EFAULT, then measures" t_measure_rofault digest
vt_test 37.13 "$FS: ENABLE of a file of 0 or 11 bytes (shorter than a footer) fails EBADMSG, unchanged" t_too_small
vt_test 37.14 "$FS: ENABLE through a read-only bind mount of a read-write $FS fails EROFS, unchanged, then enables" t_ro_bind
