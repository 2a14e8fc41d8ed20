#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# MPI_THREAD_MULTIPLE: in every process four threads create four different communicators at once
# and calibrate them at once through the process's one pair store (thread_calib.c), 3 repetitions
# per job, in several jobs (a race need not show in every run):
#   1. measuring (the automatic exchange and the PML one -- the same for these communicators, as
#      the automatic choice takes PMIx for MPI_COMM_WORLD only; forcing PMIx for concurrent
#      calibrations is not supported, docs/calibration.md): right results, no failure, and
#      MPI_COMM_WORLD afterwards finds all its pairs in the store (a pair lost to a race would be
#      measured again there);
#   2. with a matrix file covering the 4 pretend nodes (read once per process, in MPI_Init, as
#      MPI_COMM_WORLD is selected): the threads find every pair in the store, so nothing is
#      measured (calibrate=lazy) and nothing falls back (calibrate=off).
. "${TEST_SRCDIR:-.}/mpitest.sh"
CA_TIMEOUT=${CA_TIMEOUT:-120}

work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-threads.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
prog="$TEST_BUILDDIR/thread_calib"
base=(--mca coll cloudaware,basic,libnbc --mca coll_cloudaware_min_nodes 1
      --mca coll_cloudaware_verbose 10 --mca coll_cloudaware_test_fake_nodes 4
      --mca coll_cloudaware_calibrate_bandwidth_bytes 262144
      --mca coll_cloudaware_calibrate_latency_reps 5)
ok_line="thread_calib: 4 ranks, 4 threads, 3 repetitions, 5 dups, 0 failures"
warnings() { grep -c "coll:cloudaware: warning:" "$TEST_LOG"; }
measured() { grep -c "calibration: measured [0-9]* pairs" "$TEST_LOG"; }

# 1. Concurrent measurements.
for job in 1 2 3 4; do
    ex=$( [ $((job % 2)) = 1 ] && echo auto || echo pml )
    ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_calibrate_exchange $ex "$prog" 3 5 >/dev/null \
        || fail "thread_calib failed (job $job, $ex exchange)"
    expect_in_log "$ok_line"
    [ "$(warnings)" -eq 0 ] || fail "unexpected warning (job $job, $ex exchange)"
    expect_in_log "calibration totals (world rank 0): .* 0 failures"
    [ "$(measured)" -ge 1 ] || fail "nothing was measured (job $job)"
    expect_in_log "calibration of MPI_COMM_WORLD: 4 nodes known from this process's store, measured 0 pairs"
    echo "ok: job $job ($ex exchange): concurrent calibrations, WORLD measured nothing afterwards"
done

# 2. A matrix file: the dump of a calibration of the 4 pretend nodes.
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_dump_matrix "$work/nodes.matrix" \
    "$TEST_BUILDDIR/calib_check" 0 >/dev/null || fail "dump run failed"
for mode in lazy off; do
    ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_calibrate $mode \
        --mca coll_cloudaware_matrix_file "$work/nodes.matrix" "$prog" 3 5 >/dev/null \
        || fail "thread_calib failed (matrix file, calibrate=$mode)"
    expect_in_log "$ok_line"
    expect_in_log "loaded matrix file .* (4 nodes)"
    [ "$(warnings)" -eq 0 ] || fail "unexpected warning (matrix file, calibrate=$mode)"
    [ "$(measured)" -eq 0 ] || fail "measured although the matrix file covers every node ($mode)"
    expect_in_log "calibration totals (world rank 0): 0 measurements, 0 pairs measured, .* 0 failures"
    echo "ok: matrix file, concurrent lookups, calibrate=$mode"
done
echo "PASS: concurrent calibrations under MPI_THREAD_MULTIPLE"
