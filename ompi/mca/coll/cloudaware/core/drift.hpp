// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// drift.hpp - drift detection (docs/drift.md; CMPI §3: recalibrate when observed collective times
// drift from what was expected by more than a threshold). The component times every blocking call
// it runs as a plan; every `calls` calls of a plan the ranks agree on the slowest rank's time of
// each (one allreduce) and hand them here. The first batch warms up, the second is the plan's
// baseline (its median); a call drifts when its time differs from the baseline by more than
// `threshold` (relative, either way); 2 x `calls` drifting calls in a row (two batches' worth) ask
// for a recalibration, at most one per `interval_s` seconds, or, when all of them were faster,
// move the baseline to the last batch's median. Pure: the timing, the agreement and the
// recalibration are coll_cloudaware_drift.c's.
#ifndef CACORE_DRIFT_HPP
#define CACORE_DRIFT_HPP

#include "cloudaware_core.h"

#include <vector>

namespace cacore {

// The most calls per batch (coll_cloudaware_recalibrate_calls is capped to it).
constexpr int kDriftMaxCalls = CACORE_DRIFT_MAX_CALLS;

// Throws Error(CACORE_ERR_ARG) on parameters outside their ranges (threshold finite >= 0,
// calls 1..kDriftMaxCalls, interval finite >= 0).
void drift_check_params(const cacore_drift_params_t &p);

// true when the parameters ask for drift detection at all (threshold > 0).
bool drift_enabled(const cacore_drift_params_t &p);

// true when calls of the size class starting at class_bytes are watched (cacore_drift_watches).
bool drift_watches(const cacore_drift_params_t &p, size_t class_bytes);

// One batch of agreed call times (times.size() == p.calls, each finite >= 0) of the plan whose
// state is d; since_last_s: the agreed time since this communicator's last recalibration (a huge
// value when there was none). Updates d and says what to do.
cacore_drift_verdict_t drift_observe(cacore_drift_t &d, const cacore_drift_params_t &p,
                                     const std::vector<double> &times, double since_last_s);

// A recalibration's new measurement of one ordered pair against the old (cacore_drift_merge_pair):
// the bandwidth taken only when lower than (1 - threshold) x the old, the latency only when
// higher than (1 + threshold) x the old. Returns true when either was taken.
bool drift_merge_pair(double threshold, double old_latency_s, double old_bandwidth_Bps,
                      double &latency_s, double &bandwidth_Bps);

}  // namespace cacore
#endif
