#!/bin/sh
#@ fs: ext4 f2fs
#@ timeout: 1800
# Metadata fuzzing: the vfuzz helper takes valid verity files (the
# same bytes as `fsverity setup` writes, checked first), mutates copies of
# the descriptor, extensions, unauthenticated header, footer, tree and data,
# and ENABLEs each copy; then it flips bytes of files already enabled on the
# raw device.  Every outcome is compared with vfuzz's own model of the
# format: a refused ENABLE fails EBADMSG/EINVAL and leaves the file
# unchanged; an accepted one measures as recomputed from the bytes written,
# and every data block reads back exactly or fails EIO, as the model of the
# tree says.  See the top of helpers/vfuzz.c.  Its time grows with the
# number of cases (vfuzz.cases, 5000 per filesystem in CI), hence a limit
# of twice the default group's.
#
# vfuzz.seed (default: from the clock), vfuzz.cases (ENABLE cases, default
# 5000), vfuzz.raw_files and vfuzz.raw_rounds (raw-device cases: files per
# umount/mount round, rounds; default 150 x 2), on the kernel command line
# or as VFUZZ_SEED ... in the environment (vt_param).  The seed is printed;
# a failing case reproduces with VFUZZ_SEED=S VFUZZ_CASE=N vfuzz enable DIR.
. "$VT_DIR/lib.sh"

D=$VT_MNT/fz
W=$VT_WORK/fz

SEED=$(vt_seed vfuzz.seed) &&
CASES=$(vt_param vfuzz.cases 5000) &&
RAW_FILES=$(vt_param vfuzz.raw_files 150) &&
RAW_ROUNDS=$(vt_param vfuzz.raw_rounds 2) || exit 1
export VFUZZ_SEED=$SEED
export VFUZZ_CASES=$CASES

T_GEN="$FS: fuzz: vfuzz's base files are byte for byte what 'fsverity setup' writes"
T_ENABLE="$FS: fuzz: $CASES mutated files: ENABLE fails EBADMSG/EINVAL unchanged or enables with the right measurement and bytes (seed $SEED)"
T_RAW="$FS: fuzz: $((RAW_FILES * RAW_ROUNDS)) enabled files mutated on the raw device: open fails or reads give the original bytes or EIO (seed $SEED)"

if vt_selected 60.01 60.02 60.03; then
	echo "# vfuzz seed $SEED"
fi

g_setup() {
	fresh_group "$W"
}
vt_setup g_setup

need_vfuzz() {
	need_helpers
	need_cmd vfuzz
}

# require_signatures=1 would refuse every unsigned file: run with 0
with_unsigned() {	# CMD...
	_rs=/proc/sys/fs/verity/require_signatures
	_old=
	if [ -w "$_rs" ]; then
		_old=$(cat "$_rs")
		echo 0 > "$_rs"
	fi
	"$@"
	_rc=$?
	[ -n "$_old" ] && echo "$_old" > "$_rs"
	return $_rc
}

# show_log LOG: the FAIL lines first (the log is cut at 60 lines), then the summary
show_log() {
	grep -A1 '^FAIL' "$1" | head -n 40
	grep '^# ' "$1"
}

t_gen() {
	need_vfuzz
	need_fsverity
	# SIZE ALG SALT: partial and full blocks, a tree of two levels, all
	# algorithms, salts of 1, 5, 33 bytes and one that pushes the footer
	# onto the next page
	big=5a
	while [ ${#big} -lt 7932 ]; do big=$big$big; done
	big=$(echo "$big" | cut -c1-7932)
	for cfg in "1 sha256 -" "4096 sha512 -" "4097 crc32c 00" "20000 sha256 0102030405" \
		   "600000 sha256 -" "70000 sha512 $(printf '%066d' 7)" "9000 sha256 $big"; do
		set -- $cfg
		salt=$3
		[ "$salt" = - ] && salt=
		rm -f "$D/g.data" "$D/g.setup" "$D/g.vfuzz"
		gen "$1" 61 > "$D/g.data" || fail "gen $1 failed"
		m1=$(fsverity setup "$D/g.data" "$D/g.setup" --hash="$2" ${salt:+--salt=$salt} 2>&1 |
			sed -n 's/^File measurement: //p')
		m2=$(vfuzz gen "$D/g.vfuzz" "$1" "$2" "$salt" 61) || fail "vfuzz gen $cfg failed: $m2"
		cmp "$D/g.setup" "$D/g.vfuzz" > /dev/null ||
			fail "size $1 $2 salt '$(echo "$salt" | cut -c1-16)': vfuzz's file differs from fsverity setup's: $(cmp "$D/g.setup" "$D/g.vfuzz" 2>&1)"
		expect "size $1 $2: measurement" "$m1" "$m2"
		r=$(vioctl enable "$D/g.vfuzz")
		expect "ENABLE of vfuzz's size $1 $2 file" OK "$r"
		expect "MEASURE of vfuzz's size $1 $2 file" "$m2" "$(vioctl measure "$D/g.vfuzz")"
	done
	rm -f "$D"/g.*
}

t_enable() {
	need_vfuzz
	mkdir -p "$D/en"
	with_unsigned vfuzz enable "$D/en" > "$W/enable.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		show_log "$W/enable.log"
		fail "vfuzz enable (seed $SEED) exited with status $rc"
	fi
	grep -q '^# vfuzz enable:' "$W/enable.log" || { cat "$W/enable.log"; fail "no summary"; }
	n=$(ls "$D/en" | wc -l)
	[ "$n" -eq 0 ] || fail "$n files left in $D/en"
	note "$(grep '^# vfuzz enable:' "$W/enable.log" | sed 's/^# //')"
	note "$(grep '^# errnos:' "$W/enable.log" | sed 's/^# //')"
}

t_raw() {
	need_vfuzz
	mkdir -p "$D/raw"
	r=1
	while [ $r -le "$RAW_ROUNDS" ]; do
		p=$W/plan.$r
		with_unsigned vfuzz raw-prep "$D/raw" "$p" $r "$RAW_FILES" > "$W/raw.log" 2>&1 ||
			{ show_log "$W/raw.log"; fail "vfuzz raw-prep round $r failed"; }
		fs_umount "$VT_MNT" || fail "umount failed"
		vfuzz raw-poke "$p" "$VT_DEV" >> "$W/raw.log" 2>&1 ||
			{ fs_mount "$VT_DEV" "$VT_MNT"; show_log "$W/raw.log"; fail "vfuzz raw-poke round $r failed"; }
		fs_mount "$VT_DEV" "$VT_MNT" || fail "mount failed"
		with_unsigned vfuzz raw-check "$p" >> "$W/raw.log" 2>&1 ||
			{ show_log "$W/raw.log"; fail "vfuzz raw-check round $r (seed $SEED) failed"; }
		grep -q '^# vfuzz raw-check:' "$W/raw.log" || { cat "$W/raw.log"; fail "no summary"; }
		note "$(grep -E '^# vfuzz raw-(prep|poke|check):' "$W/raw.log" | sed 's/^# //')"
		rm -f "$D/raw/r$r-"*
		r=$((r + 1))
	done
}

vt_test 60.01 "$T_GEN" t_gen
vt_test 60.02 "$T_ENABLE" t_enable
vt_test 60.03 "$T_RAW" t_raw
exit 0
