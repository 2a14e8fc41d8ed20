#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# test/lab/trial.sh - the live trial overrules a wrong model (docs/calibration.md, "Live trial").
# 4 emulated hosts, every ordered pair 40 Mbit/s except host 3 -> host 0 at 2 Mbit/s; the matrix
# file given to the component claims that slow link is the fastest of all (100 MB/s). The model
# then gathers rank 2's block through host 3 and sends two blocks over the slow link, so its plan
# is really about twice (or more) slower than the previous module (basic's linear gather, one block
# per link). Checked, from rank 0's verbose output:
#   1. the model chose the plan; the trial ran plan / previous module three times each (no extra
#      calls, coll_cloudaware_trial_extra 0, so that the count is known); its
#      outcome is the previous module; every later blocking and every nonblocking call ran the
#      previous module; every result is right (trial_check).
#   2. a second job over the same cache directory starts decided: no trial, previous module.
# Exit: 0 pass, 77 skip (no root / no network namespaces), anything else fail. Lab instance 6.
# About 15 s.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lab="$top/contrib/lab/lab"
mpi_dir=${MPI_TEST_DIR:-$top/test/mpi}
comp=${COMPONENT_DIR:-$mpi_dir/components}
export CALAB_INSTANCE=6
work=$(mktemp -d /tmp/lab-trial.XXXXXX)
log="$work/log"

say() { printf 'lab-trial: %s\n' "$*"; }
fail() {
    grep -a -v "coll:cloudaware: i\?gather of [0-9]* bytes (root" "$log" | tail -n 30
    printf 'lab-trial: FAIL: %s\n' "$*" >&2
    exit 1
}
skip() { printf 'SKIP: lab-trial: %s\n' "$*" >&2; exit 77; }

[ "$(id -u)" = 0 ] || skip "not root: the lab needs network namespaces"
unshare --net --uts true 2>/dev/null || skip "this machine does not allow network namespaces"
[ -x "$mpi_dir/trial_check" ] || fail "$mpi_dir/trial_check not built (make check builds it in test/mpi)"
[ -e "$comp/mca_coll_cloudaware.so" ] || fail "no mca_coll_cloudaware.so in $comp"
trap '"$lab" down >/dev/null 2>&1; rm -rf "$work"' EXIT
cat >"$work/trial-4.topo" <<'EOF'
cloudaware-lab-topology 1
name trial-4
hosts 4
ranks_per_host 1
rack all hosts 0-3 intra 40mbit
pair 3 0 2mbit
end
EOF
"$lab" down >/dev/null 2>&1 || true
say "lab up trial-4 (host 3 -> host 0 at 2 Mbit/s, every other pair 40)"
"$lab" up "$work/trial-4.topo" >/dev/null || fail "lab up"
# The lab's own matrix, with host 3 -> host 0 (row 4 of bandwidth_Bps, column 1) claimed 100 MB/s.
awk 'BEGIN { b = -1 } /^bandwidth_Bps/ { b = 0; print; next } b >= 0 && /^end/ { b = -1 }
     b >= 0 { b++; if (b == 4) $1 = "1e8" } { print }' "$("$lab" matrix)" >"$work/wrong.matrix"
grep -a -q "^1e8 " "$work/wrong.matrix" || fail "could not write the wrong matrix"

job() {
    "$lab" run -np 4 --map-by node \
        --mca mca_base_component_path "$comp:$(ompi_info --path pkglibdir | sed -n 's/^ *Pkglibdir: *//p')" \
        --mca coll cloudaware,basic --mca coll_cloudaware_matrix_file "$work/wrong.matrix" \
        --mca coll_cloudaware_cache_dir "$work/cache" --mca coll_cloudaware_verbose 50 \
        --mca coll_cloudaware_trial_spread 0 --mca coll_cloudaware_trial_peer 0 --mca coll_cloudaware_trial_time 0 \
        --mca coll_cloudaware_trial_extra 0 -- "$mpi_dir/trial_check" gather 8192 8 >"$log" 2>&1
}
# Rank 0 (host 0)'s per-call paths of the blocking (PREFIX=i: nonblocking) gathers.
paths() {
    grep -a "^\[calab6-h0:[0-9]*\] coll:cloudaware: ${PREFIX:-}gather of 32768 bytes (root 0): " "$log" \
        | sed 's/.*(root 0): \([a-z]*\).*/\1/'
}

say "1. the model chooses the plan over the slow link; the trial must choose the previous module"
job || fail "trial_check failed"
grep -a -q "trial_check: gather count=8192 reps=8 on 4 ranks: 16 checks, 0 failures" "$log" \
    || fail "wrong results"
grep -a -q "^\[calab6-h0:[0-9]*\] coll:cloudaware: gather of 32768 bytes: [a-z].* (predicted" "$log" \
    || fail "the model did not choose a plan (the matrix should make it)"
report=$(grep -a "trial of gather of 32768 bytes (root 0) on MPI_COMM_WORLD: .*outcome: " "$log")
[ -n "$report" ] || fail "no trial report"
say "${report#*coll:cloudaware: }"
case "$report" in
    *"outcome: the previous module"*) ;;
    *) fail "the trial kept the plan over the slow link" ;;
esac
mapfile -t blocking < <(paths)
[ "${#blocking[*]}" = 8 ] || fail "expected 8 blocking calls on rank 0, saw ${#blocking[*]}"
[ "${blocking[*]}" = "${blocking[0]} ${blocking[0]} ${blocking[0]} previous previous previous previous previous" ] \
    && [ "${blocking[0]}" != previous ] || fail "calls ran: ${blocking[*]} (want plan x 3, previous x 3, then previous)"
[ "$(PREFIX=i paths | sort -u)" = previous ] || fail "nonblocking calls did not run the previous module"
say "ok: calls ran ${blocking[*]}; nonblocking calls ran the previous module"

say "2. the next job over the same cache directory starts decided"
job || fail "trial_check failed (second job)"
grep -a -q "trial_check: gather count=8192 reps=8 on 4 ranks: 16 checks, 0 failures" "$log" \
    || fail "wrong results (second job)"
grep -a -q "trial of gather of 32768 bytes (root 0) on MPI_COMM_WORLD: stored outcome, no trial: the previous module" "$log" \
    || fail "the stored outcome was not used"
grep -a -q "trial of .*outcome: " "$log" && fail "a trial ran although its outcome was stored"
[ "$( (paths; PREFIX=i paths) | sort -u)" = previous ] || fail "the second job ran the plan"
say "ok: no trial, every call ran the previous module"
say "PASS"
