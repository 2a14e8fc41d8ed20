// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// units.cpp - sizes, times and rates as people read them.
#include "units.hpp"

#include <cstdio>

namespace cacore {

std::string format_bytes(double b)
{
    char buf[64];
    if (b >= 1073741824.0) {
        std::snprintf(buf, sizeof buf, "%.4g GiB", b / 1073741824.0);
    } else if (b >= 1048576) {
        std::snprintf(buf, sizeof buf, "%.4g MiB", b / 1048576);
    } else if (b >= 1024) {
        std::snprintf(buf, sizeof buf, "%.4g KiB", b / 1024);
    } else {
        std::snprintf(buf, sizeof buf, "%.0f B", b);
    }
    return buf;
}

std::string format_time(double s)
{
    char buf[64];
    if (s >= 1) {
        std::snprintf(buf, sizeof buf, "%.3f s", s);
    } else if (s >= 1e-3) {
        std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
    } else {
        std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    }
    return buf;
}

std::string format_rate(double bps)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g Mbit/s", bps * 8 / 1e6);
    return buf;
}

}  // namespace cacore
