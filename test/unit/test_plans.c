/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * test_plans.c - every plan the core emits is complete: simulated symbolically (the round
 * semantics of cloudaware_core.h), every rank ends with exactly the data MPI requires, for each
 * collective, root, rank count 1..65, ragged nodes and non-consecutive ranks per node; the
 * split-rail plans with every slicing and cross-node pattern. */
#include "test_util.h"

static double rack_lat(int i, int j, void *ctx)
{
    int rack = *(int *) ctx;
    return (i / rack == j / rack) ? 5e-5 : 2e-4;
}

static double rack_bw(int i, int j, void *ctx)
{
    int rack = *(int *) ctx;
    double b = (i / rack == j / rack) ? 1.25e9 : 1.25e8;
    return b * (1.0 + 0.05 * ((i * 7 + j * 3) % 5));  /* a little unevenness, asymmetric */
}

static cacore_matrix_t *racks_matrix(int n, int rack)
{
    return tu_matrix(n, rack_lat, rack_bw, &rack);
}

static void check_plan(cacore_matrix_t *m, int nranks, const int *rank_node, cacore_coll_t coll,
                       int root, size_t bytes, size_t count, const cacore_plan_params_t *pp,
                       const char *what)
{
    cacore_plan_t *p = NULL;
    char err[512];
    cacore_status_t st = cacore_plan_build(m, nranks, rank_node, coll, root, bytes, count, pp, &p,
                                           err, sizeof err);
    ck_assert_msg(st == CACORE_OK, "%s coll %d nranks %d root %d: build: %s", what, coll, nranks,
                  root, err);
    ck_assert_msg(cacore_plan_check(p, err, sizeof err) == CACORE_OK,
                  "%s coll %d nranks %d root %d (%s): %s", what, coll, nranks, root,
                  cacore_plan_describe(p), err);
    ck_assert_int_eq(cacore_plan_nranks(p), nranks);
    ck_assert_int_ge(cacore_plan_nblocks(p), 1);
    if (coll == CACORE_COLL_GATHER || coll == CACORE_COLL_SCATTER || coll == CACORE_COLL_ALLGATHER) {
        ck_assert_int_eq(cacore_plan_nblocks(p) % nranks, 0);
    }
    if (count > 0 && coll <= CACORE_COLL_ALLREDUCE) {
        ck_assert_int_le(cacore_plan_nblocks(p), (int) count);
    }
    ck_assert_msg(cacore_plan_predicted(p) >= 0, "negative prediction");
    cacore_plan_free(p);
}

/* Split-rail parameters: these patterns inside nodes, at the group levels and across the top. */
static cacore_plan_params_t rail_params(int node, int group, int top)
{
    cacore_plan_params_t pp;
    cacore_plan_params_default(&pp);
    pp.algo = CACORE_ALGO_RAIL;
    pp.pattern[0] = node;
    pp.pattern[1] = group;
    pp.pattern[2] = top;
    return pp;
}

/* The next communicator size after n: every size 1..65, or with CACORE_TEST_QUICK set (the
 * sanitizer build, where one plan costs ten times as much) 1, 2, 3, 5, 8, 13, 21, 34, 55, 65. */
static int next_size(int n, int a)
{
    if (NULL == getenv("CACORE_TEST_QUICK")) {
        return n + 1;
    }
    return (n + a >= 65 && n < 65) ? 65 : n + a;
}

/* Automatic choice over communicator sizes up to 65, all collectives, three roots, four
 * layouts. */
START_TEST(auto_plans_complete)
{
    const int nnodes = 12;
    cacore_matrix_t *m = racks_matrix(nnodes, 4);
    int rank_node[65];
    int kind = _i;
    for (int n = 1, a = 1, b; n <= 65; b = n, n = next_size(n, a), a = b) {
        tu_layout(kind, n, nnodes, rank_node);
        for (int c = 0; c < CACORE_COLL_COUNT; ++c) {
            int roots[3] = {n - 1, n / 2, 0};
            for (int ri = 0; ri < (n <= 20 ? 3 : 2); ++ri) {
                check_plan(m, n, rank_node, (cacore_coll_t) c, roots[ri], 1 << 20, 1 << 18, NULL,
                           "auto");
                check_plan(m, n, rank_node, (cacore_coll_t) c, roots[ri], 64, 8, NULL, "auto-small");
            }
        }
    }
    cacore_matrix_free(m);
}
END_TEST

/* Every algorithm and every forced pattern on every level. */
START_TEST(forced_patterns_complete)
{
    const int nnodes = 9;
    cacore_matrix_t *m = racks_matrix(nnodes, 3);
    int rank_node[65];
    int sizes[] = {1, 2, 3, 5, 8, 13, 17, 31, 40};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
        int n = sizes[si];
        tu_layout((int) si % 4, n, nnodes, rank_node);
        for (int c = 0; c < CACORE_COLL_COUNT; ++c) {
            for (int algo = CACORE_ALGO_COOL; algo < CACORE_ALGO_COUNT; ++algo) {
                int rooted = c == CACORE_COLL_BCAST || c == CACORE_COLL_REDUCE ||
                             c == CACORE_COLL_GATHER || c == CACORE_COLL_SCATTER;
                if (algo == CACORE_ALGO_TREE && !rooted) {
                    continue;
                }
                if (algo == CACORE_ALGO_RING &&
                    (c == CACORE_COLL_GATHER || c == CACORE_COLL_SCATTER)) {
                    continue;
                }
                if (algo == CACORE_ALGO_LANES && c != CACORE_COLL_BCAST &&
                    c != CACORE_COLL_REDUCE && c != CACORE_COLL_ALLREDUCE) {
                    continue;   /* lanes: bcast, reduce and allreduce */
                }
                if (algo == CACORE_ALGO_RAIL && c != CACORE_COLL_ALLREDUCE &&
                    c != CACORE_COLL_ALLGATHER && c != CACORE_COLL_BCAST) {
                    continue;   /* split rails: allreduce, allgather and bcast */
                }
                if (algo == CACORE_ALGO_LINEAR &&
                    c != CACORE_COLL_GATHER && c != CACORE_COLL_SCATTER) {
                    continue;   /* the linear baseline exists for gather and scatter only */
                }
                int npat = algo == CACORE_ALGO_COOL ? CACORE_PAT_COUNT : 2;
                for (int pat = 1; pat < npat; ++pat) {
                    cacore_plan_params_t pp;
                    cacore_plan_params_default(&pp);
                    pp.algo = algo;
                    if (algo == CACORE_ALGO_COOL) {
                        for (int l = 0; l < CACORE_PLAN_LEVELS; ++l) {
                            pp.pattern[l] = (pat + l) % (CACORE_PAT_COUNT - 1) + 1;
                        }
                        pp.segment_bytes = 1 << 16;
                    }
                    check_plan(m, n, rank_node, (cacore_coll_t) c, n - 1 - (n / 3), 1 << 20,
                               1 << 18, &pp, "forced");
                    check_plan(m, n, rank_node, (cacore_coll_t) c, 0, 1 << 20, 3, &pp,
                               "forced-count3");
                    check_plan(m, n, rank_node, (cacore_coll_t) c, 0, 4, 1, &pp, "forced-count1");
                }
            }
        }
    }
    cacore_matrix_free(m);
}
END_TEST

/* Split rails: every split inside nodes with every pattern across them (and a split at the group
 * level varying with both), allreduce, allgather and bcast (a root that moves with the size), sizes 1..65 (CACORE_TEST_QUICK: fewer), ragged and reversed ranks per node (so
 * nodes have different rank counts and extra ranks fold into the rail ranks), a count with many
 * blocks, an odd count that limits the rails and one element. */
START_TEST(rail_plans_complete)
{
    const int nnodes = 6;
    cacore_matrix_t *m = racks_matrix(nnodes, 3);
    int rank_node[65];
    /* direct: allgather's and allreduce's split and top pattern (bcast runs a ring instead) */
    const int node_pats[] = {CACORE_PAT_FLAT, CACORE_PAT_RING, CACORE_PAT_RABENSEIFNER,
                             CACORE_PAT_DIRECT};
    const int top_pats[] = {CACORE_PAT_RING, CACORE_PAT_RABENSEIFNER, CACORE_PAT_RECDBL,
                            CACORE_PAT_DIRECT};
    const size_t counts[] = {(1 << 16) + 1, 7, 1};
    for (int n = 1, a = 1, b; n <= 65; b = n, n = next_size(n, a), a = b) {
        tu_layout(n % 2 ? 1 : 3, n, nnodes, rank_node);
        for (int ci = 0; ci < 3; ++ci) {
            const int c = ci == 0 ? CACORE_COLL_ALLREDUCE
                        : ci == 1 ? CACORE_COLL_ALLGATHER : CACORE_COLL_BCAST;
            const int root = c == CACORE_COLL_BCAST ? 7 * n / 11 : 0;   /* moves with n */
            for (int np = 0; np < 4; ++np) {
                for (int tp = 0; tp < 4; ++tp) {
                    /* 2 racks of 3: a group level */
                    const cacore_plan_params_t pp =
                        rail_params(node_pats[np], node_pats[(np + tp) % 4], top_pats[tp]);
                    /* one element: one rail and recursive doubling, whatever the patterns */
                    for (int k = 0; k < (np + tp == 0 ? 3 : 2); ++k) {
                        check_plan(m, n, rank_node, (cacore_coll_t) c, root, 1 << 20, counts[k],
                                   &pp, "rail");
                    }
                }
            }
        }
    }
    /* bcast from every root of the small communicators, each level split differently */
    for (int n = 1; n <= 13; ++n) {
        tu_layout(2, n, nnodes, rank_node);
        for (int root = 0; root < n; ++root) {
            const cacore_plan_params_t pp =
                rail_params(root % 2 ? CACORE_PAT_RABENSEIFNER : CACORE_PAT_RING,
                            root % 3 ? CACORE_PAT_RING : CACORE_PAT_FLAT,
                            root % 2 ? CACORE_PAT_BINOMIAL : CACORE_PAT_RING);
            check_plan(m, n, rank_node, CACORE_COLL_BCAST, root, 1 << 20, (1 << 16) + 1, &pp,
                       "rail-bcast-root");
        }
    }
    cacore_matrix_free(m);
}
END_TEST

/* The split-rail plan: 4 nodes of 3 ranks (ranks 0-2 on node 0 ...) in 2 racks of 2 nodes, ring
 * splits everywhere: 3 slices per node, each halved again between the 2 nodes of a rack, the
 * quarters reduced across the racks: 3 * 2 * 2 = 12 blocks, and every rank sends the same share
 * to other nodes (2 blocks to its rack peer and 1 to the other rack, each way). Rail plans do
 * not keep rank order (the component leaves non-commutative ops to the previous module then),
 * and a reduce (a collective it does not implement) is an argument error. */
START_TEST(rail_plan_shape)
{
    cacore_matrix_t *m = racks_matrix(4, 2);
    int rank_node[12];
    for (int r = 0; r < 12; ++r) {
        rank_node[r] = r / 3;
    }
    const cacore_plan_params_t pp = rail_params(CACORE_PAT_RING, CACORE_PAT_RING, CACORE_PAT_RING);
    cacore_plan_t *p = NULL;
    char err[256];
    ck_assert_int_eq(cacore_plan_build(m, 12, rank_node, CACORE_COLL_ALLREDUCE, 0, 1 << 20, 1 << 18,
                                       &pp, &p, err, sizeof err),
                     CACORE_OK);
    ck_assert_str_eq(cacore_plan_describe(p), "rail node=ring:3 group1=ring:2 top=ring");
    ck_assert_int_eq(cacore_plan_nblocks(p), 12);
    ck_assert_int_eq(cacore_plan_preserves_order(p), 0);
    for (int r = 0; r < 12; ++r) {
        int in_rack = 0, across = 0;
        for (int i = 0; i < cacore_plan_nsteps(p, r); ++i) {
            const cacore_step_t *st = &cacore_plan_steps(p, r)[i];
            if (st->kind == CACORE_STEP_SEND && rank_node[st->peer] != rank_node[r]) {
                if (rank_node[st->peer] / 2 == rank_node[r] / 2) {
                    in_rack += st->nblocks;
                } else {
                    across += st->nblocks;
                }
            }
        }
        ck_assert_int_eq(in_rack, 4);
        ck_assert_int_eq(across, 2);
    }
    cacore_plan_free(p);
    ck_assert_int_eq(cacore_plan_build(m, 12, rank_node, CACORE_COLL_REDUCE, 0, 1 << 20, 1 << 18,
                                       &pp, &p, err, sizeof err),
                     CACORE_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err, "rail"));
    cacore_matrix_free(m);
}
END_TEST

/* The direct split just below the top: 8 nodes of 2 ranks in 2 racks of 4, node leaders carry.
 * Every part crosses between the racks once, and a leader hands its node's parts to its rack
 * peers in the round they cross to the other rack; what came across follows in a later round
 * (with a direct top in segments: each segment one round after it crossed). */
START_TEST(rail_allgather_direct_overlaps_top)
{
    cacore_matrix_t *m = racks_matrix(8, 4);
    int rank_node[16];
    for (int r = 0; r < 16; ++r) {
        rank_node[r] = r / 2;
    }
    cacore_plan_params_t pp = rail_params(CACORE_PAT_FLAT, CACORE_PAT_DIRECT, CACORE_PAT_RING);
    cacore_plan_t *p = NULL;
    char err[256];
    ck_assert_int_eq(cacore_plan_build(m, 16, rank_node, CACORE_COLL_ALLGATHER, 0, 1 << 20,
                                       1 << 16, &pp, &p, err, sizeof err),
                     CACORE_OK);
    ck_assert_str_eq(cacore_plan_describe(p), "rail node=flat:1 group1=direct:4 top=ring");
    ck_assert_int_eq(cacore_plan_check(p, err, sizeof err), CACORE_OK);
    const int bpr = cacore_plan_nblocks(p) / 16;
    int across = 0;
    for (int r = 0; r < 16; r += 2) {
        int top_round = -1, own_round = -1, later = 0;
        for (int i = 0; i < cacore_plan_nsteps(p, r); ++i) {
            const cacore_step_t *st = &cacore_plan_steps(p, r)[i];
            if (st->kind != CACORE_STEP_SEND || rank_node[st->peer] == rank_node[r]) {
                continue;
            }
            const int peer_node = rank_node[st->peer];
            if (peer_node / 4 != rank_node[r] / 4) {
                across += st->nblocks;
                top_round = st->round;
            } else if (st->first_block / bpr / 2 == rank_node[r]) {
                ck_assert_int_eq(st->nblocks, 2 * bpr);   /* the node's two parts */
                ck_assert(own_round < 0 || own_round == st->round);
                own_round = st->round;
            } else {
                later = st->round;
            }
        }
        ck_assert_int_ge(top_round, 0);
        ck_assert_int_eq(own_round, top_round);
        ck_assert_int_gt(later, top_round);
    }
    ck_assert_int_eq(across, 16 * bpr);   /* each part once, from its rack to the other */
    cacore_plan_free(p);

    /* Direct across the top too, in 4 segments: a leader's segments cross in 4 consecutive
     * rounds, its node's parts go to its rack peers a segment in each of those rounds (not all
     * in the first: that round would last as long as the whole exchange inside the rack while
     * only one segment crosses), and what came across goes on one round later each. */
    pp.pattern[2] = CACORE_PAT_DIRECT;
    pp.segment_bytes = 1 << 18;
    ck_assert_int_eq(cacore_plan_build(m, 16, rank_node, CACORE_COLL_ALLGATHER, 0, 1 << 20,
                                       1 << 16, &pp, &p, err, sizeof err),
                     CACORE_OK);
    ck_assert_str_eq(cacore_plan_describe(p),
                     "rail node=flat:1 group1=direct:4 top=direct segments=4");
    ck_assert_int_eq(cacore_plan_check(p, err, sizeof err), CACORE_OK);
    const int bpr4 = cacore_plan_nblocks(p) / 16;
    ck_assert_int_eq(bpr4, 4);
    for (int r = 0; r < 16; r += 2) {
        unsigned cross = 0, own = 0, fwd = 0;   /* bit k: a send in round first + k */
        int first = -1, own_blocks = 0;
        for (int i = 0; i < cacore_plan_nsteps(p, r); ++i) {
            const cacore_step_t *st = &cacore_plan_steps(p, r)[i];
            if (st->kind == CACORE_STEP_SEND && rank_node[st->peer] / 4 != rank_node[r] / 4) {
                first = first < 0 || st->round < first ? st->round : first;
            }
        }
        ck_assert_int_ge(first, 0);
        for (int i = 0; i < cacore_plan_nsteps(p, r); ++i) {
            const cacore_step_t *st = &cacore_plan_steps(p, r)[i];
            if (st->kind != CACORE_STEP_SEND || rank_node[st->peer] == rank_node[r]) {
                continue;
            }
            ck_assert_int_ge(st->round, first);
            const int peer_node = rank_node[st->peer];
            if (peer_node / 4 != rank_node[r] / 4) {
                cross |= 1u << (st->round - first);
            } else if (st->first_block / bpr4 / 2 != rank_node[r]) {
                fwd |= 1u << (st->round - first);
            } else {
                own |= 1u << (st->round - first);
                own_blocks += st->nblocks;
            }
        }
        ck_assert_uint_eq(cross, 0xfu);
        ck_assert_uint_eq(own, 0xfu);
        ck_assert_int_eq(own_blocks, 3 * 2 * bpr4);   /* the node's two parts to 3 rack peers */
        ck_assert_uint_eq(fwd, 0x1eu);
    }
    cacore_plan_free(p);
    cacore_matrix_free(m);
}
END_TEST

/* A rail allreduce direct inside the racks and across them (2 racks of 4 nodes, one rank each):
 * every rank sends each rack peer that peer's piece in one round (the reduce-scatter) and its
 * own piece to each in one more (the allgather), with the 3 operands of a piece in 3 temporary
 * buffers; a ring would take 3 rounds each way. */
START_TEST(rail_allreduce_direct_one_round)
{
    cacore_matrix_t *m = racks_matrix(8, 4);
    int rank_node[8];
    for (int r = 0; r < 8; ++r) {
        rank_node[r] = r;
    }
    cacore_plan_params_t pp = rail_params(CACORE_PAT_FLAT, CACORE_PAT_DIRECT, CACORE_PAT_DIRECT);
    cacore_plan_t *p = NULL;
    char err[256];
    ck_assert_int_eq(cacore_plan_build(m, 8, rank_node, CACORE_COLL_ALLREDUCE, 0, 1 << 20,
                                       1 << 18, &pp, &p, err, sizeof err),
                     CACORE_OK);
    ck_assert_str_eq(cacore_plan_describe(p), "rail node=flat:1 group1=direct:4 top=direct");
    ck_assert_int_eq(cacore_plan_check(p, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_plan_ntmp(p), 3);
    for (int r = 0; r < 8; ++r) {
        int rounds[2] = {-1, -1}, nrounds = 0, sends = 0, across = 0;
        for (int i = 0; i < cacore_plan_nsteps(p, r); ++i) {
            const cacore_step_t *st = &cacore_plan_steps(p, r)[i];
            if (st->kind != CACORE_STEP_SEND) {
                continue;
            }
            if (st->peer / 4 != r / 4) {
                ++across;
                continue;
            }
            ++sends;
            if (nrounds == 0 || rounds[nrounds - 1] != st->round) {
                ck_assert_int_lt(nrounds, 2);
                rounds[nrounds++] = st->round;
            }
        }
        ck_assert_int_eq(nrounds, 2);
        ck_assert_int_eq(sends, 6);
        ck_assert_int_eq(across, 2);   /* its quarter to its rail's peer rack, both ways */
    }
    cacore_plan_free(p);
    cacore_matrix_free(m);
}
END_TEST

/* 16 nodes in 4 racks of 4 whose uplinks pair up: racks 0-1 and 2-3 closer to each other than
 * across. The hierarchy has two levels of groups (racks, pairs of racks); a rail allgather whose
 * top is the pairs makes every rack's data cross its pair's uplinks first. With the racks
 * directly under the top each part crosses every uplink once, which the model prices lower when
 * two-way exchanges take turns (duplex 0; the executor's, posting sends first, overlap without
 * measured groups, and then recursive doubling inside the pairs of racks wins). */
static double paired_racks_bw(int i, int j, void *ctx)
{
    (void) ctx;
    if (i / 4 == j / 4) {
        return 1e8;
    }
    return (i / 8 == j / 8 ? 1e7 : 4e6) * (1.0 + 0.05 * ((i * 7 + j * 3) % 5));
}

START_TEST(rail_allgather_racks_under_top)
{
    cacore_matrix_t *m = tu_matrix(16, rack_lat, paired_racks_bw, &(int){4});
    int rank_node[16];
    for (int r = 0; r < 16; ++r) {
        rank_node[r] = r;
    }
    cacore_hierarchy_t *h = NULL;
    char err[256];
    ck_assert_int_eq(cacore_hierarchy_build(m, 1 << 20, NULL, &h, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_hierarchy_levels(h), 4);
    cacore_hierarchy_free(h);
    cacore_plan_params_t pp = rail_params(CACORE_PAT_AUTO, CACORE_PAT_AUTO, CACORE_PAT_AUTO);
    pp.cost.duplex_above_bytes = 0;
    cacore_plan_t *p = NULL;
    ck_assert_int_eq(cacore_plan_build(m, 16, rank_node, CACORE_COLL_ALLGATHER, 0, 1 << 20,
                                       1 << 18, &pp, &p, err, sizeof err),
                     CACORE_OK);
    /* over the pairs: "rail node=flat:1 group1=ring:4 group2=ring:2 top=ring", 0.97 s */
    ck_assert_str_eq(cacore_plan_describe(p), "rail node=flat:1 group1=ring:4 top=ring");
    ck_assert_double_lt(cacore_plan_predicted(p), 0.9);
    ck_assert_int_eq(cacore_plan_check(p, err, sizeof err), CACORE_OK);
    cacore_plan_free(p);
    cacore_matrix_free(m);
}
END_TEST

/* 4 nodes in one group, 0 -> 1 and 2 -> 0 faster than the other pairs: a chain ordered for the
 * broadcast alone starts 0 -> 1, one ordered for the reduce alone ends 2 -> 0, and the two would
 * send both halves the same way over 1 -> 2. */
static double skew_bw(int i, int j, void *ctx)
{
    (void) ctx;
    return ((i == 0 && j == 1) || (i == 2 && j == 0)) ? 1.5e8 : 1e8;
}

/* A chain allreduce broadcasts down its reduce's chain: every pair that carries data carries it
 * both ways, once each (the two halves overlap on full-duplex links, docs/model.md). */
START_TEST(allreduce_chain_halves_run_opposite_ways)
{
    cacore_matrix_t *m = tu_matrix(4, rack_lat, skew_bw, &(int){4});
    int rank_node[4] = {0, 1, 2, 3};
    cacore_plan_params_t pp;
    cacore_plan_params_default(&pp);
    pp.algo = CACORE_ALGO_COOL;
    for (int l = 0; l < CACORE_PLAN_LEVELS; ++l) {
        pp.pattern[l] = CACORE_PAT_CHAIN;
    }
    pp.segment_bytes = 1 << 16;
    cacore_plan_t *p = NULL;
    char err[256];
    ck_assert_msg(cacore_plan_build(m, 4, rank_node, CACORE_COLL_ALLREDUCE, 0, 1 << 20, 1 << 18,
                                    &pp, &p, err, sizeof err) == CACORE_OK, "%s", err);
    ck_assert_ptr_nonnull(strstr(cacore_plan_describe(p), "chain"));
    int sent[4][4] = {{0}};
    for (int r = 0; r < 4; ++r) {
        for (int i = 0; i < cacore_plan_nsteps(p, r); ++i) {
            const cacore_step_t *st = &cacore_plan_steps(p, r)[i];
            if (st->kind == CACORE_STEP_SEND) {
                sent[r][st->peer] += st->nblocks;
            }
        }
    }
    int pairs = 0;
    for (int a = 0; a < 4; ++a) {
        for (int b = 0; b < 4; ++b) {
            ck_assert_msg(sent[a][b] <= cacore_plan_nblocks(p), "%d -> %d carries %d of %d blocks",
                          a, b, sent[a][b], cacore_plan_nblocks(p));
            ck_assert_msg((sent[a][b] > 0) == (sent[b][a] > 0), "%d -> %d: %d blocks, back %d", a,
                          b, sent[a][b], sent[b][a]);
            pairs += sent[a][b] > 0;
        }
    }
    ck_assert_int_eq(pairs, 6);   /* 3 pairs of the chain, both ways */
    cacore_plan_free(p);
    cacore_matrix_free(m);
}
END_TEST

/* Reductions: the plan says whether it keeps rank order; binomial over consecutive ranks does. */
START_TEST(order_preservation_is_reported)
{
    cacore_matrix_t *m = racks_matrix(8, 4);
    int rank_node[16];
    for (int r = 0; r < 16; ++r) {
        rank_node[r] = r / 2; /* consecutive ranks per node */
    }
    cacore_plan_params_t pp;
    cacore_plan_params_default(&pp);
    pp.algo = CACORE_ALGO_BINOMIAL;
    cacore_plan_t *p = NULL;
    char err[256];
    ck_assert_int_eq(cacore_plan_build(m, 16, rank_node, CACORE_COLL_REDUCE, 0, 1024, 128, &pp, &p,
                                       err, sizeof err),
                     CACORE_OK);
    ck_assert_int_eq(cacore_plan_preserves_order(p), 1);
    cacore_plan_free(p);
    /* a ring allreduce cannot keep the order */
    pp.algo = CACORE_ALGO_RING;
    pp.segment_bytes = 64;
    ck_assert_int_eq(cacore_plan_build(m, 16, rank_node, CACORE_COLL_ALLREDUCE, 0, 1 << 20, 1 << 18,
                                       &pp, &p, err, sizeof err),
                     CACORE_OK);
    ck_assert_int_eq(cacore_plan_preserves_order(p), 0);
    cacore_plan_free(p);
    cacore_matrix_free(m);
}
END_TEST

START_TEST(bad_inputs_are_errors)
{
    cacore_matrix_t *m = racks_matrix(4, 2);
    int rank_node[4] = {0, 1, 2, 3};
    cacore_plan_t *p = NULL;
    char err[256];
    ck_assert_int_eq(cacore_plan_build(m, 0, rank_node, CACORE_COLL_BCAST, 0, 8, 1, NULL, &p, err,
                                       sizeof err),
                     CACORE_ERR_ARG);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(cacore_plan_build(m, 4, rank_node, CACORE_COLL_BCAST, 4, 8, 1, NULL, &p, err,
                                       sizeof err),
                     CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_plan_build(m, 4, rank_node, (cacore_coll_t) 17, 0, 8, 1, NULL, &p, err,
                                       sizeof err),
                     CACORE_ERR_ARG);
    int bad_nodes[4] = {0, 1, 2, 9}; /* mismatched sizes: node 9 of a 4-node matrix */
    ck_assert_int_eq(cacore_plan_build(m, 4, bad_nodes, CACORE_COLL_BCAST, 0, 8, 1, NULL, &p, err,
                                       sizeof err),
                     CACORE_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err, "node 9"));
    ck_assert_int_eq(cacore_plan_build(NULL, 4, rank_node, CACORE_COLL_BCAST, 0, 8, 1, NULL, &p,
                                       err, sizeof err),
                     CACORE_ERR_ARG);
    cacore_plan_params_t pp;
    cacore_plan_params_default(&pp);
    pp.cost.reduce_Bps = 0;
    ck_assert_int_eq(cacore_plan_build(m, 4, rank_node, CACORE_COLL_REDUCE, 0, 8, 1, &pp, &p, err,
                                       sizeof err),
                     CACORE_ERR_ARG);
    cacore_plan_params_default(&pp);
    pp.hier.k = 0.0 / 0.0;
    ck_assert_int_eq(cacore_plan_build(m, 4, rank_node, CACORE_COLL_REDUCE, 0, 8, 1, &pp, &p, err,
                                       sizeof err),
                     CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_plan_check(NULL, err, sizeof err), CACORE_ERR_ARG);
    cacore_matrix_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plans");
    TCase *tc = tcase_create("plans");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, auto_plans_complete, 0, 4);
    tcase_add_test(tc, forced_patterns_complete);
    tcase_add_test(tc, rail_plans_complete);
    tcase_add_test(tc, rail_plan_shape);
    tcase_add_test(tc, rail_allgather_direct_overlaps_top);
    tcase_add_test(tc, rail_allgather_racks_under_top);
    tcase_add_test(tc, rail_allreduce_direct_one_round);
    tcase_add_test(tc, allreduce_chain_halves_run_opposite_ways);
    tcase_add_test(tc, order_preservation_is_reported);
    tcase_add_test(tc, bad_inputs_are_errors);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
