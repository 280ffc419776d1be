#!/usr/bin/env bash
# Build the busybox initramfs that boots the test suite:
# build/initramfs.cpio.gz (FLAVOR=i386: build/initramfs-i386.cpio.gz).
#
# It holds busybox-static, the filesystem tools the suite uses with the shared
# libraries they need, the project's utility (tools/) and test helpers
# (tests/vm/helpers/) built statically, and tests/vm/ as /tests.
#
# The host's own programs for the x86_64 guest.  For FLAVOR=i386 the same
# programs come from Debian's i386 packages, downloaded (apt-get download,
# never installed: 'make deps' adds the i386 architecture to apt) into
# build/i386-debs/ and extracted into the staging root build/i386-root/,
# whose shared libraries and loader (/lib/ld-linux.so.2) follow them; tools/
# and the helpers are built with 'gcc -m32', tools/ against the static
# libcrypto of libssl-dev:i386 in the staging root.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$INITRAMFS
root=${out%.cpio.gz}.root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,proc,sys,dev,tmp,mnt,root,lib,lib64}

# Dynamically linked host tools, with their libraries and the loader.
host_tools=(mke2fs mkfs.ext4 tune2fs e2fsck debugfs chattr lsattr filefrag
	mkfs.f2fs fsck.f2fs keyctl openssl dmsetup)

# sysroot: where the guest's programs come from ('' = the host);
# suffix names the build folders of tools/ and the helpers; make_cc sets
# their compiler.
sysroot=
suffix=
make_cc=()
if [ "$KARCH" = i386 ]; then
	sysroot=$BUILD/i386-root
	suffix=-i386
	# Large-file offsets: the helpers use off_t (tools/ sets it itself).
	make_cc=(CC="gcc -m32 -D_FILE_OFFSET_BITS=64 -Wno-psabi")
	debs=$BUILD/i386-debs
	mkdir -p "$debs"
	# The packages: busybox-static, those of the host tools and of their
	# libraries (as the host's ldd and dpkg see them), and libssl-dev.
	pkg_of() {
		local f c
		for f in "$1" "$(readlink -f "$1")"; do
			for c in "$f" "/usr$f" "${f#/usr}"; do
				dpkg -S "$c" 2>/dev/null | sed -n '1s/[:,].*//p' | grep . && return
			done
		done
		die "no Debian package owns $1"
	}
	mapfile -t pkgs < <(for t in "${host_tools[@]}"; do
		p=$(PATH=/usr/sbin:/sbin:/usr/bin:/bin command -v "$t") || die "$t is not installed: run 'make deps'"
		pkg_of "$p"
		for lib in $(ldd "$p" | grep -o '/[^ ]*'); do pkg_of "$lib"; done
	done | sort -u)
	pkgs=(busybox-static libssl-dev "${pkgs[@]}")
	pkgs=("${pkgs[@]/%/:i386}")
	# Download what changed: the versions apt offers are the key.
	key=$(apt-cache show --no-all-versions "${pkgs[@]}" 2>/dev/null |
		grep -E '^(Package|Version):' | paste -sd' ')
	[ -n "$key" ] || die "apt knows no i386 packages: run 'make deps' (as root)"
	if [ "$(cat "$debs/key" 2>/dev/null)" != "$key" ]; then
		info "downloading the guest's i386 packages into ${debs#"$ROOT"/}"
		rm -f "$debs"/*.deb "$debs/key"
		(cd "$debs" && apt-get -qq -o APT::Sandbox::User=root download "${pkgs[@]}") ||
			die "apt-get download of the i386 packages failed"
		echo "$key" >"$debs/key"
	fi
	rm -rf "$sysroot"
	mkdir -p "$sysroot"
	for d in "$debs"/*.deb; do
		dpkg-deb -x "$d" "$sysroot"
	done
fi

bb=$sysroot/bin/busybox
file -L "$bb" | grep -q 'statically linked' ||
	die "$bb is not a static busybox: install busybox-static (make deps)"
cp "$bb" "$root/bin/busybox"
# The applets: the host's busybox-static lists them (an i386 busybox may not
# run on the host), the same Debian version.
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

# libs_of BIN: the shared libraries and the loader BIN needs, as paths in
# the guest: ldd for the host's programs; for the staging root's, the
# ELF interpreter and DT_NEEDED entries (recursively) found in its
# library folders, since the host need not run i386 programs.
libs_of() {
	if [ -z "$sysroot" ]; then
		ldd "$1" 2>/dev/null | grep -o '/[^ ]*'
		return
	fi
	local todo=("$1") seen=" " f n d found
	readelf -l "$1" | sed -n 's/.*program interpreter: \(.*\)]/\1/p'
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $n "*) continue ;; esac
			seen+="$n "
			found=
			for d in /lib/i386-linux-gnu /usr/lib/i386-linux-gnu; do
				[ -e "$sysroot$d/$n" ] && found=$d/$n && break
			done
			[ -n "$found" ] || die "$n (needed by ${f#"$sysroot"}) is in none of the i386 packages in ${debs#"$ROOT"/}"
			echo "$found"
			todo+=("$sysroot$found")
		done
	done
}
copy_with_libs() {
	local bin=$1 dest=$2 lib
	cp -L "$bin" "$root$dest"
	for lib in $(libs_of "$bin"); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$sysroot$lib" "$root$lib"
	done
}
for t in "${host_tools[@]}"; do
	path=$(PATH=$sysroot/usr/sbin:$sysroot/sbin:$sysroot/usr/bin:$sysroot/bin command -v "$t") ||
		die "$t is not installed: run 'make deps'"
	rm -f "$root/usr/bin/$t"
	copy_with_libs "$path" "/usr/bin/$t"
done
# dump.f2fs is fsck.f2fs under another name (f2fs-tools picks the tool by
# argv[0]): the crafted-inode group finds an inode's node block with it.
ln -s fsck.f2fs "$root/usr/bin/dump.f2fs"
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
# FLAVOR=i386: libcrypto.a and its configuration.h from the staging root.
make_hint=
if [ -n "$sysroot" ]; then
	export CPPFLAGS="-I$sysroot/usr/include/i386-linux-gnu" LDFLAGS="-L$sysroot/usr/lib/i386-linux-gnu"
	make_hint=" ${make_cc[0]%%=*}='${make_cc[0]#*=}' (with CPPFLAGS and LDFLAGS of ${BASH_SOURCE[0]#"$ROOT"/} in the environment)"
fi
# Both are required: a test whose program is missing fails (need_cmd).
[ -f "$ROOT/tools/Makefile" ] || die "tools/Makefile is missing: the guest needs the fsverity utility"
[ -f "$ROOT/tests/vm/helpers/Makefile" ] || die "tests/vm/helpers/Makefile is missing: the guest needs the test helpers"
make -s -C "$ROOT/tools" O="$BUILD/tools$suffix" "${make_cc[@]}" >/dev/null ||
	die "building tools/ failed: run 'make -C tools O=$BUILD/tools$suffix${make_hint}' to see why"
cp "$BUILD/tools$suffix/fsverity.static" "$root/usr/local/bin/fsverity"
make -s -C "$ROOT/tests/vm/helpers" O="$BUILD/vm-helpers$suffix" "${make_cc[@]}" >/dev/null ||
	die "building tests/vm/helpers failed: run 'make -C tests/vm/helpers O=$BUILD/vm-helpers$suffix${make_hint}' to see why"
find "$BUILD/vm-helpers$suffix" -maxdepth 1 -type f -perm -u+x -exec cp {} "$root/usr/local/bin/" \;
[ -n "$(find "$BUILD/vm-helpers$suffix" -maxdepth 1 -type f -perm -u+x -name vioctl)" ] ||
	die "the helpers' build left no vioctl in $BUILD/vm-helpers$suffix"

cp -a "$ROOT/tests/vm" "$root/tests"
rm -rf "$root/tests/helpers" "$root/tests/kmod"
cp "$ROOT/initramfs/init" "$root/init"
chmod 0755 "$root/init"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
info "initramfs ready: ${out#"$ROOT"/} ($(du -h "$out" | cut -f1))"
