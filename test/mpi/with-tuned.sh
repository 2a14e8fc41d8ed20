#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Alongside tuned (cloudaware's priority raised above tuned's 30): cloudaware takes the six
# collectives and hands them to tuned; results stay correct on every communicator; the decisions
# weigh plans against tuned's own algorithms.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

ca_mpirun 5 --mca coll cloudaware,tuned,basic,self,libnbc --mca coll_cloudaware_min_nodes 1 \
    --mca coll_cloudaware_priority 90 --mca coll_cloudaware_verbose 10 \
    "$TEST_BUILDDIR/coll_check" || fail "coll_check failed"
expect_in_log "coll_check: 5 ranks, .* 0 failures"
expect_in_log "coll:cloudaware: selected for MPI_COMM_WORLD"
# the previous provider is found to be tuned (dladdr), and its algorithm is what plans must beat
expect_in_log "coll:cloudaware: bcast of [0-9]* bytes: .* vs tuned [a-z_]* "
expect_in_log "coll:cloudaware: allreduce of [0-9]* bytes: .* vs tuned [a-z_]* "
# coll_cloudaware_previous_model overrides what was found
ca_mpirun 5 --mca coll cloudaware,tuned,basic,self,libnbc --mca coll_cloudaware_min_nodes 1 \
    --mca coll_cloudaware_priority 90 --mca coll_cloudaware_verbose 10 \
    --mca coll_cloudaware_previous_model basic "$TEST_BUILDDIR/coll_check" --quick \
    || fail "coll_check failed (previous_model basic)"
expect_in_log "coll:cloudaware: bcast of [0-9]* bytes: .* vs basic log "
echo "PASS: correct results with cloudaware above tuned"
