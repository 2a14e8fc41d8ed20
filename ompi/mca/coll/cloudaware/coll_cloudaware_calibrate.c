/*
 * Calibration of one communicator: find (or measure) the latency/bandwidth matrix of its nodes,
 * so that every rank ends with the SAME matrix or every rank agrees to fall back.
 *
 * Protocol (all ranks of the communicator; docs/calibration.md):
 *   0. node map (local, identical everywhere; coll_cloudaware_nodes.c)
 *   1. exchange "p1", contributor = rank 0: rank 0 looks the node set up in its process store
 *      (earlier calibrations, the matrix file) and, for what is missing, in the cache; it
 *      publishes the known pairs with their values and the action: READY (nothing missing),
 *      MEASURE (missing pairs; the todo set), or FAIL (missing pairs and calibrate=off).
 *      Everyone adopts rank 0's values, so matrices are identical even when processes learnt
 *      different things before.
 *   2. MEASURE only: node leaders run the tournament over the todo pairs with a deadline
 *      (start + coll_cloudaware_calibrate_budget); non-leaders do not measure.
 *   3. exchange "p2", contributors = node leaders: status + measured outbound row. Every rank
 *      decides from the same rows: all OK -> READY with the assembled matrix; otherwise FAIL
 *      with one cause. Only rank 0 prints (the warning, the summary, the dump, the cache).
 * The result joins the process store: later communicators over the same (or fewer) nodes
 * measure nothing.
 */
#include "ompi_config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_cache.h"
#include "coll_cloudaware_calibrate.h"
#include "coll_cloudaware_store.h"

mca_coll_cloudaware_calib_stats_t mca_coll_cloudaware_calib_stats;
static int stats_world_rank = -1;
static bool dumped = false;
static bool file_gap_warned = false;
static bool cache_dir_warned = false;
/* Node sets whose calibration failed in this process: later communicators over them fall back
 * at once (decided by their rank 0, like everything else) and quietly. */
#define MAX_FAILED_KEYS 64
static uint64_t failed_keys[MAX_FAILED_KEYS];
static int nfailed_keys = 0;

static bool key_failed(uint64_t key)
{
    for (int i = 0; i < nfailed_keys; i++) {
        if (failed_keys[i] == key) {
            return true;
        }
    }
    return false;
}

static void cache_warning(const char *what, const char *why)
{
    bool dir = (0 == strncmp(why, "cache directory", 15));

    if (dir && cache_dir_warned) {
        return;
    }
    cache_dir_warned = cache_dir_warned || dir;
    opal_output(0, "coll:cloudaware: warning: %s%s", what, why);
}

#define P1_MAGIC 0x43415031u   /* "CAP1" */
#define P2_MAGIC 0x43415032u   /* "CAP2" */

enum { P1_READY = 0, P1_MEASURE = 1, P1_FAIL = 2 };

typedef struct {
    uint32_t magic;
    uint32_t action;
    int32_t n;
    int32_t todo_pairs;
    uint64_t key;
    int32_t quiet;     /* P1_FAIL already reported for this node set */
    int32_t pad;
    char source[64];   /* where rank 0's values came from (verbose) */
    char cause[256];   /* P1_FAIL */
} p1_hdr_t;

typedef struct {
    uint32_t magic;
    int32_t node;
    int32_t status;
    int32_t peer;
    uint64_t key;
} p2_hdr_t;

static const char *mode_name(int mode)
{
    return CLOUDAWARE_CALIBRATE_EAGER == mode ? "eager"
         : CLOUDAWARE_CALIBRATE_LAZY == mode ? "lazy" : "off";
}

void mca_coll_cloudaware_netview_free(mca_coll_cloudaware_netview_t *net)
{
    if (NULL == net) {
        return;
    }
    mca_coll_cloudaware_nodemap_free(net->map);
    cacore_matrix_free(net->matrix);
    free(net);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* min / median / max of the off-diagonal entries. */
static void stats3(const double *v, int n, double *mn, double *med, double *mx)
{
    int k = 0;
    double *tmp = malloc(sizeof(double) * (size_t) (n * n > 0 ? n * n : 1));

    *mn = *med = *mx = 0.0;
    if (NULL == tmp) {
        return;
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if (i != j) {
                tmp[k++] = v[i * n + j];
            }
        }
    }
    if (k > 0) {
        qsort(tmp, (size_t) k, sizeof(double), compare_double);
        *mn = tmp[0];
        *mx = tmp[k - 1];
        *med = (k % 2) ? tmp[k / 2] : 0.5 * (tmp[k / 2 - 1] + tmp[k / 2]);
    }
    free(tmp);
}

static void summary(struct ompi_communicator_t *comm, const mca_coll_cloudaware_nodemap_t *map,
                    const double *L, const double *B, int measured, double elapsed,
                    const char *how)
{
    int n = map->nnodes, asym = 0, pairs = n * (n - 1) / 2;
    double lmin, lmed, lmax, bmin, bmed, bmax;

    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            double a = B[i * n + j], b = B[j * n + i], hi = a > b ? a : b;
            if (hi > 0 && fabs(a - b) / hi > 0.10) {
                asym++;
            }
        }
    }
    stats3(L, n, &lmin, &lmed, &lmax);
    stats3(B, n, &bmin, &bmed, &bmax);
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                        "coll:cloudaware: calibration summary for %s: %d nodes, %d of %d pairs "
                        "measured in %.3f s (%s exchange); latency min/median/max "
                        "%.1f/%.1f/%.1f us; bandwidth min/median/max %.3g/%.3g/%.3g MB/s; "
                        "asymmetric pairs (>10%%) %d of %d", comm->c_name, n, measured, pairs,
                        elapsed, how, lmin * 1e6, lmed * 1e6, lmax * 1e6, bmin / 1e6,
                        bmed / 1e6, bmax / 1e6, asym, pairs);
}

/* Rank 0's view of the node set: the store, then (for what is missing) the cache and, for
 * hosts the matrix file does not cover, one warning. Fills the p1 blob. */
static void root_view(const mca_coll_cloudaware_nodemap_t *map, p1_hdr_t *h, unsigned char *known,
                      double *L, double *B)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    int n = map->nnodes, have, all = n * (n - 1), todo = 0;
    char why[1024];

    have = mca_coll_cloudaware_store_lookup(n, map->hosts, L, B, known);
    snprintf(h->source, sizeof(h->source), "this process's store");
    if (have < all) {
        if (mca_coll_cloudaware_cache_load(n, map->hosts, map->key, L, B, known, why,
                                           sizeof(why))) {
            have = all;
            mca_coll_cloudaware_calib_stats.cache_hits++;
            snprintf(h->source, sizeof(h->source), "the cache");
            opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                                "coll:cloudaware: calibration: cache hit for %d nodes (key "
                                "%016llx)", n, (unsigned long long) map->key);
            (void) mca_coll_cloudaware_store_merge(n, map->hosts, L, B, known);
        } else if ('\0' != why[0]) {
            char tail[1100];
            snprintf(tail, sizeof(tail), "%s; %s", why,
                     0 == strncmp(why, "cache directory", 15) ? "not using the cache"
                     : CLOUDAWARE_CALIBRATE_OFF == c->calibrate_mode ? "not using it"
                                                                     : "measuring instead");
            cache_warning("", tail);
        }
    }
    if (have < all && NULL != mca_coll_cloudaware_store_matrix_file() && !file_gap_warned) {
        const cacore_matrix_t *f = mca_coll_cloudaware_store_matrix_file();
        for (int i = 0; i < n; i++) {
            if (cacore_matrix_find_host(f, map->hosts[i]) < 0) {
                file_gap_warned = true;
                opal_output(0, "coll:cloudaware: warning: coll_cloudaware_matrix_file %s does "
                            "not cover host %s (a matrix for other hosts?); %s",
                            c->matrix_file, map->hosts[i],
                            CLOUDAWARE_CALIBRATE_OFF == c->calibrate_mode
                                ? "calibrate=off: falling back" : "measuring instead");
                break;
            }
        }
    }
    h->magic = P1_MAGIC;
    h->n = n;
    h->key = map->key;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            if (!known[i * n + j] || !known[j * n + i]) {
                todo++;
            }
        }
    }
    h->todo_pairs = todo;
    if (0 == todo) {
        h->action = P1_READY;
    } else if (key_failed(map->key)) {
        h->action = P1_FAIL;
        h->quiet = 1;
        snprintf(h->cause, sizeof(h->cause), "an earlier calibration of these %d nodes failed "
                 "in this job", n);
    } else if (CLOUDAWARE_CALIBRATE_OFF == c->calibrate_mode) {
        h->action = P1_FAIL;
        snprintf(h->cause, sizeof(h->cause),
                 "%d node pairs are unknown (no matrix file or cache entry covers them) and "
                 "coll_cloudaware_calibrate=off", todo);
    } else {
        h->action = P1_MEASURE;
    }
}

/* The agreed cause of a failed measurement, computed from the rows every rank holds. */
static void failure_cause(const mca_coll_cloudaware_nodemap_t *map, p2_hdr_t **hdr, char *cause,
                          size_t len)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    int n = map->nnodes, *awaited = calloc((size_t) n, sizeof(int)), worst = -1;

    for (int i = 0; i < n; i++) {
        if (CLOUDAWARE_MEAS_LATE == hdr[i]->status) {
            snprintf(cause, len, "the leader of node %s (rank %d) started measuring after the "
                     "time budget (coll_cloudaware_calibrate_budget = %g s) had run out",
                     map->hosts[i], map->leaders[i], c->calib_budget);
            free(awaited);
            return;
        }
    }
    for (int i = 0; i < n; i++) {
        if (CLOUDAWARE_MEAS_ERROR == hdr[i]->status) {
            snprintf(cause, len, "point-to-point error on node %s talking to node %s",
                     map->hosts[i], hdr[i]->peer >= 0 ? map->hosts[hdr[i]->peer] : "?");
            free(awaited);
            return;
        }
    }
    if (NULL != awaited) {
        for (int i = 0; i < n; i++) {
            if (CLOUDAWARE_MEAS_TIMEOUT == hdr[i]->status && hdr[i]->peer >= 0) {
                awaited[hdr[i]->peer]++;
            }
        }
        for (int i = 0; i < n; i++) {
            if (awaited[i] > 0 && (worst < 0 || awaited[i] > awaited[worst])) {
                worst = i;
            }
        }
    }
    if (worst >= 0) {
        snprintf(cause, len, "the time budget (coll_cloudaware_calibrate_budget = %g s) ran out "
                 "waiting for the leader of node %s (rank %d)", c->calib_budget,
                 map->hosts[worst], map->leaders[worst]);
    } else {
        snprintf(cause, len, "the time budget (coll_cloudaware_calibrate_budget = %g s) ran out",
                 c->calib_budget);
    }
    free(awaited);
}

static void fail_quiet(mca_coll_cloudaware_netview_t *net, struct ompi_communicator_t *comm,
                       const char *cause, bool quiet)
{
    net->state = CLOUDAWARE_NET_FAILED;
    mca_coll_cloudaware_calib_stats.failures++;
    if (!key_failed(net->map->key) && nfailed_keys < MAX_FAILED_KEYS) {
        failed_keys[nfailed_keys++] = net->map->key;
    }
    if (quiet) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: no calibration for %s: %s; previous collectives",
                            comm->c_name, cause);
    } else if (0 == net->map->my_rank) {
        opal_output(0, "coll:cloudaware: warning: calibration of %s (%d nodes) failed: %s; this "
                    "communicator uses the previous collectives", comm->c_name,
                    net->map->nnodes, cause);
    }
}

static void fail(mca_coll_cloudaware_netview_t *net, struct ompi_communicator_t *comm,
                 const char *cause)
{
    fail_quiet(net, comm, cause, false);
}

static int calibrate(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    mca_coll_cloudaware_netview_t *net = m->net;
    mca_coll_cloudaware_nodemap_t *map = net->map;
    int n = map->nnodes, nn = n * n, measured = 0, root = 0;
    double start = mca_coll_cloudaware_now(), deadline = start + c->calib_budget;
    size_t p1len = sizeof(p1_hdr_t) + (size_t) nn * (1 + 2 * sizeof(double));
    size_t p2len = sizeof(p2_hdr_t) + (size_t) n * 2 * sizeof(double);
    char *p1 = calloc(1, p1len), *p2 = NULL, err[512], cause[512];
    void **rows = calloc((size_t) n, sizeof(void *));
    size_t *rowlen = calloc((size_t) n, sizeof(size_t));
    p2_hdr_t **hdr = calloc((size_t) n, sizeof(p2_hdr_t *));
    void *got = NULL;
    size_t gotlen = 0;
    const char *how = "no";
    double *L = NULL, *B = NULL;
    unsigned char *known, *todo = NULL;
    p1_hdr_t *h;

    if (stats_world_rank < 0) {
        stats_world_rank = ompi_comm_rank(&ompi_mpi_comm_world.comm);
    }
    if (NULL == p1 || NULL == rows || NULL == rowlen || NULL == hdr) {
        /* Without these buffers this rank cannot take part in the exchange. Known gap: the
         * other ranks then wait in it (a few KiB up to n*n*17 bytes, 71 MB at 2048 nodes);
         * the later allocation failures below are survived, as a stalled peer is. */
        fail(net, comm, "out of memory");
        goto out;
    }
    h = (p1_hdr_t *) p1;
    known = (unsigned char *) (p1 + sizeof(p1_hdr_t));

    /* 1. Rank 0's view, adopted by everyone. A 1-node set has nothing to agree on. */
    if (1 == n) {
        double z = 0.0;
        if (CACORE_OK != cacore_matrix_create(1, (const char *const *) map->hosts, &z, &z,
                                              &net->matrix, err, sizeof(err))) {
            fail(net, comm, err);
        } else {
            net->state = CLOUDAWARE_NET_READY;
        }
        goto out;
    }
    {
        double *l = malloc(sizeof(double) * (size_t) nn), *b = malloc(sizeof(double) * (size_t) nn);
        if (NULL == l || NULL == b) {
            free(l);
            free(b);
            goto out_nomem_exchange;
        }
        if (0 == map->my_rank) {
            root_view(map, h, known, l, b);
            memcpy(p1 + sizeof(p1_hdr_t) + nn, l, sizeof(double) * (size_t) nn);
            memcpy(p1 + sizeof(p1_hdr_t) + nn + sizeof(double) * nn, b,
                   sizeof(double) * (size_t) nn);
        }
        free(l);
        free(b);
    }
out_nomem_exchange:
    if (OMPI_SUCCESS != mca_coll_cloudaware_exchange(comm, "p1", p1, p1len, 1, &root, &got,
                                                     &gotlen, &how)
        || gotlen != p1len || ((p1_hdr_t *) got)->magic != P1_MAGIC
        || ((p1_hdr_t *) got)->n != n || ((p1_hdr_t *) got)->key != map->key) {
        fail(net, comm, "the calibration exchange failed or returned a mismatching node set");
        goto out;
    }
    memcpy(p1, got, p1len);
    free(got);
    got = NULL;
    L = malloc(sizeof(double) * (size_t) nn);
    B = malloc(sizeof(double) * (size_t) nn);
    todo = calloc((size_t) nn, 1);
    if (NULL == L || NULL == B || NULL == todo) {
        free(L);
        free(B);
        fail(net, comm, "out of memory");
        goto out;
    }
    memcpy(L, p1 + sizeof(p1_hdr_t) + nn, sizeof(double) * (size_t) nn);
    memcpy(B, p1 + sizeof(p1_hdr_t) + nn + sizeof(double) * nn, sizeof(double) * (size_t) nn);

    if (P1_FAIL == h->action) {
        fail_quiet(net, comm, h->cause, 0 != h->quiet);
        goto out_lb;
    }
    if (P1_MEASURE == h->action) {
        int *leaders = map->leaders;
        bool leader = (leaders[map->my_node] == map->my_rank);
        mca_coll_cloudaware_row_t row;

        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                if (!known[i * n + j] || !known[j * n + i]) {
                    todo[i * n + j] = todo[j * n + i] = 1;
                    measured++;
                }
            }
        }
        if (0 == map->my_rank) {
            opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                                "coll:cloudaware: calibration of %s (%s): measuring %d of %d "
                                "node pairs among %d node leaders, %d rounds, budget %g s",
                                comm->c_name, mode_name(c->calibrate_mode), measured,
                                n * (n - 1) / 2, n, n - 1 + (n % 2), c->calib_budget);
        }
        p2 = calloc(1, p2len);
        if (NULL == p2) {
            fail(net, comm, "out of memory");
            goto out_lb;
        }
        {
            p2_hdr_t *mine = (p2_hdr_t *) p2;
            double lat[n > 0 ? n : 1], bw[n > 0 ? n : 1];

            memset(lat, 0, sizeof(lat));
            memset(bw, 0, sizeof(bw));
            row.lat = lat;
            row.bw = bw;
            row.status = CLOUDAWARE_MEAS_OK;
            row.peer = -1;
            if (leader) {
                mca_coll_cloudaware_measure(comm, map, todo, deadline, &row);
            }
            mine->magic = P2_MAGIC;
            mine->node = map->my_node;
            mine->status = row.status;
            mine->peer = row.peer;
            mine->key = map->key;
            memcpy(p2 + sizeof(p2_hdr_t), lat, sizeof(double) * (size_t) n);
            memcpy(p2 + sizeof(p2_hdr_t) + sizeof(double) * n, bw, sizeof(double) * (size_t) n);
        }
        if (OMPI_SUCCESS != mca_coll_cloudaware_exchange(comm, "p2", p2, p2len, n, leaders,
                                                         rows, rowlen, &how)) {
            fail(net, comm, "the calibration exchange of measured rows failed");
            goto out_lb;
        }
        for (int i = 0; i < n; i++) {
            hdr[i] = (p2_hdr_t *) rows[i];
            if (rowlen[i] != p2len || hdr[i]->magic != P2_MAGIC || hdr[i]->node != i
                || hdr[i]->key != map->key) {
                fail(net, comm, "a node leader published a malformed calibration row");
                goto out_lb;
            }
        }
        for (int i = 0; i < n; i++) {
            if (CLOUDAWARE_MEAS_OK != hdr[i]->status) {
                failure_cause(map, hdr, cause, sizeof(cause));
                fail(net, comm, cause);
                goto out_lb;
            }
        }
        for (int i = 0; i < n; i++) {
            double lat[n > 0 ? n : 1], bw[n > 0 ? n : 1];
            memcpy(lat, (char *) rows[i] + sizeof(p2_hdr_t), sizeof(double) * (size_t) n);
            memcpy(bw, (char *) rows[i] + sizeof(p2_hdr_t) + sizeof(double) * n,
                   sizeof(double) * (size_t) n);
            for (int j = 0; j < n; j++) {
                if (i == j || !todo[i * n + j]) {
                    continue;
                }
                if (!(isfinite(lat[j]) && lat[j] >= 0 && isfinite(bw[j]) && bw[j] > 0)) {
                    snprintf(cause, sizeof(cause), "invalid measurement from node %s to %s",
                             map->hosts[i], map->hosts[j]);
                    fail(net, comm, cause);
                    goto out_lb;
                }
                L[i * n + j] = lat[j];
                B[i * n + j] = bw[j];
                known[i * n + j] = 1;
            }
        }
    }

    /* READY: identical L, B on every rank. */
    for (int i = 0; i < n; i++) {
        L[i * n + i] = 0.0;
        B[i * n + i] = 0.0;
    }
    if (CACORE_OK != cacore_matrix_create(n, (const char *const *) map->hosts, L, B,
                                          &net->matrix, err, sizeof(err))) {
        /* Same inputs everywhere, so the same failure everywhere. */
        fail(net, comm, err);
        goto out_lb;
    }
    net->state = CLOUDAWARE_NET_READY;
    (void) mca_coll_cloudaware_store_merge(n, map->hosts, L, B, known);
    if (measured > 0) {
        mca_coll_cloudaware_calib_stats.measurements++;
        mca_coll_cloudaware_calib_stats.pairs_measured += measured;
    } else {
        mca_coll_cloudaware_calib_stats.reuses++;
    }
    if (0 == map->my_rank) {
        double elapsed = mca_coll_cloudaware_now() - start;

        if (measured > 0) {
            opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                                "coll:cloudaware: calibration: measured %d pairs", measured);
            summary(comm, map, L, B, measured, elapsed, how);
            if (!mca_coll_cloudaware_cache_store(net->matrix, map->key, err, sizeof(err))) {
                cache_warning("not caching the measured matrix: ", err);
            }
        } else {
            opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                                "coll:cloudaware: calibration of %s: %d nodes known from %s, "
                                "measured 0 pairs (%.3f s)", comm->c_name, n, h->source, elapsed);
        }
        /* What measured is always written; otherwise a job-wide communicator's matrix, once,
         * so a sub-communicator's smaller view never overwrites the whole job's. */
        if (NULL != c->dump_matrix && '\0' != c->dump_matrix[0]
            && (measured > 0
                || (!dumped && ompi_comm_size(comm) == ompi_comm_size(&ompi_mpi_comm_world.comm)))) {
            /* Atomic (temp file + rename, 0600): a symlink at the path is replaced, never
             * followed. */
            if (CACORE_OK != cacore_matrix_write_file(net->matrix, c->dump_matrix, err,
                                                      sizeof(err))) {
                opal_output(0, "coll:cloudaware: warning: coll_cloudaware_dump_matrix: %s", err);
            } else {
                dumped = true;
                opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                                    "coll:cloudaware: wrote the matrix of %s (%d nodes) to %s",
                                    comm->c_name, n, c->dump_matrix);
            }
        }
    }

out_lb:
    free(L);
    free(B);
out:
    if (NULL != rows) {
        for (int i = 0; i < n; i++) {
            free(rows[i]);
        }
    }
    free(rows);
    free(rowlen);
    free(hdr);
    free(todo);
    free(got);
    free(p1);
    free(p2);
    return OMPI_SUCCESS;
}

int mca_coll_cloudaware_calibrate_enable(mca_coll_cloudaware_module_t *m,
                                         struct ompi_communicator_t *comm)
{
    if (NULL == m->net) {
        m->net = calloc(1, sizeof(*m->net));
        if (NULL == m->net) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        if (OMPI_SUCCESS != mca_coll_cloudaware_nodemap_build(comm, &m->net->map)) {
            free(m->net);
            m->net = NULL;
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    if (CLOUDAWARE_CALIBRATE_EAGER == mca_coll_cloudaware_component.calibrate_mode
        && CLOUDAWARE_NET_PENDING == m->net->state) {
        return calibrate(m, comm);
    }
    return OMPI_SUCCESS;
}

const cacore_matrix_t *mca_coll_cloudaware_comm_matrix(mca_coll_cloudaware_module_t *m,
                                                       struct ompi_communicator_t *comm)
{
    if (NULL == m->net) {
        /* enable could not allocate the view (out of memory): try again now. */
        if (OMPI_SUCCESS != mca_coll_cloudaware_calibrate_enable(m, comm)) {
            return NULL;
        }
    }
    if (CLOUDAWARE_NET_PENDING == m->net->state) {
        (void) calibrate(m, comm);
    }
    return CLOUDAWARE_NET_READY == m->net->state ? m->net->matrix : NULL;
}

void mca_coll_cloudaware_calibrate_finalize(void)
{
    mca_coll_cloudaware_calib_stats_t *s = &mca_coll_cloudaware_calib_stats;

    if (0 == stats_world_rank) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: calibration totals (world rank 0): %d "
                            "measurements, %d pairs measured, %d reuses, %d cache hits, "
                            "%d failures", s->measurements, s->pairs_measured, s->reuses,
                            s->cache_hits, s->failures);
    }
    mca_coll_cloudaware_pmix_finalize();
    memset(s, 0, sizeof(*s));
    stats_world_rank = -1;
    dumped = false;
    file_gap_warned = false;
    cache_dir_warned = false;
    nfailed_keys = 0;
}
