#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# A corrupt, missing or hostile matrix file gives one line naming the file (and the line and the
# problem); the job keeps running with correct results. Hostile: a FIFO (opening it blocked every
# rank for good), /dev/zero (read until memory ran out) and a small file declaring 16384 nodes
# (every rank allocated 2 GiB before finding the file short) are refused at once.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

bad=$(mktemp "${TMPDIR:-/tmp}/cloudaware-bad-matrix.XXXXXX")
dir=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-bad-matrix.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$bad" "$dir"' EXIT
printf 'cloudaware-matrix 1\nnodes 2\nhost a\nhost b\nlatency_s\n0 1e-4\nnan 0\n' >"$bad"

ca_mpirun 3 --mca coll cloudaware,basic,libnbc --mca coll_cloudaware_min_nodes 1 \
    --mca coll_cloudaware_matrix_file "$bad" "$TEST_BUILDDIR/coll_check" --quick \
    || fail "coll_check failed with a corrupt matrix file"
expect_in_log "coll_check: 3 ranks, .* 0 failures"
expect_in_log "ignoring coll_cloudaware_matrix_file: $bad:[0-9]*: "
n=$(grep -c "ignoring coll_cloudaware_matrix_file" "$TEST_LOG")
[ "$n" -eq 1 ] || fail "expected exactly one warning line, got $n"

ca_mpirun 2 --mca coll cloudaware,basic,libnbc --mca coll_cloudaware_min_nodes 1 \
    --mca coll_cloudaware_matrix_file /nonexistent/matrix.txt "$TEST_BUILDDIR/coll_check" --quick \
    || fail "coll_check failed with a missing matrix file"
expect_in_log "ignoring coll_cloudaware_matrix_file: /nonexistent/matrix.txt"

# Hostile files: each job must end on its own well within the limits below (about 2 s of wall
# time and 1 s of CPU here; the bounds leave room for a loaded machine), print one warning and
# compute correct results. The timeout turns a hang into a failure instead of a stuck test.
mkfifo "$dir/fifo"
{
    echo "cloudaware-matrix 1"
    echo "nodes 16384"
    for ((i = 0; i < 16384; i++)); do echo "host h$i"; done
    echo "latency_s"
} >"$dir/amplify"
hostile() {
    local file=$1 want=$2 times start
    echo "+ mpirun -np 3 ... --mca coll_cloudaware_matrix_file $file coll_check --quick"
    start=$(date +%s)
    times=$( { TIMEFORMAT='%U %S'; time timeout 120 "$MPIRUN" -np 3 --mca coll cloudaware,basic,libnbc \
        --mca coll_cloudaware_min_nodes 1 --mca coll_cloudaware_matrix_file "$file" \
        "$TEST_BUILDDIR/coll_check" --quick >"$TEST_LOG" 2>&1; } 2>&1 ) \
        || fail "coll_check failed or timed out (120 s) with $file as the matrix file"
    local wall=$(($(date +%s) - start))
    grep "ignoring coll_cloudaware_matrix_file" "$TEST_LOG"
    expect_in_log "coll_check: 3 ranks, .* 0 failures"
    expect_in_log "ignoring coll_cloudaware_matrix_file: $want"
    n=$(grep -c "ignoring coll_cloudaware_matrix_file" "$TEST_LOG")
    [ "$n" -eq 1 ] || fail "$file: expected exactly one warning line, got $n"
    local cpu
    cpu=$(echo "$times" | awk '{ printf "%d", $1 + $2 }')
    echo "  $file: ${wall} s wall, ${cpu} s CPU (user + system, all processes, rounded down)"
    local wall_limit=$((60 * CA_SLOWDOWN)) cpu_limit=$((15 * CA_SLOWDOWN))
    [ "$wall" -lt "$wall_limit" ] || fail "$file: the job took $wall s (limit $wall_limit s)"
    [ "$cpu" -lt "$cpu_limit" ] || fail "$file: the job took $cpu s of CPU (limit $cpu_limit s)"
}
hostile "$dir/fifo" "$dir/fifo: not a regular file (a FIFO); a matrix file must be a regular file"
hostile /dev/zero "/dev/zero: not a regular file (a character device)"
hostile "$dir/amplify" "$dir/amplify:2: 'nodes 16384' needs at least 1073856539 more bytes"
echo "PASS: bad matrix files are reported once and ignored"
