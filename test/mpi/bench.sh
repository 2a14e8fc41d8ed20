#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# The comparison benchmark's program (contrib/bench/cloudaware-bench.c, built here with mpicc):
# with --connect-all every pair is connected first, --validate finds every result correct under
# cloudaware, and each CSV row has a cycle time (the timed loop per call, barriers included) no
# shorter than its time per call.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

bench="$TEST_BUILDDIR/cloudaware-bench"
"${MPICC:-mpicc}" -O2 -Wall -o "$bench" "$TEST_SRCDIR/../../contrib/bench/cloudaware-bench.c" \
    || fail "cloudaware-bench.c did not build"
csv="$TEST_BUILDDIR/bench.csv"
rm -f "$csv"
ca_mpirun 4 --mca coll cloudaware,tuned,basic,self,libnbc --mca coll_cloudaware_priority 100 \
    --mca coll_cloudaware_test_fake_nodes 2 "$bench" --ops bcast,reduce,allgather,barrier \
    --sizes 1K,65537 --reps 2 --connect-all --validate --csv "$csv" || fail "cloudaware-bench failed"
expect_in_log "^op .* cycle_ms  valid"
expect_in_log "# validation: all results correct"
head -1 "$csv" | grep -q "^label,op,bytes,ranks,hosts,rep,iters,time_s,cycle_s$" \
    || fail "the CSV header lacks cycle_s: $(head -1 "$csv")"
rows=$(awk -F, 'NR > 1 && $9 >= $8 && $8 > 0' "$csv" | wc -l)
[ "$rows" -eq 14 ] || fail "expected 14 rows with cycle_s >= time_s > 0, got $rows: $(cat "$csv")"
echo "PASS: cloudaware-bench connects every pair, validates, and reports the cycle time"
