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
/* Node properties (docs/calibration.md, "Node capacity and per-message overhead"): per node 3
 * doubles, CACORE_NODE_EGRESS / _INGRESS (aggregate bytes/s when several peers transfer at once;
 * 0 = no cap seen) and CACORE_NODE_OVERHEAD (seconds per extra message of one rank). A matrix
 * has them for every node or for none (a `cloudaware-matrix 1` file). props = 3*n doubles, NULL
 * removes them; invalid values: CACORE_ERR_ARG, the matrix unchanged. */
enum { CACORE_NODE_EGRESS = 0, CACORE_NODE_INGRESS = 1, CACORE_NODE_OVERHEAD = 2,
       CACORE_NODE_VALUES = 3 };
cacore_status_t cacore_matrix_set_node_props(cacore_matrix_t *m, const double *props, char *err,
                                             size_t errlen);
/* 1 and props[0..3) filled when m has node properties (and i is a node), else 0. */
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
/* props (3*n) and known (n) for hosts[0..n): zeros and 0 where unknown; *nknown = known hosts. */
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
    int duplex_serialize;     /* 1: A->B and B->A between two ranks take turns (TCP BTL); default 1 */
} cacore_cost_params_t;

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
    CACORE_PAT_COUNT
} cacore_pattern_t;

typedef enum {
    CACORE_ALGO_AUTO = 0,    /* the best predicted of COOL, TREE and (no forced pattern) BINOMIAL */
    CACORE_ALGO_COOL,        /* node -> group -> ... -> top, a pattern per level */
    CACORE_ALGO_TREE,        /* CMPI Algorithm 4 tree over nodes (gather, scatter; bcast, reduce) */
    CACORE_ALGO_BINOMIAL,    /* baseline: flat binomial tree over ranks (as tuned) */
    CACORE_ALGO_RING,        /* baseline: ring over ranks (not gather, scatter) */
    CACORE_ALGO_LINEAR,      /* baseline: the root talks to every rank directly (gather, scatter;
                                what tuned does for large blocks) */
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
/* The entry's node properties for the same node set (props: 3*n, as cacore_matrix_set_node_props).
 * CACORE_ERR_FORMAT when the entry has none: written by an older version (cloudaware-matrix 1),
 * so its node set is measured again. */
cacore_status_t cacore_cache_entry_node_props(const cacore_matrix_t *entry, int n,
                                              const char *const *hosts, double *props, char *err,
                                              size_t errlen);
/* The entry's file content for m: *text (malloc'd, NUL-terminated, caller frees), *len bytes. */
cacore_status_t cacore_cache_entry_format(const cacore_matrix_t *m, uint64_t key, char **text,
                                          size_t *len, char *err, size_t errlen);

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

#ifdef __cplusplus
}
#endif
#endif /* CLOUDAWARE_CORE_H */
