// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// slices.cpp - reduce-scatter, allgather and allreduce over block ranges (slices.hpp).
#include "slices.hpp"

#include "error.hpp"

#include <algorithm>
#include <iterator>

namespace cacore {

namespace {

int mod(int x, int p) { return ((x % p) + p) % p; }

// The blocks of pieces [lo, hi).
Block span(const std::vector<Block> &pcs, int lo, int hi)
{
    return {pcs[lo].first, pcs[hi - 1].first + pcs[hi - 1].second - pcs[lo].first};
}

std::vector<Block> runs_of(const std::vector<int> &parts)
{
    std::vector<Block> out;
    for (size_t i = 0; i < parts.size();) {
        size_t j = i + 1;
        while (j < parts.size() && parts[j] == parts[j - 1] + 1) {
            ++j;
        }
        out.push_back({parts[i], static_cast<int>(j - i)});
        i = j;
    }
    return out;
}

}  // namespace

std::vector<Block> SliceEmitter::pieces(Block range, int p)
{
    if (range.second < p) {
        throw Error(CACORE_ERR_INTERNAL, "a reduce-scatter needs at least one block per participant");
    }
    std::vector<Block> out = segments(range.second, p);
    for (auto &b : out) {
        b.first += range.first;
    }
    return out;
}

int SliceEmitter::pow2_floor(int p)
{
    int p2 = 1;
    while (p2 * 2 <= p) {
        p2 *= 2;
    }
    return p2;
}

int SliceEmitter::base(const std::vector<int> &ranks) const
{
    int b = 0;
    for (int r : ranks) {
        b = std::max(b, cur_[r]);
    }
    return b;
}

void SliceEmitter::xfer(int from, int to, int round, int to_buf, Block range, int level)
{
    if (range.second > 0) {
        b_.transfer(from, round, CACORE_BUF_OUT, to, round, to_buf, level, range.first, range.second);
    }
}

void SliceEmitter::fold(int from, int to, Block range, int level)
{
    const int r = std::max(cur_[from], cur_[to]);
    xfer(from, to, r, CACORE_BUF_TMP0, range, level);
    b_.reduce(to, r + 1, level, CACORE_BUF_OUT, CACORE_BUF_TMP0, from < to, range.first, range.second);
    cur_[from] = cur_[to] = r + 1;
}

void SliceEmitter::give(int from, int to, Block range, int level)
{
    const int r = std::max(cur_[from], cur_[to]);
    xfer(from, to, r, CACORE_BUF_OUT, range, level);
    cur_[from] = cur_[to] = r + 1;
}

void SliceEmitter::reduce_scatter_ring(const std::vector<int> &ranks, Block range, const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    if (p < 2) {
        return;
    }
    const auto pcs = pieces(range, p);
    const int b0 = base(ranks);
    for (int k = 0; k < p - 1; ++k) {
        for (int i = 0; i < p; ++i) {
            const int a = ranks[i], nx = ranks[mod(i + 1, p)];
            xfer(a, nx, b0 + k, CACORE_BUF_TMP0, pcs[mod(i - k, p)], lv(a, nx));
        }
        for (int i = 0; i < p; ++i) {
            const int a = ranks[i], pv = ranks[mod(i - 1, p)];
            const Block &c = pcs[mod(i - k - 1, p)];
            b_.reduce(a, b0 + k + 1, lv(pv, a), CACORE_BUF_OUT, CACORE_BUF_TMP0, pv < a, c.first,
                      c.second);
        }
    }
    for (int r : ranks) {
        cur_[r] = b0 + p - 1;
    }
}

void SliceEmitter::reduce_scatter_direct(const std::vector<int> &ranks, Block range,
                                         const LevelFn &lv)
{
    direct(ranks, range, lv, true);
}

void SliceEmitter::allgather_direct(const std::vector<int> &ranks, Block range, const LevelFn &lv)
{
    direct(ranks, range, lv, false);
}

void SliceEmitter::direct(const std::vector<int> &ranks, Block range, const LevelFn &lv,
                          bool reduce)
{
    const int p = static_cast<int>(ranks.size());
    if (p < 2) {
        return;
    }
    const auto pcs = pieces(range, p);
    const int b0 = base(ranks);
    for (int i = 0; i < p; ++i) {
        for (int k = 1; k < p; ++k) {
            const int a = ranks[i], c = ranks[mod(i + k, p)];
            if (reduce) {
                xfer(c, a, b0, CACORE_BUF_TMP0 + k - 1, pcs[i], lv(c, a));
            } else {
                xfer(a, c, b0, CACORE_BUF_OUT, pcs[i], lv(a, c));
            }
        }
    }
    for (int i = 0; reduce && i < p; ++i) {
        for (int k = 1; k < p; ++k) {
            const int a = ranks[i], c = ranks[mod(i + k, p)];
            b_.reduce(a, b0 + 1, lv(c, a), CACORE_BUF_OUT, CACORE_BUF_TMP0 + k - 1, c < a,
                      pcs[i].first, pcs[i].second);
        }
    }
    for (int r : ranks) {
        cur_[r] = b0 + 1;
    }
}

void SliceEmitter::allgather_ring(const std::vector<int> &ranks, Block range, const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    if (p < 2) {
        return;
    }
    const auto pcs = pieces(range, p);
    const int b0 = base(ranks);
    for (int k = 0; k < p - 1; ++k) {
        for (int i = 0; i < p; ++i) {
            const int a = ranks[i], nx = ranks[mod(i + 1, p)];
            xfer(a, nx, b0 + k, CACORE_BUF_OUT, pcs[mod(i + 1 - k, p)], lv(a, nx));
        }
    }
    for (int r : ranks) {
        cur_[r] = b0 + p - 1;
    }
}

void SliceEmitter::reduce_scatter_halving(const std::vector<int> &ranks, Block range,
                                          const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    const int p2 = pow2_floor(p);
    for (int i = 0; i < p - p2; ++i) {
        fold(ranks[p2 + i], ranks[i], range, lv(ranks[p2 + i], ranks[i]));
    }
    if (p2 < 2) {
        return;
    }
    const auto pcs = pieces(range, p2);
    const std::vector<int> core(ranks.begin(), ranks.begin() + p2);
    int round = base(core);
    // Participant i's window of pieces is aligned to 2*mask; it keeps the half holding piece i.
    for (int mask = p2 / 2; mask >= 1; mask /= 2, ++round) {
        for (int i = 0; i < p2; ++i) {
            const int lo = i & ~(2 * mask - 1);
            const int give_lo = (i & mask) ? lo : lo + mask;
            const int a = ranks[i], c = ranks[i ^ mask];
            xfer(a, c, round, CACORE_BUF_TMP0, span(pcs, give_lo, give_lo + mask), lv(a, c));
        }
        for (int i = 0; i < p2; ++i) {
            const int lo = i & ~(2 * mask - 1);
            const int keep_lo = (i & mask) ? lo + mask : lo;
            const int a = ranks[i], c = ranks[i ^ mask];
            const Block k = span(pcs, keep_lo, keep_lo + mask);
            b_.reduce(a, round + 1, lv(c, a), CACORE_BUF_OUT, CACORE_BUF_TMP0, c < a, k.first,
                      k.second);
        }
    }
    for (int r : core) {
        cur_[r] = round;
    }
}

void SliceEmitter::allgather_doubling(const std::vector<int> &ranks, Block range, const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    const int p2 = pow2_floor(p);
    if (p2 >= 2) {
        const auto pcs = pieces(range, p2);
        const std::vector<int> core(ranks.begin(), ranks.begin() + p2);
        int round = base(core);
        for (int mask = 1; mask < p2; mask *= 2, ++round) {
            for (int i = 0; i < p2; ++i) {
                const int lo = i & ~(mask - 1);
                const int a = ranks[i], c = ranks[i ^ mask];
                xfer(a, c, round, CACORE_BUF_OUT, span(pcs, lo, lo + mask), lv(a, c));
            }
        }
        for (int r : core) {
            cur_[r] = round;
        }
    }
    for (int i = 0; i < p - p2; ++i) {
        give(ranks[i], ranks[p2 + i], range, lv(ranks[i], ranks[p2 + i]));
    }
}

void SliceEmitter::allreduce_recdbl(const std::vector<int> &ranks, Block range, const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    const int p2 = pow2_floor(p);
    for (int i = 0; i < p - p2; ++i) {
        fold(ranks[p2 + i], ranks[i], range, lv(ranks[p2 + i], ranks[i]));
    }
    if (p2 >= 2) {
        const std::vector<int> core(ranks.begin(), ranks.begin() + p2);
        int round = base(core);
        for (int mask = 1; mask < p2; mask *= 2, ++round) {
            for (int i = 0; i < p2; ++i) {
                const int a = ranks[i], c = ranks[i ^ mask];
                xfer(a, c, round, CACORE_BUF_TMP0, range, lv(a, c));
            }
            for (int i = 0; i < p2; ++i) {
                const int a = ranks[i], c = ranks[i ^ mask];
                b_.reduce(a, round + 1, lv(c, a), CACORE_BUF_OUT, CACORE_BUF_TMP0, c < a,
                          range.first, range.second);
            }
        }
        for (int r : core) {
            cur_[r] = round;
        }
    }
    for (int i = 0; i < p - p2; ++i) {
        give(ranks[i], ranks[p2 + i], range, lv(ranks[i], ranks[p2 + i]));
    }
}

void SliceEmitter::bcast_binomial(const std::vector<int> &ranks, int src, Block range,
                                  const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    const Tree t = binomial_tree(p);   // relative index; a parent's index is below its children's
    auto at = [&](int v) { return ranks[(src + v) % p]; };
    for (int v = 0; v < p; ++v) {
        for (int c : t.children[v]) {
            give(at(v), at(c), range, lv(at(v), at(c)));
        }
    }
}

void SliceEmitter::bcast_scatter_ring(const std::vector<int> &ranks, int src, Block range,
                                      const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    if (p < 2) {
        return;
    }
    const auto pcs = pieces(range, p);
    for (int i = 0; i < p; ++i) {
        if (i != src) {
            give(ranks[src], ranks[i], pcs[(i + 1) % p], lv(ranks[src], ranks[i]));
        }
    }
    allgather_ring(ranks, range, lv);
}

void SliceEmitter::give_parts(int from, int to, const std::vector<int> &parts, int level)
{
    const int r = std::max(cur_[from], cur_[to]);
    for (const Block &run : runs_of(parts)) {
        xfer(from, to, r, CACORE_BUF_OUT, run, level);
    }
    cur_[from] = cur_[to] = r + 1;
}

void SliceEmitter::allgather_sets_ring(const std::vector<int> &ranks,
                                       std::vector<std::vector<int>> &held, const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    if (p < 2) {
        return;
    }
    std::vector<std::vector<int>> orig(p);
    std::vector<int> all;
    for (int i = 0; i < p; ++i) {
        orig[i] = held[ranks[i]];
        all = set_union(all, orig[i]);
    }
    const int b0 = base(ranks);
    for (int k = 0; k < p - 1; ++k) {
        for (int i = 0; i < p; ++i) {
            const int a = ranks[i], nx = ranks[mod(i + 1, p)];
            for (const Block &run : runs_of(orig[mod(i - k, p)])) {
                xfer(a, nx, b0 + k, CACORE_BUF_OUT, run, lv(a, nx));
            }
        }
    }
    for (int r : ranks) {
        held[r] = all;
        cur_[r] = b0 + p - 1;
    }
}

void SliceEmitter::allgather_sets_doubling(const std::vector<int> &ranks,
                                           std::vector<std::vector<int>> &held, const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    const int p2 = pow2_floor(p);
    for (int i = 0; i < p - p2; ++i) {
        const int e = ranks[p2 + i], q = ranks[i];
        give_parts(e, q, held[e], lv(e, q));
        held[q] = set_union(held[q], held[e]);
    }
    if (p2 >= 2) {
        const std::vector<int> core(ranks.begin(), ranks.begin() + p2);
        int round = base(core);
        for (int mask = 1; mask < p2; mask *= 2, ++round) {
            std::vector<std::vector<int>> next(p2);
            for (int i = 0; i < p2; ++i) {
                const int a = ranks[i], c = ranks[i ^ mask];
                for (const Block &run : runs_of(held[a])) {
                    xfer(a, c, round, CACORE_BUF_OUT, run, lv(a, c));
                }
                next[i] = set_union(held[a], held[c]);
            }
            for (int i = 0; i < p2; ++i) {
                held[ranks[i]] = next[i];
            }
        }
        for (int r : core) {
            cur_[r] = round;
        }
    }
    for (int i = 0; i < p - p2; ++i) {
        const int e = ranks[p2 + i], q = ranks[i];
        std::vector<int> missing;
        std::set_difference(held[q].begin(), held[q].end(), held[e].begin(), held[e].end(),
                            std::back_inserter(missing));
        give_parts(q, e, missing, lv(q, e));
        held[e] = held[q];
    }
}

void SliceEmitter::allgather_sets_direct(const std::vector<int> &ranks,
                                         std::vector<std::vector<int>> &held, const LevelFn &lv,
                                         int at)
{
    const int p = static_cast<int>(ranks.size());
    if (p < 2) {
        return;
    }
    const int r = at >= 0 ? at : base(ranks);
    std::vector<int> all;
    for (int a : ranks) {
        all = set_union(all, held[a]);
    }
    for (int j = 0; j < p; ++j) {
        const int to = ranks[j];
        std::vector<std::vector<int>> from(p);   // the parts `to` lacks, by first holder
        std::vector<int> missing;
        std::set_difference(all.begin(), all.end(), held[to].begin(), held[to].end(),
                            std::back_inserter(missing));
        for (int x : missing) {
            for (int i = 0; i < p; ++i) {
                if (std::binary_search(held[ranks[i]].begin(), held[ranks[i]].end(), x)) {
                    from[i].push_back(x);
                    break;
                }
            }
        }
        for (int i = 0; i < p; ++i) {
            for (const Block &run : runs_of(from[i])) {
                xfer(ranks[i], to, r, CACORE_BUF_OUT, run, lv(ranks[i], to));
            }
        }
    }
    for (int a : ranks) {
        held[a] = all;
        if (at < 0) {
            cur_[a] = r + 1;
        }
    }
}

}  // namespace cacore
