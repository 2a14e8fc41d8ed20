// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// patterns.cpp - the pattern emitters (round numbering: see cloudaware_core.h; a step's round
// only orders one rank's own steps, matching is by posting order).
#include "patterns.hpp"

#include "error.hpp"
#include "slices.hpp"

#include <algorithm>
#include <functional>

namespace cacore {

Tree flat_tree(int k)
{
    Tree t(k);
    for (int i = 1; i < k; ++i) {
        t.link(i, 0);
    }
    return t;
}

Tree binomial_tree(int k)
{
    Tree t(k);
    // MPICH style: relative rank i's children are i + mask for masks below i's lowest set bit,
    // the largest mask (biggest subtree) first.
    for (int i = 0; i < k; ++i) {
        int low = 1;
        while (low < k && !(i & low)) {
            low <<= 1;
        }
        std::vector<int> kids;
        for (int mask = 1; mask < low && i + mask < k; mask <<= 1) {
            kids.push_back(i + mask);
        }
        for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
            t.link(*it, i);
        }
    }
    return t;
}

Tree chain_tree(int k)
{
    Tree t(k);
    for (int i = 1; i < k; ++i) {
        t.link(i, i - 1);
    }
    return t;
}

Tree binary_tree(const std::vector<int> &order)
{
    // order[0] is the root; the rest form a balanced in-order binary tree below it.
    int k = 0;
    for (int x : order) {
        k = std::max(k, x + 1);
    }
    Tree t(k);
    t.root = order.empty() ? 0 : order[0];
    std::function<int(int, int)> build = [&](int lo, int hi) -> int {
        if (lo >= hi) {
            return -1;
        }
        int mid = (lo + hi) / 2;
        int l = build(lo, mid), r = build(mid + 1, hi);
        if (l >= 0) {
            t.link(order[l], order[mid]);
        }
        if (r >= 0) {
            t.link(order[r], order[mid]);
        }
        return mid;
    };
    int top = build(1, static_cast<int>(order.size()));
    if (top >= 0) {
        t.link(order[top], order[0]);
    }
    return t;
}

namespace {

// The members with every parent before its children (depth first, last child first).
std::vector<int> top_down(const Tree &t)
{
    std::vector<int> order, stack{t.root};
    while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        order.push_back(v);
        for (int c : t.children[v]) {
            stack.push_back(c);
        }
    }
    return order;
}

}  // namespace

std::vector<Block> segments(int nblocks, int nsegs)
{
    nsegs = std::max(1, std::min(nsegs, nblocks));
    std::vector<Block> out;
    for (int i = 0; i < nsegs; ++i) {
        int a = static_cast<int>(static_cast<long long>(i) * nblocks / nsegs);
        int b = static_cast<int>(static_cast<long long>(i + 1) * nblocks / nsegs);
        out.push_back({a, b - a});
    }
    return out;
}

namespace {

std::vector<int> heights(const Tree &t)
{
    std::vector<int> h(t.size(), 0), order = top_down(t);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        for (int c : t.children[*it]) {
            h[*it] = std::max(h[*it], h[c] + 1);
        }
    }
    return h;
}

}  // namespace

std::vector<int> set_union(const std::vector<int> &a, const std::vector<int> &b)
{
    std::vector<int> out;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

Emitter::Emitter(PlanBuilder &b)
    : b_(b), coll_(b.coll()), n_(b.nranks()), nb_(b.nblocks()),
      bpr_(is_gather_type(b.coll()) ? b.nblocks() / b.nranks() : 0), cursor_(n_, 0),
      pipe_cursor_(n_, 0), block_ready_(n_), landing_next_(n_, 0), acc_ready_(n_, false), low_(n_), held_(n_), own_copied_(n_, false)
{
    for (int r = 0; r < n_; ++r) {
        low_[r] = r;
        if (coll_ == CACORE_COLL_SCATTER) {
            if (r == b.root()) {
                for (int q = 0; q < n_; ++q) {
                    held_[r].push_back(q);
                }
            }
        } else if (is_gather_type(coll_)) {
            held_[r] = {r};
        }
    }
}

int Emitter::base(const std::vector<int> &ranks) const
{
    int b = 0;
    for (int r : ranks) {
        b = std::max({b, cursor_[r], pipe_cursor_[r]});
    }
    return b;
}

int Emitter::ready(int r, int first, int n)
{
    int x = cursor_[r];
    const auto &br = block_ready_[r];
    for (int i = first; i < first + n && i < static_cast<int>(br.size()); ++i) {
        x = std::max(x, br[i]);
    }
    return x;
}

void Emitter::set_ready(int r, int first, int n, int round)
{
    auto &br = block_ready_[r];
    if (br.empty()) {
        br.assign(nb_, 0);
    }
    for (int i = first; i < first + n; ++i) {
        br[i] = std::max(br[i], round);
    }
}

// ---- broadcast ---------------------------------------------------------------------------------

void Emitter::bcast_tree(const std::vector<int> &ranks, const Tree &t, const LevelFn &lv,
                         bool concurrent)
{
    if (ranks.size() < 2) {
        return;
    }
    const int b0 = base(ranks);
    std::vector<int> recv_round(t.size(), b0 - 1);
    for (int v : top_down(t)) {
        int k = 0;
        for (int c : t.children[v]) {
            int rs = recv_round[v] + 1 + (concurrent ? 0 : k++);
            recv_round[c] = rs;
            b_.transfer(ranks[v], rs, CACORE_BUF_OUT, ranks[c], rs, CACORE_BUF_OUT,
                        lv(ranks[v], ranks[c]), 0, nb_);
            received_whole(ranks[c], ranks[v]);
            bump(ranks[v], rs + 1);
        }
        bump(ranks[v], recv_round[v] + 1);
    }
}

void Emitter::bcast_pipelined(const std::vector<int> &ranks, const std::vector<Tree> &trees,
                              const LevelFn &lv, int nsegs)
{
    if (ranks.size() < 2) {
        return;
    }
    auto segs = segments(nb_, nsegs);
    const int ntrees = static_cast<int>(trees.size());
    // Segment s travels down tree s mod ntrees. A member forwards it in the first round after it
    // has it, and one segment per round and tree, so the segments of one tree stay in order
    // on every edge.
    for (int ti = 0; ti < ntrees; ++ti) {
        const Tree &t = trees[ti];
        std::vector<int> last(t.size(), -1);   // the member's last sending round in this tree
        const std::vector<int> pre = top_down(t);
        for (size_t s = static_cast<size_t>(ti); s < segs.size(); s += static_cast<size_t>(ntrees)) {
            const int first = segs[s].first, n = segs[s].second;
            for (int v : pre) {  // parents before children: a parent's round is known first
                if (t.children[v].empty()) {
                    continue;
                }
                const int rv = ranks[v];
                const int round = std::max(ready(rv, first, n), last[v] + 1);
                last[v] = round;
                for (int c : t.children[v]) {
                    const int rc = ranks[c];
                    const int rr = std::max(round, cursor_[rc]);
                    b_.transfer(rv, round, CACORE_BUF_OUT, rc, rr, CACORE_BUF_OUT,
                                lv(rv, rc), first, n);
                    set_ready(rc, first, n, rr + 1);
                    bump_pipe(rc, rr + 1);
                }
                bump_pipe(rv, round + 1);
            }
        }
    }
    for (int i = 0; i < static_cast<int>(ranks.size()); ++i) {
        if (i != trees[0].root) {
            received_whole(ranks[i], ranks[trees[0].root]);
        }
    }
}

void Emitter::received_whole(int r, int from)
{
    // After a broadcast of the whole vector into OUT, r holds what the sender held.
    acc_ready_[r] = true;
    own_copied_[r] = true;
    held_[r] = held_[from];
    low_[r] = low_[from];
}

// ---- reduction ---------------------------------------------------------------------------------

int Emitter::acc(int r) const
{
    if (coll_ == CACORE_COLL_ALLREDUCE || r == b_.root()) {
        return CACORE_BUF_OUT;
    }
    return CACORE_BUF_TMP0;
}

int Emitter::landing(int k) const
{
    return (coll_ == CACORE_COLL_REDUCE ? CACORE_BUF_TMP0 + 1 : CACORE_BUF_TMP0) + k;
}

void Emitter::ensure_acc(int r, int round, int level)
{
    if (!acc_ready_[r]) {
        b_.copy(r, round, level, acc(r), CACORE_BUF_IN, 0, nb_);
        acc_ready_[r] = true;
    }
}

void Emitter::fold(int r, int round, int level, int src_buf, int from, int first, int n)
{
    ensure_acc(r, round, level);
    b_.reduce(r, round, level, acc(r), src_buf, low_[from] < low_[r], first, n);
}

void Emitter::reduce_tree(const std::vector<int> &ranks, const Tree &t, const LevelFn &lv)
{
    if (ranks.size() < 2) {
        return;
    }
    const int b0 = base(ranks);
    std::vector<int> send_round(t.size(), b0);
    const std::vector<int> order = top_down(t);  // walked backwards: children first
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int v = *it;
        const int rv = ranks[v];
        std::vector<int> kids = t.children[v];
        std::stable_sort(kids.begin(), kids.end(),
                         [&](int a, int c) { return send_round[a] < send_round[c]; });
        int tcur = b0;
        for (int c : kids) {
            const int rc = ranks[c];
            const int x = std::max(send_round[c], tcur);
            const int level = lv(rc, rv);
            b_.transfer(rc, send_round[c], partial(rc), rv, x, landing(0), level, 0, nb_);
            fold(rv, x + 1, level, landing(0), rc, 0, nb_);
            const int lowc = low_[rc];
            low_[rv] = std::min(low_[rv], lowc);
            tcur = x + 1;
        }
        send_round[v] = tcur;
        bump(rv, tcur);
    }
    for (int v = 0; v < t.size(); ++v) {
        if (v != t.root) {
            bump(ranks[v], send_round[v] + 1);
        }
    }
}

void Emitter::reduce_pipelined(const std::vector<int> &ranks, const std::vector<Tree> &trees,
                               const LevelFn &lv, int nsegs)
{
    if (ranks.size() < 2) {
        return;
    }
    auto segs = segments(nb_, nsegs);
    const int nseg = static_cast<int>(segs.size());
    const int ntrees = static_cast<int>(trees.size());
    if (ntrees > 1) {
        // A member folds segments of one tree into its partial while it sends segments of another
        // from it: the partial starts as its own operand before any of them.
        for (const Tree &t : trees) {
            for (int v = 0; v < t.size(); ++v) {
                if (!t.children[v].empty()) {
                    ensure_acc(ranks[v], cursor_[ranks[v]], lv(ranks[v], ranks[t.children[v][0]]));
                }
            }
        }
    }
    // Every tree folds from the members' own operands: each starts from the lowest ranks as they
    // were, and afterwards a member's is the lowest over the trees.
    const std::vector<int> low_before(low_);
    std::vector<int> low_after(low_);
    // Segment j goes up tree j mod ntrees.
    for (int ti = 0; ti < ntrees; ++ti) {
        const Tree &t = trees[ti];
        auto h = heights(t);
        // Leaves first so that the partial buffer of every child is final before it sends.
        std::vector<int> order(t.size());
        for (int i = 0; i < t.size(); ++i) {
            order[i] = i;
        }
        std::stable_sort(order.begin(), order.end(), [&](int a, int c) { return h[a] < h[c]; });
        // Each member's children land in landing slots of their own, not used by an earlier
        // pipelined level or tree: with the levels overlapping, that level may still fold from
        // its slot. (Non-pipelined patterns are no hazard: their steps at a rank all come before
        // its floor, where receives here start, or after everything placed here.)
        std::vector<int> slot(t.size());
        for (int v = 0; v < t.size(); ++v) {
            slot[v] = landing_next_[ranks[v]];
            landing_next_[ranks[v]] += static_cast<int>(t.children[v].size());
        }
        // arrived[v][j]: the round after the last of its children's segment j arrived at v.
        std::vector<std::vector<int>> arrived(t.size(), std::vector<int>(nseg, 0));
        low_ = low_before;
        for (int v : order) {
            const int rv = ranks[v];
            int last = -1;
            for (int j = ti; j < nseg; j += ntrees) {
                const int first = segs[j].first, n = segs[j].second;
                const int round = std::max({ready(rv, first, n), arrived[v][j], last + 1});
                last = round;
                int k = 0;
                for (int c : t.children[v]) {
                    fold(rv, round, lv(ranks[c], rv), landing(slot[v] + k), ranks[c], first, n);
                    ++k;
                }
                if (v != t.root) {
                    const int p = t.parent[v];
                    const int rp = ranks[p];
                    const auto &sib = t.children[p];
                    const int kidx =
                        static_cast<int>(std::find(sib.begin(), sib.end(), v) - sib.begin());
                    const int rr = std::max(round, cursor_[rp]);
                    b_.transfer(rv, round, partial(rv), rp, rr, landing(slot[p] + kidx),
                                lv(rv, rp), first, n);
                    arrived[p][j] = std::max(arrived[p][j], rr + 1);
                    bump_pipe(rp, rr + 1);
                    bump_pipe(rv, round + 1);
                } else {
                    set_ready(rv, first, n, round);
                    bump_pipe(rv, round + 1);
                }
            }
            for (int c : t.children[v]) {
                low_[rv] = std::min(low_[rv], low_[ranks[c]]);
            }
        }
        for (int r = 0; r < n_; ++r) {
            low_after[r] = std::min(low_after[r], low_[r]);
        }
    }
    low_ = low_after;
}

// ---- gather-type -------------------------------------------------------------------------------

int Emitter::hold(int r) const
{
    if (coll_ == CACORE_COLL_ALLGATHER || (coll_ == CACORE_COLL_GATHER && r == b_.root())) {
        return CACORE_BUF_OUT;
    }
    if (coll_ == CACORE_COLL_SCATTER && r == b_.root()) {
        return CACORE_BUF_IN;
    }
    return CACORE_BUF_TMP0;
}

void Emitter::ensure_own(int r, int round, int level)
{
    if (!own_copied_[r] && coll_ != CACORE_COLL_SCATTER) {
        b_.copy(r, round, level, hold(r), CACORE_BUF_IN, r * bpr_, bpr_);
        own_copied_[r] = true;
    }
}

std::vector<Block> Emitter::runs(const std::vector<int> &parts) const
{
    std::vector<Block> out;
    for (size_t i = 0; i < parts.size();) {
        size_t j = i + 1;
        while (j < parts.size() && parts[j] == parts[j - 1] + 1) {
            ++j;
        }
        out.push_back({parts[i] * bpr_, static_cast<int>(j - i) * bpr_});
        i = j;
    }
    return out;
}

void Emitter::send_parts(int from, int rs, int to, int rr, int level, const std::vector<int> &parts,
                         int to_buf_override)
{
    int src = hold(from);
    if (coll_ != CACORE_COLL_SCATTER) {
        if (parts.size() == 1 && parts[0] == from && !own_copied_[from]) {
            src = CACORE_BUF_IN;
        } else {
            ensure_own(from, rs, level);
        }
    }
    int dst = to_buf_override >= 0 ? to_buf_override : hold(to);
    for (const auto &run : runs(parts)) {
        b_.transfer(from, rs, src, to, rr, dst, level, run.first, run.second);
    }
}

void Emitter::gather_tree(const std::vector<int> &ranks, const Tree &t, const LevelFn &lv)
{
    if (ranks.size() < 2) {
        return;
    }
    const int b0 = base(ranks);
    auto h = heights(t);
    std::vector<int> order(t.size());
    for (int i = 0; i < t.size(); ++i) {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int c) { return h[a] < h[c]; });
    for (int v : order) {
        const int rv = ranks[v];
        if (!t.children[v].empty()) {
            ensure_own(rv, b0 + h[v] - 1, lv(rv, rv));
        }
        for (int c : t.children[v]) {
            const int rc = ranks[c];
            send_parts(rc, b0 + h[c], rv, b0 + h[v] - 1, lv(rc, rv), held_[rc]);
            held_[rv] = set_union(held_[rv], held_[rc]);
            bump(rc, b0 + h[c] + 1);
        }
        bump(rv, b0 + h[v]);
    }
}

void Emitter::scatter_tree(const std::vector<int> &ranks, const Tree &t, const LevelFn &lv,
                           const std::vector<std::vector<int>> &resp, bool concurrent)
{
    if (ranks.size() < 2) {
        return;
    }
    const int b0 = base(ranks);
    // What each participant must receive: its own responsibility plus its tree descendants'.
    std::vector<std::vector<int>> need(t.size());
    const std::vector<int> order = top_down(t);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        need[*it] = set_union(need[*it], resp[*it]);
        if (t.parent[*it] >= 0) {
            need[t.parent[*it]] = set_union(need[t.parent[*it]], need[*it]);
        }
    }
    std::vector<int> recv_round(t.size(), b0 - 1);
    for (int v : order) {  // pre-order: parents before children
        std::vector<int> kids = t.children[v];
        std::stable_sort(kids.begin(), kids.end(),
                         [&](int a, int c) { return need[a].size() > need[c].size(); });
        int k = 0;
        for (int c : kids) {
            const int rs = recv_round[v] + 1 + (concurrent ? 0 : k++);
            const int rc = ranks[c];
            // A rank that receives only its own part takes it straight into OUT.
            const bool direct = need[c].size() == 1 && need[c][0] == rc;
            send_parts(ranks[v], rs, rc, rs, lv(ranks[v], rc), need[c], direct ? CACORE_BUF_OUT : -1);
            held_[rc] = need[c];
            if (direct) {
                own_copied_[rc] = true;
            }
            recv_round[c] = rs;
            bump(ranks[v], rs + 1);
            bump(rc, rs + 1);
        }
    }
}

// ---- all-to-all patterns among leaders ---------------------------------------------------------

void Emitter::allreduce_recdbl(const std::vector<int> &ranks, const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    if (p < 2) {
        return;
    }
    int b0 = base(ranks);
    int p2 = 1;
    while (p2 * 2 <= p) {
        p2 *= 2;
    }
    const int extra = p - p2;
    // Fold the extras into their partners.
    for (int i = 0; i < extra; ++i) {
        int e = ranks[p2 + i], q = ranks[i];
        b_.transfer(e, b0, partial(e), q, b0, landing(0), lv(e, q), 0, nb_);
        fold(q, b0 + 1, lv(e, q), landing(0), e, 0, nb_);
        low_[q] = std::min(low_[q], low_[e]);
    }
    int round = extra > 0 ? b0 + 1 : b0;
    for (int mask = 1; mask < p2; mask <<= 1) {
        std::vector<int> newlow(p2);
        for (int i = 0; i < p2; ++i) {
            int a = ranks[i], c = ranks[i ^ mask];
            ensure_acc(a, round, lv(a, c));
            b_.send(a, round, lv(a, c), acc(a), c, 0, nb_);
            b_.recv(a, round, lv(a, c), landing(0), c, 0, nb_);
            newlow[i] = std::min(low_[a], low_[c]);
        }
        for (int i = 0; i < p2; ++i) {
            int a = ranks[i], c = ranks[i ^ mask];
            b_.reduce(a, round + 1, lv(a, c), acc(a), landing(0), low_[c] < low_[a], 0, nb_);
        }
        for (int i = 0; i < p2; ++i) {
            low_[ranks[i]] = newlow[i];
        }
        ++round;
    }
    for (int i = 0; i < extra; ++i) {
        int e = ranks[p2 + i], q = ranks[i];
        ensure_acc(q, round, lv(q, e));
        b_.transfer(q, round, acc(q), e, round, acc(e), lv(q, e), 0, nb_);
        acc_ready_[e] = true;
        bump(e, round + 1);
    }
    for (int i = 0; i < p2; ++i) {
        bump(ranks[i], round + (extra > 0 && i < extra ? 1 : 0));
    }
    for (int i = 0; i < extra; ++i) {
        bump(ranks[p2 + i], round + 1);
    }
}

void Emitter::allreduce_ring(const std::vector<int> &ranks, const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    if (p < 2) {
        return;
    }
    const int b0 = base(ranks);
    auto chunk = segments(nb_, p);
    if (static_cast<int>(chunk.size()) < p) {
        throw Error(CACORE_ERR_INTERNAL, "ring allreduce needs at least one block per participant");
    }
    for (int i = 0; i < p; ++i) {
        ensure_acc(ranks[i], b0, lv(ranks[i], ranks[i]));
    }
    auto mod = [p](int x) { return ((x % p) + p) % p; };
    for (int k = 0; k < p - 1; ++k) {
        for (int i = 0; i < p; ++i) {
            int a = ranks[i], nx = ranks[mod(i + 1)];
            const Block &c = chunk[mod(i - k)];
            b_.transfer(a, b0 + k, acc(a), nx, b0 + k, landing(0), lv(a, nx), c.first, c.second);
        }
        for (int i = 0; i < p; ++i) {
            int a = ranks[i], pv = ranks[mod(i - 1)];
            const Block &c = chunk[mod(i - k - 1)];
            // incoming partial holds lower ranks iff it comes from a lower position in the ring
            b_.reduce(a, b0 + k + 1, lv(pv, a), acc(a), landing(0), mod(i - 1) < i, c.first, c.second);
        }
    }
    for (int k = 0; k < p - 1; ++k) {
        for (int i = 0; i < p; ++i) {
            int a = ranks[i], nx = ranks[mod(i + 1)];
            const Block &c = chunk[mod(i + 1 - k)];
            b_.transfer(a, b0 + p - 1 + k, acc(a), nx, b0 + p - 1 + k, acc(nx), lv(a, nx), c.first,
                        c.second);
        }
    }
    for (int r : ranks) {
        bump(r, b0 + 2 * (p - 1));
        low_[r] = 0;
    }
}

void Emitter::allreduce_rabenseifner(const std::vector<int> &ranks, const LevelFn &lv)
{
    if (ranks.size() < 2) {
        return;
    }
    const int b0 = base(ranks);
    std::vector<int> cur(n_, 0);
    for (int r : ranks) {
        ensure_acc(r, b0, lv(r, r));   // acc = OUT and landing(0) = TMP0, as SliceEmitter uses
        cur[r] = b0;
    }
    SliceEmitter se(b_, cur);
    se.reduce_scatter_halving(ranks, {0, nb_}, lv);
    se.allgather_doubling(ranks, {0, nb_}, lv);
    for (int r : ranks) {
        bump(r, cur[r]);
        low_[r] = 0;
    }
}

void Emitter::allgather_ring(const std::vector<int> &ranks, const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    if (p < 2) {
        return;
    }
    const int b0 = base(ranks);
    std::vector<std::vector<int>> orig(p);
    for (int i = 0; i < p; ++i) {
        orig[i] = held_[ranks[i]];
        ensure_own(ranks[i], b0, lv(ranks[i], ranks[i]));
    }
    auto mod = [p](int x) { return ((x % p) + p) % p; };
    for (int k = 0; k < p - 1; ++k) {
        for (int i = 0; i < p; ++i) {
            int a = ranks[i], nx = ranks[mod(i + 1)];
            for (const auto &run : runs(orig[mod(i - k)])) {
                b_.transfer(a, b0 + k, CACORE_BUF_OUT, nx, b0 + k, CACORE_BUF_OUT, lv(a, nx),
                            run.first, run.second);
            }
        }
    }
    std::vector<int> all;
    for (int i = 0; i < p; ++i) {
        all = set_union(all, orig[i]);
    }
    for (int r : ranks) {
        held_[r] = all;
        bump(r, b0 + p - 1);
    }
}

void Emitter::allgather_recdbl(const std::vector<int> &ranks, const LevelFn &lv)
{
    const int p = static_cast<int>(ranks.size());
    if (p < 2) {
        return;
    }
    const int b0 = base(ranks);
    int p2 = 1;
    while (p2 * 2 <= p) {
        p2 *= 2;
    }
    const int extra = p - p2;
    for (int i = 0; i < p; ++i) {
        ensure_own(ranks[i], b0, lv(ranks[i], ranks[i]));
    }
    for (int i = 0; i < extra; ++i) {
        int e = ranks[p2 + i], q = ranks[i];
        send_parts(e, b0, q, b0, lv(e, q), held_[e]);
        held_[q] = set_union(held_[q], held_[e]);
    }
    int round = extra > 0 ? b0 + 1 : b0;
    for (int mask = 1; mask < p2; mask <<= 1) {
        std::vector<std::vector<int>> next(p2);
        for (int i = 0; i < p2; ++i) {
            int a = ranks[i], c = ranks[i ^ mask];
            for (const auto &run : runs(held_[a])) {
                b_.send(a, round, lv(a, c), CACORE_BUF_OUT, c, run.first, run.second);
            }
            for (const auto &run : runs(held_[c])) {
                b_.recv(a, round, lv(a, c), CACORE_BUF_OUT, c, run.first, run.second);
            }
            next[i] = set_union(held_[a], held_[c]);
        }
        for (int i = 0; i < p2; ++i) {
            held_[ranks[i]] = next[i];
        }
        ++round;
    }
    for (int i = 0; i < extra; ++i) {
        int e = ranks[p2 + i], q = ranks[i];
        std::vector<int> missing;
        std::set_difference(held_[q].begin(), held_[q].end(), held_[e].begin(), held_[e].end(),
                            std::back_inserter(missing));
        for (const auto &run : runs(missing)) {
            b_.transfer(q, round, CACORE_BUF_OUT, e, round, CACORE_BUF_OUT, lv(q, e), run.first,
                        run.second);
        }
        held_[e] = held_[q];
    }
    for (int r : ranks) {
        bump(r, round + (extra > 0 ? 1 : 0));
    }
}

void Emitter::finalize()
{
    const int root = b_.root();
    const int r0 = cursor_[root];
    switch (coll_) {
    case CACORE_COLL_REDUCE:
        ensure_acc(root, r0, 0);
        break;
    case CACORE_COLL_ALLREDUCE:
        for (int r = 0; r < n_; ++r) {
            ensure_acc(r, cursor_[r], 0);
        }
        break;
    case CACORE_COLL_GATHER:
        ensure_own(root, r0, 0);
        break;
    case CACORE_COLL_ALLGATHER:
        for (int r = 0; r < n_; ++r) {
            ensure_own(r, cursor_[r], 0);
        }
        break;
    case CACORE_COLL_SCATTER:
        for (int r = 0; r < n_; ++r) {
            if (!own_copied_[r]) {
                b_.copy(r, cursor_[r], 0, CACORE_BUF_OUT, hold(r), r * bpr_, bpr_);
                own_copied_[r] = true;
            }
        }
        break;
    default:
        break;
    }
}

}  // namespace cacore
