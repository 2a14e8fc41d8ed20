// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// units.hpp - sizes as people read them, for the tools' and the analyses' text output.
#ifndef CACORE_UNITS_HPP
#define CACORE_UNITS_HPP

#include <string>

namespace cacore {

// "512 B", "64 KiB", "1.5 MiB", "2 GiB" (binary units, 4 significant digits).
std::string format_bytes(double b);

}  // namespace cacore
#endif
