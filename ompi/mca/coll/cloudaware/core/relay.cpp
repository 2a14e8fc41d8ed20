// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// relay.cpp - the relay rewrite: messages over a bad pair go through a rank of a third node.
#include "relay.hpp"

#include "cost_model.hpp"
#include "error.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace cacore {
namespace {

// A step of the rewritten plan and its place in its rank's list: by round, then after the
// original step `after` of that rank (-1: first in the round, kEnd: last), then by `seq`, the
// order in which the rewrite added it (0 for original steps).
struct Placed {
    cacore_step_t s;
    long long after;
    long long seq;
};

constexpr long long kEnd = std::numeric_limits<long long>::max();

// A temporary buffer's blocks a relay rank holds from its receive round to its forward round.
struct TmpUse {
    int tmp, first, n, lo, hi;
};

}  // namespace

std::optional<Plan> relay_plan(const Plan &p, const Matrix &m, const std::vector<int> &rank_node)
{
    const int n = p.nranks;
    if (static_cast<int>(rank_node.size()) != n || static_cast<int>(p.steps.size()) != n) {
        fail_arg("relay: rank_node has " + std::to_string(rank_node.size()) +
                 " entries for a plan of " + std::to_string(n) + " ranks");
    }
    std::vector<std::vector<int>> node_ranks(m.nodes());
    for (int r = 0; r < n; ++r) {
        if (rank_node[r] < 0 || rank_node[r] >= m.nodes()) {
            fail_arg("relay: rank_node entry " + std::to_string(rank_node[r]) + " out of range");
        }
        node_ranks[rank_node[r]].push_back(r);
    }
    // Per node the least latency and the highest rate of its links out and in: a bound below
    // every detour's time, which rejects most pairs without trying every third node.
    const int nn = m.nodes();
    std::vector<int> used_nodes;
    for (int a = 0; a < nn; ++a) {
        if (!node_ranks[a].empty()) {
            used_nodes.push_back(a);
        }
    }
    std::vector<double> out_l(nn, 0), out_b(nn, 0), in_l(nn, 0), in_b(nn, 0);
    for (int a : used_nodes) {
        for (int b : used_nodes) {
            if (a != b) {
                out_l[a] = out_b[a] > 0 ? std::min(out_l[a], m.latency(a, b)) : m.latency(a, b);
                out_b[a] = std::max(out_b[a], m.bandwidth(a, b));
                in_l[b] = in_b[b] > 0 ? std::min(in_l[b], m.latency(a, b)) : m.latency(a, b);
                in_b[b] = std::max(in_b[b], m.bandwidth(a, b));
            }
        }
    }
    // The relay node of a message of s bytes from node a to node b, or -1.
    std::map<std::tuple<int, int, double>, int> routes;
    auto route = [&](int a, int b, double s) {
        const double direct = m.latency(a, b) + s / m.bandwidth(a, b);
        if (out_l[a] + s / out_b[a] + in_l[b] + s / in_b[b] > kRelayFraction * direct) {
            return -1;
        }
        auto it = routes.find({a, b, s});
        if (it != routes.end()) {
            return it->second;
        }
        int best = -1;
        double best_t = 0;
        for (int k : used_nodes) {
            if (k == a || k == b) {
                continue;
            }
            const double t = m.latency(a, k) + s / m.bandwidth(a, k) + m.latency(k, b) +
                             s / m.bandwidth(k, b);
            if (best < 0 || t < best_t) {
                best = k;
                best_t = t;
            }
        }
        const int k = best >= 0 && best_t <= kRelayFraction * direct ? best : -1;
        routes.emplace(std::make_tuple(a, b, s), k);
        return k;
    };

    bool any = false;   // most plans have no message to relay: leave them quickly
    for (int a = 0; a < n && !any; ++a) {
        for (const cacore_step_t &s : p.steps[a]) {
            if (s.kind == CACORE_STEP_SEND && s.peer >= 0 && s.peer < n &&
                rank_node[a] != rank_node[s.peer] &&
                route(rank_node[a], rank_node[s.peer],
                      block_bytes(p.total_bytes, p.nblocks, s.first_block, s.nblocks)) >= 0) {
                any = true;
                break;
            }
        }
    }
    if (!any) {
        return std::nullopt;
    }
    auto key = [n](int a, int b) { return static_cast<long long>(a) * n + b; };
    // The k-th send of a to b matches the k-th receive of b from a (posting order = list order).
    std::unordered_map<long long, std::vector<int>> recvs;
    std::vector<int> busy(n, 0);   // messages between nodes per rank (relay ranks get more)
    for (int b = 0; b < n; ++b) {
        for (size_t j = 0; j < p.steps[b].size(); ++j) {
            const cacore_step_t &s = p.steps[b][j];
            if (s.kind == CACORE_STEP_RECV || s.kind == CACORE_STEP_SEND) {
                if (s.peer < 0 || s.peer >= n) {
                    return std::nullopt;   // not a plan the rewrite understands: left alone
                }
                busy[b] += rank_node[s.peer] != rank_node[b];
            }
            if (s.kind == CACORE_STEP_RECV) {
                recvs[key(s.peer, b)].push_back(static_cast<int>(j));
            }
        }
    }
    std::vector<std::vector<Placed>> out(n);
    for (int r = 0; r < n; ++r) {
        for (size_t i = 0; i < p.steps[r].size(); ++i) {
            Placed x{p.steps[r][i], static_cast<long long>(i), 0};
            x.s.round *= 2;
            out[r].push_back(x);
        }
    }
    std::unordered_map<long long, size_t> used;   // sends of a to b matched so far
    std::vector<std::vector<TmpUse>> tmps(n);
    // (a, b) and their relay ranks, first seen first.
    std::vector<std::pair<std::pair<int, int>, std::vector<int>>> routed;
    int ntmp = p.ntmp;
    long long seq = 0;
    for (int a = 0; a < n; ++a) {
        // Per peer (after the rewrite): where the match of a's last send to it sits there.
        std::unordered_map<int, std::tuple<int, long long, long long>> last;
        for (size_t i = 0; i < p.steps[a].size(); ++i) {
            const cacore_step_t &s = p.steps[a][i];
            if (s.kind != CACORE_STEP_SEND) {
                continue;
            }
            const int b = s.peer;
            auto &v = recvs[key(a, b)];
            size_t &k = used[key(a, b)];
            if (k >= v.size()) {
                return std::nullopt;   // an unmatched send: simulate() reports such plans
            }
            const int j = v[k++];
            const int rs = 2 * s.round, rr = 2 * p.steps[b][j].round;
            const int na = rank_node[a], nb = rank_node[b];
            const int node = na == nb ? -1
                                      : route(na, nb, block_bytes(p.total_bytes, p.nblocks,
                                                                  s.first_block, s.nblocks));
            if (node < 0) {
                last[b] = {rr, j, 0};
                continue;
            }
            int relay = node_ranks[node][0];
            for (int r : node_ranks[node]) {
                if (busy[r] < busy[relay]) {
                    relay = r;
                }
            }
            busy[relay] += 2;
            // The lowest new temporary whose blocks the relay does not hold over these rounds.
            auto held = [&](int t) {
                for (const TmpUse &u : tmps[relay]) {
                    if (u.tmp == t && u.first < s.first_block + s.nblocks &&
                        s.first_block < u.first + u.n && u.lo <= rs + 1 && rs <= u.hi) {
                        return true;
                    }
                }
                return false;
            };
            int tmp = p.ntmp;
            while (held(tmp)) {
                ++tmp;
            }
            if (CACORE_BUF_TMP0 + tmp > 255) {
                return std::nullopt;   // step buffers are one byte
            }
            tmps[relay].push_back(TmpUse{tmp, s.first_block, s.nblocks, rs, rs + 1});
            ntmp = std::max(ntmp, tmp + 1);
            const long long sq = ++seq;
            out[a][i].s.peer = relay;
            // The relay receives in a's round, right after the match of a's previous message to
            // it in that round (first in the round when there is none), and forwards in the odd
            // round after; b receives in the odd round after its own.
            long long after = -1;
            auto it = last.find(relay);
            if (it != last.end() && std::get<0>(it->second) == rs) {
                after = std::get<1>(it->second);
            }
            cacore_step_t rcv = s;
            rcv.kind = CACORE_STEP_RECV;
            rcv.buf = static_cast<uint8_t>(CACORE_BUF_TMP0 + tmp);
            rcv.peer = a;
            rcv.round = rs;
            out[relay].push_back(Placed{rcv, after, sq});
            last[relay] = {rs, after, sq};
            cacore_step_t fwd = rcv;
            fwd.kind = CACORE_STEP_SEND;
            fwd.peer = b;
            fwd.round = rs + 1;
            out[relay].push_back(Placed{fwd, kEnd, sq});
            Placed &at_b = out[b][j];
            at_b.s.peer = relay;
            at_b.s.round = rr + 1;
            at_b.after = kEnd;
            at_b.seq = sq;
            auto rt = std::find_if(routed.begin(), routed.end(),
                                   [&](const auto &x) { return x.first == std::make_pair(a, b); });
            if (rt == routed.end()) {
                routed.push_back({{a, b}, {relay}});
            } else if (std::find(rt->second.begin(), rt->second.end(), relay) == rt->second.end()) {
                rt->second.push_back(relay);
            }
        }
    }
    if (routed.empty()) {
        return std::nullopt;
    }
    Plan q = p;
    q.ntmp = ntmp;
    q.predicted_s = 0;
    for (int r = 0; r < n; ++r) {
        std::sort(out[r].begin(), out[r].end(), [](const Placed &x, const Placed &y) {
            return std::tie(x.s.round, x.after, x.seq) < std::tie(y.s.round, y.after, y.seq);
        });
        q.steps[r].clear();
        for (const Placed &x : out[r]) {
            q.steps[r].push_back(x.s);
        }
    }
    std::ostringstream os;
    os << " relay ";
    const size_t shown = std::min<size_t>(routed.size(), 3);
    for (size_t i = 0; i < shown; ++i) {
        os << (i ? ", " : "") << routed[i].first.first << "->" << routed[i].first.second << " via ";
        for (size_t k = 0; k < routed[i].second.size(); ++k) {
            os << (k ? "/" : "") << routed[i].second[k];
        }
    }
    if (routed.size() > shown) {
        os << " and " << routed.size() - shown << " more";
    }
    q.description += os.str();
    return q;
}

}  // namespace cacore
