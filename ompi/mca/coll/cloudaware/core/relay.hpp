// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// relay.hpp - routing around a bad link (docs/model.md, "Relay around a bad link"; DA-MCM's
// alternative paths, inside a plan): a plan rewrite that sends a message over two hops through a
// rank of a third node when the matrix says the direct pair is far slower.
#ifndef CACORE_RELAY_HPP
#define CACORE_RELAY_HPP

#include "matrix.hpp"
#include "plan.hpp"

#include <optional>
#include <vector>

namespace cacore {

// A message between two nodes is relayed when its time through the best third node k, stored and
// forwarded (L[a][k] + s/B[a][k] + L[k][b] + s/B[k][b]), is at most this fraction of its direct
// time (L[a][b] + s/B[a][b]): the pair must be far slower than the detour, not merely slower.
constexpr double kRelayFraction = 0.5;

// The plan with every such message a -> b rerouted: a sends it to a relay rank R on node k
// (the rank of k with the fewest messages between nodes), R receives it into a temporary buffer
// of its own (new TMP indices) and forwards it to b. Every round r becomes round 2r; R receives
// in a's round, forwards in the odd round after it, and b receives in the odd round after its
// own (rank_node maps the plan's ranks to nodes of m). The description gets
// " relay A->B via R, ..." (per rank pair, its relay ranks joined by '/'; at most three pairs,
// then "and N more"). std::nullopt when no message
// qualifies. The result is neither predicted nor simulated: the planner does both and keeps it
// only when it passes the check and is predicted faster.
std::optional<Plan> relay_plan(const Plan &p, const Matrix &m, const std::vector<int> &rank_node);

}  // namespace cacore
#endif
