/*
 * The measurement tournament among node leaders (CMPI §3.1), over the PML on the communicator
 * being calibrated (the path the collectives use).
 *
 * Round-robin tournament (circle method): N-1 rounds (N rounded up to even; the extra slot is a
 * bye), in each round every leader meets one other leader, so the pairs of a round are disjoint.
 * For a pair (a, b), a < b, in that order:
 *   1. latency a: a pings b `reps` times (plus one unmeasured warm-up); L[a][b] = median RTT / 2
 *   2. latency b: the same, b initiating;                               L[b][a] = median RTT / 2
 *   3. bandwidth a->b: a sends `bytes`, b answers with a small ack;
 *                      B[a][b] = bytes / (elapsed - L[a][b])   (best of `bw reps`)
 *   4. bandwidth b->a: the same the other way.
 * Ping-pong cannot tell the two one-way latencies apart without synchronized clocks, so the two
 * latency directions differ only by noise; bandwidth is measured per direction.
 *
 * coll_cloudaware_calibrate_concurrency limits how many pairs of a round move bulk data at once
 * (a token passes from pair p to pair p+k), so shared links (rack uplinks) do not distort
 * per-pair rates. Latency ping-pongs of a round always run concurrently.
 *
 * Every wait has the calibration deadline: when it passes, outstanding receives are cancelled,
 * requests are abandoned (their buffers deliberately leaked) and the leader reports TIMEOUT with
 * the peer it waited for. Leaders never decide to fall back themselves: the statuses travel in
 * the exchange, and every rank decides from the same data.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"

#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/runtime/opal_progress.h"

double mca_coll_cloudaware_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

typedef struct {
    struct ompi_communicator_t *comm;
    const mca_coll_cloudaware_nodemap_t *map;
    double deadline;
    bool leaked;      /* a request was abandoned: its buffers must stay allocated */
} meas_ctx_t;

/* mpi_yield_when_idle (set by mpirun when oversubscribed). MPI_Init applies it to opal_progress
 * only after coll selection, so eager calibration of MPI_COMM_WORLD reads it here. */
static bool yield_when_idle(void)
{
    static int cached = -1;
    const void *value = NULL;
    int idx;

    if (cached < 0) {
        cached = opal_progress_yield_when_idle ? 1 : 0;
        idx = mca_base_var_find("ompi", "mpi", NULL, "yield_when_idle");
        if (idx >= 0 && OPAL_SUCCESS == mca_base_var_get_value(idx, &value, NULL, NULL)
            && NULL != value && *(const bool *) value) {
            cached = 1;
        }
    }
    return 1 == cached;
}

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
                return CLOUDAWARE_MEAS_ERROR;
            }
            if (!flag) {
                all = false;
            }
        }
        if (all) {
            return CLOUDAWARE_MEAS_OK;
        }
        if (mca_coll_cloudaware_now() > x->deadline) {
            for (int i = 0; i < n; i++) {
                if (MPI_REQUEST_NULL != reqs[i]) {
                    ompi_request_cancel(reqs[i]);
                    ompi_request_free(&reqs[i]);
                    x->leaked = true;
                }
            }
            return CLOUDAWARE_MEAS_TIMEOUT;
        }
        opal_progress();
        if (yield_when_idle()) {
            sched_yield();   /* oversubscribed: let the peer run */
        }
    }
}

/* send and/or receive (NULL buffers skip that half) with peer node's leader, until deadline. */
static int xfer(meas_ctx_t *x, int peer_node, const void *sbuf, size_t slen, void *rbuf,
                size_t rlen)
{
    ompi_request_t *reqs[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    int peer = x->map->leaders[peer_node], rc;

    if (NULL != rbuf) {
        rc = MCA_PML_CALL(irecv(rbuf, rlen, MPI_BYTE, peer, CLOUDAWARE_TAG_CALIBRATE, x->comm,
                                &reqs[0]));
        if (OMPI_SUCCESS != rc) {
            return CLOUDAWARE_MEAS_ERROR;
        }
    }
    if (NULL != sbuf) {
        rc = MCA_PML_CALL(isend((void *) sbuf, slen, MPI_BYTE, peer, CLOUDAWARE_TAG_CALIBRATE,
                                MCA_PML_BASE_SEND_STANDARD, x->comm, &reqs[1]));
        if (OMPI_SUCCESS != rc) {
            wait_all(x, reqs, 1);
            return CLOUDAWARE_MEAS_ERROR;
        }
    }
    return wait_all(x, reqs, 2);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* One latency pass: initiator pings, the other echoes. Returns status; *lat = median RTT/2. */
static int latency_pass(meas_ctx_t *x, int peer_node, bool initiator, char *sbuf, char *rbuf,
                        size_t bytes, int reps, double *samples, double *lat)
{
    int rc;

    for (int r = 0; r <= reps; r++) {   /* r == 0: warm-up (connection setup), not counted */
        if (initiator) {
            double t0 = mca_coll_cloudaware_now();
            rc = xfer(x, peer_node, sbuf, bytes, rbuf, bytes);
            if (CLOUDAWARE_MEAS_OK != rc) {
                return rc;
            }
            if (r > 0) {
                samples[r - 1] = (mca_coll_cloudaware_now() - t0) / 2.0;
            }
        } else {
            if (CLOUDAWARE_MEAS_OK != (rc = xfer(x, peer_node, NULL, 0, rbuf, bytes))
                || CLOUDAWARE_MEAS_OK != (rc = xfer(x, peer_node, sbuf, bytes, NULL, 0))) {
                return rc;
            }
        }
    }
    if (initiator) {
        qsort(samples, (size_t) reps, sizeof(double), compare_double);
        *lat = (reps % 2) ? samples[reps / 2]
                          : 0.5 * (samples[reps / 2 - 1] + samples[reps / 2]);
    }
    return CLOUDAWARE_MEAS_OK;
}

/* One bandwidth direction: sender sends bytes, receiver acks. Returns status; *bw on sender. */
static int bandwidth_pass(meas_ctx_t *x, int peer_node, bool sender, char *big, size_t bytes,
                          int reps, double lat, double *bw)
{
    char *ack = big + bytes, *ackr = big + bytes + 8;   /* small buffers after the big one */
    int rc;

    for (int r = 0; r < reps; r++) {
        if (sender) {
            double t0 = mca_coll_cloudaware_now(), t;
            if (CLOUDAWARE_MEAS_OK != (rc = xfer(x, peer_node, big, bytes, ackr, 1))) {
                return rc;
            }
            t = mca_coll_cloudaware_now() - t0;
            /* Minus the ack's latency, but a noisy latency never eats more than half. */
            t -= (lat < 0.5 * t) ? lat : 0.5 * t;
            if (t < 1e-9) {
                t = 1e-9;
            }
            if ((double) bytes / t > *bw) {
                *bw = (double) bytes / t;   /* best of reps: the least disturbed transfer */
            }
        } else {
            if (CLOUDAWARE_MEAS_OK != (rc = xfer(x, peer_node, NULL, 0, big, bytes))
                || CLOUDAWARE_MEAS_OK != (rc = xfer(x, peer_node, ack, 1, NULL, 0))) {
                return rc;
            }
        }
    }
    return CLOUDAWARE_MEAS_OK;
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
                                 const unsigned char *todo, double deadline,
                                 mca_coll_cloudaware_row_t *row)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    int n = map->nnodes, me = map->my_node, m = n + (n % 2), rounds = m - 1;
    size_t lbytes = (size_t) (c->calib_latency_bytes > 0 ? c->calib_latency_bytes : 1);
    size_t bbytes = (size_t) (c->calib_bandwidth_bytes > 0 ? c->calib_bandwidth_bytes : 1);
    int lreps = c->calib_latency_reps > 0 ? c->calib_latency_reps : 1;
    int breps = c->calib_bandwidth_reps > 0 ? c->calib_bandwidth_reps : 1;
    int conc = c->calib_concurrency;
    meas_ctx_t x = { comm, map, deadline, false };
    char *sbuf = calloc(1, lbytes), *rbuf = calloc(1, lbytes), *big = calloc(1, bbytes + 24);
    double *samples = calloc((size_t) lreps, sizeof(double));
    int *pairs_a = calloc((size_t) (m / 2 + 1), sizeof(int));
    bool verbose_leader = (map->leaders[0] == map->my_rank);
    char *tok = NULL;

    row->status = CLOUDAWARE_MEAS_OK;
    row->peer = -1;
    if (NULL == sbuf || NULL == rbuf || NULL == big || NULL == samples || NULL == pairs_a) {
        row->status = CLOUDAWARE_MEAS_ERROR;
        goto out;
    }
    memset(big, 0x5a, bbytes);
    tok = big + bbytes + 16;

    /* Test hook: this node's leader stalls before measuring. */
    if (c->test_sleep > 0 && c->test_sleep_node == me) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: calibration test hook: node %d (%s) sleeps %d s",
                            me, map->hosts[me], c->test_sleep);
        sleep((unsigned) c->test_sleep);
    }
    if (mca_coll_cloudaware_now() > deadline) {
        row->status = CLOUDAWARE_MEAS_LATE;
        goto out;
    }

    for (int r = 0; r < rounds; r++) {
        int p = partner(me, r, m), a, b, npairs = 0, mypair = -1;
        bool first;
        double lat_mine = 0.0;

        /* The measuring pairs of this round, in order of their lower node: the token order. */
        for (int i = 0; i < n; i++) {
            int j = partner(i, r, m);
            if (i < j && j < n && todo[i * n + j]) {
                if (i == me || j == me) {
                    mypair = npairs;
                }
                pairs_a[npairs++] = i;
            }
        }
        if (verbose_leader) {
            opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                                "coll:cloudaware: calibration: round %d of %d (%d pairs)", r + 1,
                                rounds, npairs);
        }
        if (p >= n || !todo[me * n + p]) {
            continue;   /* a bye, or a pair already known */
        }
        a = me < p ? me : p;
        b = me < p ? p : me;
        first = (me == a);

        /* 1-2: latency, each side initiating once. */
        if (CLOUDAWARE_MEAS_OK != (row->status = latency_pass(&x, p, first, sbuf, rbuf, lbytes,
                                                              lreps, samples, &lat_mine))
            || CLOUDAWARE_MEAS_OK != (row->status = latency_pass(&x, p, !first, sbuf, rbuf,
                                                                 lbytes, lreps, samples,
                                                                 &lat_mine))) {
            row->peer = p;
            goto out;
        }
        row->lat[p] = lat_mine;

        /* 3-4: bandwidth, under the round's token when concurrency is limited. */
        if (first && conc > 0 && mypair >= conc) {
            if (CLOUDAWARE_MEAS_OK
                != (row->status = xfer(&x, pairs_a[mypair - conc], NULL, 0, tok, 1))) {
                row->peer = pairs_a[mypair - conc];
                goto out;
            }
        }
        row->bw[p] = 0.0;
        if (CLOUDAWARE_MEAS_OK != (row->status = bandwidth_pass(&x, p, me == a, big, bbytes,
                                                                breps, lat_mine, &row->bw[p]))
            || CLOUDAWARE_MEAS_OK != (row->status = bandwidth_pass(&x, p, me == b, big, bbytes,
                                                                   breps, lat_mine,
                                                                   &row->bw[p]))) {
            row->peer = p;
            goto out;
        }
        if (first && conc > 0 && mypair + conc < npairs) {
            if (CLOUDAWARE_MEAS_OK
                != (row->status = xfer(&x, pairs_a[mypair + conc], tok, 1, NULL, 0))) {
                row->peer = pairs_a[mypair + conc];
                goto out;
            }
        }
    }

out:
    free(samples);
    free(pairs_a);
    if (!x.leaked) {   /* otherwise an abandoned request may still read or write them */
        free(sbuf);
        free(rbuf);
        free(big);
    }
}
