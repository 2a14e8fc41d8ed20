// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// pair_store.hpp - what one process knows about the network: latency and bandwidth per ordered
// pair of hosts, learnt piece by piece (the matrix file, cache entries, calibrations of node
// subsets) and looked up as the sub-matrix of any host list.
//
// Matrices belong to the hosts, not to a communicator: a communicator over hosts the store has
// seen together before measures nothing. A value type without locking (the component keeps its
// one instance under a mutex).
#ifndef CACORE_PAIR_STORE_HPP
#define CACORE_PAIR_STORE_HPP

#include "matrix.hpp"

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace cacore {

class PairStore {
public:
    // Adds or replaces the pairs (i, j), i != j, with known[i*n+j] != 0, n = hosts.size();
    // latency_s, bandwidth_Bps and known are n*n row-major (row = sender). All or nothing: an
    // invalid host name (as matrix files require), a host listed twice, or a flagged pair whose
    // latency is not finite >= 0 or whose bandwidth is not finite > 0 throws Error(ARG) and
    // leaves the store as it was.
    void merge(const std::vector<std::string> &hosts, const double *latency_s,
               const double *bandwidth_Bps, const unsigned char *known);
    // Every off-diagonal pair of a (validated) matrix.
    void merge(const Matrix &m);
    // The sub-matrix of hosts (any names, in that order): fills the n*n arrays, with 0 and
    // known = 0 for every pair the store does not know (the diagonal included). Returns the
    // number of known ordered pairs.
    size_t lookup(const std::vector<std::string> &hosts, double *latency_s,
                  double *bandwidth_Bps, unsigned char *known) const;
    // Node properties (capacities, overhead: matrix.hpp) per host, learnt like pairs: adds or
    // replaces those of hosts[i] with known[i] != 0. All or nothing (invalid values throw
    // Error(ARG)). merge(Matrix) merges the matrix's node properties too, when it has them.
    void merge_nodes(const std::vector<std::string> &hosts, const NodeProps *props,
                     const unsigned char *known);
    // Fills props[i] and known[i] for hosts[i] (zeros and 0 when unknown); returns how many known.
    size_t lookup_nodes(const std::vector<std::string> &hosts, NodeProps *props,
                        unsigned char *known) const;
    // Hosts seen so far (in any merge).
    int hosts() const { return static_cast<int>(hosts_.size()); }
    // Known ordered pairs.
    size_t pairs() const { return pairs_; }

private:
    struct Pair {
        double latency_s = 0.0;
        double bandwidth_Bps = 0.0;   // 0: not known (a known bandwidth is > 0)
    };
    int find(const std::string &host) const;
    int add(const std::string &host);
    void set(int from, int to, double latency_s, double bandwidth_Bps);

    std::vector<std::string> hosts_;                 // in the order first seen
    std::unordered_map<std::string, int> index_;     // host -> its index in hosts_
    // rows_[i][j]: host i -> host j. A row shorter than j + 1 does not know j, so adding a host
    // costs nothing until one of its pairs is learnt (no capacity squared anywhere).
    std::vector<std::vector<Pair>> rows_;
    size_t pairs_ = 0;
    std::unordered_map<int, NodeProps> nodes_;       // host index -> its node properties
};

}  // namespace cacore
#endif
