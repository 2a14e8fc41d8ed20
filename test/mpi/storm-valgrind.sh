#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# The communicator storm under valgrind's memcheck, shortened to 30 cycles (STORM_VALGRIND_CYCLES;
# about 55 s on a loaded 2-core machine: valgrind runs each process some 50 times slower). The job
# is right and measures once, and valgrind reports no memory error and no leaked block whose stack
# names a frame of the component (mca_coll_cloudaware_*, coll_cloudaware_*.c, the core's cacore*).
# Open MPI itself reports many blocks still allocated at exit; only stacks that pass through the
# component are counted, which is the suppression: everything else is Open MPI's. (Checked: a
# strdup() leaked per merge in coll_cloudaware_store.c makes this test fail.)
. "${TEST_SRCDIR:-.}/mpitest.sh"

need_valgrind "$TEST_BUILDDIR/comm_storm"
CYCLES=${STORM_VALGRIND_CYCLES:-30}
work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-vg.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
# Keep the component mapped until exit, so that its frames have names in the leak report.
export OMPI_MCA_mca_base_component_disable_dlclose=1
ca_mpirun 3 --mca coll cloudaware,basic,libnbc --mca coll_cloudaware_min_nodes 1 \
    --mca coll_cloudaware_verbose 10 --mca coll_cloudaware_test_fake_nodes 3 \
    --mca coll_cloudaware_calibrate_bandwidth_bytes 65536 \
    --mca coll_cloudaware_calibrate_latency_reps 3 --mca coll_cloudaware_calibrate_budget 300 \
    valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
    --keep-debuginfo=yes --num-callers=40 --log-file="$work/vg.%p" \
    "$TEST_BUILDDIR/comm_storm" "$CYCLES" 0 \
    >/dev/null || fail "comm_storm under valgrind failed"
expect_in_log "comm_storm: 3 ranks, $CYCLES cycles, 0 failures"
expect_in_log "calibration totals (world rank 0): 1 measurements"
logs=("$work"/vg.*)
[ -e "${logs[0]}" ] || fail "valgrind wrote no log"
# A record is a run of non-empty lines (after the ==PID== prefix) ended by an empty one.
awk '
    { sub(/^==[0-9]+== ?/, "") }
    /^$/ { flush(); next }
    { rec = rec $0 "\n" }
    END { flush() }
    function flush() {
        if (rec ~ /(definitely|indirectly|possibly) lost|Invalid (read|write|free)|uninitialised|Conditional jump|Mismatched free|overlap|Syscall param/ \
            && rec ~ /mca_coll_cloudaware|coll_cloudaware_|cacore/) {
            printf "%s\n", rec; found++
        }
        rec = ""
    }
    END { exit found > 0 }' "${logs[@]}" >"$work/component.txt" \
    || { cat "$work/component.txt"; fail "valgrind reports errors or leaks in the component (above)"; }
echo "PASS: $CYCLES communicators under valgrind, nothing attributed to the component"
