#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# cloudaware is selected for the collectives it overrides (its verbose output says so per
# communicator), every collective's result is right, and what it does not override keeps working.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

ca_mpirun 4 --mca coll cloudaware,basic,libnbc --mca coll_cloudaware_min_nodes 1 \
    --mca coll_cloudaware_verbose 50 "$TEST_BUILDDIR/coll_check" || fail "coll_check failed"
expect_in_log "coll_check: 4 ranks, .* 0 failures"
expect_in_log "coll:cloudaware: selected for MPI_COMM_WORLD .*overriding (blocking, nonblocking and persistent): bcast reduce allreduce gather scatter allgather"
# coll_check's "preferred" communicator names basic in ompi_comm_coll_preference, as han names the
# components of its sub-communicators: no plans there.
expect_in_log "coll:cloudaware: declining .*: its creator asked for other components (info ompi_comm_coll_preference \"basic\")"
# Per-call lines prove the calls went through cloudaware's dispatch.
for coll in bcast reduce allreduce gather scatter allgather; do
    expect_in_log "coll:cloudaware: $coll of [0-9]* bytes"
done
echo "PASS: cloudaware selected and all results correct"
