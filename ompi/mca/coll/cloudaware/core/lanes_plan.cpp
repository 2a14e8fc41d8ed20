// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// lanes_plan.cpp - the lane trees and the multi-lane bcast / reduce plan.
#include "lanes_plan.hpp"

#include "error.hpp"
#include "names.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

namespace cacore {

namespace {

// Groups of local nodes: the hierarchy's level 1, or every node in one group.
std::vector<std::vector<int>> node_groups(const Layout &lay)
{
    const Hierarchy &h = lay.hier;
    if (h.top() < 1) {
        std::vector<int> all(lay.nodes.size());
        for (size_t k = 0; k < all.size(); ++k) {
            all[k] = static_cast<int>(k);
        }
        return {all};
    }
    std::vector<std::vector<int>> out;
    for (const Group &g : h.level(1)) {
        out.push_back(g.members);
    }
    return out;
}

// The groups from the root's on. A lane is a pipeline through them, as fast as its slowest step
// between two groups (the average pair cost from one to the next): up to kExactGroups groups the
// order with the cheapest slowest step (then the least total), beyond that each next one the
// cheapest from the one before. Taking a cheap step first can force a later one through a slow
// way (on cloud-16 into rack d), which only the whole order shows.
constexpr size_t kExactGroups = 7;

std::vector<int> group_order(const std::vector<std::vector<int>> &groups, int root_group,
                             const std::function<double(int, int)> &flow)
{
    const size_t ng = groups.size();
    std::vector<double> step(ng * ng, 0.0);
    for (size_t g = 0; g < ng; ++g) {
        for (size_t h = 0; h < ng; ++h) {
            for (int a : groups[g]) {
                for (int b : groups[h]) {
                    step[g * ng + h] += flow(a, b);
                }
            }
            step[g * ng + h] /= static_cast<double>(groups[g].size() * groups[h].size());
        }
    }
    std::vector<int> order{root_group};
    if (ng <= kExactGroups) {
        std::vector<int> rest;
        for (size_t g = 0; g < ng; ++g) {
            if (static_cast<int>(g) != root_group) {
                rest.push_back(static_cast<int>(g));
            }
        }
        std::vector<int> best;
        double best_max = 0, best_sum = 0;
        do {   // rest starts sorted: every permutation once
            double mx = 0, sum = 0;
            int prev = root_group;
            for (int g : rest) {
                const double c = step[static_cast<size_t>(prev) * ng + g];
                mx = std::max(mx, c);
                sum += c;
                prev = g;
            }
            if (best.empty() || mx < best_max || (mx == best_max && sum < best_sum)) {
                best = rest;
                best_max = mx;
                best_sum = sum;
            }
        } while (std::next_permutation(rest.begin(), rest.end()));
        order.insert(order.end(), best.begin(), best.end());
        return order;
    }
    std::vector<bool> done(ng, false);
    done[root_group] = true;
    while (order.size() < ng) {
        const double *from = &step[static_cast<size_t>(order.back()) * ng];
        int best = -1;
        for (size_t g = 0; g < ng; ++g) {
            if (!done[g] && (best < 0 || from[g] < from[best])) {
                best = static_cast<int>(g);
            }
        }
        done[best] = true;
        order.push_back(best);
    }
    return order;
}

// The chain from `from` through every host of `rest`, each hop the cheapest edge not in `taken`,
// backing out of dead ends (a few thousand steps at most); empty if none is found.
std::vector<int> free_chain(int from, const std::vector<int> &rest,
                            const std::function<double(int, int)> &flow,
                            const std::set<std::pair<int, int>> &taken)
{
    std::vector<int> path;
    std::vector<bool> used(rest.size(), false);
    int budget = 4096;
    std::function<bool(int)> extend = [&](int cur) {
        if (path.size() == rest.size()) {
            return true;
        }
        if (--budget < 0) {
            return false;
        }
        std::vector<size_t> cand;
        for (size_t i = 0; i < rest.size(); ++i) {
            if (!used[i] && taken.count({cur, rest[i]}) == 0) {
                cand.push_back(i);
            }
        }
        std::stable_sort(cand.begin(), cand.end(), [&](size_t a, size_t b) {
            return flow(cur, rest[a]) < flow(cur, rest[b]);
        });
        for (size_t i : cand) {
            used[i] = true;
            path.push_back(rest[i]);
            if (extend(rest[i])) {
                return true;
            }
            used[i] = false;
            path.pop_back();
        }
        return false;
    };
    if (!extend(from)) {
        path.clear();
    }
    return path;
}

}  // namespace

std::vector<Tree> lane_trees(const Layout &lay, int nlanes, int group_pat, bool down, double bytes)
{
    const int nn = static_cast<int>(lay.nodes.size());
    // A lane's transfer across groups runs beside the other lanes' on other ways: at its lone
    // rate where calibration found a shared bottleneck, not at its tournament round's share.
    auto flow = [&](int parent, int child) {
        return down ? lay.sub.lone_cost(parent, child, bytes)
                    : lay.sub.lone_cost(child, parent, bytes);
    };
    const auto groups = node_groups(lay);
    int root_group = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
        const auto &m = groups[g];
        if (std::find(m.begin(), m.end(), lay.root_node) != m.end()) {
            root_group = static_cast<int>(g);
        }
    }
    const std::vector<int> order = group_order(groups, root_group, flow);
    // An edge or an entry host an earlier lane took costs this much more, so a lane takes its
    // own where the group offers one at all.
    constexpr double kTaken = 16.0;
    std::set<std::pair<int, int>> taken_edges;
    std::vector<int> entries(nn, 0);
    auto edge_cost = [&](int a, int b) {
        return flow(a, b) * (taken_edges.count({a, b}) ? kTaken : 1.0);
    };
    // A parent moves its children's share through its own capacity: receives in a reduce, sends
    // in a bcast. A capped host (calibration's node capacity) is passed over as an entry, which
    // serves a whole flat group, where another host can take that part.
    auto parent_cost = [&](int x, int children) {
        if (!lay.sub.has_node_props()) {
            return 0.0;
        }
        const NodeProps &np = lay.sub.node_props(x);
        const double cap = down ? np.egress_Bps : np.ingress_Bps;
        return cap > 0 ? bytes * children / cap : 0.0;
    };
    std::vector<Tree> lanes;
    for (int li = 0; li < nlanes; ++li) {
        Tree t(nn);
        t.root = lay.root_node;
        bool shares = false;   // an edge of an earlier lane
        std::vector<std::pair<int, int>> edges;
        auto link = [&](int child, int parent) {
            t.link(child, parent);
            shares |= taken_edges.count({parent, child}) > 0;
            edges.push_back({parent, child});
        };
        // The cheapest host of `rest` to take the lane from `from`: not an entry of an earlier
        // lane if the group has another, nor a capped one when it serves a flat group.
        auto pick_entry = [&](int from, std::vector<int> &rest) {
            const int served = group_pat == CACORE_PAT_CHAIN ? 1 : static_cast<int>(rest.size());
            int entry = rest[0];
            double best_c = std::numeric_limits<double>::infinity();
            for (int x : rest) {
                const double c = edge_cost(from, x) * (1.0 + kTaken * entries[x]) +
                                 parent_cost(x, served);
                if (c < best_c) {
                    best_c = c;
                    entry = x;
                }
            }
            link(entry, from);
            ++entries[entry];
            rest.erase(std::find(rest.begin(), rest.end(), entry));
            return entry;
        };
        int exit = -1;   // the host that hands the lane on to the next group
        for (int g : order) {
            std::vector<int> rest = groups[g];
            int cur;
            if (exit < 0) {
                rest.erase(std::find(rest.begin(), rest.end(), lay.root_node));
                cur = lay.root_node;
                if (group_pat != CACORE_PAT_CHAIN && !rest.empty()) {
                    // The root serves the lane's own hub in its group, which serves the rest:
                    // each lane's share of the root's group reaches the root over its own pair.
                    cur = pick_entry(cur, rest);
                }
            } else {
                cur = pick_entry(exit, rest);
            }
            const std::vector<int> chain = group_pat == CACORE_PAT_CHAIN
                                               ? free_chain(cur, rest, flow, taken_edges)
                                               : std::vector<int>{};
            if (!chain.empty()) {
                for (int next : chain) {
                    link(next, cur);
                    cur = next;
                }
                rest.clear();
            }
            // (no free chain: the cheapest hops, and the lane is dropped for the edge it shares)
            while (!rest.empty()) {
                auto it = std::min_element(rest.begin(), rest.end(), [&](int a, int b) {
                    return edge_cost(cur, a) < edge_cost(cur, b);
                });
                const int next = *it;
                rest.erase(it);
                link(next, cur);
                if (group_pat == CACORE_PAT_CHAIN) {
                    cur = next;
                }
            }
            exit = cur;   // a chain hands on from its last host, a flat group from its entry
        }
        if (shares) {
            // Two lanes over one pair would post their segments to it in different orders at its
            // two ends (and share its rate): fewer lanes instead.
            break;
        }
        taken_edges.insert(edges.begin(), edges.end());
        lanes.push_back(std::move(t));
    }
    return lanes;
}

Plan build_lanes(const PlanInput &in, const Layout &lay, int nlanes, int group_pat, int node_pat,
                 int nsegs)
{
    const cacore_coll_t c = in.coll;
    if (c != CACORE_COLL_BCAST && c != CACORE_COLL_REDUCE && c != CACORE_COLL_ALLREDUCE) {
        fail_arg(std::string("the lanes algorithm does not implement ") + coll_name(c));
    }
    if (group_pat != CACORE_PAT_CHAIN && group_pat != CACORE_PAT_FLAT) {
        group_pat = CACORE_PAT_CHAIN;
    }
    if (node_pat != CACORE_PAT_FLAT) {
        node_pat = CACORE_PAT_BINOMIAL;
    }
    const int n = static_cast<int>(in.rank_node.size());
    const int nn = static_cast<int>(lay.nodes.size());
    nlanes = std::max(1, std::min(nlanes, std::max(1, nn - 1)));
    int nb = std::max(nlanes, nsegs);
    if (in.count > 0) {
        nb = static_cast<int>(std::min<size_t>(static_cast<size_t>(nb), in.count));
    }
    nb = std::max(1, nb);
    nlanes = std::min(nlanes, nb);
    const bool down = c == CACORE_COLL_BCAST;
    const std::vector<Tree> trees = lane_trees(lay, nlanes, group_pat, down, in.bytes / nlanes);
    PlanBuilder b(c, is_rooted(c) ? in.root : 0, n, nb);
    Emitter e(b);
    const Hierarchy &h = lay.hier;
    const std::vector<int> &loc = lay.local;
    const LevelFn lv = [&](int a, int b2) { return h.distance(loc[a], loc[b2]); };
    const LevelFn node_level = [](int, int) { return 0; };
    auto node_phase = [&](bool dn) {
        for (size_t k = 0; k < lay.ranks.size(); ++k) {
            std::vector<int> g{lay.leader[k]};
            for (int r : lay.ranks[k]) {
                if (r != lay.leader[k]) {
                    g.push_back(r);
                }
            }
            const Tree t = node_pat == CACORE_PAT_FLAT ? flat_tree(static_cast<int>(g.size()))
                                                       : binomial_tree(static_cast<int>(g.size()));
            if (dn) {
                e.bcast_tree(g, t, node_level, node_pat == CACORE_PAT_FLAT);
            } else {
                e.reduce_tree(g, t, node_level);
            }
        }
    };
    if (!down) {
        node_phase(false);
        e.reduce_pipelined(lay.leader, trees, lv, nb);
    }
    if (c != CACORE_COLL_REDUCE) {
        // An allreduce's broadcast half runs down the trees its reduce half came up, each
        // segment as soon as the root has it: every pair carries the halves in opposite
        // directions at once.
        e.bcast_pipelined(lay.leader, trees, lv, nb);
        node_phase(true);
    }
    e.finalize();
    std::ostringstream os;
    os << "lanes k=" << trees.size() << " group=" << pattern_name(group_pat)
       << " node=" << pattern_name(node_pat) << " segments=" << nb;
    return b.finish(total_bytes(in), CACORE_ALGO_LANES, os.str());
}

}  // namespace cacore
