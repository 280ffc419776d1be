#!/bin/sh
#@ fs: ext4 f2fs
#@ timeout: 600
# Power cuts with dm-log-writes, as xfstests' generic/482 and btrfs/291 do:
# every write the filesystem makes during mkfs and a workload of ENABLEs is
# recorded, with its FLUSH and FUA flags, by a dm-log-writes target, then the
# log is replayed (helpers/vreplay.c) onto a second device up to chosen
# entries, and at each such point the filesystem is checked as a power cut
# there would have left it.  Unlike `make crash` (QEMU killed with
# cache=unsafe, which never loses a write the guest issued), this loses
# every write that was not flushed yet.
#
# Devices (dm-linear): on $VT_DEV the data device (DATA_MIB), the replay
# device of the same size and a COW device for a non-persistent dm-snapshot
# (the rest of the disk); $VT_DEV2 is the log.  The snapshot over the replay
# device takes the writes of each check's mount (journal replay, roll-forward
# recovery, orphan cleanup), so the replay device stays the disk as it was
# at the cut and the replay goes on forward from it.
#
# The workload (after the mark "mkfs"): the files of FILES below, each
# preceded by a mark "w-NAME" (before it is created), "s-NAME" once its data
# and metadata are durable (after `fsverity setup`, which fsyncs, and an
# fsync of the directory), "e-NAME" and "v-NAME" around its ENABLE; some are
# fsync'd after ENABLE, one is copied in set up and only ENABLE's own fsync
# makes it durable, one is set up but never enabled, one is copied in and
# never synced; then the filesystem is unmounted (mark "umount").
#
# The points: the mark "mkfs", then every FLUSH or FUA entry after it (all of
# them up to PCUT_MAX, 60 by default; beyond that all those between an
# ENABLE's marks, or an even sample of them when they are more than
# PCUT_MAX, and an even sample of the others), the last entry of the
# log, and PCUT_RANDOM (12) random entries between flush points (seeded,
# pcut.seed=N on the kernel command line; the seed is printed).  At each
# point, on the snapshot: the filesystem mounts, and every file is, by the
# marks before the point (a mark at entry K counts from point K on):
#   - before "w-NAME": absent (ENOENT);
#   - after it but before "s-NAME" (durable): absent, or not verity and a
#     prefix of the bytes written (data, then the metadata setup appends:
#     the reference is the file as setup left it) in which whole 4 KiB
#     blocks may read as zeroes (f2fs checkpoints a file's size without its
#     unsynced data, whose blocks then read as zeroes: no guarantee is lost,
#     and never stale bytes), or, within its ENABLE, verity and verifying;
#   - after "s-NAME": not verity and exactly the bytes setup left, data and
#     metadata ("intact": what ENABLE needs to be retried; a verity bit
#     without the metadata, or a data-size inode without the bit, would be
#     a torn ENABLE), or, after "e-NAME", verity and verifying;
#   - after "v-NAME": verity and verifying: FS_IOC_MEASURE_VERITY gives the
#     measurement setup printed, the whole file reads (after drop_caches)
#     as the data, st_size is the data size.
# Never a verity file that does not verify, never an open error but ENOENT.
# Then the snapshot is unmounted and fsck (e2fsck -fn, fsck.f2fs --dry-run)
# must find it clean.
#
# pcut.break=digest checks file a against a wrong measurement, and
# pcut.break=lostflush replays without the data of every write from "w-a"
# to the last FLUSH before "s-a": file a's data blocks among them, which
# that FLUSH made durable and which nothing writes again, so every point
# after "s-a" (the end of the log, always checked, among them) must find
# file a wrong.  Both must make 80.02 fail (make selftest).
. "$VT_DIR/lib.sh"

W=$VT_WORK/pc		# references, the log's listing, replay state (tmpfs)
D=$VT_MNT/pc		# the files, on the logged device
# The device-mapper devices are named vtpc-*
DATA_MIB=384		# data and replay devices (f2fs wants some room)

SEED=$(vt_seed pcut.seed) &&
MAXF=$(vt_param pcut.max 60) &&
NRAND=$(vt_param pcut.random 12) &&
BREAK=$(vt_param pcut.break "" word) || exit 1

# NAME SIZE SEED HOW HASH ENABLE FSYNC-AFTER-ENABLE, in workload order.
# HOW: inplace (gen into the file, `fsverity setup` in place: fsyncs) or
# copied (set up on tmpfs, copied in with cat: no fsync).
FILES='
g 65636 806 copied - no no
a 12188 801 inplace sha256 yes yes
b 102401 802 copied sha256 yes no
c 1048576 803 inplace sha512 yes no
e 500000 805 inplace sha256 no no
d 3145733 804 copied sha256 yes yes
h 2097155 807 inplace crc32c yes no
i 8388609 808 inplace sha256 yes yes
'

T_REC="$FS: power cut: dm-log-writes records mkfs and a workload of 6 ENABLEs (3 blocks to 8 MiB, fsync'd or not, one file only ENABLE syncs), a set-up file and an unsynced one"
T_REPLAY="$FS: power cut: replayed to the mkfs mark, every FLUSH/FUA after it and random entries: each file absent, intact or verity and verifying by the marks; fsck clean"

if vt_selected 80.01 80.02; then
	echo "# power cut: seed $SEED (pcut.seed=$SEED), up to $MAXF flush points and $NRAND random ones${BREAK:+, BROKEN ON PURPOSE: $BREAK}"
fi

pc_cleanup() {
	grep -q " $VT_MNT " /proc/mounts && umount "$VT_MNT"
	dm_remove vtpc-snap vtpc-lw vtpc-data vtpc-log vtpc-replay vtpc-cow
}

g_setup() {
	rm -rf "$W"
	mkdir -p "$W"
	# dryrun.sh's disks are plain files: no device-mapper outside the guest
	[ -b "$VT_DEV" ] && [ -b "$VT_DEV2" ] ||
		{ echo "$VT_DEV and $VT_DEV2 are not both block devices: not in the guest?"; return 1; }
	need_cmd dmsetup vreplay fsverity gen
	fs_umount "$VT_MNT" || return 1
	vt_disk_is_free "$VT_DEV" && vt_disk_is_free "$VT_DEV2" || return 1
	pc_cleanup || return 1
	data=$((DATA_MIB * 2048))
	s1=$(dev_sectors "$VT_DEV")
	s2=$(dev_sectors "$VT_DEV2")
	[ "$s1" -ge $((2 * data + 256 * 2048)) ] ||
		{ echo "$VT_DEV: $s1 sectors, too small for 2 x $DATA_MIB MiB and a COW device"; return 1; }
	dm_create vtpc-data "0 $data linear $VT_DEV 0" &&
	dm_create vtpc-replay "0 $data linear $VT_DEV $data" &&
	dm_create vtpc-cow "0 $((s1 - 2 * data)) linear $VT_DEV $((2 * data))" &&
	dm_create vtpc-log "0 $s2 linear $VT_DEV2 0" || return 1
	echo "$data" > "$W/data_sectors"
	# The references: each file as setup leaves it, its data size and
	# its measurement
	echo "$FILES" | sed '/^$/d' > "$W/files"
	while read -r n size seed how hash en fs; do
		gen "$size" "$seed" > "$W/$n.full" || return 1
		echo "$size" > "$W/$n.size"
		[ "$hash" = - ] && continue
		setup_measure "$W/$n.full" --hash="$hash" > "$W/$n.meas" || return 1
	done < "$W/files"
}
vt_setup g_setup

mark() {	# NAME: a mark in the log
	dmsetup message vtpc-lw 0 mark "$1" || fail "dmsetup message vtpc-lw 0 mark $1 failed"
}

pc_enable() {	# FILE
	_r=$(vioctl enable "$1")
	[ "$_r" = OK ] || fail "FS_IOC_ENABLE_VERITY $1: $_r"
}

t_record() {
	need_helpers
	dm_create vtpc-lw "0 $(cat "$W/data_sectors") log-writes $DM/vtpc-data $DM/vtpc-log" ||
		fail "cannot make the dm-log-writes device"
	case $FS in
	ext4)	mkfs.ext4 -q -F -b 4096 -O verity "$DM/vtpc-lw" ;;
	f2fs)	mkfs.f2fs -q -f -O verity "$DM/vtpc-lw" > /dev/null ;;
	esac || fail "mkfs.$FS -O verity on $DM/vtpc-lw failed"
	mark mkfs
	fs_mount "$DM/vtpc-lw" "$VT_MNT" || fail "cannot mount $DM/vtpc-lw"
	mkdir "$D" || fail "mkdir $D"
	vreplay fsync "$D" "$VT_MNT" || fail "fsync $D"
	mark start
	while read -r n size seed how hash en fs; do
		f=$D/$n
		mark "w-$n"
		if [ "$how" = copied ]; then
			cat "$W/$n.full" > "$f" || fail "cannot copy $n in"
		else
			gen "$size" "$seed" > "$f" || fail "cannot write $f"
			m=$(setup_measure "$f" --hash="$hash") || fail "fsverity setup $f failed"
			expect "measurement of $n set up in place" "$(cat "$W/$n.meas")" "$m"
			vreplay fsync "$D" || fail "fsync $D"
			mark "s-$n"
		fi
		[ "$en" = yes ] || continue
		mark "e-$n"
		pc_enable "$f"
		mark "v-$n"
		if [ "$fs" = yes ]; then
			vreplay fsync "$f" || fail "fsync $f"
			mark "f-$n"
		fi
	done < "$W/files"
	fs_umount "$VT_MNT" || fail "umount of $DM/vtpc-lw failed"
	mark umount
	dmsetup remove vtpc-lw || fail "dmsetup remove vtpc-lw failed"
	blockdev --flushbufs "$DM/vtpc-log" 2> /dev/null
	vreplay list "$DM/vtpc-log" > "$W/list" || fail "vreplay list failed"
	grep -q ' MARK umount$' "$W/list" || fail "the log has no mark 'umount': $(tail -n 3 "$W/list")"
	note "the log: $(sed -n 's/^end //p' "$W/list") entries, $(grep -c -E ' (FLUSH|FUA)' "$W/list") FLUSH/FUA, marks: $(awk '$2 == "MARK" { printf "%s%s@%s", s, $3, $1; s = " " }' "$W/list")"
}

# markidx NAME: the entry index of mark NAME, or nothing
markidx() {
	awk -v m="$1" '$2 == "MARK" && $3 == m { print $1; exit }' "$W/list"
}

# pc_points: the replay points, "INDEX KIND" sorted by index, into
# $W/points; notes what was chosen
pc_points() {
	mk=$(markidx mkfs)
	[ -n "$mk" ] || fail "no mark 'mkfs' in the log"
	last=$(($(sed -n 's/^end //p' "$W/list") - 1))
	# the ENABLE windows, "E V" per line
	while read -r n size seed how hash en fs; do
		[ "$en" = yes ] && echo "$(markidx "e-$n") $(markidx "v-$n")"
	done < "$W/files" > "$W/windows"
	awk -v mk="$mk" '$1 > mk && $2 ~ /FLUSH|FUA/ { print $1 }' "$W/list" > "$W/flushes"
	nf=$(wc -l < "$W/flushes")
	# inside an ENABLE first (an even sample of them when they are more
	# than MAXF), then the others evenly until MAXF; how many were inside
	# goes to $W/points.nin
	awk -v max="$MAXF" -v ninfile="$W/points.nin" '
		FILENAME == ARGV[1] { e[NR] = $1; v[NR] = $2; nw = NR; next }
		{ idx[++n] = $1; ins[n] = 0
		  for (i = 1; i <= nw; i++) if ($1 > e[i] && $1 < v[i]) ins[n] = 1
		  if (ins[n]) nin++ }
		# even K N ROOM: the K-th (from 0) of N is one of ROOM spread
		# evenly, the first included
		function even(k, n, room) { return room > 0 && (k == 0 || int(k * room / n) != int((k - 1) * room / n)) }
		END {
			print nin + 0 > ninfile
			if (n <= max) { for (i = 1; i <= n; i++) print idx[i], "flush"; exit }
			inroom = nin < max ? nin : max
			room = max - inroom; nout = n - nin; k = 0; j = 0
			for (i = 1; i <= n; i++) {
				if (ins[i]) { if (even(j++, nin, inroom)) print idx[i], "flush"; continue }
				if (even(k++, nout, room)) print idx[i], "flush"
			}
		}' "$W/windows" "$W/flushes" > "$W/points.f"
	# random entries strictly between two points of the flush list
	{ echo "$mk"; cat "$W/flushes"; echo "$last"; } | awk -v seed="$SEED" -v nr="$NRAND" '
		{ p[++n] = $1 }
		END {
			srand(seed)
			for (i = 1; i < n; i++) if (p[i + 1] - p[i] > 1) gap[++ng] = i
			for (k = 0; k < nr && ng > 0; k++) {
				i = gap[int(rand() * ng) + 1]
				print p[i] + 1 + int(rand() * (p[i + 1] - p[i] - 1)), "random"
			}
		}' > "$W/points.r"
	{ echo "$mk mkfs"; cat "$W/points.f" "$W/points.r"; echo "$last end"; } |
		sort -n -k1,1 -u > "$W/points"
	nin=$(cat "$W/points.nin")
	if [ "$nf" -le "$MAXF" ]; then
		how="every one"
	elif [ "$nin" -le "$MAXF" ]; then
		how="all $nin inside ENABLEs, an even sample of the rest: PCUT_MAX=$MAXF"
	else
		how="an even sample of the $nin inside ENABLEs, none of the rest: PCUT_MAX=$MAXF"
	fi
	note "$FS: $nf FLUSH/FUA entries after the mkfs mark (entry $mk), $(wc -l < "$W/points.f") of them checked ($how), $(wc -l < "$W/points.r") random points (seed $SEED), the end of the log (entry $last)"
}

# passed MARK P: the mark exists and is at entry P or before
passed() {
	_i=$(markidx "$1")
	[ -n "$_i" ] && [ "$_i" -le "$2" ]
}

# check_file P NAME SIZE HOW ENABLE: the file's state at point P is
# allowed; prints what is wrong otherwise
check_file() {
	_p=$1 _n=$2 _size=$3 _how=$4 _en=$5
	_st=$(vreplay check "$VT_MNT/pc/$_n" "$W/$_n.full" "$_size")
	echo "$_st" | cut -d' ' -f1-2 >> "$W/states"
	case $_st in
	"verity ok")
		_m=$(measure_of "$VT_MNT/pc/$_n")
		_want=$(cat "$W/$_n.meas" 2>/dev/null)
		[ "$BREAK" = digest ] && [ "$_n" = a ] && _want=${_want%?}x
		[ "$_m" = "$_want" ] || { echo "$_n: verity, but measures $_m, not $_want"; return 1; }
		;;
	esac
	# the durable mark: s-NAME, v-NAME for a copied file ENABLE syncs,
	# the unmount for a copied file nothing else syncs
	_s=s-$_n
	[ "$_how" = copied ] && { [ "$_en" = yes ] && _s=v-$_n || _s=umount; }
	if ! passed "w-$_n" "$_p"; then
		_ok="absent"
	elif ! passed "$_s" "$_p"; then
		_ok="absent|plain prefix *|plain full|plain zeroed *"
		[ "$_en" = yes ] && passed "e-$_n" "$_p" && _ok="$_ok|verity ok"
	elif [ "$_en" = yes ] && passed "v-$_n" "$_p"; then
		_ok="verity ok"
	elif [ "$_en" = yes ] && passed "e-$_n" "$_p"; then
		_ok="plain full|verity ok"
	else
		_ok="plain full"
	fi
	_old_ifs=$IFS
	IFS='|'
	for _pat in $_ok; do
		# shellcheck disable=SC2254
		case $_st in $_pat) IFS=$_old_ifs; return 0 ;; esac
	done
	IFS=$_old_ifs
	echo "$_n: '$_st', allowed here: '$_ok'"
	return 1
}

# check_point P KIND: replay up to entry P, check on a snapshot; prints what
# is wrong and returns 1 on a bad point, 2 when the harness itself failed
check_point() {
	_skip=
	[ -n "$SKIP" ] && _skip="--skip $SKIP"
	# shellcheck disable=SC2086
	vreplay replay "$DM/vtpc-log" "$DM/vtpc-replay" "$1" "$W/replay.state" $_skip ||
		{ echo "vreplay replay to entry $1 failed"; return 2; }
	dm_create vtpc-snap "0 $(cat "$W/data_sectors") snapshot $DM/vtpc-replay $DM/vtpc-cow N 8" ||
		{ echo "cannot make the snapshot"; return 2; }
	echo 3 > /proc/sys/vm/drop_caches
	if ! mount -t "$FS" "$DM/vtpc-snap" "$VT_MNT" > "$W/mount.log" 2>&1; then
		echo "entry $1 ($2): the filesystem does not mount: $(cat "$W/mount.log"); $(dmesg | tail -n 5)"
		dm_remove vtpc-snap
		return 1
	fi
	echo 3 > /proc/sys/vm/drop_caches
	_bad=
	while read -r n size seed how hash en fs; do
		_why=$(check_file "$1" "$n" "$size" "$how" "$en") || _bad="$_bad $_why;"
	done < "$W/files"
	umount "$VT_MNT" || { echo "entry $1 ($2): umount of the snapshot failed"; return 2; }
	if ! fs_check "$DM/vtpc-snap" > "$W/fsck.log" 2>&1; then
		_bad="$_bad fsck: $(tail -n 8 "$W/fsck.log" | tr '\n' ' ')"
	fi
	dm_remove vtpc-snap || { echo "cannot remove the snapshot"; return 2; }
	[ -z "$_bad" ] && return 0
	echo "entry $1 ($2):$_bad"
	return 1
}

t_replay() {
	[ -s "$W/list" ] || fail "no log: the recording (80.01) failed"
	pc_points
	SKIP=
	if [ "$BREAK" = lostflush ]; then
		# the writes from w-a to the last FLUSH before s-a
		wa=$(markidx w-a)
		sa=$(markidx s-a)
		fl=$(awk -v s="$sa" '$1 < s && $2 ~ /FLUSH/ { f = $1 } END { print f }' "$W/list")
		[ -n "$fl" ] && [ "$fl" -gt "$wa" ] || fail "no FLUSH between w-a (entry $wa) and s-a (entry $sa) to break"
		SKIP="$((wa + 1))-$fl"
		note "BROKEN ON PURPOSE: the replay leaves out the data of entries $SKIP (from w-a, entry $wa, to the last FLUSH before s-a, entry $sa)"
	fi
	rm -f "$W/replay.state" "$W/states" "$W/bad"
	t0=$(date +%s)
	nbad=0 nchk=0 nfl=0 nrnd=0
	while read -r p kind; do
		check_point "$p" "$kind" > "$W/point.log" 2>&1
		rc=$?
		[ "$rc" -eq 2 ] && fail "$(cat "$W/point.log")"
		cat "$W/point.log" >> "$W/bad"
		nchk=$((nchk + 1))
		case $kind in flush) nfl=$((nfl + 1)) ;; random) nrnd=$((nrnd + 1)) ;; esac
		if [ "$rc" -ne 0 ]; then
			nbad=$((nbad + 1))
			# the first bad points say enough; the rest would take time
			[ "$nbad" -ge 3 ] && break
		fi
	done < "$W/points"
	note "$FS: $nchk points checked ($nfl flush points, $nrnd random, the mkfs mark and the end of the log) in $(($(date +%s) - t0)) s"
	note "$FS: the files' states seen: $(sort "$W/states" | uniq -c | awk '{ printf "%s%s%s=%s", s, $2, ($3 == "" ? "" : " " $3), $1; s = ", " }')"
	[ "$nbad" -eq 0 ] || fail "$nbad bad point(s), the first: $(head -n 1 "$W/bad")$( [ "$nbad" -gt 1 ] && echo "; then: $(sed -n '2,$p' "$W/bad" | tr '\n' ' ')")"
}

vt_test 80.01 "$T_REC" t_record
vt_test 80.02 "$T_REPLAY" t_replay
vt_listing || pc_cleanup > /dev/null 2>&1
exit 0
