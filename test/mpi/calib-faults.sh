#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Calibration faults (docs/calibration.md, "Deadline and agreement"): a leader that stalls past
# the budget, one stopped for good (SIGSTOP), a rank killed, a local failure injected at each
# point after the start, and ranks that read different matrix or rules files. In each case every
# rank reaches the same verdict, the ranks that are not stalled reach it within budget + slack,
# there is exactly one warning, the job's results are right and nothing hangs.
#
# Per-rank timings come from the verbose line every rank prints when it has its verdict:
#   calibration verdict of MPI_COMM_WORLD on rank R: READY|FAIL after T s (budget B s + slack S s)
# T counts from the rank's start (when it received rank 0's start message; see the docs).
. "${TEST_SRCDIR:-.}/mpitest.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-faults.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
prog="$TEST_BUILDDIR/calib_check"
base=(--mca coll cloudaware,basic,libnbc --mca coll_cloudaware_min_nodes 1 --mca coll_cloudaware_verbose 10
      --mca coll_cloudaware_calibrate_bandwidth_bytes 262144 --mca coll_cloudaware_calibrate_latency_reps 5
      --mca coll_cloudaware_test_fake_nodes 3)
# 6 ranks on 3 pretend nodes: node k = ranks k and k + 3, its leader rank k.
budget=2
slack=2
# What a non-stalled rank may take beyond budget + slack: scheduling on a loaded 2-core machine
# (the wait ends at the deadline; this is the time to notice it and print).
allowance=$(awk -v f="$CA_SLOWDOWN" 'BEGIN { print 0.5 * f }')   # scheduling; more under ASan
host=$(hostname | cut -d. -f1)

warnings() { grep -c "coll:cloudaware: warning:" "$TEST_LOG"; }
verdict_lines() { grep "calibration verdict of MPI_COMM_WORLD on rank" "$TEST_LOG"; }
expect_ok() { expect_in_log "calib_check: 6 ranks, .* 0 failures"; }
expect_one_warning() {   # PATTERN
    [ "$(warnings)" -eq 1 ] || fail "expected exactly one warning, got $(warnings)"
    expect_in_log "coll:cloudaware: warning: .*$1"
}
# Every one of the 6 ranks printed its verdict, and all say VERDICT.
expect_agreed() {   # VERDICT
    local all same
    all=$(verdict_lines | wc -l)
    same=$(verdict_lines | grep -c ": $1 after ")
    [ "$all" -eq 6 ] && [ "$same" -eq 6 ] \
        || fail "expected 6 ranks with verdict $1, got $same of $all lines"
}
# Every rank except SKIP reached its verdict within budget + slack + allowance.
expect_in_time() {   # SKIP-RANK
    local limit slow
    limit=$(awk -v a="$budget" -v b="$slack" -v c="$allowance" 'BEGIN { print a + b + c }')
    slow=$(verdict_lines | sed -n 's/.*on rank \([0-9]*\): [A-Z]* after \([0-9.]*\) s.*/\1 \2/p' \
        | awk -v skip="$1" -v limit="$limit" '$1 != skip && $2 > limit')
    [ -z "$slow" ] || fail "ranks past $limit s (rank, seconds): $slow"
    echo "  verdict times: $(verdict_lines | sed -n 's/.*on rank \([0-9]*\): [A-Z]* after \([0-9.]*\) s.*/r\1=\2/p' | sort | tr '\n' ' ')"
}
timing=(--mca coll_cloudaware_calibrate_budget $budget --mca coll_cloudaware_calibrate_slack $slack)

# Starts mpirun in the background (output in $TEST_LOG) and waits for the stall hook's line.
start_stalled() {   # SLEEP-SECONDS
    "$MPIRUN" -np 6 "${base[@]}" "${timing[@]}" --mca coll_cloudaware_calibrate_test_sleep "$1" \
        --mca coll_cloudaware_calibrate_test_sleep_node 1 "$prog" 5 >"$TEST_LOG" 2>&1 &
    job=$!
    pid=
    for _ in $(seq 600); do
        pid=$(sed -n 's/.*calibration test hook: node 1 .* (pid \([0-9]*\)).*/\1/p' "$TEST_LOG")
        [ -n "$pid" ] && break
        sleep 0.1
    done
    [ -n "$pid" ] || { kill "$job"; fail "the stall hook did not run"; }
}

# 1. A leader sleeps 10 s, the budget is 2 s.
ca_mpirun 6 "${base[@]}" "${timing[@]}" --mca coll_cloudaware_calibrate_test_sleep 10 \
    --mca coll_cloudaware_calibrate_test_sleep_node 1 "$prog" 5 >/dev/null \
    || fail "stalled leader: calib_check failed"
expect_ok
expect_agreed FAIL
expect_in_time 1
expect_one_warning "rank 1 (the leader of node $host~1) did not report within the time budget"
echo "ok: a leader stalled past the budget"

# 2. A leader stopped for good (SIGSTOP while it stalls): the others decide without it; it is
# resumed only after they all have their verdict.
start_stalled 3
kill -STOP "$pid"
for _ in $(seq 600); do
    [ "$(verdict_lines | wc -l)" -ge 5 ] && break
    sleep 0.1
done
n=$(verdict_lines | wc -l)
kill -CONT "$pid"
[ "$n" -ge 5 ] || { kill "$job"; fail "with a stopped leader only $n ranks reached a verdict"; }
wait "$job" || fail "stopped leader: mpirun failed after SIGCONT"
expect_ok
expect_agreed FAIL
expect_in_time 1
expect_one_warning "rank 1 (the leader of node $host~1) did not report"
echo "ok: a leader stopped for good (SIGSTOP), resumed at the end"

# 3. A rank killed during calibration: mpirun ends with an error, no hang.
start_stalled 30
t0=$(date +%s)
kill -KILL "$pid"
for _ in $(seq 1200); do
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$job" 2>/dev/null; then
    kill "$job"
    fail "mpirun still running 120 s after a rank was killed"
fi
wait "$job" && fail "mpirun reported success although a rank was killed"
echo "ok: a rank killed during calibration ends the job in $(( $(date +%s) - t0 )) s"

# 4. A local failure at each point after the start, on one rank: all ranks agree (FAIL).
inject() {   # POINT RANK [mpirun args...]
    local point=$1 rank=$2
    shift 2
    ca_mpirun 6 "${base[@]}" "${timing[@]}" --mca coll_cloudaware_calibrate_test_fail "$point" \
        --mca coll_cloudaware_calibrate_test_fail_rank "$rank" "$@" "$prog" 5 >/dev/null \
        || fail "$point on rank $rank: calib_check failed"
    expect_ok
    expect_agreed FAIL
    expect_in_time -1
    expect_one_warning "failed: rank $rank (node $host~$((rank % 3))): "
    echo "ok: local failure '$point' on rank $rank: every rank falls back"
}
for point in start-alloc start-recv alloc measure report; do
    inject $point 1
done
inject start-alloc 0
inject alloc 0
inject start-alloc 4 --mca coll_cloudaware_calibrate_exchange pml
inject start-recv 4 --mca coll_cloudaware_calibrate_exchange pml

# 5. Ranks that read different files: the odd ranks get another file through their environment.
cat >"$work/odd.sh" <<'EOF'
#!/bin/sh
if [ $((OMPI_COMM_WORLD_RANK % 2)) -eq 1 ]; then
    export "OMPI_MCA_coll_cloudaware_$ODD_PARAM=$ODD_FILE"
fi
exec "$@"
EOF
chmod +x "$work/odd.sh"
matrix() {   # LATENCY
    printf 'cloudaware-matrix 1\nnodes 3\nhost %s~0\nhost %s~1\nhost %s~2\n' "$host" "$host" "$host"
    printf 'latency_s\n0 %s %s\n%s 0 %s\n%s %s 0\n' "$1" "$1" "$1" "$1" "$1" "$1"
    printf 'bandwidth_Bps\n0 1e9 1e9\n1e9 0 1e9\n1e9 1e9 0\nend\n'
}
matrix 1e-5 >"$work/a.matrix"
cp "$work/a.matrix" "$work/same.matrix"
matrix 2e-5 >"$work/b.matrix"
run_odd() {   # PARAM ODD-FILE mpirun-args...
    local param=$1 file=$2
    shift 2
    export ODD_PARAM=$param ODD_FILE=$file
    ca_mpirun 6 -x ODD_PARAM -x ODD_FILE "${base[@]}" "$@" "$work/odd.sh" "$prog" 5 >/dev/null \
        || fail "$param $file: calib_check failed"
    expect_ok
}
# Control: the same content under two names is the same file.
run_odd matrix_file "$work/same.matrix" --mca coll_cloudaware_matrix_file "$work/a.matrix"
expect_agreed READY
[ "$(warnings)" -eq 0 ] || fail "same matrix content: unexpected warning"
expect_in_log "3 nodes known from this process's store, measured 0 pairs"
run_odd matrix_file "$work/b.matrix" --mca coll_cloudaware_matrix_file "$work/a.matrix"
expect_agreed FAIL
expect_one_warning "ranks read different coll_cloudaware_matrix_file content"
echo "ok: different matrix files per rank: every rank falls back"
printf 'cloudaware-rules 1\n* 1 0 model\n' >"$work/a.rules"
printf 'cloudaware-rules 1\n* 1 0 fallback\n' >"$work/b.rules"
run_odd rules_file "$work/b.rules" --mca coll_cloudaware_rules_file "$work/a.rules"
expect_agreed FAIL
expect_one_warning "ranks read different coll_cloudaware_rules_file content"
echo "ok: different rules files per rank: every rank falls back"
echo "PASS: calibration faults end in one agreed verdict within budget + slack"
