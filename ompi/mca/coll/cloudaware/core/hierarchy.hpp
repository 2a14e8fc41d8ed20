// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// hierarchy.hpp - the network performance hierarchy (CMPI Algorithms 1 and 2) and node distance.
#ifndef CACORE_HIERARCHY_HPP
#define CACORE_HIERARCHY_HPP

#include "matrix.hpp"

#include <vector>

namespace cacore {

struct HierParams {
    double k = 4.0;   // discretization factor
    int t_span = 1;   // span threshold in machines; < 0 disables rebalancing
};

struct Group {
    std::vector<int> members;    // node indices, ascending
    std::vector<int> children;   // group indices one level below (empty on level 0)
    int leader = -1;             // see leaders.hpp
};

class Hierarchy {
public:
    int nodes() const { return static_cast<int>(group_of_.empty() ? 0 : group_of_[0].size()); }
    int levels() const { return static_cast<int>(levels_.size()); }
    const std::vector<Group> &level(int l) const { return levels_[l]; }
    const Group &group(int l, int g) const { return levels_[l][g]; }
    int group_of(int l, int node) const { return group_of_[l][node]; }
    int top() const { return levels() - 1; }
    // Level of the lowest common ancestor: 0 for a node and itself.
    int distance(int a, int b) const;

    // Used by the builder.
    void add_level(std::vector<Group> groups);
    Group &mutable_group(int l, int g) { return levels_[l][g]; }

private:
    std::vector<std::vector<Group>> levels_;
    std::vector<std::vector<int>> group_of_;
};

// Algorithm 1: level 0 = one group per node, then Algorithm 2 until one group is left. Leaders
// are filled in (leaders.hpp). bytes selects M(m).
Hierarchy build_hierarchy(const Matrix &m, double bytes, const HierParams &p);

// Levels 0..l of h (0 < l < h.top()) under one top group whose children are level l's groups,
// with h's top leader.
Hierarchy collapse_above(const Hierarchy &h, int l);

}  // namespace cacore
#endif
