// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// cost_model.cpp - event-driven completion-time prediction.
#include "cost_model.hpp"

#include "error.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <queue>
#include <tuple>

namespace cacore {

CostParams CostParams::from_c(const cacore_cost_params_t &c)
{
    CostParams p;
    p.reduce_Bps = c.reduce_Bps;
    p.copy_Bps = c.copy_Bps;
    p.intra_latency_s = c.intra_latency_s;
    p.intra_Bps = c.intra_Bps;
    p.node_send_slots = c.node_send_slots;
    p.node_recv_slots = c.node_recv_slots;
    p.duplex_serialize = c.duplex_serialize != 0;
    if (!(p.reduce_Bps > 0) || !(p.copy_Bps > 0) || !(p.intra_Bps > 0) || !(p.intra_latency_s >= 0) ||
        !std::isfinite(p.intra_latency_s) || p.node_send_slots < 0 || p.node_recv_slots < 0) {
        fail_arg("cost parameters: speeds must be > 0, latency >= 0, slots >= 0");
    }
    return p;
}

cacore_cost_params_t CostParams::to_c() const
{
    cacore_cost_params_t c;
    c.reduce_Bps = reduce_Bps;
    c.copy_Bps = copy_Bps;
    c.intra_latency_s = intra_latency_s;
    c.intra_Bps = intra_Bps;
    c.node_send_slots = node_send_slots;
    c.node_recv_slots = node_recv_slots;
    c.duplex_serialize = duplex_serialize ? 1 : 0;
    return c;
}

double block_bytes(double total, int nblocks, int first, int n)
{
    double a = std::floor(static_cast<double>(first) * total / nblocks);
    double b = std::floor(static_cast<double>(first + n) * total / nblocks);
    return b - a;
}

namespace {

// A pool of `slots` FIFO servers; 0 slots = unlimited.
struct Port {
    std::vector<double> free_at;
    double earliest() const
    {
        return free_at.empty() ? 0.0 : *std::min_element(free_at.begin(), free_at.end());
    }
    void occupy(double until)
    {
        if (!free_at.empty()) {
            *std::min_element(free_at.begin(), free_at.end()) = until;
        }
    }
};

struct Transfer {
    double ready;
    long seq;
    int from, to;
    double bytes;
    bool operator>(const Transfer &o) const { return std::tie(ready, seq) > std::tie(o.ready, o.seq); }
};

}  // namespace

double predict(const Plan &p, const Matrix &m, const std::vector<int> &rank_node, const CostParams &c)
{
    const int n = p.nranks;
    if (static_cast<int>(rank_node.size()) != n) {
        fail_arg("cost model: rank_node has " + std::to_string(rank_node.size()) +
                 " entries for a plan of " + std::to_string(n) + " ranks");
    }
    for (int node : rank_node) {
        if (node < 0 || node >= m.nodes()) {
            fail_arg("cost model: rank_node entry " + std::to_string(node) + " out of range");
        }
    }
    std::vector<Port> sendp(m.nodes()), recvp(m.nodes());
    for (int i = 0; i < m.nodes(); ++i) {
        sendp[i].free_at.assign(c.node_send_slots, 0.0);
        recvp[i].free_at.assign(c.node_recv_slots, 0.0);
    }
    std::unordered_map<long long, double> conn;  // unordered rank pair -> free time
    // Directed node pair -> free time. The pair's rate B[a][b] is that of one pipe: messages of
    // several ranks of a node to ranks of another node share it, whatever the port slots say.
    std::unordered_map<long long, double> link;

    // Round boundaries.
    std::vector<std::vector<std::pair<size_t, size_t>>> rounds(n);
    for (int r = 0; r < n; ++r) {
        const auto &st = p.steps[r];
        for (size_t i = 0; i < st.size();) {
            size_t j = i;
            while (j < st.size() && st[j].round == st[i].round) {
                ++j;
            }
            rounds[r].push_back({i, j});
            i = j;
        }
    }
    struct Post {
        double t;
        double bytes;
        int rank;  // the poster
    };
    // Per directed rank pair: queues of posted sends and receives not yet matched.
    std::unordered_map<long long, std::pair<std::vector<Post>, std::vector<Post>>> q;
    std::unordered_map<long long, std::pair<size_t, size_t>> qhead;
    std::priority_queue<Transfer, std::vector<Transfer>, std::greater<Transfer>> ready;
    std::vector<size_t> cur(n, 0);
    std::vector<int> pending(n, 0);
    std::vector<double> clock(n, 0.0), round_end(n, 0.0);
    long seq = 0;
    double finish = 0.0;

    auto key = [n](int a, int b) { return static_cast<long long>(a) * n + b; };
    auto match = [&](int from, int to) {
        auto &qq = q[key(from, to)];
        auto &h = qhead[key(from, to)];
        while (h.first < qq.first.size() && h.second < qq.second.size()) {
            const Post &s = qq.first[h.first];
            const Post &r = qq.second[h.second];
            ready.push(Transfer{std::max(s.t, r.t), seq++, from, to, s.bytes});
            ++h.first;
            ++h.second;
        }
    };
    // Runs rank r's rounds from its clock until one has communication to wait for.
    auto start_rounds = [&](int r) {
        while (cur[r] < rounds[r].size()) {
            auto [a, z] = rounds[r][cur[r]];
            double t = clock[r];
            int comm = 0;
            for (size_t i = a; i < z; ++i) {
                const auto &s = p.steps[r][i];
                double bytes = block_bytes(p.total_bytes, p.nblocks, s.first_block, s.nblocks);
                if (s.kind == CACORE_STEP_COPY) {
                    t += bytes / c.copy_Bps;
                } else if (s.kind == CACORE_STEP_REDUCE) {
                    t += bytes / c.reduce_Bps;
                }
            }
            for (size_t i = a; i < z; ++i) {
                const auto &s = p.steps[r][i];
                double bytes = block_bytes(p.total_bytes, p.nblocks, s.first_block, s.nblocks);
                if (s.kind == CACORE_STEP_SEND) {
                    q[key(r, s.peer)].first.push_back(Post{t, bytes, r});
                    match(r, s.peer);
                    ++comm;
                } else if (s.kind == CACORE_STEP_RECV) {
                    q[key(s.peer, r)].second.push_back(Post{t, bytes, r});
                    match(s.peer, r);
                    ++comm;
                }
            }
            clock[r] = t;
            round_end[r] = t;
            if (comm > 0) {
                pending[r] = comm;
                return;
            }
            ++cur[r];
        }
        finish = std::max(finish, clock[r]);
    };
    for (int r = 0; r < n; ++r) {
        start_rounds(r);
    }
    auto complete_one = [&](int r, double end) {
        round_end[r] = std::max(round_end[r], end);
        if (--pending[r] == 0) {
            clock[r] = round_end[r];
            ++cur[r];
            start_rounds(r);
        }
    };
    while (!ready.empty()) {
        Transfer t = ready.top();
        ready.pop();
        const int a = rank_node[t.from], b = rank_node[t.to];
        double start = t.ready, dur;
        if (a == b) {
            dur = c.intra_latency_s + t.bytes / c.intra_Bps;
        } else {
            start = std::max({start, sendp[a].earliest(), recvp[b].earliest()});
            auto it = link.find(static_cast<long long>(a) * m.nodes() + b);
            if (it != link.end()) {
                start = std::max(start, it->second);
            }
            dur = m.latency(a, b) + t.bytes / m.bandwidth(a, b);
        }
        const long long ck = key(std::min(t.from, t.to), std::max(t.from, t.to));
        if (c.duplex_serialize) {
            auto it = conn.find(ck);
            if (it != conn.end()) {
                start = std::max(start, it->second);
            }
        }
        double end = start + dur;
        if (a != b) {
            sendp[a].occupy(end);
            recvp[b].occupy(end);
            link[static_cast<long long>(a) * m.nodes() + b] = end;
        }
        if (c.duplex_serialize) {
            conn[ck] = end;
        }
        complete_one(t.from, end);
        complete_one(t.to, end);
    }
    for (int r = 0; r < n; ++r) {
        if (cur[r] < rounds[r].size()) {
            throw Error(CACORE_ERR_INTERNAL, "cost model: plan deadlocks at rank " + std::to_string(r));
        }
        finish = std::max(finish, clock[r]);
    }
    return finish;
}

}  // namespace cacore
