#!/bin/sh
#@ fs: ext4 f2fs
#@ timeout: 600
# Allocation and I/O fault injection on fs-verity's paths, one fault per
# run (syzkaller's fail-nth): for N = 1, 2, ... the N-th should_fail() call
# of the task fails, until a run ends without consuming its fault; N - 1 is
# the number of injection points of the operation.  failslab and
# fail_page_alloc count every allocation that may sleep (ignore-gfp-wait
# off, highmem and order 0 included), fail_make_request every bio the task
# submits to the scratch disk; the probabilities stay 0, so nothing else
# fails.  The helper (vfail, see its header) checks the end state of every
# run:
#   ENABLE: succeeded, and the file is a verity file that measures right
#     and reads right after drop_caches; or failed with an errno, and the
#     file is not a verity file, has its bytes and size, and an ENABLE
#     without a fault then succeeds on that same file (the same file, not a
#     fresh copy: a half-enabled inode, e.g. a flag left in memory or on the
#     disk, would show there);
#   the first open and full read after drop_caches (the inode evicted): an
#     errno from open, or every block right or EIO/ENOMEM, never other
#     bytes, nothing past the data; then, without a fault, the file reads
#     right with the caches left as they are (pages of a failed setup must
#     not be served unverified) and again after drop_caches;
#   MEASURE (after the open of an evicted inode): an errno or the digest.
# SHA-256 files, salted, and signed ones (the PKCS#7 check allocates a
# lot; they have no salt).  Each test
# notes the injection points, the end states, and the distinct call sites
# that failed (the first frame outside printk, tracing, fault injection, the
# allocators and bio submission, from the stack that the stacktrace trigger
# of the printk:console trace event records for each "FAULT_INJECTION"
# message: the fault attributes are verbose=1, one line in the kernel log
# each and no stack there, where t/99-kernel-log.sh rejects any "Call
# Trace"); it fails unless fs-verity's own allocations of the operation
# (SITES_SALTED, SITES_SIGNED) are among those sites, so that a fault
# injection that stops reaching fs-verity shows.  Filesystem errors in the
# kernel log during the runs (ext4
# errors, an aborted journal, f2fs errors) are noted as "FILESYSTEM ERROR".
# About 30 s per filesystem under TCG (17-block files); the time limit
# leaves room for a slow host.
. "$VT_DIR/lib.sh"

D=$VT_MNT/af
W=$VT_WORK/af
DBG=/sys/kernel/debug
EV=$TRACEFS/events/printk/console
SZ=$((16 * BS + 1000))		# 17 data blocks, the last partial
MAXN=2000

g_setup() {
	fresh_group "$W"
}
vt_setup g_setup

# fi_attr NAME: the fault attribute NAME with probability 0 (fail-nth
# alone makes it fail), one kernel log line per failure, no rate limit
fi_attr() {
	_a=$DBG/$1
	[ -d "$_a" ] || fail "no $_a (CONFIG_FAULT_INJECTION_DEBUG_FS and the option of $1)"
	echo 0 > "$_a/probability" &&
	echo 1 > "$_a/interval" &&
	echo -1 > "$_a/times" &&
	echo 0 > "$_a/space" &&
	echo 1 > "$_a/verbose" &&
	echo 0 > "$_a/verbose_ratelimit_interval_ms" ||
		fail "cannot set up $_a"
}

# fi_on: the fault attributes, the disk's make-it-fail and the stack
# recording; fi_off (on EXIT) undoes what would change other groups
fi_on() {
	# the scratch disk of the guest, nothing else (tests/vm/dryrun.sh runs
	# on the host with plain files as disks)
	_mif=/sys/block/${VT_DEV#/dev/}/make-it-fail
	[ -b "$VT_DEV" ] && [ -e "$_mif" ] || fail "no $_mif: $VT_DEV is no block device with fail_make_request"
	[ -e /proc/thread-self/fail-nth ] || fail "no /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)"
	fi_attr failslab
	fi_attr fail_page_alloc
	fi_attr fail_make_request
	echo N > "$DBG/failslab/ignore-gfp-wait" &&
	echo N > "$DBG/fail_page_alloc/ignore-gfp-wait" &&
	echo N > "$DBG/fail_page_alloc/ignore-gfp-highmem" &&
	echo 0 > "$DBG/fail_page_alloc/min-order" || fail "cannot set the gfp filters"
	trap fi_off EXIT
	echo 1 > "$_mif"
	[ -d "$EV" ] || mount -t tracefs tracefs "$TRACEFS" 2>/dev/null
	[ -d "$EV" ] || fail "no printk:console trace event in $TRACEFS (CONFIG_FTRACE, tracefs)"
	cat "$TRACEFS/tracing_on" > "$W/tracing_on"
	echo 'msg ~ "FAULT_INJECTION*"' > "$EV/filter" &&
	echo 'stacktrace if msg ~ "FAULT_INJECTION*"' > "$EV/trigger" &&
	echo 1 > "$EV/enable" &&
	echo 1 > "$TRACEFS/tracing_on" || fail "cannot set up the printk:console event and its stacktrace trigger"
}
fi_off() {
	echo 0 > "/sys/block/${VT_DEV#/dev/}/make-it-fail"
	echo 0 > "$EV/enable"
	echo '!stacktrace' > "$EV/trigger"
	echo 0 > "$EV/filter"
	echo > "$TRACEFS/trace"
	[ -s "$W/tracing_on" ] && cat "$W/tracing_on" > "$TRACEFS/tracing_on"
	echo Y > "$DBG/failslab/ignore-gfp-wait"
	echo Y > "$DBG/fail_page_alloc/ignore-gfp-wait"
	echo Y > "$DBG/fail_page_alloc/ignore-gfp-highmem"
	for _a in failslab fail_page_alloc fail_make_request; do
		echo 2 > "$DBG/$_a/verbose"
	done
}

# mk NAME [SIGNED]: $W/NAME.ref (the data), $W/NAME.setup (set up, signed
# with the trusted key when SIGNED is given, else salted), $W/NAME.meas
mk() {
	need_helpers
	need_fsverity
	need_cmd vfail
	gen "$SZ" 380 > "$W/$1.ref" || fail "cannot write $W/$1.ref"
	cp "$W/$1.ref" "$W/$1.setup" || fail "cannot copy"
	if [ -n "${2:-}" ]; then
		sig_need trusted
		sig_setup "$W/$1.setup" trusted > "$W/$1.meas" || fail "signed setup failed"
	else
		# salted: the hash state after the salt is one more allocation
		setup_measure "$W/$1.setup" --salt=5eed0123 > "$W/$1.meas" ||
			fail "fsverity setup failed"
	fi
}

# mk_enabled NAME: $D/NAME enabled from $W/NAME.setup
mk_enabled() {
	cp "$W/$1.setup" "$D/$1" || fail "cannot copy to $D/$1"
	expect "ENABLE of $D/$1" OK "$(vioctl enable "$D/$1")"
}

# vfail_run LABEL WHAT SITES ARGS...: run vfail (its -l LABEL: FS.LABEL)
# with the faults set up; notes its figures as WHAT, fails with its FAIL
# lines, and unless each fs-verity function of SITES (its own allocations)
# is among the failed call sites
vfail_run() {
	_label=$FS.$1
	_what=$2
	_want=$3
	shift 3
	fi_on
	_t0=$(date +%s)
	vfail -n "$MAXN" -l "$_label" "$@" > "$W/vfail.out" 2> "$W/vfail.err"
	_rc=$?
	_t1=$(date +%s)
	fi_off
	trap - EXIT
	cat "$W/vfail.out" "$W/vfail.err"
	_pts=$(sed -n 's/^points //p' "$W/vfail.out")
	_states=$(sed -n 's/^state \(.*\) \([0-9]*\)$/\1 \2,/p' "$W/vfail.out" | tr '\n' ' ')
	_sites=$(sed -n 's/^sites //p' "$W/vfail.out")
	_attr=$(sed -n 's/^attr //p' "$W/vfail.out")
	_nost=$(sed -n 's/^nostack //p' "$W/vfail.out")
	_fserr=$(sed -n 's/^fserr //p' "$W/vfail.out")
	[ -n "$_pts" ] || fail "vfail did not finish (status $_rc): $(cat "$W/vfail.err")"
	_ns=${_sites%% *}
	_names=${_sites#"$_ns"}
	# shellcheck disable=SC2086
	set -- $_attr
	case $_names in
	" unresolved"*)	_kind="distinct stacks of the failures (no symbols)" ;;
	*)		_kind="distinct failed call sites" ;;
	esac
	note "$_what: $_pts injection points, $((_t1 - _t0)) s; end states: ${_states%, }; $_kind: $_ns (faults: failslab $2, fail_page_alloc $4, fail_make_request $6, other $8, without a message (__GFP_NOWARN) $_nost)"
	case $_names in
	" unresolved"*)
		note "$_what: the kernel has no CONFIG_KALLSYMS: each distinct stack is in the kernel log ('vfail: stack $_label ...') for symbolization with System.map" ;;
	*)	note "$_what: call sites:$_names" ;;
	esac
	if [ "${_fserr:-0}" -gt 0 ]; then
		note "$_what: FILESYSTEM ERROR in the kernel log after $_fserr runs:"
	fi
	sed -n 's/^klog /kernel: /p' "$W/vfail.out" | while IFS= read -r _l; do
		note "$_what: $_l"
	done
	_kother=$(sed -n 's/^klogother //p' "$W/vfail.out")
	[ "${_kother:-0}" -gt 0 ] &&
		note "$_what: $_kother other kernel log lines of ext4, f2fs or fs-verity, the first: $(sed -n 's/^klogv [^:]*: //p' "$W/vfail.out")"
	[ "$_rc" = 0 ] || fail "$_what: $(grep -c '^FAIL' "$W/vfail.out") wrong end states (status $_rc); the first: $(grep -m1 '^FAIL' "$W/vfail.out")"
	[ "$_pts" -gt 0 ] || fail "$_what: no injection point at all: the faults are not injected"
	_missed=
	for _s in $_want; do
		case "$_names " in *" $_s "*) ;; *) _missed="$_missed $_s" ;; esac
	done
	[ -z "$_missed" ] ||
		fail "$_what: no fault was injected at fs-verity's own call sites$_missed (failed call sites:$_names)"
}

# The fs-verity functions whose own allocations each operation must have
# failed at: the info and the metadata buffer (fsverity_create_info()), and
# for signed files the copy of the signature.  The hash state after the salt
# (fsverity_prepare_hash_state()) is not required: on the debug kernel,
# whose KASAN and kmemleak add allocations of their own, the failures seen
# did not always include it (f2fs ENABLE, ext4 first open).
SITES_SALTED="fsverity_create_info"
SITES_SIGNED="fsverity_create_info fsverity_check_signature"

sites_of() {	# [signed]: the sites of a salted or a signed file
	if [ -n "${1:-}" ]; then echo "$SITES_SIGNED"; else echo "$SITES_SALTED"; fi
}

t_enable() {
	_n=en${1:+-$1}
	mk "$_n" "${1:-}"
	vfail_run "enable${1:+.$1}" "ENABLE${1:+ $1}" "$(sites_of "${1:-}")" \
		enable "$W/$_n.setup" "$W/$_n.ref" "$(cat "$W/$_n.meas")" "$D"
}

t_open() {
	_n=op${1:+-$1}
	mk "$_n" "${1:-}"
	mk_enabled "$_n"
	vfail_run "open${1:+.$1}" "first open + read${1:+ $1}" "$(sites_of "${1:-}")" \
		open "$D/$_n" "$W/$_n.ref" "$(cat "$W/$_n.meas")"
}

t_measure() {
	mk me
	mk_enabled me
	vfail_run measure "open + MEASURE" "$SITES_SALTED" measure "$D/me" "$(cat "$W/me.meas")"
}

t_fsck() {
	fs_umount "$VT_MNT" || fail "umount failed"
	fs_check "$VT_DEV" || fail "the filesystem check found problems after the injected faults"
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount failed"
}

vt_test 38.01 "$FS: ENABLE (SHA-256, salted) with one injected allocation or I/O fault per run: enabled and right, or an errno and the file unchanged and enabling" t_enable
vt_test 38.02 "$FS: first open + read of an evicted verity inode (SHA-256, salted) with one injected fault per run: an errno or right bytes, then right with and without drop_caches" t_open
vt_test 38.03 "$FS: open + MEASURE of an evicted verity inode with one injected fault per run: an errno or the digest" t_measure
# not on make bisect's kernel without builtin signatures (t/50-signatures.sh)
if ! vt_kcmdline | grep -qw vtest.sigs=off; then
	vt_test 38.04 "$FS: ENABLE of a signed file (PKCS#7) with one injected fault per run" t_enable signed
	vt_test 38.05 "$FS: first open + read of a signed file with one injected fault per run" t_open signed
fi
vt_test 38.06 "$FS: the filesystem checks clean after the injected faults" t_fsck
exit 0
