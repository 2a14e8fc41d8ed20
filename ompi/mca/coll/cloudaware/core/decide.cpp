// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// decide.cpp - rules, then a live trial's outcome, then the cost model against the previous
// module's own algorithm; and the other candidates the live trial measures.
#include "decide.hpp"

#include "cost_model.hpp"
#include "error.hpp"
#include "names.hpp"
#include "previous_module.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <cstdio>

namespace cacore {

namespace {

std::string fmt_s(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g s", s);
    return buf;
}

// The plan of module `prev` (cacore_prev_t) for this call, predicted as run by that module's own
// code, or by the executor (the peer).
Plan predict_module(const DecideInput &d, int prev, bool by_executor)
{
    Plan p = build_previous(d.in, prev, d.commutative);
    p.sends_first = by_executor;
    p.predicted_s = predict_for(p, d.in, d.params.cost);
    return p;
}

}  // namespace

PlanParams decide_params(const DecideInput &d)
{
    PlanParams p = d.params;
    if (d.in.bytes < d.large_message) {
        p.segment_bytes = d.in.bytes;  // small messages are not worth pipelining: one segment
    }
    if (d.rule != nullptr) {
        const cacore_rule_t &r = *d.rule;
        if (r.algo != CACORE_ALGO_AUTO) {
            p.algo = r.algo;
        }
        for (int l = 0; l < CACORE_PLAN_LEVELS; ++l) {
            if (r.pattern[l] != CACORE_PAT_AUTO) {
                p.pattern[l] = r.pattern[l];
            }
        }
        if (r.segment_bytes != 0) {
            p.segment_bytes = static_cast<double>(r.segment_bytes);
        }
    }
    return p;
}

Plan predict_previous(const DecideInput &d) { return predict_module(d, d.previous, false); }

int peer_module(int previous)
{
    return previous == CACORE_PREV_TUNED ? CACORE_PREV_HAN : CACORE_PREV_TUNED;
}

Decision decide(const DecideInput &d)
{
    validate(d.in);
    if (d.trial < 0 || d.trial >= CACORE_TRIAL_COUNT) {
        fail_arg("unknown trial outcome " + std::to_string(d.trial));
    }
    if (d.previous < 0 || d.previous >= CACORE_PREV_COUNT) {
        fail_arg("unknown previous module " + std::to_string(d.previous));
    }
    if (!(d.min_gain >= 0 && d.min_gain < 1)) {
        fail_arg("min_gain must be in [0, 1)");
    }
    Decision out;
    const std::string line = d.rule != nullptr ? "rules file line " + std::to_string(d.rule->line) : "";
    if (d.rule != nullptr && d.rule->choice == CACORE_RULE_FALLBACK) {
        out.reason = "previous module (" + line + ")";
        return out;
    }
    const bool forced = d.rule != nullptr && d.rule->choice == CACORE_RULE_PLAN;
    if (!forced && d.trial == CACORE_TRIAL_PREVIOUS) {
        out.reason = "previous module (live trial: measured faster than the plan)";
        return out;
    }
    if (!(d.trial_spread >= 0 && std::isfinite(d.trial_spread))) {
        fail_arg("trial_spread must be finite >= 0");
    }
    std::optional<Plan> second;
    try {
        out.plan = build_plan(d.in, decide_params(d), forced ? nullptr : &second);
        out.have_plan = true;
    } catch (const Error &e) {
        if (e.status() == CACORE_ERR_INTERNAL) {
            throw;
        }
        out.problem = true;
        out.reason = std::string("previous module (no plan: ") + e.what() + ")";
        return out;
    }
    const std::string desc = out.plan.description;
    out.plan_usable = d.commutative || out.plan.preserves_order;
    if (!out.plan_usable) {
        out.reason = "previous module (" + desc + " does not keep rank order, the op is not commutative)";
        return out;
    }
    // The alternative: the model's second plan, when the model may be wrong about the order.
    if (second && d.trial_spread >= 1 &&
        second->predicted_s <= out.plan.predicted_s * d.trial_spread &&
        (d.commutative || second->preserves_order)) {
        out.alternative = std::move(*second);
        out.have_alternative = true;
    }
    // Below large_message, where the model offers none: the plan the model would choose with the
    // other view of short messages. Shaped links let a short burst through faster than the bulk
    // rate calibration measures (the lab's idle credit, docs/lab.md; a cloud shaper's token
    // bucket), so a small call can be bound by hops and per-message overhead where a model of
    // bulk rates sees bandwidth, and the other way round where the credit measured is not there
    // at the call's pace. Without bursts in the model, the alternative is its choice if every
    // message of the call passed at once; with them (measured, CACORE_NODE_BURST), its choice
    // at the bulk rates. The trial measures which. Shown with its price in the model as is.
    if (!out.have_alternative && !forced && d.trial_spread >= 1 && d.in.bytes < d.large_message) {
        PlanParams other = decide_params(d);
        const CostParams cost = other.cost;   // the model as is, for the alternative's price
        const bool bursts = has_bursts(cost, *d.in.matrix);
        if (bursts) {
            other.cost.burst_bytes = 0;
        } else {   // every message of the call passes at once: one call, from idle links
            other.cost.burst_bytes = std::max(cost.burst_bytes, d.in.bytes);
            other.cost.repeated = false;
        }
        std::optional<Plan> b;
        try {
            b = build_plan(d.in, other, nullptr);
        } catch (const Error &e) {
            if (e.status() == CACORE_ERR_INTERNAL) {
                throw;
            }
            // no such plan: no alternative (the plan itself was built with these inputs)
        }
        if (b && b->description != desc && (d.commutative || b->preserves_order)) {
            b->predicted_s = predict_for(*b, d.in, cost);
            out.alternative = std::move(*b);
            out.have_alternative = true;
            out.alternative_note = bursts ? "the model's choice at the bulk rates, without bursts"
                                          : "the model's choice if every message passed at once";
        }
    }
    // The peer: what the user's other default would run for this call, run by the executor —
    // tuned's algorithm when the previous module is not tuned (han under Open MPI 5, basic,
    // unknown), han's two levels when it is (Open MPI 4.1). The trial measures it whatever the
    // model predicts (the model can misprice a flat algorithm on links that pass short bursts
    // faster than their bulk rate, and a few rounds against many at small sizes).
    if (!forced && d.trial_peer) {
        Plan peer = predict_module(d, peer_module(d.previous), true);
        check_plan(peer);
        if (d.commutative || peer.preserves_order) {
            out.peer = std::move(peer);
            out.have_peer = true;
        }
    }
    if (forced) {
        out.run_plan = true;
        out.reason = desc + " (" + line + ", predicted " + fmt_s(out.plan.predicted_s) + ")";
        return out;
    }
    if (d.trial == CACORE_TRIAL_PLAN) {
        out.run_plan = true;
        out.reason = desc + " (live trial: measured faster than the previous module)";
        return out;
    }
    if (d.trial == CACORE_TRIAL_ALTERNATIVE && out.have_alternative) {
        out.run_alternative = true;
        out.reason = out.alternative.description + " (live trial: the alternative, measured " +
                     "faster than " + desc + " and the previous module)";
        return out;
    }
    if (d.trial == CACORE_TRIAL_PEER && out.have_peer) {
        out.run_peer = true;
        out.reason = out.peer.description + " (live trial: the peer, " +
                     prev_name(peer_module(d.previous)) + "'s algorithm run by the executor, " +
                     "measured faster than " + desc + " and the previous module)";
        return out;
    }
    const Plan prev = predict_previous(d);
    out.previous = prev.description;
    out.previous_s = prev.predicted_s;
    const double ours = out.plan.predicted_s, theirs = prev.predicted_s;
    const std::string vs = "predicted " + fmt_s(ours) + " vs " + prev.description + " " + fmt_s(theirs);
    if (ours <= theirs * (1.0 - d.min_gain)) {
        out.run_plan = true;
        out.reason = desc + " (" + vs + ")";
    } else {
        char gain[32];
        std::snprintf(gain, sizeof gain, "%g", d.min_gain);
        out.reason = "previous module (" + desc + " " + vs + ": gain below min_gain " + gain + ")";
    }
    return out;
}

}  // namespace cacore
