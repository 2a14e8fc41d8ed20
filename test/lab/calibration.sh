#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# test/lab/calibration.sh - coll/cloudaware calibration in the emulated cloud (docs/calibration.md,
# section "Lab acceptance").
#
#   calibration.sh [TOPOLOGY...]          default: racks-8 cloud-8
#
# For each topology: lab up, then
#   1. the default tournament (coll_cloudaware_calibrate_concurrency 0: all pairs of a round at
#      once, each bulk phase started by a barrier) calibrates MPI_COMM_WORLD inside a program that
#      creates 200 communicators (dup, split by parity, split by node): exactly one measurement;
#      every ordered pair's bandwidth is compared with what the configured network gives THIS
#      traffic pattern (the tournament reference below); asymmetric pairs must keep their
#      direction; the hierarchy built from the dump (cloudaware-plan show) must group the racks;
#      every configured node cap (ingress, egress) must be measured within the tolerance.
#   2. the same with concurrency 1 (one pair at a time): compared with `lab matrix` (each pair
#      alone), asymmetric pairs must keep their direction.
#   3. a first run with a cache directory measures, a second one does not.
# then lab down. Both calibrations print their time next to the cost model's prediction.
#
# Which configured reference applies (docs/calibration.md):
#   concurrency 1: every pair is measured alone -> `lab matrix` for every pair.
#   concurrency 0: the pairs of a round share whatever they cross together, so per pair and
#     direction the reference is the max-min fair share of the round's concurrent transfers:
#     in-rack pairs (nothing shared: pairs are disjoint, shaping is per pair) -> `lab matrix`;
#     cross-rack pairs -> uplink / (pairs of the round crossing the same uplink), which is
#     `lab matrix --loaded` exactly in the rounds where every host of the rack sends across, and
#     between the two otherwise. Computed here from the topology (contrib/lab/labtopo.py).
#
# Environment: CALIB_BYTES (bulk message, default 2 MiB); CALIB_BW_REPS (bulk transfers per
# direction: best of them, their median with concurrency 0; default 3: on a loaded 2-core machine
# a single transfer is now and then stretched by a TCP loss recovery at a rack router's queue or
# by CPU starvation of one side, see docs/calibration.md); CALIB_TOLERANCE (0.15); CALIB_MODES
# (concurrency settings to check, default "0 1"); CALIB_BUDGET (s, default 600); CALIB_RACKS (1:
# concurrency 0 must group the racks; 0: print only); CALIB_STRICT (1; 0: print the matrix
# comparison and the hierarchy without failing on them, e.g. to record the calibration time on
# cloud-16, where neither is a criterion); CALIB_KEEP (a directory: logs, dumps and per-pair
# tables are copied there); CALAB_INSTANCE (default 8).
# Exit: 0 pass, 77 skip (no root / no network namespaces), anything else fail.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lab="$top/contrib/lab/lab"
plan="$top/ompi/tools/cloudaware-plan"
export CALAB_INSTANCE=${CALAB_INSTANCE:-8}
tol=${CALIB_TOLERANCE:-0.15}
bytes=${CALIB_BYTES:-2097152}
bwreps=${CALIB_BW_REPS:-3}
modes=${CALIB_MODES:-0 1}
budget=${CALIB_BUDGET:-600}
racks=${CALIB_RACKS:-1}
strict=${CALIB_STRICT:-1}
topos=("$@")
[ ${#topos[@]} -gt 0 ] || topos=(racks-8 cloud-8)

say() { printf 'calibration: %s\n' "$*"; }
fail() { printf 'calibration: FAIL: %s\n' "$*" >&2; exit 1; }
skip() { printf 'SKIP: calibration: %s\n' "$*" >&2; exit 77; }

[ "$(id -u)" = 0 ] || skip "not root: the lab needs network namespaces"
unshare --net --uts true 2>/dev/null || skip "this machine does not allow network namespaces"
comp="${COMPONENT_DIR:-$top/ompi/mca/coll/cloudaware/.libs}"
[ -f "$comp/mca_coll_cloudaware.so" ] || fail "component not built ($comp)"
[ -x "$plan" ] || fail "planner CLI not built ($plan)"
work=$(mktemp -d /tmp/cloudaware-calib-lab.XXXXXX)
chmod 755 "$work"
keep=${CALIB_KEEP:-}
trap '[ -n "$keep" ] && mkdir -p "$keep" && cp -p "$work"/*.log "$work"/*.matrix "$work"/*.txt "$keep"/ 2>/dev/null
      "$lab" down >/dev/null 2>&1; rm -rf "$work"' EXIT
mpicc -O2 -o "$work/calib_check" "$top/test/mpi/calib_check.c" || fail "mpicc"
pkglib=$(dirname "$(find /usr/lib -name 'mca_coll_basic.so' 2>/dev/null | head -1)")
mca=(--mca mca_base_component_path "$comp:$pkglib" --mca coll cloudaware,basic,libnbc
     --mca coll_cloudaware_verbose 10)

# compare.py CONC DUMP STATE-DIR TOL BYTES REPS RACKS LOG: per-pair table, checks, cost model.
cat >"$work/compare.py" <<'PY'
import json, os, re, subprocess, sys
conc, dump, sd, tol, size, reps, need_racks, log, bwreps = sys.argv[1:10]
conc, tol, size, reps, need_racks = int(conc), float(tol), float(size), int(reps), need_racks == "1"
bwreps = int(bwreps)
sys.dont_write_bytecode = True
sys.path.insert(0, os.environ["LABDIR"])
import labtopo

t = labtopo.load(os.path.join(sd, "topology.topo"))

def read(path):
    lines = [l.split('#')[0].strip() for l in open(path)]
    lines = [l for l in lines if l]
    n = int(lines[1].split()[1]); hosts = [l.split()[1] for l in lines[2:2 + n]]
    i = lines.index('bandwidth_Bps')
    bw = [[float(x) for x in lines[i + 1 + r].split()] for r in range(n)]
    i = lines.index('latency_s')
    lat = [[float(x) for x in lines[i + 1 + r].split()] for r in range(n)]
    return hosts, bw, lat

hosts, mb, ml = read(dump)
n = len(hosts)
h = [int(re.search(r'-h(\d+)$', x).group(1)) for x in hosts]   # component node -> lab host
alone = [[t.alone[h[i]][h[j]] / 8.0 if i != j else 0 for j in range(n)] for i in range(n)]
loaded = [[t.loaded[h[i]][h[j]] / 8.0 if i != j else 0 for j in range(n)] for i in range(n)]
rack = [t.rack_of[h[i]] for i in range(n)]

def partner(i, r, m):            # coll_cloudaware_tournament.c
    k = m - 1
    if i == k:
        return (r * (m // 2)) % k
    j = ((r - i) % k + k) % k
    return k if j == i else j

m = n + n % 2
rounds = [[(i, partner(i, r, m)) for i in range(n) if i < partner(i, r, m) < n] for r in range(m - 1)]
rnd = {}
for r, prs in enumerate(rounds):
    for a, b in prs:
        rnd[(a, b)] = rnd[(b, a)] = r + 1

def phase(flows):
    """Transfers of `size` bytes started together: per flow the time to finish under max-min fair
    sharing of the rack uplinks (progressive filling, re-shared whenever one finishes); every flow
    is also capped by its pair's lone rate (per-pair shaper, ingress/egress caps: one flow per host
    per phase)."""
    left = {f: size for f in flows}
    done, now = {}, 0.0
    while left:
        res = {}
        for (i, j) in left:
            if rack[i] != rack[j]:
                ro, ri = t.racks[rack[i]], t.racks[rack[j]]
                if ro.uplink_out:
                    res.setdefault(('out', rack[i]), [ro.uplink_out / 8.0, []])[1].append((i, j))
                if ri.uplink_in:
                    res.setdefault(('in', rack[j]), [ri.uplink_in / 8.0, []])[1].append((i, j))
        rate, frozen = {f: 0.0 for f in left}, set()
        while len(frozen) < len(left):
            live = [f for f in left if f not in frozen]
            inc = min(alone[i][j] - rate[(i, j)] for (i, j) in live)
            for cap, fl in res.values():
                lv = [f for f in fl if f not in frozen]
                if lv:
                    inc = min(inc, (cap - sum(rate[f] for f in fl)) / len(lv))
            for f in live:
                rate[f] += inc
            for f in live:
                if alone[f[0]][f[1]] - rate[f] < 1e-6 * alone[f[0]][f[1]]:
                    frozen.add(f)
            for cap, fl in res.values():
                if cap - sum(rate[f] for f in fl) < 1e-6 * cap:
                    frozen.update(fl)
        dt = min(left[f] / rate[f] for f in left)
        now += dt
        for f in list(left):
            left[f] -= rate[f] * dt
            if left[f] <= 1e-6 * size:
                done[f] = now
                del left[f]
    return done

# The reference of every ordered pair, and the cost model of the run's calibration time.
ref, model_s = {}, 0.0
lat = sorted(ml[i][j] for i in range(n) for j in range(n) if i != j)
rtt = 2 * lat[len(lat) // 2]
for prs in rounds:
    model_s += 2 * (reps + 1) * rtt                       # both latency passes of the round
    if conc == 0:
        for fl in (prs, [(b, a) for a, b in prs]):        # a->b phase, then b->a phase
            d = phase(fl)
            for f, tf in d.items():
                ref[f] = size / tf
            model_s += bwreps * max(d.values()) if d else 0.0
    else:
        for a, b in prs:
            ref[(a, b)], ref[(b, a)] = alone[a][b], alone[b][a]
            model_s += bwreps * (size / alone[a][b] + size / alone[b][a])
if conc > 1:
    model_s = None                                        # no model for partial concurrency

def kind(i, j):
    r = ref[(i, j)]
    if abs(r - alone[i][j]) <= 0.01 * alone[i][j]:
        return "alone"
    if abs(r - loaded[i][j]) <= 0.01 * loaded[i][j]:
        return "loaded"
    return "shared"

out = ["%-10s %-10s %5s %8s %8s %8s %8s %7s %s" % ("from", "to", "round", "alone", "loaded",
       "ref", "measured", "error", "reference (Mbit/s)")]
worst, bad, asym_ok, asym_n, kinds = 0.0, [], 0, 0, {}
for i in range(n):
    for j in range(n):
        if i == j:
            continue
        c, mm = ref[(i, j)], mb[i][j]
        err = (mm - c) / c
        worst = max(worst, abs(err))
        k = kind(i, j)
        kinds[k] = kinds.get(k, 0) + 1
        out.append("%-10s %-10s %5d %8.1f %8.1f %8.1f %8.1f %+6.1f%% %s%s" % (
            hosts[i], hosts[j], rnd[(i, j)], alone[i][j] * 8e-6, loaded[i][j] * 8e-6, c * 8e-6,
            mm * 8e-6, 100 * err, k, "  <-- beyond tolerance" if abs(err) > tol else ""))
        if abs(err) > tol:
            bad.append(out[-1])
        if i < j and abs(ref[(i, j)] - ref[(j, i)]) / max(ref[(i, j)], ref[(j, i)]) > 0.10:
            asym_n += 1
            if (ref[(i, j)] > ref[(j, i)]) == (mb[i][j] > mb[j][i]):
                asym_ok += 1
open(log, "w").write("\n".join(out) + "\n")
for l in bad:
    print("  " + l)
print("  %d ordered pairs vs the %s reference (%s): worst error %.1f %%, %d beyond %.0f %%; "
      "asymmetric pairs (>10 %%) measured in the same direction: %d of %d"
      % (n * (n - 1), "tournament" if conc == 0 else "lone-pair (lab matrix)",
         ", ".join("%d %s" % (v, k) for k, v in sorted(kinds.items())), 100 * worst, len(bad),
         100 * tol, asym_ok, asym_n))

# Calibration time printed by the component against the model.
summ = [l for l in open(os.environ["RUNLOG"]) if "calibration summary for MPI_COMM_WORLD" in l]
took = float(re.search(r"measured in ([0-9.]+) s", summ[0]).group(1)) if summ else None
if took is not None and model_s:
    print("  calibration took %.1f s; cost model %.1f s (%d rounds, %d B x %d, latency reps %d, "
          "RTT %.0f us)" % (took, model_s, m - 1, size, bwreps, reps, 1e6 * rtt))

# Node capacity (docs/calibration.md, "Node capacity and per-message overhead"): every configured
# ingress or egress cap must be measured within the tolerance; caps the component reports on other
# hosts are printed (a fan across a shared uplink can pass for one), not judged.
caps_bad = []
nodes = [l for l in open(os.environ["RUNLOG"]) if "calibration nodes of MPI_COMM_WORLD" in l]
if conc == 0:
    props = {}
    for item in (nodes[0].split("KiB): ", 1)[1].split("; ") if nodes else []):
        name, vals = item.split()
        e, i = vals.split("/")[:2]
        props[name] = (e, i)
    seen = []
    for k in range(n):
        e, i = props.get(hosts[k], ("?", "?"))
        for what, conf, got in (("egress", t.egress.get(h[k]), e), ("ingress", t.ingress.get(h[k]), i)):
            mbs = None if got in ("-", "?") else float(got)
            if conf:
                ok = mbs is not None and abs(mbs - conf / 8e6) <= tol * conf / 8e6
                print("  %s cap of %s: configured %.2f MB/s, measured %s%s"
                      % (what, hosts[k], conf / 8e6, got, "" if ok else "  <-- beyond tolerance"))
                if not ok:
                    caps_bad.append(hosts[k])
            elif mbs is not None:
                seen.append("%s %s %.3g" % (hosts[k], what, mbs))
    print("  caps measured on hosts configured without one: %s" % (", ".join(seen) or "none"))

# The hierarchy built from the dump, and (for comparison) from the reference itself: the
# reference matrix is written next to the table, with the measured latencies.
refpath = log.replace(".table.txt", "") + ".reference.matrix"
with open(refpath, "w") as f:
    f.write("# reference of %s (concurrency %d, %d B), measured latencies\ncloudaware-matrix 1\n"
            "nodes %d\n" % (os.path.basename(dump), conc, size, n))
    f.write("".join("host %s\n" % x for x in hosts) + "latency_s\n")
    f.write("".join(" ".join("%.6e" % ml[i][j] for j in range(n)) + "\n" for i in range(n)))
    f.write("bandwidth_Bps\n")
    f.write("".join(" ".join("0" if i == j else "%.6e" % ref[(i, j)] for j in range(n)) + "\n"
                    for i in range(n)) + "end\n")
want = sorted(sorted(hosts[i] for i in range(n) if rack[i] == r) for r in set(rack))

def hierarchy(path, what):
    js = json.loads(subprocess.run([os.environ["PLAN"], "show", "--matrix", path, "--format",
                                    "json"], capture_output=True, text=True, check=True).stdout)
    grouped, desc = False, []
    for lv, groups in enumerate(js["levels"]):
        if 0 < lv < len(js["levels"]) - 1:
            got = sorted(sorted(js["hosts"][x] for x in g["members"]) for g in groups)
            desc.append("level %d: %s" % (lv, " ".join("{%s}" % ",".join(
                x.split("-")[-1] for x in g) for g in got)))
            grouped = grouped or got == want
    print("  hierarchy of the %s (cloudaware-plan show, k %g): %s%s" % (
        what, js["k"], "groups the racks" if grouped else "does NOT group the racks",
        "".join("\n    " + d for d in desc) if desc else " (one group)"))
    return grouped

grouped = hierarchy(dump, "measured matrix")
hierarchy(refpath, "reference")
sys.exit(1 if bad or caps_bad or asym_ok != asym_n or (need_racks and not grouped) else 0)
PY

for topo in "${topos[@]}"; do
    "$lab" up "$topo" >/dev/null || fail "lab up $topo"
    sd=$(dirname "$("$lab" matrix)")
    nh=$(awk '/^nodes /{print $2; exit}' "$sd/matrix.txt")
    first=1
    for conc in $modes; do
        ncomm=3
        [ $first = 1 ] && ncomm=200
        tag="$topo.c$conc"
        say "$topo: concurrency $conc, $bytes B x $bwreps, calib_check $ncomm (load: $(cut -d' ' -f1-3 /proc/loadavg))"
        "$lab" run "${mca[@]}" --mca coll_cloudaware_calibrate_concurrency "$conc" \
            --mca coll_cloudaware_calibrate_bandwidth_bytes "$bytes" \
            --mca coll_cloudaware_calibrate_bandwidth_reps "$bwreps" \
            --mca coll_cloudaware_calibrate_budget "$budget" \
            --mca coll_cloudaware_dump_matrix "$work/$tag.matrix" \
            -- "$work/calib_check" $ncomm >"$work/$tag.log" 2>&1 || { tail -40 "$work/$tag.log"; fail "$tag: run"; }
        grep -q "calib_check: [0-9]* ranks, $ncomm communicators, 0 failures" "$work/$tag.log" || fail "$tag: results"
        n=$(grep -c "calibration: measured [0-9]* pairs" "$work/$tag.log")
        [ "$n" -eq 1 ] || fail "$tag: expected one measurement for $ncomm communicators, got $n"
        grep -a "calibration summary\|calibration totals" "$work/$tag.log" | sed 's/^.*coll:cloudaware: /  /'
        req=0
        [ "$conc" = 0 ] && req=$racks
        LABDIR="$top/contrib/lab" PLAN="$plan" RUNLOG="$work/$tag.log" python3 "$work/compare.py" \
            "$conc" "$work/$tag.matrix" "$sd" "$tol" "$bytes" 20 "$req" "$work/$tag.table.txt" "$bwreps" \
            || [ "$strict" = 0 ] || fail "$tag: measured matrix (per pair: $work/$tag.table.txt)"
        first=0
    done
    say "$topo: a second run with a cache directory"
    mkdir -m 700 "$work/cache-$topo"
    for run in 1 2; do
        "$lab" run "${mca[@]}" --mca coll_cloudaware_cache_dir "$work/cache-$topo" \
            --mca coll_cloudaware_calibrate_bandwidth_bytes 262144 \
            -- "$work/calib_check" 3 >"$work/$topo.cache$run.log" 2>&1 || fail "$topo: cache run $run"
        grep -q "calib_check: [0-9]* ranks, 3 communicators, 0 failures" "$work/$topo.cache$run.log" \
            || fail "$topo: cache run $run results"
    done
    grep -q "calibration: measured" "$work/$topo.cache1.log" || fail "$topo: first cached run did not measure"
    grep -q "calibration: measured" "$work/$topo.cache2.log" && fail "$topo: second run measured again"
    grep -q "cache hit for $nh nodes" "$work/$topo.cache2.log" || fail "$topo: no cache hit"
    grep -a "cache hit\|calibration totals" "$work/$topo.cache2.log" | sed 's/^.*coll:cloudaware: /  /'
    "$lab" down >/dev/null
    say "$topo: ok"
done
say "PASS"
