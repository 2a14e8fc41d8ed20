#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Calibration on one machine (coll_cloudaware_test_fake_nodes splits it into pretend nodes):
# measured once per node set and reused by 200 communicators; eager, lazy, PMIx and PML paths;
# the cache; and every fault path leaves the job correct with exactly one warning line.
. "${TEST_SRCDIR:-.}/mpitest.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-calib.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
prog="$TEST_BUILDDIR/calib_check"
common=(--mca coll cloudaware,basic,libnbc --mca coll_cloudaware_min_nodes 1 --mca coll_cloudaware_verbose 10
      --mca coll_cloudaware_calibrate_bandwidth_bytes 262144 --mca coll_cloudaware_calibrate_latency_reps 5)
base=("${common[@]}" --mca coll_cloudaware_test_fake_nodes 3)

count() { grep -c -- "$1" "$TEST_LOG"; }
expect_count() {   # PATTERN N
    local n
    n=$(count "$1")
    [ "$n" -eq "$2" ] || fail "expected $2 line(s) matching '$1', got $n"
}
warnings() { grep -c "coll:cloudaware: warning:" "$TEST_LOG"; }
expect_ok() { expect_in_log "calib_check: 6 ranks, .* 0 failures"; }

# 1. Reuse: 200 communicators (dup, split by parity, split by node), one measurement. CA_QUICK
# (the sanitizer build, contrib/run-sanitizers): 20 communicators.
ncomms=${CA_QUICK:+20}
ncomms=${ncomms:-200}
for mode in lazy eager; do
    for ex in pmix pml; do
        ca_mpirun 6 "${base[@]}" --mca coll_cloudaware_calibrate $mode \
            --mca coll_cloudaware_calibrate_exchange $ex "$prog" $ncomms >/dev/null \
            || fail "calib_check failed ($mode, $ex)"
        expect_ok
        expect_count "calibration: measured 3 pairs" 1
        expect_in_log "calibration totals (world rank 0): 1 measurements, 3 pairs measured"
        expect_in_log "calibration summary for MPI_COMM_WORLD: 3 nodes, 3 of 3 pairs measured .* ($( [ $ex = pml ] && echo PML || echo PMIx) exchange)"
        expect_in_log "calibration: round 3 of 3"
        [ "$(warnings)" -eq 0 ] || fail "unexpected warning ($mode, $ex)"
    done
done
echo "ok: $ncomms communicators, one measurement (lazy/eager x PMIx/PML)"

# Only unmeasured pairs: two halves of 4 nodes calibrate first (1 pair each), then the world
# measures the 5 pairs its rank 0 does not know.
ca_mpirun 8 "${common[@]}" --mca coll_cloudaware_test_fake_nodes 4 "$prog" 10 split-first >/dev/null \
    || fail "split-first"
expect_in_log "calib_check: 8 ranks, .* 0 failures"
expect_in_log "calibration of MPI_COMM_WORLD (lazy): measuring 5 of 6 node pairs"
echo "ok: only unmeasured pairs are measured"

# 2. Cache: the second run measures nothing; the dump is a matrix file.
cache="$work/cache"
ca_mpirun 6 "${base[@]}" --mca coll_cloudaware_cache_dir "$cache" \
    --mca coll_cloudaware_dump_matrix "$work/dump.matrix" "$prog" 5 >/dev/null || fail "cache run 1"
expect_count "calibration: measured 3 pairs" 1
entry=$(ls "$cache"/cloudaware-*.matrix) || fail "no cache entry written"
[ "$(stat -c %a "$cache")" = 700 ] || fail "cache directory is not 0700"
[ "$(stat -c %a "$entry")" = 600 ] || fail "cache entry is not 0600"
grep -q "^cloudaware-matrix 5" "$work/dump.matrix" || fail "dump is not a matrix file (version 5)"
# The node properties (capacity phase, overhead bursts, burst credit) are measured, exchanged and agreed: the
# dump and the cache entry hold them, and every rank reports the same agreed matrix digest (it
# covers the node properties) with node properties.
for f in "$work/dump.matrix" "$entry"; do
    for k in node_egress_Bps node_ingress_Bps node_overhead_s node_lone_Bps node_shared_Bps \
             node_burst_bytes node_lone2_Bps node_shared2_Bps; do
        grep -A1 "^$k\$" "$f" | tail -1 | grep -Eq '^[0-9.e+-]+ [0-9.e+-]+ [0-9.e+-]+$' \
            || fail "$f: no row of 3 values after $k"
    done
done
agreed() {   # the number of ranks that agreed, and the number of distinct digests
    local lines
    lines=$(grep -o "calibration of MPI_COMM_WORLD on rank [0-9]*: agreed matrix [0-9a-f]* with node properties" "$TEST_LOG")
    [ "$(echo "$lines" | grep -c agreed)" -eq 6 ] || fail "not every rank agreed with node properties"
    [ "$(echo "$lines" | awk '{print $8}' | sort -u | wc -l)" -eq 1 ] || fail "ranks agreed on different matrices"
}
agreed
expect_in_log "calibration nodes of MPI_COMM_WORLD (3 measured; "
ca_mpirun 6 "${base[@]}" --mca coll_cloudaware_cache_dir "$cache" "$prog" 5 >/dev/null \
    || fail "cache run 2"
expect_ok
expect_count "calibration: measured" 0
expect_in_log "calibration: cache hit for 3 nodes"
expect_in_log "3 nodes known from the cache, measured 0 pairs"
agreed
echo "ok: second run with a cache directory does not measure; node properties measured, agreed, cached"
# An entry of an older format is measured again and replaced, with a warning that says why.
older_entry() {   # VERSION SED-DELETE GREP-GONE RUN WARNING
    sed -i -e "s/^cloudaware-matrix 5\$/cloudaware-matrix $1/" -e "$2" "$entry"
    grep -q "$3" "$entry" && fail "could not make a version $1 entry"
    ca_mpirun 6 "${base[@]}" --mca coll_cloudaware_cache_dir "$cache" "$prog" 5 >/dev/null \
        || fail "cache run $4"
    expect_ok
    expect_count "calibration: measured 3 pairs" 1
    expect_in_log "$5"
    grep -q "^cloudaware-matrix 5" "$entry" || fail "the version $1 entry was not replaced"
}
older_entry 4 '/^node_\(lone2\|shared2\)_Bps$/,+1d' node_lone2 3 "without burst credit or the second lone sample"
older_entry 3 '/^node_\(burst_bytes\|lone2_Bps\|shared2_Bps\)$/,+1d' node_burst 4 "without burst credit"
older_entry 1 '/^node_/,+1d' node_ 5 "written by an older version"
echo "ok: entries of the older formats (4, 3, 1) are measured again and replaced"

# 3. Faults: each gives exactly one warning line, measures (or falls back) and stays correct.
run_fault() {   # NAME EXPECTED-WARNING mpirun-args...
    local name=$1 pat=$2
    shift 2
    ca_mpirun 6 "${base[@]}" "$@" "$prog" 20 >/dev/null || fail "$name: calib_check failed"
    expect_ok
    [ "$(warnings)" -eq 1 ] || fail "$name: expected exactly one warning, got $(warnings)"
    expect_in_log "coll:cloudaware: warning: .*$pat"
    echo "ok: $name"
}
sed -i 's/^end$//' "$entry"
run_fault "corrupt cache entry" "cache entry is corrupt.*measuring instead" \
    --mca coll_cloudaware_cache_dir "$cache"
expect_count "calibration: measured 3 pairs" 1
touch -d '3 days ago' "$entry"
run_fault "stale cache entry" "is stale" --mca coll_cloudaware_cache_dir "$cache" \
    --mca coll_cloudaware_cache_max_age 3600
printf 'cloudaware-matrix 1\nnodes 2\nhost a\nhost b\nlatency_s\n0 1e-4\n1e-4 0\nbandwidth_Bps\n0 1e8\n1e8 0\nend\n' \
    >"$work/other.matrix"
run_fault "matrix file for other hosts" "does not cover host .*measuring instead" \
    --mca coll_cloudaware_matrix_file "$work/other.matrix"
expect_count "calibration: measured 3 pairs" 1
: >"$work/not-a-dir"
run_fault "unwritable cache directory" "cache directory .*not using the cache" \
    --mca coll_cloudaware_cache_dir "$work/not-a-dir/cache"
mkdir -m 777 "$work/open" && chmod 777 "$work/open"
run_fault "world-writable cache directory" "world writable (refused)" \
    --mca coll_cloudaware_cache_dir "$work/open"
ln -s "$cache" "$work/link"
run_fault "symlinked cache directory" "symbolic link (refused)" \
    --mca coll_cloudaware_cache_dir "$work/link"
start=$(date +%s)
run_fault "stalled calibration peer" "calibration of MPI_COMM_WORLD (3 nodes) failed: .*time budget" \
    --mca coll_cloudaware_calibrate_budget 3 --mca coll_cloudaware_calibrate_test_sleep 6 \
    --mca coll_cloudaware_calibrate_test_sleep_node 1
expect_in_log "calibration totals (world rank 0): 0 measurements"
[ $(( $(date +%s) - start )) -lt 60 ] || fail "stalled peer: took too long"
run_fault "calibrate=off without files" "coll_cloudaware_calibrate=off" \
    --mca coll_cloudaware_calibrate off
echo "PASS: calibration reuse, cache and fault paths"
