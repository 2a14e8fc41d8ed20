/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * fuzz_rules.c - fuzz target of the rules parser (docs/rules-format.md): cacore_rules_parse on
 * the input as text, then lookups over every collective and a spread of node counts and sizes.
 *
 * Invariants: a failed parse returns no rules and one line "NAME:LINE: problem"; every rule a
 * lookup returns holds a documented choice, algorithm and patterns and the line it came from;
 * no rule applies to a collective that does not exist.
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "cloudaware_core.h"

static const char kName[] = "fuzz.rules";

static void check_lookups(const cacore_rules_t *r)
{
    static const int nodes[] = {1, 2, 3, 64, 1000, 1000000, 2147483647};
    static const size_t bytes[] = {0, 1, 65536, 1 << 20, (size_t) 1 << 40, (size_t) -1};
    int count = cacore_rules_count(r);

    FUZZ_REQUIRE(count >= 0, "count %d", count);
    /* A C caller may pass any int as the collective: no rule, not even '*', applies to one
     * that does not exist. */
    static const int bad_colls[] = {-1, CACORE_COLL_COUNT, 17, 1 << 30};
    for (size_t i = 0; i < sizeof bad_colls / sizeof bad_colls[0]; i++) {
        cacore_rule_t a;
        FUZZ_REQUIRE(!cacore_rules_lookup(r, (cacore_coll_t) bad_colls[i], 4, 1024, &a),
                     "a rule for collective %d", bad_colls[i]);
    }
    for (int c = 0; c < CACORE_COLL_COUNT; c++) {
        for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
            for (size_t j = 0; j < sizeof bytes / sizeof bytes[0]; j++) {
                cacore_rule_t a;
                if (!cacore_rules_lookup(r, (cacore_coll_t) c, nodes[i], bytes[j], &a)) {
                    continue;
                }
                FUZZ_REQUIRE(count > 0, "a rule from an empty set");
                FUZZ_REQUIRE(a.choice >= CACORE_RULE_MODEL && a.choice <= CACORE_RULE_FALLBACK,
                             "choice %d", a.choice);
                FUZZ_REQUIRE(a.algo >= 0 && a.algo < CACORE_ALGO_COUNT, "algo %d", a.algo);
                for (int l = 0; l < CACORE_PLAN_LEVELS; l++) {
                    FUZZ_REQUIRE(a.pattern[l] >= 0 && a.pattern[l] < CACORE_PAT_COUNT,
                                 "pattern %d", a.pattern[l]);
                }
                FUZZ_REQUIRE(a.line >= 2, "rule from line %d", a.line);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), err[512];
    cacore_rules_t *r = NULL;

    FUZZ_REQUIRE(text != NULL, "out of memory");
    memcpy(text, data, size);
    text[size] = '\0';
    cacore_status_t st = cacore_rules_parse(text, kName, &r, err, sizeof err);
    if (CACORE_OK != st) {
        FUZZ_REQUIRE(NULL == r, "a failed parse returned rules");
        FUZZ_REQUIRE(CACORE_ERR_NOMEM != st, "out of memory on a %zu-byte file", size);
        FUZZ_REQUIRE(CACORE_ERR_FORMAT == st, "status %d: %s", (int) st, err);
        FUZZ_REQUIRE_MESSAGE(err, sizeof err);
        FUZZ_REQUIRE(CACORE_ERR_FORMAT != st || 0 == strncmp(err, kName, sizeof kName - 1),
                     "message does not name the file: %s", err);
    } else {
        check_lookups(r);
        cacore_rules_free(r);
    }
    free(text);
    return 0;
}
