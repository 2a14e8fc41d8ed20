// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// bottleneck.cpp - shared bottlenecks inferred from the lone samples of calibration.
#include "bottleneck.hpp"

#include "hierarchy.hpp"
#include "median.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace cacore {

double Bottlenecks::lone_rate(const Matrix &m, int a, int b) const
{
    const int g = group_of(a), h = group_of(b);
    if (!shared(g, h)) {
        return m.bandwidth(a, b);
    }
    for (int s = 0; s < kLoneSamples; ++s) {
        const LoneSample &x = sample(a, s);
        if (x.peer == b) {
            return x.lone_Bps;
        }
    }
    return std::min(m.bandwidth(a, b) * factor_of(g, h), capacity(g, h));
}

namespace {

// Node k's lone samples, into out[0..kLoneSamples). A sample's pair is the peer whose rate in
// the matrix is exactly the concurrent rate measured with it (the same number, copied through
// the exchange and the cache); a rate measured again since (another calibration) no longer
// matches.
void lone_samples(const Matrix &m, int k, LoneSample *out)
{
    const NodeProps &p = m.node_props(k);
    const double lone[kLoneSamples] = {p.lone_Bps, p.lone2_Bps};
    const double shared[kLoneSamples] = {p.shared_Bps, p.shared2_Bps};
    for (int s = 0; s < kLoneSamples; ++s) {
        if (lone[s] <= 0) {
            continue;   // none, or not measured (a file of version 4 or older)
        }
        for (int j = 0; j < m.nodes(); ++j) {
            if (j != k && std::fabs(m.bandwidth(k, j) - shared[s]) <= 1e-9 * shared[s]) {
                out[s] = LoneSample{j, lone[s], shared[s]};
                break;
            }
        }
    }
}

// Two capacities this close (ratio) are one limit seen twice.
constexpr double kSameWay = 1.1;

// A group's way out (in) from the capacities of its group pairs with the other groups: each is
// the least of the sender's way out, the receiver's way in and what lies between, so one alone
// does not say which, and the way carries at least the largest (one flow alone got it through).
// When the next largest agrees with it (within kSameWay), both are taken as the group's own way,
// which they share; otherwise it is unknown (0: the pairs' capacities stay the only limits).
// racks-12: rack b's way in, 30 Mbit/s, from rack a's and rack c's flows into it; rack a's, 40,
// not (what enters it is slower: its senders' ways out, 30 and 20). Two agreeing below a larger
// one (40, 30, 30) are the other groups' ways, not this one's.
double agreed_way(std::vector<double> caps)
{
    std::sort(caps.begin(), caps.end(), std::greater<double>());
    return caps.size() >= 2 && caps[1] * kSameWay >= caps[0] ? caps[0] : 0.0;
}

}  // namespace

Bottlenecks infer_bottlenecks(const Matrix &m)
{
    const int n = m.nodes();
    if (!m.has_node_props() || n < 3) {
        return {};
    }
    bool any = false;
    for (int k = 0; k < n; ++k) {
        any = any || m.node_props(k).lone_Bps > 0 || m.node_props(k).lone2_Bps > 0;
    }
    if (!any) {
        return {};
    }
    // The groups: the finest groups of the performance hierarchy at 1 MiB as clustered, without
    // the rebalancing to equal spans that suits plans (it moves nodes of a large rack into a
    // small rack's group). Flat (nodes, then everything): nothing is shared between groups.
    HierParams hp;
    hp.t_span = -1;
    const Hierarchy h = build_hierarchy(m, 1 << 20, hp);
    if (h.levels() < 3) {
        return {};
    }
    const int level = 1, ng = static_cast<int>(h.level(level).size());
    if (ng < 2) {
        return {};
    }
    // The samples per ordered group pair: each node's faster one (the slower may be a pair slow
    // on its own path, which says nothing of what it shares).
    std::vector<std::vector<double>> f(static_cast<size_t>(ng) * ng), lone(f.size());
    std::vector<LoneSample> samples(static_cast<size_t>(n) * kLoneSamples);
    for (int k = 0; k < n; ++k) {
        LoneSample *mine = &samples[static_cast<size_t>(k) * kLoneSamples];
        lone_samples(m, k, mine);
        const LoneSample *best = nullptr;
        for (int s = 0; s < kLoneSamples; ++s) {
            const LoneSample &x = mine[s];
            best = x.peer >= 0 && (best == nullptr || x.lone_Bps > best->lone_Bps) ? &x : best;
        }
        if (best == nullptr) {
            continue;
        }
        const int g = h.group_of(level, k), hh = h.group_of(level, best->peer);
        if (g != hh) {
            const size_t at = static_cast<size_t>(g) * ng + hh;
            f[at].push_back(best->lone_Bps / best->shared_Bps);
            lone[at].push_back(best->lone_Bps);
        }
    }
    auto most = [](const std::vector<double> &v) { return *std::max_element(v.begin(), v.end()); };
    // The fastest any flow between two groups ran alone: no way between groups is taken to be
    // faster than anything measured.
    double fastest = 0;
    for (const auto &v : lone) {
        fastest = v.empty() ? fastest : std::max(fastest, most(v));
    }
    Bottlenecks b;
    b.ngroups = ng;
    b.group.resize(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) {
        b.group[static_cast<size_t>(k)] = h.group_of(level, k);
    }
    b.factor.assign(f.size(), 1.0);
    b.capacity_Bps.assign(f.size(), 0.0);
    bool shared = false;
    for (int g = 0; g < ng; ++g) {
        for (int hh = 0; hh < ng; ++hh) {
            const size_t at = static_cast<size_t>(g) * ng + hh;
            if (g == hh) {
                continue;
            }
            double factor = 0, capacity = 0;
            if (!f[at].empty()) {
                factor = median(f[at]);
                // At least what one flow got alone: a lower bound of the shared link.
                capacity = most(lone[at]);
            } else {
                // No sample of this pair of groups: those leaving g (their lone rates are lower
                // bounds of g's way out) and those entering hh (of hh's way in); the lesser bound.
                std::vector<double> pool, out, in;
                for (int x = 0; x < ng; ++x) {
                    const size_t gx = static_cast<size_t>(g) * ng + x;
                    const size_t xh = static_cast<size_t>(x) * ng + hh;
                    pool.insert(pool.end(), f[gx].begin(), f[gx].end());
                    pool.insert(pool.end(), f[xh].begin(), f[xh].end());
                    out.insert(out.end(), lone[gx].begin(), lone[gx].end());
                    in.insert(in.end(), lone[xh].begin(), lone[xh].end());
                }
                if (pool.empty()) {
                    continue;   // nothing known: the pairs keep their measured rates
                }
                factor = median(pool);
                capacity = out.empty() ? most(in)
                           : in.empty() ? most(out) : std::min(most(out), most(in));
                // Those bounds may both come from samples behind another group's slower way (all
                // of g's samples entering one slow group): the group pair's own pairs at their
                // round rates times the factor, up to the fastest lone sample, say more.
                std::vector<double> own;
                for (int x = 0; x < n; ++x) {
                    for (int y = 0; y < n; ++y) {
                        if (h.group_of(level, x) == g && h.group_of(level, y) == hh) {
                            own.push_back(m.bandwidth(x, y) * factor);
                        }
                    }
                }
                capacity = std::max(capacity, std::min(fastest, median(own)));
            }
            if (factor >= kSharedRatio) {
                b.factor[at] = factor;
                b.capacity_Bps[at] = capacity;
                shared = true;
            }
        }
    }
    if (!shared) {
        return {};
    }
    b.samples = std::move(samples);
    if (ng >= 3) {
        b.out_Bps.assign(static_cast<size_t>(ng), 0.0);
        b.in_Bps.assign(static_cast<size_t>(ng), 0.0);
        for (int g = 0; g < ng; ++g) {
            std::vector<double> out, in;
            for (int x = 0; x < ng; ++x) {
                if (b.capacity(g, x) > 0) {
                    out.push_back(b.capacity(g, x));
                }
                if (b.capacity(x, g) > 0) {
                    in.push_back(b.capacity(x, g));
                }
            }
            b.out_Bps[static_cast<size_t>(g)] = agreed_way(out);
            b.in_Bps[static_cast<size_t>(g)] = agreed_way(in);
        }
    }
    return b;
}

}  // namespace cacore
