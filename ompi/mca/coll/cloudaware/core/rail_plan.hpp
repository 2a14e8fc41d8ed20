// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// rail_plan.hpp - split-rail allreduce, allgather and bcast (docs/model.md, "Split rails"): every
// rank of a node carries a slice of the data across the slow levels, concurrently with its node
// peers (UCC cl/hier split_rail; Horovod, Sergeev & Del Balso 2018).
#ifndef CACORE_RAIL_PLAN_HPP
#define CACORE_RAIL_PLAN_HPP

#include "layout.hpp"
#include "plan.hpp"

#include <array>

namespace cacore {

// pat[0] splits inside nodes, pat[1] at every hierarchy level below the top: flat = no split
// (the unit's first child carries everything: reduce to a leader), ring or rabenseifner
// (reduce-scatter by ring or by recursive halving, allgather back the same way), direct
// (allgather only: the carriers exchange what they hold in one round; just below the top, their
// own parts while those cross the top); any other = ring. pat[2] across the top unit's children:
// ring, rabenseifner or recdbl (allgather: rabenseifner = recdbl; direct); any other = ring;
// bcast: ring = scatter + ring allgather, any other = binomial tree. Allreduce, allgather and
// bcast only (fail_arg otherwise). nsegs: an allgather direct both across the top and just below
// it runs the top in that many segments, each handed on below while the next crosses; 1 = whole.
Plan build_rail(const PlanInput &in, const Layout &lay,
                const std::array<int, CACORE_PLAN_LEVELS> &pat, int nsegs = 1);

}  // namespace cacore
#endif
