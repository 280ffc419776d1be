#!/usr/bin/env bash
# The whole test run behind 'make check': the host-side tests of tools/,
# the review checks of the series (checkpatch, kernel-doc, the step checks,
# the test-ID list), the harness self-test, then the suite in two VMs (the
# fuzzer with 1500 cases per filesystem, 5000 in CI).  With CHECK_ALL=1 (CI
# sets it) the suite runs on the coverage kernel instead, and the longer
# parts follow: the Debian-config build against the pristine tree's (make
# distro-build), the low-memory boots (make lowmem), the core groups in the
# other mount modes (make modes), the crash-consistency boots (make crash),
# the 32-bit guest (make i386), the debug kernel's groups and its two-CPU
# boot (make debug), the coverage report (make coverage) and make bisect,
# which builds every patch of the series and the config variants and ends
# with the cross-kernel boots (make coexist).  docs/testing.md has each
# part's measured time.  Each part prints TAP lines and its own closing
# line; at the end come each part's count ("# PART: N passed, M failed"),
# the suite's in the VMs ("VM tests (the suite in QEMU): N passed, M
# failed") and last the total of all parts: "N passed, M failed[, K
# skipped]".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$LOGS"
total_pass=0
total_fail=0
total_skip=0
failed_parts=()
times=()
# The closing line of each part, and the part that is the suite in the VMs,
# whose count is printed on its own line before the total.
part_counts=()
VM_PART=vm-suite
vm_closing=

# The seconds of 70-stress's readers on the debug kernel's two-CPU boot
DEBUG_SMP_STRESS_SECS=10

# The parts that run on the host: their skips (a missing valgrind, sparse
# ...) must be listed in EXPECTED_SKIPS with the part's name as the kind
# and the test's name as the ID.  The boots' skips are checked by boot.sh.
HOST_PARTS=" host-tests checkpatch kernel-doc step-checks test-ids distro-build "

# tally NAME LOG RC: add up the closing line of a finished part.  A part
# that ends without one counts as one failure; so does each skip of a host
# part that EXPECTED_SKIPS does not list.
tally() {
	local name=$1 log=$2 rc=$3 closing p f k n unexpected
	closing=$(closing_line "$log")
	if [ -z "$closing" ]; then
		total_fail=$((total_fail + 1))
		failed_parts+=("$name (no closing line)")
		part_counts+=("$name: no closing line (counted as 1 failure)")
		return
	fi
	part_counts+=("$name: $closing")
	[ "$name" != "$VM_PART" ] || vm_closing=$closing
	read -r p f k < <(closing_counts "$closing")
	unexpected=
	case $HOST_PARTS in *" $name "*) unexpected=$(unexpected_skips "$name" "$log") ;; esac
	if [ -n "$unexpected" ]; then
		info "$name: skips that ${EXPECTED_SKIPS#"$ROOT"/} does not list for '$name' (each counted as a failure):"
		printf '%s\n' "$unexpected" >&2
		n=$(wc -l <<<"$unexpected")
		k=$((k - n))
		f=$((f + n))
		rc=1
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + k))
	if [ "$rc" -ne 0 ]; then
		[ "$f" -gt 0 ] || total_fail=$((total_fail + 1))
		failed_parts+=("$name")
	fi
}

# CHECK_DEADLINE (seconds since the epoch; .ci/run sets it from CI's time
# limit): a part still running then is stopped, every process of it (the
# QEMUs too), and a part not yet started is not run; either is named as
# such in its log and fails.  Unset: no limit.
# time_left: the seconds until CHECK_DEADLINE, or nothing when it is unset
time_left() {
	[ -z "${CHECK_DEADLINE:-}" ] || echo $((CHECK_DEADLINE - $(date +%s)))
}
# run_part NAME COMMAND...: run one part, echo its output as it comes, tally.
run_part() {
	local name=$1 log=$LOGS/check-$1.log t0 rc left
	shift
	info "$name"
	t0=$(date +%s)
	left=$(time_left)
	set +e
	if [ -z "$left" ]; then
		"$@" 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
	elif [ "$left" -le 0 ]; then
		echo "check: part $name not run: the run's deadline (CHECK_DEADLINE) has passed" | tee "$log"
		rc=1
	else
		capped "$name" "$left" "$@" 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
	fi
	set -e
	times+=("$name $(($(date +%s) - t0)) s")
	tally "$name" "$log" "$rc"
}

# start_part NAME COMMAND...: run a part in the background (its output to its
# log); finish_part NAME waits for it, then echoes the output and tallies.
declare -A bg_pid bg_t0
start_part() {
	local name=$1
	shift
	bg_t0[$name]=$(date +%s)
	"$@" >"$LOGS/check-$name.log" 2>&1 &
	bg_pid[$name]=$!
}
finish_part() {
	local name=$1 rc=0
	info "$name (ran in the background)"
	wait "${bg_pid[$name]}" || rc=$?
	times+=("$name $(($(date +%s) - ${bg_t0[$name]})) s")
	cat "$LOGS/check-$name.log"
	tally "$name" "$LOGS/check-$name.log" "$rc"
}

start=$(date +%s)
# The builds of the later parts, made ahead with the CPU the earlier parts
# leave idle (scripts/prebuild.sh): in a session of their own, stopped
# when make check ends.
prebuild_pid=
stop_prebuild() {
	[ -n "$prebuild_pid" ] || return 0
	kill -- -"$prebuild_pid" 2>/dev/null || true
	wait "$prebuild_pid" 2>/dev/null || true
	prebuild_pid=
}
if [ "${CHECK_ALL:-0}" = 1 ]; then
	setsid "$ROOT/scripts/prebuild.sh" >"$LOGS/prebuild.log" 2>&1 &
	prebuild_pid=$!
	trap stop_prebuild EXIT
fi
# The harness self-test mostly waits (for its hung guest) and the host
# tests run on one core: both run beside the review parts.
start_part harness-selftest "$ROOT/scripts/selftest.sh"
start_part host-tests env KSRC_PATCHED="$LINUX" "$ROOT/tests/host/run.sh"
run_part checkpatch "$ROOT/scripts/checkpatch.sh"
run_part kernel-doc "$ROOT/scripts/kerneldoc.sh"
run_part step-checks "$ROOT/scripts/step-checks.sh"
# The suite's test IDs against tests/test-ids.txt: a group that lists
# fewer tests, or other ones, fails until the list is written again.
run_part test-ids "$ROOT/scripts/list-tests.sh" --check
finish_part host-tests
finish_part harness-selftest
# The metadata fuzzer runs 5000 ENABLE cases per filesystem in CI
# (CHECK_ALL=1) and 1500 in the edit-and-test loop; VFUZZ_CASES overrides.
if [ "${CHECK_ALL:-0}" = 1 ]; then fuzz=${VFUZZ_CASES:-5000}; else fuzz=${VFUZZ_CASES:-1500}; fi
if [ "${CHECK_ALL:-0}" = 1 ]; then
	# The suite once, on the coverage kernel (the test kernel with gcov on
	# fs/verity and the series' ext4/f2fs files: build/coverage, its own
	# build), its counters kept for the coverage part below.
	run_part "$VM_PART" env COVERAGE_STEP=suite \
		VTEST_CMDLINE="vfuzz.cases=$fuzz${VTEST_CMDLINE:+ $VTEST_CMDLINE}" \
		"$ROOT/scripts/coverage.sh"
else
	run_part "$VM_PART" env VTEST_CMDLINE="vfuzz.cases=$fuzz${VTEST_CMDLINE:+ $VTEST_CMDLINE}" \
		"$ROOT/scripts/boot.sh" test
fi
if [ "${CHECK_ALL:-0}" = 1 ]; then
	run_part distro-build "$ROOT/scripts/distro-build.sh"
	run_part low-memory "$ROOT/scripts/lowmem.sh"
	# The core groups in the other mount modes (ext4 data=journal,
	# data=writeback, nodelalloc, no journal; f2fs compression, no
	# inline data), three passes in each of the two VMs, on the coverage
	# kernel: what the series adds for those modes counts in its report.
	run_part modes env COVERAGE_STEP=modes "$ROOT/scripts/coverage.sh"
	run_part crash "$ROOT/scripts/crash.sh"
	# The 32-bit kernel with highmem (build/obj-i386, its own build).
	run_part i386 "$ROOT/scripts/i386.sh"
	# The debug kernel (KASAN, UBSAN, lockdep, kmemleak: build/obj-debug,
	# its own build) and the core groups on it.
	run_part debug "$ROOT/scripts/debug.sh"
	# The same kernel on two CPUs: large bios verified in parts by both,
	# readers and ENABLEs racing, under lockdep and KASAN.
	# (the readers of 70-stress for 10 s instead of 20: on this kernel that
	# is still thousands of verified reads racing drop_caches)
	run_part debug-smp env FLAVOR=debug VTEST_TIMEOUT_SCALE=4 VTEST_SPLIT=0 VTEST_SMP=2 \
		BOOT_TAG=debug-smp VTEST_CMDLINE="vtest.groups=20,70 vstress.seconds=$DEBUG_SMP_STRESS_SECS${VTEST_CMDLINE:+ $VTEST_CMDLINE}" \
		"$ROOT/scripts/boot.sh" test
	# Groups 20 and 70 again on the coverage kernel with two CPUs (the
	# split suite gives each guest one), where readers, ENABLE and
	# drop_caches really run at the same time and large bios are verified
	# in parts; then the report from both runs' counters: every line of
	# fs/verity left must be listed with why.
	run_part coverage env COVERAGE_STEP=report "$ROOT/scripts/coverage.sh"
	run_part bisect "$ROOT/scripts/bisect.sh"
fi

if [ -n "$prebuild_pid" ]; then
	# Done by now (make bisect waited for its builds), unless a part was
	# stopped at the deadline
	kill -0 "$prebuild_pid" 2>/dev/null && info "the builds ahead were still running: stopped"
	stop_prebuild
	sed 's/^/# /' "$LOGS/prebuild.log"
fi
info "make check took $(($(date +%s) - start)) s after the build ($(IFS=,; echo "${times[*]}" | sed 's/,/, /g'))"
[ ${#failed_parts[@]} -eq 0 ] || info "failed: ${failed_parts[*]}"
# The failed tests again, each with the lines it printed after it, here at
# the end where a reader of only the output's tail (CI) finds them.
for name in "${failed_parts[@]}"; do
	name=${name%% *}
	[ -f "$LOGS/check-$name.log" ] || continue
	failed_tests "$name" "$LOGS/check-$name.log"
done
# The counts: per part, the VM suite's alone, then the total of every part
# (host tests, review checks, self-test, the suite and, with CHECK_ALL,
# the other boots and builds) as the closing line.
printf '# %s\n' "${part_counts[@]}"
echo "VM tests (the suite in QEMU): ${vm_closing:-none: the suite did not report}"
summary="$total_pass passed, $total_fail failed"
[ "$total_skip" -eq 0 ] || summary+=", $total_skip skipped"
echo "$summary"
[ ${#failed_parts[@]} -eq 0 ] && [ "$total_fail" -eq 0 ]
