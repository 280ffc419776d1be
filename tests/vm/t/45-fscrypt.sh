#!/bin/sh
#@ fs: ext4 f2fs
# fscrypt + fs-verity, the RFC's post-read design (decrypt, then verify): on
# a filesystem made with -O encrypt,verity, a v2-encrypted directory whose
# key is added with the fscrypt ioctls (vcrypt).  Verity files set up in it
# round-trip; their metadata, written through the page cache, is encrypted
# on disk like their data (an unencrypted control file set up the same way
# shows it in plaintext); without the key nothing opens; a corrupted
# ciphertext data or tree block reads as EIO for the blocks it covers.
#
# On f2fs, stat() of an encrypted verity file shows the full size kept on
# disk until the file's key is set up (by opening it): its metadata, which
# gives the data size, is encrypted.  (Reading it without the key used to
# oops in fscrypt_crypt_block(); this group found that.)
. "$VT_DIR/lib.sh"

FC=$VT_STATE/fc			# records (tmpfs)
D=$VT_MNT/fc			# the encrypted directory
P=$VT_MNT/fcplain		# the unencrypted control directory
KEY=$FC/key			# the raw 64-byte master key
REF=$VT_WORK/fc-ref		# the data of "big", "plain", "cdata", "ctree"
SMALL=4097
BIG=1048593			# 1 MiB + 17: 257 data blocks
NBLK=257			# level 0: 3 tree blocks (128 hashes each), root: 1
K=100				# the corrupted data block of "cdata"
MAGIC=4653566572697479		# "FSVerity", descriptor and footer magic
FILES='small big cdata ctree'	# the encrypted files

g_setup() {
	fresh_group "$FC" encrypt,verity
}
vt_setup g_setup

# The policy every encrypted file and directory must report
policy() {
	echo "v2 contents=AES-256-XTS filenames=AES-256-CTS flags=0x3 id=$1"
}

# fc_key: the master key in the filesystem's keyring (added if absent, e.g.
# after a mount); sets ID, and checks that the identifier never changes.
fc_key() {
	need_cmd vcrypt
	ID=$(cat "$FC/id" 2>/dev/null)
	if [ -n "$ID" ]; then
		case $(vcrypt status "$VT_MNT" "$ID") in present*) return 0 ;; esac
	fi
	[ -s "$KEY" ] || gen 64 45 > "$KEY" || fail "making the key failed"
	id=$(vcrypt add "$VT_MNT" "$KEY") || fail "FS_IOC_ADD_ENCRYPTION_KEY on $VT_MNT: $id"
	[ -z "$ID" ] || expect "identifier of the re-added key" "$ID" "$id"
	echo "$id" > "$FC/id"
	ID=$id
}

# record_block NAME BLOCK: remember where file block BLOCK of NAME (in $D,
# or the control file in $P for NAME "plain") is on the device, and its
# plaintext bytes (read through the file, before ENABLE hides them)
record_block() {
	f=$D/$1
	[ "$1" = plain ] && f=$P/big
	off=$(($2 * BS))
	len=$BS
	[ $((off + len)) -gt "$full" ] && len=$((full - off))
	p=$(physoff -e "$f" $off) || { echo "physoff -e $f $off failed"; return 1; }
	poke "$f" $off get $len > "$FC/plain.$1.$2" || return 1
	echo "$1 $2 $p $len" >> "$FC/blocks"
}

record_target() {	# NAME OFFSET: the byte of NAME to corrupt on the device
	t=$(raw_target "$D/$1" "$2" -e) || { echo "$t"; return 1; }
	echo "$1 $2 $t" >> "$FC/targets"
}

# fc_prepare: once: the key, the policy on $D, the files written, set up
# and enabled; the device locations of their blocks recorded before ENABLE.
fc_prepare() {
	[ -e "$FC/error" ] && fail "preparation failed earlier: $(cat "$FC/error")"
	[ -e "$FC/done" ] && { fc_key; return 0; }
	need_helpers
	need_fsverity
	need_cmd vcrypt
	fc_key
	fc_do_prepare > "$FC/log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		cp "$FC/log" "$FC/error"
		fail "$(cat "$FC/log")"
	fi
	touch "$FC/done"
}

fc_do_prepare() {
	r=$(vcrypt set "$D" "$ID") || { echo "FS_IOC_SET_ENCRYPTION_POLICY $D: $r"; return 1; }
	mkdir -p "$P" || return 1
	gen $BIG 46 > "$REF" || return 1
	gen $SMALL 47 > "$D/small" || return 1
	for n in big cdata ctree; do
		cp "$REF" "$D/$n" || return 1
	done
	cp "$REF" "$P/big" || return 1
	for n in $FILES; do
		setup_measure "$D/$n" > "$FC/meas.$n" || return 1
	done
	setup_measure "$P/big" > "$FC/meas.plain" || return 1
	for n in $FILES; do echo "$n $(fsize "$D/$n")"; done > "$FC/fullsize"
	sync
	set -- $(desc_offset "$D/big")
	desc=$1
	full=$2
	set -- $(tree_levels $NBLK 32)
	[ "$*" = "2 3 1" ] || { echo "unexpected tree geometry: $*"; return 1; }
	[ $((desc / BS)) -eq $((NBLK + 4)) ] && [ $((desc % BS)) -eq 0 ] ||
		{ echo "descriptor at $desc, expected $(((NBLK + 4) * BS))"; return 1; }
	[ "$(desc_offset "$P/big")" = "$desc $full" ] ||
		{ echo "the control's layout differs: $(desc_offset "$P/big")"; return 1; }
	echo "$desc $full" > "$FC/layout"
	# layout: data 0-256, root block 257, level 0 blocks 258-260, the
	# descriptor and footer in block 261
	: > "$FC/blocks"
	: > "$FC/targets"
	for n in big plain; do
		for b in 0 $K 257 258 259 260 261; do
			record_block $n $b || return 1
		done
	done
	record_target cdata $((K * BS + 1000)) &&
	record_target ctree $(((NBLK + 2) * BS + 100)) || return 1
	for f in "$D/small" "$D/big" "$D/cdata" "$D/ctree" "$P/big"; do
		r=$(vioctl enable "$f")
		[ "$r" = OK ] || { echo "FS_IOC_ENABLE_VERITY $f: $r"; return 1; }
	done
}

# fc_corrupt: once: flip the recorded ciphertext bytes of cdata and ctree on
# the raw device (unmounted), mount again, re-add the key.
fc_corrupt() {
	fc_prepare
	[ -e "$FC/cerror" ] && fail "corruption failed earlier: $(cat "$FC/cerror")"
	[ -e "$FC/corrupted" ] && return 0
	fc_do_corrupt > "$FC/clog" 2>&1 || { cp "$FC/clog" "$FC/cerror"; fail "$(cat "$FC/clog")"; }
	touch "$FC/corrupted"
	fc_key
}

fc_do_corrupt() {
	raw_corrupt_listed "$FC/targets"
}

# listing DIR: its names, sorted, on one line
listing() {
	ls "$1" | sort | tr '\n' ' '
}

# ---------------------------------------------------------------- tests

t_policy() {
	need_helpers
	fc_key
	# the identifier is HKDF-SHA512(key, info "fscrypt\0" 0x01), 16 bytes
	if command -v openssl > /dev/null 2>&1 &&
	   kat=$(openssl kdf -keylen 16 -kdfopt digest:SHA512 \
		-kdfopt hexkey:"$(poke "$KEY" 0 get 64)" \
		-kdfopt hexinfo:667363727970740001 HKDF 2>&1); then
		kat=$(echo "$kat" | tr -d ':' | tr 'A-F' 'a-f')
		expect "key identifier (openssl HKDF-SHA512 of the key)" "$kat" "$ID"
	else
		note "no 'openssl kdf': the identifier is not checked against HKDF ($kat)"
	fi
	expect "key status" "present users=1,self" "$(vcrypt status "$VT_MNT" "$ID")"
	expect "status of a key never added" absent "$(vcrypt status "$VT_MNT" 000102030405060708090a0b0c0d0e0f)"
	dir=$VT_MNT/pol
	rm -rf "$dir" "$VT_MNT/pol2" "$VT_MNT/pol3"
	mkdir "$dir" "$VT_MNT/pol2" "$VT_MNT/pol3"
	expect "policy of an unencrypted directory" ENODATA "$(vcrypt get "$dir")"
	# a user may only use a key that user added (root, CAP_FOWNER, any)
	chown 1000:1000 "$VT_MNT/pol2"
	expect "uid 1000 sets a policy with a key never added" ENOKEY \
		"$(runas 1000 1000 vcrypt set "$VT_MNT/pol2" 000102030405060708090a0b0c0d0e0f)"
	expect "uid 1000 sets a policy with root's key" ENOKEY \
		"$(runas 1000 1000 vcrypt set "$VT_MNT/pol2" "$ID")"
	touch "$VT_MNT/pol3/f"
	expect "set a policy on a non-empty directory" ENOTEMPTY "$(vcrypt set "$VT_MNT/pol3" "$ID")"
	expect "set the policy on an empty directory" OK "$(vcrypt set "$dir" "$ID")"
	expect "policy of the directory" "$(policy "$ID")" "$(vcrypt get "$dir")"
	expect "set the same policy again" OK "$(vcrypt set "$dir" "$ID")"
	gen 5000 48 > "$dir/f" || fail "writing a file in the encrypted directory failed"
	expect "policy inherited by a new file" "$(policy "$ID")" "$(vcrypt get "$dir/f")"
	set -- $(vioctl flags "$dir/f")
	[ $(($2 & 0x800)) -ne 0 ] || fail "FS_IOC_GETFLAGS of the new file: $2, no FS_ENCRYPT_FL (0x800)"
	expect "contents of the new file" equal "$(gen -c "$dir/f" 5000 48)"
	rm -rf "$dir" "$VT_MNT/pol2" "$VT_MNT/pol3"
}

t_roundtrip() {	# NAME SIZE
	fc_prepare
	f=$D/$1
	expect "policy of $1" "$(policy "$ID")" "$(vcrypt get "$f")"
	expect "measure" "$(cat "$FC/meas.$1")" "$(measure_of "$f")"
	expect "st_size" "$2" "$(fsize "$f")"
	expect "statx" "verity $2" "$(vioctl statx "$f")"
	set -- "$1" "$2" $(vioctl flags "$f")
	expect "FS_IOC_GETFLAGS ($4)" verity "$3"
	[ $(($4 & 0x800)) -ne 0 ] || fail "FS_IOC_GETFLAGS: $4, no FS_ENCRYPT_FL (0x800)"
	check_data "$1" "$2"
	expect "open for write" EPERM "$(vioctl open "$f" w)"
	if [ "$1" = big ]; then
		expect "measure of the unencrypted control (same data and setup)" \
			"$(cat "$FC/meas.plain")" "$(measure_of "$P/big")"
		expect "measure of the encrypted file equals the control's" \
			"$(cat "$FC/meas.plain")" "$(cat "$FC/meas.big")"
	fi
}

check_data() {	# NAME SIZE: contents, reads at EOF, every block (big)
	f=$D/$1
	case $1 in small) seed=47 ;; *) seed=46 ;; esac
	expect "contents of $1" equal "$(gen -c "$f" "$2" $seed)"
	expect "read(4096) at the data size" "bytes=0 end=EOF" "$(rdtest range "$f" "$2" 4096)"
	read -r desc full < "$FC/layout"
	[ "$1" = small ] || expect "read at the descriptor offset" "bytes=0 end=EOF" \
		"$(rdtest range "$f" "$desc" 4096)"
	if [ "$1" != small ]; then
		expect "pread of every block" \
			"blocks=$NBLK ok=$NBLK eio=0 mismatch=0 other=0 bad=- eof=0" \
			"$(rdtest blocks "$f" "$REF")"
	fi
	return 0
}

t_dropcaches() {
	fc_prepare
	drop_caches
	for n in small big; do
		case $n in small) s=$SMALL ;; big) s=$BIG ;; esac
		check_data $n $s
		expect "measure of $n after drop_caches" "$(cat "$FC/meas.$n")" "$(measure_of "$D/$n")"
	done
	drop_caches
	expect "mmap of every page of big" \
		"pages=$NBLK ok=$NBLK sigbus=0 mismatch=0 bad=- past=1 exposed=0" \
		"$(rdtest mmap "$D/big" "$REF")"
}

t_nokey() {
	fc_prepare
	fs_remount || fail "remount failed"
	expect "key status after the mount" absent "$(vcrypt status "$VT_MNT" "$ID")"
	names=$(listing "$D")
	set -- $names
	expect "number of names without the key ($names)" 4 $#
	for n; do
		case " $FILES " in *" $n "*) fail "plaintext name '$n' listed without the key" ;; esac
		expect "open($n) without the key" ENOKEY "$(vioctl open "$D/$n" r)"
		fsverity measure "$D/$n" > /dev/null 2>&1 && fail "fsverity measure $n succeeded without the key"
		cat "$D/$n" > /dev/null 2>&1 && fail "cat $n succeeded without the key"
		# ext4 keeps the data size on disk; f2fs keeps the full size,
		# and without the key fs-verity cannot read the metadata that
		# gives the data size
		case $FS in
		ext4)	expect_one_of "statx of $n without the key" "$(vioctl statx "$D/$n")" \
				"verity $SMALL" "verity $BIG" ;;
		f2fs)	st=$(vioctl statx "$D/$n")
			case $st in "verity "*) ;; *) fail "statx of $n without the key: '$st', not verity" ;; esac
			grep -qx "[a-z]* ${st#verity }" "$FC/fullsize" ||
				fail "statx of $n without the key: size ${st#verity } is none of the full sizes: $(cat "$FC/fullsize")" ;;
		esac
	done
	( : > "$D/new" ) 2> /dev/null && fail "creating a file in the directory without the key succeeded"
	expect "policy of the directory without the key" "$(policy "$ID")" "$(vcrypt get "$D")"
	fc_key
	expect "names with the key re-added" "big cdata ctree small " "$(listing "$D")"
	for n in small big; do
		case $n in small) s=$SMALL ;; big) s=$BIG ;; esac
		case $FS in
		ext4)	expect "st_size of $n" $s "$(fsize "$D/$n")" ;;
		f2fs)	expect "st_size of $n before its first open (f2fs: the size on disk until the key is set up)" \
				"$(sed -n "s/^$n //p" "$FC/fullsize")" "$(fsize "$D/$n")" ;;
		esac
		check_data $n $s
		expect "st_size of $n once opened" $s "$(fsize "$D/$n")"
		expect "measure of $n after the mount" "$(cat "$FC/meas.$n")" "$(measure_of "$D/$n")"
	done
}

# The raw device, the filesystem unmounted: the control's blocks are its
# plaintext (so the method works, and the magic is where it should be); the
# encrypted file's data, tree, descriptor and footer blocks are not.
t_ondisk() {
	fc_prepare
	read -r desc full < "$FC/layout"
	fs_umount "$VT_MNT" || fail "umount failed"
	: > "$FC/ondisk"
	while read -r n b phys len; do
		raw=$(poke "$VT_DEV" "$phys" get "$len") || { fs_mount "$VT_DEV" "$VT_MNT"; fail "poke $VT_DEV $phys failed"; }
		echo "$n $b $phys $raw" >> "$FC/ondisk"
	done < "$FC/blocks"
	fs_mount "$VT_DEV" "$VT_MNT" || fail "mount failed"
	vt_counter_add mountgen > /dev/null
	fc_key
	db=$((desc / BS))
	while read -r n b phys raw; do
		plain=$(cat "$FC/plain.$n.$b")
		if [ "$n" = plain ]; then
			[ "$raw" = "$plain" ] ||
				fail "control block $b at device offset $phys is not the file's plaintext"
			continue
		fi
		[ "$raw" != "$plain" ] || fail "block $b of the encrypted file is plaintext on the device ($phys)"
		[ "$(echo "$raw" | cut -c1-32)" != "$(echo "$plain" | cut -c1-32)" ] ||
			fail "block $b of the encrypted file starts with its plaintext on the device ($phys)"
		case $raw in *$MAGIC*) fail "the magic 'FSVerity' is in plaintext in block $b on the device ($phys)" ;; esac
		case $raw in 00000000000000000000000000000000*) fail "block $b on the device starts with 16 zero bytes ($phys)" ;; esac
	done < "$FC/ondisk"
	# the control shows the descriptor and footer magic in plaintext
	set -- $(grep "^plain $db " "$FC/ondisk")
	[ $# -eq 4 ] || fail "no record of the control's block $db"
	case $4 in "$MAGIC"*) ;; *) fail "control: no descriptor magic at the start of block $db on the device" ;; esac
	case $4 in *"$MAGIC") ;; *) fail "control: the device block $db does not end with the footer magic" ;; esac
	set -- $(grep "^big $db " "$FC/ondisk")
	note "the descriptor block on the device starts $(echo "$4" | cut -c1-32) (encrypted), control: $MAGIC..."
}

t_cdata() {
	fc_corrupt
	drop_caches
	expect "pread of every block" \
		"blocks=$NBLK ok=$((NBLK - 1)) eio=1 mismatch=0 other=0 bad=$K eof=0" \
		"$(rdtest blocks "$D/cdata" "$REF")"
	expect "read(3 blocks) from block $((K - 1))" "bytes=4096 end=EIO data=ok" \
		"$(rdtest range "$D/cdata" $(((K - 1) * BS)) $((3 * BS)) "$REF")"
	drop_caches
	expect "mmap of every page" \
		"pages=$NBLK ok=$((NBLK - 1)) sigbus=1 mismatch=0 bad=$K past=1 exposed=0" \
		"$(rdtest mmap "$D/cdata" "$REF")"
	cat "$D/cdata" > /dev/null 2>&1 && fail "cat of the whole file succeeded"
	expect "measure (the metadata is intact)" "$(cat "$FC/meas.cdata")" "$(measure_of "$D/cdata")"
	expect "the uncorrupted twin: pread of every block" \
		"blocks=$NBLK ok=$NBLK eio=0 mismatch=0 other=0 bad=- eof=0" \
		"$(rdtest blocks "$D/big" "$REF")"
}

t_ctree() {
	fc_corrupt
	drop_caches
	expect "pread of every block" \
		"blocks=$NBLK ok=$((NBLK - 128)) eio=128 mismatch=0 other=0 bad=128-255 eof=0" \
		"$(rdtest blocks "$D/ctree" "$REF")"
	drop_caches
	expect "mmap of every page" \
		"pages=$NBLK ok=$((NBLK - 128)) sigbus=128 mismatch=0 bad=128-255 past=1 exposed=0" \
		"$(rdtest mmap "$D/ctree" "$REF")"
}

t_cleanup() {
	fc_prepare
	expect "remove the key while small is open" "OK files_busy" \
		"$(vioctl hold r "$D/small" vcrypt remove "$VT_MNT" "$ID")"
	expect "key status" "incompletely_removed users=0" "$(vcrypt status "$VT_MNT" "$ID")"
	expect "remove the key again, nothing open" OK "$(vcrypt remove "$VT_MNT" "$ID")"
	expect "key status" absent "$(vcrypt status "$VT_MNT" "$ID")"
	expect "remove an absent key" ENOKEY "$(vcrypt remove "$VT_MNT" "$ID")"
	set -- $(listing "$D")
	expect "number of names" 4 $#
	for n; do
		case " $FILES " in *" $n "*) fail "plaintext name '$n' listed after the key was removed" ;; esac
		expect "open($n) after the key was removed" ENOKEY "$(vioctl open "$D/$n" r)"
	done
	fs_umount "$VT_MNT" || fail "umount failed"
}

vt_test 45.01 "$FS: fscrypt: vcrypt adds a v2 key (HKDF-SHA512 identifier), sets and reports the policy, errors" t_policy
vt_test 45.02 "$FS: fscrypt: 4097-byte verity file in an encrypted directory: enable, measure, contents" t_roundtrip small $SMALL
vt_test 45.03 "$FS: fscrypt: 1 MiB + 17 verity file in an encrypted directory: enable, measure, contents" t_roundtrip big $BIG
vt_test 45.04 "$FS: fscrypt: encrypted verity files after drop_caches: contents, measure, mmap" t_dropcaches
vt_test 45.05 "$FS: fscrypt: after umount/mount: no key, encrypted names, ENOKEY; key re-added, all reads" t_nokey
vt_test 45.06 "$FS: fscrypt: on the device the verity metadata is encrypted like the data (control: plaintext)" t_ondisk
vt_test 45.07 "$FS: fscrypt: corrupted ciphertext data block $K: EIO / SIGBUS for it only" t_cdata
vt_test 45.08 "$FS: fscrypt: corrupted ciphertext level-0 tree block 1: blocks 128-255 fail, others read" t_ctree
vt_test 45.09 "$FS: fscrypt: removing the key (busy, then for good) locks the files, umount" t_cleanup
exit 0
