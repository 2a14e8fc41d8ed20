/*
 * coll/cloudaware calibration: node map, per-process store of measured matrices, measurement
 * tournament, PMIx exchange and cache files (docs/calibration.md).
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
#include "core/cloudaware_core.h"
#include "ompi/mca/coll/base/coll_tags.h"

BEGIN_C_DECLS

/* Point-to-point tags of the calibration (never used by any other coll component: the hcoll
 * range, and hcoll is not loaded together with coll/cloudaware's measurement). */
#define CLOUDAWARE_TAG_CALIBRATE (MCA_COLL_BASE_TAG_HCOLL_END + 16)
#define CLOUDAWARE_TAG_EXCHANGE (MCA_COLL_BASE_TAG_HCOLL_END + 17)
/* The bulk-transfer token of a limited calibration concurrency: its own tag, so a token can never
 * be matched by a receive of the measurement itself (the token's sender and receiver may be
 * measuring against each other before the token is consumed). */
#define CLOUDAWARE_TAG_TOKEN (MCA_COLL_BASE_TAG_HCOLL_END + 18)
/* The barrier among node leaders that starts a round's bulk phases together (concurrency 0). */
#define CLOUDAWARE_TAG_SYNC (MCA_COLL_BASE_TAG_HCOLL_END + 19)

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

/* Which ranks share a node. Nodes are numbered in the order of their sorted host names, so the
 * numbering (and everything derived from it) is identical on every rank. */
typedef struct mca_coll_cloudaware_nodemap_t {
    int nranks;
    int nnodes;
    char **hosts;        /* [nnodes], sorted */
    int *rank_node;      /* [nranks]: node of each communicator rank */
    int *node_nranks;    /* [nnodes]: ranks on each node */
    int *leaders;        /* [nnodes]: communicator rank that measures for the node */
    int my_node;
    int my_rank;
    uint64_t key;        /* FNV-1a 64 of the sorted host names, '\n'-separated */
} mca_coll_cloudaware_nodemap_t;

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

/* ---- coll_cloudaware_nodes.c ---- */
int mca_coll_cloudaware_nodemap_build(struct ompi_communicator_t *comm,
                                      mca_coll_cloudaware_nodemap_t **out);
void mca_coll_cloudaware_nodemap_free(mca_coll_cloudaware_nodemap_t *map);
uint64_t mca_coll_cloudaware_hosts_key(int n, char *const *hosts);

/* ---- coll_cloudaware_pmix.c: the exchange ---- */
/* Collective over comm: contributors[0..ncontrib) (identical on every rank) each provide a blob;
 * every rank receives all of them, in that order (out[i], outlen[i]: malloc'd, caller frees).
 * Through PMIx (Put/Commit/Fence with data collection over the communicator's processes/Get)
 * when usable, else over the PML. *how names the path taken. */
int mca_coll_cloudaware_exchange(struct ompi_communicator_t *comm, const char *phase,
                                 const void *blob, size_t len, int ncontrib,
                                 const int *contributors, void **out, size_t *outlen,
                                 const char **how);
void mca_coll_cloudaware_pmix_finalize(void);

/* ---- coll_cloudaware_calibrate_measure.c: the tournament among node leaders ---- */
typedef enum {
    CLOUDAWARE_MEAS_OK = 0,
    CLOUDAWARE_MEAS_TIMEOUT = 1,    /* the budget ran out while waiting for peer */
    CLOUDAWARE_MEAS_LATE = 2,       /* this leader started after the budget had run out */
    CLOUDAWARE_MEAS_ERROR = 3       /* the PML returned an error talking to peer */
} mca_coll_cloudaware_meas_status_t;

typedef struct {
    int status;
    int peer;            /* node involved in the failure, -1 */
    double *lat;         /* [nnodes]: this node -> j, seconds */
    double *bw;          /* [nnodes]: this node -> j, bytes/s */
} mca_coll_cloudaware_row_t;

/* Runs by node leaders only. todo[i*n+j] (symmetric) says which node pairs to measure. */
void mca_coll_cloudaware_measure(struct ompi_communicator_t *comm,
                                 const mca_coll_cloudaware_nodemap_t *map,
                                 const unsigned char *todo, double deadline,
                                 mca_coll_cloudaware_row_t *row);
double mca_coll_cloudaware_now(void);

/* ---- coll_cloudaware_calibrate.c ---- */
/* Called from module enable: builds the node map; calibrates now when mode is eager. */
int mca_coll_cloudaware_calibrate_enable(mca_coll_cloudaware_module_t *m,
                                         struct ompi_communicator_t *comm);
/* The communicator's matrix (nodes in m->net->map order), calibrating first if needed (lazy).
 * NULL means: fall back on this communicator; that answer is the same on every rank. */
const cacore_matrix_t *mca_coll_cloudaware_comm_matrix(mca_coll_cloudaware_module_t *m,
                                                       struct ompi_communicator_t *comm);
void mca_coll_cloudaware_netview_free(mca_coll_cloudaware_netview_t *net);
/* Process-wide counters (tests read them from the verbose output at finalize). */
typedef struct {
    int measurements;     /* calibrations that measured something */
    int pairs_measured;   /* node pairs measured by those */
    int reuses;           /* calibrations satisfied without measuring */
    int cache_hits;
    int failures;
} mca_coll_cloudaware_calib_stats_t;
extern mca_coll_cloudaware_calib_stats_t mca_coll_cloudaware_calib_stats;
void mca_coll_cloudaware_calibrate_finalize(void);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_CALIBRATE_H */
