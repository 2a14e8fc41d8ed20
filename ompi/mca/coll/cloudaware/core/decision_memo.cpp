// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// decision_memo.cpp - decisions kept by their exact inputs: the key holds every field of the
// input but the matrix, whose content is compared in full, so what find() returns is what
// decide() would compute for those inputs.
#include "decision_memo.hpp"

#include <cstring>
#include <utility>

namespace cacore {

namespace {

// A new field in these structs must join the key below (else the memo would answer for inputs
// that differ in it); the sizes are those of LP64, where CI builds.
static_assert(sizeof(void *) != 8 || sizeof(CostParams) == 64, "CostParams changed: update key()");
static_assert(sizeof(void *) != 8 || sizeof(HierParams) == 16, "HierParams changed: update key()");
static_assert(sizeof(void *) != 8 || sizeof(PlanParams) == 112, "PlanParams changed: update key()");
static_assert(sizeof(void *) != 8 || sizeof(PlanInput) == 56, "PlanInput changed: update key()");
static_assert(sizeof(void *) != 8 || sizeof(DecideInput) == 224, "DecideInput changed: update key()");
static_assert(sizeof(cacore_rule_t) == 40, "cacore_rule_t changed: update key()");

template <typename T>
void put_raw(std::string &k, const T &v)
{
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    k.append(b, sizeof(T));
}

void put_int(std::string &k, long long v) { put_raw(k, v); }

std::string key(const DecideInput &d)
{
    std::string k;
    const PlanInput &in = d.in;
    put_int(k, static_cast<long long>(in.rank_node.size()));
    for (int node : in.rank_node) {
        put_int(k, node);
    }
    put_int(k, in.coll);
    put_int(k, in.root);
    put_raw(k, in.bytes);
    put_raw(k, in.count);
    put_int(k, d.commutative);
    put_int(k, d.rule != nullptr);
    if (d.rule != nullptr) {
        const cacore_rule_t &r = *d.rule;
        put_int(k, r.choice);
        put_int(k, r.algo);
        for (int l = 0; l < CACORE_PLAN_LEVELS; ++l) {
            put_int(k, r.pattern[l]);
        }
        put_raw(k, r.segment_bytes);
        put_int(k, r.line);
    }
    put_int(k, d.trial);
    put_int(k, d.previous);
    put_raw(k, d.min_gain);
    put_raw(k, d.large_message);
    put_raw(k, d.trial_spread);
    put_int(k, d.trial_peer);
    const PlanParams &p = d.params;
    put_raw(k, p.hier.k);
    put_int(k, p.hier.t_span);
    const CostParams &c = p.cost;
    put_raw(k, c.reduce_Bps);
    put_raw(k, c.copy_Bps);
    put_raw(k, c.intra_latency_s);
    put_raw(k, c.intra_Bps);
    put_int(k, c.node_send_slots);
    put_int(k, c.node_recv_slots);
    put_raw(k, c.duplex_above_bytes);
    put_raw(k, c.burst_bytes);
    put_int(k, c.repeated);
    put_int(k, p.algo);
    for (int l = 0; l < CACORE_PLAN_LEVELS; ++l) {
        put_int(k, p.pattern[l]);
    }
    put_raw(k, p.segment_bytes);
    put_int(k, p.relay);
    put_int(k, p.lanes);
    return k;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_content(const Matrix &a, const Matrix &b)
{
    const int n = a.nodes();
    if (&a == &b) {
        return true;
    }
    if (n != b.nodes() || a.hosts() != b.hosts() || a.has_node_props() != b.has_node_props()) {
        return false;
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            if (!same_bits(a.latency(i, j), b.latency(i, j)) ||
                !same_bits(a.bandwidth(i, j), b.bandwidth(i, j))) {
                return false;
            }
        }
    }
    for (int i = 0; a.has_node_props() && i < n; ++i) {
        const NodeProps &x = a.node_props(i), &y = b.node_props(i);
        if (!same_bits(x.egress_Bps, y.egress_Bps) || !same_bits(x.ingress_Bps, y.ingress_Bps) ||
            !same_bits(x.overhead_s, y.overhead_s) || !same_bits(x.lone_Bps, y.lone_Bps) ||
            !same_bits(x.shared_Bps, y.shared_Bps) || !same_bits(x.burst_bytes, y.burst_bytes) ||
            !same_bits(x.lone2_Bps, y.lone2_Bps) || !same_bits(x.shared2_Bps, y.shared2_Bps)) {
            return false;
        }
    }
    return true;   // the shared bottlenecks are inferred from the node properties
}

size_t plan_bytes(const Plan &p)
{
    size_t b = sizeof(Plan) + p.description.size();
    for (const auto &steps : p.steps) {
        b += sizeof(steps) + steps.size() * sizeof(cacore_step_t);
    }
    return b;
}

size_t decision_bytes(const Decision &d)
{
    return sizeof(Decision) + d.reason.size() + d.previous.size() + d.alternative_note.size() +
           (d.have_plan ? plan_bytes(d.plan) : 0) +
           (d.have_alternative ? plan_bytes(d.alternative) : 0) +
           (d.have_peer ? plan_bytes(d.peer) : 0);
}

}  // namespace

DecisionMemo::DecisionMemo(size_t max_entries, size_t max_bytes)
    : max_entries_(max_entries), max_bytes_(max_bytes)
{
}

std::list<DecisionMemo::Entry>::const_iterator DecisionMemo::locate(const std::string &k,
                                                                    const Matrix &m) const
{
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->key == k && same_content(*it->matrix, m)) {
            return it;
        }
    }
    return entries_.end();
}

std::optional<Decision> DecisionMemo::find(const DecideInput &d) const
{
    const std::string k = key(d);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = locate(k, *d.in.matrix);
    if (it == entries_.end()) {
        return std::nullopt;
    }
    return it->decision;
}

void DecisionMemo::put(const DecideInput &d, const Decision &dec)
{
    Entry e;
    e.key = key(d);
    e.bytes = decision_bytes(dec) + e.key.size();
    if (e.bytes > max_bytes_ || max_entries_ == 0) {
        return;
    }
    e.decision = dec;
    std::lock_guard<std::mutex> lock(mu_);
    auto old = locate(e.key, *d.in.matrix);
    if (old != entries_.end()) {
        bytes_ -= old->bytes;
        entries_.erase(old);
    }
    for (const Entry &x : entries_) {   // one copy of each matrix content
        if (same_content(*x.matrix, *d.in.matrix)) {
            e.matrix = x.matrix;
            break;
        }
    }
    if (!e.matrix) {
        e.matrix = std::make_shared<const Matrix>(*d.in.matrix);
    }
    while (!entries_.empty() && (entries_.size() >= max_entries_ || bytes_ + e.bytes > max_bytes_)) {
        bytes_ -= entries_.front().bytes;
        entries_.pop_front();
    }
    bytes_ += e.bytes;
    entries_.push_back(std::move(e));
}

size_t DecisionMemo::size() const
{
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
}

}  // namespace cacore
