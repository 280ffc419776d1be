#!/bin/sh
#@ fs: ext4 f2fs
# Large and odd files: a 2 GiB sparse file; files whose size is an exact
# multiple of the hashes per block (and one block either side); the depth
# limit; a file set up twice (the tool refuses; metadata over metadata,
# written with `vfuzz wrap`, enables and reads back the inner file whole).
#
# Depth: the hashes per 4 KiB block are fixed by the algorithm (sha256 128,
# sha512 64, crc32c 1024), so the tree of the largest u64 size (2^52 data
# blocks) has 8, 9 and 6 levels: the kernel's limit of 16
# (FS_VERITY_MAX_LEVELS) cannot be reached by any descriptor.  The file
# systems allow less: ext4 files end below 16 TiB (2^32 blocks: 6 levels with
# sha512), f2fs files below ~3.9 TiB (5 levels).  What is tested: the deepest
# tree each file system can hold works (a sparse file with only a few tree
# paths written, see `vfuzz deep`), and descriptors whose orig_file_size is
# huge or past the descriptor are refused with EBADMSG, the file unchanged.
. "$VT_DIR/lib.sh"

D=$VT_MNT/lg			# the files
W=$VT_WORK/lg			# references and records (tmpfs)
BIG=2147483648			# 2 GiB
BIGBLK=$((BIG / BS))		# 524288 blocks
# the written blocks of the 2 GiB file: 2 at the start, 2 around 1 GiB, 2 at the end
BIGDATA="0 1 $((BIGBLK / 2 - 1)) $((BIGBLK / 2)) $((BIGBLK - 2)) $((BIGBLK - 1))"
BIGSAMPLE=128			# hole blocks read: one every 16 MiB

g_setup() {
	fresh_group "$W"
}
vt_setup g_setup

enable_ok() {	# FILE
	r=$(vioctl enable "$1")
	expect "FS_IOC_ENABLE_VERITY $1" OK "$r"
}

# ------------------------------------------------------ the 2 GiB sparse file

# big_prepare: once: the 2 GiB sparse file, set up, and its sparse
# reference in tmpfs, then ENABLE.  The metadata is written by `vfuzz deep
# ... full`: byte for byte what `fsverity setup` writes (t_writers checks
# that on smaller sparse files), but without reading and hashing 2 GiB of
# holes, which takes the utility 31-35 s under TCG with 2 CPUs (61-69 s
# while another VM shares them): too slow for every `make check`.
big_prepare() {
	[ -e "$W/big.error" ] && fail "preparing the 2 GiB file failed earlier: $(cat "$W/big.error")"
	[ -e "$W/big.done" ] && return 0
	need_helpers
	need_fsverity
	need_cmd vfuzz
	big_do_prepare > "$W/big.log" 2>&1 || { cp "$W/big.log" "$W/big.error"; fail "$(cat "$W/big.log")"; }
	touch "$W/big.done"
}

big_do_prepare() {
	f=$D/big
	rm -f "$f" "$W/big.ref"
	t0=$(now_cs)
	# shellcheck disable=SC2086
	out=$(vfuzz deep "$f" "$W/big.ref" $BIG sha256 50 full $BIGDATA) ||
		{ echo "vfuzz deep $f failed: $out"; return 1; }
	t1=$(now_cs)
	echo $((t1 - t0)) > "$W/big.setup_cs"
	set -- $out
	echo "$1" > "$W/big.meas"
	echo "$3 $4" > "$W/big.layout"
	[ "$(fsize "$W/big.ref")" = $BIG ] || { echo "the reference has $(fsize "$W/big.ref") bytes, not $BIG"; return 1; }
	[ "$(fsize "$f")" = "$4" ] || { echo "$f has $(fsize "$f") bytes, vfuzz said $4"; return 1; }
	sync
	echo "$(stat -c %b "$f") $(df -k "$VT_MNT" | awk 'NR == 2 { print $3, $4 }')" > "$W/big.alloc"
	t0=$(now_cs)
	r=$(vioctl enable "$f")
	t1=$(now_cs)
	[ "$r" = OK ] || { echo "FS_IOC_ENABLE_VERITY $f: $r"; return 1; }
	echo $((t1 - t0)) > "$W/big.enable_cs"
}

cs_str() {	# centiseconds as seconds
	printf '%d.%02d s' $(($1 / 100)) $(($1 % 100))
}

t_big_enable() {
	big_prepare
	read -r desc full < "$W/big.layout"
	set -- $(tree_levels $BIGBLK 32)
	expect "tree geometry of 524288 blocks (sha256)" "3 4096 32 1" "$*"
	expect "descriptor offset" $(((BIGBLK + 4096 + 32 + 1) * BS)) "$desc"
	read -r sectors used avail < "$W/big.alloc"
	note "$FS: 2 GiB sparse file: metadata written in $(cs_str "$(cat "$W/big.setup_cs")"), ENABLE $(cs_str "$(cat "$W/big.enable_cs")"); $((sectors / 2)) KiB allocated for $full bytes (tree: $((4129 * 4)) KiB); $FS: $used KiB used, $avail KiB free"
	# the holes stay holes: data (6 blocks) + tree (4129 blocks) + descriptor,
	# with room for the file system's own mapping blocks
	[ $((sectors / 2)) -le $(((6 + 4129 + 1) * 4 + 1024)) ] ||
		fail "$((sectors / 2)) KiB allocated: the holes of the sparse file were filled"
	physoff -F "$D/big" $((BIG / 4)) | grep -qx hole || fail "no hole at 512 MiB after setup"
}

t_big_measure() {
	big_prepare
	expect "st_size" $BIG "$(fsize "$D/big")"
	expect "statx size" $BIG "$(vioctl statx "$D/big" | cut -d' ' -f2)"
	expect "MEASURE" "$(cat "$W/big.meas")" "$(vioctl measure "$D/big")"
	set -- $(vioctl flags "$D/big")
	expect "FS_IOC_GETFLAGS" verity "$1"
}

# big_sample: $BIGSAMPLE blocks spread over the file (mostly holes) and the
# 6 written blocks, compared with the sparse reference; EOF at 2 GiB
big_sample() {
	# shellcheck disable=SC2086
	r=$(rdtest sample "$D/big" "$W/big.ref" $BIGSAMPLE $BIGDATA)
	n=$((BIGSAMPLE + 1 + 6))
	expect "$1: rdtest sample of $n blocks" \
		"blocks=$n ok=$n eio=0 mismatch=0 other=0 bad=- eof=0" "$r"
	expect "$1: read at 2 GiB" "bytes=0 end=EOF" "$(rdtest range "$D/big" $BIG 4096)"
	read -r desc full < "$W/big.layout"
	expect "$1: read at the descriptor offset" "bytes=0 end=EOF" "$(rdtest range "$D/big" "$desc" 4096)"
}

t_big_read() {
	big_prepare
	big_sample "after ENABLE"
}

t_big_dropcaches() {
	big_prepare
	drop_caches
	big_sample "after drop_caches"
}

t_big_remount() {
	big_prepare
	fs_remount || fail "remount failed"
	expect "st_size after remount, before any open" $BIG "$(fsize "$D/big")"
	big_sample "after remount"
	expect "MEASURE after remount" "$(cat "$W/big.meas")" "$(vioctl measure "$D/big")"
}

# --------------------------------------------- exact multiples of hashes/block

digest_size() {
	case $1 in sha256) echo 32 ;; sha512) echo 64 ;; crc32c) echo 4 ;; esac
}

# t_multiple NBLOCKS ALG GEOMETRY: a file of exactly NBLOCKS blocks: the
# geometry ("DEPTH BLOCKS-PER-LEVEL...", level 0 first) and the descriptor
# offset, then enable, measure, contents, EOF, again after drop_caches
t_multiple() {
	need_helpers
	need_fsverity
	nb=$1 alg=$2
	shift 2
	size=$((nb * BS))
	f=$D/m$nb$alg
	rm -f "$f"
	gen $size $nb > "$f" || fail "cannot write $f"
	meas=$(setup_measure "$f" --hash=$alg) || fail "fsverity setup failed"
	geo=$(tree_levels $nb "$(digest_size $alg)")
	expect "tree geometry of $nb blocks ($alg)" "$*" "$geo"
	tree=0
	for n in ${geo#* }; do tree=$((tree + n)); done
	set -- $(desc_offset "$f")
	expect "descriptor offset (data + $tree tree blocks)" $(((nb + tree) * BS)) "$1"
	enable_ok "$f"
	expect "MEASURE" "$meas" "$(vioctl measure "$f" "$(digest_size $alg)")"
	expect "st_size" $size "$(fsize "$f")"
	expect "contents after ENABLE" equal "$(gen -c "$f" $size $nb)"
	expect "read at EOF" "bytes=0 end=EOF" "$(rdtest range "$f" $size 4096)"
	drop_caches
	if [ $size -le 16777216 ]; then
		expect "contents after drop_caches" equal "$(gen -c "$f" $size $nb)"
	else
		# read whole once is enough: now a block under each level-0
		# tree block (128 spread blocks) and the last one
		gen $size $nb > "$W/mref"
		r=$(rdtest sample "$f" "$W/mref" 128)
		rm -f "$W/mref"
		expect "128 spread blocks and the last one after drop_caches" \
			"blocks=129 ok=129 eio=0 mismatch=0 other=0 bad=- eof=0" "$r"
	fi
	expect "MEASURE after drop_caches" "$meas" "$(fsverity measure "$f" | cut -d' ' -f1)"
}

# ------------------------------------------------------------- depth limits

# mk_setup NAME SIZE: SIZE generated bytes set up (sha256), not enabled
mk_setup() {
	need_helpers
	need_fsverity
	rm -f "$D/$1"
	gen "$2" 15 > "$D/$1" || fail "cannot write $D/$1"
	setup_measure "$D/$1" > "$W/$1.meas" || fail "fsverity setup $D/$1 failed"
}

# t_origsize SIZE HASH-OPT HEXLE WHAT: orig_file_size set to HEXLE (16 hex
# digits, little endian; "desc+1" = the descriptor offset + 1) is refused
# with EBADMSG and the file stays as it was
t_origsize() {
	n=os$(vt_counter_add lg-origsize)
	need_helpers
	need_fsverity
	rm -f "$D/$n"
	gen "$1" 16 > "$D/$n" || fail "cannot write $D/$n"
	setup_measure "$D/$n" "$2" > /dev/null || fail "fsverity setup failed"
	set -- "$@" $(desc_offset "$D/$n")
	desc=$5
	v=$3
	[ "$v" = desc+1 ] && v=$(le64 $((desc + 1)))
	poke "$D/$n" $((desc + 24)) set "$v" > /dev/null || fail "poke failed"
	expect "orig_file_size now" "$v" "$(poke "$D/$n" $((desc + 24)) get 8)"
	sync
	remember $n
	expect "FS_IOC_ENABLE_VERITY with orig_file_size $4" EBADMSG "$(vioctl enable "$D/$n")"
	unchanged $n
	expect "MEASURE afterwards" ENODATA "$(vioctl measure "$D/$n")"
}

# measured_sha256 FILE DESC: the measurement of a sha256 file without salt,
# computed here: H(descriptor || ROOT_HASH extension), 64 + 40 bytes
measured_sha256() {
	expect "auth_ext_count" 1 "$(poke "$1" $(($2 + 32)) getle 2)"
	expect "ROOT_HASH extension length" 40 "$(poke "$1" $(($2 + 64)) getle 4)"
	_h=$(dd if="$1" bs=8 skip=$(($2 / 8)) count=13 2>/dev/null | sha256sum)
	echo "sha256:${_h%% *}"
}

# orig_file_size equal to the descriptor offset: allowed by the size rule
# (the format only refuses a larger one); a one-block file then keeps its tree (the
# root hash is the hash of block 0, zero padding included) and enables, the
# padding becoming data
t_orig_eq_one() {
	mk_setup eq1 100
	set -- $(desc_offset "$D/eq1")
	desc=$1
	expect "descriptor offset of a 100-byte file" 4096 "$desc"
	poke "$D/eq1" $((desc + 24)) set "$(le64 "$desc")" > /dev/null || fail "poke failed"
	meas=$(measured_sha256 "$D/eq1" "$desc")
	[ "$meas" != "$(cat "$W/eq1.meas")" ] || fail "the measurement did not change with the descriptor"
	enable_ok "$D/eq1"
	expect "MEASURE (hash of the changed descriptor)" "$meas" "$(vioctl measure "$D/eq1")"
	expect "st_size" 4096 "$(fsize "$D/eq1")"
	{ gen 100 15; dd if=/dev/zero bs=3996 count=1 2>/dev/null; } > "$W/eq1.ref"
	drop_caches
	expect "contents: the 100 bytes, then the zero padding" "$(sum_of "$W/eq1.ref")" "$(sum_of "$D/eq1")"
	expect "read at 4096" "bytes=0 end=EOF" "$(rdtest range "$D/eq1" 4096 4096)"
}

# ... a file of several blocks cannot: its data would reach the descriptor,
# leaving no room for the tree between them
t_orig_eq_many() {
	mk_setup eqn 10000
	set -- $(desc_offset "$D/eqn")
	desc=$1
	expect "descriptor offset of a 10000-byte file (3 blocks + 1 tree block)" 16384 "$desc"
	poke "$D/eqn" $((desc + 24)) set "$(le64 "$desc")" > /dev/null || fail "poke failed"
	sync
	remember eqn
	expect "FS_IOC_ENABLE_VERITY" EBADMSG "$(vioctl enable "$D/eqn")"
	unchanged eqn
}

# The deepest tree the file system can hold, sha512: ext4 12 TiB + 100
# bytes of data (6 levels, block numbers past 2^31), f2fs 3 TiB + 100 bytes
# (5 levels).  Sparse: `vfuzz deep` writes only data blocks 0, the middle
# and the last (partial) one and their tree paths; the blocks under those
# level-0 blocks verify (holes as zeros), the others fail with EIO.
deep_params() {
	case $FS in
	ext4)	dsize=$(((12 << 40) + 100)) depth=6 ;;
	*)	dsize=$(((3 << 40) + 100)) depth=5 ;;
	esac
	nb=$(((dsize + BS - 1) / BS))
	mid=$((nb / 2))
	# readable: 0, 1 (a hole under a written level-0 block), middle, last;
	# EIO: one under a hole level-0 block, one 3 level-0 blocks before the end
	ok_blocks="0 1 $mid $((nb - 1))"
	eio_blocks="1000000 $((nb - 1 - 3 * 64))"
}

deep_prepare() {
	[ -e "$W/deep.error" ] && fail "preparing the deep file failed earlier: $(cat "$W/deep.error")"
	[ -e "$W/deep.done" ] && return 0
	need_helpers
	need_fsverity
	need_cmd vfuzz
	deep_params
	rm -f "$D/deep" "$W/deep.ref"
	# shellcheck disable=SC2086
	out=$(vfuzz deep "$D/deep" "$W/deep.ref" $dsize sha512 60 0 $mid $((nb - 1)) 2>&1) ||
		{ echo "vfuzz deep failed: $out" > "$W/deep.error"; fail "$(cat "$W/deep.error")"; }
	echo "$out" > "$W/deep.out"
	set -- $out
	expect "depth of the tree of $dsize bytes (sha512)" $depth "$2"
	touch "$W/deep.done"
}

deep_reads() {	# WHEN
	when=$1
	# shellcheck disable=SC2086
	r=$(rdtest sample "$D/deep" "$W/deep.ref" 0 $ok_blocks $eio_blocks)
	set -- $eio_blocks
	expect "$when: reads of blocks $ok_blocks (verify) and $eio_blocks (EIO)" \
		"blocks=6 ok=4 eio=2 mismatch=0 other=0 bad=$1,$2 eof=0" "$r"
}

t_deep() {
	deep_prepare
	deep_params
	set -- $(cat "$W/deep.out")
	meas=$1
	full=$4
	expect "full size (data, holes, tree paths, descriptor region)" "$full" "$(fsize "$D/deep")"
	note "$FS: deepest tree: $dsize data bytes, $depth levels (sha512), $full bytes in all, $(($(stat -c %b "$D/deep") / 2)) KiB allocated"
	enable_ok "$D/deep"
	expect "MEASURE" "$meas" "$(vioctl measure "$D/deep")"
	expect "st_size" "$dsize" "$(fsize "$D/deep")"
	deep_reads "after ENABLE"
	drop_caches
	deep_reads "after drop_caches"
	fs_remount || fail "remount failed"
	expect "st_size after remount" "$dsize" "$(fsize "$D/deep")"
	deep_reads "after remount"
	expect "MEASURE after remount" "$meas" "$(vioctl measure "$D/deep")"
}

# writer_same WHAT FILE MEAS: FILE and MEAS are what `fsverity setup` makes
# of $W/wdata (set up into $W/wtool)
writer_same() {
	rm -f "$W/wtool"
	m=$(fsverity setup "$W/wdata" "$W/wtool" --hash=$alg | sed -n 's/^File measurement: //p')
	expect "$1: measurement ($alg)" "$m" "$3"
	cmp "$2" "$W/wtool" || fail "$1 and fsverity setup write different files ($alg)"
}

# The suite's own writers (vfuzz wrap, vfuzz deep) write what the tool writes
t_writers() {
	need_helpers
	need_fsverity
	need_cmd vfuzz cmp
	for alg in sha256 sha512 crc32c; do
		rm -f "$W/wdata" "$W/wout"
		gen 200000 7 > "$W/wdata"
		m=$(vfuzz wrap "$W/wdata" "$W/wout" $alg) || fail "vfuzz wrap failed"
		writer_same "vfuzz wrap" "$W/wout" "$m"
		case $alg in sha256) h=128 ;; sha512) h=64 ;; crc32c) h=1024 ;; esac
		# one block listed in every level-0 block: the whole tree
		nb=$((h + 1))
		rm -f "$W/wdata" "$W/wout"
		set -- $(vfuzz deep "$W/wout" "$W/wdata" $((nb * BS - 5)) $alg 3 $(seq 0 $h $((nb - 1)))) ||
			fail "vfuzz deep failed"
		writer_same "vfuzz deep, a block in every level-0 block" "$W/wout" "$1"
		# sparse, "full" tree; 3 levels for sha512 (4097 blocks)
		[ $alg = sha512 ] && nb=4097
		rm -f "$W/wdata" "$W/wout"
		set -- $(vfuzz deep "$W/wout" "$W/wdata" $((nb * BS - 5)) $alg 3 full 0 $((nb - 1))) ||
			fail "vfuzz deep full failed"
		writer_same "vfuzz deep full, sparse" "$W/wout" "$1"
	done
	rm -f "$W/wdata" "$W/wout" "$W/wtool"
}

# --------------------------------------------------------------- set up twice

# t_twice_refused: the tool refuses a file that ends with a footer, in place
# and with an OUTFILE: status 1, one message, nothing written
t_twice_refused() {
	mk_setup tw 50000
	remember tw
	rm -f "$D/tw.out"
	out=$(fsverity setup "$D/tw" 2>&1)
	rc=$?
	expect "status of a second fsverity setup" 1 "$rc"
	expect "lines of output" 1 "$(echo "$out" | wc -l)"
	case $out in "fsverity: "*already*) ;; *) fail "unexpected message: '$out'" ;; esac
	unchanged tw
	out=$(fsverity setup "$D/tw" "$D/tw.out" 2>&1)
	rc=$?
	expect "status of fsverity setup SET-UP-FILE OUTFILE" 1 "$rc"
	expect "lines of output" 1 "$(echo "$out" | wc -l)"
	[ -e "$D/tw.out" ] && fail "OUTFILE was created"
	for x in "$D"/tw.out.*; do
		[ -e "$x" ] && fail "a temporary OUTFILE was left: $x"
	done
	unchanged tw
}

# check_twice NAME DATAREF MEAS WHEN: $D/NAME is verity, measures MEAS and
# reads back exactly DATAREF
check_twice() {
	expect "$4: MEASURE" "$3" "$(vioctl measure "$D/$1")"
	expect "$4: st_size" "$(fsize "$2")" "$(fsize "$D/$1")"
	expect "$4: contents" "$(sum_of "$2")" "$(sum_of "$D/$1")"
	expect "$4: read at EOF" "bytes=0 end=EOF" "$(rdtest range "$D/$1" "$(fsize "$2")" 4096)"
}

# t_twice_wrap: F2 = F1 (data + metadata) + metadata over all of F1, written
# by `vfuzz wrap`.  The kernel finds the outer footer: F2 enables, measures
# as the outer metadata says, and reads back F1, inner metadata included.
t_twice_wrap() {
	mk_setup tw1 50000
	need_cmd vfuzz
	cp "$D/tw1" "$W/tw1.ref"
	rm -f "$D/tw2"
	meas=$(vfuzz wrap "$D/tw1" "$D/tw2" sha256) || fail "vfuzz wrap failed"
	[ "$meas" != "$(cat "$W/tw1.meas")" ] || fail "inner and outer measurements are equal"
	set -- $(desc_offset "$D/tw1")
	inner_full=$2
	set -- $(desc_offset "$D/tw2")
	expect "outer orig_file_size (the whole set-up file)" "$inner_full" "$(poke "$D/tw2" $(($1 + 24)) getle 8)"
	sync
	remember tw2
	r=$(vioctl enable "$D/tw2")
	if [ "$r" != OK ]; then
		[ "$r" = EBADMSG ] || fail "FS_IOC_ENABLE_VERITY of the twice-set-up file: $r (neither OK nor EBADMSG)"
		unchanged tw2
		fail "the kernel refused the twice-set-up file (EBADMSG, unchanged) although its outer metadata is valid"
	fi
	check_twice tw2 "$W/tw1.ref" "$meas" "after ENABLE"
	expect "last 8 bytes read: the inner footer magic" FSVerity \
		"$(dd if="$D/tw2" bs=1 skip=$((inner_full - 8)) count=8 2>/dev/null)"
	drop_caches
	check_twice tw2 "$W/tw1.ref" "$meas" "after drop_caches"
	fs_remount || fail "remount failed"
	check_twice tw2 "$W/tw1.ref" "$meas" "after remount"
}

# t_twice_tool: a set-up file with one more byte (a newline) no longer ends
# with the footer magic: the tool sets it up again and the result enables
t_twice_tool() {
	mk_setup tn 50000
	printf '\n' >> "$D/tn"
	cp "$D/tn" "$W/tn.ref"
	meas=$(setup_measure "$D/tn") || fail "fsverity setup of the set-up file + newline failed"
	enable_ok "$D/tn"
	check_twice tn "$W/tn.ref" "$meas" "after ENABLE"
	drop_caches
	check_twice tn "$W/tn.ref" "$meas" "after drop_caches"
}

S="$FS: 2 GiB sparse file"
vt_test 15.01 "$S (data at start, middle, end; metadata by vfuzz deep full): ENABLE; holes stay unallocated" t_big_enable
vt_test 15.02 "$S: MEASURE equals the metadata's measurement, st_size 2 GiB, verity flag" t_big_measure
vt_test 15.03 "$S: $BIGSAMPLE spread blocks (holes) + the 6 data blocks read back, EOF at 2 GiB" t_big_read
vt_test 15.04 "$S: after drop_caches: the same sample reads back" t_big_dropcaches
vt_test 15.05 "$S: after umount/mount: stat, the same sample, MEASURE" t_big_remount
M="$FS: exact multiple:"
vt_test 15.06 "$M 128 blocks, sha256 (level 0 is one full block: 1 level) round-trips" t_multiple 128 sha256 1 1
vt_test 15.07 "$M 127 blocks, sha256 (1 level) round-trips" t_multiple 127 sha256 1 1
vt_test 15.08 "$M 129 blocks, sha256 (2 levels) round-trips" t_multiple 129 sha256 2 2 1
vt_test 15.09 "$M 128*128 blocks (64 MiB), sha256 (two full levels) round-trips (after drop_caches: a block under each tree block)" t_multiple 16384 sha256 2 128 1
vt_test 15.10 "$M 64 blocks, sha512 (1 level) round-trips" t_multiple 64 sha512 1 1
vt_test 15.11 "$M 64*64 blocks, sha512 (two full levels) round-trips" t_multiple 4096 sha512 2 64 1
vt_test 15.12 "$M 64*64+1 blocks, sha512 (3 levels) round-trips" t_multiple 4097 sha512 3 65 2 1
vt_test 15.13 "$M 1024 blocks, crc32c (1 level) round-trips" t_multiple 1024 crc32c 1 1
vt_test 15.14 "$M 1025 blocks, crc32c (2 levels) round-trips" t_multiple 1025 crc32c 2 2 1
E="$FS: ENABLE with orig_file_size"
vt_test 15.15 "$E 2^63 fails EBADMSG, unchanged" t_origsize 10000 --hash=sha256 0000000000000080 2^63
vt_test 15.16 "$E 2^64-1 (sha256) fails EBADMSG, unchanged" t_origsize 10000 --hash=sha256 ffffffffffffffff 2^64-1
vt_test 15.17 "$E 2^64-1 (sha512: 9 levels) fails EBADMSG, unchanged" t_origsize 10000 --hash=sha512 ffffffffffffffff 2^64-1
vt_test 15.18 "$E 2^64-1 (crc32c) fails EBADMSG, unchanged" t_origsize 10000 --hash=crc32c ffffffffffffffff 2^64-1
vt_test 15.19 "$E the descriptor offset + 1 (large file) fails EBADMSG, unchanged" t_origsize 1000000 --hash=sha256 desc+1 desc+1
vt_test 15.20 "$E = the descriptor offset (1 block, no tree) is accepted; the padding reads as data" t_orig_eq_one
vt_test 15.21 "$E = the descriptor offset (3 blocks: no room for the tree) fails EBADMSG, unchanged" t_orig_eq_many
vt_test 15.22 "$FS: vfuzz wrap, deep and deep full write byte for byte what fsverity setup writes" t_writers
deep_params
vt_test 15.23 "$FS: deepest tree $FS holds ($dsize bytes, sha512, $depth levels, sparse): ENABLE, MEASURE, st_size; written paths verify, the rest EIO; drop_caches, remount" t_deep
T="$FS: set up twice"
vt_test 15.24 "$T: fsverity setup refuses a set-up file (status 1, one message, unchanged, no OUTFILE)" t_twice_refused
vt_test 15.25 "$T: metadata over metadata (vfuzz wrap) enables, measures as the outer metadata, reads the inner file whole" t_twice_wrap
vt_test 15.26 "$T: a set-up file plus a newline is set up again by the tool and round-trips" t_twice_tool
exit 0
