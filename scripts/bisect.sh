#!/usr/bin/env bash
# 'make bisect': prove that every patch of the series builds, with no new
# warning, and that the whole series builds in its configuration variants.
#
# Step k (0..N) applies the first k patches to build/bisect/linux, a
# hard-linked copy of the pristine tree (build/linux and its kernel stay
# untouched), and builds it from the test kernel's config
# (configs/test.config and configs/faults.config) plus
# configs/bisect.config: every object, compiled and archived (make's target
# "."), and linked into vmlinux at step N and in each variant (a bzImage at
# step 0, whose kernel make coexist boots) — a link per patch would
# take most of a step's time for nothing a compile does not check.  Options that the tree at step k does not
# define yet are left out of its config (CONFIG_FS_VERITY before patch 2,
# CONFIG_EXT4_FS_VERITY before the ext4 patch, ...) and listed.  Step 0, the
# pristine tree, gives the baseline warnings; any other warning fails its
# step.  The variants then build the whole series with CONFIG_FS_VERITY=n,
# with CONFIG_FS_VERITY_BUILTIN_SIGNATURES=n (booted in QEMU: a signed file
# must fail to enable with a clear log message), and with the ext4 and f2fs
# verity options off.
#
# Every build is incremental and uses ccache.  The builds with
# CONFIG_FS_VERITY set share one build folder (build/bisect/obj), those
# without it another (build/bisect/obj-no-fs-verity): fs.h tests the option
# in struct inode and struct super_block, so each change of it recompiles
# most of the kernel, and the steps would otherwise change it three times
# (off at patch 1, on at patch 2, off and on again in the variants).
# Without the option, only fs/ and security/ use what it takes away: those
# builds (patch 1, the FS_VERITY=n variant) compile and archive fs/ and
# security/ alone, unless a .c file elsewhere in the tree names
# fs-verity's symbols (checked at each such build): then everything.  A
# build whose inputs (the patches applied, the config fragment, the pristine
# tree, the compiler) equal those of its last run is reported from that run
# instead of being redone, and says so.  The two folders take turns, so
# before each build the files of the series get back the mtime they had at
# that folder's last build where their content is the same again (patch 2
# restores the include/linux/fs.h patch 1 changed: without this, make would
# recompile most of the kernel for nothing), and a new mtime where it is not.
#
# One make bisect at a time: make check starts its builds ahead, at idle
# priority and without the boots (BISECT_BOOTS=0, scripts/prebuild.sh);
# its bisect part then waits for them, and reports each build from them.
#
# Output: one TAP line per build and a closing "N passed, M failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BISECT=$BUILD/bisect
tree=$BISECT/linux
# The build folders: with CONFIG_FS_VERITY set, and without it.  $obj is
# the one of the last build (the no-signature kernel boots from it).
obj_verity=$BISECT/obj
obj_no_verity=$BISECT/obj-no-fs-verity
obj=$obj_verity
results=$BISECT/results
# The kernels scripts/coexist.sh boots (its defaults)
pristine_kernel=$BISECT/pristine.bzImage
noglue_kernel=$BISECT/no-fs-glue.bzImage
mkdir -p "$results" "$LOGS"
[ -f "$BUILD/pristine.version" ] || die "no pristine tree: run 'make tree' first"
wait0=$(date +%s)
hold_lock "$BISECT.lock" "another make bisect (make check's builds ahead) is running"
[ "$lock_waited" = 0 ] ||
	echo "# waited $(($(date +%s) - wait0)) s for the builds of the make bisect that ran ahead (scripts/prebuild.sh)"
# BISECT_BOOTS=0: the builds alone, not the kernel without signatures'
# boot nor the cross-kernel boots
boots=${BISECT_BOOTS:-1}

mapfile -t patches < <(series_patches)
npatches=${#patches[@]}
compiler=$(gcc --version | head -n 1)

start_all=$(date +%s)

# The files the series touches: of the bisect tree, the only ones whose
# content changes from one build to the next.
mapfile -t series_files < <(for p in "${patches[@]}"; do patch_files "$ROOT/patches/$p"; done | sort -u)
# Of each build folder: the tree's series files at its last build
tree_state_file=.bisect-tree-state


# fragment TREE VARIANT > FILE: the config fragment of a build: test.config,
# faults.config and bisect.config (the test kernel's fragments, so that the
# objects outside what the series touches are the test kernel's, which
# ccache then has: with an empty ccache the pristine step compiles only
# those), with the options VARIANT turns off replaced by "is not
# set" lines, and without the options TREE does not define (each noted on
# stderr as "left out: CONFIG_...").
fragment() {
	local src=$1 variant=$2 off defined
	case $variant in
	series) off= ;;
	no-fs-verity) off="FS_VERITY FS_VERITY_BUILTIN_SIGNATURES EXT4_FS_VERITY F2FS_FS_VERITY" ;;
	no-signatures) off="FS_VERITY_BUILTIN_SIGNATURES" ;;
	no-fs-glue) off="EXT4_FS_VERITY F2FS_FS_VERITY" ;;
	*) die "unknown variant $variant" ;;
	esac
	defined=$BISECT/defined-symbols
	grep -rhoE '^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+' --include='Kconfig*' "$src" |
		awk '{ print $2 }' | sort -u >"$defined"
	{
		cat "$ROOT/configs/test.config" "$ROOT/configs/faults.config" "$ROOT/configs/bisect.config" |
			if [ -n "$off" ]; then grep -vE "^CONFIG_(${off// /|})="; else cat; fi
		for o in $off; do echo "# CONFIG_$o is not set"; done
	} | awk '
		NR == FNR { def[$0] = 1; next }
		/^CONFIG_[A-Za-z0-9_]+=/ || /^# CONFIG_[A-Za-z0-9_]+ is not set$/ {
			sym = $0
			sub(/^(# )?CONFIG_/, "", sym)
			sub(/[= ].*/, "", sym)
			if (!(sym in def)) { print "left out: CONFIG_" sym > "/dev/stderr"; next }
		}
		{ print }' "$defined" -
}

# The directories that a build without CONFIG_FS_VERITY compiles
NO_VERITY_DIRS="fs/ security/"
# no_verity_target TREE: what a build without CONFIG_FS_VERITY makes: the
# directories of NO_VERITY_DIRS, or every object (".") when a .c file
# outside them names fs-verity's symbols (said on stderr)
no_verity_target() {
	local users
	users=$(cd "$1" && grep -rlE '\bfsverity_|\bIS_VERITY\b|\bi_verity_info\b|\bs_vop\b' \
		--include='*.c' . | sed 's|^\./||' | grep -vE "^(${NO_VERITY_DIRS// /|}|tools/)" || true)
	if [ -n "$users" ]; then
		echo "fs-verity's symbols are named outside $NO_VERITY_DIRS ($(echo $users)): every object is built" >&2
		echo .
	else
		echo "$NO_VERITY_DIRS"
	fi
}

# warnings LOG: the warnings of a build log, without line and column numbers
warnings() {
	grep -E ': warning: ' "$1" | sed -E 's/:[0-9]+:[0-9]+: warning: /: warning: /' | sort -u || true
}

# build NAME UPTO VARIANT TARGET [COPY]: apply the first UPTO patches,
# configure, build TARGET; sets $built to OK or FAIL and writes
# $results/NAME.{out,new}.  With COPY (TARGET bzImage), the kernel is
# copied there right after the build (the next build reuses the folder);
# a cached build whose copy is missing is built again.
build() {
	local name=$1 upto=$2 variant=$3 target=$4 copy=${5:-} key log frag t0
	frag=$BISECT/$name.config
	log=$results/$name.out
	SERIES_UPTO=$upto LINUX_TREE=$tree "$ROOT/scripts/patch.sh" 2>"$log" ||
		{ built=FAIL; return; }
	fragment "$tree" "$variant" >"$frag" 2>>"$log"
	if grep -q '^CONFIG_FS_VERITY=y$' "$frag"; then
		obj=$obj_verity
	else
		obj=$obj_no_verity
		target=$(no_verity_target "$tree" 2>>"$log")
	fi
	key=$( {
		cat "$BUILD/pristine.version" "$frag"
		echo "$compiler $target"
		printf '%s\n' "${patches[@]:0:$upto}"
		(cd "$ROOT/patches" && cat /dev/null "${patches[@]:0:$upto}")
	} | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$results/$name.key" 2>/dev/null)" = "$key" ] &&
		{ [ -z "$copy" ] || [ -f "$copy" ] || [ "$(cat "$results/$name.status")" != OK ]; }; then
		built=$(cat "$results/$name.status")
		echo "(inputs unchanged since the build of $(date -r "$results/$name.key" '+%F %T'): not rebuilt)" >"$log.cached"
		cached=1
		return
	fi
	cached=0
	rm -f "$results/$name.key" "$results/$name.status" "$log.cached" ${copy:+"$copy"}
	mkdir -p "$obj"
	match_mtimes "$tree" "$obj/$tree_state_file" "${series_files[@]}"
	t0=$(date +%s)
	if LINUX_TREE=$tree KOBJ=$obj BASE_CONFIG=$frag EXTRA_CONFIG= FLAVOR=test \
		BUILD_TAG=bisect-$name KERNEL_TARGET=$target "$ROOT/scripts/kernel.sh" >>"$log" 2>&1; then
		built=OK
	else
		built=FAIL
	fi
	secs=$(($(date +%s) - t0))
	warnings "$LOGS/build-bisect-$name.log" >"$results/$name.warnings"
	if [ "$name" = step-00 ]; then
		cp "$results/$name.warnings" "$results/baseline.warnings"
	fi
	comm -23 "$results/$name.warnings" "$results/baseline.warnings" >"$results/$name.new"
	if [ -s "$results/$name.new" ]; then
		built=FAIL
		# Make the next run recompile the files that warned.
		sed -nE 's|^([^ :]+)\.c: warning: .*|\1.o|p' "$results/$name.new" |
			while read -r o; do rm -f "$obj/$o"; done
	fi
	[ "$built" != OK ] || [ -z "$copy" ] || cp "$obj/arch/x86/boot/bzImage" "$copy"
	echo "built in $secs s" >>"$log"
	echo "$built" >"$results/$name.status"
	echo "$key" >"$results/$name.key"
}

# detail NAME: what to print under a build's TAP line
detail() {
	local f=$BISECT/detail
	{
		sed -n 's/^left out: //p' "$results/$1.out" | sort -u | paste -sd' ' - |
			sed 's/^./not defined by the tree at this step, left out of its config: &/'
		if [ -s "$results/$1.new" ]; then
			echo "new warnings:"
			cat "$results/$1.new"
		fi
		if [ "$(cat "$results/$1.status" 2>/dev/null)" != OK ] && [ ! -s "$results/$1.new" ]; then
			grep -E 'error|does not apply|dropped' "$results/$1.out" | head -n 20 || true
		fi
		cat "$results/$1.out.cached" 2>/dev/null || grep -E '^built in' "$results/$1.out" || true
	} >"$f"
	echo "$f"
}

[ -f "$results/baseline.warnings" ] || rm -f "$results"/step-00.key

for ((k = 0; k <= npatches; k++)); do
	name=$(printf 'step-%02d' "$k")
	if [ "$k" -eq 0 ]; then
		# The pristine kernel, booted by the cross-kernel scenarios.
		build "$name" "$k" series bzImage "$pristine_kernel"
	elif [ "$k" -lt "$npatches" ]; then
		build "$name" "$k" series .
	else
		build "$name" "$k" series vmlinux
	fi
	if [ "$k" -eq 0 ]; then
		what="the pristine tree ($(cat "$BUILD/pristine.version")) builds (baseline: $(wc -l <"$results/baseline.warnings") warnings)"
	else
		what="patch $k/$npatches ${patches[k - 1]%.patch} builds with no new warning"
	fi
	tap_report "$built" "bisect: $what" "$(detail "$name")"
	if [ "$built" != OK ] && [ "$k" -gt 0 ]; then
		# Later steps would fail on the same error: stop at the first.
		echo "# the first patch that breaks the build or adds a warning is ${patches[k - 1]}; the later steps were not built"
		tap_closing
		exit 1
	fi
done

build var-no-fs-verity "$npatches" no-fs-verity vmlinux
tap_report "$built" "bisect: the whole series with CONFIG_FS_VERITY=n builds with no new warning" "$(detail var-no-fs-verity)"
build var-no-fs-glue "$npatches" no-fs-glue bzImage "$noglue_kernel"
tap_report "$built" "bisect: the whole series with CONFIG_EXT4_FS_VERITY=n and CONFIG_F2FS_FS_VERITY=n builds with no new warning" "$(detail var-no-fs-glue)"
build var-no-signatures "$npatches" no-signatures bzImage
tap_report "$built" "bisect: the whole series with CONFIG_FS_VERITY_BUILTIN_SIGNATURES=n builds with no new warning" "$(detail var-no-signatures)"

if [ "$boots" = 0 ]; then
	echo "# make bisect took $(($(date +%s) - start_all)) s (the builds only: BISECT_BOOTS=0)"
	tap_closing
	exit $((tap_fail > 0))
fi

# The kernel without builtin signatures, booted: the signature group of the
# suite runs its no-signature cases (vtest.sigs=off) on ext4 and f2fs.
if [ "$built" = OK ]; then
	bootlog=$results/boot-no-signatures.log
	if [ "$cached" = 1 ] && [ -f "$bootlog.ok" ]; then
		status=OK
		echo "(kernel unchanged since its boot of $(date -r "$bootlog.ok" '+%F %T'): not booted again)" >"$bootlog.note"
	else
		rm -f "$bootlog.ok" "$bootlog.note"
		status=FAIL
		if KOBJ=$obj BOOT_TAG=bisect-no-signatures VTEST_FILTER='*/50.9?' \
			VTEST_CMDLINE=vtest.sigs=off VTEST_TIMEOUT=${VTEST_TIMEOUT:-900} \
			"$ROOT/scripts/boot.sh" test >"$bootlog" 2>&1; then
			closing=$(closing_line "$bootlog")
			# A filter that matched nothing must not pass.
			case $closing in 0\ passed*) ;; *) status=OK; touch "$bootlog.ok" ;; esac
		fi
		tr -d '\r' <"$bootlog" | grep -E '^(not )?ok |^[0-9]+ passed|error' >"$bootlog.note" || true
	fi
	tap_report "$status" "bisect: the CONFIG_FS_VERITY_BUILTIN_SIGNATURES=n kernel boots; a signed file fails to enable with EBADMSG and a log message, on ext4 and f2fs" "$bootlog.note"
else
	tap_report FAIL "bisect: the CONFIG_FS_VERITY_BUILTIN_SIGNATURES=n kernel boots (not built)"
fi

# The cross-kernel scenarios (scripts/coexist.sh): the pristine kernel and
# the no-glue variant built above, with the series' test kernel
# (make kernel).  Their tests join this output; the run is reported again,
# not redone, while the kernels and the guest's side are unchanged.
coexist_log=$results/coexist.log
series_kernel=$OBJ/arch/x86/boot/bzImage
if [ -f "$pristine_kernel" ] && [ -f "$noglue_kernel" ] && [ -f "$series_kernel" ]; then
	ckey=$( {
		cat "$pristine_kernel" "$noglue_kernel" "$series_kernel" "$ROOT/initramfs/init" \
			"$ROOT/scripts/coexist.sh" "$ROOT/scripts/boot.sh" "$ROOT/scripts/check-log.sh"
		find "$ROOT/tests/vm" -maxdepth 2 \( -name coexist.sh -o -name lib.sh -o -name '*.[ch]' \) \
			-type f | LC_ALL=C sort | xargs cat
	} | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$coexist_log.key" 2>/dev/null)" = "$ckey" ]; then
		echo "# (kernels and tests unchanged since the cross-kernel boots of $(date -r "$coexist_log.key" '+%F %T'): their results, not booted again)"
	else
		rm -f "$coexist_log.key"
		"$ROOT/scripts/coexist.sh" >"$coexist_log" 2>&1 || true
		[ -z "$(closing_line "$coexist_log")" ] || echo "$ckey" >"$coexist_log.key"
	fi
	tap_merge "$coexist_log" ||
		tap_report FAIL "bisect: the cross-kernel boots (scripts/coexist.sh) ran to their closing line" "$coexist_log"
else
	tap_report FAIL "bisect: the cross-kernel boots ran (not run: a kernel is missing: $pristine_kernel, $noglue_kernel or $series_kernel)"
fi

echo "# make bisect took $(($(date +%s) - start_all)) s"
tap_closing
[ "$tap_fail" -eq 0 ]
