#!/bin/bash
# test/lab/calibration.sh - coll/cloudaware calibration in the emulated cloud (docs/calibration.md).
#
#   calibration.sh [TOPOLOGY...]          default: racks-8 cloud-8
#
# For each topology: lab up; calibrate MPI_COMM_WORLD (8 hosts x 2 ranks) measuring one pair at a
# time (coll_cloudaware_calibrate_concurrency 1) and dump the matrix; compare every ordered pair's
# bandwidth with the lab's configured matrix (tolerance CALIB_TOLERANCE, default 0.15) and check
# that configured-asymmetric pairs come out asymmetric the same way; check that 200 communicators
# measure once and that a second run with a cache directory measures nothing; lab down.
# Exit: 0 pass, 77 skip (no root / no network namespaces), anything else fail.
# Runs as lab instance CALAB_INSTANCE (default 8) so it does not disturb lab 0.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lab="$top/contrib/lab/lab"
export CALAB_INSTANCE=${CALAB_INSTANCE:-8}
tol=${CALIB_TOLERANCE:-0.15}
bytes=${CALIB_BYTES:-2097152}
topos=("$@")
[ ${#topos[@]} -gt 0 ] || topos=(racks-8 cloud-8)

say() { printf 'calibration: %s\n' "$*"; }
fail() { printf 'calibration: FAIL: %s\n' "$*" >&2; "$lab" down >/dev/null 2>&1; exit 1; }
skip() { printf 'SKIP: calibration: %s\n' "$*" >&2; exit 77; }

[ "$(id -u)" = 0 ] || skip "not root: the lab needs network namespaces"
unshare --net --uts true 2>/dev/null || skip "this machine does not allow network namespaces"
comp="${COMPONENT_DIR:-$top/ompi/mca/coll/cloudaware/.libs}"
[ -f "$comp/mca_coll_cloudaware.so" ] || fail "component not built ($comp)"
work=$(mktemp -d /tmp/cloudaware-calib-lab.XXXXXX)
chmod 755 "$work"
trap '"$lab" down >/dev/null 2>&1; rm -rf "$work"' EXIT
mpicc -O2 -o "$work/calib_check" "$top/test/mpi/calib_check.c" || fail "mpicc"
pkglib=$(dirname "$(find /usr/lib -name 'mca_coll_basic.so' 2>/dev/null | head -1)")
mca=(--mca mca_base_component_path "$comp:$pkglib" --mca coll cloudaware,basic,libnbc
     --mca coll_cloudaware_verbose 10)

for topo in "${topos[@]}"; do
    "$lab" up "$topo" >/dev/null || fail "lab up $topo"
    conf=$("$lab" matrix)
    say "$topo: calibrating (one pair at a time, $bytes bytes)"
    "$lab" run "${mca[@]}" --mca coll_cloudaware_calibrate_concurrency 1 \
        --mca coll_cloudaware_calibrate_bandwidth_bytes "$bytes" \
        --mca coll_cloudaware_dump_matrix "$work/$topo.matrix" \
        -- "$work/calib_check" 200 >"$work/$topo.log" 2>&1 || { cat "$work/$topo.log"; fail "$topo: run"; }
    grep -q "calib_check: 16 ranks, 200 communicators, 0 failures" "$work/$topo.log" || fail "$topo: results"
    n=$(grep -c "calibration: measured [0-9]* pairs" "$work/$topo.log")
    [ "$n" -eq 1 ] || fail "$topo: expected one measurement for 200 communicators, got $n"
    grep "calibration summary" "$work/$topo.log" | sed 's/^.*coll:cloudaware: /  /'
    python3 - "$conf" "$work/$topo.matrix" "$tol" <<'PY' || fail "$topo: measured matrix differs from the configuration"
import sys
def read(path):
    lines = [l.split('#')[0].strip() for l in open(path)]
    lines = [l for l in lines if l]
    n = int(lines[1].split()[1]); hosts = [l.split()[1] for l in lines[2:2 + n]]
    i = lines.index('bandwidth_Bps')
    bw = [[float(x) for x in lines[i + 1 + r].split()] for r in range(n)]
    return hosts, bw
ch, cb = read(sys.argv[1]); mh, mb = read(sys.argv[2]); tol = float(sys.argv[3])
idx = [mh.index(h) for h in ch]
worst, bad, asym_ok, asym_n = 0.0, 0, 0, 0
for i in range(len(ch)):
    for j in range(len(ch)):
        if i == j: continue
        c, m = cb[i][j], mb[idx[i]][idx[j]]
        err = abs(m - c) / c
        worst = max(worst, err)
        if err > tol:
            bad += 1
            print("  %s -> %s: configured %.3g MB/s, measured %.3g MB/s (%+.0f %%)" % (ch[i], ch[j], c / 1e6, m / 1e6, 100 * (m - c) / c))
        if i < j and abs(cb[i][j] - cb[j][i]) / max(cb[i][j], cb[j][i]) > 0.10:
            asym_n += 1
            if (cb[i][j] > cb[j][i]) == (mb[idx[i]][idx[j]] > mb[idx[j]][idx[i]]):
                asym_ok += 1
print("  %d ordered pairs, worst bandwidth error %.1f %%, %d beyond %.0f %%; asymmetric pairs "
      "(>10 %% configured) with the same direction measured: %d of %d"
      % (len(ch) * (len(ch) - 1), 100 * worst, bad, 100 * tol, asym_ok, asym_n))
sys.exit(1 if bad or asym_ok != asym_n else 0)
PY
    say "$topo: second run with a cache directory"
    mkdir -m 700 "$work/cache-$topo"
    for run in 1 2; do
        "$lab" run "${mca[@]}" --mca coll_cloudaware_cache_dir "$work/cache-$topo" \
            --mca coll_cloudaware_calibrate_bandwidth_bytes 262144 \
            -- "$work/calib_check" 3 >"$work/$topo.cache$run.log" 2>&1 || fail "$topo: cache run $run"
    done
    grep -q "calibration: measured" "$work/$topo.cache1.log" || fail "$topo: first cached run did not measure"
    grep -q "calibration: measured" "$work/$topo.cache2.log" && fail "$topo: second run measured again"
    grep -q "cache hit" "$work/$topo.cache2.log" || fail "$topo: no cache hit"
    "$lab" down >/dev/null
    say "$topo: ok"
done
say "PASS"
