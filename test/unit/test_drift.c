/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * test_drift.c - the drift policy (docs/drift.md): the first batch warms up, the second sets the
 * baseline, a call
 * drifts when it differs from it by more than the threshold (either way), a full streak of
 * drifting calls (two batches' worth) asks for a recalibration unless the last one is too recent
 * (then it waits, keeping the streak) or every call of it was faster (then the baseline moves),
 * one batch of slow calls (a burst of CPU contention) does
 * not, a calm call breaks a streak, threshold 0 turns it off, size classes below
 * min_bytes are not watched; a recalibration takes only what measured slower; and the node
 * pairs a plan's messages cross (what a recalibration measures again). */
#include "test_util.h"

static const cacore_drift_params_t defaults = { 0.2, 3, 60.0, 65536 };
#define NEVER 1e30   /* no recalibration yet */

static cacore_drift_verdict_t feed(cacore_drift_t *d, const cacore_drift_params_t *p,
                                   const double *t, double since_last)
{
    cacore_drift_verdict_t v;
    char err[256];

    ck_assert_int_eq(cacore_drift_observe(d, p, t, since_last, &v, err, sizeof err), CACORE_OK);
    return v;
}

/* A fresh state past its warm-up batch (whatever its times: they are not compared). */
static void warm(cacore_drift_t *d, const cacore_drift_params_t *p)
{
    const double slow[] = { 50.0, 40.0, 30.0 };

    cacore_drift_init(d);
    ck_assert_int_eq(feed(d, p, slow, NEVER), CACORE_DRIFT_WARMUP);
    ck_assert(d->baseline_s == 0.0);
}

/* A fresh state, warmed up, whose second batch (three calls of 1 s) set a baseline of 1 s. */
static void at_baseline_one(cacore_drift_t *d)
{
    const double base[] = { 1.0, 1.0, 1.0 };

    warm(d, &defaults);
    ck_assert_int_eq(feed(d, &defaults, base, NEVER), CACORE_DRIFT_BASELINE);
}

START_TEST(baseline_then_steady)
{
    cacore_drift_t d;
    /* 9 ms is a slow call: the median, 2.1 ms, is the baseline. */
    const double first[] = { 9e-3, 2e-3, 2.1e-3 };
    /* Within 20 % of 2.1 ms, both ways: steady. */
    const double calm[] = { 2.3e-3, 1.7e-3, 2.39e-3 };

    warm(&d, &defaults);
    ck_assert_int_eq(feed(&d, &defaults, first, NEVER), CACORE_DRIFT_BASELINE);
    ck_assert(d.baseline_s == 2.1e-3);
    ck_assert_int_eq(feed(&d, &defaults, calm, NEVER), CACORE_DRIFT_STEADY);
    ck_assert_int_eq(d.streak, 0);
    ck_assert(d.baseline_s == 2.1e-3);   /* the baseline stays the plan's first */
}
END_TEST

START_TEST(streak_across_batches_triggers_once)
{
    cacore_drift_t d;
    /* A link 5x slower from the second call of a batch on: a streak of 2, carried over; the
     * full streak is 2 x 3 calls, reached within the third batch. */
    const double change[] = { 1.1, 5.0, 5.2 };
    const double slow[] = { 5.1, 4.9, 5.0 };
    const double slower[] = { 5.3, 5.2, 5.1 };

    at_baseline_one(&d);
    ck_assert_int_eq(feed(&d, &defaults, change, NEVER), CACORE_DRIFT_DRIFTING);
    ck_assert_int_eq(d.streak, 2);
    ck_assert_int_eq(feed(&d, &defaults, slow, NEVER), CACORE_DRIFT_DRIFTING);
    ck_assert_int_eq(d.streak, 5);
    ck_assert_int_eq(feed(&d, &defaults, slower, NEVER), CACORE_DRIFT_RECALIBRATE);
    ck_assert_int_eq(d.streak, 0);   /* asked once; the next request needs a new full streak */
    ck_assert(d.last_s == 5.2);
    ck_assert_int_eq(feed(&d, &defaults, slower, NEVER), CACORE_DRIFT_DRIFTING);
    ck_assert_int_eq(d.streak, 3);
}
END_TEST

START_TEST(faster_moves_the_baseline)
{
    cacore_drift_t d;
    const double fast[] = { 0.5, 0.5, 0.79 };   /* 0.79: 21 % faster is beyond 20 % */
    const double faster[] = { 0.45, 0.4, 0.5 };
    const double slow[] = { 0.9, 0.9, 0.9 };    /* the old baseline's speed: 2x the new one */

    at_baseline_one(&d);
    ck_assert_int_eq(feed(&d, &defaults, fast, NEVER), CACORE_DRIFT_DRIFTING);
    ck_assert_int_eq(d.streak_faster, 1);
    /* Two batches' worth of faster calls: the last batch's median is the baseline, nothing is
     * measured, and the interval does not hold it back (nothing to hold). */
    ck_assert_int_eq(feed(&d, &defaults, faster, 1.0), CACORE_DRIFT_REBASELINE);
    ck_assert(d.baseline_s == 0.45);
    ck_assert_int_eq(d.streak, 0);
    ck_assert_int_eq(d.streak_faster, 0);
    /* A slowdown is now seen against the new baseline: back at the old speed is drift. */
    ck_assert_int_eq(feed(&d, &defaults, slow, NEVER), CACORE_DRIFT_DRIFTING);
    ck_assert_int_eq(d.streak_faster, 0);
    ck_assert_int_eq(feed(&d, &defaults, slow, NEVER), CACORE_DRIFT_RECALIBRATE);
}
END_TEST

START_TEST(faster_and_slower_streak_recalibrates)
{
    cacore_drift_t d;
    const double fast[] = { 0.5, 0.5, 0.5 };
    const double mixed[] = { 0.5, 2.0, 0.5 };   /* every call drifts, one of them slower */
    const double slow_then_fast[] = { 2.0, 0.5, 0.5 };

    at_baseline_one(&d);
    ck_assert_int_eq(feed(&d, &defaults, fast, NEVER), CACORE_DRIFT_DRIFTING);
    ck_assert_int_eq(feed(&d, &defaults, mixed, NEVER), CACORE_DRIFT_RECALIBRATE);
    ck_assert(d.baseline_s == 1.0);   /* a recalibration decides again; no baseline moved here */
    /* A slower call first, faster ones after it, in the same streak: not faster only. */
    ck_assert_int_eq(feed(&d, &defaults, slow_then_fast, NEVER), CACORE_DRIFT_DRIFTING);
    ck_assert_int_eq(d.streak_faster, 0);
    ck_assert_int_eq(feed(&d, &defaults, fast, NEVER), CACORE_DRIFT_RECALIBRATE);
}
END_TEST

START_TEST(calm_call_breaks_the_streak)
{
    cacore_drift_t d;
    const double spiky[] = { 3.0, 3.0, 1.1 };   /* two slow calls, then a normal one */
    const double spiky2[] = { 3.0, 1.0, 3.0 };

    at_baseline_one(&d);
    ck_assert_int_eq(feed(&d, &defaults, spiky, NEVER), CACORE_DRIFT_STEADY);
    ck_assert_int_eq(feed(&d, &defaults, spiky2, NEVER), CACORE_DRIFT_DRIFTING);
    ck_assert_int_eq(d.streak, 1);
}
END_TEST

START_TEST(one_batch_of_contention_is_not_drift)
{
    cacore_drift_t d;
    /* A batch of 3 calls 3x slower (other processes took the ranks' cores), then a call at the
     * baseline's speed: the streak ends short of 6, whatever comes next. */
    const double contended[] = { 3.0, 2.9, 3.1 };
    const double over[] = { 1.05, 3.0, 3.0 };

    at_baseline_one(&d);
    for (int k = 0; k < 4; k++) {
        ck_assert_int_eq(feed(&d, &defaults, contended, NEVER), CACORE_DRIFT_DRIFTING);
        ck_assert_int_eq(feed(&d, &defaults, over, NEVER), CACORE_DRIFT_DRIFTING);
        ck_assert_int_eq(d.streak, 2);
    }
}
END_TEST

START_TEST(interval_holds_then_allows)
{
    cacore_drift_t d;
    const double slow[] = { 2.0, 2.0, 2.0 };

    at_baseline_one(&d);
    ck_assert_int_eq(feed(&d, &defaults, slow, 10.0), CACORE_DRIFT_DRIFTING);
    /* 10 s after the last recalibration, 60 s interval: held, the streak kept full. */
    ck_assert_int_eq(feed(&d, &defaults, slow, 10.0), CACORE_DRIFT_HELD);
    ck_assert_int_eq(d.streak, 6);
    ck_assert_int_eq(feed(&d, &defaults, slow, 59.9), CACORE_DRIFT_HELD);
    ck_assert_int_eq(feed(&d, &defaults, slow, 60.0), CACORE_DRIFT_RECALIBRATE);
}
END_TEST

START_TEST(threshold_zero_is_off)
{
    cacore_drift_t d;
    const cacore_drift_params_t off = { 0.0, 3, 60.0, 0 };
    const double t[] = { 1.0, 100.0, 1000.0 };

    cacore_drift_init(&d);
    for (int k = 0; k < 4; k++) {
        ck_assert_int_eq(feed(&d, &off, t, NEVER), CACORE_DRIFT_STEADY);
    }
    ck_assert(d.baseline_s == 0.0);
}
END_TEST

START_TEST(small_calls_not_watched)
{
    cacore_drift_params_t p = defaults;

    ck_assert_int_eq(cacore_drift_watches(&p, 65536), 1);
    ck_assert_int_eq(cacore_drift_watches(&p, 1 << 20), 1);
    ck_assert_int_eq(cacore_drift_watches(&p, 32768), 0);
    ck_assert_int_eq(cacore_drift_watches(&p, 8), 0);
    p.min_bytes = 0;
    ck_assert_int_eq(cacore_drift_watches(&p, 1), 1);
    p.threshold = 0.0;   /* off: nothing is watched */
    ck_assert_int_eq(cacore_drift_watches(&p, 1 << 20), 0);
    ck_assert_int_eq(cacore_drift_watches(NULL, 1 << 20), 0);
}
END_TEST

START_TEST(bad_input_is_refused)
{
    cacore_drift_t d;
    cacore_drift_verdict_t v;
    char err[256];
    const double ok[] = { 1, 1, 1 }, neg[] = { 1, -1, 1 }, nan[] = { 1, 0.0 / 0.0, 1 };
    cacore_drift_params_t p = defaults;

    cacore_drift_init(&d);
    ck_assert_int_eq(cacore_drift_observe(&d, &p, neg, NEVER, &v, err, sizeof err),
                     CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_drift_observe(&d, &p, nan, NEVER, &v, err, sizeof err),
                     CACORE_ERR_ARG);
    ck_assert(d.baseline_s == 0.0);   /* unchanged */
    p.calls = 0;
    ck_assert_int_eq(cacore_drift_check_params(&p, err, sizeof err), CACORE_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err, "calls must be 1..16"));
    p.calls = CACORE_DRIFT_MAX_CALLS + 1;
    ck_assert_int_eq(cacore_drift_observe(&d, &p, ok, NEVER, &v, err, sizeof err),
                     CACORE_ERR_ARG);
    p = defaults;
    p.threshold = -0.1;
    ck_assert_int_eq(cacore_drift_check_params(&p, err, sizeof err), CACORE_ERR_ARG);
    p = defaults;
    p.interval_s = 1.0 / 0.0;
    ck_assert_int_eq(cacore_drift_check_params(&p, err, sizeof err), CACORE_ERR_ARG);
    p = defaults;
    p.min_bytes = -1;
    ck_assert_int_eq(cacore_drift_check_params(&p, err, sizeof err), CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_drift_check_params(&defaults, err, sizeof err), CACORE_OK);
}
END_TEST

START_TEST(recalibration_takes_what_got_slower)
{
    double lat, bw;

    /* Read faster alone than in the first calibration's crowd: both old values stay. */
    lat = 1e-4, bw = 4e6;
    ck_assert_int_eq(cacore_drift_merge_pair(0.2, 2e-4, 1e6, &lat, &bw), 0);
    ck_assert(lat == 2e-4 && bw == 1e6);
    /* Within the threshold either way: the old values stay. */
    lat = 2.3e-4, bw = 0.85e6;
    ck_assert_int_eq(cacore_drift_merge_pair(0.2, 2e-4, 1e6, &lat, &bw), 0);
    ck_assert(lat == 2e-4 && bw == 1e6);
    /* A link 5x slower: its bandwidth is taken, its unchanged latency is not. */
    lat = 2.1e-4, bw = 0.2e6;
    ck_assert_int_eq(cacore_drift_merge_pair(0.2, 2e-4, 1e6, &lat, &bw), 1);
    ck_assert(lat == 2e-4 && bw == 0.2e6);
    /* A latency 3x higher is taken on its own. */
    lat = 6e-4, bw = 1.5e6;
    ck_assert_int_eq(cacore_drift_merge_pair(0.2, 2e-4, 1e6, &lat, &bw), 1);
    ck_assert(lat == 6e-4 && bw == 1e6);
    /* No usable old value: the measurement is taken. */
    lat = 1e-4, bw = 4e6;
    ck_assert_int_eq(cacore_drift_merge_pair(0.2, 0.0 / 0.0, 0.0, &lat, &bw), 1);
    ck_assert(lat == 1e-4 && bw == 4e6);
    ck_assert_int_eq(cacore_drift_merge_pair(0.2, 1e-4, 1e6, NULL, &bw), 0);
}
END_TEST

static double flat_lat(int i, int j, void *ctx)
{
    (void) i, (void) j, (void) ctx;
    return 1e-4;
}

static double flat_bw(int i, int j, void *ctx)
{
    (void) i, (void) j, (void) ctx;
    return 1e8;
}

START_TEST(plan_node_pairs)
{
    /* 4 nodes, 2 ranks each (rank r on node r / 2). A bcast from rank 0 must reach every node,
     * so its messages cross at least 3 node pairs, never a pair of a node with itself. */
    int rank_node[8];
    unsigned char pairs[16];
    cacore_matrix_t *m = tu_matrix(4, flat_lat, flat_bw, NULL);
    cacore_plan_t *p = NULL;
    char err[256];
    int n;

    for (int r = 0; r < 8; r++) {
        rank_node[r] = r / 2;
    }
    ck_assert_int_eq(cacore_plan_build(m, 8, rank_node, CACORE_COLL_BCAST, 0, 1 << 20, 1 << 18,
                                       NULL, &p, err, sizeof err), CACORE_OK);
    n = cacore_plan_node_pairs(p, 8, rank_node, 4, pairs);
    ck_assert_int_ge(n, 3);
    int set = 0;
    for (int a = 0; a < 4; a++) {
        ck_assert_int_eq(pairs[a * 4 + a], 0);
        for (int b = 0; b < 4; b++) {
            ck_assert_int_eq(pairs[a * 4 + b], pairs[b * 4 + a]);
            set += pairs[a * 4 + b];
        }
    }
    ck_assert_int_eq(set, 2 * n);
    /* Every node is touched by some pair (the data reaches it). */
    for (int a = 1; a < 4; a++) {
        int touched = 0;
        for (int b = 0; b < 4; b++) {
            touched |= pairs[a * 4 + b];
        }
        ck_assert_int_eq(touched, 1);
    }
    /* All ranks on one node: no pair at all. */
    int one_node[8] = { 0 };
    ck_assert_int_eq(cacore_plan_node_pairs(p, 8, one_node, 4, pairs), 0);
    /* A rank count other than the plan's, or a node out of range: refused. */
    ck_assert_int_eq(cacore_plan_node_pairs(p, 7, rank_node, 4, pairs), -1);
    rank_node[3] = 4;
    ck_assert_int_eq(cacore_plan_node_pairs(p, 8, rank_node, 4, pairs), -1);
    cacore_plan_free(p);
    cacore_matrix_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("drift");
    TCase *tc = tcase_create("drift");
    tcase_add_test(tc, baseline_then_steady);
    tcase_add_test(tc, streak_across_batches_triggers_once);
    tcase_add_test(tc, faster_moves_the_baseline);
    tcase_add_test(tc, faster_and_slower_streak_recalibrates);
    tcase_add_test(tc, calm_call_breaks_the_streak);
    tcase_add_test(tc, one_batch_of_contention_is_not_drift);
    tcase_add_test(tc, interval_holds_then_allows);
    tcase_add_test(tc, threshold_zero_is_off);
    tcase_add_test(tc, small_calls_not_watched);
    tcase_add_test(tc, bad_input_is_refused);
    tcase_add_test(tc, recalibration_takes_what_got_slower);
    tcase_add_test(tc, plan_node_pairs);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
