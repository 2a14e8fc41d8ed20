// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// slices.hpp - bandwidth-optimal building blocks over a range of blocks (docs/model.md,
// "Reduce-scatter + allgather"): reduce-scatter and allgather by ring (Patarasuk & Yuan) or by
// recursive halving / doubling (Rabenseifner 2004; Thakur, Rabenseifner & Gropp 2005), full
// recursive doubling, and allgather of part sets. Every rank's partial or result lives in OUT,
// received operands land in TMP0 at the same block offsets. Rounds: a transfer takes the same
// round number on both sides, the later of the two ranks' cursors, so the rounds form one global
// clock and no plan built from these can deadlock.
#ifndef CACORE_SLICES_HPP
#define CACORE_SLICES_HPP

#include "patterns.hpp"
#include "plan.hpp"

#include <vector>

namespace cacore {

class SliceEmitter {
public:
    // cursor[r]: the first round in which rank r is free; advanced by every call.
    SliceEmitter(PlanBuilder &b, std::vector<int> &cursor) : b_(b), cur_(cursor) {}

    // Pieces of a range for p participants (segments of it; the range must hold >= p blocks).
    static std::vector<Block> pieces(Block range, int p);
    static int pow2_floor(int p);

    // Reduce-scatter of `range` (every participant holds a partial of it in OUT). Ring: after it
    // participant i holds piece (i + 1) mod p reduced over all. Halving: the participants past
    // the largest power of two p2 first fold their range into participant i - p2; then
    // participant i < p2 holds piece i of p2 pieces, the others nothing.
    void reduce_scatter_ring(const std::vector<int> &ranks, Block range, const LevelFn &lv);
    void reduce_scatter_halving(const std::vector<int> &ranks, Block range, const LevelFn &lv);
    // Direct: every participant sends each other participant that one's piece, all in one round,
    // and participant i ends with piece i reduced over all (its p - 1 operands land in TMP0 ..
    // TMP0 + p - 2: p - 1 temporary buffers).
    void reduce_scatter_direct(const std::vector<int> &ranks, Block range, const LevelFn &lv);
    // The inverses: every participant ends with the whole range (direct: participant i sends
    // piece i to all others in one round).
    void allgather_direct(const std::vector<int> &ranks, Block range, const LevelFn &lv);
    void allgather_ring(const std::vector<int> &ranks, Block range, const LevelFn &lv);
    void allgather_doubling(const std::vector<int> &ranks, Block range, const LevelFn &lv);
    // Whole-range recursive doubling (latency-optimal: log p rounds of the whole range).
    void allreduce_recdbl(const std::vector<int> &ranks, Block range, const LevelFn &lv);

    // Broadcast of range from participant src: binomial tree (whole range per edge, biggest
    // subtree first), or scatter + ring allgather (van de Geijn: src hands participant i the
    // piece the ring allgather expects of it).
    void bcast_binomial(const std::vector<int> &ranks, int src, Block range, const LevelFn &lv);
    void bcast_scatter_ring(const std::vector<int> &ranks, int src, Block range, const LevelFn &lv);

    // `to` folds `from`'s partial of range into its own (one message, then one reduction).
    void fold(int from, int to, Block range, int level);
    // `to` takes `from`'s OUT blocks of range into its OUT.
    void give(int from, int to, Block range, int level);

    // Allgather of part sets (gather-type collectives, one block per part): participant i holds
    // the blocks held[ranks[i]] in OUT; after it every participant holds their union, and
    // held[] says so. Ring, or recursive doubling (extras folded in first, served last).
    void allgather_sets_ring(const std::vector<int> &ranks, std::vector<std::vector<int>> &held,
                             const LevelFn &lv);
    void allgather_sets_doubling(const std::vector<int> &ranks,
                                 std::vector<std::vector<int>> &held, const LevelFn &lv);
    // Direct: every participant receives each part it lacks from the first participant (in
    // `ranks` order) that holds it, all in one round: the first round all are free, or round
    // `at` >= 0 alongside whatever else runs then (the cursors are left as they are).
    void allgather_sets_direct(const std::vector<int> &ranks, std::vector<std::vector<int>> &held,
                               const LevelFn &lv, int at = -1);
    // `from` sends the blocks `parts` (OUT to OUT).
    void give_parts(int from, int to, const std::vector<int> &parts, int level);

    // The first round in which all of `ranks` are free.
    int base(const std::vector<int> &ranks) const;

private:
    // One round in which every participant i and each other exchange piece i: the others send
    // their partials of it to i (reduce: into TMP0 + k - 1, reduced into OUT the next round), or
    // i sends its piece to them.
    void direct(const std::vector<int> &ranks, Block range, const LevelFn &lv, bool reduce);
    void xfer(int from, int to, int round, int to_buf, Block range, int level);

    PlanBuilder &b_;
    std::vector<int> &cur_;
};

}  // namespace cacore
#endif
