/*
 * Rules file: the documented example parses and selects what docs/rules-format.md says it does;
 * every kind of mistake is rejected with the file, the line and the problem.
 */
#include "test_util.h"

static cacore_rules_t *parse_ok(const char *text)
{
    cacore_rules_t *r = NULL;
    char err[256];
    cacore_status_t st = cacore_rules_parse(text, "t.conf", &r, err, sizeof err);
    ck_assert_msg(st == CACORE_OK, "parse failed: %s", err);
    return r;
}

/* The example the docs show: the most specific rule wins. */
START_TEST(documented_example_selects_most_specific)
{
    cacore_rules_t *r = NULL;
    cacore_rule_t a;
    char err[256];
    cacore_status_t st = cacore_rules_read_file(CACORE_TOP_SRCDIR "/docs/examples/rules.conf", &r,
                                                err, sizeof err);
    ck_assert_msg(st == CACORE_OK, "%s", err);
    ck_assert_int_eq(cacore_rules_count(r), 6);

    /* Small bcast: binomial at every level. */
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_BCAST, 8, 1024, &a), 1);
    ck_assert_int_eq(a.choice, CACORE_RULE_PLAN);
    ck_assert_int_eq(a.algo, CACORE_ALGO_COOL);
    ck_assert_int_eq(a.pattern[2], CACORE_PAT_BINOMIAL);
    ck_assert_int_eq((int) a.segment_bytes, 0);
    /* From 256 KiB: dual trees on top, 64 KiB segments. */
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_BCAST, 8, 256 * 1024, &a), 1);
    ck_assert_int_eq(a.pattern[1], CACORE_PAT_CHAIN);
    ck_assert_int_eq(a.pattern[2], CACORE_PAT_DUALTREE);
    ck_assert_int_eq((int) a.segment_bytes, 65536);
    /* One node: the bcast rules need 2, so '*' applies: the model decides. */
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_BCAST, 1, 1 << 20, &a), 1);
    ck_assert_int_eq(a.choice, CACORE_RULE_MODEL);
    /* Gather: the tree. */
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_GATHER, 4, 10, &a), 1);
    ck_assert_int_eq(a.algo, CACORE_ALGO_TREE);
    /* Allreduce: model below 64 nodes, previous module from 64 on. */
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_ALLREDUCE, 63, 1 << 20, &a), 1);
    ck_assert_int_eq(a.choice, CACORE_RULE_MODEL);
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_ALLREDUCE, 64, 1, &a), 1);
    ck_assert_int_eq(a.choice, CACORE_RULE_FALLBACK);
    ck_assert_int_eq(a.line, 14);
    cacore_rules_free(r);
}
END_TEST

START_TEST(no_rule_applies_and_specificity)
{
    cacore_rule_t a;
    cacore_rules_t *r = parse_ok("cloudaware-rules 1\n"
                                 "reduce 4 1K fallback\n"
                                 "*      4 1K ring\n"
                                 "*      2 1K binomial\n");
    /* Below both thresholds: nothing applies. */
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_REDUCE, 1, 1 << 20, &a), 0);
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_REDUCE, 4, 1023, &a), 0);
    /* The named collective beats '*'. */
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_REDUCE, 4, 1024, &a), 1);
    ck_assert_int_eq(a.choice, CACORE_RULE_FALLBACK);
    /* Between two '*' rules, the larger min-nodes wins where both apply. */
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_BCAST, 4, 1024, &a), 1);
    ck_assert_int_eq(a.algo, CACORE_ALGO_RING);
    ck_assert_int_eq(a.line, 3);
    ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_BCAST, 3, 1024, &a), 1);
    ck_assert_int_eq(a.algo, CACORE_ALGO_BINOMIAL);
    cacore_rules_free(r);
}
END_TEST

/* Each bad file, and the message it must produce (file:line: problem). */
static const struct {
    const char *text;
    const char *message;
} bad[] = {
    {"", "t.conf:0: unexpected end of file"},
    {"cloudaware-rules 2\n", "t.conf:1: expected 'cloudaware-rules 1'"},
    {"cloudaware-rules 1\nbcast 2 0\n", "t.conf:2: a rule is"},
    {"cloudaware-rules 1\n# c\nbcst 2 0 model\n", "t.conf:3: unknown collective 'bcst'"},
    {"cloudaware-rules 1\nbcast 0 0 model\n", "t.conf:2: min-nodes must be"},
    {"cloudaware-rules 1\nbcast -2 0 model\n", "t.conf:2: min-nodes '-2' is not"},
    {"cloudaware-rules 1\nbcast 2 12Q model\n", "t.conf:2: min-bytes '12Q' is not"},
    {"cloudaware-rules 1\nbcast 2 99999999999999999999 model\n", "t.conf:2: min-bytes"},
    {"cloudaware-rules 1\nbcast 2 0 fastest\n", "t.conf:2: unknown choice 'fastest'"},
    {"cloudaware-rules 1\nbcast 2 0 cool top=fast\n", "t.conf:2: unknown pattern 'fast'"},
    {"cloudaware-rules 1\nbcast 2 0 cool speed=3\n", "t.conf:2: unknown option 'speed'"},
    {"cloudaware-rules 1\nbcast 2 0 cool top\n", "t.conf:2: option 'top' is not key=value"},
    {"cloudaware-rules 1\nbcast 2 0 cool segment=0\n", "t.conf:2: segment must be > 0"},
    {"cloudaware-rules 1\nbcast 2 0 fallback top=ring\n", "t.conf:2: 'fallback' takes no"},
    {"cloudaware-rules 1\nbcast 2 1K model\nbcast 2 1024 tree\n",
     "t.conf:3: same collective, min-nodes and min-bytes as line 2"},
};

START_TEST(bad_files_name_line_and_problem)
{
    cacore_rules_t *r = NULL;
    char err[256];
    cacore_status_t st = cacore_rules_parse(bad[_i].text, "t.conf", &r, err, sizeof err);
    ck_assert_int_eq(st, CACORE_ERR_FORMAT);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(err, bad[_i].message) == err, "case %d: got '%s', want '%s...'", _i, err,
                  bad[_i].message);
}
END_TEST

/* The parser reads the core's name tables (the ones the MCA enums and cloudaware-plan use):
 * every collective, algorithm and pattern name there is accepted and means its enum value. */
START_TEST(every_name_of_the_core_tables_parses)
{
    char text[256];
    cacore_rule_t a;

    for (int c = 0; NULL != cacore_coll_name(c); c++) {
        for (int al = 0; NULL != cacore_algo_name(al); al++) {
            snprintf(text, sizeof text, "cloudaware-rules 1\n%s 1 0 %s\n", cacore_coll_name(c),
                     cacore_algo_name(al));
            cacore_rules_t *r = parse_ok(text);
            ck_assert_int_eq(cacore_rules_lookup(r, (cacore_coll_t) c, 1, 0, &a), 1);
            ck_assert_int_eq(a.choice, CACORE_RULE_PLAN);
            ck_assert_int_eq(a.algo, al);
            cacore_rules_free(r);
        }
    }
    for (int p = 1; NULL != cacore_pattern_name(p); p++) {
        for (int l = 0; NULL != cacore_level_name(l); l++) {
            snprintf(text, sizeof text, "cloudaware-rules 1\nbcast 1 0 cool %s=%s\n",
                     cacore_level_name(l), cacore_pattern_name(p));
            cacore_rules_t *r = parse_ok(text);
            ck_assert_int_eq(cacore_rules_lookup(r, CACORE_COLL_BCAST, 1, 0, &a), 1);
            ck_assert_int_eq(a.pattern[l], p);
            cacore_rules_free(r);
        }
    }
    ck_assert_ptr_null(cacore_coll_name(CACORE_COLL_COUNT));
    ck_assert_ptr_null(cacore_algo_name(CACORE_ALGO_COUNT));
    ck_assert_ptr_null(cacore_pattern_name(CACORE_PAT_COUNT));
    ck_assert_ptr_null(cacore_level_name(CACORE_PLAN_LEVELS));
    ck_assert_str_eq(cacore_coll_name(CACORE_COLL_ALLGATHER), "allgather");
    ck_assert_str_eq(cacore_algo_name(CACORE_ALGO_LINEAR), "linear");
    ck_assert_str_eq(cacore_pattern_name(CACORE_PAT_DUALTREE), "dualtree");
}
END_TEST

START_TEST(missing_file_and_null_arguments)
{
    cacore_rules_t *r = NULL;
    char err[256];
    ck_assert_int_eq(cacore_rules_read_file("/nonexistent/rules.conf", &r, err, sizeof err),
                     CACORE_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/rules.conf: cannot open"));
    ck_assert_int_eq(cacore_rules_parse(NULL, "x", &r, err, sizeof err), CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_rules_lookup(NULL, CACORE_COLL_BCAST, 2, 0, NULL), 0);
    ck_assert_int_eq(cacore_rules_count(NULL), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rules");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, documented_example_selects_most_specific);
    tcase_add_test(tc, no_rule_applies_and_specificity);
    tcase_add_loop_test(tc, bad_files_name_line_and_problem, 0, (int) (sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, every_name_of_the_core_tables_parses);
    tcase_add_test(tc, missing_file_and_null_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
