/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/cloudaware component: its identity, and every MCA parameter it registers.
 * `ompi_info --param coll cloudaware --level 9` lists them with these descriptions.
 */
#include "ompi_config.h"

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"
#include "coll_cloudaware_exec.h"
#include "coll_cloudaware_nodes.h"
#include "coll_cloudaware_pvars.h"
#include "coll_cloudaware_rules.h"
#include "coll_cloudaware_select.h"
#include "coll_cloudaware_store.h"
#include "coll_cloudaware_trace.h"
#include "coll_cloudaware_trial.h"
#include "core/cloudaware_core.h"

#include "ompi/constants.h"
#include "opal/mca/base/mca_base_var.h"

const char *mca_coll_cloudaware_component_version_string =
    "Open MPI cloudaware collective MCA component version " CLOUDAWARE_VERSION_STRING;

static int cloudaware_open(void);
static int cloudaware_close(void);
static int cloudaware_register(void);

mca_coll_cloudaware_component_t mca_coll_cloudaware_component = {
    .super = {
        .collm_version = {
            CLOUDAWARE_COLL_BASE_VERSION,
            .mca_component_name = "cloudaware",
            /* The component's own version (VERSION), which ompi_info reports. */
            MCA_BASE_MAKE_VERSION(component, CLOUDAWARE_MAJOR_VERSION, CLOUDAWARE_MINOR_VERSION,
                                  CLOUDAWARE_RELEASE_VERSION),
            .mca_open_component = cloudaware_open,
            .mca_close_component = cloudaware_close,
            .mca_register_component_params = cloudaware_register,
        },
        .collm_data = {
            MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .collm_init_query = mca_coll_cloudaware_init_query,
        .collm_comm_query = mca_coll_cloudaware_comm_query,
    },
    /* Above basic (10), so `--mca coll cloudaware,basic` selects it with no other parameter;
     * below tuned (30), so a site-wide install changes nothing until a user opts in
     * (`--mca coll cloudaware,basic` or coll_cloudaware_priority 90). docs/parameters.md. */
    .priority = 20,
    .verbose = 0,
    .enable = { true, true, true, true, true, true },
    .min_nodes = 2,
    .min_comm_size = 2,
    .matrix_file = NULL,
    /* Calibration defaults: docs/calibration.md says why. */
    .calibrate_mode = CLOUDAWARE_CALIBRATE_LAZY,
    .calib_exchange = CLOUDAWARE_EXCHANGE_AUTO,
    .calib_latency_bytes = 1,
    .calib_latency_reps = 20,
    .calib_bandwidth_bytes = 4 << 20,
    .calib_bandwidth_reps = 1,
    .calib_concurrency = 0,
    .calib_budget = 120.0,
    .calib_slack = 2.0,
    .node_leader = 0,
    .cache_dir = NULL,
    .cache_max_age = 86400,
    .dump_matrix = NULL,
    .test_sleep = 0,
    .test_sleep_node = -1,
    .test_fail = NULL,
    .test_fail_rank = -1,
    .test_fake_nodes = 0,
    .rules_file = NULL,
    .min_gain = 0.1,
    .algorithm = CACORE_ALGO_AUTO,
    .pattern = { CACORE_PAT_AUTO, CACORE_PAT_AUTO, CACORE_PAT_AUTO },
    .segment_size = 0,
    .large_message = 65536,
    .relay = true,
    .k = 4.0,
    .t_span = 1,
    .model_slots = -1,
    .model_duplex = CACORE_DUPLEX_MEASURED,
    .model_burst = CACORE_BURST_MEASURED,
    .trial_calls = 3,
    .trial_margin = 0.05,
    .trial_time = 0.05,
    .trial_spread = 2.0,
    .trial_cut = 3.0,
    .trial_extra = 1,
    .trial_peer = true,
    .previous_model = CLOUDAWARE_PREVIOUS_AUTO,
    .trace_dir = NULL,
    /* docs/drift.md says why */
    .recalibrate_threshold = 0.2,
    .recalibrate_calls = 3,
    .recalibrate_interval = 60.0,
    .recalibrate_min_bytes = 65536,
    .scratch_keep = 32 << 20,
    .output = -1,
};

static int register_int(const char *name, const char *help, int level, int *storage)
{
    return mca_base_component_var_register(&mca_coll_cloudaware_component.super.collm_version,
                                           name, help, MCA_BASE_VAR_TYPE_INT, NULL, 0,
                                           MCA_BASE_VAR_FLAG_SETTABLE, level,
                                           MCA_BASE_VAR_SCOPE_ALL, storage);
}

static int register_bool(const char *name, const char *help, int level, bool *storage)
{
    return mca_base_component_var_register(&mca_coll_cloudaware_component.super.collm_version,
                                           name, help, MCA_BASE_VAR_TYPE_BOOL, NULL, 0,
                                           MCA_BASE_VAR_FLAG_SETTABLE, level,
                                           MCA_BASE_VAR_SCOPE_ALL, storage);
}

static int register_double(const char *name, const char *help, int level, double *storage)
{
    return mca_base_component_var_register(&mca_coll_cloudaware_component.super.collm_version,
                                           name, help, MCA_BASE_VAR_TYPE_DOUBLE, NULL, 0,
                                           MCA_BASE_VAR_FLAG_SETTABLE, level,
                                           MCA_BASE_VAR_SCOPE_ALL, storage);
}

static int register_string(const char *name, const char *help, int level, char **storage)
{
    return mca_base_component_var_register(&mca_coll_cloudaware_component.super.collm_version,
                                           name, help, MCA_BASE_VAR_TYPE_STRING, NULL, 0,
                                           MCA_BASE_VAR_FLAG_SETTABLE, level,
                                           MCA_BASE_VAR_SCOPE_ALL, storage);
}

static int register_enum(const char *name, const char *help, int level,
                         const mca_base_var_enum_value_t *values, int *storage)
{
    mca_base_var_enum_t *e = NULL;
    int rc;

    mca_base_var_enum_create(name, values, &e);
    rc = mca_base_component_var_register(&mca_coll_cloudaware_component.super.collm_version,
                                         name, help, MCA_BASE_VAR_TYPE_INT, e, 0,
                                         MCA_BASE_VAR_FLAG_SETTABLE, level,
                                         MCA_BASE_VAR_SCOPE_ALL, storage);
    if (NULL != e) {
        OBJ_RELEASE(e);
    }
    return rc;
}

/* The values of an enum parameter are the names of a core table (cacore_*_name: the one source
 * of names, shared with the rules parser and cloudaware-plan); values has room for them all and
 * the terminating NULL entry. */
static const mca_base_var_enum_value_t *name_enum(const char *(*name)(int),
                                                  mca_base_var_enum_value_t *values)
{
    int i = 0;

    for (; NULL != name(i); i++) {
        values[i].value = i;
        values[i].string = name(i);
    }
    values[i].value = 0;
    values[i].string = NULL;
    return values;
}

/* Calibration (docs/calibration.md): when and how the network is measured, where results are
 * kept, and the hooks tests use. */
static void register_calibration(mca_coll_cloudaware_component_t *c)
{
    static const mca_base_var_enum_value_t modes[] = {
        { CLOUDAWARE_CALIBRATE_OFF, "off" },
        { CLOUDAWARE_CALIBRATE_LAZY, "lazy" },
        { CLOUDAWARE_CALIBRATE_EAGER, "eager" },
        { 0, NULL }
    };
    static const mca_base_var_enum_value_t exchanges[] = {
        { CLOUDAWARE_EXCHANGE_AUTO, "auto" },
        { CLOUDAWARE_EXCHANGE_PMIX, "pmix" },
        { CLOUDAWARE_EXCHANGE_PML, "pml" },
        { 0, NULL }
    };

    register_enum("calibrate",
                  "When the network of a communicator's nodes is measured: lazy (default: at the "
                  "first collective cloudaware handles on it; costs nothing to communicators and "
                  "jobs that never use it), eager (at communicator creation), off (never: only "
                  "coll_cloudaware_matrix_file and the cache; unknown nodes fall back). Nodes "
                  "already measured in this process are never measured again.",
                  OPAL_INFO_LVL_3, modes, &c->calibrate_mode);
    register_enum("calibrate_exchange",
                  "How calibration results are shared: auto (PMIx Put/Commit/Fence/Get for "
                  "MPI_COMM_WORLD when usable; the PML for other communicators, whose cids are "
                  "reused after MPI_Comm_free), pmix (always PMIx), pml (always the PML).",
                  OPAL_INFO_LVL_6, exchanges, &c->calib_exchange);
    register_int("calibrate_latency_bytes",
                 "Message size (bytes) of the latency ping-pong (default 1, as CMPI).",
                 OPAL_INFO_LVL_5, &c->calib_latency_bytes);
    register_int("calibrate_latency_reps",
                 "Ping-pong repetitions per direction and pair; latency = median RTT/2 "
                 "(default 20).", OPAL_INFO_LVL_5, &c->calib_latency_reps);
    register_int("calibrate_bandwidth_bytes",
                 "Message size (bytes) of the bandwidth transfer each way (default 4 MiB). "
                 "Larger is more accurate on fast networks and slower to calibrate.",
                 OPAL_INFO_LVL_5, &c->calib_bandwidth_bytes);
    register_int("calibrate_bandwidth_reps",
                 "Bandwidth transfers per direction and pair (default 1); with "
                 "calibrate_concurrency 0 the median is kept (pairs sharing a link speed each "
                 "other up when one stalls), otherwise the best.",
                 OPAL_INFO_LVL_5, &c->calib_bandwidth_reps);
    register_int("calibrate_concurrency",
                 "Pairs that move bulk data at the same time (default 0 = all N/2 pairs of a "
                 "tournament round, started together after a barrier, as CMPI). k > 0: at most k "
                 "pairs at once, across rounds; 1 measures each pair alone: slower, but shared "
                 "links (rack uplinks) do not lower the per-pair rates.", OPAL_INFO_LVL_5,
                 &c->calib_concurrency);
    register_double("calibrate_budget",
                    "Time budget of one calibration of up to 8 nodes in seconds "
                    "(default 120); larger node sets get it in proportion to the "
                    "measurement's rounds (16 nodes: 15/7 of it, 257 s). When it runs "
                    "out, or a node leader stalls or fails, every rank of the "
                    "communicator falls back to the previous collectives, with one "
                    "warning.",
                    OPAL_INFO_LVL_4, &c->calib_budget);
    register_double("calibrate_slack",
                    "Seconds added to coll_cloudaware_calibrate_budget for the messages that "
                    "decide a calibration (default 2): rank 0 decides by budget + slack/2, the "
                    "others wait for its verdict, passed down a tree, until budget + slack for "
                    "the deepest ranks, each hop having an equal share of the other half "
                    "(docs/calibration.md).",
                    OPAL_INFO_LVL_6, &c->calib_slack);
    register_int("node_leader",
                 "Which rank of a node measures for it, in communicator order: 0 = lowest "
                 "(default), 1 = second, ..., -1 = highest (clamped to the node's ranks).",
                 OPAL_INFO_LVL_6, &c->node_leader);
    register_string("cache_dir",
                    "Directory of measured matrices kept across jobs, keyed by node set "
                    "(cloudaware-<hash>.matrix, matrix file format). Default empty: no cache. "
                    "Created 0700; refused when any component of its path is a symlink, or it "
                    "is not ours, or group/world writable. Suggested: $HOME/.cache/cloudaware.",
                    OPAL_INFO_LVL_3, &c->cache_dir);
    register_string("trace",
                    "Directory of per-call traces (docs/monitoring.md): every rank writes "
                    "rank-<world rank>.trace (docs/trace-format.md) with each collective call it "
                    "runs as a plan, step by step, and each call handed to the previous module; "
                    "world rank 0 writes hints.txt at the end. Default empty: off. Created 0700 "
                    "and checked as coll_cloudaware_cache_dir is.", OPAL_INFO_LVL_3,
                    &c->trace_dir);
    register_int("cache_max_age",
                 "Cache entries older than this many seconds are ignored (default 86400; 0 = no "
                 "limit).", OPAL_INFO_LVL_3, &c->cache_max_age);
    register_string("dump_matrix",
                    "Write the matrix of each calibration that measured (and of the first one "
                    "in any case) to this file (matrix file format; cloudaware-plan reads it).",
                    OPAL_INFO_LVL_3, &c->dump_matrix);
    register_int("calibrate_test_sleep",
                 "FOR TESTS: the leader of node coll_cloudaware_calibrate_test_sleep_node "
                 "sleeps this many seconds before measuring (a stalled peer).",
                 OPAL_INFO_LVL_9, &c->test_sleep);
    register_int("calibrate_test_sleep_node",
                 "FOR TESTS: node index (sorted host names) whose leader sleeps; -1 none.",
                 OPAL_INFO_LVL_9, &c->test_sleep_node);
    register_string("calibrate_test_fail",
                    "FOR TESTS: world rank coll_cloudaware_calibrate_test_fail_rank fails at this "
                    "point of a calibration: start-alloc, start-recv, alloc, measure or report "
                    "(a local failure every rank must agree on). Empty: none.",
                    OPAL_INFO_LVL_9, &c->test_fail);
    register_int("calibrate_test_fail_rank",
                 "FOR TESTS: world rank that fails at coll_cloudaware_calibrate_test_fail; -1 "
                 "none.", OPAL_INFO_LVL_9, &c->test_fail_rank);
    register_int("test_fake_nodes",
                 "FOR TESTS: treat every host as this many nodes (by world rank modulo the "
                 "value), so multi-node calibration runs on one machine. 0 = off.",
                 OPAL_INFO_LVL_9, &c->test_fake_nodes);
}

/* Plan choice (docs/rules-format.md, docs/cost-model.md): which plan runs per call. */
static void register_plan_choice(mca_coll_cloudaware_component_t *c)
{
    static mca_base_var_enum_value_t algos[CACORE_ALGO_COUNT + 1];
    static mca_base_var_enum_value_t patterns[CACORE_PAT_COUNT + 1];
    static mca_base_var_enum_value_t prevs[CACORE_PREV_COUNT + 2] = {
        { CLOUDAWARE_PREVIOUS_AUTO, "auto" }
    };
    static const char *const level_help[CACORE_PLAN_LEVELS] = {
        "among the ranks of one node", "among the node leaders of a group",
        "among the group leaders (every level above the groups)"
    };
    char name[64], help[320];

    register_string("rules_file",
                    "Rules file (docs/rules-format.md): per collective, node count and message "
                    "size, which plan runs or whether the previous module does. A file with an "
                    "error is reported once (file:line: problem) and ignored.",
                    OPAL_INFO_LVL_3, &c->rules_file);
    register_double("min_gain",
                    "Without a rule or a live trial's outcome, a cloud-aware plan runs only when "
                    "the cost model predicts it at least this fraction faster than the algorithm "
                    "the previous module would run for the call (default 0.1); otherwise the "
                    "previous module runs, so a uniform network keeps its usual algorithms.",
                    OPAL_INFO_LVL_4, &c->min_gain);
    name_enum(cacore_prev_name, prevs + 1);   /* after "auto" */
    register_enum("previous_model",
                  "Which component's algorithms the cost model predicts for the previous module: "
                  "auto (default: the component that provides the collective below cloudaware, "
                  "found from its function; others than tuned, basic and han count as binomial), "
                  "tuned (Open MPI 4.1 fixed decision rules), basic, han (two levels), binomial "
                  "(a binomial tree over ranks).",
                  OPAL_INFO_LVL_5, prevs, &c->previous_model);
    register_enum("algorithm",
                  "Cloud-aware algorithm: auto (default: the best predicted), cool (three "
                  "levels node/group/top), tree (CMPI Algorithm 4 performance-hierarchy tree), "
                  "binomial or ring (baselines over ranks, for comparison), linear (gather/"
                  "scatter straight to/from the root, all transfers at once), rail (allreduce, "
                  "allgather, bcast: split rails), lanes (bcast, reduce, allreduce: the "
                  "segments over several trees, each crossing the groups over its own host "
                  "pairs; pattern_group chain or flat).",
                  OPAL_INFO_LVL_5, name_enum(cacore_algo_name, algos), &c->algorithm);
    for (int l = 0; l < CACORE_PLAN_LEVELS; l++) {
        snprintf(name, sizeof(name), "pattern_%s", cacore_level_name(l));
        snprintf(help, sizeof(help),
                 "Pattern of COOL plans %s: auto (default: chosen by the cost model), flat, "
                 "binomial, recdbl, ring, chain (pipelined), dualtree (bcast), rabenseifner "
                 "(allreduce) or direct (rail allgather and allreduce; COOL: flat).",
                 level_help[l]);
        register_enum(name, help, OPAL_INFO_LVL_5, name_enum(cacore_pattern_name, patterns),
                      &c->pattern[l]);
    }
    register_int("segment_size",
                 "Segment size in bytes of pipelined patterns (chain, dualtree) for messages of "
                 "at least coll_cloudaware_large_message bytes (default 0: chosen by the cost "
                 "model).", OPAL_INFO_LVL_5, &c->segment_size);
    register_int("large_message",
                 "Messages of at least this many bytes may be cut into segments and pipelined "
                 "(default 65536); smaller ones travel whole.", OPAL_INFO_LVL_5,
                 &c->large_message);
    register_bool("relay",
                  "Plans may send a message whose node pair the matrix shows far slower than a "
                  "detour through a third node over that node instead (stored and forwarded by "
                  "one of its ranks), when the cost model predicts the relayed plan faster "
                  "(default true; docs/model.md, \"Relay around a bad link\").",
                  OPAL_INFO_LVL_5, &c->relay);
    register_double("k",
                    "Discretization factor k of the network performance "
                    "hierarchy: level(x) = floor(x / (k * min)) (default 4, as "
                    "CMPI). Larger k puts more nodes in one group.",
                    OPAL_INFO_LVL_6, &c->k);
    register_int("t_span",
                 "Span threshold T_span of the hierarchy's rebalancing (default 1, as CMPI; "
                 "negative: never rebalance).", OPAL_INFO_LVL_6, &c->t_span);
    register_int("model_slots",
                 "Cost model: how many messages a node sends, and receives, at the same time at "
                 "full pair rate. -1 (default) = measured: calibration measures each node's "
                 "egress and ingress capacity and per-message overhead, and the cost model shares "
                 "them among concurrent messages (flow model); a matrix without them (matrix file "
                 "version 1) counts as 1. Overrides: 1 = a NIC-bound host; 0 = any number (pairs "
                 "are independent pipes, like the lab's).",
                 OPAL_INFO_LVL_6, &c->model_slots);
    register_int("model_duplex",
                 "Cost model: messages between two ranks larger than this many bytes take turns "
                 "with the other direction's (a two-way exchange of them costs the sum of both "
                 "directions); smaller ones overlap. 0 = every message; -1 = none; default -2 = "
                 "measured: between two nodes, the executor's messages (sends posted first) "
                 "overlap; the previous module's own exchanges (receives first) only up to "
                 "64 KiB between two nodes of one group behind a shared bottleneck that "
                 "calibration found (a rack) (docs/cost-model.md, \"Two-way traffic\").",
                 OPAL_INFO_LVL_6, &c->model_duplex);
    register_int("model_burst",
                 "Cost model: a message between nodes of at most this many bytes whose links are "
                 "idle passes at once and then owes its time at the rate (a shaper's idle "
                 "credit), and a call is priced as one of many back to back. -1 (default) = "
                 "measured: each node's burst credit from calibration, of which a message passes "
                 "the less the closer it is to the credit (none where not measured, e.g. a "
                 "matrix file of version 1 to 3); 0 = none, every message at the bulk rate; else "
                 "bytes, for every node (docs/cost-model.md, \"Short bursts\").",
                 OPAL_INFO_LVL_6, &c->model_burst);
    register_int("trial_calls",
                 "Live trial: the first blocking calls of each collective, root and size class "
                 "on a communicator run the cloud-aware plan, the previous module, "
                 "the alternative plan (coll_cloudaware_trial_spread) and the other default's "
                 "algorithm run by the executor (the peer: tuned's, or han's when the previous "
                 "module is tuned; coll_cloudaware_trial_peer), this "
                 "many calls each, one variant's calls after the other "
                 "(default 3, at most 16; 0 = no trials, the cost model alone decides); the "
                 "fastest by the median of its calls after its first keeps the class. Must be "
                 "the same on every rank.",
                 OPAL_INFO_LVL_4, &c->trial_calls);
    register_double("trial_time",
                    "Live trial: when coll_cloudaware_trial_calls calls of a variant are "
                    "predicted to take less than this many seconds together, each variant runs "
                    "ceil(this / the predicted time of one call) calls instead, at most 16 "
                    "(short calls are the noisiest, and the first ones also set up connections; "
                    "default 0.05; 0 = always coll_cloudaware_trial_calls). Must be the same on "
                    "every rank.", OPAL_INFO_LVL_4, &c->trial_time);
    register_double("trial_margin",
                    "Live trial: the plan keeps a class when its median time is at least this "
                    "fraction below the previous module's, the previous module when the plan is "
                    "more than this fraction slower; in between the faster measured of the two when "
                    "the cost model chose the plan, else the previous module unless a variant "
                    "no slower by its median has a mean of its calls this fraction below the "
                    "previous module's; short calls (6 or more trial calls per variant, "
                    "coll_cloudaware_trial_time) "
                    "are compared by the slowest rank's median of its own calls, also need a rank "
                    "test finding the plan's calls faster at the 5 % level, and a tie keeps the "
                    "previous module; a second job confirms an earlier job's short-call win when "
                    "both jobs' medians put it this fraction below the previous module's and its "
                    "own is within this fraction of it (default 0.05; 0 <= x < 1).",
                    OPAL_INFO_LVL_4, &c->trial_margin);
    register_double("trial_spread",
                    "Live trial: the cost model's second plan (of another algorithm) takes part "
                    "as a third variant when predicted at most this many times the best plan's "
                    "time; below coll_cloudaware_large_message, where none is, the plan it "
                    "chooses if every message passes at once (default 2; below 1 = never: plan "
                    "against previous module only). Must be the same on every rank.",
                    OPAL_INFO_LVL_4, &c->trial_spread);
    register_double("trial_cut",
                    "Live trial: a variant whose first call took more than this many times the "
                    "fastest first call of the variants before it runs no more calls (its "
                    "median is that call), so that an algorithm losing by far does not cost "
                    "coll_cloudaware_trial_calls long calls; checked, one small allreduce per "
                    "variant, only for calls predicted at least coll_cloudaware_trial_time long "
                    "(default 3; 0 = never). Must be the same on every rank.",
                    OPAL_INFO_LVL_4, &c->trial_cut);
    register_int("trial_extra",
                 "Live trial: a variant whose calls after its first are so spread that one more "
                 "call could move their median by more than half of coll_cloudaware_trial_margin "
                 "(two calls further apart than about the margin: one TCP retransmission timeout, "
                 "200 ms, in one of them) runs up to this many more calls, so that one slow call "
                 "does not decide; checked, one small allreduce per check, only while the "
                 "calls per variant stay below 6 (short calls run more and a rank test instead; "
                 "default 1; 0 = never). Must be the same on every rank.",
                 OPAL_INFO_LVL_4, &c->trial_extra);
    register_bool("trial_peer",
                  "Live trial: the other default's algorithm for the call, run by "
                  "coll/cloudaware's executor (the peer), takes part as another variant, "
                  "whatever the cost model predicts for it: tuned's when the previous module is "
                  "not tuned (han, the default of Open MPI 5; basic), han's two levels when it "
                  "is (Open MPI 4.1) (default true). Must be the same on every rank.",
                  OPAL_INFO_LVL_4, &c->trial_peer);
    register_double("recalibrate_threshold",
                    "Drift detection: a blocking call run as a plan drifts when its time (slowest "
                    "rank) differs from the plan's baseline (the median of its second batch of "
                    "coll_cloudaware_recalibrate_calls timed calls) by more than this fraction, "
                    "either way; two batches' worth in a row recalibrate, or move the baseline "
                    "when all were faster; a recalibration takes only the pair values that "
                    "measured worse by more than it (default 0.2, as CMPI; 0 = no drift "
                    "detection, no extra messages). Must be the same on every rank.",
                    OPAL_INFO_LVL_4, &c->recalibrate_threshold);
    register_int("recalibrate_calls",
                 "Drift detection: the number of calls whose times the ranks agree on at once "
                 "(one allreduce of calls + 1 doubles per this many calls; default 3, 1 to 16); "
                 "twice this many drifting calls in a row (two batches) recalibrate the node "
                 "pairs the plan uses, at the next collective on the communicator. Must be the "
                 "same on every rank.", OPAL_INFO_LVL_4, &c->recalibrate_calls);
    register_double("recalibrate_interval",
                    "Drift detection: at least this many seconds between two recalibrations of "
                    "a communicator (default 60; a drift seen sooner waits). Must be the same on "
                    "every rank.", OPAL_INFO_LVL_4, &c->recalibrate_interval);
    register_int("recalibrate_min_bytes",
                 "Drift detection: only calls of at least this many bytes (size class) are "
                 "watched (default 65536; 0 = all). Smaller calls take the time of the software "
                 "and the hosts more than the network's, and the times' agreement would cost as "
                 "much as they do. Must be the same on every rank.",
                 OPAL_INFO_LVL_4, &c->recalibrate_min_bytes);
}

static int cloudaware_register(void)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char name[64], help[256];

    /* Built for another Open MPI major.minor: one line, and the MCA base drops the component
     * (OPAL_ERR_NOT_AVAILABLE) while the job runs on with the others. */
    if (!mca_coll_cloudaware_runtime_matches()) {
        return OPAL_ERR_NOT_AVAILABLE;
    }

    register_int("priority",
                 "Priority of coll/cloudaware (default 20: above basic, below tuned). "
                 "A negative value disables the component.",
                 OPAL_INFO_LVL_1, &c->priority);
    register_int("verbose",
                 "Verbosity of coll/cloudaware: 0 silent, 1 warnings when it falls back, "
                 "10 per-communicator selection, 50 per-call decisions.",
                 OPAL_INFO_LVL_2, &c->verbose);
    for (int i = 0; i < CACORE_COLL_COUNT; i++) {
        snprintf(name, sizeof(name), "enable_%s", cacore_coll_name(i));
        snprintf(help, sizeof(help),
                 "Let coll/cloudaware handle MPI_%s (false: leave it entirely to the other "
                 "components).", cacore_coll_name(i));
        register_bool(name, help, OPAL_INFO_LVL_4, &c->enable[i]);
    }
    register_int("min_nodes",
                 "Decline communicators that span fewer nodes than this (default 2: a single "
                 "node is shared memory, left to sm/tuned/han). Tests may set 1.",
                 OPAL_INFO_LVL_4, &c->min_nodes);
    register_int("min_comm_size",
                 "Decline communicators with fewer processes than this (default 2).",
                 OPAL_INFO_LVL_4, &c->min_comm_size);
    register_string("matrix_file",
                    "Network matrix file (docs/matrix-format.md) to use instead of measuring. "
                    "A file that cannot be read is reported once and ignored.",
                    OPAL_INFO_LVL_3, &c->matrix_file);
    register_calibration(c);
    register_plan_choice(c);
    register_int("scratch_keep",
                 "Executor: bytes of freed temporary areas (a reduction's partial results, a "
                 "pipeline's segments) kept for the next calls of this process, so that the "
                 "first calls of each size do not pay the page faults of a fresh area (default "
                 "33554432, 32 MiB; 0 = free every area after its call).",
                 OPAL_INFO_LVL_5, &c->scratch_keep);
    /* Without its MPI_T variables (Open MPI refused one) the component works all the same. */
    (void) mca_coll_cloudaware_pvars_register();
    return OMPI_SUCCESS;
}

static int cloudaware_open(void)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;

    /* Invalid values are corrected with a visible warning rather than a failed MPI_Init. */
    if (!(c->min_gain >= 0.0 && c->min_gain < 1.0)) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_min_gain=%g is invalid (0 <= x < 1); "
                    "using 0.1", c->min_gain);
        c->min_gain = 0.1;
    }
    if (!(c->trial_margin >= 0.0 && c->trial_margin < 1.0)) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_trial_margin=%g is invalid (0 <= x < 1); "
                    "using 0.05", c->trial_margin);
        c->trial_margin = 0.05;
    }
    if (!(c->trial_spread >= 0.0 && c->trial_spread < 1e6)) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_trial_spread=%g is invalid (0 <= x < "
                    "1e6); using 2", c->trial_spread);
        c->trial_spread = 2.0;
    }
    if (!(c->trial_cut >= 0.0 && c->trial_cut < 1e6)) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_trial_cut=%g is invalid (0 <= x < "
                    "1e6); using 3", c->trial_cut);
        c->trial_cut = 3.0;
    }
    if (c->trial_extra < 0 || c->trial_extra > CLOUDAWARE_TRIAL_MAX_CALLS) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_trial_extra=%d is invalid (0 to %d); "
                    "using 1", c->trial_extra, CLOUDAWARE_TRIAL_MAX_CALLS);
        c->trial_extra = 1;
    }
    if (c->trial_calls < 0 || c->trial_calls > CLOUDAWARE_TRIAL_MAX_CALLS) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_trial_calls=%d is invalid (0 to %d); "
                    "using %d", c->trial_calls, CLOUDAWARE_TRIAL_MAX_CALLS,
                    c->trial_calls < 0 ? 0 : CLOUDAWARE_TRIAL_MAX_CALLS);
        c->trial_calls = c->trial_calls < 0 ? 0 : CLOUDAWARE_TRIAL_MAX_CALLS;
    }
    if (!(c->trial_time >= 0.0 && c->trial_time < 1e9)) {   /* also NaN and inf */
        opal_output(0, "coll:cloudaware: coll_cloudaware_trial_time=%g is invalid (a number of "
                    "seconds >= 0); using 0.05", c->trial_time);
        c->trial_time = 0.05;
    }
    {
        cacore_drift_params_t p = { c->recalibrate_threshold, c->recalibrate_calls,
                                    c->recalibrate_interval, c->recalibrate_min_bytes };
        char err[256];
        if (CACORE_OK != cacore_drift_check_params(&p, err, sizeof(err))) {
            opal_output(0, "coll:cloudaware: coll_cloudaware_recalibrate_threshold=%g, "
                        "_calls=%d, _interval=%g, _min_bytes=%d are invalid (%s); using 0.2, 3, "
                        "60 and 65536", c->recalibrate_threshold, c->recalibrate_calls,
                        c->recalibrate_interval, c->recalibrate_min_bytes, err);
            c->recalibrate_threshold = 0.2;
            c->recalibrate_calls = 3;
            c->recalibrate_interval = 60.0;
            c->recalibrate_min_bytes = 65536;
        }
    }
    if (!(c->k > 1.0)) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_k=%g is invalid (> 1); using 4", c->k);
        c->k = 4.0;
    }
    if (c->model_duplex < CACORE_DUPLEX_MEASURED) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_model_duplex=%d is invalid; using -2 "
                    "(measured)", c->model_duplex);
        c->model_duplex = CACORE_DUPLEX_MEASURED;
    }
    if (c->model_burst < CACORE_BURST_MEASURED) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_model_burst=%d is invalid; using 0 "
                    "(none)", c->model_burst);
        c->model_burst = 0;
    }
    if (c->model_slots < -1) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_model_slots=%d is invalid; using -1 "
                    "(measured)", c->model_slots);
        c->model_slots = -1;
    }
    if (c->segment_size < 0 || c->large_message < 0) {
        opal_output(0, "coll:cloudaware: negative coll_cloudaware_segment_size or "
                    "coll_cloudaware_large_message; using the defaults");
        c->segment_size = 0;
        c->large_message = 65536;
    }
    if (c->min_nodes < 1) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_min_nodes=%d is invalid; using 1",
                    c->min_nodes);
        c->min_nodes = 1;
    }
    if (c->min_comm_size < 1) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_min_comm_size=%d is invalid; using 1",
                    c->min_comm_size);
        c->min_comm_size = 1;
    }
    if (c->scratch_keep < 0) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_scratch_keep=%d is invalid; using 0 "
                    "(temporary areas freed after each call)", c->scratch_keep);
        c->scratch_keep = 0;
    }
    c->output = opal_output_open(NULL);
    opal_output_set_verbosity(c->output, c->verbose);
    ca_exec_init((size_t) c->scratch_keep);
    mca_coll_cloudaware_trace_open();
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: open (model core %s, priority %d)", cacore_version(),
                        c->priority);
    return OMPI_SUCCESS;
}

static int cloudaware_close(void)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;

    int64_t live_requests, live_scheds;

    mca_coll_cloudaware_trace_close();
    mca_coll_cloudaware_calibrate_finalize();
    mca_coll_cloudaware_rules_release();
    mca_coll_cloudaware_select_release();
    mca_coll_cloudaware_trial_release();
    mca_coll_cloudaware_store_release();
    mca_coll_cloudaware_nodes_release();
    /* Every communicator is gone by now: anything the executor still holds is a leak (or a
     * persistent request the application never freed). The leak tests grep this line. */
    ca_exec_counters(&live_requests, &live_scheds);
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: executor at close: %lld requests and %lld schedules "
                        "still allocated", (long long) live_requests, (long long) live_scheds);
    ca_exec_finalize();
    if (c->output >= 0) {
        opal_output_close(c->output);
        c->output = -1;
    }
    return OMPI_SUCCESS;
}
