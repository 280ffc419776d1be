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

pass=0
fail=0
out=$(./scripts/kernel-doc -none "${files[@]}" 2>&1 || true)
if [ -z "$out" ]; then
	echo "ok 1 - kernel-doc: no warning over fs/verity/*.c include/linux/fsverity.h (${#files[@]} files)"
	pass=$((pass + 1))
else
	echo "not ok 1 - kernel-doc: warnings over fs/verity/*.c include/linux/fsverity.h"
	sed 's/^/# /' <<<"$out"
	fail=$((fail + 1))
fi

mapfile -t exported < <(sed -nE 's/^EXPORT_SYMBOL(_GPL)?\((\w+)\);.*/\2/p' fs/verity/*.c | sort -u)
undocumented=()
for f in "${exported[@]}"; do
	grep -qE "^ \* $f\(\) - " "${files[@]}" || undocumented+=("$f")
done
if [ ${#exported[@]} -eq 0 ]; then
	echo "not ok 2 - kernel-doc: fs/verity/ exports no function (is the series applied?)"
	fail=$((fail + 1))
elif [ ${#undocumented[@]} -eq 0 ]; then
	echo "ok 2 - kernel-doc: all ${#exported[@]} functions fs/verity/ exports are documented"
	pass=$((pass + 1))
else
	echo "not ok 2 - kernel-doc: exported without a kernel-doc comment: ${undocumented[*]}"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
