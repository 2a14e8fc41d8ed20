// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// patterns.hpp - communication patterns over a list of ranks, emitted as plan steps. One Emitter
// carries the data state of a whole plan (where each rank's partial result or parts are), so
// phases compose: node phase, group phases, top phase, and back down.
#ifndef CACORE_PATTERNS_HPP
#define CACORE_PATTERNS_HPP

#include "plan.hpp"

#include <functional>
#include <utility>
#include <vector>

namespace cacore {

// A rooted tree over local indices 0..k-1; children in the order they are served.
struct Tree {
    int root = 0;
    std::vector<int> parent;
    std::vector<std::vector<int>> children;
    explicit Tree(int k = 0) : parent(k, -1), children(k) {}
    int size() const { return static_cast<int>(parent.size()); }
    void link(int child, int par) { parent[child] = par; children[par].push_back(child); }
};

Tree flat_tree(int k);              // index 0 is the root
Tree binomial_tree(int k);          // index 0 is the root; biggest subtree served first
Tree chain_tree(int k);             // 0 -> 1 -> 2 ...
Tree binary_tree(const std::vector<int> &order);  // balanced binary tree over local indices

using Block = std::pair<int, int>;  // first block, count
std::vector<Block> segments(int nblocks, int nsegs);
// The union of two sorted sets of parts or blocks.
std::vector<int> set_union(const std::vector<int> &a, const std::vector<int> &b);

// level of the edge between two ranks (step.level)
using LevelFn = std::function<int(int, int)>;

class Emitter {
public:
    explicit Emitter(PlanBuilder &b);

    // All patterns take the participating ranks; ranks[0] is the pattern's root / leader.
    void bcast_tree(const std::vector<int> &ranks, const Tree &t, const LevelFn &lv, bool concurrent);
    void bcast_pipelined(const std::vector<int> &ranks, const std::vector<Tree> &trees,
                         const LevelFn &lv, int nsegs);  // several trees share the segments
    void reduce_tree(const std::vector<int> &ranks, const Tree &t, const LevelFn &lv);
    void reduce_pipelined(const std::vector<int> &ranks, const std::vector<Tree> &trees,
                          const LevelFn &lv, int nsegs);  // several trees share the segments
    void gather_tree(const std::vector<int> &ranks, const Tree &t, const LevelFn &lv);
    // resp[i]: ranks whose parts participant i must end up holding (its whole subtree below).
    // concurrent: a parent posts all its sends in one round (flat/linear: the network shares the
    // parent's link among them) instead of serving its children one after another.
    void scatter_tree(const std::vector<int> &ranks, const Tree &t, const LevelFn &lv,
                      const std::vector<std::vector<int>> &resp, bool concurrent = false);
    void allreduce_recdbl(const std::vector<int> &ranks, const LevelFn &lv);
    void allreduce_ring(const std::vector<int> &ranks, const LevelFn &lv);
    // Rabenseifner: reduce-scatter by recursive halving, allgather by recursive doubling (needs
    // a block per power-of-two participant).
    void allreduce_rabenseifner(const std::vector<int> &ranks, const LevelFn &lv);
    void allgather_ring(const std::vector<int> &ranks, const LevelFn &lv);
    void allgather_recdbl(const std::vector<int> &ranks, const LevelFn &lv);
    // Final local copies (the root's own part, an untouched partial, ...).
    void finalize();

    const std::vector<int> &held(int rank) const { return held_[rank]; }

private:
    // Round from which a pattern may place steps for these ranks: after everything placed so far.
    int base(const std::vector<int> &ranks) const;
    // Pipelined patterns are placed by data readiness instead, so that the levels of a COOL plan
    // overlap (segment j goes on to the next level as soon as it is complete here):
    // ready(r, first, n) = first round in which rank r may send blocks [first, first+n) (its
    // partial final, or the blocks received), never before its floor = the end of the last
    // non-pipelined pattern r took part in.
    int ready(int r, int first, int n);
    void set_ready(int r, int first, int n, int round);
    void bump_pipe(int rank, int round) { pipe_cursor_[rank] = std::max(pipe_cursor_[rank], round); }
    void received_whole(int r, int from);
    void bump(int rank, int round) { cursor_[rank] = std::max(cursor_[rank], round); }
    // reductions
    int acc(int r) const;
    int partial(int r) const { return acc_ready_[r] ? acc(r) : CACORE_BUF_IN; }
    int landing(int k) const;
    void ensure_acc(int r, int round, int level);
    void fold(int r, int round, int level, int src_buf, int from, int first, int n);
    // gather-type parts
    int hold(int r) const;
    void ensure_own(int r, int round, int level);
    void send_parts(int from, int rs, int to, int rr, int level, const std::vector<int> &parts,
                    int to_buf_override = -1);
    std::vector<Block> runs(const std::vector<int> &parts) const;

    PlanBuilder &b_;
    cacore_coll_t coll_;
    int n_, nb_, bpr_;
    std::vector<int> cursor_;              // end of the non-pipelined patterns per rank
    std::vector<int> pipe_cursor_;         // end of the pipelined ones
    std::vector<std::vector<int>> block_ready_;  // per rank and block, allocated on first use
    std::vector<int> landing_next_;        // reduce: next free landing slot of a pipelined level
    std::vector<bool> acc_ready_;
    std::vector<int> low_;                 // lowest rank in the partial (reduction order)
    std::vector<std::vector<int>> held_;   // gather/allgather/scatter: parts held, sorted
    std::vector<bool> own_copied_;
};

}  // namespace cacore
#endif
