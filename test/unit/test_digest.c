/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Digests of parsed files: ranks compare them to agree that they read the same matrix and rules
 * (docs/calibration.md, "Ranks that read different files"). Equal content gives equal digests;
 * any change a lookup or the model would see gives a different one; no file is 0.
 */
#include "test_util.h"

static cacore_matrix_t *matrix2(const char *a, double lat, double bw)
{
    const char *hosts[2] = { a, "h2" };
    double L[4] = { 0, lat, lat, 0 }, B[4] = { 0, bw, bw, 0 };
    cacore_matrix_t *m = NULL;
    char err[256];
    ck_assert_msg(CACORE_OK == cacore_matrix_create(2, hosts, L, B, &m, err, sizeof err), "%s",
                  err);
    return m;
}

static cacore_rules_t *rules(const char *text)
{
    cacore_rules_t *r = NULL;
    char err[256];
    ck_assert_msg(CACORE_OK == cacore_rules_parse(text, "t.conf", &r, err, sizeof err), "%s", err);
    return r;
}

START_TEST(matrix_digest_follows_content)
{
    cacore_matrix_t *a = matrix2("h1", 1e-4, 1e9), *b = matrix2("h1", 1e-4, 1e9);
    cacore_matrix_t *lat = matrix2("h1", 2e-4, 1e9), *bw = matrix2("h1", 1e-4, 2e9);
    cacore_matrix_t *host = matrix2("h0", 1e-4, 1e9);

    ck_assert_uint_eq(cacore_matrix_digest(NULL), 0);
    ck_assert_uint_ne(cacore_matrix_digest(a), 0);
    ck_assert_uint_eq(cacore_matrix_digest(a), cacore_matrix_digest(b));
    ck_assert_uint_ne(cacore_matrix_digest(a), cacore_matrix_digest(lat));
    ck_assert_uint_ne(cacore_matrix_digest(a), cacore_matrix_digest(bw));
    ck_assert_uint_ne(cacore_matrix_digest(a), cacore_matrix_digest(host));
    cacore_matrix_free(a);
    cacore_matrix_free(b);
    cacore_matrix_free(lat);
    cacore_matrix_free(bw);
    cacore_matrix_free(host);
}
END_TEST

START_TEST(rules_digest_follows_what_lookups_return)
{
    const char *base = "cloudaware-rules 1\nbcast 2 1024 cool\n";
    cacore_rules_t *a = rules(base);
    /* A comment and blank lines move the rule to another line: same decisions, same digest. */
    cacore_rules_t *same = rules("cloudaware-rules 1\n# comment\n\nbcast 2 1024 cool\n");
    cacore_rules_t *bytes = rules("cloudaware-rules 1\nbcast 2 2048 cool\n");
    cacore_rules_t *choice = rules("cloudaware-rules 1\nbcast 2 1024 fallback\n");
    cacore_rules_t *more = rules("cloudaware-rules 1\nbcast 2 1024 cool\n"
                                 "reduce 2 0 model\n");

    ck_assert_uint_eq(cacore_rules_digest(NULL), 0);
    ck_assert_uint_ne(cacore_rules_digest(a), 0);
    ck_assert_uint_eq(cacore_rules_digest(a), cacore_rules_digest(same));
    ck_assert_uint_ne(cacore_rules_digest(a), cacore_rules_digest(bytes));
    ck_assert_uint_ne(cacore_rules_digest(a), cacore_rules_digest(choice));
    ck_assert_uint_ne(cacore_rules_digest(a), cacore_rules_digest(more));
    cacore_rules_free(a);
    cacore_rules_free(same);
    cacore_rules_free(bytes);
    cacore_rules_free(choice);
    cacore_rules_free(more);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("digest");
    TCase *tc = tcase_create("digest");
    tcase_add_test(tc, matrix_digest_follows_content);
    tcase_add_test(tc, rules_digest_follows_what_lookups_return);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
