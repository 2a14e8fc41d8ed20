/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The measurement tournament among node leaders (CMPI §3.1), over the PML on the communicator
 * being calibrated (the path the collectives use).
 *
 * Round-robin tournament (circle method): N-1 rounds (N rounded up to even; the extra slot is a
 * bye), in each round every leader meets one other leader, so the pairs of a round are disjoint.
 * For a pair (a, b), a < b, in that order:
 *   1. latency a: a pings b `reps` times (plus one unmeasured warm-up); L[a][b] = median RTT / 2
 *   2. latency b: the same, b initiating;                               L[b][a] = median RTT / 2
 *   3. bandwidth a->b: a sends `bytes`, b answers with a small ack, `bw reps` times;
 *                      B[a][b] = bytes / (elapsed - L[a][b])   (best of the reps; their median
 *                      with concurrency 0, see bandwidth_of)
 *   4. bandwidth b->a: the same the other way.
 * (With concurrency 0, every leader joins a barrier before each transfer of 3 and 4: see below.)
 * Ping-pong cannot tell the two one-way latencies apart without synchronized clocks, so the two
 * latency directions differ only by noise; bandwidth is measured per direction.
 *
 * coll_cloudaware_calibrate_concurrency = 0 (default, CMPI): all pairs of a round move bulk data
 * at the same time, and they really start together: the leaders (all of them, also those with a
 * bye) pass a barrier before every bulk transfer of the round (a->b, then b->a, each `bandwidth
 * reps` times) in every round with more than one measuring pair. Without it, leaders drift apart
 * (latency passes and transfers of different lengths), a pair's transfer overlapped 0, 1 or all
 * of the round's others by chance, and the same network gave different matrices from run to
 * run (lab racks-8: cross-rack pairs of one round measured 40 and 20 Mbit/s). With it, a shared
 * link (a rack uplink) carries exactly the round's pairs that cross it: what the network delivers
 * to this traffic pattern, the same every time.
 *
 * coll_cloudaware_calibrate_concurrency = k > 0 limits how many pairs move bulk data at once, so
 * shared links (rack uplinks) do not distort per-pair rates: the measuring pairs of all rounds form
 * one sequence (round by round, in a round by lower node), and pair g starts its bulk transfers
 * only when pair g-k has finished (a token, sent by g-k's lower node to g's lower node). The
 * sequence runs across rounds: leaders do not wait for each other between rounds, so a token that
 * stopped at the end of a round let the next round's first pairs overlap the previous round's last
 * ones (found in the lab: cross-rack pairs of two rounds sharing a rack uplink measured half their
 * rate with k = 1). Latency ping-pongs always run concurrently (small messages; the lab does not
 * shape them, and real networks queue them little).
 *
 * Every wait has the calibration deadline: when it passes, outstanding receives are cancelled,
 * the requests left are handed over with the buffers they use to the exchange's parked list
 * (mca_coll_cloudaware_sends_park: freed by a later calibration once complete, kept reachable
 * until the process ends otherwise), and the leader reports TIMEOUT with
 * the peer it waited for. Leaders never decide to fall back themselves: the statuses travel in
 * the exchange, and every rank decides from the same data.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"
#include "coll_cloudaware_exchange.h"
#include "coll_cloudaware_tournament.h"
#include "coll_cloudaware_trace.h"

#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"

typedef struct {
    struct ompi_communicator_t *comm;
    const mca_coll_cloudaware_nodemap_t *map;
    double deadline;
    mca_coll_cloudaware_pending_t abandoned;   /* requests given up at the deadline */
    bool leaked;      /* one of them could not be kept (out of memory): its buffers never freed */
} meas_ctx_t;

/* Waits for reqs[0..n) until the deadline. On timeout, abandons what is left. */
static int wait_all(meas_ctx_t *x, ompi_request_t **reqs, int n)
{
    for (;;) {
        bool all = true;

        for (int i = 0; i < n; i++) {
            int flag = 0, rc;

            if (MPI_REQUEST_NULL == reqs[i]) {
                continue;
            }
            rc = ompi_request_test(&reqs[i], &flag, MPI_STATUS_IGNORE);
            if (OMPI_SUCCESS != rc) {
                return CACORE_MEAS_ERROR;
            }
            if (!flag) {
                all = false;
            }
        }
        if (all) {
            return CACORE_MEAS_OK;
        }
        if (mca_coll_cloudaware_now() > x->deadline) {
            for (int i = 0; i < n; i++) {
                if (MPI_REQUEST_NULL != reqs[i]) {
                    ompi_request_cancel(reqs[i]);
                    if (!mca_coll_cloudaware_pending_add(&x->abandoned, reqs[i])) {
                        ompi_request_free(&reqs[i]);
                        x->leaked = true;
                    }
                    reqs[i] = MPI_REQUEST_NULL;
                }
            }
            return CACORE_MEAS_TIMEOUT;
        }
        mca_coll_cloudaware_wait_idle();
    }
}

/* Send to node speer's leader and/or receive from node rpeer's leader (NULL buffers skip that
 * half), until the deadline. */
static int xfer2(meas_ctx_t *x, int speer, const void *sbuf, size_t slen, int rpeer, void *rbuf,
                 size_t rlen, int tag)
{
    ompi_request_t *reqs[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    int rc;

    if (NULL != rbuf) {
        rc = MCA_PML_CALL(irecv(rbuf, rlen, MPI_BYTE, x->map->leaders[rpeer], tag, x->comm,
                                &reqs[0]));
        if (OMPI_SUCCESS != rc) {
            return CACORE_MEAS_ERROR;
        }
    }
    if (NULL != sbuf) {
        rc = MCA_PML_CALL(isend((void *) sbuf, slen, MPI_BYTE, x->map->leaders[speer], tag,
                                MCA_PML_BASE_SEND_STANDARD, x->comm, &reqs[1]));
        if (OMPI_SUCCESS != rc) {
            wait_all(x, reqs, 1);
            return CACORE_MEAS_ERROR;
        }
    }
    return wait_all(x, reqs, 2);
}

static int xfer_tag(meas_ctx_t *x, int peer_node, const void *sbuf, size_t slen, void *rbuf,
                    size_t rlen, int tag)
{
    return xfer2(x, peer_node, sbuf, slen, peer_node, rbuf, rlen, tag);
}

static int xfer(meas_ctx_t *x, int peer_node, const void *sbuf, size_t slen, void *rbuf,
                size_t rlen)
{
    return xfer_tag(x, peer_node, sbuf, slen, rbuf, rlen, CLOUDAWARE_TAG_CALIBRATE);
}

/* Dissemination barrier over all node leaders (ceil(log2 n) steps of one 1-byte message), on its
 * own tag. Messages of successive barriers from one source arrive in order (MPI non-overtaking),
 * and a leader never gets a barrier ahead, so one tag serves them all. On failure *awaited is the
 * node whose message did not come. */
static int leader_barrier(meas_ctx_t *x, char *sbuf, char *rbuf, int *awaited)
{
    int n = x->map->nnodes, me = x->map->my_node, rc;

    for (int d = 1; d < n; d <<= 1) {
        int to = (me + d) % n, from = (me - d + n) % n;
        if (CACORE_MEAS_OK
            != (rc = xfer2(x, to, sbuf, 1, from, rbuf, 1, CLOUDAWARE_TAG_SYNC))) {
            *awaited = from;
            return rc;
        }
    }
    return CACORE_MEAS_OK;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* One latency pass: initiator pings, the other echoes; then a burst of `reps` messages of the
 * same size from the initiator, received one by one and acknowledged once. Returns status;
 * *lat = median RTT/2, *gap = the software cost of one more message,
 * (burst time - RTT) / reps (0 when the noise makes it negative). */
static int latency_pass(meas_ctx_t *x, int peer_node, bool initiator, char *sbuf, char *rbuf,
                        size_t bytes, int reps, double *samples, double *lat, double *gap)
{
    double t0 = 0.0;
    int rc;

    for (int r = 0; r <= reps; r++) {   /* r == 0: warm-up (connection setup), not counted */
        if (initiator) {
            t0 = mca_coll_cloudaware_now();
            rc = xfer(x, peer_node, sbuf, bytes, rbuf, bytes);
            if (CACORE_MEAS_OK != rc) {
                return rc;
            }
            if (r > 0) {
                samples[r - 1] = (mca_coll_cloudaware_now() - t0) / 2.0;
            }
        } else {
            if (CACORE_MEAS_OK != (rc = xfer(x, peer_node, NULL, 0, rbuf, bytes))
                || CACORE_MEAS_OK != (rc = xfer(x, peer_node, sbuf, bytes, NULL, 0))) {
                return rc;
            }
        }
    }
    if (initiator) {
        qsort(samples, (size_t) reps, sizeof(double), compare_double);
        *lat = (reps % 2) ? samples[reps / 2]
                          : 0.5 * (samples[reps / 2 - 1] + samples[reps / 2]);
        t0 = mca_coll_cloudaware_now();
    }
    for (int r = 0; r < reps; r++) {   /* the burst */
        if (CACORE_MEAS_OK != (rc = initiator ? xfer(x, peer_node, sbuf, bytes, NULL, 0)
                                                  : xfer(x, peer_node, NULL, 0, rbuf, bytes))) {
            return rc;
        }
    }
    rc = initiator ? xfer(x, peer_node, NULL, 0, rbuf, 1) : xfer(x, peer_node, sbuf, 1, NULL, 0);
    if (CACORE_MEAS_OK == rc && initiator) {
        double g = (mca_coll_cloudaware_now() - t0 - 2.0 * *lat) / reps;
        *gap = g > 0.0 ? g : 0.0;
    }
    return rc;
}

/* One bulk transfer: sender sends bytes, receiver acks. Returns status; *bw (sender only) =
 * bytes / (elapsed - ack latency). */
static int bandwidth_pass(meas_ctx_t *x, int peer_node, bool sender, char *big, size_t bytes,
                          double lat, double *bw)
{
    char *ack = big + bytes, *ackr = big + bytes + 8;   /* small buffers after the big one */
    int rc;

    if (sender) {
        double t0 = mca_coll_cloudaware_now(), t;
        if (CACORE_MEAS_OK != (rc = xfer(x, peer_node, big, bytes, ackr, 1))) {
            return rc;
        }
        t = mca_coll_cloudaware_now() - t0;
        /* Minus the ack's latency, but a noisy latency never eats more than half. */
        t -= (lat < 0.5 * t) ? lat : 0.5 * t;
        if (t < 1e-9) {
            t = 1e-9;
        }
        *bw = (double) bytes / t;
    } else if (CACORE_MEAS_OK != (rc = xfer(x, peer_node, NULL, 0, big, bytes))
               || CACORE_MEAS_OK != (rc = xfer(x, peer_node, ack, 1, NULL, 0))) {
        return rc;
    }
    return CACORE_MEAS_OK;
}

/* B of a direction from its `bw reps` transfers. Alone (concurrency > 0) disturbances only slow a
 * transfer down, so the best one is the network's rate. Shared (concurrency 0) a disturbance of
 * one pair (a stall, a late start) speeds up the pairs it shares a link with as much as it slows
 * itself down, so the median is the estimate (the lab measured +17 % on a shared pair with the
 * best of 2). */
static double bandwidth_of(double *v, int reps, bool shared)
{
    if (!shared) {
        double best = 0.0;
        for (int r = 0; r < reps; r++) {
            best = v[r] > best ? v[r] : best;
        }
        return best;
    }
    qsort(v, (size_t) reps, sizeof(double), compare_double);
    return (reps % 2) ? v[reps / 2] : 0.5 * (v[reps / 2 - 1] + v[reps / 2]);
}

/* The m peers of node k in the capacity phase: the nodes with the highest rates in rate[]
 * (rate[k] ignored; ties and unknown rates (0) by node index). */
static int fan_peers(int n, int k, const double *rate, int *peers)
{
    int m = 0;

    for (int j = 0; j < n; j++) {
        if (j == k || (m == CLOUDAWARE_FAN_PEERS && !(rate[j] > rate[peers[m - 1]]))) {
            continue;   /* itself, or not faster than the slowest of a full list */
        }
        int at = m < CLOUDAWARE_FAN_PEERS ? m++ : m - 1;   /* a full list drops its slowest */
        for (; at > 0 && rate[j] > rate[peers[at - 1]]; at--) {
            peers[at] = peers[at - 1];
        }
        peers[at] = j;
    }
    return m;
}

/* Splits `total` bytes over m peers in proportion to rate[peers[i]] (at least 8 bytes each, for
 * the rate a chunk carries in front; the sum stays <= total when total >= 16 m). false when a
 * rate is unknown. */
static bool fan_split(int m, const int *peers, const double *rate, size_t total, size_t *chunk)
{
    double sum = 0.0;

    for (int i = 0; i < m; i++) {
        if (!(rate[peers[i]] > 0.0)) {
            return false;
        }
        sum += rate[peers[i]];
    }
    for (int i = 0; i < m; i++) {
        chunk[i] = 8 + (size_t) ((double) (total - 8 * (size_t) m) * rate[peers[i]] / sum);
    }
    return true;
}

/* A fan's capacity from its time t: without a node cap its flows end together after
 * `expect` (each chunk at its pair's rate); clearly slower is a cap of the node, whose rate
 * is bytes / t, but never below `fastest`, the fan's fastest pair rate: the node moved that
 * much with that pair alone. 0 = no cap seen. */
static double fan_cap(size_t bytes, double t, double expect, double fastest)
{
    if (!(expect > 0.0 && expect < CLOUDAWARE_CAP_RATIO * t)) {
        return 0.0;
    }
    return (double) bytes / t > fastest ? (double) bytes / t : fastest;
}

/* Whether a fan runs again after a run of time t (the fastest so far: best, the one before:
 * prev, 0 for the first): not when the fastest shows no cap, nor when the last two runs agree
 * within CLOUDAWARE_FAN_AGREE (a cap, seen twice alike; a stall does not repeat itself). */
static bool fan_again(size_t bytes, double t, double prev, double best, double expect,
                      double fastest)
{
    double lo = t < prev ? t : prev, hi = t < prev ? prev : t;

    if (0.0 == fan_cap(bytes, best, expect, fastest)) {
        return false;
    }
    return !(prev > 0.0 && hi - lo <= CLOUDAWARE_FAN_AGREE * lo);
}

/* Go messages of node k's fans to the other leaders (8 bytes): the size of the chunk to send k
 * at once (its ingress fan; 0 = an empty message), or one of these two. */
#define FAN_GO_EGRESS UINT64_MAX         /* take k's egress chunk (or nothing) again, acknowledge */
#define FAN_GO_END (UINT64_MAX - 1)      /* k's fans are done */

/* This node sends chunks[j] bytes of big to every other leader j at once (0: an empty message),
 * then takes every leader's acknowledgement. *t: the time it took. reqs: n request slots. */
static int fan_out(meas_ctx_t *x, mca_coll_cloudaware_row_t *row, char *big, const size_t *chunks,
                   ompi_request_t **reqs, char *ackr, double *t)
{
    int n = x->map->nnodes, me = x->map->my_node, rc;
    double t0 = mca_coll_cloudaware_now();

    for (int j = 0; j < n; j++) {
        reqs[j] = MPI_REQUEST_NULL;
        if (j != me
            && OMPI_SUCCESS != MCA_PML_CALL(isend(big, chunks[j], MPI_BYTE, x->map->leaders[j],
                                                  CLOUDAWARE_TAG_CALIBRATE,
                                                  MCA_PML_BASE_SEND_STANDARD, x->comm,
                                                  &reqs[j]))) {
            (void) wait_all(x, reqs, j);   /* the ones posted: done or parked */
            return CACORE_MEAS_ERROR;
        }
    }
    if (CACORE_MEAS_OK != (rc = wait_all(x, reqs, n))) {
        return rc;
    }
    for (int j = 0; j < n; j++) {   /* the acknowledgements */
        if (j != me && CACORE_MEAS_OK != (rc = xfer(x, j, NULL, 0, ackr, 1))) {
            row->peer = j;
            return rc;
        }
    }
    *t = mca_coll_cloudaware_now() - t0;
    return CACORE_MEAS_OK;
}

/* The lone samples of this node (step 3 of the capacity phase below): `bytes` to its slowest
 * measured peer, then `bytes` to its second slowest, nothing to the others (fan_out, twice).
 * Sets node[LONE] to the first pair's rate alone and node[SHARED] to its rate from the
 * tournament round, node[LONE2] and node[SHARED2] the same for the second; a pair stays 0 when
 * no peer rate is known. A flow alone runs at the least of its pair's own rate and the links it
 * shares: two pairs tell the shared link more often than one (docs/calibration.md, "Shared
 * bottlenecks"). chunks, reqs: n slots. */
static int lone_sample(meas_ctx_t *x, mca_coll_cloudaware_row_t *row, char *big, size_t bytes,
                       size_t *chunks, ompi_request_t **reqs, char *ackr)
{
    int n = x->map->nnodes, me = x->map->my_node, peer[CLOUDAWARE_LONE_SAMPLES], rc;

    for (int s = 0; s < CLOUDAWARE_LONE_SAMPLES; s++) {   /* the slowest peers, in order */
        peer[s] = -1;
        for (int j = 0; j < n; j++) {
            bool taken = false;
            for (int q = 0; q < s; q++) {
                taken = taken || peer[q] == j;
            }
            if (j != me && !taken && row->bw[j] > 0.0
                && (peer[s] < 0 || row->bw[j] < row->bw[peer[s]])) {
                peer[s] = j;
            }
        }
    }
    for (int s = 0; s < CLOUDAWARE_LONE_SAMPLES; s++) {
        _Static_assert(CLOUDAWARE_LONE_SAMPLES == 2, "one pair of node values per sample");
        static const int slot[CLOUDAWARE_LONE_SAMPLES][2] = {
            {CACORE_NODE_LONE, CACORE_NODE_SHARED}, {CACORE_NODE_LONE2, CACORE_NODE_SHARED2}};
        double t, lat;

        memset(chunks, 0, sizeof(size_t) * (size_t) n);
        if (peer[s] >= 0) {
            chunks[peer[s]] = bytes;
        }
        if (CACORE_MEAS_OK != (rc = fan_out(x, row, big, chunks, reqs, ackr, &t))) {
            return rc;
        }
        if (peer[s] < 0 || 0 == bytes) {
            continue;
        }
        lat = row->lat[peer[s]];
        t -= (lat < 0.5 * t) ? lat : 0.5 * t;
        row->node[slot[s][0]] = (double) bytes / (t > 1e-9 ? t : 1e-9);
        row->node[slot[s][1]] = row->bw[peer[s]];
    }
    return CACORE_MEAS_OK;
}

/* Burst credit of node k (docs/calibration.md, "Burst credit"): k sends every other leader a go
 * message, the number of probes it takes (0 = none); its fastest measured peer then takes the
 * probes (CLOUDAWARE_BURST_*: growing sizes, each after an idle gap, acknowledged) while nobody
 * else transfers, and cacore_burst_judge judges each by its time after its round trip against
 * its time at the pair's rate. Sets node[BURST] on k: the largest probe that passed (0: none
 * did). The probes after the judge stops them, or after the largest size, are zero-byte
 * messages. */
static int burst_probe(meas_ctx_t *x, int k, mca_coll_cloudaware_row_t *row, char *big,
                       size_t total, char *go, char *ackr)
{
    int n = x->map->nnodes, me = x->map->my_node, peer = -1, rc, peers[CLOUDAWARE_FAN_PEERS];
    uint64_t cnt;

    if (k != me) {
        if (CACORE_MEAS_OK != (rc = xfer(x, k, NULL, 0, go, sizeof(cnt)))) {
            row->peer = k;
            return rc;
        }
        memcpy(&cnt, go, sizeof(cnt));
        for (uint64_t i = 0; i < cnt && i < CLOUDAWARE_BURST_PROBES; i++) {
            if (CACORE_MEAS_OK != (rc = xfer(x, k, NULL, 0, big, total))
                || CACORE_MEAS_OK != (rc = xfer(x, k, ackr, 1, NULL, 0))) {
                row->peer = k;
                return rc;
            }
        }
        return CACORE_MEAS_OK;
    }
    if (fan_peers(n, me, row->bw, peers) > 0 && row->bw[peers[0]] > 0.0) {
        peer = peers[0];   /* the fastest measured peer */
    }
    for (int j = 0; j < n; j++) {
        if (j == me) {
            continue;
        }
        cnt = (j == peer) ? CLOUDAWARE_BURST_PROBES : 0;
        memcpy(go, &cnt, sizeof(cnt));
        if (CACORE_MEAS_OK != (rc = xfer(x, j, go, sizeof(cnt), NULL, 0))) {
            row->peer = j;
            return rc;
        }
    }
    cacore_burst_state_t probes = {0, 0, 0, 0, 0.0};
    double owed = 0.0;
    for (int i = 0; peer >= 0 && i < CLOUDAWARE_BURST_PROBES; i++) {
        size_t s = (size_t) CLOUDAWARE_BURST_MIN << probes.size;
        bool passing = !probes.stopped && probes.size < CLOUDAWARE_BURST_SIZES && s <= total
                       && (double) s / row->bw[peer] <= CLOUDAWARE_BURST_MAX_S;
        double t0, t;

        if (passing) {   /* idle: the credit builds up, the previous probe is repaid */
            usleep((useconds_t) (1e6 * (CLOUDAWARE_BURST_GAP_S + owed)));
        }
        t0 = mca_coll_cloudaware_now();
        if (CACORE_MEAS_OK != (rc = xfer(x, peer, big, passing ? s : 0, ackr, 1))) {
            row->peer = peer;
            return rc;
        }
        t = mca_coll_cloudaware_now() - t0 - 2.0 * row->lat[peer];
        if (passing) {
            owed = (double) s / row->bw[peer];
            cacore_burst_judge(&probes, t, owed);
        }
    }
    row->node[CACORE_NODE_BURST]
        = probes.passed ? (double) ((size_t) CLOUDAWARE_BURST_MIN << (probes.passed - 1)) : 0.0;
    return CACORE_MEAS_OK;
}

/* Sends every other leader the go message `what` (node_fans). */
static int send_go(meas_ctx_t *x, mca_coll_cloudaware_row_t *row, char *go, uint64_t what)
{
    int n = x->map->nnodes, me = x->map->my_node, rc;

    memcpy(go, &what, sizeof(what));
    for (int j = 0; j < n; j++) {
        if (j != me && CACORE_MEAS_OK != (rc = xfer(x, j, go, sizeof(what), NULL, 0))) {
            row->peer = j;
            return rc;
        }
    }
    return CACORE_MEAS_OK;
}

/* This node's ingress fan: every other leader j gets a go message with chunks[j] (0 = an empty
 * message) and sends that many bytes at once, its rate to this node in front; they land at
 * successive offsets of big. *t: the time it took. reqs: n request slots. */
static int fan_in(meas_ctx_t *x, mca_coll_cloudaware_row_t *row, char *big, const size_t *chunks,
                  ompi_request_t **reqs, char *go, char *ackr, double *t)
{
    int n = x->map->nnodes, me = x->map->my_node, rc;
    size_t off = 0;
    double t0 = mca_coll_cloudaware_now();

    for (int j = 0; j < n; j++) {
        uint64_t sz = (uint64_t) chunks[j];
        reqs[j] = MPI_REQUEST_NULL;
        if (j == me) {
            continue;
        }
        memcpy(go, &sz, sizeof(sz));
        if (CACORE_MEAS_OK != (rc = xfer(x, j, go, sizeof(sz), NULL, 0))) {
            (void) wait_all(x, reqs, j);   /* the receives posted: done or parked */
            row->peer = j;
            return rc;
        }
        if (OMPI_SUCCESS != MCA_PML_CALL(irecv(chunks[j] > 0 ? big + off : ackr, chunks[j],
                                               MPI_BYTE, x->map->leaders[j],
                                               CLOUDAWARE_TAG_CALIBRATE, x->comm, &reqs[j]))) {
            (void) wait_all(x, reqs, j);   /* the ones posted: done or parked */
            return CACORE_MEAS_ERROR;
        }
        off += chunks[j];
    }
    if (CACORE_MEAS_OK != (rc = wait_all(x, reqs, n))) {
        return rc;
    }
    *t = mca_coll_cloudaware_now() - t0;
    return CACORE_MEAS_OK;
}

/* Steps (1) and (2) of the capacity phase below, on node k itself: its egress fan, then its
 * ingress fan, each run again while it shows a cap that its last two runs do not agree on
 * (fan_again), up to CLOUDAWARE_FAN_TRIES times in all, the fastest run counting (a CPU stall of
 * one side holds up one run, a cap every one); then FAN_GO_END to every other leader. Sets
 * node[EGRESS] and node[INGRESS]. chunks, reqs: n slots. */
static int node_fans(meas_ctx_t *x, mca_coll_cloudaware_row_t *row, char *big, size_t total,
                     size_t *chunks, ompi_request_t **reqs, char *go, char *ackr)
{
    int n = x->map->nnodes, me = x->map->my_node, rc, peers[CLOUDAWARE_FAN_PEERS];
    size_t c[CLOUDAWARE_FAN_PEERS], bytes = 0;
    int m = fan_peers(n, me, row->bw, peers);
    bool ok = fan_split(m, peers, row->bw, total, c);
    double lat = 0.0, t, prev = 0.0, best = INFINITY, expect = 0.0, fastest = 0.0;

    memset(chunks, 0, sizeof(size_t) * (size_t) n);
    for (int i = 0; ok && i < m; i++) {
        chunks[peers[i]] = c[i];
        bytes += c[i];
        expect = (double) c[i] / row->bw[peers[i]] > expect
                     ? (double) c[i] / row->bw[peers[i]] : expect;
        lat = row->lat[peers[i]] > lat ? row->lat[peers[i]] : lat;
        fastest = row->bw[peers[i]] > fastest ? row->bw[peers[i]] : fastest;
    }
    /* Egress (zero-byte messages only, when a rate is unknown: the others still follow the
     * protocol); the others take the first run unasked, each later one after FAN_GO_EGRESS. */
    for (int run = 0; run < CLOUDAWARE_FAN_TRIES; run++) {
        if ((run > 0 && CACORE_MEAS_OK != (rc = send_go(x, row, go, FAN_GO_EGRESS)))
            || CACORE_MEAS_OK != (rc = fan_out(x, row, big, chunks, reqs, ackr, &t))) {
            return rc;
        }
        t -= (lat < 0.5 * t) ? lat : 0.5 * t;
        best = t < best ? t : best;
        if (!ok || !fan_again(bytes, t, prev, best, expect, fastest)) {
            break;
        }
        prev = t;
    }
    row->node[CACORE_NODE_EGRESS] = ok ? fan_cap(bytes, best, expect, fastest) : 0.0;
    /* Ingress: sizes follow this node's outbound rates (the inbound ones are the senders'); the
     * test uses the inbound rates the chunks carry. */
    best = INFINITY;
    prev = 0.0;
    for (int run = 0; run < CLOUDAWARE_FAN_TRIES; run++) {
        size_t off = 0;

        if (CACORE_MEAS_OK != (rc = fan_in(x, row, big, chunks, reqs, go, ackr, &t))) {
            return rc;
        }
        t -= (lat < 0.5 * t) ? lat : 0.5 * t;
        best = t < best ? t : best;
        expect = fastest = 0.0;
        for (int j = 0; ok && j < n; j++) {   /* the peers' measured rates to this node */
            double r;
            if (0 == chunks[j]) {
                continue;
            }
            memcpy(&r, big + off, sizeof(double));
            off += chunks[j];
            if (!(isfinite(r) && r > 0.0)) {
                ok = false;
                continue;
            }
            expect = (double) chunks[j] / r > expect ? (double) chunks[j] / r : expect;
            fastest = r > fastest ? r : fastest;
        }
        if (!ok || !fan_again(bytes, t, prev, best, expect, fastest)) {
            break;
        }
        prev = t;
    }
    row->node[CACORE_NODE_INGRESS] = ok ? fan_cap(bytes, best, expect, fastest) : 0.0;
    return send_go(x, row, go, FAN_GO_END);
}

/* The other leaders' side of node k's fans (node_fans): take k's egress chunk (or nothing) and
 * acknowledge, then follow k's go messages until FAN_GO_END: FAN_GO_EGRESS takes the egress
 * chunk again, a size sends k that many bytes of big with this node's rate to k in front. k sends
 * at most 2 CLOUDAWARE_FAN_TRIES go messages; more is an error. */
static int follow_fans(meas_ctx_t *x, int k, mca_coll_cloudaware_row_t *row, char *big,
                       size_t total, char *go, char *ackr)
{
    uint64_t sz = FAN_GO_EGRESS;
    int rc;

    for (int g = 0; g <= 2 * CLOUDAWARE_FAN_TRIES; g++) {
        if (FAN_GO_END == sz) {
            return CACORE_MEAS_OK;
        }
        if (FAN_GO_EGRESS == sz) {
            if (CACORE_MEAS_OK != (rc = xfer(x, k, NULL, 0, big, total))
                || CACORE_MEAS_OK != (rc = xfer(x, k, ackr, 1, NULL, 0))) {
                return rc;
            }
        } else {
            sz = sz > total ? total : sz;   /* never beyond the buffer, whatever arrives */
            if (sz >= sizeof(double)) {
                memcpy(big, &row->bw[k], sizeof(double));
            }
            if (CACORE_MEAS_OK != (rc = xfer(x, k, big, (size_t) sz, NULL, 0))) {
                return rc;
            }
        }
        if (CACORE_MEAS_OK != (rc = xfer(x, k, NULL, 0, go, sizeof(sz)))) {
            return rc;
        }
        memcpy(&sz, go, sizeof(sz));
    }
    return CACORE_MEAS_ERROR;
}

/* The capacity phase (docs/calibration.md, "Node capacity and per-message overhead"): for every
 * node k with node_todo[k], in node order and after a barrier of all leaders:
 *   (1) egress: k sends its m fastest measured peers one chunk each at once, sized in proportion
 *       to the pair rates (so that without a node cap all of them end together, after
 *       total / sum of rates), and a zero-byte message to the other leaders; all acknowledge.
 *   (2) ingress: k sends every leader a go message (the chunk size it is to send, 0 = none),
 *       its m peers send their chunks at once, each with its measured rate to k in front.
 *       A fan that shows a cap runs again (up to CLOUDAWARE_FAN_TRIES in all, node_fans).
 *   (3) lone samples: k sends a quarter of a bulk transfer to its slowest measured peer alone,
 *       then one to its second slowest (the other leaders get a zero-byte message each time,
 *       and all acknowledge), while nobody else transfers: the pairs' rates without their
 *       rounds' other pairs (docs/calibration.md, "Shared bottlenecks").
 *   (4) burst credit (burst_probe), also with two nodes; (1)-(3) need three.
 * A fan whose fastest run takes clearly longer than its pairs' rates allow measured a cap of
 * the node: E (or I) = bytes / time, at least the fan's fastest pair rate. Peers are the fastest
 * paths, the least likely to cross a shared uplink. Chunks total at most `total` bytes (one bulk
 * transfer). */
static int node_phase(meas_ctx_t *x, const unsigned char *node_todo, mca_coll_cloudaware_row_t *row,
                      char *big, size_t total, char *scratch, char *syncs, char *syncr)
{
    int n = x->map->nnodes, me = x->map->my_node, rc;
    /* scratch: 16 bytes for the go message (a size), and a byte for acknowledgements */
    char *go = scratch, *ackr = scratch + 16;
    ompi_request_t **reqs = calloc((size_t) n, sizeof(*reqs));
    size_t *chunks = calloc((size_t) n, sizeof(size_t));

    if (NULL == reqs || NULL == chunks) {
        free(reqs);
        free(chunks);
        return CACORE_MEAS_NOMEM;
    }
    row->node[CACORE_NODE_EGRESS] = row->node[CACORE_NODE_INGRESS] = 0.0;
    row->node[CACORE_NODE_LONE] = row->node[CACORE_NODE_SHARED] = 0.0;
    row->node[CACORE_NODE_LONE2] = row->node[CACORE_NODE_SHARED2] = 0.0;
    row->node[CACORE_NODE_BURST] = 0.0;
    for (int k = 0; k < n; k++) {
        if (!node_todo[k]) {
            continue;
        }
        if (CACORE_MEAS_OK != (rc = leader_barrier(x, syncs, syncr, &row->peer))) {
            goto out;
        }
        if (n < 3) {
            /* with one peer a fan is a pair: nothing to tell apart */
        } else if (k == me) {
            if (CACORE_MEAS_OK != (rc = node_fans(x, row, big, total, chunks, reqs, go, ackr))
                || CACORE_MEAS_OK != (rc = lone_sample(x, row, big,
                                                        total / (2 * CLOUDAWARE_LONE_SAMPLES),
                                                        chunks, reqs, ackr))) {
                goto out;
            }
        } else {
            if (CACORE_MEAS_OK != (rc = follow_fans(x, k, row, big, total, go, ackr))) {
                row->peer = k;
                goto out;
            }
            /* Lone samples of k: take each of its messages (a quarter transfer or nothing),
             * acknowledge. */
            for (int s = 0; s < CLOUDAWARE_LONE_SAMPLES; s++) {
                if (CACORE_MEAS_OK != (rc = xfer(x, k, NULL, 0, big, total))
                    || CACORE_MEAS_OK != (rc = xfer(x, k, ackr, 1, NULL, 0))) {
                    row->peer = k;
                    goto out;
                }
            }
        }
        if (CACORE_MEAS_OK != (rc = burst_probe(x, k, row, big, total, go, ackr))) {
            goto out;
        }
    }
    rc = CACORE_MEAS_OK;
out:
    free(reqs);
    free(chunks);
    return rc;
}

/* Partner of node i in round r of the circle method over m slots (m even). */
static int partner(int i, int r, int m)
{
    int k = m - 1;

    if (i == k) {
        return (int) (((long) r * (m / 2)) % k);   /* the j with 2j == r (mod k) */
    }
    int j = ((r - i) % k + k) % k;
    return (j == i) ? k : j;
}

void mca_coll_cloudaware_measure(struct ompi_communicator_t *comm,
                                 const mca_coll_cloudaware_nodemap_t *map,
                                 const unsigned char *todo, const unsigned char *node_todo,
                                 double deadline, mca_coll_cloudaware_row_t *row)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    int n = map->nnodes, me = map->my_node, m = n + (n % 2), rounds = m - 1;
    size_t lbytes = (size_t) (c->calib_latency_bytes > 0 ? c->calib_latency_bytes : 1);
    size_t bbytes = (size_t) (c->calib_bandwidth_bytes > 0 ? c->calib_bandwidth_bytes : 1);

    int lreps = c->calib_latency_reps > 0 ? c->calib_latency_reps : 1;
    int breps = c->calib_bandwidth_reps > 0 ? c->calib_bandwidth_reps : 1;
    int conc = c->calib_concurrency, *seq_a = NULL;
    /* Pair counts reach n * (n - 1) / 2: 64-bit (long long) to never overflow. */
    long long npairs = 0, *round_first = NULL;
    meas_ctx_t x = { comm, map, deadline, { NULL, 0, 0 }, false };
    /* One block for every buffer a request reads or writes, so that it can be parked whole. */
    /* The capacity phase's fans split one bulk transfer's bytes, at least 16 per peer. */
    if (bbytes < 16 * CLOUDAWARE_FAN_PEERS) {
        bbytes = 16 * CLOUDAWARE_FAN_PEERS;
    }
    char *block = calloc(1, 2 * lbytes + bbytes + 64);
    char *sbuf = block, *rbuf = block + lbytes, *big = block + 2 * lbytes;
    double *samples = calloc((size_t) lreps, sizeof(double));
    double *bwv = calloc((size_t) breps, sizeof(double));
    double *gaps = calloc((size_t) n, sizeof(double));   /* per-message overhead per peer */
    int ngaps = 0;
    bool verbose_leader = (map->leaders[0] == map->my_rank);
    char *tok = NULL, *syncs = NULL, *syncr = NULL;

    row->status = CACORE_MEAS_OK;
    row->peer = -1;
    for (int k = 0; k < CACORE_NODE_VALUES; k++) {
        row->node[k] = 0.0;
    }
    /* The measuring pairs of all rounds in token order: round by round, in a round by lower
     * node. seq_a[g] = lower node of pair g; round r's pairs are g in [round_first[r],
     * round_first[r + 1]). Identical on every leader (same todo, same circle). */
    seq_a = calloc((size_t) n * (size_t) (n - 1) / 2 + 1, sizeof(int));
    round_first = calloc((size_t) (rounds + 1), sizeof(long long));
    if (NULL == block || NULL == samples || NULL == bwv || NULL == gaps
        || NULL == seq_a || NULL == round_first
        || mca_coll_cloudaware_test_fail_here(CACORE_FAIL_MEASURE)) {
        /* Reported like any measurement failure; the peers time out waiting for this node. */
        row->status = CACORE_MEAS_NOMEM;
        goto out;
    }
    for (int r = 0; r < rounds; r++) {
        round_first[r] = npairs;
        for (int i = 0; i < n; i++) {
            int j = partner(i, r, m);
            if (i < j && j < n && todo[(size_t) i * n + j]) {
                seq_a[npairs++] = i;
            }
        }
    }
    round_first[rounds] = npairs;
    memset(big, 0x5a, bbytes);
    tok = big + bbytes + 16;   /* after ack (+0) and ackr (+8), see bandwidth_pass */
    syncs = big + bbytes + 24;
    syncr = big + bbytes + 25;

    /* Test hook: this node's leader stalls before measuring. */
    if (c->test_sleep > 0 && c->test_sleep_node == me) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: calibration test hook: node %d (%s) sleeps %d s "
                            "(pid %d)", me, map->hosts[me], c->test_sleep, (int) getpid());
        sleep((unsigned) c->test_sleep);
    }
    if (mca_coll_cloudaware_now() > deadline) {
        row->status = CACORE_MEAS_LATE;
        goto out;
    }

    for (int r = 0; r < rounds; r++) {
        int p = partner(me, r, m), a, b;
        long long g = -1;
        /* Concurrency 0: the round's bulk phases start together (see the top of the file). */
        bool first, sync = (conc <= 0 && round_first[r + 1] - round_first[r] > 1);
        double lat_mine = 0.0, gap = 0.0;

        if (verbose_leader) {
            opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                                "coll:cloudaware: calibration: round %d of %d (%lld pairs)",
                                r + 1, rounds, round_first[r + 1] - round_first[r]);
        }
        if (p >= n || !todo[(size_t) me * n + p]) {
            /* A bye, or a pair already known: only the round's barriers. */
            for (int k = 0; sync && k < 2 * breps; k++) {
                if (CACORE_MEAS_OK
                    != (row->status = leader_barrier(&x, syncs, syncr, &row->peer))) {
                    goto out;
                }
            }
            continue;
        }
        a = me < p ? me : p;
        b = me < p ? p : me;
        first = (me == a);
        for (long long k = round_first[r]; k < round_first[r + 1]; k++) {
            if (seq_a[k] == a) {
                g = k;   /* my pair's place in the token sequence */
            }
        }

        /* 1-2: latency, each side initiating once. */
        if (CACORE_MEAS_OK != (row->status = latency_pass(&x, p, first, sbuf, rbuf, lbytes,
                                                              lreps, samples, &lat_mine, &gap))
            || CACORE_MEAS_OK != (row->status = latency_pass(&x, p, !first, sbuf, rbuf,
                                                                 lbytes, lreps, samples,
                                                                 &lat_mine, &gap))) {
            row->peer = p;
            goto out;
        }
        row->lat[p] = lat_mine;
        gaps[ngaps++] = gap;

        /* 3-4: bandwidth, after pair g - conc has finished when concurrency is limited (its
         * lower node sends the token; none needed when that is this node: it finished it). */
        if (first && conc > 0 && g >= conc && seq_a[g - conc] != me) {
            if (CACORE_MEAS_OK
                != (row->status = xfer_tag(&x, seq_a[g - conc], NULL, 0, tok, 1,
                                           CLOUDAWARE_TAG_TOKEN))) {
                row->peer = seq_a[g - conc];
                goto out;
            }
        }
        row->bw[p] = 0.0;
        for (int k = 0; k < 2 * breps; k++) {   /* a -> b (breps times), then b -> a */
            if (sync && CACORE_MEAS_OK
                            != (row->status = leader_barrier(&x, syncs, syncr, &row->peer))) {
                goto out;
            }
            if (CACORE_MEAS_OK
                != (row->status = bandwidth_pass(&x, p, me == (k < breps ? a : b), big, bbytes,
                                                 lat_mine, &bwv[k % breps]))) {
                row->peer = p;
                goto out;
            }
            if (k == (me == a ? breps - 1 : 2 * breps - 1)) {   /* my direction is complete */
                row->bw[p] = bandwidth_of(bwv, breps, conc <= 0);
            }
        }
        if (first && conc > 0 && g >= 0 && g + conc < npairs && seq_a[g + conc] != me) {
            if (CACORE_MEAS_OK
                != (row->status = xfer_tag(&x, seq_a[g + conc], tok, 1, NULL, 0,
                                           CLOUDAWARE_TAG_TOKEN))) {
                row->peer = seq_a[g + conc];
                goto out;
            }
        }
    }

    /* The node's overhead: the median over its peers (0 when it measured no pair). */
    if (ngaps > 0) {
        qsort(gaps, (size_t) ngaps, sizeof(double), compare_double);
        row->node[CACORE_NODE_OVERHEAD] = (ngaps % 2) ? gaps[ngaps / 2]
                                      : 0.5 * (gaps[ngaps / 2 - 1] + gaps[ngaps / 2]);
    }
    double t_phase = mca_coll_cloudaware_now();
    row->status = node_phase(&x, node_todo, row, big, bbytes, big + bbytes + 32, syncs, syncr);
    if (verbose_leader) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: calibration: node capacity phase took %.3f s",
                            mca_coll_cloudaware_now() - t_phase);
    }

out:
    free(samples);
    free(bwv);
    free(gaps);
    free(seq_a);
    free(round_first);
    if (x.abandoned.n > 0) {   /* they may still read or write the block */
        mca_coll_cloudaware_sends_park(&x.abandoned, block, !x.leaked);
    } else if (!x.leaked) {
        free(block);
    }
}
