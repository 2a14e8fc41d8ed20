/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Simple schedules for every collective on an intracommunicator: binomial bcast, dissemination
 * barrier, linear rooted collectives, direct exchanges for the all-to-all family, linear
 * rank-ordered reductions (correct for non-commutative ops), chains for scan/exscan.
 * They are correct first; the cloud-aware plans (issue 7) replace the six that matter.
 * MPI_IN_PLACE: the input lives where the standard says (rbuf, or the root's own slot).
 */
#include "ompi_config.h"

#include "coll_cloudaware_sched.h"

#include "ompi/constants.h"

/* Rank-ordered reduction of every rank's `in` into `dst` at root (linear: root receives all).
 * `in` may equal `dst` at the root (MPI_IN_PLACE). Leaves the schedule in the round holding the
 * root's reductions; the caller starts a new round before using dst. */
static void linear_reduce(ca_sched_t *s, ca_addr_t in, ca_addr_t dst, size_t count,
                          ompi_datatype_t *dtype, ompi_op_t *op, int root)
{
    int p = ompi_comm_size(s->comm), r = ompi_comm_rank(s->comm);
    ca_addr_t *slots;

    if (r != root) {
        ca_sched_send(s, in, count, dtype, root, false);
        return;
    }
    slots = malloc(sizeof(ca_addr_t) * (size_t) p);
    if (NULL == slots) {
        s->error = OMPI_ERR_OUT_OF_RESOURCE;
        return;
    }
    for (int j = 0; j < p; j++) {
        if (j == root) {
            slots[j] = in;
            if (in.ptr == dst.ptr && in.tmp == dst.tmp && p > 1) {
                /* In place: keep our contribution before dst is overwritten. */
                slots[j] = ca_sched_tmp(s, count, dtype);
                ca_sched_copy(s, in, count, dtype, slots[j], count, dtype);
            }
        } else {
            slots[j] = ca_sched_tmp(s, count, dtype);
            ca_sched_recv(s, slots[j], count, dtype, j, false);
        }
    }
    ca_sched_round(s);
    ca_sched_reduce_in_order(s, slots, p, dst, count, dtype, op);
    free(slots);
}

/* Binomial tree rooted at root: receive from the parent, then send to every child. */
static void binomial_bcast(ca_sched_t *s, ca_addr_t buf, size_t count, ompi_datatype_t *dtype,
                           int root)
{
    int p = ompi_comm_size(s->comm), r = ompi_comm_rank(s->comm);
    int vr = (r - root + p) % p, mask = 1;

    while (mask < p) {
        if (vr & mask) {
            ca_sched_recv(s, buf, count, dtype, (vr - mask + root) % p, false);
            break;
        }
        mask <<= 1;
    }
    ca_sched_round(s);
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < p) {
            ca_sched_send(s, buf, count, dtype, (vr + mask + root) % p, false);
        }
    }
}

int ca_build_intra_barrier(ca_sched_t *s)
{
    int p, r;

    p = ompi_comm_size(s->comm);
    r = ompi_comm_rank(s->comm);
    /* Dissemination: after round k a rank has heard, transitively, from 2^(k+1) ranks. */
    for (int k = 1; k < p; k <<= 1) {
        ca_sched_send(s, ca_user(NULL), 0, MPI_BYTE, (r + k) % p, false);
        ca_sched_recv(s, ca_user(NULL), 0, MPI_BYTE, (r - k + p) % p, false);
        ca_sched_round(s);
    }
    return s->error;
}

int ca_build_intra_bcast(ca_sched_t *s, void *buff, int count, struct ompi_datatype_t *datatype,
                         int root)
{
    binomial_bcast(s, ca_user(buff), (size_t) count, datatype, root);
    return s->error;
}

int ca_build_intra_reduce(ca_sched_t *s, const void *sbuf, void *rbuf, int count,
                          struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root)
{
    const void *in = (MPI_IN_PLACE == sbuf) ? rbuf : sbuf;

    linear_reduce(s, ca_user(in), ca_user(rbuf), (size_t) count, dtype, op, root);
    return s->error;
}

int ca_build_intra_allreduce(ca_sched_t *s, const void *sbuf, void *rbuf, int count,
                             struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    const void *in = (MPI_IN_PLACE == sbuf) ? rbuf : sbuf;

    linear_reduce(s, ca_user(in), ca_user(rbuf), (size_t) count, dtype, op, 0);
    ca_sched_round(s);
    binomial_bcast(s, ca_user(rbuf), (size_t) count, dtype, 0);
    return s->error;
}

/* gather(v), linear: the root receives every block at once. counts == NULL: every block has
 * rcount elements at j * rcount (gather), else counts[j] at disps[j] (gatherv). */
static int linear_gather(ca_sched_t *s, const void *sbuf, int scount, ompi_datatype_t *sdtype,
                         void *rbuf, const int *counts, const int *disps, int rcount,
                         ompi_datatype_t *rdtype, int root)
{
    int p = ompi_comm_size(s->comm), r = ompi_comm_rank(s->comm);
    ptrdiff_t rext = ca_extent(rdtype);

    if (r != root) {
        ca_sched_send(s, ca_user(sbuf), (size_t) scount, sdtype, root, false);
        return s->error;
    }
    for (int j = 0; j < p; j++) {
        size_t n = (size_t) (counts ? counts[j] : rcount);
        ca_addr_t slot = ca_user((char *) rbuf
                                 + (ptrdiff_t) (disps ? disps[j] : j * rcount) * rext);
        if (j != r) {
            ca_sched_recv(s, slot, n, rdtype, j, false);
        } else if (MPI_IN_PLACE != sbuf) {
            ca_sched_copy(s, ca_user(sbuf), (size_t) scount, sdtype, slot, n, rdtype);
        }
    }
    return s->error;
}

/* scatter(v), linear: the root sends every block at once (counts as in linear_gather). */
static int linear_scatter(ca_sched_t *s, const void *sbuf, const int *counts, const int *disps,
                          int scount, ompi_datatype_t *sdtype, void *rbuf, int rcount,
                          ompi_datatype_t *rdtype, int root)
{
    int p = ompi_comm_size(s->comm), r = ompi_comm_rank(s->comm);
    ptrdiff_t sext = ca_extent(sdtype);

    if (r != root) {
        ca_sched_recv(s, ca_user(rbuf), (size_t) rcount, rdtype, root, false);
        return s->error;
    }
    for (int j = 0; j < p; j++) {
        size_t n = (size_t) (counts ? counts[j] : scount);
        ca_addr_t slot = ca_user((const char *) sbuf
                                 + (ptrdiff_t) (disps ? disps[j] : j * scount) * sext);
        if (j != r) {
            ca_sched_send(s, slot, n, sdtype, j, false);
        } else if (MPI_IN_PLACE != rbuf) {
            ca_sched_copy(s, slot, n, sdtype, ca_user(rbuf), (size_t) rcount, rdtype);
        }
    }
    return s->error;
}

int ca_build_intra_gather(ca_sched_t *s, const void *sbuf, int scount,
                                struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                                struct ompi_datatype_t *rdtype, int root)
{
    return linear_gather(s, sbuf, scount, sdtype, rbuf, NULL, NULL, rcount, rdtype, root);
}

int ca_build_intra_gatherv(ca_sched_t *s, const void *sbuf, int scount,
                                 struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                                 const int *disps, struct ompi_datatype_t *rdtype, int root)
{
    return linear_gather(s, sbuf, scount, sdtype, rbuf, rcounts, disps, 0, rdtype, root);
}

int ca_build_intra_scatter(ca_sched_t *s, const void *sbuf, int scount,
                                 struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                                 struct ompi_datatype_t *rdtype, int root)
{
    return linear_scatter(s, sbuf, NULL, NULL, scount, sdtype, rbuf, rcount, rdtype, root);
}

int ca_build_intra_scatterv(ca_sched_t *s, const void *sbuf, const int *scounts,
                                  const int *disps, struct ompi_datatype_t *sdtype, void *rbuf,
                                  int rcount, struct ompi_datatype_t *rdtype, int root)
{
    return linear_scatter(s, sbuf, scounts, disps, 0, sdtype, rbuf, rcount, rdtype, root);
}

/* allgather(v): every rank sends its block to every other rank, in one round. */
static void allgather_common(ca_sched_t *s, const void *sbuf, int scount, ompi_datatype_t *sdtype,
                             void *rbuf, const int *rcounts, const int *disps, int rcount,
                             ompi_datatype_t *rdtype)
{
    int p = ompi_comm_size(s->comm), r = ompi_comm_rank(s->comm);
    ptrdiff_t rext = ca_extent(rdtype);
#define SLOT(j) ca_user((char *) rbuf + (ptrdiff_t) (disps ? disps[j] : (j) * rcount) * rext)
#define RCOUNT(j) ((size_t) (rcounts ? rcounts[j] : rcount))
    ca_addr_t mine = SLOT(r);
    size_t mcount = RCOUNT(r);
    ompi_datatype_t *mtype = rdtype;

    if (MPI_IN_PLACE != sbuf) {
        ca_sched_copy(s, ca_user(sbuf), (size_t) scount, sdtype, mine, mcount, rdtype);
        mine = ca_user(sbuf);
        mcount = (size_t) scount;
        mtype = sdtype;
    }
    for (int j = 0; j < p; j++) {
        if (j != r) {
            ca_sched_recv(s, SLOT(j), RCOUNT(j), rdtype, j, false);
            ca_sched_send(s, mine, mcount, mtype, j, false);
        }
    }
#undef SLOT
#undef RCOUNT
}

int ca_build_intra_allgather(ca_sched_t *s, const void *sbuf, int scount,
                             struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                             struct ompi_datatype_t *rdtype)
{
    allgather_common(s, sbuf, scount, sdtype, rbuf, NULL, NULL, rcount, rdtype);
    return s->error;
}

int ca_build_intra_allgatherv(ca_sched_t *s, const void *sbuf, int scount,
                              struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                              const int *disps, struct ompi_datatype_t *rdtype)
{
    allgather_common(s, sbuf, scount, sdtype, rbuf, rcounts, disps, 0, rdtype);
    return s->error;
}

/* alltoallw is the general case: per-peer counts, byte displacements and types. MPI_IN_PLACE:
 * the data to send is in rbuf (receive layout); each outgoing block is first copied aside. */
static void alltoall_general(ca_sched_t *s, const char *sbuf, const int *scounts,
                             const ptrdiff_t *soff, ompi_datatype_t *const *stypes, char *rbuf,
                             const int *rcounts, const ptrdiff_t *roff,
                             ompi_datatype_t *const *rtypes)
{
    int p = ompi_comm_size(s->comm), r = ompi_comm_rank(s->comm);
    bool in_place = (MPI_IN_PLACE == (const void *) sbuf);

    for (int j = 0; j < p; j++) {
        ca_addr_t out = ca_user(rbuf + roff[j]);
        if (in_place) {
            if (j != r) {
                ca_addr_t aside = ca_sched_tmp(s, (size_t) rcounts[j], rtypes[j]);
                ca_sched_copy(s, out, (size_t) rcounts[j], rtypes[j], aside, (size_t) rcounts[j],
                              rtypes[j]);
                ca_sched_send(s, aside, (size_t) rcounts[j], rtypes[j], j, false);
                ca_sched_recv(s, out, (size_t) rcounts[j], rtypes[j], j, false);
            }
        } else if (j == r) {
            ca_sched_copy(s, ca_user(sbuf + soff[j]), (size_t) scounts[j], stypes[j], out,
                          (size_t) rcounts[j], rtypes[j]);
        } else {
            ca_sched_send(s, ca_user(sbuf + soff[j]), (size_t) scounts[j], stypes[j], j, false);
            ca_sched_recv(s, out, (size_t) rcounts[j], rtypes[j], j, false);
        }
    }
}

/* Expands the alltoall/alltoallv arguments to the general form. */
static int alltoall_expand(ca_sched_t *s, const void *sbuf, const int *scounts, const int *sdisps,
                           int scount, ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                           const int *rdisps, int rcount, ompi_datatype_t *rdtype)
{
    int p = ompi_comm_size(s->comm);
    int *sc = malloc(sizeof(int) * 2 * (size_t) p);
    ptrdiff_t *off = malloc(sizeof(ptrdiff_t) * 2 * (size_t) p);
    ompi_datatype_t **types = malloc(sizeof(ompi_datatype_t *) * 2 * (size_t) p);
    ptrdiff_t sext = (MPI_IN_PLACE == sbuf) ? 0 : ca_extent(sdtype), rext = ca_extent(rdtype);

    if (NULL == sc || NULL == off || NULL == types) {
        s->error = OMPI_ERR_OUT_OF_RESOURCE;
    } else {
        for (int j = 0; j < p; j++) {
            sc[j] = scounts ? scounts[j] : scount;
            off[j] = (ptrdiff_t) (sdisps ? sdisps[j] : j * scount) * sext;
            types[j] = sdtype;
            sc[p + j] = rcounts ? rcounts[j] : rcount;
            off[p + j] = (ptrdiff_t) (rdisps ? rdisps[j] : j * rcount) * rext;
            types[p + j] = rdtype;
        }
        alltoall_general(s, sbuf, sc, off, types, rbuf, sc + p, off + p, types + p);
    }
    free(sc);
    free(off);
    free(types);
    return s->error;
}

int ca_build_intra_alltoall(ca_sched_t *s, const void *sbuf, int scount,
                            struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                            struct ompi_datatype_t *rdtype)
{
    return alltoall_expand(s, sbuf, NULL, NULL, scount, sdtype, rbuf, NULL, NULL, rcount, rdtype);
}

int ca_build_intra_alltoallv(ca_sched_t *s, const void *sbuf, const int *scounts, const int *sdisps,
                             struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                             const int *rdisps, struct ompi_datatype_t *rdtype)
{
    return alltoall_expand(s, sbuf, scounts, sdisps, 0, sdtype, rbuf, rcounts, rdisps, 0, rdtype);
}

int ca_build_intra_alltoallw(ca_sched_t *s, const void *sbuf, const int *scounts, const int *sdisps,
                             struct ompi_datatype_t *const *sdtypes, void *rbuf, const int *rcounts,
                             const int *rdisps, struct ompi_datatype_t *const *rdtypes)
{
    int p;
    ptrdiff_t *off;

    p = ompi_comm_size(s->comm);
    off = malloc(sizeof(ptrdiff_t) * 2 * (size_t) p);
    if (NULL == off) {
        return s->error = OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int j = 0; j < p; j++) {
        off[j] = (MPI_IN_PLACE == sbuf) ? 0 : sdisps[j];
        off[p + j] = rdisps[j];
    }
    alltoall_general(s, sbuf, scounts, off, sdtypes, rbuf, rcounts, off + p, rdtypes);
    free(off);
    return s->error;
}

/* reduce_scatter(_block): rank-ordered reduction of the whole vector at rank 0, then scatter. */
static void reduce_scatter_common(ca_sched_t *s, const void *sbuf, void *rbuf, const int *rcounts,
                                  int rcount, ompi_datatype_t *dtype, ompi_op_t *op)
{
    int p = ompi_comm_size(s->comm), r = ompi_comm_rank(s->comm);
    size_t total = 0;
    const void *in = (MPI_IN_PLACE == sbuf) ? rbuf : sbuf;
    ca_addr_t whole;

    for (int j = 0; j < p; j++) {
        total += (size_t) (rcounts ? rcounts[j] : rcount);
    }
    whole = (0 == r) ? ca_sched_tmp(s, total, dtype) : ca_user(NULL);
    linear_reduce(s, ca_user(in), whole, total, dtype, op, 0);
    ca_sched_round(s);
    ca_sched_scatter_blocks(s, whole, rbuf, rcounts, rcount, dtype, r, p, false);
}

int ca_build_intra_reduce_scatter(ca_sched_t *s, const void *sbuf, void *rbuf, const int *rcounts,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    reduce_scatter_common(s, sbuf, rbuf, rcounts, 0, dtype, op);
    return s->error;
}

int ca_build_intra_reduce_scatter_block(ca_sched_t *s, const void *sbuf, void *rbuf, int rcount,
                                        struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    reduce_scatter_common(s, sbuf, rbuf, NULL, rcount, dtype, op);
    return s->error;
}

/* scan: a chain. Rank r receives x_0 op ... op x_{r-1}, computes rbuf = that op x_r, forwards. */
int ca_build_intra_scan(ca_sched_t *s, const void *sbuf, void *rbuf, int count,
                        struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    int p, r;
    ca_addr_t partial;

    p = ompi_comm_size(s->comm);
    r = ompi_comm_rank(s->comm);
    if (MPI_IN_PLACE != sbuf) {
        ca_sched_copy(s, ca_user(sbuf), (size_t) count, dtype, ca_user(rbuf), (size_t) count,
                      dtype);
    }
    if (r > 0) {
        partial = ca_sched_tmp(s, (size_t) count, dtype);
        ca_sched_recv(s, partial, (size_t) count, dtype, r - 1, false);
        ca_sched_round(s);
        ca_sched_reduce(s, partial, ca_user(rbuf), (size_t) count, dtype, op);
    }
    if (r + 1 < p) {
        ca_sched_send(s, ca_user(rbuf), (size_t) count, dtype, r + 1, false);
    }
    return s->error;
}

/* exscan: rank r > 0 receives x_0 op ... op x_{r-1} into rbuf and forwards that op x_r. */
int ca_build_intra_exscan(ca_sched_t *s, const void *sbuf, void *rbuf, int count,
                          struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    int p, r;
    const void *in = (MPI_IN_PLACE == sbuf) ? rbuf : sbuf;
    ca_addr_t mine;

    p = ompi_comm_size(s->comm);
    r = ompi_comm_rank(s->comm);
    if (0 == r) {
        if (p > 1) {
            ca_sched_send(s, ca_user(in), (size_t) count, dtype, 1, false);
        }
        return s->error;
    }
    /* Our input is set aside first: in place, rbuf is about to receive the prefix. */
    mine = ca_sched_tmp(s, (size_t) count, dtype);
    ca_sched_copy(s, ca_user(in), (size_t) count, dtype, mine, (size_t) count, dtype);
    ca_sched_recv(s, ca_user(rbuf), (size_t) count, dtype, r - 1, false);
    ca_sched_round(s);
    if (r + 1 < p) {
        ca_sched_reduce(s, ca_user(rbuf), mine, (size_t) count, dtype, op);
        ca_sched_send(s, mine, (size_t) count, dtype, r + 1, false);
    }
    return s->error;
}
