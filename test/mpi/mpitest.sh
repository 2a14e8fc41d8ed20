# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the integration tests. Runs Open MPI jobs with the component of this build tree:
# mca_base_component_path names the build's .libs first, then Open MPI's own component directory.
set -u
: "${MPIRUN:=mpirun}" "${TEST_BUILDDIR:=.}" "${TEST_SRCDIR:=.}"
: "${COMPONENT_DIR:?COMPONENT_DIR must name the directory of mca_coll_cloudaware.so}"
: "${OMPI_PKGLIBDIR:?OMPI_PKGLIBDIR must name the Open MPI component directory}"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path="$COMPONENT_DIR:$OMPI_PKGLIBDIR"
# Lab-independent runs stay on loopback and shared memory.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# Drift detection off unless a test turns it on (--mca overrides this): on one loaded machine a
# call's time changes with the load, not with a network, and recalibrations would add measurements
# the tests count (test/mpi/drift.sh turns it on on purpose).
export OMPI_MCA_coll_cloudaware_recalibrate_threshold=0
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
# Open MPI 5 launches through PRRTE, which spells the launcher's settings its own way.
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe PRTE_MCA_hwloc_default_binding_policy=none

TEST_LOG=$(mktemp "${TMPDIR:-/tmp}/cloudaware-test.XXXXXX")
trap 'rm -f "$TEST_LOG"' EXIT

# ca_mpirun NP [mpirun args...] -- runs with a time limit (CA_TIMEOUT seconds, default 600; KILL
# 20 s later if TERM did not end it); output goes to $TEST_LOG and stdout. A job stopped at the
# limit gets a line saying so and the state of its processes' threads 5 s before (ps: state,
# kernel wait channel), so that a hang seen once in CI says where the ranks were; then those
# processes are killed.
ca_mpirun() {
    local np=$1 limit=${CA_TIMEOUT:-600} rc tpid pid
    shift
    echo "+ mpirun -np $np $*"
    timeout -k 20 "$limit" "$MPIRUN" -np "$np" "$@" >"$TEST_LOG" 2>&1 &
    tpid=$!
    # the watcher: looks once a second whether the job still runs (it leaves at most a second
    # after the job; its output never goes to the test's own, which the test driver reads to EOF)
    (
        snap=$((EPOCHSECONDS + (limit > 10 ? limit - 5 : limit)))
        while kill -0 "$tpid" 2>/dev/null && [ "$EPOCHSECONDS" -lt "$snap" ]; do sleep 1; done
        kill -0 "$tpid" 2>/dev/null && job_threads "$tpid" >"$TEST_LOG.threads"
    ) >/dev/null 2>&1 &
    wait "$tpid"
    rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "ca_mpirun: the job did not end within $limit s; stopped. Its threads 5 s before:" >>"$TEST_LOG"
        cat "$TEST_LOG.threads" >>"$TEST_LOG" 2>/dev/null
        # Open MPI 4.1's mpirun, stopped, can leave ranks running (each in a process group of
        # its own): those seen 5 s before go too, so that no rank spins through later tests
        for pid in $(awk 'NR > 1 { print $1 }' "$TEST_LOG.threads" 2>/dev/null | sort -u); do
            kill -KILL "$pid" 2>/dev/null
        done
    fi
    rm -f "$TEST_LOG.threads"
    # Interleaved output of several ranks can hold a NUL (seen under Open MPI 5); grep would then
    # take the log for binary and print "binary file matches" instead of what -o extracts.
    tr -d '\000' <"$TEST_LOG" >"$TEST_LOG.text" && mv "$TEST_LOG.text" "$TEST_LOG"
    cat "$TEST_LOG"
    return $rc
}

# job_threads PID: every thread of PID's children (mpirun) and grandchildren (the ranks). pgrep
# and ps without the sanitizer part's LD_PRELOAD of the ASan runtime, under which they hang.
job_threads() {
    local launcher ranks
    launcher=$(env -u LD_PRELOAD pgrep -d, -P "$1")
    ranks=$(env -u LD_PRELOAD pgrep -d, -P "$launcher")
    [ -n "$launcher" ] && env -u LD_PRELOAD ps -L -o pid,tid,stat,wchan:32,etimes,comm \
        -p "$launcher${ranks:+,$ranks}"
}

# Prints the end of the last job's output (per-call verbose lines left out) and fails.
fail() {
    if [ -s "$TEST_LOG" ]; then
        echo "--- last job's output (end) ---"
        grep -v "coll:cloudaware: [a-z_]* of [0-9]* bytes" "$TEST_LOG" | tail -n 40
        echo "---"
    fi
    echo "FAIL: $*"
    exit 1
}

expect_in_log() {
    grep -q -- "$1" "$TEST_LOG" || fail "expected output matching '$1'"
}

# need_valgrind PROGRAM -- skips the test (exit 77) when valgrind is missing or PROGRAM is built
# with AddressSanitizer (contrib/run-sanitizers: valgrind cannot run ASan programs, and ASan
# already checks that build's memory).
need_valgrind() {
    command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }
    if ldd "$1" | grep -q libasan; then
        echo "SKIP: $1 is built with AddressSanitizer, which valgrind cannot run"
        exit 77
    fi
}

# Time limits of the tests are for the ordinary build; the sanitizer build (contrib/run-sanitizers,
# test programs linked with AddressSanitizer) runs every process several times slower, so tests
# multiply their CPU and wall-clock limits by CA_SLOWDOWN there.
if ldd "$TEST_BUILDDIR/coll_check" 2>/dev/null | grep -q libasan; then
    CA_SLOWDOWN=4
else
    CA_SLOWDOWN=1
fi

# The Open MPI generation the tests run under (4 or 5); some expectations differ.
OMPI_MAJOR=$("$MPIRUN" --version 2>/dev/null | sed -n 's/.*Open MPI[^0-9]*\([0-9][0-9]*\)\..*/\1/p' | head -n 1)
: "${OMPI_MAJOR:=4}"
