#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# The MPI_T performance variables (docs/parameters.md, "Performance variables"), read through
# MPI_T_pvar_* by pvars_check on 4 ranks on 4 pretend nodes: on every rank, calls as plans +
# calls to the previous module = the calls made, one calibration, no recalibration with drift
# detection off; rank 0's trial counters = the trials rank 0 reported; with a rules file that
# runs every bcast as a plan, bcast's plan counter = the calls made, no trial counted. About 5 s
# alone.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

prog="$TEST_BUILDDIR/pvars_check"
work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-pvars.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
printf 'cloudaware-rules 2\nbcast 1 0 cool node=binomial group=binomial top=binomial\nend\n' >"$work/rules"
base=(--mca coll cloudaware,basic --mca coll_cloudaware_test_fake_nodes 4
      --mca coll_cloudaware_calibrate_bandwidth_bytes 4096 --mca coll_cloudaware_min_gain 0)

value() {   # value NAME: rank 0's printed value of coll_cloudaware_NAME
    sed -n "s/^pvars_check: coll_cloudaware_$1 //p" "$TEST_LOG"
}

echo "--- 1. counts add up (live trials on, 3 calls per variant however short; drift detection off)"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_verbose 10 --mca coll_cloudaware_recalibrate_threshold 0 \
    --mca coll_cloudaware_trial_time 0 "$prog" 20 10 16384 0 >/dev/null || fail "pvars_check failed"
expect_in_log "pvars_check: 4 ranks: 0 failures"
[ "$(value bcast_plan_calls)" -gt 0 ] || fail "no bcast ran as a plan (min_gain 0)"
trials=$(( $(value trials_plan) + $(value trials_alternative) + $(value trials_peer) + $(value trials_previous) \
    + $(value trials_stored) + $(value trials_failed) ))
pid=$(grep -o '^\[[^]]*\] coll:cloudaware: calibration totals (world rank 0)' "$TEST_LOG" | sed 's/ .*//')
reported=$(grep -F "$pid coll:cloudaware: trial of " "$TEST_LOG" | grep -c "outcome")
[ "$trials" = "$reported" ] && [ "$trials" -ge 1 ] \
    || fail "rank 0's trial counters add up to $trials, it reported $reported trials"
echo "ok: bcast $(value bcast_plan_calls) as plans + $(value bcast_previous_calls) previous = 20; $trials trials"

echo "--- 2. a rules file runs every bcast as a plan (no trial): counted as such"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_rules_file "$work/rules" --mca coll_cloudaware_trial_calls 0 \
    --mca coll_cloudaware_recalibrate_threshold 0 "$prog" 7 5 1024 0 >/dev/null || fail "pvars_check failed (no trials)"
expect_in_log "pvars_check: 4 ranks: 0 failures"
[ "$(value bcast_plan_calls)" = 7 ] || fail "expected all 7 bcasts as plans, saw $(value bcast_plan_calls)"
[ "$(value trials_plan)$(value trials_alternative)$(value trials_peer)$(value trials_previous)$(value trials_stored)$(value trials_failed)" = 000000 ] \
    || fail "trial counters moved without trials"
echo "ok"
