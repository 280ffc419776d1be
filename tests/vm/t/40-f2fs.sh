#!/bin/sh
#@ fs: f2fs
# f2fs specifics: the data size shows before the first open, inline files,
# compressed files refused.
. "$VT_DIR/lib.sh"

D=$VT_MNT/f2
W=$VT_WORK/f2

g_setup() {
	fresh_group "$W"
}
vt_setup g_setup

t_stat_before_open() {
	need_helpers
	need_fsverity
	f=$D/st
	gen 20000 40 > "$f"
	m=$(setup_measure "$f") || fail "fsverity setup failed"
	expect "ENABLE" OK "$(vioctl enable "$f")"
	fs_remount || fail "remount failed"
	expect "st_size by stat() right after mount, before any open" 20000 "$(fsize "$f")"
	expect "statx, still before any open" "verity 20000" "$(vioctl statx "$f")"
	expect "checksum" "$(gen 20000 40 | sum_of /dev/stdin)" "$(sum_of "$f")"
	expect "measure" "$m" "$(measure_of "$f")"
}

t_inline() {
	need_helpers
	need_fsverity
	f=$D/inl
	gen 100 41 > "$f"
	sync
	fl=$(physoff -F "$f" 0)
	case $fl in
	*data_inline*) ;;
	*) skip "f2fs did not keep the 100-byte file inline (FIEMAP flags: $fl)" ;;
	esac
	m=$(setup_measure "$f") || fail "fsverity setup failed"
	expect "ENABLE" OK "$(vioctl enable "$f")"
	expect "st_size" 100 "$(fsize "$f")"
	expect "checksum" "$(gen 100 41 | sum_of /dev/stdin)" "$(sum_of "$f")"
	fs_remount || fail "remount failed"
	expect "st_size after remount" 100 "$(fsize "$f")"
	expect "checksum after remount" "$(gen 100 41 | sum_of /dev/stdin)" "$(sum_of "$f")"
	expect "read at EOF" "bytes=0 end=EOF" "$(rdtest range "$f" 100 4096)"
	expect "measure" "$m" "$(measure_of "$f")"
}

t_compressed() {
	need_helpers
	need_fsverity
	need_cmd chattr lsattr
	[ -n "$VT_DEV2" ] || skip "no second disk in VTEST_DISKS"
	fs_umount "$VT_MNT2"
	fs_mkfs "$VT_DEV2" verity,extra_attr,compression > "$W/mkfs.log" 2>&1 ||
		skip "mkfs.f2fs -O verity,extra_attr,compression failed: $(cat "$W/mkfs.log")"
	mounted=
	for alg in lz4 lzo zstd; do
		if fs_mount "$VT_DEV2" "$VT_MNT2" compress_algorithm=$alg > "$W/mount.log" 2>&1; then
			mounted=$alg
			break
		fi
	done
	[ -n "$mounted" ] ||
		skip "the kernel mounts no f2fs with compression (CONFIG_F2FS_FS_COMPRESSION and lz4/lzo/zstd needed)"
	f=$VT_MNT2/c
	: > "$f"
	if ! chattr +c "$f" 2> "$W/chattr.log"; then
		dmesg | grep -q 'compression options not supported' &&
			skip "the kernel has no f2fs compression (CONFIG_F2FS_FS_COMPRESSION): chattr +c: $(cat "$W/chattr.log")"
		skip "chattr +c failed: $(cat "$W/chattr.log")"
	fi
	yes "compressible line of text for the f2fs compression test" | head -c 65536 > "$f"
	sync
	a=$(lsattr "$f")
	case ${a%% *} in *c*) ;; *) skip "the file is not compressed after chattr +c ($a)" ;; esac
	setup_measure "$f" > /dev/null || fail "fsverity setup on the compressed file failed"
	sync
	before="$(fsize "$f") $(sum_of "$f")"
	r=$(vioctl enable "$f")
	note "ENABLE on a compressed file ($mounted): $r"
	expect_one_of "ENABLE on a compressed file" "$r" EOPNOTSUPP EINVAL EPERM
	expect "size and checksum (unchanged)" "$before" "$(fsize "$f") $(sum_of "$f")"
	set -- $(vioctl flags "$f")
	expect "verity flag" - "$1"
}

vt_test 40.01 "f2fs: stat() shows the data size after remount, before any open" t_stat_before_open
vt_test 40.02 "f2fs: a file inline before setup enables and reads back correctly, also after remount" t_inline
vt_test 40.03 "f2fs: ENABLE on a compressed file is refused with a clear errno, file unchanged" t_compressed
exit 0
