// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// trial.hpp - the live trial (docs/parameters.md, coll_cloudaware_trial_calls; docs/calibration.md,
// "Live trial"): the first blocking calls of a (communicator, collective, root, size class) run
// the cloud-aware plan, then the previous module, each variant's calls in a row; the times every
// rank agreed on (max over ranks per call) decide which one keeps the class; when the cost model
// found a second plan nearly as good (coll_cloudaware_trial_spread), that plan (the alternative)
// takes part too, so a model that ranks two plans wrongly is corrected by measurement; and the
// other default's algorithm for the call, run by the executor (the peer: tuned's when the
// previous module is not tuned, han's two levels when it is; decide.hpp's peer_module), takes
// part as well: what the user's other default would have run, whatever the model thinks of it.
// Also the trial book, the outcomes kept in the cache directory next to the matrix so that the
// next job over the same nodes starts decided. Everything here is pure; the timing and the
// agreement are coll_cloudaware_trial.c's.
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

// `with`: the variants beyond the plan and the previous module, CACORE_TRIAL_WITH_* or'ed.
// true when it holds no unknown bit.
bool trial_with_ok(int with);
// The number of variants (2 to 4); throws Error(CACORE_ERR_ARG) for an unknown bit.
int trial_variant_count(int with);
// Call k (0-based) of a trial of `calls` calls per variant: the variants in the order plan,
// previous, alternative, peer (those present), each for `calls` consecutive calls. Consecutive,
// not taking turns: a call's time depends on the call before it (which ranks leave a barrier
// last, who still drains messages), and an application repeats one algorithm; taking turns
// measured tuned's 1 KiB bcast after han's at 0.39 ms, repeated at 1.27 ms (docs/calibration.md,
// "Live trial").
cacore_trial_variant_t trial_variant(int k, int calls, int with);
// The trial of `calls` calls per variant is over once `k` calls have run.
bool trial_over(int k, int calls, int with);

// cacore_trial_calls.
int trial_calls(int base, double budget_s, double predicted_s);

// cacore_trial_cut_checked and cacore_trial_cut (a variant losing by far runs one call).
bool trial_cut_checked(double cut, int calls, double budget_s, double predicted_s);
bool trial_cut(const std::vector<double> &first_s, double cut);
// cacore_trial_extra and cacore_trial_settled (a variant whose calls are spread runs more).
int trial_extra(int extra, int calls);
// Throws Error(CACORE_ERR_ARG) for no value, a value not finite >= 0 or a margin outside [0, 1).
bool trial_settled(const std::vector<double> &judged, double margin);

struct TrialResult {
    cacore_trial_t outcome = CACORE_TRIAL_UNKNOWN;
    // Times: the median of a variant's calls after its first (of each call's slowest rank; short
    // calls: the slowest rank's median of its own calls).
    double plan_s = 0.0;         // median of the plan's calls after its first
    double previous_s = 0.0;     // median of the previous module's calls after its first
    double alternative_s = 0.0;  // median of the alternative's calls after its first; 0: none
    double peer_s = 0.0;         // median of the peer's calls after its first; 0: none tried
    double rank_z = 0.0;         // the rank test's z of the fastest against the previous module;
                                 // 0: no rank test (fewer than kTrialRankTestCalls calls)
    bool provisional = false;    // trial_provisional: a later job's trial confirms it or not
    bool by_mean = false;        // a tie by medians that the means settled (trial_judge)
};
// Short calls: with at least kTrialRankTestCalls calls per variant (so at least
// kTrialRankTestCalls - 1 judged), a variant's time is the slowest rank's median of its own calls
// (trial_rank_medians, max over ranks), not the median of each call's slowest rank; a variant
// other than the previous module keeps the class only when, besides the margin, a one-sided
// Mann-Whitney rank test finds its calls (each call's slowest rank) faster than the previous
// module's at the 5 % level (z >= kTrialRankTestZ); and a tie within the margin keeps the previous
// module whatever the cost model chose. Why the slowest rank's median: a short call's time on a
// rank is mostly how long it waits for ranks that left the call before later (the application's
// barrier, the last call); which rank waits longest changes from call to call, so each call's
// slowest rank overstates algorithms that wait for every rank (recursive doubling) against what
// every rank sees call after call (the thirty-second session's cloud-16 1 KiB allreduce: tuned's
// recursive doubling 2.68 ms by the median of each call's slowest rank against han's two levels'
// 2.25 ms; 1.71 against 2.18 ms in the timed runs, which take each rank's mean, then the slowest
// rank's, as OSU's benchmarks do). Why the rank test: only short calls run that many trial calls
// (coll_cloudaware_trial_time), and they are both the noisiest (one 1 KiB call of 16 ranks on 2
// cores varies 2-5x) and where the cost model errs most (per-hop software costs: predicted +37 %
// to +435 % on the lab's 1 KiB trials; the median of tuned's 15 calls of one 1 KiB allreduce on
// uniform-8 was 1.28-1.85 ms over four jobs), and a 5 % win, or a tie settled by the model, kept
// algorithms that then ran 1.19 and 1.30 times tuned's time in the timed runs
// (docs/calibration.md, "Live trial").
constexpr int kTrialRankTestCalls = CACORE_TRIAL_RANK_TEST_CALLS;
constexpr double kTrialRankTestZ = 1.645;
// true when a trial of `calls` calls per variant is judged as short calls (above).
bool trial_short(int calls);
// This rank's median of each variant's judged calls of `times` (its own times, in call order), in
// the order the variants run (plan, previous, alternative, peer, those present): what the ranks
// agree on (max) for a short trial. Throws Error(CACORE_ERR_ARG) as trial_judge.
std::vector<double> trial_rank_medians(const std::vector<double> &times, int calls, int with);
// The Mann-Whitney statistic of "a's values are smaller than b's", as a z score (normal
// approximation): about 0 when they do not differ, >= 1.645 when a is smaller at the one-sided
// 5 % level. 0 when either is empty.
double rank_test_z(const std::vector<double> &a, const std::vector<double> &b);
// times[k]: the agreed time of call k (trial_variant_count(with) * calls of them, in call order).
// A variant's median leaves out its first call when calls > 1: that call pays for the change of
// variant (connections, TCP windows, the last variant's traffic), an application's repeated
// calls of one algorithm do not.
// The fastest of the plan, the alternative and the peer (in that order of preference on equal
// medians) keeps the class when its median is at least
// `margin` (0 <= margin < 1) below the previous module's: t <= previous_s * (1 - margin);
// otherwise the previous module does, except in a tie (within the margin either way) that the plan
// itself is part of, when model_chose_plan: then the fastest variant keeps the class if it
// measured no slower than the previous module (the cost model's choice stands where the trial
// does not contradict it; the faster measured side of the tie otherwise). A tie that leaves the
// previous module is settled by the means of the judged calls: of the variants no slower than the
// previous module by their medians, the one of the least mean (plan, alternative, peer on equal
// means) keeps the class when its mean is at least `margin` below the previous module's
// (by_mean). Why: an application pays for every call, and a median of two or three calls does not
// see the slow ones; racks-8's 64 KiB scatter (sixty-sixth session) had tuned's linear scatter at
// 0.281, 0.107 and 0.105 s (a TCP retransmission timeout of the root's fifteen sends at once, a
// call in three) against the linear scatter over node leaders at 0.106 and 0.106 s, kept tuned,
// and the timed jobs ran it at 1.27 times han's time (docs/calibration.md, "Live trial"). Short
// calls (trial_short): the variants' times are `slowest` (one per variant, in the order they run:
// the maximum over ranks of trial_rank_medians), and the rank test above decides instead of the
// ties; other calls: `slowest` empty. Throws Error(CACORE_ERR_ARG) on a wrong count or a time
// that is not finite >= 0.
TrialResult trial_judge(const std::vector<double> &times, int calls, int with, double margin,
                        bool model_chose_plan, const std::vector<double> &slowest);

// Whether a trial's outcome is provisional: a trial of short calls (trial_short) that kept a
// variant other than the previous module, unless `prior` — the provisional outcome an earlier job's
// trial stored for the same class (UNKNOWN: none) — is one too, which confirms leaving the previous
// module (for the variant trial_confirmed picks from both jobs' medians). A provisional outcome
// runs in the job that measured it (and its later communicators over the same ranks); the next
// job's first call of the class finds it in the trial book and trials again, and only two jobs in a
// row measuring a variant faster than the previous module make the class leave it for good. Why:
// the rank test takes a job's calls as independent, but a short call's time also depends on the job
// (where its processes happen to run, which connections its earlier calls opened), which one job
// cannot sample: the fifty-fourth and fifty-fifth sessions' trials kept another variant than
// tuned's at z 3.13 (cloud-8's 1 KiB allreduce: han's two levels 1.29 against tuned's 1.43 ms in
// the trial), which then ran 1.65 ms against tuned's 1.46 over sixteen timed jobs
// (docs/calibration.md, "Live trial"). Long calls are not repeated: their trials cost seconds, and
// their wins are large against the job's spread. The previous module is never provisional.
bool trial_provisional(cacore_trial_t outcome, bool short_calls, cacore_trial_t prior);
// The variant a class keeps when `now`, a trial of short calls, follows an earlier job's
// provisional result `prior` (a variant other than the previous module): the plan, the alternative
// or the peer (those with a median in both) of the least sum of the two jobs' medians, in that
// order on equal sums — when `now` kept a variant other than the previous module too, or when it
// kept the previous module (its rank test did not reach 5 %) but that variant's sum is below the
// previous module's by `margin` (coll_cloudaware_trial_margin) and `now` did not measure it slower
// than the previous module by more than `margin`; otherwise the previous module (final). Unknown
// stays unknown. Not simply either job's winner: two variants both faster than the previous module
// take turns winning from job to job (on uniform-8 the linear gather and a COOL plan, both near 1.0
// ms against tuned's 5.4; on cloud-8 the reduce's three other variants), and one job's previous
// module can be slow for reasons of its own (cloud-16's 1 KiB reduce: tuned 27 ms in the second job
// against 2.5 in the first, whose winner the second job's would have replaced with a plan that then
// ran 1.61 ms against adapt's 1.06 in the timed jobs). Not a second rank test at 5 % either: two
// jobs each passing one is rare even where the variant is faster (racks-12's 1 KiB reduce,
// sixty-sixth session: the binomial tree over ranks at 1.01 against tuned's 1.27 ms with z 1.80,
// then 0.91 against 1.05 with z 0.68, kept tuned, which the timed jobs ran at 0.80 ms against the
// binomial tree's 0.67; cloud-16's, the COOL plan at 1.14 against 1.67 ms with z 3.13, then 1.61
// against 1.60, kept tuned, timed at 1.83 ms against the COOL plan's 1.31).
cacore_trial_t trial_confirmed(const TrialResult &prior, const TrialResult &now, double margin);

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
//   cloudaware-trials 5
//   trial LAYOUT COLL ROOT BYTES_CLASS COUNT_CLASS OUTCOME STANDING PLAN_S PREVIOUS_S
//         ALTERNATIVE_S PEER_S DESCRIPTION...                    (one line)
//   end
// (LAYOUT 16 hex digits, classes floor(log2), OUTCOME plan, previous, alternative or peer,
// STANDING final or provisional (trial_provisional; the previous module is always final),
// ALTERNATIVE_S and PEER_S 0 when there was none, DESCRIPTION the rest of the line: the plan's
// description, then " | " and the alternative's, " | peer " and the peer's, for those that took
// part). Another
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
