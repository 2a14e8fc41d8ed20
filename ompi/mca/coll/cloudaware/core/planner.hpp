// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// planner.hpp - builds the plan the component runs: the best predicted cloudaware plan, checked.
#ifndef CACORE_PLANNER_HPP
#define CACORE_PLANNER_HPP

#include "cool_plan.hpp"
#include "cost_model.hpp"
#include "hierarchy.hpp"
#include "layout.hpp"
#include "plan.hpp"

#include <optional>

namespace cacore {

// Most lanes a lanes plan has (choose_lanes, PlanParams::lanes).
constexpr int kMaxLanes = 4;

struct PlanParams {
    HierParams hier;
    CostParams cost;
    int algo = CACORE_ALGO_AUTO;
    Patterns pattern{CACORE_PAT_AUTO, CACORE_PAT_AUTO, CACORE_PAT_AUTO};
    double segment_bytes = 0;  // 0 = chosen
    bool relay = true;         // offer relayed forms of the candidates (relay.hpp)
    int lanes = 0;             // lane count of the lanes plans (1 to kMaxLanes); 0 = chosen;
                               // not an MCA parameter (cloudaware-plan plan --lanes)

    static PlanParams from_c(const cacore_plan_params_t &c);
};

// Builds, predicts (Plan::predicted_s), simulates (throws Error(CACORE_ERR_INTERNAL) if the plan
// were incomplete) and sets Plan::preserves_order. With the algorithm AUTO the candidates are the
// best COOL plan, the Algorithm-4 trees, the binomial tree, the ring (not gather, scatter) and,
// for gather and scatter, the linear plans; runner_up (when not null) then gets the best of
// them whose algorithm (Plan::algo) is not the chosen one's, built and checked the same way
// (left empty when there is none). With PlanParams::relay every candidate is also offered in its
// relayed form (relay.hpp) when one exists, passes the check and is predicted faster by more than
// a tie.
Plan build_plan(const PlanInput &in, const PlanParams &p, std::optional<Plan> *runner_up = nullptr);

// Simulates a built plan (Error(CACORE_ERR_INTERNAL) on a planner bug) and records whether it
// keeps rank order (Plan::preserves_order).
void check_plan(Plan &plan);

// Predicted time of any plan for the input's matrix and ranks.
double predict_for(const Plan &plan, const PlanInput &in, const CostParams &c);

}  // namespace cacore
#endif
