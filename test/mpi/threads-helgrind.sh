#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# The pair store under helgrind (valgrind's race detector): one job of thread_calib.c -- 4
# processes x 4 threads, each thread creating and calibrating its own communicator at once -- and
# no data race whose stacks pass through the pair store (coll_cloudaware_store.c, the core's
# pair_store.cpp / cacore_store_*). Helgrind finds a race whenever two threads touch the same
# memory without synchronizing, whether or not that run happened to interleave badly, so this is
# the deterministic half of threads.sh. A report counts when the racing access is in the store
# and so is the access it conflicts with (or, when helgrind shows none, the allocation of the
# memory): a thread's progress engine also completes other threads' requests -- it receives
# into their buffers, it enables the module of a communicator another thread is creating and
# builds its node map -- and hands them over through Open MPI's lock-free request completion,
# which helgrind does not understand; the store then reads that memory under its lock, with no
# race of its own (the eighteenth session's CI failed on such a node map). About 60 s on a
# loaded 2-core machine.
# (On b7977fe, whose store had no lock, it reports 13 races in coll_cloudaware_network.c; with
# this filter and the store's lookup and merge unlocked, thread_calib 4 1 counts 56.)
. "${TEST_SRCDIR:-.}/mpitest.sh"

need_valgrind "$TEST_BUILDDIR/thread_calib"
CA_TIMEOUT=${CA_TIMEOUT:-400}
work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-hg.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
# Keep the component mapped until exit, so that its frames have names.
export OMPI_MCA_mca_base_component_disable_dlclose=1
ca_mpirun 4 --mca coll cloudaware,basic,libnbc --mca coll_cloudaware_min_nodes 1 \
    --mca coll_cloudaware_verbose 10 --mca coll_cloudaware_test_fake_nodes 4 \
    --mca coll_cloudaware_calibrate_bandwidth_bytes 65536 \
    --mca coll_cloudaware_calibrate_latency_reps 3 --mca coll_cloudaware_calibrate_budget 300 \
    --mca coll_cloudaware_calibrate_exchange pml \
    valgrind --tool=helgrind --keep-debuginfo=yes --num-callers=30 --log-file="$work/hg.%p" \
    "$TEST_BUILDDIR/thread_calib" 1 0 >/dev/null || fail "thread_calib under helgrind failed"
expect_in_log "thread_calib: 4 ranks, 4 threads, 1 repetitions, 0 dups, 0 failures"
expect_in_log "calibration totals (world rank 0): .* 0 failures"
logs=("$work"/hg.*)
[ -s "${logs[0]}" ] || fail "helgrind wrote no log"
awk '
    { sub(/^==[0-9]+== ?/, "") }
    /^-+$/ { flush(); next }   # helgrind separates its reports with a line of dashes
    { rec = rec $0 "\n" }
    END { flush(); exit found > 0 }
    # One report: the racing access, the access it conflicts with, where the memory came from.
    function flush(  store, r, t, c, a, race, other) {
        store = "coll_cloudaware_(store|network)\\.c|pair_store|cacore_store"
        r = index(rec, "Possible data race")
        if (r > 0) {
            t = substr(rec, r)   # without the locks helgrind describes first
            c = index(t, "This conflicts with")
            a = index(t, "alloc\047d")
            race = substr(t, 1, (c > 0 ? c : a > 0 ? a : length(t) + 1) - 1)
            other = c > 0 ? substr(t, c, (a > c ? a : length(t) + 1) - c) \
                    : a > 0 ? substr(t, a) : store
            if (race ~ store && other ~ store) {
                printf "%s\n", rec; found++
            }
        }
        rec = ""
    }' "${logs[@]}" >"$work/store.txt" \
    || { head -n 80 "$work/store.txt"; fail "helgrind reports data races in the pair store (above)"; }
echo "PASS: concurrent calibrations under helgrind, no race in the pair store"
