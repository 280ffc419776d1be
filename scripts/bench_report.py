#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: the medians, the ratios and the goals of a bench run.

scripts/bench.sh runs it after the bench boot, on the folder OUT
(build/bench/), which holds:

  raw.log           the guest's records, "B SECTION key=value..." lines
                    (tests/vm/bench.sh); other lines are ignored
  host-setup.txt    the output of tests/host/bench-setup.sh
  monitor.log       "SECONDS QEMU_PROCESSES LOAD" lines, every 5 s of the run
  dm-verity/hash.img  the dm-verity image's hash tree (its size is reported)

and writes into it results.md (every figure a median of the repetitions,
shown as a ratio to a baseline of the same run, and the floor of each
random, first-read and stat case: the least any implementation that
verifies what it reads must add to the plain file's time in this run,
see Report.floor()), goals.txt (one
"VERDICT<TAB>WHAT" line per goal, VERDICT being "met", "NOT met" or "not
measured"), and seq-read.dat and ttfb.dat, the plots' data.

Environment: OUT; the goals: GOAL_SEQ_VS_DMVERITY (verified sequential
SHA-256 reads at least this fraction of dm-verity's in the same run),
GOAL_SHA512_FRACTION (SHA-512 reads at least this fraction of
min(plain read, one-stream kernel hash)), GOAL_TTFB_EXT4 and GOAL_TTFB_F2FS
(fs-verity's first read within this factor of the plain file's, at every
size), GOAL_RAND_COLD and GOAL_RAND_WARM (random 4 KiB reads within this
factor of the plain file's), GOAL_STAT (stat of uncached verity files
within this factor of plain ones'); the run's
times in seconds since the epoch: start, host_start, host_end, vm_start,
vm_end; load_start and load_end (/proc/loadavg's first three fields);
boot_status (the bench boot's exit status); accel (tcg or kvm, may be empty).
"""

import os
import re
import statistics
import sys
import time
from collections import defaultdict, namedtuple

ALGS = ["sha256", "sha512", "crc32c"]


def parse_records(lines):
    """The "B SECTION key=value..." lines of the guest's output, as dicts
    with the section under "sec"; a word without "=" is ignored."""
    recs = []
    for line in lines:
        t = line.split()
        if len(t) < 2 or t[0] != "B":
            continue
        r = {"sec": t[1]}
        for kv in t[2:]:
            if "=" in kv:
                k, v = kv.split("=", 1)
                r[k] = v
        recs.append(r)
    return recs


def med(vals):
    """The median of vals (numbers or numeric strings), None if empty."""
    vals = [float(v) for v in vals]
    return statistics.median(vals) if vals else None


def fmt(x, form="%.1f"):
    return "n/a" if x is None else form % x


def ratio(a, b, form="%.2f"):
    """a / b formatted, "n/a" when either is missing or b is 0."""
    return "n/a" if a is None or b is None or b == 0 else form % (a / b)


def at_least(pairs):
    """The verdict of a goal "every value >= its bound" over (value, bound)
    pairs, the values rounded to two decimals as results.md prints them."""
    return "met" if all(round(v, 2) >= b for v, b in pairs) else "NOT met"


def at_most(pairs):
    """The verdict of a goal "every value <= its bound", rounded the same way."""
    return "met" if all(round(v, 2) <= b for v, b in pairs) else "NOT met"


def mbps_of(r):
    """A seq record's throughput, MB/s (bytes per µs)."""
    return int(r["bytes"]) / int(r["usec"])


def us_per_read(r):
    """A rand record's time per read, µs."""
    return int(r["usec"]) / int(r["reads"])


def us_per_file(r):
    """A stat record's time per file, µs (a record of no file counts one)."""
    return int(r["usec"]) / max(1, int(r["files"]))


def spread(ratios, what="repetitions"):
    """The range of a goal's ratio over the repetitions (or the samples),
    for its verdict line: " (repetitions LOW-HIGH)", or "" with fewer than
    two."""
    ratios = list(ratios)
    if len(ratios) < 2:
        return ""
    return " (%s %.2f-%.2f)" % (what, min(ratios), max(ratios))


# SHA-256 over 4 KiB blocks: the digests one tree block holds
TREE_ARITY = 4096 // 32


def tree_depth(data_bytes):
    """The levels of the SHA-256 Merkle tree of a file of data_bytes (4 KiB
    blocks): a cold read verifies one block of each."""
    blocks, depth = max(1, -(-data_bytes // 4096)), 0
    while True:
        blocks, depth = -(-blocks // TREE_ARITY), depth + 1
        if blocks == 1:
            return depth


def floor_class(floor, floor_nohash, bound):
    """Where a case stands against its goal's bound (× plain): "within
    reach" when its floor is within it; "out of reach here: hashing" when
    only the hashing the emulated CPU does puts the floor above it;
    "out of reach by design" when the dependent reads alone do; "n/a"
    without a floor."""
    if floor_nohash is None:
        return "n/a"
    if round(floor_nohash, 2) > bound:
        return "out of reach by design"
    if floor is None:
        return "n/a"
    return "within reach" if round(floor, 2) <= bound else "out of reach here: hashing"


# floor_class()'s verdicts, the worst last
FLOOR_CLASSES = ["n/a", "within reach", "out of reach here: hashing", "out of reach by design"]

# A row of the floors table (Report.floor()): times in µs, floor and
# nohash None when not measured, cls its floor_class() against bound
Floor = namedtuple("Floor", "goal fs case plain verity floor nohash parts cls bound")


class Report:
    """results.md's lines, the goals and the plots' data of one run."""

    def __init__(self, out, env):
        self.out = out
        self.env = env
        self.g_seq_dmv = float(env["GOAL_SEQ_VS_DMVERITY"])
        self.g_sha512 = float(env["GOAL_SHA512_FRACTION"])
        self.g_ttfb = {"ext4": float(env["GOAL_TTFB_EXT4"]), "f2fs": float(env["GOAL_TTFB_F2FS"])}
        self.g_rand = {"cold": float(env["GOAL_RAND_COLD"]), "warm": float(env["GOAL_RAND_WARM"])}
        self.g_stat = float(env["GOAL_STAT"])
        with open(os.path.join(out, "raw.log"), errors="replace") as raw:
            self.recs = parse_records(raw)
        self.info = (self.sel("info") or [{}])[0]
        self.runs = int(self.info.get("runs", "0") or 0)
        self.fss = [fs for fs in ("ext4", "f2fs")
                    if any(self.sel(sec, fs=fs) for sec in ("seq", "rand", "ttfb", "stat", "enable"))]
        self.drivers = {r["cfg"]: r.get("driver", "?") for r in self.sel("driver")}
        self.seq_mib = self.info.get("seq_mib", "?")
        self.sizes = [int(s) for s in self.info.get("sizes", "").split(",") if s]
        self.lines = []
        # (met | NOT met | not measured, what), in goals.txt's order
        self.goals = []
        self.hash_mbps = {}
        # the floors table's rows, Floor tuples
        self.floors = []
        self.seqdat = []
        self.ttfbdat = defaultdict(dict)

    def sel(self, sec, **kw):
        """The records of section sec whose keys have the values kw."""
        return [r for r in self.recs
                if r["sec"] == sec and all(r.get(k) == str(v) for k, v in kw.items())]

    def P(self, line):
        self.lines.append(line)

    def rep_ratios(self, sec, num, den, value):
        """{rep: value(a) / value(b)} for each repetition (rep=) that has a
        record a of section sec matching the dict num and a record b
        matching den: how a ratio of medians varies from one repetition to
        the next."""
        a = {r["rep"]: value(r) for r in self.sel(sec, **num) if "rep" in r}
        b = {r["rep"]: value(r) for r in self.sel(sec, **den) if "rep" in r}
        return {k: a[k] / b[k] for k in a if k in b and b[k]}

    def build(self):
        self.header()
        self.hash_section()
        self.seq_section()
        self.rand_section()
        self.ttfb_section()
        self.stat_section()
        self.floors_section()
        self.enable_section()
        self.host_section()
        self.notes()
        self.order_goals()

    def goal(self, name, pairs, judge, detail):
        """Record the goal name: judge (at_least or at_most) over its
        (value, bound) pairs, "not measured" without any; print it."""
        if not pairs:
            self.goals.append(("not measured", name))
            return
        self.goals.append((judge(pairs), "%s: %s" % (name, detail)))
        self.P("Goal, %s → %s." % (self.goals[-1][1], self.goals[-1][0]))
        self.P("")

    def order_goals(self):
        """Every goal in goals.txt, in GOALS' order; one that no section
        judged is "not measured"."""
        names = [n for n, _ in self.goal_names()]
        have = {what.split(": ")[0] for _, what in self.goals}
        for name, why in self.goal_names():
            if name not in have:
                self.goals.append(("not measured", name + (" (%s)" % why if why else "")))
        self.goals.sort(key=lambda g: next(i for i, n in enumerate(names) if g[1].startswith(n)))

    def goal_names(self):
        """(name, why it may be not measured) of every goal, in order."""
        return [
            ("sequential SHA-256 read at >= %g× dm-verity's in the same run" % self.g_seq_dmv, ""),
            ("sequential SHA-512 read at >= %g of min(plain, one-stream hash)" % self.g_sha512, ""),
            ("fs-verity's first read within %s of the plain first read at every size"
             % ", ".join("%g× on %s" % (f, fs) for fs, f in self.g_ttfb.items()), ""),
            ("a cold first read waits on at most one dependent round trip more than the plain "
             "file's (the metadata at open; the data and all its tree levels together)", ""),
            ("random 4 KiB reads, cold, within %g× of plain" % self.g_rand["cold"], ""),
            ("random 4 KiB reads, warm, within %g× of plain" % self.g_rand["warm"], ""),
            ("stat of %s uncached verity files, signed or not, within %g× of plain files"
             % (self.info.get("stat_files", "?"), self.g_stat), ""),
        ]

    def header(self):
        P, E, info = self.P, self.env, self.info
        P("# fs-verity benchmark (`make bench`)")
        P("")
        P("Measured %s in one VM boot: kernel %s, QEMU %s, %s guest CPUs, %s MiB; host: %d CPUs. "
          % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(int(E["vm_start"]))), (info.get("kernel", "?") + " " + info.get("build", "")).strip(),
             (E.get("accel") or "?").upper(), info.get("cpus", "?"), info.get("mem_mib", "?"), os.cpu_count()))
        P("Every figure is a median of the repetitions (%s unless stated) and is shown as a ratio to a "
          "baseline of the same run; absolute MB/s and ms are those of the emulated guest "
          "(TCG: slow, only their ratios mean something).  MB/s = 10^6 bytes/s." % self.runs)
        P("")
        mon = []
        try:
            with open(os.path.join(self.out, "monitor.log")) as monitor:
                for line in monitor:
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
          % (E["load_start"], E["load_end"], fmt(max([m[2] for m in during], default=None), "%.2f"),
             "none" if others <= 0 else
             "%d, in %d of the %d samples, from %d s to %d s after the boot started (the numbers of "
             "that part of the run are skewed)" % (others, len(busy), len(during), min(busy), max(busy))))
        P("Runtime of scripts/bench.sh: %d s (host side %d s, VM boot %d s); the guest status: %s."
          % (int(time.time()) - int(E["start"]), int(E["host_end"]) - int(E["host_start"]),
             vm1 - vm0, "ok" if E["boot_status"] == "0" else "FAILED (status %s, see boot.log)" % E["boot_status"]))
        P("")

    def hash_section(self):
        P, sel, info = self.P, self.sel, self.info
        if not sel("hash"):
            return
        P("## Kernel hash throughput (AF_ALG, %s MiB, the baseline of verified reads)" % info.get("hash_mib", "?"))
        P("")
        P("| algorithm | driver | 1 stream MB/s | one digest per 4 KiB block MB/s | %s streams at once (all CPUs) MB/s |" % info.get("cpus", "?"))
        P("|---|---|---:|---:|---:|")
        for a in ALGS:
            m = {mode: med([r["mbps"] for r in sel("hash", cfg=a, mode=mode)]) for mode in ("stream", "block4k", "allcpus")}
            self.hash_mbps[a] = m
            P("| %s | %s | %s | %s | %s |" % (a, self.drivers.get(a, "?"), fmt(m["stream"]), fmt(m["block4k"]), fmt(m["allcpus"])))
        P("")

    def hash_us(self):
        """µs to hash one 4 KiB block with SHA-256 in this run, at the hash
        section's one-stream rate (MB/s = bytes per µs); None unmeasured."""
        mbps = self.hash_mbps.get("sha256", {}).get("stream")
        return 4096 / mbps if mbps else None

    def floor(self, goal, fs, case, times, bound, blocks, dep_us, parts):
        """Record a case of the goal named goal against its floor: times =
        (plain, fs-verity) µs; the floor is the plain time plus the blocks
        any implementation that verifies what it reads must hash (at
        hash_us()) plus dep_us, the dependent reads it must wait on that
        the plain file does not (None if not measured); parts says what
        they are; its class is floor_class() against bound."""
        plain, verity = times
        if plain is None or verity is None:
            return
        h = self.hash_us()
        nohash = None if dep_us is None else plain + dep_us
        fl = None if nohash is None or h is None else nohash + blocks * h
        cls = floor_class(None if fl is None else fl / plain,
                          None if nohash is None else nohash / plain, bound)
        self.floors.append(Floor(goal, fs, case, plain, verity, fl, nohash, parts, cls, bound))

    def floor_note(self, goal):
        """The floors of the goal's cases for its verdict line: per fs the
        highest floor (× plain) and the worst class, or "" without any."""
        per = {}
        for f in self.floors:
            if f.goal != goal:
                continue
            top, worst = per.get(f.fs, (None, "n/a"))
            if f.floor is not None:
                top = max(top or 0, f.floor / f.plain)
            per[f.fs] = (top, max(worst, f.cls, key=FLOOR_CLASSES.index))
        if not per:
            return ""
        return " (floor %s)" % "; ".join("%s %s: %s" % (fs, fmt(top, "%.2f×"), cls)
                                         for fs, (top, cls) in per.items())

    def seq_mbps(self, fs, cfg):
        rs = self.sel("seq", fs=fs, cfg=cfg)
        return med([mbps_of(r) for r in rs]) if rs else None

    def seq_section(self):
        P, sel = self.P, self.sel
        # cfg -> fs -> (MB/s, limit)
        seqv = {"sha256": {}, "sha512": {}, "dmverity": {}}
        if sel("seq"):
            P("## Sequential read of a %s MiB file after drop_caches" % self.seq_mib)
            P("")
            P("limit = min(plain read, kernel hash of one stream); fs-verity's read workqueue verifies on up to "
              "%s CPUs at once, so the last column also gives the fraction of min(plain, hash on all CPUs)." % self.info.get("cpus", "?"))
            P("")
            P("| fs | file | MB/s | × plain | hash MB/s (1 stream) | limit MB/s | fraction of limit | fraction of min(plain, all-CPU hash) |")
            P("|---|---|---:|---:|---:|---:|---:|---:|")
            for fs in self.fss:
                plain = self.seq_mbps(fs, "plain")
                P("| %s | plain | %s | 1.00 | | | | |" % (fs, fmt(plain)))
                self.seqdat.append(("%s plain" % fs, 1.0, 1.0, 1.0))
                rows = [(a, a, "verity " + a, "%s %s" % (fs, a)) for a in ALGS]
                if sel("seq", fs=fs, cfg="dmverity"):
                    rows.append(("dmverity", "sha256", "dm-verity sha256 (block device)", "%s dm-verity" % fs))
                if sel("seq", fs=fs, cfg="ima"):
                    rows.append(("ima", "sha256", "IMA: sha256 of the file at open, then the read", "%s IMA hash at open" % fs))
                for cfg, a, label, short in rows:
                    v = self.seq_mbps(fs, cfg)
                    h = self.hash_mbps.get(a, {}).get("stream")
                    h2 = self.hash_mbps.get(a, {}).get("allcpus")
                    lim = min(plain, h) if plain and h else None
                    lim2 = min(plain, h2) if plain and h2 else None
                    P("| %s | %s | %s | %s | %s | %s | %s | %s |" % (fs, label, fmt(v), ratio(v, plain), fmt(h), fmt(lim), ratio(v, lim), ratio(v, lim2)))
                    if plain and v:
                        self.seqdat.append((short, v / plain, (lim or 0) / plain, (lim2 or 0) / plain))
                    if v and cfg in ("sha256", "sha512", "dmverity"):
                        seqv[cfg][fs] = (v, lim)
            P("")
        dmv = [v for v, _ in seqv["dmverity"].values()]
        vals = {fs: v / dmv[0] for fs, (v, _) in seqv["sha256"].items()} if dmv else {}
        self.goal(self.goal_names()[0][0], [(x, self.g_seq_dmv) for x in vals.values()], at_least,
                  ", ".join("%s %.2f×%s" % (fs, x, spread(self.rep_ratios(
                      "seq", {"fs": fs, "cfg": "sha256"}, {"fs": next(iter(seqv["dmverity"])), "cfg": "dmverity"}, mbps_of).values()))
                      for fs, x in vals.items()))
        vals = {fs: v / lim for fs, (v, lim) in seqv["sha512"].items() if lim}
        self.goal(self.goal_names()[1][0], [(x, self.g_sha512) for x in vals.values()], at_least,
                  ", ".join("%s %.2f" % kv for kv in vals.items()))

    def rand_us(self, fs, cfg, state):
        """The median time per read of the rand records of fs, cfg and
        state, µs; None without any."""
        return med([us_per_read(r) for r in self.sel("rand", fs=fs, cfg=cfg, state=state)])

    def rand_section(self):
        P, sel = self.P, self.sel
        if not sel("rand"):
            return
        P("## Random 4 KiB reads (%s preads per pass in the %s MiB plain and SHA-256 files)" % (self.info.get("rand_reads", "?"), self.seq_mib))
        P("")
        P("One read at a random block of each 512 KiB region (the data one SHA-256 tree block covers), the "
          "regions in a scrambled order.  cold: after drop_caches, every read needs its own tree block; "
          "warm: right after, another random block of each region (data not cached, the verified tree "
          "blocks are); hot: the cold pass's blocks again (all in the page cache).")
        P("")
        P("| fs | state | plain µs/read | fs-verity µs/read | fs-verity / plain | dm-verity µs/read | dm-verity / plain |")
        P("|---|---|---:|---:|---:|---:|---:|")
        savings = []
        factors = {"cold": {}, "warm": {}}
        for fs in self.fss:
            per = {}
            for st in ("cold", "warm", "hot"):
                p, v, d = (self.rand_us(fs, cfg, st) for cfg in ("plain", "sha256", "dmverity"))
                per[st] = (p, v)
                if st in factors and p and v:
                    factors[st][fs] = v / p
                P("| %s | %s | %s | %s | %s | %s | %s |" % (fs, st, fmt(p), fmt(v), ratio(v, p), fmt(d), ratio(d, p)))
            self.floor("random cold", fs, "cold", per["cold"], self.g_rand["cold"], 2, 0,
                       "2 blocks hashed: the data block and its level-0 tree block")
            self.floor("random warm", fs, "warm", per["warm"], self.g_rand["warm"], 1, 0,
                       "1 block hashed: the data block")
            (pc, vc), (pw, vw) = per["cold"], per["warm"]
            if None not in (pc, vc, pw, vw):
                savings.append("%s: verity's extra cost per read %.0f µs cold, %.0f µs warm (%s of the cold cost saved)"
                               % (fs, vc - pc, vw - pw, "%.0f%%" % (100 * (1 - (vw - pw) / (vc - pc))) if vc > pc else "n/a"))
        P("")
        if savings:
            P("What the cached tree pages save: " + "; ".join(savings) + ".")
            P("")
        for i, st in ((4, "cold"), (5, "warm")):
            self.goal(self.goal_names()[i][0], [(x, self.g_rand[st]) for x in factors[st].values()], at_most,
                      ", ".join("%s %.2f×%s" % (fs, x, spread(self.rep_ratios(
                          "rand", {"fs": fs, "cfg": "sha256", "state": st}, {"fs": fs, "cfg": "plain", "state": st},
                          us_per_read).values())) for fs, x in factors[st].items())
                      + self.floor_note("random " + st))

    def ms(self, sec, **kw):
        """The median time (usec=) of the records sel(sec, **kw), in ms."""
        return med([int(r["usec"]) / 1000 for r in self.sel(sec, **kw)])

    def open_ms(self, fs, cfg, n):
        """The median open(2) time of the ttfb records of fs, cfg and size
        n, ms; None without any."""
        return med([int(r["open_usec"]) / 1000 for r in self.sel("ttfb", fs=fs, cfg=cfg, mib=n) if "open_usec" in r])

    def ttfb_section(self):
        P, sel, info, fss, sizes = self.P, self.sel, self.info, self.fss, self.sizes
        if not sel("ttfb"):
            return
        P("## Time to first byte: open + read of the first 4 KiB after drop_caches (SHA-256 files)")
        P("")
        P("Medians of %s samples per size (%s per repetition); sha256sum of the whole file (what hashing "
          "at open costs, IMA's way) after drop_caches, %s samples."
          % (self.runs * int(info.get("ttfb_samples", "1")), info.get("ttfb_samples", "1"), self.runs))
        P("")
        P("Beside fs-verity: dm-verity (the same read on the ext4 filesystem of a dm-verity device, its "
          "hash-block cache emptied too), IMA hashing the whole file at open (a plain file whose owner an "
          "`ima-ng` rule matches; one sample per repetition), IMA with `digest_type=verity` on the fs-verity "
          "file (IMA records the fs-verity measurement instead of reading the data).")
        P("")
        P("| fs | size MiB | plain ms | fs-verity ms | × plain | dm-verity ms | × plain | IMA + fs-verity ms | × plain | IMA hash at open ms | × plain | sha256sum whole file ms | × plain |")
        P("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        worst = {}
        for fs in fss:
            for n in sizes:
                p, v, d, iv, ih = (self.ms("ttfb", fs=fs, cfg=cfg, mib=n)
                                   for cfg in ("plain", "verity", "dmverity", "ima-verity", "ima"))
                h = self.ms("fullhash", fs=fs, mib=n)
                P("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
                  % (fs, n, fmt(p, "%.2f"), fmt(v, "%.2f"), ratio(v, p), fmt(d, "%.2f"), ratio(d, p),
                     fmt(iv, "%.2f"), ratio(iv, p), fmt(ih, "%.0f"), ratio(ih, p, "%.0f"), fmt(h, "%.0f"), ratio(h, p, "%.0f")))
                self.ttfbdat[fs][n] = (p, v, h, d, ih, iv)
                po = self.open_ms(fs, "plain", n)
                depth = tree_depth(n << 20)
                self.floor("first read", fs, "%d MiB" % n, (p and p * 1000, v and v * 1000), self.g_ttfb[fs],
                           1 + depth, None if p is None or po is None else (p - po) * 1000,
                           "%d blocks hashed: the data block and one per tree level; one more dependent read, "
                           "the metadata at open" % (1 + depth))
                if p and v:
                    worst[fs] = max(worst.get(fs, 0), v / p)
        P("")
        opens = []
        for fs in fss:
            for n in sizes:
                po, vo = (self.open_ms(fs, cfg, n) for cfg in ("plain", "verity"))
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
              "fs-verity reads the footer (and the descriptor, when the footer's page does not hold "
              "it all) at open, then the data together with the tree pages it needs, all levels at "
              "once (fsverity_readahead()); the counts do not show which requests overlapped.  dm-verity's hash blocks mostly stay in dm-bufio (see the caveats), "
              "so it makes the data request alone; what it still costs over the plain read is the "
              "hashing of the blocks read and the hop to its verification work queue.")
            P("")
        self.waves_part()
        reps = {}
        for fs in worst:
            # each sample (rep=N.M), at its worst size
            per = [self.rep_ratios("ttfb", {"fs": fs, "cfg": "verity", "mib": n}, {"fs": fs, "cfg": "plain", "mib": n},
                                   lambda r: int(r["usec"])) for n in sizes]
            reps[fs] = [max(d[k] for d in per) for k in set.intersection(*(set(d) for d in per))]
        self.goal(self.goal_names()[2][0], [(w, self.g_ttfb[fs]) for fs, w in worst.items()], at_most,
                  ", ".join("%s worst %.2f×%s" % (fs, w, spread(reps[fs], "samples")) for fs, w in worst.items())
                  + self.floor_note("first read"))
        grow = []
        for fs in fss:
            d = self.ttfbdat[fs]
            if sizes and d.get(sizes[0], (0, 0, None))[2] and d.get(sizes[-1], (0, 0, None))[2]:
                grow.append("%s ×%.1f" % (fs, d[sizes[-1]][2] / d[sizes[0]][2]))
        if grow and len(sizes) > 1:
            P("sha256sum from %d to %d MiB (×%d the data): %s." % (sizes[0], sizes[-1], sizes[-1] // sizes[0], ", ".join(grow)))
        P("")

    def table_head(self, intro, header, sep):
        """A paragraph, then the header and separator lines of a table."""
        self.P(intro)
        self.P("")
        self.P(header)
        self.P(sep)

    def waves_part(self):
        """The traced open + first read of each size: its dependent round
        trips (waves) and read requests, and the round-trip goal."""
        P, sel = self.P, self.sel
        if not sel("waves"):
            return
        self.table_head("Dependent round trips of one more open + first read per size, its block requests "
                        "traced (the `B rq` records of raw.log are the timeline, in µs): waves = the times a "
                        "read request was issued while none was in flight; requests in brackets.",
                        "| fs | size MiB | plain | fs-verity | dm-verity |", "|---|---:|---:|---:|---:|")
        pairs, detail = [], []
        for fs in self.fss:
            for n in self.sizes:
                w = {}
                for cfg in ("plain", "verity", "dmverity"):
                    r = self.sel("waves", fs=fs, cfg=cfg, mib=n)
                    w[cfg] = (int(r[0]["waves"]), int(r[0]["reqs"])) if r else None
                P("| %s | %d | %s |" % (fs, n, " | ".join("%d (%d)" % w[c] if w[c] else "n/a"
                                                       for c in ("plain", "verity", "dmverity"))))
                if w["plain"] and w["verity"]:
                    pairs.append((w["verity"][0] - w["plain"][0], 1))
                    detail.append("%s %d MiB %d vs %d" % (fs, n, w["verity"][0], w["plain"][0]))
        P("")
        self.goal(self.goal_names()[3][0], pairs, at_most, "fs-verity vs plain " + ", ".join(detail))

    def stat_section(self):
        P, sel = self.P, self.sel
        if not sel("stat"):
            return
        P("## stat of %s uncached files (readdir + stat(2) of each, as `ls -l`, after drop_caches)"
          % self.info.get("stat_files", "?"))
        P("")
        self.table_head("4 KiB files: plain, verity, verity with a PKCS#7 signature (its certificate trusted).  "
                        "f2fs keeps the full size of a verity file on disk and sets up the metadata at stat() "
                        "to report the data size (reading the footer and descriptor; the signature is left to the first open); "
                        "ext4 keeps the data size.",
                        "| fs | plain µs/file | verity µs/file | × plain | signed µs/file | × plain |",
                        "|---|---:|---:|---:|---:|---:|")
        pairs, detail = [], []
        for fs in self.fss:
            per = {c: med([us_per_file(r) for r in sel("stat", fs=fs, cfg=c) if int(r["files"])])
                   for c in ("plain", "verity", "signed")}
            P("| %s | %s | %s | %s | %s | %s |" % (fs, fmt(per["plain"]), fmt(per["verity"]), ratio(per["verity"], per["plain"]),
                                                   fmt(per["signed"]), ratio(per["signed"], per["plain"])))
            # f2fs reads the file's last page to learn the data size: one
            # uncached 4 KiB read, as the random section's plain file
            # costs it (cold - hot); ext4 keeps the data size
            read = None
            if fs == "f2fs":
                cold, hot = (self.rand_us(fs, "plain", st) for st in ("cold", "hot"))
                read = None if cold is None or hot is None else cold - hot
            for c in ("verity", "signed"):
                if per[c] and per["plain"]:
                    pairs.append((per[c] / per["plain"], self.g_stat))
                    detail.append("%s %s %.2f×%s" % (fs, c, per[c] / per["plain"], spread(self.rep_ratios(
                        "stat", {"fs": fs, "cfg": c}, {"fs": fs, "cfg": "plain"},
                        us_per_file).values())))
                self.floor("stat", fs, c, (per["plain"], per[c]), self.g_stat, 0, 0 if fs == "ext4" else read,
                           "none: ext4 keeps the data size" if fs == "ext4" else
                           "one dependent read, the file's last page (f2fs keeps the full size on disk)")
        P("")
        self.goal(self.goal_names()[6][0], pairs, at_most, ", ".join(detail) + self.floor_note("stat"))

    def floors_section(self):
        """The floors table: each random, first-read and stat case against
        the least any verifying implementation adds in this run."""
        P = self.P
        if not self.floors:
            return
        h = self.hash_us()
        P("## Floors: the least any implementation that verifies what it reads adds here")
        P("")
        P("A case's floor is the plain file's time plus what no implementation of this format can skip: "
          "the blocks it must hash before the read returns, at this run's one-stream SHA-256 rate "
          "(%s µs per 4 KiB block), and the dependent reads the plain file does not wait on.  random: "
          "the data block, and when cold its level-0 tree block (its read overlaps the data's); first "
          "read: the data block and one block per tree level, and one more round trip, the metadata "
          "read at open, costed as the plain file's first read (its open + first read minus its open "
          "alone); stat: on f2fs the read of the file's last page (the full size is on disk), costed "
          "as one uncached 4 KiB read of the random section's plain file (cold minus hot), none on "
          "ext4.  Where the case stands: within reach (the floor is within the goal: the rest is the "
          "implementation's), out of reach here: hashing (the floor is above the goal only because of "
          "the emulated CPU's hashing: under TCG a digest costs about 20 times more, relative to a "
          "disk request, than on hardware), out of reach by design (the dependent reads alone are)."
          % fmt(h, "%.0f"))
        P("")
        P("| goal | fs | case | plain µs | fs-verity µs | floor µs | floor × plain | floor without hashing × plain | "
          "goal | fs-verity above its floor µs | what the floor holds | where the case stands |")
        P("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
        for f in self.floors:
            P("| %s | %s | %s | %s | %s | %s | %s | %s | %g× | %s | %s | %s |"
              % (f.goal, f.fs, f.case, fmt(f.plain, "%.0f"), fmt(f.verity, "%.0f"), fmt(f.floor, "%.0f"),
                 ratio(f.floor, f.plain), ratio(f.nohash, f.plain), f.bound,
                 "n/a" if f.floor is None else "%d" % round(f.verity - f.floor), f.parts, f.cls))
        P("")

    def enable_section(self):
        P, sel, sizes = self.P, self.sel, self.sizes
        if not sel("enable"):
            return
        P("## FS_IOC_ENABLE_VERITY and FS_IOC_MEASURE_VERITY across file sizes (SHA-256)")
        P("")
        P("ENABLE after sync + drop_caches (the data already on disk), medians of %s files per size; "
          "MEASURE: open + the first call after drop_caches, and one call on an open file (mean of 1000)."
          % self.info.get("enable_runs", "?"))
        P("")
        P("| fs | size MiB | ENABLE ms | × ENABLE at %s MiB | open + MEASURE ms (cold) | × at %s MiB | MEASURE call µs |" % (sizes[0] if sizes else "?", sizes[0] if sizes else "?"))
        P("|---|---:|---:|---:|---:|---:|---:|")
        for fs in self.fss:
            e0 = m0 = None
            for n in sizes:
                e = self.ms("enable", fs=fs, cfg="sha256", mib=n)
                m = self.ms("measure", fs=fs, cfg="sha256", mib=n)
                each = med([r["each_usec"] for r in sel("measure", fs=fs, cfg="sha256", mib=n)])
                if e0 is None:
                    e0, m0 = e, m
                P("| %s | %d | %s | %s | %s | %s | %s |" % (fs, n, fmt(e, "%.1f"), ratio(e, e0), fmt(m, "%.2f"), ratio(m, m0), fmt(each, "%.1f")))
        P("")

    def host_section(self):
        P = self.P
        with open(os.path.join(self.out, "host-setup.txt"), errors="replace") as f:
            host = f.read()
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

    def notes(self):
        P, sel = self.P, self.sel
        P("## Not measured / caveats")
        P("")
        dmb = [int(r["bufio"]) for r in self.recs if r["sec"] in ("seq", "ttfb") and r.get("cfg") == "dmverity" and "bufio" in r]
        if dmb:
            P("- dm-verity verifies every block of the device, the filesystem's metadata included; its image "
              "is an ext4 filesystem without journal, mounted read-only, on a third and fourth disk (data, "
              "hash tree), made on the host by `veritysetup format` (scripts/bench.sh).  Before each cold "
              "read, drop_caches with dm-bufio's `retain_bytes=0` left it holding %d to %d KiB (median %d KiB) "
              "of hash blocks (of %d KiB of tree for the image; dm-verity prefetches them 256 KiB at a "
              "time): its cold figures are partly warm, which favours dm-verity." % (min(dmb) // 1024, max(dmb) // 1024,
              statistics.median(dmb) // 1024, os.path.getsize(os.path.join(self.out, "dm-verity", "hash.img")) // 1024))
        elif self.fss:
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

    def write(self):
        """results.md, goals.txt and the plots' data into OUT."""
        out = self.out
        with open(os.path.join(out, "results.md"), "w") as o:
            o.write("\n".join(self.lines) + "\n")
        with open(os.path.join(out, "goals.txt"), "w") as o:
            for verdict, what in self.goals:
                o.write("%s\t%s\n" % (verdict, what))
        with open(os.path.join(out, "seq-read.dat"), "w") as o:
            o.write("# config read/plain limit(1-stream hash)/plain limit(all-CPU hash)/plain\n")
            for name, v, l1, l2 in self.seqdat:
                o.write('"%s" %.4f %.4f %.4f\n' % (name, v, l1, l2))
        with open(os.path.join(out, "ttfb.dat"), "w") as o:
            o.write("# fs size_mib verity/plain sha256sum/plain dm-verity/plain ima-hash/plain ima-verity/plain\n")
            for fs in self.fss:
                for n in self.sizes:
                    p, *rest = self.ttfbdat[fs].get(n, (None,) * 6)
                    if p:
                        o.write("%s %d %s\n" % (fs, n, " ".join("%.4f" % (x / p) if x else "NaN" for x in rest)))


def main(env=None):
    env = os.environ if env is None else env
    report = Report(env["OUT"], env)
    report.build()
    report.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
