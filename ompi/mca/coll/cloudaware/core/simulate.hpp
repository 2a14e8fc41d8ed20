// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// simulate.hpp - symbolic execution of a plan under the round semantics of cloudaware_core.h.
#ifndef CACORE_SIMULATE_HPP
#define CACORE_SIMULATE_HPP

#include "plan.hpp"

#include <string>

namespace cacore {

struct SimResult {
    bool ok = false;
    bool ordered = false;   // reductions: every result combined in rank order
    std::string error;      // first problem found (deadlock, undefined data, wrong result, ...)
};

// Every rank runs its rounds: local steps in order, then posts its sends/receives, then waits;
// a receive matches the peer's send to it in posting order. Data are symbolic (block ids; for
// reductions the ordered list of contributing ranks), so the check is exact.
SimResult simulate(const Plan &p);

}  // namespace cacore
#endif
