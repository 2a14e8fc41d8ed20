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
    int node_send_slots = -1;    // 0 = unlimited; -1 = measured (flow model, see predict)
    int node_recv_slots = -1;
    double duplex_above_bytes = CACORE_DUPLEX_MEASURED;   // coll_cloudaware_model_duplex
    // A message between nodes of at most this many bytes whose capacities are idle (carry
    // nothing, owe nothing) passes in one burst, at its latency; each of them then owes the
    // message's time at its rate, and passes nothing before (a token-bucket shaper's debt). Its
    // capacities: in the flow model its directed node pair, its nodes' egress and ingress and the
    // shared bottleneck it crosses; in the port model its node pair.
    // CACORE_BURST_MEASURED (default, coll_cloudaware_model_burst): the sender node's measured
    // credit C (NodeProps::burst_bytes; none where not measured), which fades toward its edge:
    // of a message of b < C bytes, b (1 - b / C) pass at once, the rest at the rate, and the
    // part is owed after it; 0: no bursts; bytes: that credit for every node, a threshold.
    // cloudaware-plan --burst asks the model what if.
    double burst_bytes = CACORE_BURST_MEASURED;
    // The call is one of many that follow each other (default: what the decision prices): with
    // bursts, the calls are simulated back to back with the capacities' debts carried from one to
    // the next (a burst is repaid before or during the next call), and the price is the mean time
    // of the calls after the first; it is never below busiest_capacity_s. Without bursts the
    // price is one call's. cloudaware-plan --one-call prices one call from idle links
    // (docs/cost-model.md, "Repeated calls").
    bool repeated = true;

    static CostParams from_c(const cacore_cost_params_t &c);
    cacore_cost_params_t to_c() const;
};

// Discrete-event simulation of the plan's rounds, local copies and reductions at their speeds,
// FIFO per rank pair connection for the messages that take turns with the other direction:
// those above duplex_above_bytes (0: all, -1: none); with CACORE_DUPLEX_MEASURED, those inside a
// node, and, in a plan that does not post its sends first (p.sends_first), every other one but
// those up to CACORE_DUPLEX_GROUP_BYTES between two nodes of one group of the matrix's shared
// bottlenecks. rank_node maps ranks to nodes of m.
// Between nodes, two models (docs/cost-model.md):
// - slots >= 0 (configured) or a matrix without node properties (slots -1 then means 1): a
//   message takes L + bytes/B and holds one of its sender node's send ports and one of its
//   receiver node's receive ports, FIFO.
// - slots -1 with node properties (measured): a flow-level model. Messages in flight share
//   rates max-min fairly under three kinds of capacity: the directed node pair (B[a][b], one
//   pipe for every rank of a and b), the sender node's egress and the receiver node's ingress
//   capacity (0 = none); a message ends L after its last byte left. A rank's k-th send of a
//   round leaves k times its node's per-message overhead after the first.
// In both, with c.burst_bytes, a short message whose capacities are idle takes L and holds
// nothing, and they then owe its time (above); c.repeated prices one of many calls (above).
double predict(const Plan &p, const Matrix &m, const std::vector<int> &rank_node, const CostParams &c);

// The time the busiest capacity of the model needs for the bytes the plan's messages between
// nodes put through it: in the flow model (see predict) each directed node pair, node egress and
// ingress and shared bottleneck; in the port model each directed node pair and, with slots > 0,
// each node's send and receive ports (their bytes at the pair's rate over the slots). 0 for a
// plan that keeps within its nodes.
double busiest_capacity_s(const Plan &p, const Matrix &m, const std::vector<int> &rank_node,
                          const CostParams &c);

// Some node's messages may pass as bursts under c (CostParams::burst_bytes).
bool has_bursts(const CostParams &c, const Matrix &m);

// Bytes of blocks [first, first+n) of a D-byte vector split into nblocks blocks.
double block_bytes(double total, int nblocks, int first, int n);

}  // namespace cacore
#endif
