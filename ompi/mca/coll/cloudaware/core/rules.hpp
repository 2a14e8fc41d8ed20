// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// rules.hpp - the rules file (docs/rules-format.md): per collective, node count and message
// size, which plan to run or whether to leave the call to the previous module.
#ifndef CACORE_RULES_HPP
#define CACORE_RULES_HPP

#include "cloudaware_core.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cacore {

// The largest rules file read (64 MiB: some two million rules).
constexpr size_t kMaxRulesFileBytes = size_t(64) << 20;

struct Rule {
    int coll = -1;            // cacore_coll_t, or -1 for '*'
    int min_nodes = 1;
    size_t min_bytes = 0;
    cacore_rule_t action{};
};

struct Rules {
    int version = 1;          // of the file format: 1 (no end marker) or 2
    std::vector<Rule> rules;  // in file order

    // The most specific rule that applies: an exact collective beats '*', then the larger
    // min_nodes, then the larger min_bytes (the parser rejects full ties). nullptr when none
    // applies. O(log rules) through the index build_index() made.
    const Rule *lookup(cacore_coll_t coll, int nodes, size_t bytes) const;
    // Builds the lookup index of `rules` (parse_rules does it); no two rules may share
    // collective, min_nodes and min_bytes.
    void build_index();

private:
    // The rules of one collective (or of '*'), grouped by min_nodes.
    struct Index {
        std::vector<int> nodes;          // distinct min_nodes, ascending
        std::vector<size_t> group_start; // group g is [group_start[g], group_start[g + 1])
        std::vector<size_t> bytes;       // min_bytes, ascending within each group
        std::vector<int> rule;           // index into rules, parallel to bytes
        std::vector<size_t> tree;        // segment tree: smallest min_bytes over groups
        size_t leaves = 0;

        int find(int nodes, size_t bytes) const;
        long rightmost(size_t node, size_t lo, size_t hi, size_t last, size_t bytes) const;
    };
    Index index_[CACORE_COLL_COUNT + 1];  // [CACORE_COLL_COUNT] holds '*'
};

// Parses `text` as the contents of `name`; errors are Error(CACORE_ERR_FORMAT, "NAME:LINE: problem").
Rules parse_rules(std::string_view text, const std::string &name);
Rules read_rules_file(const std::string &path);

}  // namespace cacore
#endif
