#!/usr/bin/env bash
# 'make list-tests': every test of the in-VM suite, "PREFIX/ID NAME", per
# filesystem (ext4, f2fs, then the "once" and "end" groups), without booting
# anything: tests/vm/run in list mode (VTEST_LIST=1) on the host, where the
# groups' top-level code only declares their tests.  VTEST_FILTER (ID globs)
# and VTEST_GROUPS select as in a boot.
#
# The tests of a default boot (1024 MiB, no vtest.* words on the kernel
# command line), then those that only some boots run: the low-memory test
# of make lowmem (guests under 256 MiB) and the no-signature tests of make
# bisect's kernel without builtin signatures (vtest.sigs=off).  Fails when
# a group cannot be listed or a test ID is used twice under one prefix.
# The runner and the groups run under the sh of PATH (dash on Debian; the
# guest's is busybox ash).
#
# --ids: the IDs alone, one a line, in the same order (the passes of make
# modes too): tests/test-ids.txt holds them, and make check compares the
# two (--check), so that a group that lists fewer tests, or other ones,
# than it did fails the run until the file is written again on purpose
# (scripts/list-tests.sh --ids > tests/test-ids.txt).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# list NAME MEM-MIB KERNEL-CMDLINE: the list of a boot with that memory and
# command line in $tmp/NAME
list() {
	VTEST_LIST=1 VTEST_MEM_MIB=$2 VTEST_KCMDLINE=$3 TMPDIR=$tmp \
		sh "$ROOT/tests/vm/run" >"$tmp/$1"
}
list default 1024 ''
list lowmem 128 ''
list nosigs 1024 vtest.sigs=off
IDS_FILE=$ROOT/tests/test-ids.txt

# ids: the IDs of the lists above, then those of make modes' passes
ids() {
	local l
	for l in default lowmem nosigs; do grep -v '^#' "$tmp/$l" | cut -d' ' -f1; done | awk '!seen[$0]++'
	VTEST_LIST=1 VTEST_MEM_MIB=1024 VTEST_KCMDLINE='' TMPDIR=$tmp VTEST_FS="$MODES_PASSES" \
		VTEST_GROUPS="${MODES_GROUPS//,/ }" sh "$ROOT/tests/vm/run" | grep -v '^#' | cut -d' ' -f1 |
		grep -v '^end/'
}
case ${1:-} in
--ids)
	ids
	exit
	;;
--check)
	ids >"$tmp/ids"
	if diff -u "$IDS_FILE" "$tmp/ids" >"$tmp/ids.diff"; then
		tap_report OK "test IDs: the suite lists the $(wc -l <"$tmp/ids") tests of ${IDS_FILE#"$ROOT"/}"
	else
		echo "(- in ${IDS_FILE#"$ROOT"/}, + listed now; if the change is meant: scripts/list-tests.sh --ids > ${IDS_FILE#"$ROOT"/})" >>"$tmp/ids.diff"
		tap_report FAIL "test IDs: the suite lists the tests of ${IDS_FILE#"$ROOT"/}" "$tmp/ids.diff"
	fi
	tap_closing
	[ "$tap_fail" -eq 0 ]
	exit
	;;
'') ;;
*) die "usage: list-tests.sh [--ids|--check]" ;;
esac

cat "$tmp/default"
# only_in NAME TITLE: the tests of list NAME that the default boot lacks
only_in() {
	local id name
	grep -v '^#' "$tmp/default" | cut -d' ' -f1 | sort >"$tmp/default.ids"
	grep -v '^#' "$tmp/$1" | while read -r id name; do
		grep -qxF -- "$id" "$tmp/default.ids" || echo "$id $name"
	done >"$tmp/$1.only"
	if [ -s "$tmp/$1.only" ]; then
		echo "# $2"
		cat "$tmp/$1.only"
	fi
}
only_in lowmem "only in guests of less than 256 MiB (make lowmem)"
only_in nosigs "only on a kernel without builtin signatures (vtest.sigs=off: make bisect)"
count() {	# PATTERN FILE...: the lines of the FILEs that match PATTERN
	cat "${@:2}" | grep -c "$1" || true
}
echo "# a default boot: $(count '^[a-z0-9]*/' "$tmp/default") tests ($(count '^ext4/' "$tmp/default") ext4, $(count '^f2fs/' "$tmp/default") f2fs, $(count '^once/' "$tmp/default") once, $(count '^end/' "$tmp/default") end); $(count '^[a-z0-9]*/' "$tmp/lowmem.only" "$tmp/nosigs.only") more in the boots above"
