#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# With the full component list, libnbc keeps the nonblocking and persistent collectives
# (cloudaware fills no such slot) and the same checks pass.
. "${TEST_SRCDIR:-.}/mpitest.sh"

ca_mpirun 4 --mca coll cloudaware,tuned,basic,self,libnbc --mca coll_cloudaware_min_nodes 1 \
    --mca coll_cloudaware_verbose 10 "$TEST_BUILDDIR/nbc_check" \
    || fail "nbc_check failed (cloudaware,tuned,basic,self,libnbc)"
expect_in_log "nbc_check: 4 ranks, .* 0 failures"
expect_in_log "coll:cloudaware: MPI_COMM_WORLD (cid 0): fills 0 slot(s)"
ca_mpirun 4 --mca coll cloudaware,tuned,basic,self,libnbc "$TEST_BUILDDIR/nbc_semantics" \
    || fail "nbc_semantics failed (cloudaware,tuned,basic,self,libnbc)"
expect_in_log "nbc_semantics: 4 ranks, 0 failures"
echo "PASS: libnbc keeps its slots; results correct"
