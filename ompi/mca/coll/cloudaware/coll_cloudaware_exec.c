/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/cloudaware executor: schedules (building), and the one engine that runs them blocking,
 * nonblocking (a request progressed from opal_progress) and persistent (MPI_Start-able request).
 * See coll_cloudaware_exec.h for the round semantics.
 */
#include "ompi_config.h"

#include "coll_cloudaware_exec.h"
#include "coll_cloudaware_compat.h"

#include "ompi/constants.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/mca/pml/pml.h"
#include "opal/class/opal_list.h"
#include "opal/runtime/opal_progress.h"
#include "opal/sys/atomic.h"
#include CLOUDAWARE_MUTEX_HEADER /* opal_mutex_t: its path differs between 4.1 and 5.0 */

/* Live objects, for the leak tests (reported at component close). */
static volatile int64_t live_requests = 0;
static volatile int64_t live_scheds = 0;

/* ---- temporary areas kept between calls ------------------------------------------------------ */

/* A schedule's temporary area, allocated and freed with every call, costs the page faults of a
 * fresh area in the first calls of each size (glibc maps large blocks afresh until its dynamic
 * mmap threshold has grown past them): in the first two calls of a 1 MiB reduce, 17-56 ms on
 * each node leader for the step that fills its area (the lab's 16 ranks on 2 cores), 0.1 ms from
 * the third call on (docs/benchmarks.md, "The first calls' temporary areas"). Freed areas are
 * kept here, up to scratch_keep bytes, and the next schedule takes the smallest that fits. */
#define CA_SCRATCH_SLOTS 4

typedef struct {
    char *buf;             /* NULL: an empty slot */
    size_t size;
} ca_scratch_t;

static ca_scratch_t scratch[CA_SCRATCH_SLOTS];
static size_t scratch_keep = 0;      /* bytes kept in scratch[] at most (ca_exec_init) */
static opal_mutex_t scratch_lock;
static bool exec_initialized = false;

/* An area of at least size bytes: a kept one, or a new one; *cap gets its real size. */
static char *scratch_get(size_t size, size_t *cap)
{
    int best = -1;
    char *buf;

    *cap = size;
    if (!exec_initialized) {
        return malloc(size);
    }
    OPAL_THREAD_LOCK(&scratch_lock);
    for (int i = 0; i < CA_SCRATCH_SLOTS; i++) {
        if (NULL != scratch[i].buf && scratch[i].size >= size &&
            (best < 0 || scratch[i].size < scratch[best].size)) {
            best = i;
        }
    }
    if (best >= 0) {
        buf = scratch[best].buf;
        *cap = scratch[best].size;
        scratch[best].buf = NULL;
        OPAL_THREAD_UNLOCK(&scratch_lock);
        return buf;
    }
    OPAL_THREAD_UNLOCK(&scratch_lock);
    return malloc(size);
}

/* Keeps buf (size bytes) for a later schedule when it fits in scratch_keep, making room by
 * freeing smaller kept areas; frees it otherwise. */
static void scratch_put(char *buf, size_t size)
{
    if (NULL == buf || !exec_initialized) {
        free(buf);
        return;
    }
    OPAL_THREAD_LOCK(&scratch_lock);
    while (size <= scratch_keep) {
        int empty = -1, smallest = -1;
        size_t kept = 0;
        for (int i = 0; i < CA_SCRATCH_SLOTS; i++) {
            if (NULL == scratch[i].buf) {
                empty = i;
                continue;
            }
            kept += scratch[i].size;
            if (scratch[i].size < size &&
                (smallest < 0 || scratch[i].size < scratch[smallest].size)) {
                smallest = i;
            }
        }
        if (empty >= 0 && kept + size <= scratch_keep) {
            scratch[empty].buf = buf;
            scratch[empty].size = size;
            OPAL_THREAD_UNLOCK(&scratch_lock);
            return;
        }
        if (smallest < 0) {
            break;   /* every kept area is at least as large: keep those */
        }
        free(scratch[smallest].buf);
        scratch[smallest].buf = NULL;
    }
    OPAL_THREAD_UNLOCK(&scratch_lock);
    free(buf);
}

void ca_exec_init(size_t keep)
{
    if (!exec_initialized) {
        OBJ_CONSTRUCT(&scratch_lock, opal_mutex_t);
        exec_initialized = true;
    }
    scratch_keep = keep;
}

/* ---- building -------------------------------------------------------------------------------- */

ca_sched_t *ca_sched_new(ompi_communicator_t *comm)
{
    ca_sched_t *s = calloc(1, sizeof(*s));

    if (NULL == s) {
        return NULL;
    }
    s->comm = comm;
    s->rounds_cap = 8;
    s->round_start = malloc(sizeof(int) * (size_t) s->rounds_cap);
    if (NULL == s->round_start) {
        free(s);
        return NULL;
    }
    s->round_start[0] = 0;
    s->nrounds = 1;
    opal_atomic_add_fetch_64(&live_scheds, 1);
    return s;
}

void ca_sched_free(ca_sched_t *s)
{
    if (NULL == s) {
        return;
    }
    free(s->ops);
    free(s->round_start);
    scratch_put(s->tmpbuf, s->tmp_cap);
    free(s->trace_post);
    free(s);
    opal_atomic_add_fetch_64(&live_scheds, -1);
}

void ca_sched_round(ca_sched_t *s)
{
    if (s->round_start[s->nrounds - 1] == s->nops) {
        return;   /* the current round is still empty: reuse it */
    }
    if (s->nrounds + 1 > s->rounds_cap) {
        int *r = realloc(s->round_start, sizeof(int) * (size_t) (2 * s->rounds_cap));
        if (NULL == r) {
            s->error = OMPI_ERR_OUT_OF_RESOURCE;
            return;
        }
        s->round_start = r;
        s->rounds_cap *= 2;
    }
    s->round_start[s->nrounds++] = s->nops;
}

static ca_op_t *add_op(ca_sched_t *s, ca_op_kind_t kind)
{
    ca_op_t *op;

    if (s->nops == s->ops_cap) {
        int cap = s->ops_cap ? 2 * s->ops_cap : 16;
        ca_op_t *o = realloc(s->ops, sizeof(ca_op_t) * (size_t) cap);
        if (NULL == o) {
            s->error = OMPI_ERR_OUT_OF_RESOURCE;
            return NULL;
        }
        s->ops = o;
        s->ops_cap = cap;
    }
    op = &s->ops[s->nops++];
    memset(op, 0, sizeof(*op));
    op->kind = (uint8_t) kind;
    op->level = s->level;
    op->peer = MPI_PROC_NULL;
    return op;
}

ca_addr_t ca_sched_tmp(ca_sched_t *s, size_t count, ompi_datatype_t *dtype)
{
    ptrdiff_t gap = 0;
    size_t span = (size_t) opal_datatype_span(&dtype->super, count, &gap);
    size_t at = (s->tmp_size + 15) & ~(size_t) 15;
    ca_addr_t a;

    s->tmp_size = at + span;
    /* The first element lives at (start - gap): true_lb may be non-zero for derived types. */
    a.ptr = (char *) (intptr_t) ((ptrdiff_t) at - gap);
    a.tmp = true;
    return a;
}

static void add_transfer(ca_sched_t *s, ca_op_kind_t kind, ca_addr_t buf, size_t count,
                         ompi_datatype_t *dtype, int peer, bool local)
{
    ca_op_t *op = add_op(s, kind);

    if (NULL != op) {
        op->buf = buf;
        op->count = count;
        op->dtype = dtype;
        op->peer = peer;
        op->local = local;
    }
}

void ca_sched_send(ca_sched_t *s, ca_addr_t buf, size_t count, ompi_datatype_t *dtype, int peer,
                   bool local)
{
    add_transfer(s, CA_OP_SEND, buf, count, dtype, peer, local);
}

void ca_sched_recv(ca_sched_t *s, ca_addr_t buf, size_t count, ompi_datatype_t *dtype, int peer,
                   bool local)
{
    add_transfer(s, CA_OP_RECV, buf, count, dtype, peer, local);
}

void ca_sched_copy(ca_sched_t *s, ca_addr_t src, size_t scount, ompi_datatype_t *sdtype,
                   ca_addr_t dst, size_t dcount, ompi_datatype_t *ddtype)
{
    ca_op_t *op;

    if (0 == scount && 0 == dcount) {
        return;
    }
    if (NULL != (op = add_op(s, CA_OP_COPY))) {
        op->src = src;
        op->scount = scount;
        op->sdtype = sdtype;
        op->buf = dst;
        op->count = dcount;
        op->dtype = ddtype;
    }
}

void ca_sched_reduce(ca_sched_t *s, ca_addr_t src, ca_addr_t dst, size_t count,
                     ompi_datatype_t *dtype, ompi_op_t *op)
{
    ca_op_t *o;

    if (0 == count) {
        return;
    }
    if (NULL != (o = add_op(s, CA_OP_REDUCE))) {
        o->src = src;
        o->buf = dst;
        o->count = count;
        o->dtype = dtype;
        o->op = op;
    }
}

void ca_sched_reduce_in_order(ca_sched_t *s, const ca_addr_t *slots, int n, ca_addr_t dst,
                              size_t count, ompi_datatype_t *dtype, ompi_op_t *op)
{
    /* ompi_op_reduce(src, dst) computes dst = src op dst: fold from the highest rank down. */
    ca_sched_copy(s, slots[n - 1], count, dtype, dst, count, dtype);
    for (int j = n - 2; j >= 0; j--) {
        ca_sched_reduce(s, slots[j], dst, count, dtype, op);
    }
}

void ca_sched_scatter_blocks(ca_sched_t *s, ca_addr_t whole, void *rbuf, const int *rcounts,
                             int rcount, ompi_datatype_t *dtype, int r, int p, bool local)
{
    ptrdiff_t ext = ca_extent(dtype), at = 0;

    if (0 != r) {
        ca_sched_recv(s, ca_user(rbuf), (size_t) (rcounts ? rcounts[r] : rcount), dtype, 0, local);
        return;
    }
    for (int j = 0; j < p; j++) {
        size_t n = (size_t) (rcounts ? rcounts[j] : rcount);
        if (0 == j) {
            ca_sched_copy(s, whole, n, dtype, ca_user(rbuf), n, dtype);
        } else {
            ca_sched_send(s, ca_off(whole, at), n, dtype, j, local);
        }
        at += (ptrdiff_t) n * ext;
    }
}

/* Allocates the temporary area and sizes the per-round request array. */
static int sched_finish(ca_sched_t *s)
{
    if (OMPI_SUCCESS != s->error) {
        return s->error;
    }
    /* Every rank finishes exactly one schedule per collective call (also when it has nothing to
     * do), so the shared per-communicator counter (also used by libnbc and adapt) stays in step
     * on all ranks and concurrent collectives on one communicator never share a tag. Reserved
     * here, not when building starts, so a schedule abandoned during building (a rejected plan
     * that falls back to another component) consumes no tag. */
    s->tag = ompi_coll_base_nbc_reserve_tags(s->comm, 1);
    s->max_comm = 0;
    for (int r = 0; r < s->nrounds; r++) {
        int end = (r + 1 < s->nrounds) ? s->round_start[r + 1] : s->nops, n = 0;
        for (int i = s->round_start[r]; i < end; i++) {
            n += (s->ops[i].kind == CA_OP_SEND || s->ops[i].kind == CA_OP_RECV);
        }
        s->max_comm = n > s->max_comm ? n : s->max_comm;
    }
    if (s->tmp_size > 0 && NULL == s->tmpbuf) {
        s->tmpbuf = scratch_get(s->tmp_size, &s->tmp_cap);
        if (NULL == s->tmpbuf) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    if (OPAL_UNLIKELY(s->trace.traced) && s->max_comm > 0 && NULL == s->trace_post) {
        /* one block: the post times, then the operation indices */
        s->trace_post = malloc((sizeof(double) + sizeof(int)) * (size_t) s->max_comm);
        if (NULL == s->trace_post) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        s->trace_op = (int *) (s->trace_post + s->max_comm);
    }
    return OMPI_SUCCESS;
}

static inline char *resolve(const ca_sched_t *s, ca_addr_t a)
{
    return a.tmp ? s->tmpbuf + (ptrdiff_t) (intptr_t) a.ptr : a.ptr;
}

/* Tracing: operation i of round r done at `done`, posted (or started, if local) at `post`. */
static void trace_op(ca_sched_t *s, int r, int i, double post, double done)
{
    const ca_op_t *op = &s->ops[i];
    bool comm = CA_OP_SEND == op->kind || CA_OP_RECV == op->kind;

    mca_coll_cloudaware_trace_step(&s->trace, op->kind, op->level, comm ? op->peer : -1, r,
                                   op->count * op->dtype->super.size, post, done);
}

/* Tracing: request n of round r has completed. */
static void trace_request_done(ca_sched_t *s, int r, int n)
{
    trace_op(s, r, s->trace_op[n], s->trace_post[n], mca_coll_cloudaware_now());
}

/* ---- running one round ----------------------------------------------------------------------- */

/* Local operations of round r in order, then its sends posted, then its receives; *nreqs gets
 * the number of requests written to reqs. */
static int start_round(ca_sched_t *s, int r, ompi_request_t **reqs, int *nreqs)
{
    int end = (r + 1 < s->nrounds) ? s->round_start[r + 1] : s->nops;
    int rc = OMPI_SUCCESS, n = 0;

    for (int i = s->round_start[r]; i < end; i++) {
        ca_op_t *op = &s->ops[i];
        char *dst = resolve(s, op->buf), *src;
        double t0 = OPAL_UNLIKELY(s->trace.traced) ? mca_coll_cloudaware_now() : 0.0;

        if (CA_OP_COPY == op->kind) {
            src = resolve(s, op->src);
            if (op->sdtype == op->dtype && op->scount == op->count) {
                if (src != dst) {
                    rc = ompi_datatype_copy_content_same_ddt(op->dtype, op->count, dst, src);
                }
            } else {
                rc = ompi_datatype_sndrcv(src, (int32_t) op->scount, op->sdtype, dst,
                                          (int32_t) op->count, op->dtype);
            }
        } else if (CA_OP_REDUCE == op->kind) {
            ompi_op_reduce(op->op, resolve(s, op->src), dst, op->count, op->dtype);
        } else {
            continue;
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        if (OPAL_UNLIKELY(s->trace.traced)) {
            trace_op(s, r, i, t0, mca_coll_cloudaware_now());
        }
    }
    /* Sends first, then receives (each in plan order, which keeps the matching order of two
     * messages between the same ranks): a pair's two large messages of one round then move both
     * ways at once, where receives posted first made them take turns in the lab over TCP
     * (docs/cost-model.md, "Two-way traffic"). */
    for (int pass = 0; OMPI_SUCCESS == rc && pass < 2; pass++) {
        for (int i = s->round_start[r]; i < end; i++) {
            ca_op_t *op = &s->ops[i];
            ompi_communicator_t *comm = op->local ? s->comm->c_local_comm : s->comm;

            if (CA_OP_SEND == op->kind && 0 == pass) {
                rc = MCA_PML_CALL(isend(resolve(s, op->buf), op->count, op->dtype, op->peer,
                                        s->tag, MCA_PML_BASE_SEND_STANDARD, comm, &reqs[n]));
            } else if (CA_OP_RECV == op->kind && 1 == pass) {
                rc = MCA_PML_CALL(irecv(resolve(s, op->buf), op->count, op->dtype, op->peer,
                                        s->tag, comm, &reqs[n]));
            } else {
                continue;
            }
            if (OMPI_SUCCESS != rc) {
                break;
            }
            if (OPAL_UNLIKELY(s->trace.traced)) {
                s->trace_op[n] = i;
                s->trace.last = s->trace_post[n] = mca_coll_cloudaware_now();
            }
            n++;
        }
    }
    *nreqs = n;
    return rc;
}

/* Tracing: waits for the round's requests one at a time, so that each step has its own
 * completion time. */
static int wait_traced(ca_sched_t *s, int r, ompi_request_t **reqs, int n)
{
    int rc = OMPI_SUCCESS;

    for (int k = 0; k < n; k++) {
        int idx = MPI_UNDEFINED;
        int wrc = ompi_request_wait_any((size_t) n, reqs, &idx, MPI_STATUS_IGNORE);

        if (MPI_UNDEFINED == idx) {
            return OMPI_SUCCESS != rc ? rc : wrc;
        }
        trace_request_done(s, r, idx);
        rc = (OMPI_SUCCESS != rc) ? rc : wrc;
    }
    return rc;
}

int ca_sched_run_blocking(ca_sched_t *s)
{
    ompi_request_t **reqs = NULL;
    int rc;

    if (OPAL_UNLIKELY(s->trace.traced)) {
        mca_coll_cloudaware_trace_call_start(&s->trace, s->comm);
    }
    rc = sched_finish(s);

    if (OMPI_SUCCESS == rc && s->max_comm > 0) {
        reqs = malloc(sizeof(*reqs) * (size_t) s->max_comm);
        rc = (NULL == reqs) ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    for (int r = 0; OMPI_SUCCESS == rc && r < s->nrounds; r++) {
        int n = 0, wrc;
        rc = start_round(s, r, reqs, &n);
        if (n > 0) {
            /* Waiting also drives opal_progress, so nonblocking collectives of this process keep
             * advancing while a blocking one runs. */
            wrc = OPAL_UNLIKELY(s->trace.traced)
                ? wait_traced(s, r, reqs, n)
                : ompi_request_wait_all((size_t) n, reqs, MPI_STATUSES_IGNORE);
            rc = (OMPI_SUCCESS != rc) ? rc : wrc;
        }
    }
    if (OPAL_UNLIKELY(s->trace.traced)) {
        mca_coll_cloudaware_trace_call_end(&s->trace, rc);
    }
    free(reqs);
    ca_sched_free(s);
    return rc;
}

/* ---- requests -------------------------------------------------------------------------------- */

/* The MPI bindings of 4.1 treat every collective request as an ompi_coll_base_nbc_request_t
 * (they retain the user's datatypes and op in it), so ours must start with one. */
typedef struct {
    ompi_coll_base_nbc_request_t super;
    ca_sched_t *sched;
    int round;                 /* round whose sends/receives are in reqs */
    int nreqs;
    ompi_request_t **reqs;     /* sched->max_comm entries */
    bool in_list;
} ca_request_t;

static void ca_request_construct(ca_request_t *req)
{
    req->sched = NULL;
    req->reqs = NULL;
    req->nreqs = 0;
    req->round = 0;
    req->in_list = false;
    opal_atomic_add_fetch_64(&live_requests, 1);
}

static void ca_request_destruct(ca_request_t *req)
{
    ca_sched_free(req->sched);
    free(req->reqs);
    opal_atomic_add_fetch_64(&live_requests, -1);
}

static OBJ_CLASS_INSTANCE(ca_request_t, ompi_coll_base_nbc_request_t, ca_request_construct,
                          ca_request_destruct);

/* Requests in flight; advanced by one progress callback registered on first use. */
static opal_list_t active;
static opal_mutex_t active_lock;
static bool progress_registered = false;
static volatile int32_t in_progress = 0;

static int ca_progress(void);

static void ensure_progress(void)
{
    if (!progress_registered) {
        OBJ_CONSTRUCT(&active, opal_list_t);
        OBJ_CONSTRUCT(&active_lock, opal_mutex_t);
        progress_registered = true;
        opal_progress_register(ca_progress);
    }
}

void ca_exec_finalize(void)
{
    if (progress_registered) {
        opal_progress_unregister(ca_progress);
        OBJ_DESTRUCT(&active);
        OBJ_DESTRUCT(&active_lock);
        progress_registered = false;
    }
    if (exec_initialized) {
        for (int i = 0; i < CA_SCRATCH_SLOTS; i++) {
            free(scratch[i].buf);
            scratch[i].buf = NULL;
        }
        OBJ_DESTRUCT(&scratch_lock);
        exec_initialized = false;
    }
}

void ca_exec_counters(int64_t *nreq, int64_t *nsched)
{
    *nreq = live_requests;
    *nsched = live_scheds;
}

/* Marks the request complete. A nonblocking request drops its schedule right away (the user's
 * buffers are no longer touched and the temporaries are no longer needed). */
static void request_done(ca_request_t *req, int rc)
{
    if (OPAL_UNLIKELY(req->sched->trace.traced)) {
        mca_coll_cloudaware_trace_call_end(&req->sched->trace, rc);
    }
    req->super.super.req_status.MPI_ERROR = rc;
    if (!req->super.super.req_persistent) {
        ca_sched_free(req->sched);
        req->sched = NULL;
        free(req->reqs);
        req->reqs = NULL;
    }
    ompi_request_complete(&req->super.super, true);
}

/* Advances req as far as it goes without blocking. Returns true when its last round is done
 * (*rc: the first error); the caller then unlinks it and marks it complete. */
static bool advance(ca_request_t *req, int *rc)
{
    ca_sched_t *s = req->sched;

    *rc = OMPI_SUCCESS;
    for (;;) {
        for (int i = 0; i < req->nreqs; i++) {
            if (MPI_REQUEST_NULL == req->reqs[i]) {
                continue;
            }
            if (!REQUEST_COMPLETE(req->reqs[i])) {
                return false;
            }
            if (OMPI_SUCCESS != req->reqs[i]->req_status.MPI_ERROR) {
                *rc = req->reqs[i]->req_status.MPI_ERROR;
            }
            if (OPAL_UNLIKELY(s->trace.traced)) {
                trace_request_done(s, req->round, i);
            }
            ompi_request_free(&req->reqs[i]);
        }
        req->nreqs = 0;
        if (OMPI_SUCCESS != *rc || ++req->round >= s->nrounds) {
            return true;
        }
        *rc = start_round(s, req->round, req->reqs, &req->nreqs);
        if (OMPI_SUCCESS != *rc) {
            /* Posted requests of this round must finish before their buffers may go. */
            ompi_request_wait_all((size_t) req->nreqs, req->reqs, MPI_STATUSES_IGNORE);
            req->nreqs = 0;
            return true;
        }
    }
}

static int ca_progress(void)
{
    ca_request_t *req, *next;
    int completed = 0, rc;

    if (0 == opal_list_get_size(&active)) {
        return 0;
    }
    /* PML calls made from here may progress recursively; one pass at a time is enough. */
    if (0 != opal_atomic_fetch_add_32(&in_progress, 1)) {
        opal_atomic_fetch_add_32(&in_progress, -1);
        return 0;
    }
    OPAL_THREAD_LOCK(&active_lock);
    OPAL_LIST_FOREACH_SAFE(req, next, &active, ca_request_t) {
        if (advance(req, &rc)) {
            /* Unlinked before it is marked complete: a waiting thread may free it at once. */
            opal_list_remove_item(&active, &req->super.super.super.super);
            req->in_list = false;
            request_done(req, rc);
            completed++;
        }
    }
    OPAL_THREAD_UNLOCK(&active_lock);
    opal_atomic_fetch_add_32(&in_progress, -1);
    return completed;
}

/* Runs round 0 (and every round that completes at once); queues the request if it is not done. */
static int request_start_one(ca_request_t *req)
{
    ca_sched_t *s = req->sched;
    int rc;

    if (OPAL_UNLIKELY(s->trace.traced)) {
        mca_coll_cloudaware_trace_call_start(&s->trace, s->comm);
    }
    req->super.super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.super.req_complete = REQUEST_PENDING;
    req->super.super.req_status.MPI_ERROR = OMPI_SUCCESS;
    req->round = 0;
    req->nreqs = 0;
    rc = start_round(s, 0, req->reqs, &req->nreqs);
    if (OMPI_SUCCESS != rc) {
        ompi_request_wait_all((size_t) req->nreqs, req->reqs, MPI_STATUSES_IGNORE);
        req->nreqs = 0;
        request_done(req, rc);
        return rc;
    }
    if (advance(req, &rc)) {
        request_done(req, rc);
        return OMPI_SUCCESS;
    }
    OPAL_THREAD_LOCK(&active_lock);
    opal_list_append(&active, &req->super.super.super.super);
    req->in_list = true;
    OPAL_THREAD_UNLOCK(&active_lock);
    return OMPI_SUCCESS;
}

static int request_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; i++) {
        ca_request_t *req = (ca_request_t *) requests[i];
        int rc;

        if (OMPI_REQUEST_ACTIVE == req->super.super.req_state) {
            return OMPI_ERR_REQUEST;   /* MPI_Start on a request that is still running */
        }
        rc = request_start_one(req);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* MPI forbids freeing an active collective request (and MPI_Wait/Test only free completed
 * ones), so an incomplete request is an error, never a silent leak. */
static int request_free(ompi_request_t **rptr)
{
    ca_request_t *req = (ca_request_t *) *rptr;

    if (!REQUEST_COMPLETE(&req->super.super) || req->in_list) {
        return MPI_ERR_REQUEST;
    }
    OMPI_REQUEST_FINI(&req->super.super);
    OBJ_RELEASE(req);
    *rptr = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int request_cancel(ompi_request_t *request, int complete)
{
    return MPI_ERR_REQUEST;   /* collective requests cannot be cancelled */
}

static int request_new(ca_sched_t *s, bool persistent, ca_request_t **out)
{
    ca_request_t *req;
    int rc = sched_finish(s);

    if (OMPI_SUCCESS != rc) {
        ca_sched_free(s);
        return rc;
    }
    req = OBJ_NEW(ca_request_t);
    if (NULL == req) {
        ca_sched_free(s);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req->sched = s;
    if (s->max_comm > 0) {
        req->reqs = malloc(sizeof(ompi_request_t *) * (size_t) s->max_comm);
        if (NULL == req->reqs) {
            OBJ_RELEASE(req);
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    OMPI_REQUEST_INIT(&req->super.super, persistent);
    req->super.super.req_type = OMPI_REQUEST_COLL;
    req->super.super.req_mpi_object.comm = s->comm;
    req->super.super.req_start = request_start;
    req->super.super.req_free = request_free;
    req->super.super.req_cancel = request_cancel;
    req->super.super.req_status = ompi_status_empty;
    ensure_progress();
    *out = req;
    return OMPI_SUCCESS;
}

int ca_sched_run_nonblocking(ca_sched_t *s, ompi_request_t **request)
{
    ca_request_t *req;
    int rc = request_new(s, false, &req);

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    *request = &req->super.super;
    rc = request_start_one(req);
    if (OMPI_SUCCESS != rc) {
        /* The bindings do not free a request after an error: do it here. */
        OMPI_REQUEST_FINI(&req->super.super);
        OBJ_RELEASE(req);
        *request = MPI_REQUEST_NULL;
    }
    return rc;
}

int ca_sched_make_persistent(ca_sched_t *s, ompi_request_t **request)
{
    ca_request_t *req;
    int rc = request_new(s, true, &req);

    if (OMPI_SUCCESS == rc) {
        *request = &req->super.super;
    }
    return rc;
}

int ca_sched_finish(ca_sched_t *s, int build_rc, ca_run_mode_t how, ompi_request_t **request)
{
    if (OMPI_SUCCESS != build_rc) {
        ca_sched_free(s);
        return build_rc;
    }
    switch (how) {
    case CA_RUN_NONBLOCKING:
        return ca_sched_run_nonblocking(s, request);
    case CA_RUN_PERSISTENT:
        return ca_sched_make_persistent(s, request);
    default:
        return ca_sched_run_blocking(s);
    }
}
