// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// test_bottleneck.cpp - shared bottlenecks (docs/calibration.md, "Shared bottlenecks"): inferred
// from the lone samples only where they show one (a pair's sample clearly faster alone than in
// its round, between two groups of the hierarchy), and priced by the flow model (one transfer
// across at the lone rate, several sharing the capacity, and a group's way out or in where its
// capacities agree; two-way traffic inside a group overlapping). C++: the inference is an internal.
#include <check.h>

#include "test_util.h"

#include "bottleneck.hpp"
#include "cost_model.hpp"
#include "error.hpp"
#include "plan.hpp"

#include <string>
#include <vector>

using namespace cacore;

namespace {

// 8 nodes, racks {0..3} and {4..7}: 5 MB/s inside a rack; across, what a tournament round with
// four crossing pairs measured (a fifth of a 5 MB/s uplink: 4 pairs and some noise).
constexpr double kIn = 5e6, kAcross = 1e6;
bool rack(int i) { return i >= 4; }

// n nodes n0, n1, ...: 0.1 ms between any two, node i to node j at across(i, j) B/s.
template <typename Rate> Matrix network(int n, Rate across)
{
    std::vector<std::string> h;
    std::vector<double> lat, bw;
    for (int i = 0; i < n; ++i) {
        h.push_back("n" + std::to_string(i));
        for (int j = 0; j < n; ++j) {
            lat.push_back(i == j ? 0 : 1e-4);
            bw.push_back(i == j ? 0 : across(i, j));
        }
    }
    return Matrix(h, lat, bw);
}

Matrix racks()
{
    return network(8, [](int i, int j) { return rack(i) == rack(j) ? kIn : kAcross; });
}

// Every node's slowest peer (the first one across) measured alone at `lone`.
std::vector<NodeProps> samples(double lone, double shared = kAcross)
{
    std::vector<NodeProps> p(8);
    for (auto &x : p) {
        x.lone_Bps = lone;
        x.shared_Bps = shared;
    }
    return p;
}

// A plan of `pairs` concurrent transfers of `bytes` from rack 0 to rack 1 (0->4, 1->5, ...).
Plan across(int pairs, double bytes)
{
    PlanBuilder b(CACORE_COLL_BCAST, 0, 8, 1);
    for (int i = 0; i < pairs; ++i) {
        b.transfer(i, 0, 0, i + 4, 0, 0, 1, 0, 1);
    }
    return b.finish(bytes, CACORE_ALGO_COOL, "test");
}

// One rank per node: rank i on node i.
double predicted(const Matrix &m, const Plan &p, double duplex = CACORE_DUPLEX_MEASURED)
{
    std::vector<int> rank_node(static_cast<size_t>(p.nranks));
    for (int i = 0; i < p.nranks; ++i) {
        rank_node[i] = i;
    }
    CostParams c;
    c.duplex_above_bytes = duplex;
    return predict(p, m, rank_node, c);
}

// Nodes a and b send each other `bytes` at once; posting the sends first (the executor) or the
// receives (the previous module's own code).
Plan exchange(int a, int b, double bytes, bool sends_first = true)
{
    PlanBuilder pb(CACORE_COLL_BCAST, 0, 8, 1);
    pb.transfer(a, 0, 0, b, 0, 0, 1, 0, 1);
    pb.transfer(b, 0, 0, a, 0, 0, 1, 0, 1);
    Plan p = pb.finish(bytes, CACORE_ALGO_COOL, "test");
    p.sends_first = sends_first;
    return p;
}

// Three racks of unequal size, {0..5}, {6..9}, {10, 11}: 5 MB/s inside; across, the rates of
// the rounds. Samples only for a -> c and c -> a (0.8 MB/s in the round, 2.5 alone) and b -> a
// (1 MB/s, 3.75 alone): nothing measured b -> c alone.
int rack3(int i) { return i < 6 ? 0 : i < 10 ? 1 : 2; }

Matrix three_racks()
{
    const double across[3][3] = {{0, 1e6, 0.8e6}, {1e6, 0, 0.9e6}, {0.8e6, 0.9e6, 0}};
    Matrix m = network(12, [&](int i, int j) {
        return rack3(i) == rack3(j) ? kIn : across[rack3(i)][rack3(j)];
    });
    std::vector<NodeProps> p(12);
    for (int i = 0; i < 12; ++i) {
        p[i].lone_Bps = rack3(i) == 1 ? 3.75e6 : 2.5e6;
        p[i].shared_Bps = rack3(i) == 1 ? 1e6 : 0.8e6;
    }
    m.set_node_props(p);
    return m;
}

// Four racks of three nodes, {0..2}, {3..5}, {6..8}, {9..11} (cloud-16's shape): 5 MB/s inside;
// across, what the rounds measured (1 MB/s; 0.9 into rack 0 with `slower_in`, which makes every
// other rack's slowest peer one in rack 0). Every node's slowest peer ran 4 MB/s alone, or, with
// `slower_in`, 4, `lone2` and `lone3` MB/s from racks 1, 2 and 3.
int rack4(int i) { return i / 3; }

Matrix four_racks(bool slower_in, double lone2 = 2e6, double lone3 = 1.5e6)
{
    Matrix m = network(12, [&](int i, int j) {
        return rack4(i) == rack4(j) ? kIn : slower_in && rack4(j) == 0 ? 0.9e6 : 1e6;
    });
    const double lone[4] = {4e6, 4e6, slower_in ? lone2 : 4e6, slower_in ? lone3 : 4e6};
    std::vector<NodeProps> p(12);
    for (int i = 0; i < 12; ++i) {
        p[i].lone_Bps = lone[rack4(i)];
        p[i].shared_Bps = slower_in && rack4(i) > 0 ? 0.9e6 : 1e6;
    }
    m.set_node_props(p);
    return m;
}

// The bottlenecks inferred from m, which must be `ngroups` groups.
const Bottlenecks *groups_of(const Matrix &m, int ngroups)
{
    const Bottlenecks *b = m.bottlenecks();
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(b->ngroups, ngroups);
    return b;
}

// 4 MB from each of `from` to the node of the same index in `to`, all at once.
Plan fan(const std::vector<int> &from, const std::vector<int> &to)
{
    PlanBuilder b(CACORE_COLL_BCAST, 0, 12, 1);
    for (size_t i = 0; i < from.size(); ++i) {
        b.transfer(from[i], 0, 0, to[i], 0, 0, 1, 0, 1);
    }
    return b.finish(4e6, CACORE_ALGO_COOL, "test");
}

}  // namespace

START_TEST(inferred_from_samples)
{
    Matrix m = racks();
    m.set_node_props(samples(5e6));
    const Bottlenecks *b = m.bottlenecks();
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(b->ngroups, 2);
    ck_assert_int_ne(b->group_of(0), b->group_of(4));
    ck_assert_int_eq(b->group_of(0), b->group_of(3));
    const int g = b->group_of(0), h = b->group_of(4);
    ck_assert_double_eq_tol(b->factor_of(g, h), 5.0, 1e-12);
    ck_assert_double_eq(b->capacity(g, h), 5e6);
    ck_assert_double_eq(b->factor_of(g, g), 1.0);
    ck_assert_double_eq_tol(b->lone_rate(m, 0, 5), 5e6, 1e-6);
    ck_assert_double_eq(b->lone_rate(m, 0, 1), kIn);   // inside a rack: as measured
    // A sub-matrix infers again from its own nodes.
    Matrix s = m.sub({0, 1, 4, 5});
    ck_assert_ptr_nonnull(s.bottlenecks());
    // Copies share the inference.
    Matrix c = m;
    ck_assert_ptr_eq(c.bottlenecks(), m.bottlenecks());
}
END_TEST

START_TEST(racks_of_unequal_size)
{
    const Matrix m = three_racks();
    // The groups are the racks as clustered: the performance hierarchy's rebalancing (which
    // moves nodes of the 6-node rack into the 2-node one's group) does not apply.
    const Bottlenecks *b = groups_of(m, 3);
    for (int i = 0; i < 12; ++i) {
        for (int j = 0; j < 12; ++j) {
            ck_assert_int_eq(b->group_of(i) == b->group_of(j), rack3(i) == rack3(j));
        }
    }
    const int a = b->group_of(0), bb = b->group_of(6), c = b->group_of(10);
    ck_assert_double_eq_tol(b->factor_of(a, c), 2.5 / 0.8, 1e-9);
    ck_assert_double_eq(b->capacity(a, c), 2.5e6);
    // b -> c has no sample: those leaving b (factor 3.75, 3.75 MB/s alone) and entering c
    // (3.125, 2.5 MB/s): the median factor of the ten; the capacity is at least the lesser of
    // the two bounds (2.5 MB/s), and b -> c's round rate times the factor (0.9 x 3.125) is more,
    // below the fastest lone sample (3.75).
    ck_assert_double_eq_tol(b->factor_of(bb, c), 2.5 / 0.8, 1e-9);
    ck_assert_double_eq_tol(b->capacity(bb, c), 0.9e6 * 2.5 / 0.8, 1e-3);
    ck_assert_double_eq_tol(b->lone_rate(m, 6, 10), 0.9e6 * 2.5 / 0.8, 1e-3);
    // One transfer b -> c of 2.8125 MB: 1 s alone, not the 3.1 s of its round's rate.
    PlanBuilder pb(CACORE_COLL_BCAST, 0, 12, 1);
    pb.transfer(6, 0, 0, 10, 0, 0, 1, 0, 1);
    ck_assert_double_eq_tol(predicted(m, pb.finish(2.8125e6, CACORE_ALGO_COOL, "test")), 1.0,
                            0.01);
}
END_TEST

// With three groups or more, a group's two largest capacities with the others, when they agree,
// are its own way out (in), which all its flows to (from) the other groups share, as a rack's
// uplink does.
START_TEST(a_group_way_is_shared_by_its_flows_to_every_group)
{
    const Matrix m = four_racks(false);
    const Bottlenecks *b = groups_of(m, 4);
    for (int g = 0; g < 4; ++g) {
        for (int h = 0; h < 4; ++h) {
            if (g != h) {
                ck_assert_double_eq_tol(b->capacity(g, h), 4e6, 1e-3);
            }
        }
        ck_assert_double_eq_tol(b->way_out(g), 4e6, 1e-3);
        ck_assert_double_eq_tol(b->way_in(g), 4e6, 1e-3);
    }
    // One 4 MB transfer across: 1 s at the lone rate. Node 0 to a node of each other rack at
    // once: rack 0's way out carries the three, 3 s (each group pair's capacity alone: 1 s).
    ck_assert_double_eq_tol(predicted(m, fan({0}, {3})), 1.0, 0.01);
    ck_assert_double_eq_tol(predicted(m, fan({0, 1, 2}, {3, 6, 9})), 3.0, 0.01);
    // A node of each other rack to rack 0 (a linear gather's way in): 3 s.
    ck_assert_double_eq_tol(predicted(m, fan({3, 6, 9}, {0, 1, 2})), 3.0, 0.01);
    // Rack 1 to rack 2 and rack 3 to rack 0 share nothing: 1 s.
    ck_assert_double_eq_tol(predicted(m, fan({3, 9}, {6, 0})), 1.0, 0.01);
    // Two groups: the group pair's capacity is the way already; nothing more is kept.
    Matrix r = racks();
    r.set_node_props(samples(5e6));
    ck_assert_double_eq(r.bottlenecks()->way_out(0), 0.0);
}
END_TEST

// Capacities into a group that disagree may each be the sender's way out: the group's way in
// stays unknown, and the flows into it share only their group pairs' capacities.
START_TEST(disagreeing_capacities_leave_a_way_unknown)
{
    const Matrix m = four_racks(true);
    const Bottlenecks *b = groups_of(m, 4);
    const int a = b->group_of(0);
    const double c1 = b->capacity(b->group_of(3), a), c2 = b->capacity(b->group_of(6), a),
                 c3 = b->capacity(b->group_of(9), a);
    ck_assert_double_eq_tol(c1, 4e6, 1e-3);
    ck_assert_double_eq_tol(c2, 2e6, 1e-3);
    ck_assert_double_eq_tol(c3, 1.5e6, 1e-3);
    ck_assert_double_eq(b->way_in(a), 0.0);
    // A node of each other rack to rack 0 at once: each flow at its pair's lone rate (rack 3's,
    // 1.5 MB/s, the slowest: 2.67 s); a way in of 4 MB/s shared by the three would take longer.
    ck_assert_double_eq_tol(predicted(m, fan({3, 6, 9}, {0, 1, 2})), 4e6 / 1.5e6, 0.02);
    // Two that agree (racks 2 and 3, 2 MB/s) below a larger one (rack 1's flow got 4 MB/s in
    // alone): theirs are the senders' ways out, rack 0's way in stays unknown.
    const Matrix two_agree = four_racks(true, 2e6, 2e6);
    const Bottlenecks *b2 = groups_of(two_agree, 4);
    ck_assert_double_eq_tol(b2->capacity(b2->group_of(9), b2->group_of(0)), 2e6, 1e-3);
    ck_assert_double_eq(b2->way_in(b2->group_of(0)), 0.0);
}
END_TEST

// A pair slow on its own path (a bad link 2 -> 6 at 0.8 MB/s, in its round as alone) behind the
// racks' shared uplink: node 2's first sample is that pair, its second an ordinary pair across
// (five times faster alone). The group's factor comes from each node's faster sample, and the
// bad pair runs at its own lone rate, not at the factor times its round's rate; a pair without
// a sample keeps the factor. A file of version 4 kept only node 2's faster sample: the bad pair
// then gets the factor (what the fix replaces).
START_TEST(a_sampled_pair_runs_at_its_own_lone_rate)
{
    constexpr double kBad = 0.8e6;
    const auto bad = [](int i, int j) {
        return i == 2 && j == 6 ? kBad : rack(i) == rack(j) ? kIn : kAcross;
    };
    Matrix m = network(8, bad);
    std::vector<NodeProps> p = samples(5e6);
    p[2].lone_Bps = kBad;
    p[2].shared_Bps = kBad;
    p[2].lone2_Bps = 5e6;
    p[2].shared2_Bps = kAcross;
    m.set_node_props(p);
    const Bottlenecks *b = m.bottlenecks();
    ck_assert_ptr_nonnull(b);
    const int g = b->group_of(0), h = b->group_of(4);
    ck_assert_int_ne(g, h);
    ck_assert_double_eq_tol(b->factor_of(g, h), 5.0, 1e-12);
    ck_assert_double_eq(b->capacity(g, h), 5e6);
    ck_assert_double_eq(b->lone_rate(m, 2, 6), kBad);
    ck_assert_double_eq(b->lone_rate(m, 2, 4), 5e6);   // node 2's second sample
    ck_assert_double_eq_tol(b->lone_rate(m, 3, 6), 5e6, 1e-6);
    ck_assert_double_eq(m.lone_cost(2, 6, 8e5), 1e-4 + 1.0);
    PlanBuilder pb(CACORE_COLL_BCAST, 0, 8, 1);
    pb.transfer(2, 0, 0, 6, 0, 0, 1, 0, 1);
    const Plan one = pb.finish(4e6, CACORE_ALGO_COOL, "test");
    ck_assert_double_eq_tol(predicted(m, one), 5.0, 0.01);
    // Version 4: one sample per node, the faster (node 2's second), the other not measured.
    p[2] = samples(5e6)[2];
    p[2].lone2_Bps = p[2].shared2_Bps = -1;
    m.set_node_props(p);
    ck_assert_double_eq_tol(m.bottlenecks()->lone_rate(m, 2, 6), 5 * kBad, 1e-6);
    ck_assert_double_eq_tol(predicted(m, one), 1.0, 0.01);
}
END_TEST

START_TEST(none_without_evidence)
{
    Matrix m = racks();
    ck_assert_ptr_null(m.bottlenecks());
    m.set_node_props(std::vector<NodeProps>(8));   // node properties without samples
    ck_assert_ptr_null(m.bottlenecks());
    m.set_node_props(samples(1.2 * kAcross));      // alone hardly faster: nothing shared
    ck_assert_ptr_null(m.bottlenecks());
    m.set_node_props(samples(5e6, 2.0e6));         // a sample of no pair of this matrix
    ck_assert_ptr_null(m.bottlenecks());
    m.set_node_props({});
    ck_assert_ptr_null(m.bottlenecks());
}
END_TEST

START_TEST(bad_samples_refused)
{
    Matrix m = racks();
    std::vector<NodeProps> p = samples(5e6);
    p[3].shared_Bps = 0;   // a lone rate without its concurrent one
    ck_assert(!node_props_problem(p[3]).empty());
    bool threw = false;
    try {
        m.set_node_props(p);
    } catch (const Error &) {
        threw = true;
    }
    ck_assert(threw);
    ck_assert(!m.has_node_props());
}
END_TEST

START_TEST(flow_model_prices_the_bottleneck)
{
    const double bytes = 5e6;
    Matrix plain = racks(), shared = racks();
    plain.set_node_props(std::vector<NodeProps>(8));
    shared.set_node_props(samples(5e6));
    // One transfer across: 5 s at the round's rate; 1 s alone, behind the bottleneck.
    ck_assert_double_eq_tol(predicted(plain, across(1, bytes)), 5.0, 0.01);
    ck_assert_double_eq_tol(predicted(shared, across(1, bytes)), 1.0, 0.01);
    // Four at once share the 5 MB/s: 4 s, as the round measured.
    ck_assert_double_eq_tol(predicted(shared, across(4, bytes)), 4.0, 0.01);
    ck_assert_double_eq_tol(predicted(shared, across(2, bytes)), 2.0, 0.01);
}
END_TEST

// The default (measured) two-way rule: a plan that posts its sends first (the executor) overlaps
// the two directions between two nodes, each at its own 5 MB/s (across the racks, at its share
// of the uplink); one that posts its receives first (the previous module's own exchanges)
// overlaps only messages up to 64 KiB between two nodes of one group.
START_TEST(two_way_inside_a_rack_overlaps)
{
    Matrix plain = racks(), shared = racks();
    plain.set_node_props(std::vector<NodeProps>(8));
    shared.set_node_props(samples(5e6));
    ck_assert_double_eq(CostParams().duplex_above_bytes, CACORE_DUPLEX_MEASURED);
    const double small = 50e3, one_way = small / kIn;   // 10 ms; latency 0.1 ms
    // Sends first.
    ck_assert_double_eq_tol(predicted(shared, exchange(0, 1, small)), one_way, 2e-4);
    ck_assert_double_eq_tol(predicted(shared, exchange(0, 1, 2 * small)), 2 * one_way, 3e-4);
    ck_assert_double_eq_tol(predicted(shared, exchange(0, 4, small)), one_way, 2e-4);
    ck_assert_double_eq_tol(predicted(plain, exchange(0, 1, 2 * small)), 2 * one_way, 3e-4);
    // Receives first.
    ck_assert_double_eq_tol(predicted(shared, exchange(0, 1, small, false)), one_way, 2e-4);
    ck_assert_double_eq_tol(predicted(shared, exchange(0, 1, 2 * small, false)), 4 * one_way, 3e-4);
    ck_assert_double_eq_tol(predicted(shared, exchange(0, 4, small, false)), 2 * one_way, 3e-4);
    ck_assert_double_eq_tol(predicted(plain, exchange(0, 1, small, false)), 2 * one_way, 3e-4);
    // The explicit settings as before, whatever the posting order: 0 every message, -1 none.
    ck_assert_double_eq_tol(predicted(shared, exchange(0, 1, small), 0), 2 * one_way, 3e-4);
    ck_assert_double_eq_tol(predicted(shared, exchange(0, 4, small, false), -1), one_way, 2e-4);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bottleneck");
    TCase *tc = tcase_create("bottleneck");
    tcase_add_test(tc, inferred_from_samples);
    tcase_add_test(tc, racks_of_unequal_size);
    tcase_add_test(tc, a_group_way_is_shared_by_its_flows_to_every_group);
    tcase_add_test(tc, disagreeing_capacities_leave_a_way_unknown);
    tcase_add_test(tc, a_sampled_pair_runs_at_its_own_lone_rate);
    tcase_add_test(tc, none_without_evidence);
    tcase_add_test(tc, bad_samples_refused);
    tcase_add_test(tc, flow_model_prices_the_bottleneck);
    tcase_add_test(tc, two_way_inside_a_rack_overlaps);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
