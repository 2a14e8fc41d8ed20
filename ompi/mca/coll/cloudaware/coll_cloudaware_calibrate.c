/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Calibration of one communicator: find (or measure) the latency/bandwidth matrix of its nodes,
 * so that every rank ends with the SAME matrix or every rank agrees to fall back.
 *
 * Protocol (all ranks of the communicator; docs/calibration.md, "Protocol"):
 *   0. node map (local, identical everywhere; coll_cloudaware_nodes.c)
 *   1. start message, from rank 0 to every rank (PMIx or PML, coll_cloudaware_exchange.c): rank 0
 *      looks the node set up in its process store (earlier calibrations, the matrix file) and,
 *      for what is missing, in the cache; it sends the known pairs with their values, the epoch
 *      of this calibration and the action: READY (nothing missing), MEASURE (missing pairs), or
 *      FAIL (missing pairs and calibrate=off). Everyone adopts rank 0's values. This is the
 *      meeting point: like any collective it waits for every rank; each rank's clock starts
 *      when it leaves it (rank 0's when it enters it).
 *   2. MEASURE only: node leaders run the tournament over the missing pairs until
 *      start + coll_cloudaware_calibrate_budget.
 *   3. report, from every rank to rank 0: local failures since the start (allocation, receiving
 *      the start message, measurement buffers), the digests of the matrix and rules files it
 *      read, and for leaders the measured row. Reports travel up the calibration's tree
 *      (cacore_calib_tree, a binomial tree over the ranks): each rank waits for its children's
 *      until its share of the slack (report_by) and sends them on with its own, so that no rank
 *      ends connected to every other (docs/calibration.md, "Protocol").
 *   4. verdict, from rank 0 down the same tree: rank 0 takes reports until start + budget +
 *      slack/2, then decides READY (with the assembled matrix) or FAIL (with one cause) from them
 *      and its own clock - FAIL when any report is missing or says a failure, when digests
 *      differ, or when rank 0 itself is past that time. The others wait for the verdict until
 *      their start + budget + their share of the slack (verdict_by: the deepest the whole slack),
 *      pass it on to their children, and fall back when none came (passing a FAIL on). Only rank
 *      0 prints the warning.
 * A rank that failed locally knows the verdict (FAIL) without waiting for it. The result joins
 * the process store: later communicators over the same (or fewer) nodes measure nothing.
 */
#include "ompi_config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_cache.h"
#include "coll_cloudaware_calibrate.h"
#include "coll_cloudaware_store.h"
#include "coll_cloudaware_exchange.h"
#include "coll_cloudaware_pvars.h"
#include "coll_cloudaware_tournament.h"
#include "coll_cloudaware_rules.h"
#include "coll_cloudaware_trace.h"

#include "ompi/runtime/mpiruntime.h"
#include CLOUDAWARE_MUTEX_HEADER /* opal_mutex_t: its path differs between 4.1 and 5.0 */

/* Process-wide state, shared by the calibrations of all communicators: guarded by calib_lock,
 * which is never held while communicating (MPI_THREAD_MULTIPLE: concurrent first collectives
 * on different communicators). */
static opal_mutex_t calib_lock = OPAL_MUTEX_STATIC_INIT;
mca_coll_cloudaware_calib_stats_t mca_coll_cloudaware_calib_stats;
static int stats_world_rank = -1;
static bool dumped = false;
static bool file_gap_warned = false;
static bool cache_dir_warned = false;
static uint64_t epochs = 0;
/* Node sets whose calibration failed in this process: later communicators over them fall back
 * at once (decided by their rank 0, like everything else) and quietly. */
#define MAX_FAILED_KEYS 64
static uint64_t failed_keys[MAX_FAILED_KEYS];
static int nfailed_keys = 0;

#define START_MAGIC 0x43415053u   /* "CAPS" */

enum { START_READY = 0, START_MEASURE = 1, START_FAIL = 2 };
enum { VERDICT_READY = 0, VERDICT_FAIL = 1 };

/* The start message: this header, then L[nn], B[nn], P[3n] (doubles), known[nn], pknown[n]
 * (bytes). P = node properties (CACORE_NODE_VALUES per node). */
typedef struct {
    uint32_t magic;
    uint32_t action;
    int32_t n;
    int32_t quiet;     /* START_FAIL already reported for this node set */
    uint64_t key;
    uint64_t epoch;
    char source[64];   /* where rank 0's values came from (verbose) */
    char cause[256];   /* START_FAIL */
} start_hdr_t;

/* A report: this header, then (leaders after MEASURE, meas >= 0) lat[n], bw[n] and the node's
 * properties node[CACORE_NODE_VALUES] (measured when node_todo says so). */
typedef struct {
    mca_coll_cloudaware_msg_t msg;
    int32_t rank;
    int32_t local;     /* mca_coll_cloudaware_fail_point_t that failed here; 0 none */
    int32_t meas;      /* mca_coll_cloudaware_meas_status_t of the row; -1 no row */
    int32_t peer;
    uint64_t matrix_digest;
    uint64_t rules_digest;
} report_t;

/* The verdict: this header, then (has_matrix) L[nn], B[nn], P[3n]. */
typedef struct {
    mca_coll_cloudaware_msg_t msg;
    int32_t verdict;
    int32_t quiet;
    int32_t has_matrix;
    int32_t pad;
    char cause[256];
} verdict_t;

/* One calibration in progress. */
typedef struct {
    struct ompi_communicator_t *comm;
    mca_coll_cloudaware_netview_t *net;
    mca_coll_cloudaware_nodemap_t *map;
    int n;
    size_t nn;                  /* n * n */
    double entered, start;      /* when this rank entered calibrate(), left the start message */
    double budget;              /* coll_cloudaware_calibrate_budget for this many nodes
                                   (cacore_calib_budget) */
    double measure_deadline;    /* start + budget */
    double decide_deadline;     /* rank 0: start + budget + slack/2 */
    cacore_calib_tree_t tree;   /* this rank's place in the exchange's tree */
    double relay_deadline;      /* start + budget + slack * tree.report_by: children's reports
                                   received until then */
    double verdict_deadline;    /* start + budget + slack * tree.verdict_by */
    int local;                  /* first local failure point, 0 none */
    uint64_t epoch;             /* 0 until the start message arrived */
    const char *how;            /* "PMIx" / "PML": the start message's path */
    /* start message */
    char *start_msg;
    size_t start_len;
    start_hdr_t *h;
    double *L, *B, *P;
    unsigned char *known, *pknown;
    /* after the start */
    unsigned char *todo, *node_todo;
    size_t measured;            /* pairs to measure */
    int nodes_measured;         /* nodes whose properties are measured */
    report_t *report;           /* this rank's report: heap, or emergency_report */
    size_t report_len;
    verdict_t *verdict;         /* room for a READY verdict with the matrix */
    size_t verdict_cap;
    verdict_t *sent;            /* rank 0: the verdict sent (x->verdict, or a smaller one) */
    verdict_t received;         /* the others: a verdict without matrix */
    size_t leader_cap;          /* the length of a report with a row */
    char *bundle;               /* the others with children: their reports and their own */
    verdict_t *passed;          /* the others with children: the verdict passed on to them */
    mca_coll_cloudaware_pending_t sends;   /* the report (or bundle), or rank 0's verdicts */
    mca_coll_cloudaware_pending_t passes;  /* the verdict passed on to the children */
    mca_coll_cloudaware_recal_t *again;    /* a recalibration (drift), or NULL */
} calib_t;

/* Used when even a few hundred bytes cannot be allocated (then only to say so). Sends read
 * them after the calibration returns, so they cannot live on its stack. */
static report_t emergency_report;
static verdict_t emergency_verdict;

static const char *mode_name(int mode)
{
    return CLOUDAWARE_CALIBRATE_EAGER == mode ? "eager"
         : CLOUDAWARE_CALIBRATE_LAZY == mode ? "lazy" : "off";
}

/* The injected failure happens once per process: in its first calibration that reaches the
 * point (later communicators over the same nodes then fall back quietly, as after any failure). */
bool mca_coll_cloudaware_test_fail_here(int point)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    static bool injected = false;
    bool fail;

    if (NULL == c->test_fail || c->test_fail_rank < 0
        || c->test_fail_rank != ompi_comm_rank(&ompi_mpi_comm_world.comm)
        || 0 != strcmp(c->test_fail, cacore_fail_point_name(point))) {
        return false;
    }
    OPAL_THREAD_LOCK(&calib_lock);
    fail = !injected;
    injected = true;
    OPAL_THREAD_UNLOCK(&calib_lock);
    return fail;
}

/* Records the first local failure of this rank. */
static void local_failure(calib_t *x, int point)
{
    if (0 == x->local) {
        x->local = point;
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: calibration of %s: local failure on rank %d (%s): "
                            "%s; reported to rank 0", x->comm->c_name, x->map->my_rank,
                            cacore_fail_point_name(point), cacore_fail_point_cause(point));
    }
}

/* a * b + c in *out, false on overflow. */
static bool size_muladd(size_t a, size_t b, size_t c, size_t *out)
{
    size_t p;

    if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, out)) {
        return false;
    }
    return true;
}

static bool key_failed(uint64_t key)
{
    bool found = false;

    OPAL_THREAD_LOCK(&calib_lock);
    for (int i = 0; i < nfailed_keys; i++) {
        found = found || failed_keys[i] == key;
    }
    OPAL_THREAD_UNLOCK(&calib_lock);
    return found;
}

static void cache_warning(const char *what, const char *why)
{
    bool dir = (0 == strncmp(why, "cache directory", 15)), say;

    OPAL_THREAD_LOCK(&calib_lock);
    say = !(dir && cache_dir_warned);
    cache_dir_warned = cache_dir_warned || dir;
    OPAL_THREAD_UNLOCK(&calib_lock);
    if (say) {
        opal_output(0, "coll:cloudaware: warning: %s%s", what, why);
    }
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

static void summary(calib_t *x, double elapsed)
{
    cacore_calib_summary_t s = cacore_calib_summarize(x->n, x->L, x->B);
    char props[1024];
    size_t used = 0;

    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                        "coll:cloudaware: calibration summary for %s: %d nodes, %zu of %zu pairs "
                        "measured in %.3f s (%s exchange); latency min/median/max "
                        "%.1f/%.1f/%.1f us; bandwidth min/median/max %.3g/%.3g/%.3g MB/s; "
                        "asymmetric pairs (>10%%) %zu of %zu", x->comm->c_name, x->n, x->measured,
                        s.pairs, elapsed, x->how, s.latency_min_s * 1e6,
                        s.latency_median_s * 1e6, s.latency_max_s * 1e6,
                        s.bandwidth_min_Bps / 1e6, s.bandwidth_median_Bps / 1e6,
                        s.bandwidth_max_Bps / 1e6, s.asymmetric, s.pairs);
    /* Node properties: egress/ingress capacity in MB/s (- = no cap seen), overhead in us, burst
     * credit in KiB. */
    props[0] = '\0';
    for (int i = 0; i < x->n && used < sizeof(props) - 64; i++) {
        const double *p = x->P + (size_t) CACORE_NODE_VALUES * i;
        char e[24], in[24];
        snprintf(e, sizeof(e), p[CACORE_NODE_EGRESS] > 0 ? "%.3g" : "-",
                 p[CACORE_NODE_EGRESS] / 1e6);
        snprintf(in, sizeof(in), p[CACORE_NODE_INGRESS] > 0 ? "%.3g" : "-",
                 p[CACORE_NODE_INGRESS] / 1e6);
        used += (size_t) snprintf(props + used, sizeof(props) - used, "%s%s %s/%s/%.1f/%.0f",
                                  i ? "; " : "", x->map->hosts[i], e, in,
                                  p[CACORE_NODE_OVERHEAD] * 1e6, p[CACORE_NODE_BURST] / 1024);
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                        "coll:cloudaware: calibration nodes of %s (%d measured; egress/ingress "
                        "capacity MB/s, - = no cap seen / per-message overhead us / burst credit "
                        "KiB): %s",
                        x->comm->c_name, x->nodes_measured, props);
}

/* Rank 0's view of the node set: the store, then (for what is missing) the cache and, for
 * hosts the matrix file does not cover, one warning. Fills the start message. */
static void root_view(calib_t *x)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    const mca_coll_cloudaware_nodemap_t *map = x->map;
    start_hdr_t *h = x->h;
    int n = x->n, have;
    long long all = (long long) n * (n - 1);   /* ordered pairs */
    size_t todo = 0;
    bool warn_gap = false;
    char why[1024];

    have = mca_coll_cloudaware_store_lookup(n, map->hosts, x->L, x->B, x->known, x->P,
                                            x->pknown);
    snprintf(h->source, sizeof(h->source), "this process's store");
    if (NULL != x->again) {
        /* A recalibration measures its pairs again, whatever the store or the cache know. */
        for (size_t i = 0; i < (size_t) n * (size_t) n; i++) {
            x->known[i] = x->known[i] && !x->again->pairs[i];
        }
    } else if (have < all) {
        if (mca_coll_cloudaware_cache_load(n, map->hosts, map->key, x->L, x->B, x->known, x->P,
                                           why, sizeof(why))) {
            have = all;
            memset(x->pknown, 1, (size_t) n);
            OPAL_THREAD_LOCK(&calib_lock);
            mca_coll_cloudaware_calib_stats.cache_hits++;
            OPAL_THREAD_UNLOCK(&calib_lock);
            snprintf(h->source, sizeof(h->source), "the cache");
            opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                                "coll:cloudaware: calibration: cache hit for %d nodes (key "
                                "%016llx)", n, (unsigned long long) map->key);
            (void) mca_coll_cloudaware_store_merge(n, map->hosts, x->L, x->B, x->known, x->P,
                                                   x->pknown);
        } else if ('\0' != why[0]) {
            char tail[1100];
            snprintf(tail, sizeof(tail), "%s; %s", why,
                     0 == strncmp(why, "cache directory", 15) ? "not using the cache"
                     : CLOUDAWARE_CALIBRATE_OFF == c->calibrate_mode ? "not using it"
                                                                     : "measuring instead");
            cache_warning("", tail);
        }
    }
    if (have < all && NULL != mca_coll_cloudaware_store_matrix_file()) {
        OPAL_THREAD_LOCK(&calib_lock);
        warn_gap = !file_gap_warned;
        file_gap_warned = true;
        OPAL_THREAD_UNLOCK(&calib_lock);
    }
    if (warn_gap) {
        const cacore_matrix_t *f = mca_coll_cloudaware_store_matrix_file();
        for (int i = 0; i < n; i++) {
            if (cacore_matrix_find_host(f, map->hosts[i]) < 0) {
                opal_output(0, "coll:cloudaware: warning: coll_cloudaware_matrix_file %s does "
                            "not cover host %s (a matrix for other hosts?); %s",
                            c->matrix_file, map->hosts[i],
                            CLOUDAWARE_CALIBRATE_OFF == c->calibrate_mode
                                ? "calibrate=off: falling back" : "measuring instead");
                break;
            }
        }
    }
    for (size_t i = 0; i < (size_t) n; i++) {
        for (size_t j = i + 1; j < (size_t) n; j++) {
            if (!x->known[i * n + j] || !x->known[j * n + i]) {
                todo++;
            }
        }
    }
    if (0 == todo) {
        h->action = START_READY;
    } else if (key_failed(map->key)) {
        h->action = START_FAIL;
        h->quiet = 1;
        snprintf(h->cause, sizeof(h->cause), "an earlier calibration of these %d nodes failed "
                 "in this job", n);
    } else if (CLOUDAWARE_CALIBRATE_OFF == c->calibrate_mode) {
        h->action = START_FAIL;
        snprintf(h->cause, sizeof(h->cause),
                 "%zu node pairs are unknown (no matrix file or cache entry covers them) and "
                 "coll_cloudaware_calibrate=off", todo);
    } else {
        h->action = START_MEASURE;
    }
}

/* A fresh epoch for a calibration rank 0 coordinates: distinct from every other calibration
 * on any communicator (this process's count, its pid and the time), never 0. */
static uint64_t new_epoch(void)
{
    struct timespec ts;
    uint64_t e;

    clock_gettime(CLOCK_REALTIME, &ts);
    OPAL_THREAD_LOCK(&calib_lock);
    e = ++epochs;
    OPAL_THREAD_UNLOCK(&calib_lock);
    e = (e << 40) ^ ((uint64_t) getpid() << 20) ^ (uint64_t) ts.tv_sec * 1000000000ULL
        ^ (uint64_t) ts.tv_nsec;
    return 0 == e ? 1 : e;
}

/* Step 1: the start message. Every rank takes part, whatever fails locally. */
static void step_start(calib_t *x)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    start_hdr_t fallback;
    size_t rootlen;
    int rc;

    /* hdr + nn * (2 doubles + 1 byte) + n * (3 doubles + 1 byte): overflow-checked (n is at
     * most the communicator size) */
    if (!size_muladd(x->nn, 2 * sizeof(double) + 1, sizeof(start_hdr_t), &x->start_len)
        || !size_muladd((size_t) x->n, CACORE_NODE_VALUES * sizeof(double) + 1, x->start_len,
                        &x->start_len)
        || mca_coll_cloudaware_test_fail_here(CACORE_FAIL_START_ALLOC)
        || NULL == (x->start_msg = calloc(1, x->start_len))) {
        local_failure(x, CACORE_FAIL_START_ALLOC);
    } else {
        x->h = (start_hdr_t *) x->start_msg;
        x->L = (double *) (x->start_msg + sizeof(start_hdr_t));
        x->B = x->L + x->nn;
        x->P = x->B + x->nn;
        x->known = (unsigned char *) (x->P + (size_t) CACORE_NODE_VALUES * x->n);
        x->pknown = x->known + x->nn;
    }
    if (0 == x->map->my_rank) {
        x->epoch = new_epoch();
        if (NULL != x->start_msg) {
            root_view(x);
        } else {
            /* Rank 0 has no view: the others get a short message, which they report as not
             * received; the verdict says rank 0 ran out of memory. */
            memset(&fallback, 0, sizeof(fallback));
        }
        start_hdr_t *h = (NULL != x->start_msg) ? x->h : &fallback;
        h->magic = START_MAGIC;
        h->n = x->n;
        h->key = x->map->key;
        h->epoch = x->epoch;
        rootlen = (NULL != x->start_msg) ? x->start_len : sizeof(fallback);
        x->start = mca_coll_cloudaware_now();   /* before anyone else's start */
        (void) mca_coll_cloudaware_exchange_start(x->comm, h, x->start_len, rootlen,
                                                  NULL != x->again, &x->how);
    } else {
        rc = mca_coll_cloudaware_exchange_start(x->comm, x->start_msg, x->start_len, 0,
                                                NULL != x->again, &x->how);
        x->start = mca_coll_cloudaware_now();
        if (NULL != x->start_msg
            && (OMPI_SUCCESS != rc || START_MAGIC != x->h->magic || x->h->n != x->n
                || x->h->key != x->map->key || 0 == x->h->epoch
                || mca_coll_cloudaware_test_fail_here(CACORE_FAIL_START_RECV))) {
            local_failure(x, CACORE_FAIL_START_RECV);
        }
        if (0 == x->local) {
            x->epoch = x->h->epoch;
        }
    }
    x->budget = cacore_calib_budget(c->calib_budget, x->n);
    x->measure_deadline = x->start + x->budget;
    x->decide_deadline = x->start + x->budget + 0.5 * c->calib_slack;
    (void) cacore_calib_tree(x->map->nranks, x->map->my_rank, &x->tree);
    x->relay_deadline = x->start + x->budget + c->calib_slack * x->tree.report_by;
    x->verdict_deadline = x->start + x->budget + c->calib_slack * x->tree.verdict_by;
}

/* Step 2: what to measure, and the buffers for the rest. */
static void step_prepare(calib_t *x)
{
    int n = x->n;

    if (0 != x->local) {
        return;
    }
    if (!size_muladd(x->nn, 2 * sizeof(double), sizeof(verdict_t), &x->verdict_cap)
        || !size_muladd((size_t) n, CACORE_NODE_VALUES * sizeof(double), x->verdict_cap,
                        &x->verdict_cap)
        || mca_coll_cloudaware_test_fail_here(CACORE_FAIL_ALLOC)
        || NULL == (x->todo = calloc(x->nn > 0 ? x->nn : 1, 1))
        || NULL == (x->node_todo = calloc((size_t) n, 1))
        || NULL == (x->verdict = malloc(x->verdict_cap))) {
        local_failure(x, CACORE_FAIL_ALLOC);
        return;
    }
    if (START_MEASURE != x->h->action) {
        return;
    }
    for (size_t i = 0; i < (size_t) n; i++) {
        for (size_t j = i + 1; j < (size_t) n; j++) {
            if (!x->known[i * n + j] || !x->known[j * n + i]) {
                x->todo[i * n + j] = x->todo[j * n + i] = 1;
                x->measured++;
            }
        }
    }
    /* Node properties are measured along with pairs, for the nodes that lack them; a node set
     * whose pairs are all known (a matrix file of version 1) does not measure for them. */
    for (int i = 0; i < n; i++) {
        x->node_todo[i] = !x->pknown[i];
        x->nodes_measured += x->node_todo[i];
    }
    if (0 == x->map->my_rank) {
        mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: calibration of %s (%s): measuring %zu of %zu node "
                            "pairs among %d node leaders, %d rounds, budget %g s",
                            x->comm->c_name, mode_name(c->calibrate_mode), x->measured,
                            (size_t) n * (size_t) (n - 1) / 2, n, n - 1 + (n % 2), x->budget);
    }
}

/* Step 3: leaders measure (MEASURE only); every rank writes its report. */
static void step_measure_and_report(calib_t *x)
{
    const mca_coll_cloudaware_nodemap_t *map = x->map;
    bool leader = (map->leaders[map->my_node] == map->my_rank);
    bool row = leader && NULL != x->todo && START_MEASURE == x->h->action;
    size_t len = sizeof(report_t);
    report_t *r;

    if (!size_muladd((size_t) 2 * x->n + CACORE_NODE_VALUES, sizeof(double), sizeof(report_t),
                     &x->leader_cap)) {
        x->leader_cap = sizeof(report_t);   /* no row fits: a leader's report says so */
        if (row) {
            row = false;
            local_failure(x, CACORE_FAIL_REPORT);
        }
    }
    if (row) {
        len = x->leader_cap;
    }
    if (mca_coll_cloudaware_test_fail_here(CACORE_FAIL_REPORT)
        || NULL == (x->report = calloc(1, len))) {
        local_failure(x, CACORE_FAIL_REPORT);
        len = sizeof(report_t);
        row = false;
        if (NULL == x->report && NULL == (x->report = calloc(1, len))) {
            x->report = &emergency_report;
        }
    }
    r = x->report;
    memset(r, 0, sizeof(*r));
    r->meas = -1;
    r->peer = -1;
    if (row) {
        mca_coll_cloudaware_row_t mrow;
        mrow.lat = (double *) (r + 1);
        mrow.bw = mrow.lat + x->n;
        mrow.node = mrow.bw + x->n;
        mca_coll_cloudaware_measure(x->comm, map, x->todo, x->node_todo, x->measure_deadline,
                                    &mrow);
        if (CACORE_MEAS_NOMEM == mrow.status) {
            local_failure(x, CACORE_FAIL_MEASURE);
        }
        r->meas = mrow.status;
        r->peer = mrow.peer;
    }
    r->msg.magic = CLOUDAWARE_MSG_MAGIC;
    r->msg.tag = (uint32_t) CLOUDAWARE_TAG_REPORT;
    r->msg.epoch = x->epoch;
    r->rank = map->my_rank;
    r->local = x->local;
    r->matrix_digest = cacore_matrix_digest(mca_coll_cloudaware_store_matrix_file());
    r->rules_digest = mca_coll_cloudaware_rules_digest();
    x->report_len = len;
}

/* ---- step 4: the reports up the tree, the verdict down --------------------------------------- */

/* The most bytes rank q's report has: a leader's may carry its row. */
static size_t report_cap(const calib_t *x, int q)
{
    return x->map->leaders[x->map->rank_node[q]] == q ? x->leader_cap : sizeof(report_t);
}

/* The next whole report at *off of buf[0..len) from a rank in [lo, hi), of this calibration's
 * epoch or 0 (a relay without the epoch passes on any: rank 0 checks), or NULL (none, or not
 * well formed: the rest is ignored, and rank 0 finds those reports missing). A report carries
 * its row exactly when meas >= 0, and only a leader's does. */
static report_t *next_report(const calib_t *x, char *buf, size_t len, size_t *off, int lo,
                             int hi)
{
    report_t *p = (report_t *) (buf + *off);
    size_t plen;

    if (len - *off < sizeof(report_t) || CLOUDAWARE_MSG_MAGIC != p->msg.magic
        || (uint32_t) CLOUDAWARE_TAG_REPORT != p->msg.tag
        || (0 != x->epoch && p->msg.epoch != x->epoch && 0 != p->msg.epoch) || p->rank < lo
        || p->rank >= hi) {
        return NULL;
    }
    plen = p->meas >= 0 ? x->leader_cap : sizeof(report_t);
    if ((p->meas >= 0 && report_cap(x, p->rank) != x->leader_cap) || len - *off < plen) {
        return NULL;
    }
    *off += plen;
    return p;
}

/* The end of child i's subtree: the children's subtrees tile this rank's in order. */
static int child_end(const calib_t *x, int i)
{
    return i + 1 < x->tree.nchildren ? x->tree.children[i + 1] : x->tree.end;
}

/* Receives the bundles of this rank's children (recvs[0..nchildren)) until `deadline`: each
 * child's report followed by those of its subtree. false when out of memory (nothing posted). */
static bool children_reports(calib_t *x, mca_coll_cloudaware_recv_t *recvs, double deadline)
{
    int n = x->tree.nchildren;

    for (int i = 0; i < n; i++) {
        size_t cap = 0;

        for (int q = x->tree.children[i]; q < child_end(x, i); q++) {
            if (__builtin_add_overflow(cap, report_cap(x, q), &cap)) {
                cap = SIZE_MAX;
            }
        }
        recvs[i].cap = cap;
        recvs[i].from = x->tree.children[i];
        recvs[i].tag = CLOUDAWARE_TAG_REPORT;
        recvs[i].epoch = x->epoch;
        if (SIZE_MAX == cap || NULL == (recvs[i].buf = calloc(1, cap))) {
            for (int j = 0; j <= i; j++) {
                free(recvs[j].buf);
                recvs[j].buf = NULL;
            }
            return false;
        }
    }
    for (int i = 0; i < n; i++) {
        mca_coll_cloudaware_recv_post(x->comm, &recvs[i]);
    }
    (void) mca_coll_cloudaware_recv_wait(recvs, n, deadline);
    return true;
}

/* Each whole report child i's bundle brought (NULL: no more), from *off on. */
static report_t *child_report(const calib_t *x, mca_coll_cloudaware_recv_t *recvs, int i,
                              size_t *off)
{
    if (CLOUDAWARE_RECV_DONE != recvs[i].state) {
        return NULL;
    }
    return next_report(x, (char *) recvs[i].buf, recvs[i].len, off, x->tree.children[i],
                       child_end(x, i));
}

static void free_children_reports(const calib_t *x, mca_coll_cloudaware_recv_t *recvs)
{
    if (NULL != recvs) {
        for (int i = 0; i < x->tree.nchildren; i++) {
            free(recvs[i].buf);
        }
    }
    free(recvs);
}

/* Rank 0: the verdict from the reports rep[0..nranks) (NULL: none came) and its own clock. The
 * cause of a failure is worded by the core (cacore_calib_failure_cause); here only what needs the
 * reports' rows: their values checked and copied into the matrix. */
static void decide(calib_t *x, report_t **rep, verdict_t *v, size_t *vlen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    const mca_coll_cloudaware_nodemap_t *map = x->map;
    int n = x->n, nr = map->nranks;
    char *cause = v->cause;
    size_t clen = sizeof(v->cause);
    cacore_calib_report_t *facts = calloc((size_t) nr, sizeof(*facts));
    cacore_calib_inputs_t in = {
        .nranks = nr, .nnodes = n, .hosts = (const char *const *) map->hosts,
        .leaders = map->leaders, .budget_s = c->calib_budget,
        .decide_slack_s = 0.5 * c->calib_slack,
        .rank0_late = mca_coll_cloudaware_now() > x->decide_deadline,
        .matrix_file = c->matrix_file, .rules_file = c->rules_file,
        .start_cause = START_FAIL == x->h->action ? x->h->cause : NULL,
        .measured = START_MEASURE == x->h->action,
    };
    cacore_calib_verdict_t said;

    v->verdict = VERDICT_FAIL;
    v->has_matrix = 0;
    *vlen = sizeof(verdict_t);
    if (NULL == facts) {
        snprintf(cause, clen, "rank 0: out of memory for the reports");
        return;
    }
    for (int r = 0; r < nr; r++) {
        facts[r].node = map->rank_node[r];
        if (NULL != rep[r]) {
            facts[r].reported = 1;
            facts[r].local = rep[r]->local;
            facts[r].meas = rep[r]->meas;
            facts[r].peer = rep[r]->peer;
            facts[r].matrix_digest = rep[r]->matrix_digest;
            facts[r].rules_digest = rep[r]->rules_digest;
        }
    }
    said = cacore_calib_failure_cause(&in, facts, cause, clen);
    free(facts);
    if (CACORE_CALIB_START_FAILED == said) {
        v->quiet = x->h->quiet;
    }
    if (CACORE_CALIB_STANDS != said) {
        return;
    }
    if (START_MEASURE == x->h->action) {
        for (size_t i = 0; i < (size_t) n; i++) {
            const double *lat = (const double *) (rep[map->leaders[i]] + 1), *bw = lat + n;
            for (size_t j = 0; j < (size_t) n; j++) {
                if (i == j || !x->todo[i * n + j]) {
                    continue;
                }
                if (!(isfinite(lat[j]) && lat[j] >= 0 && isfinite(bw[j]) && bw[j] > 0)) {
                    snprintf(cause, clen, "invalid measurement from node %s to %s",
                             map->hosts[i], map->hosts[j]);
                    return;
                }
                double l = lat[j], b = bw[j];
                if (NULL != x->again) {
                    /* A recalibration takes what got slower (docs/drift.md). */
                    x->again->slower += (size_t) cacore_drift_merge_pair(
                        c->recalibrate_threshold, x->L[i * n + j], x->B[i * n + j], &l, &b);
                }
                x->L[i * n + j] = l;
                x->B[i * n + j] = b;
                x->known[i * n + j] = 1;
            }
        }
        for (size_t i = 0; i < (size_t) n; i++) {
            const double *node = (const double *) (rep[map->leaders[i]] + 1) + 2 * n;
            double *P = x->P + CACORE_NODE_VALUES * i;
            if (!x->node_todo[i]) {
                continue;
            }
            for (int k = 0; k < CACORE_NODE_VALUES; k++) {
                P[k] = node[k];
            }
            /* The core's ranges; a measured burst credit or second lone sample is never -1
             * (not measured). */
            char why[160] = "burst credit and second lone sample must not be negative";
            if (!(P[CACORE_NODE_BURST] >= 0) || !(P[CACORE_NODE_LONE2] >= 0)
                || CACORE_OK != cacore_node_props_check(P, why, sizeof(why))) {
                snprintf(cause, clen, "invalid node properties measured on node %s: %s",
                         map->hosts[i], why);
                return;
            }
            x->pknown[i] = 1;
        }
        v->has_matrix = 1;
        memcpy(v + 1, x->L, sizeof(double) * x->nn);
        memcpy((double *) (v + 1) + x->nn, x->B, sizeof(double) * x->nn);
        memcpy((double *) (v + 1) + 2 * x->nn, x->P, sizeof(double) * CACORE_NODE_VALUES * n);
        *vlen = x->verdict_cap;
    }
    v->verdict = VERDICT_READY;
    cause[0] = '\0';
}

/* Step 4, rank 0: collect the reports, decide, send the verdict down the tree. */
static verdict_t *step_coordinate(calib_t *x)
{
    const mca_coll_cloudaware_nodemap_t *map = x->map;
    int nr = map->nranks, nc = x->tree.nchildren;
    size_t vlen = 0;
    mca_coll_cloudaware_recv_t *recvs = calloc(nc > 0 ? (size_t) nc : 1, sizeof(*recvs));
    report_t **rep = calloc((size_t) nr, sizeof(report_t *));
    verdict_t *v = (NULL != x->verdict && 0 == x->local) ? x->verdict : NULL;
    bool ok = (NULL != recvs && NULL != rep && children_reports(x, recvs, x->decide_deadline));

    if (!ok) {
        local_failure(x, CACORE_FAIL_ALLOC);
    } else {
        rep[0] = x->report;
        rep[0]->local = x->local;
        for (int i = 0; i < nc; i++) {
            size_t off = 0;
            report_t *p;
            while (NULL != (p = child_report(x, recvs, i, &off))) {
                bool lead = (map->leaders[map->rank_node[p->rank]] == p->rank);
                if (NULL != rep[p->rank]) {
                    continue;   /* a rank's second report: not from a well-behaved relay */
                }
                rep[p->rank] = p;
                if (0 == p->local && p->meas < 0 && lead && NULL != x->h
                    && START_MEASURE == x->h->action) {
                    p->local = CACORE_FAIL_REPORT;   /* a leader without its row */
                }
            }
        }
    }
    if (NULL == v && NULL == (v = malloc(sizeof(*v)))) {
        v = &emergency_verdict;
    }
    memset(v, 0, sizeof(*v));
    if (!ok || 0 != x->local) {
        snprintf(v->cause, sizeof(v->cause), "rank 0 (node %s): %s",
                 map->hosts[map->my_node], cacore_fail_point_cause(x->local));
        v->verdict = VERDICT_FAIL;
        vlen = sizeof(verdict_t);
    } else {
        decide(x, rep, v, &vlen);
    }
    /* One warning per node set: it was given when these nodes failed the first time. */
    if (VERDICT_FAIL == v->verdict && key_failed(map->key)) {
        v->quiet = 1;
    }
    v->msg.magic = CLOUDAWARE_MSG_MAGIC;
    v->msg.tag = (uint32_t) CLOUDAWARE_TAG_VERDICT;
    v->msg.epoch = x->epoch;
    for (int i = 0; i < nc; i++) {
        (void) mca_coll_cloudaware_send_post(x->comm, &x->sends, x->tree.children[i],
                                             CLOUDAWARE_TAG_VERDICT, v, vlen);
    }
    x->sent = v;
    free_children_reports(x, recvs);
    free(rep);
    return v;
}

/* Step 4, every other rank with children: its report and its children's, as received until its
 * share of the slack, in one message (x->bundle); where that cannot be allocated, its own report
 * alone, saying so (rank 0 then finds the subtree's reports missing). */
static void relay_reports(calib_t *x, const void **up, size_t *uplen)
{
    int nc = x->tree.nchildren;
    mca_coll_cloudaware_recv_t *recvs = calloc((size_t) nc, sizeof(*recvs));
    size_t total = x->report_len, off = 0;

    if (NULL != recvs && children_reports(x, recvs, x->relay_deadline)) {
        for (int i = 0; i < nc; i++) {
            total += CLOUDAWARE_RECV_DONE == recvs[i].state ? recvs[i].len : 0;
        }
        x->bundle = malloc(total);
    }
    if (NULL == x->bundle) {
        local_failure(x, CACORE_FAIL_REPORT);
        x->report->local = x->local;
    } else {
        memcpy(x->bundle, x->report, x->report_len);
        off = x->report_len;
        for (int i = 0; i < nc; i++) {
            size_t from = 0, at = 0;
            report_t *p;
            while (NULL != (p = child_report(x, recvs, i, &at))) {
                memcpy(x->bundle + off, p, at - from);
                off += at - from;
                from = at;
            }
        }
        *up = x->bundle;
        *uplen = off;
    }
    free_children_reports(x, recvs);
}

/* Step 4, every other rank with children: the verdict v (vlen bytes; NULL: none came, or this
 * rank cannot take one) passed on, a FAIL of its own when it has none, so that the subtree
 * decides as this rank does. */
static void pass_verdict(calib_t *x, verdict_t *v, size_t vlen)
{
    verdict_t *f;

    if (0 == x->tree.nchildren) {
        return;
    }
    if (NULL != v && v == x->verdict) {
        f = v;              /* parked with the sends at the end, not freed */
        x->verdict = NULL;
    } else if (NULL != (f = malloc(NULL != v ? vlen : sizeof(verdict_t)))) {
        if (NULL != v) {
            memcpy(f, v, vlen);
        } else {
            memset(f, 0, sizeof(*f));
            f->msg.magic = CLOUDAWARE_MSG_MAGIC;
            f->msg.tag = (uint32_t) CLOUDAWARE_TAG_VERDICT;
            f->msg.epoch = x->epoch;
            f->verdict = VERDICT_FAIL;
            f->quiet = 1;
            snprintf(f->cause, sizeof(f->cause), "rank %d, which relays the verdict, had none: %s",
                     x->map->my_rank, 0 != x->local ? cacore_fail_point_cause(x->local)
                                                    : "none came within the time budget");
            vlen = sizeof(verdict_t);
        }
    } else {
        return;   /* the children find no verdict in time and fail, as this rank does: a rank
                     without a verdict or a buffer for the matrix (x->received) has a FAIL */
    }
    for (int i = 0; i < x->tree.nchildren; i++) {
        (void) mca_coll_cloudaware_send_post(x->comm, &x->passes, x->tree.children[i],
                                             CLOUDAWARE_TAG_VERDICT, f, vlen);
    }
    x->passed = f;
}

/* Step 4, every other rank: report (with the subtree's reports), wait for the verdict, pass it
 * on. NULL: none came. */
static verdict_t *step_await(calib_t *x)
{
    mca_coll_cloudaware_recv_t vr;
    verdict_t *v = NULL;
    const void *up = x->report;
    size_t uplen = x->report_len;

    if (x->tree.nchildren > 0) {
        relay_reports(x, &up, &uplen);
    }
    (void) mca_coll_cloudaware_send_post(x->comm, &x->sends, x->tree.parent,
                                         CLOUDAWARE_TAG_REPORT, up, uplen);
    memset(&vr, 0, sizeof(vr));
    if (0 != x->epoch) {
        vr.buf = (NULL != x->verdict && 0 == x->local) ? (void *) x->verdict
                                                       : (void *) &x->received;
        vr.cap = (NULL != x->verdict && 0 == x->local) ? x->verdict_cap : sizeof(verdict_t);
        vr.from = x->tree.parent;
        vr.tag = CLOUDAWARE_TAG_VERDICT;
        vr.epoch = x->epoch;
        mca_coll_cloudaware_recv_post(x->comm, &vr);
        (void) mca_coll_cloudaware_recv_wait(&vr, 1, x->verdict_deadline);
        if (CLOUDAWARE_RECV_DONE == vr.state && vr.len >= sizeof(verdict_t)) {
            v = (verdict_t *) vr.buf;
            if (VERDICT_READY == v->verdict
                && (0 != x->local
                    || (v->has_matrix && vr.len != x->verdict_cap)
                    || (!v->has_matrix && vr.len != sizeof(verdict_t)))) {
                v = NULL;   /* cannot happen with a well-behaved rank 0 */
            }
        }
    }
    /* Without the epoch (the start message did not arrive) the verdict is FAIL anyway: this
     * rank's report says so, or rank 0 does not get it in time. */
    pass_verdict(x, v, vr.len);
    return v;
}

static void record_failure(calib_t *x, const char *cause, bool quiet, bool warn)
{
    mca_coll_cloudaware_netview_t *net = x->net;
    bool known = false;

    net->state = CLOUDAWARE_NET_FAILED;
    OPAL_THREAD_LOCK(&calib_lock);
    mca_coll_cloudaware_calib_stats.failures++;
    for (int i = 0; i < nfailed_keys; i++) {
        known = known || failed_keys[i] == x->map->key;
    }
    if (!known && nfailed_keys < MAX_FAILED_KEYS) {
        failed_keys[nfailed_keys++] = x->map->key;
    }
    OPAL_THREAD_UNLOCK(&calib_lock);
    if (quiet || !warn) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: no calibration for %s: %s; previous collectives",
                            x->comm->c_name, cause);
    } else {
        opal_output(0, "coll:cloudaware: warning: calibration of %s (%d nodes) failed: %s; this "
                    "communicator uses the previous collectives", x->comm->c_name, x->n, cause);
    }
}

/* Rank 0 after READY: verbose lines, the cache entry, the dump. */
static void report_success(calib_t *x)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    double elapsed = mca_coll_cloudaware_now() - x->start;
    char err[512];
    bool dump;

    if (x->measured > 0) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: calibration: measured %zu pairs", x->measured);
        summary(x, elapsed);
        if (!mca_coll_cloudaware_cache_store(x->net->matrix, x->map->key, err, sizeof(err))) {
            cache_warning("not caching the measured matrix: ", err);
        }
    } else {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: calibration of %s: %d nodes known from %s, "
                            "measured 0 pairs (%.3f s)", x->comm->c_name, x->n, x->h->source,
                            elapsed);
    }
    /* What measured is always written; otherwise a job-wide communicator's matrix, once, so a
     * sub-communicator's smaller view never overwrites the whole job's. */
    if (NULL == c->dump_matrix || '\0' == c->dump_matrix[0]) {
        return;
    }
    OPAL_THREAD_LOCK(&calib_lock);
    dump = x->measured > 0
        || (!dumped && ompi_comm_size(x->comm) == ompi_comm_size(&ompi_mpi_comm_world.comm));
    OPAL_THREAD_UNLOCK(&calib_lock);
    if (!dump) {
        return;
    }
    /* Atomic (temp file + rename, 0600): a symlink at the path is replaced, never followed. */
    if (CACORE_OK != cacore_matrix_write_file(x->net->matrix, c->dump_matrix, err, sizeof(err))) {
        opal_output(0, "coll:cloudaware: warning: coll_cloudaware_dump_matrix: %s", err);
        return;
    }
    OPAL_THREAD_LOCK(&calib_lock);
    dumped = true;
    OPAL_THREAD_UNLOCK(&calib_lock);
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: wrote the matrix of %s (%d nodes) to %s",
                        x->comm->c_name, x->n, c->dump_matrix);
}

/* Step 5: act on the verdict (NULL: none came in time). */
static void step_apply(calib_t *x, const verdict_t *v)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    bool root = (0 == x->map->my_rank);
    int n = x->n;
    char err[512];

    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: calibration verdict of %s on rank %d: %s after %.3f s "
                        "(budget %g s + slack %g s)", x->comm->c_name, x->map->my_rank,
                        (NULL != v && VERDICT_READY == v->verdict) ? "READY" : "FAIL",
                        mca_coll_cloudaware_now() - x->start, x->budget, c->calib_slack);
    if (NULL != x->again && (NULL == v || VERDICT_READY != v->verdict)) {
        /* A failed recalibration changes nothing: the matrix and the plans stay. */
        snprintf(x->again->why, sizeof(x->again->why), "%s",
                 NULL != v ? v->cause
                 : 0 != x->local ? cacore_fail_point_cause(x->local)
                                 : "no verdict from rank 0 within the time budget");
        return;
    }
    if (NULL == v) {
        record_failure(x, 0 != x->local ? cacore_fail_point_cause(x->local)
                                        : "no verdict from rank 0 within the time budget",
                       false, false);
        return;
    }
    if (VERDICT_READY != v->verdict) {
        record_failure(x, v->cause, 0 != v->quiet, root);
        return;
    }
    if (v->has_matrix && !root) {
        memcpy(x->L, v + 1, sizeof(double) * x->nn);
        memcpy(x->B, (const double *) (v + 1) + x->nn, sizeof(double) * x->nn);
        memcpy(x->P, (const double *) (v + 1) + 2 * x->nn,
               sizeof(double) * CACORE_NODE_VALUES * n);
        for (size_t i = 0; i < (size_t) n; i++) {
            for (size_t j = 0; j < (size_t) n; j++) {
                if (x->todo[i * n + j]) {
                    x->known[i * n + j] = 1;
                }
            }
            if (x->node_todo[i]) {
                x->pknown[i] = 1;
            }
        }
    }
    bool all_props = true;
    cacore_matrix_t *fresh = NULL;
    for (int i = 0; i < n; i++) {
        all_props = all_props && x->pknown[i];
    }
    for (size_t i = 0; i < (size_t) n; i++) {
        x->L[i * n + i] = 0.0;
        x->B[i * n + i] = 0.0;
    }
    if (CACORE_OK != cacore_matrix_create(n, (const char *const *) x->map->hosts, x->L, x->B,
                                          &fresh, err, sizeof(err))) {
        /* The values passed rank 0's checks, so this is out of memory after the agreed
         * verdict: falling back alone would run other algorithms than the other ranks. */
        opal_output(0, "coll:cloudaware: error: calibration of %s: %s after every rank agreed "
                    "on the matrix; aborting rather than diverging", x->comm->c_name, err);
        ompi_mpi_abort(x->comm, 1);
        return;
    }
    cacore_matrix_free(x->net->matrix);   /* a recalibration's earlier matrix */
    x->net->matrix = fresh;
    /* Node properties only when every node has them (the model needs all or none); the values
     * passed rank 0's range checks, so this fails only for want of memory: the same abort. */
    if (all_props
        && CACORE_OK != cacore_matrix_set_node_props(x->net->matrix, x->P, err, sizeof(err))) {
        opal_output(0, "coll:cloudaware: error: calibration of %s: %s after every rank agreed "
                    "on the node capacities; aborting rather than diverging", x->comm->c_name,
                    err);
        ompi_mpi_abort(x->comm, 1);
        return;
    }
    x->net->state = CLOUDAWARE_NET_READY;
    if (NULL != x->again) {
        x->again->ok = true;
        x->again->measured = x->measured;
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: calibration of %s on rank %d: agreed matrix %016llx %s",
                        x->comm->c_name, x->map->my_rank,
                        (unsigned long long) cacore_matrix_digest(x->net->matrix),
                        all_props ? "with node properties" : "without node properties");
    (void) mca_coll_cloudaware_store_merge(n, x->map->hosts, x->L, x->B, x->known, x->P,
                                           x->pknown);
    OPAL_THREAD_LOCK(&calib_lock);
    if (x->measured > 0) {
        mca_coll_cloudaware_calib_stats.measurements++;
        mca_coll_cloudaware_calib_stats.pairs_measured += (long long) x->measured;
    } else {
        mca_coll_cloudaware_calib_stats.reuses++;
    }
    OPAL_THREAD_UNLOCK(&calib_lock);
    if (root) {
        report_success(x);
    }
}

static int calibrate(mca_coll_cloudaware_module_t *m, struct ompi_communicator_t *comm,
                     mca_coll_cloudaware_recal_t *again)
{
    calib_t x;
    const verdict_t *v;

    memset(&x, 0, sizeof(x));
    x.again = again;
    x.comm = comm;
    x.net = m->net;
    x.map = m->net->map;
    x.n = x.map->nnodes;
    x.nn = (size_t) x.n * (size_t) x.n;
    x.entered = mca_coll_cloudaware_now();
    x.how = "no";
    OPAL_THREAD_LOCK(&calib_lock);
    if (stats_world_rank < 0) {
        stats_world_rank = ompi_comm_rank(&ompi_mpi_comm_world.comm);
    }
    OPAL_THREAD_UNLOCK(&calib_lock);

    mca_coll_cloudaware_exchange_reap();   /* sends of earlier calibrations */
    step_start(&x);
    step_prepare(&x);
    step_measure_and_report(&x);
    v = (0 == x.map->my_rank) ? step_coordinate(&x) : step_await(&x);
    step_apply(&x, v);

    /* The report or bundle (others), the verdict sent or passed on may still be read by the
     * PML. */
    if (0 == x.map->my_rank) {
        mca_coll_cloudaware_sends_park(&x.sends, x.sent, &emergency_verdict != x.sent);
        if (x.verdict != x.sent) {
            free(x.verdict);
        }
        if (&emergency_report != x.report) {
            free(x.report);
        }
    } else if (NULL != x.bundle) {
        mca_coll_cloudaware_sends_park(&x.sends, x.bundle, true);
        if (&emergency_report != x.report) {
            free(x.report);
        }
        free(x.verdict);
    } else {
        mca_coll_cloudaware_sends_park(&x.sends, x.report, &emergency_report != x.report);
        free(x.verdict);
    }
    if (NULL != x.passed) {
        mca_coll_cloudaware_sends_park(&x.passes, x.passed, true);
    }
    free(x.todo);
    free(x.node_todo);
    free(x.start_msg);
    mca_coll_cloudaware_pvars_calibration(NULL != again, mca_coll_cloudaware_now() - x.entered);
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
        return calibrate(m, comm, NULL);
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
        (void) calibrate(m, comm, NULL);
    }
    return CLOUDAWARE_NET_READY == m->net->state ? m->net->matrix : NULL;
}

bool mca_coll_cloudaware_recalibrate(mca_coll_cloudaware_module_t *m,
                                     struct ompi_communicator_t *comm,
                                     mca_coll_cloudaware_recal_t *again)
{
    again->ok = false;
    again->measured = 0;
    again->why[0] = '\0';
    /* The state is agreed (READY on every rank or on none). */
    if (NULL == m->net || CLOUDAWARE_NET_READY != m->net->state) {
        snprintf(again->why, sizeof(again->why), "the communicator has no matrix");
        return false;
    }
    (void) calibrate(m, comm, again);
    return again->ok;
}

void mca_coll_cloudaware_calibrate_finalize(void)
{
    mca_coll_cloudaware_calib_stats_t *s = &mca_coll_cloudaware_calib_stats;

    if (0 == stats_world_rank) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: calibration totals (world rank 0): %d "
                            "measurements, %lld pairs measured, %d reuses, %d cache hits, "
                            "%d failures", s->measurements, s->pairs_measured, s->reuses,
                            s->cache_hits, s->failures);
    }
    mca_coll_cloudaware_exchange_finalize();
    OPAL_THREAD_LOCK(&calib_lock);
    memset(s, 0, sizeof(*s));
    stats_world_rank = -1;
    dumped = false;
    file_gap_warned = false;
    cache_dir_warned = false;
    nfailed_keys = 0;
    OPAL_THREAD_UNLOCK(&calib_lock);
}
