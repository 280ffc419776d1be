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
