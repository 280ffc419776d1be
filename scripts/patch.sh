#!/usr/bin/env bash
# Apply patches/series to a copy of the pristine tree, in build/linux.
# SERIES_UPTO=N applies only the first N patches (N=0: the pristine tree),
# LINUX_TREE=DIR uses another directory: 'make bisect' does both.
#
# The patched tree starts as a hard-linked copy of build/pristine.  The series
# is applied with --fuzz=0 in a scratch directory that holds only the files
# the series touches (now or at the last application); only files whose
# content changed are then replaced in build/linux, so a one-line change in a
# patch rebuilds only what depends on that file.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

series=$ROOT/patches/series
[ -f "$series" ] || die "$series is missing"
[ -d "$PRISTINE" ] || die "no pristine tree in $PRISTINE: run 'make tree' first"

mapfile -t patches < <(series_patches)
for p in "${patches[@]}"; do
	[ -f "$ROOT/patches/$p" ] || die "patches/series lists '$p', but patches/$p does not exist"
done
if [ -n "${SERIES_UPTO:-}" ]; then
	[[ $SERIES_UPTO =~ ^[0-9]+$ ]] && [ "$SERIES_UPTO" -le ${#patches[@]} ] ||
		die "SERIES_UPTO=$SERIES_UPTO: the series has ${#patches[@]} patches"
	patches=("${patches[@]:0:$SERIES_UPTO}")
fi

stamp=$LINUX.applied
files_list=$LINUX.applied.files
want=$( {
	cat "$BUILD/pristine.version"
	printf '%s\n' "${patches[@]}"
	(cd "$ROOT/patches" && cat /dev/null "${patches[@]}")
} | sha256sum | cut -d' ' -f1)
if [ -d "$LINUX" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
	exit 0
fi

if [ ! -d "$LINUX" ]; then
	info "creating $LINUX from the pristine tree"
	rm -f "$stamp" "$files_list"
	cp -al "$PRISTINE/." "$LINUX" 2>/dev/null || {
		rm -rf "$LINUX"
		cp -a "$PRISTINE/." "$LINUX"
	}
fi

# Files named by the series (both sides of renames), plus those the previous
# application touched, which may need restoring to pristine.
touched=$(for p in "${patches[@]}"; do patch_files "$ROOT/patches/$p"; done)
all=$( { printf '%s\n' "$touched"; cat "$files_list" 2>/dev/null || true; } | sed '/^$/d' | sort -u)

work=$LINUX.patchwork
rm -rf "$work"
mkdir -p "$work"
while IFS= read -r f; do
	[ -n "$f" ] || continue
	if [ -e "$PRISTINE/$f" ]; then
		mkdir -p "$work/$(dirname "$f")"
		cp -p "$PRISTINE/$f" "$work/$f"
	fi
done <<<"$all"

n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	if ! out=$(patch -d "$work" -p1 --fuzz=0 --forward --batch --no-backup-if-mismatch \
		--reject-file=- <"$ROOT/patches/$p" 2>&1); then
		printf '%s\n' "$out" | grep -E 'patching file|FAILED|malformed|can.t find|Reversed|No file' >&2 || printf '%s\n' "$out" >&2
		base=$(base_version)
		made_for=
		[ "$(cat "$BUILD/pristine.version")" = "$base" ] || made_for=" (the series is made for $base: 'make rebase-check' shows how each patch fares on each version)"
		die "patch $n ($p) does not apply to $(cat "$BUILD/pristine.version") without fuzz (see the hunks above)$made_for; rebase it: 'make devtree', fix the commit, 'make export'"
	fi
	if offsets=$(printf '%s\n' "$out" | grep -E 'offset|fuzz'); then
		printf '%s\n' "$offsets" | sed "s|^|$p: |" >&2
		info "warning: $p applies with offsets; refresh the series with 'make devtree export'"
	fi
done

changed=0
while IFS= read -r f; do
	[ -n "$f" ] || continue
	if [ -e "$work/$f" ]; then
		if ! cmp -s "$work/$f" "$LINUX/$f"; then
			mkdir -p "$LINUX/$(dirname "$f")"
			rm -f "$LINUX/$f"
			cp -p "$work/$f" "$LINUX/$f"
			touch "$LINUX/$f"
			changed=$((changed + 1))
		fi
	elif [ -e "$LINUX/$f" ]; then
		rm -f "$LINUX/$f"
		changed=$((changed + 1))
	fi
done <<<"$all"
rm -rf "$work"

printf '%s\n' "$touched" | sed '/^$/d' | sort -u >"$files_list"
echo "$want" >"$stamp"
info "applied ${#patches[@]} patches; $changed files changed in $LINUX"
