// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// montecarlo.cpp - random recursive trees, their plans, and the fast path of their prediction.
//
// The fast path replays what the cost model's event simulation (cost_model.cpp) does with the
// plan of a random tree when every node has one rank: no intra-node messages, every node's send
// and receive port used by one sequence of messages at a time, and every message's time
// L + bytes/B of its link, added in the same order as the simulation adds them (so the results
// are the same doubles, not just close). Per collective (see patterns.cpp for the plans):
// - bcast: a node sends to its children one after the other, from the time it has the data.
// - reduce: a node receives from its children one at a time (ordered by their send rounds),
//   each receive posted after the previous one was folded in (first fold: copy IN to the
//   accumulator first), then sends its partial result.
// - gather: a node with children copies its own part, posts all receives at once; the messages
//   (one per run of consecutive ranks in a child's subtree) go through its receive port in the
//   order they become ready: the leaves' at once (ready when the receives are posted), in the
//   simulation's matching order, then the other children's when they have gathered theirs.
// - scatter: a node sends to its children one after the other, biggest part first, one message
//   per run of consecutive ranks; nodes with children copy their own part out at the end.
#include "montecarlo.hpp"

#include "cool_plan.hpp"
#include "error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>

#include <sys/mman.h>

namespace cacore {

namespace {

// Stable insertion sort, biggest subtree first: child lists are short, and it allocates nothing.
void biggest_first(std::vector<int> &v, const std::vector<int> &sz)
{
    for (size_t i = 1; i < v.size(); ++i) {
        const int x = v[i];
        size_t j = i;
        while (j > 0 && sz[v[j - 1]] < sz[x]) {
            v[j] = v[j - 1];
            --j;
        }
        v[j] = x;
    }
}

}  // namespace

RandomTrees::RandomTrees(const PlanInput &in, const Layout &lay, const CostParams &c)
    : in_(in), lay_(lay), cost_(c)
{
    if (!is_rooted(in.coll)) {
        fail_arg("random trees apply to bcast, reduce, gather and scatter");
    }
    const int k = static_cast<int>(lay.nodes.size());
    const int n = static_cast<int>(in.rank_node.size());
    total_ = total_bytes(in);
    nblocks_ = is_gather_type(in.coll) ? n : 1;
    nlocal_ = k;
    rank_.resize(k);
    bool one_per_node = true;
    for (int q = 0; q < k; ++q) {
        one_per_node = one_per_node && lay.ranks[q].size() == 1;
        rank_[q] = lay.leader[q];
    }
    // One slot per node: configured, or -1 (measured) with a matrix that has no measurements.
    auto one = [&](int slots) { return slots == 1 || (slots < 0 && !in.matrix->has_node_props()); };
    fast_ = one_per_node && k >= 2 && one(c.node_send_slots) && one(c.node_recv_slots);
    if (!fast_) {
        return;
    }
    // Random trees pick random pairs: keep L and B of a pair in one cache line, and the table on
    // huge pages where the system offers them (fewer TLB misses).
    const size_t bytes = static_cast<size_t>(k) * k * sizeof(Link);
    const size_t align = bytes >= (size_t(1) << 21) ? size_t(1) << 21 : 64;
    void *mem = nullptr;
    if (posix_memalign(&mem, align, (bytes + align - 1) / align * align) != 0) {
        throw std::bad_alloc();
    }
#ifdef MADV_HUGEPAGE
    if (align > 64) {
        madvise(mem, (bytes + align - 1) / align * align, MADV_HUGEPAGE);
    }
#endif
    links_.reset(static_cast<Link *>(mem));
    for (int a = 0; a < k; ++a) {
        for (int b = 0; b < k; ++b) {
            const int ma = lay.nodes[a], mb = lay.nodes[b];
            links_.get()[static_cast<size_t>(a) * k + b] =
                a == b ? Link{0.0, 1.0} : Link{in.matrix->latency(ma, mb), in.matrix->bandwidth(ma, mb)};
        }
    }
    floor_.resize(static_cast<size_t>(nblocks_) + 1);
    for (int i = 0; i <= nblocks_; ++i) {
        // the terms of block_bytes(total, nblocks, first, n), the same expression
        floor_[i] = std::floor(static_cast<double>(i) * total_ / nblocks_);
    }
    bits_.assign((static_cast<size_t>(n) + 63) / 64, 0);
}

void RandomTrees::Free::operator()(void *p) const { std::free(p); }

void RandomTrees::draw(std::mt19937_64 &rng, Tree &t)
{
    const int k = static_cast<int>(lay_.nodes.size());
    const int root = lay_.root_node;
    if (t.size() != k) {
        t = Tree(k);
    } else {
        std::fill(t.parent.begin(), t.parent.end(), -1);
        for (auto &ch : t.children) {
            ch.clear();
        }
    }
    t.root = root;
    perm_.clear();
    for (int i = 0; i < k; ++i) {
        if (i != root) {
            perm_.push_back(i);
        }
    }
    std::shuffle(perm_.begin(), perm_.end(), rng);
    in_tree_.assign(1, root);
    for (int v : perm_) {
        const int p = in_tree_[std::uniform_int_distribution<size_t>(0, in_tree_.size() - 1)(rng)];
        t.link(v, p);
        in_tree_.push_back(v);
    }
    // Subtree sizes: a node attaches after its parent, so the reverse attach order is bottom-up.
    sz_.assign(k, 1);
    for (auto it = perm_.rbegin(); it != perm_.rend(); ++it) {
        sz_[t.parent[*it]] += sz_[*it];
    }
    for (auto &ch : t.children) {
        biggest_first(ch, sz_);
    }
}

Plan RandomTrees::plan(const Tree &t) const
{
    return build_leader_tree_plan(in_, lay_, t, CACORE_PAT_BINOMIAL, [](int, int) { return 1; },
                                  false, CACORE_ALGO_TREE, "random tree");
}

double RandomTrees::predict_plan(const Tree &t) const
{
    return cacore::predict(plan(t), *in_.matrix, in_.rank_node, cost_);
}

double RandomTrees::predict(const Tree &t)
{
    if (auto f = predict_fast(t)) {
        ++fast_count_;
        return *f;
    }
    return predict_plan(t);
}

void RandomTrees::subtree_runs(int c)
{
    if (1 == sz_[c]) {  // a leaf, most children: no bit set to walk
        runs_.assign(1, {rank_[c], 1});
        return;
    }
    // The subtree's ranks as bits (the subtree is pre_[pos_[c] .. pos_[c] + sz_[c])), read back
    // in ascending order.
    const int lo = pos_[c], hi = lo + sz_[c];
    size_t wmin = bits_.size(), wmax = 0;
    for (int i = lo; i < hi; ++i) {
        const size_t r = static_cast<size_t>(rank_[pre_[i]]);
        bits_[r / 64] |= uint64_t(1) << (r % 64);
        wmin = std::min(wmin, r / 64);
        wmax = std::max(wmax, r / 64);
    }
    runs_.clear();
    int next = -2;  // the rank after the current run
    for (size_t w = wmin; w <= wmax; ++w) {
        uint64_t x = bits_[w];
        bits_[w] = 0;
        while (x != 0) {
            const int r = static_cast<int>(w * 64) + __builtin_ctzll(x);
            x &= x - 1;
            if (r == next) {
                ++runs_.back().second;
            } else {
                runs_.push_back({r, 1});
            }
            next = r + 1;
        }
    }
}

std::optional<double> RandomTrees::predict_fast(const Tree &t)
{
    const int k = static_cast<int>(lay_.nodes.size());
    if (!fast_ || t.size() != k || t.root != lay_.root_node) {
        return std::nullopt;
    }
    // Preorder (subtrees are contiguous in it; parents come before children) and subtree sizes.
    pre_.clear();
    pos_.assign(k, -1);
    stack_.assign(1, t.root);
    while (!stack_.empty()) {
        const int v = stack_.back();
        stack_.pop_back();
        if (pos_[v] >= 0) {
            return std::nullopt;  // not a tree
        }
        pos_[v] = static_cast<int>(pre_.size());
        pre_.push_back(v);
        for (int c : t.children[v]) {
            stack_.push_back(c);
        }
    }
    if (static_cast<int>(pre_.size()) != k) {
        return std::nullopt;
    }
    sz_.assign(k, 1);
    for (int i = k - 1; i > 0; --i) {
        sz_[t.parent[pre_[i]]] += sz_[pre_[i]];
    }
    // The tree's links, gathered in one pass (independent loads, prefetched ahead).
    const bool up = in_.coll == CACORE_COLL_REDUCE || in_.coll == CACORE_COLL_GATHER;
    edge_.resize(k);
    constexpr int kAhead = 16;
    for (int u = 0; u < k + kAhead; ++u) {
        const int w = u + kAhead;
        if (w < k && t.parent[w] >= 0) {
            __builtin_prefetch(up ? &link(w, t.parent[w]) : &link(t.parent[w], w));
        }
        if (u < k && t.parent[u] >= 0) {
            edge_[u] = up ? link(u, t.parent[u]) : link(t.parent[u], u);
        }
    }
    time_.assign(k, 0.0);
    double fin = 0.0;
    const double whole = bytes_of(0, nblocks_);
    auto own = [&](int v) { return bytes_of(rank_[v], 1); };

    switch (in_.coll) {
    case CACORE_COLL_BCAST:
        // time_[v]: when v has received the data
        for (int v : pre_) {
            double tv = time_[v];
            for (int c : t.children[v]) {
                const Link &ln = edge_[c];
                const double end = tv + (ln.latency_s + whole / ln.bandwidth_Bps);
                time_[c] = end;
                tv = end;
                fin = std::max(fin, end);
            }
        }
        return fin;

    case CACORE_COLL_REDUCE:
        // time_[v]: when v posts its send (its partial result is complete); sround_: send rounds
        sround_.assign(k, 0);
        for (int i = k - 1; i >= 0; --i) {
            const int v = pre_[i];
            kids_.assign(t.children[v].begin(), t.children[v].end());
            for (size_t a = 1; a < kids_.size(); ++a) {  // stable, by send round
                const int x = kids_[a];
                size_t j = a;
                while (j > 0 && sround_[kids_[j - 1]] > sround_[x]) {
                    kids_[j] = kids_[j - 1];
                    --j;
                }
                kids_[j] = x;
            }
            int tcur = 0;
            double tv = 0.0;
            bool first = true;
            for (int c : kids_) {
                tcur = std::max(sround_[c], tcur) + 1;
                const double start = std::max(time_[c], tv);
                const Link &ln = edge_[c];
                const double end = start + (ln.latency_s + whole / ln.bandwidth_Bps);
                fin = std::max(fin, end);
                tv = end;
                if (first) {
                    tv += whole / cost_.copy_Bps;
                    first = false;
                }
                tv += whole / cost_.reduce_Bps;
            }
            sround_[v] = tcur;
            time_[v] = tv;
            fin = std::max(fin, tv);
        }
        return fin;

    case CACORE_COLL_GATHER:
        // time_[v]: when v posts its sends (it holds its whole subtree's parts)
        for (int i = k - 1; i >= 0; --i) {
            const int v = pre_[i];
            const auto &ch = t.children[v];
            if (ch.empty()) {
                time_[v] = 0.0;
                continue;
            }
            double tpost = 0.0;
            tpost += own(v) / cost_.copy_Bps;
            // Ready order at v's receive port. The leaves' sends and v's receives are all posted
            // before the simulation's first event: a leaf of lower rank is matched when v posts
            // (in v's posting order, its child order), the others when the leaf posts (in rank
            // order). The other children follow in the order their gathers complete.
            ev_.clear();
            for (int c : ch) {
                if (t.children[c].empty() && rank_[c] < rank_[v]) {
                    ev_.push_back({tpost, c});
                }
            }
            const size_t nlow = ev_.size();
            for (int c : ch) {
                if (t.children[c].empty() && rank_[c] > rank_[v]) {
                    ev_.push_back({tpost, c});
                }
            }
            std::sort(ev_.begin() + static_cast<long>(nlow), ev_.end(),
                      [&](const std::pair<double, int> &a, const std::pair<double, int> &b) {
                          return rank_[a.second] < rank_[b.second];
                      });
            const size_t nleaves = ev_.size();
            for (int c : ch) {
                if (!t.children[c].empty()) {
                    if (!(time_[c] > tpost)) {
                        return std::nullopt;  // ties with the leaves: matching order not replayed
                    }
                    ev_.push_back({time_[c], c});
                }
            }
            std::sort(ev_.begin() + static_cast<long>(nleaves), ev_.end());
            for (size_t e = nleaves + 1; e < ev_.size(); ++e) {
                if (ev_[e].first == ev_[e - 1].first) {
                    return std::nullopt;  // two children ready at the same time
                }
            }
            double port = 0.0;  // v's receive port is free from
            for (const auto &evc : ev_) {
                const int c = evc.second;
                subtree_runs(c);
                const Link &ln = edge_[c];
                for (const auto &run : runs_) {
                    const double start = std::max(evc.first, port);
                    const double end =
                        start + (ln.latency_s + bytes_of(run.first, run.second) / ln.bandwidth_Bps);
                    port = end;
                    fin = std::max(fin, end);
                }
            }
            time_[v] = std::max(tpost, port);
            fin = std::max(fin, time_[v]);
        }
        return fin;

    case CACORE_COLL_SCATTER:
        // time_[v]: when v has received its subtree's parts
        for (int v : pre_) {
            kids_.assign(t.children[v].begin(), t.children[v].end());
            biggest_first(kids_, sz_);
            double tv = time_[v];
            for (int c : kids_) {
                subtree_runs(c);
                const Link &ln = edge_[c];
                for (const auto &run : runs_) {
                    tv = tv + (ln.latency_s + bytes_of(run.first, run.second) / ln.bandwidth_Bps);
                }
                time_[c] = tv;
                fin = std::max(fin, tv);
            }
            if (!kids_.empty()) {
                tv += own(v) / cost_.copy_Bps;  // own part from the staging buffer to OUT
            }
            fin = std::max(fin, tv);
        }
        return fin;

    default:
        return std::nullopt;
    }
}

MonteCarloResult run_montecarlo(const PlanInput &in, const Layout &lay, const CostParams &c,
                                long trees, uint64_t seed)
{
    MonteCarloResult res;
    if (trees < 1) {
        return res;
    }
    RandomTrees rt(in, lay, c);
    std::mt19937_64 rng(seed);
    std::vector<double> times;
    times.reserve(static_cast<size_t>(trees));
    Tree t;
    for (long i = 0; i < trees; ++i) {
        rt.draw(rng, t);
        times.push_back(rt.predict(t));
    }
    std::sort(times.begin(), times.end());
    res.trees = trees;
    res.fast = rt.fast_count();
    res.best_s = times.front();
    res.median_s = times[times.size() / 2];
    return res;
}

}  // namespace cacore
