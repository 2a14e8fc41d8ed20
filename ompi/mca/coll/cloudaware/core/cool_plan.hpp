// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// cool_plan.hpp - cloudaware plans: COOL levels (node -> groups -> top and back) and the CMPI
// Algorithm 4 tree plan, both over a Layout.
#ifndef CACORE_COOL_PLAN_HPP
#define CACORE_COOL_PLAN_HPP

#include "layout.hpp"
#include "patterns.hpp"
#include "plan.hpp"

#include <array>

namespace cacore {

using Patterns = std::array<int, CACORE_PLAN_LEVELS>;  // cacore_pattern_t, no AUTO

// nblocks for a COOL plan with these patterns and segment count.
int cool_nblocks(const PlanInput &in, const Layout &lay, const Patterns &pat, int nsegs);
Plan build_cool(const PlanInput &in, const Layout &lay, const Patterns &pat, int nsegs);
// Algorithm 4 over the node leaders after/before a node phase with pattern node_pat.
// gather, scatter, bcast, reduce only. flat_leaders: instead of Algorithm 4, every node leader
// straight to/from the root's node, all at once (han's shape: one message per node, so a node's
// ranks do not compete for its link with small messages each).
Plan build_tree_plan(const PlanInput &in, const Layout &lay, int node_pat, bool flat_leaders = false);
// The node phase with pattern node_pat and the given tree t over the node leaders (local node
// indices, root = the root's node); concurrent: a leader serves its children at once.
Plan build_leader_tree_plan(const PlanInput &in, const Layout &lay, const Tree &t, int node_pat,
                            const LevelFn &lv, bool concurrent, cacore_algo_t algo,
                            const std::string &desc);

}  // namespace cacore
#endif
