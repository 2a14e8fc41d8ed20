// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
#include "preference.hpp"

namespace cacore {

bool preference_admits(std::string_view preference, std::string_view component)
{
    bool includes = false;
    while (!preference.empty()) {
        size_t comma = preference.find(',');
        std::string_view name = preference.substr(0, comma);
        preference.remove_prefix(comma == std::string_view::npos ? preference.size() : comma + 1);
        if (name.empty()) {
            continue;   // opal_argv_split drops empty names
        }
        if (name.front() == '^') {
            break;      // Open MPI reads every name from the first "^name" on as excluded
        }
        if (name == component) {
            return true;
        }
        includes = true;
    }
    return !includes;
}

}  // namespace cacore
