/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/cloudaware schedule builders: simple, correct algorithms (linear or binomial) for every
 * collective, intra- and intercommunicator, expressed as executor schedules
 * (coll_cloudaware_exec.h). They are what cloudaware runs for the nonblocking and persistent
 * collectives it provides, and for blocking collectives no other component provides.
 *
 * CLOUDAWARE_FOREACH_SCHED(X) lists every collective with its argument list (exactly the coll
 * framework's, without comm/request/module) so entry points are generated once
 * (coll_cloudaware_nbc.c). X(name, (params), (args), intra_only).
 */
#ifndef MCA_COLL_CLOUDAWARE_SCHED_H
#define MCA_COLL_CLOUDAWARE_SCHED_H

#include "coll_cloudaware_exec.h"
#include "ompi/mca/coll/coll.h"

BEGIN_C_DECLS

#define CA_UNPAREN(...) __VA_ARGS__

#define CLOUDAWARE_FOREACH_SCHED(X)                                                              \
    X(allgather,                                                                                 \
      (const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount,     \
       struct ompi_datatype_t *rdtype),                                                          \
      (sbuf, scount, sdtype, rbuf, rcount, rdtype), 0)                                           \
    X(allgatherv,                                                                                \
      (const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,                 \
       const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype),                    \
      (sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype), 0)                                   \
    X(allreduce,                                                                                 \
      (const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,                   \
       struct ompi_op_t *op),                                                                    \
      (sbuf, rbuf, count, dtype, op), 0)                                                         \
    X(alltoall,                                                                                  \
      (const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount,     \
       struct ompi_datatype_t *rdtype),                                                          \
      (sbuf, scount, sdtype, rbuf, rcount, rdtype), 0)                                           \
    X(alltoallv,                                                                                 \
      (const void *sbuf, const int *scounts, const int *sdisps, struct ompi_datatype_t *sdtype,  \
       void *rbuf, const int *rcounts, const int *rdisps, struct ompi_datatype_t *rdtype),       \
      (sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype), 0)                         \
    X(alltoallw,                                                                                 \
      (const void *sbuf, const int *scounts, const int *sdisps,                                  \
       struct ompi_datatype_t *const *sdtypes, void *rbuf, const int *rcounts,                   \
       const int *rdisps, struct ompi_datatype_t *const *rdtypes),                               \
      (sbuf, scounts, sdisps, sdtypes, rbuf, rcounts, rdisps, rdtypes), 0)                       \
    X(bcast,                                                                                     \
      (void *buff, int count, struct ompi_datatype_t *datatype, int root),                       \
      (buff, count, datatype, root), 0)                                                          \
    X(exscan,                                                                                    \
      (const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,                   \
       struct ompi_op_t *op),                                                                    \
      (sbuf, rbuf, count, dtype, op), 1)                                                         \
    X(gather,                                                                                    \
      (const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount,     \
       struct ompi_datatype_t *rdtype, int root),                                                \
      (sbuf, scount, sdtype, rbuf, rcount, rdtype, root), 0)                                     \
    X(gatherv,                                                                                   \
      (const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,                 \
       const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype, int root),          \
      (sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, root), 0)                             \
    X(reduce,                                                                                    \
      (const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,                   \
       struct ompi_op_t *op, int root),                                                          \
      (sbuf, rbuf, count, dtype, op, root), 0)                                                   \
    X(reduce_scatter,                                                                            \
      (const void *sbuf, void *rbuf, const int *rcounts, struct ompi_datatype_t *dtype,          \
       struct ompi_op_t *op),                                                                    \
      (sbuf, rbuf, rcounts, dtype, op), 0)                                                       \
    X(reduce_scatter_block,                                                                      \
      (const void *sbuf, void *rbuf, int rcount, struct ompi_datatype_t *dtype,                  \
       struct ompi_op_t *op),                                                                    \
      (sbuf, rbuf, rcount, dtype, op), 0)                                                        \
    X(scan,                                                                                      \
      (const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,                   \
       struct ompi_op_t *op),                                                                    \
      (sbuf, rbuf, count, dtype, op), 1)                                                         \
    X(scatter,                                                                                   \
      (const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount,     \
       struct ompi_datatype_t *rdtype, int root),                                                \
      (sbuf, scount, sdtype, rbuf, rcount, rdtype, root), 0)                                     \
    X(scatterv,                                                                                  \
      (const void *sbuf, const int *scounts, const int *disps, struct ompi_datatype_t *sdtype,   \
       void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root),                        \
      (sbuf, scounts, disps, sdtype, rbuf, rcount, rdtype, root), 0)

/* Builders: append the calling rank's part of the collective to s (s->comm is the
 * communicator). Return s->error. Intracommunicators: coll_cloudaware_sched_intra.c;
 * intercommunicators: coll_cloudaware_sched_inter.c (scan/exscan have none: MPI defines them on
 * intracommunicators only). Which one runs is decided in one place, CA_BUILD below. */
int ca_build_intra_barrier(ca_sched_t *s);
int ca_build_inter_barrier(ca_sched_t *s);
#define CA_DECLARE_BUILD(name, params, args, intra_only)                 \
    int ca_build_intra_##name(ca_sched_t *s, CA_UNPAREN params);         \
    CA_DECLARE_INTER_##intra_only(name, params)
#define CA_DECLARE_INTER_0(name, params) \
    int ca_build_inter_##name(ca_sched_t *s, CA_UNPAREN params);
#define CA_DECLARE_INTER_1(name, params)
CLOUDAWARE_FOREACH_SCHED(CA_DECLARE_BUILD)
#undef CA_DECLARE_BUILD
#undef CA_DECLARE_INTER_0
#undef CA_DECLARE_INTER_1

/* The schedule of collective `name` for s->comm: the intercommunicator builder on an
 * intercommunicator, the intracommunicator one otherwise. */
#define CA_BUILD(name, intra_only, s, args) CA_BUILD_##intra_only(name, s, args)
#define CA_BUILD_0(name, s, args)                                                               \
    (OMPI_COMM_IS_INTER((s)->comm) ? ca_build_inter_##name(s, CA_UNPAREN args)                 \
                                   : ca_build_intra_##name(s, CA_UNPAREN args))
#define CA_BUILD_1(name, s, args)                                                               \
    (OMPI_COMM_IS_INTER((s)->comm) ? OMPI_ERR_NOT_SUPPORTED                                    \
                                   : ca_build_intra_##name(s, CA_UNPAREN args))
/* Barrier has no arguments, so it is not in the list. */
static inline int ca_build_barrier(ca_sched_t *s)
{
    return OMPI_COMM_IS_INTER(s->comm) ? ca_build_inter_barrier(s) : ca_build_intra_barrier(s);
}

/* Entry points (coll_cloudaware_nbc.c): mca_coll_cloudaware_i<name> (nonblocking),
 * mca_coll_cloudaware_<name>_init (persistent), mca_coll_cloudaware_<name>_simple (blocking). */
#define CA_DECLARE_ENTRIES(name, params, args, intra_only)                                      \
    int mca_coll_cloudaware_i##name(CA_UNPAREN params, struct ompi_communicator_t *comm,        \
                                    ompi_request_t **request,                                   \
                                    mca_coll_base_module_t *module);                        \
    int mca_coll_cloudaware_##name##_init(CA_UNPAREN params, struct ompi_communicator_t *comm,  \
                                          struct ompi_info_t *info, ompi_request_t **request,   \
                                          mca_coll_base_module_t *module);                  \
    int mca_coll_cloudaware_##name##_simple(CA_UNPAREN params,                                  \
                                            struct ompi_communicator_t *comm,                   \
                                            mca_coll_base_module_t *module);
CLOUDAWARE_FOREACH_SCHED(CA_DECLARE_ENTRIES)
#undef CA_DECLARE_ENTRIES
int mca_coll_cloudaware_ibarrier(struct ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module);
int mca_coll_cloudaware_barrier_init(struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request,
                                     mca_coll_base_module_t *module);
int mca_coll_cloudaware_barrier_simple(struct ompi_communicator_t *comm,
                                       mca_coll_base_module_t *module);
int mca_coll_cloudaware_reduce_local(const void *inbuf, void *inoutbuf, int count,
                                     struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                     mca_coll_base_module_t *module);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_SCHED_H */
