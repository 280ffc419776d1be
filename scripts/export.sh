#!/usr/bin/env bash
# Regenerate patches/NNNN-*.patch and patches/series from the commits of
# build/devtree after the 'base' tag, and patches/0000-cover-letter.patch
# from patches/cover-letter.txt (first line: the subject; then the body),
# with git format-patch's shortlog and diffstat.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dev=$BUILD/devtree
[ -d "$dev/.git" ] || die "no $dev: run 'make devtree' first"
git -C "$dev" diff --quiet HEAD || die "$dev has uncommitted changes: commit them first"
n=$(git -C "$dev" rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "$dev has no commits after 'base'"

tmp=$BUILD/export.tmp
rm -rf "$tmp"
# A fixed abbreviation keeps the index lines stable whatever the size of
# the devtree repository.
git -C "$dev" -c core.abbrev=9 format-patch -q --zero-commit --no-signature --numbered \
	--cover-letter -o "$tmp" base..HEAD
letter=$ROOT/patches/cover-letter.txt
if [ -f "$letter" ]; then
	subject=$(head -n 1 "$letter")
	python3 - "$tmp/0000-cover-letter.patch" "$subject" "$letter" <<'PY'
import sys
path, subject, letter = sys.argv[1:]
body = open(letter).read().split('\n', 1)[1].strip('\n')
s = open(path).read()
s = s.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', body)
open(path, 'w').write(s)
PY
else
	rm "$tmp/0000-cover-letter.patch"
fi
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
find "$ROOT/patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
mv "$tmp"/*.patch "$ROOT/patches/"
rmdir "$tmp"
(cd "$ROOT/patches" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$ROOT/patches/series"
info "exported $n patches to patches/"

# The series is now made for the version of the tree devtree started from.
version=$(cat "$BUILD/pristine.version")
case $version in
KSRC:*) info "the tree came from KSRC, not a Debian version: BASE_VERSION stays $(base_version)" ;;
"$(base_version)") ;;
*)
	sed -i "s/^$(base_version | sed 's/[.]/[.]/g')\$/$version/" "$BASE_VERSION_FILE"
	[ "$(base_version)" = "$version" ] || die "could not record $version in $BASE_VERSION_FILE"
	info "BASE_VERSION: the series is now made for $SRC_PKG $version"
	;;
esac
