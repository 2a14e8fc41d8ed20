// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// trial.cpp - the live trial's bookkeeping and judgement, and the trial book's file format.
#include "trial.hpp"

#include "error.hpp"
#include "line_reader.hpp"
#include "median.hpp"
#include "names.hpp"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <utility>

namespace cacore {
namespace {

constexpr std::string_view kMagic = "cloudaware-trials";
constexpr int kVersion = 5;
constexpr const char *kFinal = "final";
constexpr const char *kProvisional = "provisional";

int parse_int(const LineReader &rd, std::string_view tok, int lo, int hi, const char *what)
{
    long v = 0;
    auto res = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (res.ec != std::errc() || res.ptr != tok.data() + tok.size() || v < lo || v > hi) {
        rd.error(std::string(what) + " " + quote(tok) + " is not an integer in " +
                 std::to_string(lo) + ".." + std::to_string(hi));
    }
    return static_cast<int>(v);
}

double parse_seconds(const LineReader &rd, std::string_view tok)
{
    const double v = parse_number(rd, tok);
    if (!std::isfinite(v) || v < 0.0) {
        rd.error("time " + quote(tok) + " is not finite >= 0");
    }
    return v;
}

}  // namespace

bool trial_with_ok(int with)
{
    return (with & ~(CACORE_TRIAL_WITH_ALTERNATIVE | CACORE_TRIAL_WITH_PEER)) == 0;
}

int trial_variant_count(int with)
{
    if (!trial_with_ok(with)) {
        fail_arg("trial: unknown variants " + std::to_string(with));
    }
    return 2 + ((with & CACORE_TRIAL_WITH_ALTERNATIVE) ? 1 : 0) + ((with & CACORE_TRIAL_WITH_PEER) ? 1 : 0);
}

cacore_trial_variant_t trial_variant(int k, int calls, int with)
{
    // plan, previous, then the alternative and the peer, those present
    const int i = (k / std::max(calls, 1)) % trial_variant_count(with);
    if (i < 2) {
        return static_cast<cacore_trial_variant_t>(i);
    }
    return i == 2 && (with & CACORE_TRIAL_WITH_ALTERNATIVE) ? CACORE_TRIAL_RUN_ALTERNATIVE
                                                             : CACORE_TRIAL_RUN_PEER;
}

bool trial_over(int k, int calls, int with) { return k >= trial_variant_count(with) * calls; }

int trial_calls(int base, double budget_s, double predicted_s)
{
    if (base <= 0) {
        return 0;
    }
    base = std::min(base, CACORE_TRIAL_MAX_CALLS);
    if (!(budget_s > 0.0) || !std::isfinite(budget_s) || !(predicted_s > 0.0) ||
        !std::isfinite(predicted_s) || budget_s / predicted_s <= base) {
        return base;
    }
    return static_cast<int>(std::min<double>(CACORE_TRIAL_MAX_CALLS, std::ceil(budget_s / predicted_s)));
}

bool trial_cut_checked(double cut, int calls, double budget_s, double predicted_s)
{
    // Long calls only: between short ones an agreement would change what they measure, and a
    // cut would save little.
    return cut > 0.0 && std::isfinite(cut) && calls > 1 && std::isfinite(predicted_s) &&
           predicted_s >= budget_s;
}

bool trial_cut(const std::vector<double> &first_s, double cut)
{
    if (first_s.size() < 2 || !(cut > 0.0)) {
        return false;
    }
    for (double t : first_s) {
        if (!std::isfinite(t) || t < 0.0) {
            fail_arg("trial_cut: a first call's time is not finite >= 0");
        }
    }
    const double fastest = *std::min_element(first_s.begin(), first_s.end() - 1);
    return first_s.back() > cut * fastest;
}

int trial_extra(int extra, int calls)
{
    // Every trial judged by its medians (fewer than kTrialRankTestCalls calls per variant), not
    // only long calls: a 64 KiB allreduce of 19 ms runs 3 calls (coll_cloudaware_trial_time
    // 0.05 s), so 2 judged, and one slow call of the previous module (18.0 and 22.5 ms) made
    // racks-8's trial keep a plan that then ran 1.28 times tuned's time (the sixty-fifth
    // session). Short calls run many calls and a rank test instead, and an agreement between
    // them would change what they measure.
    if (extra <= 0 || calls < 2) {
        return 0;
    }
    return std::max(0, std::min(extra, kTrialRankTestCalls - 1 - calls));
}

bool trial_settled(const std::vector<double> &judged, double margin)
{
    if (judged.empty() || !(margin >= 0.0 && margin < 1.0)) {
        fail_arg("trial_settled: no calls or a margin outside [0, 1)");
    }
    for (double t : judged) {
        if (!std::isfinite(t) || t < 0.0) {
            fail_arg("trial_settled: a call's time is not finite >= 0");
        }
    }
    std::vector<double> x = judged;
    std::sort(x.begin(), x.end());
    const size_t n = x.size(), j = n / 2;
    if (n == 1) {
        return false;   // one more call could move the median anywhere
    }
    const double m = median(x);
    // One more call leaves the median between these two (of an even count: the middle two; of
    // an odd count: the middle one averaged with either neighbour).
    const double lo = n % 2 ? 0.5 * (x[j - 1] + x[j]) : x[j - 1];
    const double hi = n % 2 ? 0.5 * (x[j] + x[j + 1]) : x[j];
    return hi - m <= 0.5 * margin * m && m - lo <= 0.5 * margin * m;
}

namespace {

// Each variant's judged calls of `times` (its first left out when it has more, trial.hpp).
void judged_calls(const std::vector<double> &times, int calls, int with,
                  std::vector<double> (&of)[4])
{
    bool seen[4] = {};
    for (size_t k = 0; k < times.size(); ++k) {
        if (!std::isfinite(times[k]) || times[k] < 0.0) {
            fail_arg("trial: time of call " + std::to_string(k) + " is not finite >= 0");
        }
        const int v = trial_variant(static_cast<int>(k), calls, with);
        if (calls > 1 && !seen[v]) {
            seen[v] = true;
            continue;
        }
        of[v].push_back(times[k]);
    }
}

// The variants other than the previous module: their outcome and the calls they run, in their
// order of preference on equal times.
constexpr std::pair<cacore_trial_t, cacore_trial_variant_t> kOthers[] = {
    {CACORE_TRIAL_PLAN, CACORE_TRIAL_RUN_PLAN},
    {CACORE_TRIAL_ALTERNATIVE, CACORE_TRIAL_RUN_ALTERNATIVE},
    {CACORE_TRIAL_PEER, CACORE_TRIAL_RUN_PEER}};

double mean(const std::vector<double> &x)
{
    double sum = 0.0;
    for (double t : x) {
        sum += t;
    }
    return x.empty() ? 0.0 : sum / static_cast<double>(x.size());
}

void check_times(const std::vector<double> &times, int calls, int with, const char *who)
{
    const int variants = trial_variant_count(with);
    if (calls < 1 || times.size() != static_cast<size_t>(variants) * static_cast<size_t>(calls)) {
        fail_arg(std::string(who) + ": " + std::to_string(times.size()) + " times for " +
                 std::to_string(calls) + " calls of " + std::to_string(variants) + " variants");
    }
}

}  // namespace

bool trial_short(int calls) { return calls >= kTrialRankTestCalls; }

std::vector<double> trial_rank_medians(const std::vector<double> &times, int calls, int with)
{
    check_times(times, calls, with, "trial_rank_medians");
    std::vector<double> of[4];
    judged_calls(times, calls, with, of);
    std::vector<double> out;
    for (int i = 0; i < trial_variant_count(with); ++i) {
        out.push_back(median(of[trial_variant(i * calls, calls, with)]));
    }
    return out;
}

TrialResult trial_judge(const std::vector<double> &times, int calls, int with, double margin,
                        bool model_chose_plan, const std::vector<double> &slowest)
{
    check_times(times, calls, with, "trial_judge");
    if (!(margin >= 0.0 && margin < 1.0)) {
        fail_arg("trial_judge: margin must be in [0, 1)");
    }
    const bool short_calls = trial_short(calls);
    const size_t variants = static_cast<size_t>(trial_variant_count(with));
    if (short_calls != !slowest.empty() || (short_calls && slowest.size() != variants)) {
        fail_arg("trial_judge: " + std::to_string(slowest.size()) + " slowest ranks' medians for " +
                 std::to_string(calls) + " calls of " + std::to_string(variants) +
                 " variants (short calls need one per variant, others none)");
    }
    std::vector<double> of[4];
    judged_calls(times, calls, with, of);
    double med[4] = {};
    for (size_t i = 0; i < variants; ++i) {
        const int v = trial_variant(static_cast<int>(i) * calls, calls, with);
        if (short_calls && !(std::isfinite(slowest[i]) && slowest[i] >= 0.0)) {
            fail_arg("trial_judge: a slowest rank's median is not finite >= 0");
        }
        med[v] = short_calls ? slowest[i] : median(of[v]);
    }
    TrialResult r;
    r.plan_s = med[CACORE_TRIAL_RUN_PLAN];
    r.previous_s = med[CACORE_TRIAL_RUN_PREVIOUS];
    r.alternative_s = med[CACORE_TRIAL_RUN_ALTERNATIVE];   // 0: none tried
    r.peer_s = med[CACORE_TRIAL_RUN_PEER];
    // The fastest of the plan, the alternative and the peer (those present: a variant that ran
    // has judged calls); the earlier one on equal medians.
    cacore_trial_t fastest = CACORE_TRIAL_PLAN;
    cacore_trial_variant_t fastest_run = CACORE_TRIAL_RUN_PLAN;
    double best = r.plan_s;
    for (const auto &[o, v] : kOthers) {
        if (!of[v].empty() && med[v] < best) {
            fastest = o;
            fastest_run = v;
            best = med[v];
        }
    }
    // Clearly faster: that one; otherwise the previous module, except in a tie within the margin
    // that the model's own plan is part of, which the cost model's choice of the plan settles in
    // favour of the faster measured side: the fastest variant when it measured no slower than the
    // previous module, else the previous module (flatcap-8's 64 KiB allreduce: the plan 78.3 ms
    // against tuned's 75.6 in the trial kept the plan, 79.6-83.6 ms timed against the best peer's
    // 73.4-76.6). When the model's plan lost clearly, the model was wrong here, and another
    // variant merely tying the previous module is no reason to leave it.
    // Short calls (enough of them for a rank test, trial.hpp): clearly also means that the rank
    // test finds the fastest variant's calls faster, and a tie stays with the previous module.
    const bool clearly = best <= r.previous_s * (1.0 - margin);
    const bool tie_kept = model_chose_plan && r.plan_s <= r.previous_s * (1.0 + margin) &&
                          best <= r.previous_s;
    if (short_calls) {
        r.rank_z = rank_test_z(of[fastest_run], of[CACORE_TRIAL_RUN_PREVIOUS]);
        r.outcome = clearly && r.rank_z >= kTrialRankTestZ ? fastest : CACORE_TRIAL_PREVIOUS;
        return r;
    }
    r.outcome = clearly || tie_kept ? fastest : CACORE_TRIAL_PREVIOUS;
    if (r.outcome == CACORE_TRIAL_PREVIOUS) {
        // A tie by medians: of the variants no slower than the previous module by their medians,
        // the one of the least mean (the earlier one on equal means), when that mean is below the
        // previous module's by the margin (trial.hpp).
        double least = mean(of[CACORE_TRIAL_RUN_PREVIOUS]) * (1.0 - margin);
        for (const auto &[o, v] : kOthers) {
            const double m = mean(of[v]);
            if (!of[v].empty() && med[v] <= r.previous_s && (r.by_mean ? m < least : m <= least)) {
                r.outcome = o;
                r.by_mean = true;
                least = m;
            }
        }
    }
    return r;
}

double rank_test_z(const std::vector<double> &a, const std::vector<double> &b)
{
    const size_t n1 = a.size(), n2 = b.size();
    if (n1 == 0 || n2 == 0) {
        return 0.0;
    }
    // U = the pairs (x of a, y of b) with x < y, ties counting one half; under "no difference" its
    // mean is n1 n2 / 2 and its variance n1 n2 (n1 + n2 + 1) / 12 (ties make it slightly smaller;
    // not corrected, which errs toward the previous module).
    double u = 0.0;
    for (double x : a) {
        for (double y : b) {
            u += x < y ? 1.0 : x == y ? 0.5 : 0.0;
        }
    }
    const double m1 = static_cast<double>(n1), m2 = static_cast<double>(n2);
    return (u - m1 * m2 / 2.0) / std::sqrt(m1 * m2 * (m1 + m2 + 1.0) / 12.0);
}

bool trial_provisional(cacore_trial_t outcome, bool short_calls, cacore_trial_t prior)
{
    const auto left = [](cacore_trial_t o) {
        return o != CACORE_TRIAL_PREVIOUS && o != CACORE_TRIAL_UNKNOWN;
    };
    return short_calls && left(outcome) && !left(prior);
}

cacore_trial_t trial_confirmed(const TrialResult &prior, const TrialResult &now, double margin)
{
    if (now.outcome == CACORE_TRIAL_UNKNOWN) {
        return now.outcome;
    }
    cacore_trial_t best = CACORE_TRIAL_PLAN;
    double best_s = prior.plan_s + now.plan_s, best_now = now.plan_s;
    const auto consider = [&](cacore_trial_t o, double a, double b) {
        if (a > 0.0 && b > 0.0 && a + b < best_s) {
            best = o;
            best_s = a + b;
            best_now = b;
        }
    };
    consider(CACORE_TRIAL_ALTERNATIVE, prior.alternative_s, now.alternative_s);
    consider(CACORE_TRIAL_PEER, prior.peer_s, now.peer_s);
    if (now.outcome != CACORE_TRIAL_PREVIOUS) {
        return best;
    }
    // This job alone kept the previous module: confirmed still when both jobs together measured
    // that variant faster by the margin and this one did not measure it slower by more (a tie).
    const bool faster = best_s <= (prior.previous_s + now.previous_s) * (1.0 - margin) &&
                        best_now <= now.previous_s * (1.0 + margin);
    return faster ? best : CACORE_TRIAL_PREVIOUS;
}

uint64_t trial_layout_key(int nranks, const int *rank_node)
{
    uint64_t h = 14695981039346656037ULL;
    auto mix = [&h](uint64_t v) {
        for (int b = 0; b < 8; ++b) {
            h ^= (v >> (8 * b)) & 0xff;
            h *= 1099511628211ULL;
        }
    };
    mix(static_cast<uint64_t>(nranks));
    for (int i = 0; i < nranks; ++i) {
        mix(static_cast<uint64_t>(static_cast<uint32_t>(rank_node[i])));
    }
    return h;
}

std::string trial_book_name(uint64_t key)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "cloudaware-%016" PRIx64 ".trials", key);
    return buf;
}

void TrialBook::parse(std::string_view text, const std::string &name)
{
    LineReader rd(text, name);
    std::vector<std::string_view> tok;
    std::string_view line;
    records_.clear();
    order_.clear();
    if (!rd.next(tok)) {
        rd.eof_error("\"" + std::string(kMagic) + " " + std::to_string(kVersion) + "\"");
    }
    if (tok.size() != 2 || tok[0] != kMagic) {
        rd.error("not a trial book (expected \"" + std::string(kMagic) + " " +
                 std::to_string(kVersion) + "\")");
    }
    if (tok[1] != std::to_string(kVersion)) {
        rd.error("trial book version " + quote(tok[1]) + " is not supported (this is version " +
                 std::to_string(kVersion) + ")");
    }
    for (;;) {
        if (!rd.next_line(line)) {
            rd.eof_error("\"end\"");
        }
        LineReader::tokenize(line, tok);
        if (tok.size() == 1 && tok[0] == "end") {
            break;
        }
        if (tok.size() < 13 || tok[0] != "trial") {
            rd.error("expected \"trial LAYOUT COLL ROOT BYTES_CLASS COUNT_CLASS "
                     "plan|previous|alternative|peer final|provisional PLAN_S PREVIOUS_S "
                     "ALTERNATIVE_S PEER_S DESCRIPTION\" or \"end\"");
        }
        TrialKey k;
        TrialResult r;
        auto res = std::from_chars(tok[1].data(), tok[1].data() + tok[1].size(), k.layout, 16);
        if (tok[1].size() != 16 || res.ec != std::errc() || res.ptr != tok[1].data() + 16) {
            rd.error("layout " + quote(tok[1]) + " is not 16 hex digits");
        }
        k.coll = find_name(coll_name, tok[2]);
        if (k.coll < 0) {
            rd.error("unknown collective " + quote(tok[2]));
        }
        k.root = parse_int(rd, tok[3], -1, 1 << 30, "root");
        k.bytes_class = parse_int(rd, tok[4], 0, 63, "bytes class");
        k.count_class = parse_int(rd, tok[5], 0, 63, "count class");
        const int o = find_name(trial_name, tok[6]);
        if (o <= CACORE_TRIAL_UNKNOWN) {
            rd.error("outcome " + quote(tok[6]) + " is not plan, previous, alternative or peer");
        }
        r.outcome = static_cast<cacore_trial_t>(o);
        if (tok[7] != kFinal && tok[7] != kProvisional) {
            rd.error("standing " + quote(tok[7]) + " is not final or provisional");
        }
        r.provisional = tok[7] == kProvisional;
        if (r.provisional && r.outcome == CACORE_TRIAL_PREVIOUS) {
            rd.error("the previous module's outcome cannot be provisional");
        }
        r.plan_s = parse_seconds(rd, tok[8]);
        r.previous_s = parse_seconds(rd, tok[9]);
        r.alternative_s = parse_seconds(rd, tok[10]);
        r.peer_s = parse_seconds(rd, tok[11]);
        // The description: the rest of the line from its first token on, trailing blanks cut.
        std::string_view d = line.substr(static_cast<size_t>(tok[12].data() - line.data()));
        while (!d.empty() && is_blank(d.back())) {
            d.remove_suffix(1);
        }
        if (d.find('#') != std::string_view::npos) {
            rd.error("a plan description cannot contain '#'");
        }
        k.plan = std::string(d);
        set(k, r);
    }
    if (rd.next_line(line)) {
        rd.error("text after \"end\"");
    }
}

TrialResult TrialBook::find(const TrialKey &k) const
{
    auto it = records_.find(k);
    return it == records_.end() ? TrialResult() : it->second;
}

void TrialBook::set(const TrialKey &k, const TrialResult &r)
{
    if (r.outcome <= CACORE_TRIAL_UNKNOWN || r.outcome >= CACORE_TRIAL_COUNT) {
        fail_arg("TrialBook::set: the outcome must be plan, previous, alternative or peer");
    }
    if (r.provisional && r.outcome == CACORE_TRIAL_PREVIOUS) {
        fail_arg("TrialBook::set: the previous module's outcome cannot be provisional");
    }
    if (k.coll < 0 || k.coll >= CACORE_COLL_COUNT || k.bytes_class < 0 || k.bytes_class > 63 ||
        k.count_class < 0 || k.count_class > 63 || k.root < -1) {
        fail_arg("TrialBook::set: key out of range");
    }
    if (k.plan.empty() || k.plan.find_first_of("\n\r#") != std::string::npos ||
        is_blank(k.plan.front()) || is_blank(k.plan.back())) {
        fail_arg("TrialBook::set: the plan description must be one line without '#' and "
                 "outer blanks");
    }
    if (!(std::isfinite(r.plan_s) && r.plan_s >= 0.0 && std::isfinite(r.previous_s) &&
          r.previous_s >= 0.0 && std::isfinite(r.alternative_s) && r.alternative_s >= 0.0 &&
          std::isfinite(r.peer_s) && r.peer_s >= 0.0)) {
        fail_arg("TrialBook::set: times must be finite >= 0");
    }
    auto it = records_.find(k);
    if (it != records_.end()) {
        it->second = r;
        return;
    }
    if (records_.size() >= kMaxRecords) {
        records_.erase(order_.front());
        order_.erase(order_.begin());
    }
    records_.emplace(k, r);
    order_.push_back(k);
}

std::string TrialBook::format() const
{
    std::string s = std::string(kMagic) + " " + std::to_string(kVersion) + "\n";
    s += "# coll/cloudaware trial outcomes of one node set (docs/calibration.md, \"Live trial\")\n";
    char buf[192];
    for (const TrialKey &k : order_) {
        const TrialResult &r = records_.at(k);
        std::snprintf(buf, sizeof buf,
                      "trial %016" PRIx64 " %s %d %d %d %s %s %.9g %.9g %.9g %.9g ", k.layout,
                      coll_name(k.coll), k.root, k.bytes_class, k.count_class,
                      trial_name(r.outcome),
                      r.provisional ? kProvisional : kFinal, r.plan_s,
                      r.previous_s, r.alternative_s, r.peer_s);
        s += buf;
        s += k.plan;
        s += "\n";
    }
    s += "end\n";
    return s;
}

}  // namespace cacore
