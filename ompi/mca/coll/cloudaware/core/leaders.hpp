// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// leaders.hpp - group leaders: the member with the smallest sum of inbound M (CMPI section 4.3).
#ifndef CACORE_LEADERS_HPP
#define CACORE_LEADERS_HPP

#include "hierarchy.hpp"
#include "matrix.hpp"

#include <vector>

namespace cacore {

// Fills Group::leader on every level. Level 0: the node. Level l > 0: among the leaders of the
// child groups (the processes that talk at that level, Algorithm 3), the one minimising the sum of
// M(bytes) from the other child leaders to it; ties go to the lowest node index.
void assign_leaders(Hierarchy &h, const Matrix &m, double bytes);

// Leaders per [level][group] for an operation rooted at root_node: the root's node leads every
// group it belongs to (CMPI section 4.3); the other groups keep their leaders.
std::vector<std::vector<int>> leaders_for_root(const Hierarchy &h, int root_node);

}  // namespace cacore
#endif
