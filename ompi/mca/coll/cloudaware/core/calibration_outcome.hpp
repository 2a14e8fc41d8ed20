// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// calibration_outcome.hpp - what a calibration tells the user (docs/calibration.md): the one-line
// cause of a failed calibration, worked out by rank 0 from what every rank reported, and the
// summary statistics of a measured matrix. MPI-free: the component collects the reports
// (coll_cloudaware_calibrate.c) and only prints what these functions word.
#ifndef CACORE_CALIBRATION_OUTCOME_HPP
#define CACORE_CALIBRATION_OUTCOME_HPP

#include "cloudaware_core.h"

#include <string>

namespace cacore {

// The names coll_cloudaware_calibrate_test_fail accepts ("start-alloc", ...; "none" for
// anything else) and what a failure at each point means for the user.
const char *fail_point_name(int point);
const char *fail_point_cause(int point);

// Empty when the calibration stands, else the cause. Checked in this order (the first found is
// the one said): reports missing (leaders first), rank 0 itself late, a local failure, ranks
// that read different files, rank 0's start message said fail (*at_start set then), a leader's
// failed measurement.
std::string failure_cause(const cacore_calib_inputs_t &in, const cacore_calib_report_t *rep,
                          bool *at_start);

// The time budget of one calibration of nnodes nodes, from coll_cloudaware_calibrate_budget
// (per_8_nodes_s): that much up to 8 nodes (7 tournament rounds), in proportion to the rounds
// beyond (16 nodes, 15 rounds: 15/7 of it), since the measurement takes one bulk transfer per
// round and one per node.
double calib_budget(double per_8_nodes_s, int nnodes);

// Rank `rank`'s place in the calibration's exchange tree of nranks ranks (cacore_calib_tree);
// 0 <= rank < nranks.
cacore_calib_tree_t calib_tree(int nranks, int rank);

// Statistics of the off-diagonal entries of n x n latency and bandwidth arrays.
cacore_calib_summary_t summarize(int n, const double *latency_s, const double *bandwidth_Bps);

}  // namespace cacore

#endif
