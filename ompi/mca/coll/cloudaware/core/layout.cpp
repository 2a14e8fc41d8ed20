// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// layout.cpp - input validation and the rank layout.
#include "layout.hpp"

#include "error.hpp"
#include "plan.hpp"

#include <algorithm>
#include <cmath>

namespace cacore {

void validate(const PlanInput &in)
{
    if (in.matrix == nullptr) {
        fail_arg("no matrix");
    }
    const int n = static_cast<int>(in.rank_node.size());
    if (n < 1) {
        fail_arg("a plan needs at least one rank");
    }
    if (in.coll < 0 || in.coll >= CACORE_COLL_COUNT) {
        fail_arg("unknown collective " + std::to_string(static_cast<int>(in.coll)));
    }
    if (is_rooted(in.coll) && (in.root < 0 || in.root >= n)) {
        fail_arg("root " + std::to_string(in.root) + " out of range 0.." + std::to_string(n - 1));
    }
    if (!std::isfinite(in.bytes) || in.bytes < 0) {
        fail_arg("message size must be finite and >= 0");
    }
    for (int r = 0; r < n; ++r) {
        if (in.rank_node[r] < 0 || in.rank_node[r] >= in.matrix->nodes()) {
            fail_arg("rank " + std::to_string(r) + " is on node " + std::to_string(in.rank_node[r]) +
                     ", but the matrix has " + std::to_string(in.matrix->nodes()) + " nodes");
        }
    }
}

double total_bytes(const PlanInput &in)
{
    return is_gather_type(in.coll) ? in.bytes * static_cast<double>(in.rank_node.size()) : in.bytes;
}

Layout::Layout(const PlanInput &in, const HierParams &hp)
{
    validate(in);
    const int n = static_cast<int>(in.rank_node.size());
    nodes = in.rank_node;
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    local.resize(n);
    ranks.assign(nodes.size(), {});
    for (int r = 0; r < n; ++r) {
        local[r] = static_cast<int>(std::lower_bound(nodes.begin(), nodes.end(), in.rank_node[r]) -
                                    nodes.begin());
        ranks[local[r]].push_back(r);
    }
    const int root = is_rooted(in.coll) ? in.root : 0;
    root_node = local[root];
    leader.resize(nodes.size());
    for (size_t k = 0; k < nodes.size(); ++k) {
        leader[k] = static_cast<int>(k) == root_node ? root : ranks[k][0];
    }
    sub = in.matrix->sub(nodes);
    // Gather-type messages grow towards the root: group by the size a typical upper link carries.
    const double hier_bytes = is_gather_type(in.coll) ? in.bytes * std::max(1.0, n / 2.0) : in.bytes;
    hier = build_hierarchy(sub, hier_bytes, hp);
}

std::vector<int> Layout::ranks_of_group(int l, int g) const
{
    std::vector<int> out;
    for (int node : hier.group(l, g).members) {
        out.insert(out.end(), ranks[node].begin(), ranks[node].end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace cacore
