// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// The one source of truth for the names users type and read: collectives, algorithms, patterns,
// plan levels, previous modules and trial outcomes. The MCA enums (coll_cloudaware_component.c),
// the rules parser (rules.cpp) and cloudaware-plan all take them from here (C callers through
// cacore_*_name in cloudaware_core.h).
#pragma once

#include <string>
#include <string_view>

#include "cloudaware_core.h"

namespace cacore {

const char *coll_name(int c);      // cacore_coll_t; NULL past CACORE_COLL_COUNT
const char *algo_name(int a);      // cacore_algo_t; NULL past CACORE_ALGO_COUNT
const char *pattern_name(int p);   // cacore_pattern_t; NULL past CACORE_PAT_COUNT
const char *level_name(int l);     // 0 node, 1 group, 2 top; NULL past CACORE_PLAN_LEVELS
const char *prev_name(int p);      // cacore_prev_t; NULL past CACORE_PREV_COUNT
const char *trial_name(int t);     // cacore_trial_t; NULL past CACORE_TRIAL_COUNT

// The index whose name is tok, or -1. name(i) must return NULL for i >= count.
int find_name(const char *(*name)(int), std::string_view tok);
// "a, b, c or d": every name of a table (then `last`, if given), for error messages.
std::string name_list(const char *(*name)(int), const char *last = nullptr);

}  // namespace cacore
