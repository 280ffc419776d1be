#!/usr/bin/env bash
# 'make distro-build': the directories the series touches (fs/verity/
# fs/ext4/ fs/f2fs/ fs/btrfs/ security/integrity/) built with Debian's own
# kernel config from the patched tree, the files among them that warn from
# the pristine tree too, then sparse (C=2) over the patched fs/verity/.
#
# The patched build must print no warning the pristine build does not (the
# comparison ignores line numbers, which the series shifts), and sparse must
# print none at all.  The baseline needs only the pristine objects whose
# sources the patched build warns about (one, machine_keyring.c, today); a
# warning in a header, or in a file the pristine tree lacks, builds the
# whole pristine baseline instead.  An incremental build prints only the
# warnings of what it recompiles, so the objects of those directories are
# removed before each build; ccache (when installed) replays the warnings
# of unchanged files.  Output: TAP lines and "N passed, M failed"; the logs
# are build/logs/distro-{pristine,linux,sparse}.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

config=${DISTRO_CONFIG:-/usr/src/linux-config-6.1/config.amd64_none_amd64.xz}
dirs=(fs/verity/ fs/ext4/ fs/f2fs/ fs/btrfs/ security/integrity/)
[ -f "$config" ] || die "$config is missing: install linux-config-6.1 (make deps)"
[ -f "$LINUX.applied" ] || die "the series is not applied in $LINUX: run 'make patch' first"
mkdir -p "$LOGS"
cc=gcc
if command -v ccache >/dev/null; then
	cc="ccache gcc"
	export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=true
fi


# warnings LOG PREFIX: the warning lines of a log, without line and column
# numbers and without the PREFIX of the source paths (the source tree as
# seen from the object directory), so the two trees' warnings compare
warnings() {
	grep -E ': warning: ' "$1" | sed -E -e 's/:[0-9]+:[0-9]+: warning: /: warning: /' \
		-e "s#^$2##" | sort -u || true
}

# distro_build SRC NAME [OBJECT...]: build the directories of SRC (or only
# the OBJECTs named) in build/obj-distro-NAME with Debian's config plus the
# per-filesystem options of the series (Debian enables fs-verity through
# CONFIG_FS_VERITY, which the series has ext4 and f2fs select); the warnings
# go to build/logs/distro-NAME.warnings; sets objs (objects compiled) and
# secs.  Fails, with the error lines in $detail, when the build fails.
distro_build() {
	local src=$1 name=$2 obj=$BUILD/obj-distro-$2 log=$LOGS/distro-$2.log opt d existing=()
	shift 2
	local targets=("$@")
	mkdir -p "$obj"
	{
		xzcat "$config"
		printf 'CONFIG_EXT4_FS_VERITY=y\nCONFIG_F2FS_FS_VERITY=y\n'
	} >"$obj/.config.new"
	make -C "$src" O="$obj" -s KCONFIG_CONFIG=.config.new olddefconfig >/dev/null 2>&1 ||
		die "olddefconfig failed in $obj"
	rm -f "$obj/.config.new.old"
	if cmp -s "$obj/.config.new" "$obj/.config"; then
		rm "$obj/.config.new"
	else
		mv "$obj/.config.new" "$obj/.config"
	fi
	# Only the options this tree defines (the pristine one has no
	# EXT4_FS_VERITY) must be set.
	for opt in FS_VERITY FS_VERITY_BUILTIN_SIGNATURES EXT4_FS_VERITY F2FS_FS_VERITY; do
		grep -rqsx "config $opt" "$src/fs/verity/Kconfig" "$src/fs/ext4/Kconfig" "$src/fs/f2fs/Kconfig" || continue
		grep -q "^CONFIG_$opt=y" "$obj/.config" || die "CONFIG_$opt is not set in the distro-config build ($obj/.config)"
	done
	for d in "${dirs[@]}"; do [ -d "$src/$d" ] && existing+=("$d"); done
	[ ${#targets[@]} -gt 0 ] || targets=("${existing[@]}")
	# The pristine tree never changes under a given version: its baseline
	# is kept until the version, the config or the compiler changes.
	local key="" t0
	if [ "$name" = pristine ]; then
		key=$(cat "$BUILD/pristine.version" "$obj/.config" <(gcc --version | head -n 1) <(echo "${targets[*]}") | sha256sum)
		if [ -f "$obj/baseline.key" ] && [ "$(cat "$obj/baseline.key")" = "$key" ] &&
			[ -f "$obj/baseline.warnings" ] && [ -f "$obj/baseline.objs" ]; then
			cp "$obj/baseline.warnings" "$LOGS/distro-$name.warnings"
			objs=$(cat "$obj/baseline.objs")
			secs="baseline of $(date -r "$obj/baseline.key" '+%F %T'), not rebuilt"
			return 0
		fi
		rm -f "$obj/baseline.key"
	fi
	# Remove the objects so every file is compiled again and its warnings
	# printed: ccache replays those of the files that did not change.
	for d in "${targets[@]}"; do
		if [ -d "$obj/$d" ]; then
			find "$obj/$d" -name '*.o' -delete
		else
			rm -f "$obj/$d"
		fi
	done
	t0=$(date +%s)
	if ! make -C "$src" O="$obj" -j"$JOBS" CC="$cc" "${targets[@]}" >"$log" 2>&1; then
		{
			echo "the build failed; log: ${log#"$ROOT"/}"
			grep -E 'error' "$log" | head -n 20
		} >"$detail"
		objs=0 secs="$(($(date +%s) - t0)) s"
		return 1
	fi
	warnings "$log" "$(realpath --relative-to="$obj" "$src")/" >"$LOGS/distro-$name.warnings"
	objs=$(grep -cE '^  CC( \[M\])? +(fs/(verity|ext4|f2fs|btrfs)|security/integrity)/' "$log" || true)
	secs="$(($(date +%s) - t0)) s"
	if [ -n "$key" ]; then
		cp "$LOGS/distro-$name.warnings" "$obj/baseline.warnings"
		echo "$objs" >"$obj/baseline.objs"
		echo "$key" >"$obj/baseline.key"
	fi
}

detail=$BUILD/distro-detail
# summary: the closing line; then exit with the verdict
summary() {
	tap_closing
	exit $((tap_fail > 0))
}

linux_what="distro-build: the patched tree builds ${dirs[*]} with Debian's config"
if ! distro_build "$LINUX" linux; then
	tap_report FAIL "$linux_what" "$detail"
	summary
fi
linux_objs=$objs linux_secs=$secs

# The baseline: the pristine objects of the files the patched build warns
# about, or everything when a warning is not in a source file of its own.
baseline=()
while IFS= read -r file; do
	[ -n "$file" ] || continue
	case $file in
	*.c) if [ -f "$PRISTINE/$file" ]; then baseline+=("${file%.c}.o"); continue; fi ;;
	esac
	baseline=()
	whole="$file"
	break
done < <(sed 's/: warning: .*//' "$LOGS/distro-linux.warnings" | sort -u)
# The baseline, when one is needed: the pristine build must succeed and
# compile something (it removed the objects first), or there is no
# baseline to compare with.
pristine_ok=1
if [ -n "${whole:-}" ] || [ ${#baseline[@]} -gt 0 ]; then
	if [ -n "${whole:-}" ]; then
		why="all of ${dirs[*]}: the patched build warns in $whole"
		distro_build "$PRISTINE" pristine || pristine_ok=0
	else
		why="the files the patched build warns about, ${baseline[*]}"
		distro_build "$PRISTINE" pristine "${baseline[@]}" || pristine_ok=0
	fi
	status=OK
	if [ "$pristine_ok" = 0 ]; then
		status=FAIL
	elif [ "$objs" -eq 0 ]; then
		status=FAIL pristine_ok=0
		echo "the build compiled no object: no baseline (log: ${LOGS#"$ROOT"/}/distro-pristine.log)" >"$detail"
	else
		cp "$LOGS/distro-pristine.warnings" "$detail"
	fi
	tap_report "$status" "distro-build: the pristine tree builds $why, with Debian's config ($objs objects, $secs; its $(wc -l <"$LOGS/distro-pristine.warnings") warning(s), the baseline)" "$detail"
else
	: >"$LOGS/distro-pristine.warnings"
	echo "# distro-build: no pristine baseline needed: the patched build prints no warning"
fi

comm -13 "$LOGS/distro-pristine.warnings" "$LOGS/distro-linux.warnings" | sed 's/^/new: /' >"$detail"
comm -23 "$LOGS/distro-pristine.warnings" "$LOGS/distro-linux.warnings" | sed 's/^/gone: /' >>"$detail"
if grep -q '^new: ' "$detail" || [ "$pristine_ok" = 0 ] || [ "$linux_objs" -eq 0 ]; then status=FAIL; else status=OK; fi
[ "$linux_objs" -gt 0 ] || echo "the patched build compiled no object (log: ${LOGS#"$ROOT"/}/distro-linux.log)" >>"$detail"
[ "$pristine_ok" = 1 ] || echo "no baseline to compare with: the pristine build failed (above)" >>"$detail"
what="$linux_what and no warning beyond the pristine tree's ($linux_objs objects compiled, $linux_secs; difference: $(grep -c '^new: ' "$detail" || true) new, $(grep -c '^gone: ' "$detail" || true) gone)"
tap_report "$status" "$what" "$detail"

# sparse, on the fs-verity code only: force its recompilation with C=2.
slog=$LOGS/distro-sparse.log
if command -v sparse >/dev/null; then
	make -C "$LINUX" O="$BUILD/obj-distro-linux" -j"$JOBS" CC="$cc" C=2 fs/verity/ >"$slog" 2>&1 ||
		die "sparse (C=2) over fs/verity/ failed; log: ${slog#"$ROOT"/}"
	grep -E ': (warning|error): ' "$slog" >"$detail" || true
	checked=$(grep -c '^  CHECK ' "$slog" || true)
	if [ -s "$detail" ] || [ "$checked" -eq 0 ]; then status=FAIL; else status=OK; fi
	tap_report "$status" "distro-build: sparse C=2 over fs/verity/ ($checked files checked): $(wc -l <"$detail") warnings" "$detail"
else
	tap_report SKIP "distro-build: sparse C=2 over fs/verity/ # SKIP sparse is not installed (make deps installs it)"
fi
summary
