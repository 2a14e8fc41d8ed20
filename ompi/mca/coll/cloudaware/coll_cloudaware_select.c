/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Per-call choice between a cloud-aware plan and the previous module, with the plan cache.
 * See coll_cloudaware_select.h for the order of authority and why every rank agrees.
 */
#include "ompi_config.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"
#include "coll_cloudaware_drift.h"
#include "coll_cloudaware_rules.h"
#include "coll_cloudaware_select.h"
#include "coll_cloudaware_trace.h"
#include "coll_cloudaware_trial.h"

#include CLOUDAWARE_MUTEX_HEADER /* opal_mutex_t: its path differs between 4.1 and 5.0 */

/* A module keeps at most this many plans; the oldest goes first. Applications use few distinct
 * (collective, root, size class) combinations; benchmarks sweeping sizes stay well below it. */
#define CLOUDAWARE_PLANCACHE_SIZE 64

/* What a call of a decided class reads — the key, the stamp, run and the trial's state (its
 * first member) — sits in one 64-byte line of the entry, and the cache's clock and last hits in
 * one line of their own: with 16 ranks on 2 cores every line a call touches is a cache miss after
 * each context switch (docs/benchmarks.md, thirty-fourth session). */
#define CLOUDAWARE_LINE 64
typedef struct {
    _Alignas(CLOUDAWARE_LINE) bool used;
    bool commutative;     /* the previous module's algorithm and the plan's order depend on it */
    cacore_coll_t coll;
    int root;
    int bytes_class;      /* floor(log2(bytes)) */
    int count_class;      /* floor(log2(count)) */
    uint64_t stamp;
    const cacore_plan_t *run;   /* what serves this class: best, alt, peer or NULL (the
                                   previous module) */
    mca_coll_cloudaware_trial_t trial;   /* coll_cloudaware_trial.c */
    cacore_plan_t *best;        /* the model's best plan (whether it runs or not), or NULL */
    cacore_plan_t *alt;         /* its second plan, which the live trial tries too, or NULL */
    cacore_plan_t *peer;        /* the other default's algorithm, which the live trial tries too,
                                   or NULL */
    mca_coll_cloudaware_drift_t drift;   /* coll_cloudaware_drift.c */
} plancache_entry_t;

struct mca_coll_cloudaware_plancache_t {
    _Alignas(CLOUDAWARE_LINE) uint64_t clock;
    unsigned char last[CACORE_COLL_COUNT];   /* per collective: the entry its last call used */
    plancache_entry_t entries[CLOUDAWARE_PLANCACHE_SIZE];
};
_Static_assert(offsetof(plancache_entry_t, trial) + sizeof(int) <= CLOUDAWARE_LINE,
               "a decided call's fields of an entry fit in one cache line");

/* The process's decisions (cacore_decision_memo_t): a communicator over the same nodes and ranks
 * as an earlier one (a dup, a split) decides its classes without the search. Created on first
 * use; the memo locks itself, the lock here guards its creation. */
static opal_mutex_t memo_lock = OPAL_MUTEX_STATIC_INIT;
static cacore_decision_memo_t *memo = NULL;
static bool memo_tried = false;

static cacore_decision_memo_t *memo_get(void)
{
    char err[256];

    OPAL_THREAD_LOCK(&memo_lock);
    if (!memo_tried) {
        memo_tried = true;
        if (CACORE_OK != cacore_decision_memo_create(&memo, err, sizeof(err))) {
            memo = NULL;   /* out of memory: every class is decided afresh */
        }
    }
    OPAL_THREAD_UNLOCK(&memo_lock);
    return memo;
}

void mca_coll_cloudaware_select_release(void)
{
    OPAL_THREAD_LOCK(&memo_lock);
    cacore_decision_memo_free(memo);
    memo = NULL;
    memo_tried = false;
    OPAL_THREAD_UNLOCK(&memo_lock);
}

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
        cacore_plan_free(m->plancache->entries[i].best);
        cacore_plan_free(m->plancache->entries[i].alt);
        cacore_plan_free(m->plancache->entries[i].peer);
    }
    free(m->plancache);
    m->plancache = NULL;
}

/* The previous provider's function for this collective. */
static void *previous_fn(const mca_coll_cloudaware_module_t *m, cacore_coll_t coll)
{
    switch (coll) {
#define CLOUDAWARE_PREVIOUS_FN(name, id) \
    case id:                             \
        return (void *) m->previous.name;
    CLOUDAWARE_FOREACH_COLL(CLOUDAWARE_PREVIOUS_FN)
#undef CLOUDAWARE_PREVIOUS_FN
    default:
        return NULL;
    }
}

/* Which component the previous provider is, for the model of what it runs
 * (coll_cloudaware_previous_model; docs/model.md, "Decision"): the shared object its function
 * lives in (mca_coll_tuned.so, ...), or the symbol's name where the component is built into
 * libmpi (tuned's ompi_coll_tuned_*, han's mca_coll_han_*; basic installs coll/base's linear
 * algorithms ompi_coll_base_* directly). Anything else — our own schedules, sm, adapt — is
 * modelled as a binomial tree over ranks. */
static int previous_model(const mca_coll_cloudaware_module_t *m, cacore_coll_t coll)
{
    static const struct {
        const char *file, *sym1, *sym2;
        int model;
    } known[] = {
        { "mca_coll_tuned", "ompi_coll_tuned_", NULL, CACORE_PREV_TUNED },
        { "mca_coll_han", "mca_coll_han_", NULL, CACORE_PREV_HAN },
        { "mca_coll_basic", "mca_coll_basic_", "ompi_coll_base_", CACORE_PREV_BASIC },
    };
    void *fn = previous_fn(m, coll);
    Dl_info info;

    if (CLOUDAWARE_PREVIOUS_AUTO != mca_coll_cloudaware_component.previous_model) {
        return mca_coll_cloudaware_component.previous_model;
    }
    if (NULL == fn || 0 == dladdr(fn, &info)) {
        return CACORE_PREV_BINOMIAL;
    }
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        const char *file = NULL != info.dli_fname ? info.dli_fname : "";
        const char *sym = NULL != info.dli_sname ? info.dli_sname : "";
        if (NULL != strstr(file, known[i].file)
            || 0 == strncmp(sym, known[i].sym1, strlen(known[i].sym1))
            || (NULL != known[i].sym2 && 0 == strncmp(sym, known[i].sym2, strlen(known[i].sym2)))) {
            return known[i].model;
        }
    }
    return CACORE_PREV_BINOMIAL;
}

/* Decides for one size class: e->run, the plan or NULL for the previous module, e->best,
 * e->alt and e->peer. The policy is the core's (cacore_decide, shared with cloudaware-plan);
 * this gathers its inputs and logs. true when the cost model decided (no rule): the live trial
 * may then try the best plan, also one the model turned down, the alternative and the peer. */
static bool decide(mca_coll_cloudaware_module_t *m, const cacore_matrix_t *matrix,
                   const mca_coll_cloudaware_call_t *call, size_t bytes, size_t count,
                   plancache_entry_t *e)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    const mca_coll_cloudaware_nodemap_t *map = m->net->map;
    cacore_decide_input_t in;
    cacore_decision_t d;
    cacore_rule_t rule;
    char err[256];
    double t0;

    cacore_decide_input_default(&in);
    in.coll = call->coll;
    in.root = call->root < 0 ? 0 : call->root;
    in.bytes = bytes;
    in.count = count;
    in.commutative = call->commutative;
    if (mca_coll_cloudaware_rules_lookup(call->coll, map->nnodes, bytes, &rule)) {
        in.rule = &rule;
    }
    in.previous = previous_model(m, call->coll);
    in.min_gain = c->min_gain;
    in.large_message = (size_t) c->large_message;
    in.trial_spread = c->trial_spread;
    in.trial_peer = c->trial_peer ? 1 : 0;
    in.params.hier.k = c->k;
    in.params.hier.t_span = c->t_span;
    in.params.cost.node_send_slots = in.params.cost.node_recv_slots = c->model_slots;
    in.params.cost.duplex_above_bytes = c->model_duplex;
    in.params.cost.burst_bytes = c->model_burst;
    in.params.algo = c->algorithm;
    for (int l = 0; l < CACORE_PLAN_LEVELS; l++) {
        in.params.pattern[l] = c->pattern[l];
    }
    in.params.segment_bytes = (size_t) c->segment_size;
    in.params.relay = c->relay ? 1 : 0;
    in.memo = memo_get();
    t0 = mca_coll_cloudaware_now();
    if (CACORE_OK != cacore_decide(matrix, map->nranks, map->rank_node, &in, &d, err,
                                   sizeof(err))) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, c->output,
                            "coll:cloudaware: no decision for %s: %s; using the previous module",
                            cacore_coll_name(call->coll), err);
        return false;
    }
    opal_output_verbose(d.problem ? CLOUDAWARE_VERBOSE_WARN : CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: %s of %zu bytes: %s; decided in %.1f ms%s",
                        cacore_coll_name(call->coll), bytes, d.reason,
                        1e3 * (mca_coll_cloudaware_now() - t0),
                        d.remembered ? " (remembered: an earlier communicator's decision for the "
                                       "same inputs)" : "");
    e->best = NULL != d.plan ? d.plan : d.declined;
    e->alt = d.alternative;
    e->peer = d.peer;
    e->run = d.plan;
    if (NULL != d.alternative) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: %s of %zu bytes: the live trial also tries %s "
                            "(predicted %.3g s%s%s)", cacore_coll_name(call->coll), bytes,
                            cacore_plan_describe(d.alternative), d.alternative_s,
                            d.alternative_note[0] ? "; " : "", d.alternative_note);
    }
    if (NULL != d.peer) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: %s of %zu bytes: the live trial also tries the "
                            "peer, %s run by the executor (predicted %.3g s)",
                            cacore_coll_name(call->coll), bytes, cacore_plan_describe(d.peer),
                            d.peer_s);
    }
    return NULL == in.rule || CACORE_RULE_MODEL == in.rule->choice;
}

/* (Re)decides entry e for its class (e->bytes_class, e->count_class of call) with a fresh live
 * trial and drift watch. Built for the class's lower bounds, so no plan cuts a message into more
 * segments than the smallest count of its class has elements. */
static void entry_decide(mca_coll_cloudaware_module_t *m, const cacore_matrix_t *matrix,
                         const mca_coll_cloudaware_call_t *call, plancache_entry_t *e)
{
    bool by_model;

    cacore_plan_free(e->best);
    cacore_plan_free(e->alt);
    cacore_plan_free(e->peer);
    e->best = e->alt = e->peer = NULL;
    e->run = NULL;
    by_model = decide(m, matrix, call, (size_t) 1 << e->bytes_class,
                      (size_t) 1 << e->count_class, e);
    mca_coll_cloudaware_trial_init(&e->trial, call->coll, call->root, e->bytes_class,
                                   e->count_class, &e->run, e->best, e->alt, e->peer, by_model);
    mca_coll_cloudaware_drift_init(&e->drift, call->coll, call->root, e->bytes_class);
}

static bool entry_is(const plancache_entry_t *e, const mca_coll_cloudaware_call_t *call,
                     int bclass, int cclass)
{
    return e->used && e->coll == call->coll && e->root == call->root && e->bytes_class == bclass
           && e->count_class == cclass && e->commutative == call->commutative;
}

const cacore_plan_t *mca_coll_cloudaware_select(mca_coll_cloudaware_module_t *m,
                                                struct ompi_communicator_t *comm,
                                                const mca_coll_cloudaware_call_t *call)
{
    struct mca_coll_cloudaware_plancache_t *pc;
    plancache_entry_t *e, *victim = NULL;
    const cacore_matrix_t *matrix;
    const cacore_plan_t *plan;
    int bclass, cclass;

    if (!m->plans || 0 == call->bytes || 0 == call->count) {
        return NULL;
    }
    if (NULL != m->drift_pairs) {   /* drift hook: a recalibration is due (drift.c) */
        (void) mca_coll_cloudaware_drift_recalibrate(m, comm);
    }
    matrix = mca_coll_cloudaware_comm_matrix(m, comm);   /* NULL on every rank or on none */
    if (NULL == matrix) {
        return NULL;
    }
    if (NULL == m->plancache) {
        void *pc_mem = NULL;

        if (0 != posix_memalign(&pc_mem, CLOUDAWARE_LINE, sizeof(*m->plancache))) {
            return NULL;
        }
        m->plancache = memset(pc_mem, 0, sizeof(*m->plancache));
    }
    pc = m->plancache;
    bclass = log2_floor(call->bytes);
    cclass = log2_floor(call->count);
    /* the entry of this collective's last call first: an application repeats its calls */
    e = &pc->entries[pc->last[call->coll]];
    if (entry_is(e, call, bclass, cclass)) {
        if (e->stamp != pc->clock) {
            e->stamp = ++pc->clock;
        }
        goto found;
    }
    for (int i = 0; i < CLOUDAWARE_PLANCACHE_SIZE; i++) {
        e = &pc->entries[i];
        if (entry_is(e, call, bclass, cclass)) {
            e->stamp = ++pc->clock;
            pc->last[call->coll] = (unsigned char) i;
            goto found;
        }
        if (NULL == victim || !e->used || (victim->used && e->stamp < victim->stamp)) {
            victim = e;
        }
    }
    e = victim;
    pc->last[call->coll] = (unsigned char) (e - pc->entries);
    e->bytes_class = bclass;
    e->count_class = cclass;
    entry_decide(m, matrix, call, e);
    e->used = true;
    e->coll = call->coll;
    e->root = call->root;
    e->commutative = call->commutative;
    e->stamp = ++pc->clock;

found:
    plan = e->run;
    if (call->blocking) {   /* live trial hook: this call may run the other variant, timed */
        plan = mca_coll_cloudaware_trial_pick(m, comm, &e->trial, call->commutative);
    }
    if (NULL != plan && !call->commutative && !cacore_plan_preserves_order(plan)) {
        return NULL;   /* a non-commutative op needs rank order, which this plan does not keep */
    }
    /* drift hook: a call of the class's decided plan may be timed (never a trial call: the
     * trial's variants differ by design, which is no drift) */
    if (call->blocking && NULL != plan && plan == e->run
        && CLOUDAWARE_TRIAL_RUNNING != e->trial.state) {
        mca_coll_cloudaware_drift_start(m, &e->drift, plan);
    }
    return plan;
}

void mca_coll_cloudaware_plancache_replan(mca_coll_cloudaware_module_t *m, char *said,
                                          size_t len)
{
    const cacore_matrix_t *matrix = m->net->matrix;
    size_t used = 0;

    said[0] = '\0';
    if (NULL == m->plancache) {
        return;
    }
    for (int i = 0; i < CLOUDAWARE_PLANCACHE_SIZE; i++) {
        plancache_entry_t *e = &m->plancache->entries[i];
        mca_coll_cloudaware_call_t call = { .coll = e->coll, .root = e->root,
                                            .commutative = e->commutative };
        char was[160];

        if (!e->used) {
            continue;
        }
        snprintf(was, sizeof(was), "%s",
                 NULL != e->run ? cacore_plan_describe(e->run) : "the previous module");
        entry_decide(m, matrix, &call, e);
        if (used < len) {
            const char *now = NULL != e->run ? cacore_plan_describe(e->run)
                                             : "the previous module";
            bool same = (0 == strcmp(now, was));
            used += (size_t) snprintf(said + used, len - used, "%s%s of %zu bytes: %s%s%s%s",
                                      0 == used ? "" : "; ", cacore_coll_name(e->coll),
                                      (size_t) 1 << e->bytes_class, now,
                                      same ? " (unchanged)" : " (was ", same ? "" : was,
                                      same ? "" : ")");
        }
    }
}
