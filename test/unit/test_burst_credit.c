/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * test_burst_credit.c - the judgement of calibration's burst credit probes (docs/calibration.md,
 * "Burst credit"): a probe passes below half its time at the pair's rate, a size is sent at most
 * twice, and one missed twice leads to the next size when it was partly a burst, else the probes
 * stop. The sequences are the lab's (sixty-sixth session), as coll_cloudaware_tournament.c's
 * burst_probe runs them: each probe's time over its time at the rate. */
#include "test_util.h"

#include <math.h>

/* The credit (bytes) and the number of probes sent for probes of 16 KiB << i (i < sizes) whose
 * successive tries took share[k] of their time at the rate, as burst_probe sends them. */
static size_t run(const double *share, int n, int sizes, int *sent)
{
    cacore_burst_state_t st = {0, 0, 0, 0, 0.0};
    int k = 0;

    for (; k < n && !st.stopped && st.size < sizes; k++) {
        const double at_rate = 2e-3 * (double) (1 << st.size);
        cacore_burst_judge(&st, share[k] * at_rate, at_rate);
    }
    *sent = k;
    return st.passed ? (size_t) 16384 << (st.passed - 1) : 0;
}

START_TEST(passes_below_half_its_time_at_the_rate)
{
    cacore_burst_state_t st = {0, 0, 0, 0, 0.0};

    ck_assert_int_eq(cacore_burst_judge(&st, 0.4e-3, 2e-3), CACORE_BURST_PASSED);
    ck_assert_int_eq(st.size, 1);
    ck_assert_int_eq(st.passed, 1);
    ck_assert_int_eq(cacore_burst_judge(&st, 0.999e-3, 2e-3), CACORE_BURST_PASSED);
    ck_assert_int_eq(cacore_burst_judge(&st, 1e-3, 2e-3), CACORE_BURST_AGAIN);   /* half: a miss */
    ck_assert_int_eq(st.missed, 1);
    ck_assert_int_eq(st.size, 2);
    ck_assert_int_eq(st.passed, 2);
    /* A pass after a miss (a stall) forgets the miss. */
    ck_assert_int_eq(cacore_burst_judge(&st, 0.2e-3, 2e-3), CACORE_BURST_PASSED);
    ck_assert_int_eq(st.missed, 0);
    ck_assert_int_eq(st.passed, 3);
    ck_assert_int_eq(cacore_burst_judge(&st, 0.0, 2e-3), CACORE_BURST_PASSED);
    ck_assert_int_eq(st.stopped, 0);
}
END_TEST

START_TEST(missed_twice_stops_or_goes_larger)
{
    cacore_burst_state_t st = {0, 0, 0, 0, 0.0};

    /* At the rate twice (cloud-16's cross-rack h4 -> h0: 1.05, 0.88): the probes stop. */
    ck_assert_int_eq(cacore_burst_judge(&st, 1.05, 1.0), CACORE_BURST_AGAIN);
    ck_assert_int_eq(cacore_burst_judge(&st, 0.88, 1.0), CACORE_BURST_STOP);
    ck_assert_int_eq(st.stopped, 1);
    ck_assert_int_eq(st.size, 0);
    ck_assert_int_eq(st.passed, 0);
    st = (cacore_burst_state_t){0, 0, 0, 0, 0.0};
    /* Partly a burst twice (racks-8's 16 KiB at 0.61, 0.56): the next size, nothing passed. */
    ck_assert_int_eq(cacore_burst_judge(&st, 0.61, 1.0), CACORE_BURST_AGAIN);
    ck_assert_int_eq(cacore_burst_judge(&st, 0.56, 1.0), CACORE_BURST_LARGER);
    ck_assert_int_eq(st.size, 1);
    ck_assert_int_eq(st.missed, 0);
    ck_assert_int_eq(st.passed, 0);
    /* The faster try counts, in either order: a stall and a partial burst. */
    ck_assert_int_eq(cacore_burst_judge(&st, 1.5, 1.0), CACORE_BURST_AGAIN);
    ck_assert_int_eq(cacore_burst_judge(&st, 0.6, 1.0), CACORE_BURST_LARGER);
    ck_assert_int_eq(cacore_burst_judge(&st, 0.6, 1.0), CACORE_BURST_AGAIN);
    ck_assert_int_eq(cacore_burst_judge(&st, 1.5, 1.0), CACORE_BURST_LARGER);
    /* 0.8 of the rate time is not partial. */
    ck_assert_int_eq(cacore_burst_judge(&st, 0.8, 1.0), CACORE_BURST_AGAIN);
    ck_assert_int_eq(cacore_burst_judge(&st, 0.9, 1.0), CACORE_BURST_STOP);
}
END_TEST

START_TEST(lab_sequences)
{
    int sent;
    /* The lab's usual node: 16 and 32 KiB pass, 64 KiB twice at the rate: 32 KiB in 4 probes. */
    const double usual[] = {0.2, 0.1, 1.03, 1.02, 0.1, 0.1};
    ck_assert_uint_eq(run(usual, 6, 4, &sent), 32768);
    ck_assert_int_eq(sent, 4);
    /* racks-8, node 7 (this session): 16 KiB partly a burst twice, then 32 KiB passes. Before
     * the rule, the second miss ended the probes: credit 0. */
    const double racks[] = {0.61, 0.56, 0.28, 1.14, 1.10};
    ck_assert_uint_eq(run(racks, 5, 4, &sent), 32768);
    ck_assert_int_eq(sent, 5);
    /* A stall at each size still reaches 32 KiB (before: one retry in all, 16 KiB). */
    const double stalls[] = {2.24, 0.36, 0.97, 0.13, 1.06, 1.12};
    ck_assert_uint_eq(run(stalls, 6, 4, &sent), 32768);
    ck_assert_int_eq(sent, 6);
    /* A path without credit (an ingress-capped host): two probes, credit 0. */
    const double none[] = {0.93, 0.93, 0.2, 0.2};
    ck_assert_uint_eq(run(none, 4, 4, &sent), 0);
    ck_assert_int_eq(sent, 2);
    /* At most twice per size: the largest of 4 sizes, each partly a burst, takes 8 probes
     * (CLOUDAWARE_BURST_PROBES). */
    const double partial[] = {0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.1};
    ck_assert_uint_eq(run(partial, 9, 4, &sent), 0);
    ck_assert_int_eq(sent, 8);
}
END_TEST

START_TEST(bad_input_is_a_miss_at_the_rate)
{
    cacore_burst_state_t st = {0, 0, 0, 0, 0.0};

    ck_assert_int_eq(cacore_burst_judge(&st, NAN, 1.0), CACORE_BURST_AGAIN);
    ck_assert_int_eq(cacore_burst_judge(&st, -1.0, 1.0), CACORE_BURST_STOP);
    /* Once stopped, a probe judged anyway changes nothing. */
    ck_assert_int_eq(cacore_burst_judge(&st, 0.1, 1.0), CACORE_BURST_STOP);
    ck_assert_int_eq(st.passed, 0);
    ck_assert_int_eq(st.size, 0);
    st = (cacore_burst_state_t){0, 0, 0, 0, 0.0};
    ck_assert_int_eq(cacore_burst_judge(&st, 0.1, 0.0), CACORE_BURST_AGAIN);
    ck_assert_int_eq(cacore_burst_judge(&st, 0.1, INFINITY), CACORE_BURST_STOP);
    ck_assert_int_eq(cacore_burst_judge(NULL, 0.1, 1.0), CACORE_BURST_STOP);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("burst_credit");
    TCase *tc = tcase_create("burst_credit");
    tcase_add_test(tc, passes_below_half_its_time_at_the_rate);
    tcase_add_test(tc, missed_twice_stops_or_goes_larger);
    tcase_add_test(tc, lab_sequences);
    tcase_add_test(tc, bad_input_is_a_miss_at_the_rate);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
