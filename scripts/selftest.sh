#!/usr/bin/env bash
# Prove the harness fails loudly: boot the test kernel three times with a
# deliberate breakage (a failing test, a kernel panic, a hung guest) and check
# that boot.sh rejects each run with the right reason.  Prints TAP lines and
# a closing "N passed, M failed" line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pass=0
fail=0
n=0
expect_failure() {
	local inject=$1 reason=$2 name=$3 out
	n=$((n + 1))
	if out=$(VTEST_INJECT=$inject VTEST_TIMEOUT=40 VTEST_FILTER= "$ROOT/scripts/boot.sh" test 2>&1); then
		echo "not ok $n - $name"
		echo "# boot.sh accepted a run with '$inject' injected"
		fail=$((fail + 1))
	elif grep -q -- "$reason" <<<"$out"; then
		echo "ok $n - $name"
		pass=$((pass + 1))
	else
		echo "not ok $n - $name"
		echo "# boot.sh failed, but without '$reason':"
		sed 's/^/#   /' <<<"$out" | tail -n 5
		fail=$((fail + 1))
	fi
}
expect_failure fail "1 test(s) failed" "harness: a failing test fails the run"
expect_failure panic "kernel log shows a panic report" "harness: a kernel panic fails the run"
expect_failure hang "did not finish within the time limit" "harness: a hung guest fails the run"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
