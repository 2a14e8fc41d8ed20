// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// calibration_outcome.cpp - see calibration_outcome.hpp.
#include "calibration_outcome.hpp"

#include "escape.hpp"
#include "median.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace cacore {

namespace {

// printf into a std::string (the causes are one line of a few hundred bytes at most).
template <typename... Args> std::string format(const char *fmt, Args... args)
{
    int len = std::snprintf(nullptr, 0, fmt, args...);
    std::string out(len > 0 ? static_cast<size_t>(len) : 0, '\0');
    std::snprintf(out.data(), out.size() + 1, fmt, args...);
    return out;
}

std::string host(const cacore_calib_inputs_t &in, int node)
{
    if (node < 0 || node >= in.nnodes || in.hosts == nullptr || in.hosts[node] == nullptr) {
        return "?";
    }
    return escape(in.hosts[node]);
}

// "coll_cloudaware_calibrate_budget = 120 s", and the budget it gave this node set when larger.
std::string budget_text(const cacore_calib_inputs_t &in)
{
    const double b = calib_budget(in.budget_s, in.nnodes);
    return b > in.budget_s ? format("coll_cloudaware_calibrate_budget = %g s, %g s for %d nodes",
                                    in.budget_s, b, in.nnodes)
                           : format("coll_cloudaware_calibrate_budget = %g s", in.budget_s);
}

// The cause of a failed measurement, from the leaders' rows.
std::string measure_cause(const cacore_calib_inputs_t &in, const cacore_calib_report_t *rep)
{
    const int n = in.nnodes;
    for (int i = 0; i < n; i++) {
        if (rep[in.leaders[i]].meas == CACORE_MEAS_LATE) {
            return format("the leader of node %s (rank %d) started measuring after the time "
                          "budget (%s) had run out",
                          host(in, i).c_str(), in.leaders[i], budget_text(in).c_str());
        }
    }
    for (int i = 0; i < n; i++) {
        const cacore_calib_report_t &r = rep[in.leaders[i]];
        if (r.meas == CACORE_MEAS_ERROR) {
            return format("point-to-point error on node %s talking to node %s",
                          host(in, i).c_str(), host(in, r.peer).c_str());
        }
    }
    // The node most leaders timed out waiting for (the lowest on a tie).
    std::vector<int> awaited(static_cast<size_t>(n), 0);
    int worst = -1;
    for (int i = 0; i < n; i++) {
        const cacore_calib_report_t &r = rep[in.leaders[i]];
        if (r.meas == CACORE_MEAS_TIMEOUT && r.peer >= 0 && r.peer < n) {
            awaited[static_cast<size_t>(r.peer)]++;
        }
    }
    for (int i = 0; i < n; i++) {
        if (awaited[static_cast<size_t>(i)] > 0
            && (worst < 0 || awaited[static_cast<size_t>(i)] > awaited[static_cast<size_t>(worst)])) {
            worst = i;
        }
    }
    if (worst >= 0) {
        return format("the time budget (%s) ran out waiting for the leader of node %s (rank %d)",
                      budget_text(in).c_str(), host(in, worst).c_str(), in.leaders[worst]);
    }
    return format("the time budget (%s) ran out", budget_text(in).c_str());
}

}  // namespace

double calib_budget(double per_8_nodes_s, int nnodes)
{
    const int rounds = nnodes - 1 + nnodes % 2;   // the tournament's (docs/calibration.md)
    return rounds > 7 ? per_8_nodes_s * rounds / 7.0 : per_8_nodes_s;
}

namespace {

// The levels of a binomial tree over the ranks [0, n) below rank 0: the most set bits of any
// rank (a rank's depth is its number of set bits).
int tree_height(int n)
{
    if (n <= 1) {
        return 0;
    }
    const unsigned last = static_cast<unsigned>(n - 1);
    int best = __builtin_popcount(last);
    for (int b = 0; b < 31; b++) {   // last with bit b cleared and every bit below it set
        if ((last >> b) & 1u) {
            const int cand = __builtin_popcount(last >> (b + 1)) + b;
            best = cand > best ? cand : best;
        }
    }
    return best;
}

}  // namespace

cacore_calib_tree_t calib_tree(int nranks, int rank)
{
    cacore_calib_tree_t t{};
    const int low = rank == 0 ? 0 : (rank & -rank);   // the lowest set bit; rank 0: none
    t.parent = rank == 0 ? -1 : rank - low;
    t.end = rank == 0 ? nranks : (low > nranks - rank ? nranks : rank + low);
    for (int k = 0; k < 31 && (1 << k) < t.end - rank; k++) {
        t.children[t.nchildren++] = rank + (1 << k);
    }
    const int height = tree_height(nranks);
    const int depth = __builtin_popcount(static_cast<unsigned>(rank));
    t.report_by = height == 0 ? 0.5 : 0.5 * tree_height(t.end - rank) / height;
    t.verdict_by = height == 0 ? 0.5 : 0.5 + 0.5 * depth / height;
    return t;
}

const char *fail_point_name(int point)
{
    switch (point) {
    case CACORE_FAIL_START_ALLOC:
        return "start-alloc";
    case CACORE_FAIL_START_RECV:
        return "start-recv";
    case CACORE_FAIL_ALLOC:
        return "alloc";
    case CACORE_FAIL_MEASURE:
        return "measure";
    case CACORE_FAIL_REPORT:
        return "report";
    default:
        return "none";
    }
}

const char *fail_point_cause(int point)
{
    switch (point) {
    case CACORE_FAIL_START_RECV:
        return "could not receive rank 0's start message";
    case CACORE_FAIL_MEASURE:
        return "out of memory for its measurement buffers";
    default:
        return "out of memory";
    }
}

std::string failure_cause(const cacore_calib_inputs_t &in, const cacore_calib_report_t *rep,
                          bool *at_start)
{
    *at_start = false;
    const int nr = in.nranks;
    // Missing reports: the leaders (who measure) first, then the others.
    int missing = -1, nmissing = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < nr; r++) {
            const bool lead = in.leaders[rep[r].node] == r;
            if (!rep[r].reported && lead == (pass == 0)) {
                nmissing++;
                missing = missing < 0 ? r : missing;
            }
        }
    }
    if (missing >= 0) {
        const int node = rep[missing].node;
        return format("rank %d (%snode %s)%s did not report within the time budget "
                      "(%s + %g s)", missing,
                      in.leaders[node] == missing ? "the leader of " : "", host(in, node).c_str(),
                      nmissing > 1 ? " and others" : "", budget_text(in).c_str(),
                      in.decide_slack_s);
    }
    // Every report is here, but rank 0 itself is late (it was stalled): the others may have
    // stopped waiting for the verdict.
    if (in.rank0_late) {
        return format("rank 0 (node %s) itself reached the decision after the time budget "
                      "(%s + %g s) had run out",
                      host(in, rep[0].node).c_str(), budget_text(in).c_str(), in.decide_slack_s);
    }
    for (int r = 0; r < nr; r++) {
        if (rep[r].local != CACORE_FAIL_NONE) {
            return format("rank %d (node %s): %s", r, host(in, rep[r].node).c_str(),
                          fail_point_cause(rep[r].local));
        }
    }
    for (int r = 1; r < nr; r++) {
        const char *what = nullptr, *param = nullptr;
        if (rep[r].matrix_digest != rep[0].matrix_digest) {
            what = "matrix";
            param = in.matrix_file;
        } else if (rep[r].rules_digest != rep[0].rules_digest) {
            what = "rules";
            param = in.rules_file;
        }
        if (what != nullptr) {
            return format("ranks read different coll_cloudaware_%s_file content (%s; rank 0 "
                          "and rank %d on node %s differ)", what,
                          escape(param != nullptr ? param : "").c_str(), r,
                          host(in, rep[r].node).c_str());
        }
    }
    if (in.start_cause != nullptr) {
        *at_start = true;
        return in.start_cause[0] != '\0' ? std::string(in.start_cause)
                                         : std::string("rank 0 decided not to calibrate");
    }
    if (in.measured) {
        for (int i = 0; i < in.nnodes; i++) {
            if (rep[in.leaders[i]].meas != CACORE_MEAS_OK) {
                return measure_cause(in, rep);
            }
        }
    }
    return std::string();
}

cacore_calib_summary_t summarize(int n, const double *latency_s, const double *bandwidth_Bps)
{
    cacore_calib_summary_t s{};
    if (n < 2 || latency_s == nullptr || bandwidth_Bps == nullptr) {
        return s;
    }
    const size_t un = static_cast<size_t>(n);
    std::vector<double> lat, bw;
    lat.reserve(un * (un - 1));
    bw.reserve(un * (un - 1));
    for (size_t i = 0; i < un; i++) {
        for (size_t j = 0; j < un; j++) {
            if (i != j) {
                lat.push_back(latency_s[i * un + j]);
                bw.push_back(bandwidth_Bps[i * un + j]);
            }
        }
        for (size_t j = i + 1; j < un; j++) {
            const double a = bandwidth_Bps[i * un + j], b = bandwidth_Bps[j * un + i];
            const double hi = std::max(a, b);
            if (hi > 0 && std::fabs(a - b) / hi > 0.10) {
                s.asymmetric++;
            }
        }
    }
    s.pairs = un * (un - 1) / 2;
    std::sort(lat.begin(), lat.end());
    std::sort(bw.begin(), bw.end());
    s.latency_min_s = lat.front();
    s.latency_median_s = median(lat);
    s.latency_max_s = lat.back();
    s.bandwidth_min_Bps = bw.front();
    s.bandwidth_median_Bps = median(bw);
    s.bandwidth_max_Bps = bw.back();
    return s;
}

}  // namespace cacore
