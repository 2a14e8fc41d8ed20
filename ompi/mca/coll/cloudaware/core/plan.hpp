// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// plan.hpp - a plan as data (the schema of cloudaware_core.h) and the builder the patterns use.
#ifndef CACORE_PLAN_HPP
#define CACORE_PLAN_HPP

#include "cloudaware_core.h"

#include <string>
#include <vector>

namespace cacore {

struct Plan {
    cacore_coll_t coll = CACORE_COLL_BCAST;
    cacore_algo_t algo = CACORE_ALGO_COOL;
    int root = 0;
    int nranks = 0;
    int nblocks = 1;
    int ntmp = 0;
    double total_bytes = 0;        // bytes of the whole data vector D
    bool preserves_order = false;  // reductions combine operands in rank order
    // Each round posts its sends before its receives, as the executor does; false for the
    // previous module's own code, whose exchanges post the receive first (the cost model's
    // two-way rule, docs/cost-model.md).
    bool sends_first = true;
    std::string description;
    double predicted_s = 0;
    std::vector<std::vector<cacore_step_t>> steps;  // per rank, sorted by round

    // Blocks per rank part for gather/scatter/allgather (nblocks / nranks), 0 otherwise.
    int blocks_per_rank() const;
};

bool is_rooted(cacore_coll_t c);
bool is_gather_type(cacore_coll_t c);   // gather, scatter, allgather: D = nranks * count
bool is_reduction(cacore_coll_t c);

// Appends steps; finish() sorts every rank's list by round (stable: posting order is kept).
class PlanBuilder {
public:
    PlanBuilder(cacore_coll_t coll, int root, int nranks, int nblocks);

    void send(int rank, int round, int level, int buf, int peer, int first, int n);
    void recv(int rank, int round, int level, int buf, int peer, int first, int n);
    // A send from `from` (round rs) matched by a receive at `to` (round rr).
    void transfer(int from, int rs, int from_buf, int to, int rr, int to_buf, int level, int first,
                  int n);
    void copy(int rank, int round, int level, int dst, int src, int first, int n);
    void reduce(int rank, int round, int level, int dst, int src, bool src_first, int first, int n);

    int nranks() const { return nranks_; }
    int nblocks() const { return nblocks_; }
    cacore_coll_t coll() const { return coll_; }
    int root() const { return root_; }
    Plan finish(double total_bytes, cacore_algo_t algo, const std::string &description);

private:
    void add(int rank, cacore_step_t s);
    cacore_coll_t coll_;
    int root_, nranks_, nblocks_;
    int ntmp_ = 0;
    std::vector<std::vector<cacore_step_t>> steps_;
};

// Human-readable dump of a plan's steps, one line per step.
std::string format_steps(const Plan &p, int max_ranks = -1);

}  // namespace cacore
#endif
