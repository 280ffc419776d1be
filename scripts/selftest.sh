#!/usr/bin/env bash
# Prove the harness fails loudly: boot the test kernel three times with a
# deliberate breakage (a failing test, a kernel panic, a hung guest) and check
# that boot.sh rejects each run with the right reason.  The three boots run
# side by side (the hung one waits out its 40 s limit mostly idle), with
# their logs in build/logs/{console,results}-selftest-*.log.  Prints TAP
# lines and a closing "N passed, M failed" line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# boot_broken INJECT LIMIT: one boot with INJECT, its output and status in $tmp
boot_broken() {
	local rc=0
	BOOT_TAG=selftest-$1 VTEST_INJECT=$1 VTEST_TIMEOUT=$2 VTEST_FILTER= VTEST_SPLIT=0 \
		"$ROOT/scripts/boot.sh" test >"$tmp/$1.out" 2>&1 || rc=$?
	echo "$rc" >"$tmp/$1.rc"
}
boot_broken fail 300 &
boot_broken panic 300 &
boot_broken hang 40 &
wait

pass=0
fail=0
n=0
expect_failure() {	# INJECT REASON NAME
	local inject=$1 reason=$2 name=$3
	n=$((n + 1))
	if [ "$(cat "$tmp/$inject.rc")" -eq 0 ]; then
		echo "not ok $n - $name"
		echo "# boot.sh accepted a run with '$inject' injected"
		fail=$((fail + 1))
	elif grep -q -- "$reason" "$tmp/$inject.out"; then
		echo "ok $n - $name"
		pass=$((pass + 1))
	else
		echo "not ok $n - $name"
		echo "# boot.sh failed, but without '$reason':"
		sed 's/^/#   /' "$tmp/$inject.out" | tail -n 5
		fail=$((fail + 1))
	fi
}
expect_failure fail "1 test(s) failed" "harness: a failing test fails the run"
expect_failure panic "kernel log shows a panic report" "harness: a kernel panic fails the run"
expect_failure hang "did not finish within the time limit" "harness: a hung guest fails the run"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
