// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// hierarchy.cpp - CMPI Algorithm 2 on "units" (the groups of the level below), with a byte matrix
// of unit distances: O(N^2) bytes, no per-level matrices of doubles.
#include "hierarchy.hpp"

#include "discretize.hpp"
#include "error.hpp"
#include "leaders.hpp"

#include <algorithm>
#include <cstdint>

namespace cacore {

int Hierarchy::distance(int a, int b) const
{
    for (int l = 0; l < levels(); ++l) {
        if (group_of_[l][a] == group_of_[l][b]) {
            return l;
        }
    }
    return top();
}

void Hierarchy::add_level(std::vector<Group> groups)
{
    int n = levels_.empty() ? 0 : nodes();
    if (levels_.empty()) {
        for (const auto &g : groups) {
            n += static_cast<int>(g.members.size());
        }
    }
    std::vector<int> of(n, -1);
    for (size_t g = 0; g < groups.size(); ++g) {
        std::sort(groups[g].members.begin(), groups[g].members.end());
        for (int node : groups[g].members) {
            of[node] = static_cast<int>(g);
        }
    }
    levels_.push_back(std::move(groups));
    group_of_.push_back(std::move(of));
}

namespace {

// Unit distance matrix: D[a][b] = max level over member pairs, both directions.
struct Units {
    int u = 0;
    std::vector<int> size;        // machines per unit
    std::vector<uint8_t> d;       // u*u
    uint8_t at(int a, int b) const { return d[static_cast<size_t>(a) * u + b]; }
};

// Greedy grouping at boundary b (Algorithm 2 lines 4-8): each unit joins the qualifying group with
// the fewest machines, or opens a new group. Returns the unit lists of the groups.
std::vector<std::vector<int>> group_at(const Units &U, int b)
{
    std::vector<std::vector<int>> groups;
    std::vector<int> machines;
    std::vector<std::vector<uint8_t>> gmax;  // gmax[g][q] = max over members of D[member][q]
    for (int p = 0; p < U.u; ++p) {
        int best = -1;
        for (size_t g = 0; g < groups.size(); ++g) {
            if (gmax[g][p] <= b && (best < 0 || machines[g] < machines[best])) {
                best = static_cast<int>(g);
            }
        }
        if (best < 0) {
            best = static_cast<int>(groups.size());
            groups.emplace_back();
            machines.push_back(0);
            gmax.emplace_back(U.u, 0);
        }
        groups[best].push_back(p);
        machines[best] += U.size[p];
        auto &gm = gmax[best];
        const uint8_t *row = &U.d[static_cast<size_t>(p) * U.u];
        for (int q = 0; q < U.u; ++q) {
            gm[q] = std::max(gm[q], row[q]);
        }
    }
    return groups;
}

int machines_of(const Units &U, const std::vector<int> &g)
{
    int s = 0;
    for (int p : g) {
        s += U.size[p];
    }
    return s;
}

// Algorithm 2 lines 10-11: move units from the largest to the smallest group while the span
// exceeds t_span and a move makes progress; the unit moved is the one closest to the target.
void rebalance(const Units &U, std::vector<std::vector<int>> &groups, int t_span)
{
    if (t_span < 0 || groups.size() < 2) {
        return;
    }
    for (int guard = 0; guard < U.u * U.u + 16; ++guard) {
        int big = 0, small = 0;
        std::vector<int> m(groups.size());
        for (size_t g = 0; g < groups.size(); ++g) {
            m[g] = machines_of(U, groups[g]);
            if (m[g] > m[big]) {
                big = static_cast<int>(g);
            }
            if (m[g] < m[small]) {
                small = static_cast<int>(g);
            }
        }
        const int span = m[big] - m[small];
        if (span <= t_span) {
            return;
        }
        int pick = -1, pick_d = 256;
        for (size_t i = 0; i < groups[big].size(); ++i) {
            int p = groups[big][i];
            if (U.size[p] >= span || groups[big].size() < 2) {
                continue;  // moving it would not shrink the gap
            }
            int d = 0;
            for (int q : groups[small]) {
                d = std::max<int>(d, U.at(p, q));
            }
            if (d < pick_d) {
                pick_d = d;
                pick = static_cast<int>(i);
            }
        }
        if (pick < 0) {
            return;
        }
        groups[small].push_back(groups[big][pick]);
        groups[big].erase(groups[big].begin() + pick);
    }
}

// Swaps of units of equal size between the groups while a swap lowers the groups' inner cost (the
// sum of M(m), both ways, over the pairs of nodes that share a group) by more than 1 % of what
// the two units cost where they were. The greedy grouping above joins units in index order under
// a bound on the worst pair, so on a noisy matrix it can put a node into another rack when its
// worst pair with its own rack is no better than one across (measured on cloud-16, rates +-50 %
// per pair: two hosts of two racks swapped). The number of groups and their sizes stay as chosen.
// Skipped when the table of node-to-group costs would exceed 2^21 entries (16 MiB).
void refine(const Matrix &m, double bytes, const Hierarchy &h, const Units &U,
            std::vector<std::vector<int>> &groups)
{
    const int ng = static_cast<int>(groups.size()), n = m.nodes(), below = h.top();
    if (ng < 2 || static_cast<size_t>(n) * ng > (size_t{1} << 21)) {
        return;
    }
    auto pair_cost = [&](int x, int y) { return m.cost(x, y, bytes) + m.cost(y, x, bytes); };
    auto members = [&](int unit) -> const std::vector<int> & {
        return h.group(below, unit).members;
    };
    std::vector<int> of(U.u);
    std::vector<double> to_group(static_cast<size_t>(n) * ng, 0.0);   // node x, group g
    for (int g = 0; g < ng; ++g) {
        for (int unit : groups[g]) {
            of[unit] = g;
            for (int y : members(unit)) {
                for (int x = 0; x < n; ++x) {
                    to_group[static_cast<size_t>(x) * ng + g] += pair_cost(x, y);
                }
            }
        }
    }
    auto unit_to_group = [&](int unit, int g) {
        double s = 0;
        for (int x : members(unit)) {
            s += to_group[static_cast<size_t>(x) * ng + g];
        }
        return s;
    };
    auto between = [&](int p, int q) {
        double s = 0;
        for (int x : members(p)) {
            for (int y : members(q)) {
                s += pair_cost(x, y);
            }
        }
        return s;
    };
    std::vector<double> inner(U.u);   // a unit's own pairs: the same wherever it goes
    for (int unit = 0; unit < U.u; ++unit) {
        inner[unit] = between(unit, unit);
    }
    bool swapped = true;
    for (int pass = 0; swapped && pass < 16; ++pass) {
        swapped = false;
        for (int p = 0; p < U.u; ++p) {
            for (int q = p + 1; q < U.u; ++q) {
                const int a = of[p], b = of[q];
                if (a == b || U.size[p] != U.size[q]) {
                    continue;
                }
                const double before =
                    unit_to_group(p, a) - inner[p] + unit_to_group(q, b) - inner[q];
                const double after = unit_to_group(p, b) + unit_to_group(q, a) - 2 * between(p, q);
                if (before - after <= 0.01 * before) {
                    continue;
                }
                for (int x = 0; x < n; ++x) {
                    double d = 0;
                    for (int y : members(q)) {
                        d += pair_cost(x, y);
                    }
                    for (int y : members(p)) {
                        d -= pair_cost(x, y);
                    }
                    to_group[static_cast<size_t>(x) * ng + a] += d;
                    to_group[static_cast<size_t>(x) * ng + b] -= d;
                }
                std::swap(of[p], of[q]);
                swapped = true;
            }
        }
    }
    for (auto &g : groups) {
        g.clear();
    }
    for (int unit = 0; unit < U.u; ++unit) {
        groups[of[unit]].push_back(unit);
    }
}

}  // namespace

Hierarchy build_hierarchy(const Matrix &m, double bytes, const HierParams &p)
{
    const int n = m.nodes();
    Levels lv(m, bytes, p.k);
    Hierarchy h;
    std::vector<Group> level0(n);
    for (int i = 0; i < n; ++i) {
        level0[i].members = {i};
    }
    h.add_level(std::move(level0));

    Units U;
    U.u = n;
    U.size.assign(n, 1);
    U.d.resize(static_cast<size_t>(n) * n);
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            U.d[static_cast<size_t>(a) * n + b] = a == b ? 0 : lv.sym(a, b);
        }
    }
    while (U.u > 1) {
        // Candidate boundaries: the distinct unit distances; the largest makes a single group.
        std::vector<int> cand;
        {
            bool seen[256] = {false};
            for (size_t i = 0; i < U.d.size(); ++i) {
                seen[U.d[i]] = true;
            }
            for (int v = 0; v < 256; ++v) {
                if (seen[v]) {
                    cand.push_back(v);
                }
            }
        }
        // Smallest boundary whose grouping at least halves the unit count (bisection; the
        // greedy's group count falls as b grows).
        int lo = 0, hi = static_cast<int>(cand.size()) - 1;
        std::vector<std::vector<int>> best = group_at(U, cand[hi]);
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            auto g = group_at(U, cand[mid]);
            if (2 * g.size() <= static_cast<size_t>(U.u)) {
                hi = mid;
                best = std::move(g);
            } else {
                lo = mid + 1;
            }
        }
        if (2 * best.size() > static_cast<size_t>(U.u)) {
            best = group_at(U, 255);
        }
        rebalance(U, best, p.t_span);
        refine(m, bytes, h, U, best);

        // New level: groups of machines with their child groups.
        const int below = h.top();
        std::vector<Group> groups(best.size());
        for (size_t g = 0; g < best.size(); ++g) {
            std::sort(best[g].begin(), best[g].end());
            for (int unit : best[g]) {
                groups[g].children.push_back(unit);
                const auto &mem = h.group(below, unit).members;
                groups[g].members.insert(groups[g].members.end(), mem.begin(), mem.end());
            }
        }
        h.add_level(std::move(groups));

        Units next;
        next.u = static_cast<int>(best.size());
        next.size.resize(next.u);
        next.d.assign(static_cast<size_t>(next.u) * next.u, 0);
        std::vector<int> unit_group(U.u);
        for (int g = 0; g < next.u; ++g) {
            next.size[g] = machines_of(U, best[g]);
            for (int unit : best[g]) {
                unit_group[unit] = g;
            }
        }
        for (int a = 0; a < U.u; ++a) {
            for (int b = 0; b < U.u; ++b) {
                uint8_t &cell = next.d[static_cast<size_t>(unit_group[a]) * next.u + unit_group[b]];
                cell = std::max(cell, U.at(a, b));
            }
        }
        for (int g = 0; g < next.u; ++g) {
            next.d[static_cast<size_t>(g) * next.u + g] = 0;
        }
        U = std::move(next);
    }
    assign_leaders(h, m, bytes);
    return h;
}

Hierarchy collapse_above(const Hierarchy &h, int l)
{
    Hierarchy out;
    for (int k = 0; k <= l; ++k) {
        out.add_level(h.level(k));
    }
    Group top = h.group(h.top(), 0);
    top.children.resize(h.level(l).size());
    for (size_t g = 0; g < top.children.size(); ++g) {
        top.children[g] = static_cast<int>(g);
    }
    out.add_level({std::move(top)});
    return out;
}

}  // namespace cacore
