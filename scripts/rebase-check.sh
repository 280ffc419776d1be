#!/usr/bin/env bash
# 'make rebase-check': how the series fares on every version of
# linux-source-6.1 the package archive offers (apt-cache madison), so that a
# Debian update that breaks it shows before 'make tree' has to use it.
#
# For each version: the package (the installed tarball for the installed
# version; otherwise 'apt-get download' into build/rebase-check/debs/, kept,
# not installed), of which only the files the series touches are extracted
# (build/rebase-check/trees/VERSION/, kept while the series touches the
# same files); then each patch of patches/series in turn with patch(1) (its
# default fuzz), on a copy.  One line per version and patch: "clean",
# "offsets" (hunks moved; 'make patch' accepts them with a warning), "fuzz"
# (context lines ignored; 'make patch' refuses) or "FAILS" (hunks
# rejected; the later patches apply to the tree without them).  At the end
# a table, also in build/rebase-check/table.md.
#
# Exits non-zero when a patch fails or needs fuzz on the newest version:
# the one 'make tree' falls back to when the archive drops BASE_VERSION.
# Not part of make check.  Needs apt's package lists (apt-get update).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/rebase-check
debs=$out/debs
trees=$out/trees
work=$out/work
table=$out/table.md
mkdir -p "$debs" "$trees"
command -v apt-get >/dev/null || die "apt-get is missing: this needs a Debian system"

mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || die "patches/series lists no patch"
mapfile -t versions < <(archive_versions)
[ ${#versions[@]} -gt 0 ] ||
	die "apt knows no version of $SRC_PKG: run 'apt-get update' (as root)"
base=$(base_version)
installed=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null || true)

# The paths the series touches; those a version lacks (new files) are
# simply not found in its tarball.
files=$work.files
(cd "$ROOT/patches" && patch_files "${patches[@]}") | sort -u >"$files"

# tarball_of VERSION: the path of the kernel tarball of VERSION (downloads
# the package when it is not the installed version), or fails
tarball_of() {
	local v=$1 deb
	if [ "$v" = "$installed" ] && [ -f "$SRC_TARBALL" ]; then
		echo "$SRC_TARBALL"
		return
	fi
	deb=$debs/${SRC_PKG}_${v//:/%3a}_all.deb
	if [ ! -f "$deb" ]; then
		info "$v: apt-get download $SRC_PKG=$v"
		# (as root, apt warns that it downloads unsandboxed: not shown)
		(cd "$debs" && apt-get download -q "$SRC_PKG=$v" >"$out/apt.log" 2>&1) ||
			{ cat "$out/apt.log" >&2; return 1; }
		[ -f "$deb" ] || return 1
	fi
	echo "$deb"
}

# extract VERSION DIR: the files of $files from VERSION's tree into DIR
extract() {
	local v=$1 dir=$2 src member top err=$out/tar.err rc=0
	src=$(tarball_of "$v") || { echo "could not get $SRC_PKG=$v (apt-get download)"; return 1; }
	# The tarball, from the .deb when it is one.
	if [[ $src == *.deb ]]; then
		member=./usr/src/$(basename "$SRC_TARBALL")
		cat_tarball() { dpkg-deb --fsys-tarfile "$src" | tar -xOf - "$member"; }
	else
		cat_tarball() { cat "$src"; }
	fi
	# Its top directory (linux-source-6.1/), from the first entry; head
	# ends the pipeline early.
	top=$( (cat_tarball | xz -dc | tar -tf - | head -n 1) 2>/dev/null || true)
	top=${top%%/*}
	[ -n "$top" ] || { echo "no kernel tree in the $SRC_PKG=$v tarball"; return 1; }
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	sed "s|^|$top/|" "$files" >"$dir.tmp.list"
	cat_tarball | tar -xJf - -C "$dir.tmp" --strip-components=1 -T "$dir.tmp.list" 2>"$err" || rc=$?
	# tar reports the new files of the series as not found (status 2);
	# any other complaint is a real failure.
	if [ "$rc" -ne 0 ] && grep -v -e 'Not found in archive' -e 'Exiting with failure status' "$err" | grep -q .; then
		cat "$err"
		return 1
	fi
	rm -f "$dir.tmp.list" "$err"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	cp "$files" "$dir.files"
}

# rejected LOG: from patch(1)'s output, "N hunk(s) rejected in FILE, ..."
# (FAILED, or ignored: the file to create exists, the one to change is
# missing, or the change looks applied already)
rejected() {
	awk '/^patching file / { f = substr($0, 15) }
	     /^The next patch would (create|delete) the file / { f = $8; sub(/,$/, "", f) }
	     /^can.t find file to patch/ { f = "a missing file" }
	     / out of [0-9]+ hunks? (FAILED|ignored)/ {
		n += $1
		if (!(f in seen)) { seen[f] = 1; files = files (files == "" ? "" : ", ") f }
	     }
	     END { printf "%d hunk(s) rejected in %s\n", n, (files == "" ? "?" : files) }' "$1"
}

# apply_one PATCH: apply PATCH in $work; prints the verdict word and a
# detail ("3 of 7 hunks moved (up to 12 lines)", "2 hunk(s) rejected in F")
apply_one() {
	local log=$out/patch.log rc=0 hunks
	patch -d "$work" -p1 --forward --batch --no-backup-if-mismatch --reject-file=- \
		<"$ROOT/patches/$1" >"$log" 2>&1 || rc=$?
	hunks=$(grep -c '^@@ ' "$ROOT/patches/$1" || true)
	if [ "$rc" -ne 0 ] || grep -qE ' out of [0-9]+ hunks? (FAILED|ignored)|malformed' "$log"; then
		echo "FAILS $(rejected "$log") (of $hunks)"
	elif grep -q 'with fuzz' "$log"; then
		echo "fuzz $(grep -c 'with fuzz' "$log") of $hunks hunks need fuzz (up to $(grep -oE 'with fuzz [0-9]+' "$log" | awk '{ print $3 }' | sort -n | tail -n 1))"
	elif grep -q 'offset' "$log"; then
		echo "offsets $(grep -c 'offset' "$log") of $hunks hunks moved (up to $(grep -oE 'offset -?[0-9]+' "$log" | awk '{ print ($2 < 0 ? -$2 : $2) }' | sort -n | tail -n 1) lines)"
	else
		echo "clean $hunks hunks"
	fi
}

declare -A verdict
for v in "${versions[@]}"; do
	tag=$v
	[ "$v" != "$base" ] || tag+=" (BASE_VERSION)"
	echo "$tag:"
	tree=$trees/$v
	if [ ! -d "$tree" ] || ! cmp -s "$files" "$tree.files"; then
		info "$v: extracting the $(wc -l <"$files") paths the series touches"
		if ! why=$(extract "$v" "$tree"); then
			echo "  cannot check: $why"
			for p in "${patches[@]}"; do verdict[$v/$p]="n/a"; done
			continue
		fi
	fi
	rm -rf "$work"
	cp -a "$tree" "$work"
	for p in "${patches[@]}"; do
		read -r word detail < <(apply_one "$p")
		verdict[$v/$p]=$word
		printf '  %s: %s (%s)\n' "$p" "$word" "$detail"
	done
done
rm -rf "$work" "$out/patch.log"

# The table: a row per version, a column per patch (its number).
{
	echo "| $SRC_PKG |$(for p in "${patches[@]}"; do printf ' %s |' "${p%%-*}"; done)"
	echo "|---|$(for _ in "${patches[@]}"; do printf -- '---|'; done)"
	for v in "${versions[@]}"; do
		row="| $v"
		[ "$v" != "$base" ] || row+=" (base)"
		for p in "${patches[@]}"; do row+=" | ${verdict[$v/$p]}"; done
		echo "$row |"
	done
	echo
	echo "clean: applies as is; offsets: hunks moved (make patch accepts, with a warning);"
	echo "fuzz: context ignored (make patch refuses); FAILS: hunks rejected (the later patches"
	echo "are applied to the tree without them).  Made by 'make rebase-check' on $(date -u '+%F')."
} >"$table"
echo
cat "$table"

newest=${versions[-1]}
bad=()
for p in "${patches[@]}"; do
	case ${verdict[$newest/$p]} in clean|offsets) ;; *) bad+=("${p%%-*}") ;; esac
done
if [ ${#bad[@]} -gt 0 ]; then
	echo "rebase-check: the series does not apply to $newest, the newest version the archive offers (patches ${bad[*]}): refresh it ('make devtree export' on that version)"
	exit 1
fi
echo "rebase-check: the series applies to $newest, the newest version the archive offers (table: ${table#"$ROOT"/})"
