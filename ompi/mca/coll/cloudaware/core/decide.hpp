// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// decide.hpp - the one decision function: a plan or the previous module, and why
// (cacore_decide in cloudaware_core.h; docs/model.md, "Decision").
#ifndef CACORE_DECIDE_HPP
#define CACORE_DECIDE_HPP

#include "planner.hpp"

#include <string>

namespace cacore {

struct DecideInput {
    PlanInput in;
    bool commutative = true;
    const cacore_rule_t *rule = nullptr;   // the rule that applies, or none
    int trial = CACORE_TRIAL_UNKNOWN;
    int previous = CACORE_PREV_TUNED;
    double min_gain = 0.1;
    double large_message = 65536;
    double trial_spread = 2.0;             // see cacore_decide_input_t
    bool trial_peer = true;                // see cacore_decide_input_t
    PlanParams params;                     // from the MCA parameters (or the CLI's options)
};

struct Decision {
    bool run_plan = false;
    bool have_plan = false;   // `plan` was built (whether it runs or not)
    bool plan_usable = false; // it can serve the op (commutative, or it keeps rank order)
    Plan plan;
    bool run_alternative = false;
    bool have_alternative = false;   // the model's second plan (or burst-priced choice), for the live trial
    std::string alternative_note;    // what the alternative is when not the second plan, e.g.
                                     // "the model's choice if every message passed at once"
    Plan alternative;
    bool run_peer = false;
    bool have_peer = false;   // the other default's algorithm run by the executor (peer_module)
    Plan peer;
    double previous_s = -1;   // -1: not predicted
    std::string previous;     // the previous module's algorithm
    bool problem = false;     // no plan could be built
    std::string reason;
};

// The parameters the plan is built with: params, one segment below large_message, a rule's
// settings on top.
PlanParams decide_params(const DecideInput &d);

// The previous module's plan for this call, predicted (Plan::predicted_s).
Plan predict_previous(const DecideInput &d);

// The module whose algorithm the live trial runs as the peer (cacore_prev_t): han's when the
// previous module is tuned, tuned's otherwise.
int peer_module(int previous);

Decision decide(const DecideInput &d);

}  // namespace cacore
#endif
