// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// rail_plan.cpp - the split-rail plan (rail_plan.hpp). Rails: S = the fewest ranks any node has
// (a power of two of it for rabenseifner inside nodes, 1 for flat). On every node its first S
// ranks carry one rail each; a node's other ranks fold their data into rank (index mod S) of
// their node before, and receive the result from it after, so every slice crosses the slow
// levels exactly once per direction whatever the ranks per node.
#include "rail_plan.hpp"

#include "error.hpp"
#include "names.hpp"
#include "slices.hpp"

#include <algorithm>
#include <sstream>

namespace cacore {

namespace {

// Local nodes ordered so that the nodes of every group of the hierarchy are consecutive (a ring
// over them crosses each slow level as few times as possible).
std::vector<int> node_order(const Layout &lay)
{
    const Hierarchy &h = lay.hier;
    std::vector<int> order(lay.ranks.size());
    for (size_t k = 0; k < order.size(); ++k) {
        order[k] = static_cast<int>(k);
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        for (int l = h.top(); l >= 1; --l) {
            if (h.group_of(l, a) != h.group_of(l, b)) {
                return h.group_of(l, a) < h.group_of(l, b);
            }
        }
        return a < b;
    });
    return order;
}

int node_kind(int pat)
{
    return pat == CACORE_PAT_FLAT || pat == CACORE_PAT_RABENSEIFNER ? pat : CACORE_PAT_RING;
}

int top_kind(cacore_coll_t c, int pat)
{
    if (c == CACORE_COLL_ALLGATHER) {
        return pat == CACORE_PAT_RECDBL || pat == CACORE_PAT_RABENSEIFNER ? CACORE_PAT_RECDBL
                                                                           : CACORE_PAT_RING;
    }
    return pat == CACORE_PAT_RECDBL || pat == CACORE_PAT_RABENSEIFNER ? pat : CACORE_PAT_RING;
}

std::string describe(int rails, int nk, int tk)
{
    std::ostringstream os;
    os << "rail rails=" << rails << " node=" << pattern_name(nk) << " top=" << pattern_name(tk);
    return os.str();
}

}  // namespace

Plan build_rail(const PlanInput &in, const Layout &lay, int node_pat, int top_pat)
{
    const cacore_coll_t c = in.coll;
    if (c != CACORE_COLL_ALLREDUCE && c != CACORE_COLL_ALLGATHER) {
        fail_arg(std::string("the rail algorithm does not implement ") + coll_name(c));
    }
    const int n = static_cast<int>(in.rank_node.size());
    const int nnodes = static_cast<int>(lay.ranks.size());
    int rmin = n;
    for (const auto &rk : lay.ranks) {
        rmin = std::min(rmin, static_cast<int>(rk.size()));
    }
    const int nk = node_kind(node_pat);
    int tk = top_kind(c, top_pat);
    int rails = nk == CACORE_PAT_FLAT ? 1 : rmin;
    const std::vector<int> order = node_order(lay);
    const Hierarchy &h = lay.hier;
    const std::vector<int> &loc = lay.local;
    const LevelFn lv = [&](int a, int b) { return h.distance(loc[a], loc[b]); };

    if (c == CACORE_COLL_ALLGATHER) {
        // One block per rank's part: held[r] = the parts r has in OUT.
        PlanBuilder b(c, 0, n, n);
        std::vector<int> cur(n, 0);
        SliceEmitter se(b, cur);
        std::vector<std::vector<int>> held(n);
        for (int r = 0; r < n; ++r) {
            b.copy(r, 0, 0, CACORE_BUF_OUT, CACORE_BUF_IN, r, 1);
            held[r] = {r};
        }
        for (const auto &rk : lay.ranks) {
            for (size_t i = static_cast<size_t>(rails); i < rk.size(); ++i) {
                const int e = rk[i], q = rk[i % static_cast<size_t>(rails)];
                se.give_parts(e, q, held[e], 0);
                held[q].push_back(e);
                std::sort(held[q].begin(), held[q].end());
            }
        }
        for (int j = 0; j < rails; ++j) {
            std::vector<int> members;
            for (int k : order) {
                members.push_back(lay.ranks[k][j]);
            }
            if (tk == CACORE_PAT_RING) {
                se.allgather_sets_ring(members, held, lv);
            } else {
                se.allgather_sets_doubling(members, held, lv);
            }
        }
        for (const auto &rk : lay.ranks) {
            const std::vector<int> part(rk.begin(), rk.begin() + rails);
            if (nk == CACORE_PAT_RABENSEIFNER) {
                se.allgather_sets_doubling(part, held, lv);
            } else {
                se.allgather_sets_ring(part, held, lv);
            }
            for (size_t i = static_cast<size_t>(rails); i < rk.size(); ++i) {
                const int e = rk[i], q = rk[i % static_cast<size_t>(rails)];
                std::vector<int> rest;
                for (int x : held[q]) {
                    if (x != e) {
                        rest.push_back(x);
                    }
                }
                se.give_parts(q, e, rest, 0);
                held[e] = held[q];
            }
        }
        return b.finish(total_bytes(in), CACORE_ALGO_RAIL, describe(rails, nk, tk));
    }

    // Allreduce: S slices of `need` blocks each; a ring over the nodes needs one block per node
    // of a slice, halving one per power-of-two participant. Too few elements: fewer rails, then
    // whole-slice recursive doubling.
    if (nk == CACORE_PAT_RABENSEIFNER) {
        rails = SliceEmitter::pow2_floor(rails);
    }
    auto need_of = [&](int kind) {
        return nnodes < 2 ? 1 : kind == CACORE_PAT_RING ? nnodes
                              : kind == CACORE_PAT_RABENSEIFNER ? SliceEmitter::pow2_floor(nnodes)
                                                                 : 1;
    };
    int need = need_of(tk);
    if (in.count > 0 && static_cast<size_t>(rails) * static_cast<size_t>(need) > in.count) {
        if (in.count < static_cast<size_t>(need)) {
            tk = CACORE_PAT_RECDBL;
            need = 1;
        }
        rails = std::max(1, static_cast<int>(std::min<size_t>(static_cast<size_t>(rails),
                                                              in.count / static_cast<size_t>(need))));
        if (nk == CACORE_PAT_RABENSEIFNER) {
            rails = SliceEmitter::pow2_floor(rails);
        }
    }
    const int nb = rails * need;
    PlanBuilder b(c, 0, n, nb);
    std::vector<int> cur(n, 0);
    SliceEmitter se(b, cur);
    const Block all{0, nb};
    for (int r = 0; r < n; ++r) {
        b.copy(r, 0, 0, CACORE_BUF_OUT, CACORE_BUF_IN, 0, nb);
    }
    // Node phase: fold the extra ranks in, reduce-scatter the slices over the rail ranks.
    const std::vector<Block> slices = SliceEmitter::pieces(all, rails);
    std::vector<std::vector<int>> carrier(nnodes, std::vector<int>(rails));  // [node][slice]
    for (int k = 0; k < nnodes; ++k) {
        const auto &rk = lay.ranks[k];
        for (size_t i = static_cast<size_t>(rails); i < rk.size(); ++i) {
            se.fold(rk[i], rk[i % static_cast<size_t>(rails)], all, 0);
        }
        const std::vector<int> part(rk.begin(), rk.begin() + rails);
        if (nk == CACORE_PAT_RABENSEIFNER) {
            se.reduce_scatter_halving(part, all, lv);
        } else {
            se.reduce_scatter_ring(part, all, lv);
        }
        for (int j = 0; j < rails; ++j) {
            // ring: participant i ends with piece i + 1; halving: with piece i
            carrier[k][j] = part[nk == CACORE_PAT_RABENSEIFNER ? j : (j + rails - 1) % rails];
        }
    }
    // Every rail allreduces its slice across the nodes, all rails at once.
    for (int j = 0; j < rails; ++j) {
        std::vector<int> members;
        for (int k : order) {
            members.push_back(carrier[k][j]);
        }
        if (tk == CACORE_PAT_RING) {
            se.reduce_scatter_ring(members, slices[j], lv);
            se.allgather_ring(members, slices[j], lv);
        } else if (tk == CACORE_PAT_RABENSEIFNER) {
            se.reduce_scatter_halving(members, slices[j], lv);
            se.allgather_doubling(members, slices[j], lv);
        } else {
            se.allreduce_recdbl(members, slices[j], lv);
        }
    }
    // Node phase back: allgather the slices, then the extra ranks take the result.
    for (int k = 0; k < nnodes; ++k) {
        const auto &rk = lay.ranks[k];
        const std::vector<int> part(rk.begin(), rk.begin() + rails);
        if (nk == CACORE_PAT_RABENSEIFNER) {
            se.allgather_doubling(part, all, lv);
        } else {
            se.allgather_ring(part, all, lv);
        }
        for (size_t i = static_cast<size_t>(rails); i < rk.size(); ++i) {
            se.give(rk[i % static_cast<size_t>(rails)], rk[i], all, 0);
        }
    }
    return b.finish(total_bytes(in), CACORE_ALGO_RAIL, describe(rails, nk, tk));
}

}  // namespace cacore
