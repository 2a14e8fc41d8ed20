/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * cloudaware_core.h - the C API of the model core (C++17, no MPI headers).
 *
 * The component (C, compiled against Open MPI's internal headers, which do not compile as C++)
 * talks to the core only through this header. Exceptions never cross it: every fallible call
 * returns a cacore_status_t and, on failure, writes a one-line message into err[errlen]
 * ("FILE:LINE: problem" for file parsing errors).
 */
#ifndef CLOUDAWARE_CORE_H
#define CLOUDAWARE_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CACORE_OK = 0,
    CACORE_ERR_ARG = -1,     /* invalid argument (NULL, out of range, NaN, ...) */
    CACORE_ERR_IO = -2,      /* file cannot be opened/read/written */
    CACORE_ERR_FORMAT = -3,  /* file content violates the documented format */
    CACORE_ERR_NOMEM = -4,
    CACORE_ERR_INTERNAL = -5
} cacore_status_t;

const char *cacore_version(void);

/* ---- Matrices (docs/matrix-format.md) ------------------------------------------------------ */
typedef struct cacore_matrix cacore_matrix_t;

cacore_status_t cacore_matrix_read_file(const char *path, cacore_matrix_t **out,
                                        char *err, size_t errlen);
/* Writes atomically (temp file + rename) with mode 0600. */
cacore_status_t cacore_matrix_write_file(const cacore_matrix_t *m, const char *path,
                                         char *err, size_t errlen);
/* latency_s and bandwidth_Bps are n*n row-major (row = sender); the diagonal is ignored. */
cacore_status_t cacore_matrix_create(int n, const char *const *hosts, const double *latency_s,
                                     const double *bandwidth_Bps, cacore_matrix_t **out,
                                     char *err, size_t errlen);
int cacore_matrix_nodes(const cacore_matrix_t *m);
const char *cacore_matrix_host(const cacore_matrix_t *m, int i);
double cacore_matrix_latency(const cacore_matrix_t *m, int from, int to);
double cacore_matrix_bandwidth(const cacore_matrix_t *m, int from, int to);
void cacore_matrix_free(cacore_matrix_t *m);
/* Node properties (docs/calibration.md, "Node capacity and per-message overhead" and "Shared
 * bottlenecks"): per node CACORE_NODE_VALUES doubles, CACORE_NODE_EGRESS / _INGRESS (aggregate
 * bytes/s when several peers transfer at once; 0 = no cap seen), CACORE_NODE_OVERHEAD (seconds
 * per extra message of one rank), CACORE_NODE_LONE / _SHARED (the rate to the node's slowest
 * peer measured alone, and what the tournament's round measured for that pair; both 0 = no
 * sample), CACORE_NODE_BURST (bytes: the largest message the node's leader saw pass to a
 * peer after an idle gap clearly faster than that pair's rate, a shaper's idle credit; 0 = none
 * seen, -1 = not measured: a file of version 2 or 3; docs/calibration.md, "Burst credit"),
 * CACORE_NODE_LONE2 / _SHARED2 (the same sample for the node's second slowest peer; both -1 =
 * not measured: a file of version 2 to 4, whose one sample is the faster of the two). A
 * matrix has them for every node or for none (a `cloudaware-matrix 1` file).
 * props = CACORE_NODE_VALUES*n doubles, NULL removes them; invalid values: CACORE_ERR_ARG, the
 * matrix unchanged. */
enum { CACORE_NODE_EGRESS = 0, CACORE_NODE_INGRESS = 1, CACORE_NODE_OVERHEAD = 2,
       CACORE_NODE_LONE = 3, CACORE_NODE_SHARED = 4, CACORE_NODE_BURST = 5,
       CACORE_NODE_LONE2 = 6, CACORE_NODE_SHARED2 = 7, CACORE_NODE_VALUES = 8 };
cacore_status_t cacore_matrix_set_node_props(cacore_matrix_t *m, const double *props, char *err,
                                             size_t errlen);
/* CACORE_OK when one node's values (CACORE_NODE_VALUES doubles) are in the ranges
 * cacore_matrix_set_node_props accepts, else CACORE_ERR_ARG and the problem in err. */
cacore_status_t cacore_node_props_check(const double *props, char *err, size_t errlen);
/* 1 and props[0..CACORE_NODE_VALUES) filled when m has node properties (and i is a node), else 0. */
int cacore_matrix_node_props(const cacore_matrix_t *m, int i, double props[CACORE_NODE_VALUES]);
/* The matrix restricted to nodes[0..count) (distinct indices into m), in that order. */
cacore_status_t cacore_matrix_sub(const cacore_matrix_t *m, const int *nodes, int count,
                                  cacore_matrix_t **out, char *err, size_t errlen);
/* Index of the node named host, or -1. */
int cacore_matrix_find_host(const cacore_matrix_t *m, const char *host);

/* ---- Pair store: what one process knows about the network ----------------------------------
 * Latency and bandwidth per ordered pair of hosts, learnt piece by piece (a matrix file, cache
 * entries, calibrations of node subsets) and looked up as the sub-matrix of any host list. A
 * value without locking: the caller serializes access to one store. Arrays are n*n row-major
 * (row = sender). */
typedef struct cacore_store cacore_store_t;

cacore_status_t cacore_store_create(cacore_store_t **out, char *err, size_t errlen);
/* Adds or replaces the pairs (i, j), i != j, with known[i*n+j] != 0. All or nothing: a host name
 * that a matrix file would refuse, a host listed twice, or a flagged pair whose latency is not
 * finite >= 0 or whose bandwidth is not finite > 0 gives CACORE_ERR_ARG and changes nothing. */
cacore_status_t cacore_store_merge(cacore_store_t *s, int n, const char *const *hosts,
                                   const double *latency_s, const double *bandwidth_Bps,
                                   const unsigned char *known, char *err, size_t errlen);
/* Every off-diagonal pair of m. */
cacore_status_t cacore_store_merge_matrix(cacore_store_t *s, const cacore_matrix_t *m, char *err,
                                          size_t errlen);
/* The sub-matrix of hosts[0..n): known[i*n+j] = 1 with the values for every pair the store knows,
 * 0 (and values 0) for the others and the diagonal; *nknown = the number of known pairs. */
cacore_status_t cacore_store_lookup(const cacore_store_t *s, int n, const char *const *hosts,
                                    double *latency_s, double *bandwidth_Bps,
                                    unsigned char *known, size_t *nknown, char *err,
                                    size_t errlen);
/* Node properties per host (3 doubles each, as cacore_matrix_set_node_props): adds or replaces
 * those of hosts[i] with known[i] != 0; all or nothing (invalid values: CACORE_ERR_ARG). */
cacore_status_t cacore_store_merge_nodes(cacore_store_t *s, int n, const char *const *hosts,
                                         const double *props, const unsigned char *known,
                                         char *err, size_t errlen);
/* props (CACORE_NODE_VALUES*n) and known (n) for hosts[0..n): zeros and 0 where unknown; *nknown =
 * known hosts. */
cacore_status_t cacore_store_lookup_nodes(const cacore_store_t *s, int n,
                                          const char *const *hosts, double *props,
                                          unsigned char *known, size_t *nknown, char *err,
                                          size_t errlen);
int cacore_store_hosts(const cacore_store_t *s);     /* hosts seen in any merge */
size_t cacore_store_pairs(const cacore_store_t *s);  /* known ordered pairs */
void cacore_store_free(cacore_store_t *s);

/* ---- Plans as data ----------------------------------------------------------------------------
 * A plan tells every rank of a communicator what to do, as rounds of steps over *blocks*.
 *
 * Data vector: the collective's whole data, D elements of the user datatype:
 *   D = count          for bcast, reduce, allreduce
 *   D = nranks * count for gather, scatter, allgather (rank r's part is [r*count, (r+1)*count))
 * The plan splits D into nblocks blocks; block b covers elements
 *   [floor(b*D/nblocks), floor((b+1)*D/nblocks)).
 * For gather/scatter/allgather nblocks is a multiple of nranks, so blocks never straddle ranks.
 *
 * Buffers are addressed in that same global block numbering:
 *   CACORE_BUF_IN   the user's input  (bcast: the buffer on every rank; reduce/allreduce: sendbuf;
 *                   gather/allgather: sendbuf, holding only this rank's part; scatter: root's sendbuf)
 *   CACORE_BUF_OUT  the user's output (bcast: the buffer; reduce/allreduce: recvbuf; gather: root's
 *                   recvbuf; allgather: recvbuf; scatter: recvbuf, holding only this rank's part)
 *   CACORE_BUF_TMP0 + k  temporary k (0 <= k < ntmp), D elements each, allocated by the executor.
 * The executor resolves MPI_IN_PLACE and maps "only this rank's part" buffers.
 *
 * Round semantics (what the executor guarantees, what the planner may rely on): rounds run in
 * order; in round r a rank first performs its local steps (COPY, REDUCE) in listed order, then
 * posts all its SEND/RECV steps of round r at once, then waits for all of them. A rank may be in
 * a different round than its peers; matching is by (peer, order of posting) on the collective's tag.
 */
typedef enum {
    CACORE_STEP_SEND = 0,   /* send blocks of buf to peer */
    CACORE_STEP_RECV = 1,   /* receive blocks from peer into buf */
    CACORE_STEP_COPY = 2,   /* buf[blocks] = src_buf[blocks] */
    CACORE_STEP_REDUCE = 3  /* buf[blocks] = src_first ? src op buf : buf op src  (op order matters
                               for non-commutative ops: the left operand holds lower ranks) */
} cacore_step_kind_t;

enum { CACORE_BUF_IN = 0, CACORE_BUF_OUT = 1, CACORE_BUF_TMP0 = 2 };

typedef struct {
    uint8_t kind;        /* cacore_step_kind_t */
    uint8_t level;       /* 0 = inside a node, 1 = node leaders in a group, 2 = group leaders, ... */
    uint8_t buf;         /* SEND/RECV: the buffer; COPY/REDUCE: the destination */
    uint8_t src_buf;     /* COPY/REDUCE: the source */
    uint8_t src_first;   /* REDUCE only */
    uint8_t pad[3];
    int32_t peer;        /* SEND/RECV: communicator rank; -1 otherwise */
    int32_t round;
    int32_t first_block;
    int32_t nblocks;
} cacore_step_t;

typedef enum {
    CACORE_COLL_BCAST = 0, CACORE_COLL_REDUCE, CACORE_COLL_ALLREDUCE,
    CACORE_COLL_GATHER, CACORE_COLL_SCATTER, CACORE_COLL_ALLGATHER, CACORE_COLL_COUNT
} cacore_coll_t;

/* ---- Network performance hierarchy (CMPI Algorithms 1-2) -------------------------------------
 * Level 0 holds one group per node; every level above has at most half the groups of the level
 * below (the top level has exactly one group); a group of level l+1 is a union of groups of
 * level l. distance(a, b) = the lowest level at which a and b share a group. */
typedef struct cacore_hierarchy cacore_hierarchy_t;

typedef struct {
    double k;      /* discretization factor: level(x) = floor(x / (k * min)); paper default 4 */
    int t_span;    /* span threshold (machines) for rebalancing; paper default 1; < 0 = never */
} cacore_hier_params_t;

void cacore_hier_params_default(cacore_hier_params_t *p);
/* msg_bytes selects M(m) = L + m/B. */
cacore_status_t cacore_hierarchy_build(const cacore_matrix_t *m, double msg_bytes,
                                       const cacore_hier_params_t *params,
                                       cacore_hierarchy_t **out, char *err, size_t errlen);
int cacore_hierarchy_levels(const cacore_hierarchy_t *h);          /* including level 0 */
int cacore_hierarchy_ngroups(const cacore_hierarchy_t *h, int level);
int cacore_hierarchy_group_size(const cacore_hierarchy_t *h, int level, int group);
/* Node indices of the group's members, ascending; NULL when out of range. */
const int *cacore_hierarchy_group_members(const cacore_hierarchy_t *h, int level, int group);
/* The member minimising the sum of inbound M over the group's members. */
int cacore_hierarchy_group_leader(const cacore_hierarchy_t *h, int level, int group);
int cacore_hierarchy_distance(const cacore_hierarchy_t *h, int a, int b);
void cacore_hierarchy_free(cacore_hierarchy_t *h);

/* ---- Cost model (docs/cost-model.md) --------------------------------------------------------- */
typedef struct {
    double reduce_Bps;        /* local reduction speed (bytes of operand per second) */
    double copy_Bps;          /* local copy speed */
    double intra_latency_s;   /* message between two ranks of one node */
    double intra_Bps;
    int node_send_slots;      /* messages a node sends at once (0 = unlimited); default -1 = measured:
                                 the flow model with the matrix's node capacities and overheads
                                 (docs/cost-model.md), 1 when the matrix has none */
    int node_recv_slots;      /* messages a node receives at once; -1 as above */
    double duplex_above_bytes; /* messages between two ranks larger than this take turns with
                                  the other direction (and each other); 0 = all, -1 = none;
                                  default CACORE_DUPLEX_MEASURED (docs/cost-model.md, "Two-way
                                  traffic") */
    double burst_bytes;       /* a message between nodes of at most this many bytes whose
                                 capacities are idle passes at once and owes its time (a shaper's
                                 idle credit); CACORE_BURST_MEASURED (default): each sender
                                 node's measured credit (CACORE_NODE_BURST), of which a message
                                 of b bytes passes b (1 - b / credit) at once; 0 = none
                                 (docs/cost-model.md, "Short bursts") */
    int repeated;             /* 1 (default): the call is one of many back to back (with bursts,
                                 debts carry from call to call; docs/cost-model.md, "Repeated
                                 calls"); 0: one call from idle links */
} cacore_cost_params_t;

/* burst_bytes: the sender node's measured burst credit (none where not measured). */
#define CACORE_BURST_MEASURED (-1)

/* duplex_above_bytes: messages between two nodes overlap both ways when the plan posts its sends
 * first (the executor); when it posts receives first (the previous module's own code), only
 * those up to CACORE_DUPLEX_GROUP_BYTES between two nodes of one group behind a shared bottleneck
 * (calibration's, a rack) do. Every other message takes turns. */
#define CACORE_DUPLEX_MEASURED (-2)
#define CACORE_DUPLEX_GROUP_BYTES 65536

void cacore_cost_params_default(cacore_cost_params_t *p);

/* ---- Plan construction ------------------------------------------------------------------------ */
typedef enum {
    CACORE_PAT_AUTO = 0,     /* chosen by the cost model */
    CACORE_PAT_FLAT,         /* parallel: the leader talks to every member directly */
    CACORE_PAT_BINOMIAL,
    CACORE_PAT_RECDBL,       /* recursive doubling (allreduce, allgather; others: binomial) */
    CACORE_PAT_RING,         /* ring (allreduce, allgather; bcast, reduce: pipelined chain) */
    CACORE_PAT_CHAIN,        /* pipelined chain with segments (bcast, reduce) */
    CACORE_PAT_DUALTREE,     /* bcast: two complementary binary trees sharing the segments;
                                reduce: one pipelined binary tree; others: binomial */
    CACORE_PAT_RABENSEIFNER, /* allreduce: reduce-scatter by recursive halving + allgather by
                                recursive doubling (allgather: recursive doubling; others: binomial) */
    CACORE_PAT_DIRECT,       /* allgather: every participant sends every other what it lacks at
                                once, in one round (rail plans: the carriers of a level; COOL
                                plans and the others: flat) */
    CACORE_PAT_COUNT
} cacore_pattern_t;

typedef enum {
    CACORE_ALGO_AUTO = 0,    /* the best predicted: COOL, TREE, (no forced pattern) BINOMIAL, RAIL,
                                LANES */
    CACORE_ALGO_COOL,        /* node -> group -> ... -> top, a pattern per level */
    CACORE_ALGO_TREE,        /* CMPI Algorithm 4 tree over nodes (gather, scatter; bcast, reduce) */
    CACORE_ALGO_BINOMIAL,    /* baseline: flat binomial tree over ranks (as tuned) */
    CACORE_ALGO_RING,        /* baseline: ring over ranks (not gather, scatter) */
    CACORE_ALGO_LINEAR,      /* baseline: the root talks to every rank directly (gather, scatter;
                                what tuned does for large blocks) */
    CACORE_ALGO_RAIL,        /* allreduce, allgather, bcast: split rails, every rank of a node
                                carries a slice across the nodes (docs/model.md) */
    CACORE_ALGO_LANES,       /* bcast, reduce, allreduce: the segments take turns over k trees
                                across the node leaders, each crossing the groups' boundaries over
                                its own host pairs (docs/model.md) */
    CACORE_ALGO_COUNT
} cacore_algo_t;

/* Levels of a COOL plan: 0 = inside a node, 1 = node leaders in a group, 2 = every level above. */
#define CACORE_PLAN_LEVELS 3

/* Names (core/names.cpp, the one source of truth for the MCA enums, the rules parser and
 * cloudaware-plan): "bcast", "cool", "dualtree", "node" ...; NULL past the enum's COUNT. */
const char *cacore_coll_name(int coll);
const char *cacore_algo_name(int algo);
const char *cacore_pattern_name(int pattern);
const char *cacore_level_name(int level);

typedef struct {
    cacore_hier_params_t hier;
    cacore_cost_params_t cost;
    int algo;                                /* cacore_algo_t */
    int pattern[CACORE_PLAN_LEVELS];         /* cacore_pattern_t per level */
    size_t segment_bytes;                    /* pipelining segment; 0 = chosen by the cost model */
    int relay;                               /* 1: a candidate may also be offered with its
                                                messages over a bad node pair relayed through
                                                a third node, kept when predicted faster
                                                (docs/model.md, "Relay around a bad link") */
} cacore_plan_params_t;

void cacore_plan_params_default(cacore_plan_params_t *p);

typedef struct cacore_plan cacore_plan_t;

/* nranks ranks; rank_node[r] = the matrix node (index into m) that rank r runs on.
 * bytes = the size of `count` elements: the whole vector for bcast/reduce/allreduce, ONE rank's
 * part for gather/scatter/allgather. count = elements (limits the number of blocks; 0 = bytes).
 * root is ignored for allreduce/allgather. The result always passes cacore_plan_check. */
cacore_status_t cacore_plan_build(const cacore_matrix_t *m, int nranks, const int *rank_node,
                                  cacore_coll_t coll, int root, size_t bytes, size_t count,
                                  const cacore_plan_params_t *params, cacore_plan_t **out,
                                  char *err, size_t errlen);
cacore_coll_t cacore_plan_coll(const cacore_plan_t *p);
int cacore_plan_nranks(const cacore_plan_t *p);
int cacore_plan_nblocks(const cacore_plan_t *p);
int cacore_plan_ntmp(const cacore_plan_t *p);
/* rank's steps, sorted by round (non-decreasing; round numbers may skip values). */
int cacore_plan_nsteps(const cacore_plan_t *p, int rank);
const cacore_step_t *cacore_plan_steps(const cacore_plan_t *p, int rank);
/* 1 when every reduction combines operands in rank order (safe for non-commutative ops). */
int cacore_plan_preserves_order(const cacore_plan_t *p);
/* One line, e.g. "cool node=binomial group=chain top=dualtree segments=16". */
const char *cacore_plan_describe(const cacore_plan_t *p);
/* Predicted completion time (cost model) with the matrix and bytes the plan was built for. */
double cacore_plan_predicted(const cacore_plan_t *p);
cacore_status_t cacore_plan_predict(const cacore_plan_t *p, const cacore_matrix_t *m,
                                    const int *rank_node, size_t bytes,
                                    const cacore_cost_params_t *cost, double *seconds,
                                    char *err, size_t errlen);
/* Symbolic simulation of the round semantics above: CACORE_OK when every rank ends with exactly
 * the data MPI requires, no deadlock, every contribution reduced exactly once. */
cacore_status_t cacore_plan_check(const cacore_plan_t *p, char *err, size_t errlen);
void cacore_plan_free(cacore_plan_t *p);

/* ---- Rules file (docs/rules-format.md) --------------------------------------------------------
 * Per collective, node count and message size: let the cost model decide, force a plan, or leave
 * the call to the previous module. */
typedef enum {
    CACORE_RULE_MODEL = 0,     /* the cost model decides (plan or previous module) */
    CACORE_RULE_PLAN = 1,      /* run the plan built with these settings */
    CACORE_RULE_FALLBACK = 2   /* always the previous module */
} cacore_rule_choice_t;

typedef struct {
    int choice;                          /* cacore_rule_choice_t */
    int algo;                            /* cacore_algo_t */
    int pattern[CACORE_PLAN_LEVELS];     /* cacore_pattern_t; AUTO = not set */
    size_t segment_bytes;                /* 0 = not set */
    int line;                            /* line of the rule in its file */
} cacore_rule_t;

typedef struct cacore_rules cacore_rules_t;

cacore_status_t cacore_rules_read_file(const char *path, cacore_rules_t **out, char *err,
                                       size_t errlen);
/* Same, from text in memory; name is used in error messages. */
cacore_status_t cacore_rules_parse(const char *text, const char *name, cacore_rules_t **out,
                                   char *err, size_t errlen);
int cacore_rules_count(const cacore_rules_t *r);
/* 1 and *out filled when a rule applies (the most specific: exact collective over '*', then the
 * larger min-nodes, then the larger min-bytes); 0 when none does. */
int cacore_rules_lookup(const cacore_rules_t *r, cacore_coll_t coll, int nodes, size_t bytes,
                        cacore_rule_t *out);
void cacore_rules_free(cacore_rules_t *r);

/* ---- The decision: a plan or the previous module (docs/model.md, "Decision") ----------------
 * One function decides every call, in the component (coll_cloudaware_select.c, once per size
 * class) and in `cloudaware-plan plan`: (1) a rule of the rules file (fallback, or a forced plan),
 * (2) a known live-trial outcome, (3) the cost model: the plan runs when predicted at least
 * min_gain faster than the algorithm the previous module would run for this call
 * (core/previous_module.cpp), (4) otherwise, and whenever no plan can be built or a
 * non-commutative op meets a plan that does not keep rank order, the previous module. */
typedef enum {
    CACORE_PREV_TUNED = 0,   /* coll/tuned, the fixed decision rules of Open MPI 4.1 */
    CACORE_PREV_BASIC,       /* coll/basic: linear, binomial above 4 ranks */
    CACORE_PREV_HAN,         /* coll/han: inside the nodes, then among node leaders */
    CACORE_PREV_BINOMIAL,    /* any other component: a binomial tree over ranks */
    CACORE_PREV_COUNT
} cacore_prev_t;

typedef enum {
    CACORE_TRIAL_UNKNOWN = 0,   /* no live trial outcome: the model decides */
    CACORE_TRIAL_PLAN,          /* the trial measured the plan faster */
    CACORE_TRIAL_PREVIOUS,      /* the trial measured the previous module faster */
    CACORE_TRIAL_ALTERNATIVE,   /* the trial measured the model's second plan fastest */
    CACORE_TRIAL_PEER,          /* the trial measured the peer, the other default's algorithm
                                   run by the executor, fastest: tuned's, or han's when the
                                   previous module is tuned */
    CACORE_TRIAL_COUNT
} cacore_trial_t;

/* Names ("tuned", "basic", "han", "binomial"; "unknown", "plan", "previous", "alternative",
 * "peer"), NULL past COUNT. */
const char *cacore_prev_name(int prev);
const char *cacore_trial_name(int trial);

/* A process's memory of its decisions (core/decision_memo.cpp): inputs identical to an earlier
 * decision's (every field, the matrix compared in full) get that decision again without the
 * search — a communicator dup'ed or split over the same nodes and ranks, a class a module's plan
 * cache let go. At most 64 decisions and about 64 MiB of plans, the oldest go first. Safe to
 * share between threads. */
typedef struct cacore_decision_memo cacore_decision_memo_t;
cacore_status_t cacore_decision_memo_create(cacore_decision_memo_t **out, char *err,
                                            size_t errlen);
int cacore_decision_memo_size(const cacore_decision_memo_t *memo);   /* decisions kept */
void cacore_decision_memo_free(cacore_decision_memo_t *memo);

typedef struct {
    cacore_coll_t coll;
    int root;                      /* ignored for allreduce/allgather */
    size_t bytes;                  /* as cacore_plan_build */
    size_t count;                  /* as cacore_plan_build */
    int commutative;               /* reduce/allreduce: the op; 1 otherwise */
    const cacore_rule_t *rule;     /* the rule that applies (cacore_rules_lookup), NULL: none */
    int trial;                     /* cacore_trial_t */
    int previous;                  /* cacore_prev_t */
    double min_gain;               /* 0 <= min_gain < 1 */
    size_t large_message;          /* smaller messages travel in one segment (unless a rule or
                                      params.segment_bytes says otherwise for larger ones) */
    double trial_spread;           /* the model's second plan of another algorithm is offered as
                                      the alternative when predicted at most this many times the
                                      best plan's time; below large_message, where none is, its
                                      burst-priced choice (>= 1; below 1: none is offered) */
    int trial_peer;                /* 1: the peer is offered (tuned's algorithm, or han's when the
                                      previous module is tuned); 0: never */
    cacore_plan_params_t params;   /* from the MCA parameters; a rule's settings go on top */
    cacore_decision_memo_t *memo;  /* NULL: decide afresh; else the decision for these inputs is
                                      taken from it when there, and kept in it when made */
} cacore_decide_input_t;

/* bytes = count = 1, commutative, no rule, trial unknown, previous tuned, min_gain 0.1,
 * large_message 65536, trial_spread 2, trial_peer 1, cacore_plan_params_default(), no memo. */
void cacore_decide_input_default(cacore_decide_input_t *in);

typedef struct {
    cacore_plan_t *plan;      /* the plan to run (the caller frees it); NULL: the previous module */
    cacore_plan_t *declined;  /* the best plan when the previous module runs and the plan could
                                 serve the op (the live trial tries it; the caller frees it) */
    cacore_plan_t *alternative;   /* the best plan of another algorithm, when the cost model
                                     decided and predicts it within trial_spread of the best plan,
                                     or, below large_message where none is, the plan chosen with
                                     the other view of short messages (alternative_note; the live
                                     trial tries it; the caller frees it), or NULL */
    cacore_plan_t *peer;      /* when the cost model decided: the other default's algorithm
                                 for the call as the executor runs it, tuned's (han's when the
                                 previous module is tuned; the live trial tries it; the caller
                                 frees it), or NULL */
    double plan_s;            /* predicted time of the plan considered; -1: none built */
    double alternative_s;     /* predicted time of the alternative; -1: none offered */
    char alternative_note[96]; /* what the alternative is when not the second plan ("the model's
                                  choice if every message passed at once", "... at the bulk
                                  rates, without bursts"), else "" */
    double peer_s;            /* predicted time of the peer; -1: none offered */
    double previous_s;        /* predicted time of the previous module's algorithm; -1: not
                                 predicted (a rule or a trial decided) */
    int problem;              /* 1: the previous module runs because no plan could be built */
    char previous[96];        /* the previous module's algorithm, e.g. "tuned knomial" */
    char reason[384];         /* one line: what runs and why */
    int remembered;           /* 1: the memo's decision for the same inputs, no search */
} cacore_decision_t;

/* CACORE_OK and *out filled for every valid input (a plan that cannot be built is a decision
 * for the previous module, with problem = 1); CACORE_ERR_ARG for an invalid one. */
cacore_status_t cacore_decide(const cacore_matrix_t *m, int nranks, const int *rank_node,
                              const cacore_decide_input_t *in, cacore_decision_t *out,
                              char *err, size_t errlen);

/* Whether `component` plans on a communicator whose creator set Open MPI's info key
 * "ompi_comm_coll_preference" to `preference` (core/preference.cpp): 1 when the list's include
 * part is empty or names the component, 0 when it names only others — han's sub-communicators
 * ("libnbc,^han", "tuned,^han", "han") ask for the components han runs there. */
int cacore_preference_admits(const char *preference, const char *component);

/* ---- Cache entries (docs/calibration.md, "Cache") -------------------------------------------
 * DIR/cloudaware-<16 hex digits of the node-set key>.matrix: an ordinary matrix file whose host
 * list is exactly the node set. The component opens the directory and the files (safely); these
 * are the pure parts: names, the age rule, the node-set check and the content. */
#define CACORE_CACHE_NAME_MAX 96          /* bytes, with the NUL, of any name made below */
#define CACORE_CACHE_CLOCK_SLACK_S 60     /* an mtime up to this far ahead of now counts as now */
#define CACORE_CACHE_TEMP_MAX_AGE_S 3600  /* the writer's temporary files older than this are
                                             leftovers of a crashed writer: removed */
/* The entry's file name (no directory). */
void cacore_cache_entry_name(uint64_t key, char name[CACORE_CACHE_NAME_MAX]);
/* The writer's temporary file for the entry: the entry name + ".tmp." + nonce in hex. */
void cacore_cache_temp_name(uint64_t key, uint64_t nonce, char name[CACORE_CACHE_NAME_MAX]);
/* 1 when name is a temporary file name of the writer (of any key), else 0. */
int cacore_cache_is_temp_name(const char *name);

typedef enum {
    CACORE_CACHE_FRESH = 0,
    CACORE_CACHE_OLD = 1,      /* now - mtime > max_age */
    CACORE_CACHE_FUTURE = 2    /* mtime - now > CACORE_CACHE_CLOCK_SLACK_S */
} cacore_cache_age_t;
/* Seconds since the epoch; max_age_s <= 0 means no limit (always FRESH). */
cacore_cache_age_t cacore_cache_age(int64_t mtime_s, int64_t now_s, int64_t max_age_s);

/* The entry's values for the node set hosts[0..n) (distinct), in that order: L, B (n*n,
 * row = sender, diagonal 0) and known (n*n, 1 off the diagonal). CACORE_ERR_FORMAT with the
 * difference ("is for 4 hosts, not these 3", "does not list host X ...") when the entry's host
 * set is not exactly the node set; nothing is written then. */
cacore_status_t cacore_cache_entry_values(const cacore_matrix_t *entry, int n,
                                          const char *const *hosts, double *L, double *B,
                                          unsigned char *known, char *err, size_t errlen);
/* The entry's node properties for the same node set (props: CACORE_NODE_VALUES*n, as
 * cacore_matrix_set_node_props).
 * CACORE_ERR_FORMAT when the entry has none, or lacks a measured burst credit or second lone
 * sample: written by an older version (cloudaware-matrix 1 to 4), so its node set is measured
 * again. */
cacore_status_t cacore_cache_entry_node_props(const cacore_matrix_t *entry, int n,
                                              const char *const *hosts, double *props, char *err,
                                              size_t errlen);
/* The entry's file content for m: *text (malloc'd, NUL-terminated, caller frees), *len bytes. */
cacore_status_t cacore_cache_entry_format(const cacore_matrix_t *m, uint64_t key, char **text,
                                          size_t *len, char *err, size_t errlen);

/* ---- Live trial (docs/calibration.md, "Live trial") ----------------------------------------
 * The first blocking calls of a (communicator, collective, root, size class) run the cloud-aware
 * plan, the previous module and, when the cost model offered one, the alternative plan and the
 * peer, one variant's calls after the other; the times all ranks agreed on (max over ranks, per
 * call) decide which one keeps the class. The outcome is an input of the choice: UNKNOWN
 * leaves it to the cost model. */
/* The outcome is a cacore_trial_t (see "Decision" above): UNKNOWN (no trial yet, or none
 * possible), PLAN, ALTERNATIVE or PEER (that one was measured the fastest, faster than the
 * previous module by the margin), PREVIOUS (none was measured faster by the margin). */
typedef enum {
    CACORE_TRIAL_RUN_PLAN = 0,
    CACORE_TRIAL_RUN_PREVIOUS = 1,
    CACORE_TRIAL_RUN_ALTERNATIVE = 2,
    CACORE_TRIAL_RUN_PEER = 3
} cacore_trial_variant_t;
/* The variants of a trial beyond the plan and the previous module ("with", or'ed). */
#define CACORE_TRIAL_WITH_ALTERNATIVE 1
#define CACORE_TRIAL_WITH_PEER 2
#define CACORE_TRIAL_MAX_VARIANTS 4
/* Calls per variant from which a trial is of short calls (cacore_trial_short). */
#define CACORE_TRIAL_RANK_TEST_CALLS 6
typedef struct {
    cacore_trial_t outcome;
    double plan_s;          /* median of the plan's agreed call times after its first (short
                             * calls: the slowest rank's median of its own, cacore_trial_judge) */
    double previous_s;      /* median of the previous module's after its first */
    double alternative_s;   /* median of the alternative's after its first; 0: none took part */
    double peer_s;          /* median of the peer's after its first; 0: none took part */
    double rank_z;          /* short calls' rank test: z of the fastest variant against the
                             * previous module; 0: no rank test (cacore_trial_judge) */
    int provisional;        /* 1: a later job's trial confirms it (cacore_trial_provisional) */
    int by_mean;            /* 1: a tie by medians that the means settled (cacore_trial_judge) */
} cacore_trial_result_t;
/* The number of variants (2 to CACORE_TRIAL_MAX_VARIANTS) of a trial with the extra variants
 * `with` (CACORE_TRIAL_WITH_*); 0 for an unknown bit. */
int cacore_trial_variant_count(int with);
/* What call k (0-based) of a trial of calls_per_variant calls per variant runs: the variants
 * present, in the order plan, previous, alternative, peer, each for calls_per_variant
 * consecutive calls. */
cacore_trial_variant_t cacore_trial_variant(int k, int calls_per_variant, int with);
/* 1 once k calls have run of a trial of calls_per_variant calls per variant, else 0. */
int cacore_trial_over(int k, int calls_per_variant, int with);
/* The most calls per variant of a trial. */
#define CACORE_TRIAL_MAX_CALLS 16
/* Calls per variant of a trial: `base` (coll_cloudaware_trial_calls; 0 = no trial), or more,
 * up to CACORE_TRIAL_MAX_CALLS, when the model predicts a call (predicted_s) so short that base
 * calls would take less than budget_s (coll_cloudaware_trial_time): ceil(budget_s / predicted_s).
 * Short calls are the noisiest (the first ones also set up connections), and cheap to repeat. */
int cacore_trial_calls(int base, double budget_s, double predicted_s);
/* 1 when a trial checks, after each variant's first call from the second variant on, whether
 * that variant loses by far (cacore_trial_cut; one agreement per check): cut
 * (coll_cloudaware_trial_cut) > 0, more than one call per variant, and calls predicted
 * (predicted_s, the plan's) at least budget_s (coll_cloudaware_trial_time) long; short calls are
 * left alone (an agreement between them would change what they measure). */
int cacore_trial_cut_checked(double cut, int calls_per_variant, double budget_s,
                             double predicted_s);
/* 1 when the variant whose first call took first_s[n-1] (agreed, max over ranks) runs no more
 * calls: it took more than cut times the fastest first call of the variants before it,
 * first_s[0 .. n-2]. Its median is then that first call. 0 when n < 2, cut <= 0 or a time is not
 * finite >= 0. */
int cacore_trial_cut(const double *first_s, int n, double cut);
/* The extra calls (up to `extra`, coll_cloudaware_trial_extra) a variant of a trial of
 * calls_per_variant calls may run when its calls are spread (cacore_trial_settled; one agreement
 * per check): extra, cut so that calls_per_variant + extra stays below
 * CACORE_TRIAL_RANK_TEST_CALLS (more calls are judged as short calls, by a rank test, and are left
 * alone: an agreement between them would change what they measure), for trials of at least two
 * calls per variant (one judged); else 0. */
int cacore_trial_extra(int extra, int calls_per_variant);
/* 1 when the median of a variant's judged calls judged[0 .. n) (agreed, max over ranks) is
 * settled: one more call, whatever it measured, could move it by at most margin / 2 of it
 * (coll_cloudaware_trial_margin), so the variant runs no extra call; its calls not run are given
 * *median_out, their median, which leaves the median as it is. 0 when it could move more (two
 * calls further apart than about the margin, one TCP retransmission timeout among them; one call
 * alone). A bad argument (n < 1, a time not finite >= 0, a margin outside [0, 1)) counts as
 * settled (no extra call), *median_out then 0. */
int cacore_trial_settled(const double *judged, int n, double margin, double *median_out);
/* Judges times[0 .. cacore_trial_variant_count(with)*calls_per_variant) (agreed time of each
 * call, in call order; a variant's median leaves out its first call when calls_per_variant > 1,
 * which pays for the change of variant: connections, TCP windows): the fastest of the plan, the
 * alternative and the peer (those present; the earlier one on equal medians) wins when its median
 * is at least margin below the previous module's, the previous module when it is more than margin
 * above; in between (a tie within the noise the margin allows) the cost model's own decision
 * stands when the model's plan is itself within the margin: the fastest variant when
 * model_chose_plan and it measured no slower than the previous module, else the previous module;
 * a plan more than margin slower leaves the tie to the previous module; a tie that leaves it
 * goes to the variant of the least mean of its judged calls among those no slower than the
 * previous module by their medians, when that mean is margin below the previous module's
 * (out->by_mean 1; a median of two or three calls does not see a slow one). Short calls
 * (cacore_trial_short): a variant's time is slowest[i] (for the i-th variant in the order they
 * run: the maximum over ranks of cacore_trial_rank_medians) instead,
 * the fastest also needs a one-sided Mann-Whitney rank test of its calls against the previous
 * module's at the 5 % level (out->rank_z >= 1.645), and a tie keeps the previous module
 * (core/trial.hpp says why); slowest is NULL for other calls. CACORE_ERR_ARG on a time that is
 * not finite >= 0, slowest given or missing wrongly, an unknown bit in with or a margin outside
 * [0, 1). */
cacore_status_t cacore_trial_judge(const double *times, int calls_per_variant, int with,
                                   double margin, int model_chose_plan, const double *slowest,
                                   cacore_trial_result_t *out, char *err, size_t errlen);
/* 1 when a trial of calls_per_variant calls per variant is of short calls (at least
 * CACORE_TRIAL_RANK_TEST_CALLS; only calls shorter than coll_cloudaware_trial_time run that many
 * by default), judged by each rank's medians and a rank test (cacore_trial_judge). */
int cacore_trial_short(int calls_per_variant);
/* 1 when the outcome of a trial is provisional: a trial of short calls (short_calls, from
 * cacore_trial_short) that kept a variant other than the previous module, unless prior — the
 * provisional outcome an earlier job's trial stored for the class, CACORE_TRIAL_UNKNOWN for none
 * — is one too (which confirms leaving the previous module, cacore_trial_confirmed). A
 * provisional outcome runs in the job that measured it; a later job trials the class again, and
 * only two jobs in a row measuring a variant faster than the previous module make the class
 * leave it for good (core/trial.hpp says why). */
int cacore_trial_provisional(int outcome, int short_calls, int prior);
/* The outcome a class keeps when now, a trial of short calls, follows the earlier job's
 * provisional result prior: the plan, the alternative or the peer (those with a median in both)
 * of the least sum of the two jobs' medians when now kept a variant other than the previous
 * module, or kept the previous module but that sum is below the previous module's by margin
 * (coll_cloudaware_trial_margin) and now did not measure the variant slower than the previous
 * module by more than margin; else the previous module (core/trial.hpp says why).
 * now->outcome when it is unknown, or prior is NULL; CACORE_TRIAL_UNKNOWN when now is NULL. */
cacore_trial_t cacore_trial_confirmed(const cacore_trial_result_t *prior,
                                      const cacore_trial_result_t *now, double margin);
/* This rank's median of each variant's calls after its first, from its own times (in call order),
 * into out[0 .. cacore_trial_variant_count(with)) in the order the variants run; what the ranks
 * agree on (MPI_MAX) for a short trial. CACORE_ERR_ARG on a time that is not finite >= 0. */
cacore_status_t cacore_trial_rank_medians(const double *times, int calls_per_variant, int with,
                                          double *out, char *err, size_t errlen);
/* The key of a communicator's layout (size, node of each rank) under which outcomes are kept. */
uint64_t cacore_trial_layout_key(int nranks, const int *rank_node);

/* The trial book: a node set's outcomes in the cache directory, next to its matrix entry, as
 * DIR/cloudaware-<16 hex digits of the node-set key>.trials (format in core/trial.hpp; versioned:
 * a book of another version is ignored and rewritten). An outcome is found only for the same
 * layout, collective, root, size classes and plan description. */
typedef struct cacore_trial_book cacore_trial_book_t;
typedef struct {
    uint64_t layout;      /* cacore_trial_layout_key() */
    int coll;             /* cacore_coll_t */
    int root;             /* -1 where the collective has none */
    int bytes_class;      /* floor(log2(bytes)) */
    int count_class;      /* floor(log2(count)) */
    const char *plan;     /* cacore_plan_describe() of the plan tried */
} cacore_trial_key_t;
cacore_status_t cacore_trial_book_create(cacore_trial_book_t **out, char *err, size_t errlen);
/* Reads a book file (regular files only, at most 1 MiB). */
cacore_status_t cacore_trial_book_read_file(const char *path, cacore_trial_book_t **out,
                                            char *err, size_t errlen);
/* The stored result of key (outcome UNKNOWN when there is none). */
cacore_trial_result_t cacore_trial_book_find(const cacore_trial_book_t *b,
                                             const cacore_trial_key_t *key);
/* Adds or replaces the result of key (outcome PLAN, PREVIOUS, ALTERNATIVE or PEER; PREVIOUS is
 * never provisional). */
cacore_status_t cacore_trial_book_set(cacore_trial_book_t *b, const cacore_trial_key_t *key,
                                      const cacore_trial_result_t *r, char *err, size_t errlen);
/* The file content: *text (malloc'd, NUL-terminated, caller frees), *len bytes. */
cacore_status_t cacore_trial_book_format(const cacore_trial_book_t *b, char **text, size_t *len,
                                         char *err, size_t errlen);
/* The book's file name (no directory) for a node-set key. */
void cacore_trial_book_name(uint64_t key, char name[CACORE_CACHE_NAME_MAX]);
void cacore_trial_book_free(cacore_trial_book_t *b);

/* ---- Drift detection (docs/drift.md; CMPI §3) -------------------------------------------------
 * Every `calls` blocking calls of a plan, the ranks agree on the slowest rank's time of each; the
 * first batch warms up, the second is the plan's baseline (its median), and a call drifts when
 * its time differs from the baseline by more than threshold (|t / baseline - 1| > threshold).
 * 2 x `calls` drifting calls in a row (two batches' worth) ask for a recalibration, at most one
 * per interval_s seconds per communicator, unless every one of them was faster than the baseline:
 * then the baseline moves to the last batch's median (nothing measured). The
 * baseline is the plan's own measured time, not the model's prediction: what is detected is a
 * change of the network, whatever the model's absolute error. */
#define CACORE_DRIFT_MAX_CALLS 16
typedef struct {
    double threshold;     /* relative; 0 = no drift detection */
    int calls;            /* 1..CACORE_DRIFT_MAX_CALLS: batch size (the streak: twice it) */
    double interval_s;    /* >= 0: least time between two recalibrations of a communicator */
    int min_bytes;        /* >= 0: calls of a size class below this many bytes are not watched */
} cacore_drift_params_t;
typedef struct {
    int warm;             /* the warm-up batch has been seen */
    double baseline_s;    /* median of the plan's second batch; 0 until known */
    int streak;           /* drifting calls in a row so far (at most 2 x calls) */
    int streak_faster;    /* 1 when every call of the streak was faster than the baseline */
    double last_s;        /* median of the last batch */
} cacore_drift_t;
typedef enum {
    CACORE_DRIFT_STEADY = 0,    /* the last call did not drift */
    CACORE_DRIFT_WARMUP,        /* the warm-up batch: not compared with anything */
    CACORE_DRIFT_BASELINE,      /* this batch set the baseline */
    CACORE_DRIFT_DRIFTING,      /* a streak runs, shorter than 2 x calls */
    CACORE_DRIFT_HELD,          /* a full streak, but the last recalibration is too recent */
    CACORE_DRIFT_RECALIBRATE,   /* a full streak: recalibrate (the streak starts again) */
    CACORE_DRIFT_REBASELINE     /* a full streak of faster calls only: the last batch's median
                                 * is the new baseline (the streak starts again) */
} cacore_drift_verdict_t;
/* A fresh state (no baseline). */
void cacore_drift_init(cacore_drift_t *d);
/* CACORE_ERR_ARG when a parameter is out of its range. */
cacore_status_t cacore_drift_check_params(const cacore_drift_params_t *p, char *err,
                                          size_t errlen);
/* One batch: times[0 .. p->calls) (agreed, finite >= 0, in call order); since_last_s, the agreed
 * time since the communicator's last recalibration (a huge value when there was none). With
 * threshold 0 the verdict is always STEADY. CACORE_ERR_ARG on bad input (d unchanged). */
cacore_status_t cacore_drift_observe(cacore_drift_t *d, const cacore_drift_params_t *p,
                                     const double *times, double since_last_s,
                                     cacore_drift_verdict_t *out, char *err, size_t errlen);
/* A recalibration's new measurement of one ordered node pair against the matrix's values
 * (docs/drift.md, "What a recalibration takes"): *latency_s and *bandwidth_Bps hold the new
 * measurement and receive what the matrix keeps. The bandwidth is taken only when it fell below
 * (1 - threshold) x the old, the latency only when it rose above (1 + threshold) x the old;
 * otherwise the old value stays (a recalibration measures a few pairs at a time, so a pair whose
 * first calibration shared its way with others' reads faster alone without having changed).
 * An old value that is not a finite positive bandwidth (finite >= 0 latency) is replaced.
 * Returns 1 when either value was taken, else 0. */
int cacore_drift_merge_pair(double threshold, double old_latency_s, double old_bandwidth_Bps,
                            double *latency_s, double *bandwidth_Bps);
/* 1 when calls of the size class starting at class_bytes are watched for drift (detection on and
 * class_bytes >= p->min_bytes), else 0. Small calls are left alone: their times are the
 * software's and the host's, not the network's, which recalibration measures, and the agreement
 * (one allreduce per batch) would cost as much as the calls. */
int cacore_drift_watches(const cacore_drift_params_t *p, size_t class_bytes);
/* The node pairs the plan's messages cross: pairs[a * nnodes + b] = pairs[b * nnodes + a] = 1
 * for every SEND or RECV step between ranks on nodes a != b (rank_node[nranks], the plan's rank
 * count); everything else 0. Returns the number of unordered pairs set; -1 on bad arguments. */
int cacore_plan_node_pairs(const cacore_plan_t *p, int nranks, const int *rank_node, int nnodes,
                           unsigned char *pairs);

/* ---- Quoting input in messages ----------------------------------------------------------------
 * Writes text into out[outlen] (always NUL-terminated, cut to fit) with control characters and
 * every byte that is not printable ASCII escaped (\n, \r, \t, \xHH; a backslash doubled): the one
 * way a message quotes input (file names, host names, file content), so input cannot put line
 * breaks or terminal escapes into a log. Every message of the core already does so. Returns out. */
char *cacore_escape(const char *text, char *out, size_t outlen);
/* ---- Digests (FNV-1a 64 over the parsed content; 0 = NULL, no file) --------------------------
 * Ranks compare them to learn whether they all read the same matrix and rules: equal content
 * gives equal digests on every platform (fixed byte order); the rules digest covers what lookups
 * return except the line numbers, the matrix digest the hosts and every value. */
uint64_t cacore_matrix_digest(const cacore_matrix_t *m);
uint64_t cacore_rules_digest(const cacore_rules_t *r);

/* ---- Calibration outcome (docs/calibration.md) ----------------------------------------------
 * The status of a node leader's measurement row, the points where one rank can fail on its own
 * (coll_cloudaware_calibrate_test_fail names them), the one-line cause rank 0 gives every rank
 * when a calibration fails, and the summary of a measured matrix. */
typedef enum {
    CACORE_MEAS_OK = 0,
    CACORE_MEAS_TIMEOUT = 1,   /* the budget ran out while waiting for peer */
    CACORE_MEAS_LATE = 2,      /* this leader started after the budget had run out */
    CACORE_MEAS_ERROR = 3,     /* the PML returned an error talking to peer */
    CACORE_MEAS_NOMEM = 4      /* this leader could not allocate its buffers */
} cacore_meas_status_t;

typedef enum {
    CACORE_FAIL_NONE = 0,
    CACORE_FAIL_START_ALLOC = 1,   /* "start-alloc": the start message's buffer */
    CACORE_FAIL_START_RECV = 2,    /* "start-recv": receiving it (PMIx_Get, PML receive) */
    CACORE_FAIL_ALLOC = 3,         /* "alloc": matrices and verdict buffer after it */
    CACORE_FAIL_MEASURE = 4,       /* "measure": a leader's measurement buffers */
    CACORE_FAIL_REPORT = 5         /* "report": the report's buffer */
} cacore_fail_point_t;

/* The test parameter's name of a point ("none" for CACORE_FAIL_NONE or anything unknown), and
 * what a failure there means ("out of memory", ...). Static strings. */
const char *cacore_fail_point_name(int point);
const char *cacore_fail_point_cause(int point);

/* What one rank reported to rank 0. */
typedef struct {
    int reported;              /* 0: no report came in time (the other fields are not read) */
    int node;                  /* its node: index into hosts (set for every rank) */
    int local;                 /* cacore_fail_point_t it failed at, CACORE_FAIL_NONE */
    int meas;                  /* leaders of a measurement: cacore_meas_status_t of the row */
    int peer;                  /* the node the measurement waited for or failed with, -1 */
    uint64_t matrix_digest;    /* of the matrix file it read */
    uint64_t rules_digest;     /* of the rules file it read */
} cacore_calib_report_t;

/* What rank 0 knows besides the reports. */
typedef struct {
    int nranks, nnodes;
    const char *const *hosts;  /* [nnodes] */
    const int *leaders;        /* [nnodes]: the rank of each node's leader */
    double budget_s;           /* coll_cloudaware_calibrate_budget (cacore_calib_budget
                                  scales it to the node set) */
    double decide_slack_s;     /* the part of coll_cloudaware_calibrate_slack rank 0 waits */
    int rank0_late;            /* rank 0 reached the decision after its own deadline */
    const char *matrix_file;   /* the parameters' values, quoted in the cause (NULL: unset) */
    const char *rules_file;
    const char *start_cause;   /* rank 0's start message said fail, with this cause; else NULL */
    int measured;              /* the start message asked the leaders to measure */
} cacore_calib_inputs_t;

typedef enum {
    CACORE_CALIB_STANDS = 0,        /* cause[0] = 0 */
    CACORE_CALIB_FAILS = 1,         /* for the cause written */
    CACORE_CALIB_START_FAILED = 2   /* for the start message's cause (copied) */
} cacore_calib_verdict_t;

/* The time budget of one calibration of nnodes nodes from coll_cloudaware_calibrate_budget
 * (per_8_nodes_s): that much up to 8 nodes, in proportion to the tournament's rounds beyond
 * (nnodes - 1 + nnodes % 2 of them; 16 nodes: 15/7 of it). */
double cacore_calib_budget(double per_8_nodes_s, int nnodes);

/* The tree a calibration's reports travel up and its verdict down (docs/calibration.md,
 * "Protocol"): a binomial tree over the communicator's ranks, rooted at rank 0. Rank r's parent is
 * r without its lowest set bit; its children are r + 2^k, for each 2^k below that bit (rank 0:
 * below nranks), that are ranks; its subtree is the ranks [r, end). A rank talks to at most
 * log2(nranks) + 1 others, pairs an application's recursive-doubling allreduce or barrier
 * connects as well, where a star around rank 0 would leave rank 0 connected to every rank (with
 * Open MPI's poll()-based progress each connection costs every later call on rank 0;
 * docs/benchmarks.md, fifty-fourth session). Deadlines, as fractions of
 * coll_cloudaware_calibrate_slack after the budget: a rank sends its subtree's reports up by
 * report_by (its height over the tree's, times 1/2: leaves at once, rank 0 decides at 1/2) and
 * awaits the verdict until verdict_by (1/2 plus its depth over the tree's height, times 1/2: the
 * deepest ranks until the whole slack), so each hop has the same share of the slack both ways. */
#define CACORE_CALIB_TREE_MAX_CHILDREN 31
typedef struct {
    int parent;      /* -1 for rank 0 */
    int nchildren;
    int children[CACORE_CALIB_TREE_MAX_CHILDREN];   /* ascending */
    int end;         /* the subtree is the ranks [rank, end) */
    double report_by;
    double verdict_by;
} cacore_calib_tree_t;

/* Rank `rank`'s place in the tree of nranks ranks; CACORE_ERR_ARG unless 0 <= rank < nranks. */
cacore_status_t cacore_calib_tree(int nranks, int rank, cacore_calib_tree_t *t);

/* rep[0..in->nranks). Whether the calibration stands, and when it fails the one-line cause
 * (input escaped) in cause[len]: the first found of, in this order, reports missing (leaders
 * first), rank 0 itself late, a local failure, ranks that read different files, the start
 * message's cause, a leader's failed measurement. */
cacore_calib_verdict_t cacore_calib_failure_cause(const cacore_calib_inputs_t *in, const cacore_calib_report_t *rep,
                               char *cause, size_t len);

typedef struct {
    double latency_min_s, latency_median_s, latency_max_s;
    double bandwidth_min_Bps, bandwidth_median_Bps, bandwidth_max_Bps;
    size_t pairs;              /* unordered pairs, n (n - 1) / 2 */
    size_t asymmetric;         /* of them, whose two directions differ by more than 10 % */
} cacore_calib_summary_t;

/* Of the off-diagonal entries of n x n row-major arrays; all zero when n < 2. */
cacore_calib_summary_t cacore_calib_summarize(int n, const double *latency_s,
                                              const double *bandwidth_Bps);

/* ---- Burst credit probes (docs/calibration.md, "Burst credit") ------------------------------
 * Each node's probes grow in size; after each, cacore_burst_judge says what follows. */
typedef enum {
    CACORE_BURST_PASSED = 0,   /* a burst: it is the credit so far; the next size follows */
    CACORE_BURST_AGAIN = 1,    /* missed once: the same size once more */
    CACORE_BURST_LARGER = 2,   /* missed twice but partly a burst: the next size follows */
    CACORE_BURST_STOP = 3      /* missed twice at about the rate: no more probes */
} cacore_burst_verdict_t;

typedef struct {
    int size;         /* index of the size to send next (they grow: 0, 1, 2, ...) */
    int passed;       /* 1 + index of the largest size that passed as a burst; 0: none did */
    int stopped;      /* 1: no more probes */
    int missed;       /* how often the size to send next missed */
    double fastest;   /* its fastest miss: its time / its time at the pair's rate */
} cacore_burst_state_t;   /* zero-initialized before the first probe */

/* Judges a probe of the size state->size that took time_s after its round trip, where the pair's
 * measured rate takes at_rate_s, and moves *state on: passed below half of at_rate_s; a size is
 * sent at most twice; one missed twice goes on to the next size when its faster try took less
 * than 0.8 of at_rate_s (the fixed cost of a message hid a burst), else the probes stop. A time
 * not finite >= 0 or at_rate_s not > 0 counts as a miss at the rate. Returns the verdict
 * (CACORE_BURST_STOP, with *state unchanged, once stopped). */
cacore_burst_verdict_t cacore_burst_judge(cacore_burst_state_t *state, double time_s,
                                          double at_rate_s);

/* ---- Traces (docs/trace-format.md, docs/monitoring.md) ------------------------------------
 * The mitigation hints of a traced job: DIR/rank-*.trace of job `job` ("" = the only one),
 * analysed (with the matrix a file names, when it can be read) into a few lines for the user,
 * *text (malloc'd, caller frees). Any unreadable or corrupt file: an error naming it. */
cacore_status_t cacore_trace_hints(const char *dir, const char *job, char **text, char *err,
                                   size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* CLOUDAWARE_CORE_H */
