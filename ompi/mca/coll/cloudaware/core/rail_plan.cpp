// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// rail_plan.cpp - the split-rail plan (rail_plan.hpp), level by level: inside nodes, then every
// level of the hierarchy below the top, a unit (node or group) splits each piece it carries into
// S_l sub-pieces, S_l = the fewest children any unit of that level has (its largest power of two
// for rabenseifner, 1 for flat); the first S_l children carry one each, the others fold their
// data into child (index mod S_l) before and take the result from it after, so every piece
// crosses each slow level exactly once per direction however uneven the units are.
#include "rail_plan.hpp"

#include "error.hpp"
#include "names.hpp"
#include "slices.hpp"

#include <algorithm>
#include <iterator>
#include <sstream>

namespace cacore {

namespace {

// A direct reduce-scatter of p participants needs p - 1 temporary buffers of the whole vector:
// above this many participants an allreduce level or top asked for direct runs ring.
constexpr int kMaxDirectReduce = 8;

int allreduce_kind(int kind, int participants)
{
    return kind == CACORE_PAT_DIRECT && participants > kMaxDirectReduce ? CACORE_PAT_RING : kind;
}

int split_kind(cacore_coll_t c, int pat)
{
    return pat == CACORE_PAT_FLAT || pat == CACORE_PAT_RABENSEIFNER ||
                   (pat == CACORE_PAT_DIRECT && c != CACORE_COLL_BCAST)
               ? pat
               : CACORE_PAT_RING;
}

int top_kind(cacore_coll_t c, int pat)
{
    if (c == CACORE_COLL_BCAST) {
        return pat == CACORE_PAT_RING ? CACORE_PAT_RING : CACORE_PAT_BINOMIAL;
    }
    if (c == CACORE_COLL_ALLGATHER) {
        return pat == CACORE_PAT_RECDBL || pat == CACORE_PAT_RABENSEIFNER ? CACORE_PAT_RECDBL
               : pat == CACORE_PAT_DIRECT                                 ? CACORE_PAT_DIRECT
                                                                          : CACORE_PAT_RING;
    }
    return pat == CACORE_PAT_RECDBL || pat == CACORE_PAT_RABENSEIFNER || pat == CACORE_PAT_DIRECT
               ? pat
               : CACORE_PAT_RING;
}

// The units of the recursion: level 0 = the nodes (children: their ranks), level l >= 1 = the
// hierarchy's groups (children: groups of level l - 1). carrier[l][g][q] = the rank that carries
// piece (allreduce) or rail (allgather) q of unit g of level l; a rank is the unit of its own.
struct Rails {
    const Layout &lay;
    int top;                                   // the level of the one unit that is not split
    std::vector<int> kind;                     // split kind per level below top
    std::vector<int> split;                    // S_l per level below top
    std::vector<std::vector<std::vector<int>>> carrier;

    Rails(const Layout &l, cacore_coll_t c, const std::array<int, CACORE_PLAN_LEVELS> &pat)
        : lay(l), top(l.hier.top())
    {
        for (int lv = 0; lv < top; ++lv) {
            int k = split_kind(c, pat[std::min(lv, 1)]);
            int fewest = 1 << 30;
            for (int g = 0; g < ngroups(lv); ++g) {
                fewest = std::min(fewest, static_cast<int>(children(lv, g).size()));
            }
            if (c == CACORE_COLL_ALLREDUCE) {
                k = allreduce_kind(k, fewest);
            }
            kind.push_back(k);
            split.push_back(k == CACORE_PAT_FLAT ? 1
                            : k == CACORE_PAT_RABENSEIFNER ? SliceEmitter::pow2_floor(fewest)
                                                           : fewest);
        }
    }
    int ngroups(int l) const { return static_cast<int>(lay.hier.level(l).size()); }
    // Children of unit g of level l: ranks for level 0, groups of level l - 1 above.
    const std::vector<int> &children(int l, int g) const
    {
        return l == 0 ? lay.ranks[g] : lay.hier.group(l, g).children;
    }
    // The carriers of piece q in the children of unit g of level l.
    int child_carrier(int l, int g, size_t i, int q) const
    {
        const int c = children(l, g)[i];
        return l == 0 ? c : carrier[l - 1][c][q];
    }
    // The carriers of piece q in the first S_l children of unit g of level l (they split it).
    std::vector<int> carriers(int l, int g, int q) const
    {
        std::vector<int> mem;
        for (int s = 0; s < split[l]; ++s) {
            mem.push_back(child_carrier(l, g, static_cast<size_t>(s), q));
        }
        return mem;
    }
    // The carriers of piece q in every child of the top unit (they exchange it across the top).
    std::vector<int> top_members(int q) const
    {
        std::vector<int> mem;
        for (size_t i = 0; i < children(top, 0).size(); ++i) {
            mem.push_back(child_carrier(top, 0, i, q));
        }
        return mem;
    }
    int pieces_below(int l) const
    {
        int p = 1;
        for (int i = 0; i < l; ++i) {
            p *= split[i];
        }
        return p;
    }
    // Pieces of the whole range after the splits of levels below l.
    std::vector<Block> pieces(int l, int nb) const
    {
        std::vector<Block> cur{{0, nb}};
        for (int i = 0; i < l; ++i) {
            std::vector<Block> next;
            for (const Block &b : cur) {
                for (const Block &x : SliceEmitter::pieces(b, split[i])) {
                    next.push_back(x);
                }
            }
            cur = std::move(next);
        }
        return cur;
    }
};

std::string describe(const Rails &R, int tk, int nsegs = 1)
{
    std::ostringstream os;
    os << "rail";
    for (int l = 0; l < R.top; ++l) {
        os << (l == 0 ? " node=" : " group" + std::to_string(l) + "=") << pattern_name(R.kind[l])
           << ":" << R.split[l];
    }
    os << " top=" << pattern_name(tk);
    if (nsegs > 1) {
        os << " segments=" << nsegs;
    }
    return os.str();
}

// Segment t of m of a sorted set of blocks.
std::vector<int> segment_of(const std::vector<int> &set, int t, int m)
{
    const size_t s = set.size();
    return {set.begin() + static_cast<long>(s * t / m),
            set.begin() + static_cast<long>(s * (t + 1) / m)};
}

// Direct across the top and just below it (level L), pipelined in m segments from round r0:
// segment t of the parts every carrier carries goes to the other carriers of its unit and
// across its top rail in r0 + t, and each carrier hands what came across in segment t to the
// other carriers of its unit in r0 + t + 1. The unit's own parts take m rounds, not all r0:
// a round ends when its slowest transfer does, and a top behind a shared uplink ran its first
// segment as long as the whole unit exchange (racks-8, 1 MiB allgather: 2.51 s against a bound
// of 1.68; docs/benchmarks.md, twenty-second session). held[c]: the parts c carries to the top
// (sorted blocks); afterwards every carrier of a unit holds its unit's parts and all that crossed
// for the unit's rails.
void pipelined_top(const Rails &R, SliceEmitter &se, std::vector<std::vector<int>> &held,
                   std::vector<int> &cur, int m, const LevelFn &lv)
{
    const int L = R.top - 1, P = R.pieces_below(R.top);
    std::vector<std::vector<int>> tops, units;
    std::vector<int> all;
    for (int q = 0; q < P; ++q) {
        tops.push_back(R.top_members(q));
        all.insert(all.end(), tops.back().begin(), tops.back().end());
    }
    for (int g = 0; g < R.ngroups(L); ++g) {
        for (int q = 0; q < R.pieces_below(L); ++q) {
            units.push_back(R.carriers(L, g, q));
        }
    }
    const int r0 = se.base(all);
    const std::vector<std::vector<int>> carried = held;
    std::vector<std::vector<int>> came(held.size()), own(held.size());
    for (int t = 0;; ++t) {
        if (t > 0) {   // what crossed in segment t - 1 goes on inside the units
            for (const auto &u : units) {
                se.allgather_sets_direct(u, came, lv, r0 + t);
            }
            for (int c : all) {
                held[c] = set_union(held[c], came[c]);
            }
        }
        if (t == m) {
            break;
        }
        for (int c : all) {
            own[c] = segment_of(carried[c], t, m);
        }
        std::vector<std::vector<int>> mine = own;   // segment t of the unit's own parts
        for (const auto &u : units) {
            se.allgather_sets_direct(u, mine, lv, r0 + t);
        }
        for (int c : all) {
            held[c] = set_union(held[c], mine[c]);
        }
        for (const auto &mem : tops) {
            std::vector<std::vector<int>> seg = own;
            se.allgather_sets_direct(mem, seg, lv, r0 + t);
            for (int c : mem) {
                came[c].clear();
                std::set_difference(seg[c].begin(), seg[c].end(), own[c].begin(), own[c].end(),
                                    std::back_inserter(came[c]));
            }
        }
    }
    for (int c : all) {
        cur[c] = r0 + m + 1;
    }
}

// m blocks per rank's part: the segments of a pipelined top (pipelined_top; 1 = none).
Plan rail_allgather(const PlanInput &in, Rails &R, int tk, const LevelFn &lv, int m)
{
    // Direct just below the top: the carriers of a unit exchange the parts they carry up while
    // those cross the top (in the round the top starts), and after the top only what came across;
    // direct across the top as well: pipelined in m segments (pipelined_top), else m = 1.
    const int L = R.top - 1;
    const bool early = L >= 0 && R.kind[L] == CACORE_PAT_DIRECT;
    if (!early || tk != CACORE_PAT_DIRECT) {
        m = 1;
    }
    const bool piped = m > 1;
    const int n = static_cast<int>(in.rank_node.size());
    PlanBuilder b(in.coll, 0, n, n * m);   // held[r]: the blocks r has in OUT
    std::vector<int> cur(n, 0);
    SliceEmitter se(b, cur);
    std::vector<std::vector<int>> held(n);
    for (int r = 0; r < n; ++r) {
        b.copy(r, 0, 0, CACORE_BUF_OUT, CACORE_BUF_IN, r * m, m);
        for (int i = 0; i < m; ++i) {
            held[r].push_back(r * m + i);
        }
    }
    auto hand_over = [&](int from, int to) {   // `to` takes from's parts and carries them on
        se.give_parts(from, to, held[from], lv(from, to));
        held[to] = set_union(held[to], held[from]);
    };
    // Up: the children past S_l hand their rails' parts to child (index mod S_l).
    R.carrier.assign(R.top, {});
    for (int l = 0; l < R.top; ++l) {
        const int S = R.split[l], P = R.pieces_below(l);
        R.carrier[l].assign(R.ngroups(l), std::vector<int>(static_cast<size_t>(P) * S));
        for (int g = 0; g < R.ngroups(l); ++g) {
            const size_t nc = R.children(l, g).size();
            for (size_t i = static_cast<size_t>(S); i < nc; ++i) {
                for (int q = 0; q < P; ++q) {
                    hand_over(R.child_carrier(l, g, i, q), R.child_carrier(l, g, i % S, q));
                }
            }
            for (int q = 0; q < P; ++q) {
                for (int s = 0; s < S; ++s) {
                    R.carrier[l][g][q * S + s] = R.child_carrier(l, g, static_cast<size_t>(s), q);
                }
            }
        }
    }
    if (piped) {
        pipelined_top(R, se, held, cur, m, lv);
    } else {
        std::vector<std::vector<int>> carried;
        std::vector<int> early_round;
        if (early) {
            carried = held;
            for (int g = 0; g < R.ngroups(L); ++g) {
                for (int q = 0; q < R.pieces_below(L); ++q) {
                    early_round.push_back(se.base(R.carriers(L, g, q)));
                }
            }
        }
        // Top: every rail allgathers across the top unit's children.
        const int P = R.pieces_below(R.top);
        for (int q = 0; q < P; ++q) {
            const std::vector<int> members = R.top_members(q);
            if (tk == CACORE_PAT_RING) {
                se.allgather_sets_ring(members, held, lv);
            } else if (tk == CACORE_PAT_DIRECT) {
                se.allgather_sets_direct(members, held, lv);
            } else {
                se.allgather_sets_doubling(members, held, lv);
            }
        }
        if (early) {
            size_t k = 0;
            for (int g = 0; g < R.ngroups(L); ++g) {
                for (int q = 0; q < R.pieces_below(L); ++q) {
                    const std::vector<int> members = R.carriers(L, g, q);
                    se.allgather_sets_direct(members, carried, lv, early_round[k++]);
                    for (int r : members) {
                        held[r] = set_union(held[r], carried[r]);
                    }
                }
            }
        }
    }
    // Down: the S_l carriers of a rail allgather what their sub-rails brought; the others take it.
    for (int l = R.top - 1; l >= 0; --l) {
        const int S = R.split[l], Pl = R.pieces_below(l);
        for (int g = 0; g < R.ngroups(l); ++g) {
            const size_t nc = R.children(l, g).size();
            for (int q = 0; q < Pl; ++q) {
                const std::vector<int> members = R.carriers(l, g, q);
                if (piped && l == L) {
                    // exchanged by pipelined_top
                } else if (R.kind[l] == CACORE_PAT_RABENSEIFNER) {
                    se.allgather_sets_doubling(members, held, lv);
                } else if (R.kind[l] == CACORE_PAT_DIRECT) {
                    se.allgather_sets_direct(members, held, lv);
                } else {
                    se.allgather_sets_ring(members, held, lv);
                }
                for (size_t i = static_cast<size_t>(S); i < nc; ++i) {
                    const int e = R.child_carrier(l, g, i, q), p = R.child_carrier(l, g, i % S, q);
                    std::vector<int> missing;
                    std::set_difference(held[p].begin(), held[p].end(), held[e].begin(),
                                        held[e].end(), std::back_inserter(missing));
                    se.give_parts(p, e, missing, lv(p, e));
                    held[e] = held[p];
                }
            }
        }
    }
    return b.finish(total_bytes(in), CACORE_ALGO_RAIL, describe(R, tk, m));
}

// The way down of the allreduce and the bcast: per level from the top, the allgathers inside every
// unit, then the children past S_l take the result from the child they folded into (`except`, a
// rank that already has everything, is left out; -1: none).
void rails_down(const Rails &R, SliceEmitter &se, int nb, const LevelFn &lv, int except)
{
    for (int l = R.top - 1; l >= 0; --l) {
        const int S = R.split[l], P = R.pieces_below(l);
        const std::vector<Block> pcs = R.pieces(l, nb);
        for (int g = 0; g < R.ngroups(l); ++g) {
            const size_t nc = R.children(l, g).size();
            for (int q = 0; q < P; ++q) {
                const std::vector<int> members = R.carriers(l, g, q);
                if (R.kind[l] == CACORE_PAT_RABENSEIFNER) {
                    se.allgather_doubling(members, pcs[q], lv);
                } else if (R.kind[l] == CACORE_PAT_DIRECT) {
                    se.allgather_direct(members, pcs[q], lv);
                } else {
                    se.allgather_ring(members, pcs[q], lv);
                }
                for (size_t i = static_cast<size_t>(S); i < nc; ++i) {
                    const int e = R.child_carrier(l, g, i, q), p = R.child_carrier(l, g, i % S, q);
                    if (e != except) {
                        se.give(p, e, pcs[q], lv(p, e));
                    }
                }
            }
        }
    }
}

Plan rail_allreduce(const PlanInput &in, Rails &R, int tk, const LevelFn &lv)
{
    const int n = static_cast<int>(in.rank_node.size());
    const int m_top = static_cast<int>(R.children(R.top, 0).size());
    tk = allreduce_kind(tk, m_top);
    auto need_of = [&](int kind) {
        return m_top < 2 ? 1 : kind == CACORE_PAT_RING || kind == CACORE_PAT_DIRECT ? m_top
                             : kind == CACORE_PAT_RABENSEIFNER ? SliceEmitter::pow2_floor(m_top)
                                                                : 1;
    };
    // Too few elements for a block per piece: whole-piece recursive doubling on top, then fewer
    // splits from the top level down.
    int need = need_of(tk);
    const size_t cnt = in.count > 0 ? in.count : static_cast<size_t>(-1);
    if (static_cast<size_t>(R.pieces_below(R.top)) * static_cast<size_t>(need) > cnt) {
        tk = CACORE_PAT_RECDBL;
        need = 1;
    }
    for (int l = R.top - 1; l >= 0 && static_cast<size_t>(R.pieces_below(R.top)) > cnt; --l) {
        R.split[l] = 1;
    }
    const int nb = R.pieces_below(R.top) * need;
    PlanBuilder b(in.coll, 0, n, nb);
    std::vector<int> cur(n, 0);
    SliceEmitter se(b, cur);
    for (int r = 0; r < n; ++r) {
        b.copy(r, 0, 0, CACORE_BUF_OUT, CACORE_BUF_IN, 0, nb);
    }
    // Up: the children past S_l fold their pieces into child (index mod S_l); the first S_l
    // reduce-scatter every piece into S_l sub-pieces (ring: participant i ends with sub-piece
    // i + 1, halving and direct: with sub-piece i).
    R.carrier.assign(R.top, {});
    for (int l = 0; l < R.top; ++l) {
        const int S = R.split[l], P = R.pieces_below(l);
        const std::vector<Block> pcs = R.pieces(l, nb);
        R.carrier[l].assign(R.ngroups(l), std::vector<int>(static_cast<size_t>(P) * S));
        for (int g = 0; g < R.ngroups(l); ++g) {
            const size_t nc = R.children(l, g).size();
            for (int q = 0; q < P; ++q) {
                for (size_t i = static_cast<size_t>(S); i < nc; ++i) {
                    const int e = R.child_carrier(l, g, i, q), p = R.child_carrier(l, g, i % S, q);
                    se.fold(e, p, pcs[q], lv(e, p));
                }
                const std::vector<int> members = R.carriers(l, g, q);
                const bool ring = R.kind[l] != CACORE_PAT_RABENSEIFNER &&
                                  R.kind[l] != CACORE_PAT_DIRECT;
                if (R.kind[l] == CACORE_PAT_RABENSEIFNER) {
                    se.reduce_scatter_halving(members, pcs[q], lv);
                } else if (R.kind[l] == CACORE_PAT_DIRECT) {
                    se.reduce_scatter_direct(members, pcs[q], lv);
                } else {
                    se.reduce_scatter_ring(members, pcs[q], lv);
                }
                for (int s = 0; s < S; ++s) {
                    R.carrier[l][g][q * S + s] = members[ring ? (s + S - 1) % S : s];
                }
            }
        }
    }
    // Top: every piece is allreduced across the top unit's children, all pieces at once.
    {
        const std::vector<Block> pcs = R.pieces(R.top, nb);
        for (size_t q = 0; q < pcs.size(); ++q) {
            const std::vector<int> members = R.top_members(static_cast<int>(q));
            if (tk == CACORE_PAT_RING) {
                se.reduce_scatter_ring(members, pcs[q], lv);
                se.allgather_ring(members, pcs[q], lv);
            } else if (tk == CACORE_PAT_RABENSEIFNER) {
                se.reduce_scatter_halving(members, pcs[q], lv);
                se.allgather_doubling(members, pcs[q], lv);
            } else if (tk == CACORE_PAT_DIRECT) {
                se.reduce_scatter_direct(members, pcs[q], lv);
                se.allgather_direct(members, pcs[q], lv);
            } else {
                se.allreduce_recdbl(members, pcs[q], lv);
            }
        }
    }
    // Down: the inverse allgathers, then the children past S_l take the result.
    rails_down(R, se, nb, lv, -1);
    return b.finish(total_bytes(in), CACORE_ALGO_RAIL, describe(R, tk));
}

// Broadcast: the inverse of the allreduce's second half. Along the root's path (its node, its
// group, ...) every level's holder of a piece hands the sub-pieces to their carriers (a scatter);
// every top piece goes from the root side's carrier to the other top children's carriers
// (scatter + ring allgather for ring, else a binomial tree); then the allgathers down every
// unit as in the allreduce (the holders on the root's path receive parts they already have).
Plan rail_bcast(const PlanInput &in, Rails &R, int tk, const LevelFn &lv)
{
    const int n = static_cast<int>(in.rank_node.size());
    const int root = in.root;
    const int m_top = static_cast<int>(R.children(R.top, 0).size());
    int need = tk == CACORE_PAT_RING && m_top > 1 ? m_top : 1;
    const size_t cnt = in.count > 0 ? in.count : static_cast<size_t>(-1);
    if (static_cast<size_t>(R.pieces_below(R.top)) * static_cast<size_t>(need) > cnt) {
        tk = CACORE_PAT_BINOMIAL;
        need = 1;
    }
    for (int l = R.top - 1; l >= 0 && static_cast<size_t>(R.pieces_below(R.top)) > cnt; --l) {
        R.split[l] = 1;
    }
    const int nb = R.pieces_below(R.top) * need;
    PlanBuilder b(in.coll, root, n, nb);
    std::vector<int> cur(n, 0);
    SliceEmitter se(b, cur);
    // The unit of every level on the root's path, and the root side's child index in it.
    const Hierarchy &h = R.lay.hier;
    const int root_node = R.lay.local[root];
    auto path = [&](int l) { return l == 0 ? root_node : h.group_of(l, root_node); };
    auto side = [&](int l) {
        const auto &ch = R.children(l, path(l));
        const int want = l == 0 ? root : path(l - 1);
        return static_cast<int>(std::find(ch.begin(), ch.end(), want) - ch.begin());
    };
    std::vector<int> holder{root};   // holder[q]: the rank with the whole piece q of this level
    R.carrier.assign(R.top, {});
    for (int l = 0; l < R.top; ++l) {
        const int S = R.split[l], P = R.pieces_below(l);
        const std::vector<Block> pcs = R.pieces(l, nb);
        R.carrier[l].assign(R.ngroups(l), std::vector<int>(static_cast<size_t>(P) * S));
        for (int g = 0; g < R.ngroups(l); ++g) {
            for (int q = 0; q < P; ++q) {
                for (int s = 0; s < S; ++s) {
                    const int owner = R.kind[l] == CACORE_PAT_RABENSEIFNER ? s : (s + S - 1) % S;
                    R.carrier[l][g][q * S + s] =
                        R.child_carrier(l, g, static_cast<size_t>(owner), q);
                }
            }
        }
        std::vector<int> next(static_cast<size_t>(P) * S);
        for (int q = 0; q < P; ++q) {
            const std::vector<Block> sub = SliceEmitter::pieces(pcs[q], S);
            for (int s = 0; s < S; ++s) {
                const int to = R.carrier[l][path(l)][q * S + s];
                if (to != holder[q]) {
                    se.give(holder[q], to, sub[s], lv(holder[q], to));
                }
                next[q * S + s] = to;
            }
        }
        holder = std::move(next);
    }
    {
        const std::vector<Block> pcs = R.pieces(R.top, nb);
        const int src = side(R.top);
        for (size_t q = 0; q < pcs.size(); ++q) {
            // members[src] is holder[q]: the root side's carrier of piece q
            const std::vector<int> members = R.top_members(static_cast<int>(q));
            if (tk == CACORE_PAT_RING) {
                se.bcast_scatter_ring(members, src, pcs[q], lv);
            } else {
                se.bcast_binomial(members, src, pcs[q], lv);
            }
        }
    }
    rails_down(R, se, nb, lv, root);
    return b.finish(total_bytes(in), CACORE_ALGO_RAIL, describe(R, tk));
}

}  // namespace

Plan build_rail(const PlanInput &in, const Layout &lay,
                const std::array<int, CACORE_PLAN_LEVELS> &pat, int nsegs)
{
    const cacore_coll_t c = in.coll;
    if (c != CACORE_COLL_ALLREDUCE && c != CACORE_COLL_ALLGATHER && c != CACORE_COLL_BCAST) {
        fail_arg(std::string("the rail algorithm does not implement ") + coll_name(c));
    }
    Rails R(lay, c, pat);
    const Hierarchy &h = lay.hier;
    const std::vector<int> &loc = lay.local;
    const LevelFn lv = [&](int a, int b) { return h.distance(loc[a], loc[b]); };
    const int tk = top_kind(c, pat[CACORE_PLAN_LEVELS - 1]);
    if (c == CACORE_COLL_BCAST) {
        return rail_bcast(in, R, tk, lv);
    }
    return c == CACORE_COLL_ALLGATHER ? rail_allgather(in, R, tk, lv, std::max(1, nsegs))
                                      : rail_allreduce(in, R, tk, lv);
}

}  // namespace cacore
