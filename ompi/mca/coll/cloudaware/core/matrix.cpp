// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// matrix.cpp - validation and sub-matrices.
#include "matrix.hpp"

#include "bottleneck.hpp"

#include "error.hpp"
#include "escape.hpp"

#include <cmath>
#include <unordered_set>

namespace cacore {

std::string host_name_problem(const std::string &name)
{
    if (name.empty()) {
        return "empty host name";
    }
    if (name.size() > 255) {
        return "host name longer than 255 bytes";
    }
    for (char c : name) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0') {
            return "host name contains white space";
        }
    }
    return "";
}

std::string node_props_problem(const NodeProps &p)
{
    auto cap_ok = [](double v) { return v == 0.0 || (v >= 1.0 && v <= 1e15); };
    if (!std::isfinite(p.egress_Bps) || !cap_ok(p.egress_Bps) || !std::isfinite(p.ingress_Bps) ||
        !cap_ok(p.ingress_Bps)) {
        return "node capacity must be 0 (no cap) or 1..1e+15 bytes/s";
    }
    auto sample_ok = [&](double lone, double shared) {
        return std::isfinite(lone) && cap_ok(lone) && std::isfinite(shared) && cap_ok(shared) &&
               (lone == 0.0) == (shared == 0.0);
    };
    if (!sample_ok(p.lone_Bps, p.shared_Bps)) {
        return "lone sample rates must both be 0 (no sample) or both 1..1e+15 bytes/s";
    }
    if (!(p.lone2_Bps == -1.0 && p.shared2_Bps == -1.0) && !sample_ok(p.lone2_Bps, p.shared2_Bps)) {
        return "second lone sample rates must both be -1 (not measured), both 0 (no sample) or "
               "both 1..1e+15 bytes/s";
    }
    if (!std::isfinite(p.overhead_s) || p.overhead_s < 0 || p.overhead_s > 1e3) {
        return "per-message overhead must be finite, 0..1000 s";
    }
    if (!(p.burst_bytes == -1.0 || (p.burst_bytes >= 0 && p.burst_bytes <= 1e12))) {
        return "burst credit must be -1 (not measured) or 0..1e+12 bytes";
    }
    return "";
}

void Matrix::set_node_props(std::vector<NodeProps> props)
{
    if (!props.empty() && static_cast<int>(props.size()) != n_) {
        fail_arg("node properties: " + std::to_string(props.size()) + " values for " +
                 std::to_string(n_) + " nodes");
    }
    for (size_t i = 0; i < props.size(); ++i) {
        std::string p = node_props_problem(props[i]);
        if (!p.empty()) {
            fail_arg("node " + std::to_string(i) + ": " + p);
        }
    }
    props_ = std::move(props);
    Bottlenecks b = infer_bottlenecks(*this);
    bottlenecks_ = b.ngroups > 0 ? std::make_shared<const Bottlenecks>(std::move(b)) : nullptr;
}

Matrix::Matrix(std::vector<std::string> hosts, std::vector<double> latency_s,
               std::vector<double> bandwidth_Bps)
    : n_(static_cast<int>(hosts.size())), hosts_(std::move(hosts)), lat_(std::move(latency_s)),
      bw_(std::move(bandwidth_Bps))
{
    if (n_ < 1) {
        fail_arg("a matrix needs at least one node");
    }
    const size_t nn = static_cast<size_t>(n_) * n_;
    if (lat_.size() != nn || bw_.size() != nn) {
        fail_arg("matrix size mismatch: " + std::to_string(n_) + " hosts need " +
                 std::to_string(nn) + " latencies and bandwidths");
    }
    std::unordered_set<std::string> seen;
    for (const auto &h : hosts_) {
        std::string p = host_name_problem(h);
        if (!p.empty()) {
            fail_arg(p + " (" + quote(h) + ")");
        }
        if (!seen.insert(h).second) {
            fail_arg("duplicate host name " + quote(h));
        }
    }
    for (int i = 0; i < n_; ++i) {
        for (int j = 0; j < n_; ++j) {
            size_t k = idx(i, j);
            if (i == j) {
                lat_[k] = 0.0;
                bw_[k] = 0.0;
                continue;
            }
            if (!std::isfinite(lat_[k]) || lat_[k] < 0) {
                fail_arg("latency " + std::to_string(i) + "->" + std::to_string(j) +
                         " must be finite and >= 0");
            }
            if (!std::isfinite(bw_[k]) || bw_[k] <= 0) {
                fail_arg("bandwidth " + std::to_string(i) + "->" + std::to_string(j) +
                         " must be finite and > 0");
            }
        }
    }
}

double Matrix::lone_cost(int from, int to, double bytes) const
{
    if (from == to || bottlenecks_ == nullptr) {
        return cost(from, to, bytes);
    }
    return lat_[idx(from, to)] + bytes / bottlenecks_->lone_rate(*this, from, to);
}

Matrix Matrix::sub(const std::vector<int> &nodes) const
{
    std::vector<std::string> h;
    std::vector<double> l, b;
    const size_t k = nodes.size();
    h.reserve(k);
    l.reserve(k * k);
    b.reserve(k * k);
    for (int a : nodes) {
        if (a < 0 || a >= n_) {
            fail_arg("sub-matrix: node index " + std::to_string(a) + " out of range");
        }
        h.push_back(hosts_[a]);
    }
    for (int a : nodes) {
        for (int c : nodes) {
            l.push_back(a == c ? 0.0 : latency(a, c));
            b.push_back(a == c ? 0.0 : bandwidth(a, c));
        }
    }
    Matrix out(std::move(h), std::move(l), std::move(b));  // also rejects duplicates
    if (has_node_props()) {
        std::vector<NodeProps> p;
        p.reserve(k);
        for (int a : nodes) {
            p.push_back(props_[a]);
        }
        out.set_node_props(std::move(p));   // the bottlenecks of the sub-network, inferred again
    }
    return out;
}

}  // namespace cacore
