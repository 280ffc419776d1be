#!/usr/bin/env bash
# Build the busybox initramfs that boots the test suite:
# build/initramfs.cpio.gz.
#
# It holds busybox-static, the filesystem tools the suite uses with the shared
# libraries they need, the project's utility (tools/) and test helpers
# (tests/vm/helpers/) built statically, and tests/vm/ as /tests.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/initramfs.cpio.gz
root=$BUILD/initramfs.root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,proc,sys,dev,tmp,mnt,root,lib,lib64}

bb=/bin/busybox
file -L "$bb" | grep -q 'statically linked' ||
	die "$bb is not a static busybox: install busybox-static (make deps)"
cp "$bb" "$root/bin/busybox"
for applet in $("$bb" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

# Dynamically linked host tools, with their libraries and the loader.
host_tools=(mke2fs mkfs.ext4 tune2fs e2fsck debugfs chattr lsattr filefrag
	mkfs.f2fs fsck.f2fs keyctl openssl)
copy_with_libs() {
	local bin=$1 dest=$2 lib
	cp -L "$bin" "$root$dest"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
for t in "${host_tools[@]}"; do
	path=$(PATH=/usr/sbin:/sbin:/usr/bin:/bin command -v "$t") ||
		die "$t is not installed: run 'make deps'"
	rm -f "$root/usr/bin/$t"
	copy_with_libs "$path" "/usr/bin/$t"
done
cp /etc/mke2fs.conf "$root/etc/mke2fs.conf"
# openssl's default configuration, so 'openssl req' works in the guest.
ossl_conf=$(openssl version -d | sed 's/.*"\(.*\)".*/\1/')/openssl.cnf
if [ -f "$ossl_conf" ]; then
	mkdir -p "$root$(dirname "$ossl_conf")"
	cp -L "$ossl_conf" "$root$ossl_conf"
fi
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

# The project's own programs, built statically.
if [ -f "$ROOT/tools/Makefile" ]; then
	make -s -C "$ROOT/tools" O="$BUILD/tools" >/dev/null ||
		die "building tools/ failed: run 'make -C tools O=$BUILD/tools' to see why"
	cp "$BUILD/tools/fsverity.static" "$root/usr/local/bin/fsverity"
fi
if [ -f "$ROOT/tests/vm/helpers/Makefile" ]; then
	make -s -C "$ROOT/tests/vm/helpers" O="$BUILD/vm-helpers" >/dev/null ||
		die "building tests/vm/helpers failed: run 'make -C tests/vm/helpers O=$BUILD/vm-helpers' to see why"
	find "$BUILD/vm-helpers" -maxdepth 1 -type f -perm -u+x -exec cp {} "$root/usr/local/bin/" \;
fi

cp -a "$ROOT/tests/vm" "$root/tests"
rm -rf "$root/tests/helpers"
cp "$ROOT/initramfs/init" "$root/init"
chmod 0755 "$root/init"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
info "initramfs ready: ${out#"$ROOT"/} ($(du -h "$out" | cut -f1))"
