/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/cloudaware calibration (coll_cloudaware_calibrate.c; docs/calibration.md). Its parts have
 * their own headers: the node map (coll_cloudaware_nodes.h), the tournament
 * (coll_cloudaware_tournament.h), the messages (coll_cloudaware_exchange.h).
 *
 * Life cycle for one communicator:
 *   enable()           builds the node map (which ranks share a node, node leaders, node-set key);
 *                      with coll_cloudaware_calibrate=eager it also calibrates right there.
 *   first collective   mca_coll_cloudaware_comm_matrix() calibrates (lazy) and returns the
 *                      communicator's matrix, or NULL: then EVERY rank of the communicator falls
 *                      back (the outcome is agreed through the exchange, never decided per rank).
 */
#ifndef MCA_COLL_CLOUDAWARE_CALIBRATE_H
#define MCA_COLL_CLOUDAWARE_CALIBRATE_H

#include "ompi_config.h"

#include <stdint.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_nodes.h"
#include "core/cloudaware_core.h"

BEGIN_C_DECLS

typedef enum {
    CLOUDAWARE_CALIBRATE_OFF = 0,    /* files (matrix file, cache) only; otherwise fall back */
    CLOUDAWARE_CALIBRATE_LAZY = 1,   /* at the first collective that uses the model */
    CLOUDAWARE_CALIBRATE_EAGER = 2   /* at communicator creation (module enable) */
} mca_coll_cloudaware_calibrate_mode_t;

typedef enum {
    CLOUDAWARE_EXCHANGE_AUTO = 0,    /* PMIx when usable, else the PML */
    CLOUDAWARE_EXCHANGE_PMIX = 1,
    CLOUDAWARE_EXCHANGE_PML = 2
} mca_coll_cloudaware_exchange_t;

typedef enum {
    CLOUDAWARE_NET_PENDING = 0,   /* not calibrated yet */
    CLOUDAWARE_NET_READY = 1,     /* matrix known, identical on every rank */
    CLOUDAWARE_NET_FAILED = 2     /* agreed fallback for this communicator */
} mca_coll_cloudaware_net_state_t;

/* Per-communicator view of the network (module state). */
typedef struct mca_coll_cloudaware_netview_t {
    mca_coll_cloudaware_nodemap_t *map;
    int state;
    cacore_matrix_t *matrix;      /* READY: nodes in map order (sorted host names) */
} mca_coll_cloudaware_netview_t;


/* ---- coll_cloudaware_calibrate.c ---- */
/* Called from module enable: builds the node map; calibrates now when mode is eager. */
int mca_coll_cloudaware_calibrate_enable(mca_coll_cloudaware_module_t *m,
                                         struct ompi_communicator_t *comm);
/* The communicator's matrix (nodes in m->net->map order), calibrating first if needed (lazy).
 * NULL means: fall back on this communicator; that answer is the same on every rank. */
const cacore_matrix_t *mca_coll_cloudaware_comm_matrix(mca_coll_cloudaware_module_t *m,
                                                       struct ompi_communicator_t *comm);
void mca_coll_cloudaware_netview_free(mca_coll_cloudaware_netview_t *net);
/* A recalibration (coll_cloudaware_drift.c): the calibration protocol again over a READY
 * communicator, measuring pairs[i * nnodes + j] (symmetric, in node-map order) whatever the
 * store and the cache know (start message over the PML). On READY the communicator's matrix,
 * the process store and the cache entry take the new values that are slower than the old
 * (cacore_drift_merge_pair) and ok is set; on failure nothing changes (not even the failed node
 * sets: the communicator keeps its matrix) and why says why.
 * Like a calibration, the verdict is rank 0's, so ok is the same on every rank. */
typedef struct {
    const unsigned char *pairs;
    bool ok;
    size_t measured;      /* unordered pairs measured (both directions of each) */
    size_t slower;        /* rank 0: directions measured slower and taken
                           * (cacore_drift_merge_pair; the others keep their values) */
    char why[256];
} mca_coll_cloudaware_recal_t;
bool mca_coll_cloudaware_recalibrate(mca_coll_cloudaware_module_t *m,
                                     struct ompi_communicator_t *comm,
                                     mca_coll_cloudaware_recal_t *again);
/* Process-wide counters (tests read them from the verbose output at finalize). */
typedef struct {
    int measurements;     /* calibrations that measured something */
    long long pairs_measured;   /* node pairs measured by those */
    int reuses;           /* calibrations satisfied without measuring */
    int cache_hits;
    int failures;
} mca_coll_cloudaware_calib_stats_t;
extern mca_coll_cloudaware_calib_stats_t mca_coll_cloudaware_calib_stats;
void mca_coll_cloudaware_calibrate_finalize(void);

/* Fault injection for tests (coll_cloudaware_calibrate_test_fail, _test_fail_rank): the local
 * failure points of a calibration after it has started (cacore_fail_point_t). */
/* true when the test parameters make this process fail at `point`. */
bool mca_coll_cloudaware_test_fail_here(int point);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_CALIBRATE_H */
