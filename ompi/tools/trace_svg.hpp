// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// trace_svg.hpp - the pictures of `cloudaware-plan trace` (docs/monitoring.md): the timeline of
// one collective call (a row per rank, each step a bar coloured by level, the time the rank
// waited for it shaded) and the achieved-vs-matrix link heatmap.
#ifndef CLOUDAWARE_TRACE_SVG_HPP
#define CLOUDAWARE_TRACE_SVG_HPP

#include "trace_analysis.hpp"

#include <string>

namespace cloudaware_plan {

// The SVG of call c (its RankInCall records must point into a live TraceRun).
std::string trace_timeline_svg(const cacore::CallSummary &c,
                               const std::map<int, std::string> &host_of);

// Panels for write_heatmap_svg/png: the achieved rate per node pair (log scale) and, when the
// analysis had a matrix, achieved / predicted (dark = as predicted, white = far below). hosts
// gets the order of rows and columns.
void write_trace_link_heatmap(const cacore::TraceAnalysis &a, const std::string &path,
                              std::vector<std::string> &hosts);

}  // namespace cloudaware_plan
#endif
