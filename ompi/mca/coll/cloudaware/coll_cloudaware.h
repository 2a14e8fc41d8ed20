/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/cloudaware: collectives shaped by a measured network (latency and bandwidth per ordered
 * node pair) instead of a trusted topology map.
 *
 * This header holds the component and module structures and the table of previous (fallback)
 * collectives. The model core (C++) is reached only through core/cloudaware_core.h.
 */
#ifndef MCA_COLL_CLOUDAWARE_H
#define MCA_COLL_CLOUDAWARE_H

#include "ompi_config.h"

#include "mpi.h"
#include "coll_cloudaware_compat.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"
#include "opal/util/output.h"

#include "core/cloudaware_core.h"

BEGIN_C_DECLS

/*
 * The blocking collectives cloudaware overrides. Everything else (barrier, alltoall, scans,
 * v-variants, neighborhood, ...) is never touched and stays with the other components.
 * X(name, enum) expands once per collective, so saving, releasing and dispatching are written once.
 */
#define CLOUDAWARE_FOREACH_COLL(X)    \
    X(bcast,     CACORE_COLL_BCAST)     \
    X(reduce,    CACORE_COLL_REDUCE)    \
    X(allreduce, CACORE_COLL_ALLREDUCE) \
    X(gather,    CACORE_COLL_GATHER)    \
    X(scatter,   CACORE_COLL_SCATTER)   \
    X(allgather, CACORE_COLL_ALLGATHER)

/* The list covers every collective of the core (whose names, cacore_coll_name(), the MCA
 * parameters and messages use). */
#define CLOUDAWARE_COUNT_ONE(name, id) +1
_Static_assert(0 CLOUDAWARE_FOREACH_COLL(CLOUDAWARE_COUNT_ONE) == CACORE_COLL_COUNT,
               "CLOUDAWARE_FOREACH_COLL must list every cacore_coll_t");
#undef CLOUDAWARE_COUNT_ONE

/* Verbosity levels of the component's output stream (coll_cloudaware_verbose). */
enum {
    CLOUDAWARE_VERBOSE_WARN = 1,      /* problems that make the component fall back */
    CLOUDAWARE_VERBOSE_SELECT = 10,   /* per communicator: selected or declined, and why */
    CLOUDAWARE_VERBOSE_CALL = 50      /* per call: which path a collective took */
};

/* coll_cloudaware_previous_model: find the previous provider's component (coll_cloudaware_select.c) */
#define CLOUDAWARE_PREVIOUS_AUTO (-1)

typedef struct mca_coll_cloudaware_component_t {
    mca_coll_cloudaware_base_component_t super;   /* 2.0.0 on 4.1, 2.4.0 on 5.0 */

    /* MCA parameters (registered in coll_cloudaware_component.c) */
    int priority;
    int verbose;
    bool enable[CACORE_COLL_COUNT];
    int min_nodes;
    int min_comm_size;
    char *matrix_file;
    /* calibration (coll_cloudaware_calibrate*.c, docs/calibration.md) */
    int calibrate_mode;          /* mca_coll_cloudaware_calibrate_mode_t */
    int calib_exchange;          /* mca_coll_cloudaware_exchange_t */
    int calib_latency_bytes;
    int calib_latency_reps;
    int calib_bandwidth_bytes;
    int calib_bandwidth_reps;
    int calib_concurrency;       /* pairs moving bulk data at once per round; 0 = all */
    double calib_budget;         /* seconds */
    double calib_slack;          /* seconds added for the decision messages */
    int node_leader;             /* which rank of a node leads: 0 lowest, -1 highest */
    char *cache_dir;
    int cache_max_age;           /* seconds; 0 = no limit */
    char *dump_matrix;
    int test_sleep;              /* tests: seconds the leader of test_sleep_node sleeps */
    int test_sleep_node;
    char *test_fail;             /* tests: local failure point (coll_cloudaware_calibrate.h) */
    int test_fail_rank;          /* tests: world rank that fails there */
    int test_fake_nodes;         /* tests: split each host into this many pretend nodes */
    /* plan choice (coll_cloudaware_select.c, coll_cloudaware_rules.c, docs/parameters.md) */
    char *rules_file;
    double min_gain;             /* the cost model runs a plan only when this much faster */
    int algorithm;               /* cacore_algo_t */
    int pattern[3];              /* cacore_pattern_t per level: node, group, top */
    int segment_size;            /* bytes; 0 = chosen by the cost model */
    int large_message;           /* bytes from which messages may be pipelined */
    bool relay;                  /* plans may relay messages around a bad node pair */
    double k;                    /* discretization factor of the hierarchy */
    int t_span;                  /* span threshold of the hierarchy */
    int model_slots;             /* cost model: messages a node sends/receives at once; 0 = any,
                                    -1 = measured (flow model) */
    int model_duplex;            /* cost model: messages between two ranks above this many bytes
                                    take turns with the other direction; 0 = all, -1 = none,
                                    -2 = measured (CACORE_DUPLEX_MEASURED) */
    int model_burst;             /* cost model: burst credit in bytes; 0 = none, -1 = measured
                                    (CACORE_BURST_MEASURED) */
    /* live trial (coll_cloudaware_trial.c) */
    int trial_calls;             /* blocking calls per variant; 0 = no trials */
    double trial_time;           /* seconds: more calls per variant when they are shorter */
    double trial_margin;         /* the plan keeps a class only when this much faster */
    double trial_spread;         /* the second plan is tried when predicted within this factor */
    double trial_cut;            /* a variant this many times slower in its first call runs no
                                    more calls; 0 = never */
    int trial_extra;             /* more calls for a variant whose calls are spread; 0 = never */
    bool trial_peer;             /* the other default's algorithm (the peer) is tried */
    int previous_model;          /* cacore_prev_t, or CLOUDAWARE_PREVIOUS_AUTO */
    char *trace_dir;             /* per-call traces (coll_cloudaware_trace.c); NULL/"" = off */
    /* drift detection and recalibration (coll_cloudaware_drift.c, docs/drift.md) */
    double recalibrate_threshold;   /* relative change from a plan's baseline; 0 = off */
    int recalibrate_calls;          /* the batch; twice it: drifting calls in a row that trigger */
    double recalibrate_interval;    /* seconds: at most one recalibration per communicator */
    int recalibrate_min_bytes;      /* smaller size classes are not watched for drift */
    int scratch_keep;            /* executor: bytes of freed temporary areas kept for later calls */

    int output;   /* opal_output stream */
} mca_coll_cloudaware_component_t;

CLOUDAWARE_COMPONENT_DECLSPEC extern mca_coll_cloudaware_component_t mca_coll_cloudaware_component;

/* The previous provider of each collective on a communicator, in its three forms (blocking,
 * nonblocking, persistent): called whenever cloudaware has no better plan. Module pointers are
 * retained while we hold them; NULL module = our own simple schedule is the provider. */
typedef struct {
#define CLOUDAWARE_FALLBACK_FIELD(name, id)                        \
    mca_coll_base_module_##name##_fn_t name;                       \
    mca_coll_base_module_t *name##_module;                         \
    mca_coll_base_module_i##name##_fn_t i##name;                   \
    mca_coll_base_module_t *i##name##_module;                      \
    mca_coll_base_module_##name##_init_fn_t name##_init;           \
    mca_coll_base_module_t *name##_init_module;
    CLOUDAWARE_FOREACH_COLL(CLOUDAWARE_FALLBACK_FIELD)
#undef CLOUDAWARE_FALLBACK_FIELD
} mca_coll_cloudaware_fallback_t;

typedef struct mca_coll_cloudaware_module_t {
    mca_coll_base_module_t super;
    mca_coll_cloudaware_fallback_t previous;
    int num_nodes;                 /* distinct nodes spanned by the communicator */
    bool plans;                    /* cloud-aware plans allowed here (else: fill-only) */
    struct mca_coll_cloudaware_netview_t *net;   /* node map + matrix (calibrate.h) */
    struct mca_coll_cloudaware_plancache_t *plancache;   /* coll_cloudaware_select.c */
    struct mca_coll_cloudaware_trial_t *trial_now;   /* the trial whose call runs now (trial.c) */
    int trial_depth;               /* blocking calls running (nested: previous modules call ours) */
    unsigned in_previous;          /* CLOUDAWARE_PREVIOUS_BIT of each collective whose previous
                                      provider cloudaware is running now */
    unsigned reentered;            /* the same bits: collectives whose previous provider called
                                      back into cloudaware (said once, at verbose 1) */
    struct mca_coll_cloudaware_drift_t *drift_now;   /* the timed plan call running now (drift.c) */
    unsigned char *drift_pairs;    /* node pairs to measure again at the next collective, or NULL */
    double drift_last;             /* when this communicator last tried to recalibrate; 0 never */
    char drift_why[256];           /* what triggered the pending recalibration (its message) */
} mca_coll_cloudaware_module_t;

OBJ_CLASS_DECLARATION(mca_coll_cloudaware_module_t);

/* While cloudaware runs a collective's previous provider, that collective's bit is set in
 * m->in_previous. A call of the same collective reaching cloudaware meanwhile comes from inside
 * that provider, which called the communicator's function table back (Open MPI 4.1's han does
 * where it cannot serve a communicator, expecting to be the top component): it runs
 * cloudaware's simple schedule (coll_cloudaware_sched.h), as the provider again would loop. */
#define CLOUDAWARE_PREVIOUS_BIT(coll) (1u << (unsigned) (coll))

/* coll_cloudaware_module.c */
int mca_coll_cloudaware_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_cloudaware_comm_query(struct ompi_communicator_t *comm,
                                                       int *priority);
/* The slowest rank's in[0 .. n) on every rank, into out: one MPI_MAX allreduce through the
 * previous module, made at the same call on every rank (the live trial's and the drift check's
 * agreements). The calls that allreduce makes to this component count as nested (trial_depth):
 * neither trial calls nor timed. */
int mca_coll_cloudaware_agree_max(mca_coll_cloudaware_module_t *m,
                                  struct ompi_communicator_t *comm, const double *in,
                                  double *out, int n);

/* coll_cloudaware_nodes.c */
int mca_coll_cloudaware_count_nodes(struct ompi_communicator_t *comm);

/* coll_cloudaware_dispatch.c: the entry points of the six collectives, blocking
 * (mca_coll_cloudaware_<name>), nonblocking (mca_coll_cloudaware_planned_i<name>) and persistent
 * (mca_coll_cloudaware_planned_<name>_init): a plan, or the previous provider of that form. */
#define CLOUDAWARE_COMM_ARGS struct ompi_communicator_t *comm
#define CLOUDAWARE_NB_ARGS struct ompi_communicator_t *comm, ompi_request_t **request
#define CLOUDAWARE_INIT_ARGS \
    struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request
#define CLOUDAWARE_PARAMS_BCAST \
    void *buff, int count, struct ompi_datatype_t *datatype, int root
#define CLOUDAWARE_PARAMS_REDUCE \
    const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype, \
    struct ompi_op_t *op, int root
#define CLOUDAWARE_PARAMS_ALLREDUCE \
    const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype, \
    struct ompi_op_t *op
#define CLOUDAWARE_PARAMS_GATHER \
    const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount, \
    struct ompi_datatype_t *rdtype, int root
#define CLOUDAWARE_PARAMS_SCATTER \
    const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount, \
    struct ompi_datatype_t *rdtype, int root
#define CLOUDAWARE_PARAMS_ALLGATHER \
    const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount, \
    struct ompi_datatype_t *rdtype
#define CLOUDAWARE_DECLARE_DISPATCH(name, params)                                                 \
    int mca_coll_cloudaware_##name(params, CLOUDAWARE_COMM_ARGS, mca_coll_base_module_t *module); \
    int mca_coll_cloudaware_planned_i##name(params, CLOUDAWARE_NB_ARGS,                           \
                                            mca_coll_base_module_t *module);                      \
    int mca_coll_cloudaware_planned_##name##_init(params, CLOUDAWARE_INIT_ARGS,                   \
                                                  mca_coll_base_module_t *module);
CLOUDAWARE_DECLARE_DISPATCH(bcast, CLOUDAWARE_PARAMS_BCAST)
CLOUDAWARE_DECLARE_DISPATCH(reduce, CLOUDAWARE_PARAMS_REDUCE)
CLOUDAWARE_DECLARE_DISPATCH(allreduce, CLOUDAWARE_PARAMS_ALLREDUCE)
CLOUDAWARE_DECLARE_DISPATCH(gather, CLOUDAWARE_PARAMS_GATHER)
CLOUDAWARE_DECLARE_DISPATCH(scatter, CLOUDAWARE_PARAMS_SCATTER)
CLOUDAWARE_DECLARE_DISPATCH(allgather, CLOUDAWARE_PARAMS_ALLGATHER)
#undef CLOUDAWARE_DECLARE_DISPATCH

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_H */
