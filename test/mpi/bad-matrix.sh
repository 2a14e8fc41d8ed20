#!/bin/bash
# A corrupt or missing matrix file gives one line naming the file, the line and the problem;
# the job keeps running with correct results.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

bad=$(mktemp "${TMPDIR:-/tmp}/cloudaware-bad-matrix.XXXXXX")
trap 'rm -f "$TEST_LOG" "$bad"' EXIT
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
echo "PASS: bad matrix files are reported once and ignored"
