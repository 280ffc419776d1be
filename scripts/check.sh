#!/usr/bin/env bash
# The whole test run behind 'make check': the host-side tests of tools/, the
# harness self-test, then the suite in the VM.  Each part prints TAP lines
# and its own closing line; the last line totals them:
# "N passed, M failed[, K skipped]".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$LOGS"
total_pass=0
total_fail=0
total_skip=0
failed_parts=()

# run_part NAME COMMAND...: run one part, echo its output, add up its
# closing line.  A part that ends without one counts as one failure.
run_part() {
	local name=$1 log=$LOGS/check-$1.log closing p f k
	shift
	info "$name"
	set +e
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	set -e
	closing=$(tr -d '\r' <"$log" | grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' | tail -n 1 || true)
	if [ -z "$closing" ]; then
		total_fail=$((total_fail + 1))
		failed_parts+=("$name (no closing line)")
		return
	fi
	read -r p f k < <(sed -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/' <<<"$closing")
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + ${k:-0}))
	if [ "$rc" -ne 0 ]; then
		[ "$f" -gt 0 ] || total_fail=$((total_fail + 1))
		failed_parts+=("$name")
	fi
}

start=$(date +%s)
run_part host-tests env KSRC_PATCHED="$LINUX" "$ROOT/tests/host/run.sh"
run_part checkpatch "$ROOT/scripts/checkpatch.sh"
run_part harness-selftest "$ROOT/scripts/selftest.sh"
run_part vm-suite "$ROOT/scripts/boot.sh" test

info "make check took $(($(date +%s) - start)) s (after the build)"
[ ${#failed_parts[@]} -eq 0 ] || info "failed: ${failed_parts[*]}"
summary="$total_pass passed, $total_fail failed"
[ "$total_skip" -eq 0 ] || summary+=", $total_skip skipped"
echo "$summary"
[ ${#failed_parts[@]} -eq 0 ] && [ "$total_fail" -eq 0 ]
