/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/cloudaware executor: one engine that runs a schedule blocking, nonblocking or persistent.
 *
 * A schedule is, for the calling rank only, a list of rounds of concrete operations
 * {SEND, RECV, COPY, REDUCE} on (address, count, datatype, peer). Round semantics are exactly the
 * ones the model core's plans assume (core/cloudaware_core.h): in round r the rank first performs
 * its local operations (COPY, REDUCE) in the order they were added, then posts all its SEND/RECV
 * operations of round r at once, then waits for all of them before round r+1. Peers may be in
 * other rounds; messages match by (peer, posting order) on one tag per schedule.
 *
 * Addresses are either user pointers or offsets into the schedule's temporary area, which the
 * executor allocates when the schedule is finished (and keeps for a persistent request).
 *
 * This file and coll_cloudaware_exec.c depend on Open MPI only (not on the component structure),
 * so test programs can link them directly.
 */
#ifndef MCA_COLL_CLOUDAWARE_EXEC_H
#define MCA_COLL_CLOUDAWARE_EXEC_H

#include "ompi_config.h"

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"

#include "coll_cloudaware_trace.h"

BEGIN_C_DECLS

typedef enum { CA_OP_SEND = 0, CA_OP_RECV, CA_OP_COPY, CA_OP_REDUCE } ca_op_kind_t;

/* A buffer address: a user pointer, or (tmp) a byte offset into the temporary area. */
typedef struct {
    char *ptr;
    bool tmp;
} ca_addr_t;

static inline ca_addr_t ca_user(const void *p)
{
    ca_addr_t a = { (char *) p, false };
    return a;
}

static inline ca_addr_t ca_off(ca_addr_t a, ptrdiff_t bytes)
{
    a.ptr += bytes;
    return a;
}

static inline ptrdiff_t ca_extent(ompi_datatype_t *dtype)
{
    ptrdiff_t lb, extent;

    ompi_datatype_get_extent(dtype, &lb, &extent);
    return extent;
}

typedef struct {
    uint8_t kind;          /* ca_op_kind_t */
    uint8_t level;         /* the plan step's level (tracing only) */
    bool local;            /* SEND/RECV on the intercommunicator's local group (c_local_comm) */
    int peer;              /* SEND/RECV */
    ca_addr_t buf;         /* SEND/RECV: the data; COPY/REDUCE: the destination */
    size_t count;
    ompi_datatype_t *dtype;
    ca_addr_t src;         /* COPY/REDUCE: the source */
    size_t scount;         /* COPY only (REDUCE uses count and dtype for both) */
    ompi_datatype_t *sdtype;
    ompi_op_t *op;         /* REDUCE: buf = src op buf (src is the left operand) */
} ca_op_t;

typedef struct ca_sched_t {
    ompi_communicator_t *comm;
    ca_op_t *ops;
    int nops, ops_cap;
    int *round_start;      /* round r holds ops [round_start[r], round_start[r+1]) */
    int nrounds, rounds_cap;
    int max_comm;          /* most SEND/RECV in one round: size of the request array */
    size_t tmp_size;       /* bytes of temporary area */
    char *tmpbuf;
    size_t tmp_cap;        /* bytes at tmpbuf (a kept area may be larger than tmp_size) */
    int tag;               /* reserved when the schedule is bound to a run or a request */
    int error;             /* first building error (allocation): reported by the runners */
    uint8_t level;         /* level of the operations added next (a plan's steps; tracing) */
    mca_coll_cloudaware_trace_call_t trace;   /* traced: what the call runs (trace.h) */
    double *trace_post;    /* traced: post time of each request of the current round */
    int *trace_op;         /* traced: the operation of each request of the current round */
} ca_sched_t;

/* ---- building -------------------------------------------------------------------------------- */
ca_sched_t *ca_sched_new(ompi_communicator_t *comm);
void ca_sched_free(ca_sched_t *s);
/* Starts a new round (the first one is started by ca_sched_new). Empty rounds cost nothing. */
void ca_sched_round(ca_sched_t *s);
/* Reserves temporary space for count elements of dtype (true extent, like coll/base does);
 * returns the address of the first element. */
ca_addr_t ca_sched_tmp(ca_sched_t *s, size_t count, ompi_datatype_t *dtype);
void ca_sched_send(ca_sched_t *s, ca_addr_t buf, size_t count, ompi_datatype_t *dtype, int peer,
                   bool local);
void ca_sched_recv(ca_sched_t *s, ca_addr_t buf, size_t count, ompi_datatype_t *dtype, int peer,
                   bool local);
/* dst[dcount of ddtype] = src[scount of sdtype] (same type signature). */
void ca_sched_copy(ca_sched_t *s, ca_addr_t src, size_t scount, ompi_datatype_t *sdtype,
                   ca_addr_t dst, size_t dcount, ompi_datatype_t *ddtype);
/* dst = src op dst, count elements of dtype in both (src is the left operand). */
void ca_sched_reduce(ca_sched_t *s, ca_addr_t src, ca_addr_t dst, size_t count,
                     ompi_datatype_t *dtype, ompi_op_t *op);
/* dst = y_0 op y_1 op ... op y_{n-1} with y_j = slots[j], in rank order (valid for
 * non-commutative ops): a copy and n-1 reductions in the current round. */
void ca_sched_reduce_in_order(ca_sched_t *s, const ca_addr_t *slots, int n, ca_addr_t dst,
                              size_t count, ompi_datatype_t *dtype, ompi_op_t *op);
/* Rank r of the p ranks of s->comm (of its local group when local: an intercommunicator) gets
 * block r of the contiguous `whole` that rank 0 holds: block j is rcounts[j] elements of dtype
 * (rcount each when rcounts is NULL); rank 0 copies its own into rbuf and sends the others, in
 * the current round. */
void ca_sched_scatter_blocks(ca_sched_t *s, ca_addr_t whole, void *rbuf, const int *rcounts,
                             int rcount, ompi_datatype_t *dtype, int r, int p, bool local);

/* ---- running --------------------------------------------------------------------------------- */
/* Runs to completion and frees the schedule. */
int ca_sched_run_blocking(ca_sched_t *s);
/* Returns a started nonblocking request (MPI_Wait/Test free it); the schedule is owned by it. */
int ca_sched_run_nonblocking(ca_sched_t *s, ompi_request_t **request);
/* Returns an inactive persistent request bound to the schedule (MPI_Start runs it). */
int ca_sched_make_persistent(ca_sched_t *s, ompi_request_t **request);

/* The three ways an MPI call runs a schedule. */
typedef enum {
    CA_RUN_BLOCKING,      /* MPI_<Coll> */
    CA_RUN_NONBLOCKING,   /* MPI_I<coll>: *request started */
    CA_RUN_PERSISTENT     /* MPIX_<Coll>_init: *request inactive until MPI_Start */
} ca_run_mode_t;

/* The end of every entry point: frees s and returns build_rc when building failed, else runs s
 * the given way (request is unused when blocking). */
int ca_sched_finish(ca_sched_t *s, int build_rc, ca_run_mode_t how, ompi_request_t **request);

/* Life cycle: init at component open, with the bytes of freed temporary areas to keep for
 * later schedules (coll_cloudaware_scratch_keep); finalize at close (the progress callback, the
 * kept areas). Leak accounting: live objects. */
void ca_exec_init(size_t scratch_keep);
void ca_exec_counters(int64_t *live_requests, int64_t *live_scheds);
void ca_exec_finalize(void);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_EXEC_H */
