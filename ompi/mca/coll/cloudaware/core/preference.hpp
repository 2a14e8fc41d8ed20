// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// preference.hpp - the components a communicator's creator asked for: Open MPI's info key
// "ompi_comm_coll_preference" ("libnbc,^han": put libnbc first, leave han out), which han sets on
// the sub-communicators it makes and a user may set with MPI_Comm_dup_with_info.
#ifndef CACORE_PREFERENCE_HPP
#define CACORE_PREFERENCE_HPP

#include <string_view>

namespace cacore {

// Whether `component` may plan on a communicator whose creator gave this preference: yes when the
// list's include part (the names before the first "^name") is empty or names the component; no
// when it names only others (han's "libnbc,^han": the creator wants libnbc's collectives, not a
// planner above them). The value is read as Open MPI's coll base reads it: split at commas, empty
// names dropped, names compared whole (no spaces trimmed).
bool preference_admits(std::string_view preference, std::string_view component);

}  // namespace cacore
#endif
