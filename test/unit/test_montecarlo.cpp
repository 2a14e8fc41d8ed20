// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// test_montecarlo.cpp - the Monte Carlo reference (random recursive trees, CMPI Fig. 9): its fast
// path must give exactly the time the cost model gives the tree's plan, or the table of
// docs/model-results.md would silently drift from the model. C++ because RandomTrees is an
// internal of the planner CLI, not part of the C API.
#include <check.h>

#include "test_util.h"

#include "cost_model.hpp"
#include "generate.hpp"
#include "layout.hpp"
#include "montecarlo.hpp"
#include "names.hpp"

#include <algorithm>
#include <random>
#include <vector>

using namespace cacore;

namespace {

const cacore_coll_t kOps[] = {CACORE_COLL_BCAST, CACORE_COLL_REDUCE, CACORE_COLL_GATHER,
                              CACORE_COLL_SCATTER};

Matrix racked(int n, uint64_t seed)
{
    GenParams g;
    g.nodes = n;
    g.racks = std::max(1, n / 8);
    g.unevenness = 0.5;
    g.asymmetry = 0.2;
    g.seed = seed;
    return generate_matrix(g);
}

PlanInput input(const Matrix &m, cacore_coll_t op, int root, double bytes, std::vector<int> rank_node)
{
    PlanInput in;
    in.matrix = &m;
    in.coll = op;
    in.root = root;
    in.bytes = bytes;
    in.count = static_cast<size_t>(bytes);
    in.rank_node = std::move(rank_node);
    return in;
}

std::vector<int> identity(int n)
{
    std::vector<int> v(n);
    for (int i = 0; i < n; ++i) {
        v[i] = i;
    }
    return v;
}

// Draws trees and checks predict_fast == predict_plan, bit for bit; returns how many answered.
int check_equal(const PlanInput &in, int trees, uint64_t seed)
{
    Layout lay(in, HierParams{});
    CostParams c;
    RandomTrees rt(in, lay, c);
    ck_assert(rt.fast_applies());
    std::mt19937_64 rng(seed);
    Tree t;
    int answered = 0;
    for (int i = 0; i < trees; ++i) {
        rt.draw(rng, t);
        const double slow = rt.predict_plan(t);
        auto fast = rt.predict_fast(t);
        if (fast) {
            ++answered;
            ck_assert_msg(*fast == slow, "%s, %zu ranks, root %d, tree %d: fast %.17g, plan %.17g",
                          coll_name(in.coll), in.rank_node.size(), in.root, i, *fast, slow);
        }
        ck_assert(rt.predict(t) == slow);
    }
    return answered;
}

}  // namespace

// A hand-made chain 0 -> 1 -> 2: the broadcast takes the two links one after the other, the
// reduction the same links backwards plus a copy and a reduction per fold at nodes 1 and 0.
START_TEST(chain_by_hand)
{
    const double L[3][3] = {{0, 1e-4, 9}, {2e-4, 0, 3e-4}, {9, 4e-4, 0}};
    const double B[3][3] = {{0, 1e9, 1}, {2e9, 0, 5e8}, {1, 4e8, 0}};
    std::vector<double> l, b;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            l.push_back(L[i][j]);
            b.push_back(B[i][j]);
        }
    }
    Matrix m({"a", "b", "c"}, l, b);
    const double D = 1e6;
    Tree t(3);
    t.root = 0;
    t.link(1, 0);
    t.link(2, 1);
    CostParams c;
    {
        PlanInput in = input(m, CACORE_COLL_BCAST, 0, D, identity(3));
        Layout lay(in, HierParams{});
        RandomTrees rt(in, lay, c);
        const double want = (1e-4 + D / 1e9) + (3e-4 + D / 5e8);
        ck_assert_double_eq_tol(*rt.predict_fast(t), want, 1e-15);
        ck_assert(*rt.predict_fast(t) == rt.predict_plan(t));
    }
    {
        PlanInput in = input(m, CACORE_COLL_REDUCE, 0, D, identity(3));
        Layout lay(in, HierParams{});
        RandomTrees rt(in, lay, c);
        const double fold = D / c.copy_Bps + D / c.reduce_Bps;
        const double want = (4e-4 + D / 4e8) + fold + (2e-4 + D / 2e9) + fold;
        ck_assert_double_eq_tol(*rt.predict_fast(t), want, 1e-15);
        ck_assert(*rt.predict_fast(t) == rt.predict_plan(t));
    }
}
END_TEST

// Racked, uneven, asymmetric matrices; every op, several sizes and roots; ranks in node order and
// shuffled over the nodes (runs of consecutive ranks in a subtree then differ from node order).
START_TEST(fast_path_equals_plan_path)
{
    for (int n : {2, 3, 5, 17, 40, 97}) {
        Matrix m = racked(n, static_cast<uint64_t>(n));
        for (int layout = 0; layout < 2; ++layout) {
            std::vector<int> rn = identity(n);
            if (layout == 1) {
                std::mt19937_64 g(static_cast<uint64_t>(n) * 31);
                std::shuffle(rn.begin(), rn.end(), g);
            }
            for (cacore_coll_t op : kOps) {
                for (double bytes : {0.0, 1000.0, 1048576.0}) {
                    const int root = (7 * n + 3) % n;
                    PlanInput in = input(m, op, root, bytes, rn);
                    const int trees = n > 50 ? 8 : 20;
                    int answered = check_equal(in, trees, 11);
                    // generated matrices have no exact ties: the fast path always answers
                    ck_assert_msg(answered == trees, "%s n=%d: %d of %d on the fast path",
                                  coll_name(op), n, answered, trees);
                }
            }
        }
    }
}
END_TEST

// A uniform matrix makes arrival times tie; where the fast path cannot replay the simulation's
// order it declines, and predict() still equals the plan path.
START_TEST(uniform_matrix_ties)
{
    const int n = 24;
    std::vector<std::string> hosts;
    std::vector<double> l(n * n, 5e-5), b(n * n, 1.25e9);
    for (int i = 0; i < n; ++i) {
        hosts.push_back("h" + std::to_string(i));
    }
    Matrix m(hosts, l, b);
    for (cacore_coll_t op : kOps) {
        check_equal(input(m, op, 3, 65536, identity(n)), 30, 5);
    }
}
END_TEST

// Several ranks per node: the fast path does not apply; the Monte Carlo uses the plan path.
START_TEST(ranks_per_node_use_plan_path)
{
    Matrix m = racked(12, 3);
    std::vector<int> rn;
    for (int node = 0; node < 12; ++node) {
        rn.push_back(node);
        rn.push_back(node);
    }
    for (cacore_coll_t op : kOps) {
        PlanInput in = input(m, op, 5, 65536, rn);
        Layout lay(in, HierParams{});
        RandomTrees rt(in, lay, CostParams{});
        ck_assert(!rt.fast_applies());
        MonteCarloResult r = run_montecarlo(in, lay, CostParams{}, 20, 1);
        ck_assert_int_eq(r.fast, 0);
        ck_assert(r.best_s > 0 && r.best_s <= r.median_s);
    }
}
END_TEST

// run_montecarlo: best and median as the plan path gives them for the same trees.
START_TEST(montecarlo_best_and_median)
{
    Matrix m = racked(33, 9);
    for (cacore_coll_t op : kOps) {
        PlanInput in = input(m, op, 4, 1048576, identity(33));
        Layout lay(in, HierParams{});
        MonteCarloResult r = run_montecarlo(in, lay, CostParams{}, 101, 42);
        ck_assert_int_eq(r.trees, 101);
        ck_assert_int_eq(r.fast, 101);
        RandomTrees rt(in, lay, CostParams{});
        std::mt19937_64 rng(42);
        std::vector<double> times;
        Tree t;
        for (int i = 0; i < 101; ++i) {
            rt.draw(rng, t);
            times.push_back(rt.predict_plan(t));
        }
        std::sort(times.begin(), times.end());
        ck_assert(r.best_s == times.front());
        ck_assert(r.median_s == times[50]);
    }
}
END_TEST

int main()
{
    Suite *s = suite_create("montecarlo");
    TCase *tc = tcase_create("montecarlo");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, chain_by_hand);
    tcase_add_test(tc, fast_path_equals_plan_path);
    tcase_add_test(tc, uniform_matrix_ties);
    tcase_add_test(tc, ranks_per_node_use_plan_path);
    tcase_add_test(tc, montecarlo_best_and_median);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
