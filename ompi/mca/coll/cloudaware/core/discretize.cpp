// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// discretize.cpp - builds the byte matrix of levels.
#include "discretize.hpp"

#include "error.hpp"

#include <cmath>
#include <limits>

namespace cacore {

Levels::Levels(const Matrix &m, double bytes, double k) : n_(m.nodes())
{
    if (!std::isfinite(k) || k <= 0) {
        fail_arg("discretization factor k must be finite and > 0");
    }
    if (!std::isfinite(bytes) || bytes < 0) {
        fail_arg("message size must be finite and >= 0");
    }
    double mn = std::numeric_limits<double>::infinity();
    for (int i = 0; i < n_; ++i) {
        for (int j = 0; j < n_; ++j) {
            if (i != j) {
                mn = std::min(mn, m.cost(i, j, bytes));
            }
        }
    }
    lv_.assign(static_cast<size_t>(n_) * n_, 0);
    if (!std::isfinite(mn)) {
        return;  // a single node
    }
    // A zero minimum (zero latency, zero bytes) would make every other pair infinitely far:
    // use the smallest positive entry instead.
    if (mn <= 0) {
        mn = std::numeric_limits<double>::infinity();
        for (int i = 0; i < n_; ++i) {
            for (int j = 0; j < n_; ++j) {
                double c = m.cost(i, j, bytes);
                if (i != j && c > 0) {
                    mn = std::min(mn, c);
                }
            }
        }
        if (!std::isfinite(mn)) {
            return;  // everything is free: one level
        }
    }
    unit_ = k * mn;
    for (int i = 0; i < n_; ++i) {
        for (int j = 0; j < n_; ++j) {
            if (i != j) {
                double lv = std::floor(m.cost(i, j, bytes) / unit_);
                lv_[static_cast<size_t>(i) * n_ + j] = lv >= 255 ? 255 : static_cast<uint8_t>(lv);
            }
        }
    }
}

}  // namespace cacore
