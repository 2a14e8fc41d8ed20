/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "names.hpp"

#include <string>
#include <vector>

namespace cacore {

namespace {

template <size_t N>
const char *at(const char *const (&table)[N], int i)
{
    return i >= 0 && static_cast<size_t>(i) < N ? table[i] : nullptr;
}

// Indexed by the enums of cloudaware_core.h; the static_asserts keep both in step.
const char *const colls[] = {"bcast", "reduce", "allreduce", "gather", "scatter", "allgather"};
const char *const algos[] = {"auto", "cool", "tree", "binomial", "ring", "linear", "rail", "lanes"};
const char *const patterns[] = {"auto", "flat", "binomial", "recdbl", "ring", "chain", "dualtree",
                                       "rabenseifner", "direct"};
const char *const levels[] = {"node", "group", "top"};
const char *const prevs[] = {"tuned", "basic", "han", "binomial"};
const char *const trials[] = {"unknown", "plan", "previous", "alternative", "peer"};
static_assert(sizeof(colls) / sizeof(colls[0]) == CACORE_COLL_COUNT, "a collective without a name");
static_assert(sizeof(algos) / sizeof(algos[0]) == CACORE_ALGO_COUNT, "an algorithm without a name");
static_assert(sizeof(patterns) / sizeof(patterns[0]) == CACORE_PAT_COUNT, "a pattern without a name");
static_assert(sizeof(levels) / sizeof(levels[0]) == CACORE_PLAN_LEVELS, "a level without a name");
static_assert(sizeof(prevs) / sizeof(prevs[0]) == CACORE_PREV_COUNT, "a previous module without a name");
static_assert(sizeof(trials) / sizeof(trials[0]) == CACORE_TRIAL_COUNT, "a trial outcome without a name");

}  // namespace

const char *coll_name(int c) { return at(colls, c); }
const char *algo_name(int a) { return at(algos, a); }
const char *pattern_name(int p) { return at(patterns, p); }
const char *level_name(int l) { return at(levels, l); }
const char *prev_name(int p) { return at(prevs, p); }
const char *trial_name(int t) { return at(trials, t); }

int find_name(const char *(*name)(int), std::string_view tok)
{
    for (int i = 0; name(i) != nullptr; ++i) {
        if (tok == name(i)) {
            return i;
        }
    }
    return -1;
}

std::string name_list(const char *(*name)(int), const char *last)
{
    std::vector<const char *> all;
    for (int i = 0; name(i) != nullptr; ++i) {
        all.push_back(name(i));
    }
    if (last != nullptr) {
        all.push_back(last);
    }
    std::string s;
    for (size_t i = 0; i < all.size(); ++i) {
        s += i == 0 ? "" : i + 1 == all.size() ? " or " : ", ";
        s += all[i];
    }
    return s;
}

}  // namespace cacore
