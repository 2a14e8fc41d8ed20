#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Drift detection and recalibration (docs/drift.md) on one host: 4 ranks on 4 pretend nodes.
# Nothing here slows a link (the lab test test/lab/drift.sh does, with `lab set-rate`); instead
# the threshold is set so small (1e-6) that any two call times differ by more than it, which is
# a real configuration: the component then sees every batch after the baseline as drift.
#   1. coll_cloudaware_recalibrate_interval 1e6: exactly one recalibration (rank 0 says so at
#      verbose 1 in one line; the MPI_T counter says 1 on every rank), every result right.
#   2. interval 0: recalibrations keep coming (more than one), as many lines as the counter says.
#   3. a recalibration that fails (a measurement budget of 1 ns, the job's matrix from a file, so
#      that only the recalibration measures): one line saying so, every later call still runs
#      the plan, every result right.
# About 15 s alone.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

prog="$TEST_BUILDDIR/pvars_check"
work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-drift.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
# Broadcasts run as a plan whatever the model thinks of shared memory (only plans are timed).
printf 'cloudaware-rules 2\nbcast 1 0 cool node=binomial group=binomial top=binomial\nend\n' >"$work/rules"
base=(--mca coll_cloudaware_rules_file "$work/rules" --mca coll cloudaware,basic --mca coll_cloudaware_test_fake_nodes 4
      --mca coll_cloudaware_calibrate_bandwidth_bytes 4096 --mca coll_cloudaware_min_gain 0
      --mca coll_cloudaware_trial_calls 0 --mca coll_cloudaware_verbose 1
      --mca coll_cloudaware_recalibrate_threshold 1e-6 --mca coll_cloudaware_recalibrate_calls 2)
line='coll:cloudaware: drift on MPI_COMM_WORLD: bcast of 65536 bytes (root 0) took .* against .*; recalibrated [0-9]* node pairs in .* s, [0-9]* of [0-9]* directions slower (taken; the others keep their values); plans decided again: .*bcast of 65536 bytes: '

echo "--- 1. one recalibration per interval"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_recalibrate_interval 1e6 \
    "$prog" 30 0 16384 1 >/dev/null || fail "pvars_check failed"
expect_in_log "pvars_check: 4 ranks: 0 failures"
[ "$(grep -c "$line" "$TEST_LOG")" = 1 ] || fail "expected exactly one recalibration line"
grep "coll:cloudaware: drift on" "$TEST_LOG" | grep -v "$line" && fail "an unexpected drift line"
echo "ok: $(grep -o 'recalibrated [0-9]* node pairs in [^;]*' "$TEST_LOG")"

echo "--- 2. interval 0: more recalibrations, each said once"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_recalibrate_interval 0 \
    "$prog" 30 0 16384 >/dev/null || fail "pvars_check failed (interval 0)"
expect_in_log "pvars_check: 4 ranks: 0 failures"
n=$(grep -c "$line" "$TEST_LOG")
[ "$n" -ge 2 ] || fail "expected several recalibrations with interval 0, saw $n"
[ "$(sed -n 's/^pvars_check: coll_cloudaware_recalibrations //p' "$TEST_LOG")" = "$n" ] \
    || fail "rank 0's recalibration counter differs from its $n lines"
echo "ok: $n recalibrations"

echo "--- 3. a failed recalibration keeps the plans"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_dump_matrix "$work/nodes.matrix" "$prog" 2 0 16 >/dev/null || fail "matrix dump run"
[ -s "$work/nodes.matrix" ] || fail "no matrix dumped"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_recalibrate_interval 1e6 \
    --mca coll_cloudaware_matrix_file "$work/nodes.matrix" --mca coll_cloudaware_calibrate_budget 1e-9 \
    "$prog" 30 0 16384 1 >/dev/null || fail "pvars_check failed (failed recalibration)"
expect_in_log "pvars_check: 4 ranks: 0 failures"
[ "$(grep -c "coll:cloudaware: drift on MPI_COMM_WORLD: bcast of 65536 bytes (root 0) took .*; recalibration failed after .* s (.*); the plans stay (next try after coll_cloudaware_recalibrate_interval 1e+06 s)" "$TEST_LOG")" = 1 ] \
    || fail "expected one line saying the recalibration failed"
grep -q "recalibrated [0-9]* node pairs" "$TEST_LOG" && fail "a recalibration succeeded with a 1 ns budget"
[ "$(sed -n 's/^pvars_check: coll_cloudaware_bcast_plan_calls //p' "$TEST_LOG")" = 30 ] \
    || fail "not every bcast ran the plan after the failed recalibration"
echo "ok: $(grep -o 'recalibration failed after [^;]*' "$TEST_LOG")"
