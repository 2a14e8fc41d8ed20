// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// cost_model.hpp - predicted completion time of a plan (docs/cost-model.md).
#ifndef CACORE_COST_MODEL_HPP
#define CACORE_COST_MODEL_HPP

#include "cloudaware_core.h"
#include "matrix.hpp"
#include "plan.hpp"

#include <vector>

namespace cacore {

struct CostParams {
    double reduce_Bps = 2e9;
    double copy_Bps = 8e9;
    double intra_latency_s = 2e-6;
    double intra_Bps = 4e9;
    int node_send_slots = 1;     // 0 = unlimited
    int node_recv_slots = 1;
    bool duplex_serialize = true;

    static CostParams from_c(const cacore_cost_params_t &c);
    cacore_cost_params_t to_c() const;
};

// Discrete-event simulation of the plan's rounds: message time L + bytes/B between nodes (or the
// intra-node figures), FIFO per node send port and receive port, FIFO per rank pair connection when
// duplex_serialize, local copies and reductions at their speeds. rank_node maps ranks to nodes of m.
double predict(const Plan &p, const Matrix &m, const std::vector<int> &rank_node, const CostParams &c);

// Bytes of blocks [first, first+n) of a D-byte vector split into nblocks blocks.
double block_bytes(double total, int nblocks, int first, int n);

}  // namespace cacore
#endif
