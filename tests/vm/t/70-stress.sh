#!/bin/sh
#@ fs: ext4 f2fs
# Concurrency: for a bounded time the vstress helper runs, all at once,
# sequential, random and mmap readers on three verity files (SHA-256 salted,
# SHA-512, CRC-32C), a pread and an mmap reader on a fourth whose data block
# $K was flipped on the raw device, a task writing 3 to
# /proc/sys/vm/drop_caches in a loop, and rounds in which 2-4 processes
# ENABLE a freshly set-up file while others open it for writing and another
# reads it.  Readers of good files never see an error or a wrong byte,
# every read of the corrupted block fails, exactly one ENABLE per round
# wins and the others get EEXIST or ETXTBSY, opens for writing fail with
# ETXTBSY or EPERM exactly when they must.  See the top of helpers/vstress.c
# for what each worker checks.  Then the files are checked once more after
# a remount and fsck.
#
# vstress.seconds=N (default 20) and vstress.seed=N on the kernel command
# line, or VSTRESS_SECONDS and VSTRESS_SEED in the environment (vt_param),
# tune the run; the seed is printed.
# VSTRESS_NODROP=1 leaves out the drop_caches task (dryrun.sh, which must
# not drop the caches of the development machine).
. "$VT_DIR/lib.sh"

W=$VT_WORK/st		# references, template, logs (tmpfs)
D=$VT_MNT/st		# the verity files
K=300			# the corrupted data block of "bad"

SECS=$(vt_param vstress.seconds 20) &&
SEED=$(vt_seed vstress.seed) || exit 1

# The files: NAME SIZE SEED SETUP-OPTIONS (bad: block $K corrupted)
FILES='
g1 4194304 71 --hash=sha256 --salt=5eed0123456789abcdef
g2 3149825 72 --hash=sha512
g3 2097153 73 --hash=crc32c
bad 2098000 74 --hash=sha256
'
TMPL_SIZE=614500	# the race rounds' file: 151 data blocks, two tree levels

T_READ="$FS: stress: $SECS s of sequential, random and mmap readers with drop_caches: good files never fail"
T_BAD="$FS: stress: the corrupted block fails every pread (EIO) and mmap (SIGBUS) of it, the other blocks never"
T_RACE="$FS: stress: concurrent ENABLEs and opens for writing: exactly one ENABLE wins per round, the rest EEXIST/ETXTBSY"
T_AFTER="$FS: stress: afterwards the files measure and read as before, fsck is clean, no round file is left"

if vt_selected 70.01 70.02 70.03 70.04; then
	echo "# vstress seed $SEED, $SECS s"
fi

g_setup() {
	fresh_group "$W"
}
vt_setup g_setup

# st_prepare: once: make and set up the files, note where block $K of "bad"
# is on the device, enable them, flip a byte of that block on the raw
# device, mount again, set up the round template.
st_prepare() {
	[ -e "$W/error" ] && fail "preparation failed earlier: $(cat "$W/error")"
	[ -e "$W/prepared" ] && return 0
	need_helpers
	need_fsverity
	need_cmd vstress
	st_do_prepare > "$W/prep.log" 2>&1
	rc=$?
	[ $rc -eq 77 ] && skip "$(cat "$W/prep.log")"
	if [ $rc -ne 0 ]; then
		cp "$W/prep.log" "$W/error"
		fail "$(cat "$W/prep.log")"
	fi
	touch "$W/prepared"
}

st_do_prepare() {
	echo "$FILES" | sed '/^$/d' > "$W/files"
	while read -r n size seed opts; do
		gen "$size" "$seed" > "$W/$n.ref" || return 1
		cp "$W/$n.ref" "$D/$n" || return 1
		# shellcheck disable=SC2086
		setup_measure "$D/$n" $opts > "$W/$n.meas" || return 1
	done < "$W/files"
	sync
	off=$((K * BS + 1234))
	target=$(raw_target "$D/bad" $off) || { echo "$target"; return 1; }
	while read -r n size seed opts; do
		r=$(vioctl enable "$D/$n")
		[ "$r" = OK ] || { echo "FS_IOC_ENABLE_VERITY $D/$n: $r"; return 1; }
	done < "$W/files"
	echo "bad: file offset $off (block $K), device offset ${target%:*}"
	raw_corrupt "$target" || return 1
	gen $TMPL_SIZE 75 > "$W/tmpl" || return 1
	setup_measure "$W/tmpl" > "$W/tmpl.meas" || return 1
	mkdir -p "$D/race"
}

# st_run: once: prepare, then run vstress; its output stays in $W/vstress.log
st_run() {
	st_prepare
	[ -e "$W/rc" ] && return 0
	set --
	for n in g1 g2 g3; do
		set -- "$@" -g "$D/$n:$W/$n.ref"
	done
	# Outside the VM (dryrun.sh): no drop_caches task, no sysrq
	if [ "${VSTRESS_NODROP:-0}" = 1 ]; then
		set -- "$@" -n
	else
		set -- "$@" -H ". $VT_DIR/lib.sh && vt_show_hang"
	fi
	vstress -t "$SECS" -s "$SEED" "$@" -c "$D/bad:$W/bad.ref:$K" \
		-e "$D/race:$W/tmpl:$(cat "$W/tmpl.meas")" > "$W/vstress.log" 2>&1
	echo $? > "$W/rc"
}

# field LINE KEY: the value of KEY=VALUE in LINE
field() {
	echo " $1 " | sed -n "s/.* $2=\([^ ]*\) .*/\1/p"
}

# st_result CATEGORY...: the run ended (status 0 or 1) and reported no
# violation of these categories; sets $line to the first one's summary line
st_result() {
	st_run
	rc=$(cat "$W/rc")
	if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
		cat "$W/vstress.log"
		fail "vstress exited with status $rc"
	fi
	for c; do
		if grep -q -F "FAIL [$c]" "$W/vstress.log"; then
			grep -F "FAIL [$c]" "$W/vstress.log" | head -n 40
			grep -v '^FAIL' "$W/vstress.log"
			fail "vstress found violations of the $c checks: $(grep -c -F "FAIL [$c]" "$W/vstress.log") shown (at most 10 per process), $(sed -n 's/^vstress: //p' "$W/vstress.log") of all kinds"
		fi
	done
	line=$(grep "^$1: " "$W/vstress.log")
	[ -n "$line" ] || { cat "$W/vstress.log"; fail "no '$1:' summary line"; }
	note "$line"
}

# positive LINE KEY...: each KEY's value is a number > 0
positive() {
	_l=$1
	shift
	for _k; do
		_v=$(field "$_l" "$_k")
		[ -n "$_v" ] && [ "$_v" -gt 0 ] || fail "$_k is '$_v', expected more than 0: $_l"
	done
}

t_read() {
	note "guest CPUs: $(grep -c ^processor /proc/cpuinfo)"
	st_result seq random mmap drop_caches
	seq=$line
	positive "$seq" passes reads
	for k in errors short mismatches; do
		expect "sequential readers: $k" 0 "$(field "$seq" $k)"
	done
	l=$(grep '^random: ' "$W/vstress.log")
	note "$l"
	positive "$l" reads
	for k in errors short mismatches; do
		expect "random readers: $k" 0 "$(field "$l" $k)"
	done
	l=$(grep '^mmap: ' "$W/vstress.log")
	note "$l"
	positive "$l" passes pages
	for k in sigbus mismatches; do
		expect "mmap readers: $k" 0 "$(field "$l" $k)"
	done
	l=$(grep '^drop_caches: ' "$W/vstress.log")
	note "$l"
	positive "$l" writes
}

t_bad() {
	st_result corrupt
	positive "$line" block-reads spans other-reads mmap-block mmap-other
	expect "reads of block $K that failed with EIO" "$(field "$line" block-reads)" "$(field "$line" block-eio)"
	expect "reads across block $K that stopped at its start with EIO" "$(field "$line" spans)" "$(field "$line" span-stop-ok)"
	expect "reads of the other blocks that returned their data" "$(field "$line" other-reads)" "$(field "$line" other-ok)"
	expect "mmap touches of page $K that raised SIGBUS" "$(field "$line" mmap-block)" "$(field "$line" mmap-sigbus)"
	expect "mmap touches of the other pages that returned their data" "$(field "$line" mmap-other)" "$(field "$line" mmap-other-ok)"
}

t_race() {
	st_result race
	positive "$line" rounds eexist held-rounds etxtbsy-while-held reader-reads
	r=$(field "$line" rounds)
	expect "ENABLEs that returned 0 (one per round)" "$r" "$(field "$line" wins)"
	expect "rounds whose file measured as 'fsverity setup' said" "$r" "$(field "$line" measured-ok)"
	expect "opens for writing refused with EPERM after the rounds (2 per round)" $((2 * r)) "$(field "$line" eperm-after)"
}

t_after() {
	st_run
	left=$(ls "$D/race" | wc -l)
	[ "$left" -eq 0 ] || fail "$left round files left in $D/race: $(ls "$D/race" | head -n 5)"
	fs_umount "$VT_MNT" || fail "umount failed"
	if ! fs_check "$VT_DEV"; then
		fs_mount "$VT_DEV" "$VT_MNT"
		fail "the filesystem check found problems"
	fi
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount after fsck failed"
	vt_counter_add mountgen > /dev/null
	while read -r n size seed opts; do
		expect "measurement of $n" "$(cat "$W/$n.meas")" "$(measure_of "$D/$n")"
		nb=$(((size + BS - 1) / BS))
		if [ "$n" = bad ]; then
			want="blocks=$nb ok=$((nb - 1)) eio=1 mismatch=0 other=0 bad=$K eof=0"
		else
			want="blocks=$nb ok=$nb eio=0 mismatch=0 other=0 bad=- eof=0"
		fi
		expect "pread of every block of $n" "$want" "$(rdtest blocks "$D/$n" "$W/$n.ref")"
	done < "$W/files"
}

vt_test 70.01 "$T_READ" t_read
vt_test 70.02 "$T_BAD" t_bad
vt_test 70.03 "$T_RACE" t_race
vt_test 70.04 "$T_AFTER" t_after
exit 0
