/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * test_cost.c - the cost model: monotone in message size, sensitive to the things it claims to
 * model (slow links, one message per node port, two-way exchanges on TCP, node capacities shared
 * max-min fairly and per-message overhead in the flow model), and it ranks a
 * cloudaware plan below the binomial baseline on a racked network. */
#include <math.h>
#include "test_util.h"

static double rk_lat(int i, int j, void *ctx)
{
    (void) ctx;
    return (i / 4 == j / 4) ? 5e-5 : 2e-4;
}

static double rk_bw(int i, int j, void *ctx)
{
    (void) ctx;
    return (i / 4 == j / 4) ? 1.25e9 : 1.25e8 * (1 + ((i + 2 * j) % 3));
}

START_TEST(monotone_in_message_size)
{
    cacore_matrix_t *m = tu_matrix(16, rk_lat, rk_bw, NULL);
    int rank_node[32];
    for (int r = 0; r < 32; ++r) {
        rank_node[r] = (r * 3) % 16;
    }
    char err[256];
    for (int c = 0; c < CACORE_COLL_COUNT; ++c) {
        for (int algo = CACORE_ALGO_AUTO; algo < CACORE_ALGO_COUNT; ++algo) {
            if (algo == CACORE_ALGO_RING && (c == CACORE_COLL_GATHER || c == CACORE_COLL_SCATTER)) {
                continue;
            }
            if (algo == CACORE_ALGO_LINEAR && c != CACORE_COLL_GATHER && c != CACORE_COLL_SCATTER) {
                continue;   /* the linear baseline exists for gather and scatter only */
            }
            if (algo == CACORE_ALGO_TREE && (c == CACORE_COLL_ALLREDUCE || c == CACORE_COLL_ALLGATHER)) {
                continue;
            }
            if (algo == CACORE_ALGO_LANES && c != CACORE_COLL_BCAST && c != CACORE_COLL_REDUCE &&
                c != CACORE_COLL_ALLREDUCE) {
                continue;   /* lanes: bcast, reduce and allreduce */
            }
            if (algo == CACORE_ALGO_RAIL && c != CACORE_COLL_ALLREDUCE &&
                c != CACORE_COLL_ALLGATHER && c != CACORE_COLL_BCAST) {
                continue;   /* split rails: allreduce, allgather and bcast */
            }
            cacore_plan_params_t pp;
            cacore_plan_params_default(&pp);
            pp.algo = algo;
            cacore_plan_t *p = NULL;
            ck_assert_msg(cacore_plan_build(m, 32, rank_node, (cacore_coll_t) c, 5, 1 << 16, 1 << 14,
                                            &pp, &p, err, sizeof err) == CACORE_OK, "%s", err);
            double prev = -1;
            for (size_t bytes = 0; bytes <= (64u << 20); bytes = bytes ? bytes * 4 : 1) {
                double t = 0;
                ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, bytes, NULL, &t, err, sizeof err),
                                 CACORE_OK);
                ck_assert_msg(t >= prev, "coll %d algo %d: %g s at %zu bytes < %g s", c, algo, t,
                              bytes, prev);
                prev = t;
            }
            cacore_plan_free(p);
        }
    }
    cacore_matrix_free(m);
}
END_TEST

static double two_lat(int i, int j, void *ctx)
{
    (void) i;
    (void) j;
    (void) ctx;
    return 0;
}

static double two_bw(int i, int j, void *ctx)
{
    (void) i;
    (void) j;
    (void) ctx;
    return 1e6;
}

/* Two ranks on two nodes: an allreduce by exchange (recursive doubling) moves 1 MB each way.
 * Messages above duplex_above_bytes (coll_cloudaware_model_duplex; 0: all) take turns with the
 * other direction: the exchange costs the sum of both directions. Below it, or with -1, the two
 * directions overlap; so they do by default (measured) for a plan of the executor, which posts
 * its sends first, without shared-bottleneck groups. Groups and the previous module's own
 * exchanges: test_bottleneck.cpp. */
START_TEST(two_way_exchange_costs_the_sum)
{
    cacore_matrix_t *m = tu_matrix(2, two_lat, two_bw, NULL);
    int rank_node[2] = {0, 1};
    cacore_plan_params_t pp;
    cacore_plan_params_default(&pp);
    ck_assert_double_eq(pp.cost.duplex_above_bytes, CACORE_DUPLEX_MEASURED);
    pp.algo = CACORE_ALGO_COOL;
    pp.pattern[0] = pp.pattern[1] = pp.pattern[2] = CACORE_PAT_RECDBL;
    pp.cost.reduce_Bps = 1e15;
    pp.cost.copy_Bps = 1e15;
    cacore_plan_t *p = NULL;
    char err[256];
    ck_assert_msg(cacore_plan_build(m, 2, rank_node, CACORE_COLL_ALLREDUCE, 0, 1000000, 1000, &pp,
                                    &p, err, sizeof err) == CACORE_OK, "%s", err);
    double t = 0;
    ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err, sizeof err),
                     CACORE_OK);
    ck_assert_double_eq_tol(t, 1.0, 1e-6);
    pp.cost.duplex_above_bytes = 0;
    ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err, sizeof err),
                     CACORE_OK);
    ck_assert_double_eq_tol(t, 2.0, 1e-6);
    const double above[] = {1e6, -1};   /* the message is not above it; none takes turns */
    for (int i = 0; i < 2; i++) {
        pp.cost.duplex_above_bytes = above[i];
        ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err,
                                             sizeof err), CACORE_OK);
        ck_assert_double_eq_tol(t, 1.0, 1e-6);
    }
    pp.cost.duplex_above_bytes = -3;
    ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err, sizeof err),
                     CACORE_ERR_ARG);
    cacore_plan_free(p);
    cacore_matrix_free(m);
}
END_TEST

/* A flat broadcast from one node to three: one send port serialises (3 s); unlimited slots
 * overlap the sends on distinct links (1 s). */
START_TEST(node_ports_serialise_sends)
{
    cacore_matrix_t *m = tu_matrix(4, two_lat, two_bw, NULL);
    int rank_node[4] = {0, 1, 2, 3};
    cacore_plan_params_t pp;
    cacore_plan_params_default(&pp);
    pp.algo = CACORE_ALGO_COOL;
    pp.pattern[0] = pp.pattern[1] = pp.pattern[2] = CACORE_PAT_FLAT;
    cacore_plan_t *p = NULL;
    char err[256];
    ck_assert_msg(cacore_plan_build(m, 4, rank_node, CACORE_COLL_BCAST, 0, 1000000, 1000, &pp, &p,
                                    err, sizeof err) == CACORE_OK, "%s", err);
    double t = 0;
    ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err, sizeof err),
                     CACORE_OK);
    ck_assert_double_eq_tol(t, 3.0, 1e-6);
    pp.cost.node_send_slots = 0;
    ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err, sizeof err),
                     CACORE_OK);
    ck_assert_double_eq_tol(t, 1.0, 1e-6);
    cacore_plan_free(p);
    cacore_matrix_free(m);
}
END_TEST

/* Linear gather and scatter on 3 nodes x 2 ranks, 1 MB per rank, unlimited port slots: all
 * transfers run at once (the plan posts them in one round), but the two ranks of a node share
 * their node's link to the root's node, so each link carries 2 MB: 2 s, not 1 s. With one slot
 * per port the root's node serialises all four remote blocks: 4 s. */
START_TEST(concurrent_linear_shares_node_links)
{
    cacore_matrix_t *m = tu_matrix(3, two_lat, two_bw, NULL);
    int rank_node[6] = {0, 0, 1, 1, 2, 2};
    char err[256];
    for (int c = 0; c < 2; ++c) {
        cacore_coll_t coll = c ? CACORE_COLL_SCATTER : CACORE_COLL_GATHER;
        cacore_plan_params_t pp;
        cacore_plan_params_default(&pp);
        pp.algo = CACORE_ALGO_LINEAR;
        pp.cost.intra_Bps = 1e15;
        pp.cost.copy_Bps = 1e15;
        pp.cost.node_send_slots = pp.cost.node_recv_slots = 0;
        cacore_plan_t *p = NULL;
        ck_assert_msg(cacore_plan_build(m, 6, rank_node, coll, 0, 1000000, 1000, &pp, &p, err,
                                        sizeof err) == CACORE_OK, "%s", err);
        double t = 0;
        ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err, sizeof err),
                         CACORE_OK);
        ck_assert_msg(fabs(t - 2.0) < 1e-3, "coll %d: %g s with unlimited slots", c, t);
        pp.cost.node_send_slots = pp.cost.node_recv_slots = 1;
        ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err, sizeof err),
                         CACORE_OK);
        ck_assert_msg(fabs(t - 4.0) < 1e-3, "coll %d: %g s with one slot", c, t);
        cacore_plan_free(p);
    }
    cacore_matrix_free(m);
}
END_TEST

/* The flow model (slots -1, the default, with measured node properties): a flat broadcast of
 * 1 MB from node 0 to three nodes over pairs of 1 MB/s each. The three messages share node 0's
 * egress capacity: with none seen they run side by side (1 s, as independent pipes); a NIC of
 * 1 MB/s carries them one third each (3 s, as one slot); 2 MB/s gives 1.5 s. Without node
 * properties the default is one slot (3 s), the model of a matrix file of version 1. */
static double flat_bcast(cacore_matrix_t *m, const double *props, int slots)
{
    int rank_node[4] = {0, 1, 2, 3};
    cacore_plan_params_t pp;
    cacore_plan_params_default(&pp);
    pp.algo = CACORE_ALGO_COOL;
    pp.pattern[0] = pp.pattern[1] = pp.pattern[2] = CACORE_PAT_FLAT;
    if (slots >= 0) {
        pp.cost.node_send_slots = pp.cost.node_recv_slots = slots;
    }
    cacore_plan_t *p = NULL;
    char err[256];
    ck_assert_int_eq(cacore_matrix_set_node_props(m, props, err, sizeof err), CACORE_OK);
    ck_assert_msg(cacore_plan_build(m, 4, rank_node, CACORE_COLL_BCAST, 0, 1000000, 1000, &pp, &p,
                                    err, sizeof err) == CACORE_OK, "%s", err);
    double t = 0;
    ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err, sizeof err),
                     CACORE_OK);
    cacore_plan_free(p);
    return t;
}

START_TEST(flow_model_shares_node_egress)
{
    cacore_matrix_t *m = tu_matrix(4, two_lat, two_bw, NULL);
    double props[4 * CACORE_NODE_VALUES] = {0};
    ck_assert_double_eq_tol(flat_bcast(m, NULL, -1), 3.0, 1e-6);
    ck_assert_double_eq_tol(flat_bcast(m, props, -1), 1.0, 1e-6);
    props[CACORE_NODE_EGRESS] = 1e6;
    ck_assert_double_eq_tol(flat_bcast(m, props, -1), 3.0, 1e-6);
    props[CACORE_NODE_EGRESS] = 2e6;
    ck_assert_double_eq_tol(flat_bcast(m, props, -1), 1.5, 1e-6);
    /* A configured slot count overrides the measurements. */
    ck_assert_double_eq_tol(flat_bcast(m, props, 0), 1.0, 1e-6);
    ck_assert_double_eq_tol(flat_bcast(m, props, 1), 3.0, 1e-6);
    /* Receivers' ingress caps: node 3 takes 0.25 MB/s, so its message takes 4 s; the other two
     * then get the egress left (1.75 MB/s of 2, capped by their pairs at 1 MB/s each): 1 s. */
    props[3 * CACORE_NODE_VALUES + CACORE_NODE_INGRESS] = 2.5e5;
    ck_assert_double_eq_tol(flat_bcast(m, props, -1), 4.0, 1e-6);
    cacore_matrix_free(m);
}
END_TEST

/* Max-min fairness when a flow is held below its share elsewhere: node 0 (egress 1 MB/s) sends
 * to nodes 1, 2 and 3; node 1 can receive only 0.1 MB/s. Nodes 2 and 3 share the remaining
 * 0.9 MB/s (0.45 each) until they finish at 1/0.45 s; node 1's message still needs 10 s. The
 * linear scatter (one message per rank, all posted at once) shows it. */
START_TEST(flow_model_is_max_min_fair)
{
    cacore_matrix_t *m = tu_matrix(4, two_lat, two_bw, NULL);
    double props[4 * CACORE_NODE_VALUES] = {0};
    int rank_node[4] = {0, 1, 2, 3};
    char err[256];
    props[CACORE_NODE_EGRESS] = 1e6;
    props[CACORE_NODE_VALUES + CACORE_NODE_INGRESS] = 1e5;
    ck_assert_int_eq(cacore_matrix_set_node_props(m, props, err, sizeof err), CACORE_OK);
    cacore_plan_params_t pp;
    cacore_plan_params_default(&pp);
    pp.algo = CACORE_ALGO_LINEAR;
    pp.cost.copy_Bps = 1e15;
    cacore_plan_t *p = NULL;
    ck_assert_msg(cacore_plan_build(m, 4, rank_node, CACORE_COLL_SCATTER, 0, 1000000, 1000, &pp,
                                    &p, err, sizeof err) == CACORE_OK, "%s", err);
    double t = 0;
    ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err, sizeof err),
                     CACORE_OK);
    ck_assert_double_eq_tol(t, 10.0, 1e-6);
    /* Without node 1's cap the three share 1 MB/s: 3 s. */
    props[CACORE_NODE_VALUES + CACORE_NODE_INGRESS] = 0;
    ck_assert_int_eq(cacore_matrix_set_node_props(m, props, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1000000, &pp.cost, &t, err, sizeof err),
                     CACORE_OK);
    ck_assert_double_eq_tol(t, 3.0, 1e-6);
    cacore_plan_free(p);
    cacore_matrix_free(m);
}
END_TEST

/* Per-message overhead: a flat broadcast of 1 byte from node 0 (overhead 1 ms) to three nodes
 * (latency 0, 1 MB/s): the third send leaves 2 ms after the first, so the broadcast ends at
 * 2 ms + 1 us (the byte). With overhead 0: 1 us. Invalid values are refused. */
START_TEST(flow_model_pays_per_message_overhead)
{
    cacore_matrix_t *m = tu_matrix(4, two_lat, two_bw, NULL);
    double props[4 * CACORE_NODE_VALUES] = {0};
    int rank_node[4] = {0, 1, 2, 3};
    char err[256];
    cacore_plan_params_t pp;
    cacore_plan_params_default(&pp);
    pp.algo = CACORE_ALGO_COOL;
    pp.pattern[0] = pp.pattern[1] = pp.pattern[2] = CACORE_PAT_FLAT;
    cacore_plan_t *p = NULL;
    ck_assert_msg(cacore_plan_build(m, 4, rank_node, CACORE_COLL_BCAST, 0, 1, 1, &pp, &p, err,
                                    sizeof err) == CACORE_OK, "%s", err);
    double t = 0;
    for (int k = 0; k < 2; ++k) {
        props[CACORE_NODE_OVERHEAD] = k ? 1e-3 : 0.0;
        ck_assert_int_eq(cacore_matrix_set_node_props(m, props, err, sizeof err), CACORE_OK);
        ck_assert_int_eq(cacore_plan_predict(p, m, rank_node, 1, &pp.cost, &t, err, sizeof err),
                         CACORE_OK);
        ck_assert_double_eq_tol(t, (k ? 2e-3 : 0.0) + 1e-6, 1e-9);
    }
    props[CACORE_NODE_OVERHEAD] = -1;
    ck_assert_int_eq(cacore_matrix_set_node_props(m, props, err, sizeof err), CACORE_ERR_ARG);
    props[CACORE_NODE_OVERHEAD] = 0;
    props[CACORE_NODE_EGRESS] = 0.5;   /* below 1 B/s: neither a capacity nor 0 */
    ck_assert_int_eq(cacore_matrix_set_node_props(m, props, err, sizeof err), CACORE_ERR_ARG);
    double got[CACORE_NODE_VALUES];
    ck_assert_int_eq(cacore_matrix_node_props(m, 0, got), 1);   /* unchanged by the refusals */
    ck_assert_double_eq(got[CACORE_NODE_OVERHEAD], 1e-3);
    cacore_plan_free(p);
    cacore_matrix_free(m);
}
END_TEST

START_TEST(cloudaware_beats_binomial_on_racks)
{
    cacore_matrix_t *m = tu_matrix(16, rk_lat, rk_bw, NULL);
    int rank_node[16];
    for (int r = 0; r < 16; ++r) {
        rank_node[r] = (r * 5) % 16; /* racks hidden behind the rank order */
    }
    char err[256];
    for (int c = 0; c < CACORE_COLL_COUNT; ++c) {
        cacore_plan_params_t pp;
        cacore_plan_params_default(&pp);
        cacore_plan_t *best = NULL, *binom = NULL;
        ck_assert_int_eq(cacore_plan_build(m, 16, rank_node, (cacore_coll_t) c, 3, 1 << 20, 1 << 18,
                                           &pp, &best, err, sizeof err), CACORE_OK);
        pp.algo = CACORE_ALGO_BINOMIAL;
        ck_assert_int_eq(cacore_plan_build(m, 16, rank_node, (cacore_coll_t) c, 3, 1 << 20, 1 << 18,
                                           &pp, &binom, err, sizeof err), CACORE_OK);
        ck_assert_msg(cacore_plan_predicted(best) < cacore_plan_predicted(binom),
                      "coll %d: %s %g s vs binomial %g s", c, cacore_plan_describe(best),
                      cacore_plan_predicted(best), cacore_plan_predicted(binom));
        cacore_plan_free(best);
        cacore_plan_free(binom);
    }
    cacore_matrix_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cost");
    TCase *tc = tcase_create("cost");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, monotone_in_message_size);
    tcase_add_test(tc, two_way_exchange_costs_the_sum);
    tcase_add_test(tc, node_ports_serialise_sends);
    tcase_add_test(tc, concurrent_linear_shares_node_links);
    tcase_add_test(tc, flow_model_shares_node_egress);
    tcase_add_test(tc, flow_model_is_max_min_fair);
    tcase_add_test(tc, flow_model_pays_per_message_overhead);
    tcase_add_test(tc, cloudaware_beats_binomial_on_racks);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
