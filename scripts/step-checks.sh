#!/usr/bin/env bash
# 'make step-checks': what must hold after every patch of the series, read
# from the patched files (no build), one TAP line per patch and check:
#
# Kconfig references.  No patch may leave the tree referring to a Kconfig
# symbol that no Kconfig file defines at that step: neither a forward
# reference (a patch using an option a later patch adds) nor a dangling one
# (a patch removing an option that C code, a Makefile, a Kconfig
# dependency, a defconfig or the documentation still names).  This is the
# rule of the kernel's scripts/checkkconfigsymbols.py --diff, which needs a
# git history of the tree; this check follows the patches instead.
#
# Advertised features.  ext4 must not advertise verity support
# (EXT4_FEATURE_RO_COMPAT_VERITY in its RO_COMPAT_SUPP mask, which also
# makes /sys/fs/ext4/features/verity appear) at a step whose read path does
# not verify verity files (STEP_VERITY in fs/ext4/readpage.c): a kernel
# built there would mount a verity filesystem read-write and enable files
# it cannot read back.
#
# Only the files the series touches change from step to step, so the rest
# of the pristine tree is indexed once (cached in build/step-checks per
# pristine version): its CONFIG_ references and its Kconfig definitions.
# The touched files are copied from the pristine tree and the patches are
# applied to that copy one by one.  At step k, a symbol is undefined when it
# is referenced and not defined; patch k fails when it adds an undefined
# symbol that step k-1 did not have.  Closing line: "N passed, M failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$BUILD/pristine.version" ] || die "no pristine tree: run 'make tree' first"
work=$BUILD/step-checks
copy=$work/tree
mkdir -p "$work"
mapfile -t patches < <(series_patches)
mapfile -t touched < <(cd "$ROOT/patches" && patch_files "${patches[@]}" | sort -u)

# refs DIR FILE...: "SYMBOL FILE" for each Kconfig symbol FILE refers to:
# CONFIG_ names anywhere but in Kconfig files (without the _MODULE suffix
# that kconfig adds for =m), and the symbols of the dependency, select,
# imply and condition lines of Kconfig files.
refs() {
	local dir=$1
	shift
	(cd "$dir" && awk '
		FNR == 1 { kconfig = (FILENAME ~ /(^|\/)Kconfig[^\/]*$/) }
		kconfig {
			line = $0
			if (line !~ /^[[:space:]]*(depends[[:space:]]+on|select|imply|visible[[:space:]]+if|if|default|range)[[:space:]]/)
				next
			gsub(/"[^"]*"/, "", line)
			sub(/^[[:space:]]*(depends[[:space:]]+on|select|imply|visible[[:space:]]+if|if|default|range)[[:space:]]+/, "", line)
			while (match(line, /[A-Za-z0-9_]+/)) {
				sym = substr(line, RSTART, RLENGTH)
				line = substr(line, RSTART + RLENGTH)
				if (sym ~ /[A-Z]/ && sym !~ /[a-z]/ && sym !~ /^[0-9]/)
					print sym, FILENAME
			}
			next
		}
		{
			line = $0
			while (match(line, /CONFIG_[A-Za-z0-9_]+/)) {
				sym = substr(line, RSTART + 7, RLENGTH - 7)
				line = substr(line, RSTART + RLENGTH)
				sub(/_MODULE$/, "", sym)
				if (sym ~ /[A-Z]/ && sym !~ /[a-z]/)
					print sym, FILENAME
			}
		}' "$@" /dev/null | sort -u)
}

# defs DIR FILE...: "SYMBOL FILE" for each symbol a Kconfig file among FILE
# defines
defs() {
	local dir=$1
	shift
	(cd "$dir" && awk '
		FNR == 1 { kconfig = (FILENAME ~ /(^|\/)Kconfig[^\/]*$/) }
		kconfig && /^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+/ { print $2, FILENAME }' "$@" /dev/null | sort -u)
}

# The index of the pristine tree, made once per version: "SYMBOL FILE"
# lines of its references and of its Kconfig definitions.  The files the
# series touches are left out when it is used, as they change.
index=$work/index-$(cat "$BUILD/pristine.version")
if [ ! -s "$index.refs" ] || [ ! -s "$index.defs" ]; then
	info "indexing the Kconfig symbols of the pristine tree (once per version)"
	(cd "$PRISTINE" && find . -path ./.git -prune -o -type f -print | sed 's|^\./||' |
		grep -vE '\.(o|a|ko|png|jpg|svg|gz|xz|bin)$' >"$work/all")
	(cd "$PRISTINE" && xargs -d '\n' grep -lI 'CONFIG_' -- <"$work/all" 2>/dev/null || true) >"$work/candidates"
	grep -E '(^|/)Kconfig[^/]*$' "$work/all" >"$work/kconfigs" || true
	sort -u "$work/candidates" "$work/kconfigs" -o "$work/candidates"
	mapfile -t candidates <"$work/candidates"
	refs "$PRISTINE" "${candidates[@]}" >"$index.refs.tmp"
	mapfile -t kconfigs <"$work/kconfigs"
	defs "$PRISTINE" "${kconfigs[@]}" >"$index.defs.tmp"
	mv "$index.defs.tmp" "$index.defs"
	mv "$index.refs.tmp" "$index.refs"
fi
printf '%s\n' "${touched[@]}" >"$work/touched"
# untouched INDEX: the lines of INDEX about files the series does not touch
untouched() {
	awk 'NR == FNR { t[$0] = 1; next } !($2 in t)' "$work/touched" "$1"
}
untouched "$index.refs" >"$work/base.refs"
untouched "$index.defs" | cut -d' ' -f1 | sort -u >"$work/base.defs"

# The touched files, pristine, then patched step by step.
rm -rf "$copy"
mkdir -p "$copy"
for f in "${touched[@]}"; do
	[ ! -f "$PRISTINE/$f" ] || (cd "$PRISTINE" && cp --parents -- "$f" "$copy")
done

# undefined K: "SYMBOL FILE" lines of the symbols referenced and not
# defined at the current state of $copy (step K)
undefined() {
	local present=()
	for f in "${touched[@]}"; do [ -f "$copy/$f" ] && present+=("$f"); done
	{ defs "$copy" "${present[@]}" | cut -d' ' -f1; cat "$work/base.defs"; } | sort -u >"$work/defs-$1"
	{ refs "$copy" "${present[@]}"; cat "$work/base.refs"; } | sort -u |
		awk 'NR == FNR { def[$1] = 1; next } !($1 in def)' "$work/defs-$1" - >"$work/undef-$1"
}

# ext4_advertises_early: whether the step in $copy advertises ext4's verity
# feature without the read path that verifies verity files
ext4_advertises_early() {
	grep -qE '^#define[[:space:]]+EXT4_FEATURE_RO_COMPAT_VERITY_SUPP[[:space:]]+EXT4_FEATURE_RO_COMPAT_VERITY' \
		"$copy/fs/ext4/ext4.h" 2>/dev/null &&
		! grep -q 'STEP_VERITY' "$copy/fs/ext4/readpage.c" 2>/dev/null
}

undefined 0
for ((k = 1; k <= ${#patches[@]}; k++)); do
	p=${patches[k - 1]}
	detail=$work/detail-$k
	if ! patch -s -p1 -d "$copy" --no-backup-if-mismatch <"$ROOT/patches/$p" >"$detail" 2>&1; then
		tap_report FAIL "step-checks: patch $k/${#patches[@]} ${p%.patch} applies to the touched files" "$detail"
		break
	fi
	undefined "$k"
	# The symbols undefined at step k and not at step k-1, with their files.
	cut -d' ' -f1 "$work/undef-$((k - 1))" | sort -u >"$work/was"
	awk 'NR == FNR { was[$1] = 1; next } !($1 in was)' "$work/was" "$work/undef-$k" |
		awk '{ files[$1] = files[$1] (files[$1] == "" ? "" : ", ") $2 }
			END { for (s in files) print "CONFIG_" s " is referenced but defined by no Kconfig file at this step: " files[s] }' |
		sort >"$detail"
	if [ -s "$detail" ]; then status=FAIL; else status=OK; fi
	tap_report "$status" "step-checks: patch $k/${#patches[@]} ${p%.patch} refers to no Kconfig symbol left undefined at its step" "$detail"
	if ext4_advertises_early; then
		echo "EXT4_FEATURE_RO_COMPAT_VERITY_SUPP is EXT4_FEATURE_RO_COMPAT_VERITY in fs/ext4/ext4.h, but fs/ext4/readpage.c has no STEP_VERITY" >"$detail"
		status=FAIL
	else
		status=OK
	fi
	tap_report "$status" "step-checks: patch $k/${#patches[@]} ${p%.patch}: ext4 advertises verity only with a read path that verifies" "$detail"
done
tap_closing
[ "$tap_fail" -eq 0 ]
