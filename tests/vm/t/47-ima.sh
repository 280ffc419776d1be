#!/bin/sh
#@ fs: ext4 f2fs
# IMA and fs-verity: fsverity_get_digest() stays for IMA, and returns the
# RFC file measurement.  Two IMA policy rules, limited to this filesystem
# type and to files of two owners no other group uses, are added for the
# rest of the boot (CONFIG_IMA_WRITE_POLICY allows adding rules):
#
#   owner 3001: measure with digest_type=verity (template ima-ngv2): IMA
#               records "verity:ALG:HEX", the measurement, without reading
#               the data; a verity file whose hash is CRC-32C (-EINVAL: not
#               a digest) gets IMA's zero digest, a file that is not verity
#               (-ENODATA) no record at all
#   owner 3000: measure the usual way (template ima-ng): IMA hashes the
#               whole file at open, through the verified read path, so a
#               verity file's record is the hash of its data alone
#
# Each file is opened for reading once after its owner is set; IMA then
# adds one line to ascii_runtime_measurements.
. "$VT_DIR/lib.sh"

D=$VT_MNT/ima
W=$VT_WORK/ima
UID_HASH=3000
UID_VERITY=3001

g_setup() {
	fresh_group "$W" || return 1
	ima_mount
	[ -w "$IMA_POLICY" ] || return 0	# need_ima says why
	case $FS in
	ext4) magic=0xef53 ;;
	f2fs) magic=0xf2f52010 ;;
	esac
	ima_add_rules \
		"measure func=FILE_CHECK mask=MAY_READ fsmagic=$magic fowner=$UID_HASH template=ima-ng" \
		"measure func=FILE_CHECK mask=MAY_READ fsmagic=$magic fowner=$UID_VERITY digest_type=verity template=ima-ngv2"
}
vt_setup g_setup

need_ima() {
	[ -r "$IMA_LIST" ] || skip "no IMA in this kernel ($IMA_LIST is missing: CONFIG_IMA)"
	[ -w "$IMA_POLICY" ] ||
		skip "the IMA policy cannot be extended (CONFIG_IMA_WRITE_POLICY)"
}

# ima_record FILE OWNER: give FILE to OWNER, open it for reading once, print
# the file data hash field of the line IMA added for it ("ALG:HEX" or
# "verity:ALG:HEX"), or "nothing recorded"
ima_record() {
	chown "$2" "$1" || fail "chown $2 $1 failed"
	cat "$1" > /dev/null || fail "reading $1 failed"
	_l=$(awk -v p="$1" '$NF == p { print $4 }' "$IMA_LIST" | tail -n 1)
	echo "${_l:-nothing recorded}"
}

# make_verity NAME SIZE SEED SETUP-OPTIONS...: a verity file, its measurement
# in $W/NAME.m
make_verity() {
	_f=$D/$1
	gen "$2" "$3" > "$_f"
	shift 3
	setup_measure "$_f" "$@" > "$W/$(basename "$_f").m" || fail "fsverity setup $_f $* failed"
	expect "ENABLE of $_f" OK "$(vioctl enable "$_f")"
}

zeros() {	# N: N hex zeros
	head -c "$1" /dev/zero | od -An -v -tx1 | tr -d ' \n' | cut -c1-"$(( $1 * 2 ))"
}

t_verity_digest() {
	need_helpers
	need_fsverity
	need_ima
	make_verity a 1048593 51 --hash=sha256 --salt=00ff
	make_verity b 4097 52 --hash=sha512
	for n in a b; do
		m=$(cat "$W/$n.m")
		expect "IMA's record of $n (digest_type=verity)" "verity:$m" "$(ima_record "$D/$n" $UID_VERITY)"
		expect "FS_IOC_MEASURE_VERITY of $n" "$m" "$(measure_of "$D/$n")"
	done
}

t_verity_no_digest() {
	need_helpers
	need_fsverity
	need_ima
	make_verity c 20000 53 --hash=crc32c
	gen 20000 54 > "$D/p"
	z=sha256:$(zeros 32)
	expect "IMA's record of a CRC-32C verity file (no digest: -EINVAL)" "verity:$z" \
		"$(ima_record "$D/c" $UID_VERITY)"
	expect "IMA's record of a file that is not verity (-ENODATA)" "nothing recorded" \
		"$(ima_record "$D/p" $UID_VERITY)"
	expect "checksum of the CRC-32C file, still readable" "$(gen 20000 53 | sum_of /dev/stdin)" "$(sum_of "$D/c")"
}

t_full_hash() {
	need_helpers
	need_fsverity
	need_ima
	make_verity d 300001 55 --hash=sha512
	gen 300001 56 > "$D/q"
	drop_caches
	expect "IMA's whole-file hash of a verity file = sha256 of its data" \
		"sha256:$(gen 300001 55 | sha256sum | cut -d' ' -f1)" "$(ima_record "$D/d" $UID_HASH)"
	expect "IMA's whole-file hash of a plain file (control)" \
		"sha256:$(gen 300001 56 | sha256sum | cut -d' ' -f1)" "$(ima_record "$D/q" $UID_HASH)"
	expect "st_size of the verity file" 300001 "$(fsize "$D/d")"
}

vt_test 47.01 "$FS: IMA digest_type=verity records the RFC file measurement (sha256 salted, sha512)" t_verity_digest
vt_test 47.02 "$FS: IMA digest_type=verity: a CRC-32C verity file gets the zero digest, a plain file no record" t_verity_no_digest
vt_test 47.03 "$FS: IMA's open-time hash of a verity file covers its data only (verified reads, metadata hidden)" t_full_hash
exit 0
