// rules.hpp - the rules file (docs/rules-format.md): per collective, node count and message
// size, which plan to run or whether to leave the call to the previous module.
#ifndef CACORE_RULES_HPP
#define CACORE_RULES_HPP

#include "cloudaware_core.h"

#include <string>
#include <vector>

namespace cacore {

struct Rule {
    int coll = -1;            // cacore_coll_t, or -1 for '*'
    int min_nodes = 1;
    size_t min_bytes = 0;
    cacore_rule_t action{};
};

struct Rules {
    std::vector<Rule> rules;

    // The most specific rule that applies: an exact collective beats '*', then the larger
    // min_nodes, then the larger min_bytes (the parser rejects full ties). nullptr when none applies.
    const Rule *lookup(cacore_coll_t coll, int nodes, size_t bytes) const;
};

Rules parse_rules(const std::string &text, const std::string &name);
Rules read_rules_file(const std::string &path);

}  // namespace cacore
#endif
