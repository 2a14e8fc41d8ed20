// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// test_tree.cpp - CMPI Algorithm 4 internals: the split / merge adjustment of DOWN to |UP|, and
// the simulator catching broken plans (deadlock, wrong data, double reduction). C++ because
// these are internals the component never calls.
#include <check.h>

#include "test_util.h"

#include "patterns.hpp"
#include "plan.hpp"
#include "simulate.hpp"
#include "tree.hpp"

#include <algorithm>
#include <string>
#include <vector>

using namespace cacore;

namespace {

double unit_link(int, int) { return 1.0; }

SubTree singleton(int n) { return SubTree{{n}, {-1}}; }

std::vector<int> sizes_of(const std::vector<SubTree> &d)
{
    std::vector<int> s;
    for (const auto &t : d) {
        s.push_back(t.size());
    }
    std::sort(s.begin(), s.end());
    return s;
}

// every subtree is a valid tree and the nodes are exactly 0..n-1
void check_forest(const std::vector<SubTree> &d, int n)
{
    std::vector<int> all;
    for (const auto &t : d) {
        ck_assert_int_eq(t.par[0], -1);
        for (int i = 1; i < t.size(); ++i) {
            ck_assert_int_ge(t.par[i], 0);
            ck_assert_int_lt(t.par[i], i);
        }
        all.insert(all.end(), t.node.begin(), t.node.end());
    }
    std::sort(all.begin(), all.end());
    ck_assert_int_eq(static_cast<int>(all.size()), n);
    for (int i = 0; i < n; ++i) {
        ck_assert_int_eq(all[i], i);
    }
}

}  // namespace

// |UP| < |DOWN|: the two smallest merge until the counts match (5 singletons into 2: 2 + 3).
START_TEST(merge_two_smallest)
{
    std::vector<SubTree> down;
    for (int i = 0; i < 5; ++i) {
        down.push_back(singleton(i));
    }
    adjust_down(down, 2, unit_link);
    ck_assert_int_eq(static_cast<int>(down.size()), 2);
    ck_assert(sizes_of(down) == std::vector<int>({2, 3}));
    check_forest(down, 5);
}
END_TEST

// |UP| > |DOWN|: the largest splits (its root's biggest child subtree goes off on its own).
START_TEST(split_largest)
{
    // a binomial-shaped tree of 4: 0 -> {1, 2}, 2 -> 3
    SubTree t{{0, 1, 2, 3}, {-1, 0, 0, 2}};
    std::vector<SubTree> down{t, singleton(4)};
    adjust_down(down, 3, unit_link);
    ck_assert_int_eq(static_cast<int>(down.size()), 3);
    ck_assert(sizes_of(down) == std::vector<int>({1, 2, 2}));  // {0,1}, {2,3}, {4}
    check_forest(down, 5);
    adjust_down(down, 5, unit_link);
    ck_assert(sizes_of(down) == std::vector<int>({1, 1, 1, 1, 1}));
    // more UP than nodes: splitting stops at single nodes
    adjust_down(down, 9, unit_link);
    ck_assert_int_eq(static_cast<int>(down.size()), 5);
    check_forest(down, 5);
}
END_TEST

// The merged-under root is the one with the worse link to the other.
START_TEST(merge_direction_follows_links)
{
    std::vector<SubTree> down{singleton(0), singleton(1)};
    // 1 -> 0 is cheap, 0 -> 1 expensive: 1 becomes the child of 0
    adjust_down(down, 1, [](int c, int p) { return (c == 1 && p == 0) ? 1.0 : 5.0; });
    ck_assert_int_eq(static_cast<int>(down.size()), 1);
    ck_assert_int_eq(down[0].node[0], 0);
    std::vector<SubTree> d2{singleton(0), singleton(1)};
    adjust_down(d2, 1, [](int c, int p) { return (c == 0 && p == 1) ? 1.0 : 5.0; });
    ck_assert_int_eq(d2[0].node[0], 1);
}
END_TEST

// The simulator rejects broken plans with a precise message.
START_TEST(simulator_catches_errors)
{
    // deadlock: both ranks receive first
    {
        PlanBuilder b(CACORE_COLL_BCAST, 0, 2, 1);
        b.recv(0, 0, 0, CACORE_BUF_OUT, 1, 0, 1);
        b.recv(1, 0, 0, CACORE_BUF_OUT, 0, 0, 1);
        b.send(0, 1, 0, CACORE_BUF_OUT, 1, 0, 1);
        b.send(1, 1, 0, CACORE_BUF_OUT, 0, 0, 1);
        SimResult r = simulate(b.finish(8, CACORE_ALGO_COOL, "x"));
        ck_assert(!r.ok);
        ck_assert_msg(r.error.find("deadlock") != std::string::npos, "%s", r.error.c_str());
    }
    // missing data: rank 2 never receives
    {
        PlanBuilder b(CACORE_COLL_BCAST, 0, 3, 1);
        b.transfer(0, 0, CACORE_BUF_OUT, 1, 0, CACORE_BUF_OUT, 0, 0, 1);
        SimResult r = simulate(b.finish(8, CACORE_ALGO_COOL, "x"));
        ck_assert(!r.ok);
        ck_assert_msg(r.error.find("rank 2") != std::string::npos, "%s", r.error.c_str());
    }
    // a contribution reduced twice
    {
        PlanBuilder b(CACORE_COLL_REDUCE, 0, 2, 1);
        b.transfer(1, 0, CACORE_BUF_IN, 0, 0, CACORE_BUF_TMP0, 0, 0, 1);
        b.copy(0, 1, 0, CACORE_BUF_OUT, CACORE_BUF_IN, 0, 1);
        b.reduce(0, 1, 0, CACORE_BUF_OUT, CACORE_BUF_TMP0, false, 0, 1);
        b.reduce(0, 1, 0, CACORE_BUF_OUT, CACORE_BUF_TMP0, false, 0, 1);
        SimResult r = simulate(b.finish(8, CACORE_ALGO_COOL, "x"));
        ck_assert(!r.ok);
        ck_assert_msg(r.error.find("twice") != std::string::npos, "%s", r.error.c_str());
    }
    // the correct version, in order and out of order
    for (int src_first = 0; src_first < 2; ++src_first) {
        PlanBuilder b(CACORE_COLL_REDUCE, 0, 2, 1);
        b.transfer(1, 0, CACORE_BUF_IN, 0, 0, CACORE_BUF_TMP0, 0, 0, 1);
        b.copy(0, 1, 0, CACORE_BUF_OUT, CACORE_BUF_IN, 0, 1);
        b.reduce(0, 1, 0, CACORE_BUF_OUT, CACORE_BUF_TMP0, src_first != 0, 0, 1);
        SimResult r = simulate(b.finish(8, CACORE_ALGO_COOL, "x"));
        ck_assert_msg(r.ok, "%s", r.error.c_str());
        ck_assert_int_eq(r.ordered, src_first == 0);
    }
    // a send matched by a receive of a different size; a write to the user's input
    {
        PlanBuilder b(CACORE_COLL_BCAST, 0, 2, 2);
        b.send(0, 0, 0, CACORE_BUF_OUT, 1, 0, 2);
        b.recv(1, 0, 0, CACORE_BUF_OUT, 0, 0, 1);
        SimResult r = simulate(b.finish(8, CACORE_ALGO_COOL, "x"));
        ck_assert(!r.ok);
        ck_assert_msg(r.error.find("matches a send") != std::string::npos, "%s", r.error.c_str());
    }
    {
        PlanBuilder b(CACORE_COLL_ALLREDUCE, 0, 2, 1);
        b.transfer(1, 0, CACORE_BUF_IN, 0, 0, CACORE_BUF_IN, 0, 0, 1);
        SimResult r = simulate(b.finish(8, CACORE_ALGO_COOL, "x"));
        ck_assert(!r.ok);
        ck_assert_msg(r.error.find("input") != std::string::npos, "%s", r.error.c_str());
    }
}
END_TEST

int main()
{
    Suite *s = suite_create("tree");
    TCase *tc = tcase_create("tree");
    tcase_add_test(tc, merge_two_smallest);
    tcase_add_test(tc, split_largest);
    tcase_add_test(tc, merge_direction_follows_links);
    tcase_add_test(tc, simulator_catches_errors);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
