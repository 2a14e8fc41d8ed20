// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// rail_plan.hpp - split-rail allreduce and allgather (docs/model.md, "Split rails"): every rank of
// a node carries a slice of the data across the slow levels, concurrently with its node peers
// (UCC cl/hier split_rail; Horovod, Sergeev & Del Balso 2018).
#ifndef CACORE_RAIL_PLAN_HPP
#define CACORE_RAIL_PLAN_HPP

#include "layout.hpp"
#include "plan.hpp"

namespace cacore {

// node_pat: flat = one rail (the node leader carries everything: hierarchical reduce-scatter +
// allgather across node leaders), ring or rabenseifner (slices by ring or by recursive halving /
// doubling inside the node); any other = ring. top_pat, across nodes on each rail: ring,
// rabenseifner, recdbl (allgather: rabenseifner = recdbl); any other = ring.
// Allreduce and allgather only (fail_arg otherwise).
Plan build_rail(const PlanInput &in, const Layout &lay, int node_pat, int top_pat);

}  // namespace cacore
#endif
