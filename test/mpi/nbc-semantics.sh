#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# MPI rules for cloudaware's own nonblocking/persistent collectives (cloudaware,basic):
# no deadlock with point-to-point between start and wait, outstanding collectives completed in
# reverse order, and no leaks over 1000 persistent start/wait cycles and 10000 nonblocking
# collectives (resident set, and the executor's live-object counters at component close).
. "${TEST_SRCDIR:-.}/mpitest.sh"

for np in 4 2; do
    ca_mpirun $np --mca coll cloudaware,basic --mca coll_cloudaware_verbose 10 \
        "$TEST_BUILDDIR/nbc_semantics" --leak 1000 || fail "nbc_semantics failed ($np ranks)"
    expect_in_log "nbc_semantics: $np ranks, 0 failures"
    n=$(grep -c "executor at close: 0 requests and 0 schedules still allocated" "$TEST_LOG")
    [ "$n" -eq "$np" ] || fail "executor objects leaked (clean close on $n of $np ranks)"
done
echo "PASS: nonblocking semantics hold and nothing leaks"
