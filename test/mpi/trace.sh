#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Tracing (coll_cloudaware_trace, docs/monitoring.md): 4 ranks on 2 pretend nodes run nbc_check's
# blocking, nonblocking and persistent collectives with tracing on. Every rank writes its file;
# the files hold plan calls of all three forms and calls handed to the previous module; every
# call is in the files of all members of its communicator, and every send has its receive on the
# peer with the same size (counted here with awk and by cloudaware-plan trace); world rank 0's hints.txt is what `cloudaware-plan trace --hints` says
# of the same files. Tracing off writes nothing; a symbolic link as the directory, or planted as a
# rank's file, is refused with one line per rank concerned and the job runs on; a trace whose first
# call went to the previous module starts at that call. About 8 s alone.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-trace.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
P="$TEST_BUILDDIR/../../ompi/tools/cloudaware-plan"
prog=("$TEST_BUILDDIR/nbc_check" --mode all)
base=(--mca coll cloudaware,basic --mca coll_cloudaware_test_fake_nodes 2
      --mca coll_cloudaware_calibrate_bandwidth_bytes 4096)

# ---- tracing on ----
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_trace "$work/t" --mca coll_cloudaware_verbose 1 \
    "${prog[@]}" >/dev/null || fail "nbc_check with tracing failed"
expect_in_log "nbc_check: 4 ranks, .* 0 failures"
expect_in_log "coll:cloudaware: hints ($work/t/hints.txt):"
[ "$(stat -c %a "$work/t")" = 700 ] || fail "trace directory mode $(stat -c %a "$work/t")"
for r in 0 1 2 3; do
    f="$work/t/rank-$r.trace"
    [ -s "$f" ] || fail "no $f"
    [ "$(stat -c %a "$f")" = 600 ] || fail "$f mode"
    [ "$(head -n 1 "$f")" = "cloudaware-trace 1" ] || fail "$f header"
done
for mode in blocking nonblocking persistent; do
    grep -q "^call .* mode $mode .* status ok$" "$work/t/rank-0.trace" || fail "no $mode plan call"
done
grep -q "^previous " "$work/t/rank-0.trace" || fail "no call of the previous module"
grep -q "^step .* kind send level 1 " "$work/t/rank-0.trace" || fail "no step between nodes"
# Sends and receives across all files: as many, and as many bytes.
read -r ns nr bs br < <(awk '$1 == "step" && $6 == "send" { ns++; bs += $12 }
                             $1 == "step" && $6 == "recv" { nr++; br += $12 }
                             END { print ns + 0, nr + 0, bs + 0, br + 0 }' "$work"/t/rank-*.trace)
[ "$ns" -gt 0 ] && [ "$ns" = "$nr" ] && [ "$bs" = "$br" ] \
    || fail "sends $ns ($bs bytes) vs receives $nr ($br bytes)"
"$P" trace "$work/t" >"$work/analysis.txt" || fail "cloudaware-plan trace failed"
grep -q "^messages: $ns sends matched with their receives, 0 unmatched steps, 0 with different sizes" \
    "$work/analysis.txt" || fail "analysis: $(grep '^messages' "$work/analysis.txt")"
grep -q "^trace $work/t: job [0-9]*, 4 of 4 ranks" "$work/analysis.txt" || fail "analysis header"
# Every call was recorded by every member of its communicator (world, dup, splits).
grep -q "^calls: [1-9][0-9]*, 0 of them not recorded by every member" "$work/analysis.txt" \
    || fail "analysis: $(grep '^calls' "$work/analysis.txt")"
"$P" trace "$work/t" --hints >"$work/hints.txt" || fail "cloudaware-plan trace --hints failed"
cmp -s "$work/hints.txt" "$work/t/hints.txt" \
    || fail "hints.txt differs from cloudaware-plan trace --hints: $(diff "$work/hints.txt" "$work/t/hints.txt")"
echo "ok: traced, consistent, analysed"

# ---- the first traced call handed to the previous module (its file opens after the call
# started): time 0 moves back to its start, no time is negative, and the analysis reads it ----
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_algorithm linear --mca coll_cloudaware_trace "$work/p" \
    "${prog[@]}" >/dev/null || fail "nbc_check with tracing (algorithm linear) failed"
first=$(grep -m 1 -E "^(call|previous) " "$work/p/rank-0.trace")
case "$first" in previous\ *" start 0.000000000 end "*) ;; *) fail "first record: $first" ;; esac
if grep -h -E "^(call|previous) " "$work"/p/rank-*.trace | grep -q -E " (start|end) -"; then
    fail "a negative time: $(grep -h -E " (start|end) -" "$work"/p/rank-*.trace | head -n 1)"
fi
"$P" trace "$work/p" >/dev/null || fail "the analysis refused a trace that starts with the previous module"
echo "ok: a trace that starts with a call of the previous module"

# ---- tracing off (the default, and empty): nothing written ----
mkdir "$work/off"
(cd "$work/off" && ca_mpirun 4 "${base[@]}" "${prog[@]}" >/dev/null) || fail "nbc_check failed (no tracing)"
(cd "$work/off" && ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_trace "" "${prog[@]}" >/dev/null) \
    || fail "nbc_check failed (empty coll_cloudaware_trace)"
[ -z "$(ls -A "$work/off")" ] || fail "tracing off wrote $(ls -A "$work/off")"
if grep -q "hints" "$TEST_LOG"; then fail "hints without tracing"; fi
echo "ok: tracing off writes nothing"

# ---- a symbolic link as the directory: refused, one line per rank, the job runs on ----
mkdir "$work/target"
ln -s "$work/target" "$work/link"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_trace "$work/link" "${prog[@]}" >/dev/null \
    || fail "nbc_check failed with a refused trace directory"
expect_in_log "nbc_check: 4 ranks, .* 0 failures"
[ "$(grep -c "coll:cloudaware: trace directory $work/link: $work/link is a symbolic link (refused); tracing off on this rank" "$TEST_LOG")" -eq 4 ] \
    || fail "expected one refusal line per rank"
[ -z "$(ls -A "$work/target")" ] || fail "wrote through the link: $(ls -A "$work/target")"
# ---- a planted symbolic link as a rank's file: that rank refuses it, the others trace ----
mkdir -m 700 "$work/planted"
echo "not a trace" >"$work/victim"
ln -s "$work/victim" "$work/planted/rank-1.trace"
ca_mpirun 4 "${base[@]}" --mca coll_cloudaware_trace "$work/planted" "${prog[@]}" >/dev/null \
    || fail "nbc_check failed with a planted rank file"
[ "$(grep -c "coll:cloudaware: trace file $work/planted/rank-1.trace: is a symbolic link (refused); tracing off on this rank" "$TEST_LOG")" -eq 1 ] \
    || fail "expected one refusal line from rank 1"
[ "$(cat "$work/victim")" = "not a trace" ] || fail "wrote through the planted link"
for r in 0 2 3; do [ -s "$work/planted/rank-$r.trace" ] || fail "rank $r wrote no file"; done
echo "PASS: tracing"
