/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The messages of a calibration: the start message (no deadline) and the deadline-bound
 * receives and sends of reports and verdicts (coll_cloudaware_exchange.h, docs/calibration.md).
 *
 * Start message, PMIx path (design §3): rank 0 PMIx_Puts its view (PMIX_GLOBAL) + Commit; every
 * rank calls PMIx_Fence over exactly the communicator's processes with PMIX_COLLECT_DATA, then
 * PMIx_Gets rank 0's blob. The key carries the communicator's cid; the blob's own header (checked
 * by the caller) names the node set. PMIx is used only for MPI_COMM_WORLD in auto mode, and on
 * Open MPI 5.0 in every mode (below).
 * PML path: rank 0's view goes down the calibration's tree (cacore_calib_tree: each rank passes
 * it on to its children), used when PMIx is not usable here, the communicator spans more than
 * one job, or coll_cloudaware_calibrate_exchange=pml.
 *
 * Reports and verdicts always go over the PML, nonblocking, each wait bounded by a deadline:
 * a PMIx fence cannot be left before every process has entered it. They travel the same tree
 * (coll_cloudaware_calibrate.c), so no rank is left connected to every other.
 */
#include "ompi_config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"
#include "coll_cloudaware_exchange.h"
#include "coll_cloudaware_trace.h"
#include "core/cloudaware_core.h"

#include "ompi/mca/pml/pml.h"
#include "ompi/proc/proc.h"
#include "opal/mca/base/mca_base_var.h"
#include CLOUDAWARE_MUTEX_HEADER /* opal_mutex_t: its path differs between 4.1 and 5.0 */
#include "opal/runtime/opal_progress.h"
#include "opal/util/proc.h"

/* PMIx initialization and the "exchanging over the PML" note are process-wide, guarded by
 * exchange_lock (concurrent first collectives under MPI_THREAD_MULTIPLE). */
static opal_mutex_t exchange_lock = OPAL_MUTEX_STATIC_INIT;
static int pmix_state = 0;    /* 0 untried, 1 initialized, -1 unusable */
static pmix_proc_t pmix_me;
static bool pml_said = false;

/* mpi_yield_when_idle (set by mpirun when oversubscribed). MPI_Init applies it to opal_progress
 * only after coll selection, so eager calibration of MPI_COMM_WORLD reads it here. */
void mca_coll_cloudaware_wait_idle(void)
{
    static volatile int cached = -1;   /* idempotent: a race only computes it twice */
    const void *value = NULL;
    int idx, v;

    if (cached < 0) {
        v = opal_progress_yield_when_idle ? 1 : 0;
        idx = mca_base_var_find("ompi", "mpi", NULL, "yield_when_idle");
        if (idx >= 0 && OPAL_SUCCESS == mca_base_var_get_value(idx, &value, NULL, NULL)
            && NULL != value && *(const bool *) value) {
            v = 1;
        }
        cached = v;
    }
    opal_progress();
    if (1 == cached) {
        sched_yield();   /* oversubscribed: let the peer run */
    }
}

static bool pmix_ready(void)
{
    pmix_status_t rc;
    bool ready;

    OPAL_THREAD_LOCK(&exchange_lock);
    if (0 == pmix_state) {
        rc = PMIx_Init(&pmix_me, NULL, 0);
        pmix_state = (PMIX_SUCCESS == rc) ? 1 : -1;
        if (PMIX_SUCCESS != rc) {
            opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                                "coll:cloudaware: PMIx_Init failed (%s): calibration exchanges "
                                "use the PML", PMIx_Error_string(rc));
        }
    }
    ready = (1 == pmix_state);
    OPAL_THREAD_UNLOCK(&exchange_lock);
    return ready;
}

void mca_coll_cloudaware_exchange_finalize(void)
{
    OPAL_THREAD_LOCK(&exchange_lock);
    if (1 == pmix_state) {
        PMIx_Finalize(NULL, 0);
    }
    pmix_state = 0;
    pml_said = false;
    OPAL_THREAD_UNLOCK(&exchange_lock);
}

/* ---- the start message ---- */

static int pml_start(struct ompi_communicator_t *comm, void *buf, size_t len, size_t rootlen)
{
    int me = ompi_comm_rank(comm), rc = OMPI_SUCCESS;
    cacore_calib_tree_t tree;
    ompi_status_public_t st;
    const void *fwd = buf;
    size_t fwdlen = rootlen;
    char dummy = 0;

    /* Down the calibration's tree (cacore_calib_tree), not from rank 0 to every rank: a rank
     * connects to its parent and children only. */
    (void) cacore_calib_tree(ompi_comm_size(comm), me, &tree);
    if (0 != me) {
        /* Into the caller's buffer of the expected length: a longer message is truncated (an
         * error), so no peer-supplied length is ever allocated. NULL buf (the caller is out of
         * memory): a 1-byte buffer, which consumes the message with a truncation error. */
        rc = MCA_PML_CALL(recv(NULL != buf ? buf : &dummy, NULL != buf ? len : 1, MPI_BYTE,
                               tree.parent, CLOUDAWARE_TAG_START, comm, &st));
        /* Passed on as it came, so a short message (rank 0 had no view) fails the whole
         * subtree as it fails this rank; after a failed receive, one byte, which does too. */
        if (OMPI_SUCCESS == rc && NULL != buf) {
            fwdlen = st._ucount;
        } else {
            fwd = &dummy;
            fwdlen = 1;
        }
    }
    /* Blocking sends one after the other: each receiver is in this exchange (a meeting point,
     * see coll_cloudaware_exchange.h), so each completes. */
    for (int i = 0; i < tree.nchildren; i++) {
        if (OMPI_SUCCESS != MCA_PML_CALL(send((void *) fwd, fwdlen, MPI_BYTE, tree.children[i],
                                              CLOUDAWARE_TAG_START,
                                              MCA_PML_BASE_SEND_STANDARD, comm))
            && 0 == me) {
            rc = OMPI_ERROR;   /* go on: the others wait for their message */
        }
    }
    if (0 == me) {
        return rc;
    }
    if (OMPI_SUCCESS != rc || NULL == buf || st._ucount != len) {
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

static int pmix_start(struct ompi_communicator_t *comm, void *buf, size_t len, size_t rootlen)
{
    int size = ompi_comm_size(comm), me = ompi_comm_rank(comm), ret = OMPI_SUCCESS;
    pmix_proc_t *procs = calloc((size_t) size, sizeof(pmix_proc_t)), root;
    pmix_info_t info, ginfo;
    pmix_value_t value, *got = NULL;
    pmix_status_t rc;
    char key[PMIX_MAX_KEYLEN + 1];
    bool collect = true, refresh = true;

    snprintf(key, sizeof(key), "ca.start.%u", (unsigned) ompi_comm_get_cid(comm));
    PMIX_LOAD_PROCID(&root, pmix_me.nspace, ompi_comm_peer_lookup(comm, 0)->super.proc_name.vpid);
    if (0 == me) {
        value.type = PMIX_BYTE_OBJECT;
        value.data.bo.bytes = (char *) buf;
        value.data.bo.size = rootlen;
        if (PMIX_SUCCESS != PMIx_Put(PMIX_GLOBAL, key, &value)) {
            ret = OMPI_ERROR;
        }
    }
    /* Commit and fence even after a failure: the others are waiting in the fence. Without the
     * process list (out of memory) the fence runs over the whole namespace, which is exactly
     * this communicator's processes (PMIx serves MPI_COMM_WORLD only). */
    PMIx_Commit();
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if (NULL != procs) {
        for (int r = 0; r < size; r++) {
            PMIX_LOAD_PROCID(&procs[r], pmix_me.nspace,
                             ompi_comm_peer_lookup(comm, r)->super.proc_name.vpid);
        }
        rc = PMIx_Fence(procs, (size_t) size, &info, 1);
    } else {
        rc = PMIx_Fence(NULL, 0, &info, 1);
        ret = OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (PMIX_SUCCESS != rc) {
        ret = OMPI_ERROR;
    }
    if (0 != me && OMPI_SUCCESS == ret && NULL != buf) {
        PMIX_INFO_LOAD(&ginfo, PMIX_GET_REFRESH_CACHE, &refresh, PMIX_BOOL);
        rc = PMIx_Get(&root, key, &ginfo, 1, &got);
        if (PMIX_SUCCESS != rc) {
            rc = PMIx_Get(&root, key, NULL, 0, &got);
        }
        if (PMIX_SUCCESS != rc || NULL == got || PMIX_BYTE_OBJECT != got->type
            || got->data.bo.size != len) {
            opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, mca_coll_cloudaware_component.output,
                                "coll:cloudaware: PMIx_Get(%s) from rank 0 failed: %s", key,
                                PMIX_SUCCESS != rc ? PMIx_Error_string(rc) : "wrong size");
            ret = OMPI_ERROR;
        } else {
            memcpy(buf, got->data.bo.bytes, len);
        }
        if (NULL != got) {
            PMIX_VALUE_RELEASE(got);
        }
        PMIX_INFO_DESTRUCT(&ginfo);
    } else if (0 != me) {
        ret = OMPI_ERROR;
    }
    PMIX_INFO_DESTRUCT(&info);
    free(procs);
    return ret;
}

int mca_coll_cloudaware_exchange_start(struct ompi_communicator_t *comm, void *buf, size_t len,
                                       size_t rootlen, bool again, const char **how)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    /* A recalibration would put the communicator's start key again (see below). */
    bool use_pmix = (CLOUDAWARE_EXCHANGE_PML != c->calib_exchange) && !again;
    const char *why = NULL;

    /* Every test below gives the same answer on every rank of comm (same parameters, same
     * process set, PMIx available to the whole job or to none of it). */
    if (use_pmix) {
        for (int r = 0; r < ompi_comm_size(comm); r++) {
            ompi_proc_t *proc = ompi_comm_peer_lookup(comm, r);
            if (NULL == proc || proc->super.proc_name.jobid != OPAL_PROC_MY_NAME.jobid) {
                use_pmix = false;
                why = "the communicator spans more than one job";
                break;
            }
        }
    }
    /* A freed communicator's cid is given to a later one, whose start key is then put again;
     * where PMIx answers such a key from its cache (Open MPI 5.0), the others would adopt the
     * earlier calibration's view and epoch and the reports would never match. Only
     * MPI_COMM_WORLD's key is put once. */
    if (use_pmix && !CLOUDAWARE_PMIX_REPUT_SEEN && comm != &ompi_mpi_comm_world.comm) {
        use_pmix = false;
        why = "with this Open MPI, PMIx answers a key put again (a reused cid) from its cache; "
              "only MPI_COMM_WORLD's start message goes over PMIx";
    }
    /* PMIx keys carry the cid; on Open MPI 5.0 an MPI-4 sessions' communicator may have a
     * different local cid on each rank (the test is false on every rank or on none). */
    if (use_pmix && !CLOUDAWARE_COMM_CID_IS_GLOBAL(comm)) {
        use_pmix = false;
        why = "the communicator's id differs between ranks (MPI-4 sessions)";
    }
    /* PMIx keys are per cid and a freed communicator's cid is given to a later one, while PMIx
     * may still answer a Get with the earlier communicator's value: ranks would then adopt
     * different views. MPI_COMM_WORLD's cid is never reused, so in auto mode it (the job-wide
     * calibration) goes through PMIx and other communicators through the PML, whose messages
     * belong to the communicator itself. */
    if (use_pmix && CLOUDAWARE_EXCHANGE_AUTO == c->calib_exchange
        && comm != &ompi_mpi_comm_world.comm) {
        use_pmix = false;
    }
    if (use_pmix && !pmix_ready()) {
        use_pmix = false;
        why = "PMIx_Init failed";
    }
    if (use_pmix) {
        *how = "PMIx";
        return pmix_start(comm, buf, len, rootlen);
    }
    if (NULL != why) {
        OPAL_THREAD_LOCK(&exchange_lock);
        if (!pml_said) {
            pml_said = true;
            opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                                "coll:cloudaware: PMIx unusable for the calibration exchange "
                                "(%s): exchanging over the PML", why);
        }
        OPAL_THREAD_UNLOCK(&exchange_lock);
    }
    *how = "PML";
    return pml_start(comm, buf, len, rootlen);
}

/* ---- deadline-bound receives and sends ---- */

void mca_coll_cloudaware_recv_post(struct ompi_communicator_t *comm,
                                   mca_coll_cloudaware_recv_t *r)
{
    r->comm = comm;
    r->req = MPI_REQUEST_NULL;
    r->len = 0;
    r->state = (OMPI_SUCCESS == MCA_PML_CALL(irecv(r->buf, r->cap, MPI_BYTE, r->from, r->tag,
                                                   comm, &r->req)))
                   ? CLOUDAWARE_RECV_POSTED : CLOUDAWARE_RECV_FAILED;
}

/* A completed receive: DONE when it carries our epoch (or 0, see the header; a receive of epoch
 * 0, a relay that did not get the start message, takes any); otherwise (stale: an abandoned
 * calibration's message) posted again when `repost`, else FAILED. */
static void recv_complete(mca_coll_cloudaware_recv_t *r, const ompi_status_public_t *st,
                          bool repost)
{
    const mca_coll_cloudaware_msg_t *h = (const mca_coll_cloudaware_msg_t *) r->buf;

    r->len = st->_ucount;
    if (r->len >= sizeof(*h) && CLOUDAWARE_MSG_MAGIC == h->magic && (uint32_t) r->tag == h->tag
        && (r->epoch == h->epoch || 0 == h->epoch || 0 == r->epoch)) {
        r->state = CLOUDAWARE_RECV_DONE;
    } else if (repost) {
        mca_coll_cloudaware_recv_post(r->comm, r);
    } else {
        r->state = CLOUDAWARE_RECV_FAILED;
    }
}

/* Tests one posted receive. Returns true when it is settled (not POSTED any more). */
static bool recv_test(mca_coll_cloudaware_recv_t *r)
{
    ompi_status_public_t st;
    int flag = 0;

    if (CLOUDAWARE_RECV_POSTED != r->state) {
        return true;
    }
    /* The test returns the request's error (e.g. longer than cap: truncated); a single-request
     * test does not set st.MPI_ERROR. A request completed in error is not freed by the test. */
    if (OMPI_SUCCESS != ompi_request_test(&r->req, &flag, &st)) {
        if (MPI_REQUEST_NULL != r->req) {
            ompi_request_free(&r->req);
        }
        r->state = CLOUDAWARE_RECV_FAILED;
        return true;
    }
    if (flag) {
        recv_complete(r, &st, true);
    }
    return CLOUDAWARE_RECV_POSTED != r->state;
}

/* Past the deadline. An unmatched receive is cancelled at once. One the PML has already matched
 * cannot be cancelled: its message was sent before the deadline and is on its way, so it is
 * received (the sender is alive: it sent it) and counts like any message that arrived. */
static void recv_stop(mca_coll_cloudaware_recv_t *r)
{
    ompi_status_public_t st;
    int flag = 0;

    ompi_request_cancel(r->req);
    for (;;) {
        if (OMPI_SUCCESS != ompi_request_test(&r->req, &flag, &st)) {
            if (MPI_REQUEST_NULL != r->req) {
                ompi_request_free(&r->req);
            }
            r->state = CLOUDAWARE_RECV_FAILED;
            return;
        }
        if (flag) {
            break;
        }
        mca_coll_cloudaware_wait_idle();
    }
    if (st._cancelled) {
        r->state = CLOUDAWARE_RECV_TIMEDOUT;
    } else {
        recv_complete(r, &st, false);
    }
}

bool mca_coll_cloudaware_recv_wait(mca_coll_cloudaware_recv_t *r, int n, double deadline)
{
    bool timedout = false;

    for (;;) {
        bool settled = true;

        /* Test first: a message that is already here counts, whatever the clock says. */
        for (int i = 0; i < n; i++) {
            if (!recv_test(&r[i])) {
                settled = false;
            }
        }
        if (settled) {
            return true;
        }
        if (mca_coll_cloudaware_now() > deadline) {
            break;
        }
        mca_coll_cloudaware_wait_idle();
    }
    for (int i = 0; i < n; i++) {
        if (CLOUDAWARE_RECV_POSTED == r[i].state) {
            recv_stop(&r[i]);
            timedout = timedout || CLOUDAWARE_RECV_TIMEDOUT == r[i].state;
        }
    }
    return !timedout;
}

/* Room for one more request in p. */
static bool pending_reserve(mca_coll_cloudaware_pending_t *p)
{
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 8;
        ompi_request_t **reqs = realloc(p->reqs, sizeof(*reqs) * (size_t) cap);
        if (NULL == reqs) {
            return false;
        }
        p->reqs = reqs;
        p->cap = cap;
    }
    return true;
}

bool mca_coll_cloudaware_pending_add(mca_coll_cloudaware_pending_t *p, ompi_request_t *req)
{
    if (!pending_reserve(p)) {
        return false;
    }
    p->reqs[p->n++] = req;
    return true;
}

bool mca_coll_cloudaware_send_post(struct ompi_communicator_t *comm,
                                   mca_coll_cloudaware_pending_t *p, int to, int tag,
                                   const void *buf, size_t len)
{
    if (!pending_reserve(p)) {
        return false;
    }
    if (OMPI_SUCCESS != MCA_PML_CALL(isend((void *) buf, len, MPI_BYTE, to, tag,
                                           MCA_PML_BASE_SEND_STANDARD, comm, &p->reqs[p->n]))) {
        return false;
    }
    p->n++;
    return true;
}

/* Sends not complete when their sender moved on (a receiver gave up or is stopped; some
 * transports complete even small sends only when the receiver takes them), with the buffer
 * they read: tested again at every later calibration, freed when complete. */
typedef struct parked_t {
    struct parked_t *next;
    ompi_request_t **reqs;
    int n;
    void *buf;
} parked_t;
static parked_t *parked = NULL;

/* true when every request of reqs[0..n) is complete (completed ones become MPI_REQUEST_NULL). */
static bool all_complete(ompi_request_t **reqs, int n)
{
    bool done = true;

    for (int i = 0; i < n; i++) {
        int flag = 0;
        if (MPI_REQUEST_NULL != reqs[i]
            && (OMPI_SUCCESS != ompi_request_test(&reqs[i], &flag, MPI_STATUS_IGNORE) || !flag)) {
            done = false;
        }
    }
    return done;
}

/* Frees the parked requests that completed, with their buffers. At finalize the PML may
 * already have released its requests: the list is not touched then, and what it holds stays
 * reachable until the process ends. */
static void reap(void)
{
    parked_t **pp = &parked;

    while (NULL != *pp) {
        parked_t *q = *pp;
        if (all_complete(q->reqs, q->n)) {
            free(q->buf);
            *pp = q->next;
            free(q->reqs);
            free(q);
        } else {
            pp = &q->next;
        }
    }
}

void mca_coll_cloudaware_exchange_reap(void)
{
    /* Testing a request can complete it, and its completion can free the last reference to a
     * communicator, whose module's destructor reaps too: that nested call returns at once (the
     * outer one is walking the list, and holds the lock). */
    static _Thread_local bool reaping = false;

    if (reaping) {
        return;
    }
    reaping = true;
    OPAL_THREAD_LOCK(&exchange_lock);
    reap();
    OPAL_THREAD_UNLOCK(&exchange_lock);
    reaping = false;
}

void mca_coll_cloudaware_sends_park(mca_coll_cloudaware_pending_t *p, void *buf, bool freeable)
{
    parked_t *q;

    if (all_complete(p->reqs, p->n)) {
        free(p->reqs);
        if (freeable) {
            free(buf);
        }
    } else if (NULL != (q = malloc(sizeof(*q)))) {
        q->reqs = p->reqs;
        q->n = p->n;
        q->buf = freeable ? buf : NULL;
        OPAL_THREAD_LOCK(&exchange_lock);
        q->next = parked;
        parked = q;
        OPAL_THREAD_UNLOCK(&exchange_lock);
    } else {
        /* Out of memory even for this: the PML keeps the requests, the buffer is leaked. */
        for (int i = 0; i < p->n; i++) {
            if (MPI_REQUEST_NULL != p->reqs[i]) {
                ompi_request_free(&p->reqs[i]);
            }
        }
        free(p->reqs);
    }
    p->reqs = NULL;
    p->n = p->cap = 0;
}
