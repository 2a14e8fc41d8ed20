// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// units.hpp - sizes, times and rates as people read them, for the tools' and the analyses' text output.
#ifndef CACORE_UNITS_HPP
#define CACORE_UNITS_HPP

#include <string>

namespace cacore {

// "512 B", "64 KiB", "1.5 MiB", "2 GiB" (binary units, 4 significant digits).
std::string format_bytes(double b);
// "1.234 s", "12.345 ms", "56.7 us".
std::string format_time(double s);
// Bytes/s as "%.4g Mbit/s".
std::string format_rate(double bps);

}  // namespace cacore
#endif
