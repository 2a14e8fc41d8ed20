// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// leaders.cpp - leader selection by inbound cost, and the root override.
#include "leaders.hpp"

namespace cacore {

void assign_leaders(Hierarchy &h, const Matrix &m, double bytes)
{
    for (int l = 0; l < h.levels(); ++l) {
        for (size_t g = 0; g < h.level(l).size(); ++g) {
            Group &grp = h.mutable_group(l, static_cast<int>(g));
            if (l == 0) {
                grp.leader = grp.members[0];
                continue;
            }
            std::vector<int> cand;
            for (int c : grp.children) {
                cand.push_back(h.group(l - 1, c).leader);
            }
            int best = -1;
            double best_sum = 0;
            for (int p : cand) {
                double s = 0;
                for (int q : cand) {
                    s += m.cost(q, p, bytes);
                }
                if (best < 0 || s < best_sum || (s == best_sum && p < best)) {
                    best = p;
                    best_sum = s;
                }
            }
            grp.leader = best;
        }
    }
}

std::vector<std::vector<int>> leaders_for_root(const Hierarchy &h, int root_node)
{
    std::vector<std::vector<int>> out(h.levels());
    for (int l = 0; l < h.levels(); ++l) {
        for (const auto &g : h.level(l)) {
            out[l].push_back(g.leader);
        }
        out[l][h.group_of(l, root_node)] = root_node;
    }
    return out;
}

}  // namespace cacore
