// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// baselines.cpp - network-oblivious plans for comparison.
#include "baselines.hpp"

#include "error.hpp"
#include "names.hpp"
#include "patterns.hpp"

namespace cacore {

namespace {

std::vector<int> relative_order(int n, int root)
{
    std::vector<int> r(n);
    for (int i = 0; i < n; ++i) {
        r[i] = (root + i) % n;
    }
    return r;
}

LevelFn node_level(const PlanInput &in)
{
    const std::vector<int> *rn = &in.rank_node;
    return [rn](int a, int b) { return (*rn)[a] == (*rn)[b] ? 0 : 1; };
}

}  // namespace

bool ring_applies(cacore_coll_t c) { return !(c == CACORE_COLL_GATHER || c == CACORE_COLL_SCATTER); }

Plan build_binomial(const PlanInput &in)
{
    validate(in);
    const int n = static_cast<int>(in.rank_node.size());
    const cacore_coll_t c = in.coll;
    const int root = is_rooted(c) ? in.root : 0;
    PlanBuilder b(c, root, n, is_gather_type(c) ? n : 1);
    Emitter e(b);
    auto ranks = relative_order(n, root);
    Tree t = binomial_tree(n);
    LevelFn lv = node_level(in);
    switch (c) {
    case CACORE_COLL_BCAST: e.bcast_tree(ranks, t, lv, false); break;
    case CACORE_COLL_REDUCE: e.reduce_tree(ranks, t, lv); break;
    case CACORE_COLL_GATHER: e.gather_tree(ranks, t, lv); break;
    case CACORE_COLL_SCATTER: {
        std::vector<std::vector<int>> resp(n);
        for (int i = 0; i < n; ++i) {
            resp[i] = {ranks[i]};
        }
        e.scatter_tree(ranks, t, lv, resp);
        break;
    }
    case CACORE_COLL_ALLREDUCE:
        e.reduce_tree(ranks, t, lv);
        e.bcast_tree(ranks, t, lv, false);
        break;
    default:
        e.gather_tree(ranks, t, lv);
        e.bcast_tree(ranks, t, lv, false);
    }
    e.finalize();
    return b.finish(total_bytes(in), CACORE_ALGO_BINOMIAL, "binomial over ranks");
}

bool linear_applies(cacore_coll_t c) { return c == CACORE_COLL_GATHER || c == CACORE_COLL_SCATTER; }

Plan build_linear(const PlanInput &in)
{
    validate(in);
    const cacore_coll_t c = in.coll;
    if (!linear_applies(c)) {
        fail_arg(std::string("no linear baseline for ") + coll_name(c));
    }
    const int n = static_cast<int>(in.rank_node.size());
    PlanBuilder b(c, in.root, n, n);
    Emitter e(b);
    auto ranks = relative_order(n, in.root);
    Tree t = flat_tree(n);
    LevelFn lv = node_level(in);
    if (c == CACORE_COLL_GATHER) {
        e.gather_tree(ranks, t, lv);
    } else {
        std::vector<std::vector<int>> resp(n);
        for (int i = 0; i < n; ++i) {
            resp[i] = {ranks[i]};
        }
        e.scatter_tree(ranks, t, lv, resp, true);  // all sends at once, like tuned's linear_nb
    }
    e.finalize();
    return b.finish(total_bytes(in), CACORE_ALGO_LINEAR, "linear over ranks");
}

Plan build_ring(const PlanInput &in, int nsegs)
{
    validate(in);
    const cacore_coll_t c = in.coll;
    if (!ring_applies(c)) {
        fail_arg(std::string("no ring baseline for ") + coll_name(c));
    }
    const int n = static_cast<int>(in.rank_node.size());
    const int root = is_rooted(c) ? in.root : 0;
    int nb = 1;
    if (c == CACORE_COLL_ALLGATHER) {
        nb = n;
    } else if (c == CACORE_COLL_ALLREDUCE) {
        nb = n * std::max(1, nsegs / n);
    } else {
        nb = std::max(1, nsegs);
    }
    if (in.count > 0 && !is_gather_type(c) && static_cast<size_t>(nb) > in.count) {
        nb = static_cast<int>(std::max<size_t>(1, in.count));
    }
    PlanBuilder b(c, root, n, nb);
    Emitter e(b);
    auto ranks = relative_order(n, root);
    LevelFn lv = node_level(in);
    switch (c) {
    case CACORE_COLL_BCAST: e.bcast_pipelined(ranks, {chain_tree(n)}, lv, nb); break;
    case CACORE_COLL_REDUCE: {
        // the chain ends at the root: rank order root+1, ..., root-1 feeds into root
        e.reduce_pipelined(ranks, {chain_tree(n)}, lv, nb);
        break;
    }
    case CACORE_COLL_ALLREDUCE:
        if (nb >= n) {
            e.allreduce_ring(ranks, lv);
        } else {
            e.allreduce_recdbl(ranks, lv);
        }
        break;
    default: e.allgather_ring(ranks, lv);
    }
    e.finalize();
    return b.finish(total_bytes(in), CACORE_ALGO_RING, "ring over ranks");
}

}  // namespace cacore
