/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The messages of a calibration (coll_cloudaware_exchange.c; docs/calibration.md, "Protocol"):
 *
 *   start    rank 0's view of the node set reaches every rank (PMIx Put/Fence/Get, or the PML
 *            down the calibration's tree). It is the meeting point of the calibration and, like
 *            any collective, waits for every rank to arrive; it has no deadline. Each rank's
 *            deadline counts from it.
 *   report   every rank's report -> rank 0 (PML), up the calibration's tree (cacore_calib_tree):
 *            each rank sends its own with those of its subtree, received until its deadline;
 *   verdict  rank 0 -> every rank (PML), down the tree, awaited until the rank's deadline.
 * Reports and verdicts begin with mca_coll_cloudaware_msg_t: a receive drops a message of
 * another epoch (one of an abandoned calibration, e.g. on an earlier communicator with the same
 * context id) and waits on for its own. Epoch 0 is accepted too: a rank that could not receive
 * the start message reports with it, and such a report can only say "failed" (the worst a stale
 * one can do is make a calibration fall back, on every rank alike). Such a rank, relaying its
 * subtree's reports, takes them whatever their epoch: rank 0 checks each report's. Sends are
 * never waited for (mca_coll_cloudaware_sends_park).
 */
#ifndef MCA_COLL_CLOUDAWARE_EXCHANGE_H
#define MCA_COLL_CLOUDAWARE_EXCHANGE_H

#include "ompi_config.h"

#include <stdint.h>

#include "coll_cloudaware.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/request/request.h"

BEGIN_C_DECLS

/* Point-to-point tags of the calibration (never used by any other coll component: the hcoll
 * range, and hcoll is not loaded together with coll/cloudaware's measurement). */
#define CLOUDAWARE_TAG_CALIBRATE (MCA_COLL_BASE_TAG_HCOLL_END + 16)
#define CLOUDAWARE_TAG_START (MCA_COLL_BASE_TAG_HCOLL_END + 17)
/* The bulk-transfer token of a limited calibration concurrency: its own tag, so a token can never
 * be matched by a receive of the measurement itself (the token's sender and receiver may be
 * measuring against each other before the token is consumed). */
#define CLOUDAWARE_TAG_TOKEN (MCA_COLL_BASE_TAG_HCOLL_END + 18)
/* The barrier among node leaders that starts a round's bulk phases together (concurrency 0). */
#define CLOUDAWARE_TAG_SYNC (MCA_COLL_BASE_TAG_HCOLL_END + 19)
#define CLOUDAWARE_TAG_REPORT (MCA_COLL_BASE_TAG_HCOLL_END + 20)
#define CLOUDAWARE_TAG_VERDICT (MCA_COLL_BASE_TAG_HCOLL_END + 21)

#define CLOUDAWARE_MSG_MAGIC 0x43414d31u   /* "CAM1" */

/* The head of every report and verdict. */
typedef struct {
    uint32_t magic;
    uint32_t tag;      /* the tag it was sent with */
    uint64_t epoch;    /* chosen by rank 0 for one calibration, sent in the start message */
} mca_coll_cloudaware_msg_t;

/* The start message: rank 0's buf[0..len) into every rank's buf[0..len); len is the same on
 * every rank (derived from the node count). Rank 0 may send fewer bytes (it could not build its
 * view): the others then return an error, as they do when receiving fails, and report it.
 * *how names the path taken ("PMIx" or "PML"). again: not the communicator's first calibration
 * (a recalibration, coll_cloudaware_drift.c): always the PML, since PMIx may answer a key put
 * again from its cache. */
int mca_coll_cloudaware_exchange_start(struct ompi_communicator_t *comm, void *buf, size_t len,
                                       size_t rootlen, bool again, const char **how);

/* One nonblocking receive of a message of at most cap bytes from `from`, with `tag` and `epoch`. */
typedef struct {
    struct ompi_communicator_t *comm;   /* set by mca_coll_cloudaware_recv_post */
    ompi_request_t *req;
    void *buf;
    size_t cap;
    int from;
    int tag;
    uint64_t epoch;
    size_t len;          /* received length */
    int state;           /* CLOUDAWARE_RECV_* */
} mca_coll_cloudaware_recv_t;

enum {
    CLOUDAWARE_RECV_IDLE = 0,      /* not posted */
    CLOUDAWARE_RECV_POSTED = 1,
    CLOUDAWARE_RECV_DONE = 2,      /* a message of this epoch arrived: buf[0..len) */
    CLOUDAWARE_RECV_FAILED = 3,    /* the PML returned an error */
    CLOUDAWARE_RECV_TIMEDOUT = 4   /* nothing by the deadline: cancelled, buf is free again */
};

void mca_coll_cloudaware_recv_post(struct ompi_communicator_t *comm,
                                   mca_coll_cloudaware_recv_t *r);
/* Waits until every posted receive of r[0..n) is DONE or FAILED, or until the deadline; then
 * cancels what is still unmatched (TIMEDOUT). Each request is tested before the clock is read,
 * so a message that already arrived is taken even when the caller itself is past its deadline;
 * one the PML has begun to receive is received. Returns true when none timed out. */
bool mca_coll_cloudaware_recv_wait(mca_coll_cloudaware_recv_t *r, int n, double deadline);

/* Nonblocking sends of one buffer (to one or more ranks). */
typedef struct {
    ompi_request_t **reqs;
    int n, cap;
} mca_coll_cloudaware_pending_t;

/* Posts buf[0..len) to rank `to`. false when the PML refused it (or out of memory). */
bool mca_coll_cloudaware_send_post(struct ompi_communicator_t *comm,
                                   mca_coll_cloudaware_pending_t *p, int to, int tag,
                                   const void *buf, size_t len);
/* Adds req to p (the caller gives it up to be parked with p). false when out of memory. */
bool mca_coll_cloudaware_pending_add(mca_coll_cloudaware_pending_t *p, ompi_request_t *req);
/* The caller is done with the sends of p (it never waits for them: a receiver may have given up
 * or be stopped, and some transports complete even small sends only when the receiver takes
 * them). Complete ones are released with buf (free()d when freeable); otherwise the requests
 * and buf are parked and released by a later mca_coll_cloudaware_exchange_reap() once complete. */
void mca_coll_cloudaware_sends_park(mca_coll_cloudaware_pending_t *p, void *buf, bool freeable);
void mca_coll_cloudaware_exchange_reap(void);

/* Yields the CPU while waiting when the node is oversubscribed (mpi_yield_when_idle). */
void mca_coll_cloudaware_wait_idle(void);

void mca_coll_cloudaware_exchange_finalize(void);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_EXCHANGE_H */
