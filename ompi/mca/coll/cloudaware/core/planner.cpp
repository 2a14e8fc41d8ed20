// planner.cpp - algorithm and pattern choice by the cost model (coordinate descent over the
// per-level patterns, then the segment count), and the completeness check of the result.
#include "planner.hpp"

#include "baselines.hpp"
#include "error.hpp"
#include "simulate.hpp"

#include <algorithm>
#include <cmath>

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
                                         CACORE_PAT_CHAIN}
                      : std::vector<int>{CACORE_PAT_BINOMIAL, CACORE_PAT_FLAT, CACORE_PAT_CHAIN};
    default:
        return is_top ? std::vector<int>{CACORE_PAT_RING, CACORE_PAT_RECDBL, CACORE_PAT_BINOMIAL}
                      : std::vector<int>{CACORE_PAT_BINOMIAL, CACORE_PAT_FLAT};
    }
}

struct Best {
    Plan plan;
    bool have = false;
    void offer(Plan &&p)
    {
        if (!have || p.predicted_s < plan.predicted_s) {
            plan = std::move(p);
            have = true;
        }
    }
};

Plan choose_cool(const PlanInput &in, const Layout &lay, const PlanParams &p)
{
    const int top_class = std::min(lay.hier.top(), CACORE_PLAN_LEVELS - 1);
    Patterns pat{};
    for (int i = 0; i < CACORE_PLAN_LEVELS; ++i) {
        pat[i] = p.pattern[i] != CACORE_PAT_AUTO ? p.pattern[i]
                                                 : pattern_candidates(in.coll, i, i == top_class)[0];
    }
    auto segs = seg_candidates(in, p);
    int nsegs = segs[std::min<size_t>(segs.size() - 1, 4)];  // a middle guess, refined below
    auto eval = [&](const Patterns &pt, int s) {
        Plan pl = build_cool(in, lay, pt, s);
        pl.predicted_s = predict_for(pl, in, p.cost);
        return pl;
    };
    Best best;
    best.offer(eval(pat, nsegs));
    // Coordinate descent: top level class first (largest effect), then down.
    for (int pass = 0; pass < 2; ++pass) {
        for (int lvl = CACORE_PLAN_LEVELS - 1; lvl >= 0; --lvl) {
            if (p.pattern[lvl] != CACORE_PAT_AUTO) {
                continue;
            }
            for (int cand : pattern_candidates(in.coll, lvl, lvl == top_class)) {
                if (cand == pat[lvl]) {
                    continue;
                }
                Patterns t = pat;
                t[lvl] = cand;
                Plan pl = eval(t, nsegs);
                if (pl.predicted_s < best.plan.predicted_s) {
                    pat = t;
                    best.offer(std::move(pl));
                }
            }
        }
        for (int s : segs) {
            if (s == nsegs) {
                continue;
            }
            Plan pl = eval(pat, s);
            if (pl.predicted_s < best.plan.predicted_s) {
                nsegs = s;
                best.offer(std::move(pl));
            }
        }
    }
    return std::move(best.plan);
}

}  // namespace

Plan build_plan(const PlanInput &in, const PlanParams &p)
{
    validate(in);
    Best best;
    const int algo = p.algo;
    if (algo == CACORE_ALGO_BINOMIAL) {
        Plan pl = build_binomial(in);
        pl.predicted_s = predict_for(pl, in, p.cost);
        best.offer(std::move(pl));
    } else if (algo == CACORE_ALGO_RING) {
        Best b2;
        for (int s : seg_candidates(in, p)) {
            Plan pl = build_ring(in, s);
            pl.predicted_s = predict_for(pl, in, p.cost);
            b2.offer(std::move(pl));
        }
        best.offer(std::move(b2.plan));
    } else {
        Layout lay(in, p.hier);
        if (algo == CACORE_ALGO_AUTO || algo == CACORE_ALGO_COOL) {
            best.offer(choose_cool(in, lay, p));
        }
        if ((algo == CACORE_ALGO_AUTO || algo == CACORE_ALGO_TREE) && is_rooted(in.coll)) {
            for (int np : {CACORE_PAT_BINOMIAL, CACORE_PAT_FLAT}) {
                if (p.pattern[0] != CACORE_PAT_AUTO && p.pattern[0] != np) {
                    continue;
                }
                Plan pl = build_tree_plan(in, lay, np);
                pl.predicted_s = predict_for(pl, in, p.cost);
                best.offer(std::move(pl));
            }
        }
        if (!best.have) {
            fail_arg(std::string("algorithm not available for ") + coll_name(in.coll));
        }
    }
    Plan plan = std::move(best.plan);
    SimResult sim = simulate(plan);
    if (!sim.ok) {
        throw Error(CACORE_ERR_INTERNAL, "planner bug: " + plan.description + ": " + sim.error);
    }
    plan.preserves_order = sim.ordered;
    return plan;
}

}  // namespace cacore
