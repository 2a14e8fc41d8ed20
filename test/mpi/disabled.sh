#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# A negative priority disables cloudaware: the job runs on the other components, correctly.
# With the default min_nodes (2) on one host it declines too, saying why at verbose level.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

ca_mpirun 3 --mca coll cloudaware,basic,libnbc --mca coll_cloudaware_priority -1 \
    --mca coll_cloudaware_verbose 10 "$TEST_BUILDDIR/coll_check" --quick || fail "coll_check failed"
expect_in_log "coll_check: 3 ranks, .* 0 failures"
expect_in_log "declining MPI_COMM_WORLD .*disabled"
grep -q "selected for" "$TEST_LOG" && fail "cloudaware was selected although disabled"

ca_mpirun 3 --mca coll cloudaware,basic,libnbc --mca coll_cloudaware_verbose 10 \
    "$TEST_BUILDDIR/coll_check" --quick || fail "coll_check failed"
expect_in_log "declining MPI_COMM_WORLD .*spans fewer nodes than coll_cloudaware_min_nodes"
echo "PASS: disabled and single-node cases fall back to the other components"
