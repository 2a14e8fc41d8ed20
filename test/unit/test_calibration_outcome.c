/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * test_calibration_outcome.c - what a calibration tells the user: the one-line cause rank 0 gives
 * every rank when a calibration fails (in the documented order of precedence), the budget a node
 * set gets, and the summary of a measured matrix.
 *
 * The job: three nodes a, b, c; ranks 0-1 on a, 2-3 on b, 4 on c; the leaders are ranks 0, 2, 4.
 */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NR 5
static const char *HOSTS[] = {"a", "b", "c"};
static const int LEADERS[] = {0, 2, 4};
static const int NODE_OF[NR] = {0, 0, 1, 1, 2};

static cacore_calib_inputs_t inputs(void)
{
    cacore_calib_inputs_t in = {
        .nranks = NR, .nnodes = 3, .hosts = HOSTS, .leaders = LEADERS, .budget_s = 2.0,
        .decide_slack_s = 0.5, .rank0_late = 0, .matrix_file = "/m.txt", .rules_file = NULL,
        .start_cause = NULL, .measured = 1,
    };
    return in;
}

/* Every rank reported, nothing failed, all read the same files. */
static void all_well(cacore_calib_report_t *rep)
{
    for (int r = 0; r < NR; r++) {
        cacore_calib_report_t one = { 1, NODE_OF[r], CACORE_FAIL_NONE, CACORE_MEAS_OK, -1, 7, 9 };
        rep[r] = one;
    }
}

static cacore_calib_verdict_t cause_of(const cacore_calib_inputs_t *in,
                                       const cacore_calib_report_t *rep, char *cause)
{
    return cacore_calib_failure_cause(in, rep, cause, 512);
}

START_TEST(a_good_calibration_stands)
{
    cacore_calib_inputs_t in = inputs();
    cacore_calib_report_t rep[NR];
    char cause[512] = "x";

    all_well(rep);
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_STANDS);
    ck_assert_str_eq(cause, "");
    /* Without a measurement the rows' statuses are not read. */
    rep[2].meas = CACORE_MEAS_TIMEOUT;
    in.measured = 0;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_STANDS);
}
END_TEST

START_TEST(missing_reports_name_a_leader_first)
{
    cacore_calib_inputs_t in = inputs();
    cacore_calib_report_t rep[NR];
    char cause[512];

    all_well(rep);
    rep[1].reported = 0;   /* a non-leader of a */
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_str_eq(cause, "rank 1 (node a) did not report within the time budget "
                            "(coll_cloudaware_calibrate_budget = 2 s + 0.5 s)");
    rep[4].reported = 0;   /* and the leader of c: named first */
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_str_eq(cause, "rank 4 (the leader of node c) and others did not report within "
                            "the time budget (coll_cloudaware_calibrate_budget = 2 s + 0.5 s)");
}
END_TEST

START_TEST(precedence_late_root_then_local_then_files_then_start)
{
    cacore_calib_inputs_t in = inputs();
    cacore_calib_report_t rep[NR];
    char cause[512];

    all_well(rep);
    rep[3].local = CACORE_FAIL_START_RECV;
    rep[2].matrix_digest = 8;
    in.start_cause = "the cache said no";
    in.rank0_late = 1;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_ptr_nonnull(strstr(cause, "rank 0 (node a) itself reached the decision after"));
    in.rank0_late = 0;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_str_eq(cause, "rank 3 (node b): could not receive rank 0's start message");
    rep[3].local = CACORE_FAIL_NONE;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_str_eq(cause, "ranks read different coll_cloudaware_matrix_file content (/m.txt; "
                            "rank 0 and rank 2 on node b differ)");
    rep[2].matrix_digest = 7;
    rep[4].rules_digest = 1;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_ptr_nonnull(strstr(cause, "coll_cloudaware_rules_file content (; rank 0 and rank 4"));
    rep[4].rules_digest = 9;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_START_FAILED);
    ck_assert_str_eq(cause, "the cache said no");
}
END_TEST

START_TEST(quoted_input_is_escaped)
{
    cacore_calib_inputs_t in = inputs();
    cacore_calib_report_t rep[NR];
    const char *hosts[] = {"a", "b\nFAKE LOG LINE", "c"};
    char cause[512];

    all_well(rep);
    in.hosts = hosts;
    in.matrix_file = "/tmp/m\x1b[31m";
    rep[2].matrix_digest = 8;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_ptr_null(strchr(cause, '\n'));
    ck_assert_ptr_null(strchr(cause, '\x1b'));
    ck_assert_ptr_nonnull(strstr(cause, "/tmp/m\\x1b[31m"));
    ck_assert_ptr_nonnull(strstr(cause, "node b\\nFAKE LOG LINE differ"));
}
END_TEST

START_TEST(measurement_causes)
{
    cacore_calib_inputs_t in = inputs();
    cacore_calib_report_t rep[NR];
    char cause[512];

    all_well(rep);
    /* Two leaders timed out waiting for node c's leader, one for a's: c is named. */
    rep[0].meas = CACORE_MEAS_TIMEOUT;
    rep[0].peer = 2;
    rep[2].meas = CACORE_MEAS_TIMEOUT;
    rep[2].peer = 2;
    rep[4].meas = CACORE_MEAS_TIMEOUT;
    rep[4].peer = 0;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_str_eq(cause, "the time budget (coll_cloudaware_calibrate_budget = 2 s) ran out "
                            "waiting for the leader of node c (rank 4)");
    /* A point-to-point error outranks timeouts... */
    rep[2].meas = CACORE_MEAS_ERROR;
    rep[2].peer = 0;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_str_eq(cause, "point-to-point error on node b talking to node a");
    /* ... and a leader that started late outranks both. */
    rep[4].meas = CACORE_MEAS_LATE;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_ptr_nonnull(strstr(cause, "the leader of node c (rank 4) started measuring after"));
    /* A timeout without a known peer still gives a cause; a peer out of range says "?". */
    all_well(rep);
    rep[2].meas = CACORE_MEAS_TIMEOUT;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_str_eq(cause, "the time budget (coll_cloudaware_calibrate_budget = 2 s) ran out");
    rep[2].meas = CACORE_MEAS_ERROR;
    rep[2].peer = 17;
    ck_assert_int_eq(cause_of(&in, rep, cause), CACORE_CALIB_FAILS);
    ck_assert_str_eq(cause, "point-to-point error on node b talking to node ?");
}
END_TEST

/* The budget is coll_cloudaware_calibrate_budget up to 8 nodes (7 tournament rounds) and grows
 * with the rounds beyond; a cause on a larger node set says both. */
START_TEST(budget_grows_with_the_rounds)
{
    for (int n = 1; n <= 8; n++) {
        ck_assert(cacore_calib_budget(120.0, n) == 120.0);
    }
    ck_assert(fabs(cacore_calib_budget(120.0, 9) - 120.0 * 9 / 7) < 1e-9);    /* 9 rounds */
    ck_assert(fabs(cacore_calib_budget(120.0, 16) - 120.0 * 15 / 7) < 1e-9);  /* 15 rounds */
    ck_assert(fabs(cacore_calib_budget(2.0, 12) - 2.0 * 11 / 7) < 1e-9);
    enum { N16 = 16 };
    const char *hosts[N16];
    int leaders[N16];
    cacore_calib_report_t rep[N16];
    char names[N16][4];
    for (int i = 0; i < N16; i++) {
        snprintf(names[i], sizeof(names[i]), "h%d", i);
        hosts[i] = names[i];
        leaders[i] = i;
        cacore_calib_report_t one = { 1, i, CACORE_FAIL_NONE, CACORE_MEAS_OK, -1, 7, 9 };
        rep[i] = one;
    }
    cacore_calib_inputs_t in = inputs();
    in.nranks = in.nnodes = N16;
    in.hosts = hosts;
    in.leaders = leaders;
    char cause[256];
    rep[3].meas = CACORE_MEAS_TIMEOUT;
    ck_assert_int_eq(cacore_calib_failure_cause(&in, rep, cause, sizeof(cause)),
                     CACORE_CALIB_FAILS);
    ck_assert_str_eq(cause, "the time budget (coll_cloudaware_calibrate_budget = 2 s, 4.28571 s "
                            "for 16 nodes) ran out");
}
END_TEST

START_TEST(bad_arguments_fail_with_a_message)
{
    cacore_calib_inputs_t in = inputs();
    char cause[64];

    ck_assert_int_eq(cacore_calib_failure_cause(&in, NULL, cause, sizeof(cause)),
                     CACORE_CALIB_FAILS);
    ck_assert_ptr_nonnull(strstr(cause, "invalid argument"));
}
END_TEST

START_TEST(fail_point_names_and_causes)
{
    ck_assert_str_eq(cacore_fail_point_name(CACORE_FAIL_START_ALLOC), "start-alloc");
    ck_assert_str_eq(cacore_fail_point_name(CACORE_FAIL_START_RECV), "start-recv");
    ck_assert_str_eq(cacore_fail_point_name(CACORE_FAIL_ALLOC), "alloc");
    ck_assert_str_eq(cacore_fail_point_name(CACORE_FAIL_MEASURE), "measure");
    ck_assert_str_eq(cacore_fail_point_name(CACORE_FAIL_REPORT), "report");
    ck_assert_str_eq(cacore_fail_point_name(CACORE_FAIL_NONE), "none");
    ck_assert_str_eq(cacore_fail_point_name(99), "none");
    ck_assert_str_eq(cacore_fail_point_cause(CACORE_FAIL_MEASURE),
                     "out of memory for its measurement buffers");
    ck_assert_str_eq(cacore_fail_point_cause(CACORE_FAIL_ALLOC), "out of memory");
}
END_TEST

START_TEST(summary_statistics)
{
    /* latency (us) and bandwidth (MB/s), row = sender; a->b vs b->a differ by 50 %, the other
     * two pairs by 5 % and 0 %. */
    const double L[9] = {0, 10e-6, 30e-6, 20e-6, 0, 50e-6, 40e-6, 60e-6, 0};
    const double B[9] = {0, 100e6, 300e6, 200e6, 0, 500e6, 315e6, 500e6, 0};
    cacore_calib_summary_t s = cacore_calib_summarize(3, L, B);

    ck_assert_uint_eq(s.pairs, 3);
    ck_assert_uint_eq(s.asymmetric, 1);
    ck_assert_double_eq_tol(s.latency_min_s, 10e-6, 1e-12);
    ck_assert_double_eq_tol(s.latency_median_s, 35e-6, 1e-12);   /* of 10 20 30 40 50 60 */
    ck_assert_double_eq_tol(s.latency_max_s, 60e-6, 1e-12);
    ck_assert_double_eq_tol(s.bandwidth_min_Bps, 100e6, 1e-3);
    ck_assert_double_eq_tol(s.bandwidth_median_Bps, 307.5e6, 1e-3);
    ck_assert_double_eq_tol(s.bandwidth_max_Bps, 500e6, 1e-3);
    s = cacore_calib_summarize(1, L, B);
    ck_assert_uint_eq(s.pairs, 0);
    ck_assert_double_eq(s.latency_max_s, 0.0);
}
END_TEST

/* The exchange tree: every rank but 0 has exactly one parent, which lists it as a child; a
 * subtree is its root and its children's subtrees, contiguous; nobody talks to more than
 * log2(nranks) + 1 ranks; reports go up and the verdict down with time to spare at every hop. */
START_TEST(exchange_tree)
{
    cacore_calib_tree_t t, c;

    for (int n = 1; n <= 70; n++) {
        int height = 0, parents = 0;
        double deepest = 0.5;
        while ((1 << height) < n) {   /* ceil(log2(n)): at most that many peers beyond one */
            height++;
        }
        for (int r = 0; r < n; r++) {
            ck_assert_int_eq(cacore_calib_tree(n, r, &t), CACORE_OK);
            ck_assert_int_le(t.nchildren + (r > 0), height + 1);
            ck_assert_int_eq(t.parent, r == 0 ? -1 : (r & (r - 1)));
            ck_assert(t.end > r && t.end <= n);
            if (r == 0) {
                ck_assert_int_eq(t.end, n);
                ck_assert_double_eq(t.report_by, 0.5);
                ck_assert_double_eq(t.verdict_by, 0.5);
            }
            if (t.nchildren == 0 && r > 0) {
                ck_assert_int_eq(t.end, r + 1);
                ck_assert_double_eq(t.report_by, 0.0);
            }
            int next = r + 1;   /* the children's subtrees tile (r, end) in order */
            for (int i = t.nchildren - 1; i >= 0; i--) {
                ck_assert_int_eq(cacore_calib_tree(n, t.children[i], &c), CACORE_OK);
                ck_assert_int_eq(c.parent, r);
                ck_assert(c.report_by < t.report_by);
                ck_assert(c.verdict_by > t.verdict_by);
            }
            for (int i = 0; i < t.nchildren; i++) {
                ck_assert_int_eq(cacore_calib_tree(n, t.children[i], &c), CACORE_OK);
                ck_assert_int_eq(t.children[i], next);
                next = c.end;
                parents++;
            }
            ck_assert_int_eq(next, t.end);
            deepest = t.verdict_by > deepest ? t.verdict_by : deepest;
        }
        ck_assert_int_eq(parents, n - 1);
        ck_assert_double_eq(deepest, n > 1 ? 1.0 : 0.5);
    }
    /* 16 ranks: rank 0's children are 1, 2, 4, 8; rank 8 relays for 9-15 */
    ck_assert_int_eq(cacore_calib_tree(16, 0, &t), CACORE_OK);
    ck_assert_int_eq(t.nchildren, 4);
    ck_assert_int_eq(t.children[3], 8);
    ck_assert_int_eq(cacore_calib_tree(16, 8, &t), CACORE_OK);
    ck_assert_int_eq(t.end, 16);
    ck_assert_int_eq(t.nchildren, 3);
    ck_assert_double_eq(t.report_by, 0.375);
    ck_assert_double_eq(t.verdict_by, 0.625);
    ck_assert_int_eq(cacore_calib_tree(16, 16, &t), CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_calib_tree(16, -1, &t), CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_calib_tree(4, 0, NULL), CACORE_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("calibration_outcome");
    TCase *tc = tcase_create("calibration_outcome");
    tcase_add_test(tc, a_good_calibration_stands);
    tcase_add_test(tc, missing_reports_name_a_leader_first);
    tcase_add_test(tc, precedence_late_root_then_local_then_files_then_start);
    tcase_add_test(tc, quoted_input_is_escaped);
    tcase_add_test(tc, measurement_causes);
    tcase_add_test(tc, budget_grows_with_the_rounds);
    tcase_add_test(tc, bad_arguments_fail_with_a_message);
    tcase_add_test(tc, fail_point_names_and_causes);
    tcase_add_test(tc, summary_statistics);
    tcase_add_test(tc, exchange_tree);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
