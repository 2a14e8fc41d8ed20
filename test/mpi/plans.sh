#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Cloud-aware plans run through the executor and give correct results: 7 ranks on 4 pretend
# nodes (coll_cloudaware_test_fake_nodes; 2, 2, 2 and 1 ranks) in two "racks" (fast inside, slow
# and asymmetric across, from a matrix file), under `--mca coll cloudaware,basic` only.
# Every pattern is forced once, pipelined ones with small segments and 1 Mi-element messages, the
# split-rail algorithm with each slicing (8 ranks for two rails), and the documented rules file
# is used; the verbose output must show the plans really ran. On slow flat links the small calls'
# live trial tries the burst-priced alternative and says so. Last, plans relayed around a bad
# link (a matrix with one very slow direction) give correct results too.
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-plans.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
prog="$TEST_BUILDDIR/coll_check"
fake=(--mca coll_cloudaware_test_fake_nodes 4)

# The pretend nodes' names, as the component sees them: from a quick calibration's dump.
ca_mpirun 4 --mca coll cloudaware,basic "${fake[@]}" --mca coll_cloudaware_calibrate_bandwidth_bytes 4096 \
    --mca coll_cloudaware_dump_matrix "$work/measured.matrix" "$prog" --quick >/dev/null \
    || fail "calibration run failed"
mapfile -t hosts < <(sed -n 's/^host //p' "$work/measured.matrix")
[ "${#hosts[@]}" -eq 4 ] || fail "expected 4 pretend nodes, got ${#hosts[@]}"
# write_matrix FILE RATE: a matrix of the 4 pretend nodes, 100 us between any two, and the
# bandwidth from node I to node J (I != J) that the shell function `RATE I J` prints, bytes/s.
write_matrix() {
    local i j
    {
        echo "cloudaware-matrix 1"
        echo "nodes 4"
        printf 'host %s\n' "${hosts[@]}"
        echo "latency_s"
        for i in 0 1 2 3; do
            for j in 0 1 2 3; do printf '%s ' "$([ $i = $j ] && echo 0 || echo 1e-4)"; done; echo
        done
        echo "bandwidth_Bps"
        for i in 0 1 2 3; do
            for j in 0 1 2 3; do printf '%s ' "$([ $i = $j ] && echo 0 || "$2" $i $j)"; done; echo
        done
        echo "end"
    } >"$1"
}
# racks {0,1} and {2,3}: 1 GB/s inside, 10/25 MB/s across
racks_rate() {
    if [ $(($1 / 2)) = $(($2 / 2)) ]; then echo 1e9; elif [ "$1" -lt "$2" ]; then echo 1e7; else echo 2.5e7; fi
}
write_matrix "$work/racks.matrix" racks_rate
plans=("${fake[@]}" --mca coll_cloudaware_matrix_file "$work/racks.matrix"
       --mca coll_cloudaware_calibrate off)

# run NAME MPIRUN-ARGS... : coll_check passes on $np ranks (default 7) and each collective in
# $colls ran a plan.
# CA_QUICK (the sanitizer build, contrib/run-sanitizers): every pattern still runs, over
# coll_check's quick set (one root, two ops); left out are the runs whose code paths another run
# here takes (marked below), as each costs about a minute instrumented.
colls="bcast reduce allreduce gather scatter allgather"
quick=${CA_QUICK:+--quick}
run() {
    local name=$1
    shift
    ca_mpirun "${np:-7}" --mca coll cloudaware,basic "${plans[@]}" --mca coll_cloudaware_verbose 10 "$@" \
        "$prog" ${quick:-} ${large:-} >/dev/null \
        || fail "$name: coll_check failed"
    expect_in_log "coll_check: ${np:-7} ranks, .* 0 failures"
    for coll in $colls; do
        grep "coll:cloudaware: $coll of [0-9]* bytes: " "$TEST_LOG" | grep -v "bytes: previous module" \
            | grep -q "(.*predicted\|(rules file line" || fail "$name: no plan ran for $coll"
    done
    echo "ok: $name"
}

run "cost model" --mca coll_cloudaware_min_gain 0
expect_in_log "bcast of [0-9]* bytes: cool "
expect_in_log "gather of [0-9]* bytes: .* vs basic linear "   # the previous provider: basic
large=--large run "pipelined: chain inside groups, dual trees on top" --mca coll_cloudaware_min_gain 0 \
    --mca coll_cloudaware_algorithm cool --mca coll_cloudaware_pattern_group chain \
    --mca coll_cloudaware_pattern_top dualtree --mca coll_cloudaware_segment_size 4096 \
    --mca coll_cloudaware_large_message 1024
expect_in_log "bcast of [0-9]* bytes: cool node=binomial group=chain top=dualtree segments="
run "chain in nodes, flat groups, ring on top" --mca coll_cloudaware_min_gain 0 \
    --mca coll_cloudaware_algorithm cool --mca coll_cloudaware_pattern_node chain \
    --mca coll_cloudaware_pattern_group flat --mca coll_cloudaware_pattern_top ring \
    --mca coll_cloudaware_segment_size 4096 --mca coll_cloudaware_large_message 1024
# (Every other run keeps freed temporary areas for later calls, coll_cloudaware_scratch_keep's
# default, so calls take areas with an earlier call's data in them; this one frees each.)
run "recursive doubling" --mca coll_cloudaware_min_gain 0 --mca coll_cloudaware_algorithm cool \
    --mca coll_cloudaware_pattern_group recdbl --mca coll_cloudaware_pattern_top recdbl \
    --mca coll_cloudaware_scratch_keep 0
expect_in_log "allreduce of [0-9]* bytes: cool node=binomial group=recdbl top=recdbl"
# (CA_QUICK leaves this one out: the split-rail Rabenseifner run below has the same step shapes.)
if [ -z "${CA_QUICK:-}" ]; then
    run "Rabenseifner on top" --mca coll_cloudaware_min_gain 0 --mca coll_cloudaware_algorithm cool \
        --mca coll_cloudaware_pattern_group ring --mca coll_cloudaware_pattern_top rabenseifner
    expect_in_log "allreduce of [0-9]* bytes: cool node=binomial group=ring top=rabenseifner"
fi
# Split rails: 8 ranks (2 per pretend node: 2 slices per node, halved again between the 2 nodes
# of a rack), rings everywhere; 7 ranks (one node of 1: no split inside nodes, the other ranks
# fold in) with recursive halving and doubling.
np=8 colls="bcast allreduce allgather" run "split rails, rings" --mca coll_cloudaware_min_gain 0 \
    --mca coll_cloudaware_algorithm rail --mca coll_cloudaware_pattern_node ring \
    --mca coll_cloudaware_pattern_group ring --mca coll_cloudaware_pattern_top ring
expect_in_log "allreduce of [0-9]* bytes: rail node=ring:2 .*top=ring"
colls="bcast allreduce allgather" run "split rails, Rabenseifner" --mca coll_cloudaware_min_gain 0 \
    --mca coll_cloudaware_algorithm rail --mca coll_cloudaware_pattern_node rabenseifner \
    --mca coll_cloudaware_pattern_group rabenseifner --mca coll_cloudaware_pattern_top rabenseifner
expect_in_log "allreduce of [0-9]* bytes: rail node=rabenseifner:1 .*top=rabenseifner"
# Allgather's direct exchanges at every level, the racks' own parts while they cross, the top in
# segments of 256 KiB for 1 Mi elements per rank (8 ranks); allreduce's direct reduce-scatters
# and allgathers (3 temporary buffers' worth of operands at once), also over 7 ranks (a node of
# one: its rank folds into its rack peer's).
np=8 large=--large colls="allgather allreduce" run "split rails, direct" \
    --mca coll_cloudaware_min_gain 0 \
    --mca coll_cloudaware_algorithm rail --mca coll_cloudaware_pattern_node direct \
    --mca coll_cloudaware_pattern_group direct --mca coll_cloudaware_pattern_top direct \
    --mca coll_cloudaware_segment_size 262144
expect_in_log "allgather of 4194304 bytes: rail node=direct:2 group1=direct:2 .*segments=16 "
expect_in_log "allgather of 4096 bytes: rail node=direct:2 group1=direct:2 top=direct ("
expect_in_log "allreduce of [0-9]* bytes: rail node=direct:2 group1=direct:2 top=direct ("
colls="allreduce" run "split rails, direct, uneven" --mca coll_cloudaware_min_gain 0 \
    --mca coll_cloudaware_algorithm rail --mca coll_cloudaware_pattern_node direct \
    --mca coll_cloudaware_pattern_group direct --mca coll_cloudaware_pattern_top direct
expect_in_log "allreduce of [0-9]* bytes: rail node=direct:1 group1=direct:2 top=direct ("
# Lanes: the segments over several trees across the node leaders (bcast, reduce, and allreduce up
# and back down them), chains and flat groups, 1 Mi elements in 64 KiB segments. The racks of 2
# pretend nodes leave the root one peer, so one lane (each lane leaves the root over its own
# pair); over one flat group of the 4 (every pair 10-12 MB/s, a matrix of its own, modelled as
# independent pipes: model_slots 0) 2 or 3.
large=--large colls="bcast reduce allreduce" run "lanes, chains" \
    --mca coll_cloudaware_min_gain 0 \
    --mca coll_cloudaware_algorithm lanes --mca coll_cloudaware_pattern_group chain \
    --mca coll_cloudaware_segment_size 65536
expect_in_log "bcast of 4194304 bytes: lanes k=1 group=chain node=binomial segments=64 "
flat_rate() { echo $((10 + ($1 * 3 + $2) % 3))e6; }
write_matrix "$work/flat.matrix" flat_rate
plans=("${fake[@]}" --mca coll_cloudaware_matrix_file "$work/flat.matrix"
       --mca coll_cloudaware_calibrate off --mca coll_cloudaware_model_slots 0)
# (CA_QUICK: flat groups only; "lanes, chains" above runs the chain groups.)
groups="chain flat"
[ -n "${CA_QUICK:-}" ] && groups=flat
for g in $groups; do
    large=--large colls="bcast reduce allreduce" run "lanes, $g groups, one group" \
        --mca coll_cloudaware_min_gain 0 \
        --mca coll_cloudaware_algorithm lanes --mca coll_cloudaware_pattern_group $g \
        --mca coll_cloudaware_segment_size 65536
    expect_in_log "bcast of 4194304 bytes: lanes k=[23] group=$g node=binomial segments=64 "
    expect_in_log "reduce of 4194304 bytes: lanes k=[23] group=$g "
    expect_in_log "allreduce of 4194304 bytes: lanes k=[23] group=$g "
done
# The small calls' alternative (docs/calibration.md, "Live trial"): on slow flat links (12 Mbit/s)
# the model offers no second plan within trial_spread for small allgathers; the plan it would
# choose if every message passed at once takes part in the trial, and the verbose line says so.
# (CA_QUICK: left out; the decision is the core's, unit tested in test_decide.cpp.)
if [ -z "${CA_QUICK:-}" ]; then
    slow_rate() { echo 1.5e6; }
    write_matrix "$work/slow.matrix" slow_rate
    plans=("${fake[@]}" --mca coll_cloudaware_matrix_file "$work/slow.matrix"
           --mca coll_cloudaware_calibrate off)
    colls="allreduce allgather" run "the small calls' alternative on slow links"
    expect_in_log "allgather of [0-9]* bytes: the live trial also tries .* (predicted [0-9.e-]* s; the model's choice if every message passed at once)"
fi
plans=("${fake[@]}" --mca coll_cloudaware_matrix_file "$work/racks.matrix"
       --mca coll_cloudaware_calibrate off)
colls="bcast reduce gather scatter" run "CMPI Algorithm 4 trees" --mca coll_cloudaware_min_gain 0 \
    --mca coll_cloudaware_algorithm tree
expect_in_log "gather of [0-9]* bytes: tree (CMPI Alg. 4)"
run "documented rules file" --mca coll_cloudaware_rules_file "$TEST_SRCDIR/../../docs/examples/rules.conf"
expect_in_log "loaded rules file .*rules.conf (6 rules)"
expect_in_log "gather of [0-9]* bytes: tree (CMPI Alg. 4).*(rules file line 11"

# The nonblocking and persistent forms run plans too, also where libnbc provides those slots.
# (CA_QUICK: without libnbc only; the component's code is the same either way.)
lists="cloudaware,basic cloudaware,basic,libnbc"
[ -n "${CA_QUICK:-}" ] && lists=cloudaware,basic
for list in $lists; do
    ca_mpirun 7 --mca coll $list "${plans[@]}" --mca coll_cloudaware_min_gain 0 \
        --mca coll_cloudaware_verbose 50 "$TEST_BUILDDIR/nbc_check" >/dev/null \
        || fail "nbc_check failed with plans ($list)"
    expect_in_log "nbc_check: 7 ranks, .* 0 failures"
    for coll in bcast reduce allreduce gather scatter allgather; do
        expect_in_log "coll:cloudaware: i$coll of [0-9]* bytes (root [-0-9]*): \(cool\|tree\|binomial\|ring\)"
        expect_in_log "coll:cloudaware: ${coll}_init of [0-9]* bytes (root [-0-9]*): \(cool\|tree\|binomial\|ring\)"
    done
    ca_mpirun 7 --mca coll $list "${plans[@]}" --mca coll_cloudaware_min_gain 0 \
        "$TEST_BUILDDIR/nbc_semantics" >/dev/null || fail "nbc_semantics failed with plans ($list)"
    expect_in_log "nbc_semantics: 7 ranks, 0 failures"
    echo "ok: nonblocking and persistent plans ($list)"
done

# A broken rules file: one line naming file, line and problem; the cost model decides instead.
printf 'cloudaware-rules 1\nbcast 2 0 cool top=fast\n' >"$work/bad.rules"
ca_mpirun 7 --mca coll cloudaware,basic "${plans[@]}" --mca coll_cloudaware_rules_file "$work/bad.rules" "$prog" --quick \
    >/dev/null || fail "bad rules file: coll_check failed"
expect_in_log "coll_check: 7 ranks, .* 0 failures"
[ "$(grep -c "ignoring coll_cloudaware_rules_file: $work/bad.rules:2: unknown pattern 'fast'" "$TEST_LOG")" -eq 1 ] \
    || fail "expected one line naming the bad rules file's line and problem"
# Relay around a bad link (docs/model.md): pretend nodes ~3 and ~0 exchange at 100 kB/s, every
# other pair runs at 100 MB/s. Rings and chains over ranks (rank 3 <-> rank 4) and the linear
# gather and scatter with roots 0 and 3, forced by a rules file, cross that link; the planner
# relays those messages through a rank of a third node. Results must be right; with
# coll_cloudaware_relay false nothing is relayed.
bad=-1 to=-1
for i in 0 1 2 3; do
    case ${hosts[$i]} in *~3) bad=$i ;; *~0) to=$i ;; esac
done
[ "$bad" -ge 0 ] && [ "$to" -ge 0 ] || fail "pretend nodes ~0 and ~3 not found in ${hosts[*]}"
badlink_rate() {
    if [ "$1$2" = "$bad$to" ] || [ "$1$2" = "$to$bad" ]; then echo 1e5; else echo 1e8; fi
}
write_matrix "$work/badlink.matrix" badlink_rate
printf 'cloudaware-rules 2\n*  1  0  ring\ngather  1  0  linear\nscatter  1  0  linear\nend\n' \
    >"$work/relay.rules"
plans=("${fake[@]}" --mca coll_cloudaware_matrix_file "$work/badlink.matrix"
       --mca coll_cloudaware_calibrate off --mca coll_cloudaware_rules_file "$work/relay.rules")
run "relay around a bad link"
for coll in $colls; do
    expect_in_log "coll:cloudaware: $coll of [0-9]* bytes: .* relay [034]->[034] via [0-9]"
done
# (CA_QUICK leaves this one out: without relays the plans take the paths of the runs above.)
if [ -z "${CA_QUICK:-}" ]; then
    run "relay off" --mca coll_cloudaware_relay false
    ! grep -q "bytes: .* relay [0-9]" "$TEST_LOG" || fail "relay off: a plan was relayed"
fi

echo "PASS: plans correct under every pattern, rules file honoured, relays correct"
