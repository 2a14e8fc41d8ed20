/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Simple schedules for intercommunicators. Point-to-point ranks on an intercommunicator name
 * processes of the remote group; steps marked `local` run on the local group (c_local_comm).
 * Rooted collectives follow MPI: root = MPI_ROOT at the root, MPI_PROC_NULL at the other ranks
 * of the root's group, the root's rank in the remote group elsewhere. Reductions deliver to one
 * group the rank-ordered reduction of the other group's data.
 */
#include "ompi_config.h"

#include "coll_cloudaware_sched.h"

#include "ompi/constants.h"

#define LSIZE(s) ompi_comm_size((s)->comm)
#define RSIZE(s) ompi_comm_remote_size((s)->comm)
#define LRANK(s) ompi_comm_rank((s)->comm)

/* Barrier: everyone tells every remote process it arrived and waits to hear from all of them,
 * so no process leaves before the whole other group has entered. */
int ca_build_inter_barrier(ca_sched_t *s)
{
    for (int j = 0; j < RSIZE(s); j++) {
        ca_sched_send(s, ca_user(NULL), 0, MPI_BYTE, j, false);
        ca_sched_recv(s, ca_user(NULL), 0, MPI_BYTE, j, false);
    }
    return s->error;
}

int ca_build_inter_bcast(ca_sched_t *s, void *buff, int count, struct ompi_datatype_t *datatype,
                         int root)
{
    if (MPI_ROOT == root) {
        for (int j = 0; j < RSIZE(s); j++) {
            ca_sched_send(s, ca_user(buff), (size_t) count, datatype, j, false);
        }
    } else if (MPI_PROC_NULL != root) {
        ca_sched_recv(s, ca_user(buff), (size_t) count, datatype, root, false);
    }
    return s->error;
}

int ca_build_inter_gather(ca_sched_t *s, const void *sbuf, int scount,
                          struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                          struct ompi_datatype_t *rdtype, int root)
{
    if (MPI_ROOT == root) {
        ptrdiff_t rext = ca_extent(rdtype);
        for (int j = 0; j < RSIZE(s); j++) {
            ca_sched_recv(s, ca_user((char *) rbuf + (ptrdiff_t) j * rcount * rext),
                          (size_t) rcount, rdtype, j, false);
        }
    } else if (MPI_PROC_NULL != root) {
        ca_sched_send(s, ca_user(sbuf), (size_t) scount, sdtype, root, false);
    }
    return s->error;
}

int ca_build_inter_gatherv(ca_sched_t *s, const void *sbuf, int scount,
                           struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                           const int *disps, struct ompi_datatype_t *rdtype, int root)
{
    if (MPI_ROOT == root) {
        ptrdiff_t rext = ca_extent(rdtype);
        for (int j = 0; j < RSIZE(s); j++) {
            ca_sched_recv(s, ca_user((char *) rbuf + (ptrdiff_t) disps[j] * rext),
                          (size_t) rcounts[j], rdtype, j, false);
        }
    } else if (MPI_PROC_NULL != root) {
        ca_sched_send(s, ca_user(sbuf), (size_t) scount, sdtype, root, false);
    }
    return s->error;
}

int ca_build_inter_scatter(ca_sched_t *s, const void *sbuf, int scount,
                           struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                           struct ompi_datatype_t *rdtype, int root)
{
    if (MPI_ROOT == root) {
        ptrdiff_t sext = ca_extent(sdtype);
        for (int j = 0; j < RSIZE(s); j++) {
            ca_sched_send(s, ca_user((const char *) sbuf + (ptrdiff_t) j * scount * sext),
                          (size_t) scount, sdtype, j, false);
        }
    } else if (MPI_PROC_NULL != root) {
        ca_sched_recv(s, ca_user(rbuf), (size_t) rcount, rdtype, root, false);
    }
    return s->error;
}

int ca_build_inter_scatterv(ca_sched_t *s, const void *sbuf, const int *scounts, const int *disps,
                            struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                            struct ompi_datatype_t *rdtype, int root)
{
    if (MPI_ROOT == root) {
        ptrdiff_t sext = ca_extent(sdtype);
        for (int j = 0; j < RSIZE(s); j++) {
            ca_sched_send(s, ca_user((const char *) sbuf + (ptrdiff_t) disps[j] * sext),
                          (size_t) scounts[j], sdtype, j, false);
        }
    } else if (MPI_PROC_NULL != root) {
        ca_sched_recv(s, ca_user(rbuf), (size_t) rcount, rdtype, root, false);
    }
    return s->error;
}

/* allgather(v): every process sends its block to every remote process and receives one block
 * from each of them. */
int ca_build_inter_allgather(ca_sched_t *s, const void *sbuf, int scount,
                             struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                             struct ompi_datatype_t *rdtype)
{
    ptrdiff_t rext = ca_extent(rdtype);

    for (int j = 0; j < RSIZE(s); j++) {
        ca_sched_send(s, ca_user(sbuf), (size_t) scount, sdtype, j, false);
        ca_sched_recv(s, ca_user((char *) rbuf + (ptrdiff_t) j * rcount * rext), (size_t) rcount,
                      rdtype, j, false);
    }
    return s->error;
}

int ca_build_inter_allgatherv(ca_sched_t *s, const void *sbuf, int scount,
                              struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                              const int *disps, struct ompi_datatype_t *rdtype)
{
    ptrdiff_t rext = ca_extent(rdtype);

    for (int j = 0; j < RSIZE(s); j++) {
        ca_sched_send(s, ca_user(sbuf), (size_t) scount, sdtype, j, false);
        ca_sched_recv(s, ca_user((char *) rbuf + (ptrdiff_t) disps[j] * rext),
                      (size_t) rcounts[j], rdtype, j, false);
    }
    return s->error;
}

int ca_build_inter_alltoall(ca_sched_t *s, const void *sbuf, int scount,
                            struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                            struct ompi_datatype_t *rdtype)
{
    ptrdiff_t sext = ca_extent(sdtype), rext = ca_extent(rdtype);

    for (int j = 0; j < RSIZE(s); j++) {
        ca_sched_send(s, ca_user((const char *) sbuf + (ptrdiff_t) j * scount * sext),
                      (size_t) scount, sdtype, j, false);
        ca_sched_recv(s, ca_user((char *) rbuf + (ptrdiff_t) j * rcount * rext), (size_t) rcount,
                      rdtype, j, false);
    }
    return s->error;
}

int ca_build_inter_alltoallv(ca_sched_t *s, const void *sbuf, const int *scounts,
                             const int *sdisps, struct ompi_datatype_t *sdtype, void *rbuf,
                             const int *rcounts, const int *rdisps,
                             struct ompi_datatype_t *rdtype)
{
    ptrdiff_t sext = ca_extent(sdtype), rext = ca_extent(rdtype);

    for (int j = 0; j < RSIZE(s); j++) {
        ca_sched_send(s, ca_user((const char *) sbuf + (ptrdiff_t) sdisps[j] * sext),
                      (size_t) scounts[j], sdtype, j, false);
        ca_sched_recv(s, ca_user((char *) rbuf + (ptrdiff_t) rdisps[j] * rext),
                      (size_t) rcounts[j], rdtype, j, false);
    }
    return s->error;
}

int ca_build_inter_alltoallw(ca_sched_t *s, const void *sbuf, const int *scounts,
                             const int *sdisps, struct ompi_datatype_t *const *sdtypes,
                             void *rbuf, const int *rcounts, const int *rdisps,
                             struct ompi_datatype_t *const *rdtypes)
{
    for (int j = 0; j < RSIZE(s); j++) {
        ca_sched_send(s, ca_user((const char *) sbuf + sdisps[j]), (size_t) scounts[j],
                      sdtypes[j], j, false);
        ca_sched_recv(s, ca_user((char *) rbuf + rdisps[j]), (size_t) rcounts[j], rdtypes[j], j,
                      false);
    }
    return s->error;
}

/* The local leader (local rank 0) receives every remote process's vector and reduces them in
 * remote rank order into dst. Every process sends its own vector to the remote leader. */
static void leader_reduce(ca_sched_t *s, const void *sbuf, size_t scount, ca_addr_t dst,
                          size_t count, ompi_datatype_t *dtype, ompi_op_t *op, bool am_leader)
{
    int q = RSIZE(s);
    ca_addr_t *slots;

    ca_sched_send(s, ca_user(sbuf), scount, dtype, 0, false);
    if (!am_leader) {
        return;
    }
    slots = malloc(sizeof(ca_addr_t) * (size_t) q);
    if (NULL == slots) {
        s->error = OMPI_ERR_OUT_OF_RESOURCE;
        return;
    }
    for (int j = 0; j < q; j++) {
        slots[j] = ca_sched_tmp(s, count, dtype);
        ca_sched_recv(s, slots[j], count, dtype, j, false);
    }
    ca_sched_round(s);
    ca_sched_reduce_in_order(s, slots, q, dst, count, dtype, op);
    free(slots);
}

int ca_build_inter_reduce(ca_sched_t *s, const void *sbuf, void *rbuf, int count,
                          struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root)
{
    int q = RSIZE(s);
    ca_addr_t *slots;

    if (MPI_PROC_NULL == root) {
        return s->error;
    }
    if (MPI_ROOT != root) {
        ca_sched_send(s, ca_user(sbuf), (size_t) count, dtype, root, false);
        return s->error;
    }
    slots = malloc(sizeof(ca_addr_t) * (size_t) q);
    if (NULL == slots) {
        return s->error = OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int j = 0; j < q; j++) {
        slots[j] = ca_sched_tmp(s, (size_t) count, dtype);
        ca_sched_recv(s, slots[j], (size_t) count, dtype, j, false);
    }
    ca_sched_round(s);
    ca_sched_reduce_in_order(s, slots, q, ca_user(rbuf), (size_t) count, dtype, op);
    free(slots);
    return s->error;
}

/* allreduce: the leader reduces the remote group's vectors, then sends the result to its own
 * group (local communicator). */
int ca_build_inter_allreduce(ca_sched_t *s, const void *sbuf, void *rbuf, int count,
                             struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    bool leader = (0 == LRANK(s));

    leader_reduce(s, sbuf, (size_t) count, ca_user(rbuf), (size_t) count, dtype, op, leader);
    ca_sched_round(s);
    for (int j = 1; j < LSIZE(s); j++) {
        if (leader) {
            ca_sched_send(s, ca_user(rbuf), (size_t) count, dtype, j, true);
        }
    }
    if (!leader) {
        ca_sched_recv(s, ca_user(rbuf), (size_t) count, dtype, 0, true);
    }
    return s->error;
}

/* reduce_scatter(_block): every process sends its whole vector (n elements, the same n in both
 * groups as MPI requires) to the remote leader; the leader reduces and scatters over its group. */
static void inter_reduce_scatter(ca_sched_t *s, const void *sbuf, void *rbuf, const int *rcounts,
                                 int rcount, ompi_datatype_t *dtype, ompi_op_t *op)
{
    int p = LSIZE(s), r = LRANK(s);
    size_t total = 0, stotal;
    ca_addr_t whole = ca_user(NULL);

    for (int j = 0; j < p; j++) {
        total += (size_t) (rcounts ? rcounts[j] : rcount);
    }
    /* MPI: both groups' send vectors hold the same n elements, n = sum of this group's
     * recvcounts (block: recvcount times this group's size), so what we send is our own total. */
    stotal = total;
    if (0 == r) {
        whole = ca_sched_tmp(s, total, dtype);
    }
    leader_reduce(s, sbuf, stotal, whole, total, dtype, op, 0 == r);
    ca_sched_round(s);
    ca_sched_scatter_blocks(s, whole, rbuf, rcounts, rcount, dtype, r, p, true);
}

int ca_build_inter_reduce_scatter(ca_sched_t *s, const void *sbuf, void *rbuf,
                                  const int *rcounts, struct ompi_datatype_t *dtype,
                                  struct ompi_op_t *op)
{
    inter_reduce_scatter(s, sbuf, rbuf, rcounts, 0, dtype, op);
    return s->error;
}

int ca_build_inter_reduce_scatter_block(ca_sched_t *s, const void *sbuf, void *rbuf, int rcount,
                                        struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    inter_reduce_scatter(s, sbuf, rbuf, NULL, rcount, dtype, op);
    return s->error;
}
