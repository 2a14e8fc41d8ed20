// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// test_relay.cpp - routing around a bad link (docs/model.md, "Relay around a bad link"). Four
// nodes of two ranks each (ranks 2i, 2i+1 on node i), every pair 100 MB/s, 100 us, except one
// bad direction, 1 MB/s. A plan that must cross it (the linear scatter from a root on its
// sending node, the ring over ranks) is built relayed through a rank of a third node, passes the
// symbolic check and is predicted faster than without; with the pair fast, with the relay off,
// or for a message too small to gain, it is built as before.
#include <check.h>

#include "test_util.h"

#include "baselines.hpp"
#include "names.hpp"
#include "planner.hpp"
#include "relay.hpp"
#include "simulate.hpp"

#include <string>
#include <vector>

using namespace cacore;

namespace {

constexpr double kFast = 1e8, kBad = 1e6;

// bad_from -> bad_to (and back, with both) at kBad (-1: none).
Matrix four_nodes(int bad_from, int bad_to, bool both = false)
{
    std::vector<std::string> h;
    std::vector<double> lat, bw;
    for (int i = 0; i < 4; ++i) {
        h.push_back("n" + std::to_string(i));
        for (int j = 0; j < 4; ++j) {
            lat.push_back(i == j ? 0 : 1e-4);
            const bool bad = (i == bad_from && j == bad_to) || (both && i == bad_to && j == bad_from);
            bw.push_back(i == j ? 0 : bad ? kBad : kFast);
        }
    }
    return Matrix(h, lat, bw);
}

PlanInput input(const Matrix &m, cacore_coll_t coll, int root, double bytes)
{
    PlanInput in;
    in.matrix = &m;
    in.rank_node = {0, 0, 1, 1, 2, 2, 3, 3};
    in.coll = coll;
    in.root = root;
    in.bytes = bytes;
    in.count = static_cast<size_t>(bytes);
    return in;
}

PlanParams params(int algo, bool relay)
{
    PlanParams p;
    p.algo = algo;
    p.relay = relay;
    return p;
}

bool relayed(const Plan &p) { return p.description.find(" relay ") != std::string::npos; }

// Whether rank r has a step with peer `peer` of the given kind into or from a temporary.
bool has_tmp_step(const Plan &p, int r, int kind, int peer)
{
    for (const auto &s : p.steps[r]) {
        if (s.kind == kind && s.peer == peer && s.buf >= CACORE_BUF_TMP0) {
            return true;
        }
    }
    return false;
}

}  // namespace

// The root (rank 0, node 0) sends each rank its part directly; node 0 -> node 3 is bad, so the
// parts of ranks 6 and 7 go through node 1 (the first of the equally good detours), one relay
// rank each (the least busy ones: 2, then 3).
START_TEST(linear_scatter_relays_around_the_bad_pair)
{
    const Matrix m = four_nodes(0, 3);
    const PlanInput in = input(m, CACORE_COLL_SCATTER, 0, 1 << 20);
    const Plan direct = build_plan(in, params(CACORE_ALGO_LINEAR, false));
    const Plan plan = build_plan(in, params(CACORE_ALGO_LINEAR, true));
    ck_assert(!relayed(direct));
    ck_assert_msg(plan.description == direct.description + " relay 0->6 via 2, 0->7 via 3",
                  "%s", plan.description.c_str());
    ck_assert(simulate(plan).ok);
    ck_assert_int_eq(plan.ntmp, direct.ntmp + 1);
    // Rank 2 receives rank 6's part from the root into a temporary and forwards it; rank 6
    // receives it from rank 2, and nothing crosses 0 -> 3 any more.
    ck_assert(has_tmp_step(plan, 2, CACORE_STEP_RECV, 0));
    ck_assert(has_tmp_step(plan, 2, CACORE_STEP_SEND, 6));
    ck_assert(has_tmp_step(plan, 3, CACORE_STEP_SEND, 7));
    for (int r : {6, 7}) {
        for (const auto &s : plan.steps[r]) {
            ck_assert(s.peer != 0 && s.peer != 1);
        }
    }
    // 1 MiB over the bad pair twice (2.1 s) against the root's 7 parts at 100 MB/s and the
    // forwards: far faster, and the model says so.
    ck_assert_double_gt(direct.predicted_s, 2.0);
    ck_assert_double_lt(plan.predicted_s, 0.2);
    ck_assert_double_eq_tol(plan.predicted_s, predict_for(plan, in, CostParams()), 1e-12);
}
END_TEST

// The linear gather to a root on the bad pair's receiving node is relayed the same way.
START_TEST(linear_gather_relays_too)
{
    const Matrix m = four_nodes(0, 3);
    const Plan plan = build_plan(input(m, CACORE_COLL_GATHER, 7, 1 << 20),
                                 params(CACORE_ALGO_LINEAR, true));
    ck_assert_msg(relayed(plan) && plan.description.find("0->7 via") != std::string::npos &&
                      plan.description.find("1->7 via") != std::string::npos,
                  "%s", plan.description.c_str());
    ck_assert(simulate(plan).ok);
}
END_TEST

// Rings over ranks (bcast, reduce: pipelined chains from and to rank 0) cross between node 1
// and node 2 (rank 3 -> rank 4; the reduce chain 4 -> 3) in every step, both directions bad:
// each of those messages is relayed, in lockstep with the ring's rounds, through ranks of node 0
// and 1 by turns. Every collective's ring passes the check, and a temporary is reused once its
// blocks are forwarded.
START_TEST(rings_relay_every_step)
{
    const Matrix m = four_nodes(1, 2, true);
    for (cacore_coll_t c : {CACORE_COLL_BCAST, CACORE_COLL_REDUCE, CACORE_COLL_ALLREDUCE,
                            CACORE_COLL_ALLGATHER}) {
        const PlanInput in = input(m, c, 0, 1 << 20);
        const Plan direct = build_plan(in, params(CACORE_ALGO_RING, false));
        const Plan plan = build_plan(in, params(CACORE_ALGO_RING, true));
        const char *edge = c == CACORE_COLL_REDUCE ? " relay 4->3 via 0/1" : " relay 3->4 via 0/1";
        ck_assert_msg(relayed(plan) && plan.description.find(edge) != std::string::npos,
                      "%s: %s", coll_name(c), plan.description.c_str());
        const SimResult sim = simulate(plan);
        ck_assert_msg(sim.ok, "%s: %s", coll_name(c), sim.error.c_str());
        ck_assert_double_lt(plan.predicted_s, direct.predicted_s * 0.98);
        ck_assert_int_le(plan.ntmp, direct.ntmp + 2);
    }
}
END_TEST

// No bad pair, the relay off, or a message whose detour cannot halve its time (64 bytes: the
// two latencies dominate): no relay.
START_TEST(no_relay_without_reason)
{
    const Matrix fast = four_nodes(-1, -1), bad = four_nodes(0, 3);
    for (int algo : {CACORE_ALGO_AUTO, CACORE_ALGO_LINEAR}) {
        ck_assert(!relayed(build_plan(input(fast, CACORE_COLL_SCATTER, 0, 1 << 20), params(algo, true))));
        ck_assert(!relayed(build_plan(input(bad, CACORE_COLL_SCATTER, 0, 1 << 20), params(algo, false))));
        ck_assert(!relayed(build_plan(input(bad, CACORE_COLL_SCATTER, 0, 64), params(algo, true))));
    }
    const Plan lin = build_linear(input(bad, CACORE_COLL_SCATTER, 0, 64));
    ck_assert(!relay_plan(lin, bad, {0, 0, 1, 1, 2, 2, 3, 3}));
    ck_assert(relay_plan(build_linear(input(bad, CACORE_COLL_SCATTER, 0, 1 << 20)), bad,
                         {0, 0, 1, 1, 2, 2, 3, 3}));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("relay");
    TCase *tc = tcase_create("relay");
    tcase_add_test(tc, linear_scatter_relays_around_the_bad_pair);
    tcase_add_test(tc, linear_gather_relays_too);
    tcase_add_test(tc, rings_relay_every_step);
    tcase_add_test(tc, no_relay_without_reason);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
