// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// burst_credit.cpp - the judgement of the burst credit probes (burst_credit.hpp).
#include "burst_credit.hpp"

#include <cmath>

namespace cacore {

cacore_burst_verdict_t burst_judge(cacore_burst_state_t &state, double time_s, double at_rate_s)
{
    const bool valid = std::isfinite(time_s) && time_s >= 0.0 && std::isfinite(at_rate_s)
                       && at_rate_s > 0.0;
    const double share = valid ? time_s / at_rate_s : 1.0;
    if (share < kBurstPassed) {
        state = cacore_burst_state_t{};
        return CACORE_BURST_PASSED;
    }
    if (0 == state.missed++ || share < state.fastest) {
        state.fastest = share;
    }
    if (state.missed < 2) {
        return CACORE_BURST_AGAIN;   // once more: a CPU stall of either side can hold one up
    }
    const bool partial = state.fastest < kBurstPartial;
    state = cacore_burst_state_t{};
    return partial ? CACORE_BURST_LARGER : CACORE_BURST_STOP;
}

}  // namespace cacore
