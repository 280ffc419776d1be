#!/usr/bin/env bash
# Prove the harness fails loudly: boot the test kernel with deliberate
# breakages (VTEST_INJECT, see initramfs/init) and check that boot.sh
# rejects each run with the right reason; then check that the skip of the
# "skip" case passes, counted as a skip, once a list names it.  The boots run three at a time
# (SELFTEST_JOBS; the hung one waits out its limit mostly idle), with their
# logs in build/logs/{console,results}-selftest-*.log.  Prints TAP lines
# and a closing "N passed, M failed" line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Time limits (VTEST_TIMEOUT) of the boots: a boot that should end by
# itself in seconds, and the hung guest, which only the limit ends.
BOOT_LIMIT=300
HANG_LIMIT=40

# The cases, one a line: INJECT MODE LIMIT|REASON (what boot.sh must say)|NAME
cases=(
	"hang test $HANG_LIMIT|did not finish within the time limit|a hung guest fails the run"
	"fail test $BOOT_LIMIT|1 test\\(s\\) failed|a failing test fails the run"
	"panic test $BOOT_LIMIT|kernel log shows a panic report|a kernel panic fails the run"
	"kmemleak test $BOOT_LIMIT|kernel log shows a kmemleak report: .*unreferenced object|a kmemleak report fails the run"
	"grouphang test $BOOT_LIMIT|bailed out: test group ext4/05-inject-hang still running after its time limit|a hung test group fails the run, named by the group watchdog"
	"demo-intact demo $BOOT_LIMIT|the demo failed: ext4: reading the corrupted block 3 succeeded|a demo whose corrupted block reads fine fails"
	"hungtask test $HANG_LIMIT|kernel log shows a panic report: .*hung_task: blocked tasks|a task blocked in the kernel panics the guest (hung_task_panic)"
	"skip test $BOOT_LIMIT|unexpected skip: ext4/05\\.01 \\(tests/expected-skips\\.txt lists no such skip for selftest-skip boots\\): skipped on purpose|a skip that tests/expected-skips.txt does not list fails the run"
	"short test $BOOT_LIMIT|not ok [0-9]+ - ext4/05\\.plan ext4: test group 05-inject-short ran 1 of its 3 planned tests and exited with status 0|a test group that runs fewer tests than its plan fails the run"
	"busy test $BOOT_LIMIT|not ok [0-9]+ - ext4/05\\.umount ext4: /mnt/vt unmounts after test group 05-inject-busy|a test group that leaves its scratch mount busy fails the unmount check"
	"dupid test $BOOT_LIMIT|not ok [0-9]+ - ext4/ids ext4: every test ID is unique|two tests of one ID fail the run"
	"badplan test $BOOT_LIMIT|the TAP plan of .*results-selftest-badplan\\.log is 1\\.\\.2, but it has 1 test lines|a result stream whose TAP plan does not match its test lines fails the run"
	"kmsgwarn test $BOOT_LIMIT|kernel log shows a WARNING|a WARNING in the middle of a long kernel log fails the run, with the two VMs side by side"
	"pcutbreak test $BOOT_LIMIT|not ok [0-9]+ - ext4/80\\.02 |the power-cut group fails a replay that loses the writes of a flush"
)
# The hung-task timeout of the hungtask case, in seconds, shorter than the
# suite's (the guest panics after one to two of them).
HUNG_TASK_SECS=5
# kmsgwarn runs in the two VMs side by side, as make check does.
declare -A case_env=([hungtask]="VTEST_HUNG_TASK_SECS=$HUNG_TASK_SECS" [kmsgwarn]="VTEST_SPLIT=1")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# boot_broken INJECT MODE LIMIT: one boot with INJECT, its output and status
# in $tmp
boot_broken() {
	local rc=0
	# shellcheck disable=SC2086 # the case's variables, split at spaces
	env VTEST_SPLIT=0 ${case_env[$1]:-} BOOT_TAG="selftest-$1" VTEST_INJECT="$1" VTEST_TIMEOUT="$3" \
		VTEST_FILTER='' "$ROOT/scripts/boot.sh" "$2" >"$tmp/$1.out" 2>&1 || rc=$?
	echo "$rc" >"$tmp/$1.rc"
}
# At most this many boots at a time (the hung ones, first in the list,
# wait mostly idle).
parallel=${SELFTEST_JOBS:-3}
for c in "${cases[@]}"; do
	read -r inject mode limit <<<"${c%%|*}"
	while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
	boot_broken "$inject" "$mode" "$limit" &
done
wait

# expect_failure INJECT REASON NAME: boot.sh rejected the run of INJECT,
# saying REASON (an extended regular expression)
expect_failure() {
	local inject=$1 reason=$2 name=$3 detail=$tmp/detail
	: >"$detail"
	if [ "$(cat "$tmp/$inject.rc")" -eq 0 ]; then
		echo "boot.sh accepted a run with '$inject' injected" >"$detail"
		tap_report FAIL "harness: $name" "$detail"
	elif grep -qE -- "$reason" "$tmp/$inject.out"; then
		tap_report OK "harness: $name"
	else
		{
			echo "boot.sh failed, but without '$reason':"
			sed 's/^/  /' "$tmp/$inject.out" | tail -n 5
		} >"$detail"
		tap_report FAIL "harness: $name" "$detail"
	fi
}
for c in "${cases[@]}"; do
	IFS='|' read -r head reason name <<<"$c"
	expect_failure "${head%% *}" "$reason" "$name"
done

# What the group watchdog leaves on the console for a hang to be
# understood (tests/vm/lib.sh's vt_halt): the block requests of the disks
# that have not completed, the blocked tasks (sysrq w) and what the CPUs
# run (sysrq l).
console=$LOGS/console-selftest-grouphang.log
name="harness: a hung test group leaves the disks' pending requests, the blocked tasks and the CPUs' stacks on the console"
missing=()
for want in 'vtest: vda: in flight \(reads writes\): +[0-9]+ +[0-9]+' \
	'sysrq: Show Blocked State' 'sysrq: Show backtrace of all active CPUs'; do
	grep -qE -- "$want" "$console" 2>/dev/null || missing+=("$want")
done
if [ ${#missing[@]} -eq 0 ]; then
	tap_report OK "$name"
else
	printf 'not on %s: %s\n' "${console#"$ROOT"/}" "${missing[@]}" >"$tmp/halt.detail"
	tap_report FAIL "$name" "$tmp/halt.detail"
fi

# The other side of the skip check: the stream of the skip case, judged
# with a list that names its skip, has the test as a skip (counted as
# skipped, not failed), and nothing unexpected.
printf '# a list for this check alone\nselftest-s* ext4/05.* listed by the self-test\n' >"$tmp/skips"
results=$LOGS/results-selftest-skip.log
saved=("$tap_pass" "$tap_fail" "$tap_skip" "$tap_n")
tap_pass=0 tap_fail=0 tap_skip=0 tap_n=0
{
	EXPECTED_SKIPS=$tmp/skips tap_merge "$results" selftest-skip || echo "no closing line"
	tap_closing
} >"$tmp/listed" 2>&1
listed_skips=$tap_skip
tap_pass=${saved[0]} tap_fail=${saved[1]} tap_skip=${saved[2]} tap_n=${saved[3]}
if [ "$listed_skips" -eq 1 ] && grep -q '^ok [0-9]* - ext4/05\.01 .* # SKIP skipped on purpose' "$tmp/listed" &&
	! grep -q 'unexpected skip' "$tmp/listed"; then
	tap_report OK "harness: a skip that the list names for the boot's kind is reported as a skip"
else
	tap_report FAIL "harness: a skip that the list names for the boot's kind is reported as a skip" "$tmp/listed"
fi
# The skips of the host-side parts of make check (a missing valgrind or
# sparse): an unlisted one is found, a listed one is not.
printf 'ok 1 - host: a test\nok 2 - host: valgrind run # SKIP valgrind not installed\n1 passed, 0 failed, 1 skipped\n' >"$tmp/host.log"
printf 'selftest-host host:?valgrind* listed by the self-test\n' >"$tmp/host-skips"
found=$(EXPECTED_SKIPS=/dev/null unexpected_skips selftest-host "$tmp/host.log")
listed=$(EXPECTED_SKIPS=$tmp/host-skips unexpected_skips selftest-host "$tmp/host.log")
if [ "$found" = "ok 2 - host: valgrind run # SKIP valgrind not installed" ] && [ -z "$listed" ]; then
	tap_report OK "harness: a host part's skip fails unless the list names it"
else
	printf 'unlisted: %s\nlisted: %s\n' "${found:-(none found)}" "${listed:-(none)}" >"$tmp/host.detail"
	tap_report FAIL "harness: a host part's skip fails unless the list names it" "$tmp/host.detail"
fi
tap_closing
[ "$tap_fail" -eq 0 ]
