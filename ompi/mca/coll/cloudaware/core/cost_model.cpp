// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// cost_model.cpp - event-driven completion-time prediction.
#include "cost_model.hpp"

#include "bottleneck.hpp"
#include "error.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
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
    p.duplex_above_bytes = c.duplex_above_bytes;
    p.burst_bytes = c.burst_bytes;
    p.repeated = c.repeated != 0;
    if (!(p.reduce_Bps > 0) || !(p.copy_Bps > 0) || !(p.intra_Bps > 0) || !(p.intra_latency_s >= 0) ||
        !std::isfinite(p.intra_latency_s) || p.node_send_slots < -1 || p.node_recv_slots < -1 ||
        !(p.duplex_above_bytes >= CACORE_DUPLEX_MEASURED) ||
        !std::isfinite(p.duplex_above_bytes) ||
        !(p.burst_bytes == CACORE_BURST_MEASURED || (p.burst_bytes >= 0 && std::isfinite(p.burst_bytes)))) {
        fail_arg("cost parameters: speeds must be > 0, latency >= 0, slots >= -1, duplex >= -2, "
                 "burst -1 or >= 0");
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
    c.duplex_above_bytes = duplex_above_bytes;
    c.burst_bytes = burst_bytes;
    c.repeated = repeated ? 1 : 0;
    return c;
}

double block_bytes(double total, int nblocks, int first, int n)
{
    double a = std::floor(static_cast<double>(first) * total / nblocks);
    double b = std::floor(static_cast<double>(first + n) * total / nblocks);
    return b - a;
}

namespace {

// With CostParams::repeated and bursts, the calls simulated back to back (the first and three
// more: enough for the pairs' debts to settle into a period on the lab's plans).
constexpr int kRepeatedCalls = 4;

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

// A message between two nodes in flight in the flow model.
struct Flow {
    int from, to;              // ranks
    int a, b;                  // their nodes
    double left;               // bytes not yet sent
    double rate = 0;           // bytes/s, from FlowNet::share
    double owed = 0;           // bytes that passed at once when it began (a burst's part), owed
                               // by its capacities after its last byte
    std::array<int, 6> cons;   // the capacities it shares (FlowNet's numbers), -1 = none
};

// The capacities flows share: their directed node pair's, their sender node's egress, their
// receiver node's ingress (0 = none) and, between two groups with a shared bottleneck
// (bottleneck.hpp), that bottleneck and the sending group's way out and the receiving group's
// way in (with three groups or more); behind one, a pair's capacity is its lone rate. Each is
// numbered when a flow first uses it, so re-sharing (at every event) neither hashes nor sorts.
class FlowNet {
public:
    explicit FlowNet(const Matrix &m) : m_(m) {}

    Flow flow(int from, int to, int a, int b, double bytes)
    {
        const long long nn = m_.nodes();
        const Bottlenecks *bn = m_.bottlenecks();
        // Ids: pair a*nn+b, egress nn*nn + a, ingress nn*nn + nn + b, bottleneck
        // nn*nn + 2*nn + g*G + h, way out of g nn*nn + 2*nn + G*G + g, way in to h that + G + h.
        long long id[6] = {a * nn + b, nn * nn + a, nn * nn + nn + b, -1, -1, -1};
        double c[6] = {pair_rate(a, b), m_.node_props(a).egress_Bps,
                       m_.node_props(b).ingress_Bps, 0, 0, 0};
        if (behind_bottleneck(a, b)) {
            const int g = bn->group_of(a), h = bn->group_of(b);
            const long long ng = bn->ngroups, base = nn * nn + 2 * nn;
            id[3] = base + g * ng + h;
            c[3] = bn->capacity(g, h);
            id[4] = base + ng * ng + g;
            c[4] = bn->way_out(g);
            id[5] = base + ng * ng + ng + h;
            c[5] = bn->way_in(h);
        }
        Flow f{from, to, a, b, bytes, 0, 0, {-1, -1, -1, -1, -1, -1}};
        for (int k = 0; k < 6; ++k) {
            if (c[k] > 0) {
                auto it = number_.emplace(id[k], static_cast<int>(cap_.size())).first;
                if (it->second == static_cast<int>(cap_.size())) {
                    cap_.push_back(c[k]);
                    left_.push_back(0);
                    unfrozen_.push_back(0);
                    stamp_.push_back(0);
                }
                f.cons[k] = it->second;
            }
        }
        return f;
    }

    // The capacity numbered j (bytes/s).
    double capacity(int j) const { return cap_[static_cast<size_t>(j)]; }

    // Max-min fair rates (progressive filling) of the flows under their capacities.
    void share(std::vector<Flow> &flows)
    {
        ++gen_;
        used_.clear();
        for (Flow &f : flows) {
            for (int j : f.cons) {
                if (j >= 0) {
                    if (stamp_[j] != gen_) {
                        stamp_[j] = gen_;
                        left_[j] = cap_[j];
                        unfrozen_[j] = 0;
                        used_.push_back(j);
                    }
                    ++unfrozen_[j];
                }
            }
        }
        // Each pass freezes the flows of the tightest constraints; the unfrozen flows and the
        // constraints they still load stay listed in order (active_, used_).
        active_.resize(flows.size());
        for (size_t i = 0; i < flows.size(); ++i) {
            active_[i] = static_cast<int>(i);
        }
        while (!active_.empty()) {
            double share = std::numeric_limits<double>::infinity();
            size_t keep = 0;
            for (int j : used_) {
                if (unfrozen_[j] > 0) {
                    share = std::min(share, left_[j] / unfrozen_[j]);
                    used_[keep++] = j;
                }
            }
            used_.resize(keep);
            keep = 0;
            for (int i : active_) {
                Flow &f = flows[static_cast<size_t>(i)];
                bool tight = false;
                for (int j : f.cons) {
                    if (j >= 0 && unfrozen_[j] > 0 &&
                        left_[j] / unfrozen_[j] <= share * (1 + 1e-12)) {
                        tight = true;
                    }
                }
                if (!tight) {
                    active_[keep++] = i;
                    continue;
                }
                f.rate = std::max(share, 1e-3);   // rounding never leaves a flow without rate
                for (int j : f.cons) {
                    if (j >= 0) {
                        left_[j] -= share;
                        --unfrozen_[j];
                    }
                }
            }
            active_.resize(keep);
        }
    }

private:
    // The rate of the directed node pair a -> b alone: behind a shared bottleneck its lone rate,
    // else B[a][b].
    double pair_rate(int a, int b) const
    {
        return behind_bottleneck(a, b) ? m_.bottlenecks()->lone_rate(m_, a, b) : m_.bandwidth(a, b);
    }

    bool behind_bottleneck(int a, int b) const
    {
        const Bottlenecks *bn = m_.bottlenecks();
        return bn != nullptr && bn->shared(bn->group_of(a), bn->group_of(b));
    }

    const Matrix &m_;
    std::unordered_map<long long, int> number_;   // id -> number
    std::vector<double> cap_;                     // per number
    // share()'s scratch, per number: capacity left, unfrozen flows, generation last used.
    std::vector<double> left_;
    std::vector<int> unfrozen_;
    std::vector<unsigned> stamp_;
    std::vector<int> used_;     // the numbers the flows use
    std::vector<int> active_;   // the flows not yet frozen
    unsigned gen_ = 0;
};

void check_rank_node(const Plan &p, const Matrix &m, const std::vector<int> &rank_node)
{
    if (static_cast<int>(rank_node.size()) != p.nranks) {
        fail_arg("cost model: rank_node has " + std::to_string(rank_node.size()) +
                 " entries for a plan of " + std::to_string(p.nranks) + " ranks");
    }
    for (int node : rank_node) {
        if (node < 0 || node >= m.nodes()) {
            fail_arg("cost model: rank_node entry " + std::to_string(node) + " out of range");
        }
    }
}

// The burst credit of a message node a sends (CostParams::burst_bytes): the configured bytes, or
// with CACORE_BURST_MEASURED the node's measured credit (none where not measured).
double burst_of(const CostParams &c, const Matrix &m, int a)
{
    if (c.burst_bytes >= 0) {
        return c.burst_bytes;
    }
    return m.has_node_props() ? std::max(0.0, m.node_props(a).burst_bytes) : 0.0;
}

}  // namespace

bool has_bursts(const CostParams &c, const Matrix &m)
{
    for (int i = 0; i < m.nodes(); ++i) {
        if (burst_of(c, m, i) > 0) {
            return true;
        }
    }
    return false;
}

namespace {

// Of a message of `bytes` from node a whose links are idle, the bytes that pass at once (and are
// owed afterwards). A configured credit (burst_bytes >= 0) is a threshold: a message of at most
// that many bytes passes whole. A measured one (the largest probe that passed in less than half
// its time at the rate, docs/calibration.md "Burst credit") fades toward its edge: of a message
// of b bytes under the credit C, b (1 - b / C) pass at once and the rest at the rate. A message as
// large as the probe passes only just, and not every time when calls follow each other (on
// racks-8 a 64 KiB allreduce of 32 KiB messages with a measured 32 KiB credit: predicted 13.1 ms
// when all of it passed, measured 23.1; docs/cost-model.md, "Short bursts").
double burst_part(const CostParams &c, const Matrix &m, int a, double bytes)
{
    const double credit = burst_of(c, m, a);
    if (!(credit > 0) || bytes > credit) {
        return 0.0;
    }
    return c.burst_bytes >= 0 ? bytes : bytes * (1.0 - bytes / credit);
}

}  // namespace

double busiest_capacity_s(const Plan &p, const Matrix &m, const std::vector<int> &rank_node,
                          const CostParams &c)
{
    check_rank_node(p, m, rank_node);
    const bool flow = c.node_send_slots < 0 && m.has_node_props();
    const long long nn = m.nodes();
    FlowNet net(m);
    std::vector<double> busy;                     // flow model: seconds per capacity number
    std::unordered_map<long long, double> pair;   // port model: seconds per directed node pair
    std::vector<double> send(m.nodes(), 0.0), recv(m.nodes(), 0.0);   // and per port
    const double send_slots = c.node_send_slots < 0 ? 1 : c.node_send_slots;
    const double recv_slots = c.node_recv_slots < 0 ? 1 : c.node_recv_slots;
    double busiest = 0;
    for (int r = 0; r < p.nranks; ++r) {
        for (const auto &s : p.steps[r]) {
            if (s.kind != CACORE_STEP_SEND) {
                continue;
            }
            const int a = rank_node[r], b = rank_node[s.peer];
            if (a == b) {
                continue;
            }
            const double bytes = block_bytes(p.total_bytes, p.nblocks, s.first_block, s.nblocks);
            if (flow) {
                for (int j : net.flow(r, s.peer, a, b, bytes).cons) {
                    if (j >= 0) {
                        busy.resize(std::max(busy.size(), static_cast<size_t>(j) + 1), 0.0);
                        busiest = std::max(busiest, busy[j] += bytes / net.capacity(j));
                    }
                }
                continue;
            }
            const double t = bytes / m.bandwidth(a, b);
            busiest = std::max(busiest, pair[a * nn + b] += t);
            if (send_slots > 0) {
                busiest = std::max(busiest, (send[a] += t) / send_slots);
            }
            if (recv_slots > 0) {
                busiest = std::max(busiest, (recv[b] += t) / recv_slots);
            }
        }
    }
    return busiest;
}

double predict(const Plan &p, const Matrix &m, const std::vector<int> &rank_node, const CostParams &c)
{
    const int n = p.nranks;
    check_rank_node(p, m, rank_node);
    // slots -1 = measured: the flow model when the matrix has the measurements, else 1 slot.
    const bool flow = c.node_send_slots < 0 && m.has_node_props();
    const bool bursts = has_bursts(c, m);
    std::vector<Port> sendp(m.nodes()), recvp(m.nodes());
    for (int i = 0; i < m.nodes(); ++i) {
        sendp[i].free_at.assign(c.node_send_slots < 0 ? 1 : c.node_send_slots, 0.0);
        recvp[i].free_at.assign(c.node_recv_slots < 0 ? 1 : c.node_recv_slots, 0.0);
    }
    // Messages that take turns with the other direction on their rank pair's connection: those
    // above duplex_above_bytes; 0 means every message (empty ones too), -1 none. Measured
    // (docs/cost-model.md, "Two-way traffic"): between two nodes, the two directions overlap
    // when the sends are posted first (the executor); exchanges that post the receive first (the
    // previous module's own code) overlap only small messages (pipeline segments) between two
    // nodes of one bottleneck group.
    const Bottlenecks *groups = c.duplex_above_bytes == CACORE_DUPLEX_MEASURED ? m.bottlenecks()
                                                                              : nullptr;
    const auto takes_turns = [&](double bytes, int from, int to) {
        if (c.duplex_above_bytes == CACORE_DUPLEX_MEASURED) {
            const int a = rank_node[from], b = rank_node[to];
            if (a == b || p.sends_first) {
                return a == b;
            }
            return groups == nullptr || bytes > CACORE_DUPLEX_GROUP_BYTES ||
                   groups->group_of(a) != groups->group_of(b);
        }
        return c.duplex_above_bytes == 0 ||
               (c.duplex_above_bytes > 0 && bytes > c.duplex_above_bytes);
    };
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
    // Flow model with burst_bytes, per capacity (FlowNet's numbers: node pairs, node egress and
    // ingress, shared bottlenecks): until when its shaper repays the bursts it passed (no message
    // through it leaves before; carried from call to call with c.repeated), and its flows in
    // flight (a capacity carrying one passes no burst). The port model keeps a pair's debt in link.
    FlowNet net(m);
    std::vector<double> owes;
    std::vector<int> sending;
    // One call from time t0 (every rank starts then); returns when the last rank is done.
    const auto call = [&](double t0) {
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
        std::vector<double> clock(n, t0), round_end(n, t0);
        long seq = 0;
        double finish = t0;

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
                // Flow model: the k-th send of the round leaves k overheads after the first.
                const double gap = flow ? m.node_props(rank_node[r]).overhead_s : 0.0;
                int nsent = 0;
                for (size_t i = a; i < z; ++i) {
                    const auto &s = p.steps[r][i];
                    double bytes = block_bytes(p.total_bytes, p.nblocks, s.first_block, s.nblocks);
                    if (s.kind == CACORE_STEP_SEND) {
                        q[key(r, s.peer)].first.push_back(Post{t + gap * nsent++, bytes, r});
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
        if (flow) {
            // Events in time order: a message becomes ready (both sides posted), a flow's last byte
            // leaves (then the message ends L later), a message ends. Rates are re-shared whenever
            // the set of flows changes.
            const double inf = std::numeric_limits<double>::infinity();
            struct Done {
                double t;
                long seq;
                int from, to;
                long long ck;   // connection the message holds (it takes turns), else -1
                bool operator>(const Done &o) const { return std::tie(t, seq) > std::tie(o.t, o.seq); }
            };
            std::priority_queue<Done, std::vector<Done>, std::greater<Done>> done;
            std::vector<Flow> flows;
            std::vector<long long> flow_ck;
            std::unordered_map<long long, std::deque<Transfer>> waiting;   // per busy connection
            std::unordered_map<long long, bool> busy;
            double now = t0;
            // Starts a message at time at; true when it joined the flows (rates to re-share).
            auto begin = [&](const Transfer &t, double at) {
                const int a = rank_node[t.from], b = rank_node[t.to];
                Flow f{};
                double part = 0;   // bytes that pass at once (burst_part)
                if (a != b) {
                    f = net.flow(t.from, t.to, a, b, t.bytes);
                }
                if (a != b && bursts) {
                    double owed = 0;
                    bool idle = true;
                    for (int j : f.cons) {
                        if (j >= 0) {
                            if (static_cast<size_t>(j) >= owes.size()) {
                                owes.resize(static_cast<size_t>(j) + 1, 0.0);
                                sending.resize(owes.size(), 0);
                            }
                            owed = std::max(owed, owes[j]);
                            idle = idle && sending[j] == 0;
                        }
                    }
                    if (at < owed) {
                        ready.push(Transfer{owed, seq++, t.from, t.to, t.bytes});
                        return false;
                    }
                    part = idle ? burst_part(c, m, a, t.bytes) : 0.0;
                }
                long long ck = -1;
                if (takes_turns(t.bytes, t.from, t.to)) {
                    ck = key(std::min(t.from, t.to), std::max(t.from, t.to));
                    busy[ck] = true;
                }
                if (a == b) {
                    done.push(Done{at + c.intra_latency_s + t.bytes / c.intra_Bps, seq++, t.from, t.to, ck});
                    return false;
                }
                if (part > 0 && part >= t.bytes) {
                    for (int j : f.cons) {
                        if (j >= 0) {
                            owes[j] = at + t.bytes / net.capacity(j);
                        }
                    }
                    done.push(Done{at + m.latency(a, b), seq++, t.from, t.to, ck});
                    return false;
                }
                f.left -= part;
                f.owed = part;
                if (bursts) {
                    for (int j : f.cons) {
                        if (j >= 0) {
                            ++sending[j];
                        }
                    }
                }
                flows.push_back(f);
                flow_ck.push_back(ck);
                return true;
            };
            bool stale = false;   // the flows changed: re-share before time moves on
            for (;;) {
                if (stale) {
                    net.share(flows);
                    stale = false;
                }
                const double t_ready = ready.empty() ? inf : ready.top().ready;
                const double t_done = done.empty() ? inf : done.top().t;
                double t_drain = inf;
                for (const auto &f : flows) {
                    t_drain = std::min(t_drain, now + f.left / f.rate);
                }
                const double t = std::max(now, std::min({t_ready, t_done, t_drain}));
                if (t == inf) {
                    break;
                }
                if (t_drain <= t_done && t_drain <= t_ready) {
                    for (size_t i = 0; i < flows.size();) {
                        if (now + flows[i].left / flows[i].rate <= t) {
                            const Flow &f = flows[i];
                            done.push(Done{t + m.latency(f.a, f.b), seq++, f.from, f.to, flow_ck[i]});
                            if (bursts) {
                                for (int j : f.cons) {
                                    if (j >= 0) {
                                        --sending[j];
                                        owes[j] = std::max(owes[j], t + f.owed / net.capacity(j));
                                    }
                                }
                            }
                            flows[i] = flows.back();
                            flows.pop_back();
                            flow_ck[i] = flow_ck.back();
                            flow_ck.pop_back();
                        } else {
                            flows[i].left -= flows[i].rate * (t - now);
                            ++i;
                        }
                    }
                    now = t;
                    stale = true;
                    continue;
                }
                for (auto &f : flows) {
                    f.left = std::max(0.0, f.left - f.rate * (t - now));
                }
                now = t;
                if (t_done <= t_ready) {
                    const Done d = done.top();
                    done.pop();
                    if (d.ck >= 0) {
                        busy[d.ck] = false;
                        auto w = waiting.find(d.ck);
                        if (w != waiting.end() && !w->second.empty()) {
                            stale = begin(w->second.front(), now) || stale;
                            w->second.pop_front();
                        }
                    }
                    complete_one(d.from, d.t);
                    complete_one(d.to, d.t);
                } else {
                    const Transfer tr = ready.top();
                    ready.pop();
                    const long long ck = key(std::min(tr.from, tr.to), std::max(tr.from, tr.to));
                    if (takes_turns(tr.bytes, tr.from, tr.to) && busy[ck]) {
                        waiting[ck].push_back(tr);
                    } else {
                        stale = begin(tr, now) || stale;
                    }
                }
            }
        }
        while (!ready.empty()) {
            Transfer t = ready.top();
            ready.pop();
            const int a = rank_node[t.from], b = rank_node[t.to];
            double start = t.ready, dur;
            const long long pair = static_cast<long long>(a) * m.nodes() + b;
            // burst_bytes: a short message passes at once when its pair is free (owes nothing), and
            // the pair then owes its time; the ports do not see it. Under a measured credit, part
            // of a message passes at once (burst_part) and the pair owes that part after the rest.
            auto it = link.find(pair);
            const double part = a != b ? burst_part(c, m, a, t.bytes) : 0.0;
            const bool burst = part > 0 && part >= t.bytes;
            if (a == b) {
                dur = c.intra_latency_s + t.bytes / c.intra_Bps;
            } else if (burst) {
                if (it != link.end()) {
                    start = std::max(start, it->second);
                }
                dur = m.latency(a, b);
            } else {
                start = std::max({start, sendp[a].earliest(), recvp[b].earliest()});
                if (it != link.end()) {
                    start = std::max(start, it->second);
                }
                dur = m.latency(a, b) + (t.bytes - part) / m.bandwidth(a, b);
            }
            const long long ck = key(std::min(t.from, t.to), std::max(t.from, t.to));
            const bool turns = takes_turns(t.bytes, t.from, t.to);
            if (turns) {
                auto it = conn.find(ck);
                if (it != conn.end()) {
                    start = std::max(start, it->second);
                }
            }
            double end = start + dur;
            if (burst) {
                link[pair] = start + t.bytes / m.bandwidth(a, b);
            } else if (a != b) {
                sendp[a].occupy(end);
                recvp[b].occupy(end);
                link[pair] = end + part / m.bandwidth(a, b);
            }
            if (turns) {
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
    };
    // Without bursts nothing carries over: one call already keeps every capacity within its rate.
    if (!c.repeated || !bursts) {
        return call(0.0);
    }
    // Calls back to back, each from the previous one's end, with the debts carried over: the
    // price is the mean time of the calls after the first (which found the links idle), and
    // never below what the busiest capacity needs. A first call that repaid every burst it
    // passed before its end (no capacity of the flow model owes past it, no node pair of the
    // port model; ports and connections are free when their last message ends, within the call)
    // leaves the links as idle as it found them, so every later call takes as long as it did:
    // most pipelined plans above the credit's size, which keep their capacities busy and pass no
    // burst, are simulated once.
    const double first = call(0.0);
    const auto past = [first](double t) { return t > first; };
    const double floor_s = busiest_capacity_s(p, m, rank_node, c);
    if (std::none_of(owes.begin(), owes.end(), past) &&
        std::none_of(link.begin(), link.end(), [&](const auto &kv) { return past(kv.second); })) {
        return std::max(first, floor_s);
    }
    double end = first;
    for (int k = 1; k < kRepeatedCalls; ++k) {
        end = call(end);
    }
    return std::max((end - first) / (kRepeatedCalls - 1), floor_s);
}

}  // namespace cacore
