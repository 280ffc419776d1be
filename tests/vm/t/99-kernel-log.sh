#!/bin/sh
#@ fs: end
# The kernel log of the whole run (of each VM, when the host splits the
# suite): no oops, BUG, WARNING, lockdep report or
# hung task.
. "$VT_DIR/lib.sh"

t_dmesg() {
	need_cmd dmesg
	dmesg > "$VT_STATE/dmesg" 2>&1 || fail "dmesg failed"
	[ -s "$VT_STATE/dmesg" ] || fail "the kernel log is empty"
	grep -n -E 'Oops|BUG:|WARNING:|kernel BUG|general protection fault|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU|INFO: task .* blocked|Call Trace|UBSAN|KASAN' \
		"$VT_STATE/dmesg" > "$VT_STATE/dmesg.bad"
	if [ -s "$VT_STATE/dmesg.bad" ]; then
		echo "the kernel log has $(wc -l < "$VT_STATE/dmesg.bad") suspicious lines:"
		head -n 20 "$VT_STATE/dmesg.bad"
		l=$(head -n 1 "$VT_STATE/dmesg.bad" | cut -d: -f1)
		echo "context of the first one:"
		sed -n "$((l > 5 ? l - 5 : 1)),$((l + 30))p" "$VT_STATE/dmesg"
		exit 1
	fi
	note "$(grep -c -i 'verity' "$VT_STATE/dmesg") kernel log lines mention verity"
}

vt_test 99.01 "kernel log of the run on ${VTEST_FS:-ext4 f2fs}: no oops, BUG, WARNING, lockdep report or hung task during the suite" t_dmesg
exit 0
