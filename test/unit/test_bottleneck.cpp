// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// test_bottleneck.cpp - shared bottlenecks (docs/calibration.md, "Shared bottlenecks"): inferred
// from the lone samples only where they show one (a pair's sample clearly faster alone than in
// its round, between two groups of the hierarchy), and priced by the flow model (one transfer
// across at the lone rate, several sharing the capacity). C++: the inference is an internal.
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

Matrix racks()
{
    std::vector<std::string> h;
    std::vector<double> lat, bw;
    for (int i = 0; i < 8; ++i) {
        h.push_back("n" + std::to_string(i));
        for (int j = 0; j < 8; ++j) {
            lat.push_back(i == j ? 0 : 1e-4);
            bw.push_back(i == j ? 0 : rack(i) == rack(j) ? kIn : kAcross);
        }
    }
    return Matrix(h, lat, bw);
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

double predicted(const Matrix &m, const Plan &p)
{
    std::vector<int> rank_node(8);
    for (int i = 0; i < 8; ++i) {
        rank_node[i] = i;
    }
    return predict(p, m, rank_node, CostParams());
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

int main(void)
{
    Suite *s = suite_create("bottleneck");
    TCase *tc = tcase_create("bottleneck");
    tcase_add_test(tc, inferred_from_samples);
    tcase_add_test(tc, none_without_evidence);
    tcase_add_test(tc, bad_samples_refused);
    tcase_add_test(tc, flow_model_prices_the_bottleneck);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
