# shellcheck shell=bash
# Common settings and helpers for the scripts of this project.
# Sourced, never run: every script sets -euo pipefail itself.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
FLAVOR=${FLAVOR:-test}
# The Debian package whose tarball we patch, and the tarball it installs.
SRC_PKG=linux-source-6.1
SRC_TARBALL=${SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
PRISTINE=$BUILD/pristine            # extracted (or KSRC-linked) pristine tree
# The file naming the Debian version of $SRC_PKG the series is made for.
BASE_VERSION_FILE=$ROOT/BASE_VERSION
# The tree with the series applied and the kernel build output (make O=);
# 'make bisect' points both elsewhere with LINUX_TREE and KOBJ.
LINUX=${LINUX_TREE:-$BUILD/linux}
OBJ=${KOBJ:-$BUILD/obj-$FLAVOR}
LOGS=$BUILD/logs

die() {
	printf '%s: error: %s\n' "$(basename "$0")" "$*" >&2
	exit 1
}

info() {
	printf '==> %s\n' "$*" >&2
}

# hold_lock FILE WHY: take FILE's lock (flock) for the rest of the script,
# first waiting, and saying WHY, while another process holds it; sets
# lock_waited to 1 when it had to wait, else 0
hold_lock() {
	local fd
	exec {fd}>"$1"
	lock_waited=0
	flock -n "$fd" && return 0
	lock_waited=1
	info "waiting for ${1#"$ROOT"/}: $2"
	flock "$fd"
}

# FLAVOR=i386 is the test kernel built for 32-bit x86 (configs/i386.config),
# with a 32-bit initramfs, booted by qemu-system-i386 (scripts/i386.sh).
# KARCH is the kernel's ARCH, INITRAMFS the flavor's initramfs, QEMU the
# emulator, QEMU_TCG_CPU its CPU under TCG, GUEST_MEM the guest's
# default memory in MiB and GUEST_CMDLINE kernel command line words of the
# flavor.
KARCH=x86_64
INITRAMFS=$BUILD/initramfs.cpio.gz
QEMU=qemu-system-x86_64
GUEST_MEM=1024
QEMU_TCG_CPU=max
GUEST_CMDLINE=
case $FLAVOR in
test) ;;
debug)
	# Under TCG, KASAN makes ACPI's interpretation of the PCI interrupt
	# routing at boot take over 20 s on one CPU: a soft lockup (with
	# softlockup_panic=1, a panic) before /init.  The debug guests have
	# one CPU each, which is all a guest finds without ACPI.
	GUEST_CMDLINE=acpi=off
	;;
coverage)
	# gcov on the files the series touches, built from a copy of the
	# patched tree whose Makefiles ask for it (scripts/coverage.sh), in a
	# build folder beside it, as build/obj-test is beside build/linux:
	# ccache (CCACHE_BASEDIR) then sees the same relative paths and
	# serves the objects the test kernel compiled.
	LINUX=${LINUX_TREE:-$BUILD/coverage/linux}
	OBJ=${KOBJ:-$BUILD/coverage/obj}
	;;
i386)
	KARCH=i386
	INITRAMFS=$BUILD/initramfs-i386.cpio.gz
	QEMU=qemu-system-i386
	# Over the ~890 MiB of lowmem: the rest is highmem.
	GUEST_MEM=1536
	# qemu-system-i386's "max" CPU under TCG is an AMD K7 to a 32-bit
	# kernel, which warns that it is "not suitable for SMP" (a WARNING
	# that fails the run): the same CPU with Intel's vendor string.
	QEMU_TCG_CPU=max,vendor=GenuineIntel
	;;
*) die "unknown FLAVOR '$FLAVOR': use FLAVOR=test (default), FLAVOR=debug, FLAVOR=i386 or FLAVOR=coverage" ;;
esac

# The emulated persistent memory of the x86_64 guests (scripts/boot.sh):
# PMEM_MIB of RAM from PMEM_START_MIB on, clear of the kernel image at 16
# MiB and of the initramfs at the top of RAM, in guests of at least
# PMEM_MIN_GUEST_MIB.
PMEM_MIB=64
PMEM_START_MIB=256
PMEM_MIN_GUEST_MIB=1024

# make modes (scripts/modes.sh): the passes of each of its two VMs (words
# FS:MODE of tests/vm/run), all of them, and the groups they run
MODES_PASSES_VM1="ext4:journal ext4:writeback f2fs:compress"
MODES_PASSES_VM2="ext4:nodelalloc ext4:nojournal f2fs:noinline"
MODES_PASSES="$MODES_PASSES_VM1 $MODES_PASSES_VM2"
MODES_GROUPS=${MODES_GROUPS:-20,30,35}

# Number of parallel jobs for kernel builds.
JOBS=${JOBS:-$(nproc)}

# The closing line of a test run: "N passed, M failed[, K skipped]".
CLOSING_RE='^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'
# closing_line FILE: the last closing line of FILE (CRs removed), or nothing
closing_line() {
	tr -d '\r' <"$1" 2>/dev/null | grep -E "$CLOSING_RE" | tail -n 1 || true
}
# closing_counts LINE: "PASSED FAILED SKIPPED" of a closing line
closing_counts() {
	sed -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/' <<<"$1" |
		awk '{ print $1, $2, ($3 == "" ? 0 : $3) }'
}

# failed_tests PART LOG: the failed tests of a TAP log ("not ok" lines),
# each with up to FAILED_TEST_LINES of the comment lines it printed after
# it, "# PART: " before each; the first FAILED_TESTS_SHOWN, then how many
# more.  make check prints them at its end, where a reader of only the
# output's tail (CI) finds them.
FAILED_TESTS_SHOWN=10
FAILED_TEST_LINES=4
failed_tests() {
	awk -v part="$1" -v max="$FAILED_TESTS_SHOWN" -v lines="$FAILED_TEST_LINES" '
		/^not ok / { n++; show = n <= max ? lines : 0; if (show) print "# " part ": " $0; next }
		show > 0 && /^# / { print "# " part ":   " $0; show--; next }
		{ show = 0 }
		END { if (n > max) print "# " part ": " n - max " more failed test(s) in its log" }
	' "$2"
}

# TAP output of the scripts that report tests themselves (bisect.sh,
# distro-build.sh, crash.sh, coexist.sh): tap_report OK|FAIL|SKIP NAME
# [DETAIL-FILE] prints one line, with DETAIL-FILE as "# " lines (NAME of a
# SKIP ends with "# SKIP REASON"); tap_pass, tap_fail, tap_skip and tap_n
# count, and tap_closing prints the closing line.
tap_pass=0
tap_fail=0
tap_skip=0
tap_n=0
tap_report() {
	tap_n=$((tap_n + 1))
	case $1 in
	OK)
		echo "ok $tap_n - $2"
		tap_pass=$((tap_pass + 1))
		;;
	SKIP)
		echo "ok $tap_n - $2"
		tap_skip=$((tap_skip + 1))
		;;
	*)
		echo "not ok $tap_n - $2"
		tap_fail=$((tap_fail + 1))
		;;
	esac
	[ -z "${3:-}" ] || [ ! -s "$3" ] || sed 's/^/# /' "$3"
}
tap_closing() {
	if [ "$tap_skip" -eq 0 ]; then
		echo "$tap_pass passed, $tap_fail failed"
	else
		echo "$tap_pass passed, $tap_fail failed, $tap_skip skipped"
	fi
}

# The skips a boot of the suite may have: EXPECTED_SKIPS, one a line,
# "KIND-GLOB ID-GLOB REASON", where KIND is the boot's kind (boot_kind) and
# ID the test's ID with its prefix (ext4/20.06); '#' starts a comment.
EXPECTED_SKIPS=${EXPECTED_SKIPS:-$ROOT/tests/expected-skips.txt}
# boot_kind: the kind of a boot, as EXPECTED_SKIPS names it: BOOT_TAG when
# it is set (lowmem, coverage-smp, bisect-no-signatures, selftest-CASE...),
# otherwise FLAVOR (test, i386, debug)
boot_kind() {
	echo "${BOOT_TAG:-$FLAVOR}"
}
# expected_skip KIND ID: the reason EXPECTED_SKIPS gives for a skip of the
# test ID in a boot of KIND; fails when it lists none
expected_skip() {
	local kglob iglob why
	[ -f "$EXPECTED_SKIPS" ] || return 1
	while read -r kglob iglob why; do
		case $kglob in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2053 # globs, on purpose
		if [[ $1 == $kglob && $2 == $iglob ]]; then
			echo "$why"
			return 0
		fi
	done <"$EXPECTED_SKIPS"
	return 1
}

# unexpected_skips KIND LOG: the skip lines ("ok N - NAME # SKIP ...") of
# LOG, the output of a host-side part of KIND (host-tests, distro-build
# ...), whose NAME EXPECTED_SKIPS does not list for KIND
unexpected_skips() {
	local line test
	while IFS= read -r line; do
		test=${line#ok * - }
		expected_skip "$1" "${test%% # SKIP*}" >/dev/null || echo "$line"
	done < <(tr -d '\r' <"$2" | grep -E '^ok [0-9]+ - .* # SKIP' || true)
}

# tap_merge FILE [KIND]: the TAP lines of another run's output FILE (a
# guest's result stream, a script's log; CRs removed) through tap_report,
# renumbered, with its "# " lines; a "# SKIP" test stays a skip.  A TAP
# plan line of FILE ("1..N") must match its number of test lines.  With
# KIND, FILE is the suite's result stream of a boot of that kind: it must
# have a plan, and a skip that EXPECTED_SKIPS does not list for KIND is a
# failure.  The failures tap_merge adds (a plan that does not match, an
# unexpected skip) are also in the array tap_merge_problems.  Fails when
# FILE has no closing line (the run died or hung).
tap_merge() {
	local line rest id why msg plan='' ntests=0 kind=${2:-}
	tap_merge_problems=()
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*)
			ntests=$((ntests + 1))
			rest=${line#ok }
			rest=${rest#*[0-9] }
			rest=${rest#- }
			case $rest in
			*" # SKIP"*)
				id=${rest%% *}
				if [ -z "$kind" ]; then
					tap_report SKIP "$rest"
				elif why=$(expected_skip "$kind" "$id"); then
					tap_report SKIP "$rest"
					echo "# an expected skip in $kind boots (${EXPECTED_SKIPS#"$ROOT"/}): $why"
				else
					msg="unexpected skip: $id (${EXPECTED_SKIPS#"$ROOT"/} lists no such skip for $kind boots): ${rest#* # SKIP }"
					tap_merge_problems+=("$msg")
					tap_report FAIL "${rest%% # SKIP*}: skipped, which it may not be in $kind boots"
					echo "# $msg"
				fi
				;;
			*) tap_report OK "$rest" ;;
			esac
			;;
		"not ok "[0-9]*)
			ntests=$((ntests + 1))
			rest=${line#not ok }
			rest=${rest#*[0-9] }
			tap_report FAIL "${rest#- }"
			;;
		"1.."[0-9]*) plan=${line#1..} ;;
		"#"*) echo "$line" ;;
		esac
	done < <(tr -d '\r' <"$1" 2>/dev/null)
	[ -n "$(closing_line "$1")" ] || return 1
	msg=
	if [ -n "$plan" ] && [ "$plan" != "$ntests" ]; then
		msg="the TAP plan of ${1#"$ROOT"/} is 1..$plan, but it has $ntests test lines"
	elif [ -z "$plan" ] && [ -n "$kind" ]; then
		msg="${1#"$ROOT"/} has no TAP plan line (1..N)"
	fi
	if [ -n "$msg" ]; then
		tap_merge_problems+=("$msg")
		tap_report FAIL "$msg"
	fi
	return 0
}

# tap_merge_boots OUT WHAT LABEL RESULTS [LABEL RESULTS...]: the tests of
# boots run one after the other on the same disks (make crash, make
# coexist): each boot's result stream RESULTS through tap_merge (a boot
# without its closing line fails as "LABEL ran to its closing line", with
# the tail of OUT, the output of the boot.sh runs), then one test, WHAT,
# that boot.sh judged every boot clean (kernel log, time limit)
tap_merge_boots() {
	local out=$1 what=$2
	shift 2
	while [ $# -ge 2 ]; do
		if ! tap_merge "$2"; then
			tail -n 20 "$out" >"$out.tail"
			tap_report FAIL "$1 ran to its closing line" "$out.tail"
		fi
		shift 2
	done
	if grep -E '^FAIL: |boot.sh failed' "$out" >"$out.verdict"; then
		tap_report FAIL "$what" "$out.verdict"
	else
		tap_report OK "$what"
	fi
}

# capped NAME SECONDS COMMAND...: run COMMAND in a session of its own; when
# it is still running after SECONDS, stop every process of the session
# (SIGTERM, then SIGKILL CHECK_KILL_GRACE seconds later: timeout(1) and the
# QEMUs under it are in process groups of their own, but in that session),
# say so on stderr and fail.  Used by scripts/check.sh.
capped() {
	local name=$1 secs=$2 sidfile wd rc=0 pid end
	shift 2
	sidfile=$(mktemp)
	# shellcheck disable=SC2016 # $$ is the session leader's, on purpose
	setsid bash -c 'echo $$ > "$0"; exec "$@"' "$sidfile" "$@" &
	pid=$!
	end=$(($(date +%s) + secs))
	# the watchdog: it ends when the command does, or stops it at the end
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$(date +%s)" -ge "$end" ]; then
			echo "check: part $name stopped after $secs s: the run's deadline (CHECK_DEADLINE) came" >&2
			pkill -TERM -s "$(cat "$sidfile")" || true
			sleep "$CHECK_KILL_GRACE"
			pkill -KILL -s "$(cat "$sidfile")" || true
			break
		fi
		sleep 1
	done &
	wd=$!
	wait "$pid" || rc=$?
	wait "$wd" || true
	rm -f "$sidfile"
	return "$rc"
}
# seconds between a part's SIGTERM and its SIGKILL at the deadline
CHECK_KILL_GRACE=${CHECK_KILL_GRACE:-15}

# apt_update: refresh apt's package lists (as root), once.  A mirror caught
# in the middle of a sync serves index files that do not match its Release
# file ("File has unexpected size ... Mirror sync in progress?"), and apt-get
# update then fails for minutes, or, as seen here for days, on one index the
# project does not need (the security archive's i386 packages).  Waiting
# would not mend that: go on with the lists apt has (the indexes that did
# download are used); apt_install tries again where it matters.
apt_update() {
	apt-get update -qq -o Acquire::Retries=3 ||
		info "apt-get update failed: going on with the package lists apt has"
}

# apt_install PACKAGE...: install PACKAGEs (as root).  When apt-get install
# fails (a package missing from the lists a failed update left, or a mirror
# in the middle of a sync), wait, refresh the lists and try again, waiting
# twice as long each time, up to APT_INSTALL_TRIES tries in all; fails
# after the last.
APT_INSTALL_TRIES=3
APT_RETRY_FIRST_WAIT=${APT_RETRY_FIRST_WAIT:-30}	# seconds
apt_install() {
	local try wait=$APT_RETRY_FIRST_WAIT
	for ((try = 1; ; try++)); do
		apt-get install -y -qq --no-install-recommends --allow-downgrades "$@" >/dev/null && return 0
		[ "$try" -lt "$APT_INSTALL_TRIES" ] || return 1
		info "apt-get install failed (try $try of $APT_INSTALL_TRIES); updating the package lists again in $wait s"
		sleep "$wait"
		wait=$((wait * 2))
		apt_update
	done
}

# base_version: the version of $SRC_PKG the series is made for
base_version() {
	sed 's/#.*//' "$BASE_VERSION_FILE" | awk 'NF { print $1; exit }'
}

# archive_versions: the versions of $SRC_PKG the package archive offers
# (apt-cache madison), each once, oldest first
archive_versions() {
	apt-cache madison "$SRC_PKG" 2>/dev/null | awk -F'|' '{ gsub(/[[:space:]]/, "", $2); print $2 }' |
		sort -u -V
}

# wanted_src_version: the version of $SRC_PKG to install: the series' base
# when the archive offers it, otherwise the newest it offers (apt's
# candidate); nothing when apt knows no version
wanted_src_version() {
	local base
	base=$(base_version)
	if archive_versions | grep -qxF -- "$base"; then
		echo "$base"
	else
		apt-cache policy "$SRC_PKG" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '(none)' || true
	fi
}

# tree_state TREE FILE...: "SHA256 MTIME PATH" of each FILE (a path
# relative to TREE) that TREE has, one a line
tree_state() {
	local tree=$1 present f
	shift
	present=$(cd "$tree" && for f; do [ ! -e "$f" ] || echo "$f"; done)
	[ -n "$present" ] || return 0
	paste -d' ' <(cd "$tree" && xargs -d '\n' sha256sum <<<"$present" | cut -d' ' -f1) \
		<(cd "$tree" && xargs -d '\n' stat -c '%Y %n' <<<"$present")
}

# match_mtimes TREE STATE FILE...: before an incremental build of TREE in a
# folder whose last build saw the FILEs as STATE (tree_state's output)
# records them, give each FILE the mtime it had then if its content is
# the same (the objects made from it are up to date), and the current time
# if not (make remakes what depends on it).  A file to be touched that is a
# hard link (to the pristine tree) is copied first: its other names keep
# their mtime.  Without STATE, nothing is touched: make decides alone.
# Either way STATE then records the FILEs as the build will see them: make
# meets them again with the same content and mtime, so the record holds
# whether or not the build completes.
match_mtimes() {
	local tree=$1 state=$2 sha mtime f want now p recorded=0
	shift 2
	local -A was_sha was_mtime
	if [ -f "$state" ]; then
		recorded=1
		while read -r sha mtime f; do
			was_sha[$f]=$sha
			was_mtime[$f]=$mtime
		done <"$state"
	fi
	now=$(date +%s)
	while read -r sha mtime f; do
		if [ "$recorded" = 1 ]; then
			want=$now
			[ "${was_sha[$f]:-}" != "$sha" ] || want=${was_mtime[$f]}
			if [ "$want" != "$mtime" ]; then
				p=$tree/$f
				if [ "$(stat -c %h "$p")" -gt 1 ]; then
					cp -p "$p" "$p.unlinked"
					mv "$p.unlinked" "$p"
				fi
				touch -d "@$want" "$p"
				mtime=$want
			fi
		fi
		echo "$sha $mtime $f"
	done < <(tree_state "$tree" "$@") >"$state.new"
	mv "$state.new" "$state"
}

# series_patches: the patch files patches/series lists, in order
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$ROOT/patches/series"
}

# patch_files PATCH...: the paths the patches touch, both sides of renames
patch_files() {
	sed -n 's|^diff --git a/\(.*\) b/\(.*\)$|\1\n\2|p' "$@"
}
