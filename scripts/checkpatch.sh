#!/usr/bin/env bash
# Run the tree's own scripts/checkpatch.pl --strict over every patch of the
# series; one TAP line per patch and a closing "N passed, M failed".
#
# A patch passes with no ERROR and no WARNING, except the one exception
# below.  CHECKs (--strict) are printed, not counted: the remaining ones
# follow the style of the surrounding, pre-existing code.
#
# Exception: "added, moved or deleted file(s), does MAINTAINERS need
# updating?" -- the files added and removed by the series all lie under
# fs/verity/ and include/{,uapi/}linux/fsverity.h, which the existing
# "FSVERITY" MAINTAINERS entry already covers (as it does the removed
# fs/{ext4,f2fs,btrfs}/verity.c through their filesystems' entries).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -x "$PRISTINE/scripts/checkpatch.pl" ] || die "no $PRISTINE/scripts/checkpatch.pl: run 'make tree'"
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$ROOT/patches/series")
allowed='does MAINTAINERS need updating\?'

# checkpatch's verdict depends only on the patch and on checkpatch itself
# (the script and its word lists): it is kept in build/checkpatch-cache
# under a hash of those, so the edit-and-test loop re-checks only the patch
# that changed.  The others are checked $JOBS at a time.
cache=$BUILD/checkpatch-cache
mkdir -p "$cache"
tool=$(cat "$PRISTINE"/scripts/checkpatch.pl "$PRISTINE"/scripts/spelling.txt \
	"$PRISTINE"/scripts/const_structs.checkpatch 2>/dev/null | sha256sum | cut -c1-32)
declare -A result
for p in "${patches[@]}"; do
	[ -f "$ROOT/patches/$p" ] || die "patches/series lists $p, which is not in patches/"
	result[$p]=$cache/$(cat <(echo "$tool") "$ROOT/patches/$p" | sha256sum | cut -c1-32)
	[ -f "${result[$p]}" ] && continue
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
	( cd "$PRISTINE" && ./scripts/checkpatch.pl --strict --terse -q "$ROOT/patches/$p" \
		>"${result[$p]}.tmp" 2>&1 || true; mv "${result[$p]}.tmp" "${result[$p]}" ) &
done
wait

pass=0
fail=0
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	out=$(cat "${result[$p]}")
	bad=$(grep -E ': (ERROR|WARNING):' <<<"$out" | grep -Ev "$allowed" || true)
	checks=$(grep -c ': CHECK:' <<<"$out" || true)
	if [ -z "$bad" ]; then
		echo "ok $n - checkpatch --strict: $p ($checks checks)"
		pass=$((pass + 1))
	else
		echo "not ok $n - checkpatch --strict: $p"
		sed 's/^/# /' <<<"$bad"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
