#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bench_report.py (make bench's report): the parsing
of the guest's records, the medians and ratios, and the goals' verdicts on
small synthetic raw logs.  Run by tests/host/run.sh, or alone:

    python3 -m unittest tests/host/test_bench_report.py
"""

import os
import re
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in scripts/
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import bench_report  # noqa: E402

# One repetition per line group, as tests/vm/bench.sh prints them: the
# sequential read meets its goal (ext4 1.12x dm-verity's), the first read
# does not (2.50x the plain file's), sha512 and random reads were not
# measured.
RAW = """\
# fs-verity benchmark: kernel 6.1.0, 2 CPUs
B info kernel=6.1.0 build=#1 runs=3 seq_mib=256 hash_mib=64 rand_reads=512 ttfb_samples=1 enable_runs=1 stat_files=1000 sizes=16 cpus=2 mem_mib=983
B driver cfg=sha256 driver=sha256-generic
B hash cfg=sha256 mode=stream rep=1 mbps=90.0
B hash cfg=sha256 mode=stream rep=2 mbps=100.0
B hash cfg=sha256 mode=stream rep=3 mbps=110.0
B hash cfg=sha256 mode=allcpus rep=1 mbps=200.0
B seq fs=ext4 cfg=plain mib=256 rep=1 bytes=2000000 usec=9000 end=EOF
B seq fs=ext4 cfg=plain mib=256 rep=2 bytes=2000000 usec=10000 end=EOF
B seq fs=ext4 cfg=plain mib=256 rep=3 bytes=2000000 usec=12000 end=EOF
B seq fs=ext4 cfg=sha256 mib=256 rep=1 bytes=900000 usec=10000 end=EOF
B seq fs=ext4 cfg=dmverity mib=256 rep=1 bytes=800000 usec=10000 end=EOF
B ttfb fs=ext4 cfg=plain mib=16 rep=1.1 bytes=4096 usec=1000 open_usec=100 end=done ios=2
B ttfb fs=ext4 cfg=verity mib=16 rep=1.1 bytes=4096 usec=2500 open_usec=300 end=done ios=5
ok 1 - bench: kernel hash throughput through AF_ALG (sha256 sha512 crc32c)
"""

HOST = """\
file: 1024 MiB in ext4, 2 CPUs, median of 3
sha256sum                       512 MiB/s
setup --threads=2 (sha256)      910 MiB/s  (1.78x sha256sum)
"""

ENV = {"GOAL_SEQ_VS_DMVERITY": "1", "GOAL_SHA512_FRACTION": "0.9", "GOAL_TTFB_EXT4": "1.8",
       "GOAL_TTFB_F2FS": "1.5", "GOAL_RAND_COLD": "1.8", "GOAL_RAND_WARM": "1.4", "GOAL_STAT": "1.3",
       "start": "1000",
       "host_start": "1000", "host_end": "1010", "vm_start": "1010", "vm_end": "1900",
       "load_start": "0.5 0.4 0.3", "load_end": "1.0 0.9 0.8", "boot_status": "0",
       "accel": "tcg"}


# The goals RAW has no records for: the traced first read and stat
NEVER_MEASURED = [
    ("not measured", "a cold first read waits on at most one dependent round trip more than the "
     "plain file's (the metadata at open; the data and all its tree levels together)"),
    ("not measured", "stat of 1000 uncached verity files, signed or not, within 1.3× of plain files")]

# A traced first read (fs-verity: the footer, then the data and its tree
# together: 2 round trips, one more than plain) and stat times (signed
# files 2x plain)
RAW_MORE = """\
B rq fs=ext4 cfg=verity mib=16 t=0 ev=issue dev=254,0 sector=80 sectors=8
B rq fs=ext4 cfg=verity mib=16 t=300 ev=complete dev=254,0 sector=80 sectors=8
B rq fs=ext4 cfg=verity mib=16 t=500 ev=issue dev=254,0 sector=72 sectors=8
B rq fs=ext4 cfg=verity mib=16 t=510 ev=issue dev=254,0 sector=8 sectors=8
B waves fs=ext4 cfg=verity mib=16 reqs=3 waves=2
B waves fs=ext4 cfg=plain mib=16 reqs=1 waves=1
B stat fs=ext4 cfg=plain rep=1 files=1000 usec=100000 end=OK
B stat fs=ext4 cfg=verity rep=1 files=1000 usec=120000 end=OK
B stat fs=ext4 cfg=signed rep=1 files=1000 usec=200000 end=OK
"""


def goals_of_raw(seq, ttfb):
    """goals.txt of a log like RAW, given its sequential and first-read
    goals: every other goal not measured, in goals.txt's order."""
    return [seq, ("not measured", "sequential SHA-512 read at >= 0.9 of min(plain, one-stream hash)"),
            ttfb, NEVER_MEASURED[0],
            ("not measured", "random 4 KiB reads, cold, within 1.8× of plain"),
            ("not measured", "random 4 KiB reads, warm, within 1.4× of plain"), NEVER_MEASURED[1]]


def report_of(raw, host=HOST):
    """Run the report on raw (and host) in a fresh OUT: (results.md, goals)."""
    with tempfile.TemporaryDirectory() as out:
        with open(os.path.join(out, "raw.log"), "w") as f:
            f.write(raw)
        with open(os.path.join(out, "host-setup.txt"), "w") as f:
            f.write(host)
        bench_report.main(dict(ENV, OUT=out))
        with open(os.path.join(out, "results.md")) as f:
            results = f.read()
        with open(os.path.join(out, "goals.txt")) as f:
            goals = [tuple(line.rstrip("\n").split("\t")) for line in f]
        with open(os.path.join(out, "seq-read.dat")) as f:
            seqdat = f.read().splitlines()[1:]
    return results, goals, seqdat


class Parsing(unittest.TestCase):
    def test_records(self):
        recs = bench_report.parse_records([
            "# a progress line\n", "ok 1 - bench: x\n", "B\n",
            "B seq fs=ext4 cfg=plain note bytes=10 x=a=b\n", "B info\n"])
        self.assertEqual(recs, [{"sec": "seq", "fs": "ext4", "cfg": "plain", "bytes": "10", "x": "a=b"},
                                {"sec": "info"}])


class Arithmetic(unittest.TestCase):
    def test_median(self):
        self.assertEqual(bench_report.med(["3", "1", "2"]), 2)
        self.assertEqual(bench_report.med([4, 1, 2, 3]), 2.5)
        self.assertIsNone(bench_report.med([]))

    def test_ratio(self):
        self.assertEqual(bench_report.ratio(90.0, 100.0), "0.90")
        self.assertEqual(bench_report.ratio(2500, 1000, "%.0f"), "2")
        self.assertEqual(bench_report.ratio(None, 1.0), "n/a")
        self.assertEqual(bench_report.ratio(1.0, None), "n/a")
        self.assertEqual(bench_report.ratio(1.0, 0), "n/a")
        self.assertEqual(bench_report.fmt(None), "n/a")
        self.assertEqual(bench_report.fmt(61.04), "61.0")

    def test_verdicts(self):
        # the goals judge the values as printed, to 2 decimals, each
        # against its own bound
        self.assertEqual(bench_report.at_least([(0.796, 0.8), (0.95, 0.9)]), "met")
        self.assertEqual(bench_report.at_least([(0.794, 0.8), (0.95, 0.9)]), "NOT met")
        self.assertEqual(bench_report.at_least([(0.85, 0.8), (0.85, 0.9)]), "NOT met")
        self.assertEqual(bench_report.at_most([(1.2, 1.5), (1.804, 1.8)]), "met")
        self.assertEqual(bench_report.at_most([(1.2, 1.5), (1.806, 1.8)]), "NOT met")
        self.assertEqual(bench_report.at_most([(1.6, 1.5), (1.7, 1.8)]), "NOT met")


class Report(unittest.TestCase):
    def test_goals_met_not_met(self):
        results, goals, seqdat = report_of(RAW)
        self.assertEqual(goals, goals_of_raw(
            ("met", "sequential SHA-256 read at >= 1× dm-verity's in the same run: ext4 1.12×"),
            ("NOT met", "fs-verity's first read within 1.8× on ext4, 1.5× on f2fs of the plain first "
             "read at every size: ext4 worst 2.50× (floor ext4 2.02×: out of reach by design)")))
        # plain 200 MB/s (the median of 222, 200, 167), sha256 90 MB/s,
        # limit min(200, hash 100) = 100; all-CPU limit min(200, 200)
        self.assertIn("| ext4 | plain | 200.0 | 1.00 | | | | |", results)
        self.assertIn("| ext4 | verity sha256 | 90.0 | 0.45 | 100.0 | 100.0 | 0.90 | 0.45 |", results)
        self.assertIn("| ext4 | 16 | 1.00 | 2.50 | 2.50 | n/a |", results)
        self.assertEqual(seqdat, ['"ext4 plain" 1.0000 1.0000 1.0000',
                                  '"ext4 sha256" 0.4500 0.5000 1.0000',
                                  '"ext4 dm-verity" 0.4000 0.5000 1.0000'])

    def test_round_trips_and_stat(self):
        results, goals, _ = report_of(RAW + RAW_MORE)
        self.assertIn(("met", "a cold first read waits on at most one dependent round trip more than "
                       "the plain file's (the metadata at open; the data and all its tree levels "
                       "together): fs-verity vs plain ext4 16 MiB 2 vs 1"), goals)
        self.assertIn(("NOT met", "stat of 1000 uncached verity files, signed or not, within 1.3× of "
                       "plain files: ext4 verity 1.20×, ext4 signed 2.00× (floor ext4 1.00×: within reach)"),
                      goals)
        self.assertIn("| ext4 | 16 | 1 (1) | 2 (3) | n/a |", results)
        self.assertIn("| ext4 | 100.0 | 120.0 | 1.20 | 200.0 | 2.00 |", results)
        # one round trip more than plain is the limit
        results, goals, _ = report_of(RAW + RAW_MORE.replace("reqs=3 waves=2", "reqs=3 waves=3"))
        self.assertEqual([g for g in goals if "round trip" in g[1]][0][0], "NOT met")

    def test_stat_alone(self):
        # a run of the stat section alone (VTEST_FILTER=stat) has its table
        raw = "".join(line + "\n" for line in (RAW + RAW_MORE).splitlines()
                      if line.startswith(("#", "B info", "B stat")))
        results, goals, _ = report_of(raw)
        self.assertIn("| ext4 | 100.0 | 120.0 | 1.20 | 200.0 | 2.00 |", results)

    def test_floors(self):
        # sha256 at 100 MB/s: 40.96 µs a block.  ext4 random reads: plain
        # 200 µs, warm fs-verity 300 (1.50×, NOT met; floor 200 + 41 =
        # 1.20×: within reach).  f2fs stat: plain 100 µs a file, an
        # uncached 4 KiB read 300 - 20 = 280 µs: floor 3.80×, by design.
        # The first read: plain 1000 µs of which the open 100: one more
        # read 900 µs, 3 blocks hashed (16 MiB: 2 tree levels), floor
        # 2023 µs = 2.02×, above 1.8× even without hashing (1.90×).
        raw = RAW + "".join("B rand fs=%s cfg=%s state=%s mib=256 rep=1 reads=10 bytes=40960 usec=%d end=done\n" % r
                            for r in (("ext4", "plain", "cold", 2000), ("ext4", "plain", "warm", 2000),
                                      ("ext4", "sha256", "cold", 3000), ("ext4", "sha256", "warm", 3000),
                                      ("f2fs", "plain", "cold", 3000), ("f2fs", "plain", "hot", 200))) + \
            "B stat fs=f2fs cfg=plain rep=1 files=1000 usec=100000 end=OK\n" \
            "B stat fs=f2fs cfg=verity rep=1 files=1000 usec=500000 end=OK\n"
        results, goals, _ = report_of(raw)
        self.assertIn(("NOT met", "random 4 KiB reads, warm, within 1.4× of plain: ext4 1.50× "
                       "(floor ext4 1.20×: within reach)"), goals)
        self.assertIn(("met", "random 4 KiB reads, cold, within 1.8× of plain: ext4 1.50× "
                       "(floor ext4 1.41×: within reach)"), goals)
        self.assertIn(("NOT met", "stat of 1000 uncached verity files, signed or not, within 1.3× of "
                       "plain files: f2fs verity 5.00× (floor f2fs 3.80×: out of reach by design)"), goals)
        self.assertIn("(41 µs per 4 KiB block)", results)
        self.assertIn("| random warm | ext4 | warm | 200 | 300 | 241 | 1.20 | 1.00 | 1.4× | 59 | "
                      "1 block hashed: the data block | within reach |", results)
        self.assertIn("| first read | ext4 | 16 MiB | 1000 | 2500 | 2023 | 2.02 | 1.90 | 1.8× | 477 |", results)
        self.assertIn("| stat | f2fs | verity | 100 | 500 | 380 | 3.80 | 3.80 | 1.3× | 120 |", results)
        # at 10 MB/s (410 µs a block) the warm floor is 3.05×, above the
        # goal only because of the hashing
        results, goals, _ = report_of(re.sub(r"mbps=(\d+)", lambda m: "mbps=%g" % (int(m.group(1)) / 10), raw))
        self.assertIn(("NOT met", "random 4 KiB reads, warm, within 1.4× of plain: ext4 1.50× "
                       "(floor ext4 3.05×: out of reach here: hashing)"), goals)
        # without the hash section no floor holds the hashing: n/a
        results, goals, _ = report_of("".join(line + "\n" for line in raw.splitlines()
                                              if not line.startswith("B hash")))
        self.assertIn(("NOT met", "random 4 KiB reads, warm, within 1.4× of plain: ext4 1.50× "
                       "(floor ext4 n/a: n/a)"), goals)

    def test_spread(self):
        # a second repetition: sha256 1 MB/s vs dm-verity 0.8 (1.25×), the
        # first 90 vs 80 (1.12×), the medians 45.5 vs 40.4 (1.13×); the
        # first read's two samples 2.50× and 3.00×, the worst of their sizes
        raw = RAW + "B seq fs=ext4 cfg=sha256 mib=256 rep=2 bytes=1000000 usec=1000000 end=EOF\n" \
            "B seq fs=ext4 cfg=dmverity mib=256 rep=2 bytes=800000 usec=1000000 end=EOF\n" \
            "B ttfb fs=ext4 cfg=plain mib=16 rep=1.2 bytes=4096 usec=1000 open_usec=100 end=done\n" \
            "B ttfb fs=ext4 cfg=verity mib=16 rep=1.2 bytes=4096 usec=3000 open_usec=300 end=done\n"
        _, goals, _ = report_of(raw)
        self.assertIn(("met", "sequential SHA-256 read at >= 1× dm-verity's in the same run: ext4 1.13× "
                       "(repetitions 1.12-1.25)"), goals)
        self.assertIn("ext4 worst 2.75× (samples 2.50-3.00)", [g for g in goals if "first read within" in g[1]][0][1])
        self.assertEqual(bench_report.spread([1.5]), "")
        self.assertEqual(bench_report.spread({"1": 1.5, "2": 1.25}.values()), " (repetitions 1.25-1.50)")

    def test_at_its_floor(self):
        # warm fs-verity 240.6 µs a read, 0.36 µs under its floor (200 +
        # 40.96): 0 µs above it, not "-0"
        raw = RAW + "".join("B rand fs=ext4 cfg=%s state=warm mib=256 rep=1 reads=10 bytes=40960 usec=%d end=done\n" % r
                            for r in (("plain", 2000), ("sha256", 2406)))
        results, _, _ = report_of(raw)
        self.assertIn("| random warm | ext4 | warm | 200 | 241 | 241 | 1.20 | 1.00 | 1.4× | 0 |", results)

    def test_tree_depth(self):
        for size, depth in ((0, 1), (4096, 1), (128 * 4096, 1), (128 * 4096 + 1, 2),
                            (16 << 20, 2), (64 << 20, 2), (256 << 20, 3)):
            self.assertEqual(bench_report.tree_depth(size), depth, size)

    def test_floor_class(self):
        fc = bench_report.floor_class
        self.assertEqual(fc(1.3, 1.0, 1.4), "within reach")
        self.assertEqual(fc(1.404, 1.0, 1.4), "within reach")
        self.assertEqual(fc(1.5, 1.0, 1.4), "out of reach here: hashing")
        self.assertEqual(fc(1.6, 1.5, 1.4), "out of reach by design")
        self.assertEqual(fc(None, 1.5, 1.4), "out of reach by design")
        self.assertEqual(fc(None, 1.0, 1.4), "n/a")
        self.assertEqual(fc(None, None, 1.4), "n/a")

    def test_missing_measurement(self):
        results, goals, _ = report_of(RAW)
        # no sha512 record: its row says n/a, and no goal depends on it
        self.assertIn("| sha512 | ? | n/a | n/a | n/a |", results)
        self.assertIn("| ext4 | verity sha512 | n/a | n/a | n/a | n/a | n/a | n/a |", results)
        self.assertIn("- dm-verity: not measured in this run", results)

    def test_not_measured(self):
        raw = "".join(line + "\n" for line in RAW.splitlines()
                      if not line.startswith(("B seq", "B ttfb")))
        results, goals, seqdat = report_of(raw, host="bench-setup.sh failed\n")
        self.assertEqual(goals, goals_of_raw(
            ("not measured", "sequential SHA-256 read at >= 1× dm-verity's in the same run"),
            ("not measured", "fs-verity's first read within 1.8× on ext4, 1.5× on f2fs of the plain "
             "first read at every size")))
        self.assertNotIn("## Sequential read", results)
        self.assertIn("not measured: bench-setup.sh failed", results)
        self.assertEqual(seqdat, [])


if __name__ == "__main__":
    unittest.main()
