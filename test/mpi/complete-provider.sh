#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Complete-provider mode: with `--mca coll cloudaware,basic` (no libnbc, no self, no tuned)
# cloudaware supplies every nonblocking and persistent collective on every communicator
# (world, self, dup, ragged split, intercommunicator); MPI_Init succeeds and all results are
# right. Also the blocking coll_check with cloudaware taking its six collectives, and
# `--mca coll cloudaware` alone (cloudaware then runs the blocking ones too).
. "${TEST_SRCDIR:-.}/mpitest.sh"

for np in 4 3 1; do
    ca_mpirun $np --mca coll cloudaware,basic --mca coll_cloudaware_verbose 10 \
        "$TEST_BUILDDIR/nbc_check" || fail "nbc_check failed (cloudaware,basic, $np ranks)"
    expect_in_log "nbc_check: $np ranks, .* 0 failures"
done
expect_in_log "coll:cloudaware: MPI_COMM_WORLD (cid 0): fills [0-9]* slot(s) .* iallgather .* barrier_init"
expect_in_log "coll:cloudaware: MPI_COMM_SELF (cid 1): fills"

ca_mpirun 4 --mca coll cloudaware,basic --mca coll_cloudaware_min_nodes 1 \
    "$TEST_BUILDDIR/coll_check" || fail "coll_check failed (cloudaware,basic)"
expect_in_log "coll_check: 4 ranks, .* 0 failures"

ca_mpirun 4 --mca coll cloudaware "$TEST_BUILDDIR/nbc_check" --mode all \
    || fail "nbc_check failed (cloudaware alone)"
expect_in_log "nbc_check: 4 ranks, .* 0 failures"
echo "PASS: cloudaware completes basic: nonblocking, persistent and blocking collectives everywhere"
