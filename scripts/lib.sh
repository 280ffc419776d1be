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

case $FLAVOR in
test|debug) ;;
*) die "unknown FLAVOR '$FLAVOR': use FLAVOR=test (default) or FLAVOR=debug" ;;
esac

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

# TAP output of the scripts that report tests themselves (bisect.sh,
# distro-build.sh): tap_report OK|FAIL NAME [DETAIL-FILE] prints one line,
# with DETAIL-FILE as "# " lines; tap_pass, tap_fail and tap_n count.
tap_pass=0
tap_fail=0
tap_n=0
tap_report() {
	tap_n=$((tap_n + 1))
	if [ "$1" = OK ]; then
		echo "ok $tap_n - $2"
		tap_pass=$((tap_pass + 1))
	else
		echo "not ok $tap_n - $2"
		tap_fail=$((tap_fail + 1))
	fi
	[ -z "${3:-}" ] || [ ! -s "$3" ] || sed 's/^/# /' "$3"
}
