/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * test_matrix_io.c - the matrix file format: the documented example parses, round trips are
 * exact, every kind of malformed file is rejected with "FILE:LINE: problem", every cut of the
 * example is detected, and only regular files of a sane size are read. */
#include "test_util.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

static const char *GOOD =
    "# a comment\n"
    "cloudaware-matrix 1\n"
    "nodes 2\n"
    "host a\n"
    "host b   # a trailing comment, long enough for the shortened files below to pass the size check\n"
    "\n"
    "latency_s\n"
    "0 5e-05\n"
    "6e-05 0\n"
    "bandwidth_Bps\n"
    "0 1.25e+08\n"
    "2.5e7 0\n"
    "end\n";

static void expect_error_at(const char *path, cacore_status_t st, int line, const char *want);

/* Reads text and expects failure with status st and a message containing FILE:LINE and want. */
static void expect_error(const char *text, cacore_status_t st, int line, const char *want)
{
    expect_error_at(tu_write_temp(text), st, line, want);
}

/* A format error in the file at path (which is removed), quickly: nothing is allocated for a
 * node count the file cannot hold (1 s of CPU is ample; the 2 GiB allocation took longer). */
static void expect_error_file(const char *path, int line, const char *want)
{
    clock_t t0 = clock();
    expect_error_at(path, CACORE_ERR_FORMAT, line, want);
    double cpu = (double) (clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_msg(cpu < 1.0, "rejecting took %.2f s of CPU", cpu);
}

static void expect_error_at(const char *path, cacore_status_t st, int line, const char *want)
{
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
    for (const char *p = err; *p; ++p) {
        ck_assert_msg((unsigned char) *p >= 0x20 && (unsigned char) *p < 0x7f,
                      "raw byte 0x%02x in '%s'", (unsigned char) *p, err);
    }
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

/* The first ``` block of docs/matrix-format.md (a static buffer). */
static const char *doc_example(void)
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
    return block;
}

/* The example in docs/matrix-format.md is a valid file (so the document cannot drift). */
START_TEST(documented_example_parses)
{
    const char *path = tu_write_temp(doc_example());
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

/* Version 4: node properties (with the lone samples and burst credit) after the bandwidth block, kept exactly
 * through a write and a read; a matrix without them is written as version 1 (what older readers
 * and the lab know). */
START_TEST(node_properties_round_trip)
{
    const char *path = tu_write_temp(GOOD);
    cacore_matrix_t *m = NULL, *m2 = NULL;
    char err[256], out[64], line[256];
    double props[2 * CACORE_NODE_VALUES] = {1.25e6, 0, 3.1e-5, 4e6, 1e6, 32768, 2e6, 1.5e6,
                                            0, 5e7, 1.7e-5, 0, 0, -1, -1, -1},
           got[CACORE_NODE_VALUES];
    ck_assert_int_eq(cacore_matrix_read_file(path, &m, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_matrix_node_props(m, 0, got), 0);
    ck_assert_int_eq(cacore_matrix_set_node_props(m, props, err, sizeof err), CACORE_OK);
    /* One node's values checked on their own (calibration's rank 0 does): the same ranges. */
    for (int i = 0; i < 2; ++i) {
        ck_assert_int_eq(cacore_node_props_check(props + i * CACORE_NODE_VALUES, err, sizeof err), CACORE_OK);
    }
    double bad[2 * CACORE_NODE_VALUES];   /* node 0 wrong, node 1 as before */
    const struct { int k; double v; const char *says; } wrong[] = {
        {CACORE_NODE_EGRESS, 0.5, "node capacity"}, {CACORE_NODE_OVERHEAD, NAN, "overhead"},
        {CACORE_NODE_SHARED, 0, "lone sample"}, {CACORE_NODE_BURST, 2e12, "burst credit"},
        {CACORE_NODE_SHARED2, 0, "second lone sample"}, {CACORE_NODE_LONE2, -1, "second lone"}};
    for (size_t w = 0; w < sizeof wrong / sizeof wrong[0]; ++w) {
        memcpy(bad, props, sizeof bad);
        bad[wrong[w].k] = wrong[w].v;
        ck_assert_int_eq(cacore_node_props_check(bad, err, sizeof err), CACORE_ERR_ARG);
        ck_assert_msg(strstr(err, wrong[w].says) != NULL, "%s", err);
        ck_assert_int_eq(cacore_matrix_set_node_props(m, bad, err, sizeof err), CACORE_ERR_ARG);
    }
    snprintf(out, sizeof out, "%s.out", path);
    ck_assert_msg(cacore_matrix_write_file(m, out, err, sizeof err) == CACORE_OK, "%s", err);
    FILE *f = fopen(out, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "cloudaware-matrix 5\n");
    fclose(f);
    ck_assert_msg(cacore_matrix_read_file(out, &m2, err, sizeof err) == CACORE_OK, "%s", err);
    for (int i = 0; i < 2; ++i) {
        ck_assert_int_eq(cacore_matrix_node_props(m2, i, got), 1);
        for (int k = 0; k < CACORE_NODE_VALUES; ++k) {
            ck_assert_double_eq(got[k], props[i * CACORE_NODE_VALUES + k]);
        }
    }
    ck_assert_uint_eq(cacore_matrix_digest(m), cacore_matrix_digest(m2));
    /* The digest covers them; removing them writes version 1 again. */
    ck_assert_int_eq(cacore_matrix_set_node_props(m, NULL, err, sizeof err), CACORE_OK);
    ck_assert_uint_ne(cacore_matrix_digest(m), cacore_matrix_digest(m2));
    ck_assert_msg(cacore_matrix_write_file(m, out, err, sizeof err) == CACORE_OK, "%s", err);
    f = fopen(out, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "cloudaware-matrix 1\n");
    fclose(f);
    cacore_matrix_free(m2);
    cacore_matrix_free(m);
    unlink(path);
    unlink(out);
}
END_TEST

/* A file of version 4 (one lone sample, the faster of the two) reads its second sample as not
 * measured (-1), its other node rows as written. */
START_TEST(version_4_has_no_second_lone_sample)
{
    const char *v4 =
        "cloudaware-matrix 4\nnodes 2\nhost a\nhost b\n"
        "latency_s\n0 5e-05\n6e-05 0\nbandwidth_Bps\n0 1.25e+08\n2.5e7 0\n"
        "node_egress_Bps\n0 0\nnode_ingress_Bps\n0 0\nnode_overhead_s\n1e-05 2e-05\n"
        "node_lone_Bps\n3e8 0\nnode_shared_Bps\n1.25e+08 0\nnode_burst_bytes\n0 16384\nend\n";
    const char *path = tu_write_temp(v4);
    cacore_matrix_t *m = NULL;
    char err[256];
    double got[CACORE_NODE_VALUES];
    ck_assert_msg(cacore_matrix_read_file(path, &m, err, sizeof err) == CACORE_OK, "%s", err);
    for (int i = 0; i < 2; ++i) {
        ck_assert_int_eq(cacore_matrix_node_props(m, i, got), 1);
        ck_assert_double_eq(got[CACORE_NODE_LONE2], -1);
        ck_assert_double_eq(got[CACORE_NODE_SHARED2], -1);
        ck_assert_double_eq(got[CACORE_NODE_BURST], i ? 16384 : 0);
    }
    ck_assert_double_eq((cacore_matrix_node_props(m, 0, got), got[CACORE_NODE_LONE]), 3e8);
    cacore_matrix_free(m);
    unlink(path);
}
END_TEST

START_TEST(malformed_files_are_rejected)
{
    expect_error("", CACORE_ERR_FORMAT, 0, "unexpected end of file");
    expect_error("hello 1\n", CACORE_ERR_FORMAT, 1, "not a matrix file");
    expect_error(good_with_line(2, "cloudaware-matrix 6"), CACORE_ERR_FORMAT, 2, "version");
    expect_error(good_with_line(2, "cloudaware-matrix 10"), CACORE_ERR_FORMAT, 2, "version");
    /* versions 2 to 5 require the node rows after bandwidth_Bps */
    expect_error(good_with_line(2, "cloudaware-matrix 2"), CACORE_ERR_FORMAT, 13, "node_egress_Bps");
    expect_error(good_with_line(2, "cloudaware-matrix 3"), CACORE_ERR_FORMAT, 13, "node_egress_Bps");
    expect_error(good_with_line(2, "cloudaware-matrix 4"), CACORE_ERR_FORMAT, 13, "node_egress_Bps");
    expect_error(good_with_line(2, "cloudaware-matrix 5"), CACORE_ERR_FORMAT, 13, "node_egress_Bps");
    expect_error(good_with_line(3, "nodes 0"), CACORE_ERR_FORMAT, 3, "out of range");
    expect_error(good_with_line(3, "nodes -4"), CACORE_ERR_FORMAT, 3, "out of range");
    expect_error(good_with_line(3, "nodes 99999999"), CACORE_ERR_FORMAT, 3, "out of range");
    expect_error(good_with_line(3, "nodes 1e3"), CACORE_ERR_FORMAT, 3, "node count");
    expect_error(good_with_line(3, "nodes 3"), CACORE_ERR_FORMAT, 7, "host");  /* wrong count */
    expect_error(good_with_line(3, "nodes 1"), CACORE_ERR_FORMAT, 5, "latency_s");
    expect_error(good_with_line(5, "host a"), CACORE_ERR_FORMAT, 5, "duplicate host");
    expect_error(good_with_line(5, "host b c"), CACORE_ERR_FORMAT, 5, "exactly one name");
    expect_error(good_with_line(8, "0 -5e-05"), CACORE_ERR_FORMAT, 8, "out of range 0..1000 s");
    expect_error(good_with_line(8, "0 nan"), CACORE_ERR_FORMAT, 8, "not finite");
    expect_error(good_with_line(8, "0 inf"), CACORE_ERR_FORMAT, 8, "not finite");
    expect_error(good_with_line(8, "0 fast"), CACORE_ERR_FORMAT, 8, "not a number");
    expect_error(good_with_line(8, "0 5e-05x"), CACORE_ERR_FORMAT, 8, "not a number");
    expect_error(good_with_line(8, "0"), CACORE_ERR_FORMAT, 8, "has 1 numbers, expected 2");
    expect_error(good_with_line(8, "0 1 2"), CACORE_ERR_FORMAT, 8, "has 3 numbers");
    expect_error(good_with_line(9, NULL), CACORE_ERR_FORMAT, 9, "has 1 numbers");
    expect_error(good_with_line(11, "0 0"), CACORE_ERR_FORMAT, 11, "out of range 1..1e+15 bytes/s");
    expect_error(good_with_line(12, "-1 0"), CACORE_ERR_FORMAT, 12, "out of range 1..1e+15");
    expect_error(good_with_line(12, "NaN 0"), CACORE_ERR_FORMAT, 12, "not finite");
    expect_error(good_with_line(13, NULL), CACORE_ERR_FORMAT, 12, "expected 'end'");
    expect_error(good_with_line(13, "fin"), CACORE_ERR_FORMAT, 13, "expected 'end'");
    expect_error(good_with_line(10, "bandwidth"), CACORE_ERR_FORMAT, 10, "bandwidth_Bps");
    /* truncated in the middle of the bandwidth block (a comment makes it long enough for the
     * size check, which would reject it at line 2 otherwise) */
    expect_error("cloudaware-matrix 1\nnodes 2\nhost a\nhost b\nlatency_s\n0 1\n1 0\n"
                 "bandwidth_Bps\n# ----------------------------------------------------\n0 1\n",
                 CACORE_ERR_FORMAT, 10, "truncated");
    expect_error("cloudaware-matrix 1\nnodes 2\nhost a\nhost b\nlatency_s\n0 1\n1 0\n"
                 "bandwidth_Bps\n0 1\n",
                 CACORE_ERR_FORMAT, 2, "'nodes 2' needs at least 57 more bytes");
    char extra[4096];
    snprintf(extra, sizeof extra, "%shost c\n", GOOD);
    expect_error(extra, CACORE_ERR_FORMAT, 14, "after 'end'");
}
END_TEST

/* Numbers read exactly as strtod reads them, in every spelling the format allows (the reader
 * has a fast path for the writer's plain decimal form and falls back to std::from_chars), all
 * within the latency range 0..1000 s: 2^53 as the mantissa is the fast path's last value, the
 * exponents +-22 its limits. */
static const char *SPELLINGS[] = {
    "5e-05", "5E-05", "+5e-05", "0.00005", ".00005", "5.e-5", "50e-6", "5.0000e-0005",
    "0.000050000000000000002396", "1.2345678901234567e-05", "12345678901234567890e-25",
    "4.9406564584124654e-324", "2.2250738585072014e-308", "9007199254740993e-13",
    "9007199254740992e-13", "3e-22", "3e-23", "123456789e-30", "0.1", "0.3", "3", "0", "-0",
    "999.99999999999989", "7.000000000000001", "0.000000000000000000000001", "1e-22", "1e-23",
    "12.5e+1", "1000", "1e+3", "0.00001e+7"};

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

/* Values are finite and within the documented ranges (latency 0..1000 s, bandwidth 1..1e15
 * bytes/s): a tiny bandwidth would make every derived cost infinite (the planner printed inf
 * into JSON for 1e-320). */
START_TEST(values_within_documented_ranges)
{
    expect_error(good_with_line(11, "0 1e-320"), CACORE_ERR_FORMAT, 11,
                 "bandwidth_Bps [0][1] = 1e-320 is out of range 1..1e+15 bytes/s");
    expect_error(good_with_line(11, "0 0.5"), CACORE_ERR_FORMAT, 11, "out of range");
    expect_error(good_with_line(12, "1.0000001e15 0"), CACORE_ERR_FORMAT, 12, "out of range");
    expect_error(good_with_line(8, "0 1000.001"), CACORE_ERR_FORMAT, 8,
                 "latency_s [0][1] = 1000.001 is out of range 0..1000 s");
    expect_error(good_with_line(9, "1e300 0"), CACORE_ERR_FORMAT, 9, "out of range");
    /* the limits themselves are valid */
    const char *path = tu_write_temp(good_with_line(11, "0 1"));
    cacore_matrix_t *m = NULL;
    char err[256];
    ck_assert_msg(cacore_matrix_read_file(path, &m, err, sizeof err) == CACORE_OK, "%s", err);
    cacore_matrix_free(m);
    unlink(path);
    path = tu_write_temp(good_with_line(8, "0 1000"));
    ck_assert_msg(cacore_matrix_read_file(path, &m, err, sizeof err) == CACORE_OK, "%s", err);
    cacore_matrix_free(m);
    unlink(path);
    path = tu_write_temp(good_with_line(12, "1e15 0"));
    ck_assert_msg(cacore_matrix_read_file(path, &m, err, sizeof err) == CACORE_OK, "%s", err);
    cacore_matrix_free(m);
    unlink(path);
}
END_TEST

/* Every prefix of the docs' example (a cut after any byte) is rejected, unless it is the
 * complete file without its final newline: the format needs no 'end' line of a new version. */
START_TEST(every_truncation_is_detected)
{
    const char *doc = doc_example();
    const size_t len = strlen(doc);
    char *buf = malloc(len + 1);
    int accepted = 0;
    for (size_t cut = 0; cut < len; ++cut) {
        memcpy(buf, doc, cut);
        buf[cut] = '\0';
        const char *path = tu_write_temp(buf);
        cacore_matrix_t *m = NULL;
        char err[256];
        cacore_status_t st = cacore_matrix_read_file(path, &m, err, sizeof err);
        unlink(path);
        if (st == CACORE_OK) {
            ck_assert_msg(strcmp(buf + cut - 3, "end") == 0 && cut == len - 1,
                          "a cut after %zu of %zu bytes was accepted", cut, len);
            ck_assert_int_eq(cacore_matrix_nodes(m), 3);
            ck_assert_double_eq(cacore_matrix_bandwidth(m, 2, 0), 2.0e7);
            cacore_matrix_free(m);
            ++accepted;
        } else {
            ck_assert_int_eq(st, CACORE_ERR_FORMAT);
        }
    }
    ck_assert_int_eq(accepted, 1);
    free(buf);
}
END_TEST

/* 'nodes N' is checked against what the rest of the file can hold before anything is allocated
 * for N nodes: 16384 host lines (a 115 KB file) declaring 16384 nodes used to allocate 2 GiB of
 * latency matrix before finding the file short. */
START_TEST(node_count_checked_against_file_size)
{
    const int n = 16384;
    char *text = malloc((size_t) n * 16 + 64);
    size_t len = (size_t) sprintf(text, "cloudaware-matrix 1\nnodes %d\n", n);
    for (int i = 0; i < n; ++i) {
        len += (size_t) sprintf(text + len, "host h%d\n", i);
    }
    sprintf(text + len, "latency_s\n0 1\n");
    const char *path = tu_write_temp(text);
    free(text);
    expect_error_file(path, 2, "'nodes 16384' needs at least 1073856539 more bytes");
    /* the bound is exact for the smallest possible file: 2 nodes, one-digit numbers */
    const char *tight = "cloudaware-matrix 1\nnodes 2\nhost a\nhost b\nlatency_s\n0 1\n1 0\n"
                        "bandwidth_Bps\n0 1\n1 0\nend";
    path = tu_write_temp(tight);
    cacore_matrix_t *m = NULL;
    char err[256];
    ck_assert_msg(cacore_matrix_read_file(path, &m, err, sizeof err) == CACORE_OK, "%s", err);
    cacore_matrix_free(m);
    unlink(path);
}
END_TEST

/* Host names are input that reaches logs and JSON: no control characters; and every message
 * that quotes input escapes it (here: the file name and a duplicate host name). */
START_TEST(control_characters_rejected_and_escaped)
{
    expect_error(good_with_line(4, "host a\x1b[31m"), CACORE_ERR_FORMAT, 4,
                 "host name 'a\\x1b[31m' contains a control character");
    expect_error(good_with_line(4, "host \x7f"), CACORE_ERR_FORMAT, 4, "'\\x7f' contains a control");
    expect_error(good_with_line(2, "cloudaware-matrix \x1b]0;x\x07"), CACORE_ERR_FORMAT, 2,
                 "unsupported version '\\x1b]0;x\\x07'");
    char dir[] = "/tmp/cacore-esc-XXXXXX", path[128], err[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m\n\x1b.txt", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(good_with_line(5, "host a"), f);
    fclose(f);
    cacore_matrix_t *m = NULL;
    ck_assert_int_eq(cacore_matrix_read_file(path, &m, err, sizeof err), CACORE_ERR_FORMAT);
    char want[256];
    snprintf(want, sizeof want, "%s/m\\n\\x1b.txt:5: duplicate host name 'a'", dir);
    ck_assert_str_eq(err, want);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A FIFO without a writer (opening it used to block for good), /dev/zero (used to read until
 * memory ran out) and a directory are refused at once, as is a file above the 16 GiB cap
 * (a sparse file: nothing is read). */
START_TEST(only_regular_files_are_read)
{
    char dir[] = "/tmp/cacore-mx-XXXXXX", path[128], err[256];
    cacore_matrix_t *m = NULL;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(cacore_matrix_read_file(path, &m, err, sizeof err), CACORE_ERR_IO);
    ck_assert_msg(strstr(err, "fifo: not a regular file (a FIFO); a matrix file must be a "
                              "regular file") != NULL, "%s", err);
    ck_assert_ptr_null(m);
    unlink(path);
    ck_assert_int_eq(cacore_matrix_read_file("/dev/zero", &m, err, sizeof err), CACORE_ERR_IO);
    ck_assert_str_eq(err, "/dev/zero: not a regular file (a character device); a matrix file "
                          "must be a regular file");
    ck_assert_int_eq(cacore_matrix_read_file(dir, &m, err, sizeof err), CACORE_ERR_IO);
    ck_assert_msg(strstr(err, "not a regular file (a directory)") != NULL, "%s", err);
    snprintf(path, sizeof path, "%s/huge", dir);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, ((off_t) 16 << 30) + 1), 0);
    close(fd);
    ck_assert_int_eq(cacore_matrix_read_file(path, &m, err, sizeof err), CACORE_ERR_IO);
    ck_assert_msg(strstr(err, "larger than the limit of 17179869184 bytes for a matrix file") !=
                  NULL, "%s", err);
    unlink(path);
    rmdir(dir);
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
    tcase_add_test(tc, node_properties_round_trip);
    tcase_add_test(tc, version_4_has_no_second_lone_sample);
    tcase_add_test(tc, malformed_files_are_rejected);
    tcase_add_test(tc, numbers_read_as_strtod);
    tcase_add_test(tc, missing_file_and_bad_arguments);
    tcase_add_test(tc, values_within_documented_ranges);
    tcase_add_test(tc, every_truncation_is_detected);
    tcase_add_test(tc, node_count_checked_against_file_size);
    tcase_add_test(tc, control_characters_rejected_and_escaped);
    tcase_add_test(tc, only_regular_files_are_read);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
