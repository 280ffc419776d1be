#!/usr/bin/env bash
# 'make kernel-doc': the patched tree's scripts/kernel-doc over fs/verity/*.c
# and include/linux/fsverity.h must print no warning, and every function
# fs/verity/ exports must have a kernel-doc comment ("/**" then
# " * name() - ...") in fs/verity/ or in the header.  TAP lines and a
# closing "N passed, M failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$LINUX.applied" ] || die "the series is not applied in $LINUX: run 'make patch' first"
cd "$LINUX"
files=(fs/verity/*.c include/linux/fsverity.h)
[ -f "${files[0]}" ] || die "no fs/verity/*.c in $LINUX"

out=$(./scripts/kernel-doc -none "${files[@]}" 2>&1 || true)
detail=$(mktemp)
trap 'rm -f "$detail"' EXIT
if [ -z "$out" ]; then
	tap_report OK "kernel-doc: no warning over fs/verity/*.c include/linux/fsverity.h (${#files[@]} files)"
else
	echo "$out" >"$detail"
	tap_report FAIL "kernel-doc: warnings over fs/verity/*.c include/linux/fsverity.h" "$detail"
fi

mapfile -t exported < <(sed -nE 's/^EXPORT_SYMBOL(_GPL)?\((\w+)\);.*/\2/p' fs/verity/*.c | sort -u)
undocumented=()
for f in "${exported[@]}"; do
	grep -qE "^ \* $f\(\) - " "${files[@]}" || undocumented+=("$f")
done
if [ ${#exported[@]} -eq 0 ]; then
	tap_report FAIL "kernel-doc: fs/verity/ exports no function (is the series applied?)"
elif [ ${#undocumented[@]} -eq 0 ]; then
	tap_report OK "kernel-doc: all ${#exported[@]} functions fs/verity/ exports are documented"
else
	tap_report FAIL "kernel-doc: exported without a kernel-doc comment: ${undocumented[*]}"
fi
tap_closing
[ "$tap_fail" -eq 0 ]
