#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the fsverity utility (no kernel needed), and of the
# test tools that run on the host too: vfuzz's self-test and make bench's
# report (section 5).
#
#   tests/host/run.sh                      build tools/ into build/tools, test it
#   FSVERITY=/path/to/fsverity tests/host/run.sh
#
# Optional environment: FSVERITY_STATIC, the static build (by default the
# one built into build/tools when FSVERITY is unset, else skipped);
# FSVERITY_ASAN, the ASan build (by default built into build/tools);
# KSRC_PATCHED, the patched kernel tree, and KSRC, the pristine one
# (default build/pristine), for the UAPI header checks.
#
# Prints one TAP-style line per test and ends with "N passed, M failed"
# (", K skipped").  Exits non-zero if any test failed.  Some tests mount
# small tmpfs instances and need root; without it they are skipped.
#
# Each test is a function that prints the reason and returns 1 on failure,
# or prints the reason and returns 77 to skip.  Test functions run in an
# 'if' context, where set -e is off, so they check every step explicitly.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
REF="$HERE/reference.py"
BUILD_DIR="$REPO/build/tools"

if [ -z "${FSVERITY:-}" ]; then
	mkdir -p "$BUILD_DIR"
	make -s -C "$REPO/tools" O="$BUILD_DIR" >/dev/null 2>"$BUILD_DIR/make.log" ||
		{ cat "$BUILD_DIR/make.log" >&2; exit 1; }
	FSVERITY="$BUILD_DIR/fsverity"
	FSVERITY_STATIC=${FSVERITY_STATIC:-$BUILD_DIR/fsverity.static}
fi
[ -x "$FSVERITY" ] || { echo "$0: $FSVERITY is not executable" >&2; exit 1; }
FSVERITY=$(realpath "$FSVERITY")

TMP=$(mktemp -d /tmp/fsverity-host-tests.XXXXXX)
MOUNTS=()
cleanup() {
	local m
	for m in "${MOUNTS[@]}"; do
		umount "$m" 2>/dev/null || true
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

NTESTS=0 NPASS=0 NFAIL=0 NSKIP=0

# run_test NAME COMMAND [ARGS...]
run_test() {
	local name=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	NTESTS=$((NTESTS + 1))
	if [ $rc -eq 0 ]; then
		NPASS=$((NPASS + 1))
		echo "ok $NTESTS - $name"
	elif [ $rc -eq 77 ]; then
		NSKIP=$((NSKIP + 1))
		echo "ok $NTESTS - $name # SKIP ${out:-no reason given}"
	else
		NFAIL=$((NFAIL + 1))
		echo "not ok $NTESTS - $name"
		printf '%s\n' "${out:-exit status $rc}" | sed 's/^/# /' | head -n 20
	fi
}

# Skip the current test (test functions run in a subshell).
skip() {
	echo "$*"
	exit 77
}

file_sha256() {
	sha256sum <"$1" | cut -d' ' -f1
}

# ---------------------------------------------------------------------------
# Test data

SALTS=("" "a5" "0123456789abcdef"
       "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324")
salt_name() {
	echo "$((${#1} / 2))-byte salt"
}

make_data() {
	local size
	mkdir -p "$TMP/data"
	for size in 1 4095 4096 4097 1048577; do
		head -c $size /dev/urandom >"$TMP/data/$size"
	done
	# Sparse 64 MiB with a few written bytes, including a block boundary.
	truncate -s 64M "$TMP/data/sparse64M"
	printf 'fs-verity' | dd of="$TMP/data/sparse64M" bs=1 seek=33554428 \
		conv=notrunc status=none
	head -c 5000 /dev/urandom | dd of="$TMP/data/sparse64M" bs=1 \
		seek=10000000 conv=notrunc status=none
	head -c $((5 * 1048576 + 123)) /dev/urandom >"$TMP/data/5M"
	: >"$TMP/data/empty"
}

# ---------------------------------------------------------------------------
# 1. Known answers from the independent reference implementation

# check_against_reference DATA OUTPUT MEASUREMENT_LINE ALG SALT [SIG]
check_against_reference() {
	local data=$1 output=$2 line=$3 alg=$4 salt=$5 sig=${6:-} size expected
	size=$(stat -c %s "$data")
	expected=$(python3 "$REF" build "$data" --hash="$alg" --salt="$salt" \
		   ${sig:+--signature="$sig"} --out "$TMP/expected") ||
		{ echo "reference.py failed"; return 1; }
	cmp -s -n "$size" "$data" "$output" ||
		{ echo "the data part of the output differs from INFILE"; return 1; }
	tail -c +$((size + 1)) "$output" | cmp - "$TMP/expected" >"$TMP/cmp" 2>&1 || {
		echo "metadata differs from the reference: $(head -n 1 "$TMP/cmp")"
		echo "sizes: got $(($(stat -c %s "$output") - size)), expected $(stat -c %s "$TMP/expected")"
		return 1
	}
	[ "$line" = "File measurement: $expected" ] ||
		{ echo "printed '$line', expected 'File measurement: $expected'"; return 1; }
}

t_known_answer() {
	local data=$1 alg=$2 salt=$3 line
	line=$("$FSVERITY" setup "$data" "$TMP/out" --hash="$alg" \
	       ${salt:+--salt=$salt}) || { echo "setup failed"; return 1; }
	check_against_reference "$data" "$TMP/out" "$line" "$alg" "$salt"
}

t_crc32c_check_value() {
	python3 "$REF" selftest
}

t_in_place_equals_outfile() {
	local data=$1 line1 line2
	cp "$data" "$TMP/inplace"
	line1=$("$FSVERITY" setup "$data" "$TMP/out" --salt=0123) || return 1
	line2=$("$FSVERITY" setup "$TMP/inplace" --salt=0123) || return 1
	[ "$line1" = "$line2" ] || { echo "measurements differ: $line1 / $line2"; return 1; }
	cmp "$TMP/out" "$TMP/inplace" || return 1
	cmp -s "$TMP/out" "$data" && { echo "OUTFILE mode changed INFILE"; return 1; }
	return 0
}

t_threads_identical() {
	local n ref_line line
	ref_line=$("$FSVERITY" setup "$TMP/data/5M" "$TMP/t1" --threads=1) || return 1
	for n in 2 3 8 default; do
		if [ $n = default ]; then
			line=$("$FSVERITY" setup "$TMP/data/5M" "$TMP/tn") || return 1
		else
			line=$("$FSVERITY" setup "$TMP/data/5M" "$TMP/tn" --threads=$n) || return 1
		fi
		[ "$line" = "$ref_line" ] || { echo "--threads=$n: $line"; return 1; }
		cmp "$TMP/t1" "$TMP/tn" || { echo "--threads=$n output differs"; return 1; }
	done
}

known_answer_tests() {
	local size alg salt
	run_test "crc32c reference: check value of '123456789' is 0xe3069283" \
		t_crc32c_check_value
	for size in 1 4095 4096 4097 1048577 sparse64M; do
		for alg in sha256 sha512 crc32c; do
			for salt in "${SALTS[@]}"; do
				run_test "known answer: size $size, $alg, $(salt_name "$salt")" \
					t_known_answer "$TMP/data/$size" "$alg" "$salt"
			done
		done
	done
	for size in 1 4097 1048577; do
		run_test "in place equals OUTFILE: size $size" \
			t_in_place_equals_outfile "$TMP/data/$size"
	done
	run_test "--threads=1, 2, 3, 8 and default give identical output" \
		t_threads_identical
}

# ---------------------------------------------------------------------------
# 1b. Signatures

make_keys() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/key.pem" \
		-out "$TMP/cert.pem" -subj /CN=fsverity-host-test -days 2 \
		2>/dev/null &&
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out "$TMP/other-key.pem" 2>/dev/null
}

# verify_signature SIG.der ALG MEASUREMENT_HEX: the PKCS#7 verifies with the
# certificate and carries fsverity_digest_disk, NOATTR, NOCERTS, digest ALG.
verify_signature() {
	local sig=$1 alg=$2 hex=$3
	openssl smime -verify -inform der -in "$sig" -noverify \
		-certfile "$TMP/cert.pem" -nointern -out "$TMP/content" \
		>"$TMP/verify.log" 2>&1 ||
		{ echo "openssl smime -verify failed:"; cat "$TMP/verify.log"; return 1; }
	python3 "$REF" digest-disk "$alg" "$hex" >"$TMP/expected-content"
	cmp "$TMP/content" "$TMP/expected-content" ||
		{ echo "signed content is not le16 alg || le16 size || measurement"; return 1; }
	openssl cms -cmsout -print -inform der -in "$sig" >"$TMP/cms.txt" ||
		{ echo "cannot print the PKCS#7 message"; return 1; }
	grep -q "algorithm: $alg " "$TMP/cms.txt" ||
		{ echo "digest algorithm is not $alg"; return 1; }
	grep -A1 "certificates:" "$TMP/cms.txt" | grep -q "<ABSENT>" ||
		{ echo "message carries certificates (NOCERTS)"; return 1; }
	grep -A1 "signedAttrs:" "$TMP/cms.txt" | grep -q "<ABSENT>" ||
		{ echo "message has signed attributes (NOATTR)"; return 1; }
	grep -q "eContent:" "$TMP/cms.txt" ||
		{ echo "content is detached"; return 1; }
}

t_sign_with_key() {
	local alg=$1 data="$TMP/data/4097" line
	line=$("$FSVERITY" setup "$data" "$TMP/signed" --hash="$alg" --salt=abcd \
	       --signing-key="$TMP/key.pem" --signing-cert="$TMP/cert.pem") ||
		{ echo "setup failed"; return 1; }
	python3 "$REF" extract-signature "$TMP/signed" >"$TMP/sig.der" ||
		{ echo "no parsable signature extension"; return 1; }
	verify_signature "$TMP/sig.der" "$alg" "${line##*:}" || return 1
	check_against_reference "$data" "$TMP/signed" "$line" "$alg" abcd "$TMP/sig.der"
}

t_sign_with_signature_file() {
	local alg=$1 data="$TMP/data/1048577" line hex
	line=$("$FSVERITY" setup "$data" "$TMP/unsigned" --hash="$alg") || return 1
	hex=${line##*:}
	python3 "$REF" digest-disk "$alg" "$hex" >"$TMP/digest.bin"
	openssl smime -sign -binary -noattr -nocerts -outform der -md "$alg" \
		-nodetach -in "$TMP/digest.bin" -signer "$TMP/cert.pem" \
		-inkey "$TMP/key.pem" -out "$TMP/cli.der" ||
		{ echo "openssl smime -sign failed"; return 1; }
	line=$("$FSVERITY" setup "$data" "$TMP/signed" --hash="$alg" \
	       --signature="$TMP/cli.der") || { echo "setup failed"; return 1; }
	python3 "$REF" extract-signature "$TMP/signed" >"$TMP/sig.der" || return 1
	cmp "$TMP/sig.der" "$TMP/cli.der" ||
		{ echo "extension payload is not the given signature"; return 1; }
	verify_signature "$TMP/sig.der" "$alg" "$hex" || return 1
	check_against_reference "$data" "$TMP/signed" "$line" "$alg" "" "$TMP/cli.der"
}

# A 4097-byte file has its descriptor at 12288; with sha256 and no salt the
# footer starts 120 + 8-aligned signature bytes after it.
t_footer_page() {
	local siglen=$1 want_tail=$2 line size
	head -c "$siglen" /dev/urandom >"$TMP/blob"
	line=$("$FSVERITY" setup "$TMP/data/4097" "$TMP/out" \
	       --signature="$TMP/blob") || return 1
	size=$(stat -c %s "$TMP/out")
	[ $((size % 4096)) -eq "$want_tail" ] ||
		{ echo "file ends at page offset $((size % 4096)), expected $want_tail"; return 1; }
	check_against_reference "$TMP/data/4097" "$TMP/out" "$line" sha256 "" "$TMP/blob"
}

signing_tests() {
	if ! make_keys; then
		run_test "signing tests" skip "openssl cannot make keys"
		return
	fi
	run_test "sign with key (sha256): verifies, content is the measurement" \
		t_sign_with_key sha256
	run_test "sign with key (sha512): verifies, content is the measurement" \
		t_sign_with_key sha512
	run_test "--signature (sha256) from openssl smime lands byte for byte" \
		t_sign_with_signature_file sha256
	run_test "--signature (sha512) from openssl smime lands byte for byte" \
		t_sign_with_signature_file sha512
	run_test "footer ending at byte 4092 of a page: no padding" \
		t_footer_page 3960 4092
	run_test "footer that would cross a page starts on the next page" \
		t_footer_page 3968 12
	run_test "static binary runs alone in an empty chroot, same output" \
		t_static_binary
}

# The static binary (for the busybox initramfs) needs no file at all: run it
# in an empty chroot and compare with the dynamic binary's output.
t_static_binary() {
	local root="$TMP/chroot"
	[ -n "${FSVERITY_STATIC:-}" ] || skip "FSVERITY_STATIC not set"
	file -L "$FSVERITY_STATIC" | grep -q 'statically linked' ||
		{ echo "not statically linked: $(file -L "$FSVERITY_STATIC")"; return 1; }
	! ldd "$FSVERITY_STATIC" >/dev/null 2>&1 ||
		{ echo "ldd lists libraries:"; ldd "$FSVERITY_STATIC"; return 1; }
	mkdir -p "$root"
	cp "$FSVERITY_STATIC" "$root/fsverity"
	cp "$TMP/data/1048577" "$TMP/key.pem" "$TMP/cert.pem" "$root/"
	chroot "$root" /fsverity setup /1048577 /out --hash=sha512 --salt=ab \
		--signing-key=/key.pem --signing-cert=/cert.pem >/dev/null 2>"$TMP/err" || {
		[ "$(id -u)" = 0 ] || skip "chroot needs root"
		echo "static binary failed in an empty chroot: $(cat "$TMP/err")"
		return 1
	}
	"$FSVERITY" setup "$TMP/data/1048577" "$TMP/dynamic.out" --hash=sha512 \
		--salt=ab --signing-key="$TMP/key.pem" --signing-cert="$TMP/cert.pem" \
		>/dev/null || return 1
	cmp "$root/out" "$TMP/dynamic.out"
}

# ---------------------------------------------------------------------------
# 2. Bad input: non-zero exit, one "fsverity: " line, INFILE unchanged

# t_fails INFILE|- [COMMAND ARGS...]: run fsverity with the arguments.
t_fails() {
	local infile=$1 before="" rc=0
	shift
	[ "$infile" = - ] || before=$(file_sha256 "$infile")
	"$FSVERITY" "$@" >"$TMP/stdout" 2>"$TMP/stderr" || rc=$?
	[ $rc -ne 0 ] || { echo "exit status 0"; return 1; }
	[ $rc -lt 128 ] || { echo "killed by a signal (status $rc)"; return 1; }
	[ ! -s "$TMP/stdout" ] || { echo "printed on stdout: $(cat "$TMP/stdout")"; return 1; }
	[ "$(wc -l <"$TMP/stderr")" -eq 1 ] ||
		{ echo "expected one line on stderr, got:"; cat "$TMP/stderr"; return 1; }
	grep -q '^fsverity: ' "$TMP/stderr" ||
		{ echo "message not prefixed 'fsverity: ': $(cat "$TMP/stderr")"; return 1; }
	if [ "$infile" != - ] && [ "$(file_sha256 "$infile")" != "$before" ]; then
		echo "INFILE changed"
		return 1
	fi
}

# t_fails_no_leftovers DIR ARGS...: also, DIR holds no new files afterwards.
t_fails_no_leftovers() {
	local dir=$1 before after
	shift
	before=$(ls -A "$dir")
	t_fails "$@" || return 1
	after=$(ls -A "$dir")
	[ "$before" = "$after" ] || { echo "files left in $dir: $after"; return 1; }
}

# mount_tmpfs DIR OPTIONS: a private tmpfs (root only).
mount_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o "$2" fsverity-test "$1" 2>/dev/null || return 1
	MOUNTS+=("$1")
}

# Fill the filesystem of DIR completely.
fill_fs() {
	dd if=/dev/zero of="$1/filler" bs=4096 status=none 2>/dev/null || true
}

t_full_tmpfs_outfile() {
	t_fails_no_leftovers "$TMP/full" "$TMP/data/1048577" \
		setup "$TMP/data/1048577" "$TMP/full/out"
}

t_full_tmpfs_in_place() {
	t_fails "$TMP/full2/in" setup "$TMP/full2/in" || return 1
	[ "$(stat -c %s "$TMP/full2/in")" -eq 100000 ] ||
		{ echo "INFILE size changed"; return 1; }
}

t_ro_outfile() {
	t_fails_no_leftovers "$TMP/ro" "$TMP/data/4097" \
		setup "$TMP/data/4097" "$TMP/ro/out"
}

t_ro_in_place() {
	t_fails "$TMP/ro/in" setup "$TMP/ro/in"
}

mount_tests() {
	local have_full=1 have_full2=1 have_ro=1
	mount_tmpfs "$TMP/full" size=64k && fill_fs "$TMP/full" || have_full=0
	if mount_tmpfs "$TMP/full2" size=256k; then
		head -c 100000 /dev/urandom >"$TMP/full2/in"
		fill_fs "$TMP/full2"
	else
		have_full2=0
	fi
	if mount_tmpfs "$TMP/ro" size=256k; then
		cp "$TMP/data/4097" "$TMP/ro/in"
		mount -o remount,ro "$TMP/ro" 2>/dev/null || have_ro=0
	else
		have_ro=0
	fi

	if [ $have_full = 1 ]; then
		run_test "bad input: OUTFILE on a full tmpfs (no temp file left)" \
			t_full_tmpfs_outfile
	else
		run_test "bad input: OUTFILE on a full tmpfs" skip "cannot mount tmpfs (not root?)"
	fi
	if [ $have_full2 = 1 ]; then
		run_test "bad input: in place on a full tmpfs (truncated back)" \
			t_full_tmpfs_in_place
	else
		run_test "bad input: in place on a full tmpfs" skip "cannot mount tmpfs (not root?)"
	fi
	if [ $have_ro = 1 ]; then
		run_test "bad input: OUTFILE on a read-only tmpfs" t_ro_outfile
		run_test "bad input: in place on a read-only tmpfs" t_ro_in_place
	else
		run_test "bad input: OUTFILE on a read-only tmpfs" skip "cannot mount a read-only tmpfs (not root?)"
		run_test "bad input: in place on a read-only tmpfs" skip "cannot mount a read-only tmpfs (not root?)"
	fi
}

bad_input_tests() {
	local in="$TMP/bad-in"
	cp "$TMP/data/4097" "$in"
	cp "$TMP/data/4097" "$TMP/set-up"
	"$FSVERITY" setup "$TMP/set-up" >/dev/null || true	# tested above
	head -c 70000 /dev/urandom >"$TMP/huge-sig"
	mkdir -p "$TMP/dir"

	run_test "bad input: empty file" t_fails "$TMP/data/empty" setup "$TMP/data/empty"
	run_test "bad input: unknown hash name" t_fails "$in" setup "$in" --hash=md5
	run_test "bad input: odd-length salt" t_fails "$in" setup "$in" --salt=abc
	run_test "bad input: non-hex salt" t_fails "$in" setup "$in" --salt=zz
	run_test "bad input: block size 1024" t_fails "$in" setup "$in" --blocksize=1024
	run_test "bad input: block size 65536" t_fails "$in" setup "$in" --blocksize=65536
	run_test "bad input: block size 'abc'" t_fails "$in" setup "$in" --blocksize=abc
	run_test "bad input: INFILE is a directory" t_fails - setup "$TMP/dir"
	run_test "bad input: INFILE is a directory, with OUTFILE" \
		t_fails - setup "$TMP/dir" "$TMP/out-dir"
	run_test "bad input: INFILE does not exist" t_fails - setup "$TMP/nonexistent"
	run_test "bad input: OUTFILE is /dev/full" t_fails "$in" setup "$in" /dev/full
	mount_tests
	run_test "bad input: key does not match the certificate" \
		t_fails "$in" setup "$in" --signing-key="$TMP/other-key.pem" \
		--signing-cert="$TMP/cert.pem"
	run_test "bad input: signing key file does not exist" \
		t_fails "$in" setup "$in" --signing-key="$TMP/nonexistent" \
		--signing-cert="$TMP/cert.pem"
	run_test "bad input: --signing-key without --signing-cert" \
		t_fails "$in" setup "$in" --signing-key="$TMP/key.pem"
	run_test "bad input: --signing-key together with --signature" \
		t_fails "$in" setup "$in" --signing-key="$TMP/key.pem" \
		--signing-cert="$TMP/cert.pem" --signature="$TMP/huge-sig"
	run_test "bad input: crc32c with --signing-key" \
		t_fails "$in" setup "$in" --hash=crc32c --signing-key="$TMP/key.pem" \
		--signing-cert="$TMP/cert.pem"
	run_test "bad input: crc32c with --signature" \
		t_fails "$in" setup "$in" --hash=crc32c --signature="$TMP/huge-sig"
	run_test "bad input: signature file does not exist" \
		t_fails "$in" setup "$in" --signature="$TMP/nonexistent"
	run_test "bad input: signature too large for the kernel (70000 bytes)" \
		t_fails "$in" setup "$in" --signature="$TMP/huge-sig"
	run_test "bad input: file already set up" t_fails "$TMP/set-up" setup "$TMP/set-up"
	run_test "bad input: --threads=0" t_fails "$in" setup "$in" --threads=0
	run_test "bad input: --threads=-1" t_fails "$in" setup "$in" --threads=-1
	run_test "bad input: --threads=two" t_fails "$in" setup "$in" --threads=two
	run_test "bad input: --threads=100000" t_fails "$in" setup "$in" --threads=100000
	run_test "bad input: missing INFILE" t_fails - setup
	run_test "bad input: --salt without its argument" t_fails "$in" setup "$in" --salt
	run_test "bad input: too many arguments" t_fails "$in" setup "$in" "$TMP/o1" "$TMP/o2"
	run_test "bad input: unknown option" t_fails "$in" setup "$in" --bogus
	run_test "bad input: unknown command" t_fails - frobnicate "$in"
	run_test "bad input: no command" t_fails -
	run_test "bad input: enable without FILE" t_fails - enable
	run_test "bad input: enable of a nonexistent file" t_fails - enable "$TMP/nonexistent"
	run_test "bad input: measure without FILE" t_fails - measure
	run_test "bad input: measure of a nonexistent file" t_fails - measure "$TMP/nonexistent"
}

# ---------------------------------------------------------------------------
# 3. The UAPI header is the one the kernel series ships

UAPI_HEADER="$REPO/tools/uapi/linux/fsverity.h"
UAPI_PATH=include/uapi/linux/fsverity.h

t_uapi_patched_tree() {
	[ -f "${KSRC_PATCHED:-/nonexistent}/$UAPI_PATH" ] ||
		skip "patched tree not present"
	cmp "$KSRC_PATCHED/$UAPI_PATH" "$UAPI_HEADER"
}

series_patches() {
	local p
	if [ -f "$REPO/patches/series" ]; then
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO/patches/series" |
		while read -r p _; do
			echo "$REPO/patches/$p"
		done
	else
		ls "$REPO"/patches/*.patch 2>/dev/null || true
	fi
}

touches_header() {
	grep -qs "^+++ b/$UAPI_PATH\$\|^--- a/$UAPI_PATH\$" "$1"
}

creates_header() {
	grep -s -A1 '^--- /dev/null$' "$1" | grep -q "^+++ b/$UAPI_PATH\$"
}

# Rebuild the header as the series leaves it: apply, in series order, the
# parts of the patches touching it to a copy of the pristine header.  With
# no pristine tree, start from the last patch that creates the header.
t_uapi_patches() {
	local work="$TMP/uapi-apply" pristine p
	local -a patches=()
	pristine=${KSRC:-$REPO/build/pristine}
	while read -r p; do
		touches_header "$p" || continue
		if [ ! -f "$pristine/$UAPI_PATH" ] && creates_header "$p"; then
			patches=()
		fi
		patches+=("$p")
	done < <(series_patches)
	[ ${#patches[@]} -gt 0 ] || skip "no patch in patches/ adds $UAPI_PATH yet"
	if ! creates_header "${patches[0]}"; then
		[ -f "$pristine/$UAPI_PATH" ] ||
			skip "$(basename "${patches[0]}") modifies the header and the pristine tree is not present"
	fi

	mkdir -p "$work/include/uapi/linux"
	[ ! -f "$pristine/$UAPI_PATH" ] || cp "$pristine/$UAPI_PATH" "$work/$UAPI_PATH"
	for p in "${patches[@]}"; do
		(cd "$work" && git apply --include="$UAPI_PATH" "$p") >"$TMP/apply.log" 2>&1 || {
			echo "$(basename "$p") does not apply to the header:"
			cat "$TMP/apply.log"
			return 1
		}
	done
	[ -f "$work/$UAPI_PATH" ] || { echo "the series deletes $UAPI_PATH"; return 1; }
	cmp "$work/$UAPI_PATH" "$UAPI_HEADER"
}

uapi_tests() {
	run_test "uapi header matches the series (KSRC_PATCHED)" t_uapi_patched_tree
	run_test "uapi header matches the one added by patches/*.patch" t_uapi_patches
}

# ---------------------------------------------------------------------------
# 4. Memory checks: a subset under valgrind and with the ASan/UBSan build

# memcheck_suite RUNNER...: known answers, signing and bad input, run with
# RUNNER (e.g. valgrind ... BINARY); status 99 means a memory error.
memcheck_suite() {
	local size alg line rc
	local -a run=("$@")
	for size in 4097 1048577; do
		for alg in sha256 sha512 crc32c; do
			line=$("${run[@]}" setup "$TMP/data/$size" "$TMP/mc-out" \
			       --hash=$alg --salt=0123456789abcdef --threads=2) ||
				{ echo "setup $size $alg failed"; return 1; }
			check_against_reference "$TMP/data/$size" "$TMP/mc-out" \
				"$line" $alg 0123456789abcdef || return 1
		done
	done
	cp "$TMP/data/4097" "$TMP/mc-in"
	"${run[@]}" setup "$TMP/mc-in" --signing-key="$TMP/key.pem" \
		--signing-cert="$TMP/cert.pem" >/dev/null ||
		{ echo "signing failed"; return 1; }
	"${run[@]}" setup "$TMP/data/4097" "$TMP/mc-out" \
		--signature="$TMP/cli.der" >/dev/null ||
		{ echo "--signature failed"; return 1; }
	for args in "setup $TMP/data/empty" \
		    "setup $TMP/data/4097 --signing-key=$TMP/other-key.pem --signing-cert=$TMP/cert.pem" \
		    "setup $TMP/data/4097 /dev/full" \
		    "setup $TMP/data/4097 --salt=xyz"; do
		rc=0
		# shellcheck disable=SC2086
		"${run[@]}" $args >/dev/null 2>&1 || rc=$?
		case $rc in
		0 | 99) echo "'$args': exit status $rc"; return 1 ;;
		esac
	done
}

t_valgrind() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	memcheck_suite valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,possible \
		--log-file="$TMP/valgrind.%p.log" "$FSVERITY" || {
		cat "$TMP"/valgrind.*.log 2>/dev/null | head -n 30
		return 1
	}
	if [ -n "$(cat "$TMP"/valgrind.*.log)" ]; then
		echo "valgrind reported:"
		cat "$TMP"/valgrind.*.log | head -n 30
		return 1
	fi
}

t_asan() {
	local asan=${FSVERITY_ASAN:-$BUILD_DIR/fsverity.asan}
	if [ -z "${FSVERITY_ASAN:-}" ]; then
		mkdir -p "$BUILD_DIR"
		make -s -C "$REPO/tools" O="$BUILD_DIR" asan >/dev/null 2>&1 ||
			skip "cannot build the ASan binary (make -C tools asan)"
	fi
	ASAN_OPTIONS=detect_leaks=1:exitcode=99:log_path="$TMP/asan" \
	UBSAN_OPTIONS=halt_on_error=1:exitcode=99:print_stacktrace=1:log_path="$TMP/asan" \
		memcheck_suite "$asan" || {
		cat "$TMP"/asan.* 2>/dev/null | head -n 30
		return 1
	}
	if ls "$TMP"/asan.* >/dev/null 2>&1; then
		echo "sanitizers reported:"
		cat "$TMP"/asan.* | head -n 30
		return 1
	fi
}

memcheck_tests() {
	if [ ! -f "$TMP/cli.der" ]; then
		run_test "valgrind: zero errors" skip "no key for signing tests"
		run_test "ASan/UBSan: zero errors" skip "no key for signing tests"
		return
	fi
	run_test "valgrind: zero errors and no leaks" t_valgrind
	run_test "ASan/UBSan: zero errors and no leaks" t_asan
}

# ---------------------------------------------------------------------------
# 5. The host-side checks of the test tools: vfuzz's self-test (the VM
# suite's fuzzer) and the report of make bench

VM_HELPERS_BUILD="$REPO/build/vm-helpers-host"

# vfuzz selftest: its hashes against test vectors, its model of the format
# on its base files and on mutated copies (no ioctl, so the host runs it).
t_vfuzz_selftest() {
	local vfuzz="$VM_HELPERS_BUILD/vfuzz"
	mkdir -p "$VM_HELPERS_BUILD"
	make -s -C "$REPO/tests/vm/helpers" O="$VM_HELPERS_BUILD" "$vfuzz" \
		>"$TMP/vfuzz-make.log" 2>&1 ||
		{ echo "building vfuzz failed:"; cat "$TMP/vfuzz-make.log"; return 1; }
	"$vfuzz" selftest >"$TMP/vfuzz-selftest.log" 2>&1 ||
		{ echo "vfuzz selftest failed:"; tail -n 5 "$TMP/vfuzz-selftest.log"; return 1; }
	grep -q '^selftest ok: ' "$TMP/vfuzz-selftest.log" ||
		{ echo "no 'selftest ok' line:"; tail -n 5 "$TMP/vfuzz-selftest.log"; return 1; }
}

# scripts/bench_report.py: its parsing, medians, ratios and verdicts on
# small synthetic raw logs (tests/host/test_bench_report.py).
t_bench_report() {
	python3 "$HERE/test_bench_report.py" >"$TMP/bench-report.log" 2>&1 ||
		{ cat "$TMP/bench-report.log"; return 1; }
}

# fake_apt_get FAILS: a fake apt-get in $TMP/apt-fake/bin whose update
# always fails (as during a mirror sync) and whose install fails its first
# FAILS calls; each call appends its subcommand to $TMP/apt-fake/calls.
fake_apt_get() {
	local dir="$TMP/apt-fake"
	rm -rf "$dir"
	mkdir -p "$dir/bin"
	cat >"$dir/bin/apt-get" <<-EOS
		#!/bin/sh
		for a; do case \$a in update|install) echo \$a >>"$dir/calls"; cmd=\$a ;; esac; done
		[ "\$cmd" = install ] && [ "\$(grep -c install "$dir/calls")" -gt $1 ]
	EOS
	chmod +x "$dir/bin/apt-get"
}

# apt_calls FUNCTION [ARG...]: run scripts/lib.sh's FUNCTION against the
# fake apt-get, with no wait between tries; prints the subcommands it ran,
# on one line, then "rc=" and its exit status.
apt_calls() {
	local rc=0
	(
		# shellcheck disable=SC2030 # the subshell's own settings
		PATH="$TMP/apt-fake/bin:$PATH" APT_RETRY_FIRST_WAIT=0
		. "$REPO/scripts/lib.sh"
		"$@" 2>/dev/null
	) || rc=$?
	echo "$(paste -sd' ' "$TMP/apt-fake/calls" 2>/dev/null) rc=$rc"
}

# A failing apt-get update is tried once, and the caller goes on with the
# lists apt has; a failing install refreshes the lists and is tried again,
# up to APT_INSTALL_TRIES times, then fails.
t_apt_retries() {
	local tries got want
	tries=$(. "$REPO/scripts/lib.sh" && echo "$APT_INSTALL_TRIES")
	fake_apt_get 0
	got=$(apt_calls apt_update)
	[ "$got" = "update rc=0" ] ||
		{ echo "failing update: '$got', want 'update rc=0' (one try, then go on)"; return 1; }
	fake_apt_get 2
	got=$(apt_calls apt_install p)
	want="install update install update install rc=0"
	[ "$got" = "$want" ] || { echo "install failing twice: '$got', want '$want'"; return 1; }
	fake_apt_get 1000
	got=$(apt_calls apt_install p)
	want="$(for ((i = 1; i < tries; i++)); do printf 'install update '; done)install rc=1"
	[ "$got" = "$want" ] || { echo "install always failing: '$got', want '$want'"; return 1; }
}

# scripts/lib.sh's match_mtimes, which make bisect runs before each build:
# a file whose content is again what the folder's record says gets back the
# recorded mtime, a file whose content differs gets a new one even if its
# mtime is old, and a file to touch that is a hard link is copied first,
# so that its other name (the pristine tree's) keeps its mtime.
t_match_mtimes() {
	local d="$TMP/mtimes" old=1000000000 f
	rm -rf "$d"
	mkdir -p "$d/tree" "$d/pristine"
	echo a >"$d/tree/same"
	echo b >"$d/tree/changed"
	echo c >"$d/tree/linked"
	touch -d "@$old" "$d/tree/same" "$d/tree/changed" "$d/tree/linked"
	(. "$REPO/scripts/lib.sh" && tree_state "$d/tree" same changed linked absent) >"$d/state"
	[ "$(wc -l <"$d/state")" -eq 3 ] || { echo "tree_state recorded:"; cat "$d/state"; return 1; }
	# The next step: 'same' written again with its content (a new mtime),
	# 'changed' with another content but an old mtime, 'linked' a hard
	# link to a pristine copy of other content.
	echo a >"$d/tree/same.new"
	mv "$d/tree/same.new" "$d/tree/same"
	echo B >"$d/tree/changed"
	touch -d "@$old" "$d/tree/changed"
	echo p >"$d/pristine/linked"
	touch -d "@$old" "$d/pristine/linked"
	ln -f "$d/pristine/linked" "$d/tree/linked"
	(. "$REPO/scripts/lib.sh" && match_mtimes "$d/tree" "$d/state" same changed linked absent) ||
		{ echo "match_mtimes failed"; return 1; }
	[ "$(stat -c %Y "$d/tree/same")" -eq "$old" ] ||
		{ echo "same content: mtime $(stat -c %Y "$d/tree/same"), want the recorded $old"; return 1; }
	for f in changed linked; do
		[ "$(stat -c %Y "$d/tree/$f")" -gt "$old" ] ||
			{ echo "$f, other content: mtime $(stat -c %Y "$d/tree/$f"), want a new one"; return 1; }
	done
	[ "$(stat -c %h "$d/tree/linked")" -eq 1 ] && [ "$(stat -c %Y "$d/pristine/linked")" -eq "$old" ] ||
		{ echo "the hard link was touched in place: the pristine copy's mtime is $(stat -c %Y "$d/pristine/linked")"; return 1; }
	[ "$(cat "$d/tree/linked")" = p ] || { echo "the copied link lost its content"; return 1; }
}

# scripts/lib.sh's capped, which stops a part of make check at CI's
# deadline: a command that ends in time keeps its status and output; one
# that runs past its seconds fails, says so, and none of its processes
# survives, not even one under timeout(1) in a process group of its own (as
# boot.sh runs QEMU).
CAPPED_SLEEP=300.0731	# seconds: the stopped command's sleep
t_capped() {
	local d="$TMP/capped" t0 rc=0 left
	rm -rf "$d"
	mkdir -p "$d"
	(. "$REPO/scripts/lib.sh" && capped quick 20 sh -c 'echo out; exit 3') >"$d/quick" 2>&1 || rc=$?
	[ "$rc" -eq 3 ] && [ "$(cat "$d/quick")" = out ] ||
		{ echo "a command that ends in time: status $rc, output '$(cat "$d/quick")', want 3 and 'out'"; return 1; }
	t0=$(date +%s)
	rc=0
	# a sleep of its own length, so that no other sleep on the machine
	# (a monitor's "sleep 300") is taken for a survivor
	(. "$REPO/scripts/lib.sh" && CHECK_KILL_GRACE=1 capped slow 2 \
		sh -c "timeout $CAPPED_SLEEP sleep $CAPPED_SLEEP & echo \$! > '$d/pid'; wait") >"$d/slow" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] || { echo "a command past its time: status 0, want a failure"; return 1; }
	[ $(($(date +%s) - t0)) -lt 60 ] || { echo "a command past its 2 s ran $(($(date +%s) - t0)) s"; return 1; }
	grep -q "part slow stopped after 2 s" "$d/slow" ||
		{ echo "no line names the stopped part: $(cat "$d/slow")"; return 1; }
	left=$(cat "$d/pid")
	sleep 1
	! kill -0 "$left" 2>/dev/null || { echo "the command's timeout(1) (pid $left) survived"; return 1; }
	! pgrep -fx "sleep $CAPPED_SLEEP" >/dev/null ||
		{ echo "its sleep survived: $(pgrep -afx "sleep $CAPPED_SLEEP")"; return 1; }
}

# scripts/lib.sh's failed_tests, which make check runs at its end for each
# failed part: every "not ok" line with the comment lines right after it
# (at most FAILED_TEST_LINES), nothing of the passing tests, the guests'
# prefixed copies left out, and a count of those past FAILED_TESTS_SHOWN.
t_failed_tests() {
	local d="$TMP/failed-tests" max lines got want i
	rm -rf "$d"
	mkdir -p "$d"
	read -r max lines < <(. "$REPO/scripts/lib.sh" && echo "$FAILED_TESTS_SHOWN $FAILED_TEST_LINES")
	{
		echo "ok 1 - passes"
		echo "# a passing test's note"
		echo "ext4| not ok 2 - the guest's copy"
		echo "not ok 2 - fails"
		for ((i = 1; i <= lines + 1; i++)); do echo "# why $i"; done
		echo "ok 3 - passes"
		echo "# not shown"
		for ((i = 4; i < max + 5; i++)); do echo "not ok $i - fails too"; done
	} >"$d/log"
	got=$(. "$REPO/scripts/lib.sh" && failed_tests part "$d/log")
	want=$({
		echo "# part: not ok 2 - fails"
		for ((i = 1; i <= lines; i++)); do echo "# part:   # why $i"; done
		for ((i = 4; i < max + 3; i++)); do echo "# part: not ok $i - fails too"; done
		echo "# part: 2 more failed test(s) in its log"
	})
	[ "$got" = "$want" ] || { echo "got:"; echo "$got"; echo "want:"; echo "$want"; return 1; }
}

test_tools_tests() {
	run_test "vfuzz selftest: hashes, the model of the format, mutated copies" \
		t_vfuzz_selftest
	run_test "bench report: parsing, medians, ratios and goals (unittest)" \
		t_bench_report
	run_test "CI: a failing apt-get update costs one try and no wait; a failing install refreshes the lists and is tried again" \
		t_apt_retries
	run_test "make bisect: a file whose content is again what a build folder last built gets back its mtime; another gets a new one" \
		t_match_mtimes
	run_test "make check: a part past CI's deadline is stopped with every process it started, and named; one in time keeps its status" \
		t_capped
	run_test "make check: its end lists each failed part's failed tests with the lines they printed" \
		t_failed_tests
}

# ---------------------------------------------------------------------------

make_data
known_answer_tests
signing_tests
bad_input_tests
uapi_tests
memcheck_tests
test_tools_tests

summary="$NPASS passed, $NFAIL failed"
[ $NSKIP -eq 0 ] || summary+=", $NSKIP skipped"
echo "$summary"
[ $NFAIL -eq 0 ]
