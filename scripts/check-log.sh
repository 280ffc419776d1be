#!/usr/bin/env bash
# Judge a finished VM run: check-log.sh CONSOLE_LOG RESULTS_LOG [QEMU_STATUS [MODE]]
#
# MODE is test (default) or demo; a demo has no test lines and must end
# with "demo finished" instead of the closing line, and print no
# "demo: FAILED: ..." line (a check of tests/vm/demo.sh that did not hold).
#
# Fails, saying why, when the guest timed out, when the suite bailed out (a
# test group ran past its time limit: the watchdog of tests/vm/run ended the
# guest), when the results lack the
# closing "N passed, M failed" line, when any test failed, when (MODE test)
# its TAP plan ("1..N") does not match its test lines or it has none, when a test
# skipped that tests/expected-skips.txt does not list for this kind of boot
# (scripts/lib.sh's boot_kind), or when the kernel
# log shows an oops, BUG, WARNING, KASAN/UBSAN or lockdep report, a panic, a
# hung task, an RCU stall or a kmemleak report.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

console=$1
results=$2
status=${3:-0}
mode=${4:-test}
problems=()

[ "$status" = 124 ] || [ "$status" = 137 ] &&
	problems+=("the guest did not finish within the time limit (timeout); it hung or the suite is too slow")

# Kernel messages carry a [ seconds.micro ] prefix (CONFIG_PRINTK_TIME), so
# test output that merely mentions these words does not count.
declare -A patterns=(
	[panic]='Kernel panic - not syncing'
	[oops]='Oops:|general protection fault|BUG: unable to handle'
	[BUG]='kernel BUG at|BUG: (sleeping|scheduling|spinlock|Bad|bad|workqueue|soft lockup|kernel NULL)|BUG: [a-z_]+ '
	[WARNING]='WARNING: CPU:|WARNING: at |------------\[ cut here \]'
	[KASAN]='KASAN:'
	[UBSAN]='UBSAN:'
	[lockdep]='possible circular locking|possible recursive locking|inconsistent lock state|DEADLOCK|lock held when returning|suspicious RCU usage|bad unlock balance'
	[hung task]='blocked for more than [0-9]+ seconds'
	[RCU stall]='rcu: INFO:|self-detected stall'
	# the kernel's line after a scan, and the report /init sends to the
	# kernel log through /dev/kmsg (initramfs/init)
	[kmemleak]='new suspected memory leaks?|unreferenced object'
)
# Read the kernel lines once; no pipeline into grep -m1, whose early exit
# would fail the pipeline (pipefail) and hide the match.
kernel_lines=$(tr -d '\r' <"$console" | grep -E '^\[ *[0-9]+\.[0-9]+\]' || true)
for what in panic oops BUG WARNING KASAN UBSAN lockdep 'hung task' 'RCU stall' kmemleak; do
	if hit=$(grep -E -m1 -- "${patterns[$what]}" <<<"$kernel_lines"); then
		problems+=("the kernel log shows a $what report: $hit")
	fi
done

# The group watchdog of tests/vm/run ends the guest with a "Bail out!" line
# in the results and the same line in the kernel log, naming the group.
watchdog_re='vtest: watchdog: .*'
if bail=$(tr -d '\r' <"$results" | grep -m1 '^Bail out! ') ||
	bail=$(grep -E -m1 -o -- "$watchdog_re" <<<"$kernel_lines"); then
	bail=${bail#Bail out! }
	problems+=("the run bailed out: ${bail#vtest: watchdog: }")
fi

closing=$(closing_line "$results")
if [ "$mode" = demo ]; then
	closing="demo finished"
	# The checks of tests/vm/demo.sh that did not hold.
	while IFS= read -r line; do
		problems+=("the demo failed: ${line#demo: FAILED: }")
	done < <(tr -d '\r' <"$results" | grep '^demo: FAILED: ' || true)
	tr -d '\r' <"$results" | grep -qx "$closing" ||
		problems+=("the demo did not finish (no 'demo finished' line; see $results)")
elif [ -z "$closing" ]; then
	problems+=("the suite never printed its closing 'N passed, M failed' line: the guest crashed, hung or /tests/run died (see $console)")
else
	failed=$(echo "$closing" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
	notok=$(tr -d '\r' <"$results" | grep -c '^not ok ' || true)
	[ "$failed" -eq 0 ] && [ "$notok" -eq 0 ] ||
		problems+=("$failed test(s) failed ($notok 'not ok' lines)")
	# One VM of a split run may have nothing to run: the merge checks that
	# some test ran.
	[ -n "${CHECKLOG_PART:-}" ] ||
		[ "$(tr -d '\r' <"$results" | grep -c -E '^(not )?ok [0-9]+ ')" -gt 0 ] ||
		problems+=("no test ran (does VTEST_FILTER match any test ID?)")
	# The suite's TAP plan matches its test lines, and every skip is one
	# that tests/expected-skips.txt lists for this kind of boot.
	if [ "$mode" = test ]; then
		tap_merge "$results" "$(boot_kind)" >/dev/null
		problems+=("${tap_merge_problems[@]}")
	fi
fi

if [ ${#problems[@]} -gt 0 ]; then
	for problem in "${problems[@]}"; do
		echo "FAIL: ${CHECKLOG_PART:+(the $CHECKLOG_PART VM) }$problem" >&2
	done
	printf 'console log: %s\n' "$console" >&2
	exit 1
fi
if [ -n "${CHECKLOG_PART:-}" ]; then
	echo "PASS: (the $CHECKLOG_PART VM) $closing; kernel log clean" >&2
else
	echo "PASS: $closing; kernel log clean"
fi
