// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// layout.hpp - ranks on nodes: the nodes a communicator uses, its ranks per node, node leaders,
// and the hierarchy over those nodes.
#ifndef CACORE_LAYOUT_HPP
#define CACORE_LAYOUT_HPP

#include "cloudaware_core.h"
#include "hierarchy.hpp"
#include "matrix.hpp"

#include <vector>

namespace cacore {

struct PlanInput {
    const Matrix *matrix = nullptr;
    std::vector<int> rank_node;       // rank -> node index of *matrix
    cacore_coll_t coll = CACORE_COLL_BCAST;
    int root = 0;
    double bytes = 0;                 // see cacore_plan_build
    size_t count = 0;                 // elements; 0 = unknown
};

struct Layout {
    std::vector<int> nodes;               // matrix node of each local node, ascending
    std::vector<int> local;               // rank -> local node
    std::vector<std::vector<int>> ranks;  // local node -> its ranks, ascending
    std::vector<int> leader;              // local node -> leader rank
    Matrix sub;                           // matrix over the local nodes
    Hierarchy hier;                       // over the local nodes
    int root_node = 0;                    // local node of the root

    Layout(const PlanInput &in, const HierParams &hp);
    // Ranks on the nodes of group g of level l, ascending.
    std::vector<int> ranks_of_group(int l, int g) const;
};

// Throws Error(CACORE_ERR_ARG) on an invalid input.
void validate(const PlanInput &in);
// D in bytes: bytes, or nranks * bytes for gather-type collectives.
double total_bytes(const PlanInput &in);

}  // namespace cacore
#endif
