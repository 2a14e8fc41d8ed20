// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// montecarlo.hpp - the Monte Carlo reference of the CMPI paper's Fig. 9: random recursive trees
// over the node leaders and their predicted completion times (docs/model-results.md).
//
// A random tree: every local node but the root's attaches, in a random order, to a node drawn
// uniformly from those already in the tree; children are served biggest subtree first. Its plan
// has the same node phase as the tree plan (binomial inside every node) and is not pipelined.
//
// Two ways to predict a tree, with the same result: the reference path builds the plan
// (Emitter) and runs the cost model's event simulation on it; the fast path (one rank per node)
// follows the tree and the matrix directly, in O(N log N) per tree and without allocating once
// its buffers have grown. test/unit/test_montecarlo.cpp checks that both give the same double.
#ifndef CACORE_MONTECARLO_HPP
#define CACORE_MONTECARLO_HPP

#include "cost_model.hpp"
#include "layout.hpp"
#include "patterns.hpp"
#include "plan.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace cacore {

class RandomTrees {
public:
    // in and lay must outlive this object; in.coll must be bcast, reduce, gather or scatter.
    RandomTrees(const PlanInput &in, const Layout &lay, const CostParams &c);

    // Draws the next tree over the local nodes, rooted at the root's node, into t (reusing its
    // storage); children sorted by decreasing subtree size (stable: attach order among equals).
    void draw(std::mt19937_64 &rng, Tree &t);

    // The reference path: the plan of tree t (t over local nodes, children in serving order).
    Plan plan(const Tree &t) const;
    double predict_plan(const Tree &t) const;

    // The fast path: one rank per node, at least two nodes, one send and one receive slot per
    // node (the default cost parameters).
    bool fast_applies() const { return fast_; }
    // predict_plan(t), computed from t and the matrix; nullopt where the fast path does not apply
    // or where two messages reach a node's receive port at exactly the same time in a way whose
    // order the fast path does not reproduce (then use predict_plan).
    std::optional<double> predict_fast(const Tree &t);

    // predict_fast where it answers, else predict_plan.
    double predict(const Tree &t);
    long fast_count() const { return fast_count_; }

private:
    struct Link {
        double latency_s, bandwidth_Bps;
    };
    // The link between two local nodes (a copy of the matrix's values: one cache line per pair).
    const Link &link(int from, int to) const { return links_.get()[static_cast<size_t>(from) * nlocal_ + to]; }
    struct Free {
        void operator()(void *p) const;
    };
    // Bytes of blocks [first, first + n): cost_model's block_bytes() from a table of its terms.
    double bytes_of(int first, int n) const { return floor_[first + n] - floor_[first]; }
    // Runs (maximal sets of consecutive ranks) of the ranks in local node c's subtree, ascending:
    // fills runs_ with (first rank, count).
    void subtree_runs(int c);

    const PlanInput &in_;
    const Layout &lay_;
    CostParams cost_;
    bool fast_ = false;
    long fast_count_ = 0;
    double total_ = 0;
    int nblocks_ = 1;
    std::vector<int> rank_;   // local node -> its rank (fast path: the only one)
    int nlocal_ = 0;
    std::unique_ptr<Link[], Free> links_;  // fast path: nlocal_ x nlocal_, row = sender
    std::vector<double> floor_;    // floor(i * total / nblocks), i = 0..nblocks
    std::vector<uint64_t> bits_;   // fast path: a set of ranks
    // buffers
    std::vector<int> perm_, in_tree_, pre_, pos_, sz_, sround_, kids_, stack_;
    std::vector<double> time_;
    std::vector<Link> edge_;  // per node: the link of its tree edge, in the data's direction
    std::vector<std::pair<int, int>> runs_;
    std::vector<std::pair<double, int>> ev_;
};

struct MonteCarloResult {
    long trees = 0;
    long fast = 0;  // trees predicted by the fast path
    double best_s = 0;
    double median_s = 0;  // the element at index trees/2 of the sorted times
};

// Draws `trees` random trees with std::mt19937_64(seed) and predicts each.
MonteCarloResult run_montecarlo(const PlanInput &in, const Layout &lay, const CostParams &c,
                                long trees, uint64_t seed);

}  // namespace cacore
#endif
