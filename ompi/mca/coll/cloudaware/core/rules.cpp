// rules.cpp - parser of `cloudaware-rules 1` files. Every problem is reported as
// "FILE:LINE: problem" and rejects the whole file: a half-applied rules file would silently
// change which plans run.
#include "rules.hpp"

#include "cool_plan.hpp"
#include "error.hpp"
#include "names.hpp"
#include "line_reader.hpp"
#include "plan.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>

namespace cacore {
namespace {

int parse_coll(const LineReader &rd, std::string_view tok)
{
    if (tok == "*") {
        return -1;
    }
    int c = find_name(coll_name, tok);
    if (c < 0) {
        rd.error("unknown collective '" + std::string(tok) + "' (" +
                 name_list(coll_name, "*") + ")");
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
        rd.error(std::string(what) + " '" + std::string(tok) +
                 "' is not a non-negative integer (optionally with K, M or G)");
    }
    return static_cast<size_t>(v) * mult;
}

int parse_pattern(const LineReader &rd, std::string_view tok)
{
    int p = find_name(pattern_name, tok);
    if (p < 0) {
        rd.error("unknown pattern '" + std::string(tok) + "' (" + name_list(pattern_name) + ")");
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
        rd.error("unknown choice '" + std::string(tok) + "' (model, fallback, " +
                 name_list(algo_name) + ")");
    }
}

void parse_option(const LineReader &rd, std::string_view tok, cacore_rule_t &a)
{
    size_t eq = tok.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == tok.size()) {
        rd.error("option '" + std::string(tok) + "' is not key=value");
    }
    std::string_view key = tok.substr(0, eq), value = tok.substr(eq + 1);
    for (int l = 0; l < CACORE_PLAN_LEVELS; ++l) {
        if (key == level_name(l)) {
            a.pattern[l] = parse_pattern(rd, value);
            return;
        }
    }
    if (key == "segment") {
        a.segment_bytes = parse_size(rd, value, "segment");
        if (a.segment_bytes == 0) {
            rd.error("segment must be > 0");
        }
        return;
    }
    rd.error("unknown option '" + std::string(key) + "' (node, group, top or segment)");
}

}  // namespace

const Rule *Rules::lookup(cacore_coll_t coll, int nodes, size_t bytes) const
{
    const Rule *best = nullptr;
    for (const Rule &r : rules) {
        if ((r.coll != -1 && r.coll != coll) || r.min_nodes > nodes || r.min_bytes > bytes) {
            continue;
        }
        if (best == nullptr ||
            std::make_tuple(r.coll != -1, r.min_nodes, r.min_bytes) >
                std::make_tuple(best->coll != -1, best->min_nodes, best->min_bytes)) {
            best = &r;
        }
    }
    return best;
}

Rules parse_rules(const std::string &text, const std::string &name)
{
    LineReader rd(text, name);
    std::vector<std::string_view> tok;
    Rules out;

    if (!rd.next(tok)) {
        rd.eof_error("'cloudaware-rules 1'");
    }
    if (tok.size() != 2 || tok[0] != "cloudaware-rules" || tok[1] != "1") {
        rd.error("expected 'cloudaware-rules 1' (the format and its version)");
    }
    while (rd.next(tok)) {
        if (tok.size() < 4) {
            rd.error("a rule is: collective min-nodes min-bytes choice [options]; got " +
                     std::to_string(tok.size()) + " fields");
        }
        Rule r;
        r.coll = parse_coll(rd, tok[0]);
        size_t nodes = parse_size(rd, tok[1], "min-nodes");
        if (nodes < 1 || nodes > 1000000) {
            rd.error("min-nodes must be between 1 and 1000000");
        }
        r.min_nodes = static_cast<int>(nodes);
        r.min_bytes = parse_size(rd, tok[2], "min-bytes");
        r.action.line = rd.line();
        for (int &p : r.action.pattern) {
            p = CACORE_PAT_AUTO;
        }
        parse_choice(rd, tok[3], r.action);
        for (size_t i = 4; i < tok.size(); ++i) {
            parse_option(rd, tok[i], r.action);
        }
        if (r.action.choice == CACORE_RULE_FALLBACK && tok.size() > 4) {
            rd.error("'fallback' takes no options");
        }
        for (const Rule &o : out.rules) {
            if (o.coll == r.coll && o.min_nodes == r.min_nodes && o.min_bytes == r.min_bytes) {
                rd.error("same collective, min-nodes and min-bytes as line " +
                         std::to_string(o.action.line));
            }
        }
        out.rules.push_back(r);
    }
    return out;
}

Rules read_rules_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Error(CACORE_ERR_IO, path + ": cannot open: " + std::strerror(errno));
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) {
        throw Error(CACORE_ERR_IO, path + ": read error");
    }
    return parse_rules(ss.str(), path);
}

}  // namespace cacore
