#!/usr/bin/env bash
# make coverage: what the suite executes of the series, line by line.
#
# 1. build/coverage/linux: a hard-linked copy of the patched tree whose
#    Makefiles (real files, not links) ask gcov for fs/verity/ and for the
#    .c files the series touches in fs/ext4/, fs/f2fs/ and fs/ioctl.c
#    (patch_files over series_patches); the series itself is not changed.
# 2. FLAVOR=coverage: test.config + configs/coverage.config (GCOV_KERNEL,
#    not GCOV_PROFILE_ALL) built in build/coverage/obj.
# 3. The whole suite in the two VMs (scripts/boot.sh, VTEST_GCOV_DIR), the
#    mount-mode passes (scripts/modes.sh) in two more, then the groups 20
#    and 70 in one VM of two CPUs: at the end of its run
#    each guest's /init writes a tar of the .gcda files
#    of /sys/kernel/debug/gcov onto a disk of its own, an image file the
#    host reads with tar (never mounted).
# 4. lcov (gcov-12) per guest, the two merged (lcov -a), genhtml:
#    build/coverage/index.html; and build/coverage/summary.txt (printed):
#    lines and branches of each fs/verity/*.c and in total, the executable
#    lines the series adds or changes in fs/ext4, fs/f2fs (and fs/ioctl.c)
#    and how many ran (diff -U0 between build/pristine and build/linux),
#    the goals, the error exits of fs/verity (return -E..., goto to an
#    error label, err = -E...) that no test reached, against
#    tests/coverage-exempt.txt, and its other lines that did not run,
#    against tests/coverage-unreached.txt.
# 5. Its checks as TAP lines and a closing line ("N passed, M failed"), for
#    make check.
#
# Fails when a step fails (build, boot, a guest's run, lcov), when a list
# is stale (an entry that ran, or whose line is gone), when an error exit
# or another line of fs/verity neither ran nor is listed, and when a goal
# is NOT met, but for the fs/verity lines goal when every line left is
# listed (it is then out of reach, and said so).
# COVERAGE_REPORT_ONLY=1 makes the report again from the last run's gcov
# disks (no build, no boot).
#
# COVERAGE_STEP splits the work in three for make check (CHECK_ALL=1),
# whose suite in the VMs and whose mount-mode passes are these, run once:
# "suite" builds the kernel and runs the suite in the two VMs (steps 1 to 3
# but for the modes and the two-CPU boot), then prints its merged results
# (every test's TAP line and the closing line); "modes" runs
# scripts/modes.sh on this kernel (the ext4 journal modes and no journal,
# the f2fs compression and no-inline passes: the lines the series adds for
# them run nowhere else) and prints its results the same way; "report"
# runs the two-CPU boot and makes the report from every run's counters
# (steps 3 and 4), with its five checks.  Default: "all", the three.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export FLAVOR=coverage
step=${COVERAGE_STEP:-all}
case $step in all | suite | modes | report) ;; *) die "COVERAGE_STEP must be all, suite, modes or report, not '$step'" ;; esac

COV=$BUILD/coverage
CTREE=$COV/linux
COBJ=$BUILD/coverage/obj
EXEMPT=$ROOT/tests/coverage-exempt.txt
UNREACHED=$ROOT/tests/coverage-unreached.txt
GCOV_TOOL=gcov-$(gcc -dumpversion | cut -d. -f1)
# The goals: percentages.
GOAL_VERITY_LINES=95
GOAL_VERITY_BRANCHES=85
GOAL_SERIES_LINES=90
# The groups booted again in a guest of two CPUs
COVERAGE_SMP_GROUPS=20,70

[ -f "$BUILD/linux.applied" ] || die "the series is not applied in build/linux: run 'make patch' first"
for t in lcov genhtml "$GCOV_TOOL"; do
	command -v "$t" >/dev/null || die "$t is missing: run 'make deps'"
done
mkdir -p "$COV" "$LOGS"

# The files to profile: the .c files the series touches in fs/ext4, fs/f2fs
# and fs/ioctl.c that the patched tree has, and all of fs/verity.
mapfile -t patches < <(series_patches | sed "s|^|$ROOT/patches/|")
mapfile -t touched < <(patch_files "${patches[@]}" | sort -u |
	grep -E '^fs/(ext4/[^/]+|f2fs/[^/]+|ioctl)\.[ch]$' |
	while read -r f; do [ -f "$BUILD/linux/$f" ] && echo "$f"; done)
profiled=()
for f in "${touched[@]}"; do
	case $f in *.c) profiled+=("$f") ;; esac
done
[ ${#profiled[@]} -gt 0 ] || die "the series touches no .c file in fs/ext4, fs/f2fs or fs/ioctl.c?"

# 1. The tree: copied again when the series applied to build/linux changed.
if ! cmp -s "$BUILD/linux.applied" "$CTREE.applied"; then
	info "copying build/linux to ${CTREE#"$ROOT"/} (hard links)"
	rm -rf "$CTREE" "$CTREE.applied"
	cp -al "$BUILD/linux" "$CTREE"
fi
# with_gcov MAKEFILE LINE...: the tree's MAKEFILE plus LINEs, written as a
# file of its own (the copy's links to build/linux stay untouched), and only
# when that changes it
with_gcov() {
	local mk=$1
	shift
	{
		cat "$BUILD/linux/$mk"
		echo "# make coverage (scripts/coverage.sh)"
		printf '%s\n' "$@"
	} >"$CTREE/$mk.new"
	if cmp -s "$CTREE/$mk.new" "$CTREE/$mk"; then
		rm -f "$CTREE/$mk.new"
	else
		mv "$CTREE/$mk.new" "$CTREE/$mk"
	fi
}
with_gcov fs/verity/Makefile "GCOV_PROFILE := y"
for dir in fs/ext4 fs/f2fs fs; do
	lines=()
	for f in "${profiled[@]}"; do
		[ "$(dirname "$f")" = "$dir" ] || continue
		b=$(basename "$f" .c)
		lines+=("GCOV_PROFILE_$b.o := y")
	done
	[ ${#lines[@]} -eq 0 ] || with_gcov "$dir/Makefile" "${lines[@]}"
done
cp "$BUILD/linux.applied" "$CTREE.applied"

build_secs=- run_secs=- suite_ok=1
gdisks=$COV/gcov-disks
# The fuzzer of 60-fuzz with a fixed seed (unless VTEST_CMDLINE names
# one): the same cases, hence the same lines, in every run.
cmdline="${VTEST_CMDLINE:+$VTEST_CMDLINE }vfuzz.seed=${COVERAGE_FUZZ_SEED:-1}"
if [ -z "${COVERAGE_REPORT_ONLY:-}" ] && [ "$step" != report ]; then
# 2. The kernel (the step "modes" boots the one "suite" built).
if [ "$step" != modes ]; then
	start=$(date +%s)
	LINUX_TREE=$CTREE KOBJ=$COBJ "$ROOT/scripts/kernel.sh"
	build_secs=$(($(date +%s) - start))
fi
nobj=$(find "$COBJ/fs" -name '*.gcno' | wc -l)
[ "$nobj" -gt 0 ] || die "no .gcno file in ${COBJ#"$ROOT"/}/fs: gcov did not profile anything"

# 3. The suite, then the mount-mode passes, with a gcov disk per guest.
# run_on_coverage WHAT LOG COMMAND...: a run of the suite on this kernel
# (its output to build/coverage/LOG.log, its seconds added to suite.secs)
run_on_coverage() {
	local what=$1 log=$COV/$2.log t0
	shift 2
	info "$what on the coverage kernel"
	t0=$(date +%s)
	VTEST_GCOV_DIR=$gdisks KOBJ=$COBJ "$@" >"$log" 2>&1 || suite_ok=0
	t0=$(($(cat "$COV/suite.secs" 2>/dev/null || echo 0) + $(date +%s) - t0))
	echo "$t0" >"$COV/suite.secs"
}
if [ "$step" = all ] || [ "$step" = suite ]; then
	rm -rf "$gdisks" "$COV/suite.secs"
	mkdir -p "$gdisks"
	run_on_coverage "the suite (both VMs)" suite env VTEST_CMDLINE="$cmdline" "$ROOT/scripts/boot.sh" test
fi
if [ "$step" = all ] || [ "$step" = modes ]; then
	[ -d "$gdisks" ] || die "no ${gdisks#"$ROOT"/}: run COVERAGE_STEP=suite first"
	run_on_coverage "the mount-mode passes (scripts/modes.sh)" suite-modes \
		env BOOT_TAG=coverage-modes VTEST_CMDLINE="$cmdline" "$ROOT/scripts/modes.sh"
fi
run_secs=$(cat "$COV/suite.secs")
fi
# print_run TAG LOG: (steps suite and modes) the merged results of the run
# BOOT_TAG TAG, whose tests count as make check's, then exit with its
# verdict
print_run() {
	tr -d '\r' <"$LOGS/results-$1.log"
	info "${1#coverage-} on the coverage kernel: build/coverage/$2.log"
	if [ "$suite_ok" != 1 ]; then
		# the judgement of the guests (kernel logs, hangs), not their lines
		grep -v '^\(ext4\|f2fs\)| ' "$COV/$2.log" | tail -n 20 >&2
		exit 1
	fi
	exit 0
}
[ "$step" != suite ] || print_run coverage-test suite
[ "$step" != modes ] || print_run coverage-modes suite-modes
if [ -z "${COVERAGE_REPORT_ONLY:-}" ]; then
start=$(date +%s)
# Then the corruption and the concurrency groups in one guest of two CPUs
# (make check's only such boot but for the debug kernel's): large bios
# verified in parts by both CPUs, which a guest of one CPU never does, and
# readers, ENABLE and drop_caches running at the same time.
VTEST_CMDLINE="$cmdline vtest.groups=$COVERAGE_SMP_GROUPS" VTEST_SPLIT=0 VTEST_SMP=2 \
	BOOT_TAG=coverage-smp VTEST_GCOV_DIR=$gdisks KOBJ=$COBJ \
	"$ROOT/scripts/boot.sh" test >"$COV/suite-smp.log" 2>&1 || suite_ok=0
run_secs=$(($(cat "$COV/suite.secs" 2>/dev/null || echo 0) + $(date +%s) - start))
fi
# The closing line of each run, "WHAT|BOOT_TAG's suffix"; a run with a
# failure, or without its closing line, fails the check (also when
# COVERAGE_REPORT_ONLY=1 reports an earlier run)
suite=
for run in "the suite|test" "the mount modes|modes" "groups $COVERAGE_SMP_GROUPS on two CPUs|smp"; do
	closing=$(closing_line "$LOGS/results-coverage-${run#*|}.log")
	suite+="${suite:+; }${run%|*}: $closing"
	read -r _ failed _ < <(closing_counts "${closing:-0 passed, 1 failed}")
	[ "$failed" -eq 0 ] || suite_ok=0
done
info "$suite, in $run_secs s (build/coverage/suite.log, suite-smp.log)"

# 4. The counters of each guest, next to the build's .gcno files, through
# lcov; then merged.
start=$(date +%s)
rm -rf "$COV/gcda"
lopts=(--gcov-tool "$GCOV_TOOL" --rc lcov_branch_coverage=1 -q)
# lcov LCOV-ARGS...: lcov with its messages (Debian's geninfo warns about
# its own redefined subroutines) in build/coverage/lcov.log, shown when it
# fails
lcov() {
	command lcov "${lopts[@]}" "$@" >>"$COV/lcov.log" 2>&1 || {
		tail -n 20 "$COV/lcov.log" >&2
		return 1
	}
}
: >"$COV/lcov.log"
infos=()
for img in "$gdisks"/*.img; do
	name=$(basename "$img" .img)
	d=$COV/gcda/$name
	mkdir -p "$d"
	tar -C "$d" -xf "$img" || die "no tar of gcov counters on $img: did the guest reach the end of its run?"
	# The guest's paths are the build's: $COBJ/fs/...gcda
	[ -d "$d/$COBJ" ] || die "the counters of $name are not under ${COBJ#/}"
	n=0
	while IFS= read -r g; do
		rel=${g#"$d/$COBJ"/}
		cp "$COBJ/${rel%.gcda}.gcno" "${g%.gcda}.gcno"
		n=$((n + 1))
	done < <(find "$d/$COBJ" -name '*.gcda')
	info "$name: $n counter files"
	lcov -c -d "$d/$COBJ" -b "$COBJ" -o "$COV/$name.info" ||
		die "lcov failed on the counters of $name"
	infos+=(-a "$COV/$name.info")
done
[ ${#infos[@]} -gt 0 ] || die "no gcov disk in ${gdisks#"$ROOT"/}"
lcov "${infos[@]}" -o "$COV/all.info" || die "lcov -a failed"
# Only the tree's files (headers of include/ and arch/ come with inline
# functions), with paths relative to the tree.
lcov -e "$COV/all.info" "$CTREE/fs/*" -o "$COV/coverage.info" || die "lcov -e failed"
genhtml -q --branch-coverage --prefix "$CTREE" -t "fs-verity series: make coverage" \
	-o "$COV" "$COV/coverage.info" >"$COV/genhtml.log" 2>&1 || {
	cat "$COV/genhtml.log" >&2
	die "genhtml failed"
}

# The merged counters as tables, paths relative to the tree:
# lines.tsv: FILE LINE COUNT (the lines gcov calls executable),
# fns.tsv: FILE LINE FUNCTION (where each function starts),
# branches.tsv: FILE LINE ALL-TAKEN (1: every branch of the line was taken),
# files.tsv: FILE LINES-FOUND LINES-HIT BRANCHES-FOUND BRANCHES-HIT
: >"$COV/lines.tsv"
: >"$COV/fns.tsv"
: >"$COV/files.tsv"
: >"$COV/branches.tsv"
awk -v tree="$CTREE/" -v out="$COV" '
	/^SF:/ { f = substr($0, 4); sub("^" tree, "", f) }
	/^DA:/ { split(substr($0, 4), a, ","); print f "\t" a[1] "\t" a[2] > (out "/lines.tsv") }
	/^FN:/ { split(substr($0, 4), a, ","); print f "\t" a[1] "\t" a[2] > (out "/fns.tsv") }
	/^BRDA:/ {
		split(substr($0, 6), a, ","); k = f "\t" a[1]
		if (!(k in all)) { all[k] = 1; order[++nb] = k }
		if (a[4] == "-" || a[4] == 0) all[k] = 0
	}
	/^LF:/ { lf = substr($0, 4) } /^LH:/ { lh = substr($0, 4) }
	/^BRF:/ { bf = substr($0, 5) } /^BRH:/ { bh = substr($0, 5) }
	/^end_of_record/ { print f "\t" lf "\t" lh "\t" bf "\t" bh > (out "/files.tsv"); lf = lh = bf = bh = 0 }
	END { for (i = 1; i <= nb; i++) print order[i] "\t" all[order[i]] > (out "/branches.tsv") }
' "$COV/coverage.info"

# The lines the series adds or changes in fs/ext4, fs/f2fs and fs/ioctl.c:
# the "+" side of diff -U0 between the pristine and the patched tree.
# added.tsv: FILE LINE
: >"$COV/added.tsv"
for f in "${touched[@]}"; do
	diff -U0 "$PRISTINE/$f" "$BUILD/linux/$f" 2>/dev/null |
		awk -v f="$f" '/^@@ / {
			split($3, a, ","); n = (a[2] == "" ? 1 : a[2])
			for (i = 0; i < n; i++) print f "\t" (substr(a[1], 2) + i)
		}' >>"$COV/added.tsv" || true
done

# The error exits of fs/verity/*.c (exits.tsv: FILE LINE TEXT):
# - return -E... / return ERR_PTR(...) / return ERR_CAST(...);
# - VAR = -E... / VAR = ERR_PTR(...) / VAR = ERR_CAST(...);
# - goto LABEL, where LABEL is an error label: its name starts with err or
#   fail, or its code returns -E..., ERR_PTR() or ERR_CAST() (not a shared
#   "return err" exit), unless the line before assigned the error;
# - goto LABEL or return VAR / return PTR_ERR(...) right under
#   if (VAR), if (VAR < 0) or if (IS_ERR(...)), VAR one of err, ret, error,
#   rc: a propagated error.
errexits() {
	awk -v f="$1" '
	function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	FNR == NR {
		if (match($0, /^[a-z_][a-z0-9_]*:/)) {
			cur = substr($0, 1, RLENGTH - 1)
			if (cur ~ /^(err|fail)/) errlab[cur] = 1
		} else if (cur != "" && $0 ~ /^[ \t]*return[ \t;]/) {
			if ($0 ~ /return[ \t]+(-E[A-Z0-9]+|ERR_PTR\(|ERR_CAST\()/) errlab[cur] = 1
			cur = ""
		} else if ($0 ~ /^}/) cur = ""
		next
	}
	{
		t = trim($0); exit_ = 0
		if (t ~ /^return[ \t]+(-E[A-Z0-9]+|ERR_PTR\(|ERR_CAST\()/) exit_ = 1
		else if (t ~ /^[A-Za-z_][A-Za-z0-9_.>-]*[ \t]*=[ \t]*(-E[A-Z0-9]+|ERR_PTR\(|ERR_CAST\()/) exit_ = 1
		else if (t ~ /^goto[ \t]+[a-z_0-9]+;/) {
			lab = t; sub(/^goto[ \t]+/, "", lab); sub(/;.*/, "", lab)
			# (not again right after the assignment of the error)
			if ((lab in errlab) && !prev_exit) exit_ = 1
		}
		if (!exit_ && t ~ /^(goto [a-z_0-9]+|return [a-z_]+|return PTR_ERR\(.*\));/ &&
		    prev ~ /^if \(((err|ret|error|rc)( < 0)?|IS_ERR\(.*\))\)$/) exit_ = 1
		if (exit_) print f "\t" FNR "\t" t
		if (t != "" && t !~ /^(\/\*|\*)/) { prev = t; prev_exit = exit_ }
	}' "$CTREE/$1" "$CTREE/$1"
}
: >"$COV/exits.tsv"
for f in "$CTREE"/fs/verity/*.c; do
	errexits "fs/verity/${f##*/}" >>"$COV/exits.tsv"
done

# The summary: build/coverage/summary.txt, also printed.
sum=$COV/summary.txt
goals_ok=1
# pct HIT FOUND: the percentage with one decimal
pct() { awk -v h="$1" -v n="$2" 'BEGIN { printf "%.1f", n ? 100 * h / n : 0 }'; }
# goal WHAT HIT FOUND GOAL: one goal line; clears goals_ok when not met
goal() {
	local p
	p=$(pct "$2" "$3")
	if awk -v p="$p" -v g="$4" 'BEGIN { exit !(p >= g) }'; then
		echo "coverage: goal met: $1 $p% ($2/$3) >= $4%"
	else
		echo "coverage: NOT met: $1 $p% ($2/$3) < $4%"
		goals_ok=0
	fi
}
{
	echo "make coverage: on the coverage kernel, $suite; the guests merged"
	echo "HTML: build/coverage/index.html"
	echo
	printf '%-24s %16s %18s\n' "fs/verity" "lines" "branches"
	awk -F'\t' '$1 ~ /^fs\/verity\/[^\/]+\.c$/ {
		printf "  %-22s %5d/%-5d %5.1f%% %5d/%-5d %5.1f%%\n", substr($1, 11), $3, $2,
			$2 ? 100 * $3 / $2 : 0, $5, $4, $4 ? 100 * $5 / $4 : 0
		lf += $2; lh += $3; bf += $4; bh += $5
	} END {
		printf "  %-22s %5d/%-5d %5.1f%% %5d/%-5d %5.1f%%\n", "total", lh, lf,
			lf ? 100 * lh / lf : 0, bh, bf, bf ? 100 * bh / bf : 0
		print lh, lf, bh, bf > "/dev/fd/3"
	}' "$COV/files.tsv" 3>"$COV/verity.totals"
	echo
	echo "executable lines the series adds or changes (diff -U0 pristine patched):"
	awk -F'\t' 'FNR == NR { c[$1 "\t" $2] = $3; next }
		($1 "\t" $2) in c { n[$1]++; t++; if (c[$1 "\t" $2] > 0) { h[$1]++; th++ } }
		END {
			for (f in n) printf "  %-22s %5d/%-5d %5.1f%%\n", f, h[f], n[f], 100 * h[f] / n[f] | "sort"
			close("sort")
			printf "  %-22s %5d/%-5d %5.1f%%\n", "total", th, t, t ? 100 * th / t : 0
			print th + 0, t + 0 > "/dev/fd/3"
		}' "$COV/lines.tsv" "$COV/added.tsv" 3>"$COV/added.totals"
} >"$sum"
read -r vlh vlf vbh vbf <"$COV/verity.totals"
read -r alh alf <"$COV/added.totals"

# Each error exit with its function (the last one starting before it) and
# whether it ran: exits-counted.tsv (FILE LINE FUNCTION RAN TEXT); a text
# found more than once in a function gets " [N]", N counting from 1 in the
# order of the lines.  RAN is the line's count; gcc at -O2 gives many
# one-statement exits (a constant return) no line of their own, and then
# the line before it with a count decides: the exit ran when that line ran
# (a statement of the same block, e.g. the warning before the exit), or,
# when it is the "if" that guards the exit, when every branch of that line
# was taken (for "if (a || b)" that means the body ran); "-" when neither
# tells (a guard without counts), which counts as not reached.
# The other executable lines of fs/verity/*.c (not an exit, nor a statement
# of an exit's block before it, such as its warning: the exit's entry covers
# those), in the same form, in lines-counted.tsv (RAN: the line's count;
# " [N]" among those lines of the function with the same text).
awk -F'\t' -v tree="$CTREE" -v lines_out="$COV/lines-counted.tsv" '
	function control(s) { return s ~ /^[ \t]*(} *)?(else *)?(if|while|for|switch) *\(|^[ \t]*} *else/ }
	function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	function load(f,    i, s) {
		if (f in loaded) return
		loaded[f] = 1; i = 0
		while ((getline s < (tree "/" f)) > 0) src[f, ++i] = s
		close(tree "/" f)
	}
	function fn_of(f, l,    i, best, name) {
		best = 0; name = "?"
		for (i = 1; i <= nf[f]; i++)
			if (fstart[f, i] <= l + 0 && fstart[f, i] > best) { best = fstart[f, i]; name = fname[f, i] }
		return name
	}
	function ran(f, l,    i, s) {
		if ((f "\t" l) in cnt) return cnt[f "\t" l]
		for (i = l - 1; i > 0 && i >= l - 8; i--) {
			s = src[f, i]
			if ((f "\t" i) in cnt) {
				if (!control(s)) { judged[f "\t" i] = 1; return cnt[f "\t" i] }
				return ((f "\t" i) in br) ? br[f "\t" i] : "-"
			}
			if (control(s) || s ~ /^[ \t]*[{}][ \t]*$/) return "-"
		}
		return "-"
	}
	FILENAME == ARGV[1] { nf[$1]++; fstart[$1, nf[$1]] = $2; fname[$1, nf[$1]] = $3; next }
	FILENAME == ARGV[2] {
		cnt[$1 "\t" $2] = $3
		if ($1 ~ /^fs\/verity\/[^\/]+\.c$/) { nl++; lfile[nl] = $1; lline[nl] = $2 }
		next
	}
	FILENAME == ARGV[3] { br[$1 "\t" $2] = $3; next }
	{
		load($1)
		isexit[$1 "\t" $2] = 1
		n++
		name = fn_of($1, $2)
		row[n] = $1 "\t" $2 "\t" name "\t" ran($1, $2)
		# The statements before it in its block (the warning) go with it
		for (i = $2 - 1; i > 0 && i >= $2 - 8; i--) {
			s = src[$1, i]
			if (control(s) || s ~ /^[ \t]*[{}][ \t]*$/ || s ~ /^[a-z_][a-z0-9_]*:/) break
			if (($1 "\t" i) in cnt) judged[$1 "\t" i] = 1
		}
		key[n] = $1 "\t" name "\t" $3
		text[n] = $3
		total[key[n]]++
	}
	END {
		for (i = 1; i <= n; i++)
			print row[i] "\t" text[i] (total[key[i]] > 1 ? " [" ++seen[key[i]] "]" : "")
		for (i = 1; i <= nl; i++) {
			f = lfile[i]; l = lline[i]
			if ((f "\t" l) in isexit || (f "\t" l) in judged) continue
			load(f)
			name = fn_of(f, l); t = trim(src[f, l])
			lrow[i] = f "\t" l "\t" name "\t" cnt[f "\t" l]
			lkey[i] = f "\t" name "\t" t; ltext[i] = t
			ltotal[lkey[i]]++
		}
		for (i = 1; i <= nl; i++)
			if (i in lrow)
				print lrow[i] "\t" ltext[i] (ltotal[lkey[i]] > 1 ? " [" ++lseen[lkey[i]] "]" : "") > lines_out
	}' "$COV/fns.tsv" "$COV/lines.tsv" "$COV/branches.tsv" "$COV/exits.tsv" >"$COV/exits-counted.tsv"
# verdict LIST COUNTED: COUNTED (FILE LINE FUNCTION RAN TEXT) against LIST
# (FILE | FUNCTION | TEXT | WHY; TEXT is the line without its indentation,
# with " [N]" when the function has the same text more than once, as in the
# summary), one line each: VERDICT WHERE FUNCTION TEXT, VERDICT one of
# reached, exempt, UNLISTED (not reached, not listed), STALE (an entry
# whose lines all ran, or that matches no line of COUNTED), RACED (an
# entry whose WHY starts with "race:" and whose lines ran this time: the
# race it names happened, which the list allows) and BAD (an entry that is
# not FILE | FUNCTION | TEXT | WHY).
verdict() {
	[ -f "$1" ] || die "no ${1#"$ROOT"/}"
	awk '
	function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	FNR == NR {
		if ($0 ~ /^[ \t]*(#|$)/) next
		n = split($0, a, "|")
		if (n < 4 || trim(a[4]) == "") { print "BAD\t" FILENAME ":" FNR "\t-\t" $0; next }
		k = trim(a[1]) "\t" trim(a[2]) "\t" trim(a[3])
		ex[k] = FNR
		if (trim(a[4]) ~ /^race:/) racy[k] = 1
		next
	}
	{
		split($0, b, "\t")
		k = b[1] "\t" b[3] "\t" b[5]
		ran = b[4] != "-" && b[4] > 0
		if (k in ex) { seen[k] = 1; if (!ran) open_[k] = 1 }
		print (ran ? "reached" : (k in ex) ? "exempt" : "UNLISTED") "\t" b[1] ":" b[2] "\t" b[3] "\t" b[5] (b[4] == "-" ? "  (no count)" : "")
	}
	END {
		for (k in ex) {
			split(k, c, "\t")
			if (!(k in seen)) print "STALE\t" c[1] "\t" c[2] "\t" c[3] "  (no such line: entry of line " ex[k] ")"
			else if (!(k in open_)) print (k in racy ? "RACED" : "STALE") "\t" c[1] "\t" c[2] "\t" c[3] "  (it ran: entry of line " ex[k] ")"
		}
	}' "$1" "$2"
}
verdict "$EXEMPT" "$COV/exits-counted.tsv" >"$COV/exits-verdict.tsv"
verdict "$UNREACHED" "$COV/lines-counted.tsv" >"$COV/lines-verdict.tsv"
# count_of VERDICT FILE: the lines of a verdict file with that verdict
count_of() { awk -F'\t' -v v="$1" '$1 == v { n++ } END { print n + 0 }' "$2"; }
ev=$COV/exits-verdict.tsv lv=$COV/lines-verdict.tsv
n_exits=$(wc -l <"$COV/exits-counted.tsv")
n_reached=$(count_of reached "$ev")
n_exempt=$(count_of exempt "$ev")
n_unlisted=$(count_of UNLISTED "$ev")
n_stale=$(($(count_of STALE "$ev") + $(count_of BAD "$ev")))
n_lines_missed=$(($(count_of exempt "$lv") + $(count_of UNLISTED "$lv")))
n_lines_listed=$(count_of exempt "$lv")
n_lines_unlisted=$(count_of UNLISTED "$lv")
n_lines_stale=$(($(count_of STALE "$lv") + $(count_of BAD "$lv")))
report_secs=$(($(date +%s) - start))
# The lines goal of fs/verity is out of reach when the lines left are all
# listed: it is then reported NOT met and out of reach, and fails the
# target only when a line not run is not listed.
lines_explained=0
[ "$n_unlisted" -eq 0 ] && [ "$n_lines_unlisted" -eq 0 ] && [ "$n_stale" -eq 0 ] &&
	[ "$n_lines_stale" -eq 0 ] && lines_explained=1
{
	echo
	echo "error exits of fs/verity (return -E..., goto to an error label, err = -E...): $n_exits;"
	echo "  reached $n_reached, exempt $n_exempt (tests/coverage-exempt.txt), neither $n_unlisted, stale entries $n_stale"
	echo "other lines of fs/verity not run: $n_lines_missed;"
	echo "  listed $n_lines_listed (tests/coverage-unreached.txt), not listed $n_lines_unlisted, stale entries $n_lines_stale"
	awk -F'\t' -v ev="$ev" '$1 == "UNLISTED" { printf "  %s, not listed: %s %s: %s\n",
			FILENAME == ev ? "error exit not reached" : "line not run", $2, $3, $4 }
		$1 == "STALE" || $1 == "BAD" { printf "  %s entry: %s %s: %s\n", $1, $2, $3, $4 }
		$1 == "RACED" { printf "  entry of a race that happened this time: %s %s: %s\n", $2, $3, $4 }' "$ev" "$lv"
	echo
	goals_before=$goals_ok
	goal "fs/verity lines" "$vlh" "$vlf" "$GOAL_VERITY_LINES"
	if [ "$goals_ok" = 0 ] && [ "$lines_explained" = 1 ]; then
		echo "  out of reach: every line not run is listed with why (the two lists)"
		goals_ok=$goals_before
	fi
	goal "fs/verity branches" "$vbh" "$vbf" "$GOAL_VERITY_BRANCHES"
	goal "ext4/f2fs lines the series adds" "$alh" "$alf" "$GOAL_SERIES_LINES"
	echo "times: kernel build ${build_secs}s, the suite ${run_secs}s, the report ${report_secs}s"
} >>"$sum"
cat "$sum"

# The checks, as TAP lines and a closing line (a part of make check).
tap_report "$([ "$suite_ok" = 1 ] && echo OK || echo FAIL)" "coverage: on the coverage kernel, $suite"
tap_report "$([ "$n_unlisted" -eq 0 ] && echo OK || echo FAIL)" \
	"coverage: every error exit of fs/verity is reached or in tests/coverage-exempt.txt ($n_unlisted not)"
tap_report "$([ "$n_lines_unlisted" -eq 0 ] && echo OK || echo FAIL)" \
	"coverage: every other line of fs/verity runs or is in tests/coverage-unreached.txt ($n_lines_unlisted not)"
tap_report "$([ $((n_stale + n_lines_stale)) -eq 0 ] && echo OK || echo FAIL)" \
	"coverage: no stale or malformed entry in the two lists ($((n_stale + n_lines_stale)))"
tap_report "$([ "$goals_ok" = 1 ] && echo OK || echo FAIL)" \
	"coverage: each goal met, or out of reach with every line left listed"
tap_closing
[ "$tap_fail" -eq 0 ]
