// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// drift.cpp - the drift policy (drift.hpp).
#include "drift.hpp"

#include "error.hpp"
#include "median.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace cacore {

void drift_check_params(const cacore_drift_params_t &p)
{
    if (!std::isfinite(p.threshold) || p.threshold < 0.0) {
        fail_arg("drift: the threshold must be finite and >= 0");
    }
    if (p.calls < 1 || p.calls > kDriftMaxCalls) {
        fail_arg("drift: calls must be 1.." + std::to_string(kDriftMaxCalls));
    }
    if (!std::isfinite(p.interval_s) || p.interval_s < 0.0) {
        fail_arg("drift: the interval must be finite and >= 0 seconds");
    }
    if (p.min_bytes < 0) {
        fail_arg("drift: min_bytes must be >= 0");
    }
}

bool drift_enabled(const cacore_drift_params_t &p) { return p.threshold > 0.0; }

bool drift_watches(const cacore_drift_params_t &p, size_t class_bytes)
{
    return drift_enabled(p) && class_bytes >= static_cast<size_t>(std::max(p.min_bytes, 0));
}

cacore_drift_verdict_t drift_observe(cacore_drift_t &d, const cacore_drift_params_t &p,
                                     const std::vector<double> &times, double since_last_s)
{
    drift_check_params(p);
    if (times.size() != static_cast<size_t>(p.calls)) {
        fail_arg("drift: a batch has exactly `calls` times");
    }
    for (double t : times) {
        if (!std::isfinite(t) || t < 0.0) {
            fail_arg("drift: a call time is not finite >= 0");
        }
    }
    if (std::isnan(since_last_s)) {
        fail_arg("drift: the time since the last recalibration is not a number");
    }
    d.last_s = median(times);
    if (!drift_enabled(p)) {
        return CACORE_DRIFT_STEADY;
    }
    // The first batch warms up (connections set up, pages touched: often several times slower
    // than what follows); the second is the baseline, its median, so that one slow call does
    // not set it. A baseline of 0 (a clock too coarse) cannot be compared with: it is taken again.
    if (!d.warm) {
        d.warm = 1;
        return CACORE_DRIFT_WARMUP;
    }
    if (!(d.baseline_s > 0.0)) {
        d.baseline_s = d.last_s;
        d.streak = 0;
        d.streak_faster = 0;
        return CACORE_DRIFT_BASELINE;
    }
    // Two batches' worth of drifting calls in a row: a change of the network lasts, while a
    // burst of CPU contention (other processes on the ranks' cores, the job's own ranks when
    // oversubscribed) slows a few calls and lets the next one through. With one batch's worth,
    // 3 calls slowed by contention recalibrated a lab job before its links changed, and 5 of 6
    // benchmark jobs on uniform-8 (16 ranks on 2 cores) at ~40 s each; none with two batches
    // (docs/drift.md, "Why two batches").
    const int full = 2 * p.calls;
    for (double t : times) {
        const bool drifting = std::fabs(t / d.baseline_s - 1.0) > p.threshold;
        const bool faster = t < d.baseline_s;
        d.streak_faster = drifting && faster && (d.streak == 0 || d.streak_faster) ? 1 : 0;
        d.streak = drifting ? std::min(d.streak + 1, full) : 0;
    }
    if (d.streak < full) {
        return d.streak > 0 ? CACORE_DRIFT_DRIFTING : CACORE_DRIFT_STEADY;
    }
    // A full streak of faster calls only: the plan runs faster than its baseline, which was taken
    // while its calls were still slow (on cloud-16, 16 ranks on 2 cores, a plan's calls 4-6 after
    // its live trial ran 2-3.6x slower than its later ones, and each such streak recalibrated for
    // 26-58 s, the lab's links unchanged). Nothing to measure: the baseline moves to this batch's
    // median (every call of it is in the streak), so that a later slowdown is seen against what
    // the plan really runs at (docs/drift.md, "A faster plan moves its baseline").
    if (d.streak_faster) {
        d.baseline_s = d.last_s;
        d.streak = 0;
        d.streak_faster = 0;
        return CACORE_DRIFT_REBASELINE;
    }
    if (since_last_s < p.interval_s) {
        return CACORE_DRIFT_HELD;   // the streak stays: recalibrate once the interval has passed
    }
    d.streak = 0;
    d.streak_faster = 0;
    return CACORE_DRIFT_RECALIBRATE;
}

bool drift_merge_pair(double threshold, double old_latency_s, double old_bandwidth_Bps,
                      double &latency_s, double &bandwidth_Bps)
{
    // Reading faster proves nothing here: the first calibration measured many pairs at once
    // (shared uplinks, shared NICs), a recalibration measures the plan's few. On cloud-16 the
    // pairs re-measured after false drifts read up to 3.9x their values in a fresh calibration
    // (18 and 58 pairs above 1.5x in two runs) without any change of the network (docs/drift.md,
    // "What a recalibration takes").
    const bool old_bw_ok = std::isfinite(old_bandwidth_Bps) && old_bandwidth_Bps > 0.0;
    const bool old_lat_ok = std::isfinite(old_latency_s) && old_latency_s >= 0.0;
    const bool take_bw = !old_bw_ok || bandwidth_Bps < old_bandwidth_Bps * (1.0 - threshold);
    const bool take_lat = !old_lat_ok || latency_s > old_latency_s * (1.0 + threshold);
    if (!take_bw) {
        bandwidth_Bps = old_bandwidth_Bps;
    }
    if (!take_lat) {
        latency_s = old_latency_s;
    }
    return take_bw || take_lat;
}

}  // namespace cacore
