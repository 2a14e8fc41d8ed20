/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Per-call choice between a cloud-aware plan and the previous module, with the plan cache.
 * See coll_cloudaware_select.h for the order of authority and why every rank agrees.
 */
#include "ompi_config.h"

#include <math.h>
#include <stdlib.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"
#include "coll_cloudaware_rules.h"
#include "coll_cloudaware_select.h"
#include "coll_cloudaware_trial.h"

/* A module keeps at most this many plans; the oldest goes first. Applications use few distinct
 * (collective, root, size class) combinations; benchmarks sweeping sizes stay well below it. */
#define CLOUDAWARE_PLANCACHE_SIZE 64

typedef struct {
    bool used;
    cacore_coll_t coll;
    int root;
    int bytes_class;      /* floor(log2(bytes)) */
    int count_class;      /* floor(log2(count)) */
    cacore_plan_t *plan;  /* NULL: the previous module serves this class */
    cacore_plan_t *spare; /* the plan the model did not choose (the live trial tries it) */
    mca_coll_cloudaware_trial_t trial;   /* coll_cloudaware_trial.c */
    uint64_t stamp;
} plancache_entry_t;

struct mca_coll_cloudaware_plancache_t {
    plancache_entry_t entries[CLOUDAWARE_PLANCACHE_SIZE];
    uint64_t clock;
};

static int log2_floor(size_t x)
{
    int l = 0;
    while (x > 1) {
        x >>= 1;
        l++;
    }
    return l;
}

void mca_coll_cloudaware_plancache_free(mca_coll_cloudaware_module_t *m)
{
    if (NULL == m->plancache) {
        return;
    }
    for (int i = 0; i < CLOUDAWARE_PLANCACHE_SIZE; i++) {
        cacore_plan_free(m->plancache->entries[i].plan);
        cacore_plan_free(m->plancache->entries[i].spare);
    }
    free(m->plancache);
    m->plancache = NULL;
}

/* The plan parameters from the MCA parameters, then the matching rule (if any) on top. */
static void plan_params(const mca_coll_cloudaware_call_t *call, const cacore_rule_t *rule,
                        cacore_plan_params_t *p)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;

    cacore_plan_params_default(p);
    p->hier.k = c->k;
    p->hier.t_span = c->t_span;
    p->cost.node_send_slots = p->cost.node_recv_slots = c->model_slots;
    p->algo = c->algorithm;
    for (int l = 0; l < CACORE_PLAN_LEVELS; l++) {
        p->pattern[l] = c->pattern[l];
    }
    /* Small messages are not worth pipelining: one segment. */
    p->segment_bytes = (call->bytes < (size_t) c->large_message) ? call->bytes
                                                                 : (size_t) c->segment_size;
    if (NULL != rule) {
        if (CACORE_ALGO_AUTO != rule->algo) {
            p->algo = rule->algo;
        }
        for (int l = 0; l < CACORE_PLAN_LEVELS; l++) {
            if (CACORE_PAT_AUTO != rule->pattern[l]) {
                p->pattern[l] = rule->pattern[l];
            }
        }
        if (0 != rule->segment_bytes) {
            p->segment_bytes = rule->segment_bytes;
        }
    }
}

static cacore_plan_t *build(mca_coll_cloudaware_module_t *m, const cacore_matrix_t *matrix,
                            const mca_coll_cloudaware_call_t *call, size_t bytes, size_t count,
                            const cacore_plan_params_t *p)
{
    char err[256];
    cacore_plan_t *plan = NULL;
    const mca_coll_cloudaware_nodemap_t *map = m->net->map;

    if (CACORE_OK != cacore_plan_build(matrix, map->nranks, map->rank_node, call->coll,
                                       call->root < 0 ? 0 : call->root, bytes, count, p, &plan,
                                       err, sizeof(err))) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: no plan for %s: %s; using the previous module",
                            cacore_coll_name(call->coll), err);
        return NULL;
    }
    return plan;
}

/* Decides for one size class: the plan, or NULL for the previous module. When the cost model
 * decides (no rule), *by_model is set, and a plan it turned down goes to *spare (live trial). */
static cacore_plan_t *decide(mca_coll_cloudaware_module_t *m, const cacore_matrix_t *matrix,
                             const mca_coll_cloudaware_call_t *call, size_t bytes, size_t count,
                             cacore_plan_t **spare, bool *by_model)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    const char *name = cacore_coll_name(call->coll);
    cacore_rule_t rule;
    bool have_rule = mca_coll_cloudaware_rules_lookup(call->coll, m->net->map->nnodes, bytes,
                                                      &rule);
    cacore_plan_params_t p;
    cacore_plan_t *plan, *baseline;

    if (have_rule && CACORE_RULE_FALLBACK == rule.choice) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: %s of %zu bytes: previous module (rules file line %d)",
                            name, bytes, rule.line);
        return NULL;
    }
    plan_params(call, have_rule ? &rule : NULL, &p);
    plan = build(m, matrix, call, bytes, count, &p);
    if (NULL == plan) {
        return NULL;
    }
    if (have_rule && CACORE_RULE_PLAN == rule.choice) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: %s of %zu bytes: %s (rules file line %d, predicted %.3g s)",
                            name, bytes, cacore_plan_describe(plan), rule.line,
                            cacore_plan_predicted(plan));
        return plan;
    }

    /* The cost model decides: the cloud-aware plan must beat the baseline, what the previous
     * module would do, by min_gain. The baseline is the binomial tree over ranks. (For large
     * gathers tuned and basic receive the blocks one rank after another; the linear gather and
     * scatter the planner may choose post all transfers at once, which is what pays where the
     * root's node has many independent links — coll_cloudaware_model_slots 0.) */
    double ours = cacore_plan_predicted(plan), theirs = -1.0;
    p.algo = CACORE_ALGO_BINOMIAL;
    baseline = build(m, matrix, call, bytes, count, &p);
    if (NULL != baseline) {
        theirs = cacore_plan_predicted(baseline);
        cacore_plan_free(baseline);
    }
    *by_model = true;   /* live trial hook: the model's choice may be tried */
    if (theirs < 0.0) {
        return plan;
    }
    if (!(ours <= theirs * (1.0 - c->min_gain))) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: %s of %zu bytes: previous module (%s predicted "
                            "%.3g s vs baseline %.3g s, below coll_cloudaware_min_gain)",
                            name, bytes, cacore_plan_describe(plan), ours, theirs);
        *spare = plan;   /* live trial hook: kept for the trial */
        return NULL;
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: %s of %zu bytes: %s (predicted %.3g s, baseline %.3g s)",
                        name, bytes, cacore_plan_describe(plan), ours, theirs);
    return plan;
}

const cacore_plan_t *mca_coll_cloudaware_select(mca_coll_cloudaware_module_t *m,
                                                struct ompi_communicator_t *comm,
                                                const mca_coll_cloudaware_call_t *call)
{
    struct mca_coll_cloudaware_plancache_t *pc;
    plancache_entry_t *e, *victim = NULL;
    const cacore_matrix_t *matrix;
    const cacore_plan_t *plan;
    bool by_model = false;
    int bclass, cclass;

    if (!m->plans || 0 == call->bytes || 0 == call->count) {
        return NULL;
    }
    matrix = mca_coll_cloudaware_comm_matrix(m, comm);   /* NULL on every rank or on none */
    if (NULL == matrix) {
        return NULL;
    }
    if (NULL == m->plancache) {
        m->plancache = calloc(1, sizeof(*m->plancache));
        if (NULL == m->plancache) {
            return NULL;
        }
    }
    pc = m->plancache;
    bclass = log2_floor(call->bytes);
    cclass = log2_floor(call->count);
    for (int i = 0; i < CLOUDAWARE_PLANCACHE_SIZE; i++) {
        e = &pc->entries[i];
        if (e->used && e->coll == call->coll && e->root == call->root
            && e->bytes_class == bclass && e->count_class == cclass) {
            e->stamp = ++pc->clock;
            goto found;
        }
        if (NULL == victim || !e->used || (victim->used && e->stamp < victim->stamp)) {
            victim = e;
        }
    }
    /* Built for the class's lower bounds, so no plan cuts a message into more segments than
     * the smallest count of its class has elements. */
    e = victim;
    cacore_plan_free(e->plan);
    cacore_plan_free(e->spare);
    e->spare = NULL;
    e->plan = decide(m, matrix, call, (size_t) 1 << bclass, (size_t) 1 << cclass, &e->spare,
                     &by_model);
    mca_coll_cloudaware_trial_init(&e->trial, call->coll, call->root, bclass, cclass, &e->plan,
                                   &e->spare, by_model);
    e->used = true;
    e->coll = call->coll;
    e->root = call->root;
    e->bytes_class = bclass;
    e->count_class = cclass;
    e->stamp = ++pc->clock;

found:
    plan = e->plan;
    if (call->blocking) {   /* live trial hook: this call may run the other variant, timed */
        plan = mca_coll_cloudaware_trial_pick(m, comm, &e->trial, call->commutative);
    }
    if (NULL != plan && !call->commutative && !cacore_plan_preserves_order(plan)) {
        return NULL;   /* a non-commutative op needs rank order, which this plan does not keep */
    }
    return plan;
}
