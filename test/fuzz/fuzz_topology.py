#!/usr/bin/env python3
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
"""Deterministic mutation fuzzer of the lab topology parser (contrib/lab/labtopo.py,
docs/lab-topology-format.md). atheris, the coverage-guided Python fuzzer, is not packaged for
Debian 12, so this is a plain mutation fuzzer: a fixed seed gives the same inputs on every run.

Each input is written to a memory file and read with labtopo.load(), as `lab` and `compare` read
a topology. The parser's contract: it returns a Topology or raises TopologyError (one line naming
the file); nothing else, within TIMEOUT seconds and MEMORY_MB of address space. A returned
Topology must hold what the docs promise (1..64 hosts, every host in one rack, finite positive
rates) and everything the lab computes from it (describe, matrix_text, lower_bound) must work.

  fuzz_topology.py --replay DIR|FILE...                 every file once (regression replay)
  fuzz_topology.py --runs N --seed S [--max-time T] --artifacts DIR CORPUS_DIR...
                                                        N mutants of the corpus files

A finding is written to the artifacts directory (crash-<sha1>) with its traceback on stderr,
and the exit status is 1.
"""
import argparse
import hashlib
import math
import os
import random
import resource
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "contrib", "lab"))
import labtopo  # noqa: E402

TIMEOUT = 5          # seconds per input
MEMORY_MB = 1024     # address space limit of the whole fuzzer
MAX_LEN = 8192       # longest mutant

KEYWORDS = ["cloudaware-lab-topology", "1", "name", "hosts", "ranks_per_host", "latency", "rack",
            "intra", "uplink", "uplink_out", "uplink_in", "cross", "seed", "uneven", "asymmetry",
            "pair", "scale", "ingress", "egress", "end", "#", "-", ",", "0-63", "64", "65", "0",
            "-1", "1e308", "1e-320", "nan", "inf", "-inf", "1_000", "0x10", "99999999999999",
            "0-99999999999", "40mbit", "1e999gbit", "0.5bit", "1kbit", "\t", "\r", "\x00",
            "\u00e9", "\xff", "9" * 5000]


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout("parser took more than %d s" % TIMEOUT)


def check(t):
    """What a returned Topology must hold."""
    n = t.nhosts
    assert 1 <= n <= labtopo.MAX_HOSTS, n
    assert 1 <= t.ranks_per_host <= 64
    assert 1 <= len(t.racks) <= labtopo.MAX_RACKS
    assert all(r is not None and 0 <= r < len(t.racks) for r in t.rack_of)
    assert sorted(h for r in t.racks for h in r.hosts) == list(range(n))
    assert math.isfinite(t.latency) and t.latency >= 0
    for table in (t.rate, t.alone, t.loaded):
        for i in range(n):
            for j in range(n):
                if i != j:
                    assert math.isfinite(table[i][j]) and table[i][j] > 0, (i, j, table[i][j])
    t.describe()
    text = t.matrix_text(["h%d" % i for i in range(n)])
    numbers = text.split("latency_s\n", 1)[1].replace("bandwidth_Bps", "").replace("end", "")
    assert all(math.isfinite(float(x)) for x in numbers.split()), "matrix_text: %s" % numbers
    for op in labtopo.BOUND_OPS:
        secs, _ = labtopo.lower_bound(t, op, 1 << 20, root=(n * t.ranks_per_host) - 1)
        assert secs is None or (math.isfinite(secs) and secs > 0), (op, secs)


def run_one(data, memfd):
    """None when the parser kept its contract, else the traceback text."""
    os.ftruncate(memfd, 0)
    os.pwrite(memfd, data, 0)
    path = "/proc/self/fd/%d" % memfd
    signal.alarm(TIMEOUT)
    try:
        try:
            t = labtopo.load(path)
        except labtopo.TopologyError as e:
            msg = str(e)
            assert msg.startswith(path) and "\n" not in msg, "message: %r" % msg
            return None
        check(t)
        return None
    except (Exception, MemoryError, RecursionError):
        return traceback.format_exc()
    finally:
        signal.alarm(0)


def mutate(rng, data, corpus):
    lines = data.split(b"\n")
    what = rng.randrange(10)
    if what == 0 and data:                       # flip a byte
        i = rng.randrange(len(data))
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
    if what == 1 and data:                       # cut the file short
        return data[:rng.randrange(len(data))]
    if what == 2 and len(lines) > 1:             # drop a line
        del lines[rng.randrange(len(lines))]
    elif what == 3:                              # repeat a line
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    elif what == 4 and len(lines) > 1:           # swap two lines
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif what in (5, 6, 7):                      # replace a word by a keyword or a value
        i = rng.randrange(len(lines))
        words = lines[i].split(b" ")
        k = rng.randrange(len(words))
        words[k] = rng.choice(KEYWORDS).encode("utf-8", "surrogateescape")
        lines[i] = b" ".join(words)
    elif what == 8:                              # insert a line of keywords
        words = [rng.choice(KEYWORDS) for _ in range(rng.randrange(1, 7))]
        lines.insert(rng.randrange(len(lines) + 1), " ".join(words).encode())
    else:                                        # splice with another corpus file
        other = rng.choice(corpus).split(b"\n")
        cut = rng.randrange(len(lines) + 1)
        lines = lines[:cut] + other[rng.randrange(len(other) + 1):]
    return b"\n".join(lines)


def files_of(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += [os.path.join(p, f) for f in sorted(os.listdir(p)) if not f.startswith(".")]
        else:
            out.append(p)
    return out


def report(data, tb, artifacts):
    name = "crash-" + hashlib.sha1(data).hexdigest()
    if artifacts:
        os.makedirs(artifacts, exist_ok=True)
        with open(os.path.join(artifacts, name), "wb") as f:
            f.write(data)
    sys.stderr.write("fuzz_topology: FINDING %s (%d bytes)%s\n%s" % (
        name, len(data), " written to " + artifacts if artifacts else "", tb))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replay", action="store_true")
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-time", type=float, default=0, help="stop after T seconds (0: never)")
    ap.add_argument("--artifacts", default="")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_MB << 20, MEMORY_MB << 20))
    signal.signal(signal.SIGALRM, on_alarm)
    memfd = os.memfd_create("cloudaware-fuzz-topology")
    files = files_of(a.paths)
    corpus = [open(f, "rb").read() for f in files]
    if not corpus:
        sys.exit("fuzz_topology: no input files")
    if a.replay:
        bad = 0
        for f, data in zip(files, corpus):
            tb = run_one(data, memfd)
            if tb:
                sys.stderr.write("fuzz_topology: %s\n" % f)
                report(data, tb, a.artifacts)
                bad = 1
        print("fuzz_topology: replayed %d files, %d broke the contract" % (len(files), bad))
        return bad
    rng = random.Random(a.seed)
    start = time.monotonic()
    done = 0
    for done in range(1, a.runs + 1):
        data = rng.choice(corpus)
        for _ in range(rng.randrange(1, 5)):
            data = mutate(rng, data, corpus)
        data = data[:MAX_LEN]
        tb = run_one(data, memfd)
        if tb:
            report(data, tb, a.artifacts)
            print("fuzz_topology: seed %d, input %d broke the contract" % (a.seed, done))
            return 1
        if a.max_time and time.monotonic() - start > a.max_time:
            break
    print("fuzz_topology: %d inputs (seed %d) in %.1f s, no finding" % (
        done, a.seed, time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
