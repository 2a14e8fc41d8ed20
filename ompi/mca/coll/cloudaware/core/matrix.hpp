// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// matrix.hpp - latency and bandwidth matrices between nodes (row = sender), and M(m) = L + m/B.
#ifndef CACORE_MATRIX_HPP
#define CACORE_MATRIX_HPP

#include <memory>
#include <string>
#include <vector>

namespace cacore {

// What calibration measures per node besides the pairs (docs/calibration.md, "Node capacity and
// per-message overhead"): the aggregate rate the node sends (egress) and receives (ingress) when
// several peers transfer at once, 0 = no cap seen (the pairs are independent paths), the
// software cost of one more message from one rank (seconds), and the two lone samples of shared
// bottlenecks (docs/calibration.md, "Shared bottlenecks"): the rate to the node's slowest peer
// measured alone with the rate the tournament's concurrent round measured for that pair, then the
// same for its second slowest peer (both 0: no sample; the second both -1: not measured, a file
// of version 2 to 4, whose one sample is the faster of the two). bottleneck.hpp infers shared
// capacities from the samples. And the burst credit (docs/calibration.md, "Burst credit"): the
// largest message the node's leader saw pass to a peer after an idle gap clearly faster than the
// pair's rate (bytes; 0 = none seen, -1 = not measured, a file of version 2 or 3).
struct NodeProps {
    double egress_Bps = 0.0;
    double ingress_Bps = 0.0;
    double overhead_s = 0.0;
    double lone_Bps = 0.0;
    double shared_Bps = 0.0;
    double burst_bytes = 0.0;
    double lone2_Bps = 0.0;
    double shared2_Bps = 0.0;
};

// The problem with one node's values (empty when valid): capacities and samples 0 or in the
// bandwidth range (a sample's two rates both 0 or both not; the second sample's both -1 too),
// overhead finite in 0..1000 s, burst -1 or 0..1e12 bytes.
std::string node_props_problem(const NodeProps &p);

struct Bottlenecks;   // bottleneck.hpp

class Matrix {
public:
    Matrix() = default;
    // Validates: n >= 1, unique non-empty host names without blanks, off-diagonal latencies finite
    // and >= 0, bandwidths finite and > 0. The diagonal is stored as 0 whatever is passed.
    Matrix(std::vector<std::string> hosts, std::vector<double> latency_s,
           std::vector<double> bandwidth_Bps);

    int nodes() const { return n_; }
    const std::string &host(int i) const { return hosts_[i]; }
    const std::vector<std::string> &hosts() const { return hosts_; }
    double latency(int from, int to) const { return lat_[idx(from, to)]; }
    double bandwidth(int from, int to) const { return bw_[idx(from, to)]; }
    // Time to move `bytes` from node `from` to node `to`; 0 on the diagonal.
    double cost(int from, int to, double bytes) const {
        return from == to ? 0.0 : lat_[idx(from, to)] + bytes / bw_[idx(from, to)];
    }
    // The same for a transfer that has its way between the nodes' groups to itself: behind a
    // shared bottleneck the pair's lone rate (Bottlenecks::lone_rate), else as cost().
    double lone_cost(int from, int to, double bytes) const;
    // The matrix restricted to `nodes` (indices into this matrix, distinct), in that order.
    Matrix sub(const std::vector<int> &nodes) const;

    // Node properties: either none (a matrix file of version 1, a lab's configured matrix) or one
    // per node. Validated (node_props_problem); an empty vector removes them. Also infers the
    // shared bottlenecks from the lone samples (bottleneck.hpp).
    void set_node_props(std::vector<NodeProps> props);
    bool has_node_props() const { return !props_.empty(); }
    const NodeProps &node_props(int i) const { return props_[i]; }
    // The shared bottlenecks inferred by set_node_props; null when there are none.
    const Bottlenecks *bottlenecks() const { return bottlenecks_.get(); }

private:
    size_t idx(int from, int to) const { return static_cast<size_t>(from) * n_ + to; }
    int n_ = 0;
    std::vector<std::string> hosts_;
    std::vector<double> lat_, bw_;
    std::vector<NodeProps> props_;
    std::shared_ptr<const Bottlenecks> bottlenecks_;   // immutable once set: copies share it
};

// Checks a host name the way the file format requires; returns an empty string or the problem.
std::string host_name_problem(const std::string &name);

}  // namespace cacore
#endif
