// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// rules.cpp - parser of `cloudaware-rules 2` (and 1) files. Every problem is reported as
// "FILE:LINE: problem" and rejects the whole file: a half-applied rules file would silently
// change which plans run. Parsing is linear in the file size (duplicates through a hash table),
// a lookup is logarithmic in the number of rules (Rules::build_index).
#include "rules.hpp"

#include "cool_plan.hpp"
#include "error.hpp"
#include "names.hpp"
#include "escape.hpp"
#include "file_text.hpp"
#include "line_reader.hpp"
#include "plan.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <unordered_map>

namespace cacore {
namespace {

int parse_coll(const LineReader &rd, std::string_view tok)
{
    if (tok == "*") {
        return -1;
    }
    int c = find_name(coll_name, tok);
    if (c < 0) {
        rd.error("unknown collective " + quote(tok) + " (" + name_list(coll_name, "*") + ")");
    }
    return c;
}

// A non-negative integer with an optional binary suffix: 64K = 65536, 4M, 1G.
size_t parse_size(const LineReader &rd, std::string_view tok, const char *what)
{
    size_t mult = 1;
    std::string_view digits = tok;
    if (!tok.empty()) {
        switch (tok.back()) {
        case 'K': case 'k': mult = size_t(1) << 10; break;
        case 'M': case 'm': mult = size_t(1) << 20; break;
        case 'G': case 'g': mult = size_t(1) << 30; break;
        default: break;
        }
        if (mult != 1) {
            digits.remove_suffix(1);
        }
    }
    unsigned long long v = 0;
    auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || res.ec != std::errc() || res.ptr != digits.data() + digits.size() ||
        v > (~size_t(0)) / mult) {
        rd.error(std::string(what) + " " + quote(tok) +
                 " is not a non-negative integer (optionally with K, M or G)");
    }
    return static_cast<size_t>(v) * mult;
}

// min-nodes: a plain decimal integer 1..kMaxMinNodes (no suffix: nodes are not bytes).
constexpr unsigned long kMaxMinNodes = 1000000;

int parse_min_nodes(const LineReader &rd, std::string_view tok)
{
    unsigned long v = 0;
    auto res = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (tok.empty() || res.ec == std::errc::invalid_argument ||
        res.ptr != tok.data() + tok.size()) {
        rd.error("min-nodes " + quote(tok) + " is not a plain decimal number");
    }
    if (res.ec != std::errc() || v < 1 || v > kMaxMinNodes) {
        rd.error("min-nodes must be between 1 and " + std::to_string(kMaxMinNodes));
    }
    return static_cast<int>(v);
}

int parse_pattern(const LineReader &rd, std::string_view tok)
{
    int p = find_name(pattern_name, tok);
    if (p < 0) {
        rd.error("unknown pattern " + quote(tok) + " (" + name_list(pattern_name) + ")");
    }
    return p;
}

// model | fallback | an algorithm's name (names.cpp)
void parse_choice(const LineReader &rd, std::string_view tok, cacore_rule_t &a)
{
    a.algo = CACORE_ALGO_AUTO;
    if (tok == "model") {
        a.choice = CACORE_RULE_MODEL;
    } else if (tok == "fallback") {
        a.choice = CACORE_RULE_FALLBACK;
    } else if ((a.algo = find_name(algo_name, tok)) >= 0) {
        a.choice = CACORE_RULE_PLAN;
    } else {
        rd.error("unknown choice " + quote(tok) + " (model, fallback, " + name_list(algo_name) +
                 ")");
    }
}

// One key=value option; `seen` has a bit per key (node, group, top, segment) given so far.
void parse_option(const LineReader &rd, std::string_view tok, cacore_rule_t &a, unsigned &seen)
{
    size_t eq = tok.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == tok.size()) {
        rd.error("option " + quote(tok) + " is not key=value");
    }
    std::string_view key = tok.substr(0, eq), value = tok.substr(eq + 1);
    int k = find_name(level_name, key);   // the plan levels, then segment
    if (k < 0 && key == "segment") {
        k = CACORE_PLAN_LEVELS;
    }
    if (k < 0) {
        rd.error("unknown option " + quote(key) + " (" + name_list(level_name, "segment") + ")");
    }
    if (seen & (1u << k)) {
        rd.error("option " + quote(key) + " given twice");
    }
    seen |= 1u << k;
    if (k < CACORE_PLAN_LEVELS) {
        a.pattern[k] = parse_pattern(rd, value);
        return;
    }
    a.segment_bytes = parse_size(rd, value, "segment");
    if (a.segment_bytes == 0) {
        rd.error("segment must be > 0");
    }
}

// The identity of a rule: two rules with the same key are an error.
struct RuleKey {
    int coll;
    int min_nodes;
    size_t min_bytes;
    bool operator==(const RuleKey &o) const
    {
        return coll == o.coll && min_nodes == o.min_nodes && min_bytes == o.min_bytes;
    }
};

struct RuleKeyHash {
    size_t operator()(const RuleKey &k) const
    {
        uint64_t h = static_cast<uint64_t>(k.min_bytes) * 0x9E3779B97F4A7C15ull;
        h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.min_nodes)) << 8) ^
             static_cast<uint64_t>(k.coll + 1);
        h *= 0xBF58476D1CE4E5B9ull;
        return static_cast<size_t>(h ^ (h >> 31));
    }
};

int class_of(int coll) { return coll < 0 ? CACORE_COLL_COUNT : coll; }

}  // namespace

// The rightmost group in [lo, hi) at or before `last` whose smallest min_bytes is <= bytes, or -1.
long Rules::Index::rightmost(size_t node, size_t lo, size_t hi, size_t last, size_t bytes) const
{
    if (lo > last || tree[node] > bytes) {
        return -1;
    }
    if (hi - lo == 1) {
        return static_cast<long>(lo);
    }
    const size_t mid = lo + (hi - lo) / 2;
    const long r = rightmost(2 * node + 1, mid, hi, last, bytes);
    return r >= 0 ? r : rightmost(2 * node, lo, mid, last, bytes);
}

// The rule with the largest min_nodes <= nodes, then the largest min_bytes <= bytes; -1 if none.
int Rules::Index::find(int n, size_t b) const
{
    const size_t admitted = static_cast<size_t>(std::upper_bound(nodes.begin(), nodes.end(), n) -
                                                nodes.begin());
    if (admitted == 0) {
        return -1;
    }
    const long g = rightmost(1, 0, leaves, admitted - 1, b);
    if (g < 0) {
        return -1;
    }
    const auto first = bytes.begin() + static_cast<long>(group_start[static_cast<size_t>(g)]);
    const auto last = bytes.begin() + static_cast<long>(group_start[static_cast<size_t>(g) + 1]);
    return rule[static_cast<size_t>(std::upper_bound(first, last, b) - bytes.begin()) - 1];
}

void Rules::build_index()
{
    std::vector<int> order[CACORE_COLL_COUNT + 1];
    for (size_t i = 0; i < rules.size(); ++i) {
        order[class_of(rules[i].coll)].push_back(static_cast<int>(i));
    }
    for (int c = 0; c <= CACORE_COLL_COUNT; ++c) {
        Index &ix = index_[c];
        ix = Index();
        std::sort(order[c].begin(), order[c].end(), [&](int a, int b) {
            return std::make_pair(rules[a].min_nodes, rules[a].min_bytes) <
                   std::make_pair(rules[b].min_nodes, rules[b].min_bytes);
        });
        for (int i : order[c]) {
            if (ix.nodes.empty() || ix.nodes.back() != rules[i].min_nodes) {
                ix.nodes.push_back(rules[i].min_nodes);
                ix.group_start.push_back(ix.bytes.size());
            }
            ix.bytes.push_back(rules[i].min_bytes);
            ix.rule.push_back(i);
        }
        ix.group_start.push_back(ix.bytes.size());
        ix.leaves = 1;
        while (ix.leaves < ix.nodes.size()) {
            ix.leaves *= 2;
        }
        ix.tree.assign(2 * ix.leaves, std::numeric_limits<size_t>::max());
        for (size_t g = 0; g < ix.nodes.size(); ++g) {
            ix.tree[ix.leaves + g] = ix.bytes[ix.group_start[g]];  // the group's smallest
        }
        for (size_t k = ix.leaves - 1; k >= 1; --k) {
            ix.tree[k] = std::min(ix.tree[2 * k], ix.tree[2 * k + 1]);
        }
    }
}

const Rule *Rules::lookup(cacore_coll_t coll, int nodes, size_t bytes) const
{
    int i = -1;
    if (coll >= 0 && coll < CACORE_COLL_COUNT) {
        i = index_[coll].find(nodes, bytes);
    }
    if (i < 0) {
        i = index_[CACORE_COLL_COUNT].find(nodes, bytes);
    }
    return i < 0 ? nullptr : &rules[static_cast<size_t>(i)];
}

Rules parse_rules(std::string_view text, const std::string &name)
{
    LineReader rd(text, name);
    std::vector<std::string_view> tok;
    Rules out;
    std::unordered_map<RuleKey, int, RuleKeyHash> lines;  // rule -> its line, for duplicates

    if (!rd.next(tok)) {
        rd.eof_error("'cloudaware-rules 2'");
    }
    if (tok.size() != 2 || tok[0] != "cloudaware-rules" || (tok[1] != "1" && tok[1] != "2")) {
        rd.error("expected 'cloudaware-rules 2' (or 1: the format and its version)");
    }
    out.version = tok[1] == "2" ? 2 : 1;
    bool ended = false;
    while (rd.next(tok)) {
        if (out.version == 2 && tok[0] == "end") {
            if (tok.size() != 1) {
                rd.error("nothing may follow 'end' on its line");
            }
            ended = true;
            break;
        }
        if (tok.size() < 4) {
            rd.error("a rule is: collective min-nodes min-bytes choice [options]; got " +
                     std::to_string(tok.size()) + " fields");
        }
        Rule r;
        r.coll = parse_coll(rd, tok[0]);
        r.min_nodes = parse_min_nodes(rd, tok[1]);
        r.min_bytes = parse_size(rd, tok[2], "min-bytes");
        r.action.line = rd.line();
        for (int &p : r.action.pattern) {
            p = CACORE_PAT_AUTO;
        }
        parse_choice(rd, tok[3], r.action);
        if (r.action.choice != CACORE_RULE_PLAN && tok.size() > 4) {
            rd.error(quote(tok[3]) + " takes no options");
        }
        unsigned seen = 0;
        for (size_t i = 4; i < tok.size(); ++i) {
            parse_option(rd, tok[i], r.action, seen);
        }
        auto ins = lines.emplace(RuleKey{r.coll, r.min_nodes, r.min_bytes}, r.action.line);
        if (!ins.second) {
            rd.error("same collective, min-nodes and min-bytes as line " +
                     std::to_string(ins.first->second));
        }
        out.rules.push_back(r);
    }
    if (out.version == 2) {
        // A cut file lacks the 'end' line, or (cut inside it) the newline that closes it.
        if (!ended) {
            rd.eof_error("'end' (a version 2 rules file ends with an 'end' line)");
        }
        if (rd.remaining() != 0) {
            rd.error("content after 'end' (it must be the last line)");
        }
        if (!rd.ends_with_newline()) {
            rd.error("'end' is not followed by a newline (truncated file?)");
        }
    }
    out.build_index();
    return out;
}

Rules read_rules_file(const std::string &path)
{
    const FileText text = read_file_text(path, kMaxRulesFileBytes, "rules");
    return parse_rules(text.view(), path);
}

}  // namespace cacore
