#!/usr/bin/env bash
# Regenerate patches/NNNN-*.patch and patches/series from the commits of
# build/devtree after the 'base' tag.  The cover letter
# (patches/0000-cover-letter.patch) is kept as it is.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dev=$BUILD/devtree
[ -d "$dev/.git" ] || die "no $dev: run 'make devtree' first"
git -C "$dev" diff --quiet HEAD || die "$dev has uncommitted changes: commit them first"
n=$(git -C "$dev" rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "$dev has no commits after 'base'"

tmp=$BUILD/export.tmp
rm -rf "$tmp"
git -C "$dev" format-patch -q --zero-commit --no-signature --numbered \
	-o "$tmp" base..HEAD
# Unfold folded mail headers (a long From: is split by format-patch), so
# that checkpatch and quilt read them as one line each.
for f in "$tmp"/*.patch; do
	awk 'hdr && /^[ \t]/ { sub(/^[ \t]+/, " "); line = line $0; next }
	     { if (NR > 1) print line; line = $0 }
	     /^$/ { hdr = 0 }
	     NR == 1 { hdr = 1 }
	     END { print line }' "$f" >"$f.unfolded"
	mv "$f.unfolded" "$f"
done
find "$ROOT/patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
	! -name '0000-*' -delete
mv "$tmp"/*.patch "$ROOT/patches/"
rmdir "$tmp"
(cd "$ROOT/patches" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$ROOT/patches/series"
info "exported $n patches to patches/"
