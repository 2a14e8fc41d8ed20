// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// planner.cpp - algorithm and pattern choice by the cost model (coordinate descent over the
// per-level patterns, then the segment count), and the completeness check of the result.
#include "planner.hpp"

#include "baselines.hpp"
#include "error.hpp"
#include "lanes_plan.hpp"
#include "names.hpp"
#include "rail_plan.hpp"
#include "relay.hpp"
#include "simulate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

namespace cacore {

PlanParams PlanParams::from_c(const cacore_plan_params_t &c)
{
    PlanParams p;
    p.hier.k = c.hier.k;
    p.hier.t_span = c.hier.t_span;
    p.cost = CostParams::from_c(c.cost);
    if (c.algo < 0 || c.algo >= CACORE_ALGO_COUNT) {
        fail_arg("unknown algorithm " + std::to_string(c.algo));
    }
    p.algo = c.algo;
    for (int i = 0; i < CACORE_PLAN_LEVELS; ++i) {
        if (c.pattern[i] < 0 || c.pattern[i] >= CACORE_PAT_COUNT) {
            fail_arg("unknown pattern " + std::to_string(c.pattern[i]));
        }
        p.pattern[i] = c.pattern[i];
    }
    p.segment_bytes = static_cast<double>(c.segment_bytes);
    p.relay = c.relay != 0;
    return p;
}

double predict_for(const Plan &plan, const PlanInput &in, const CostParams &c)
{
    return predict(plan, *in.matrix, in.rank_node, c);
}

namespace {

std::vector<int> seg_candidates(const PlanInput &in, const PlanParams &p)
{
    if (p.segment_bytes > 0) {
        return {std::max(1, static_cast<int>(std::ceil(in.bytes / p.segment_bytes)))};
    }
    std::vector<int> out;
    for (int s : {1, 4, 8, 16, 32, 64, 128}) {
        if (s == 1 || (in.bytes / s >= 8192 && (in.count == 0 || static_cast<size_t>(s) <= in.count))) {
            out.push_back(s);
        }
    }
    return out;
}

std::vector<int> pattern_candidates(cacore_coll_t c, int level_class, bool is_top)
{
    switch (c) {
    case CACORE_COLL_BCAST:
        return level_class == 0 ? std::vector<int>{CACORE_PAT_BINOMIAL, CACORE_PAT_FLAT, CACORE_PAT_CHAIN}
                                : std::vector<int>{CACORE_PAT_BINOMIAL, CACORE_PAT_FLAT, CACORE_PAT_CHAIN,
                                                   CACORE_PAT_DUALTREE};
    case CACORE_COLL_REDUCE:
        return {CACORE_PAT_BINOMIAL, CACORE_PAT_FLAT, CACORE_PAT_CHAIN, CACORE_PAT_DUALTREE};
    case CACORE_COLL_GATHER:
    case CACORE_COLL_SCATTER: return {CACORE_PAT_BINOMIAL, CACORE_PAT_FLAT};
    case CACORE_COLL_ALLREDUCE:
        return is_top ? std::vector<int>{CACORE_PAT_RECDBL, CACORE_PAT_RING, CACORE_PAT_BINOMIAL,
                                         CACORE_PAT_CHAIN, CACORE_PAT_RABENSEIFNER}
                      : std::vector<int>{CACORE_PAT_BINOMIAL, CACORE_PAT_FLAT, CACORE_PAT_CHAIN};
    default:
        return is_top ? std::vector<int>{CACORE_PAT_RING, CACORE_PAT_RECDBL, CACORE_PAT_BINOMIAL}
                      : std::vector<int>{CACORE_PAT_BINOMIAL, CACORE_PAT_FLAT};
    }
}

// Two COOL plans predicted within this fraction of each other count as a tie, which the plan
// with fewer concurrent messages per rank wins: what the model does not see (a NIC that caps a
// node's total rate, CPU time per message) can only hurt the plan with more of them. In the lab
// a reduce over dual trees predicted 0.2 % faster than over chains measured 1.9x slower (a host
// whose ingress is capped received from two children at once).
constexpr double kTie = 0.02;

// Predicted time a beats b by more than a tie.
bool faster_beyond_tie(double a, double b) { return a < b * (1.0 - kTie); }

// The best offered plan, and the best of the other algorithms (Plan::algo). Two plans predicted
// within a tie (kTie) of each other whose prices are both within a tie of their busiest
// capacity's floor (busiest_capacity_s: what short messages passing as bursts cost when calls
// follow each other, or a linear gather whose root node takes every block in) are ordered by
// their rounds (tie_key, when set), fewer first: such a price says that the capacity has time
// for the call's bytes, not how many hops a call waits for, and each hop costs a wake-up of the
// ranks it passes that the model does not price. The fifty-fifth session's racks-8 1 KiB gather
// priced every plan at the root rack uplink's floor, 1.64 ms, so the plans offered first (four
// rounds each) took both places of the live trial, and no plan of one or two rounds was tried
// (tuned's binomial ran 2.5 ms, coll/han 2.2); on cloud-8 the gather over the node leaders (two
// rounds) ran 1.6-1.8 ms against binomial plans' 2.5-2.7, on uniform-8 the linear gather (one
// round) 0.99 ms against tuned's 5.4.
struct Best {
    Plan plan;
    bool have = false;
    std::optional<Plan> second;
    // A plan's rounds when its price is within a tie of its floor, else -1.
    std::function<double(const Plan &)> tie_key;
    void offer(Plan &&p)
    {
        double key = kNoKey;
        if (!have || ahead(p, key, plan, plan_key)) {
            if (have && plan.algo != p.algo) {
                second = std::move(plan);   // the best so far of its algorithm
                second_key = plan_key;
            }
            plan = std::move(p);
            plan_key = key;
            have = true;
        } else {
            offer_second(std::move(p), key);
        }
    }
    // Only as the best of the other algorithms (the live trial's alternative).
    void offer_second(Plan &&p, double key = kNoKey)
    {
        if ((!have || p.algo != plan.algo) && (!second || ahead(p, key, *second, second_key))) {
            second = std::move(p);
            second_key = key;
        }
    }

private:
    static constexpr double kNoKey = -2.0;   // tie_key not asked yet
    double plan_key = kNoKey, second_key = kNoKey;
    double key_of(const Plan &p, double &key) const
    {
        if (key == kNoKey) {
            key = tie_key ? tie_key(p) : -1.0;
        }
        return key;
    }
    // a before b: predicted faster, or, in a tie of two plans at their floors, fewer rounds.
    bool ahead(const Plan &a, double &ka, const Plan &b, double &kb) const
    {
        if (tie_key && !faster_beyond_tie(a.predicted_s, b.predicted_s) &&
            !faster_beyond_tie(b.predicted_s, a.predicted_s)) {
            const double x = key_of(a, ka), y = key_of(b, kb);
            if (x >= 0.0 && y >= 0.0 && x != y) {
                return x < y;
            }
        }
        return a.predicted_s < b.predicted_s;
    }
};

}  // namespace

void check_plan(Plan &plan)
{
    SimResult sim = simulate(plan);
    if (!sim.ok) {
        throw Error(CACORE_ERR_INTERNAL, "planner bug: " + plan.description + ": " + sim.error);
    }
    plan.preserves_order = sim.ordered;
}

namespace {

// The plan's rounds: one more than the last round of any rank's steps.
int rounds(const Plan &p)
{
    int last = -1;
    for (const auto &st : p.steps) {
        if (!st.empty()) {
            last = std::max(last, st.back().round);
        }
    }
    return last + 1;
}

// The most messages between nodes one rank has in flight in one round (sends and receives).
int busiest_round(const Plan &p, const std::vector<int> &rank_node)
{
    int most = 0;
    for (int r = 0; r < p.nranks; ++r) {
        const auto &st = p.steps[r];
        for (size_t i = 0; i < st.size();) {
            size_t j = i;
            int n = 0;
            for (; j < st.size() && st[j].round == st[i].round; ++j) {
                if ((st[j].kind == CACORE_STEP_SEND || st[j].kind == CACORE_STEP_RECV) &&
                    rank_node[st[j].peer] != rank_node[r]) {
                    ++n;
                }
            }
            most = std::max(most, n);
            i = j;
        }
    }
    return most;
}

// Offers pl and, with p.relay, its relayed form (relay.hpp) when there is one, it passes the
// check (else the rewrite is dropped) and is predicted faster by more than a tie: relaying adds
// messages, and CPU time at the relay rank that the model does not see.
void offer_relayed(Best &best, Plan &&pl, const PlanInput &in, const PlanParams &p)
{
    if (p.relay) {
        std::optional<Plan> r = relay_plan(pl, *in.matrix, in.rank_node);
        if (r && simulate(*r).ok) {
            r->predicted_s = predict_for(*r, in, p.cost);
            if (faster_beyond_tie(r->predicted_s, pl.predicted_s)) {
                best.offer(std::move(*r));
            }
        }
    }
    best.offer(std::move(pl));
}

bool uses_segments(cacore_coll_t c, const Patterns &pt, int top_class)
{
    for (int l = 0; l <= top_class; ++l) {
        int q = pt[l];
        if (q == CACORE_PAT_CHAIN || q == CACORE_PAT_DUALTREE ||
            (q == CACORE_PAT_RING && (c == CACORE_COLL_BCAST || c == CACORE_COLL_REDUCE ||
                                      c == CACORE_COLL_ALLREDUCE))) {
            return true;
        }
    }
    return false;
}

// Search: a grid over the two upper level classes (the node class binomial) with three segment
// counts, then the node class, then the segment count, then the upper classes again.
Plan choose_cool(const PlanInput &in, const Layout &lay, const PlanParams &p)
{
    const int top_class = std::min(lay.hier.top(), CACORE_PLAN_LEVELS - 1);
    auto cands = [&](int lvl) {
        if (p.pattern[lvl] == CACORE_PAT_DIRECT) {
            return std::vector<int>{CACORE_PAT_FLAT};   // a COOL level's direct is flat
        }
        if (p.pattern[lvl] != CACORE_PAT_AUTO) {
            return std::vector<int>{p.pattern[lvl]};
        }
        if (lvl > top_class) {
            return std::vector<int>{pattern_candidates(in.coll, lvl, false)[0]};  // level absent
        }
        return pattern_candidates(in.coll, lvl, lvl == top_class);
    };
    auto segs = seg_candidates(in, p);
    std::vector<int> coarse;
    for (int s : {4, 16, 64}) {
        if (std::find(segs.begin(), segs.end(), s) != segs.end()) {
            coarse.push_back(s);
        }
    }
    if (coarse.empty()) {
        coarse.push_back(segs.back());
    }
    Best best;
    Patterns best_pat{};
    int best_segs = 1, best_busy = 0;
    auto eval = [&](const Patterns &pt, int nsegs) {
        int s = uses_segments(in.coll, pt, top_class) ? nsegs : 1;
        Plan pl;
        try {
            pl = build_cool(in, lay, pt, s);
        } catch (const Error &) {
            // A pattern that cannot serve this size (e.g. a ring with fewer blocks than
            // members) is no candidate; the search goes on with the others.
            if (p.pattern[0] != CACORE_PAT_AUTO && p.pattern[1] != CACORE_PAT_AUTO &&
                p.pattern[2] != CACORE_PAT_AUTO) {
                throw;   // every level fixed by the caller: report why it cannot be built
            }
            return;
        }
        pl.predicted_s = predict_for(pl, in, p.cost);
        const int busy = busiest_round(pl, in.rank_node);
        const double t = pl.predicted_s, b = best.have ? best.plan.predicted_s : 0.0;
        if (!best.have || faster_beyond_tie(t, b) || (t <= b * (1.0 + kTie) && busy < best_busy) ||
            (t < b && busy <= best_busy)) {
            best_pat = pt;
            best_segs = s;
            best_busy = busy;
            best.plan = std::move(pl);
            best.have = true;
        }
    };
    const int node0 = cands(0)[0];
    for (int g : cands(1)) {
        for (int t : cands(2)) {
            Patterns pt{node0, g, t};
            if (uses_segments(in.coll, pt, top_class)) {
                for (int s : coarse) {
                    eval(pt, s);
                }
            } else {
                eval(pt, 1);
            }
        }
    }
    for (int pass = 0; pass < 2; ++pass) {
        for (int lvl = 0; lvl < CACORE_PLAN_LEVELS; ++lvl) {
            for (int cand : cands(lvl)) {
                Patterns t = best_pat;
                t[lvl] = cand;
                if (t != best_pat) {
                    eval(t, best_segs);
                }
            }
        }
        if (uses_segments(in.coll, best_pat, top_class)) {
            const Patterns bp = best_pat;
            for (int s : segs) {
                eval(bp, s);
            }
        }
    }
    if (!best.have) {
        fail_arg(std::string("no COOL pattern applies to this ") + coll_name(in.coll));
    }
    return std::move(best.plan);
}

// Split rails (rail_plan.hpp): the best predicted split inside nodes, at the group levels (when
// the hierarchy has any below the top) and pattern across the top.
Plan choose_rail_on(const PlanInput &in, const Layout &lay, const PlanParams &p)
{
    const bool ag = in.coll == CACORE_COLL_ALLGATHER;
    std::vector<int> split{CACORE_PAT_FLAT, CACORE_PAT_RING, CACORE_PAT_RABENSEIFNER};
    if (in.coll != CACORE_COLL_BCAST) {
        split.push_back(CACORE_PAT_DIRECT);
    }
    std::array<std::vector<int>, CACORE_PLAN_LEVELS> cands{
        split, lay.hier.top() >= 2 ? split : std::vector<int>{CACORE_PAT_FLAT},
        in.coll == CACORE_COLL_ALLREDUCE
            ? std::vector<int>{CACORE_PAT_RING, CACORE_PAT_RABENSEIFNER, CACORE_PAT_RECDBL,
                               CACORE_PAT_DIRECT}
        : in.coll == CACORE_COLL_BCAST
            ? std::vector<int>{CACORE_PAT_RING, CACORE_PAT_BINOMIAL}
            : std::vector<int>{CACORE_PAT_RING, CACORE_PAT_RECDBL, CACORE_PAT_DIRECT}};
    for (int l = 0; l < CACORE_PLAN_LEVELS; ++l) {
        if (p.pattern[l] != CACORE_PAT_AUTO) {
            cands[l] = {p.pattern[l]};
        }
    }
    // The grid over the node split and the top pattern with the group split at its first
    // candidate (ring when free), then the other group splits with the best of them.
    if (cands[1].size() > 1) {
        std::rotate(cands[1].begin(), cands[1].begin() + 1, cands[1].begin() + 2);
    }
    // Allgather direct across the top and just below it runs the top in segments: as many as
    // the segment size asks, else the best count (at most 16: the plan has a block per segment
    // of every rank's part).
    const int max_segs = 16;
    const int forced_segs = p.segment_bytes > 0 ? std::min(seg_candidates(in, p)[0], max_segs) : 1;
    Best best;
    std::array<int, CACORE_PLAN_LEVELS> bp{};
    auto eval = [&](const std::array<int, CACORE_PLAN_LEVELS> &pt, int nsegs) {
        Plan pl = build_rail(in, lay, pt, nsegs);
        pl.predicted_s = predict_for(pl, in, p.cost);
        if (!best.have || pl.predicted_s < best.plan.predicted_s) {
            bp = pt;
        }
        best.offer(std::move(pl));
    };
    for (int a : cands[0]) {
        for (int t : cands[2]) {
            eval({a, cands[1][0], t}, forced_segs);
        }
    }
    const auto first = bp;
    for (size_t i = 1; i < cands[1].size(); ++i) {
        eval({first[0], cands[1][i], first[2]}, forced_segs);
    }
    const int below = lay.hier.top() >= 2 ? 1 : 0;
    auto offers = [&](int l) {
        return std::find(cands[l].begin(), cands[l].end(), CACORE_PAT_DIRECT) != cands[l].end();
    };
    if (ag && p.segment_bytes <= 0 && lay.hier.top() >= 1 && offers(below) && offers(2)) {
        auto pt = bp;
        pt[below] = pt[2] = CACORE_PAT_DIRECT;
        for (int s : seg_candidates(in, p)) {
            if (s > 1 && s <= max_segs) {
                eval(pt, s);
            }
        }
    }
    return std::move(best.plan);
}

// The rail over the hierarchy as built and, with more than one level of groups, over its finest
// groups directly under the top: on cloud-16 (4 racks, paired by the hierarchy) the pairs of
// racks made every rack's data cross the uplinks of its pair first; with the racks as the top's
// children each part crosses every uplink once.
Plan choose_rail(const PlanInput &in, const Layout &lay, const PlanParams &p)
{
    Plan pl = choose_rail_on(in, lay, p);
    if (lay.hier.top() > 2) {
        Layout flat = lay;
        flat.hier = collapse_above(lay.hier, 1);
        Plan alt = choose_rail_on(in, flat, p);
        if (alt.predicted_s < pl.predicted_s) {
            return alt;
        }
    }
    return pl;
}

// Lanes (lanes_plan.hpp; bcast, reduce, allreduce): 1 to 4 lanes, chains or the entry host
// serving its group. For each lane count the best of both at three segment counts, then at every
// segment count; more lanes must then be predicted faster than fewer by more than a tie (kTie):
// each lane adds streams across the shared uplinks, and a job's first calls drop packets in an
// uplink's queue, more with more streams (docs/benchmarks.md, eighteenth to twentieth sessions),
// which the model does not see. In the lab a 1 MiB reduce over three lanes, predicted 1.3 %
// faster than over two, measured 1.5x slower. PlanParams::lanes fixes the count (fail_arg when
// the lane trees cannot have that many lanes without a shared edge).
Plan choose_lanes(const PlanInput &in, const Layout &lay, const PlanParams &p)
{
    std::vector<int> group_pats{CACORE_PAT_CHAIN, CACORE_PAT_FLAT};
    if (p.pattern[1] == CACORE_PAT_CHAIN || p.pattern[1] == CACORE_PAT_FLAT) {
        group_pats = {p.pattern[1]};
    }
    const int node_pat = p.pattern[0] == CACORE_PAT_FLAT ? CACORE_PAT_FLAT : CACORE_PAT_BINOMIAL;
    const auto segs = seg_candidates(in, p);
    auto coarse = [&](int s) { return segs.size() == 1 || s == 4 || s == 16 || s == 64; };
    // A lane's share no smaller than a segment (seg_candidates' 8 KiB): below it more lanes
    // only add messages.
    const int most = std::max(1, std::min({kMaxLanes, static_cast<int>(lay.nodes.size()) - 1,
                                           static_cast<int>(in.bytes / 8192)}));
    const bool down = in.coll == CACORE_COLL_BCAST;
    if (p.lanes < 0 || p.lanes > kMaxLanes) {
        fail_arg("a lane count must be 1 to " + std::to_string(kMaxLanes) + " (0: chosen), not " +
                 std::to_string(p.lanes));
    }
    const int fewest = p.lanes > 0 ? p.lanes : 1, largest = p.lanes > 0 ? p.lanes : most;
    std::optional<Plan> best;
    for (int k = fewest; k <= largest; ++k) {
        std::optional<Plan> of_k;
        int g_of_k = group_pats[0];
        auto eval = [&](int g, int s) {
            Plan pl = build_lanes(in, lay, k, g, node_pat, s);
            pl.predicted_s = predict_for(pl, in, p.cost);
            if (!of_k || pl.predicted_s < of_k->predicted_s) {
                g_of_k = g;
                of_k = std::move(pl);
            }
        };
        for (int g : group_pats) {
            if (k > 1 && static_cast<int>(lane_trees(lay, k, g, down, in.bytes / k).size()) < k) {
                continue;   // fewer lanes without a shared edge: built already
            }
            for (int s : segs) {
                if (coarse(s)) {
                    eval(g, s);
                }
            }
        }
        if (!of_k) {
            continue;
        }
        for (int s : segs) {
            if (!coarse(s)) {
                eval(g_of_k, s);
            }
        }
        if (!best || faster_beyond_tie(of_k->predicted_s, best->predicted_s)) {
            best = std::move(of_k);
        }
    }
    if (!best) {
        fail_arg(std::to_string(p.lanes) + " lanes: the lane trees over these nodes have fewer " +
                 "without a shared edge");
    }
    return std::move(*best);
}

}  // namespace

Plan build_plan(const PlanInput &in, const PlanParams &p, std::optional<Plan> *runner_up)
{
    validate(in);
    Best best;
    best.tie_key = [&in, &p](const Plan &pl) {
        const double floor_s = busiest_capacity_s(pl, *in.matrix, in.rank_node, p.cost);
        return faster_beyond_tie(floor_s, pl.predicted_s) ? -1.0 : static_cast<double>(rounds(pl));
    };
    const int algo = p.algo;
    if (algo == CACORE_ALGO_BINOMIAL) {
        Plan pl = build_binomial(in);
        pl.predicted_s = predict_for(pl, in, p.cost);
        offer_relayed(best, std::move(pl), in, p);
    } else if (algo == CACORE_ALGO_LINEAR) {
        Plan pl = build_linear(in);
        pl.predicted_s = predict_for(pl, in, p.cost);
        offer_relayed(best, std::move(pl), in, p);
    } else if (algo == CACORE_ALGO_RING) {
        Best b2;
        for (int s : seg_candidates(in, p)) {
            Plan pl = build_ring(in, s);
            pl.predicted_s = predict_for(pl, in, p.cost);
            b2.offer(std::move(pl));
        }
        offer_relayed(best, std::move(b2.plan), in, p);
    } else {
        Layout lay(in, p.hier);
        // AUTO with no pattern forced: the planner may offer every algorithm that applies
        const bool free_choice = algo == CACORE_ALGO_AUTO && p.pattern[0] == CACORE_PAT_AUTO &&
                                 p.pattern[1] == CACORE_PAT_AUTO && p.pattern[2] == CACORE_PAT_AUTO;
        if (algo == CACORE_ALGO_COOL) {
            offer_relayed(best, choose_cool(in, lay, p), in, p);
        } else if (algo == CACORE_ALGO_AUTO) {
            try {
                offer_relayed(best, choose_cool(in, lay, p), in, p);
            } catch (const Error &) {
                // AUTO goes on with the tree and the binomial baseline
            }
        }
        // A RAIL bcast runs when forced (algorithm, rules file) only: AUTO does not offer it
        // until measurements confirm its predictions (docs/model.md, "Split rails").
        const bool rail_applies =
            in.coll == CACORE_COLL_ALLREDUCE || in.coll == CACORE_COLL_ALLGATHER;
        if (algo == CACORE_ALGO_RAIL) {
            if (!rail_applies && in.coll != CACORE_COLL_BCAST) {
                fail_arg(std::string("the rail algorithm does not implement ") + coll_name(in.coll));
            }
            offer_relayed(best, choose_rail(in, lay, p), in, p);
        } else if (free_choice && rail_applies) {
            // More messages than a COOL plan: it must win by more than a tie (kTie) to be taken.
            Plan rail = choose_rail(in, lay, p);
            if (!best.have || faster_beyond_tie(rail.predicted_s, best.plan.predicted_s)) {
                offer_relayed(best, std::move(rail), in, p);
            }
        }
        const bool lanes_apply = in.coll == CACORE_COLL_BCAST || in.coll == CACORE_COLL_REDUCE ||
                                 in.coll == CACORE_COLL_ALLREDUCE;
        if (algo == CACORE_ALGO_LANES) {
            if (!lanes_apply) {
                fail_arg(std::string("the lanes algorithm does not implement ") +
                         coll_name(in.coll));
            }
            offer_relayed(best, choose_lanes(in, lay, p), in, p);
        } else if (free_choice && lanes_apply) {
            // More messages than a COOL plan, likewise; within a tie it is the alternative the
            // live trial times against the plan.
            Plan lanes = choose_lanes(in, lay, p);
            if (!best.have || faster_beyond_tie(lanes.predicted_s, best.plan.predicted_s)) {
                offer_relayed(best, std::move(lanes), in, p);
            } else {
                best.offer_second(std::move(lanes));
            }
        }
        if ((algo == CACORE_ALGO_AUTO || algo == CACORE_ALGO_TREE) && is_rooted(in.coll)) {
            for (int np : {CACORE_PAT_BINOMIAL, CACORE_PAT_FLAT}) {
                if (p.pattern[0] != CACORE_PAT_AUTO && p.pattern[0] != np) {
                    continue;
                }
                Plan pl = build_tree_plan(in, lay, np);
                pl.predicted_s = predict_for(pl, in, p.cost);
                offer_relayed(best, std::move(pl), in, p);
            }
        }
        if (free_choice) {
            // never predict worse than the network-oblivious binomial tree
            Plan pl = build_binomial(in);
            pl.predicted_s = predict_for(pl, in, p.cost);
            offer_relayed(best, std::move(pl), in, p);
            // nor than the ring over ranks (the bandwidth-optimal plan of a flat network)
            if (!linear_applies(in.coll)) {
                Best ring;
                for (int s : seg_candidates(in, p)) {
                    try {
                        Plan r = build_ring(in, s);
                        r.predicted_s = predict_for(r, in, p.cost);
                        ring.offer(std::move(r));
                    } catch (const Error &e) {
                        if (e.status() == CACORE_ERR_INTERNAL) {
                            throw;
                        }
                        // a ring with fewer blocks than ranks: no candidate
                    }
                }
                if (ring.have) {
                    offer_relayed(best, std::move(ring.plan), in, p);
                }
            }
            // gather/scatter straight to/from the root, all at once: the best plan where the
            // root's node can use many links concurrently (node slots > 1 in the cost model)
            if (linear_applies(in.coll)) {
                Plan lin = build_linear(in);
                lin.predicted_s = predict_for(lin, in, p.cost);
                offer_relayed(best, std::move(lin), in, p);
                Plan lead = build_tree_plan(in, lay, CACORE_PAT_BINOMIAL, true);
                lead.predicted_s = predict_for(lead, in, p.cost);
                offer_relayed(best, std::move(lead), in, p);
            }
        }
        if (!best.have) {
            fail_arg(std::string("algorithm not available for ") + coll_name(in.coll));
        }
    }
    Plan plan = std::move(best.plan);
    check_plan(plan);
    if (runner_up != nullptr) {
        runner_up->reset();
        if (best.second) {
            check_plan(*best.second);
            *runner_up = std::move(best.second);
        }
    }
    return plan;
}

}  // namespace cacore
