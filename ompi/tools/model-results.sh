#!/bin/sh
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# model-results.sh - regenerates the table of docs/model-results.md: predicted times of the
# cloudaware plans against the binomial baseline and the best/median of random trees, on
# synthetic racked matrices (1 MiB, one rank per node, racks of 32 nodes or N/4 racks for small N).
# usage: model-results.sh [PLANNER] [TREES] [SIZES...]
# TREES random trees at every size (the planner predicts one-rank-per-node random trees on its fast
# path, O(N log N) per tree: 10^5 trees at 2048 nodes take about 30 s of CPU per op).
set -eu
P=${1:-$(dirname "$0")/cloudaware-plan}
TREES=${2:-100000}
shift 2 2>/dev/null || true
SIZES=${*:-32 64 128 256 512 1024 2048}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
printf '| nodes | racks | op | cloudaware plan | predicted | binomial | vs binomial | random trees | best random | median random | vs best |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for n in $SIZES; do
    r=$((n / 32)); [ "$r" -lt 4 ] && r=4
    "$P" generate --nodes "$n" --racks "$r" --oversubscription 4 --unevenness 0.5 --asymmetry 0.2 \
        --seed "$n" -o "$DIR/m.txt" >/dev/null
    root=$(( (n * 7 + 3) % n ))
    for op in bcast reduce gather scatter; do
        "$P" plan --matrix "$DIR/m.txt" --op "$op" --root "$root" --size 1MiB --montecarlo "$TREES" \
            --format json --check >"$DIR/o.json"
        python3 - "$DIR/o.json" "$n" "$r" "$op" "$TREES" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n, r, op, t = sys.argv[2:6]
p, b = d["predicted_s"], d["baselines"]["binomial_s"]
mc = d["montecarlo"]
assert d["check"] == "ok", d["check"]
ms = lambda s: "%.2f ms" % (s * 1e3)
print("| %s | %s | %s | %s | %s | %s | %+.1f %% | %s | %s | %s | %+.1f %% |" % (
    n, r, op, d["plan"]["algo"], ms(p), ms(b), 100 * (p / b - 1), t, ms(mc["best_s"]),
    ms(mc["median_s"]), 100 * (p / mc["best_s"] - 1)))
print("%s nodes %s: %d of %s random trees on the fast path, %.1f s" % (
    n, op, mc.get("fast_path", 0), t, mc.get("montecarlo_s", 0)), file=sys.stderr)
PY
    done
done
