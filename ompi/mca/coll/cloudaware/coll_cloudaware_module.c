/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/cloudaware module life cycle: which communicators it takes (comm_query), what it saves
 * from the components below it (enable), and what it releases (destructor).
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"
#include "coll_cloudaware_exchange.h"
#include "coll_cloudaware_exec.h"
#include "coll_cloudaware_sched.h"
#include "coll_cloudaware_select.h"
#include "coll_cloudaware_store.h"
#include "coll_cloudaware_trace.h"

#include "ompi/constants.h"
#include "ompi/communicator/communicator.h"

static int cloudaware_module_enable(mca_coll_base_module_t *module,
                                    struct ompi_communicator_t *comm);

static void cloudaware_module_construct(mca_coll_cloudaware_module_t *m)
{
    memset(&m->previous, 0, sizeof(m->previous));
    m->num_nodes = 0;
    m->net = NULL;
    m->plancache = NULL;
    m->trial_now = NULL;
    m->trial_depth = 0;
    m->in_previous = 0;
    m->reentered = 0;
    m->drift_now = NULL;
    m->drift_pairs = NULL;
    m->drift_last = 0.0;
    m->drift_why[0] = '\0';
}

static void cloudaware_module_destruct(mca_coll_cloudaware_module_t *m)
{
#define CLOUDAWARE_RELEASE_FORM(slot)                \
    if (NULL != m->previous.slot##_module) {         \
        OBJ_RELEASE(m->previous.slot##_module);      \
        m->previous.slot##_module = NULL;            \
    }
#define CLOUDAWARE_RELEASE(name, id)                 \
    CLOUDAWARE_RELEASE_FORM(name)                    \
    CLOUDAWARE_RELEASE_FORM(i##name)                 \
    CLOUDAWARE_RELEASE_FORM(name##_init)
    CLOUDAWARE_FOREACH_COLL(CLOUDAWARE_RELEASE)
#undef CLOUDAWARE_RELEASE_FORM
#undef CLOUDAWARE_RELEASE
    mca_coll_cloudaware_trace_comm_gone(m);
    mca_coll_cloudaware_plancache_free(m);
    free(m->drift_pairs);   /* a recalibration still pending (drift.c) */
    m->drift_pairs = NULL;
    mca_coll_cloudaware_netview_free(m->net);
    m->net = NULL;
    /* The last calibration's messages are freed here at the latest: MPI_Finalize destroys the
     * communicators while the PML still runs (at component close it may not any more). */
    mca_coll_cloudaware_exchange_reap();
}

OBJ_CLASS_INSTANCE(mca_coll_cloudaware_module_t, mca_coll_base_module_t,
                   cloudaware_module_construct, cloudaware_module_destruct);

int mca_coll_cloudaware_agree_max(mca_coll_cloudaware_module_t *m,
                                  struct ompi_communicator_t *comm, const double *in,
                                  double *out, int n)
{
    const unsigned in_previous = m->in_previous;
    int rc;

    m->trial_depth++;
    m->in_previous |= CLOUDAWARE_PREVIOUS_BIT(CACORE_COLL_ALLREDUCE);
    rc = m->previous.allreduce(in, out, n, MPI_DOUBLE, MPI_MAX, comm,
                               m->previous.allreduce_module);
    m->in_previous = in_previous;
    m->trial_depth--;
    return rc;
}

int mca_coll_cloudaware_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    (void) enable_progress_threads;
    (void) enable_mpi_threads;
    return OMPI_SUCCESS;
}

static mca_coll_base_module_t *decline(struct ompi_communicator_t *comm, const char *why)
{
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                        "coll:cloudaware: declining %s (cid %d, %d ranks): %s", comm->c_name,
                        ompi_comm_get_cid(comm), ompi_comm_size(comm), why);
    return NULL;
}

/* Candidates for every slot, run on the executor with the simple schedules (and, on Open MPI 5
 * with ULFM, agree/iagree: coll_cloudaware_compat.h). enable() keeps only the ones no
 * lower-priority component filled (complete-provider mode). scan/exscan do not exist on
 * intercommunicators (Open MPI does not require them there). */
static void install_simple(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm)
{
    bool inter = OMPI_COMM_IS_INTER(comm);

#define CLOUDAWARE_INSTALL_SIMPLE(name, params, args, intra_only)            \
    if (!(intra_only) || !inter) {                                         \
        m->super.coll_##name = mca_coll_cloudaware_##name##_simple;        \
        m->super.coll_i##name = mca_coll_cloudaware_i##name;               \
        m->super.coll_##name##_init = mca_coll_cloudaware_##name##_init;   \
    }
    CLOUDAWARE_FOREACH_SCHED(CLOUDAWARE_INSTALL_SIMPLE)
#undef CLOUDAWARE_INSTALL_SIMPLE
    m->super.coll_barrier = mca_coll_cloudaware_barrier_simple;
    m->super.coll_ibarrier = mca_coll_cloudaware_ibarrier;
    m->super.coll_barrier_init = mca_coll_cloudaware_barrier_init;
    m->super.coll_reduce_local = mca_coll_cloudaware_reduce_local;
#define CLOUDAWARE_INSTALL_FT(slot, provider) m->super.coll_##slot = provider;
    CLOUDAWARE_FOREACH_FT(CLOUDAWARE_INSTALL_FT)
#undef CLOUDAWARE_INSTALL_FT
}

/* Every test here depends only on values identical on all ranks of comm (the communicator's
 * kind and size, the node set, MCA parameters set the same for the job, the info key
 * ompi_comm_coll_preference, which Open MPI's own selection reads as well), so all ranks decide
 * alike: a module selected on some ranks only would hang the collectives.
 *
 * A module is returned for every communicator unless the component is disabled (priority < 0,
 * which Open MPI itself treats as "not available"). Where cloud-aware plans make no sense
 * (intercommunicator, too few ranks or nodes, a communicator whose creator named the components
 * it wants and not this one: han's sub-communicators, whose collectives han has chosen and times
 * as its own) the module is fill-only: it answers just the collectives no other selected
 * component provides, so `--mca coll cloudaware,basic` works. */
mca_coll_base_module_t *mca_coll_cloudaware_comm_query(struct ompi_communicator_t *comm,
                                                       int *priority)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    mca_coll_cloudaware_module_t *m;
    const char *why = NULL;
    char preference[128], asked[256];
    int num_nodes = 0;

    if (c->priority < 0) {
        return decline(comm, "disabled (coll_cloudaware_priority < 0)");
    }
    if (OMPI_COMM_IS_INTER(comm)) {
        why = "intercommunicator";
    } else if (mca_coll_cloudaware_comm_info(comm, "ompi_comm_coll_preference", preference,
                                             sizeof(preference))
               && !cacore_preference_admits(preference, "cloudaware")) {
        snprintf(asked, sizeof(asked), "its creator asked for other components (info "
                 "ompi_comm_coll_preference \"%s\")", preference);
        why = asked;
    } else if (ompi_comm_size(comm) < c->min_comm_size) {
        why = "fewer ranks than coll_cloudaware_min_comm_size";
    } else {
        num_nodes = mca_coll_cloudaware_count_nodes(comm);
        if (num_nodes < c->min_nodes) {
            why = "spans fewer nodes than coll_cloudaware_min_nodes";
        }
    }
    if (NULL != why) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: declining %s (cid %d, %d ranks): %s; no cloud-aware "
                            "plans, only filling collectives no other component provides",
                            comm->c_name, ompi_comm_get_cid(comm), ompi_comm_size(comm), why);
    }

    m = OBJ_NEW(mca_coll_cloudaware_module_t);
    if (NULL == m) {
        return NULL;
    }
    m->num_nodes = num_nodes;
    m->plans = (NULL == why);
    m->super.coll_module_enable = cloudaware_module_enable;
    install_simple(m, comm);
    if (m->plans) {
#define CLOUDAWARE_INSTALL(name, id)                                                \
    if (c->enable[id]) {                                                            \
        m->super.coll_##name = mca_coll_cloudaware_##name;                          \
        m->super.coll_i##name = mca_coll_cloudaware_planned_i##name;                \
        m->super.coll_##name##_init = mca_coll_cloudaware_planned_##name##_init;    \
    }
        CLOUDAWARE_FOREACH_COLL(CLOUDAWARE_INSTALL)
#undef CLOUDAWARE_INSTALL
        (void) mca_coll_cloudaware_store_matrix_file();   /* report a bad matrix file early, once */
    }
    *priority = c->priority;
    return &m->super;
}

/*
 * Open MPI enables the selected modules from the lowest priority to the highest and copies each
 * module's non-NULL functions into comm->c_coll right after its enable. So what c_coll holds now
 * for a collective is exactly the provider we replace: save it and keep it alive.
 */
static int cloudaware_module_enable(mca_coll_base_module_t *module,
                                    struct ompi_communicator_t *comm)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char taken[512] = "", fills[1024] = "";
    int nfills = 0;

    /* The six cloud-aware collectives, in each form: save the provider we replace and keep it
     * alive. With no provider below us, our simple schedule is the fallback. */
#define CLOUDAWARE_SAVE_FORM(blocking, slot, ours, simple)                                    \
    if ((ours) == m->super.coll_##slot) {                                                     \
        if (NULL == comm->c_coll->coll_##slot || NULL == comm->c_coll->coll_##slot##_module) { \
            m->previous.slot = (simple);                                                      \
            m->previous.slot##_module = NULL;                                                 \
            strncat(fills, " " #slot, sizeof(fills) - strlen(fills) - 1);                     \
            nfills++;                                                                         \
        } else {                                                                              \
            m->previous.slot = comm->c_coll->coll_##slot;                                     \
            m->previous.slot##_module = comm->c_coll->coll_##slot##_module;                   \
            OBJ_RETAIN(m->previous.slot##_module);                                            \
        }                                                                                     \
        if (blocking) {                                                                       \
            strncat(taken, " " #slot, sizeof(taken) - strlen(taken) - 1);                     \
        }                                                                                     \
    }
#define CLOUDAWARE_SAVE(name, id)                                                             \
    CLOUDAWARE_SAVE_FORM(true, name, mca_coll_cloudaware_##name,                              \
                         mca_coll_cloudaware_##name##_simple)                                 \
    CLOUDAWARE_SAVE_FORM(false, i##name, mca_coll_cloudaware_planned_i##name,                 \
                         mca_coll_cloudaware_i##name)                                         \
    CLOUDAWARE_SAVE_FORM(false, name##_init, mca_coll_cloudaware_planned_##name##_init,       \
                         mca_coll_cloudaware_##name##_init)
    CLOUDAWARE_FOREACH_COLL(CLOUDAWARE_SAVE)
#undef CLOUDAWARE_SAVE
#undef CLOUDAWARE_SAVE_FORM

    /* Complete-provider mode: a slot some lower-priority component already fills (libnbc for
     * the nonblocking and persistent ones, basic/tuned for the blocking ones) stays theirs; we
     * clear ours before Open MPI copies the module's pointers into c_coll. */
#define CLOUDAWARE_FILL(slot, ours)                                                           \
    if (NULL != m->super.coll_##slot && (ours) == m->super.coll_##slot) {                     \
        if (NULL != comm->c_coll->coll_##slot) {                                              \
            m->super.coll_##slot = NULL;                                                      \
        } else {                                                                              \
            strncat(fills, " " #slot, sizeof(fills) - strlen(fills) - 1);                     \
            nfills++;                                                                         \
        }                                                                                     \
    }
#define CLOUDAWARE_FILL3(name, params, args, intra_only)                                      \
    CLOUDAWARE_FILL(name, mca_coll_cloudaware_##name##_simple)                                \
    CLOUDAWARE_FILL(i##name, mca_coll_cloudaware_i##name)                                     \
    CLOUDAWARE_FILL(name##_init, mca_coll_cloudaware_##name##_init)
    CLOUDAWARE_FOREACH_SCHED(CLOUDAWARE_FILL3)
    CLOUDAWARE_FILL(barrier, mca_coll_cloudaware_barrier_simple)
    CLOUDAWARE_FILL(ibarrier, mca_coll_cloudaware_ibarrier)
    CLOUDAWARE_FILL(barrier_init, mca_coll_cloudaware_barrier_init)
    CLOUDAWARE_FILL(reduce_local, mca_coll_cloudaware_reduce_local)
    CLOUDAWARE_FOREACH_FT(CLOUDAWARE_FILL)
#undef CLOUDAWARE_FILL3
#undef CLOUDAWARE_FILL

    if (m->plans) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: selected for %s (cid %d, %d ranks, %d nodes); "
                            "overriding (blocking, nonblocking and persistent):%s", comm->c_name,
                            ompi_comm_get_cid(comm),
                            ompi_comm_size(comm), m->num_nodes, taken[0] ? taken : " nothing");
        /* Node map now; with coll_cloudaware_calibrate=eager also the calibration (point-to-point
         * on comm already works here: the PML added it before coll selection). Its outcome is
         * agreed by all ranks and never fails the communicator's creation. Fill-only modules
         * (no plans) never calibrate. */
        (void) mca_coll_cloudaware_calibrate_enable(m, comm);
    }
    /* Higher-priority components enabled after us may still take any of these slots. */
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: %s (cid %d): fills %d slot(s) no lower-priority "
                        "component provides:%s", comm->c_name, ompi_comm_get_cid(comm), nfills,
                        nfills ? fills : " none");
    return OMPI_SUCCESS;
}
