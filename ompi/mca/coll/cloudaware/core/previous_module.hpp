// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// previous_module.hpp - what the component that would otherwise run a call does, as a plan the
// cost model can price like any cloud-aware plan (docs/cost-model.md, "The previous module").
// tuned: the fixed decision rules of Open MPI 4.1 (coll_tuned_decision_fixed.c, v4.1.4);
// basic: its linear and logarithmic algorithms; han: two levels (inside the nodes, then among
// node leaders); binomial: an unknown component, modelled as a binomial tree over ranks.
#ifndef CACORE_PREVIOUS_MODULE_HPP
#define CACORE_PREVIOUS_MODULE_HPP

#include "layout.hpp"
#include "patterns.hpp"
#include "plan.hpp"

namespace cacore {

// tuned's algorithm for one call: its number in tuned's table for that collective (as
// coll_tuned_<op>_algorithm counts them) and its name there. The fixed rules of 4.1 pass segment
// size 0 and fan-in/out 0 to every algorithm: nothing is segmented, chains have one branch.
struct TunedChoice {
    int alg = 0;
    const char *name = "";
};

// Open MPI 4.1.4 ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, the functions
// ompi_coll_tuned_<op>_intra_dec_fixed. bytes: the whole vector (bcast, reduce, allreduce) or one
// rank's block (gather, scatter, allgather), as tuned's total_dsize.
TunedChoice tuned_choice(cacore_coll_t coll, int comm_size, double bytes, bool commutative);

// The plan the previous module `prev` (cacore_prev_t) runs for this call, with its description
// ("tuned split_binary_tree", ...); not yet predicted.
Plan build_previous(const PlanInput &in, int prev, bool commutative);

// Trees as Open MPI's coll/base topology code builds them (ompi/mca/coll/base/coll_base_topo.c),
// over indices relative to the root.
Tree ompi_kary_tree(int k, int fanout);    // ompi_coll_base_topo_build_tree
Tree ompi_knomial_tree(int k, int radix);  // ompi_coll_base_topo_build_kmtree

}  // namespace cacore
#endif
