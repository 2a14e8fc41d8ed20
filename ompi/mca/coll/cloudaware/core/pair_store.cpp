// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// pair_store.cpp - merge and lookup of sub-matrices by host names.
#include "pair_store.hpp"

#include "error.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cacore {

namespace {

// Whether row i of an n*n flag array flags any pair (i, j), j != i.
bool row_flags_any(const unsigned char *known, size_t n, size_t i)
{
    for (size_t j = 0; j < n; ++j) {
        if (j != i && known[i * n + j]) {
            return true;
        }
    }
    return false;
}

}  // namespace

int PairStore::find(const std::string &host) const
{
    auto it = index_.find(host);
    return it == index_.end() ? -1 : it->second;
}

int PairStore::add(const std::string &host)
{
    int i = find(host);
    if (i >= 0) {
        return i;
    }
    hosts_.push_back(host);
    try {
        index_.emplace(host, static_cast<int>(hosts_.size() - 1));
    } catch (...) {
        hosts_.pop_back();
        throw;
    }
    return static_cast<int>(hosts_.size() - 1);
}

void PairStore::set(int from, int to, double latency_s, double bandwidth_Bps)
{
    Pair &p = rows_[static_cast<size_t>(from)][static_cast<size_t>(to)];
    if (p.bandwidth_Bps <= 0.0) {
        ++pairs_;
    }
    p.latency_s = latency_s;
    p.bandwidth_Bps = bandwidth_Bps;
}

void PairStore::merge(const std::vector<std::string> &hosts, const double *latency_s,
                      const double *bandwidth_Bps, const unsigned char *known)
{
    const size_t n = hosts.size();
    if (n > 0 && (latency_s == nullptr || bandwidth_Bps == nullptr || known == nullptr)) {
        fail_arg("pair store merge: NULL argument");
    }
    // 1. Check everything before changing anything. Messages name positions, never the input.
    std::unordered_map<std::string, size_t> seen;
    for (size_t i = 0; i < n; ++i) {
        std::string problem = host_name_problem(hosts[i]);
        if (!problem.empty()) {
            fail_arg("pair store merge: host " + std::to_string(i) + ": " + problem);
        }
        auto ins = seen.emplace(hosts[i], i);
        if (!ins.second) {
            fail_arg("pair store merge: host " + std::to_string(i) + " repeats host " +
                     std::to_string(ins.first->second));
        }
    }
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
            const size_t k = i * n + j;
            if (i == j || !known[k]) {
                continue;
            }
            if (!std::isfinite(latency_s[k]) || latency_s[k] < 0 ||
                !std::isfinite(bandwidth_Bps[k]) || bandwidth_Bps[k] <= 0) {
                fail_arg("pair store merge: pair " + std::to_string(i) + "->" +
                         std::to_string(j) + ": latency must be finite and >= 0, bandwidth " +
                         "finite and > 0");
            }
        }
    }
    // 2. Allocate: hosts and rows long enough. If this runs out of memory, the store only has
    //    more hosts and longer rows, all of whose new pairs are unknown.
    std::vector<int> idx(n);
    for (size_t i = 0; i < n; ++i) {
        idx[i] = add(hosts[i]);
    }
    if (rows_.size() < hosts_.size()) {
        rows_.resize(hosts_.size());
    }
    for (size_t i = 0; i < n; ++i) {
        std::vector<Pair> &row = rows_[static_cast<size_t>(idx[i])];
        if (row.size() < hosts_.size() && row_flags_any(known, n, i)) {
            row.resize(hosts_.size());
        }
    }
    // 3. Write (nothing allocates from here on).
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
            const size_t k = i * n + j;
            if (i != j && known[k]) {
                set(idx[i], idx[j], latency_s[k], bandwidth_Bps[k]);
            }
        }
    }
}

void PairStore::merge(const Matrix &m)
{
    const int n = m.nodes();
    std::vector<int> idx(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        idx[static_cast<size_t>(i)] = add(m.host(i));
    }
    if (rows_.size() < hosts_.size()) {
        rows_.resize(hosts_.size());
    }
    for (int i = 0; i < n; ++i) {
        std::vector<Pair> &row = rows_[static_cast<size_t>(idx[static_cast<size_t>(i)])];
        if (n > 1 && row.size() < hosts_.size()) {
            row.resize(hosts_.size());
        }
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            if (i != j) {
                set(idx[static_cast<size_t>(i)], idx[static_cast<size_t>(j)], m.latency(i, j),
                    m.bandwidth(i, j));
            }
        }
    }
    if (m.has_node_props()) {
        for (int i = 0; i < n; ++i) {
            nodes_[idx[static_cast<size_t>(i)]] = m.node_props(i);
        }
    }
}

void PairStore::merge_nodes(const std::vector<std::string> &hosts, const NodeProps *props,
                            const unsigned char *known)
{
    const size_t n = hosts.size();
    if (n > 0 && (props == nullptr || known == nullptr)) {
        fail_arg("pair store merge_nodes: NULL argument");
    }
    for (size_t i = 0; i < n; ++i) {
        std::string problem = host_name_problem(hosts[i]);
        if (problem.empty() && known[i]) {
            problem = node_props_problem(props[i]);
        }
        if (!problem.empty()) {
            fail_arg("pair store merge_nodes: host " + std::to_string(i) + ": " + problem);
        }
    }
    std::vector<int> idx(n);
    for (size_t i = 0; i < n; ++i) {
        idx[i] = add(hosts[i]);
    }
    for (size_t i = 0; i < n; ++i) {
        if (known[i]) {
            nodes_[idx[i]] = props[i];
        }
    }
}

size_t PairStore::lookup_nodes(const std::vector<std::string> &hosts, NodeProps *props,
                               unsigned char *known) const
{
    const size_t n = hosts.size();
    if (n > 0 && (props == nullptr || known == nullptr)) {
        fail_arg("pair store lookup_nodes: NULL argument");
    }
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        int h = find(hosts[i]);
        auto it = h < 0 ? nodes_.end() : nodes_.find(h);
        known[i] = it != nodes_.end();
        props[i] = known[i] ? it->second : NodeProps{};
        count += known[i];
    }
    return count;
}

size_t PairStore::lookup(const std::vector<std::string> &hosts, double *latency_s,
                         double *bandwidth_Bps, unsigned char *known) const
{
    const size_t n = hosts.size(), nn = n * n;
    if (n > 0 && (latency_s == nullptr || bandwidth_Bps == nullptr || known == nullptr)) {
        fail_arg("pair store lookup: NULL argument");
    }
    std::vector<int> idx(n);
    for (size_t i = 0; i < n; ++i) {
        idx[i] = find(hosts[i]);
    }
    if (n == 0) {
        return 0;   // the arrays may be NULL then (memset must not see a NULL pointer)
    }
    std::memset(known, 0, nn);
    std::fill(latency_s, latency_s + nn, 0.0);
    std::fill(bandwidth_Bps, bandwidth_Bps + nn, 0.0);
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        if (idx[i] < 0) {
            continue;
        }
        if (rows_.size() <= static_cast<size_t>(idx[i])) {
            continue;
        }
        const std::vector<Pair> &row = rows_[static_cast<size_t>(idx[i])];
        for (size_t j = 0; j < n; ++j) {
            if (i == j || idx[j] < 0 || idx[j] == idx[i] ||
                row.size() <= static_cast<size_t>(idx[j])) {
                continue;
            }
            const Pair &p = row[static_cast<size_t>(idx[j])];
            if (p.bandwidth_Bps > 0.0) {
                const size_t k = i * n + j;
                latency_s[k] = p.latency_s;
                bandwidth_Bps[k] = p.bandwidth_Bps;
                known[k] = 1;
                ++count;
            }
        }
    }
    return count;
}

}  // namespace cacore
