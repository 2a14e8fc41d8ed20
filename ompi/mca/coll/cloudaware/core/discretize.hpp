// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// discretize.hpp - performance levels: level(x) = floor(x / (k * min)) of M(m), one byte per pair.
#ifndef CACORE_DISCRETIZE_HPP
#define CACORE_DISCRETIZE_HPP

#include "matrix.hpp"

#include <cstdint>
#include <vector>

namespace cacore {

// Discretized M(m) for all ordered pairs: n*n bytes (2048 nodes: 4 MiB). Levels saturate at 255.
class Levels {
public:
    Levels(const Matrix &m, double bytes, double k);
    int nodes() const { return n_; }
    uint8_t at(int from, int to) const { return lv_[static_cast<size_t>(from) * n_ + to]; }
    // Closeness uses the worse of both directions (asymmetric pairs).
    uint8_t sym(int a, int b) const { return at(a, b) > at(b, a) ? at(a, b) : at(b, a); }
    double unit() const { return unit_; }  // k * min off-diagonal M(m), seconds

private:
    int n_;
    double unit_ = 0.0;
    std::vector<uint8_t> lv_;
};

}  // namespace cacore
#endif
