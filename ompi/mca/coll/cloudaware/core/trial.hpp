// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// trial.hpp - the live trial (docs/parameters.md, coll_cloudaware_trial_calls; docs/calibration.md,
// "Live trial"): the first blocking calls of a (communicator, collective, root, size class)
// alternate between the cloud-aware plan and the previous module; the times every rank agreed on
// (max over ranks per call) decide which one keeps the class. Also the trial book, the outcomes
// kept in the cache directory next to the matrix so that the next job over the same nodes starts
// decided. Everything here is pure; the timing and the agreement are coll_cloudaware_trial.c's.
#ifndef CACORE_TRIAL_HPP
#define CACORE_TRIAL_HPP

#include "cloudaware_core.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace cacore {

// Call k (0-based) of a trial: the plan for even k, the previous module for odd k, so that both
// variants see the same warm-up and drift.
cacore_trial_variant_t trial_variant(int k);
// The trial of `calls` calls per variant is over once `k` calls have run.
bool trial_over(int k, int calls);

struct TrialResult {
    cacore_trial_t outcome = CACORE_TRIAL_UNKNOWN;
    double plan_s = 0.0;      // median of the plan's calls
    double previous_s = 0.0;  // median of the previous module's calls
};
// times[k]: the agreed time of call k (2 * calls of them, in call order). The plan keeps the
// class when its median is at least `margin` (0 <= margin < 1) below the previous module's:
// plan_s <= previous_s * (1 - margin); otherwise the previous module does. Throws
// Error(CACORE_ERR_ARG) on a wrong count or a time that is not finite >= 0.
TrialResult trial_judge(const std::vector<double> &times, int calls, double margin);

// The plan or the previous module, from the cost model's choice and the trial's outcome: a known
// outcome overrides the model.
bool trial_runs_plan(bool model_chose_plan, cacore_trial_t outcome);

// FNV-1a 64 of the communicator's layout (its size and the node of each rank): a trial outcome
// holds only for the same ranks on the same nodes.
uint64_t trial_layout_key(int nranks, const int *rank_node);

// "cloudaware-<16 lower-case hex digits of the node-set key>.trials"
std::string trial_book_name(uint64_t key);

// What a stored outcome is for. plan: the plan's description (cacore_plan_describe); an outcome
// stored for another plan does not apply (the model or its parameters changed: trial again).
struct TrialKey {
    uint64_t layout = 0;
    int coll = 0;
    int root = -1;
    int bytes_class = 0;
    int count_class = 0;
    std::string plan;
    bool operator<(const TrialKey &o) const
    {
        return std::tie(layout, coll, root, bytes_class, count_class, plan) <
               std::tie(o.layout, o.coll, o.root, o.bytes_class, o.count_class, o.plan);
    }
};

// The trial book of one node set: its file is
//   cloudaware-trials 1
//   trial LAYOUT COLL ROOT BYTES_CLASS COUNT_CLASS plan|previous PLAN_S PREVIOUS_S DESCRIPTION...
//   end
// (LAYOUT 16 hex digits, classes floor(log2), DESCRIPTION the rest of the line). Another
// version, a bad line or a missing "end" make the whole file unusable (Error CACORE_ERR_FORMAT):
// the component then runs the trials again and writes a new file.
class TrialBook {
public:
    static constexpr size_t kMaxRecords = 4096;
    void parse(std::string_view text, const std::string &name);
    // The stored result for k, or an outcome of UNKNOWN.
    TrialResult find(const TrialKey &k) const;
    // Adds or replaces; past kMaxRecords the book forgets its oldest records.
    void set(const TrialKey &k, const TrialResult &r);
    std::string format() const;
    size_t size() const { return records_.size(); }

private:
    std::map<TrialKey, TrialResult> records_;
    std::vector<TrialKey> order_;   // insertion order, for forgetting the oldest
};

}  // namespace cacore
#endif
