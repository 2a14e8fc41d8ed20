#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# The live trial (docs/calibration.md, "Live trial") on one host: 4 ranks on 4 pretend nodes
# (coll_cloudaware_test_fake_nodes), `--mca coll cloudaware,basic`, calibrated by measurement.
#   1. The first 6 blocking calls of a class run the plan 3 times, then the previous module 3
#      times (each variant's calls one after the other, docs/calibration.md), rank 0
#      reports the trial and its outcome, later blocking and all nonblocking calls run the
#      outcome, every result is right, and the outcome goes to the cache directory.
#   2. A second job over the same cache starts decided: the stored outcome, no trial. 2b. So do
#      communicators dup'ed in the same job, without a cache directory: the decision remembered
#      (core/decision_memo.cpp), the outcome MPI_COMM_WORLD's trial agreed on.
#   3. The trial also tries the plan when the model chose the previous module (min_gain 0.99).
#   4. coll_cloudaware_trial_calls 0: no trial.  5. An unusable trial book (another version)
#      is reported, the trial runs again and the book is rewritten.  6. Every collective, and
#      coll_check (non-commutative ops, zero sizes, IN_PLACE, sub-communicators) with trials.
#   7. coll_cloudaware_trial_time: calls predicted short get more trial calls (here 16), and
#      are judged as short calls (the slowest rank's median of its own calls, a rank test).
#      7b. Their outcome, when not the previous module, is provisional: stored as such, the next
#      job trials again and leaves the previous module only when it too measures a variant
#      faster (a book edited to a provisional plan: job 2 trials, its outcome is final either
#      way, job 3 starts decided).
#   8. coll_cloudaware_trial_cut: a variant losing by far in its first call runs no more calls
#      (a tiny factor here, so that every variant after the plan is cut).
#   9. coll_cloudaware_trial_extra: a variant whose calls are spread runs more calls (margin 0
#      here, so that every variant's calls are: 3 + 2 calls each).
#   5c. The peer: with basic below, tuned's algorithm run by the executor takes part (sections 1
#      to 5b and 7 turn it off, coll_cloudaware_trial_peer 0, to count two or three variants;
#      5d: with tuned below, han's two levels are the peer, coll_check included;
#      section 6 keeps it on, so every collective and coll_check also run tuned's algorithms
#      through the executor).
# Which variant wins here is not asserted: shared memory decides that, and it may go either way;
# the lab test test/lab/trial.sh asserts the previous module winning over a wrong model.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-trial.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
prog="$TEST_BUILDDIR/trial_check"
common=(--mca coll cloudaware,basic --mca coll_cloudaware_test_fake_nodes 4
        --mca coll_cloudaware_calibrate_bandwidth_bytes 4096)
# coll_cloudaware_trial_time 0: trial_calls calls per variant, however short (section 7 tests it);
# coll_cloudaware_trial_cut 0 and coll_cloudaware_trial_extra 0: no variant cut after one call,
# none runs extra calls, so every variant runs the calls these sections count (section 6 runs
# with the default cut and extra calls, sections 8 and 9 test them)
uncut=("${common[@]}" --mca coll_cloudaware_trial_time 0)
base=("${uncut[@]}" --mca coll_cloudaware_trial_cut 0 --mca coll_cloudaware_trial_extra 0)
nopeer=(--mca coll_cloudaware_trial_peer 0)

# The blocking (or, with PREFIX=i, nonblocking) per-call paths of rank 0 for "gather of 65536
# bytes", one per line: "cool", "tree", ... for a plan, "previous" for the previous module.
# Rank 0 is the process that reports the calibration totals at finalize.
paths() {
    local pid
    pid=$(grep -o '^\[[^]]*\] coll:cloudaware: calibration totals (world rank 0)' "$TEST_LOG" \
        | sed 's/ .*//')
    grep -F "$pid coll:cloudaware: ${PREFIX:-}gather of 65536 bytes (root 0): " "$TEST_LOG" \
        | sed 's/.*(root 0): \([a-z]*\).*/\1/'
}
outcome_word() {   # "plan" or "previous", from rank 0's trial report
    sed -n 's/.*trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*outcome: the \(plan\|previous module\).*/\1/p' \
        "$TEST_LOG" | sed 's/previous module/previous/'
}

# coll_check --quick on NP ranks with one trial call per variant and ARGS: every result right,
# and at least 5 trial reports matching "trial of .*PATTERN outcome: " (n is set to their count).
check_with_trials() {
    local np=$1 pattern=$2
    shift 2
    ca_mpirun "$np" "$@" --mca coll_cloudaware_verbose 10 --mca coll_cloudaware_min_gain 0 \
        --mca coll_cloudaware_trial_calls 1 "$TEST_BUILDDIR/coll_check" --quick >/dev/null \
        || fail "coll_check with trials failed"
    expect_in_log "coll_check: $np ranks, .* 0 failures"
    n=$(grep -c "trial of .*${pattern}outcome: " "$TEST_LOG")
    [ "$n" -ge 5 ] || fail "coll_check completed only $n trials matching '$pattern'"
}

echo "--- 1. trial, outcome, cache (two variants: coll_cloudaware_trial_spread 0)"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_verbose 50 --mca coll_cloudaware_cache_dir "$work/cache" \
    --mca coll_cloudaware_trial_spread 0 "${nopeer[@]}" "$prog" gather 16384 8 >/dev/null || fail "trial_check failed"
expect_in_log "trial_check: gather count=16384 reps=8 on 4 ranks: 16 checks, 0 failures"
[ "$(grep -c 'trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*outcome: ' "$TEST_LOG")" = 1 ] \
    || fail "expected exactly one trial report for gather of 65536 bytes"
won=$(outcome_word)
[ -n "$won" ] || fail "no outcome in the trial report"
mapfile -t blocking < <(paths)
[ "${#blocking[@]}" = 8 ] || fail "expected 8 blocking calls of rank 0, saw ${#blocking[@]}"
for k in 0 1 2; do
    [ "${blocking[$k]}" != previous ] || fail "trial call $k ran the previous module, not the plan"
    [ "${blocking[$((k + 3))]}" = previous ] || fail "trial call $((k + 3)) ran a plan"
done
for k in 6 7; do
    case "$won:${blocking[$k]}" in
        previous:previous | plan:cool | plan:tree | plan:linear | plan:binomial | plan:ring) ;;
        *) fail "call $k after the trial ran ${blocking[$k]}, the outcome was $won" ;;
    esac
done
for p in $(PREFIX=i paths); do
    [ "$won" = previous ] && [ "$p" != previous ] && fail "a nonblocking call ran $p, not the outcome"
    [ "$won" = plan ] && [ "$p" = previous ] && fail "a nonblocking call ran the previous module"
done
expect_in_log "cache: wrote $work/cache/cloudaware-[0-9a-f]*\.trials"
book=$(ls "$work"/cache/cloudaware-*.trials)
grep -q "^trial [0-9a-f]\{16\} gather 0 16 14 $won final " "$book" \
    || fail "outcome not in the trial book as final (3 calls per variant are no short calls)"
echo "ok: trial ran plan x 3, previous x 3, outcome: $won, stored in $(basename "$book")"

echo "--- 2. the next job starts decided"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_verbose 50 --mca coll_cloudaware_cache_dir "$work/cache" \
    --mca coll_cloudaware_trial_spread 0 "${nopeer[@]}" "$prog" gather 16384 8 >/dev/null || fail "trial_check failed (second job)"
expect_in_log "trial_check: gather count=16384 reps=8 on 4 ranks: 16 checks, 0 failures"
expect_in_log "trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: stored outcome, no trial"
grep -q "trial of .*outcome: " "$TEST_LOG" && fail "a trial ran although its outcome was stored"
for p in $(paths); do
    [ "$won" = previous ] && [ "$p" != previous ] && fail "second job ran $p, stored outcome previous"
    [ "$won" = plan ] && [ "$p" = previous ] && fail "second job ran the previous module"
done
echo "ok: second job used the stored outcome ($won), no trial"

echo "--- 2b. dup'ed communicators start decided: the decision remembered, the trial's outcome agreed"
echo "        on MPI_COMM_WORLD (no cache directory)"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_verbose 10 --mca coll_cloudaware_trial_spread 0 \
    "${nopeer[@]}" "$prog" gather 16384 8 0 2 >/dev/null || fail "trial_check failed (dups)"
expect_in_log "trial_check: gather count=16384 reps=8 on 4 ranks: 48 checks, 0 failures"
[ "$(grep -c 'trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*outcome: ' "$TEST_LOG")" = 1 ] \
    || fail "expected one trial on MPI_COMM_WORLD"
grep -q 'trial of gather of 65536 bytes (root 0) on [^:]*DUP[^:]*: .*outcome: ' "$TEST_LOG" \
    && fail "a dup'ed communicator ran a trial of its own"
n=$(grep -c 'trial of gather of 65536 bytes (root 0) on [^:]*DUP[^:]*: stored outcome, no trial: .*; agreed on an earlier communicator over the same nodes and ranks in this job)' "$TEST_LOG")
[ "$n" = 2 ] || fail "expected both dups to take MPI_COMM_WORLD's outcome, saw $n"
fresh=$(grep 'gather of 65536 bytes: .*; decided in ' "$TEST_LOG" | grep -vc '(remembered: ')
kept=$(grep -c 'gather of 65536 bytes: .*; decided in [0-9.]* ms (remembered: an earlier communicator' "$TEST_LOG")
[ "$fresh" = 4 ] && [ "$kept" = 8 ] \
    || fail "expected 4 decisions (MPI_COMM_WORLD) and 8 remembered (the dups), saw $fresh and $kept"
echo "ok: one trial, two dups decided by memory ($kept decisions remembered), every result right"

echo "--- 3. the model chose the previous module: the trial still tries the plan"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_verbose 50 --mca coll_cloudaware_min_gain 0.99 \
    --mca coll_cloudaware_trial_spread 0 --mca coll_cloudaware_trial_calls 2 "${nopeer[@]}" "$prog" gather 16384 6 \
    >/dev/null || fail "trial_check failed"
expect_in_log "0 failures"
expect_in_log "gather of 65536 bytes: previous module (.* gain below min_gain 0.99)"
expect_in_log "trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*outcome: "
mapfile -t blocking < <(paths)
[ "${blocking[0]}" != previous ] && [ "${blocking[1]}" != previous ] \
    && [ "${blocking[2]}" = previous ] && [ "${blocking[3]}" = previous ] \
    || fail "the trial did not run the plan the model turned down, then the previous module: ${blocking[*]}"
echo "ok: plan tried although the model chose the previous module: ${blocking[*]}"

echo "--- 4. coll_cloudaware_trial_calls 0: no trial"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_verbose 50 --mca coll_cloudaware_min_gain 0.99 \
    --mca coll_cloudaware_trial_calls 0 "$prog" gather 16384 4 >/dev/null || fail "trial_check failed"
expect_in_log "0 failures"
grep -q "trial of " "$TEST_LOG" && fail "a trial ran with coll_cloudaware_trial_calls 0"
[ "$(paths | sort -u)" = previous ] || fail "without trials the model's choice must run"
echo "ok: no trial, the model's choice ran"

echo "--- 5. an unusable trial book is reported and replaced"
sed -i 's/^cloudaware-trials 5$/cloudaware-trials 6/' "$book"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_verbose 10 --mca coll_cloudaware_cache_dir "$work/cache" \
    --mca coll_cloudaware_trial_spread 0 "${nopeer[@]}" "$prog" gather 16384 6 >/dev/null || fail "trial_check failed"
expect_in_log "0 failures"
expect_in_log "trial book is unusable, the trials run again (.*version '6' is not supported"
expect_in_log "trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*outcome: "
head -n 1 "$book" | grep -qx "cloudaware-trials 5" || fail "the book was not rewritten"
echo "ok: version 6 book reported, trial ran, book rewritten"

echo "--- 5b. three variants: the model's second plan takes part (coll_cloudaware_trial_spread)"
rm -rf "$work/cache3"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_verbose 50 --mca coll_cloudaware_cache_dir "$work/cache3" \
    --mca coll_cloudaware_trial_spread 100000 "${nopeer[@]}" "$prog" gather 16384 11 >/dev/null \
    || fail "trial_check failed (three variants)"
expect_in_log "trial_check: gather count=16384 reps=11 on 4 ranks: 22 checks, 0 failures"
expect_in_log "gather of 65536 bytes: the live trial also tries "
[ "$(grep -c 'trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*; alternative .*outcome: ' "$TEST_LOG")" = 1 ] \
    || fail "expected exactly one three-variant trial report for gather of 65536 bytes"
mapfile -t blocking < <(paths)
[ "${#blocking[@]}" = 11 ] || fail "expected 11 blocking calls of rank 0, saw ${#blocking[@]}"
for k in 0 1 2; do
    [ "${blocking[$k]}" != previous ] || fail "trial call $k ran the previous module, not the plan"
    [ "${blocking[$((k + 3))]}" = previous ] || fail "trial call $((k + 3)) ran a plan"
    [ "${blocking[$((k + 6))]}" != previous ] || fail "trial call $((k + 6)) ran the previous module, not the alternative"
done
won3=$(sed -n 's/.*trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*outcome: the \(plan\|previous module\|alternative\) .*/\1/p' \
    "$TEST_LOG" | sed 's/previous module/previous/')
[ -n "$won3" ] || fail "no outcome in the three-variant trial report"
case "$won3:${blocking[9]}:${blocking[10]}" in
    previous:previous:previous | plan:[a-z]*:[a-z]* | alternative:[a-z]*:[a-z]*) ;;
    *) fail "calls after the trial ran ${blocking[9]} ${blocking[10]}, the outcome was $won3" ;;
esac
[ "$won3" = previous ] || [ "${blocking[9]}" != previous ] || fail "a plan won but the previous module ran"
book3=$(ls "$work"/cache3/cloudaware-*.trials)
grep -q "^trial [0-9a-f]\{16\} gather 0 16 14 $won3 final [0-9.e-]* [0-9.e-]* [0-9.e-]* 0 .* | " "$book3" \
    || fail "three-variant outcome not in the trial book"
echo "ok: trial ran plan x 3, previous x 3, alternative x 3, outcome: $won3, stored"

echo "--- 5c. the peer: tuned's algorithm, run by the executor, takes part (basic below)"
rm -rf "$work/cache4"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_verbose 50 --mca coll_cloudaware_cache_dir "$work/cache4" \
    --mca coll_cloudaware_trial_spread 0 "$prog" gather 16384 11 >/dev/null || fail "trial_check failed (peer)"
expect_in_log "trial_check: gather count=16384 reps=11 on 4 ranks: 22 checks, 0 failures"
expect_in_log "gather of 65536 bytes: the live trial also tries the peer, tuned [a-z_]* run by the executor"
[ "$(grep -c 'trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*; peer tuned [a-z_]*: .*outcome: ' "$TEST_LOG")" = 1 ] \
    || fail "expected exactly one trial report with the peer for gather of 65536 bytes"
mapfile -t blocking < <(paths)
[ "${#blocking[@]}" = 11 ] || fail "expected 11 blocking calls of rank 0, saw ${#blocking[@]}"
for k in 0 1 2; do
    case "${blocking[$k]}" in previous | tuned) fail "trial call $k ran ${blocking[$k]}, not the plan" ;; esac
    [ "${blocking[$((k + 3))]}" = previous ] || fail "trial call $((k + 3)) ran ${blocking[$((k + 3))]}"
    [ "${blocking[$((k + 6))]}" = tuned ] || fail "trial call $((k + 6)) ran ${blocking[$((k + 6))]}, not the peer"
done
won4=$(sed -n 's/.*trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*outcome: the \(plan\|previous module\|peer\) .*/\1/p' \
    "$TEST_LOG" | sed 's/previous module/previous/')
[ -n "$won4" ] || fail "no outcome in the trial report with the peer"
case "$won4:${blocking[9]}:${blocking[10]}" in
    previous:previous:previous | peer:tuned:tuned) ;;
    plan:previous:* | plan:tuned:* | plan:*:previous | plan:*:tuned)
        fail "calls after the trial ran ${blocking[9]} ${blocking[10]}, the outcome was the plan" ;;
    plan:*) ;;
    *) fail "calls after the trial ran ${blocking[9]} ${blocking[10]}, the outcome was $won4" ;;
esac
book4=$(ls "$work"/cache4/cloudaware-*.trials)
grep -q "^trial [0-9a-f]\{16\} gather 0 16 14 $won4 final [0-9.e-]* [0-9.e-]* 0 [0-9.e-]* .* | peer tuned " "$book4" \
    || fail "the outcome with the peer is not in the trial book"
echo "ok: trial ran plan x 3, previous x 3, peer x 3, outcome: $won4, stored"

echo "--- 5d. tuned below: the peer is han's two levels, run by the executor"
# 2 pretend nodes (ranks modulo 2), so han's plan has both levels; 5 ranks for coll_check: 3 + 2.
hanpeer=(--mca coll cloudaware,tuned,basic --mca coll_cloudaware_priority 100
         --mca coll_cloudaware_test_fake_nodes 2
         --mca coll_cloudaware_calibrate_bandwidth_bytes 4096 --mca coll_cloudaware_trial_time 0
         --mca coll_cloudaware_trial_cut 0 --mca coll_cloudaware_trial_extra 0)
ca_mpirun 4 "${hanpeer[@]}" --mca coll_cloudaware_verbose 50 --mca coll_cloudaware_trial_spread 0 \
    "$prog" gather 16384 9 >/dev/null || fail "trial_check failed (han peer)"
expect_in_log "trial_check: gather count=16384 reps=9 on 4 ranks: 18 checks, 0 failures"
expect_in_log "gather of 65536 bytes: the live trial also tries the peer, han two-level run by the executor"
mapfile -t blocking < <(paths)
[ "${#blocking[@]}" = 9 ] || fail "expected 9 blocking calls of rank 0, saw ${#blocking[@]}"
for k in 0 1 2; do
    [ "${blocking[$((k + 6))]}" = han ] || fail "trial call $((k + 6)) ran ${blocking[$((k + 6))]}, not the peer"
done
grep -q 'trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*; peer han two-level: .*outcome: ' "$TEST_LOG" \
    || fail "no trial report with han's peer"
check_with_trials 5 "; peer han two-level: .*" "${hanpeer[@]}"
echo "ok: han's peer ran in the trial (calls 7-9); coll_check right with it in $n trials"

echo "--- 6. every collective, and coll_check, with trials (the peer included; the default cut and extra calls)"
colls=bcast,reduce,allreduce,scatter,allgather
ca_mpirun 4 "${uncut[@]}" --mca coll_cloudaware_verbose 10 --mca coll_cloudaware_min_gain 0 \
    "$prog" $colls 4096 16 1 >/dev/null || fail "trial_check $colls failed"
expect_in_log "trial_check: $colls count=4096 reps=16 on 4 ranks: .* 0 failures"
for coll in ${colls//,/ }; do
    expect_in_log "trial of $coll of 16384 bytes (root -\?[01]) on MPI_COMM_WORLD: .*outcome: "
done
check_with_trials 4 "" "${uncut[@]}"
echo "ok: every collective right under trials; coll_check completed $n trials"

echo "--- 7. short calls: coll_cloudaware_trial_time lengthens the trial"
ca_mpirun 4 "${common[@]}" --mca coll_cloudaware_trial_time 1000 --mca coll_cloudaware_verbose 10 \
    --mca coll_cloudaware_trial_spread 0 "${nopeer[@]}" "$prog" gather 16384 40 >/dev/null || fail "trial_check failed (trial_time 1000)"
expect_in_log "trial_check: gather count=16384 reps=40 on 4 ranks: .* 0 failures"
report=$(grep -o 'trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*; previous module: [^(]* s (median' \
         "$TEST_LOG" | head -n 1)
n=$(echo "$report" | sed 's/.*; previous module: \([^(]*\) s (median$/\1/' | wc -w)
[ "$n" = 16 ] || fail "expected 16 trial calls of the previous module (a 64 KiB gather on one host is predicted far below 1000 s / 3), saw $n: $report"
echo "ok: a trial of short calls ran 16 calls per variant"
# Judged as short calls: each variant's time is the slowest rank's median of its own calls, which
# cannot exceed the median of each call's slowest rank (printed); the plan wins only with the
# rank test's z >= 1.645.
line=$(grep -o 'trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*' "$TEST_LOG" | head -n 1)
short="short calls: medians are the slowest rank's of its own calls; rank test of the fastest"
echo "$line" | grep -q "$short against the previous module: z " \
    || fail "a trial of 16 calls per variant was not judged as short calls: $line"
python3 - "$line" <<'PY' || fail "short calls' medians or outcome inconsistent: $line"
import re, statistics, sys
line = sys.argv[1]
z = float(re.search(r"rank test of the fastest against the previous module: z (-?[0-9.]+)", line).group(1))
for times, med in re.findall(r"\[[^]]*\] ([0-9.e+\- ]+) s \(median ([0-9.e+\-]+) s\)", line):
    per_call = statistics.median(float(x) for x in times.split())
    assert float(med) <= per_call * 1.001, (med, per_call)   # printed with 3 digits
assert "outcome: the previous module" in line or z >= 1.645, z
PY
echo "ok: judged as short calls (each rank's median, rank test)"

echo "--- 7b. short calls: another variant than the previous module is provisional until a second"
echo "        job's trial confirms leaving the previous module"
short7=("${common[@]}" --mca coll_cloudaware_trial_time 1000 --mca coll_cloudaware_verbose 10
        --mca coll_cloudaware_trial_spread 0 "${nopeer[@]}" --mca coll_cloudaware_cache_dir "$work/cache7")
record() { grep "^trial [0-9a-f]\{16\} gather 0 16 14 " "$work"/cache7/cloudaware-*.trials; }
report7() { grep -o 'trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*outcome: .*' "$TEST_LOG"; }
ca_mpirun 4 "${short7[@]}" "$prog" gather 16384 40 >/dev/null || fail "trial_check failed (7b, job 1)"
expect_in_log "trial_check: gather count=16384 reps=40 on 4 ranks: .* 0 failures"
won=$(outcome_word)
case "$won:$(record | cut -d' ' -f7,8)" in
    plan:"plan provisional")
        report7 | grep -q "; provisional: the next job over these nodes trials again to confirm it" \
            || fail "the plan won short calls but the report does not say provisional: $(report7)" ;;
    previous:"previous final")
        report7 | grep -q "provisional" && fail "the previous module reported provisional: $(report7)" ;;
    *) fail "outcome $won stored as '$(record | cut -d' ' -f7,8)'" ;;
esac
echo "ok: job 1 kept $won, stored as $(record | cut -d' ' -f7,8)"
# Whatever job 1 measured, make its record the plan's provisional outcome: job 2 must trial again.
sed -i 's/^\(trial [0-9a-f]\{16\} gather 0 16 14 \)[a-z]* [a-z]* /\1plan provisional /' \
    "$work"/cache7/cloudaware-*.trials
[ "$(record | cut -d' ' -f7,8)" = "plan provisional" ] || fail "could not edit the trial book"
ca_mpirun 4 "${short7[@]}" "$prog" gather 16384 40 >/dev/null || fail "trial_check failed (7b, job 2)"
expect_in_log "trial_check: gather count=16384 reps=40 on 4 ranks: .* 0 failures"
expect_in_log "trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: stored outcome provisional: the plan (.*; one job's trial of short calls, from the trial book); trial again to confirm it"
grep -q "stored outcome, no trial" "$TEST_LOG" && fail "job 2 took a provisional outcome without a trial"
won=$(outcome_word)
case "$won" in
    plan) report7 | grep -q "; confirms leaving the previous module (an earlier job kept the plan, provisionally, this one the plan; the least sum of both jobs' medians: the plan)" \
              || fail "job 2 kept the plan without saying it confirms: $(report7)" ;;
    previous) report7 | grep -q "; does not confirm leaving the previous module (an earlier job kept the plan, provisionally)" \
              || fail "job 2 kept the previous module without saying so: $(report7)" ;;
    *) fail "no outcome in job 2's report" ;;
esac
[ "$(record | cut -d' ' -f7,8)" = "$won final" ] || fail "job 2's outcome $won not final: $(record)"
echo "ok: job 2 tried again, $won is final"
ca_mpirun 4 "${short7[@]}" "$prog" gather 16384 40 >/dev/null || fail "trial_check failed (7b, job 3)"
expect_in_log "trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: stored outcome, no trial: the $( [ "$won" = plan ] && echo plan || echo previous module) "
grep -q "trial of .*outcome: " "$TEST_LOG" && fail "job 3 ran a trial although the outcome was final"
echo "ok: job 3 started decided"

echo "--- 8. coll_cloudaware_trial_cut: variants losing by far run one call"
# Four variants (the alternative and the peer too); every variant after the plan took more than
# 1e-6 times the plan's first call, so each runs one call: plan x 3, previous, alternative, peer.
ca_mpirun 4 "${uncut[@]}" --mca coll_cloudaware_trial_cut 0.000001 --mca coll_cloudaware_trial_extra 0 \
    --mca coll_cloudaware_verbose 50 \
    --mca coll_cloudaware_trial_spread 100000 "$prog" gather 16384 9 >/dev/null || fail "trial_check failed (cut)"
expect_in_log "trial_check: gather count=16384 reps=9 on 4 ranks: 18 checks, 0 failures"
report=$(grep -a 'trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*outcome: ' "$TEST_LOG")
[ "$(echo "$report" | wc -l)" = 1 ] || fail "expected exactly one trial report for gather of 65536 bytes"
echo "$report" | grep -q "cut after one call (coll_cloudaware_trial_cut 1e-06): the previous module, the alternative, the peer;" \
    || fail "the report does not name the three cut variants: $report"
echo "$report" | grep -q "; previous module: [0-9.e+-]* s (median " || fail "a cut variant reports more than one call: $report"
echo "$report" | grep -q "checks [0-9.e+-]* s" || fail "the report has no checks' overhead: $report"
mapfile -t blocking < <(paths)
[ "${#blocking[@]}" = 9 ] || fail "expected 9 blocking calls of rank 0, saw ${#blocking[@]}"
for k in 0 1 2; do
    case "${blocking[$k]}" in previous | tuned) fail "trial call $k ran ${blocking[$k]}, not the plan" ;; esac
done
[ "${blocking[3]}" = previous ] || fail "trial call 3 ran ${blocking[3]}, not the previous module"
[ "${blocking[5]}" = tuned ] || fail "trial call 5 ran ${blocking[5]}, not the peer"
echo "ok: plan x 3, then one call each of previous, alternative and peer: ${blocking[*]}"

echo "--- 9. coll_cloudaware_trial_extra: a variant whose calls are spread runs more calls"
# Margin 0: two calls settle only when equal, so every variant runs its 2 extra calls (after its
# third and fourth calls the agreed times still differ): plan x 5, previous x 5.
ca_mpirun 4 "${uncut[@]}" --mca coll_cloudaware_trial_cut 0 --mca coll_cloudaware_trial_extra 2 \
    --mca coll_cloudaware_trial_margin 0 --mca coll_cloudaware_verbose 50 --mca coll_cloudaware_trial_spread 0 \
    "${nopeer[@]}" "$prog" gather 16384 12 >/dev/null || fail "trial_check failed (extra)"
expect_in_log "trial_check: gather count=16384 reps=12 on 4 ranks: 24 checks, 0 failures"
report=$(grep -a 'trial of gather of 65536 bytes (root 0) on MPI_COMM_WORLD: .*outcome: ' "$TEST_LOG")
[ "$(echo "$report" | wc -l)" = 1 ] || fail "expected exactly one trial report for gather of 65536 bytes"
echo "$report" | grep -q "; calls spread, more calls (coll_cloudaware_trial_extra 2): the plan, the previous module;" \
    || fail "the report does not name the two variants that ran extra calls: $report"
n=$(echo "$report" | sed 's/.*; previous module: \([^(]*\) s (median .*/\1/' | wc -w)
[ "$n" = 5 ] || fail "expected 5 calls of the previous module in the report, saw $n: $report"
mapfile -t blocking < <(paths)
[ "${#blocking[@]}" = 12 ] || fail "expected 12 blocking calls of rank 0, saw ${#blocking[@]}"
for k in 0 1 2 3 4; do
    [ "${blocking[$k]}" != previous ] || fail "trial call $k ran the previous module, not the plan"
    [ "${blocking[$((k + 5))]}" = previous ] || fail "trial call $((k + 5)) ran ${blocking[$((k + 5))]}"
done
echo "ok: plan x 5, previous x 5 (3 calls + 2 extra each): ${blocking[*]}"
echo "PASS: live trial"
