// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// bottleneck.hpp - shared bottlenecks (docs/calibration.md, "Shared bottlenecks"): capacities
// that groups of node pairs share, such as a rack uplink, inferred from the calibration's lone
// samples. The tournament measures every pair while the other pairs of its round transfer too,
// so a pair behind a shared link gets its fair share of that link, not the rate it has alone.
// Every node also measures its two slowest peers alone, one after the other (NodeProps::lone_Bps
// and lone2_Bps, with the concurrent rates of the same pairs, shared_Bps and shared2_Bps).
// Grouping the nodes as the performance hierarchy clusters them (its finest groups, not
// rebalanced), a group pair whose samples (each node's faster one) ran clearly faster alone than
// in their rounds (median factor >= kSharedRatio) shares a capacity: the flow model then lets
// each of its pairs run `factor` times its measured rate, capped by the capacity, and makes every
// flow between the two groups share that capacity (cost_model.hpp). A pair that was sampled runs
// at its own lone rate instead: a pair slow on its own path (a bad link) does not speed up by the
// group's factor. A group pair without samples pools those leaving its sending group and entering
// its receiving one, and takes the more of their bounds and its own pairs' round rates times the
// factor (at most the fastest lone sample).
#ifndef CACORE_BOTTLENECK_HPP
#define CACORE_BOTTLENECK_HPP

#include "matrix.hpp"

#include <vector>

namespace cacore {

// A lone sample this much faster than its concurrent rate shows a shared capacity.
constexpr double kSharedRatio = 1.3;
// Lone samples per node (NodeProps: lone_Bps / shared_Bps, lone2_Bps / shared2_Bps).
constexpr int kLoneSamples = 2;

// One lone sample of a node: its pair's peer (-1: no sample, or the pair's rate was measured
// again since), the rate alone and the rate its tournament round measured.
struct LoneSample {
    int peer = -1;
    double lone_Bps = 0, shared_Bps = 0;
};

struct Bottlenecks {
    int ngroups = 0;                    // 0: none inferred
    std::vector<int> group;             // per node
    std::vector<double> factor;         // ngroups^2, row = sending group; 1 = no bottleneck
    std::vector<double> capacity_Bps;   // ngroups^2: shared by every flow g -> h; 0 = none
    // With three groups or more, per group: its way out (in), shared by every flow from it to
    // (into it from) the other groups it has a capacity with, as a rack's uplink carries its
    // traffic to every other rack: known where the two largest of those capacities agree (the
    // largest), else 0 (none). Empty with fewer groups, where the group pair's capacity is that
    // way already.
    std::vector<double> out_Bps, in_Bps;
    // Per node, kLoneSamples each (node k's at k * kLoneSamples).
    std::vector<LoneSample> samples;
    int group_of(int node) const { return group[static_cast<size_t>(node)]; }
    double factor_of(int g, int h) const { return factor[static_cast<size_t>(g) * ngroups + h]; }
    double capacity(int g, int h) const { return capacity_Bps[static_cast<size_t>(g) * ngroups + h]; }
    // Node k's s-th lone sample (s < kLoneSamples).
    const LoneSample &sample(int k, int s) const
    {
        return samples[static_cast<size_t>(k) * kLoneSamples + s];
    }
    double way_out(int g) const { return out_Bps.empty() ? 0.0 : out_Bps[static_cast<size_t>(g)]; }
    double way_in(int h) const { return in_Bps.empty() ? 0.0 : in_Bps[static_cast<size_t>(h)]; }
    // Whether flows from group g to group h share a capacity (never inside a group).
    bool shared(int g, int h) const { return capacity(g, h) > 0; }
    // The rate of node pair a -> b alone: behind a shared capacity its lone sample if it has one,
    // else its measured rate times the factor, at most the capacity; elsewhere its measured rate.
    double lone_rate(const Matrix &m, int a, int b) const;
};

// Empty (ngroups 0) without node properties, samples, groups or a shared capacity.
Bottlenecks infer_bottlenecks(const Matrix &m);

}  // namespace cacore
#endif
