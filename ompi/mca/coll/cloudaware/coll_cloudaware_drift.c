/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Drift detection and recalibration: timing, agreement, recalibration (coll_cloudaware_drift.h
 * says what and why every rank agrees; the policy is the core's cacore_drift_*).
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"
#include "coll_cloudaware_drift.h"
#include "coll_cloudaware_select.h"
#include "coll_cloudaware_trace.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

/* "Never recalibrated": larger than any interval. */
#define CLOUDAWARE_DRIFT_NEVER 1e30

static cacore_drift_params_t params(void)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    cacore_drift_params_t p = { c->recalibrate_threshold, c->recalibrate_calls,
                                c->recalibrate_interval, c->recalibrate_min_bytes };
    return p;
}

/* Drift detection needs a threshold and a way to measure (not calibrate=off). The parameters
 * were checked when the component opened. */
static bool enabled(void)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;

    return c->recalibrate_threshold > 0.0 && CLOUDAWARE_CALIBRATE_OFF != c->calibrate_mode;
}

void mca_coll_cloudaware_drift_init(mca_coll_cloudaware_drift_t *d, cacore_coll_t coll, int root,
                                    int bytes_class)
{
    cacore_drift_params_t p = params();

    memset(d, 0, sizeof(*d));
    cacore_drift_init(&d->policy);
    d->coll = coll;
    d->root = root;
    d->bytes_class = bytes_class;
    d->watched = enabled() && cacore_drift_watches(&p, (size_t) 1 << bytes_class);
}

void mca_coll_cloudaware_drift_start(mca_coll_cloudaware_module_t *m,
                                     mca_coll_cloudaware_drift_t *d, const cacore_plan_t *plan)
{
    if (!d->watched || NULL == plan || 1 != m->trial_depth || NULL != m->trial_now
        || NULL != m->drift_now) {
        return;
    }
    if (d->plan != plan) {   /* the entry runs another plan now (a trial's outcome): start over */
        mca_coll_cloudaware_drift_init(d, d->coll, d->root, d->bytes_class);
        d->plan = plan;
    }
    m->drift_now = d;
    d->start = mca_coll_cloudaware_now();
}

/* A recalibration is due: remember the node pairs of the plan and what to say. */
static void trigger(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm,
                    const mca_coll_cloudaware_drift_t *d)
{
    const mca_coll_cloudaware_nodemap_t *map = m->net->map;
    size_t nn = (size_t) map->nnodes * (size_t) map->nnodes;
    unsigned char *pairs = calloc(nn > 0 ? nn : 1, 1);

    if (NULL == pairs) {   /* skipped on every rank alike only by luck: say so loudly */
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: drift on %s: out of memory for the recalibration",
                            comm->c_name);
        return;
    }
    if (cacore_plan_node_pairs(d->plan, map->nranks, map->rank_node, map->nnodes, pairs) < 1) {
        memset(pairs, 1, nn);   /* a plan inside one node: every pair (cannot happen here) */
        for (int i = 0; i < map->nnodes; i++) {
            pairs[(size_t) i * map->nnodes + i] = 0;
        }
    }
    free(m->drift_pairs);
    m->drift_pairs = pairs;
    snprintf(m->drift_why, sizeof(m->drift_why),
             "%s of %zu bytes (root %d) took %.3g s (median of %d calls, slowest rank) against "
             "a baseline of %.3g s (x%.2f; threshold %g)", cacore_coll_name(d->coll),
             (size_t) 1 << d->bytes_class, d->root, d->policy.last_s,
             mca_coll_cloudaware_component.recalibrate_calls, d->policy.baseline_s,
             d->policy.last_s / d->policy.baseline_s,
             mca_coll_cloudaware_component.recalibrate_threshold);
}

void mca_coll_cloudaware_drift_stop(mca_coll_cloudaware_module_t *m,
                                    struct ompi_communicator_t *comm)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    mca_coll_cloudaware_drift_t *d = m->drift_now;
    cacore_drift_params_t p = params();
    double agreed[CACORE_DRIFT_MAX_CALLS + 1];
    cacore_drift_verdict_t verdict;
    double before;
    char err[256];
    int rc;

    if (1 != m->trial_depth) {
        return;   /* a call nested in the timed one */
    }
    m->drift_now = NULL;
    d->times[d->n++] = mca_coll_cloudaware_now() - d->start;
    if (d->n < p.calls) {
        return;
    }
    /* The agreement: the slowest rank's time of every call, and the longest time since the
     * last recalibration (each rank's own clock), on every rank. */
    d->n = 0;
    d->times[p.calls] = m->drift_last > 0.0 ? mca_coll_cloudaware_now() - m->drift_last
                                            : CLOUDAWARE_DRIFT_NEVER;
    rc = mca_coll_cloudaware_agree_max(m, comm, d->times, agreed, p.calls + 1);
    if (OMPI_SUCCESS != rc) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, c->output,
                            "coll:cloudaware: drift check on %s: agreeing on the times failed "
                            "(%d); this batch is skipped", comm->c_name, rc);
        return;
    }
    before = d->policy.baseline_s;
    if (CACORE_OK != cacore_drift_observe(&d->policy, &p, agreed, agreed[p.calls], &verdict,
                                          err, sizeof(err))) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, c->output,
                            "coll:cloudaware: drift check on %s: %s; this batch is skipped",
                            comm->c_name, err);
        return;
    }
    if (0 == ompi_comm_rank(comm) && CACORE_DRIFT_STEADY != verdict
        && CACORE_DRIFT_WARMUP != verdict) {
        opal_output_verbose(CACORE_DRIFT_BASELINE == verdict || CACORE_DRIFT_REBASELINE == verdict
                                ? CLOUDAWARE_VERBOSE_SELECT : CLOUDAWARE_VERBOSE_CALL,
                            c->output, "coll:cloudaware: drift check of %s of %zu bytes on %s: "
                            "%.3g s (median of %d calls) against %.3g s; %s",
                            cacore_coll_name(d->coll), (size_t) 1 << d->bytes_class,
                            comm->c_name, d->policy.last_s, p.calls,
                            before > 0.0 ? before : d->policy.baseline_s,
                            CACORE_DRIFT_BASELINE == verdict ? "the baseline"
                            : CACORE_DRIFT_REBASELINE == verdict
                                ? "faster for two batches' worth of calls: the new baseline, "
                                  "nothing measured"
                            : CACORE_DRIFT_DRIFTING == verdict ? "drifting"
                            : CACORE_DRIFT_HELD == verdict
                                ? "drifted, but the last recalibration is too recent"
                                : "drifted: recalibrating at the next collective");
    }
    if (CACORE_DRIFT_RECALIBRATE == verdict) {
        trigger(m, comm, d);
    }
}

bool mca_coll_cloudaware_drift_recalibrate(mca_coll_cloudaware_module_t *m,
                                           struct ompi_communicator_t *comm)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    mca_coll_cloudaware_recal_t again;
    double t0, seconds;
    char rebuilt[512];
    bool ok;

    if (NULL == m->drift_pairs || m->trial_depth > 1 || NULL != m->trial_now) {
        return false;
    }
    memset(&again, 0, sizeof(again));
    again.pairs = m->drift_pairs;
    t0 = mca_coll_cloudaware_now();
    m->trial_depth++;   /* nothing the recalibration does is a timed or trial call */
    ok = mca_coll_cloudaware_recalibrate(m, comm, &again);
    m->trial_depth--;
    free(m->drift_pairs);
    m->drift_pairs = NULL;
    rebuilt[0] = '\0';
    if (ok) {
        mca_coll_cloudaware_plancache_replan(m, rebuilt, sizeof(rebuilt));
    }
    m->drift_last = mca_coll_cloudaware_now();
    seconds = m->drift_last - t0;
    if (0 == ompi_comm_rank(comm)) {
        if (ok) {
            opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, c->output,
                                "coll:cloudaware: drift on %s: %s; recalibrated %zu node pairs "
                                "in %.3g s, %zu of %zu directions slower (taken; the others "
                                "keep their values); plans decided again: %s", comm->c_name,
                                m->drift_why, again.measured, seconds, again.slower,
                                2 * again.measured, rebuilt);
        } else {
            opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, c->output,
                                "coll:cloudaware: drift on %s: %s; recalibration failed after "
                                "%.3g s (%s); the plans stay (next try after "
                                "coll_cloudaware_recalibrate_interval %g s)", comm->c_name,
                                m->drift_why, seconds, again.why, c->recalibrate_interval);
        }
    }
    return ok;
}
