#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# The communicator storm: 1,000 MPI_Comm_dup / MPI_Comm_split / MPI_Comm_split_type + collective
# + MPI_Comm_free cycles over 3 pretend nodes (comm_storm.c). Exactly one measurement (MPI_COMM_WORLD's;
# every later communicator finds its nodes in the pair store), right results, and the resident set
# of every process grows by at most RSS_BOUND_KIB over the 900 cycles after a 100-cycle warm-up.
#
# The bound: the growth measured on the development machine is 4-8 KiB (allocator and Open MPI
# free lists), on Open MPI 4.1 and 5.0 alike; 512 KiB leaves ample room for other machines and
# still fails any leak of 0.6 KiB or more per cycle (a module, its node map or its plan cache left
# behind). Smaller leaks are the valgrind test's job (storm-valgrind.sh).
#
# Host names are asked of the runtime once per process, not per communicator: on Open MPI 5.0
# every ask is a PMIx_Get, and PMIx 5.0.7 keeps ~100 bytes per PMIx_Get (the resident set grew
# by ~1 MiB here before the component cached them; docs/ompi-versions.md). Each process reports
# its count at close, which must not exceed the job's 6 processes.
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
asked=$(sed -n 's/.*host names asked of the runtime: \([0-9]*\)$/\1/p' "$TEST_LOG")
[ "$(echo "$asked" | wc -w)" -eq 6 ] || fail "expected 6 'host names asked' lines, got: $asked"
for a in $asked; do
    [ "$a" -le 6 ] || fail "a process asked the runtime for $a host names (6 processes in the job)"
done
growth=$(sed -n 's/.*rss growth after 100 warm-up cycles: max \(-\?[0-9]*\) KiB.*/\1/p' "$TEST_LOG")
[ -n "$growth" ] && [ "$growth" -ge 0 ] || fail "resident set size not measured"
[ "$growth" -le "$RSS_BOUND_KIB" ] \
    || fail "resident set grew by $growth KiB over 900 cycles (bound $RSS_BOUND_KIB KiB)"
echo "PASS: 1000 communicators, one measurement, resident set +$growth KiB (bound $RSS_BOUND_KIB KiB)"
