#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# test/lab/drift.sh - drift injected in the middle of a job (docs/drift.md): 4 emulated hosts,
# every pair 40 Mbit/s; a loop of 256 KiB broadcasts from rank 0, 50 ms apart (drift-demo.c, run
# as a cloud-aware plan by a rules file: only plans are timed); after call 20 every rank sleeps
# 1.5 s, and in that window `lab set-rate` makes every link of host 0 5x slower (8 Mbit/s, one
# command, 0.2-0.5 s; its Python and tc need the CPU that the ranks' progress loops take while
# they run: without the window one run recalibrated on a batch only x1.42 slower, the calls
# around the change slowed by the 2 cores' contention). Checked, from the job's output:
#   1. rank 0 says exactly once, at verbose 1, that it recalibrated, after the change (the calls
#      it compared were more than 1.5x slower than the baseline: the change, not noise);
#   2. `lab status` lists the change; every broadcast result is right.
# Exit: 0 pass, 77 skip (no root / no network namespaces), anything else fail. Lab instance 4.
# About 30 s.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lab="$top/contrib/lab/lab"
mpi_dir=${MPI_TEST_DIR:-$top/test/mpi}
comp=${COMPONENT_DIR:-$mpi_dir/components}
export CALAB_INSTANCE=4
work=$(mktemp -d /tmp/lab-drift.XXXXXX)
log="$work/log"
at=20 hold_ms=1500   # the change is made after call $at, while every rank sleeps $hold_ms ms

say() { printf 'lab-drift: %s\n' "$*"; }
fail() {
    grep -a -v "^drift-demo: \(max \)\?call" "$log" 2>/dev/null | tail -n 30
    # the slowest rank's time of the calls around the change (printed at the job's end)
    awk -v a="$at" '/^drift-demo: max call / && $4 >= a - 5 && $4 <= a + 15' "$log" 2>/dev/null
    printf 'lab-drift: FAIL: %s\n' "$*" >&2
    exit 1
}
skip() { printf 'SKIP: lab-drift: %s\n' "$*" >&2; exit 77; }

[ "$(id -u)" = 0 ] || skip "not root: the lab needs network namespaces"
unshare --net --uts true 2>/dev/null || skip "this machine does not allow network namespaces"
[ -e "$comp/mca_coll_cloudaware.so" ] || fail "no mca_coll_cloudaware.so in $comp"
command -v mpicc >/dev/null || fail "mpicc not found"
job_pid=
cleanup() {
    [ -n "$job_pid" ] && kill "$job_pid" 2>/dev/null
    "$lab" down >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
mpicc -O2 -o "$work/drift-demo" "$top/contrib/bench/drift-demo.c" || fail "mpicc drift-demo.c"
cat >"$work/drift-4.topo" <<'EOF2'
cloudaware-lab-topology 1
name drift-4
hosts 4
ranks_per_host 1
rack all hosts 0-3 intra 40mbit
end
EOF2
printf 'cloudaware-rules 2\nbcast 1 0 cool node=binomial group=binomial top=binomial\nend\n' >"$work/rules"
"$lab" down >/dev/null 2>&1 || true
say "lab up drift-4 (every pair 40 Mbit/s)"
"$lab" up "$work/drift-4.topo" >/dev/null 2>&1 || fail "lab up"

say "a loop of 60 broadcasts of 256 KiB, 50 ms apart; after call $at, $hold_ms ms in which host 0's links become 5x slower"
"$lab" run -np 4 --map-by node \
    --mca mca_base_component_path "$comp:$(ompi_info --path pkglibdir | sed -n 's/^ *Pkglibdir: *//p')" \
    --mca coll cloudaware,basic --mca coll_cloudaware_rules_file "$work/rules" \
    --mca coll_cloudaware_calibrate_bandwidth_bytes 262144 --mca coll_cloudaware_verbose 1 \
    --mca coll_cloudaware_recalibrate_interval 600 \
    -- "$work/drift-demo" 256K 60 50 "$at" "$hold_ms" >"$log" 2>&1 &
job_pid=$!
for _ in $(seq 600); do
    grep -a -q "^drift-demo: call $at " "$log" 2>/dev/null && break
    kill -0 "$job_pid" 2>/dev/null || break
    sleep 0.1
done
grep -a -q "^drift-demo: call $at " "$log" || fail "the job did not reach call $at"
set_start=$(date +%s.%N)
"$lab" set-rate 0 1,2,3 8mbit 2>/dev/null || fail "lab set-rate 0 1,2,3 8mbit"
changed_at=$(grep -a -c "^drift-demo: call " "$log")
say "set-rate done after call $((changed_at - 1)), in $(awk -v s="$set_start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }') s"
wait "$job_pid"
rc=$?
job_pid=
[ "$rc" = 0 ] || fail "drift-demo failed ($rc)"
grep -a -q "^drift-demo: 60 calls of 262144 bytes on 4 ranks: 0 failures" "$log" || fail "wrong results"
"$lab" status | grep -q "changed since up (set-rate/set-uplink): .*pair calab4-h0 <-> calab4-h3 now 8 Mbit/s" \
    || fail "lab status does not list the change"

lines=$(grep -a "coll:cloudaware: drift on MPI_COMM_WORLD: " "$log")
[ "$(printf '%s\n' "$lines" | grep -c .)" = 1 ] || fail "expected exactly one drift line, got: $lines"
say "${lines#*coll:cloudaware: }"
case "$lines" in
    *"; recalibrated "*" node pairs in "*"; plans decided again: "*) ;;
    *) fail "the recalibration did not succeed" ;;
esac
ratio=$(printf '%s\n' "$lines" | sed -n 's/.*(x\([0-9.]*\);.*/\1/p')
awk -v r="$ratio" 'BEGIN { exit !(r > 1.5) }' || fail "ratio x$ratio: not the 5x slower links"
# The line comes after the change: it sits after call changed_at - 1's line in rank 0's output.
before=$(grep -a -n "coll:cloudaware: drift on" "$log" | cut -d: -f1)
first_after=$(grep -a -n "^drift-demo: call $((changed_at - 1)) " "$log" | cut -d: -f1)
[ "$before" -gt "$first_after" ] || fail "the recalibration came before the change"
say "PASS"
