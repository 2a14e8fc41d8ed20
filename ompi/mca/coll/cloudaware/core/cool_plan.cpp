// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// cool_plan.cpp - emission of the COOL level plan and of the Algorithm 4 tree plan.
#include "cool_plan.hpp"

#include "error.hpp"
#include "names.hpp"
#include "leaders.hpp"
#include "patterns.hpp"
#include "slices.hpp"
#include "tree.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>

namespace cacore {

namespace {

struct Phase {
    int level;
    std::vector<std::vector<int>> groups;         // participant ranks, leader first
    std::vector<std::vector<std::vector<int>>> resp;  // scatter: ranks below each participant
};

// Orders participants after the leader by link cost from (down) or to (up) the leader; a chain
// instead follows the nearest neighbour.
std::vector<int> order_members(const Layout &lay, std::vector<int> ranks, bool down, bool chain,
                               double bytes)
{
    if (ranks.size() < 3) {
        return ranks;
    }
    auto cost = [&](int a, int b) {  // a sends to b
        return lay.sub.cost(lay.local[a], lay.local[b], bytes);
    };
    if (chain) {
        std::vector<int> out{ranks[0]};
        std::vector<int> rest(ranks.begin() + 1, ranks.end());
        while (!rest.empty()) {
            int cur = out.back();
            size_t best = 0;
            for (size_t i = 1; i < rest.size(); ++i) {
                double ci = down ? cost(cur, rest[i]) : cost(rest[i], cur);
                double cb = down ? cost(cur, rest[best]) : cost(rest[best], cur);
                if (ci < cb) {
                    best = i;
                }
            }
            out.push_back(rest[best]);
            rest.erase(rest.begin() + static_cast<long>(best));
        }
        return out;
    }
    const int lead = ranks[0];
    std::stable_sort(ranks.begin() + 1, ranks.end(), [&](int a, int b) {
        return (down ? cost(lead, a) : cost(a, lead)) < (down ? cost(lead, b) : cost(b, lead));
    });
    return ranks;
}

std::vector<Phase> phases(const Layout &lay)
{
    const Hierarchy &h = lay.hier;
    auto leaders = leaders_for_root(h, lay.root_node);
    auto lead_rank = [&](int l, int g) { return lay.leader[leaders[l][g]]; };
    std::vector<Phase> out;
    Phase p0{0, {}, {}};
    for (size_t k = 0; k < lay.ranks.size(); ++k) {
        std::vector<int> g{lay.leader[k]};
        std::vector<std::vector<int>> rsp{{lay.leader[k]}};
        for (int r : lay.ranks[k]) {
            if (r != lay.leader[k]) {
                g.push_back(r);
                rsp.push_back({r});
            }
        }
        p0.groups.push_back(g);
        p0.resp.push_back(rsp);
    }
    out.push_back(p0);
    for (int l = 1; l < h.levels(); ++l) {
        Phase p{l, {}, {}};
        for (size_t gi = 0; gi < h.level(l).size(); ++gi) {
            const int g = static_cast<int>(gi);
            std::vector<int> members{lead_rank(l, g)};
            std::vector<std::vector<int>> rsp;
            int lead_child = h.group_of(l - 1, leaders[l][g]);
            rsp.push_back(lay.ranks_of_group(l - 1, lead_child));
            for (int c : h.group(l, g).children) {
                if (c != lead_child) {
                    members.push_back(lead_rank(l - 1, c));
                    rsp.push_back(lay.ranks_of_group(l - 1, c));
                }
            }
            p.groups.push_back(members);
            p.resp.push_back(rsp);
        }
        out.push_back(p);
    }
    return out;
}

LevelFn const_level(int l)
{
    return [l](int, int) { return l; };
}

Tree local_tree(int pat, int k)
{
    if (pat == CACORE_PAT_FLAT) {
        return flat_tree(k);
    }
    return binomial_tree(k);
}

void emit_down(Emitter &e, cacore_coll_t c, int pat, const std::vector<int> &ranks,
               const std::vector<std::vector<int>> &resp, const LevelFn &lv, int nsegs)
{
    const int k = static_cast<int>(ranks.size());
    if (c == CACORE_COLL_SCATTER) {
        e.scatter_tree(ranks, local_tree(pat, k), lv, resp, pat == CACORE_PAT_FLAT);
        return;
    }
    switch (pat) {
    case CACORE_PAT_FLAT: e.bcast_tree(ranks, flat_tree(k), lv, true); break;
    case CACORE_PAT_CHAIN:
    case CACORE_PAT_RING: e.bcast_pipelined(ranks, {chain_tree(k)}, lv, nsegs); break;
    case CACORE_PAT_DUALTREE: {
        if (k < 3) {
            e.bcast_pipelined(ranks, {chain_tree(k)}, lv, nsegs);
            break;
        }
        // Two in-order binary trees over the members; the second is the first shifted by one
        // position, so the inner nodes of one are leaves of the other (two-tree broadcast): every
        // member forwards in at most one tree, and the segments alternate between the trees.
        std::vector<int> a(k), b;
        std::iota(a.begin(), a.end(), 0);
        b.push_back(0);
        for (int i = 2; i < k; ++i) {
            b.push_back(i);
        }
        b.push_back(1);
        e.bcast_pipelined(ranks, {binary_tree(a), binary_tree(b)}, lv, nsegs);
        break;
    }
    default: e.bcast_tree(ranks, binomial_tree(k), lv, false);
    }
}

void emit_up(Emitter &e, cacore_coll_t c, int pat, const std::vector<int> &ranks, const LevelFn &lv,
             int nsegs)
{
    const int k = static_cast<int>(ranks.size());
    if (c == CACORE_COLL_GATHER || c == CACORE_COLL_ALLGATHER) {
        e.gather_tree(ranks, local_tree(pat, k), lv);
        return;
    }
    switch (pat) {
    case CACORE_PAT_FLAT: e.reduce_tree(ranks, flat_tree(k), lv); break;
    case CACORE_PAT_CHAIN:
    case CACORE_PAT_RING: e.reduce_pipelined(ranks, {chain_tree(k)}, lv, nsegs); break;
    case CACORE_PAT_DUALTREE: {
        std::vector<int> a(k);
        std::iota(a.begin(), a.end(), 0);
        e.reduce_pipelined(ranks, {binary_tree(a)}, lv, nsegs);
        break;
    }
    default: e.reduce_tree(ranks, binomial_tree(k), lv);
    }
}

bool pipelined(int pat) { return pat == CACORE_PAT_CHAIN || pat == CACORE_PAT_RING || pat == CACORE_PAT_DUALTREE; }

std::string describe(const char *algo, const Patterns &pat, int nsegs, bool any_pipe)
{
    std::ostringstream os;
    os << algo << " node=" << pattern_name(pat[0]) << " group=" << pattern_name(pat[1])
       << " top=" << pattern_name(pat[2]);
    if (any_pipe) {
        os << " segments=" << nsegs;
    }
    return os.str();
}

}  // namespace

int cool_nblocks(const PlanInput &in, const Layout &lay, const Patterns &pat, int nsegs)
{
    const int n = static_cast<int>(in.rank_node.size());
    if (is_gather_type(in.coll)) {
        return n;
    }
    int nb = std::max(1, nsegs);
    if (in.coll == CACORE_COLL_ALLREDUCE) {
        // the all-phase runs on the top level's participants
        int top = lay.hier.top();
        int p = top == 0 ? static_cast<int>(lay.ranks[0].size())
                         : static_cast<int>(lay.hier.group(top, 0).children.size());
        if (pat[std::min(top, 2)] == CACORE_PAT_RING && p > 1) {
            nb = ((nb + p - 1) / p) * p;
        }
        if (pat[std::min(top, 2)] == CACORE_PAT_RABENSEIFNER) {
            nb = std::max(nb, SliceEmitter::pow2_floor(p));
        }
    }
    if (in.count > 0) {
        nb = static_cast<int>(std::min<size_t>(static_cast<size_t>(nb), std::max<size_t>(in.count, 1)));
    }
    return std::max(1, nb);
}

Plan build_cool(const PlanInput &in, const Layout &lay, const Patterns &pat, int nsegs)
{
    const int n = static_cast<int>(in.rank_node.size());
    const cacore_coll_t c = in.coll;
    const int root = is_rooted(c) ? in.root : 0;
    const int nb = cool_nblocks(in, lay, pat, nsegs);
    PlanBuilder b(c, root, n, nb);
    Emitter e(b);
    auto ph = phases(lay);
    const int top = static_cast<int>(ph.size()) - 1;
    auto pat_of = [&](int l) { return pat[std::min(l, CACORE_PLAN_LEVELS - 1)]; };
    const bool down = c == CACORE_COLL_BCAST || c == CACORE_COLL_SCATTER;
    auto ordered = [&](const std::vector<int> &g, int p, bool dn) {
        return order_members(lay, g, dn, p == CACORE_PAT_CHAIN || p == CACORE_PAT_RING, in.bytes);
    };
    bool any_pipe = false;

    if (down) {
        for (int l = top; l >= 0; --l) {
            for (size_t gi = 0; gi < ph[l].groups.size(); ++gi) {
                const auto &g = ph[l].groups[gi];
                if (c == CACORE_COLL_SCATTER) {
                    // keep participants and their responsibilities aligned
                    emit_down(e, c, pat_of(l), g, ph[l].resp[gi], const_level(l), nsegs);
                } else {
                    emit_down(e, c, pat_of(l), ordered(g, pat_of(l), true), {}, const_level(l), nsegs);
                }
            }
            any_pipe |= pipelined(pat_of(l)) && c == CACORE_COLL_BCAST;
        }
    } else {
        const bool all = c == CACORE_COLL_ALLREDUCE || c == CACORE_COLL_ALLGATHER;
        const int last_up = all ? top - 1 : top;
        for (int l = 0; l <= last_up; ++l) {
            for (const auto &g : ph[l].groups) {
                emit_up(e, c, pat_of(l), ordered(g, pat_of(l), false), const_level(l), nsegs);
            }
            any_pipe |= pipelined(pat_of(l)) && c != CACORE_COLL_GATHER && c != CACORE_COLL_ALLGATHER;
        }
        if (all) {
            // The broadcast half of a chain runs down the reduce half's order, so that the two
            // halves of every pair run in opposite directions at once (docs/model.md); a chain
            // ordered for each half alone may send both halves the same way over some pairs.
            auto ordered_back = [&](const std::vector<int> &g, int p) {
                return ordered(g, p, p != CACORE_PAT_CHAIN);
            };
            const int tp = pat_of(top);
            const auto &g = ph[top].groups[0];
            const LevelFn lv = const_level(top);
            // a ring needs a block per participant; with fewer elements recursive doubling
            const bool ring_fits = nb >= static_cast<int>(g.size());
            // Rabenseifner needs a block per power-of-two participant, likewise
            const bool halving_fits = nb >= SliceEmitter::pow2_floor(static_cast<int>(g.size()));
            if (c == CACORE_COLL_ALLREDUCE &&
                (tp == CACORE_PAT_RECDBL || (tp == CACORE_PAT_RING && !ring_fits) ||
                 (tp == CACORE_PAT_RABENSEIFNER && !halving_fits))) {
                e.allreduce_recdbl(g, lv);
            } else if (c == CACORE_COLL_ALLREDUCE && tp == CACORE_PAT_RING) {
                e.allreduce_ring(g, lv);
            } else if (c == CACORE_COLL_ALLREDUCE && tp == CACORE_PAT_RABENSEIFNER) {
                e.allreduce_rabenseifner(g, lv);
            } else if (c == CACORE_COLL_ALLGATHER && tp == CACORE_PAT_RING) {
                e.allgather_ring(g, lv);
            } else if (c == CACORE_COLL_ALLGATHER &&
                       (tp == CACORE_PAT_RECDBL || tp == CACORE_PAT_RABENSEIFNER)) {
                e.allgather_recdbl(g, lv);
            } else {
                emit_up(e, c, tp, ordered(g, tp, false), lv, nsegs);
                emit_down(e, CACORE_COLL_BCAST, tp, ordered_back(g, tp), {}, lv, nsegs);
                any_pipe |= pipelined(tp);
            }
            for (int l = top - 1; l >= 0; --l) {
                for (const auto &gg : ph[l].groups) {
                    emit_down(e, CACORE_COLL_BCAST, pat_of(l), ordered_back(gg, pat_of(l)), {},
                              const_level(l), nsegs);
                }
                any_pipe |= pipelined(pat_of(l));
            }
        }
    }
    e.finalize();
    return b.finish(total_bytes(in), CACORE_ALGO_COOL, describe("cool", pat, nsegs, any_pipe));
}

Plan build_leader_tree_plan(const PlanInput &in, const Layout &lay, const Tree &t, int node_pat,
                            const LevelFn &lv, bool concurrent, cacore_algo_t algo,
                            const std::string &desc)
{
    const cacore_coll_t c = in.coll;
    if (!is_rooted(c)) {
        fail_arg(std::string("the tree plan does not implement ") + coll_name(c));
    }
    const int n = static_cast<int>(in.rank_node.size());
    PlanBuilder b(c, in.root, n, is_gather_type(c) ? n : 1);
    Emitter e(b);
    auto ph = phases(lay);
    std::vector<std::vector<int>> resp(lay.nodes.size());
    for (size_t k = 0; k < lay.nodes.size(); ++k) {
        resp[k] = lay.ranks[k];
    }
    auto node_phase = [&](bool dn) {
        for (size_t gi = 0; gi < ph[0].groups.size(); ++gi) {
            if (dn) {
                emit_down(e, c, node_pat, ph[0].groups[gi], ph[0].resp[gi], const_level(0), 1);
            } else {
                emit_up(e, c, node_pat, ph[0].groups[gi], const_level(0), 1);
            }
        }
    };
    if (c == CACORE_COLL_GATHER || c == CACORE_COLL_REDUCE) {
        node_phase(false);
        if (c == CACORE_COLL_GATHER) {
            e.gather_tree(lay.leader, t, lv);
        } else {
            e.reduce_tree(lay.leader, t, lv);
        }
    } else {
        if (c == CACORE_COLL_SCATTER) {
            e.scatter_tree(lay.leader, t, lv, resp, concurrent);
        } else {
            e.bcast_tree(lay.leader, t, lv, concurrent);
        }
        node_phase(true);
    }
    e.finalize();
    return b.finish(total_bytes(in), algo, desc);
}

Plan build_tree_plan(const PlanInput &in, const Layout &lay, int node_pat, bool flat_leaders)
{
    const bool up = in.coll == CACORE_COLL_GATHER || in.coll == CACORE_COLL_REDUCE;
    const Matrix &m = lay.sub;
    const double bytes = in.bytes;
    LinkFn link = [&](int child, int parent) {
        return up ? m.cost(child, parent, bytes) : m.cost(parent, child, bytes);
    };
    Tree t(static_cast<int>(lay.nodes.size()));
    t.root = lay.root_node;
    if (flat_leaders) {
        for (int v = 0; v < t.size(); ++v) {
            if (v != t.root) {
                t.link(v, t.root);
            }
        }
    } else {
        NodeTree nt = build_node_tree(lay.hier, lay.root_node, link);
        for (size_t v = 0; v < nt.children.size(); ++v) {
            for (int ch : nt.children[v]) {
                t.link(ch, static_cast<int>(v));
            }
        }
    }
    const Hierarchy &h = lay.hier;
    const std::vector<int> &loc = lay.local;
    LevelFn lv = [&](int a, int b2) { return h.distance(loc[a], loc[b2]); };
    std::string d = std::string(flat_leaders ? "linear over node leaders node=" : "tree (CMPI Alg. 4) node=") +
                    pattern_name(node_pat);
    return build_leader_tree_plan(in, lay, t, node_pat, lv, flat_leaders, CACORE_ALGO_TREE, d);
}

}  // namespace cacore
