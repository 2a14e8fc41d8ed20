/* test_matrix_io.c - the matrix file format: the documented example parses, round trips are
 * exact, and every kind of malformed file is rejected with "FILE:LINE: problem". */
#include "test_util.h"

#include <math.h>
#include <sys/stat.h>

static const char *GOOD =
    "# a comment\n"
    "cloudaware-matrix 1\n"
    "nodes 2\n"
    "host a\n"
    "host b   # trailing comment\n"
    "\n"
    "latency_s\n"
    "0 5e-05\n"
    "6e-05 0\n"
    "bandwidth_Bps\n"
    "0 1.25e+08\n"
    "2.5e7 0\n"
    "end\n";

/* Reads text and expects failure with status st and a message containing FILE:LINE and want. */
static void expect_error(const char *text, cacore_status_t st, int line, const char *want)
{
    const char *path = tu_write_temp(text);
    cacore_matrix_t *m = NULL;
    char err[512];
    cacore_status_t got = cacore_matrix_read_file(path, &m, err, sizeof err);
    ck_assert_msg(got == st, "status %d, expected %d (%s)", got, st, err);
    ck_assert_ptr_null(m);
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "'%s' does not start with '%s'",
                  err, prefix);
    ck_assert_msg(strstr(err, want) != NULL, "'%s' does not mention '%s'", err, want);
    ck_assert_msg(strchr(err, '\n') == NULL, "message is not one line: '%s'", err);
    unlink(path);
}

/* GOOD with one line (1-based) replaced (or removed when repl is NULL). */
static char *good_with_line(int lineno, const char *repl)
{
    static char buf[4096];
    buf[0] = '\0';
    const char *p = GOOD;
    int n = 1;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = (size_t)(e - p) + 1;
        if (n == lineno) {
            if (repl) {
                strcat(buf, repl);
                strcat(buf, "\n");
            }
        } else {
            strncat(buf, p, len);
        }
        p += len;
        ++n;
    }
    return buf;
}

START_TEST(good_file_parses)
{
    const char *path = tu_write_temp(GOOD);
    cacore_matrix_t *m = NULL;
    char err[256];
    ck_assert_int_eq(cacore_matrix_read_file(path, &m, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_matrix_nodes(m), 2);
    ck_assert_str_eq(cacore_matrix_host(m, 0), "a");
    ck_assert_str_eq(cacore_matrix_host(m, 1), "b");
    ck_assert_double_eq(cacore_matrix_latency(m, 0, 1), 5e-05);
    ck_assert_double_eq(cacore_matrix_latency(m, 1, 0), 6e-05);
    ck_assert_double_eq(cacore_matrix_bandwidth(m, 0, 1), 1.25e8);
    ck_assert_double_eq(cacore_matrix_bandwidth(m, 1, 0), 2.5e7);
    ck_assert_int_eq(cacore_matrix_find_host(m, "b"), 1);
    ck_assert_int_eq(cacore_matrix_find_host(m, "zz"), -1);
    cacore_matrix_free(m);
    unlink(path);
}
END_TEST

/* The example in docs/matrix-format.md is a valid file (so the document cannot drift). */
START_TEST(documented_example_parses)
{
    char docpath[1024];
    snprintf(docpath, sizeof docpath, "%s/docs/matrix-format.md", CACORE_TOP_SRCDIR);
    FILE *f = fopen(docpath, "r");
    ck_assert_msg(f != NULL, "cannot open %s", docpath);
    static char text[65536], block[65536];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    const char *start = strstr(text, "```\n");
    ck_assert_ptr_nonnull(start);
    start += 4;
    const char *end = strstr(start, "```");
    ck_assert_ptr_nonnull(end);
    memcpy(block, start, (size_t)(end - start));
    block[end - start] = '\0';
    const char *path = tu_write_temp(block);
    cacore_matrix_t *m = NULL;
    char err[256];
    ck_assert_msg(cacore_matrix_read_file(path, &m, err, sizeof err) == CACORE_OK, "%s", err);
    ck_assert_int_eq(cacore_matrix_nodes(m), 3);
    ck_assert_double_eq(cacore_matrix_bandwidth(m, 2, 0), 2.0e7);
    cacore_matrix_free(m);
    unlink(path);
}
END_TEST

START_TEST(round_trip_is_exact_and_private)
{
    const char *path = tu_write_temp(GOOD);
    cacore_matrix_t *m = NULL, *m2 = NULL;
    char err[256];
    ck_assert_int_eq(cacore_matrix_read_file(path, &m, err, sizeof err), CACORE_OK);
    char out[64];
    snprintf(out, sizeof out, "%s.out", path);
    ck_assert_msg(cacore_matrix_write_file(m, out, err, sizeof err) == CACORE_OK, "%s", err);
    struct stat st;
    ck_assert_int_eq(stat(out, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
    ck_assert_msg(cacore_matrix_read_file(out, &m2, err, sizeof err) == CACORE_OK, "%s", err);
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
            ck_assert_double_eq(cacore_matrix_latency(m, i, j), cacore_matrix_latency(m2, i, j));
            ck_assert_double_eq(cacore_matrix_bandwidth(m, i, j),
                                cacore_matrix_bandwidth(m2, i, j));
        }
    }
    /* writing into a missing directory fails cleanly */
    ck_assert_int_eq(cacore_matrix_write_file(m, "/nonexistent-dir/x", err, sizeof err),
                     CACORE_ERR_IO);
    cacore_matrix_free(m);
    cacore_matrix_free(m2);
    unlink(path);
    unlink(out);
}
END_TEST

START_TEST(malformed_files_are_rejected)
{
    expect_error("", CACORE_ERR_FORMAT, 0, "unexpected end of file");
    expect_error("hello 1\n", CACORE_ERR_FORMAT, 1, "not a matrix file");
    expect_error(good_with_line(2, "cloudaware-matrix 2"), CACORE_ERR_FORMAT, 2, "version");
    expect_error(good_with_line(3, "nodes 0"), CACORE_ERR_FORMAT, 3, "out of range");
    expect_error(good_with_line(3, "nodes -4"), CACORE_ERR_FORMAT, 3, "out of range");
    expect_error(good_with_line(3, "nodes 99999999"), CACORE_ERR_FORMAT, 3, "out of range");
    expect_error(good_with_line(3, "nodes 1e3"), CACORE_ERR_FORMAT, 3, "node count");
    expect_error(good_with_line(3, "nodes 3"), CACORE_ERR_FORMAT, 7, "host");  /* wrong count */
    expect_error(good_with_line(3, "nodes 1"), CACORE_ERR_FORMAT, 5, "latency_s");
    expect_error(good_with_line(5, "host a"), CACORE_ERR_FORMAT, 5, "duplicate host");
    expect_error(good_with_line(5, "host b c"), CACORE_ERR_FORMAT, 5, "exactly one name");
    expect_error(good_with_line(8, "0 -5e-05"), CACORE_ERR_FORMAT, 8, ">= 0");
    expect_error(good_with_line(8, "0 nan"), CACORE_ERR_FORMAT, 8, "not finite");
    expect_error(good_with_line(8, "0 inf"), CACORE_ERR_FORMAT, 8, "not finite");
    expect_error(good_with_line(8, "0 fast"), CACORE_ERR_FORMAT, 8, "not a number");
    expect_error(good_with_line(8, "0 5e-05x"), CACORE_ERR_FORMAT, 8, "not a number");
    expect_error(good_with_line(8, "0"), CACORE_ERR_FORMAT, 8, "has 1 numbers, expected 2");
    expect_error(good_with_line(8, "0 1 2"), CACORE_ERR_FORMAT, 8, "has 3 numbers");
    expect_error(good_with_line(9, NULL), CACORE_ERR_FORMAT, 9, "has 1 numbers");
    expect_error(good_with_line(11, "0 0"), CACORE_ERR_FORMAT, 11, "> 0");
    expect_error(good_with_line(12, "-1 0"), CACORE_ERR_FORMAT, 12, "> 0");
    expect_error(good_with_line(12, "NaN 0"), CACORE_ERR_FORMAT, 12, "not finite");
    expect_error(good_with_line(13, NULL), CACORE_ERR_FORMAT, 12, "expected 'end'");
    expect_error(good_with_line(13, "fin"), CACORE_ERR_FORMAT, 13, "expected 'end'");
    expect_error(good_with_line(10, "bandwidth"), CACORE_ERR_FORMAT, 10, "bandwidth_Bps");
    /* truncated in the middle of the bandwidth block */
    expect_error("cloudaware-matrix 1\nnodes 2\nhost a\nhost b\nlatency_s\n0 1\n1 0\n"
                 "bandwidth_Bps\n0 1\n",
                 CACORE_ERR_FORMAT, 9, "truncated");
    char extra[4096];
    snprintf(extra, sizeof extra, "%shost c\n", GOOD);
    expect_error(extra, CACORE_ERR_FORMAT, 14, "after 'end'");
}
END_TEST

/* Numbers read exactly as strtod reads them, in every spelling the format allows (the reader
 * has a fast path for the writer's plain decimal form and falls back to std::from_chars). */
static const char *SPELLINGS[] = {
    "5e-05", "5E-05", "+5e-05", "0.00005", ".00005", "5.e-5", "50e-6", "5.0000e-0005",
    "0.000050000000000000002396", "1.2345678901234567e-05", "12345678901234567890e-25",
    "4.9406564584124654e-324", "2.2250738585072014e-308", "9007199254740993", "9007199254740992",
    "1e22", "1e23", "123456789e-30", "0.1", "0.3", "3", "0", "-0", "1.7976931348623157e+308",
    "7.000000000000001", "0.000000000000000000000001", "1e-22", "1e-23", "12.5e+1"};

START_TEST(numbers_read_as_strtod)
{
    const int n = 40;
    char *text = malloc(200000);
    char num[64];
    double want[40][40];
    unsigned seed = 12345;
    size_t len = (size_t) sprintf(text, "cloudaware-matrix 1\nnodes %d\n", n);
    for (int i = 0; i < n; ++i) {
        len += (size_t) sprintf(text + len, "host h%d\n", i);
    }
    len += (size_t) sprintf(text + len, "latency_s\n");
    const int nspell = (int) (sizeof SPELLINGS / sizeof SPELLINGS[0]);
    int k = 0;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            if (i == j) {
                snprintf(num, sizeof num, "0");
            } else if (k < nspell) {
                snprintf(num, sizeof num, "%s", SPELLINGS[k++]);
            } else {
                seed = seed * 1103515245u + 12345u;
                double x = (seed >> 8) / 16777216.0 * pow(10.0, (double) (seed % 13) - 9.0);
                switch (seed % 4) {
                case 0: snprintf(num, sizeof num, "%.17g", x); break;
                case 1: snprintf(num, sizeof num, "%.4g", x); break;
                case 2: snprintf(num, sizeof num, "%.3e", x); break;
                default: snprintf(num, sizeof num, "%.9f", x); break;
                }
            }
            want[i][j] = i == j ? 0.0 : strtod(num, NULL);
            len += (size_t) sprintf(text + len, "%s%s", j ? (j % 2 ? "\t" : " ") : "", num);
        }
        len += (size_t) sprintf(text + len, i % 3 ? "\n" : " # a comment\r\n");
    }
    len += (size_t) sprintf(text + len, "bandwidth_Bps\n");
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            len += (size_t) sprintf(text + len, "%s%s", j ? " " : "", i == j ? "0" : "1.25e9");
        }
        len += (size_t) sprintf(text + len, "\n");
    }
    sprintf(text + len, "end\n");
    const char *path = tu_write_temp(text);
    free(text);
    cacore_matrix_t *m = NULL;
    char err[256];
    ck_assert_msg(cacore_matrix_read_file(path, &m, err, sizeof err) == CACORE_OK, "%s", err);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            ck_assert_msg(cacore_matrix_latency(m, i, j) == want[i][j], "[%d][%d]: %.17g, want %.17g",
                          i, j, cacore_matrix_latency(m, i, j), want[i][j]);
        }
    }
    cacore_matrix_free(m);
    unlink(path);
    /* and what it must not take */
    expect_error(good_with_line(8, "0 5e-05#x"), CACORE_ERR_FORMAT, 8, "not a number");
    expect_error(good_with_line(8, "0 5e"), CACORE_ERR_FORMAT, 8, "not a number");
    expect_error(good_with_line(8, "0 0x10"), CACORE_ERR_FORMAT, 8, "not a number");
    expect_error(good_with_line(8, "0 --5"), CACORE_ERR_FORMAT, 8, "not a number");
    expect_error(good_with_line(8, "0 1e999"), CACORE_ERR_FORMAT, 8, "not a number");
    expect_error(good_with_line(8, "0 5e-05 0"), CACORE_ERR_FORMAT, 8, "has 3 numbers");
}
END_TEST

START_TEST(missing_file_and_bad_arguments)
{
    cacore_matrix_t *m = NULL;
    char err[256];
    ck_assert_int_eq(cacore_matrix_read_file("/nonexistent/matrix", &m, err, sizeof err),
                     CACORE_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/matrix"));
    ck_assert_int_eq(cacore_matrix_read_file(NULL, &m, err, sizeof err), CACORE_ERR_ARG);

    const char *hosts[2] = {"a", "b"};
    double l[4] = {0, 1e-5, 1e-5, 0};
    double b[4] = {0, 1e8, 1e8, 0};
    ck_assert_int_eq(cacore_matrix_create(0, hosts, l, b, &m, err, sizeof err), CACORE_ERR_ARG);
    double bad_b[4] = {0, 0.0, 1e8, 0};
    ck_assert_int_eq(cacore_matrix_create(2, hosts, l, bad_b, &m, err, sizeof err),
                     CACORE_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err, "bandwidth"));
    double nan_l[4] = {0, NAN, 1e-5, 0};
    ck_assert_int_eq(cacore_matrix_create(2, hosts, nan_l, b, &m, err, sizeof err),
                     CACORE_ERR_ARG);
    const char *dup[2] = {"a", "a"};
    ck_assert_int_eq(cacore_matrix_create(2, dup, l, b, &m, err, sizeof err), CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_matrix_create(2, hosts, l, b, &m, err, sizeof err), CACORE_OK);
    /* the diagonal is ignored */
    ck_assert_double_eq(cacore_matrix_latency(m, 0, 0), 0.0);
    ck_assert_double_eq(cacore_matrix_latency(m, 5, 0), -1.0);
    int nodes[2] = {1, 1};
    cacore_matrix_t *s = NULL;
    ck_assert_int_eq(cacore_matrix_sub(m, nodes, 2, &s, err, sizeof err), CACORE_ERR_ARG);
    nodes[0] = 1;
    nodes[1] = 0;
    ck_assert_int_eq(cacore_matrix_sub(m, nodes, 2, &s, err, sizeof err), CACORE_OK);
    ck_assert_str_eq(cacore_matrix_host(s, 0), "b");
    cacore_matrix_free(s);
    cacore_matrix_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("matrix_io");
    TCase *tc = tcase_create("matrix_io");
    tcase_add_test(tc, good_file_parses);
    tcase_add_test(tc, documented_example_parses);
    tcase_add_test(tc, round_trip_is_exact_and_private);
    tcase_add_test(tc, malformed_files_are_rejected);
    tcase_add_test(tc, numbers_read_as_strtod);
    tcase_add_test(tc, missing_file_and_bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
