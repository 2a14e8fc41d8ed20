// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// burst_credit.cpp - the judgement of the burst credit probes (burst_credit.hpp).
#include "burst_credit.hpp"

#include <cmath>

namespace cacore {

namespace {

// The next size follows: the current one's misses are forgotten.
void next_size(cacore_burst_state_t &state)
{
    state.size++;
    state.missed = 0;
    state.fastest = 0.0;
}

}  // namespace

cacore_burst_verdict_t burst_judge(cacore_burst_state_t &state, double time_s, double at_rate_s)
{
    if (state.stopped) {
        return CACORE_BURST_STOP;   // nothing more is sent; a probe judged anyway changes nothing
    }
    const bool valid = std::isfinite(time_s) && time_s >= 0.0 && std::isfinite(at_rate_s)
                       && at_rate_s > 0.0;
    const double share = valid ? time_s / at_rate_s : 1.0;
    if (share < kBurstPassed) {
        state.passed = state.size + 1;
        next_size(state);
        return CACORE_BURST_PASSED;
    }
    if (0 == state.missed++ || share < state.fastest) {
        state.fastest = share;
    }
    if (state.missed < 2) {
        return CACORE_BURST_AGAIN;   // once more: a CPU stall of either side can hold one up
    }
    if (state.fastest < kBurstPartial) {
        next_size(state);
        return CACORE_BURST_LARGER;
    }
    state.stopped = 1;
    return CACORE_BURST_STOP;
}

}  // namespace cacore
