#!/bin/sh
#@ fs: ext4 f2fs
#@ timeout: 900
# Crafted inodes: the verity flag on every kind of inode the filesystem
# holds, with sizes that lie about its blocks, as a crafted or corrupted
# image carries them.  The flag and i_size are written on the unmounted
# device: with debugfs's set_inode_field on ext4, in the inode's node block
# (found with dump.f2fs) on f2fs.
#
# Only regular files are verity files.  On any other inode the flag is
# ignored, so every entry point (lstat, stat, statx, open read-only and
# read-write, read, readdir, readlink, FS_IOC_GETFLAGS, chattr, ENABLE,
# MEASURE, rename, unlink) must give what it gives on a control inode of the
# same kind and size without the flag (also for a regular file whose size
# alone makes the filesystem refuse it).  A regular file with the flag and no
# valid metadata stats, shows the verity attribute, refuses opens for
# reading (EINVAL, or EUCLEAN for a verity inode whose blocks ext4 cannot
# map as extents), writers and truncation (EPERM), and can be renamed and
# unlinked, unless the filesystem refuses the whole inode as corrupt
# (EUCLEAN: f2fs's inline data with the verity flag).  Each size is a pass on a fresh filesystem: a test per kind, then
# fsck (which may complain about the crafted inodes and their controls only)
# and a listing that lost no entry, then the unlinks.
. "$VT_DIR/lib.sh"

D=$VT_MNT/ci
W=$VT_WORK/ci
EXT4_VERITY_FL=0x100000		# in the ext4 inode's i_flags
F2FS_VERITY_ADVISE=0x40		# FADVISE_VERITY_BIT in the f2fs inode's i_advise
F2FS_NODE_FOOTER=4072		# nid, then ino, in an f2fs node block
F2FS_I_ADVISE=2			# offsets in the f2fs inode
F2FS_I_SIZE=16
DIR_ENTRIES=20			# a directory of one block (not inline)
DIR_LARGE_ENTRIES=300		# several blocks (ext4: an htree)
# "./" repeated: a symlink target of 201 bytes that resolves to its directory
SLOW_TARGET=$(printf './%.0s' $(seq 100)).

# The sizes: the word in the test IDs; ci_size_value SIZE KIND gives the
# i_size written ("-": the inode keeps its own).  f2fs's readdir and rmdir
# walk every block of a directory's i_size, flag or no flag: its
# directories get sizes that take seconds to walk, not days.
CI_SIZES="asis zero short long huge"
ci_size_value() {
	case $1:$FS:$2 in
	asis:*) echo - ;;
	zero:*) echo 0 ;;
	short:*) echo 1 ;;
	long:f2fs:dir*) echo $((16 * BS)) ;;
	huge:f2fs:dir*) echo $((1 << 24)) ;;
	long:*) echo $((1 << 30)) ;;
	huge:*) echo $((1 << 62)) ;;
	esac
}

# The kinds of inode; reg* are regular files
case $FS in
ext4)
	CI_KINDS="reg reginline dir dirlarge dirinline symfast symslow fifo chr blk sock"
	CI_FEATURES=verity,inline_data
	;;
f2fs)
	# dir is inline (f2fs's inline_dentry), dirlarge is not
	CI_KINDS="reg reginline regcompr dir dirlarge symfast symslow fifo chr blk sock"
	CI_FEATURES=verity,extra_attr,compression
	;;
esac

# ci_make KIND PATH: an inode of KIND at PATH
ci_make() {
	case $1 in
	reg)	gen $((3 * BS)) 340 > "$2" ;;
	reginline) gen 100 341 > "$2" ;;
	regcompr) : > "$2" && chattr +c "$2" && gen $((3 * BS)) 342 > "$2" ;;
	dirinline) mkdir "$2" && : > "$2/a" ;;
	dir | dirlarge)
		mkdir "$2" || return 1
		[ "$1" = dir ] && _n=$DIR_ENTRIES || _n=$DIR_LARGE_ENTRIES
		_i=0
		while [ $_i -lt "$_n" ]; do
			: > "$2/entry-with-a-long-name-$_i" || return 1
			_i=$((_i + 1))
		done ;;
	symfast) ln -s . "$2" ;;
	symslow) ln -s "$SLOW_TARGET" "$2" ;;
	fifo)	mkfifo "$2" ;;
	chr)	mknod "$2" c 1 3 ;;		# /dev/null's numbers
	blk)	mknod "$2" b 7 250 ;;		# a loop device that does not exist
	sock)	vfsops mksock "$2" > /dev/null ;;
	esac || { echo "cannot make the $1 inode $2"; return 1; }
}

# ci_is_reg KIND: KIND is a regular file
ci_is_reg() {
	case $1 in reg*) return 0 ;; esac
	return 1
}

# ci_refused KIND: the filesystem refuses the crafted inode of KIND as
# corrupt because of the flag (EUCLEAN at every lookup, so unlink too; its
# entry stays for fsck): f2fs's inline data cannot hold a verity file's
# metadata, and f2fs refuses inline data on an inode with the verity flag.
# (A control that its size alone makes refused, as ext4 refuses a regular
# file of 2^62 bytes, is compared like the other controls.)
ci_refused() {
	[ "$FS:$1" = f2fs:reginline ]
}

# ci_names: the entries of $D, as readdir gives them (a shell glob, which
# stats nothing: ls would fail on a refused inode)
ci_names() {
	(cd "$D" && for _e in .* *; do
		# an unmatched pattern stays as it is
		case $_e in '*' | '.*') [ -e "$_e" ] || [ -L "$_e" ] || continue ;; esac
		echo "$_e"
	done) | sort
}

# ci_have CMD...: every CMD is on PATH (the setup of a pass returns 1
# instead of failing: it runs in the group's shell)
ci_have() {
	for _c; do
		command -v "$_c" > /dev/null 2>&1 ||
			{ echo "'$_c' not found on PATH: the initramfs lacks it (scripts/initramfs.sh)"; return 1; }
	done
}

# ci_craft_ext4 KIND...: on the unmounted $VT_DEV, set the verity flag of
# $D/KIND (not of KIND.ctl) and, unless the pass's size is "-", the i_size
# of both, in one debugfs run
ci_craft_ext4() {
	ci_have debugfs || return 1
	: > "$W/craft.cmds"
	for _k; do
		_size=$(ci_size_value "$CI_SIZE" "$_k")
		for _p in "/ci/$_k" "/ci/$_k.ctl"; do
			if [ "$_p" = "/ci/$_k" ]; then
				_fl=$(debugfs -R "stat $_p" "$VT_DEV" 2>/dev/null |
					sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
				[ -n "$_fl" ] || { echo "debugfs: no flags for $_p"; return 1; }
				printf 'set_inode_field %s flags 0x%x\n' "$_p" $((_fl | EXT4_VERITY_FL)) >> "$W/craft.cmds"
			fi
			[ "$_size" = - ] || echo "set_inode_field $_p size $_size" >> "$W/craft.cmds"
		done
	done
	debugfs -w -f "$W/craft.cmds" "$VT_DEV" > "$W/craft.log" 2>&1 ||
		{ cat "$W/craft.log"; return 1; }
	# debugfs echoes each command ("debugfs: CMD"); anything else is an error
	if grep -v '^debugfs' "$W/craft.log" | grep -q .; then
		cat "$W/craft.log"
		return 1
	fi
}

# f2fs_node_block INO: the device byte offset of inode INO's node block on
# the unmounted $VT_DEV, from the NAT as dump.f2fs reads it (-n FIRST~END,
# END excluded, writes ./dump_nat)
f2fs_node_block() {
	ci_have dump.f2fs || return 1
	rm -f "$W/dump_nat"
	(cd "$W" && dump.f2fs -n "$1~$(($1 + 1))" "$VT_DEV") > "$W/dump.log" 2>&1 ||
		{ cat "$W/dump.log"; return 1; }
	_blk=$(awk -v n="$1" '$1 == "nid:" && $2 == n { print $8 }' "$W/dump_nat")
	[ -n "$_blk" ] && [ "$_blk" != 0 ] || { echo "dump.f2fs gave no block for nid $1"; return 1; }
	_off=$((_blk * BS))
	_ids="$(poke "$VT_DEV" $((_off + F2FS_NODE_FOOTER)) getle 4) $(poke "$VT_DEV" $((_off + F2FS_NODE_FOOTER + 4)) getle 4)"
	[ "$_ids" = "$1 $1" ] || { echo "node footer of block $_blk: nid and ino $_ids, not $1"; return 1; }
	echo "$_off"
}

# ci_craft_f2fs KIND...: the same on f2fs, in the inodes' node blocks (their
# numbers recorded in $W/NAME.ino before the unmount)
ci_craft_f2fs() {
	for _k; do
		_size=$(ci_size_value "$CI_SIZE" "$_k")
		for _n in "$_k" "$_k.ctl"; do
			_off=$(f2fs_node_block "$(cat "$W/$_n.ino")") || { echo "$_off"; return 1; }
			if [ "$_n" = "$_k" ]; then
				_a=$(poke "$VT_DEV" $((_off + F2FS_I_ADVISE)) getle 1) || return 1
				poke "$VT_DEV" $((_off + F2FS_I_ADVISE)) set \
					"$(printf '%02x' $((_a | F2FS_VERITY_ADVISE)))" > /dev/null || return 1
			fi
			[ "$_size" = - ] ||
				poke "$VT_DEV" $((_off + F2FS_I_SIZE)) set "$(le64 "$_size")" > /dev/null ||
				return 1
		done
	done
}

# ci_pass_setup: a fresh filesystem with every kind (and a control of each
# kind), crafted for the size $CI_SIZE, mounted
ci_pass_setup() {
	ci_have vioctl vfsops poke gen chattr || return 1
	rm -rf "$W"
	mkdir -p "$W"
	fs_fresh "$CI_FEATURES" || return 1
	mkdir -p "$D"
	for _k in $CI_KINDS; do
		ci_make "$_k" "$D/$_k" || return 1
		ci_make "$_k" "$D/$_k.ctl" || return 1
	done
	# the inode numbers: f2fs's crafting needs them, fsck names them
	for _k in $CI_KINDS; do
		for _n in "$_k" "$_k.ctl"; do
			[ -e "$D/$_n" ] || [ -L "$D/$_n" ] || continue
			stat -c %i "$D/$_n" > "$W/$_n.ino"
		done
	done
	cat "$W"/*.ino > "$W/ids"
	ci_names > "$W/names"
	fs_umount "$VT_MNT" || return 1
	# shellcheck disable=SC2086
	ci_craft_$FS $CI_KINDS || { echo "crafting the inodes failed"; return 1; }
	fs_mount "$VT_DEV" "$VT_MNT" || return 1
}

# ci_quiet CMD...: CMD's status and its error message without the paths
ci_quiet() {
	_out=$("$@" 2>&1 > /dev/null)
	_rc=$?
	echo "rc=$_rc $(echo "$_out" | sed "s|$D/[^:]*: ||; s|$D/[^ ]*||g" | head -n 1)"
}

# ci_ops KIND PATH: the answer of each entry point for the inode at PATH,
# one line each (the verity bit of FS_IOC_GETFLAGS left out: it shows the
# on-disk flag)
ci_ops() {
	_k=$1
	_p=$2
	echo "lstat $(stat -c '%F %s' "$_p" 2>&1 | sed "s|$D/[^:]*: ||")"
	echo "stat $(stat -L -c '%F %s' "$_p" 2>&1 | sed "s|$D/[^:]*: ||")"
	echo "lstatx $(vioctl lstatx "$_p")"
	echo "statx $(vioctl statx "$_p")"
	echo "open-r $(vioctl open "$_p" r)"
	echo "open-rw $(vioctl open "$_p" rw)"
	case $_k in
	reg* | dir* | sym*)
		_f=$(vioctl flags "$_p")
		case $_f in 0x* | verity* | -*) _f=$(printf '0x%08x' $((${_f#* } & ~EXT4_VERITY_FL))) ;; esac
		echo "getflags $_f"
		echo "chattr $(ci_quiet chattr +d "$_p") $(ci_quiet chattr -d "$_p")"
		echo "read $(ci_quiet head -c 64 "$_p")" ;;
	chr)	echo "read $(ci_quiet head -c 64 "$_p")" ;;
	esac
	case $_k in
	dir*)	echo "readdir $(ls -a "$_p" 2>&1 | sort | sed "s|$D/[^:]*: ||" | tr '\n' ' ')" ;;
	sym*)	echo "readlink $(readlink "$_p")" ;;
	esac
	echo "enable $(vioctl enable "$_p")"
	echo "measure $(vioctl measure "$_p")"
	echo "rename $(ci_quiet mv "$_p" "$_p.mv") $(ci_quiet mv "$_p.mv" "$_p")"
}

# The answers of a regular file with the verity flag and no metadata
# (ci_reg_expected KIND SIZE), as ci_ops prints them but for the lines that
# ci_reg_check compares itself
ci_reg_open_errno() {
	case $FS:$1 in
	ext4:reginline) echo EUCLEAN ;;
	*) echo EINVAL ;;
	esac
}

# t_kind KIND: the entry points of the crafted inode of KIND, against its
# control (or, for a regular file, against what a verity file without
# valid metadata gives)
t_kind() {
	_k=$1
	ci_ops "$_k" "$D/$_k" > "$W/$_k.ops"
	cat "$W/$_k.ops"
	grep -qx "$_k" "$W/names" || fail "precondition: $_k was not made"
	if ci_refused "$_k"; then
		for op in lstat stat lstatx statx open-r open-rw read enable measure rename; do
			grep -q "^$op .*\(EUCLEAN\|Structure needs cleaning\)" "$W/$_k.ops" ||
				fail "$op: expected EUCLEAN, the inode refused as corrupt (all above)"
		done
		return 0
	fi
	ci_ops "$_k" "$D/$_k.ctl" | sed "s|$_k\.ctl|$_k|g" > "$W/$_k.ctl.ops"
	# a control refused for its size alone: the crafted inode answers alike
	if ci_is_reg "$_k" && ! grep -q '^lstat .*Structure needs cleaning' "$W/$_k.ctl.ops"; then
		e=$(ci_reg_open_errno "$_k")
		size=$(ci_size_value "$CI_SIZE" "$_k")
		[ "$size" != - ] || size=$(sed -n 's/^lstat [a-z ]* \([0-9]*\)$/\1/p' "$W/$_k.ops")
		case $size in 0) ty="regular empty file" ;; *) ty="regular file" ;; esac
		for want in "lstat $ty $size" "stat $ty $size" "lstatx verity $size" "statx verity $size" \
			"open-r $e" "open-rw EPERM" "getflags open:$e" "enable open:$e" "measure open:$e" \
			"rename rc=0  rc=0 "; do
			grep -qxF "$want" "$W/$_k.ops" || fail "expected the line '$want' (all above)"
		done
		expect "truncate to 0" EPERM "$(vioctl truncate "$D/$_k" 0)"
		grep -q '^read rc=0' "$W/$_k.ops" && fail "a read of the crafted regular file succeeded"
		return 0
	fi
	if ! cmp -s "$W/$_k.ops" "$W/$_k.ctl.ops"; then
		echo "the control without the flag answers:"
		diff "$W/$_k.ctl.ops" "$W/$_k.ops"
		fail "$_k with the verity flag answers otherwise than without it"
	fi
}

# t_fsck: fsck names no inode but the crafted ones and their controls, and
# the directory lists every entry
t_fsck() {
	expect "the entries of $D" "$(cat "$W/names")" "$(ci_names)"
	ids=$(tr '\n' ' ' < "$W/ids")
	fs_umount "$VT_MNT" || fail "umount failed"
	if fs_check "$VT_DEV" > "$W/fsck.out"; then
		note "fsck: clean"
	else
		# e2fsck: "Inode 12, ...", fsck.f2fs: "ino: 0xc", "nid: 0xc"
		bad=$(grep -oiE '(inode|ino:|nid:) *(0x[0-9a-f]+|[0-9]+)' "$W/fsck.out" |
			awk '{ n = $NF; if (n ~ /^0x/) n = sprintf("%d", n); print n }' | sort -un |
			while read -r n; do
				case " $ids " in *" $n "*) ;; *) echo "$n" ;; esac
			done)
		note "fsck: $(grep -ciE 'inode|ino:|nid:' "$W/fsck.out") lines on the crafted inodes"
		[ -z "$bad" ] || { cat "$W/fsck.out"; fail "fsck names other inodes: $bad"; }
	fi
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount failed"
}

# t_unlink: unlink (rm -rf) each crafted inode and its control: the same
# answer for both, and nothing else goes
t_unlink() {
	want=
	for _k in $CI_KINDS; do
		r=$(ci_quiet rm -rf "$D/$_k")
		if ci_refused "$_k"; then
			case $r in rc=0*) fail "unlink of the refused $_k succeeded" ;; esac
			want="$want $_k"
			# its control, unless its size alone has it refused too
			if stat "$D/$_k.ctl" > /dev/null 2>&1; then
				expect "unlink of the control of the refused $_k" "rc=0 " \
					"$(ci_quiet rm -rf "$D/$_k.ctl")"
			else
				want="$want $_k.ctl"
			fi
		else
			expect "unlink of $_k, as of its control" "$(ci_quiet rm -rf "$D/$_k.ctl")" "$r"
			case $r in rc=0*) ;; *) want="$want $_k $_k.ctl" ;; esac
		fi
	done
	left=$(ci_names | tr '\n' ' ')
	note "left in $D: $left"
	expect "the entries left: the refused inodes and those unlink refused on a crafted inode and its control alike" \
		"$(printf '%s\n' . .. $want | sort | tr '\n' ' ')" "$left"
}

for CI_SIZE in $CI_SIZES; do
	vt_setup ci_pass_setup
	for k in $CI_KINDS; do
		vt_test "34.$CI_SIZE.$k" "$FS: crafted $k inode with the verity flag, i_size $CI_SIZE: every entry point as expected" t_kind "$k"
	done
	vt_test "34.$CI_SIZE.fsck" "$FS: crafted inodes, i_size $CI_SIZE: fsck names only them, no directory entry lost" t_fsck
	vt_test "34.$CI_SIZE.unlink" "$FS: crafted inodes, i_size $CI_SIZE: unlink of each as of its control, nothing else goes" t_unlink
done
exit 0
