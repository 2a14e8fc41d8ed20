/*
 * The overridden collectives' entry points. Each one describes its call and asks one place,
 * mca_coll_cloudaware_select() (coll_cloudaware_select.c), for a plan; with a plan the executor
 * runs it, otherwise the call goes to the saved previous module, unchanged.
 *
 * The description uses only what MPI requires to agree across ranks: the byte size of the data
 * (type signatures match even where datatypes differ), the root, the op. So every rank gets the
 * same answer and takes the same path.
 */
#include "ompi_config.h"

#include "coll_cloudaware.h"
#include "coll_cloudaware_plan.h"
#include "coll_cloudaware_select.h"

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

/* The plan for this call, or NULL; counts calls and fallbacks for the verbose summary. */
static const cacore_plan_t *choose(mca_coll_cloudaware_module_t *m,
                                   struct ompi_communicator_t *comm,
                                   const mca_coll_cloudaware_call_t *call)
{
    const cacore_plan_t *plan = mca_coll_cloudaware_select(m, comm, call);

    m->calls[call->coll]++;
    if (NULL == plan) {
        m->fallbacks[call->coll]++;
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_CALL, mca_coll_cloudaware_component.output,
                        "coll:cloudaware: %s of %zu bytes (root %d): %s",
                        mca_coll_cloudaware_coll_names[call->coll], call->bytes, call->root,
                        plan ? cacore_plan_describe(plan) : "previous module");
    return plan;
}

static int run(const cacore_plan_t *plan, const void *sbuf, void *rbuf, int count,
               struct ompi_datatype_t *dtype, struct ompi_op_t *op,
               struct ompi_communicator_t *comm)
{
    int rank = ompi_comm_rank(comm);

    return mca_coll_cloudaware_run_plan(cacore_plan_coll(plan), cacore_plan_steps(plan, rank),
                                        (size_t) cacore_plan_nsteps(plan, rank),
                                        cacore_plan_nblocks(plan), cacore_plan_ntmp(plan), sbuf,
                                        rbuf, count, dtype, op, comm, NULL);
}

/* Gather, scatter and allgather plans move one datatype per rank. Where a rank's two sides
 * differ (sendtype/count vs recvtype/count), its own block is copied locally and the plan runs
 * "in place" on the side that travels. */
static bool same_sides(int scount, struct ompi_datatype_t *sdtype, int rcount,
                       struct ompi_datatype_t *rdtype)
{
    return scount == rcount && sdtype == rdtype;
}

static char *rank_block(void *buf, int rank, int count, struct ompi_datatype_t *dtype)
{
    ptrdiff_t lb, extent;

    ompi_datatype_get_extent(dtype, &lb, &extent);
    return (char *) buf + (ptrdiff_t) rank * count * extent;
}

int mca_coll_cloudaware_bcast(void *buff, int count, struct ompi_datatype_t *datatype, int root,
                              struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    mca_coll_cloudaware_call_t call = describe(CACORE_COLL_BCAST, root, count, datatype, NULL);
    const cacore_plan_t *plan = choose(m, comm, &call);

    if (NULL != plan) {
        return run(plan, NULL, buff, count, datatype, NULL, comm);
    }
    return m->previous.bcast(buff, count, datatype, root, comm, m->previous.bcast_module);
}

int mca_coll_cloudaware_reduce(const void *sbuf, void *rbuf, int count,
                               struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                               struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    mca_coll_cloudaware_call_t call = describe(CACORE_COLL_REDUCE, root, count, dtype, op);
    const cacore_plan_t *plan = choose(m, comm, &call);

    if (NULL != plan) {
        return run(plan, sbuf, rbuf, count, dtype, op, comm);
    }
    return m->previous.reduce(sbuf, rbuf, count, dtype, op, root, comm,
                              m->previous.reduce_module);
}

int mca_coll_cloudaware_allreduce(const void *sbuf, void *rbuf, int count,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm,
                                  mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    mca_coll_cloudaware_call_t call = describe(CACORE_COLL_ALLREDUCE, -1, count, dtype, op);
    const cacore_plan_t *plan = choose(m, comm, &call);

    if (NULL != plan) {
        return run(plan, sbuf, rbuf, count, dtype, op, comm);
    }
    return m->previous.allreduce(sbuf, rbuf, count, dtype, op, comm,
                                 m->previous.allreduce_module);
}

/* The root describes the call by its receive side, the others by their send side: equal in
 * bytes by MPI's type-matching rules. */
int mca_coll_cloudaware_gather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                               void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
                               struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    int rank = ompi_comm_rank(comm), rc;
    bool is_root = (rank == root);
    mca_coll_cloudaware_call_t call = is_root ? describe(CACORE_COLL_GATHER, root, rcount, rdtype, NULL)
                                              : describe(CACORE_COLL_GATHER, root, scount, sdtype, NULL);
    const cacore_plan_t *plan = choose(m, comm, &call);

    if (NULL == plan) {
        return m->previous.gather(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
                                  m->previous.gather_module);
    }
    if (!is_root) {
        return run(plan, sbuf, NULL, scount, sdtype, NULL, comm);
    }
    if (MPI_IN_PLACE != sbuf && !same_sides(scount, sdtype, rcount, rdtype)) {
        rc = ompi_datatype_sndrcv(sbuf, scount, sdtype, rank_block(rbuf, rank, rcount, rdtype),
                                  rcount, rdtype);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        sbuf = MPI_IN_PLACE;
    }
    return run(plan, sbuf, rbuf, rcount, rdtype, NULL, comm);
}

int mca_coll_cloudaware_scatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
                                struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    int rank = ompi_comm_rank(comm), rc;
    bool is_root = (rank == root);
    mca_coll_cloudaware_call_t call = is_root ? describe(CACORE_COLL_SCATTER, root, scount, sdtype, NULL)
                                              : describe(CACORE_COLL_SCATTER, root, rcount, rdtype, NULL);
    const cacore_plan_t *plan = choose(m, comm, &call);

    if (NULL == plan) {
        return m->previous.scatter(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
                                   m->previous.scatter_module);
    }
    if (!is_root) {
        return run(plan, NULL, rbuf, rcount, rdtype, NULL, comm);
    }
    if (MPI_IN_PLACE == rbuf || same_sides(scount, sdtype, rcount, rdtype)) {
        return run(plan, sbuf, rbuf, scount, sdtype, NULL, comm);
    }
    rc = run(plan, sbuf, MPI_IN_PLACE, scount, sdtype, NULL, comm);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return ompi_datatype_sndrcv(rank_block((void *) sbuf, rank, scount, sdtype), scount, sdtype,
                                rbuf, rcount, rdtype);
}

int mca_coll_cloudaware_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                  void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                  struct ompi_communicator_t *comm,
                                  mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    mca_coll_cloudaware_call_t call = describe(CACORE_COLL_ALLGATHER, -1, rcount, rdtype, NULL);
    const cacore_plan_t *plan = choose(m, comm, &call);
    int rc;

    if (NULL == plan) {
        return m->previous.allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                     m->previous.allgather_module);
    }
    if (MPI_IN_PLACE != sbuf && !same_sides(scount, sdtype, rcount, rdtype)) {
        rc = ompi_datatype_sndrcv(sbuf, scount, sdtype,
                                  rank_block(rbuf, ompi_comm_rank(comm), rcount, rdtype), rcount,
                                  rdtype);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        sbuf = MPI_IN_PLACE;
    }
    return run(plan, sbuf, rbuf, rcount, rdtype, NULL, comm);
}
