// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// median.hpp - the median of a set of values (the mean of the middle two for an even count; 0 for
// none), as the trial, drift, calibration summary, bottleneck and trace analyses take it.
#ifndef CACORE_MEDIAN_HPP
#define CACORE_MEDIAN_HPP

#include <algorithm>
#include <vector>

namespace cacore {

inline double median(std::vector<double> v)
{
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace cacore
#endif
