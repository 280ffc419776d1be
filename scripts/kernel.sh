#!/usr/bin/env bash
# Configure and build the test kernel (bzImage) from the patched tree.
#
# The configuration is tinyconfig plus the committed fragments in configs/
# (test.config, faults.config but for FLAVOR=i386, and debug.config for
# FLAVOR=debug; for FLAVOR=i386 also
# i386.config, and ARCH=i386; coverage.config for FLAVOR=coverage).  After
# olddefconfig every option a fragment asks for is checked (the last
# fragment that names an option decides its value), because olddefconfig
# silently drops options whose dependencies are not met.  The .config is only replaced when
# its content changes, so incremental builds stay incremental.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$LINUX.applied" ] || die "the series is not applied in $LINUX: run 'make patch' first"

# BASE_CONFIG replaces configs/test.config, KERNEL_TARGET the bzImage target
# (make's targets, separated by spaces) and BUILD_TAG the name of the logs
# ('make bisect' sets all three).
fragments=("${BASE_CONFIG:-$ROOT/configs/test.config}")
# faults.config (fault injection, power cuts, soft lockups) serves groups
# that the i386 kernel does not run; make bisect's builds name it in their
# BASE_CONFIG.
[ -n "${BASE_CONFIG:-}" ] || [ "$FLAVOR" = i386 ] || fragments+=("$ROOT/configs/faults.config")
[ "$FLAVOR" = debug ] && fragments+=("$ROOT/configs/debug.config")
[ "$FLAVOR" = i386 ] && fragments+=("$ROOT/configs/i386.config")
[ "$FLAVOR" = coverage ] && fragments+=("$ROOT/configs/coverage.config")
fragments+=(${EXTRA_CONFIG:+"$EXTRA_CONFIG"})

mkdir -p "$OBJ" "$LOGS"
# One build of a folder at a time: make check builds the kernels of its
# later parts ahead, at idle priority (scripts/prebuild.sh), and a part
# that wants its kernel meanwhile waits here for that build to end.
hold_lock "$OBJ.lock" "another build of this folder is running"
kmake() {
	make -C "$LINUX" O="$OBJ" ARCH="$KARCH" "$@"
}

# tinyconfig is made in a folder of its own: its last step merges the
# tiny fragments into ./.config, whatever KCONFIG_CONFIG says, so made in
# $OBJ it would start from the previous build's configuration and keep
# every option an earlier fragment turned on.  It takes 11 s and depends
# only on the tree's Kconfig files, the tiny fragments, the kconfig tool,
# the scripts Kconfig runs and the compiler, so it is kept under a hash of
# those (0.8 s to compute) and made again only when one changes.
tiny=$OBJ-tinyconfig
tiny_key=$(cd "$LINUX" && {
	gcc --version | head -n 1
	find . \( -name 'Kconfig*' -o -path './kernel/configs/*' -o -path './arch/x86/configs/*' \
		-o -path './scripts/kconfig/*.[ch]' \) -type f | LC_ALL=C sort | xargs cat
	cat scripts/*.sh
} | sha256sum | cut -c1-32)
if [ ! -f "$tiny/.config" ] || [ "$(cat "$tiny/key" 2>/dev/null)" != "$tiny_key" ]; then
	mkdir -p "$tiny"
	rm -f "$tiny/.config" "$tiny/key"
	make -C "$LINUX" O="$tiny" ARCH="$KARCH" -s tinyconfig >/dev/null 2>&1 || die "make tinyconfig failed in $tiny"
	echo "$tiny_key" >"$tiny/key"
fi
new=.config.new
cat "$tiny/.config" "${fragments[@]}" >"$OBJ/$new"
tag=${BUILD_TAG:-$FLAVOR}
target=${KERNEL_TARGET:-bzImage}
kmake -s KCONFIG_CONFIG=$new olddefconfig >/dev/null 2>"$LOGS/kconfig-$tag.log" || {
	cat "$LOGS/kconfig-$tag.log" >&2
	die "olddefconfig failed"
}
rm -f "$OBJ/$new.old"

# The requested value of each option: the last line naming it.
declare -A want
order=()
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) opt=${line%%=*} ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		;;
	*) continue ;;
	esac
	[ -n "${want[$opt]+set}" ] || order+=("$opt")
	want[$opt]=$line
done < <(cat "${fragments[@]}")
missing=()
for opt in "${order[@]}"; do
	line=${want[$opt]}
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$OBJ/$new" || missing+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$OBJ/$new" || echo absent))")
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		! grep -q "^$opt=" "$OBJ/$new" || missing+=("$line (got: $(grep "^$opt=" "$OBJ/$new"))")
		;;
	esac
done
if [ ${#missing[@]} -gt 0 ]; then
	printf '  %s\n' "${missing[@]}" >&2
	die "olddefconfig dropped ${#missing[@]} requested option(s) (above): their dependencies are not met; fix ${fragments[*]#"$ROOT"/}"
fi

if cmp -s "$OBJ/$new" "$OBJ/.config"; then
	rm -f "$OBJ/$new"
else
	mv "$OBJ/$new" "$OBJ/.config"
fi

cc=gcc
if command -v ccache >/dev/null; then
	cc="ccache gcc"
	# Hash paths relative to build/, so clones share the cache.
	export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=true
fi
export KBUILD_BUILD_USER=fsverity KBUILD_BUILD_HOST=qemu KBUILD_BUILD_TIMESTAMP="@0"
info "building $target ($tag) in ${OBJ#"$ROOT"/} with -j$JOBS"
start=$(date +%s)
read -ra targets <<<"$target"
if ! kmake -j"$JOBS" CC="$cc" "${targets[@]}" >"$LOGS/build-$tag.log" 2>&1; then
	grep -E 'error|Error' "$LOGS/build-$tag.log" | head -n 30 >&2
	die "kernel build failed; full log: ${LOGS#"$ROOT"/}/build-$tag.log"
fi
grep -E 'warning:' "$LOGS/build-$tag.log" >&2 || true
info "$target ready in $(($(date +%s) - start)) s in ${OBJ#"$ROOT"/}"
# A kernel with kprobes (the debug one) gets the suite's test module
if [ "$target" = bzImage ] && grep -q '^CONFIG_KPROBES=y$' "$OBJ/.config"; then
	KMOD_CC=$cc "$ROOT/scripts/kmod.sh"
else
	rm -f "$OBJ/vt-kmod.cpio.gz"
fi
