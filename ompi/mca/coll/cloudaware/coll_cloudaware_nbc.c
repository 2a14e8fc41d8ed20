/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Entry points that run the simple schedules (coll_cloudaware_sched.h) through the executor,
 * three ways per collective: nonblocking (MPI_I<coll>), persistent (MPIX_<Coll>_init) and
 * blocking (for blocking slots no other component fills). Generated once per collective from
 * CLOUDAWARE_FOREACH_SCHED; barrier, which has no arguments, is written out.
 */
#include "ompi_config.h"

#include "coll_cloudaware.h"
#include "coll_cloudaware_sched.h"

#include "ompi/constants.h"

/* One schedule per call, built then run the way the entry point asks. */
#define CA_RUN_SIMPLE(build, how, request)                                                       \
    do {                                                                                         \
        ca_sched_t *s = ca_sched_new(comm);                                                      \
        if (NULL == s) {                                                                         \
            return OMPI_ERR_OUT_OF_RESOURCE;                                                     \
        }                                                                                        \
        return ca_sched_finish(s, build, how, request);                                          \
    } while (0)

#define CA_DEFINE_ENTRIES(name, params, args, intra_only)                                        \
    int mca_coll_cloudaware_i##name(CA_UNPAREN params, struct ompi_communicator_t *comm,         \
                                    ompi_request_t **request, mca_coll_base_module_t *module)    \
    {                                                                                            \
        CA_RUN_SIMPLE(CA_BUILD(name, intra_only, s, args), CA_RUN_NONBLOCKING, request);        \
    }                                                                                            \
    int mca_coll_cloudaware_##name##_init(CA_UNPAREN params, struct ompi_communicator_t *comm,   \
                                          struct ompi_info_t *info, ompi_request_t **request,    \
                                          mca_coll_base_module_t *module)                        \
    {                                                                                            \
        CA_RUN_SIMPLE(CA_BUILD(name, intra_only, s, args), CA_RUN_PERSISTENT, request);         \
    }                                                                                            \
    int mca_coll_cloudaware_##name##_simple(CA_UNPAREN params, struct ompi_communicator_t *comm, \
                                            mca_coll_base_module_t *module)                      \
    {                                                                                            \
        CA_RUN_SIMPLE(CA_BUILD(name, intra_only, s, args), CA_RUN_BLOCKING, NULL);              \
    }

CLOUDAWARE_FOREACH_SCHED(CA_DEFINE_ENTRIES)
#undef CA_DEFINE_ENTRIES

int mca_coll_cloudaware_ibarrier(struct ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module)
{
    CA_RUN_SIMPLE(ca_build_barrier(s), CA_RUN_NONBLOCKING, request);
}

int mca_coll_cloudaware_barrier_init(struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module)
{
    CA_RUN_SIMPLE(ca_build_barrier(s), CA_RUN_PERSISTENT, request);
}

int mca_coll_cloudaware_barrier_simple(struct ompi_communicator_t *comm,
                                       mca_coll_base_module_t *module)
{
    CA_RUN_SIMPLE(ca_build_barrier(s), CA_RUN_BLOCKING, NULL);
}

/* MPI_Reduce_local: Open MPI 4.1 requires a provider on every communicator (basic has one). */
int mca_coll_cloudaware_reduce_local(const void *inbuf, void *inoutbuf, int count,
                                     struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                     mca_coll_base_module_t *module)
{
    ompi_op_reduce(op, (void *) inbuf, inoutbuf, (size_t) count, dtype);
    return OMPI_SUCCESS;
}
