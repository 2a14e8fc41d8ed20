/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Drift detection and recalibration (coll_cloudaware_drift.c; docs/drift.md; CMPI §3). The
 * component times the blocking calls it runs as plans; every coll_cloudaware_recalibrate_calls
 * calls of a plan cache entry the ranks agree on the slowest rank's time of each call (one
 * MPI_MAX allreduce through the previous module, as the live trial does) and the core's policy
 * (cacore_drift_observe) compares them with the entry's baseline. When it asks for a
 * recalibration, the node pairs the plan's messages cross are measured again at the next
 * collective on the communicator, every cached plan is decided again, and rank 0 says so in one
 * line at verbose 1.
 *
 * Why every rank agrees: the timed calls are the same calls on every rank (blocking, not nested,
 * not a trial call, run as a plan: all decided from agreed inputs), so the k-th batch ends at the
 * same call everywhere; the policy reads only the agreed times (including the agreed time since
 * the last recalibration), so its verdict is the same everywhere; the recalibration is the
 * calibration protocol, whose verdict comes from rank 0.
 */
#ifndef MCA_COLL_CLOUDAWARE_DRIFT_H
#define MCA_COLL_CLOUDAWARE_DRIFT_H

#include "coll_cloudaware.h"
#include "core/cloudaware_core.h"

BEGIN_C_DECLS

/* The drift state of one plan cache entry. */
typedef struct mca_coll_cloudaware_drift_t {
    cacore_drift_t policy;
    const cacore_plan_t *plan;   /* the plan timed (its node pairs are measured again) */
    cacore_coll_t coll;
    int root;
    int bytes_class;
    bool watched;                /* detection is on and watches this size class */
    int n;                       /* calls timed in this batch */
    double start;                /* start of the timed call running now */
    double times[CACORE_DRIFT_MAX_CALLS + 1];   /* + the time since the last recalibration */
} mca_coll_cloudaware_drift_t;

/* A fresh state for an entry (no baseline); whether its size class is watched is decided here,
 * once (the parameters do not change after the component opened). */
void mca_coll_cloudaware_drift_init(mca_coll_cloudaware_drift_t *d, cacore_coll_t coll, int root,
                                    int bytes_class);

/* Hook of mca_coll_cloudaware_select(): this blocking call runs `plan` of the entry whose state
 * is d; when the entry is watched and the call is neither nested nor a trial call, its clock
 * starts (mca_coll_cloudaware_drift_end() stops it). */
void mca_coll_cloudaware_drift_start(mca_coll_cloudaware_module_t *m,
                                     mca_coll_cloudaware_drift_t *d, const cacore_plan_t *plan);

/* Hook of the blocking entry points after the call (before mca_coll_cloudaware_trial_end()):
 * records the time of a timed call; at the end of a batch agrees on the times and applies the
 * policy, which may leave a recalibration pending (m->drift_pairs). Inline for the common case,
 * no clock running, which every call of the application takes: with 16 ranks on 2 cores each
 * line a call touches is a cache miss (docs/benchmarks.md, thirty-fourth session); the out-of-line
 * part, drift_stop(), is called only with a clock running (m->drift_now). */
void mca_coll_cloudaware_drift_stop(mca_coll_cloudaware_module_t *m,
                                    struct ompi_communicator_t *comm);
static inline void mca_coll_cloudaware_drift_end(mca_coll_cloudaware_module_t *m,
                                                 struct ompi_communicator_t *comm)
{
    if (OPAL_UNLIKELY(NULL != m->drift_now)) {
        mca_coll_cloudaware_drift_stop(m, comm);
    }
}

/* Hook at the start of mca_coll_cloudaware_select(): with a recalibration pending and outside
 * any other call of ours, measures the pending node pairs again and decides every cached plan
 * again (or, when the measurement fails, keeps everything as it was). true when the plans were
 * rebuilt. */
bool mca_coll_cloudaware_drift_recalibrate(mca_coll_cloudaware_module_t *m,
                                           struct ompi_communicator_t *comm);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_DRIFT_H */
