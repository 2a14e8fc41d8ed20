/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The rules file named by coll_cloudaware_rules_file (docs/rules-format.md), loaded once per
 * process. The parser lives in the model core (core/rules.cpp).
 */
#ifndef MCA_COLL_CLOUDAWARE_RULES_H
#define MCA_COLL_CLOUDAWARE_RULES_H

#include "coll_cloudaware.h"
#include "core/cloudaware_core.h"

BEGIN_C_DECLS

/* true and *rule filled when a rule applies to the call; false without a (usable) rules file or
 * matching rule. */
bool mca_coll_cloudaware_rules_lookup(cacore_coll_t coll, int nodes, size_t bytes,
                                      cacore_rule_t *rule);
/* Digest of the rules this process loaded (0: none); calibration compares it across ranks. */
uint64_t mca_coll_cloudaware_rules_digest(void);
void mca_coll_cloudaware_rules_release(void);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_RULES_H */
