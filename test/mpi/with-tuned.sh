#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Alongside tuned (cloudaware's priority raised above tuned's 30): cloudaware takes the six
# collectives and hands them to tuned; results stay correct on every communicator.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

ca_mpirun 5 --mca coll cloudaware,tuned,basic,self,libnbc --mca coll_cloudaware_min_nodes 1 \
    --mca coll_cloudaware_priority 90 --mca coll_cloudaware_verbose 10 \
    "$TEST_BUILDDIR/coll_check" || fail "coll_check failed"
expect_in_log "coll_check: 5 ranks, .* 0 failures"
expect_in_log "coll:cloudaware: selected for MPI_COMM_WORLD"
echo "PASS: correct results with cloudaware above tuned"
