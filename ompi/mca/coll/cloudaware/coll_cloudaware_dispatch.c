/*
 * The overridden collectives' entry points. Each one describes its call and asks one place,
 * cloudaware_choose(), whether a cloud-aware plan should run; otherwise the call goes to the
 * saved previous module, unchanged. The choice depends only on arguments that MPI requires to be
 * identical on all ranks (count and type signature, root, op, communicator), never on local state,
 * so every rank takes the same path.
 */
#include "ompi_config.h"

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"

#include "ompi/datatype/ompi_datatype.h"

typedef struct {
    mca_coll_cloudaware_coll_t coll;
    size_t bytes;     /* payload per rank (per block for gather/scatter/allgather) */
    int root;         /* -1 for rooted-less collectives */
} cloudaware_call_t;

/* Returns true when cloudaware runs the call itself. No plans exist yet: every call falls back.
 * The matrix (calibrated here at the first call with coll_cloudaware_calibrate=lazy) is NULL on
 * every rank or on none: then the call goes to the previous module. */
static bool cloudaware_choose(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm,
                              const cloudaware_call_t *call)
{
    const cacore_matrix_t *matrix = mca_coll_cloudaware_comm_matrix(m, comm);

    (void) matrix;
    m->calls[call->coll]++;
    m->fallbacks[call->coll]++;
    opal_output_verbose(CLOUDAWARE_VERBOSE_CALL, mca_coll_cloudaware_component.output,
                        "coll:cloudaware: %s of %zu bytes (root %d): previous module",
                        mca_coll_cloudaware_coll_names[call->coll], call->bytes, call->root);
    return false;
}

static size_t payload(int count, struct ompi_datatype_t *dtype)
{
    size_t size;

    ompi_datatype_type_size(dtype, &size);
    return size * (size_t) (count > 0 ? count : 0);
}

int mca_coll_cloudaware_bcast(void *buff, int count, struct ompi_datatype_t *datatype, int root,
                              struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    cloudaware_call_t call = { CLOUDAWARE_BCAST, payload(count, datatype), root };

    (void) cloudaware_choose(m, comm, &call);
    return m->previous.bcast(buff, count, datatype, root, comm, m->previous.bcast_module);
}

int mca_coll_cloudaware_reduce(const void *sbuf, void *rbuf, int count,
                               struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                               struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    cloudaware_call_t call = { CLOUDAWARE_REDUCE, payload(count, dtype), root };

    (void) cloudaware_choose(m, comm, &call);
    return m->previous.reduce(sbuf, rbuf, count, dtype, op, root, comm,
                              m->previous.reduce_module);
}

int mca_coll_cloudaware_allreduce(const void *sbuf, void *rbuf, int count,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm,
                                  mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    cloudaware_call_t call = { CLOUDAWARE_ALLREDUCE, payload(count, dtype), -1 };

    (void) cloudaware_choose(m, comm, &call);
    return m->previous.allreduce(sbuf, rbuf, count, dtype, op, comm,
                                 m->previous.allreduce_module);
}

/* gather/scatter/allgather: the receive signature is the one every rank agrees on (the send
 * side may be MPI_IN_PLACE at the root), so the decision uses rcount/rdtype where it exists. */
int mca_coll_cloudaware_gather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                               void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
                               struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    cloudaware_call_t call = { CLOUDAWARE_GATHER, payload(scount, sdtype), root };

    if (MPI_IN_PLACE == sbuf) {
        call.bytes = payload(rcount, rdtype);
    }
    (void) cloudaware_choose(m, comm, &call);
    return m->previous.gather(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
                              m->previous.gather_module);
}

int mca_coll_cloudaware_scatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
                                struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    cloudaware_call_t call = { CLOUDAWARE_SCATTER, payload(rcount, rdtype), root };

    if (MPI_IN_PLACE == rbuf) {
        call.bytes = payload(scount, sdtype);
    }
    (void) cloudaware_choose(m, comm, &call);
    return m->previous.scatter(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
                               m->previous.scatter_module);
}

int mca_coll_cloudaware_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                  void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                  struct ompi_communicator_t *comm,
                                  mca_coll_base_module_t *module)
{
    mca_coll_cloudaware_module_t *m = (mca_coll_cloudaware_module_t *) module;
    cloudaware_call_t call = { CLOUDAWARE_ALLGATHER, payload(rcount, rdtype), -1 };

    (void) cloudaware_choose(m, comm, &call);
    return m->previous.allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                 m->previous.allgather_module);
}
