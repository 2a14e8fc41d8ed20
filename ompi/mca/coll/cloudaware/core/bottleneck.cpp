// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// bottleneck.cpp - shared bottlenecks inferred from the lone samples of calibration.
#include "bottleneck.hpp"

#include "hierarchy.hpp"

#include <algorithm>
#include <cmath>

namespace cacore {

double Bottlenecks::lone_rate(const Matrix &m, int a, int b) const
{
    const int g = group_of(a), h = group_of(b);
    const double c = capacity(g, h);
    const double r = m.bandwidth(a, b) * factor_of(g, h);
    return c > 0 ? std::min(r, c) : r;
}

Bottlenecks infer_bottlenecks(const Matrix &m)
{
    const int n = m.nodes();
    if (!m.has_node_props() || n < 3) {
        return {};
    }
    bool any = false;
    for (int k = 0; k < n; ++k) {
        any = any || m.node_props(k).lone_Bps > 0;
    }
    if (!any) {
        return {};
    }
    // The groups: one level below the top of the performance hierarchy (at 1 MiB, the default
    // parameters). Flat (nodes, then everything): nothing is shared between groups.
    const Hierarchy h = build_hierarchy(m, 1 << 20, HierParams{});
    if (h.levels() < 3) {
        return {};
    }
    const int level = h.levels() - 2, ng = static_cast<int>(h.level(level).size());
    if (ng < 2) {
        return {};
    }
    // The samples per ordered group pair. A sample's pair is the peer whose rate in the matrix is
    // exactly the concurrent rate measured with it (the same number, copied through the exchange
    // and the cache); a rate measured again since (another calibration) no longer matches.
    std::vector<std::vector<double>> f(static_cast<size_t>(ng) * ng), lone(f.size());
    for (int k = 0; k < n; ++k) {
        const NodeProps &p = m.node_props(k);
        if (p.lone_Bps <= 0) {
            continue;
        }
        for (int j = 0; j < n; ++j) {
            if (j == k || std::fabs(m.bandwidth(k, j) - p.shared_Bps) > 1e-9 * p.shared_Bps) {
                continue;
            }
            const int g = h.group_of(level, k), hh = h.group_of(level, j);
            if (g != hh) {
                const size_t at = static_cast<size_t>(g) * ng + hh;
                f[at].push_back(p.lone_Bps / p.shared_Bps);
                lone[at].push_back(p.lone_Bps);
            }
            break;
        }
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
    for (size_t at = 0; at < f.size(); ++at) {
        if (f[at].empty()) {
            continue;
        }
        std::vector<double> v = f[at];
        std::sort(v.begin(), v.end());
        const size_t s = v.size();
        const double med = s % 2 ? v[s / 2] : 0.5 * (v[s / 2 - 1] + v[s / 2]);
        if (med >= kSharedRatio) {
            b.factor[at] = med;
            // At least what one flow got alone: a lower bound of the shared link.
            b.capacity_Bps[at] = *std::max_element(lone[at].begin(), lone[at].end());
            shared = true;
        }
    }
    return shared ? b : Bottlenecks{};
}

}  // namespace cacore
