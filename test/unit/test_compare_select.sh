#!/bin/sh
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# test_compare_select.sh - contrib/bench/compare's check of which coll module runs
# MPI_COMM_WORLD (selected_on_world), on coll_base_verbose 100 output as Open MPI 5.0 writes it:
# every rank's selection for MPI_COMM_WORLD and MPI_COMM_SELF, and one line where a rank's
# message is cut off by another rank's "new communicator: MPI_COMM_WORLD" (seen in a real run:
# the old parser then counted the first rank's MPI_COMM_SELF module, self, as its world module),
# and one where a rank's message is cut off inside its "[host:pid]" prefix (seen in a 5.0 run: the
# old parser took "calab-h0:2737[calab-h7:27359" for a process and missed calab-h7:27359's world).
# And its model check (model_check) over the untimed first run, which is two jobs (short sizes,
# then long ones): each job's trials with that job's own predictions (the old parser kept only
# the first job's process and dropped every trial of the second); and a trial with the
# alternative and the peer (tuned's algorithm run by the executor), each matched with its own
# prediction (the peer's announcement must not pass for the alternative's); and the first decision
# of an op and size kept when another communicator's follows, and an outcome that names its rank
# test. And its reading of a timed run's CSV (read_bench_csv): one from a benchmark program older
# than the cycle time stops compare with one line. And which configurations are peers (roles): a
# *-control one is rated like cloudaware, never a peer. And the ratio's bootstrap interval.
set -eu
top=${TOP_SRCDIR:-../..}
python3 - "$top/contrib/bench/compare" <<'PY'
import sys
from importlib.machinery import SourceFileLoader
sys.dont_write_bytecode = True   # loading compare must not leave a __pycache__ in the source tree
compare = SourceFileLoader("compare", sys.argv[1]).load_module()

def block(proc, comm, mods):
    lines = ["[%s] coll:base:comm_select: new communicator: %s (cid 0)" % (proc, comm)]
    lines += ["[%s] coll:base:comm_select: selecting %11s, priority %3d, %s" % (proc, m, p, e) for m, p, e in mods]
    return lines

world = [("adapt", 0, "Disabled"), ("basic", 10, "Enabled"), ("libnbc", 10, "Enabled"),
         ("tuned", 30, "Enabled"), ("han", 35, "Enabled")]
self_ = [("basic", 10, "Enabled"), ("libnbc", 10, "Enabled"), ("self", 75, "Enabled")]
a, b = "calab-h5:19274", "calab-h2:19277"
lines = block(a, "MPI_COMM_WORLD", world)
lines.append("[%s] coll:base:comm_select: new communicator: MPI_COMM_SELF (cid 1)" % a)
# a's message cut off by b's
lines.append("[%s] coll:base:comm_select: component disqualified: tuned (prior" % a
             + "[%s] coll:base:comm_select: new communicator: MPI_COMM_WORLD (cid 0)" % b)
lines += block(a, "MPI_COMM_SELF", self_)[1:]
lines += block(b, "MPI_COMM_WORLD", world)[1:]
lines += block(b, "MPI_COMM_SELF", self_)
sel = compare.selected_on_world("\n".join(lines) + "\n")
assert sel == {a: ("han", 35), b: ("han", 35)}, sel
# a message cut off inside its prefix, followed by another rank's selection for MPI_COMM_WORLD
c = "calab-h7:27359"
cut = ["[calab-h0:2737" + block(c, "MPI_COMM_WORLD", world)[0]] + block(c, "MPI_COMM_WORLD", world)[1:]
sel = compare.selected_on_world("\n".join(lines + cut + block(c, "MPI_COMM_SELF", self_)) + "\n")
assert sel == {a: ("han", 35), b: ("han", 35), c: ("han", 35)}, sel
# libnbc never counts (it provides only the non-blocking collectives); disabled modules neither
sel = compare.selected_on_world("\n".join(block(a, "MPI_COMM_WORLD", [("basic", 10, "Enabled"),
                                                                     ("libnbc", 90, "Enabled"),
                                                                     ("han", 95, "Disabled")])))
assert sel == {a: ("basic", 10)}, sel
print("compare selected_on_world: PASS")

def job(proc, op, size, plan_s, prev_s, won):
    pre = "[%s] coll:cloudaware: " % proc
    return [pre + "%s of %d bytes: cool node=chain (predicted %g s vs tuned binomial %g s)" % (op, size, plan_s, prev_s),
            pre + "trial of %s of %d bytes (root 0) on MPI_COMM_WORLD: cool node=chain: [1] 1 1 s (median %g s); "
            "previous module: [2] 2 2 s (median %g s); outcome: the %s" % (op, size, plan_s / 2, prev_s / 2, won)]

log = job("calab-h0:100", "bcast", 1024, 0.002, 0.004, "plan") + \
      job("calab-h0:200", "bcast", 65536, 0.02, 0.04, "previous")
rows = compare.model_check("\n".join(log) + "\n")
got = sorted((r["bytes"], r["variant"], r["won"], round(r["error"], 6)) for r in rows)
assert got == [(1024, "plan", True, 1.0), (1024, "previous", False, 1.0),
               (65536, "plan", False, 1.0), (65536, "previous", True, 1.0)], got
print("compare model_check over two jobs: PASS")

pre = "[calab-h0:300] coll:cloudaware: "
log = [pre + "allreduce of 65536 bytes: cool node=chain (predicted 0.06 s vs han two-level 0.1 s)",
       pre + "allreduce of 65536 bytes: the live trial also tries ring over ranks (predicted 0.09 s)",
       pre + "allreduce of 65536 bytes: the live trial also tries the peer, tuned rabenseifner run by the "
             "executor (predicted 0.155 s)",
       pre + "trial of allreduce of 65536 bytes (root -1) on MPI_COMM_WORLD: cool node=chain: [0.09] 0.08 0.07 s "
             "(median 0.075 s); previous module: [0.14] 0.13 0.12 s (median 0.125 s); alternative ring over ranks: "
             "[0.11] 0.1 0.09 s (median 0.095 s); peer tuned rabenseifner: [0.05] 0.04 0.045 s (median 0.0425 s); "
             "outcome: the peer (coll_cloudaware_trial_margin 0.05; overhead: start 0 s)"]
rows = compare.model_check("\n".join(log) + "\n")
got = sorted((r["variant"], r["algorithm"], r["won"], r["predicted_s"], r["measured_s"]) for r in rows)
assert got == [("alternative", "ring over ranks", False, 0.09, 0.095),
               ("peer", "tuned rabenseifner", True, 0.155, 0.0425),
               ("plan", "cool node=chain", False, 0.06, 0.075),
               ("previous", "han two-level", False, 0.1, 0.125)], got
print("compare model_check with the alternative and the peer: PASS")

# A later decision for the same op and size on another communicator (whose previous module is
# tuned, not han; the lines do not name the communicator) must not replace MPI_COMM_WORLD's, the
# first one (seen in a 5.0 run: the model check listed han's measurement as "tuned knomial").
log2 = log[:1] + [pre + "allreduce of 65536 bytes: cool node=chain (predicted 0.07 s vs tuned knomial 0.2 s)"] + log[1:]
rows = compare.model_check("\n".join(log2) + "\n")
prev = [(r["algorithm"], r["predicted_s"]) for r in rows if r["variant"] == "previous"]
assert prev == [("han two-level", 0.1)], prev
print("compare model_check keeps the first decision: PASS")

# The outcome of a short calls' trial also names its rank test (thirty-second session).
log3 = [l.replace("margin 0.05;", "margin 0.05; rank test of the fastest against the previous module: "
                  "z 2.61, leaving it needs 1.645;") for l in log]
assert log3 != log
rows = compare.model_check("\n".join(log3) + "\n")
assert sorted((r["variant"], r["won"]) for r in rows) == [("alternative", False), ("peer", True),
                                                           ("plan", False), ("previous", False)], rows
print("compare model_check with a rank test: PASS")

# The small calls' alternative says why it takes part (forty-first session); its description and
# prediction are read as any alternative's.
log4 = [l.replace("ring over ranks (predicted 0.09 s)", "ring over ranks (predicted 0.09 s; the model's "
                  "choice if every message passed at once)") for l in log]
assert log4 != log
rows = compare.model_check("\n".join(log4) + "\n")
got = sorted((r["variant"], r["algorithm"], r["predicted_s"]) for r in rows if r["variant"] == "alternative")
assert got == [("alternative", "ring over ranks", 0.09)], got
print("compare model_check with the small calls' alternative: PASS")

# A timed run's CSV: read; one from a benchmark program without the cycle time stops compare with
# one line naming the program, not a KeyError.
import contextlib, io, os, tempfile
with tempfile.TemporaryDirectory() as d:
    new_csv, old_csv = os.path.join(d, "new.csv"), os.path.join(d, "old.csv")
    with open(new_csv, "w") as f:
        f.write("label,op,bytes,ranks,hosts,rep,iters,time_s,cycle_s\nx,bcast,1024,4,2,rep1,10,1e-3,2e-3\n")
    with open(old_csv, "w") as f:
        f.write("label,op,bytes,ranks,hosts,rep,iters,time_s\nx,bcast,1024,4,2,rep1,10,1e-3\n")
    assert compare.read_bench_csv(new_csv, "/b") == [{"op": "bcast", "bytes": 1024, "time_s": 1e-3,
                                                      "cycle_s": 2e-3}]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            compare.read_bench_csv(old_csv, "/old/cloudaware-bench")
        raise AssertionError("an old benchmark's CSV was read")
    except SystemExit as e:
        assert e.code == 1, e.code
    msg = err.getvalue()
    assert msg.count("\n") == 1 and "/old/cloudaware-bench wrote no cycle_s column" in msg, msg
print("compare reads a run's CSV, refuses one without cycle_s in one line: PASS")

# Roles: a control (tuned-control) is rated against the best peer like cloudaware, never a peer.
assert compare.roles(["cloudaware", "tuned", "han", "tuned-control", "cloudaware-oracle", "adapt"]) \
    == (["cloudaware", "tuned-control", "cloudaware-oracle"], ["tuned", "han", "adapt"])
assert compare.roles(["tuned", "han"]) == ([], ["tuned", "han"])
print("compare rates a control against the peers, not as one: PASS")

# The ratio to the best peer and its bootstrap interval: exact where nothing varies; an interval
# that holds 1 for two draws of the same spread, and one that excludes it for a column clearly
# slower; the same times give the same interval; nothing without peers.
assert compare.ratio_to_best_peer([2.0] * 5, {"tuned": [1.0] * 5, "han": [4.0] * 3}) == (2.0, 2.0, 2.0)
same = [1.0, 1.3, 0.8, 1.1, 0.9, 1.2, 1.05, 0.95]
r, lo, hi = compare.ratio_to_best_peer(same, {"tuned": list(reversed(same))})
assert r == 1.0 and lo < 1.0 < hi, (r, lo, hi)
r2, lo2, hi2 = compare.ratio_to_best_peer([x * 1.6 for x in same], {"tuned": same, "han": [x * 1.2 for x in same]})
assert abs(r2 - 1.6) < 1e-12 and lo2 > 1.05 and hi2 >= r2, (r2, lo2, hi2)
assert compare.ratio_to_best_peer(same, {"tuned": list(reversed(same))}) == (r, lo, hi)
assert compare.ratio_to_best_peer(same, {}) == ("", "", "")
print("compare's ratio to the best peer with its bootstrap interval: PASS")
PY
