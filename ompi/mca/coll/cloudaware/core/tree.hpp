// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// tree.hpp - CMPI Algorithm 4: gather/scatter trees over nodes from the performance hierarchy.
#ifndef CACORE_TREE_HPP
#define CACORE_TREE_HPP

#include "hierarchy.hpp"
#include "matrix.hpp"

#include <functional>
#include <vector>

namespace cacore {

// A subtree during construction: node[0] is its root, par[i] indexes into node (-1 for the root).
struct SubTree {
    std::vector<int> node;
    std::vector<int> par;
    int size() const { return static_cast<int>(node.size()); }
};

// link(child, parent): cost of the edge the data crosses (gather: child->parent).
using LinkFn = std::function<double(int, int)>;

// Algorithm 4's adjustment of DOWN to |UP| = up: while |DOWN| < up, split the largest subtree
// (detach its root's biggest child subtree); while |DOWN| > up, merge the two smallest (the one
// whose root has the worse link becomes a child of the other's root).
void adjust_down(std::vector<SubTree> &down, int up, const LinkFn &link);

// The communication tree over all nodes of h rooted at root: attach, level by level, the sibling
// subtrees at distance 1, 2, ... from the root to the nodes already in the tree; each attached
// subtree is re-rooted at its member with the best link to its parent. parent[root] = -1.
// Children lists are ordered by decreasing subtree size.
struct NodeTree {
    int root = 0;
    std::vector<int> parent;
    std::vector<std::vector<int>> children;
};
NodeTree build_node_tree(const Hierarchy &h, int root, const LinkFn &link);

}  // namespace cacore
#endif
