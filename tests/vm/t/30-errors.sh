#!/bin/sh
#@ fs: ext4 f2fs
# The error matrix of FS_IOC_ENABLE_VERITY and FS_IOC_MEASURE_VERITY, and
# what a verity file still allows (chmod, rename, link, unlink) and refuses
# (writes, truncation).  Every refused ENABLE must leave the file unchanged.
. "$VT_DIR/lib.sh"

D=$VT_MNT/er
W=$VT_WORK/er
SZ=10000			# 3 data blocks

g_setup() {
	fresh_group "$W" || return 1
	chmod 755 "$D"
}
vt_setup g_setup

# mk_plain NAME: a file of SZ bytes without metadata; remembers its state
mk_plain() {
	need_helpers
	gen $SZ 30 > "$D/$1" || fail "cannot write $D/$1"
	remember "$1"
}

# mk_setup NAME: a file set up with `fsverity setup`, not enabled
mk_setup() {
	need_helpers
	need_fsverity
	gen $SZ 30 > "$D/$1" || fail "cannot write $D/$1"
	setup_measure "$D/$1" > "$W/$1.meas" || fail "fsverity setup $D/$1 failed"
	remember "$1"
}

# mk_verity NAME: a set up and enabled file
mk_verity() {
	mk_setup "$1"
	r=$(vioctl enable "$D/$1")
	[ "$r" = OK ] || fail "cannot make the verity file: FS_IOC_ENABLE_VERITY $D/$1: $r"
	gen $SZ 30 > "$W/$1.orig"
	remember "$1"
}

# enable_fails ERRNO NAME [vioctl-subcommand]
enable_fails() {
	r=$(vioctl "${3:-enable}" "$D/$2")
	expect "FS_IOC_ENABLE_VERITY on $2" "$1" "$r"
}

t_eexist() {
	mk_verity v
	enable_fails EEXIST v
	unchanged v verity
	expect "measure" "$(cat "$W/v.meas")" "$(vioctl measure "$D/v")"
}

t_arg() {
	mk_setup a
	enable_fails EINVAL a "enable-arg"
	unchanged a
	expect "ENABLE with a NULL argument afterwards" OK "$(vioctl enable "$D/a")"
}

t_dir() {
	need_helpers
	mkdir -p "$D/dir"
	enable_fails EISDIR dir
}

t_fifo() {
	need_helpers
	need_cmd mkfifo
	rm -f "$D/fifo"
	mkfifo "$D/fifo" || fail "mkfifo failed"
	enable_fails ENOTTY fifo
}

t_chrdev() {
	need_helpers
	need_cmd mknod
	rm -f "$D/null"
	mknod "$D/null" c 1 3 || fail "mknod failed"
	enable_fails ENOTTY null
}

t_writer_fd() {
	mk_setup w
	r=$(vioctl hold w "$D/w" vioctl enable "$D/w")
	expect "ENABLE while another fd has the file open O_WRONLY" ETXTBSY "$r"
	unchanged w
	expect "ENABLE once the writer closed" OK "$(vioctl enable "$D/w")"
}

t_own_fd() {
	mk_setup o
	enable_fails ETXTBSY o enable-rw
	unchanged o
}

t_mmap() {
	mk_setup m
	r=$(vioctl hold mmap "$D/m" vioctl enable "$D/m")
	expect "ENABLE while a shared writable mapping exists (fd closed)" ETXTBSY "$r"
	unchanged m
}

t_eacces() {
	mk_setup p
	chmod 644 "$D/p"
	r=$(runas 1000 1000 vioctl enable "$D/p")
	expect "ENABLE by uid 1000 on a root-owned 0644 file" EACCES "$r"
	unchanged p
}

t_nocap() {
	mk_setup u
	chown 1000:1000 "$D/u"
	chmod 644 "$D/u"
	r=$(runas 1000 1000 vioctl enable "$D/u")
	expect "ENABLE by uid 1000 on its own writable file" OK "$r"
	expect "MEASURE by uid 1000" "$(cat "$W/u.meas")" "$(runas 1000 1000 vioctl measure "$D/u")"
}

t_append() {
	need_cmd chattr
	mk_setup ap
	chattr +a "$D/ap" || fail "chattr +a failed"
	r=$(vioctl enable "$D/ap")
	chattr -a "$D/ap"
	expect "ENABLE on an append-only file" EPERM "$r"
	unchanged ap
}

t_erofs() {
	mk_setup ro
	sync
	mount -o remount,ro "$VT_MNT" || fail "remount,ro failed"
	r=$(vioctl enable "$D/ro")
	mount -o remount,rw "$VT_MNT" || fail "remount,rw failed"
	expect "ENABLE on a read-only mount" EROFS "$r"
	unchanged ro
}

t_nometa() {
	mk_plain n
	enable_fails EBADMSG n
	unchanged n
	expect "MEASURE afterwards" ENODATA "$(vioctl measure "$D/n")"
}

# t_badmeta WHERE HOW VALUE: set up a file, damage its metadata with poke
# at WHERE (desc+N or end-N) and check that ENABLE refuses it
t_badmeta() {
	bad=bad$(vt_counter_add badmeta)
	mk_setup $bad
	set -- "$@" $(desc_offset "$D/$bad")
	case $1 in
	desc+*) off=$(($4 + ${1#desc+})) ;;
	end-*)	off=$(($5 - ${1#end-})) ;;
	esac
	poke "$D/$bad" "$off" "$2" "$3" || fail "poke failed"
	sync
	remember $bad
	enable_fails EBADMSG $bad
	unchanged $bad
}

t_badsize() {
	mk_setup badsize
	set -- $(desc_offset "$D/badsize")
	poke "$D/badsize" $(($1 + 24)) set "$(le64 $(($1 + 1)))" || fail "poke failed"
	remember badsize
	enable_fails EBADMSG badsize
	unchanged badsize
}

t_eopnotsupp() {	# ENABLE|MEASURE
	need_helpers
	need_fsverity
	[ -n "$VT_DEV2" ] || skip "no second disk in VTEST_DISKS"
	if ! is_mounted "$VT_MNT2"; then
		fs_mkfs "$VT_DEV2" "" || fail "mkfs without verity failed"
		fs_mount "$VT_DEV2" "$VT_MNT2" || fail "mount failed"
	fi
	f=$VT_MNT2/f
	gen $SZ 31 > "$f"
	if [ "$1" = ENABLE ]; then
		setup_measure "$f" > /dev/null || fail "fsverity setup failed"
		before="$(fsize "$f") $(sum_of "$f")"
		expect "ENABLE on $FS made without -O verity" EOPNOTSUPP "$(vioctl enable "$f")"
		expect "size and checksum (unchanged)" "$before" "$(fsize "$f") $(sum_of "$f")"
	else
		expect "MEASURE on $FS made without -O verity" EOPNOTSUPP "$(vioctl measure "$f")"
	fi
}

t_open_write() {
	mk_verity ow
	for mode in w rw append trunc rtrunc; do
		expect "open($mode) of a verity file" EPERM "$(vioctl open "$D/ow" $mode)"
	done
	unchanged ow verity
	expect "contents" "$(sum_of "$W/ow.orig")" "$(sum_of "$D/ow")"
}

t_truncate() {
	mk_verity tr
	for len in 0 4096 $((SZ + 1)) 1000000; do
		expect "truncate($len)" EPERM "$(vioctl truncate "$D/tr" $len)"
	done
	unchanged tr verity
	expect "st_size" $SZ "$(fsize "$D/tr")"
}

t_meta_ops() {
	mk_verity mo
	chmod 600 "$D/mo" || fail "chmod failed"
	expect "mode after chmod" 600 "$(stat -c %a "$D/mo")"
	chown 1000:1000 "$D/mo" || fail "chown failed"
	expect "owner after chown" 1000:1000 "$(stat -c %u:%g "$D/mo")"
	mv "$D/mo" "$D/mo2" || fail "rename failed"
	ln "$D/mo2" "$D/mo3" || fail "link failed"
	expect "link count" 2 "$(stat -c %h "$D/mo2")"
	set -- $(vioctl flags "$D/mo3")
	expect "flags through the new link" verity "$1"
	expect "contents through the new link" "$(sum_of "$W/mo.orig")" "$(sum_of "$D/mo3")"
	expect "measure through the new link" "$(cat "$W/mo.meas")" "$(vioctl measure "$D/mo3")"
	rm "$D/mo2" || fail "unlink of one link failed"
	expect "contents after unlinking the other link" "$(sum_of "$W/mo.orig")" "$(sum_of "$D/mo3")"
	rm "$D/mo3" || fail "unlink of the last link failed"
	[ -e "$D/mo3" ] && fail "file still exists after unlink"
	sync
	return 0
}

t_enodata() {
	mk_setup nd
	expect "MEASURE on a set-up, not enabled file" ENODATA "$(vioctl measure "$D/nd")"
	expect "MEASURE on a directory" ENODATA "$(vioctl measure "$D")"
}

t_eoverflow() {
	mk_verity ov
	for n in 0 1 31; do
		expect "MEASURE with digest_size $n" EOVERFLOW "$(vioctl measure "$D/ov" $n)"
	done
	expect "MEASURE with digest_size 32" "$(cat "$W/ov.meas")" "$(vioctl measure "$D/ov" 32)"
}

t_efault() {
	mk_verity ef
	expect "MEASURE with an unmapped buffer" EFAULT "$(vioctl measure-efault "$D/ef")"
}

t_measure_user() {
	mk_verity mu
	chmod 644 "$D/mu"
	expect "MEASURE by uid 1000 on a root-owned 0644 file" "$(cat "$W/mu.meas")" \
		"$(runas 1000 1000 vioctl measure "$D/mu")"
}

t_concurrent() {
	mk_setup cc
	vioctl enable "$D/cc" > "$W/cc.1" &
	vioctl enable "$D/cc" > "$W/cc.2" &
	wait
	r=$(cat "$W/cc.1" "$W/cc.2" | sort | tr '\n' ' ')
	expect "results of two concurrent ENABLEs" "EEXIST OK " "$r"
	# The winner made it a verity file holding exactly the original data
	gen $SZ 30 > "$W/cc.orig"
	echo "$(fsize "$W/cc.orig") $(sum_of "$W/cc.orig")" > "$W/cc.state"
	unchanged cc verity
	expect "measure" "$(cat "$W/cc.meas")" "$(vioctl measure "$D/cc")"
}

E="$FS: ENABLE"
vt_test 30.01 "$E on a verity file fails EEXIST" t_eexist
vt_test 30.02 "$E with a non-NULL argument fails EINVAL, file unchanged" t_arg
vt_test 30.03 "$E on a directory fails EISDIR" t_dir
vt_test 30.04 "$E on a fifo fails ENOTTY from the pipe's own ioctl" t_fifo
vt_test 30.05 "$E on a character device node fails ENOTTY from its driver" t_chrdev
vt_test 30.06 "$E while another fd has the file open for write fails ETXTBSY, unchanged" t_writer_fd
vt_test 30.07 "$E through an fd opened O_RDWR fails ETXTBSY, unchanged" t_own_fd
vt_test 30.08 "$E while a shared writable mmap exists fails ETXTBSY, unchanged" t_mmap
vt_test 30.09 "$E without write permission (uid 1000) fails EACCES, unchanged" t_eacces
vt_test 30.10 "$E needs no capability: uid 1000 enables its own file" t_nocap
vt_test 30.11 "$E on an append-only (chattr +a) file fails EPERM, unchanged" t_append
vt_test 30.12 "$E on a read-only mount fails EROFS, unchanged" t_erofs
vt_test 30.13 "$E on a file without metadata fails EBADMSG, unchanged" t_nometa
vt_test 30.14 "$E with a bad descriptor magic fails EBADMSG, unchanged" t_badmeta desc+0 xor ff
vt_test 30.15 "$E with descriptor major_version 2 fails EBADMSG, unchanged" t_badmeta desc+8 set 02
vt_test 30.16 "$E with log_tree_blocksize != log_data_blocksize fails EBADMSG, unchanged" t_badmeta desc+11 set 0d
vt_test 30.17 "$E with an unknown hash algorithm (9) fails EBADMSG, unchanged" t_badmeta desc+12 set 09000900
vt_test 30.18 "$E with tree_algorithm != data_algorithm fails EBADMSG, unchanged" t_badmeta desc+14 set 0200
vt_test 30.19 "$E with non-zero descriptor flags fails EBADMSG, unchanged" t_badmeta desc+16 set 01
vt_test 30.20 "$E with non-zero reserved descriptor bytes fails EBADMSG, unchanged" t_badmeta desc+40 set 01
vt_test 30.21 "$E with orig_file_size 0 fails EBADMSG, unchanged" t_badmeta desc+24 set 0000000000000000
vt_test 30.22 "$E with orig_file_size past the descriptor fails EBADMSG, unchanged" t_badsize
vt_test 30.23 "$E without the ROOT_HASH extension fails EBADMSG, unchanged" t_badmeta desc+32 set 0000
vt_test 30.24 "$E with an unknown extension type fails EBADMSG, unchanged" t_badmeta desc+68 set 0900
vt_test 30.25 "$E with non-zero extension reserved field fails EBADMSG, unchanged" t_badmeta desc+70 set 0100
vt_test 30.26 "$E with an extension length < 8 fails EBADMSG, unchanged" t_badmeta desc+64 set 04000000
vt_test 30.27 "$E with a bad footer magic fails EBADMSG, unchanged" t_badmeta end-1 xor ff
vt_test 30.28 "$E with desc_reverse_offset 10 (too small) fails EBADMSG, unchanged" t_badmeta end-12 set 0a000000
vt_test 30.29 "$E with desc_reverse_offset past the file start fails EBADMSG, unchanged" t_badmeta end-12 set ffffff00
vt_test 30.30 "$E on $FS made without -O verity fails EOPNOTSUPP, unchanged" t_eopnotsupp ENABLE
vt_test 30.31 "$FS: MEASURE on $FS made without -O verity fails EOPNOTSUPP" t_eopnotsupp MEASURE
vt_test 30.32 "$FS: two concurrent ENABLEs of one file: one succeeds, the other fails EEXIST" t_concurrent
vt_test 30.33 "$FS: verity file: open for write, O_APPEND, O_TRUNC fail EPERM, contents intact" t_open_write
vt_test 30.34 "$FS: verity file: truncate() fails EPERM, size unchanged" t_truncate
vt_test 30.35 "$FS: verity file: chmod, chown, rename, link, unlink work; it stays verity and intact" t_meta_ops
vt_test 30.36 "$FS: MEASURE on a non-verity file or directory fails ENODATA" t_enodata
vt_test 30.37 "$FS: MEASURE with digest_size 0, 1, 31 fails EOVERFLOW, 32 succeeds (sha256)" t_eoverflow
vt_test 30.38 "$FS: MEASURE with an unmapped buffer fails EFAULT" t_efault
vt_test 30.39 "$FS: MEASURE needs no privilege: uid 1000 measures a root-owned file" t_measure_user
exit 0
