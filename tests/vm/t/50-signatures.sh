#!/bin/sh
#@ fs: ext4 f2fs
# Builtin signatures (CONFIG_FS_VERITY_BUILTIN_SIGNATURES): a PKCS7_SIGNATURE
# extension holding a PKCS#7 signature of the file's fsverity_digest_disk is
# verified against the .fs-verity keyring at ENABLE and at the first open
# after the inode is loaded.  Good signatures from the utility and from the
# openssl command line enable and keep working; untrusted, broken,
# misplaced, duplicated or mismatching ones are refused with the file left
# unchanged; fs.verity.require_signatures=1 refuses unsigned files at enable
# and at open.  The keys are made once per boot (lib.sh sig_need), the
# "trusted" certificate added to the keyring once; every test sets the
# sysctl back to 0 when it ends, whatever the outcome.
. "$VT_DIR/lib.sh"

D=$VT_MNT/sig
W=$VT_WORK/sig
SZ=10000			# 3 data blocks
CSZ=163540			# the corruption test: 40 data blocks, the last partial
CNB=40
CK=17				# its corrupted data block

g_setup() {
	fresh_group "$W"
}
vt_setup g_setup

# mk NAME [SIZE [SEED]]: plain data file $D/NAME, its copy in $W/NAME.orig
mk() {
	need_helpers
	need_fsverity
	gen "${2:-$SZ}" "${3:-50}" > "$W/$1.orig" || fail "cannot write $W/$1.orig"
	cp "$W/$1.orig" "$D/$1" || fail "cannot write $D/$1"
}

# meas_of NAME [OPTIONS...]: the measurement `fsverity setup` gives NAME's
# data (set up on a scratch copy in tmpfs; $D/NAME stays plain)
meas_of() {
	_n=$1
	shift
	cp "$W/$_n.orig" "$W/$_n.scratch" || return 1
	setup_measure "$W/$_n.scratch" "$@"
	_rc=$?
	rm -f "$W/$_n.scratch"
	return $_rc
}

hex_of() {	# ALG:HEX -> HEX
	echo "${1#*:}"
}

# klog_new: the kernel log lines about fs-verity since klog_mark (lib.sh),
# printed into the test's log, which is shown when the test fails
klog_new() {
	klog_since | grep -i 'verity' | sed 's/^/kernel: /'
}

# enable_refused NAME WHAT ERRNO...: ENABLE fails with one of ERRNO, the
# file unchanged; notes the errno when more than one is accepted
enable_refused() {
	_n=$1
	_ewhat=$2
	shift 2
	remember "$_n"
	klog_mark
	_r=$(vioctl enable "$D/$_n")
	echo "ENABLE of $_ewhat: $_r"
	klog_new
	expect_one_of "FS_IOC_ENABLE_VERITY of $_ewhat" "$_r" "$@"
	[ $# -gt 1 ] && note "ENABLE of $_ewhat: $_r"
	unchanged "$_n"
}

# works NAME MEAS: a verity file that reads correctly and measures MEAS,
# after the enable, after drop_caches and after a remount
works() {
	for _when in "after ENABLE" "after drop_caches" "after remount"; do
		case $_when in
		*drop*) drop_caches ;;
		*remount*) fs_remount || fail "remount failed" ;;
		esac
		expect "open(O_RDONLY) $_when" OK "$(vioctl open "$D/$1" r)"
		set -- "$1" "$2" $(vioctl flags "$D/$1")
		expect "verity flag $_when" verity "$3"
		expect "st_size $_when" "$(fsize "$W/$1.orig")" "$(fsize "$D/$1")"
		expect "contents $_when" "$(sum_of "$W/$1.orig")" "$(sum_of "$D/$1")"
		expect "FS_IOC_MEASURE_VERITY $_when" "$2" "$(vioctl measure "$D/$1")"
		expect "fsverity measure $_when" "$2" "$(measure_of "$D/$1")"
	done
}

# ---------------------------------------------------------------- good

t_signed() {	# HASH
	sig_need
	n=good-$1
	mk $n $SZ 51
	m=$(sig_setup "$D/$n" trusted --hash="$1") || fail "signed setup failed"
	case $m in "$1":*) ;; *) fail "setup printed '$m', expected a $1 measurement" ;; esac
	expect "extensions after signed setup" "auth=1 unauth=3" "$(vsig list "$D/$n")"
	expect "the signed measurement equals the unsigned one" "$(meas_of $n --hash="$1")" "$m"
	expect "FS_IOC_ENABLE_VERITY of a file signed by a trusted certificate" OK \
		"$(vioctl enable "$D/$n")"
	works $n "$m"
}

# smime_signed NAME SEED [detached]: $D/NAME, plain, of SEED's bytes; its
# measurement in $m; its digest signed by openssl smime in $W/NAME.sig
smime_signed() {
	mk "$1" $SZ "$2"
	m=$(meas_of "$1") || fail "setup of the scratch copy failed"
	vsig digest 1 32 "$(hex_of "$m")" "$W/$1.digest" || fail "vsig digest failed"
	sig_smime "$W/$1.digest" "$W/$1.sig" trusted sha256 "${3:-}" || fail "openssl smime failed"
}

t_openssl() {
	sig_need
	n=ossl
	smime_signed "$n" 52
	m2=$(setup_measure "$D/$n" --signature="$W/$n.sig") || fail "setup --signature failed"
	expect "measurement printed by setup --signature" "$m" "$m2"
	expect "FS_IOC_ENABLE_VERITY of a file with an openssl-made signature" OK \
		"$(vioctl enable "$D/$n")"
	works $n "$m"
	# The utility's signature of the same data, for comparison
	cp "$W/$n.orig" "$W/$n.tool"
	sig_setup "$W/$n.tool" trusted > /dev/null || fail "signed setup on tmpfs failed"
	vsig extract "$W/$n.tool" "$W/$n.toolsig" || fail "vsig extract failed"
	if cmp -s "$W/$n.sig" "$W/$n.toolsig"; then
		note "openssl smime and fsverity setup made byte-identical signatures ($(fsize "$W/$n.sig") bytes)"
	else
		note "openssl smime ($(fsize "$W/$n.sig") bytes) and fsverity setup ($(fsize "$W/$n.toolsig") bytes) signatures differ in bytes; both are accepted"
	fi
}

# ------------------------------------------------------------- refused

# A detached PKCS#7 signature leaves its content out of the message: the
# kernel then verifies the signature over no content.  Of the file's
# digest, it does not verify (EKEYREJECTED); of an empty content, it does,
# and then signs nothing of this file: a bad signature (EBADMSG), not "no
# verity file" (ENODATA, which the key layer answers for the missing
# content).
t_detached() {
	sig_need
	n=detach
	smime_signed "$n" 74 detached
	setup_measure "$D/$n" --signature="$W/$n.sig" > /dev/null || fail "setup --signature failed"
	enable_refused "$n" "a file whose signature of its digest is detached (the content left out)" EKEYREJECTED
	n=detach0
	mk "$n" $SZ 75
	: > "$W/$n.empty"
	sig_smime "$W/$n.empty" "$W/$n.sig" trusted sha256 detached || fail "openssl smime failed"
	setup_measure "$D/$n" --signature="$W/$n.sig" > /dev/null || fail "setup --signature failed"
	enable_refused "$n" "a file whose detached signature signs an empty content" EBADMSG
}

t_untrusted() {
	sig_need
	mk untr $SZ 53
	sig_setup "$D/untr" untrusted > /dev/null || fail "signed setup failed"
	enable_refused untr "a file signed by a certificate not in the keyring" ENOKEY EKEYREJECTED
}

t_badvalue() {
	sig_need
	mk badv $SZ 54
	m=$(meas_of badv) || fail "setup of the scratch copy failed"
	vsig digest 1 32 "$(hex_of "$m")" "$W/badv.digest" || fail "vsig digest failed"
	sig_smime "$W/badv.digest" "$W/badv.sig" || fail "openssl smime failed"
	# the RSA signature value is the last field of the message
	s=$(fsize "$W/badv.sig")
	poke "$W/badv.sig" $((s - 1)) xor 01 > /dev/null || fail "poke failed"
	poke "$W/badv.sig" $((s - 40)) xor 80 > /dev/null || fail "poke failed"
	setup_measure "$D/badv" --signature="$W/badv.sig" > /dev/null || fail "setup --signature failed"
	enable_refused badv "a trusted signature whose RSA value was altered" EKEYREJECTED EBADMSG
}

t_copied() {
	sig_need
	mk cpa $SZ 55
	mk cpb $SZ 56
	sig_setup "$D/cpa" trusted > /dev/null || fail "signed setup of cpa failed"
	vsig extract "$D/cpa" "$W/cpa.sig" || fail "vsig extract failed"
	setup_measure "$D/cpb" --signature="$W/cpa.sig" > /dev/null || fail "setup --signature failed"
	enable_refused cpb "a file carrying another file's (valid) signature" EBADMSG
	expect "ENABLE of the file the signature belongs to (control)" OK "$(vioctl enable "$D/cpa")"
}

# t_content NAME ALG SIZE HEX-EXPR: the PKCS#7 content is not the file's
# fsverity_digest_disk; HEX-EXPR is evaluated with $h the measurement's hex
t_content() {
	sig_need
	n=$1
	mk $n $SZ 57
	m=$(meas_of $n) || fail "setup of the scratch copy failed"
	h=$(hex_of "$m")
	eval "hex=$4"
	vsig digest "$2" "$3" "$hex" "$W/$n.digest" || fail "vsig digest failed"
	sig_smime "$W/$n.digest" "$W/$n.sig" || fail "openssl smime failed"
	setup_measure "$D/$n" --signature="$W/$n.sig" > /dev/null || fail "setup --signature failed"
	enable_refused $n "a signed digest_disk {alg $2, size $3, $(((${#hex}) / 2)) bytes} on a sha256 file" EBADMSG
}

t_truncated() {
	sig_need
	mk trs $SZ 58
	sig_setup "$W/trs.orig" trusted > /dev/null || fail "signed setup on tmpfs failed"
	vsig extract "$W/trs.orig" "$W/trs.sig" || fail "vsig extract failed"
	gen $SZ 58 > "$W/trs.orig"
	s=$(fsize "$W/trs.sig")
	for cut in 1 $((s / 2)); do
		cp "$W/trs.orig" "$D/trs$cut"
		cp "$W/trs.orig" "$W/trs$cut.orig"
		head -c $((s - cut)) "$W/trs.sig" > "$W/trs$cut.sig"
		setup_measure "$D/trs$cut" --signature="$W/trs$cut.sig" > /dev/null ||
			fail "setup --signature failed"
		enable_refused trs$cut "a valid signature truncated by $cut of its $s bytes" EBADMSG
	done
}

t_garbage() {
	sig_need
	mk garb $SZ 59
	gen 600 60 > "$W/garb.sig"
	setup_measure "$D/garb" --signature="$W/garb.sig" > /dev/null || fail "setup --signature failed"
	enable_refused garb "600 bytes of garbage as the PKCS#7 message" EBADMSG
	mk garc $SZ 59
	setup_measure "$D/garc" --signature="$VT_KEYS/trusted.der" > /dev/null || fail "setup --signature failed"
	enable_refused garc "a DER X.509 certificate as the PKCS#7 message" EBADMSG
}

t_twosigs() {
	sig_need
	mk two $SZ 61
	sig_setup "$D/two" trusted > /dev/null || fail "signed setup failed"
	vsig extract "$D/two" "$W/two.sig" || fail "vsig extract failed"
	vsig add "$D/two" unauth "$W/two.sig" || fail "vsig add failed"
	expect "extensions" "auth=1 unauth=3,3" "$(vsig list "$D/two")"
	enable_refused two "two (valid, identical) PKCS7_SIGNATURE extensions" EBADMSG
}

t_authsig() {
	sig_need
	mk auth $SZ 62
	m=$(setup_measure "$D/auth") || fail "setup failed"
	vsig digest 1 32 "$(hex_of "$m")" "$W/auth.digest" || fail "vsig digest failed"
	sig_smime "$W/auth.digest" "$W/auth.sig" || fail "openssl smime failed"
	vsig add "$D/auth" auth "$W/auth.sig" || fail "vsig add failed"
	expect "extensions" "auth=1,3 unauth=" "$(vsig list "$D/auth")"
	enable_refused auth "a PKCS7_SIGNATURE in the authenticated list" EBADMSG
}

t_crc32c() {
	sig_need
	mk crc $SZ 63
	m=$(setup_measure "$D/crc" --hash=crc32c) || fail "crc32c setup failed"
	case $m in crc32c:????????) ;; *) fail "setup printed '$m', expected crc32c:<8 hex digits>" ;; esac
	vsig digest 3 4 "$(hex_of "$m")" "$W/crc.digest" || fail "vsig digest failed"
	sig_smime "$W/crc.digest" "$W/crc.sig" || fail "openssl smime failed"
	vsig add "$D/crc" unauth "$W/crc.sig" || fail "vsig add failed"
	expect "extensions" "auth=1 unauth=3" "$(vsig list "$D/crc")"
	enable_refused crc "a CRC-32C file with a trusted signature of its measurement" EBADMSG
}

# ----------------------------------------------------- require_signatures

t_require_enable() {
	sig_need
	trap 'sig_require 0' EXIT
	mk run $SZ 64
	mk rsn $SZ 65
	setup_measure "$D/run" > /dev/null || fail "setup failed"
	m=$(sig_setup "$D/rsn" trusted) || fail "signed setup failed"
	sig_require 1 || fail "cannot set require_signatures=1"
	enable_refused run "an unsigned file with require_signatures=1" EBADMSG
	expect "ENABLE of a signed file with require_signatures=1" OK "$(vioctl enable "$D/rsn")"
	expect "contents of the signed file" "$(sum_of "$W/rsn.orig")" "$(sum_of "$D/rsn")"
	expect "measure of the signed file" "$m" "$(vioctl measure "$D/rsn")"
	sig_require 0 || fail "cannot set require_signatures=0"
	expect "ENABLE of the unsigned file once require_signatures=0" OK "$(vioctl enable "$D/run")"
}

t_require_open() {
	sig_need
	trap 'sig_require 0' EXIT
	mk ron $SZ 66
	mk ros $SZ 67
	mu=$(setup_measure "$D/ron") || fail "setup failed"
	ms=$(sig_setup "$D/ros" trusted) || fail "signed setup failed"
	expect "ENABLE of the unsigned file (require_signatures=0)" OK "$(vioctl enable "$D/ron")"
	expect "ENABLE of the signed file" OK "$(vioctl enable "$D/ros")"
	sig_require 1 || fail "cannot set require_signatures=1"
	for how in drop_caches fs_remount; do
		$how || fail "$how failed"
		expect "open of the unsigned verity file after $how, require_signatures=1" \
			EBADMSG "$(vioctl open "$D/ron" r)"
		cat "$D/ron" > /dev/null 2>&1 && fail "cat of the unsigned file succeeded after $how"
		expect "open of the signed verity file after $how" OK "$(vioctl open "$D/ros" r)"
		expect "contents of the signed file after $how" "$(sum_of "$W/ros.orig")" "$(sum_of "$D/ros")"
		expect "measure of the signed file after $how" "$ms" "$(vioctl measure "$D/ros")"
	done
	sig_require 0 || fail "cannot set require_signatures=0"
	drop_caches
	expect "open of the unsigned file once require_signatures=0" OK "$(vioctl open "$D/ron" r)"
	expect "contents of the unsigned file" "$(sum_of "$W/ron.orig")" "$(sum_of "$D/ron")"
	expect "measure of the unsigned file" "$mu" "$(vioctl measure "$D/ron")"
}

# ------------------------------------------------------- on-disk damage

# damage NAME OFFSET: flip the byte at file offset OFFSET of $D/NAME (found
# with FIEMAP now, before ENABLE), then enable, umount, write the device,
# mount
damage() {
	t=$(raw_target "$D/$1" "$2") || fail "$t"
	r=$(vioctl enable "$D/$1")
	[ "$r" = OK ] || fail "FS_IOC_ENABLE_VERITY of $1 (before the damage): $r"
	out=$(raw_corrupt "$t") || fail "$out"
}

t_corrupt_data() {
	sig_need
	mk cd $CSZ 68
	m=$(sig_setup "$D/cd" trusted) || fail "signed setup failed"
	sync
	damage cd $((CK * BS + 1234))
	expect "open(O_RDONLY) of the signed file with a flipped data byte" OK "$(vioctl open "$D/cd" r)"
	expect "measure (the signed measurement)" "$m" "$(vioctl measure "$D/cd")"
	expect "pread of every block" \
		"blocks=$CNB ok=$((CNB - 1)) eio=1 mismatch=0 other=0 bad=$CK eof=0" \
		"$(rdtest blocks "$D/cd" "$W/cd.orig")"
	cat "$D/cd" > /dev/null 2>&1 && fail "cat of the whole file succeeded"
	return 0
}

# sig_damaged NAME SEED: a signed verity file $D/NAME whose signature has
# been altered on the disk after ENABLE
sig_damaged() {
	sig_need
	mk "$1" $SZ "$2"
	sig_setup "$D/$1" trusted > /dev/null || fail "signed setup failed"
	sync
	set -- "$1" $(vsig where "$D/$1")
	[ $# -eq 3 ] || fail "vsig where failed"
	# the last byte of the message: inside the RSA signature value
	damage "$1" $(($2 + $3 - 1))
}

t_corrupt_sig() {
	sig_damaged cs 69
	klog_mark
	r=$(vioctl open "$D/cs" r)
	klog_new
	expect_one_of "open(O_RDONLY) of a verity file whose signature was altered on disk" "$r" \
		EKEYREJECTED EBADMSG
	note "open after the on-disk signature damage: $r"
	rdtest blocks "$D/cs" "$W/cs.orig" | grep -q '^open:' || fail "reading succeeded"
	return 0
}

# stat_first NAME: after a remount, stat() the file (which on f2fs sets up
# its metadata to report the data size): st_size is the data size, and
# stat() says nothing about the signature, which waits for the open (the
# kernel's fs-verity messages are rate-limited: the log may miss one, so
# st_size is what proves it)
stat_first() {
	fs_remount || fail "remount failed"
	klog_mark
	expect "st_size of the verity file before its first open" \
		"$(fsize "$W/$1.orig")" "$(fsize "$D/$1")"
	if klog_new | grep -i 'signature\|keyring'; then
		fail "stat() of the file checked its signature (kernel log above)"
	fi
	return 0
}

t_stat_bad_sig() {
	sig_damaged sbs 72
	stat_first sbs
	klog_mark
	r=$(vioctl open "$D/sbs" r)
	klog_new
	expect_one_of "open(O_RDONLY) after stat() of a file whose signature was altered" "$r" \
		EKEYREJECTED EBADMSG
	expect "second open (the signature checked again)" "$r" "$(vioctl open "$D/sbs" r)"
	rdtest blocks "$D/sbs" "$W/sbs.orig" | grep -q '^open:' || fail "reading succeeded"
	return 0
}

# The certificate "late" is trusted for the ENABLE, then taken out of the
# keyring: the opens fail until it is added back
t_sig_key_back() {
	sig_need trusted late
	trap 'sig_untrust late > /dev/null 2>&1' EXIT
	sig_trust late || fail "cannot trust the certificate late"
	mk skb $SZ 73
	m=$(sig_setup "$D/skb" late) || fail "signed setup failed"
	expect "ENABLE while the certificate is trusted" OK "$(vioctl enable "$D/skb")"
	sig_untrust late || fail "cannot take the certificate late out of the keyring"
	stat_first skb
	expect "open once the certificate is out of the keyring" ENOKEY "$(vioctl open "$D/skb" r)"
	expect "open again" ENOKEY "$(vioctl open "$D/skb" r)"
	sig_trust late || fail "cannot trust the certificate late again"
	expect "open once the certificate is back" OK "$(vioctl open "$D/skb" r)"
	expect "contents" "$(sum_of "$W/skb.orig")" "$(sum_of "$D/skb")"
	expect "measure" "$m" "$(vioctl measure "$D/skb")"
	sig_untrust late || fail "cannot take the certificate late out of the keyring again"
	expect "open with the certificate out again, the signature found valid before" OK \
		"$(vioctl open "$D/skb" r)"
}

# ------------------------------------------- a check that runs modprobe
#
# The key layer asks for the module of every digest algorithm a PKCS#7
# message names and the kernel lacks: request_module() then runs modprobe as
# a usermode helper and waits for it.  Here the message has two signers:
# the trusted one with SHA-256, and a second one with MD5, which this kernel
# lacks (the key layer skips that signer as unsupported after asking).  A
# modprobe that reads the file (as it reads the modules it loads, which may
# be verity files) must not wait for the check that waits for it: the check
# holds no lock of the file while it runs, at ENABLE and at the first open.
MODPROBE=/proc/sys/kernel/modprobe
MP_WAIT=20			# seconds an ENABLE or open may take here: under the
				# hung-task limit, which the blocked modprobe would hit

# modprobe_runs CMD...: run a helper (an ENABLE or an open of $D/mp) with
# $MODPROBE set to a script that logs each request and reads the file's
# first block; prints the helper's word ("" if it had not returned after
# MP_WAIT seconds: it is killed, after the kernel stacks of the blocked
# tasks are printed), then the script's log; the modprobe path is put back
modprobe_runs() {
	# Only the first modprobe reads: its open of the file checks the
	# pending signature too (at the first open), which asks again
	cat > "$W/mp.modprobe" <<-EOF || return 1
	#!/bin/sh
	# Run by request_module() as: modprobe -q -- MODULE
	echo "asked \$*" >> "$W/mp.log"
	mkdir "$W/mp.first" 2>/dev/null || exit 1
	dd if="$D/mp" of=/dev/null bs=4096 count=1 2>/dev/null &&
		echo "read the file for \$*" >> "$W/mp.log"
	exit 1
	EOF
	chmod +x "$W/mp.modprobe" || return 1
	: > "$W/mp.log"
	rmdir "$W/mp.first" 2> /dev/null
	_old=$(cat "$MODPROBE")
	echo "$W/mp.modprobe" > "$MODPROBE" || return 1
	"$@" > "$W/mp.out" 2>&1 &
	_pid=$!
	_t=$((MP_WAIT * 10))
	while kill -0 "$_pid" 2> /dev/null && [ "$_t" -gt 0 ]; do
		sleep 0.1
		_t=$((_t - 1))
	done
	: > "$W/mp.stacks"
	_word=
	if kill -0 "$_pid" 2> /dev/null; then
		for _p in /proc/[0-9]*; do
			[ "$(awk '/^State:/ { print $2 }' "$_p/status" 2> /dev/null)" = D ] || continue
			echo "blocked: $(cat "$_p/comm" 2> /dev/null) (pid ${_p#/proc/})"
			cat "$_p/stack" 2> /dev/null
		done > "$W/mp.stacks"
		kill "$_pid"
		wait "$_pid" || true
	else
		wait "$_pid" || true
		_word=$(head -n 1 "$W/mp.out")
	fi
	echo "$_old" > "$MODPROBE"
	echo "$_word"
	cat "$W/mp.log" "$W/mp.stacks"
}

t_modprobe_reads_file() {
	[ -e "$MODPROBE" ] ||
		skip "kernel without CONFIG_MODULES: request_module() runs no modprobe"
	grep -q '^name *: md5$' /proc/crypto &&
		fail "this kernel has MD5: the test needs a digest algorithm the kernel lacks"
	sig_need
	mk mp $SZ 76
	m=$(meas_of mp) || fail "setup of the scratch copy failed"
	vsig digest 1 32 "$(hex_of "$m")" "$W/mp.digest" || fail "vsig digest failed"
	openssl cms -sign -binary -noattr -nocerts -outform der -md sha256 -nodetach \
		-in "$W/mp.digest" -out "$W/mp.sig1" \
		-signer "$VT_KEYS/trusted.pem" -inkey "$VT_KEYS/trusted.key" ||
		fail "openssl cms -sign failed"
	openssl cms -resign -binary -noattr -nocerts -inform der -outform der -md md5 \
		-in "$W/mp.sig1" -out "$W/mp.sig" \
		-signer "$VT_KEYS/untrusted.pem" -inkey "$VT_KEYS/untrusted.key" ||
		fail "openssl cms -resign (the MD5 signer) failed"
	setup_measure "$D/mp" --signature="$W/mp.sig" > /dev/null || fail "setup --signature failed"
	# Nothing of the file cached: modprobe's read goes to the disk
	drop_caches
	out=$(modprobe_runs vioctl enable "$D/mp")
	echo "ENABLE, then modprobe's log: $out"
	r=$(echo "$out" | head -n 1)
	[ -n "$r" ] || fail "ENABLE had not returned after $MP_WAIT s: it waited for a modprobe that waited for the file"
	echo "$out" | grep -q '^asked .*crypto-md5' ||
		fail "the check ran no modprobe for MD5: the race was not set up"
	echo "$out" | grep -q '^read the file for .*crypto-md5' ||
		fail "modprobe could not read the file during the check"
	expect "FS_IOC_ENABLE_VERITY of a file signed with SHA-256 and with MD5" OK "$r"
	set -- $(vioctl flags "$D/mp")
	expect "verity flag" verity "${1:-}"
	# The next inode of the file checks the signature again, at its first open
	fs_remount || fail "remount failed"
	out=$(modprobe_runs vioctl open "$D/mp" r)
	echo "first open after remount, then modprobe's log: $out"
	r=$(echo "$out" | head -n 1)
	[ -n "$r" ] || fail "the first open had not returned after $MP_WAIT s: it waited for a modprobe that waited for the file"
	echo "$out" | grep -q '^read the file for .*crypto-md5' ||
		fail "modprobe did not read the file during the check at the first open"
	expect "first open after remount" OK "$r"
	expect "contents" "$(sum_of "$W/mp.orig")" "$(sum_of "$D/mp")"
	expect "FS_IOC_MEASURE_VERITY" "$m" "$(vioctl measure "$D/mp")"
}

# ------------------------------ a kernel without builtin signature support
#
# 'make bisect' boots a kernel built with CONFIG_FS_VERITY_BUILTIN_SIGNATURES=n
# and vtest.sigs=off on its command line; only then do these tests run, in
# place of the ones above.

t_nosig_absent() {
	[ -e "$VT_REQSIG" ] && fail "$VT_REQSIG exists: this kernel has builtin signature support"
	sig_keyring_id > /dev/null && fail "a .fs-verity keyring exists: $(sig_keyring_line)"
	return 0
}

t_nosig_signed() {
	need_cmd openssl
	sig_key trusted || fail "cannot make the signing key"
	mk nsg $SZ 70
	sig_setup "$D/nsg" trusted > /dev/null || fail "signed setup failed"
	enable_refused nsg "a signed file on a kernel without builtin signatures" EBADMSG
	klog_new | grep -q 'lacks CONFIG_FS_VERITY_BUILTIN_SIGNATURES' ||
		fail "the kernel log does not say the kernel lacks CONFIG_FS_VERITY_BUILTIN_SIGNATURES"
}

t_nosig_unsigned() {
	mk nsu $SZ 71
	m=$(setup_measure "$D/nsu") || fail "setup failed"
	expect "FS_IOC_ENABLE_VERITY of an unsigned file" OK "$(vioctl enable "$D/nsu")"
	works nsu "$m"
}

# The suite's run on a kernel built without builtin signatures (make
# bisect's boot with vtest.sigs=off): these tests alone.
if vt_kcmdline | grep -qw vtest.sigs=off; then
	S="$FS: kernel without builtin signatures:"
	vt_test 50.91 "$S no fs.verity.require_signatures sysctl, no .fs-verity keyring" t_nosig_absent
	vt_test 50.92 "$S signed file: ENABLE fails EBADMSG, the log names the missing option, file unchanged" t_nosig_signed
	vt_test 50.93 "$S unsigned file enables, reads and measures (also after drop_caches, remount)" t_nosig_unsigned
	exit 0
fi

S="$FS: signatures:"
vt_test 50.01 "$S sha256 file signed by fsverity setup with a trusted certificate enables, reads, measures the signed measurement (also after drop_caches, remount)" t_signed sha256
vt_test 50.02 "$S sha512 file signed by fsverity setup enables, reads, measures the signed measurement (also after drop_caches, remount)" t_signed sha512
vt_test 50.03 "$S signature made by openssl smime, embedded with setup --signature, enables and reads like the utility's" t_openssl
vt_test 50.04 "$S signed by a certificate not in the keyring: ENABLE fails ENOKEY, file unchanged" t_untrusted
vt_test 50.05 "$S signature value altered: ENABLE fails EKEYREJECTED, file unchanged" t_badvalue
vt_test 50.06 "$S another file's signature: ENABLE fails EBADMSG, file unchanged" t_copied
vt_test 50.07 "$S signed content names sha512 on a sha256 file: ENABLE fails EBADMSG, unchanged" t_content alg 2 32 '$h'
vt_test 50.08 "$S signed content with digest size 31 and 31 bytes: ENABLE fails EBADMSG, unchanged" t_content size 1 31 '${h%??}'
vt_test 50.09 "$S signed content with digest size 64 but 32 bytes: ENABLE fails EBADMSG, unchanged" t_content sizefield 1 64 '$h'
vt_test 50.10 "$S signed content with a byte after the digest: ENABLE fails EBADMSG, unchanged" t_content trailing 1 32 '${h}00'
vt_test 50.11 "$S truncated PKCS#7 message: ENABLE fails EBADMSG, file unchanged" t_truncated
vt_test 50.12 "$S garbage or an X.509 certificate as the PKCS#7 message: ENABLE fails EBADMSG, unchanged" t_garbage
vt_test 50.13 "$S two PKCS7_SIGNATURE extensions: ENABLE fails EBADMSG, file unchanged" t_twosigs
vt_test 50.14 "$S PKCS7_SIGNATURE in the authenticated list: ENABLE fails EBADMSG, file unchanged" t_authsig
vt_test 50.15 "$S signed CRC-32C file: ENABLE fails EBADMSG, file unchanged" t_crc32c
vt_test 50.16 "$S require_signatures=1: unsigned file fails ENABLE EBADMSG (unchanged), signed file enables" t_require_enable
vt_test 50.17 "$S require_signatures=1: unsigned verity file fails open EBADMSG after drop_caches and remount, signed one works" t_require_open
vt_test 50.18 "$S signed file with a flipped data byte on disk: opens, measures, that block fails EIO, the rest reads" t_corrupt_data
vt_test 50.19 "$S signature altered on disk after ENABLE: the next open (after remount) fails" t_corrupt_sig
vt_test 50.20 "$S signature altered on disk: stat() shows the data size and leaves the signature to the open, which fails, again at the next open" t_stat_bad_sig
vt_test 50.21 "$S signer's certificate taken out of the keyring: opens fail ENOKEY until it is back, then the file opens, reads and measures" t_sig_key_back
vt_test 50.22 "$S detached PKCS#7 signatures: of the digest, ENABLE fails EKEYREJECTED; of an empty content, EBADMSG; file unchanged" t_detached
vt_test 50.23 "$S a signature check that runs modprobe (for a signer's MD5 digest, which the kernel lacks) holds no lock of the file: a modprobe that reads it finishes, ENABLE and the first open after remount succeed" t_modprobe_reads_file
vt_listing || { [ ! -e "$VT_REQSIG" ] || echo 0 > "$VT_REQSIG"; }
exit 0
