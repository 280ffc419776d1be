#!/bin/sh
#@ fs: once
# The .fs-verity keyring and the fs.verity.require_signatures sysctl, which
# belong to no filesystem: who owns and may change the keyring, which values
# the sysctl takes.  The last test restricts the keyring, which cannot be
# undone for the rest of the boot: it runs here, after every per-filesystem
# group (the runner does the "once" groups last, in name order, so only
# 99-kernel-log comes after it).
. "$VT_DIR/lib.sh"

# the keyring's /proc/keys fields: perm uid gid
kr_fields() {
	sig_keyring_line | awk '{ print $5, $6, $7 }'
}

t_keyring() {
	sig_need trusted
	set -- $(kr_fields)
	[ $# -eq 3 ] || fail "cannot parse the /proc/keys line: $(sig_keyring_line)"
	note "/proc/keys: $(sig_keyring_line)"
	expect "owner uid gid" "0 0" "$2 $3"
	perm=$((0x$1))
	# KEY_USR_VIEW | KEY_USR_READ | KEY_USR_WRITE | KEY_USR_SEARCH
	[ $((perm & 0x000f0000)) -eq $((0x000f0000)) ] ||
		fail "the owner (root) lacks view, read, write or search: perm $1"
	[ $((perm & 0x0000ffff)) -eq 0 ] ||
		fail "group or other have permissions on the keyring: perm $1"
	[ -s "$VT_KEYS/trusted.id" ] || fail "the trusted certificate was not added"
	kid=$(cat "$VT_KEYS/trusted.id")
	keyctl rlist "$(sig_keyring_id)" | tr ' ' '\n' | grep -qx "$kid" ||
		fail "the certificate root added (key $kid) is not in the keyring: $(keyctl rlist "$(sig_keyring_id)" 2>&1)"
	expect "type of the added key" asymmetric "$(keyctl rdescribe "$kid" | cut -d';' -f1)"
}

t_nonroot() {
	sig_need trusted other
	need_cmd runas
	kr=$(sig_keyring_id)
	before=$(keyctl rlist "$kr")
	out=$(runas 1000 1000 keyctl padd asymmetric '' "$kr" < "$VT_KEYS/other.der" 2>&1)
	rc=$?
	[ $rc -ne 0 ] || fail "uid 1000 added a certificate to .fs-verity (key $out)"
	case $out in
	*"Permission denied"*) ;;
	*) fail "keyctl padd by uid 1000: expected 'Permission denied' (EACCES), got: $out" ;;
	esac
	expect "keyring contents after the refused add" "$before" "$(keyctl rlist "$kr")"
}

t_sysctl() {
	sig_need trusted
	need_cmd vsig
	trap 'sig_require 0' EXIT
	expect "require_signatures at this point" 0 "$(cat "$VT_REQSIG")"
	for v in 1 0; do
		expect "write '$v'" OK "$(vsig write "$VT_REQSIG" "$v")"
		expect "value after writing '$v'" "$v" "$(cat "$VT_REQSIG")"
	done
	for v in 2 -1 abc 1x; do
		expect "write '$v'" EINVAL "$(vsig write "$VT_REQSIG" "$v")"
		expect "value after the refused '$v'" 0 "$(cat "$VT_REQSIG")"
	done
	echo 2 > "$VT_REQSIG" 2>/dev/null && fail "the shell's 'echo 2 >' succeeded"
	expect "value after echo 2" 0 "$(cat "$VT_REQSIG")"
	return 0
}

t_restrict() {
	sig_need trusted untrusted other
	kr=$(sig_keyring_id)
	out=$(keyctl padd asymmetric '' "$kr" < "$VT_KEYS/other.der" 2>&1) ||
		fail "root cannot add a certificate before the restriction: $out"
	out=$(keyctl restrict_keyring "$kr" 2>&1) ||
		fail "keyctl restrict_keyring $kr (root) failed: $out"
	before=$(keyctl rlist "$kr")
	for k in trusted untrusted; do
		out=$(keyctl padd asymmetric '' "$kr" < "$VT_KEYS/$k.der" 2>&1) &&
			fail "root added the $k certificate after keyctl restrict_keyring (key $out)"
		case $out in
		*"Operation not permitted"*) ;;
		*) fail "keyctl padd of $k after the restriction: expected 'Operation not permitted' (EPERM), got: $out" ;;
		esac
	done
	expect "keyring contents after the refused adds" "$before" "$(keyctl rlist "$kr")"
}

vt_test 98.01 "keyring: .fs-verity exists, owned by root (uid 0, gid 0), who may add to it; no group or other permissions" t_keyring
vt_test 98.02 "keyring: uid 1000 cannot add a certificate to .fs-verity (EACCES)" t_nonroot
vt_test 98.03 "sysctl: fs.verity.require_signatures takes 0 and 1; 2, -1, abc, 1x fail EINVAL and leave it unchanged" t_sysctl
# Irreversible for the boot: keep it last.
vt_test 98.04 "keyring: after keyctl restrict_keyring, root cannot add certificates (EPERM)" t_restrict
vt_listing || { [ ! -e "$VT_REQSIG" ] || echo 0 > "$VT_REQSIG"; }
exit 0
