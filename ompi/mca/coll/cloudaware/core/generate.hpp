// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// generate.hpp - synthetic matrices: racks, oversubscription, unevenness, asymmetry (seeded).
#ifndef CACORE_GENERATE_HPP
#define CACORE_GENERATE_HPP

#include "matrix.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace cacore {

struct GenParams {
    int nodes = 16;
    int racks = 1;
    double oversubscription = 4.0;  // inter-rack bandwidth = intra-rack bandwidth / this
    double unevenness = 0.0;        // per unordered pair: bandwidth / (1 + U*u), latency * (1 + U*u)
    double asymmetry = 0.0;         // per ordered pair: bandwidth / (1 + A*u)
    uint64_t seed = 1;
    bool shuffle = true;            // nodes are placed in racks in random order (cloud VMs)
    double intra_Bps = 1.25e9;      // 10 Gbit/s
    double intra_latency_s = 50e-6;
    double inter_latency_s = 150e-6;
};

// Rack of each node, and the matrix. Values keep 4 significant digits (compact files).
Matrix generate_matrix(const GenParams &p, std::vector<int> *rack_of = nullptr);
std::string describe_generation(const GenParams &p);

}  // namespace cacore
#endif
