/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Choosing, per call, whether a cloud-aware plan runs and which one (issue: collectives).
 *
 * The policy is the core's cacore_decide() (docs/model.md, "Decision"), which cloudaware-plan
 * calls too: (a) the rules file (coll_cloudaware_rules_file), (b) a live trial's outcome, (c) the
 * cost model, which runs the cloud-aware plan only when it is predicted at least
 * coll_cloudaware_min_gain faster than the algorithm the previous module would run for the call
 * (tuned's fixed rules, basic, han, or a binomial tree for any other component; which one is
 * found from the previous provider's function, or set by coll_cloudaware_previous_model),
 * (d) the previous module. Everything the choice reads is identical on every rank of the
 * communicator (the agreed matrix, the call's byte size, root and op, the component stack), so
 * every rank chooses alike.
 */
#ifndef MCA_COLL_CLOUDAWARE_SELECT_H
#define MCA_COLL_CLOUDAWARE_SELECT_H

#include "coll_cloudaware.h"
#include "core/cloudaware_core.h"

BEGIN_C_DECLS

typedef struct {
    cacore_coll_t coll;
    int root;            /* -1 where the collective has none */
    size_t bytes;        /* per rank: the whole buffer for bcast/reduce/allreduce, one rank's
                            block for gather/scatter/allgather */
    size_t count;        /* elements matching bytes */
    bool commutative;    /* reduce/allreduce: the op; true otherwise */
    bool blocking;       /* blocking form: may be a call of the live trial (trial.h) */
} mca_coll_cloudaware_call_t;

/* The plan to run for this call, or NULL for the previous module. Plans are built once per
 * (collective, root, size class) and cached in the module, with the class's live trial: a
 * blocking call may be one of its timed calls (coll_cloudaware_trial.h), after which the caller
 * calls mca_coll_cloudaware_trial_end(). */
const cacore_plan_t *mca_coll_cloudaware_select(mca_coll_cloudaware_module_t *m,
                                                struct ompi_communicator_t *comm,
                                                const mca_coll_cloudaware_call_t *call);

void mca_coll_cloudaware_plancache_free(mca_coll_cloudaware_module_t *m);

/* At component close: the process's remembered decisions go. */
void mca_coll_cloudaware_select_release(void);

/* After a recalibration (coll_cloudaware_drift.c): every cached class is decided again with the
 * communicator's new matrix (its live trial and drift state start over); said[len] gets one
 * phrase per class, "bcast of 1048576 bytes: NEW (was OLD)". */
void mca_coll_cloudaware_plancache_replan(mca_coll_cloudaware_module_t *m, char *said,
                                          size_t len);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_SELECT_H */
