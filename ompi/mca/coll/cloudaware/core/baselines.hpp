// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// baselines.hpp - reference plans that ignore the network: binomial tree and ring over ranks.
#ifndef CACORE_BASELINES_HPP
#define CACORE_BASELINES_HPP

#include "layout.hpp"
#include "plan.hpp"

namespace cacore {

// Binomial tree over ranks relative to the root (allreduce/allgather: binomial reduce/gather to
// rank 0, then binomial bcast), as tuned's binomial algorithms.
Plan build_binomial(const PlanInput &in);
// Ring over ranks in rank order: bcast and reduce as a pipelined chain with nsegs segments,
// allreduce as reduce-scatter + allgather, allgather as ring. Not for gather/scatter.
bool ring_applies(cacore_coll_t c);
Plan build_ring(const PlanInput &in, int nsegs);
// Linear over ranks: the root receives from (gather) or sends to (scatter) every rank directly,
// all at once, as tuned's linear algorithms. Only for gather and scatter.
bool linear_applies(cacore_coll_t c);
Plan build_linear(const PlanInput &in);

}  // namespace cacore
#endif
