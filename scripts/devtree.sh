#!/usr/bin/env bash
# Make build/devtree: a git repository holding the pristine tree as the commit
# tagged 'base' and the series on top, one commit per patch (git am).  Work on
# the series there, then regenerate patches/ with 'make export'.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dev=$BUILD/devtree
[ -d "$PRISTINE" ] || die "no pristine tree: run 'make tree' first"
if [ -d "$dev/.git" ]; then
	die "$dev exists: export your work ('make export') and remove it first (rm -rf $dev)"
fi

mapfile -t patches < <(series_patches)
info "copying the pristine tree to $dev"
rm -rf "$dev"
cp -a "$PRISTINE/." "$dev"
cd "$dev"
git init -q
git config user.name "$(git -C "$ROOT" config user.name)"
git config user.email "$(git -C "$ROOT" config user.email)"
# Debian's top-level .gitignore ignores everything ("/*"): add with -f.
git add -f -A . >/dev/null
git commit -q -m "Linux $(make -s kernelversion) from $(cat "$BUILD/pristine.version")"
git tag base
for p in "${patches[@]}"; do
	git am -q --whitespace=nowarn "$ROOT/patches/$p" ||
		die "git am of $p failed; the tree is left mid-am in $dev"
done
info "$dev: base + ${#patches[@]} commits; edit there, then 'make export'"
