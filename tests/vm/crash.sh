#!/bin/sh
# Crash consistency of FS_IOC_ENABLE_VERITY: crash.sh 1|2, on $VTEST_FS
# (one filesystem per pair of boots; scripts/crash.sh drives them).
#
# Phase 1 makes a fresh verity filesystem on $VT_DEV and, on it: files set
# up and enabled, then synced; files set up in place (`fsverity setup`
# fsyncs them) and files copied in set up (dirty page cache, never synced:
# only ENABLE's own fsync can make their data durable), all of which are
# then enabled back to back right before the crash; and a copied file only
# set up.  Last it sets up RACE more files in place, prints "vtest: crash
# point" and enables them one after the other: the host kills QEMU as soon
# as it sees that line, with the filesystem mounted, in the middle of that
# sequence of ENABLEs.
#
# Phase 2 boots again on the same disk.  ENABLE commits the verity bit
# before it returns (ext4: a synchronous journal handle; f2fs: a checkpoint),
# having synced the data first, so every file whose ENABLE returned before
# the kill must be verity with the right measurement and contents -- the
# copied files too, whose data only ENABLE's fsync wrote.  Of the race
# files, the verity ones must be a prefix of the sequence, each intact, and
# every other one not verity with its data and metadata intact, so that
# ENABLE can be retried: never a verity bit over data that did not reach
# the disk.  Then fsck must find the filesystem clean.  The expected contents and measurements are recomputed in phase 2
# from the deterministic generator (gen SIZE SEED) and `fsverity setup` on
# tmpfs, so nothing needs to survive the crash but the filesystem itself.
VT_DIR=${VT_DIR:-/tests}
. "$VT_DIR/lib.sh"

phase=$1
FS=${VTEST_FS:-ext4}
FS=${FS%% *}
VT_PREFIX=$FS
D=$VT_MNT/crash
W=$VT_WORK/crash
SYNCED="1 2"
IN_PLACE="3 4 5"
COPIED="6 7 8"
UNSYNCED="$IN_PLACE $COPIED"
SETUP_ONLY=9
RACE=$(seq 10 69)
vt_init
mkdir -p "$W"
echo "# crash consistency, phase $phase, $FS on $VT_DEV, kernel $(uname -r)"

size_of() {	# N: the size of file N (not block-aligned, growing)
	if [ "$1" -lt 10 ]; then
		echo $((200000 + $1 * 40961))
	else
		echo $((20000 + $1 * 97))
	fi
}

mkfile() {	# N: generate, set up, and remember the measurement of file N
	gen "$(size_of "$1")" "$1" > "$D/f$1" || fail "cannot write $D/f$1"
	setup_measure "$D/f$1" > "$W/f$1.meas" || fail "fsverity setup $D/f$1 failed"
}

# mkcopy N: file N set up on tmpfs, then copied in with cat (no fsync)
mkcopy() {
	expected "$1"
	cat "$W/f$1.full" > "$D/f$1" || fail "cannot write $D/f$1"
}

enable() {	# N
	r=$(vioctl enable "$D/f$1")
	[ "$r" = OK ] || fail "FS_IOC_ENABLE_VERITY $D/f$1: $r"
}

t_phase1() {
	need_helpers
	need_fsverity
	fs_fresh verity || fail "cannot make the $FS filesystem"
	mkdir -p "$D" || fail "mkdir $D"
	sync
	for n in $SYNCED; do mkfile "$n"; enable "$n"; done
	sync
	for n in $IN_PLACE; do mkfile "$n"; done
	for n in $COPIED $SETUP_ONLY; do mkcopy "$n"; done
	for n in $UNSYNCED; do enable "$n"; done
	for n in $RACE; do mkfile "$n"; done
	sync
}

# After the crash point: ENABLE the race files in order until the kill.
race() {
	for n in $RACE; do
		r=$(vioctl enable "$D/f$n")
		[ "$r" = OK ] || echo "# FS_IOC_ENABLE_VERITY $D/f$n: $r"
	done
	echo "# all $(echo $RACE | wc -w) race files were enabled before the kill came"
}

# expected N: the file's data in $W/fN.data, the set-up file (data and
# metadata, as setup wrote it) in $W/fN.full, its measurement in $W/fN.meas
expected() {
	gen "$(size_of "$1")" "$1" > "$W/f$1.data" || fail "gen failed"
	cp "$W/f$1.data" "$W/f$1.full" || fail "cp to tmpfs failed"
	setup_measure "$W/f$1.full" > "$W/f$1.meas" || fail "fsverity setup on tmpfs failed"
}

is_verity() {	# FILE
	set -- $(vioctl flags "$1")
	[ "$1" = verity ]
}

# check_verity N: file N is verity with the expected measurement and data
check_verity() {
	f=$D/f$1
	expect "f$1: measure" "$(cat "$W/f$1.meas")" "$(measure_of "$f")"
	expect "f$1: st_size" "$(size_of "$1")" "$(fsize "$f")"
	expect "f$1: checksum of the contents" "$(sum_of "$W/f$1.data")" "$(sum_of "$f")"
}

t_mount() {
	need_helpers
	fs_mount "$VT_DEV" "$VT_MNT" || fail "the $FS filesystem does not mount after the crash"
	[ -d "$D" ] || fail "$D is missing after the crash (it was synced before)"
	note "$(dmesg | grep -i -E 'recover|orphan|roll.?forward|journal' | tail -n 3 | sed 's/^/kernel: /')"
}

t_synced() {
	for n in $SYNCED; do
		expected "$n"
		is_verity "$D/f$n" || fail "f$n was enabled and synced before the crash but is not verity"
		check_verity "$n"
	done
}

t_unsynced() {
	for n in $UNSYNCED; do
		expected "$n"
		[ -e "$D/f$n" ] || fail "f$n is missing: ENABLE's fsync should have made it durable"
		is_verity "$D/f$n" || fail "f$n is not verity, but its ENABLE had returned before the kill"
		check_verity "$n"
	done
}

t_race() {
	verity=0
	retried=0
	for n in $RACE; do
		expected "$n"
		f=$D/f$n
		[ -e "$f" ] || fail "f$n is missing: it was synced before the crash point"
		if is_verity "$f"; then
			[ "$retried" -eq 0 ] || fail "f$n is verity after a file enabled before it that is not: ENABLE did not commit in order"
			check_verity "$n"
			verity=$((verity + 1))
		else
			# Not verity: the data and metadata synced before are there.
			expect "f$n (not verity): size of data and metadata" "$(fsize "$W/f$n.full")" "$(fsize "$f")"
			expect "f$n (not verity): checksum of data and metadata" "$(sum_of "$W/f$n.full")" "$(sum_of "$f")"
			enable "$n"
			check_verity "$n"
			retried=$((retried + 1))
		fi
	done
	note "the kill came after $verity of the $((verity + retried)) ENABLEs of the sequence; the other $retried were intact and enabled now"
}

t_setup_only() {
	n=$SETUP_ONLY
	expected "$n"
	f=$D/f$n
	[ -e "$f" ] || { note "f$n (never synced) did not survive the kill: fine"; return 0; }
	is_verity "$f" && fail "f$n was never enabled but is verity after the crash"
	sum_of "$f" > /dev/null || fail "f$n does not read after the crash"
	r=$(vioctl enable "$f")
	case $r in
	OK)	check_verity "$n"
		note "f$n: its metadata had reached the disk: ENABLE works" ;;
	EBADMSG) note "f$n: its metadata had not reached the disk: ENABLE refuses it (EBADMSG)" ;;
	*)	fail "FS_IOC_ENABLE_VERITY of f$n after the crash: expected OK or EBADMSG, got $r" ;;
	esac
}

t_fsck() {
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "the filesystem check found problems after the kill"
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount after fsck failed"
	for n in $SYNCED $UNSYNCED $RACE; do check_verity "$n"; done
	fs_umount "$VT_MNT"
}

S="$FS: crash:"
case $phase in
1)	vt_test crash.01 "$S phase 1: 2 files enabled and synced; 3 set up in place and 3 copied in set up (never synced), all 6 enabled back to back; 1 copied in, not enabled; then QEMU is killed with the filesystem mounted" t_phase1 ;;
2)	vt_test crash.11 "$S after the kill, the filesystem mounts (journal replay / roll-forward)" t_mount
	vt_test crash.12 "$S files enabled and synced before the kill are verity, measurement and contents intact" t_synced
	vt_test crash.13 "$S files enabled right before the kill, 3 of them with data only ENABLE's fsync wrote, are verity, measurement and contents intact" t_unsynced
	vt_test crash.14 "$S of the files being enabled in sequence at the kill, the verity ones are a prefix and intact, the others intact and enable now" t_race
	vt_test crash.15 "$S a file only set up is not verity; ENABLE then works or says EBADMSG" t_setup_only
	vt_test crash.16 "$S fsck finds the filesystem clean; the files still verify after it" t_fsck ;;
*)	echo "crash.sh: phase must be 1 or 2"; exit 2 ;;
esac

vt_summary
clean=$?
if [ "$phase" = 1 ]; then
	# Nothing is synced or unmounted from here on: the host kills QEMU.
	echo "vtest: crash point"
	[ "$clean" -eq 0 ] && race
	while :; do sleep 3600; done
fi
