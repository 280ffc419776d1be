#!/bin/sh
#@ fs: ext4 f2fs
# Smoke: the filesystem can be made with the verity feature and mounted, the
# kernel advertises the feature, and the fs-verity ioctls exist.
. "$VT_DIR/lib.sh"

t_mkfs_mount() {
	fs_fresh verity || fail "cannot make and mount a $FS filesystem with -O verity"
	is_mounted "$VT_MNT" || fail "$VT_MNT not in /proc/mounts after mount"
	echo data > "$VT_MNT/probe" || fail "cannot write to the new filesystem"
}

t_sysfs() {
	f=/sys/fs/$FS/features/verity
	[ -e "$f" ] || fail "$f missing; /sys/fs/$FS/features has: $(ls /sys/fs/$FS/features 2>&1 | tr '\n' ' ')"
}

t_ioctls_exist() {
	need_helpers
	is_mounted "$VT_MNT" || fs_fresh verity || fail "no scratch filesystem"
	f=$VT_MNT/probe-ioctl
	gen 8192 1 > "$f"
	r=$(errno_of vioctl measure "$f")
	expect "FS_IOC_MEASURE_VERITY on a plain file" ENODATA "$r"
	r=$(errno_of vioctl enable "$f")
	[ "$r" = ENOTTY ] && fail "FS_IOC_ENABLE_VERITY (_IO('f', 133)) is not implemented: ENOTTY"
	expect "FS_IOC_ENABLE_VERITY on a file without metadata" EBADMSG "$r"
}

t_tool() {
	need_fsverity
	f=$VT_WORK/smoke-tool
	printf 'hello\n' > "$f"
	m=$(setup_measure "$f") || fail "fsverity setup on a tmpfs file failed"
	case $m in
	sha256:????????????????????????????????????????????????????????????????) ;;
	*) fail "setup printed '$m', expected sha256:<64 hex digits>" ;;
	esac
	s=$(fsize "$f")
	[ "$s" -gt 4096 ] || fail "file is $s bytes after setup; expected data block + metadata"
	rm -f "$f"
}

vt_test 00.01 "$FS: mkfs -O verity and mount succeed" t_mkfs_mount
vt_test 00.02 "$FS: /sys/fs/$FS/features/verity exists" t_sysfs
vt_test 00.03 "$FS: MEASURE on a plain file gives ENODATA, ENABLE without metadata EBADMSG (ioctls exist)" t_ioctls_exist
[ "$FS" = ext4 ] && vt_test 00.04 "fsverity utility: setup prints a sha256 measurement and appends metadata" t_tool
exit 0
