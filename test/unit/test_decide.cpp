// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// test_decide.cpp - the model of the previous module (tuned's fixed rules of Open MPI 4.1.4, the
// trees of coll/base, every previous plan complete and priced) and the one decision function
// (rules, live-trial outcome, cost model against the previous module). C++ because the tuned
// table and the trees are internals; the policy is tested through the C API the component calls.
#include <check.h>

#include "test_util.h"

#include "baselines.hpp"
#include "cost_model.hpp"
#include "names.hpp"
#include "planner.hpp"
#include "previous_module.hpp"
#include "simulate.hpp"

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace cacore;

namespace {

const char *tuned(cacore_coll_t c, int n, double bytes, bool commutative = true)
{
    return tuned_choice(c, n, bytes, commutative).name;
}

// A call of `bytes` over m with nranks ranks, per_node on each node in order.
PlanInput input_over(const Matrix &m, int nranks, int per_node, cacore_coll_t coll, double bytes)
{
    PlanInput in;
    in.matrix = &m;
    for (int r = 0; r < nranks; ++r) {
        in.rank_node.push_back(r / per_node);
    }
    in.coll = coll;
    in.bytes = bytes;
    in.count = static_cast<size_t>(bytes);
    return in;
}

}  // namespace

// Points of ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at tag v4.1.4 (lines cited); 16 ranks
// is the lab's 8 hosts x 2.
START_TEST(tuned_fixed_rules)
{
    // bcast, lines 536-640
    ck_assert_str_eq(tuned(CACORE_COLL_BCAST, 16, 1024), "knomial");            // 577-578
    ck_assert_str_eq(tuned(CACORE_COLL_BCAST, 16, 65536), "binomial");          // 579-580
    ck_assert_str_eq(tuned(CACORE_COLL_BCAST, 16, 1048576), "scatter_allgather");  // 581-582
    ck_assert_str_eq(tuned(CACORE_COLL_BCAST, 8, 65536), "basic_linear");       // 574-575
    ck_assert_str_eq(tuned(CACORE_COLL_BCAST, 4, 1048576), "chain");            // 562-563
    ck_assert_str_eq(tuned(CACORE_COLL_BCAST, 2, 100000), "binary_tree");       // 548-549
    ck_assert_str_eq(tuned(CACORE_COLL_BCAST, 200, 20000), "basic_linear");     // 597-598
    // reduce, lines 697-815
    ck_assert_str_eq(tuned(CACORE_COLL_REDUCE, 16, 1024), "binary");            // 769-770
    ck_assert_str_eq(tuned(CACORE_COLL_REDUCE, 16, 65536), "binomial");         // 771-772
    ck_assert_str_eq(tuned(CACORE_COLL_REDUCE, 6, 300000), "linear");           // 755-756
    ck_assert_str_eq(tuned(CACORE_COLL_REDUCE, 16, 65536, false), "in-order_binary");  // 722-723
    ck_assert_str_eq(tuned(CACORE_COLL_REDUCE, 8, 4096, false), "linear");      // 712-713
    // allreduce, lines 80-218
    ck_assert_str_eq(tuned(CACORE_COLL_ALLREDUCE, 16, 1024), "recursive_doubling");  // 155-156
    ck_assert_str_eq(tuned(CACORE_COLL_ALLREDUCE, 16, 65536), "rabenseifner");  // 157-158
    ck_assert_str_eq(tuned(CACORE_COLL_ALLREDUCE, 16, 32), "segmented_ring");   // 153-154
    ck_assert_str_eq(tuned(CACORE_COLL_ALLREDUCE, 3, 4096), "ring");            // 124-125
    ck_assert_str_eq(tuned(CACORE_COLL_ALLREDUCE, 12, 2097152, false), "nonoverlapping");  // 91-92
    // gather, lines 1417-1453; scatter, lines 1503-1555
    ck_assert_str_eq(tuned(CACORE_COLL_GATHER, 16, 1048576), "binomial");       // 1441-1442
    ck_assert_str_eq(tuned(CACORE_COLL_GATHER, 4, 4096), "basic_linear");       // 1432-1433
    ck_assert_str_eq(tuned(CACORE_COLL_GATHER, 4, 1048576), "linear_sync");     // 1438-1439
    ck_assert_str_eq(tuned(CACORE_COLL_SCATTER, 16, 1024), "binomial");         // 1530-1531
    ck_assert_str_eq(tuned(CACORE_COLL_SCATTER, 16, 16384), "basic_linear");    // 1532-1533
    ck_assert_str_eq(tuned(CACORE_COLL_SCATTER, 16, 65536), "linear_nb");       // 1534-1535
    ck_assert_str_eq(tuned(CACORE_COLL_SCATTER, 8, 1048576), "basic_linear");   // 1527-1528
    // allgather, lines 1123-1226
    ck_assert_str_eq(tuned(CACORE_COLL_ALLGATHER, 16, 1048576), "recursive_doubling");  // 1125-1126
    ck_assert_str_eq(tuned(CACORE_COLL_ALLGATHER, 2, 1024), "two_proc");        // 1123-1124
    ck_assert_str_eq(tuned(CACORE_COLL_ALLGATHER, 48, 1024), "neighbor");       // 1129-1130
    ck_assert_str_eq(tuned(CACORE_COLL_ALLGATHER, 48, 65536), "ring");          // 1131-1132
}
END_TEST

// ompi_coll_base_topo_build_tree(2) and build_kmtree(radix 4), coll_base_topo.c.
START_TEST(ompi_trees)
{
    Tree b = ompi_kary_tree(15, 2);
    ck_assert(b.children[0] == std::vector<int>({1, 2}));
    ck_assert(b.children[1] == std::vector<int>({3, 5}));
    ck_assert(b.children[2] == std::vector<int>({4, 6}));
    ck_assert(b.children[3] == std::vector<int>({7, 11}));
    ck_assert_int_eq(b.parent[14], 6);
    Tree k = ompi_knomial_tree(16, 4);
    ck_assert(k.children[0] == std::vector<int>({4, 8, 12, 1, 2, 3}));
    ck_assert(k.children[4] == std::vector<int>({5, 6, 7}));
    ck_assert_int_eq(k.parent[13], 12);
    ck_assert(k.children[13].empty());
}
END_TEST

// Every previous module's plan, for every collective, size and communicator size (powers of two
// and not), delivers what MPI requires and has a finite, positive predicted time that does not
// shrink when the message grows.
START_TEST(previous_plans_complete_and_priced)
{
    std::vector<std::string> hosts;
    std::vector<double> lat, bw;
    const int nodes = 8;
    for (int i = 0; i < nodes; ++i) {
        hosts.push_back("h" + std::to_string(i));
        for (int j = 0; j < nodes; ++j) {
            lat.push_back(i == j ? 0 : 50e-6 * (1 + (i + j) % 3));
            bw.push_back(i == j ? 0 : 1e8 * (1 + (i * j) % 4));
        }
    }
    Matrix m(hosts, lat, bw);
    CostParams cost;
    for (int n : {2, 3, 5, 8, 12, 16}) {
        for (int prev = 0; prev < CACORE_PREV_COUNT; ++prev) {
            for (int c = 0; c < CACORE_COLL_COUNT; ++c) {
                for (bool comm : {true, false}) {
                    std::string last_desc;
                    double last = 0;
                    for (double bytes : {1.0, 1024.0, 65536.0, 1048576.0, 4194304.0}) {
                        PlanInput in;
                        in.matrix = &m;
                        for (int r = 0; r < n; ++r) {
                            in.rank_node.push_back(r / 2 % nodes);
                        }
                        in.coll = static_cast<cacore_coll_t>(c);
                        in.root = n > 2 ? 1 : 0;
                        in.bytes = bytes;
                        in.count = static_cast<size_t>(bytes);
                        Plan p = build_previous(in, prev, comm);
                        SimResult s = simulate(p);
                        ck_assert_msg(s.ok, "%s %s n=%d %g B: %s: %s", prev_name(prev), coll_name(c),
                                      n, bytes, p.description.c_str(), s.error.c_str());
                        double t = predict(p, m, in.rank_node, cost);
                        ck_assert_msg(std::isfinite(t) && t > 0, "%s: %g", p.description.c_str(), t);
                        // tuned switches algorithms with the size; one algorithm is monotone
                        ck_assert_msg(p.description != last_desc || t >= last * 0.999,
                                      "%s %s n=%d: %g s at %g B < %g s before", prev_name(prev),
                                      p.description.c_str(), n, t, bytes, last);
                        last = t;
                        last_desc = p.description;
                    }
                }
            }
        }
    }
}
END_TEST

// Tuned's binomial reduce is the binomial tree over ranks the baselines build: same prediction.
START_TEST(tuned_binomial_is_the_binomial_baseline)
{
    Matrix m({"a", "b", "c", "d"}, {0, 1e-4, 2e-4, 1e-4, 1e-4, 0, 1e-4, 3e-4, 2e-4, 1e-4, 0, 1e-4,
                                    1e-4, 3e-4, 1e-4, 0},
             {0, 1e8, 5e7, 1e8, 1e8, 0, 2e8, 1e8, 5e7, 2e8, 0, 1e8, 1e8, 1e8, 1e8, 0});
    const PlanInput in = input_over(m, 16, 4, CACORE_COLL_REDUCE, 65536);
    Plan t = build_previous(in, CACORE_PREV_TUNED, true);
    ck_assert_str_eq(t.description.c_str(), "tuned binomial");
    CostParams c;
    ck_assert_double_eq(predict(t, m, in.rank_node, c), predict(build_binomial(in), m, in.rank_node, c));
}
END_TEST

namespace {

// The burst and repeated-call tests' network: four nodes, every pair at latency kL and rate kB.
constexpr double kL = 1e-4, kB = 1e6;
Matrix four_nodes()
{
    std::vector<double> lat(16), bw(16);
    for (int i = 0; i < 16; ++i) {
        lat[i] = i % 5 == 0 ? 0 : kL;
        bw[i] = i % 5 == 0 ? 0 : kB;
    }
    return Matrix({"a", "b", "c", "d"}, lat, bw);
}

// A bcast of `bytes` over m's four nodes, one rank each.
PlanInput bcast_over(const Matrix &m, double bytes)
{
    return input_over(m, 4, 1, CACORE_COLL_BCAST, bytes);
}

}  // namespace

// Messages of at most CostParams::burst_bytes between nodes cost their latency only when their
// node pair is idle, and the pair then owes their time at its rate (a shaper's debt; here the
// pair is each message's only capacity): the decision prices small calls so to find the live
// trial's alternative. The port model and the flow model alike; a byte more and they pay the
// bandwidth again.
START_TEST(burst_prices_short_messages_at_latency)
{
    const double L = kL, B = kB, bytes = 1024;
    Matrix m = four_nodes();
    const PlanInput in = bcast_over(m, bytes);
    const Plan p = build_binomial(in);   // two rounds: 0 -> 2, then 0 -> 1 and 2 -> 3
    for (int flow = 0; flow < 2; ++flow) {
        if (flow) {
            m.set_node_props(std::vector<NodeProps>(4));
        }
        CostParams c;
        c.repeated = false;   // one call from idle links
        const double bulk = predict(p, m, in.rank_node, c);
        ck_assert_msg(bulk >= 2 * (L + bytes / B) * 0.999, "flow %d: %g s", flow, bulk);
        c.burst_bytes = bytes;
        ck_assert_double_eq_tol(predict(p, m, in.rank_node, c), 2 * L, 1e-12);
        c.burst_bytes = bytes - 1;
        ck_assert_double_eq(predict(p, m, in.rank_node, c), bulk);
        // two ranks per node: the second round's two messages cross the same pair; the first
        // passes at once, the second waits for the pair's debt, then passes
        PlanInput two = in;
        two.rank_node = {0, 1, 0, 1};
        const Plan q = build_binomial(two);   // 0 -> 2 inside node 0, then 0 -> 1 and 2 -> 3
        const double t1 = c.intra_latency_s + bytes / c.intra_Bps;
        c.burst_bytes = 0;
        ck_assert(predict(q, m, two.rank_node, c) >= t1 + L + 2 * bytes / B * 0.999);
        c.burst_bytes = bytes;
        ck_assert_double_eq_tol(predict(q, m, two.rank_node, c), t1 + bytes / B + L, 1e-12);
    }
}
END_TEST

// CACORE_BURST_MEASURED (coll_cloudaware_model_burst -1): each message has its sender node's measured credit
// (NodeProps::burst_bytes), which fades toward its edge; none where the matrix has no node
// properties or the node none (0) or was not measured (-1).
START_TEST(measured_burst_credit_is_the_senders)
{
    const double L = kL, B = kB, bytes = 1024;
    Matrix m = four_nodes();
    const PlanInput in = bcast_over(m, bytes);
    const Plan p = build_binomial(in);   // 0 -> 2, then 0 -> 1 and 2 -> 3
    CostParams c;
    c.repeated = false;
    ck_assert_double_eq(c.burst_bytes, CACORE_BURST_MEASURED);   // the default (forty-fifth session)
    const double none = predict(p, m, in.rank_node, c);   // no node properties: no bursts
    ck_assert(!has_bursts(c, m));
    std::vector<NodeProps> props(4);
    props[1].burst_bytes = props[3].burst_bytes = -1;
    m.set_node_props(props);
    ck_assert(!has_bursts(c, m));
    const double bulk = predict(p, m, in.rank_node, c);
    ck_assert(bulk >= 2 * (L + bytes / B) * 0.999 && none >= bulk * 0.999);
    // of a message of b bytes under a measured credit C, b (1 - b / C) pass at once: a credit
    // of 1 KiB leaves 1 KiB messages at the rate; with 2 KiB half of each passes at once, and
    // the rest takes half the time (0 -> 2, then 0 -> 1 and 2 -> 3 over other node pairs)
    props[0].burst_bytes = props[2].burst_bytes = bytes;
    m.set_node_props(props);
    ck_assert(has_bursts(c, m));
    ck_assert_double_eq(predict(p, m, in.rank_node, c), bulk);
    props[0].burst_bytes = props[2].burst_bytes = 2 * bytes;
    m.set_node_props(props);
    ck_assert_double_eq_tol(predict(p, m, in.rank_node, c), 2 * L + bytes / B, 1e-12);
    props[2].burst_bytes = 0;   // 2 -> 3 at the rate
    m.set_node_props(props);
    const double once = predict(p, m, in.rank_node, c);
    ck_assert_double_eq_tol(once, 2 * L + 1.5 * bytes / B, 1e-12);
    // node 0's pairs repay their bursts (0 -> 2 by bytes / B, 0 -> 1 by 1.5 bytes / B + L) before
    // 2 -> 3 ends the call: calls back to back each take as long as one (simulated once, exactly)
    c.repeated = true;
    ck_assert_double_eq(predict(p, m, in.rank_node, c), once);
    c.repeated = false;
    props[0].burst_bytes = props[2].burst_bytes = 4 * bytes;   // three quarters at once
    m.set_node_props(props);
    ck_assert_double_eq_tol(predict(p, m, in.rank_node, c), 2 * L + 0.5 * bytes / B, 1e-12);
    c.burst_bytes = 0;   // coll_cloudaware_model_burst 0: none, whatever was measured
    ck_assert_double_eq(predict(p, m, in.rank_node, c), bulk);
}
END_TEST

// CostParams::repeated: a call among many back to back takes at least the time its busiest
// capacity needs for the plan's bytes, whatever passed in bursts (the debt is repaid in the next
// call); without bursts the simulation already takes that long. Port model: the directed pair and
// the node's one send and receive port; flow model: the pair and the node's egress and ingress,
// where a burst owes too.
START_TEST(repeated_calls_wait_for_the_busiest_capacity)
{
    const double L = kL, B = kB, bytes = 1024;
    Matrix m = four_nodes();
    const PlanInput in = bcast_over(m, bytes);
    const Plan p = build_binomial(in);   // 0 -> 2, then 0 -> 1 and 2 -> 3: node 0 sends twice
    PlanInput two = in;
    two.rank_node = {0, 1, 0, 1};
    const Plan q = build_binomial(two);   // 0 -> 2 inside node 0, then 0 -> 1 and 2 -> 3: pair 0 -> 1 twice
    const double t = bytes / B;
    for (int flow = 0; flow < 2; ++flow) {
        if (flow) {
            m.set_node_props(std::vector<NodeProps>(4));
        }
        CostParams c;
        c.repeated = false;
        // port model: node 0's send port carries both of its messages; flow model: no node cap
        ck_assert_double_eq_tol(busiest_capacity_s(p, m, in.rank_node, c), (flow ? t : 2 * t), 1e-15);
        ck_assert_double_eq_tol(busiest_capacity_s(q, m, two.rank_node, c), 2 * t, 1e-15);
        const double bulk = predict(p, m, in.rank_node, c);
        c.repeated = true;
        ck_assert_double_eq(predict(p, m, in.rank_node, c), bulk);
        c.burst_bytes = bytes;   // bursts: 2 L for one call, the busiest capacity's time for many
        ck_assert_double_eq_tol(predict(p, m, in.rank_node, c), (flow ? t : 2 * t), 1e-15);
        ck_assert_double_eq_tol(predict(q, m, two.rank_node, c), 2 * t, 1e-15);
        c.repeated = false;
        ck_assert_double_eq_tol(predict(p, m, in.rank_node, c), 2 * L, 1e-15);
    }
    // flow model, node 0's egress capped at a quarter of a pair: its two messages take 8 t; a
    // burst owes at the cap too, so the second (0 -> 1) waits 4 t for the first's (0 -> 2) debt
    std::vector<NodeProps> props(4);
    props[0].egress_Bps = B / 4;
    m.set_node_props(props);
    CostParams c;
    ck_assert_double_eq_tol(busiest_capacity_s(p, m, in.rank_node, c), 8 * t, 1e-15);
    c.burst_bytes = bytes;
    c.repeated = false;   // one call
    ck_assert_double_eq_tol(predict(p, m, in.rank_node, c), 4 * t + L, 1e-15);
    c.burst_bytes = 0;
    c.node_send_slots = c.node_recv_slots = 0;   // port model with unlimited ports: the pairs only
    ck_assert_double_eq_tol(busiest_capacity_s(p, m, in.rank_node, c), t, 1e-15);
}
END_TEST

// Short messages that pass as bursts price every plan of a gather at its busiest capacity's
// floor (the root's node takes in every other node's block), so the plans tie; the tie goes to
// the plan of fewest rounds, and the live trial's alternative is the fewest-rounds plan of
// another algorithm (planner.cpp, Best): a linear gather (one round) and the gather over the node
// leaders (two), not the binomial trees (four) that were offered first.
START_TEST(floor_ties_go_to_fewer_rounds)
{
    std::vector<double> lat(64), bw(64);
    for (int i = 0; i < 64; ++i) {
        lat[i] = i % 9 == 0 ? 0 : kL / 10;
        bw[i] = i % 9 == 0 ? 0 : kB;
    }
    const Matrix m({"a", "b", "c", "d", "e", "f", "g", "h"}, lat, bw);
    PlanInput in = input_over(m, 16, 2, CACORE_COLL_GATHER, 1024);
    PlanParams pp;
    pp.cost.burst_bytes = 1024;
    const auto rounds = [](const Plan &p) {
        int last = -1;
        for (const auto &st : p.steps) {
            for (const auto &s : st) {
                last = std::max(last, s.round);
            }
        }
        return last + 1;
    };
    const Plan bin = build_binomial(in);
    const double bin_s = predict(bin, m, in.rank_node, pp.cost);
    ck_assert_int_eq(rounds(bin), 4);
    ck_assert(bin_s <= busiest_capacity_s(bin, m, in.rank_node, pp.cost) * 1.02);   // at its floor
    std::optional<Plan> second;
    const Plan best = build_plan(in, pp, &second);
    ck_assert_msg(best.description == "linear over ranks", "%s", best.description.c_str());
    ck_assert_int_eq(rounds(best), 1);
    ck_assert(std::fabs(best.predicted_s / bin_s - 1.0) <= 0.02);   // a tie with the binomial tree
    ck_assert(second.has_value());
    ck_assert_msg(rounds(*second) == 2, "%s: %d rounds", second->description.c_str(), rounds(*second));
    // A plan more than a tie faster keeps its place whatever its rounds: with a long latency and
    // no bursts (the port model: the root node's one receive port holds each message for its
    // latency too) the linear gather is far slower, and a plan of more rounds is chosen.
    std::vector<double> slow = lat;
    for (double &l : slow) {
        l = l > 0 ? 5e-3 : 0.0;
    }
    const Matrix far({"a", "b", "c", "d", "e", "f", "g", "h"}, slow, bw);
    in.matrix = &far;
    pp.cost.burst_bytes = 0;
    const Plan lin = build_linear(in);
    const double lin_s = predict(lin, far, in.rank_node, pp.cost);
    const Plan chosen = build_plan(in, pp, &second);
    ck_assert_msg(chosen.predicted_s < lin_s * 0.98 && rounds(chosen) > 1, "%s: %g s, %d rounds",
                  chosen.description.c_str(), chosen.predicted_s, rounds(chosen));
}
END_TEST

// ---- the policy, through cacore_decide ----------------------------------------------------------

namespace {

// 8 nodes in two racks of 4 hidden behind the node order, 10:1 across: rack(i) = *ctx(i).
typedef int (*rack_fn)(int);
int flat(int) { return 0; }
int parity(int i) { return i % 2; }             // racks {0,2,4,6}, {1,3,5,7}
int mixed(int i) { return (i * 3 / 2) % 2; }    // racks {0,3,4,7}, {1,2,5,6}
double rack_lat(int i, int j, void *ctx)
{
    rack_fn f = *static_cast<rack_fn *>(ctx);
    return f(i) == f(j) ? 50e-6 : 150e-6;
}
double rack_bw(int i, int j, void *ctx)
{
    rack_fn f = *static_cast<rack_fn *>(ctx);
    return f(i) == f(j) ? 1.25e9 : 1.25e8;
}

struct Case {
    cacore_matrix_t *m;
    std::vector<int> rank_node;
    cacore_decide_input_t in;
    cacore_decision_t d{};
    Case(rack_fn rack, int ppn, cacore_coll_t coll, size_t bytes)
    {
        m = tu_matrix(8, rack_lat, rack_bw, &rack);
        for (int r = 0; r < 8 * ppn; ++r) {
            rank_node.push_back(r / ppn);
        }
        cacore_decide_input_default(&in);
        in.coll = coll;
        in.bytes = in.count = bytes;
    }
    // The plans a decision hands out besides the one that runs (the tests free that one).
    void free_spares()
    {
        cacore_plan_free(d.declined);
        cacore_plan_free(d.alternative);
        cacore_plan_free(d.peer);
        d.declined = d.alternative = d.peer = nullptr;
    }
    ~Case()
    {
        free_spares();
        cacore_matrix_free(m);
    }
    void run()
    {
        char err[256];
        free_spares();
        ck_assert_msg(CACORE_OK == cacore_decide(m, static_cast<int>(rank_node.size()), rank_node.data(),
                                                 &in, &d, err, sizeof err), "%s", err);
    }
    bool has(const char *s) const { return std::string(d.reason).find(s) != std::string::npos; }
};

}  // namespace

// A rule that sends the call to the previous module wins over everything, trial included.
START_TEST(policy_rule_fallback)
{
    Case c(mixed, 2, CACORE_COLL_BCAST, 1 << 20);
    cacore_rule_t rule{};
    rule.choice = CACORE_RULE_FALLBACK;
    rule.line = 7;
    c.in.rule = &rule;
    c.in.trial = CACORE_TRIAL_PLAN;
    c.run();
    ck_assert_ptr_null(c.d.plan);
    ck_assert_msg(c.has("previous module (rules file line 7)"), "%s", c.d.reason);
    ck_assert(c.d.previous_s < 0);
}
END_TEST

// A rule that forces a plan runs it, even where the model and a trial say otherwise.
START_TEST(policy_rule_plan)
{
    Case c(flat, 1, CACORE_COLL_ALLREDUCE, 1 << 20);
    cacore_rule_t rule{};
    rule.choice = CACORE_RULE_PLAN;
    rule.algo = CACORE_ALGO_BINOMIAL;
    rule.line = 3;
    c.in.rule = &rule;
    c.in.trial = CACORE_TRIAL_PREVIOUS;
    c.run();
    ck_assert_ptr_nonnull(c.d.plan);
    ck_assert_str_eq(cacore_plan_describe(c.d.plan), "binomial over ranks");
    ck_assert_msg(c.has("rules file line 3"), "%s", c.d.reason);
    cacore_plan_free(c.d.plan);
}
END_TEST

// Racks hidden behind the rank order: the plan beats tuned's scatter-allgather broadcast.
START_TEST(policy_model_win)
{
    Case c(mixed, 2, CACORE_COLL_BCAST, 1 << 20);
    c.run();
    ck_assert_msg(c.d.plan != nullptr, "%s", c.d.reason);
    ck_assert_str_eq(c.d.previous, "tuned scatter_allgather");
    ck_assert(c.d.plan_s > 0 && c.d.plan_s <= c.d.previous_s * 0.9);
    ck_assert_double_eq(c.d.plan_s, cacore_plan_predicted(c.d.plan));
    ck_assert_msg(c.has("vs tuned scatter_allgather"), "%s", c.d.reason);
    cacore_plan_free(c.d.plan);
}
END_TEST

// Racks in the node parity: tuned's scatter-allgather broadcast crosses the racks only in its
// mask-2 exchange (an eighth of the data), and is predicted faster than the plan — and well
// faster than the binomial tree over ranks that used to stand in for the previous module. (With
// every message taking turns, for the plan and tuned alike: by default a matrix without
// measured groups makes only tuned's exchanges take turns, those of the plan overlap.)
START_TEST(policy_model_loss_vs_tuned)
{
    Case c(parity, 2, CACORE_COLL_BCAST, 1 << 20);
    c.in.params.cost.duplex_above_bytes = 0;
    c.run();
    ck_assert_ptr_null(c.d.plan);
    ck_assert_str_eq(c.d.previous, "tuned scatter_allgather");
    ck_assert(c.d.previous_s > 0 && c.d.plan_s > c.d.previous_s);
    ck_assert_msg(c.has("gain below min_gain 0.1"), "%s", c.d.reason);
    cacore_plan_params_t p = c.in.params;
    p.algo = CACORE_ALGO_BINOMIAL;
    cacore_plan_t *binomial = NULL;
    char err[256];
    ck_assert_int_eq(cacore_plan_build(c.m, 16, c.rank_node.data(), CACORE_COLL_BCAST, 0, 1 << 20,
                                       1 << 20, &p, &binomial, err, sizeof err), CACORE_OK);
    ck_assert(c.d.previous_s < cacore_plan_predicted(binomial) * 0.8);
    cacore_plan_free(binomial);
    // with basic below (a binomial tree above 4 ranks) the same plan runs
    c.in.previous = CACORE_PREV_BASIC;
    c.run();
    ck_assert_msg(c.d.plan != nullptr, "%s", c.d.reason);
    ck_assert_str_eq(c.d.previous, "basic log");
    cacore_plan_free(c.d.plan);
}
END_TEST

// A binomial allreduce (coll_cloudaware_algorithm binomial) on a flat network loses to tuned's
// Rabenseifner.
START_TEST(policy_forced_algorithm_loses)
{
    Case c(flat, 1, CACORE_COLL_ALLREDUCE, 1 << 20);
    c.in.params.algo = CACORE_ALGO_BINOMIAL;
    c.run();
    ck_assert_ptr_null(c.d.plan);
    ck_assert_str_eq(c.d.previous, "tuned rabenseifner");
    ck_assert(c.d.previous_s > 0 && c.d.plan_s > c.d.previous_s);
}
END_TEST

// A known trial outcome overrides the model both ways.
START_TEST(policy_trial_overrides_model)
{
    Case win(mixed, 2, CACORE_COLL_BCAST, 1 << 20);
    win.in.trial = CACORE_TRIAL_PREVIOUS;
    win.run();
    ck_assert_ptr_null(win.d.plan);
    ck_assert_msg(win.has("live trial"), "%s", win.d.reason);
    Case loss(flat, 1, CACORE_COLL_ALLREDUCE, 1 << 20);
    loss.in.params.algo = CACORE_ALGO_BINOMIAL;
    loss.in.trial = CACORE_TRIAL_PLAN;
    loss.run();
    ck_assert_ptr_nonnull(loss.d.plan);
    ck_assert_msg(loss.has("live trial"), "%s", loss.d.reason);
    cacore_plan_free(loss.d.plan);
}
END_TEST

// The alternative: the best plan of another algorithm, offered for the live trial when predicted
// within trial_spread of the best; a trial outcome "alternative" runs it.
START_TEST(policy_alternative)
{
    Case c(mixed, 2, CACORE_COLL_BCAST, 1 << 20);
    c.in.trial_spread = 1e5;
    c.run();
    ck_assert_msg(c.d.plan != nullptr, "%s", c.d.reason);
    ck_assert_ptr_nonnull(c.d.alternative);
    ck_assert_ptr_null(c.d.declined);
    const std::string best = cacore_plan_describe(c.d.plan), alt = cacore_plan_describe(c.d.alternative);
    ck_assert(best != alt);
    ck_assert(c.d.alternative_s >= c.d.plan_s && c.d.alternative_s == cacore_plan_predicted(c.d.alternative));
    ck_assert_str_eq(c.d.alternative_note, "");
    cacore_plan_free(c.d.plan);
    // within the spread or not
    c.in.trial_spread = c.d.alternative_s / c.d.plan_s * 0.999;
    c.run();
    ck_assert_ptr_null(c.d.alternative);
    ck_assert(c.d.alternative_s < 0);
    cacore_plan_free(c.d.plan);
    c.in.trial_spread = 0;
    c.run();
    ck_assert_ptr_null(c.d.alternative);
    cacore_plan_free(c.d.plan);
    // the trial measured the alternative fastest: it runs, the best plan is declined
    c.in.trial_spread = 1e5;
    c.in.trial = CACORE_TRIAL_ALTERNATIVE;
    c.run();
    ck_assert_ptr_nonnull(c.d.plan);
    ck_assert_str_eq(cacore_plan_describe(c.d.plan), alt.c_str());
    ck_assert_ptr_nonnull(c.d.declined);
    ck_assert_str_eq(cacore_plan_describe(c.d.declined), best.c_str());
    ck_assert_msg(c.has("live trial: the alternative"), "%s", c.d.reason);
    cacore_plan_free(c.d.plan);
    // the model chose the previous module: its plan is declined, not lost (the trial tries it)
    Case loss(parity, 2, CACORE_COLL_BCAST, 1 << 20);
    loss.in.params.cost.duplex_above_bytes = 0;   // as in policy_model_loss_vs_tuned
    loss.run();
    ck_assert_ptr_null(loss.d.plan);
    ck_assert_ptr_nonnull(loss.d.declined);
    ck_assert(loss.d.plan_s == cacore_plan_predicted(loss.d.declined));
    // a bad spread is refused
    char err[256];
    c.in.trial_spread = -1;
    c.free_spares();
    ck_assert_int_eq(cacore_decide(c.m, 16, c.rank_node.data(), &c.in, &c.d, err, sizeof err),
                     CACORE_ERR_ARG);
}
END_TEST

// Below large_message, where the model offers no alternative within trial_spread: the plan the
// model would choose if every message of the call passed at once (a shaped link's burst), so the
// live trial measures a call bound by hops and per-message overhead rather than bandwidth. Here
// 16 ranks on 8 nodes of 12 Mbit/s links: the model prices 1 KiB messages at 0.7 ms each and
// picks few of them; bursts make the hops count.
START_TEST(policy_burst_alternative)
{
    Case c(flat, 2, CACORE_COLL_ALLREDUCE, 1024);
    cacore_matrix_free(c.m);
    c.m = tu_matrix(8, [](int, int, void *) { return 75e-6; }, [](int, int, void *) { return 1.5e6; },
                    nullptr);
    double props[8 * CACORE_NODE_VALUES] = {0};
    for (int i = 0; i < 8; ++i) {
        props[i * CACORE_NODE_VALUES + CACORE_NODE_OVERHEAD] = 30e-6;
    }
    char err[256];
    ck_assert_int_eq(cacore_matrix_set_node_props(c.m, props, err, sizeof err), CACORE_OK);
    c.in.previous = CACORE_PREV_HAN;
    c.run();
    ck_assert_msg(c.d.plan != nullptr, "%s", c.d.reason);
    ck_assert_msg(c.d.alternative != nullptr, "%s", c.d.reason);
    const std::string best = cacore_plan_describe(c.d.plan), alt = cacore_plan_describe(c.d.alternative);
    ck_assert_msg(best != alt, "%s", best.c_str());
    // not the spread's alternative: priced by the model as is, beyond the spread
    ck_assert_msg(c.d.alternative_s > c.in.trial_spread * c.d.plan_s, "%s %g s, %s %g s", best.c_str(),
                  c.d.plan_s, alt.c_str(), c.d.alternative_s);
    ck_assert(c.d.alternative_s == cacore_plan_predicted(c.d.alternative));
    ck_assert_str_eq(c.d.alternative_note, "the model's choice if every message passed at once");
    cacore_plan_free(c.d.plan);
    // a trial that measured it fastest runs it (the next job finds the same alternative)
    c.in.trial = CACORE_TRIAL_ALTERNATIVE;
    c.run();
    ck_assert_ptr_nonnull(c.d.plan);
    ck_assert_str_eq(cacore_plan_describe(c.d.plan), alt.c_str());
    cacore_plan_free(c.d.plan);
    c.in.trial = CACORE_TRIAL_UNKNOWN;
    // not with the alternative off, nor from large_message on (only the spread's there)
    c.in.trial_spread = 0;
    c.run();
    ck_assert_ptr_null(c.d.alternative);
    cacore_plan_free(c.d.plan);
    c.in.trial_spread = 2;
    c.in.large_message = 1024;
    c.run();
    ck_assert_msg(c.d.alternative == nullptr || c.d.alternative_s <= 2 * c.d.plan_s, "%g s, plan %g s",
                  c.d.alternative_s, c.d.plan_s);
    cacore_plan_free(c.d.plan);
    // With the nodes' burst credit measured (32 KiB each, as on the lab's nodes), the model prices
    // the bursts itself (as repeated calls; most of each short message passes at once) and the
    // alternative below large_message is its choice at the bulk rates (16 KiB; trial_spread 1:
    // no second plan within the spread).
    Case b(flat, 2, CACORE_COLL_ALLREDUCE, 16384);
    cacore_matrix_free(b.m);
    b.m = tu_matrix(8, [](int, int, void *) { return 75e-6; }, [](int, int, void *) { return 1.5e6; },
                    nullptr);
    for (int i = 0; i < 8; ++i) {
        props[i * CACORE_NODE_VALUES + CACORE_NODE_BURST] = 32768;
    }
    ck_assert_int_eq(cacore_matrix_set_node_props(b.m, props, err, sizeof err), CACORE_OK);
    b.in.previous = CACORE_PREV_HAN;
    b.in.trial_spread = 1;
    b.in.params.cost.burst_bytes = 0;   // the bulk model's choice
    b.run();
    ck_assert_ptr_nonnull(b.d.plan);
    const std::string bulk = cacore_plan_describe(b.d.plan);
    cacore_plan_free(b.d.plan);
    b.in.params.cost.burst_bytes = CACORE_BURST_MEASURED;
    b.run();
    ck_assert_msg(b.d.plan != nullptr && b.d.alternative != nullptr, "%s", b.d.reason);
    ck_assert_str_ne(cacore_plan_describe(b.d.plan), bulk.c_str());
    ck_assert_str_eq(cacore_plan_describe(b.d.alternative), bulk.c_str());
    ck_assert_str_eq(b.d.alternative_note, "the model's choice at the bulk rates, without bursts");
    cacore_plan_free(b.d.plan);
}
END_TEST

// The peer: the other default's algorithm for the call, as the executor runs it, is offered for
// the live trial whatever its prediction — tuned's when the previous module is not tuned (han
// under Open MPI 5), han's two levels when it is (Open MPI 4.1); a trial outcome "peer" runs it.
// Not with coll_cloudaware_trial_peer off, nor when a rule forces the plan.
START_TEST(policy_peer)
{
    Case c(flat, 2, CACORE_COLL_ALLREDUCE, 1 << 16);
    c.in.previous = CACORE_PREV_HAN;
    c.run();
    ck_assert_ptr_nonnull(c.d.peer);
    const std::string peer = cacore_plan_describe(c.d.peer);
    ck_assert_msg(peer == "tuned rabenseifner", "%s", peer.c_str());
    ck_assert(c.d.peer_s > 0 && c.d.peer_s == cacore_plan_predicted(c.d.peer));
    ck_assert_str_eq(c.d.previous, "han two-level");
    const std::string best = cacore_plan_describe(c.d.plan != nullptr ? c.d.plan : c.d.declined);
    cacore_plan_free(c.d.plan);
    // tuned below: han's two levels are the peer
    c.in.previous = CACORE_PREV_TUNED;
    c.run();
    ck_assert_ptr_nonnull(c.d.peer);
    ck_assert_str_eq(cacore_plan_describe(c.d.peer), "han two-level");
    ck_assert(c.d.peer_s > 0 && c.d.peer_s == cacore_plan_predicted(c.d.peer));
    ck_assert_str_eq(c.d.previous, "tuned rabenseifner");
    cacore_plan_free(c.d.plan);
    // basic below: tuned's algorithm
    c.in.previous = CACORE_PREV_BASIC;
    c.run();
    ck_assert_ptr_nonnull(c.d.peer);
    ck_assert_str_eq(cacore_plan_describe(c.d.peer), peer.c_str());
    cacore_plan_free(c.d.plan);
    // the peer turned off: none
    c.in.trial_peer = 0;
    c.run();
    ck_assert_ptr_null(c.d.peer);
    ck_assert(c.d.peer_s < 0);
    cacore_plan_free(c.d.plan);
    c.in.trial_peer = 1;
    // the trial measured the peer fastest: it runs, the best plan is declined
    c.in.previous = CACORE_PREV_HAN;
    c.in.trial = CACORE_TRIAL_PEER;
    c.run();
    ck_assert_ptr_nonnull(c.d.plan);
    ck_assert_str_eq(cacore_plan_describe(c.d.plan), peer.c_str());
    ck_assert_ptr_null(c.d.peer);
    ck_assert_ptr_nonnull(c.d.declined);
    ck_assert_str_eq(cacore_plan_describe(c.d.declined), best.c_str());
    ck_assert_msg(c.has("live trial: the peer, tuned's algorithm"), "%s", c.d.reason);
    cacore_plan_free(c.d.plan);
    // with tuned below the same outcome runs han's two levels
    c.in.previous = CACORE_PREV_TUNED;
    c.run();
    ck_assert_ptr_nonnull(c.d.plan);
    ck_assert_str_eq(cacore_plan_describe(c.d.plan), "han two-level");
    ck_assert_msg(c.has("live trial: the peer, han's algorithm"), "%s", c.d.reason);
    cacore_plan_free(c.d.plan);
    // a stored "peer" outcome where no peer is offered (the peer turned off): the model decides
    c.in.trial_peer = 0;
    c.run();
    ck_assert_msg(c.has("predicted"), "%s", c.d.reason);
    cacore_plan_free(c.d.plan);
    c.in.trial_peer = 1;
    // a rule that forces the plan: no peer
    cacore_rule_t rule{};
    rule.choice = CACORE_RULE_PLAN;
    rule.line = 2;
    c.in.previous = CACORE_PREV_HAN;
    c.in.trial = CACORE_TRIAL_UNKNOWN;
    c.in.rule = &rule;
    c.run();
    ck_assert_ptr_null(c.d.peer);
    cacore_plan_free(c.d.plan);
    // a non-commutative op: a peer is offered only when it keeps rank order
    c.in.rule = nullptr;
    c.in.commutative = 0;
    c.run();
    ck_assert(c.d.peer == nullptr || cacore_plan_preserves_order(c.d.peer));
    cacore_plan_free(c.d.plan);
}
END_TEST

// A non-commutative op: tuned's in-order binary tree is the reference, and a plan that does not
// keep rank order never runs.
START_TEST(policy_noncommutative)
{
    Case c(mixed, 2, CACORE_COLL_REDUCE, 1 << 20);
    c.in.commutative = 0;
    c.run();
    ck_assert_msg(c.d.plan == nullptr || cacore_plan_preserves_order(c.d.plan), "%s", c.d.reason);
    ck_assert_msg(c.d.plan != nullptr || c.has("rank order") || c.has("in-order_binary"), "%s",
                  c.d.reason);
    cacore_plan_free(c.d.plan);
}
END_TEST

// min_gain is the margin: with min_gain 0 the plan runs whenever predicted no slower.
START_TEST(policy_min_gain_and_bad_input)
{
    Case c(mixed, 2, CACORE_COLL_BCAST, 1 << 20);
    c.in.min_gain = 0.99;
    c.run();
    ck_assert_ptr_null(c.d.plan);
    ck_assert(c.d.plan_s > c.d.previous_s * 0.01);
    c.free_spares();   // the calls below overwrite c.d
    c.in.min_gain = 1.0;
    char err[256];
    ck_assert_int_eq(cacore_decide(c.m, 16, c.rank_node.data(), &c.in, &c.d, err, sizeof err),
                     CACORE_ERR_ARG);
    c.in.min_gain = 0.1;
    c.in.previous = CACORE_PREV_COUNT;
    ck_assert_int_eq(cacore_decide(c.m, 16, c.rank_node.data(), &c.in, &c.d, err, sizeof err),
                     CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_decide(c.m, 16, c.rank_node.data(), nullptr, &c.d, err, sizeof err),
                     CACORE_ERR_ARG);
}
END_TEST

namespace {

// rack_bw, but one direction of one link (node 1 to node 2) 0.1 % slower.
double one_link_slower(int i, int j, void *ctx)
{
    return rack_bw(i, j, ctx) * (i == 1 && j == 2 ? 0.999 : 1.0);
}

// Two decisions' plans are the same plan: description, prediction and every rank's steps.
bool same_plan(const cacore_plan_t *a, const cacore_plan_t *b)
{
    if (a == nullptr || b == nullptr) {
        return a == b;
    }
    if (std::string(cacore_plan_describe(a)) != cacore_plan_describe(b) ||
        cacore_plan_predicted(a) != cacore_plan_predicted(b) ||
        cacore_plan_nranks(a) != cacore_plan_nranks(b)) {
        return false;
    }
    for (int r = 0; r < cacore_plan_nranks(a); ++r) {
        const int n = cacore_plan_nsteps(a, r);
        if (n != cacore_plan_nsteps(b, r) ||
            (n > 0 && std::memcmp(cacore_plan_steps(a, r), cacore_plan_steps(b, r),
                                  sizeof(cacore_step_t) * static_cast<size_t>(n)) != 0)) {
            return false;
        }
    }
    return true;
}

}  // namespace

// The decision memo answers only for identical inputs, with the decision made afresh: the
// same plans (steps and all), predictions and reason; any input changed — the size, the root,
// one link of the matrix, the ranks' nodes, a cost parameter, a rule — is decided again.
START_TEST(policy_memo_answers_identical_inputs)
{
    char err[256];
    cacore_decision_memo_t *memo = nullptr;
    ck_assert_int_eq(cacore_decision_memo_create(&memo, err, sizeof err), CACORE_OK);
    Case fresh(mixed, 2, CACORE_COLL_REDUCE, 1 << 20), kept(mixed, 2, CACORE_COLL_REDUCE, 1 << 20);
    fresh.run();
    kept.in.memo = memo;
    kept.run();   // decided, and kept in the memo
    ck_assert_int_eq(kept.d.remembered, 0);
    ck_assert_int_eq(cacore_decision_memo_size(memo), 1);
    cacore_plan_free(kept.d.plan);
    kept.run();   // the same inputs: remembered
    ck_assert_int_eq(kept.d.remembered, 1);
    ck_assert_int_eq(cacore_decision_memo_size(memo), 1);
    ck_assert_str_eq(kept.d.reason, fresh.d.reason);
    ck_assert(kept.d.plan_s == fresh.d.plan_s && kept.d.previous_s == fresh.d.previous_s &&
              kept.d.alternative_s == fresh.d.alternative_s && kept.d.peer_s == fresh.d.peer_s);
    ck_assert(same_plan(kept.d.plan, fresh.d.plan) && same_plan(kept.d.declined, fresh.d.declined) &&
              same_plan(kept.d.alternative, fresh.d.alternative) &&
              same_plan(kept.d.peer, fresh.d.peer));
    cacore_plan_free(kept.d.plan);
    cacore_plan_free(fresh.d.plan);
    kept.d.plan = fresh.d.plan = nullptr;

    // Each change below is a decision of its own (not remembered), and the original inputs are
    // remembered still.
    int decisions = 1;
    auto expect_new = [&](const char *what) {
        kept.run();
        ck_assert_msg(kept.d.remembered == 0, "remembered although %s changed", what);
        cacore_plan_free(kept.d.plan);
        kept.d.plan = nullptr;
        ck_assert_int_eq(cacore_decision_memo_size(memo), ++decisions);
    };
    kept.in.bytes = kept.in.count = 1 << 19;
    expect_new("the size");
    kept.in.bytes = kept.in.count = 1 << 20;
    kept.in.root = 3;
    expect_new("the root");
    kept.in.root = 0;
    kept.in.params.cost.burst_bytes = 0;
    expect_new("a cost parameter");
    kept.in.params.cost.burst_bytes = CACORE_BURST_MEASURED;
    cacore_rule_t rule{};
    rule.choice = CACORE_RULE_MODEL;
    rule.line = 4;
    kept.in.rule = &rule;
    expect_new("the rule");
    kept.in.rule = nullptr;
    std::swap(kept.rank_node[0], kept.rank_node[15]);
    expect_new("the ranks' nodes");
    std::swap(kept.rank_node[0], kept.rank_node[15]);
    rack_fn rack = mixed;
    cacore_matrix_t *other = tu_matrix(8, rack_lat, one_link_slower, &rack);
    std::swap(kept.m, other);
    expect_new("one link of the matrix");
    std::swap(kept.m, other);
    cacore_matrix_free(other);
    kept.run();
    ck_assert_int_eq(kept.d.remembered, 1);
    ck_assert_str_eq(kept.d.reason, fresh.d.reason);
    cacore_plan_free(kept.d.plan);
    kept.d.plan = nullptr;
    kept.free_spares();
    cacore_decision_memo_free(memo);
}
END_TEST

// Which communicators the component plans on: Open MPI's "ompi_comm_coll_preference" as its coll
// base reads it (split at commas, empty names dropped, "^" starts the excluded part).
START_TEST(policy_comm_preference)
{
    const struct {
        const char *preference;
        int admits;
    } cases[] = {
        // han's sub-communicators (Open MPI 5.0's coll_han_subcomms.c): someone else's collectives.
        {"libnbc,^han", 0}, {"tuned,^han", 0}, {"han", 0},
        // Only exclusions, or this component named in the include part: plan.
        {"^han", 1}, {"tuned,cloudaware,^han", 1}, {"cloudaware", 1}, {"", 1}, {",,", 1},
        {",cloudaware,", 1},
        // Named after the first "^": excluded (Open MPI drops it before asking), not included.
        {"tuned,^han,cloudaware", 0},
        // Whole names only, no trimming (Open MPI does not trim either).
        {"cloudaware2", 0}, {"tuned, cloudaware", 0},
    };
    for (const auto &c : cases) {
        ck_assert_msg(cacore_preference_admits(c.preference, "cloudaware") == c.admits,
                      "\"%s\": expected %d", c.preference, c.admits);
    }
    ck_assert_int_eq(cacore_preference_admits(nullptr, "cloudaware"), 1);
}
END_TEST

int main()
{
    Suite *s = suite_create("decide");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, tuned_fixed_rules);
    tcase_add_test(tc, ompi_trees);
    tcase_add_test(tc, previous_plans_complete_and_priced);
    tcase_add_test(tc, tuned_binomial_is_the_binomial_baseline);
    tcase_add_test(tc, burst_prices_short_messages_at_latency);
    tcase_add_test(tc, measured_burst_credit_is_the_senders);
    tcase_add_test(tc, repeated_calls_wait_for_the_busiest_capacity);
    tcase_add_test(tc, floor_ties_go_to_fewer_rounds);
    tcase_add_test(tc, policy_rule_fallback);
    tcase_add_test(tc, policy_rule_plan);
    tcase_add_test(tc, policy_model_win);
    tcase_add_test(tc, policy_model_loss_vs_tuned);
    tcase_add_test(tc, policy_forced_algorithm_loses);
    tcase_add_test(tc, policy_trial_overrides_model);
    tcase_add_test(tc, policy_alternative);
    tcase_add_test(tc, policy_burst_alternative);
    tcase_add_test(tc, policy_peer);
    tcase_add_test(tc, policy_noncommutative);
    tcase_add_test(tc, policy_min_gain_and_bad_input);
    tcase_add_test(tc, policy_comm_preference);
    tcase_add_test(tc, policy_memo_answers_identical_inputs);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
