# Shared code of the in-VM test suite (POSIX sh, busybox ash).  Sourced by
# /tests/run, by every group t/NN-*.sh and by demo.sh; never run directly.
#
# A group is run once per filesystem with FS=ext4 or FS=f2fs in the
# environment; the same code serves both.  Each test is a shell function run
# in a subshell by vt_test; it passes by returning 0, fails with `fail MSG`
# (or any non-zero status) and skips with `skip REASON` (the host fails a
# run with a skip that tests/expected-skips.txt does not list).  Everything a test
# prints goes to a log that is shown, as "# " lines, only when it fails;
# `note MSG` lines are shown always.

VT_DIR=${VT_DIR:-/tests}
VT_STATE=${VT_STATE:-/tmp/vtest}	# counters, logs, per-case records
VT_WORK=$VT_STATE/work			# small reference files (tmpfs)
VT_MNT=${VT_MNT:-/mnt/vt}		# the scratch filesystem under test
VT_MNT2=${VT_MNT2:-/mnt/vt2}		# a second one (no-verity, compression)
# The scratch disks come from the harness; there is no default, so that the
# suite cannot format a disk of a machine it was not meant to run on.
vt_disks() { VT_DEV=${1:-}; VT_DEV2=${2:-}; }
# shellcheck disable=SC2086
vt_disks ${VTEST_DISKS:-}
FS=${FS:-ext4}
# The first part of the test IDs: the filesystem, or "once" and "end" for
# the groups of those kinds (tests/vm/run sets it)
VT_PREFIX=${VT_PREFIX:-$FS}
BS=4096
VT_SUM=${VT_SUM:-sha256sum}

# ---------------------------------------------------------------- counters

vt_counter_add() {	# NAME: increment $VT_STATE/NAME, print the new value
	_v=$(cat "$VT_STATE/$1" 2>/dev/null || echo 0)
	_v=$((_v + 1))
	echo "$_v" > "$VT_STATE/$1"
	echo "$_v"
}

vt_counter() {
	cat "$VT_STATE/$1" 2>/dev/null || echo 0
}

# ------------------------------------------------------------------ filter

# VTEST_FILTER: a shell glob, or several joined with '|', on the test ID
# ("ext4/20.06", see vt_test); empty = all.  vt_want STRING: STRING
# (an ID) is selected.
vt_want() {
	[ -z "${VTEST_FILTER:-}" ] && return 0
	_name=$1
	_old_ifs=$IFS
	IFS='|'
	# shellcheck disable=SC2086
	set -- $VTEST_FILTER
	IFS=$_old_ifs
	for _pat; do
		# shellcheck disable=SC2254
		case $_name in $_pat) return 0 ;; esac
	done
	return 1
}

# List mode (VTEST_LIST=1, see vt_test): the group only lists its tests.
# Its top-level code runs, so it must have no effect outside tests: what
# a group does besides declaring tests (cleanup at its end, notes about
# its seeds) is guarded by vt_listing.
vt_listing() {
	[ "${VTEST_LIST:-0}" = 1 ]
}

# vt_selected ID...: in a run (not in list mode), a test of one of these
# IDs (of this group, without the prefix) runs
vt_selected() {
	vt_listing && return 1
	for _id; do
		vt_want "$VT_PREFIX/$_id" && return 0
	done
	return 1
}

# vt_kcmdline: the kernel command line, or VTEST_KCMDLINE when it is set
# (scripts/list-tests.sh lists the tests of given boots on the host)
vt_kcmdline() {
	if [ -n "${VTEST_KCMDLINE+set}" ]; then
		echo "$VTEST_KCMDLINE"
	else
		cat /proc/cmdline 2>/dev/null
	fi
}

# vt_param NAME DEFAULT [word]: a group's tunable NAME ("vfuzz.seed"): the
# environment variable of that name in capitals with "_" for "."
# (VFUZZ_SEED) if set, else NAME=VALUE on the kernel command line, else
# DEFAULT.  It must be a decimal number unless "word" is given; if it is
# not, says so on stderr and returns 1 (the group then exits: its plan
# fails it).
vt_param() {
	_var=$(echo "$1" | tr 'a-z.' 'A-Z_')
	eval "_val=\${$_var-}"
	if [ -z "$_val" ]; then
		for _a in $(vt_kcmdline); do
			case $_a in "$1="*) _val=${_a#"$1="} ;; esac
		done
	fi
	_val=${_val:-$2}
	case ${3:-}:$_val in
	word:*) ;;
	*:*[!0-9]* | *:) echo "# $_var ($1=) must be a decimal number, not '$_val'" >&2; return 1 ;;
	esac
	echo "$_val"
}

# vt_seed NAME: a seed tunable (vt_param); by default one from the clock,
# different in each run.  Groups print it, so that a failure reproduces.
vt_seed() {
	vt_param "$1" $((($(date +%s) * 7919 + $$) % 1000000000))
}

# vt_mem_mib: the memory of the machine in MiB, or VTEST_MEM_MIB when it is
# set (like VTEST_KCMDLINE)
vt_mem_mib() {
	echo "${VTEST_MEM_MIB:-$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1024))}"
}

# ------------------------------------------------------------ test running

# fresh_group WORKDIR [FEATURES]: the usual group setup: an empty WORKDIR, a
# fresh filesystem made with the mkfs -O list FEATURES (default "verity",
# e.g. "encrypt,verity") and the test directory $D on it.
fresh_group() {
	rm -rf "$1"
	mkdir -p "$1"
	fs_fresh "${2:-verity}" || return 1
	mkdir -p "$D"
}

# vt_setup FUNC: FUNC prepares the group (mkfs, mount ...).  It runs once,
# in the group's shell, right before the first test that the filter selects;
# if it fails, every selected test of the group fails with its output.
vt_setup() {
	VT_SETUP_FN=$1
	VT_SETUP_RC=
}

vt_print_log() {	# FILE: print as "# " lines, at most 60
	[ -s "$1" ] || return 0
	_n=$(wc -l < "$1")
	sed -n '1,60s/^/# /p' "$1"
	[ "$_n" -gt 60 ] && echo "# ... ($((_n - 60)) more lines)"
	return 0
}

# vt_test ID NAME FUNC [ARGS...]: the test ID of this group (e.g. 20.06:
# the group's number, a dot, then two digits, or words derived from the
# parameters of a loop, e.g. 10.s4097.measure), its name (prose, free to
# change) and the function that runs it.  The TAP line reads "ok N -
# PREFIX/ID NAME", e.g. "ok 17 - ext4/20.06 ext4: flipped byte ...".
# In list mode (VTEST_LIST=1) it prints "PREFIX/ID NAME" and runs nothing,
# not even the group's setup.
vt_test() {
	_tid=$VT_PREFIX/$1
	_tname=$2
	shift 2
	if vt_listing; then
		echo "$_tid $_tname"
		return 0
	fi
	vt_want "$_tid" || return 0
	if [ -n "${VT_SETUP_FN:-}" ] && [ -z "$VT_SETUP_RC" ]; then
		$VT_SETUP_FN > "$VT_STATE/setup.log" 2>&1 </dev/null
		VT_SETUP_RC=$?
	fi
	_n=$(vt_counter_add count)
	rm -f "$VT_STATE/skip"
	: > "$VT_STATE/notes"
	if [ -n "${VT_SETUP_FN:-}" ] && [ "$VT_SETUP_RC" != 0 ]; then
		{ echo "group setup ($VT_SETUP_FN) failed:"
		  cat "$VT_STATE/setup.log"; } > "$VT_STATE/log"
		_rc=1
	else
		( "$@" ) > "$VT_STATE/log" 2>&1 </dev/null
		_rc=$?
	fi
	case $_rc in
	0)	echo "ok $_n - $_tid $_tname"
		vt_counter_add passed > /dev/null ;;
	77)	echo "ok $_n - $_tid $_tname # SKIP $(cat "$VT_STATE/skip" 2>/dev/null)"
		vt_counter_add skipped > /dev/null ;;
	*)	echo "not ok $_n - $_tid $_tname"
		vt_counter_add failed > /dev/null
		[ -s "$VT_STATE/log" ] || echo "test function exited with status $_rc" > "$VT_STATE/log"
		vt_print_log "$VT_STATE/log" ;;
	esac
	vt_print_log "$VT_STATE/notes"
	return 0
}

# vt_fail_line ID NAME [DETAIL-FILE]: a failed check of the runner itself
# (not a test function): a "not ok" line, counted, with DETAIL-FILE as
# "# " lines
vt_fail_line() {
	_n=$(vt_counter_add count)
	vt_counter_add failed > /dev/null
	echo "not ok $_n - $1 $2"
	[ -z "${3:-}" ] || vt_print_log "$3"
}

# Inside a test:
fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "$*" > "$VT_STATE/skip"
	exit 77
}

note() {
	echo "$*" >> "$VT_STATE/notes"
}

# expect WHAT EXPECTED GOT
expect() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

# expect_one_of WHAT GOT EXPECTED...
expect_one_of() {
	_what=$1
	_got=$2
	shift 2
	for _e; do
		[ "$_got" = "$_e" ] && return 0
	done
	fail "$_what: expected one of '$*', got '$_got'"
}

# ----------------------------------------------------------- prerequisites

# need_cmd CMD...: in a test, fail unless every CMD is on PATH: the
# initramfs has every program and helper the suite uses
# (scripts/initramfs.sh), so a missing one is a broken build, not a reason
# to skip
need_cmd() {
	for _c; do
		command -v "$_c" > /dev/null 2>&1 ||
			fail "'$_c' not found on PATH: the initramfs lacks it (scripts/initramfs.sh)"
	done
}

need_helpers() {
	need_cmd vioctl rdtest physoff poke gen runas
}

need_fsverity() {
	need_cmd fsverity
}

# ------------------------------------------------------------- filesystems

is_mounted() {	# MOUNTPOINT
	grep -q " $1 " /proc/mounts
}

fs_umount() {	# MOUNTPOINT: unmount if mounted
	is_mounted "$1" || return 0
	sync
	umount "$1" || { echo "umount $1 failed"; return 1; }
}

# The mount mode of the pass (VT_MODE: tests/vm/run runs the groups once
# per word of VTEST_FS, FS or FS:MODE): the mkfs features and mount options
# it adds to every filesystem fs_mkfs makes and fs_mount mounts, so that the
# same tests run under the configurations users run.  vt_mode_features
# and vt_mode_options print them (nothing for the default mode).
vt_mode_features() {
	case $FS:${VT_MODE:-} in
	ext4:nojournal) echo ^has_journal ;;
	f2fs:compress) echo extra_attr,compression ;;
	esac
}
vt_mode_options() {
	case $FS:${VT_MODE:-} in
	ext4:journal) echo data=journal ;;
	ext4:writeback) echo data=writeback ;;
	ext4:nodelalloc) echo nodelalloc ;;
	# compression on for the files named *.cmpr, which no test makes:
	# ENABLE refuses compressed files (40-f2fs.sh checks that)
	f2fs:compress) echo compress_algorithm=lz4,compress_extension=cmpr ;;
	f2fs:noinline) echo noinline_data,noinline_dentry ;;
	esac
}

# vt_join A B: A and B joined with a comma, either of them possibly empty
vt_join() {
	echo "$1${1:+${2:+,}}$2"
}

# fs_mkfs DEV [FEATURES] [MIB]: FEATURES is the -O list ("verity", "" for
# none, "verity,extra_attr,compression" ...), to which the mode's are
# added; MIB makes the filesystem that many MiB of DEV instead of all of
# it.  ext4's blocks are a page (-b: for small filesystems mke2fs would pick
# 1 KiB ones, which fs-verity refuses).
fs_mkfs() {
	_dev=$1
	vt_disk_is_free "$_dev" || return 1
	_feat=$(vt_join "${2-verity}" "$(vt_mode_features)")
	_mib=${3:-}
	case $FS in
	ext4)	mkfs.ext4 -q -F -b $BS ${_feat:+-O "$_feat"} "$_dev" ${_mib:+${_mib}M} ;;
	f2fs)	mkfs.f2fs -q -f ${_feat:+-O "$_feat"} "$_dev" ${_mib:+$((_mib * 1048576 / 512))} > /dev/null ;;
	*)	echo "unknown FS '$FS'"; return 1 ;;
	esac || { echo "mkfs.$FS ${_feat:+-O $_feat} $_dev${_mib:+ (${_mib} MiB)} failed"; return 1; }
}

fs_mount() {	# DEV MOUNTPOINT [OPTIONS]: OPTIONS and the mode's
	mkdir -p "$2"
	_o=$(vt_join "${3:-}" "$(vt_mode_options)")
	mount -t "$FS" ${_o:+-o "$_o"} "$1" "$2" ||
		{ echo "mount -t $FS ${_o:+-o $_o} $1 $2 failed"; return 1; }
}

# fs_check DEV: the filesystem's own read-only check of the unmounted DEV
# (e2fsck -fn, fsck.f2fs -f --dry-run); on a problem, prints its output and
# the command, and returns 1
fs_check() {
	case $FS in
	ext4)	need_cmd e2fsck
		set -- e2fsck -fn "$1" ;;
	f2fs)	need_cmd fsck.f2fs
		set -- fsck.f2fs -f --dry-run "$1" ;;
	*)	echo "unknown FS '$FS'"; return 1 ;;
	esac
	"$@" > "$VT_STATE/fsck.log" 2>&1
	_rc=$?
	if [ $_rc -ne 0 ] || grep -q -F '[Fail]' "$VT_STATE/fsck.log"; then
		cat "$VT_STATE/fsck.log"
		echo "$*: status $_rc"
		return 1
	fi
}

# fs_fresh [FEATURES] [MOUNT-OPTIONS] [MIB]: new scratch filesystem on
# $VT_DEV (fs_mkfs) mounted at $VT_MNT with MOUNT-OPTIONS, which later
# remounts keep
fs_fresh() {
	fs_umount "$VT_MNT" || return 1
	fs_mkfs "$VT_DEV" "${1-verity}" "${3:-}" || return 1
	fs_mount "$VT_DEV" "$VT_MNT" "${2:-}" || return 1
	chmod 755 "$VT_MNT"
	VT_MNT_OPTS=${2:-}
	echo 0 > "$VT_STATE/mountgen"
}

# fs_remount: full umount + mount of $VT_MNT (everything leaves the cache)
fs_remount() {
	fs_umount "$VT_MNT" || return 1
	fs_mount "$VT_DEV" "$VT_MNT" "${VT_MNT_OPTS:-}" || return 1
	vt_counter_add mountgen > /dev/null
}

# ------------------------------------------------- the raw device under it

# raw_target FILE OFF [-e]: "DEVOFF:BYTE": where byte OFF of FILE lies on
# $VT_DEV (FIEMAP; -e: an encrypted file, whose device bytes are ciphertext,
# BYTE is then "-") and the byte it holds now, for raw_corrupt.  Call it
# before ENABLE.
raw_target() {
	_doff=$(physoff ${3:+"$3"} "$1" "$2") || { echo "physoff ${3:+$3 }$1 $2 failed"; return 1; }
	if [ -n "${3:-}" ]; then
		echo "$_doff:-"
		return 0
	fi
	_byte=$(poke "$1" "$2" get 1) || { echo "poke $1 $2 get 1 failed"; return 1; }
	echo "$_doff:$_byte"
}

# raw_corrupt DEVOFF:BYTE...: unmount $VT_MNT, flip each byte DEVOFF of
# $VT_DEV (xor 0xff) after checking that it holds BYTE (two hex digits, as
# raw_target gives it; "-" checks nothing), mount again as fs_remount does.
# Prints poke's "DEVOFF: OLD -> NEW" line for each byte; on a mismatch or an
# error, says which and returns 1, the filesystem mounted again.
raw_corrupt() {
	fs_umount "$VT_MNT" || return 1
	_rc=0
	for _t; do
		_out=$(poke "$VT_DEV" "${_t%%:*}" xor ff) ||
			{ echo "poke $VT_DEV ${_t%%:*} xor ff failed: $_out"; _rc=1; break; }
		echo "$_out"
		_old=${_out#*: }
		_old=${_old%% *}
		[ "${_t#*:}" = - ] || [ "${_t#*:}" = "$_old" ] || {
			echo "device byte at ${_t%%:*} was $_old, the file's was ${_t#*:}: physoff wrong"
			_rc=1
			break
		}
	done
	fs_mount "$VT_DEV" "$VT_MNT" "${VT_MNT_OPTS:-}" || return 1
	vt_counter_add mountgen > /dev/null
	return $_rc
}

# raw_corrupt_listed FILE: raw_corrupt of the targets that FILE lists, one
# a line: "NAME OFFSET DEVOFF:BYTE" (a file, its byte, raw_target's answer)
raw_corrupt_listed() {
	_list=$1
	set --
	while read -r _n _off _t; do
		echo "$_n: file offset $_off, device offset ${_t%:*}"
		set -- "$@" "$_t"
	done < "$_list"
	raw_corrupt "$@"
}

# tracefs, for the tests and the bench that record trace events
TRACEFS=/sys/kernel/tracing

# The page cache of one inode, observed through the filemap trace events
# (mm_filemap_add_to_page_cache / mm_filemap_delete_from_page_cache), in a
# test.  tr_start INO: record the page-cache insertions and deletions of
# inode INO of $VT_DEV from now on (INO taken beforehand: on f2fs, stat()
# of a verity file sets up its metadata)
tr_start() {
	[ -d "$TRACEFS/events/filemap" ] || mount -t tracefs tracefs "$TRACEFS" 2>/dev/null
	[ -d "$TRACEFS/events/filemap" ] ||
		fail "no filemap trace events in $TRACEFS (CONFIG_FTRACE and tracefs are needed)"
	_ino=$1
	for _e in mm_filemap_add_to_page_cache mm_filemap_delete_from_page_cache; do
		echo "i_ino == $_ino" > "$TRACEFS/events/filemap/$_e/filter" ||
			fail "cannot set the filter of trace event $_e"
		echo 1 > "$TRACEFS/events/filemap/$_e/enable"
	done
	echo > "$TRACEFS/trace"
	echo 1 > "$TRACEFS/tracing_on"
}

# tr_stop: stop recording; print "add INDEX PFN" and "del INDEX PFN" lines,
# in order
tr_stop() {
	echo 0 > "$TRACEFS/tracing_on"
	for _e in mm_filemap_add_to_page_cache mm_filemap_delete_from_page_cache; do
		echo 0 > "$TRACEFS/events/filemap/$_e/enable"
		echo 0 > "$TRACEFS/events/filemap/$_e/filter"
	done
	_mm=$(stat -c '%t %T' "$VT_DEV")
	_dev=$(printf '%d:%d' "0x${_mm% *}" "0x${_mm#* }")
	awk -v dev="dev $_dev " 'index($0, dev) == 0 { next }
	     /mm_filemap_add_to_page_cache/ { op = "add" }
	     /mm_filemap_delete_from_page_cache/ { op = "del" }
	     /mm_filemap_/ { ofs = ""; pfn = ""
			     for (i = 1; i <= NF; i++) {
				if ($i ~ /^ofs=/) { ofs = $i; sub(/^ofs=/, "", ofs) }
				if ($i ~ /^pfn=/) { pfn = $i; sub(/^pfn=/, "", pfn) }
			     }
			     if (ofs != "") print op, ofs / 4096, pfn }' \
		"$TRACEFS/trace"
}

# page_uptodate PFN: the page frame PFN (0x...) is up to date
# (/proc/kpageflags, KPF_UPTODATE)
KPF_UPTODATE=3
page_uptodate() {
	_f=$(poke /proc/kpageflags $(($1 * 8)) getle 8) || return 1
	[ $(((_f >> KPF_UPTODATE) & 1)) -eq 1 ]
}

# still_cached FIRST LAST < EVENTS: the page indices in FIRST..LAST that
# were added and not deleted afterwards, space-separated
still_cached() {
	awk -v lo="$1" -v hi="$2" '
		$2 >= lo && $2 <= hi { if ($1 == "add") c[$2] = 1; else delete c[$2] }
		END { for (i in c) printf "%s ", i }'
}

# ------------------------------------------------------- device-mapper

DM=/dev/mapper
DM_DISABLE_UDEV=1	# no udev in the guest: libdevmapper makes the nodes
export DM_DISABLE_UDEV

# dev_sectors DEV: its size in 512-byte sectors
dev_sectors() {
	cat "/sys/class/block/${1##*/}/size"
}

# dm_create NAME TABLE: the device-mapper device $DM/NAME
dm_create() {
	dmsetup create "$1" --table "$2" || { echo "dmsetup create $1 --table '$2' failed"; return 1; }
	[ -b "$DM/$1" ] || { echo "dmsetup made no $DM/$1"; return 1; }
}

# dm_block_table DEVOFF TARGET...: a device-mapper table over all of
# $VT_DEV, mapped linearly but for the filesystem block at byte DEVOFF,
# which TARGET (its table words, e.g. "error") maps
dm_block_table() {
	_start=$(($1 / BS * BS / 512))
	_len=$((BS / 512))
	shift
	echo "0 $_start linear $VT_DEV 0"
	echo "$_start $_len $*"
	echo "$((_start + _len)) $(($(dev_sectors "$VT_DEV") - _start - _len)) linear $VT_DEV $((_start + _len))"
}

# dm_switch NAME TABLE [SUSPEND-OPTION...]: $DM/NAME maps TABLE from now
# on (suspend, load, resume; --nolockfs: without freezing the filesystem
# on it, which would write back and checkpoint)
dm_switch() {
	_n=$1
	_t=$2
	shift 2
	dmsetup suspend "$@" "$_n" && dmsetup load "$_n" --table "$_t" && dmsetup resume "$_n" ||
		{ echo "dmsetup could not switch $_n to '$_t'"; return 1; }
}

# dm_remove NAME...: remove the device-mapper devices that exist
dm_remove() {
	for _n; do
		[ -b "$DM/$_n" ] || dmsetup info "$_n" > /dev/null 2>&1 || continue
		dmsetup remove "$_n" || { echo "dmsetup remove $_n failed"; return 1; }
	done
}

# now_cs: centiseconds since boot
now_cs() {
	_u=$(cut -d' ' -f1 /proc/uptime)
	echo "${_u%.*}${_u#*.}" | sed 's/^0*//;s/^$/0/'
}

# vt_klog MSG: a line in the kernel log, with the kernel's timestamp
vt_klog() {
	echo "$*" > /dev/kmsg
}

# klog_mark / klog_since: the kernel log lines after the mark line that
# klog_mark writes (a line of its own: counting lines would not do once
# the ring buffer is full); both in the same test
klog_mark() {
	VT_KLOG_MARK="vtest: mark $(vt_counter_add klogmark)."
	vt_klog "$VT_KLOG_MARK"
}
klog_since() {
	dmesg | awk -v m="$VT_KLOG_MARK" 'found { print } index($0, m) { found = 1 }'
}

# Seconds vt_halt gives the console and tee (the result stream) to write
# out what came before.
VT_HALT_FLUSH=2

# vt_show_requests: on the console, the block requests of each disk that
# have not completed: the in-flight counts (reads, writes), and from the
# block layer's debugfs those a driver holds (busy) or that wait to be
# dispatched to it.  A task waiting on a page whose read never ends waits
# on one of these, or on a read never submitted (then none is listed).
vt_show_requests() {
	for _b in /sys/block/vd* /sys/block/dm-*; do
		[ -e "$_b/inflight" ] || continue
		_n=${_b##*/}
		vt_klog "vtest: $_n: in flight (reads writes): $(cat "$_b/inflight")"
		for _f in /sys/kernel/debug/block/"$_n"/hctx*/busy /sys/kernel/debug/block/"$_n"/hctx*/dispatch; do
			[ -s "$_f" ] || continue
			sed "s|^|vtest: ${_f#/sys/kernel/debug/block/}: |" "$_f" > /dev/kmsg
		done
	done
}

# vt_show_hang: what a hang waits on, on the console: the requests that
# have not completed, the tasks in uninterruptible and killable sleeps with
# their stacks (sysrq w), and what each CPU is running (sysrq l).  Also run
# by vstress (-H) before it kills hung workers, which ends their waits.
vt_show_hang() {
	vt_show_requests 2>/dev/null || true
	echo w > /proc/sysrq-trigger
	echo l > /proc/sysrq-trigger
}

# vt_halt: show what a hang waits on (vt_show_hang), then end the guest at
# once (no sync: a hung filesystem must not hang it); QEMU runs with
# -no-reboot, so the reboot ends the VM
vt_halt() {
	vt_show_hang
	sleep "$VT_HALT_FLUSH"
	echo b > /proc/sysrq-trigger
}

drop_caches() {
	sync
	# Twice: an inode that the first pass releases with its dentry is
	# marked recently used, and the inode cache's shrinker gives such an
	# inode a second chance: the second pass evicts it.
	echo 3 > /proc/sys/vm/drop_caches
	echo 3 > /proc/sys/vm/drop_caches
}

# vt_disk_is_free DEV: DEV is one of VTEST_DISKS (or VTEST_PMEM, the
# persistent memory device of the DAX tests) and nothing of it is mounted
# elsewhere than on our own mount points
vt_disk_is_free() {
	case " ${VTEST_DISKS:-} ${VTEST_PMEM:-} " in
	*" $1 "*) ;;
	*) echo "refusing to touch $1: not in VTEST_DISKS ('${VTEST_DISKS:-}') or VTEST_PMEM"; return 1 ;;
	esac
	if grep -E "^$1(p?[0-9]+)? " /proc/mounts | grep -v -E " ($VT_MNT|$VT_MNT2) " | grep -q .; then
		echo "refusing to touch $1: it is mounted: $(grep "^$1" /proc/mounts)"
		return 1
	fi
}

# ------------------------------------------------------- the test module
# vt_stall (tests/vm/kmod, built by scripts/kmod.sh): the boots of a kernel
# with kprobes (the debug kernel) have it as $VT_KMOD.  It holds up one
# call of a kernel function for one inode, to open a race window on
# purpose.

VT_KMOD=/lib/vt/vt_stall.ko
VT_KMOD_PARAMS=/sys/module/vt_stall/parameters

# kstall_need FUNC: in a test: skip without the module, else have it
# loaded on FUNC (reloaded if it probes another function)
kstall_need() {
	[ -f "$VT_KMOD" ] ||
		skip "no test module: only the debug kernel, built with kprobes, has it"
	if [ -d "$VT_KMOD_PARAMS" ] && [ "$(cat "$VT_KMOD_PARAMS/func")" != "$1" ]; then
		rmmod vt_stall || fail "rmmod vt_stall failed"
	fi
	[ -d "$VT_KMOD_PARAMS" ] || insmod "$VT_KMOD" func="$1" ||
		fail "insmod $VT_KMOD func=$1 failed"
}

# kstall_id FILE: FILE's inode as the module names it, "DEV INO" (st_dev,
# st_ino).  Taken before the inode is evicted on purpose: on f2fs, stat()
# of a verity file sets it up, as the call to be held up may
kstall_id() {
	stat -c '%d %i' "$1"
}

# kstall_arm DEV INO MS: hold up the next call of the module's function
# for that inode (kstall_id) for MS milliseconds
kstall_arm() {
	_kstall_hits0=$(cat "$VT_KMOD_PARAMS/hits") &&
	echo "$3" > "$VT_KMOD_PARAMS/ms" &&
	echo "$1" > "$VT_KMOD_PARAMS/dev" &&
	echo "$2" > "$VT_KMOD_PARAMS/ino"
}

# kstall_held [SECONDS]: wait up to SECONDS (default 10) for the call
# kstall_arm armed for to be held up; fails if it was not
kstall_held() {
	_t=$(( ${1:-10} * 10 ))
	while [ "$(cat "$VT_KMOD_PARAMS/hits")" = "$_kstall_hits0" ] && [ "$_t" -gt 0 ]; do
		sleep 0.1
		_t=$((_t - 1))
	done
	[ "$(cat "$VT_KMOD_PARAMS/hits")" != "$_kstall_hits0" ]
}

# kstall_first_open FILE MS OUT: evict FILE's inode (drop_caches), then
# open FILE read-only in the background (vioctl's word in OUT), its next
# call of the module's function held up MS milliseconds; sets kstall_pid;
# fails unless the open was held up
kstall_first_open() {
	_id=$(kstall_id "$1")
	drop_caches
	# shellcheck disable=SC2086 # $_id: DEV INO
	kstall_arm $_id "$2" || fail "cannot arm the test module"
	vioctl open "$1" r > "$3" 2>&1 &
	kstall_pid=$!
	kstall_held ||
		fail "precondition: the first open of $1 was not held up in $(cat "$VT_KMOD_PARAMS/func")()"
}

# -------------------------------------------------------------------- IMA

IMA_SECFS=/sys/kernel/security
IMA_POLICY=$IMA_SECFS/ima/policy
IMA_LIST=$IMA_SECFS/ima/ascii_runtime_measurements

# ima_mount: securityfs, where IMA's files are, if it is not mounted yet
ima_mount() {
	[ -d "$IMA_SECFS/ima" ] || mount -t securityfs securityfs "$IMA_SECFS" 2>/dev/null
}

# ima_add_rules RULE...: add IMA policy rules for the rest of the boot
# (CONFIG_IMA_WRITE_POLICY), one write each so that a refused rule names
# itself in the error
ima_add_rules() {
	for _rule; do
		echo "$_rule" > "$IMA_POLICY" || { echo "IMA refused the policy rule '$_rule'"; return 1; }
	done
}

# ----------------------------------------------------------- file helpers

fsize() {
	stat -c %s "$1"
}

sum_of() {	# FILE: checksum of the contents, or "READ-ERROR"
	_s=$($VT_SUM < "$1") || { echo READ-ERROR; return 1; }
	echo "${_s%% *}"
}

# setup_measure FILE [OPTIONS...]: run `fsverity setup`, print the
# measurement it reports (ALG:HEX); its output goes to stderr on failure.
setup_measure() {
	_f=$1
	shift
	_out=$(fsverity setup "$_f" "$@" 2>&1)
	_rc=$?
	_m=$(echo "$_out" | sed -n 's/^File measurement: //p')
	if [ $_rc -ne 0 ] || [ -z "$_m" ]; then
		echo "fsverity setup $_f $* failed (status $_rc): $_out" >&2
		return 1
	fi
	echo "$_m"
}

# measure_of FILE: the measurement `fsverity measure` prints for FILE
measure_of() {
	_out=$(fsverity measure "$1" 2>&1) || { echo "ERROR: $_out"; return 1; }
	echo "${_out%% *}"
}

# remember NAME: record the size and checksum of $D/NAME in $W/NAME.state;
# unchanged NAME [verity]: $D/NAME still has them, and its verity flag is
# as given ("-" by default: not a verity file).
remember() {
	echo "$(fsize "$D/$1") $(sum_of "$D/$1")" > "$W/$1.state"
}
unchanged() {
	expect "size and checksum of $1 (unchanged)" "$(cat "$W/$1.state")" \
		"$(fsize "$D/$1") $(sum_of "$D/$1")"
	set -- "$1" "${2:--}" $(vioctl flags "$D/$1")
	expect "FS_IOC_GETFLAGS verity flag of $1" "$2" "$3"
}

le64() {	# N: 16 hex digits, little endian
	h=$(printf '%016x' "$1")
	o=
	while [ -n "$h" ]; do
		o=$o${h#"${h%??}"}
		h=${h%??}
	done
	echo "$o"
}

# The metadata layout of a file after `fsverity setup` (before enable, when
# st_size is the full size): prints "DESC_OFFSET FULL_SIZE".
desc_offset() {
	_full=$(fsize "$1")
	_rev=$(poke "$1" $((_full - 12)) getle 4) || return 1
	echo "$((_full - _rev)) $_full"
}

# Offsets, in data blocks, of the tree levels: for NBLOCKS data blocks and
# DIGEST bytes per hash prints "NLEVELS L0 L1 ..." (blocks per level, level 0
# hashing the data first).
tree_levels() {
	_nb=$1
	_per=$((BS / $2))
	_levels=
	_depth=0
	while :; do
		_nb=$(((_nb + _per - 1) / _per))
		_levels="$_levels $_nb"
		_depth=$((_depth + 1))
		[ "$_nb" -le 1 ] && break
	done
	echo "$_depth$_levels"
}

errno_of() {	# CMD...: run a helper, print its OK/ERRNO word
	"$@" 2>&1 | head -n 1
}

# ------------------------------------------------------------- signatures
# Builtin signatures (CONFIG_FS_VERITY_BUILTIN_SIGNATURES): keys and
# certificates made with openssl in the guest, once per boot, kept in
# $VT_KEYS as NAME.key (PEM), NAME.pem and NAME.der; "trusted" is added to
# the .fs-verity keyring, "untrusted" never is.

VT_KEYS=$VT_STATE/keys
VT_REQSIG=/proc/sys/fs/verity/require_signatures

# sig_keyring_id: the id (decimal) of the .fs-verity keyring, from
# /proc/keys; prints nothing and fails if there is none
sig_keyring_id() {
	_id=$(awk '$8 == "keyring" && $9 == ".fs-verity:" { print $1; exit }' /proc/keys 2>/dev/null)
	[ -n "$_id" ] || return 1
	printf '%d\n' "0x$_id"
}

# sig_keyring_line: the keyring's /proc/keys line
sig_keyring_line() {
	awk '$8 == "keyring" && $9 == ".fs-verity:" { print; exit }' /proc/keys 2>/dev/null
}

# sig_key NAME: make the RSA key and self-signed certificate NAME once
sig_key() {
	[ -s "$VT_KEYS/$1.der" ] && return 0
	mkdir -p "$VT_KEYS"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$VT_KEYS/$1.key" \
		-out "$VT_KEYS/$1.pem" -subj "/CN=fs-verity test $1" -days 2 \
		-outform PEM > "$VT_KEYS/$1.log" 2>&1 &&
	openssl x509 -in "$VT_KEYS/$1.pem" -outform der -out "$VT_KEYS/$1.der.tmp" \
		>> "$VT_KEYS/$1.log" 2>&1 &&
	mv "$VT_KEYS/$1.der.tmp" "$VT_KEYS/$1.der" || {
		echo "making the key and certificate '$1' with openssl failed:"
		cat "$VT_KEYS/$1.log"
		return 1
	}
}

# sig_trust NAME: add certificate NAME to the .fs-verity keyring, once
sig_trust() {
	[ -s "$VT_KEYS/$1.id" ] && return 0
	_kr=$(sig_keyring_id) || { echo "no .fs-verity keyring in /proc/keys"; return 1; }
	_kid=$(keyctl padd asymmetric '' "$_kr" < "$VT_KEYS/$1.der" 2>&1) || {
		echo "keyctl padd asymmetric '' $_kr < $1.der (as root) failed: $_kid"
		return 1
	}
	echo "$_kid" > "$VT_KEYS/$1.id"
}

# sig_untrust NAME: take the certificate NAME out of the keyring again
sig_untrust() {
	[ -s "$VT_KEYS/$1.id" ] || return 0
	_kr=$(sig_keyring_id) || { echo "no .fs-verity keyring in /proc/keys"; return 1; }
	keyctl unlink "$(cat "$VT_KEYS/$1.id")" "$_kr" > /dev/null ||
		{ echo "keyctl unlink of $1 from $_kr failed"; return 1; }
	rm -f "$VT_KEYS/$1.id"
}

# sig_need [KEY...]: in a test: fail without openssl or keyctl, or if the
# kernel lacks the signature support (it is required), make the keys named
# (default: trusted untrusted) and trust "trusted".  Sets the sysctl back
# to 0 if an earlier test left it at 1.
sig_need() {
	need_cmd openssl keyctl
	[ -e "$VT_REQSIG" ] ||
		fail "$VT_REQSIG does not exist: no builtin signature support (CONFIG_FS_VERITY_BUILTIN_SIGNATURES)"
	sig_keyring_id > /dev/null ||
		fail "no .fs-verity keyring in /proc/keys: no builtin signature support"
	if [ "$(cat "$VT_REQSIG")" != 0 ]; then
		note "require_signatures was $(cat "$VT_REQSIG") at the start of the test: set to 0"
		echo 0 > "$VT_REQSIG"
	fi
	[ -e "$VT_KEYS/error" ] && fail "key preparation failed earlier: $(cat "$VT_KEYS/error")"
	for _k in ${*:-trusted untrusted}; do
		if ! sig_key "$_k" > "$VT_STATE/sigkey.log" 2>&1; then
			mkdir -p "$VT_KEYS"
			cp "$VT_STATE/sigkey.log" "$VT_KEYS/error"
			fail "$(cat "$VT_STATE/sigkey.log")"
		fi
	done
	if ! sig_trust trusted > "$VT_STATE/sigkey.log" 2>&1; then
		cp "$VT_STATE/sigkey.log" "$VT_KEYS/error"
		fail "$(cat "$VT_STATE/sigkey.log")"
	fi
}

# sig_require 0|1: set fs.verity.require_signatures
sig_require() {
	echo "$1" > "$VT_REQSIG" || { echo "cannot write $1 to $VT_REQSIG"; return 1; }
}

# sig_smime IN OUT [KEY [MD [detached]]]: sign the bytes of IN with the
# openssl command line the way the 2018 utility signed (DER, content
# embedded, no attributes, no certificates); KEY defaults to trusted, MD to
# sha256; "detached" leaves the content out of the message
sig_smime() {
	_embed=-nodetach
	[ "${5:-}" != detached ] || _embed=
	# shellcheck disable=SC2086 # $_embed: one option or none
	openssl smime -sign -binary -noattr -nocerts -outform der \
		-md "${4:-sha256}" $_embed -in "$1" -out "$2" \
		-signer "$VT_KEYS/${3:-trusted}.pem" -inkey "$VT_KEYS/${3:-trusted}.key" || {
		echo "openssl smime -sign of $1 failed" >&2
		return 1
	}
}

# sig_setup FILE KEY [OPTIONS...]: `fsverity setup` signing with KEY; prints
# the measurement
sig_setup() {
	_f=$1
	_k=$2
	shift 2
	setup_measure "$_f" --signing-key="$VT_KEYS/$_k.key" \
		--signing-cert="$VT_KEYS/$_k.pem" "$@"
}

# vt_summary: the TAP plan of the whole run, "1..N" (N test lines: a
# trailing plan), then its closing line, "N passed, M failed" (with ", K
# skipped" when something was skipped); fails if a test failed
vt_summary() {
	echo "1..$(vt_counter count)"
	_p=$(vt_counter passed)
	_f=$(vt_counter failed)
	_s=$(vt_counter skipped)
	if [ "$_s" -gt 0 ]; then
		echo "$_p passed, $_f failed, $_s skipped"
	else
		echo "$_p passed, $_f failed"
	fi
	[ "$_f" -eq 0 ]
}

vt_init() {
	rm -rf "$VT_STATE"
	mkdir -p "$VT_STATE" "$VT_WORK"
	for _c in count passed failed skipped; do
		echo 0 > "$VT_STATE/$_c"
	done
}

# For trying the suite's shell logic outside the VM (see dryrun.sh): a file
# of function overrides that fake mkfs, mount and friends.
if [ -n "${VTEST_OVERRIDES:-}" ]; then
	. "$VTEST_OVERRIDES"
fi
