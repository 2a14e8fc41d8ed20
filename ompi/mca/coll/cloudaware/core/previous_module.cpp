// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// previous_module.cpp - the previous module's algorithm for a call, as a plan over ranks.
// The line numbers cited are those of Open MPI v4.1.4 (tag v4.1.4 of open-mpi/ompi).
#include "previous_module.hpp"

#include "baselines.hpp"
#include "error.hpp"
#include "patterns.hpp"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <utility>

namespace cacore {

namespace {

// tuned's rule rows: the first (limit, alg) whose limit exceeds bytes, else `last`.
int below(double bytes, std::initializer_list<std::pair<double, int>> rows, int last)
{
    for (const auto &r : rows) {
        if (bytes < r.first) {
            return r.second;
        }
    }
    return last;
}

int tuned_bcast(int n, double b)  // coll_tuned_decision_fixed.c:536-640
{
    if (n < 4) {
        return below(b, {{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5},
                         {262144, 2}, {524288, 1}, {1048576, 6}}, 5);
    }
    if (n < 8) {
        return below(b, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2);
    }
    if (n < 16) {
        return below(b, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1);
    }
    if (n < 32) {
        return below(b, {{4096, 7}, {1048576, 6}}, 8);
    }
    if (n < 64) {
        return below(b, {{2048, 6}}, 7);
    }
    if (n < 128) {
        return 7;
    }
    if (n < 256) {
        return below(b, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7);
    }
    if (n < 1024) {
        return below(b, {{16384, 7}, {32768, 4}}, 7);
    }
    if (n < 2048) {
        return below(b, {{524288, 7}}, 8);
    }
    if (n < 4096) {
        return below(b, {{262144, 7}}, 8);
    }
    return below(b, {{8192, 7}, {16384, 5}, {262144, 7}}, 8);
}

int tuned_reduce(int n, double b, bool commutative)  // coll_tuned_decision_fixed.c:697-815
{
    if (!commutative) {
        if (n < 4) {
            return below(b, {{8, 6}}, 1);
        }
        if (n < 8) {
            return 1;
        }
        if (n < 16) {
            return below(b, {{1024, 6}, {8192, 1}, {16384, 6}, {262144, 1}}, 6);
        }
        if (n < 128) {
            return 6;
        }
        if (n < 256) {
            return below(b, {{512, 6}, {1024, 1}}, 6);
        }
        return 6;
    }
    if (n < 4) {
        return below(b, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}}, 3);
    }
    if (n < 8) {
        return below(b, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}}, 1);
    }
    if (n < 16) {
        return below(b, {{8192, 4}}, 5);
    }
    if (n < 32) {
        return below(b, {{4096, 4}}, 5);
    }
    if (n < 256) {
        return 5;
    }
    if (n < 512) {
        return below(b, {{8192, 5}, {16384, 6}}, 5);
    }
    if (n < 2048) {
        return 5;
    }
    if (n < 4096) {
        return below(b, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}}, 5);
    }
    return below(b, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}}, 5);
}

int tuned_allreduce(int n, double b, bool commutative)  // coll_tuned_decision_fixed.c:80-218
{
    if (!commutative) {
        if (n < 4) {
            return below(b, {{131072, 3}}, 1);
        }
        if (n < 8) {
            return 3;
        }
        if (n < 16) {
            return below(b, {{1048576, 3}}, 2);
        }
        if (n < 128) {
            return 3;
        }
        if (n < 256) {
            return below(b, {{131072, 2}, {524288, 3}}, 2);
        }
        if (n < 512) {
            return below(b, {{4096, 2}, {524288, 3}}, 2);
        }
        return below(b, {{2048, 2}}, 3);
    }
    if (n < 4) {
        return below(b, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}}, 6);
    }
    if (n < 8) {
        return below(b, {{16, 4}, {8192, 3}}, 6);
    }
    if (n < 16) {
        return below(b, {{8192, 3}}, 6);
    }
    if (n < 32) {
        return below(b, {{64, 5}, {4096, 3}}, 6);
    }
    if (n < 64) {
        return below(b, {{128, 5}}, 6);
    }
    if (n < 128) {
        return below(b, {{262144, 3}}, 6);
    }
    if (n < 256) {
        return below(b, {{131072, 2}, {262144, 3}}, 6);
    }
    if (n < 512) {
        return below(b, {{4096, 2}}, 6);
    }
    if (n < 2048) {
        return below(b, {{2048, 2}, {16384, 3}}, 6);
    }
    if (n < 4096) {
        return below(b, {{2048, 2}, {4096, 5}, {16384, 3}}, 6);
    }
    return below(b, {{2048, 2}, {16384, 5}, {32768, 3}}, 6);
}

int tuned_allgather(int n, double b)  // coll_tuned_decision_fixed.c:1123-1226
{
    if (n == 2) {
        return 6;
    }
    if (n < 32) {
        return 3;
    }
    if (n < 64) {
        return below(b, {{1024, 3}, {65536, 5}}, 4);
    }
    if (n < 128) {
        return below(b, {{512, 3}, {65536, 5}}, 4);
    }
    if (n < 256) {
        return below(b, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4);
    }
    if (n < 512) {
        return below(b, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4);
    }
    if (n < 1024) {
        return below(b, {{64, 3}, {256, 2}, {2048, 3}}, 5);
    }
    if (n < 2048) {
        return below(b, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}}, 5);
    }
    if (n < 4096) {
        return below(b, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}}, 5);
    }
    return below(b, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}}, 5);
}

int tuned_gather(int n, double b)  // coll_tuned_decision_fixed.c:1417-1453
{
    if (n < 4) {
        return below(b, {{2, 3}, {4, 1}, {32768, 2}, {65536, 1}, {131072, 2}}, 3);
    }
    if (n < 8) {
        return below(b, {{1024, 2}, {8192, 1}, {32768, 2}, {262144, 1}}, 3);
    }
    if (n < 256) {
        return 2;
    }
    if (n < 512) {
        return below(b, {{2048, 2}, {8192, 1}}, 2);
    }
    return 2;
}

int tuned_scatter(int n, double b)  // coll_tuned_decision_fixed.c:1503-1555
{
    if (n < 4) {
        return below(b, {{2, 3}, {131072, 1}, {262144, 3}}, 1);
    }
    if (n < 8) {
        return below(b, {{2048, 2}, {4096, 1}, {8192, 2}, {32768, 1}, {1048576, 3}}, 1);
    }
    if (n < 16) {
        return below(b, {{16384, 2}, {1048576, 3}}, 1);
    }
    if (n < 32) {
        return below(b, {{16384, 2}, {32768, 1}}, 3);
    }
    if (n < 64) {
        return below(b, {{512, 2}, {8192, 3}, {16384, 2}}, 3);
    }
    return below(b, {{512, 2}}, 3);
}

// The algorithm tables of tuned (the comments "Algorithms:" in coll_tuned_decision_fixed.c).
const char *const kBcastAlgs[] = {"", "basic_linear", "chain", "pipeline", "split_binary_tree",
                                  "binary_tree", "binomial", "knomial", "scatter_allgather",
                                  "scatter_allgather_ring"};
const char *const kReduceAlgs[] = {"", "linear", "chain", "pipeline", "binary", "binomial",
                                   "in-order_binary", "rabenseifner"};
const char *const kAllreduceAlgs[] = {"", "basic_linear", "nonoverlapping", "recursive_doubling",
                                      "ring", "segmented_ring", "rabenseifner"};
const char *const kGatherAlgs[] = {"", "basic_linear", "binomial", "linear_sync"};
const char *const kScatterAlgs[] = {"", "basic_linear", "binomial", "linear_nb"};
const char *const kAllgatherAlgs[] = {"", "linear", "bruck", "recursive_doubling", "ring",
                                      "neighbor", "two_proc"};

}  // namespace

TunedChoice tuned_choice(cacore_coll_t coll, int n, double bytes, bool commutative)
{
    TunedChoice t;
    switch (coll) {
    case CACORE_COLL_BCAST:
        t.alg = tuned_bcast(n, bytes);
        t.name = kBcastAlgs[t.alg];
        break;
    case CACORE_COLL_REDUCE:
        t.alg = tuned_reduce(n, bytes, commutative);
        t.name = kReduceAlgs[t.alg];
        break;
    case CACORE_COLL_ALLREDUCE:
        t.alg = tuned_allreduce(n, bytes, commutative);
        t.name = kAllreduceAlgs[t.alg];
        break;
    case CACORE_COLL_GATHER:
        t.alg = tuned_gather(n, bytes);
        t.name = kGatherAlgs[t.alg];
        break;
    case CACORE_COLL_SCATTER:
        t.alg = tuned_scatter(n, bytes);
        t.name = kScatterAlgs[t.alg];
        break;
    default:
        t.alg = tuned_allgather(n, bytes);
        t.name = kAllgatherAlgs[t.alg];
        break;
    }
    return t;
}

Tree ompi_kary_tree(int k, int fanout)
{
    // coll_base_topo.c:103-180: shifted rank s at level l (nodes up to level l: 1 + f + ... + f^l)
    // has the children s + f^l * (i + 1), i < fanout.
    Tree t(k);
    int level_end = 1, delta = 1;  // first index of the next level; fanout^level
    for (int s = 0; s < k; ++s) {
        while (s >= level_end) {
            delta *= fanout;
            level_end += delta;
        }
        for (int i = 0; i < fanout; ++i) {
            const long long c = s + static_cast<long long>(delta) * (i + 1);
            if (c >= k) {
                break;
            }
            t.link(static_cast<int>(c), s);
        }
    }
    return t;
}

Tree ompi_knomial_tree(int k, int radix)
{
    // coll_base_topo.c:485-527: v's parent clears v's lowest non-zero base-radix digit; its
    // children are v + mask * r below that digit, the largest mask first.
    Tree t(k);
    for (int v = 0; v < k; ++v) {
        long long mask = 1;
        while (mask < k && v % (radix * mask) == 0) {
            mask *= radix;
        }
        for (mask /= radix; mask > 0; mask /= radix) {
            for (int r = 1; r < radix; ++r) {
                const long long c = v + mask * r;
                if (c < k) {
                    t.link(static_cast<int>(c), v);
                }
            }
        }
    }
    return t;
}

namespace {

std::vector<int> relative_ranks(int n, int root)
{
    std::vector<int> r(n);
    for (int i = 0; i < n; ++i) {
        r[i] = (root + i) % n;
    }
    return r;
}

struct Ctx {
    const PlanInput &in;
    int n;
    int root;
    LevelFn lv;
    explicit Ctx(const PlanInput &i)
        : in(i), n(static_cast<int>(i.rank_node.size())), root(is_rooted(i.coll) ? i.root : 0)
    {
        const std::vector<int> *rn = &in.rank_node;
        lv = [rn](int a, int b) { return (*rn)[a] == (*rn)[b] ? 0 : 1; };
    }
    std::vector<std::vector<int>> own_parts(const std::vector<int> &ranks) const
    {
        std::vector<std::vector<int>> resp(ranks.size());
        for (size_t i = 0; i < ranks.size(); ++i) {
            resp[i] = {ranks[i]};
        }
        return resp;
    }
};

Plan finish(PlanBuilder &b, Emitter &e, const Ctx &c, const std::string &desc)
{
    e.finalize();
    return b.finish(total_bytes(c.in), CACORE_ALGO_AUTO, desc);
}

// A broadcast tree as tuned's generic tree broadcast runs it unsegmented: a parent posts the sends
// to all its children at once (coll_base_bcast.c:38-245).
Tree bcast_tree_of(int alg, int n)
{
    switch (alg) {
    case 1: return flat_tree(n);
    case 2:
    case 3:
    case 4: return chain_tree(n);  // split_binary_tree without segments: chain (coll_base_bcast.c:418-425)
    case 5: return ompi_kary_tree(n, 2);
    case 7: return ompi_knomial_tree(n, 4);  // coll_tuned_bcast_knomial_radix = 4
    default: return binomial_tree(n);
    }
}

Tree reduce_tree_of(int alg, int n)
{
    switch (alg) {
    case 1: return flat_tree(n);
    case 2:
    case 3: return chain_tree(n);
    case 4:
    case 6: return ompi_kary_tree(n, 2);
    default: return binomial_tree(n);  // binomial; rabenseifner (n < 4, < 8 bytes) approximated
    }
}

// Binomial scatter of one block per rank, then the allgather: recursive doubling for a power of
// two, a ring otherwise (coll_base_bcast.c:774-949 and 951-1060).
Plan bcast_scatter_allgather(const Ctx &c, bool ring)
{
    const int n = c.n;
    PlanBuilder b(c.in.coll, c.root, n, n);
    auto rank = [&](int v) { return (v + c.root) % n; };
    int top = 1;
    while (top < n) {
        top <<= 1;
    }
    std::vector<int> recv_round(n, -1), last(n, 0);
    for (int v = 0; v < n; ++v) {
        int low = v == 0 ? top : (v & -v);
        int k = 0;
        for (int mask = low >> 1; mask > 0; mask >>= 1) {
            const int ch = v + mask;
            if (ch >= n) {
                continue;
            }
            const int round = recv_round[v] + 1 + k++;
            b.transfer(rank(v), round, CACORE_BUF_OUT, rank(ch), round, CACORE_BUF_OUT,
                       c.lv(rank(v), rank(ch)), ch, std::min(mask, n - ch));
            recv_round[ch] = round;
            last[v] = round + 1;
        }
        last[v] = std::max(last[v], recv_round[v] + 1);
    }
    const bool pow2 = (n & (n - 1)) == 0;
    if (pow2 && !ring) {
        for (int v = 0; v < n; ++v) {
            int round = last[v];
            for (int mask = 1; mask < n; mask <<= 1, ++round) {
                const int p = v ^ mask;
                const int mine = v & ~(mask - 1), theirs = p & ~(mask - 1);
                b.send(rank(v), round, c.lv(rank(v), rank(p)), CACORE_BUF_OUT, rank(p), mine, mask);
                b.recv(rank(v), round, c.lv(rank(v), rank(p)), CACORE_BUF_OUT, rank(p), theirs, mask);
            }
        }
    } else {
        for (int v = 0; v < n; ++v) {
            const int nx = (v + 1) % n, pv = (v + n - 1) % n;
            for (int k = 0; k < n - 1; ++k) {
                const int round = last[v] + k;
                b.send(rank(v), round, c.lv(rank(v), rank(nx)), CACORE_BUF_OUT, rank(nx),
                       ((v - k) % n + n) % n, 1);
                b.recv(rank(v), round, c.lv(rank(v), rank(pv)), CACORE_BUF_OUT, rank(pv),
                       ((pv - k) % n + n) % n, 1);
            }
        }
    }
    return b.finish(total_bytes(c.in), CACORE_ALGO_AUTO,
                    !ring ? (pow2 ? "tuned scatter_allgather"
                                          : "tuned scatter_allgather (modelled with a ring)")
                          : "tuned scatter_allgather_ring");
}

// Rabenseifner: recursive-halving reduce-scatter, recursive-doubling allgather, the ranks past the
// largest power of two folded into their even neighbours first (coll_base_allreduce.c:960-1260;
// the fold sends the whole vector one way instead of two halves both ways).
Plan allreduce_rabenseifner(const Ctx &c)
{
    const int n = c.n;
    int p2 = 1;
    while (p2 * 2 <= n) {
        p2 *= 2;
    }
    const int rem = n - p2;
    PlanBuilder b(CACORE_COLL_ALLREDUCE, 0, n, p2);
    const int OUT = CACORE_BUF_OUT, TMP = CACORE_BUF_TMP0;
    auto real = [&](int v) { return v < rem ? 2 * v : v + rem; };
    std::vector<int> start(n, 0);
    for (int r = 0; r < n; ++r) {
        if (r < 2 * rem && r % 2 == 1) {
            b.transfer(r, 0, CACORE_BUF_IN, r - 1, 0, TMP, c.lv(r, r - 1), 0, p2);
        } else {
            b.copy(r, 0, 0, OUT, CACORE_BUF_IN, 0, p2);
            if (r < 2 * rem) {
                b.reduce(r, 1, c.lv(r, r + 1), OUT, TMP, false, 0, p2);
                start[r] = 1;
            }
        }
    }
    for (int v = 0; v < p2; ++v) {
        const int r = real(v);
        int round = start[r];
        int lo = 0, hi = p2;
        std::vector<std::pair<int, int>> windows;
        for (int mask = 1; mask < p2; mask <<= 1, ++round) {
            const int d = real(v ^ mask);
            const int mid = (lo + hi) / 2;
            windows.push_back({lo, hi});
            const bool left = r < d;
            const int klo = left ? lo : mid, khi = left ? mid : hi;
            const int slo = left ? mid : lo, shi = left ? hi : mid;
            b.send(r, round, c.lv(r, d), OUT, d, slo, shi - slo);
            b.recv(r, round, c.lv(r, d), TMP, d, klo, khi - klo);
            b.reduce(r, round + 1, c.lv(r, d), OUT, TMP, d < r, klo, khi - klo);
            lo = klo;
            hi = khi;
        }
        for (int mask = p2 >> 1; mask > 0; mask >>= 1, ++round) {
            const int d = real(v ^ mask);
            const auto w = windows.back();
            windows.pop_back();
            const int olo = lo == w.first ? hi : w.first, ohi = lo == w.first ? w.second : lo;
            b.send(r, round, c.lv(r, d), OUT, d, lo, hi - lo);
            b.recv(r, round, c.lv(r, d), OUT, d, olo, ohi - olo);
            lo = w.first;
            hi = w.second;
        }
        if (r < 2 * rem) {
            b.transfer(r, round, OUT, r + 1, 1, OUT, c.lv(r, r + 1), 0, p2);
        }
    }
    return b.finish(total_bytes(c.in), CACORE_ALGO_AUTO, "tuned rabenseifner");
}

Plan bcast_tree_plan(const Ctx &c, const Tree &t, const std::string &desc)
{
    PlanBuilder b(c.in.coll, c.root, c.n, is_gather_type(c.in.coll) ? c.n : 1);
    Emitter e(b);
    e.bcast_tree(relative_ranks(c.n, c.root), t, c.lv, true);
    return finish(b, e, c, desc);
}

Plan tuned_plan(const Ctx &c, bool commutative)
{
    const int n = c.n;
    const cacore_coll_t coll = c.in.coll;
    const TunedChoice t = tuned_choice(coll, n, c.in.bytes, commutative);
    const std::string desc = std::string("tuned ") + t.name;
    const size_t count = c.in.count == 0 ? static_cast<size_t>(c.in.bytes) : c.in.count;
    const auto ranks = relative_ranks(n, c.root);
    PlanBuilder b(coll, c.root, n, is_gather_type(coll) ? n : 1);
    Emitter e(b);
    switch (coll) {
    case CACORE_COLL_BCAST:
        if (t.alg == 8 || t.alg == 9) {
            if (count < static_cast<size_t>(n)) {  // coll_base_bcast.c:792-799
                return bcast_tree_plan(c, flat_tree(n), desc + " (count < ranks: basic_linear)");
            }
            return bcast_scatter_allgather(c, t.alg == 9);
        }
        return bcast_tree_plan(c, bcast_tree_of(t.alg, n), desc);
    case CACORE_COLL_REDUCE:
        e.reduce_tree(ranks, reduce_tree_of(t.alg, n), c.lv);
        return finish(b, e, c, desc);
    case CACORE_COLL_ALLREDUCE:
        switch (t.alg) {
        case 1:
            e.reduce_tree(ranks, flat_tree(n), c.lv);
            e.bcast_tree(ranks, flat_tree(n), c.lv, true);
            return finish(b, e, c, desc);
        case 2: {
            // reduce to 0, then bcast from 0, each as tuned decides them (a scatter-allgather
            // bcast approximated by a binomial tree)
            const int ra = tuned_choice(CACORE_COLL_REDUCE, n, c.in.bytes, commutative).alg;
            const int ba = tuned_choice(CACORE_COLL_BCAST, n, c.in.bytes, true).alg;
            e.reduce_tree(ranks, reduce_tree_of(ra, n), c.lv);
            e.bcast_tree(ranks, bcast_tree_of(ba, n), c.lv, true);
            return finish(b, e, c, desc);
        }
        case 4:
        case 5:
            if (count >= static_cast<size_t>(n)) {  // coll_base_allreduce.c:371-375
                PlanBuilder br(coll, 0, n, n);
                Emitter er(br);
                er.allreduce_ring(ranks, c.lv);
                return finish(br, er, c, desc);
            }
            break;
        case 6: {
            int p2 = 1;
            while (p2 * 2 <= n) {
                p2 *= 2;
            }
            if (commutative && count >= static_cast<size_t>(p2)) {  // coll_base_allreduce.c:988-995
                return allreduce_rabenseifner(c);
            }
            e.reduce_tree(ranks, flat_tree(n), c.lv);
            e.bcast_tree(ranks, flat_tree(n), c.lv, true);
            return finish(b, e, c, desc + " (basic_linear)");
        }
        default:
            break;
        }
        e.allreduce_recdbl(ranks, c.lv);
        return finish(b, e, c, desc);
    case CACORE_COLL_GATHER:
        e.gather_tree(ranks, t.alg == 2 ? binomial_tree(n) : flat_tree(n), c.lv);
        return finish(b, e, c, desc);
    case CACORE_COLL_SCATTER:
        // basic_linear sends one block after another; linear_nb posts them all at once
        e.scatter_tree(ranks, t.alg == 2 ? binomial_tree(n) : flat_tree(n), c.lv, c.own_parts(ranks),
                       t.alg == 3);
        return finish(b, e, c, desc);
    default:
        if (t.alg == 1) {
            e.gather_tree(ranks, flat_tree(n), c.lv);
            e.bcast_tree(ranks, flat_tree(n), c.lv, true);
        } else if (t.alg == 4 || t.alg == 5) {
            e.allgather_ring(ranks, c.lv);  // neighbor exchange: a ring's volume in n/2 steps
        } else {
            e.allgather_recdbl(ranks, c.lv);  // bruck: recursive doubling's steps and volume
        }
        return finish(b, e, c, desc);
    }
}

// coll/basic with its default crossover 4 (coll_basic_module.c:91-126): linear up to 4 ranks,
// binomial (log) bcast and reduce above; allreduce = reduce to 0 + bcast; allgather = gather to 0
// + bcast; gather and scatter linear, one rank after another.
Plan basic_plan(const Ctx &c, bool commutative)
{
    const int n = c.n;
    const auto ranks = relative_ranks(n, c.root);
    const bool log = n > 4;
    const Tree bt = log ? binomial_tree(n) : flat_tree(n);
    const Tree rt = log && commutative ? binomial_tree(n) : flat_tree(n);
    PlanBuilder b(c.in.coll, c.root, n, is_gather_type(c.in.coll) ? n : 1);
    Emitter e(b);
    std::string desc = std::string("basic ") + (log ? "log" : "linear");
    switch (c.in.coll) {
    case CACORE_COLL_BCAST: e.bcast_tree(ranks, bt, c.lv, true); break;
    case CACORE_COLL_REDUCE: e.reduce_tree(ranks, rt, c.lv); break;
    case CACORE_COLL_ALLREDUCE:
        e.reduce_tree(ranks, rt, c.lv);
        e.bcast_tree(ranks, bt, c.lv, true);
        break;
    case CACORE_COLL_GATHER:
        e.gather_tree(ranks, flat_tree(n), c.lv);
        desc = "basic linear";
        break;
    case CACORE_COLL_SCATTER:
        e.scatter_tree(ranks, flat_tree(n), c.lv, c.own_parts(ranks), false);
        desc = "basic linear";
        break;
    default:
        e.gather_tree(ranks, flat_tree(n), c.lv);
        e.bcast_tree(ranks, bt, c.lv, true);
        desc = std::string("basic linear gather + ") + (log ? "log" : "linear") + " bcast";
        break;
    }
    return finish(b, e, c, desc);
}

// coll/han (Open MPI 4.1, ompi/mca/coll/han): the ranks of each node first, then the node leaders
// (the root on its node, the lowest rank elsewhere) — binomial at both levels, allgather and
// allreduce among leaders by recursive doubling; han's segment pipelining between the levels is
// not modelled.
Plan han_plan(const Ctx &c)
{
    const int n = c.n;
    const cacore_coll_t coll = c.in.coll;
    std::vector<std::vector<int>> node_ranks;
    {
        std::vector<int> seen;
        for (int r = 0; r < n; ++r) {
            const int nd = c.in.rank_node[r];
            auto it = std::find(seen.begin(), seen.end(), nd);
            if (it == seen.end()) {
                seen.push_back(nd);
                node_ranks.emplace_back();
                it = seen.end() - 1;
            }
            node_ranks[it - seen.begin()].push_back(r);
        }
    }
    // Every node's list starts with its leader; the root's node first among the leaders.
    std::vector<int> leaders;
    for (auto &nr : node_ranks) {
        auto it = std::find(nr.begin(), nr.end(), c.root);
        if (it != nr.end()) {
            std::rotate(nr.begin(), it, it + 1);
            leaders.insert(leaders.begin(), nr[0]);
        } else {
            leaders.push_back(nr[0]);
        }
    }
    const int nl = static_cast<int>(leaders.size());
    PlanBuilder b(coll, c.root, n, is_gather_type(coll) ? n : 1);
    Emitter e(b);
    auto each_node = [&](const std::function<void(const std::vector<int> &)> &f) {
        for (const auto &nr : node_ranks) {
            f(nr);
        }
    };
    auto bin = [](const std::vector<int> &v) { return binomial_tree(static_cast<int>(v.size())); };
    switch (coll) {
    case CACORE_COLL_BCAST:
        e.bcast_tree(leaders, binomial_tree(nl), c.lv, true);
        each_node([&](const std::vector<int> &nr) { e.bcast_tree(nr, bin(nr), c.lv, true); });
        break;
    case CACORE_COLL_REDUCE:
        each_node([&](const std::vector<int> &nr) { e.reduce_tree(nr, bin(nr), c.lv); });
        e.reduce_tree(leaders, binomial_tree(nl), c.lv);
        break;
    case CACORE_COLL_ALLREDUCE:
        each_node([&](const std::vector<int> &nr) { e.reduce_tree(nr, bin(nr), c.lv); });
        e.allreduce_recdbl(leaders, c.lv);
        each_node([&](const std::vector<int> &nr) { e.bcast_tree(nr, bin(nr), c.lv, true); });
        break;
    case CACORE_COLL_GATHER:
        each_node([&](const std::vector<int> &nr) { e.gather_tree(nr, bin(nr), c.lv); });
        e.gather_tree(leaders, binomial_tree(nl), c.lv);
        break;
    case CACORE_COLL_SCATTER: {
        std::vector<std::vector<int>> resp(nl);
        for (int i = 0; i < nl; ++i) {
            for (const auto &nr : node_ranks) {
                if (nr[0] == leaders[i]) {
                    resp[i] = nr;
                    std::sort(resp[i].begin(), resp[i].end());
                }
            }
        }
        e.scatter_tree(leaders, binomial_tree(nl), c.lv, resp);
        each_node([&](const std::vector<int> &nr) {
            e.scatter_tree(nr, bin(nr), c.lv, c.own_parts(nr));
        });
        break;
    }
    default:
        each_node([&](const std::vector<int> &nr) { e.gather_tree(nr, bin(nr), c.lv); });
        e.allgather_recdbl(leaders, c.lv);
        each_node([&](const std::vector<int> &nr) { e.bcast_tree(nr, bin(nr), c.lv, true); });
        break;
    }
    return finish(b, e, c, "han two-level");
}

}  // namespace

Plan build_previous(const PlanInput &in, int prev, bool commutative)
{
    validate(in);
    const Ctx c(in);
    switch (prev) {
    case CACORE_PREV_TUNED: return tuned_plan(c, commutative);
    case CACORE_PREV_BASIC: return basic_plan(c, commutative);
    case CACORE_PREV_HAN: return han_plan(c);
    case CACORE_PREV_BINOMIAL: return build_binomial(in);
    default:
        fail_arg("unknown previous module " + std::to_string(prev));
    }
}

}  // namespace cacore
