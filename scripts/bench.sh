#!/usr/bin/env bash
# make bench: the benchmark in one VM boot, then the table, the plots and
# the verdict on its goals.
#
#  1. waits until no other QEMU runs (the machine's cores are shared: an
#     overlapping VM would skew the numbers), notes the load average;
#  2. the host side: tests/host/bench-setup.sh ('fsverity setup' single- and
#     multi-threaded against sha256sum), and the dm-verity image;
#  3. boots the kernel in vtest.mode=bench (tests/vm/bench.sh), through
#     boot.sh, which judges the run (kernel log clean, every section ok);
#  4. takes the medians and the ratios of the guest's records and writes
#     build/bench/results.md (printed at the end), seq-read.png and ttfb.png;
#  5. prints one line per goal, "bench: goal met|NOT met|not measured: ...",
#     and exits non-zero when a goal is NOT met or the boot failed.
#
# Outputs in build/bench/: results.md, seq-read.png, ttfb.png, raw.log (the
# guest's result stream), host-setup.txt, boot.log, the gnuplot inputs.
# Environment: as boot.sh (VTEST_MEM, VTEST_DISK_SIZE, VTEST_TIMEOUT,
# VTEST_ACCEL; VTEST_FILTER picks the guest's sections: hash seq rand ttfb
# enable), BENCH_HOST=0 skips the host side, BENCH_DMVERITY=0 the dm-verity
# image, BENCH_WAIT (seconds to wait for another QEMU to finish, default
# 1800).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/bench
mkdir -p "$OUT"
rm -f "$OUT"/*.png "$OUT"/*.dat "$OUT"/*.gp "$OUT"/results.md
command -v gnuplot >/dev/null || die "gnuplot is missing: run 'make deps' (gnuplot-nox)"
command -v python3 >/dev/null || die "python3 is missing: run 'make deps'"

start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
info "bench: load average at start $load_start, $(nproc) host CPUs"

# Wait while another VM runs.
other_qemu() { pgrep -f 'qemu-system-(x86_64|i386)' >/dev/null; }
waited=0
while other_qemu; do
	[ $waited = 0 ] && info "bench: another QEMU is running ($(pgrep -f 'qemu-system-(x86_64|i386)' | tr '\n' ' ')); waiting for it to finish"
	[ $waited -ge "${BENCH_WAIT:-1800}" ] && die "another QEMU still runs after ${BENCH_WAIT:-1800} s; try again later"
	sleep 10
	waited=$((waited + 10))
done
[ $waited -gt 0 ] && info "bench: waited $waited s for the other QEMU"

# Sample, every 5 s, the load and whether more than our own QEMU runs.
monitor=$OUT/monitor.log
: >"$monitor"
(
	while :; do
		# the QEMU processes themselves (comm is cut at 15 characters)
		echo "$(date +%s) $(pgrep -c -x qemu-system-x86 || true) $(cut -d' ' -f1 /proc/loadavg)"
		sleep 5
	done
) >>"$monitor" 2>/dev/null &
mon=$!
trap 'kill $mon 2>/dev/null || true' EXIT

host_start=$(date +%s)
if [ "${BENCH_HOST:-1}" != 0 ]; then
	info "bench: host side, tests/host/bench-setup.sh"
	fsv=()
	[ -x "$BUILD/tools/fsverity" ] && fsv=(env "FSVERITY=$BUILD/tools/fsverity")
	if ! "${fsv[@]}" "$ROOT/tests/host/bench-setup.sh" 2>&1 | tee "$OUT/host-setup.txt"; then
		echo "bench-setup.sh failed" >>"$OUT/host-setup.txt"
	fi
else
	echo "skipped (BENCH_HOST=0)" >"$OUT/host-setup.txt"
fi
host_end=$(date +%s)

# dm-verity, for the comparison: an ext4 image holding plain-N files of the
# guest's sizes, its SHA-256 hash tree made by veritysetup on separate
# image (no superblock: the tree starts at block 0), both attached
# read-only as vdc and vdd; the guest kernel creates /dev/dm-0 at boot from
# dm-mod.create= (CONFIG_DM_INIT), so the guest needs no device-mapper tool.
# BENCH_DMVERITY=0 leaves it out.
dmv_dir=$OUT/dm-verity
rm -rf "$dmv_dir"
if [ "${BENCH_DMVERITY:-1}" != 0 ]; then
	command -v veritysetup >/dev/null || die "veritysetup is missing: run 'make deps' (cryptsetup-bin)"
	gen=$BUILD/vm-helpers/gen
	[ -x "$gen" ] || die "no $gen: run 'make initramfs'"
	mkdir -p "$dmv_dir/files"
	for n in 16 64 256; do	# tests/vm/bench.sh: SIZES and SEQ_MIB
		"$gen" $((n * 1048576)) $((500 + n)) >"$dmv_dir/files/plain-$n"
	done
	truncate -s 400M "$dmv_dir/data.img"
	mkfs.ext4 -q -F -b 4096 -O ^has_journal -d "$dmv_dir/files" "$dmv_dir/data.img" ||
		die "mkfs.ext4 -d of the dm-verity image failed"
	rm -rf "$dmv_dir/files"
	veritysetup format --no-superblock --hash=sha256 --data-block-size=4096 \
		--hash-block-size=4096 "$dmv_dir/data.img" "$dmv_dir/hash.img" >"$dmv_dir/format.txt" ||
		die "veritysetup format failed: see ${dmv_dir#"$ROOT"/}/format.txt"
	root_hash=$(sed -n 's/^Root hash:[[:space:]]*//p' "$dmv_dir/format.txt")
	salt=$(sed -n 's/^Salt:[[:space:]]*//p' "$dmv_dir/format.txt")
	[ -n "$root_hash" ] && [ -n "$salt" ] || die "no root hash or salt in ${dmv_dir#"$ROOT"/}/format.txt"
	blocks=$(($(stat -c %s "$dmv_dir/data.img") / 4096))
	table="0 $((blocks * 8)) verity 1 /dev/vdc /dev/vdd 4096 4096 $blocks 0 sha256 $root_hash $salt"
	info "bench: dm-verity image of $blocks blocks, root hash ${root_hash:0:16}..."
	export VTEST_EXTRA_DISKS="$dmv_dir/data.img $dmv_dir/hash.img"
	export VTEST_CMDLINE="${VTEST_CMDLINE:+$VTEST_CMDLINE }dm-mod.create=\"dmv,,,ro,$table\""
fi

# The bench boot: 3 GiB scratch disks (the files take about 1.5 GiB per
# filesystem), a limit well under the 20 minutes with margin for slow hosts.
export VTEST_DISK_SIZE=${VTEST_DISK_SIZE:-3G}
export VTEST_TIMEOUT=${VTEST_TIMEOUT:-1500}
vm_start=$(date +%s)
boot_status=0
"$ROOT/scripts/boot.sh" bench 2>&1 | tee "$OUT/boot.log" || boot_status=$?
vm_end=$(date +%s)
tr -d '\r' <"$LOGS/results-bench.log" >"$OUT/raw.log"
kill $mon 2>/dev/null || true
wait $mon 2>/dev/null || true
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# The goals: verified sequential SHA-256 reads at this fraction of the
# limit, min(plain read, kernel hash); fs-verity's time to first byte
# within this factor of the plain file's, at every size.
GOAL_SEQ_FRACTION=0.8
GOAL_TTFB_FACTOR=2

seq_mib=$(sed -n 's/^B info .* seq_mib=\([0-9]*\).*/\1/p' "$OUT/raw.log" | head -n 1)
accel=$(sed -n 's/.*booting .* kernel (\([a-z]*\), .*), mode bench.*/\1/p' "$OUT/boot.log" | head -n 1)
export OUT accel load_start load_end start host_start host_end vm_start vm_end boot_status \
	VTEST_MEM VTEST_DISK_SIZE GOAL_SEQ_FRACTION GOAL_TTFB_FACTOR
python3 - <<'PY'
import os, re, statistics, time
from collections import defaultdict

E = os.environ
OUT = E["OUT"]
GOAL_SEQ = float(E["GOAL_SEQ_FRACTION"])
GOAL_TTFB = float(E["GOAL_TTFB_FACTOR"])
# The verdict on each goal: (met | NOT met | not measured, what), written
# to goals.txt for the shell to report.
goals = []
recs = []
for line in open(os.path.join(OUT, "raw.log"), errors="replace"):
    t = line.split()
    if len(t) < 2 or t[0] != "B":
        continue
    r = {"sec": t[1]}
    for kv in t[2:]:
        if "=" in kv:
            k, v = kv.split("=", 1)
            r[k] = v
    recs.append(r)

def sel(sec, **kw):
    return [r for r in recs if r["sec"] == sec and all(r.get(k) == str(v) for k, v in kw.items())]

def med(vals):
    vals = [float(v) for v in vals]
    return statistics.median(vals) if vals else None

def f(x, fmt="%.1f"):
    return "n/a" if x is None else fmt % x

def ratio(a, b, fmt="%.2f"):
    return "n/a" if a is None or b is None or b == 0 else fmt % (a / b)

info = (sel("info") or [{}])[0]
runs = int(info.get("runs", "0") or 0)
fss = [fs for fs in ("ext4", "f2fs") if sel("seq", fs=fs) or sel("ttfb", fs=fs) or sel("enable", fs=fs)]
algs = ["sha256", "sha512", "crc32c"]
drivers = {r["cfg"]: r.get("driver", "?") for r in sel("driver")}
seq_mib = info.get("seq_mib", "?")
sizes = [int(s) for s in info.get("sizes", "").split(",") if s]
L = []
P = L.append

def nsamples(rs):
    return len(rs)

# ---------------------------------------------------------------- header
P("# fs-verity benchmark (`make bench`)")
P("")
P("Measured %s in one VM boot: kernel %s, QEMU %s, %s guest CPUs, %s MiB; host: %d CPUs. "
  % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(int(E["vm_start"]))), (info.get("kernel", "?") + " " + info.get("build", "")).strip(),
     (E.get("accel") or "?").upper(), info.get("cpus", "?"), info.get("mem_mib", "?"), os.cpu_count()))
P("Every figure is a median of the repetitions (%s unless stated) and is shown as a ratio to a "
  "baseline of the same run; absolute MB/s and ms are those of the emulated guest "
  "(TCG: slow, only their ratios mean something).  MB/s = 10^6 bytes/s." % runs)
P("")
mon = []
try:
    for line in open(os.path.join(OUT, "monitor.log")):
        t = line.split()
        if len(t) == 3:
            mon.append((int(t[0]), int(t[1]), float(t[2])))
except OSError:
    pass
vm0, vm1 = int(E["vm_start"]), int(E["vm_end"])
during = [m for m in mon if vm0 + 5 <= m[0] <= vm1 - 5]
others = max([m[1] for m in during], default=0) - 1
busy = [m[0] - vm0 for m in during if m[1] > 1]
P("Load average (1/5/15 min) at start %s, at end %s; the load sampled every 5 s during the boot "
  "peaked at %s. Other QEMU processes seen during the bench boot: %s."
  % (E["load_start"], E["load_end"], f(max([m[2] for m in during], default=None), "%.2f"),
     "none" if others <= 0 else
     "%d, in %d of the %d samples, from %d s to %d s after the boot started (the numbers of "
     "that part of the run are skewed)" % (others, len(busy), len(during), min(busy), max(busy))))
P("Runtime of scripts/bench.sh: %d s (host side %d s, VM boot %d s); the guest status: %s."
  % (int(time.time()) - int(E["start"]), int(E["host_end"]) - int(E["host_start"]),
     vm1 - vm0, "ok" if E["boot_status"] == "0" else "FAILED (status %s, see boot.log)" % E["boot_status"]))
P("")

# ---------------------------------------------------------------- hash
hash_mbps = {}
if sel("hash"):
    P("## Kernel hash throughput (AF_ALG, %s MiB, the baseline of verified reads)" % info.get("hash_mib", "?"))
    P("")
    P("| algorithm | driver | 1 stream MB/s | one digest per 4 KiB block MB/s | %s streams at once (all CPUs) MB/s |" % info.get("cpus", "?"))
    P("|---|---|---:|---:|---:|")
    for a in algs:
        m = {mode: med([r["mbps"] for r in sel("hash", cfg=a, mode=mode)]) for mode in ("stream", "block4k", "allcpus")}
        hash_mbps[a] = m
        P("| %s | %s | %s | %s | %s |" % (a, drivers.get(a, "?"), f(m["stream"]), f(m["block4k"]), f(m["allcpus"])))
    P("")

# ---------------------------------------------------------------- seq
seqdat = []
goal_seq = []
if sel("seq"):
    P("## Sequential read of a %s MiB file after drop_caches" % seq_mib)
    P("")
    P("limit = min(plain read, kernel hash of one stream); fs-verity's read workqueue verifies on up to "
      "%s CPUs at once, so the last column also gives the fraction of min(plain, hash on all CPUs)." % info.get("cpus", "?"))
    P("")
    P("| fs | file | MB/s | × plain | hash MB/s (1 stream) | limit MB/s | fraction of limit | fraction of min(plain, all-CPU hash) |")
    P("|---|---|---:|---:|---:|---:|---:|---:|")
    for fs in fss:
        def mbps(cfg):
            rs = sel("seq", fs=fs, cfg=cfg)
            return med([int(r["bytes"]) / int(r["usec"]) for r in rs]) if rs else None
        plain = mbps("plain")
        P("| %s | plain | %s | 1.00 | | | | |" % (fs, f(plain)))
        seqdat.append(("%s plain" % fs, 1.0, 1.0, 1.0))
        rows = [(a, a, "verity " + a, "%s %s" % (fs, a)) for a in algs]
        if sel("seq", fs=fs, cfg="dmverity"):
            rows.append(("dmverity", "sha256", "dm-verity sha256 (block device)", "%s dm-verity" % fs))
        if sel("seq", fs=fs, cfg="ima"):
            rows.append(("ima", "sha256", "IMA: sha256 of the file at open, then the read", "%s IMA hash at open" % fs))
        for cfg, a, label, short in rows:
            v = mbps(cfg)
            h = hash_mbps.get(a, {}).get("stream")
            h2 = hash_mbps.get(a, {}).get("allcpus")
            lim = min(plain, h) if plain and h else None
            lim2 = min(plain, h2) if plain and h2 else None
            P("| %s | %s | %s | %s | %s | %s | %s | %s |" % (fs, label, f(v), ratio(v, plain), f(h), f(lim), ratio(v, lim), ratio(v, lim2)))
            if plain and v:
                seqdat.append((short, v / plain, (lim or 0) / plain, (lim2 or 0) / plain))
            if cfg == "sha256" and v and lim:
                goal_seq.append("%s %.2f" % (fs, v / lim))
    P("")
    if goal_seq:
        what = "sequential SHA-256 read at >= %g of the limit: %s" % (GOAL_SEQ, ", ".join(goal_seq))
        goals.append(("met" if all(float(g.split()[1]) >= GOAL_SEQ for g in goal_seq) else "NOT met", what))
        P("Goal, %s → %s." % (what, goals[-1][0]))
        P("")
if not goal_seq:
    goals.append(("not measured", "sequential SHA-256 read at >= %g of the limit" % GOAL_SEQ))

# ---------------------------------------------------------------- rand
if sel("rand"):
    P("## Random 4 KiB reads (%s preads per pass in the %s MiB plain and SHA-256 files)" % (info.get("rand_reads", "?"), seq_mib))
    P("")
    P("One read at a random block of each 512 KiB region (the data one SHA-256 tree block covers), the "
      "regions in a scrambled order.  cold: after drop_caches, every read needs its own tree block; "
      "warm: right after, another random block of each region (data not cached, the verified tree "
      "blocks are); hot: the cold pass's blocks again (all in the page cache).")
    P("")
    P("| fs | state | plain µs/read | fs-verity µs/read | fs-verity / plain | dm-verity µs/read | dm-verity / plain |")
    P("|---|---|---:|---:|---:|---:|---:|")
    savings = []
    for fs in fss:
        per = {}
        for st in ("cold", "warm", "hot"):
            p = med([int(r["usec"]) / int(r["reads"]) for r in sel("rand", fs=fs, cfg="plain", state=st)])
            v = med([int(r["usec"]) / int(r["reads"]) for r in sel("rand", fs=fs, cfg="sha256", state=st)])
            d = med([int(r["usec"]) / int(r["reads"]) for r in sel("rand", fs=fs, cfg="dmverity", state=st)])
            per[st] = (p, v)
            P("| %s | %s | %s | %s | %s | %s | %s |" % (fs, st, f(p), f(v), ratio(v, p), f(d), ratio(d, p)))
        (pc, vc), (pw, vw) = per["cold"], per["warm"]
        if None not in (pc, vc, pw, vw):
            savings.append("%s: verity's extra cost per read %.0f µs cold, %.0f µs warm (%s of the cold cost saved)"
                           % (fs, vc - pc, vw - pw, "%.0f%%" % (100 * (1 - (vw - pw) / (vc - pc))) if vc > pc else "n/a"))
    P("")
    if savings:
        P("What the cached tree pages save: " + "; ".join(savings) + ".")
        P("")

# ---------------------------------------------------------------- ttfb
ttfbdat = defaultdict(dict)
if sel("ttfb"):
    P("## Time to first byte: open + read of the first 4 KiB after drop_caches (SHA-256 files)")
    P("")
    P("Medians of %s samples per size (%s per repetition); sha256sum of the whole file (what hashing "
      "at open costs, IMA's way) after drop_caches, %s samples."
      % (runs * int(info.get("ttfb_samples", "1")), info.get("ttfb_samples", "1"), runs))
    P("")
    P("Beside fs-verity: dm-verity (the same read on the ext4 filesystem of a dm-verity device, its "
      "hash-block cache emptied too), IMA hashing the whole file at open (a plain file whose owner an "
      "`ima-ng` rule matches; one sample per repetition), IMA with `digest_type=verity` on the fs-verity "
      "file (IMA records the fs-verity measurement instead of reading the data).")
    P("")
    P("| fs | size MiB | plain ms | fs-verity ms | × plain | dm-verity ms | × plain | IMA + fs-verity ms | × plain | IMA hash at open ms | × plain | sha256sum whole file ms | × plain |")
    P("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    goal = []
    for fs in fss:
        for n in sizes:
            def t(cfg, sec="ttfb"):
                return med([int(r["usec"]) / 1000 for r in sel(sec, fs=fs, cfg=cfg, mib=n)])
            p, v, d, iv, ih = t("plain"), t("verity"), t("dmverity"), t("ima-verity"), t("ima")
            h = med([int(r["usec"]) / 1000 for r in sel("fullhash", fs=fs, mib=n)])
            P("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
              % (fs, n, f(p, "%.2f"), f(v, "%.2f"), ratio(v, p), f(d, "%.2f"), ratio(d, p),
                 f(iv, "%.2f"), ratio(iv, p), f(ih, "%.0f"), ratio(ih, p, "%.0f"), f(h, "%.0f"), ratio(h, p, "%.0f")))
            ttfbdat[fs][n] = (p, v, h, d, ih, iv)
            if p and v:
                goal.append(v / p)
    P("")
    opens = []
    for fs in fss:
        for n in sizes:
            po = med([int(r["open_usec"]) / 1000 for r in sel("ttfb", fs=fs, cfg="plain", mib=n) if "open_usec" in r])
            vo = med([int(r["open_usec"]) / 1000 for r in sel("ttfb", fs=fs, cfg="verity", mib=n) if "open_usec" in r])
            if po is not None and vo is not None:
                opens.append("%s %d MiB %.2f / %.2f ms" % (fs, n, po, vo))
    if opens:
        P("Of those, open(2) alone (plain / fs-verity, which reads the descriptor at the first open): "
          + "; ".join(opens) + ".")
        P("")
    ios = []
    for fs in fss:
        for n in sizes:
            parts = []
            for cfg, name in (("plain", "plain"), ("verity", "fs-verity"), ("dmverity", "dm-verity")):
                v = med([r["ios"] for r in sel("ttfb", fs=fs, cfg=cfg, mib=n) if "ios" in r])
                if v is not None:
                    parts.append("%s %g" % (name, v))
            if parts:
                ios.append("%s %d MiB: %s" % (fs, n, ", ".join(parts)))
    if ios:
        P("Read requests the disks served for one open + first read (median): " + "; ".join(ios) + ". "
          "Each is a round trip through the emulated disk, and fs-verity's come one after the other: "
          "the descriptor at open, then the data, then the tree pages from level 0 up as the "
          "verification climbs.  dm-verity's hash blocks mostly stay in dm-bufio (see the caveats), "
          "so it makes the data request alone; what it still costs over the plain read is the "
          "hashing of the blocks read and the hop to its verification work queue.")
        P("")
    if goal:
        what = ("fs-verity's first read within %g× of the plain first read at every size: worst %.2f×"
                % (GOAL_TTFB, max(goal)))
        goals.append(("met" if max(goal) <= GOAL_TTFB else "NOT met", what))
        P("Goal, %s → %s." % (what, goals[-1][0]))
    grow = []
    for fs in fss:
        d = ttfbdat[fs]
        if sizes and d.get(sizes[0], (0, 0, None))[2] and d.get(sizes[-1], (0, 0, None))[2]:
            grow.append("%s ×%.1f" % (fs, d[sizes[-1]][2] / d[sizes[0]][2]))
    if grow and len(sizes) > 1:
        P("sha256sum from %d to %d MiB (×%d the data): %s." % (sizes[0], sizes[-1], sizes[-1] // sizes[0], ", ".join(grow)))
    P("")

# ---------------------------------------------------------------- enable
if sel("enable"):
    P("## FS_IOC_ENABLE_VERITY and FS_IOC_MEASURE_VERITY across file sizes (SHA-256)")
    P("")
    P("ENABLE after sync + drop_caches (the data already on disk), medians of %s files per size; "
      "MEASURE: open + the first call after drop_caches, and one call on an open file (mean of 1000)."
      % info.get("enable_runs", "?"))
    P("")
    P("| fs | size MiB | ENABLE ms | × ENABLE at %s MiB | open + MEASURE ms (cold) | × at %s MiB | MEASURE call µs |" % (sizes[0] if sizes else "?", sizes[0] if sizes else "?"))
    P("|---|---:|---:|---:|---:|---:|---:|")
    for fs in fss:
        e0 = m0 = None
        for n in sizes:
            e = med([int(r["usec"]) / 1000 for r in sel("enable", fs=fs, cfg="sha256", mib=n)])
            m = med([int(r["usec"]) / 1000 for r in sel("measure", fs=fs, cfg="sha256", mib=n)])
            each = med([r["each_usec"] for r in sel("measure", fs=fs, cfg="sha256", mib=n)])
            if e0 is None:
                e0, m0 = e, m
            P("| %s | %d | %s | %s | %s | %s | %s |" % (fs, n, f(e, "%.1f"), ratio(e, e0), f(m, "%.2f"), ratio(m, m0), f(each, "%.1f")))
    P("")

# ---------------------------------------------------------------- host
host = open(os.path.join(OUT, "host-setup.txt"), errors="replace").read()
P("## Host: `fsverity setup` throughput (tests/host/bench-setup.sh, native, not in the VM)")
P("")
rows = re.findall(r"^(sha256sum|setup --threads=\d+ \(sha256\))\s+(\d+) MiB/s(?:\s+\(([\d.]+)x sha256sum\))?", host, re.M)
if rows:
    m = re.search(r"^file: (.*)$", host, re.M)
    if m:
        P("File: " + m.group(1) + "; `--threads=%d` = all host CPUs%s." % (2, "" if os.cpu_count() == 2 else
          " NOT: the host has %d, bench-setup.sh always uses 2" % os.cpu_count()))
        P("")
    P("| command | MiB/s | × sha256sum |")
    P("|---|---:|---:|")
    for name, mibs, x in rows:
        P("| %s | %s | %s |" % (name, mibs, "1.00" if name == "sha256sum" else x))
    for line in re.findall(r"^peak RSS.*$", host, re.M):
        P("")
        P(line.rstrip())
else:
    P("not measured: " + (host.strip().splitlines() or ["no output"])[-1])
P("")

# ---------------------------------------------------------------- notes
P("## Not measured / caveats")
P("")
dmb = [int(r["bufio"]) for r in recs if r["sec"] in ("seq", "ttfb") and r.get("cfg") == "dmverity" and "bufio" in r]
if dmb:
    P("- dm-verity verifies every block of the device, the filesystem's metadata included; its image "
      "is an ext4 filesystem without journal, mounted read-only, on a third and fourth disk (data, "
      "hash tree), made on the host by `veritysetup format` (scripts/bench.sh).  Before each cold "
      "read, drop_caches with dm-bufio's `retain_bytes=0` left it holding %d to %d KiB (median %d KiB) "
      "of hash blocks (of %d KiB of tree for the image; dm-verity prefetches them 256 KiB at a "
      "time): its cold figures are partly warm, which favours dm-verity." % (min(dmb) // 1024, max(dmb) // 1024,
      statistics.median(dmb) // 1024, os.path.getsize(os.path.join(OUT, "dm-verity", "hash.img")) // 1024))
elif fss:
    P("- dm-verity: not measured in this run (BENCH_DMVERITY=0, or the device was missing: see raw.log).")
if sel("ttfb", cfg="ima") or sel("seq", cfg="ima"):
    P("- IMA here measures (policy `measure func=FILE_CHECK`), it does not appraise; IMA reads the "
      "file through the page cache, so the read after its hash comes from memory.  fs-verity files "
      "under the `digest_type=verity` rule cost IMA one call to fsverity_get_digest().")
else:
    P("- IMA: not measured in this run (see raw.log).")
P("- Absolute figures are those of an emulated CPU (TCG); on real hardware the hash-bound cases "
  "shift, the ratios here say how the configurations compare under the same conditions.")
P("- The scratch disks are raw image files in the host's page cache (cache=unsafe): \"disk\" reads "
  "are fast relative to hashing, as with an SSD.")
P("")
P("Files: results.md, seq-read.png, ttfb.png, raw.log (the guest's records), host-setup.txt, boot.log.")

if not any(w.startswith("fs-verity's first read") for _, w in goals):
    goals.append(("not measured", "fs-verity's first read within %g× of the plain first read" % GOAL_TTFB))
open(os.path.join(OUT, "results.md"), "w").write("\n".join(L) + "\n")
with open(os.path.join(OUT, "goals.txt"), "w") as o:
    for verdict, what in goals:
        o.write("%s\t%s\n" % (verdict, what))

# ---------------------------------------------------------------- plots
with open(os.path.join(OUT, "seq-read.dat"), "w") as o:
    o.write("# config read/plain limit(1-stream hash)/plain limit(all-CPU hash)/plain\n")
    for name, v, l1, l2 in seqdat:
        o.write('"%s" %.4f %.4f %.4f\n' % (name, v, l1, l2))
with open(os.path.join(OUT, "ttfb.dat"), "w") as o:
    o.write("# fs size_mib verity/plain sha256sum/plain dm-verity/plain ima-hash/plain ima-verity/plain\n")
    for fs in fss:
        for n in sizes:
            p, *rest = ttfbdat[fs].get(n, (None,) * 6)
            if p:
                o.write("%s %d %s\n" % (fs, n, " ".join("%.4f" % (x / p) if x else "NaN" for x in rest)))
PY

cat >"$OUT/seq-read.gp" <<EOF
set terminal pngcairo noenhanced size 1100,560 font "DejaVu Sans,10"
set output "$OUT/seq-read.png"
set title "Sequential read after drop_caches, ${seq_mib:-?} MiB, relative to the plain read of the same filesystem (medians, one VM run)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel "throughput / plain read"
set yrange [0:1.15]
set grid ytics
set key below
set xtics rotate by -30 nomirror
plot "$OUT/seq-read.dat" using 2:xtic(1) title "measured read" lc rgb "#1f77b4", \
     "" using 3 title "limit: min(plain, kernel hash, 1 stream)" lc rgb "#ff7f0e", \
     "" using 4 title "min(plain, kernel hash on all CPUs)" lc rgb "#c7c7c7"
EOF
cat >"$OUT/ttfb.gp" <<EOF
set terminal pngcairo noenhanced size 1000,700 font "DejaVu Sans,10"
set output "$OUT/ttfb.png"
set title "Time to first byte vs file size, relative to the plain file's first 4 KiB read (medians)"
set logscale xy 2
set xlabel "file size (MiB)"
set ylabel "time / plain open + first 4 KiB read"
set xtics ($(awk '!/^#/ { print $2 }' "$OUT/ttfb.dat" | sort -nu | awk '{printf "%s\"%s\" %s", (NR > 1 ? ", " : ""), $1, $1}'))
set offsets graph 0.04, graph 0.04, 0, 0
set grid
set key below maxrows 4
set yrange [0.5:*]
plot "< grep ^ext4 $OUT/ttfb.dat" using 2:3 with linespoints lw 2 pt 7 title "ext4: fs-verity open + first 4 KiB", \
     "< grep ^f2fs $OUT/ttfb.dat" using 2:3 with linespoints lw 2 pt 5 title "f2fs: fs-verity open + first 4 KiB", \
     "< grep ^ext4 $OUT/ttfb.dat" using 2:4 with linespoints lw 2 pt 6 dt 2 title "ext4: sha256sum of the whole file", \
     "< grep ^f2fs $OUT/ttfb.dat" using 2:4 with linespoints lw 2 pt 4 dt 2 title "f2fs: sha256sum of the whole file", \
     "< grep ^ext4 $OUT/ttfb.dat" using 2:5 with linespoints lw 2 pt 9 title "ext4: dm-verity", \
     "< grep ^ext4 $OUT/ttfb.dat" using 2:6 with linespoints lw 2 pt 8 dt 4 title "ext4: IMA hash at open", \
     "< grep ^f2fs $OUT/ttfb.dat" using 2:6 with linespoints lw 2 pt 10 dt 4 title "f2fs: IMA hash at open", \
     "< grep ^ext4 $OUT/ttfb.dat" using 2:7 with linespoints lw 2 pt 11 dt 5 title "ext4: IMA digest_type=verity", \
     "< grep ^f2fs $OUT/ttfb.dat" using 2:7 with linespoints lw 2 pt 12 dt 5 title "f2fs: IMA digest_type=verity", \
     $GOAL_TTFB_FACTOR with lines lw 2 dt 3 lc rgb "#d62728" title "goal: ${GOAL_TTFB_FACTOR}x the plain first read"
EOF
plots=()
for p in seq-read ttfb; do
	if [ -s "$OUT/$p.dat" ] && [ "$(grep -vc '^#' "$OUT/$p.dat")" -gt 0 ] &&
		gnuplot "$OUT/$p.gp" 2>"$OUT/$p.gnuplot.log"; then
		plots+=("${OUT#"$ROOT"/}/$p.png")
	else
		info "bench: no $p plot (no data, or gnuplot failed: ${OUT#"$ROOT"/}/$p.gnuplot.log)"
	fi
done

echo
cat "$OUT/results.md"
echo
info "bench: ${OUT#"$ROOT"/}/results.md${plots[*]:+, ${plots[*]}}; $(($(date +%s) - start)) s; load average at end $load_end"

# The verdicts last, one line each: a goal NOT met fails make bench, as
# does a failed boot (a section that failed, a kernel log not clean).
missed=0
while IFS=$'\t' read -r verdict what; do
	echo "bench: goal $verdict: $what"
	[ "$verdict" != "NOT met" ] || missed=$((missed + 1))
done <"$OUT/goals.txt"
[ "$boot_status" -eq 0 ] || { echo "bench: FAILED: the bench boot failed (status $boot_status, see ${OUT#"$ROOT"/}/boot.log)"; exit "$boot_status"; }
[ "$missed" -eq 0 ] || { echo "bench: FAILED: $missed goal(s) NOT met"; exit 1; }
