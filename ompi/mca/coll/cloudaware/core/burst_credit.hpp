// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// burst_credit.hpp - the judgement of the burst credit probes (docs/calibration.md, "Burst
// credit"): after each probe (a message of a growing size, sent after an idle gap to the node's
// fastest peer), whether it passed as a burst and what is sent next. MPI-free: the probes
// themselves are coll_cloudaware_tournament.c's (burst_probe).
#ifndef CACORE_BURST_CREDIT_HPP
#define CACORE_BURST_CREDIT_HPP

#include "cloudaware_core.h"

namespace cacore {

// A probe passed as a burst when it took less than this share of its time at the pair's rate.
constexpr double kBurstPassed = 0.5;
// A size missed twice whose faster try took less than this share of its time at the rate was
// partly a burst: the fixed cost of a message (copying, waking the peer on a busy machine) hid
// the rest, and a larger size, which that cost weighs on less, is tried. Measured in the lab
// (sixty-sixth session): the 16 KiB probes of `cloud-16`'s 40 Mbit/s pairs took 0.54-0.61 of
// their time at the rate, twice in a row, where 32 KiB then took 0.2-0.45; paths without credit
// 0.88-1.34.
constexpr double kBurstPartial = 0.8;

// Judges one probe of the size state.size that took time_s (after its round trip) where the
// pair's rate takes at_rate_s, and moves `state` on (cloudaware_core.h, cacore_burst_state_t). A
// time that is not finite >= 0, or a rate time not > 0, is a miss at the rate.
cacore_burst_verdict_t burst_judge(cacore_burst_state_t &state, double time_s, double at_rate_s);

}  // namespace cacore

#endif
