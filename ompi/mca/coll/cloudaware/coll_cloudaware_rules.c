/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Loads coll_cloudaware_rules_file once per process. A file with any error is ignored as a
 * whole (one line on world rank 0 names the file, the line and the problem): every rank reads
 * the same file, so every rank ignores it alike and the choice stays the same on all ranks.
 * The core reads only regular files (a FIFO or a device is refused at once) and escapes the
 * input it quotes; so does the one message here that names the file.
 */
#include "ompi_config.h"

#include "coll_cloudaware_rules.h"

static cacore_rules_t *rules = NULL;
static bool rules_loaded = false;

static const cacore_rules_t *rules_get(void)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char err[512], name[512];

    if (rules_loaded) {
        return rules;
    }
    rules_loaded = true;
    if (NULL == c->rules_file || '\0' == c->rules_file[0]) {
        return NULL;
    }
    if (CACORE_OK != cacore_rules_read_file(c->rules_file, &rules, err, sizeof(err))) {
        rules = NULL;
        if (0 == ompi_comm_rank(&ompi_mpi_comm_world.comm)) {
            opal_output(0, "coll:cloudaware: ignoring coll_cloudaware_rules_file: %s; plans are "
                        "chosen by the cost model", err);
        }
        return NULL;
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: loaded rules file %s (%d rules)",
                        cacore_escape(c->rules_file, name, sizeof(name)),
                        cacore_rules_count(rules));
    return rules;
}

bool mca_coll_cloudaware_rules_lookup(cacore_coll_t coll, int nodes, size_t bytes,
                                      cacore_rule_t *rule)
{
    return 1 == cacore_rules_lookup(rules_get(), coll, nodes, bytes, rule);
}

uint64_t mca_coll_cloudaware_rules_digest(void)
{
    return cacore_rules_digest(rules_get());
}

void mca_coll_cloudaware_rules_release(void)
{
    cacore_rules_free(rules);
    rules = NULL;
    rules_loaded = false;
}
