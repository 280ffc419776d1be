#!/usr/bin/env bash
# Run the tree's own scripts/checkpatch.pl --strict over every patch of the
# series; one TAP line per patch and a closing "N passed, M failed".
#
# A patch passes with no ERROR, no WARNING and no CHECK (--strict), except
# the one exception below.  A run of checkpatch that does not end the way
# it does on a finished check (status 0 with nothing reported, or status 1
# with what it reports) fails the patch, and its verdict is not cached.
#
# Exception: "added, moved or deleted file(s), does MAINTAINERS need
# updating?" -- the files added and removed by the series all lie under
# fs/verity/ and include/{,uapi/}linux/fsverity.h, which the existing
# "FSVERITY" MAINTAINERS entry already covers (as it does the removed
# fs/{ext4,f2fs,btrfs}/verity.c through their filesystems' entries).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -x "$PRISTINE/scripts/checkpatch.pl" ] || die "no $PRISTINE/scripts/checkpatch.pl: run 'make tree'"
mapfile -t patches < <(series_patches)
allowed='does MAINTAINERS need updating\?'
# checkpatch's --terse lines: FILE:LINE: LEVEL: message
message_re=': (ERROR|WARNING|CHECK):'

# check_one PATCH RESULT: checkpatch over PATCH; its output becomes RESULT
# (the cached verdict) when it ran to the end, RESULT.crashed otherwise
# (with its exit status on the last line)
check_one() {
	local rc=0
	(cd "$PRISTINE" && ./scripts/checkpatch.pl --strict --terse -q "$ROOT/patches/$1") \
		>"$2.tmp" 2>&1 || rc=$?
	if { [ "$rc" -eq 0 ] && ! grep -qE -- "$message_re" "$2.tmp"; } ||
		{ [ "$rc" -eq 1 ] && grep -qE -- "$message_re" "$2.tmp"; }; then
		mv "$2.tmp" "$2"
	else
		echo "checkpatch.pl exited with status $rc" >>"$2.tmp"
		mv "$2.tmp" "$2.crashed"
	fi
}

# checkpatch's verdict depends only on the patch and on checkpatch itself
# (the script and its word lists, and this script, which runs it): it is
# kept in build/checkpatch-cache under a hash of those, so the
# edit-and-test loop re-checks only the patch that changed.  The others
# are checked $JOBS at a time.
cache=$BUILD/checkpatch-cache
mkdir -p "$cache"
tool_files=("$PRISTINE"/scripts/{checkpatch.pl,spelling.txt,const_structs.checkpatch} "$0")
for f in "${tool_files[@]}"; do
	[ -f "$f" ] || die "$f is missing: run 'make tree'"
done
tool=$(cat "${tool_files[@]}" | sha256sum | cut -c1-32)
declare -A result
for p in "${patches[@]}"; do
	[ -f "$ROOT/patches/$p" ] || die "patches/series lists $p, which is not in patches/"
	result[$p]=$cache/$(cat <(echo "$tool") "$ROOT/patches/$p" | sha256sum | cut -c1-32)
	rm -f "${result[$p]}.crashed"
	[ -f "${result[$p]}" ] && continue
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
	check_one "$p" "${result[$p]}" &
done
wait

detail=$(mktemp)
trap 'rm -f "$detail"' EXIT
for p in "${patches[@]}"; do
	if [ -f "${result[$p]}.crashed" ]; then
		tail -n 20 "${result[$p]}.crashed" >"$detail"
		tap_report FAIL "checkpatch --strict: $p: checkpatch.pl did not finish (not cached)" "$detail"
		continue
	fi
	grep -E -- "$message_re" "${result[$p]}" | grep -Ev -- "$allowed" | sed "s|^$ROOT/||" >"$detail" || true
	if [ -s "$detail" ]; then
		tap_report FAIL "checkpatch --strict: $p ($(wc -l <"$detail") ERROR/WARNING/CHECK lines)" "$detail"
	else
		tap_report OK "checkpatch --strict: $p"
	fi
done
tap_closing
[ "$tap_fail" -eq 0 ]
