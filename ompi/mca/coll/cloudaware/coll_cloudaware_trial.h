/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The live trial (coll_cloudaware_trial.c; docs/calibration.md, "Live trial"): whatever the cost
 * model gets wrong, the first blocking calls of each (communicator, collective, root, size class)
 * find out. They run the cloud-aware plan (also when the model chose the previous module), the
 * previous module and, when the model offered one (coll_cloudaware_trial_spread), the
 * alternative plan and the other default's algorithm run by the executor (the peer: tuned's, or
 * han's when the previous module is tuned), one variant's calls after the other (the core's
 * cacore_trial_variant),
 * each call timed locally from its entry to its exit; after
 * coll_cloudaware_trial_calls calls of each, one MPI_MAX allreduce through the previous module
 * gives every rank the same times and the fastest variant keeps the class (a plan only when
 * faster than the previous module by coll_cloudaware_trial_margin). For long calls, after the
 * first call of each variant from the second on, a small MPI_MAX allreduce agrees on the first
 * calls' times, and a variant losing by far (coll_cloudaware_trial_cut) runs no more calls.
 * For every trial of fewer than CACORE_TRIAL_RANK_TEST_CALLS calls per variant (not short
 * calls), after the coll_cloudaware_trial_calls-th call of a variant and each extra call, another
 * agrees on that variant's calls, and one whose calls are spread beyond the margin runs one more
 * call, up to coll_cloudaware_trial_extra (cacore_trial_settled), so that one slow call (a TCP
 * retransmission timeout, a 64 KiB call that waited) does not decide.
 * Outcomes are kept in the plan cache entry, in the process (a later communicator over the same
 * nodes and ranks, a dup or a split, starts decided) and in the cache directory (the trial book),
 * so the next job over the same nodes starts decided — except after a provisional outcome (short
 * calls, a variant other than the previous module: cacore_trial_provisional), which the next job
 * trials again to confirm.
 *
 * Why every rank agrees: every rank makes the same calls in the same order, so the k-th trial
 * call and the agreement happen at the same call on every rank; the outcome comes from the
 * agreed times (identical bytes, identical arithmetic); a stored outcome is read by rank 0 and
 * broadcast. Nonblocking and persistent calls are never timed: they run the current choice.
 */
#ifndef MCA_COLL_CLOUDAWARE_TRIAL_H
#define MCA_COLL_CLOUDAWARE_TRIAL_H

#include "coll_cloudaware.h"
#include "core/cloudaware_core.h"

BEGIN_C_DECLS

/* The most calls per variant a trial makes (coll_cloudaware_trial_calls is capped to it). */
#define CLOUDAWARE_TRIAL_MAX_CALLS CACORE_TRIAL_MAX_CALLS

typedef enum {
    CLOUDAWARE_TRIAL_NONE = 0,      /* no trial: rules decided, no plan could be built, or off */
    CLOUDAWARE_TRIAL_PENDING = 1,   /* the next eligible blocking call starts it */
    CLOUDAWARE_TRIAL_RUNNING = 2,
    CLOUDAWARE_TRIAL_DONE = 3       /* outcome known (measured or stored) */
} mca_coll_cloudaware_trial_state_t;

/* The trial of one plan cache entry (kept in the entry). */
typedef struct mca_coll_cloudaware_trial_t {
    int state;                   /* mca_coll_cloudaware_trial_state_t */
    cacore_coll_t coll;
    int root;
    int bytes_class;
    int count_class;
    int calls;                   /* trial calls run so far */
    double start;                /* start of the call running now */
    double learn_s;              /* the broadcast of the stored outcome took this long */
    int with;                    /* the variants beyond plan and previous: CACORE_TRIAL_WITH_* */
    int per_variant;             /* call slots per variant: cacore_trial_calls, plus extra */
    int extra;                   /* of those, the last ones run only while the variant's calls
                                    are spread (cacore_trial_extra, cacore_trial_settled) */
    bool cut_checked;            /* variants losing by far are cut (cacore_trial_cut_checked) */
    int cut;                     /* bit i: the i-th variant ran one call (cacore_trial_cut) */
    int extended;                /* bit i: the i-th variant ran extra calls */
    int filled[CACORE_TRIAL_MAX_VARIANTS];   /* the i-th variant's last slots not run, given a
                                                time (cut, settled) */
    double checks_s;             /* the checks' agreements (cut, extra calls) took this long */
    /* local time of each call slot */
    double times[CACORE_TRIAL_MAX_VARIANTS * CLOUDAWARE_TRIAL_MAX_CALLS];
    cacore_trial_t outcome;
    cacore_trial_result_t prior; /* the provisional result an earlier job stored for the class,
                                    which this trial confirms or not (cacore_trial_provisional,
                                    cacore_trial_confirmed); outcome UNKNOWN: none */
    const cacore_plan_t **run;   /* the entry's choice (NULL: the previous module) */
    const cacore_plan_t *plan;   /* the model's best plan (owned by the entry), or NULL */
    const cacore_plan_t *alternative;   /* its second plan (owned by the entry), or NULL */
    const cacore_plan_t *peer;   /* the other default's algorithm (owned by the entry), or NULL */
    bool model_chose_plan;       /* before the trial, *run was the plan (a tie keeps it) */
} mca_coll_cloudaware_trial_t;

/* Sets up the trial of a new entry. run: the entry's choice, which the outcome sets to plan,
 * alternative, peer or NULL; a trial is possible when the cost model made the choice and built a
 * plan. */
void mca_coll_cloudaware_trial_init(mca_coll_cloudaware_trial_t *t, cacore_coll_t coll, int root,
                                    int bytes_class, int count_class, const cacore_plan_t **run,
                                    const cacore_plan_t *plan, const cacore_plan_t *alternative,
                                    const cacore_plan_t *peer, bool possible);

/* Hooks of the blocking entry points, before and after the call. A blocking call made while
 * another runs on the communicator (the previous module's allreduce calling our reduce and
 * bcast, or the trial's own agreement) is never a trial call: it runs the current choice. After
 * a trial call, trial_end() records its time; after the trial's last call it agrees on the times
 * (one allreduce), applies the outcome, reports it at verbose 10 (rank 0) and stores it in the
 * trial book. */
static inline void mca_coll_cloudaware_trial_begin(mca_coll_cloudaware_module_t *m)
{
    m->trial_depth++;
}
/* The out-of-line part of trial_end(), called only with a trial call running (m->trial_now). */
void mca_coll_cloudaware_trial_stop(mca_coll_cloudaware_module_t *m,
                                    struct ompi_communicator_t *comm);
/* Inline for the common case, no trial call running, which every call of the application takes
 * (docs/benchmarks.md, thirty-fourth session). */
static inline void mca_coll_cloudaware_trial_end(mca_coll_cloudaware_module_t *m,
                                                 struct ompi_communicator_t *comm)
{
    if (OPAL_LIKELY(NULL == m->trial_now)) {
        m->trial_depth--;
        return;
    }
    mca_coll_cloudaware_trial_stop(m, comm);
}

/* Hook of mca_coll_cloudaware_select() for a blocking call of the entry: the plan this call
 * runs (NULL: the previous module). During a trial this is the variant of the call, and the
 * call's clock starts (mca_coll_cloudaware_trial_end() stops it); a pending trial first learns
 * a stored outcome (one broadcast). A non-commutative op that the plan cannot serve does not
 * take part, nor does a nested call. */
const cacore_plan_t *mca_coll_cloudaware_trial_pick(mca_coll_cloudaware_module_t *m,
                                                    struct ompi_communicator_t *comm,
                                                    mca_coll_cloudaware_trial_t *t,
                                                    bool commutative);

/* At component close: the outcomes this process's communicators agreed on go. */
void mca_coll_cloudaware_trial_release(void);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_TRIAL_H */
