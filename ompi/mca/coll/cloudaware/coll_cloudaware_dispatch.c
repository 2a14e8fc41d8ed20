/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The entry points of the six cloud-aware collectives, in their three forms (blocking,
 * nonblocking, persistent). Each describes its call and asks one place,
 * mca_coll_cloudaware_select() (coll_cloudaware_select.c), for a plan; with a plan the executor
 * runs it the way the form asks, otherwise the call goes to the previous provider of that form.
 *
 * The description uses only what MPI requires to agree across ranks: the byte size of the data
 * (type signatures match even where datatypes differ), the root, the op. So every rank gets the
 * same answer and takes the same path.
 */
#include "ompi_config.h"

#include "coll_cloudaware.h"
#include "coll_cloudaware_drift.h"
#include "coll_cloudaware_plan.h"
#include "coll_cloudaware_pvars.h"
#include "coll_cloudaware_sched.h"
#include "coll_cloudaware_select.h"
#include "coll_cloudaware_trace.h"
#include "coll_cloudaware_trial.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

static size_t payload(int count, struct ompi_datatype_t *dtype)
{
    size_t size;

    ompi_datatype_type_size(dtype, &size);
    return size * (size_t) (count > 0 ? count : 0);
}

static mca_coll_cloudaware_call_t describe(cacore_coll_t coll, int root, int count,
                                           struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    mca_coll_cloudaware_call_t call = {
        .coll = coll,
        .root = root,
        .bytes = payload(count, dtype),
        .count = (size_t) (count > 0 ? count : 0),
        .commutative = (NULL == op) || ompi_op_is_commute(op),
    };
    return call;
}

/* The plan for this call, or NULL (the previous module runs it); said at verbose 50. */
static const cacore_plan_t *choose(mca_coll_cloudaware_module_t *m,
                                   struct ompi_communicator_t *comm,
                                   const mca_coll_cloudaware_call_t *call, ca_run_mode_t how)
{
    static const char *const form_prefix[] = { "", "i", "" };
    static const char *const form_suffix[] = { "", "", "_init" };
    mca_coll_cloudaware_call_t c = *call;
    const cacore_plan_t *plan;

    c.blocking = CA_RUN_BLOCKING == how;   /* live trial hook: only blocking calls are timed */
    plan = mca_coll_cloudaware_select(m, comm, &c);
    if (m->trial_depth <= 1) {   /* a call of the application, not one nested in ours */
        mca_coll_cloudaware_pvars_call(call->coll, NULL != plan);
    }

    /* Checked here, not only inside opal_output: every call comes this way, and the arguments
     * alone would cost a call into the core. */
    if (OPAL_UNLIKELY(mca_coll_cloudaware_component.verbose >= CLOUDAWARE_VERBOSE_CALL)) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_CALL, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: %s%s%s of %zu bytes (root %d): %s",
                            form_prefix[how], cacore_coll_name(call->coll), form_suffix[how],
                            call->bytes, call->root,
                            plan ? cacore_plan_describe(plan) : "previous module");
    }
    return plan;
}

/* Gather, scatter and allgather plans move one datatype per rank. Where a rank's two sides
 * differ (sendtype/count vs recvtype/count), the schedule first copies the rank's own block
 * locally and the plan then runs "in place" on the side that travels. Being a step of the
 * schedule, the copy happens at every MPI_Start of a persistent request too. */
typedef struct {
    const void *src;
    int scount;
    struct ompi_datatype_t *sdtype;
    void *dst;
    int dcount;
    struct ompi_datatype_t *ddtype;
} own_copy_t;

static bool same_sides(int scount, struct ompi_datatype_t *sdtype, int rcount,
                       struct ompi_datatype_t *rdtype)
{
    return scount == rcount && sdtype == rdtype;
}

static char *rank_block(const void *buf, int rank, int count, struct ompi_datatype_t *dtype)
{
    ptrdiff_t lb, extent;

    ompi_datatype_get_extent(dtype, &lb, &extent);
    return (char *) buf + (ptrdiff_t) rank * count * extent;
}

/* Runs the plan for the call (after the own-block copy, if any) the way `how` says. */
static int run(mca_coll_cloudaware_module_t *m, const mca_coll_cloudaware_call_t *call,
               const cacore_plan_t *plan, const own_copy_t *copy, const void *sbuf, void *rbuf,
               int count, struct ompi_datatype_t *dtype, struct ompi_op_t *op,
               struct ompi_communicator_t *comm, ca_run_mode_t how, ompi_request_t **request)
{
    int rank = ompi_comm_rank(comm);
    ca_sched_t *s = ca_sched_new(comm);

    if (NULL == s) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (OPAL_UNLIKELY(mca_coll_cloudaware_trace_active)) {
        mca_coll_cloudaware_trace_describe(&s->trace, m, call->coll, how,
                                           call->root, call->bytes, plan);
    }
    if (NULL != copy) {
        ca_sched_copy(s, ca_user(copy->src), (size_t) copy->scount, copy->sdtype,
                      ca_user(copy->dst), (size_t) copy->dcount, copy->ddtype);
        ca_sched_round(s);
    }
    return ca_sched_finish(s,
                           mca_coll_cloudaware_plan_to_sched(
                               s, cacore_plan_coll(plan), cacore_plan_steps(plan, rank),
                               (size_t) cacore_plan_nsteps(plan, rank), cacore_plan_nblocks(plan),
                               cacore_plan_ntmp(plan), sbuf, rbuf, count, dtype, op),
                           how, request);
}


/* Tracing: the previous module ran the call from t0 to now (returns its rc). */
static int previous_traced(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm,
                           const mca_coll_cloudaware_call_t *call, ca_run_mode_t how, double t0,
                           int rc)
{
    mca_coll_cloudaware_trace_previous(m, comm, call->coll, how, call->root, call->bytes, t0,
                                       mca_coll_cloudaware_now());
    return rc;
}

/* The previous provider of one collective in the form `how`, with the collective's bit set in
 * m->in_previous while it runs (timed when tracing: each _any function has the call's
 * description `call`, a `t0` and an `rc`). */
#define RETURN_PREVIOUS(name, how, args)                                                        \
    do {                                                                                        \
        const unsigned in_previous = m->in_previous;                                            \
        m->in_previous |= CLOUDAWARE_PREVIOUS_BIT(call.coll);                                   \
        rc = OPAL_LIKELY(!mca_coll_cloudaware_trace_active)                                     \
                 ? PREVIOUS_CALL(name, how, args)                                               \
                 : (t0 = mca_coll_cloudaware_now(),                                             \
                    previous_traced(m, comm, &call, how, t0, PREVIOUS_CALL(name, how, args)));  \
        m->in_previous = in_previous;                                                           \
        return rc;                                                                              \
    } while (0)
#define PREVIOUS_CALL(name, how, ...)                                                           \
    ((CA_RUN_BLOCKING == (how))                                                                 \
         ? m->previous.name(__VA_ARGS__, comm, m->previous.name##_module)                       \
         : (CA_RUN_NONBLOCKING == (how))                                                        \
               ? m->previous.i##name(__VA_ARGS__, comm, request, m->previous.i##name##_module)  \
               : m->previous.name##_init(__VA_ARGS__, comm, info, request,                      \
                                          m->previous.name##_init_module))

/* Whether this call of collective `coll` comes from inside its own previous provider
 * (CLOUDAWARE_PREVIOUS_BIT); said once per communicator and collective. */
static bool reentered(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm,
                      cacore_coll_t coll)
{
    if (0 == (m->in_previous & CLOUDAWARE_PREVIOUS_BIT(coll))) {
        return false;
    }
    if (0 == (m->reentered & CLOUDAWARE_PREVIOUS_BIT(coll))) {
        m->reentered |= CLOUDAWARE_PREVIOUS_BIT(coll);
        opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: the previous provider of %s on %s (cid %d) called "
                            "cloudaware's %s back; such calls run cloudaware's simple schedule",
                            cacore_coll_name(coll), comm->c_name, ompi_comm_get_cid(comm),
                            cacore_coll_name(coll));
    }
    return true;
}

/* The three entry points of one collective, all through name##_any() unless the call comes
 * from inside the collective's own previous provider (reentered(): the simple schedule of that
 * form, coll_cloudaware_sched.h). A blocking call may be a
 * call of a live trial: trial_begin() and trial_end() bracket it (coll_cloudaware_trial.h); a
 * blocking call run as a plan may be timed for drift detection: drift_end() stops its clock
 * (coll_cloudaware_drift.h). */
#define ENTRY_POINTS(name, id, PARAMS, args)                                                    \
    int mca_coll_cloudaware_##name(PARAMS, struct ompi_communicator_t *comm,                    \
                                   mca_coll_base_module_t *module)                              \
    {                                                                                           \
        mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;              \
        int rc;                                                                                 \
                                                                                                \
        if (OPAL_UNLIKELY(reentered(m, comm, id))) {                                            \
            return mca_coll_cloudaware_##name##_simple(args, comm, module);                     \
        }                                                                                       \
        mca_coll_cloudaware_trial_begin(m);                                                     \
        rc = name##_any(args, comm, CA_RUN_BLOCKING, NULL, NULL, m);                            \
        mca_coll_cloudaware_drift_end(m, comm);                                                 \
        mca_coll_cloudaware_trial_end(m, comm);                                                 \
        return rc;                                                                              \
    }                                                                                           \
    int mca_coll_cloudaware_planned_i##name(PARAMS, struct ompi_communicator_t *comm,           \
                                            ompi_request_t **request,                           \
                                            mca_coll_base_module_t *module)                     \
    {                                                                                           \
        if (OPAL_UNLIKELY(reentered((mca_coll_cloudaware_module_t *) module, comm, id))) {      \
            return mca_coll_cloudaware_i##name(args, comm, request, module);                    \
        }                                                                                       \
        return name##_any(args, comm, CA_RUN_NONBLOCKING, NULL, request,                        \
                          (mca_coll_cloudaware_module_t *) module);                             \
    }                                                                                           \
    int mca_coll_cloudaware_planned_##name##_init(PARAMS, struct ompi_communicator_t *comm,     \
                                                  struct ompi_info_t *info,                     \
                                                  ompi_request_t **request,                     \
                                                  mca_coll_base_module_t *module)               \
    {                                                                                           \
        if (OPAL_UNLIKELY(reentered((mca_coll_cloudaware_module_t *) module, comm, id))) {      \
            return mca_coll_cloudaware_##name##_init(args, comm, info, request, module);        \
        }                                                                                       \
        return name##_any(args, comm, CA_RUN_PERSISTENT, info, request,                         \
                          (mca_coll_cloudaware_module_t *) module);                             \
    }

#define ANY_ARGS                                                                                \
    struct ompi_communicator_t *comm, ca_run_mode_t how, struct ompi_info_t *info,             \
        ompi_request_t **request, mca_coll_cloudaware_module_t *m

#define BCAST_ARGS buff, count, datatype, root
static int bcast_any(CLOUDAWARE_PARAMS_BCAST, ANY_ARGS)
{
    mca_coll_cloudaware_call_t call = describe(CACORE_COLL_BCAST, root, count, datatype, NULL);
    const cacore_plan_t *plan = choose(m, comm, &call, how);
    double t0;
    int rc;

    if (NULL != plan) {
        return run(m, &call, plan, NULL, NULL, buff, count, datatype, NULL, comm, how, request);
    }
    RETURN_PREVIOUS(bcast, how, BCAST_ARGS);
}
ENTRY_POINTS(bcast, CACORE_COLL_BCAST, CLOUDAWARE_PARAMS_BCAST, BCAST_ARGS)

#define REDUCE_ARGS sbuf, rbuf, count, dtype, op, root
static int reduce_any(CLOUDAWARE_PARAMS_REDUCE, ANY_ARGS)
{
    mca_coll_cloudaware_call_t call = describe(CACORE_COLL_REDUCE, root, count, dtype, op);
    const cacore_plan_t *plan = choose(m, comm, &call, how);
    double t0;
    int rc;

    if (NULL != plan) {
        return run(m, &call, plan, NULL, sbuf, rbuf, count, dtype, op, comm, how, request);
    }
    RETURN_PREVIOUS(reduce, how, REDUCE_ARGS);
}
ENTRY_POINTS(reduce, CACORE_COLL_REDUCE, CLOUDAWARE_PARAMS_REDUCE, REDUCE_ARGS)

#define ALLREDUCE_ARGS sbuf, rbuf, count, dtype, op
static int allreduce_any(CLOUDAWARE_PARAMS_ALLREDUCE, ANY_ARGS)
{
    mca_coll_cloudaware_call_t call = describe(CACORE_COLL_ALLREDUCE, -1, count, dtype, op);
    const cacore_plan_t *plan = choose(m, comm, &call, how);
    double t0;
    int rc;

    if (NULL != plan) {
        return run(m, &call, plan, NULL, sbuf, rbuf, count, dtype, op, comm, how, request);
    }
    RETURN_PREVIOUS(allreduce, how, ALLREDUCE_ARGS);
}
ENTRY_POINTS(allreduce, CACORE_COLL_ALLREDUCE, CLOUDAWARE_PARAMS_ALLREDUCE, ALLREDUCE_ARGS)

/* The root describes a gather by its receive side, the others by their send side: equal in
 * bytes by MPI's type-matching rules. */
#define GATHER_ARGS sbuf, scount, sdtype, rbuf, rcount, rdtype, root
static int gather_any(CLOUDAWARE_PARAMS_GATHER, ANY_ARGS)
{
    int rank = ompi_comm_rank(comm);
    bool is_root = (rank == root);
    own_copy_t copy = { sbuf, scount, sdtype, rank_block(rbuf, rank, rcount, rdtype), rcount,
                        rdtype };
    mca_coll_cloudaware_call_t call = is_root
        ? describe(CACORE_COLL_GATHER, root, rcount, rdtype, NULL)
        : describe(CACORE_COLL_GATHER, root, scount, sdtype, NULL);
    const cacore_plan_t *plan = choose(m, comm, &call, how);
    double t0;
    int rc;

    if (NULL == plan) {
        RETURN_PREVIOUS(gather, how, GATHER_ARGS);
    }
    if (!is_root) {
        return run(m, &call, plan, NULL, sbuf, NULL, scount, sdtype, NULL, comm, how, request);
    }
    if (MPI_IN_PLACE != sbuf && !same_sides(scount, sdtype, rcount, rdtype)) {
        return run(m, &call, plan, &copy, MPI_IN_PLACE, rbuf, rcount, rdtype, NULL, comm, how,
                   request);
    }
    return run(m, &call, plan, NULL, sbuf, rbuf, rcount, rdtype, NULL, comm, how, request);
}
ENTRY_POINTS(gather, CACORE_COLL_GATHER, CLOUDAWARE_PARAMS_GATHER, GATHER_ARGS)

#define SCATTER_ARGS sbuf, scount, sdtype, rbuf, rcount, rdtype, root
static int scatter_any(CLOUDAWARE_PARAMS_SCATTER, ANY_ARGS)
{
    int rank = ompi_comm_rank(comm);
    bool is_root = (rank == root);
    own_copy_t copy = { rank_block(sbuf, rank, scount, sdtype), scount, sdtype, rbuf, rcount,
                        rdtype };
    mca_coll_cloudaware_call_t call = is_root
        ? describe(CACORE_COLL_SCATTER, root, scount, sdtype, NULL)
        : describe(CACORE_COLL_SCATTER, root, rcount, rdtype, NULL);
    const cacore_plan_t *plan = choose(m, comm, &call, how);
    double t0;
    int rc;

    if (NULL == plan) {
        RETURN_PREVIOUS(scatter, how, SCATTER_ARGS);
    }
    if (!is_root) {
        return run(m, &call, plan, NULL, NULL, rbuf, rcount, rdtype, NULL, comm, how, request);
    }
    if (MPI_IN_PLACE != rbuf && !same_sides(scount, sdtype, rcount, rdtype)) {
        return run(m, &call, plan, &copy, sbuf, MPI_IN_PLACE, scount, sdtype, NULL, comm, how,
                   request);
    }
    return run(m, &call, plan, NULL, sbuf, rbuf, scount, sdtype, NULL, comm, how, request);
}
ENTRY_POINTS(scatter, CACORE_COLL_SCATTER, CLOUDAWARE_PARAMS_SCATTER, SCATTER_ARGS)

#define ALLGATHER_ARGS sbuf, scount, sdtype, rbuf, rcount, rdtype
static int allgather_any(CLOUDAWARE_PARAMS_ALLGATHER, ANY_ARGS)
{
    mca_coll_cloudaware_call_t call = describe(CACORE_COLL_ALLGATHER, -1, rcount, rdtype, NULL);
    const cacore_plan_t *plan = choose(m, comm, &call, how);
    double t0;
    int rc;
    own_copy_t copy = { sbuf, scount, sdtype, rank_block(rbuf, ompi_comm_rank(comm), rcount, rdtype),
                        rcount, rdtype };

    if (NULL == plan) {
        RETURN_PREVIOUS(allgather, how, ALLGATHER_ARGS);
    }
    if (MPI_IN_PLACE != sbuf && !same_sides(scount, sdtype, rcount, rdtype)) {
        return run(m, &call, plan, &copy, MPI_IN_PLACE, rbuf, rcount, rdtype, NULL, comm, how,
                   request);
    }
    return run(m, &call, plan, NULL, sbuf, rbuf, rcount, rdtype, NULL, comm, how, request);
}
ENTRY_POINTS(allgather, CACORE_COLL_ALLGATHER, CLOUDAWARE_PARAMS_ALLGATHER, ALLGATHER_ARGS)
