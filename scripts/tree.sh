#!/usr/bin/env bash
# Provide the pristine kernel tree in build/pristine.
#
# By default extract Debian's linux-source-6.1 tarball and record the package
# version it came from; extract again when that version changes.  With
# KSRC=/path, use that existing pristine tree instead (linked, not copied).
# When the installed version is not the one the series is made for
# (BASE_VERSION), says so, and whether the archive still offers that one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$BUILD"
stamp=$BUILD/pristine.version

if [ -n "${KSRC:-}" ]; then
	[ -f "$KSRC/Makefile" ] && [ -d "$KSRC/fs/verity" ] ||
		die "KSRC=$KSRC does not look like a kernel tree (no Makefile or fs/verity)"
	version="KSRC:$(cd "$KSRC" && pwd)"
else
	version=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null) ||
		die "$SRC_PKG is not installed: run 'make deps' (or set KSRC=/path/to/tree)"
	[ -f "$SRC_TARBALL" ] ||
		die "$SRC_TARBALL is missing although $SRC_PKG is installed: reinstall it (apt-get install --reinstall $SRC_PKG)"
	base=$(base_version)
	if [ "$version" != "$base" ]; then
		if archive_versions | grep -qxF -- "$base"; then
			info "warning: $SRC_PKG $version is installed, but the series is made for $base, which the archive offers: install it as root with 'make deps' (apt-get install $SRC_PKG=$base)"
		else
			info "warning: the series is made for $SRC_PKG $base, which the archive no longer offers; using the installed $version ('make deps' installs the newest): patches may not apply ('make rebase-check' shows which), refresh them with 'make devtree export'"
		fi
	fi
fi

if [ -e "$PRISTINE" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
	exit 0
fi

# The tree changes: everything derived from it is stale.
rm -rf "$PRISTINE" "$LINUX" "$BUILD/linux.applied" "$BUILD/bisect" "$stamp"
if [ -n "${KSRC:-}" ]; then
	info "using the pristine tree at $KSRC"
	ln -s "$(cd "$KSRC" && pwd)" "$PRISTINE"
else
	info "extracting $SRC_TARBALL ($SRC_PKG $version)"
	tmp=$BUILD/pristine.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -C "$tmp" -xf "$SRC_TARBALL"
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
	[ "$(printf '%s\n' "$top" | wc -l)" -eq 1 ] && [ -f "$top/Makefile" ] ||
		die "$SRC_TARBALL does not contain a single kernel tree"
	mv "$top" "$PRISTINE"
	rmdir "$tmp"
fi
kv=$(make -s -C "$PRISTINE" kernelversion 2>/dev/null) || kv=unknown
echo "$version" >"$stamp"
info "pristine tree: Linux $kv from $version"
