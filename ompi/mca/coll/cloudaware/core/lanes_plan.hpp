// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// lanes_plan.hpp - multi-lane bcast, reduce and allreduce (docs/model.md, "Lanes"): the segments
// take turns over k trees across the node leaders, each tree entering every group of nodes through
// its own host and crossing each group boundary over its own host pair, so that a boundary carries
// k streams of 1/k of the data instead of one stream of all of it (the two-tree broadcast of the
// multi-lane paper, Träff's k-lane collectives, over the performance hierarchy's groups).
#ifndef CACORE_LANES_PLAN_HPP
#define CACORE_LANES_PLAN_HPP

#include "layout.hpp"
#include "patterns.hpp"
#include "plan.hpp"

#include <vector>

namespace cacore {

// The k lane trees over local node indices, rooted at lay.root_node. The groups (the hierarchy's
// level 1, or all nodes when it has none) are visited in one order, each group contiguously: in
// pattern chain a lane runs a chain through the group from its entry host; in pattern flat the
// entry host serves the group's other hosts directly. Entries and edges already taken by an
// earlier lane are avoided where the group has another choice, and so are capped hosts (node
// capacity) as the entries of flat groups. No two lanes share an edge: the first lane that would
// ends the list (at least one lane). down: bcast (costs parent -> child), else reduce
// (child -> parent); bytes: what one lane moves.
std::vector<Tree> lane_trees(const Layout &lay, int nlanes, int group_pat, bool down, double bytes);

// Bcast, reduce or allreduce (fail_arg otherwise): the node phase with pattern node_pat (binomial
// or flat), and the node leaders' pipelined bcast / reduce over lane_trees, segment s on lane
// s mod k; an allreduce reduces up the lanes and broadcasts back down them, each segment as soon
// as it is complete at the root.
Plan build_lanes(const PlanInput &in, const Layout &lay, int nlanes, int group_pat, int node_pat,
                 int nsegs);

}  // namespace cacore
#endif
