/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The live trial: timing, agreement and the trial book (coll_cloudaware_trial.h says what and why
 * every rank agrees; the policy, which call runs what and who wins, is the core's cacore_trial_*).
 */
#include "ompi_config.h"

#include <math.h>
#include <string.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_cache.h"
#include "coll_cloudaware_calibrate.h"
#include "coll_cloudaware_pvars.h"
#include "coll_cloudaware_trace.h"
#include "coll_cloudaware_trial.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include CLOUDAWARE_MUTEX_HEADER /* opal_mutex_t: its path differs between 4.1 and 5.0 */

/* The outcomes this process's communicators agreed on, per node set and matrix: a communicator
 * over the same nodes and ranks as an earlier one (a dup, a split) starts decided, with or
 * without a cache directory; after a recalibration (another matrix) the trials run again. Every
 * rank keeps what its communicators agreed, and rank 0's copy decides (learn_stored broadcasts
 * it), so a communicator whose rank 0 took part in the earlier trial finds it. */
#define CLOUDAWARE_TRIAL_BOOKS 8
static struct {
    uint64_t nodes, matrix;        /* the node set's key, the matrix's digest */
    cacore_trial_book_t *book;
} books[CLOUDAWARE_TRIAL_BOOKS];
static int books_next;             /* the slot taken next when every slot is in use */
static opal_mutex_t books_lock = OPAL_MUTEX_STATIC_INIT;

/* Calls per variant for a trial of this plan: coll_cloudaware_trial_calls (checked to be
 * 0..CLOUDAWARE_TRIAL_MAX_CALLS when opened), more for short calls (coll_cloudaware_trial_time).
 * The same on every rank: the plan and its prediction are. */
static int calls_per_variant(const cacore_plan_t *plan)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;

    return cacore_trial_calls(c->trial_calls, c->trial_time,
                              NULL != plan ? cacore_plan_predicted(plan) : 0.0);
}

void mca_coll_cloudaware_trial_init(mca_coll_cloudaware_trial_t *t, cacore_coll_t coll, int root,
                                    int bytes_class, int count_class, const cacore_plan_t **run,
                                    const cacore_plan_t *plan, const cacore_plan_t *alternative,
                                    const cacore_plan_t *peer, bool possible)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;

    memset(t, 0, sizeof(*t));
    t->coll = coll;
    t->root = root;
    t->bytes_class = bytes_class;
    t->count_class = count_class;
    t->run = run;
    t->plan = plan;
    t->alternative = NULL != plan ? alternative : NULL;
    t->peer = NULL != plan ? peer : NULL;
    t->with = (NULL != t->alternative ? CACORE_TRIAL_WITH_ALTERNATIVE : 0)
        | (NULL != t->peer ? CACORE_TRIAL_WITH_PEER : 0);
    t->model_chose_plan = NULL != plan && *run == plan;
    t->outcome = CACORE_TRIAL_UNKNOWN;
    t->prior.outcome = CACORE_TRIAL_UNKNOWN;
    t->per_variant = calls_per_variant(plan);
    t->extra = NULL != plan
        ? cacore_trial_extra(c->trial_extra, t->per_variant) : 0;
    t->per_variant += t->extra;
    t->cut_checked = NULL != plan
        && cacore_trial_cut_checked(c->trial_cut, t->per_variant, c->trial_time,
                                    cacore_plan_predicted(plan));
    t->state = (possible && t->per_variant > 0 && NULL != plan)
        ? CLOUDAWARE_TRIAL_PENDING : CLOUDAWARE_TRIAL_NONE;
}

/* The outcome decides the entry's choice (UNKNOWN keeps the model's). */
static void apply(mca_coll_cloudaware_trial_t *t, cacore_trial_t outcome)
{
    t->outcome = outcome;
    t->state = CLOUDAWARE_TRIAL_DONE;
    if (CACORE_TRIAL_PLAN == outcome) {
        *t->run = t->plan;
    } else if (CACORE_TRIAL_ALTERNATIVE == outcome && NULL != t->alternative) {
        *t->run = t->alternative;
    } else if (CACORE_TRIAL_PEER == outcome && NULL != t->peer) {
        *t->run = t->peer;
    } else if (CACORE_TRIAL_PREVIOUS == outcome) {
        *t->run = NULL;
    }
}

/* What a variant runs (NULL: the previous module). */
static const cacore_plan_t *variant_plan(const mca_coll_cloudaware_trial_t *t,
                                         cacore_trial_variant_t v)
{
    return CACORE_TRIAL_RUN_PLAN == v ? t->plan
        : CACORE_TRIAL_RUN_ALTERNATIVE == v ? t->alternative
        : CACORE_TRIAL_RUN_PEER == v ? t->peer : NULL;
}

static const char *outcome_name(cacore_trial_t o)
{
    return CACORE_TRIAL_PLAN == o ? "the plan"
        : CACORE_TRIAL_ALTERNATIVE == o ? "the alternative"
        : CACORE_TRIAL_PEER == o ? "the peer" : "the previous module";
}

/* The outcome that keeps a variant. */
static cacore_trial_t variant_outcome(cacore_trial_variant_t v)
{
    return CACORE_TRIAL_RUN_PLAN == v ? CACORE_TRIAL_PLAN
        : CACORE_TRIAL_RUN_ALTERNATIVE == v ? CACORE_TRIAL_ALTERNATIVE
        : CACORE_TRIAL_RUN_PEER == v ? CACORE_TRIAL_PEER : CACORE_TRIAL_PREVIOUS;
}

/* The plan's description, then " | " and the alternative's and " | peer " and the peer's for
 * those that take part (the book key: an outcome holds only for the same candidates). */
static void candidates(const mca_coll_cloudaware_trial_t *t, char *out, size_t len)
{
    snprintf(out, len, "%s%s%s%s%s", cacore_plan_describe(t->plan),
             NULL != t->alternative ? " | " : "",
             NULL != t->alternative ? cacore_plan_describe(t->alternative) : "",
             NULL != t->peer ? " | peer " : "",
             NULL != t->peer ? cacore_plan_describe(t->peer) : "");
}

/* ", alternative X measured too" and ", peer Y measured too" for those that took part. */
static void others(const mca_coll_cloudaware_trial_t *t, char *out, size_t len)
{
    snprintf(out, len, "%s%s%s%s%s%s", NULL != t->alternative ? ", alternative " : "",
             NULL != t->alternative ? cacore_plan_describe(t->alternative) : "",
             NULL != t->alternative ? " measured too" : "", NULL != t->peer ? ", peer " : "",
             NULL != t->peer ? cacore_plan_describe(t->peer) : "",
             NULL != t->peer ? " measured too" : "");
}

/* desc: the buffer candidates() filled, which the key points to. */
static cacore_trial_key_t book_key(mca_coll_cloudaware_module_t *m,
                                   const mca_coll_cloudaware_trial_t *t, const char *desc)
{
    const mca_coll_cloudaware_nodemap_t *map = m->net->map;
    cacore_trial_key_t k = {
        .layout = cacore_trial_layout_key(map->nranks, map->rank_node),
        .coll = t->coll,
        .root = t->root,
        .bytes_class = t->bytes_class,
        .count_class = t->count_class,
        .plan = desc,
    };
    return k;
}

/* With books_lock held: the slot of this communicator's node set and matrix, or -1. */
static int book_slot(uint64_t nodes, uint64_t matrix)
{
    for (int i = 0; i < CLOUDAWARE_TRIAL_BOOKS; i++) {
        if (NULL != books[i].book && books[i].nodes == nodes && books[i].matrix == matrix) {
            return i;
        }
    }
    return -1;
}

/* The outcome agreed on by an earlier communicator of this process for these candidates, or
 * UNKNOWN. */
static cacore_trial_result_t remembered(mca_coll_cloudaware_module_t *m,
                                        const cacore_trial_key_t *k)
{
    cacore_trial_result_t r = { CACORE_TRIAL_UNKNOWN, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0 };
    const uint64_t matrix = cacore_matrix_digest(m->net->matrix);
    int i;

    OPAL_THREAD_LOCK(&books_lock);
    if ((i = book_slot(m->net->map->key, matrix)) >= 0) {
        r = cacore_trial_book_find(books[i].book, k);
    }
    OPAL_THREAD_UNLOCK(&books_lock);
    return r;
}

/* Every rank: keeps the agreed outcome for the process's later communicators (out of memory:
 * not kept, they run their trials). */
static void remember(mca_coll_cloudaware_module_t *m, const cacore_trial_key_t *k,
                     const cacore_trial_result_t *r)
{
    const uint64_t nodes = m->net->map->key, matrix = cacore_matrix_digest(m->net->matrix);
    char err[256];
    int i;

    OPAL_THREAD_LOCK(&books_lock);
    if ((i = book_slot(nodes, matrix)) < 0) {
        i = books_next;
        books_next = (books_next + 1) % CLOUDAWARE_TRIAL_BOOKS;
        cacore_trial_book_free(books[i].book);
        books[i].book = NULL;
        if (CACORE_OK == cacore_trial_book_create(&books[i].book, err, sizeof(err))) {
            books[i].nodes = nodes;
            books[i].matrix = matrix;
        }
    }
    if (NULL != books[i].book) {
        (void) cacore_trial_book_set(books[i].book, k, r, err, sizeof(err));
    }
    OPAL_THREAD_UNLOCK(&books_lock);
}

void mca_coll_cloudaware_trial_release(void)
{
    OPAL_THREAD_LOCK(&books_lock);
    for (int i = 0; i < CLOUDAWARE_TRIAL_BOOKS; i++) {
        cacore_trial_book_free(books[i].book);
        books[i].book = NULL;
    }
    books_next = 0;
    OPAL_THREAD_UNLOCK(&books_lock);
}

/* Rank 0: the outcome an earlier communicator of this process agreed on (*this_job set), else
 * the trial book's, or UNKNOWN. */
static cacore_trial_result_t stored(mca_coll_cloudaware_module_t *m,
                                    const mca_coll_cloudaware_trial_t *t, bool *this_job)
{
    cacore_trial_result_t r = { CACORE_TRIAL_UNKNOWN, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0 };
    cacore_trial_book_t *book = NULL;
    char why[768], desc[1024];
    cacore_trial_key_t k;

    candidates(t, desc, sizeof(desc));
    k = book_key(m, t, desc);
    r = remembered(m, &k);
    *this_job = CACORE_TRIAL_UNKNOWN != r.outcome;
    if (*this_job) {
        return r;
    }
    if (mca_coll_cloudaware_cache_load_trials(m->net->map->key, &book, why, sizeof(why))) {
        r = cacore_trial_book_find(book, &k);
        cacore_trial_book_free(book);
    } else if ('\0' != why[0]) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: %s", why);
    }
    return r;
}

/* Rank 0: adds the outcome to the node set's trial book (read again first: other
 * communicators and jobs write it too; an unusable book is replaced). */
static void store(mca_coll_cloudaware_module_t *m, const cacore_trial_key_t *k,
                  const cacore_trial_result_t *r)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    cacore_trial_book_t *book = NULL;
    char why[768], err[256];

    if (NULL == c->cache_dir || '\0' == c->cache_dir[0]) {
        return;
    }
    if (!mca_coll_cloudaware_cache_load_trials(m->net->map->key, &book, why, sizeof(why))
        && CACORE_OK != cacore_trial_book_create(&book, err, sizeof(err))) {
        return;
    }
    if (CACORE_OK != cacore_trial_book_set(book, k, r, err, sizeof(err))) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, c->output,
                            "coll:cloudaware: trial outcome not stored: %s", err);
    } else if (!mca_coll_cloudaware_cache_store_trials(m->net->map->key, book, why,
                                                       sizeof(why))) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, c->output, "coll:cloudaware: %s", why);
    }
    cacore_trial_book_free(book);
}

/* true when o is an outcome this trial can apply (its variant takes part). */
static bool applicable(const mca_coll_cloudaware_trial_t *t, int o)
{
    return CACORE_TRIAL_PLAN == o || CACORE_TRIAL_PREVIOUS == o
        || (CACORE_TRIAL_ALTERNATIVE == o && NULL != t->alternative)
        || (CACORE_TRIAL_PEER == o && NULL != t->peer);
}

/* A pending trial: rank 0 looks for a stored outcome and broadcasts it (through the previous
 * module, at the same call on every rank) or, when the trial book's outcome is provisional (an
 * earlier job's, cacore_trial_provisional), that result instead, with its medians, which this
 * job's trial then confirms or not. true when the trial is decided by a stored outcome. */
static bool learn_stored(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm,
                         mca_coll_cloudaware_trial_t *t)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    cacore_trial_result_t r = { CACORE_TRIAL_UNKNOWN, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0 };
    char also[1024];
    unsigned in_previous;
    /* the outcome to apply; a provisional one to confirm, and its plan, previous, alternative
     * and peer medians (small integers and times: exact as doubles) */
    double msg[6] = { CACORE_TRIAL_UNKNOWN, CACORE_TRIAL_UNKNOWN, 0.0, 0.0, 0.0, 0.0 };
    int outcome, rc;
    bool this_job = false;

    if (0 == ompi_comm_rank(comm)) {
        r = stored(m, t, &this_job);
        if (r.provisional && !this_job) {
            msg[1] = (double) r.outcome;
            msg[2] = r.plan_s;
            msg[3] = r.previous_s;
            msg[4] = r.alternative_s;
            msg[5] = r.peer_s;
        } else {
            msg[0] = (double) r.outcome;
        }
    }
    t->learn_s = mca_coll_cloudaware_now();
    m->trial_depth++;   /* calls the previous bcast makes to us are not trial calls */
    in_previous = m->in_previous;
    m->in_previous |= CLOUDAWARE_PREVIOUS_BIT(CACORE_COLL_BCAST);
    rc = m->previous.bcast(msg, 6, MPI_DOUBLE, 0, comm, m->previous.bcast_module);
    m->in_previous = in_previous;
    m->trial_depth--;
    t->learn_s = mca_coll_cloudaware_now() - t->learn_s;
    if (OMPI_SUCCESS != rc) {
        return false;
    }
    if (applicable(t, (int) msg[1]) && CACORE_TRIAL_PREVIOUS != (int) msg[1]) {
        t->prior.outcome = (cacore_trial_t) (int) msg[1];
        t->prior.plan_s = msg[2];
        t->prior.previous_s = msg[3];
        t->prior.alternative_s = msg[4];
        t->prior.peer_s = msg[5];
    }
    if (CACORE_TRIAL_UNKNOWN != t->prior.outcome && 0 == ompi_comm_rank(comm)) {
        others(t, also, sizeof(also));
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: trial of %s of %zu bytes (root %d) on %s: stored "
                            "outcome provisional: %s (%s %.3g s, previous module %.3g s%s; one "
                            "job's trial of short calls, from the trial book); trial again to "
                            "confirm it",
                            cacore_coll_name(t->coll), (size_t) 1 << t->bytes_class, t->root,
                            comm->c_name, outcome_name(t->prior.outcome),
                            cacore_plan_describe(t->plan),
                            r.plan_s, r.previous_s, also);
    }
    outcome = (int) msg[0];
    if (!applicable(t, outcome)) {
        return false;
    }
    apply(t, (cacore_trial_t) outcome);
    mca_coll_cloudaware_pvars_trial(t->outcome, true);
    if (0 == ompi_comm_rank(comm)) {
        others(t, also, sizeof(also));
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: trial of %s of %zu bytes (root %d) on %s: stored "
                            "outcome, no trial: %s (%s %.3g s, previous module %.3g s%s%s; %s)",
                            cacore_coll_name(t->coll), (size_t) 1 << t->bytes_class, t->root,
                            comm->c_name, outcome_name(t->outcome),
                            cacore_plan_describe(t->plan), r.plan_s, r.previous_s, also,
                            r.provisional ? "; provisional, a later job trials again" : "",
                            this_job ? "agreed on an earlier communicator over the same nodes "
                                       "and ranks in this job" : "from the trial book");
    }
    return true;
}

const cacore_plan_t *mca_coll_cloudaware_trial_pick(mca_coll_cloudaware_module_t *m,
                                                    struct ompi_communicator_t *comm,
                                                    mca_coll_cloudaware_trial_t *t,
                                                    bool commutative)
{
    const cacore_plan_t *p;

    if ((CLOUDAWARE_TRIAL_PENDING != t->state && CLOUDAWARE_TRIAL_RUNNING != t->state)
        || 1 != m->trial_depth || NULL != m->trial_now) {
        return *t->run;   /* decided, or a call nested in another: the current choice */
    }
    if (!commutative && (!cacore_plan_preserves_order(t->plan)
                         || (NULL != t->alternative
                             && !cacore_plan_preserves_order(t->alternative))
                         || (NULL != t->peer && !cacore_plan_preserves_order(t->peer)))) {
        return *t->run;   /* a plan cannot serve this op: not a trial call */
    }
    if (CLOUDAWARE_TRIAL_PENDING == t->state) {
        if (learn_stored(m, comm, t)) {
            return *t->run;
        }
        t->state = CLOUDAWARE_TRIAL_RUNNING;
        t->calls = 0;
    }
    /* No barrier of our own: a trial call is timed as the application makes it, from its entry
     * to its exit on each rank, so that the trial measures what the class will cost
     * (docs/calibration.md, "Live trial": a barrier before each call changed which algorithm
     * measured fastest at 1 KiB). */
    m->trial_now = t;
    t->start = mca_coll_cloudaware_now();
    p = variant_plan(t, cacore_trial_variant(t->calls, t->per_variant, t->with));
    return p;
}

/* "[0.0153] 0.0119 0.0121": the times of the calls variant v ran in the trial t (n call slots
 * in all; the slots it did not run, cut or settled, left out), the first in brackets when the
 * judgement leaves it out (more than one call per variant); a cut variant's one call, which the
 * judgement counts, without brackets. */
static void list_times(const mca_coll_cloudaware_trial_t *t, const double *times, int n,
                       cacore_trial_variant_t v, char *out, size_t len)
{
    size_t used = 0;
    int ran = 0;

    out[0] = '\0';
    for (int k = 0; k < n && used < len; k++) {
        const int i = k / t->per_variant;

        if (cacore_trial_variant(k, t->per_variant, t->with) == v
            && ran++ < t->per_variant - t->filled[i]) {
            const bool cut = 0 != (t->cut & (1 << i));
            const char *fmt = 0 != used ? " %.3g" : t->per_variant > 1 && !cut ? "[%.3g]" : "%.3g";
            used += (size_t) snprintf(out + used, len - used, fmt, times[k]);
        }
    }
}

/* "<what>: the previous module, the peer" for the variants of the bit mask, or "". */
static void list_variants(const mca_coll_cloudaware_trial_t *t, int mask, const char *what,
                          char *out, size_t len)
{
    const char *sep = " ";
    size_t used;

    out[0] = '\0';
    if (0 == mask) {
        return;
    }
    used = (size_t) snprintf(out, len, "%s:", what);
    for (int i = 0; i < cacore_trial_variant_count(t->with) && used < len; i++) {
        if (0 != (mask & (1 << i))) {
            used += (size_t) snprintf(out + used, len - used, "%s%s", sep,
                                      outcome_name(variant_outcome(cacore_trial_variant(
                                          i * t->per_variant, t->per_variant, t->with))));
            sep = ", ";
        }
    }
}

/* mca_coll_cloudaware_agree_max, its time added to *elapsed (the trial's cost, stated). */
static int agree_max(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm,
                     const double *in, double *out, int n, double *elapsed)
{
    const double t0 = mca_coll_cloudaware_now();
    const int rc = mca_coll_cloudaware_agree_max(m, comm, in, out, n);

    *elapsed += mca_coll_cloudaware_now() - t0;
    return rc;
}

/* After the first call of the i-th variant (i >= 1) of a trial whose variants may be cut: agrees
 * on the first calls' times so far (max over ranks) and, when the i-th lost by far
 * (cacore_trial_cut), gives its other calls that time and skips them. Every rank agrees: the same
 * call, the same agreed times. */
static void check_cut(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm,
                      mca_coll_cloudaware_trial_t *t, int i)
{
    double first[CACORE_TRIAL_MAX_VARIANTS], agreed[CACORE_TRIAL_MAX_VARIANTS];
    const int n = t->per_variant;
    int rc;

    for (int j = 0; j <= i; j++) {
        first[j] = t->times[j * n];
    }
    rc = agree_max(m, comm, first, agreed, i + 1, &t->checks_s);
    if (OMPI_SUCCESS != rc) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: trial of %s: agreeing on the first calls failed "
                            "(%d); no variant is cut", cacore_coll_name(t->coll), rc);
        t->cut_checked = false;
        return;
    }
    if (cacore_trial_cut(agreed, i + 1, mca_coll_cloudaware_component.trial_cut)) {
        for (int k = i * n; k < (i + 1) * n; k++) {
            t->times[k] = agreed[i];
        }
        t->calls = (i + 1) * n;
        t->cut |= 1 << i;
        t->filled[i] = n - 1;
    }
}

/* After `ran` calls (from coll_cloudaware_trial_calls on, fewer than the slots) of the i-th
 * variant of a trial with extra calls: agrees on its calls after its first (max over ranks) and,
 * when their median is settled (cacore_trial_settled), gives its slots not run that median and
 * skips them; otherwise it runs one more call. Every rank agrees: the same call, the same agreed
 * times. */
static void check_settled(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm,
                          mca_coll_cloudaware_trial_t *t, int i, int ran)
{
    double agreed[CLOUDAWARE_TRIAL_MAX_CALLS], median;
    const int n = t->per_variant;
    int rc;

    rc = agree_max(m, comm, t->times + i * n + 1, agreed, ran - 1, &t->checks_s);
    if (OMPI_SUCCESS != rc) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: trial of %s: agreeing on a variant's calls failed "
                            "(%d); no extra calls", cacore_coll_name(t->coll), rc);
        t->extra = 0;   /* the variants' remaining slots run: nothing is skipped */
        return;
    }
    if (!cacore_trial_settled(agreed, ran - 1, mca_coll_cloudaware_component.trial_margin,
                              &median)) {
        t->extended |= 1 << i;
        return;
    }
    for (int k = i * n + ran; k < (i + 1) * n; k++) {
        t->times[k] = median;
    }
    t->calls = (i + 1) * n;
    t->filled[i] = n - ran;
}

void mca_coll_cloudaware_trial_stop(mca_coll_cloudaware_module_t *m,
                                    struct ompi_communicator_t *comm)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    mca_coll_cloudaware_trial_t *t = m->trial_now;
    /* every call's time, then (short calls) this rank's median of each variant */
    double mine[CACORE_TRIAL_MAX_VARIANTS * (CLOUDAWARE_TRIAL_MAX_CALLS + 1)],
        agreed[CACORE_TRIAL_MAX_VARIANTS * (CLOUDAWARE_TRIAL_MAX_CALLS + 1)], agree_s = 0.0, t_store;
    cacore_trial_result_t r;
    cacore_trial_key_t k;
    char desc[1024], err[256], plan_times[256], prev_times[256], alt_times[256], peer_times[256], alt[1024],
        peer[1024], cut[160], extended[160], what[96], judged[192], standing[256];
    cacore_trial_t won;   /* this trial's own winner (r.outcome: the class's, after confirming) */
    int n, rc, v, nagree, i, ran;
    bool short_calls;

    if (--m->trial_depth > 0) {   /* a call nested in the trial call */
        return;
    }
    n = t->per_variant;
    m->trial_now = NULL;
    t->times[t->calls] = mca_coll_cloudaware_now() - t->start;
    t->calls++;
    v = cacore_trial_variant_count(t->with);
    i = (t->calls - 1) / n;       /* the variant of this call, and its calls so far */
    ran = t->calls - i * n;
    if (t->cut_checked && i > 0 && 1 == ran) {
        check_cut(m, comm, t, i);
    } else if (t->extra > 0 && ran >= n - t->extra && ran < n) {
        check_settled(m, comm, t, i, ran);
    }
    if (!cacore_trial_over(t->calls, n, t->with)) {
        return;
    }
    /* The agreement: the slowest rank's time of every call and, for short calls, the slowest
     * rank's median of each variant, on every rank. */
    short_calls = cacore_trial_short(n);
    nagree = v * n;
    memcpy(mine, t->times, sizeof(double) * (size_t) nagree);
    if (short_calls && CACORE_OK != cacore_trial_rank_medians(t->times, n, t->with,
                                                              mine + nagree, err, sizeof(err))) {
        /* Cannot happen (clock differences); if it did, an infinite median makes every rank's
         * judgement fail alike, and the cost model's choice stays everywhere. */
        for (int i = 0; i < v; i++) {
            mine[nagree + i] = HUGE_VAL;
        }
    }
    nagree += short_calls ? v : 0;
    rc = agree_max(m, comm, mine, agreed, nagree, &agree_s);
    if (OMPI_SUCCESS != rc) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, c->output,
                            "coll:cloudaware: trial of %s: agreeing on the times failed (%d); "
                            "the cost model's choice stays", cacore_coll_name(t->coll), rc);
        apply(t, CACORE_TRIAL_UNKNOWN);
        mca_coll_cloudaware_pvars_trial(CACORE_TRIAL_UNKNOWN, false);
        return;
    }
    if (CACORE_OK != cacore_trial_judge(agreed, n, t->with, c->trial_margin, t->model_chose_plan,
                                        short_calls ? agreed + v * n : NULL, &r, err,
                                        sizeof(err))) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, c->output,
                            "coll:cloudaware: trial of %s: %s; the cost model's choice stays",
                            cacore_coll_name(t->coll), err);
        apply(t, CACORE_TRIAL_UNKNOWN);
        mca_coll_cloudaware_pvars_trial(CACORE_TRIAL_UNKNOWN, false);
        return;
    }
    won = r.outcome;
    if (short_calls && CACORE_TRIAL_UNKNOWN != t->prior.outcome) {
        r.outcome = cacore_trial_confirmed(&t->prior, &r, c->trial_margin);
    }
    r.provisional = cacore_trial_provisional(r.outcome, short_calls, t->prior.outcome);
    apply(t, r.outcome);
    mca_coll_cloudaware_pvars_trial(r.outcome, false);
    candidates(t, desc, sizeof(desc));   /* the book key, which points to desc */
    k = book_key(m, t, desc);
    remember(m, &k, &r);
    if (0 != ompi_comm_rank(comm)) {
        return;
    }
    t_store = mca_coll_cloudaware_now();
    store(m, &k, &r);
    t_store = mca_coll_cloudaware_now() - t_store;
    list_times(t, agreed, v * n, CACORE_TRIAL_RUN_PLAN, plan_times, sizeof(plan_times));
    list_times(t, agreed, v * n, CACORE_TRIAL_RUN_PREVIOUS, prev_times, sizeof(prev_times));
    alt[0] = peer[0] = '\0';
    if (NULL != t->alternative) {
        list_times(t, agreed, v * n, CACORE_TRIAL_RUN_ALTERNATIVE, alt_times, sizeof(alt_times));
        snprintf(alt, sizeof(alt), "; alternative %s: %s s (median %.3g s)",
                 cacore_plan_describe(t->alternative), alt_times, r.alternative_s);
    }
    if (NULL != t->peer) {
        list_times(t, agreed, v * n, CACORE_TRIAL_RUN_PEER, peer_times, sizeof(peer_times));
        snprintf(peer, sizeof(peer), "; peer %s: %s s (median %.3g s)",
                 cacore_plan_describe(t->peer), peer_times, r.peer_s);
    }
    snprintf(what, sizeof(what), "; cut after one call (coll_cloudaware_trial_cut %g)",
             c->trial_cut);
    list_variants(t, t->cut, what, cut, sizeof(cut));
    snprintf(what, sizeof(what), "; calls spread, more calls (coll_cloudaware_trial_extra %d)",
             c->trial_extra);
    list_variants(t, t->extended, what, extended, sizeof(extended));
    judged[0] = standing[0] = '\0';
    if (short_calls) {
        snprintf(judged, sizeof(judged), "; short calls: medians are the slowest rank's of its own "
                 "calls; rank test of the fastest against the previous module: z %.2f, leaving it "
                 "needs 1.645", r.rank_z);
    } else if (r.by_mean) {
        snprintf(judged, sizeof(judged), "; a tie by medians: the least mean of the calls after "
                 "each variant's first, below the previous module's by the margin");
    }
    if (r.provisional) {
        snprintf(standing, sizeof(standing), "; provisional: the next job over these nodes "
                 "trials again to confirm it");
    } else if (CACORE_TRIAL_PREVIOUS == r.outcome && CACORE_TRIAL_UNKNOWN != t->prior.outcome) {
        snprintf(standing, sizeof(standing), "; does not confirm leaving the previous module (an "
                 "earlier job kept %s, provisionally)", outcome_name(t->prior.outcome));
    } else if (CACORE_TRIAL_UNKNOWN != t->prior.outcome) {
        snprintf(standing, sizeof(standing), "; confirms leaving the previous module (an earlier "
                 "job kept %s, provisionally, this one %s; the least sum of both jobs' medians: "
                 "%s%s)", outcome_name(t->prior.outcome), outcome_name(won),
                 outcome_name(r.outcome), CACORE_TRIAL_PREVIOUS == won
                 ? ", below the previous module's by the margin, and in this job within it" : "");
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: trial of %s of %zu bytes (root %d) on %s: %s: %s s "
                        "(median %.3g s); previous module: %s s (median %.3g s)%s%s; outcome: %s "
                        "(coll_cloudaware_trial_margin %g%s%s%s%s; overhead: start %.3g s, "
                        "agreement %.3g s, checks %.3g s, trial book %.3g s)",
                        cacore_coll_name(t->coll), (size_t) 1 << t->bytes_class, t->root,
                        comm->c_name, cacore_plan_describe(t->plan), plan_times, r.plan_s,
                        prev_times, r.previous_s, alt, peer, outcome_name(r.outcome),
                        c->trial_margin, judged, standing, cut, extended,
                        t->learn_s, agree_s, t->checks_s, t_store);
}
