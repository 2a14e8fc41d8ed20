/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Rules file: the documented example parses and selects what docs/rules-format.md says it does;
 * every kind of mistake is rejected with the file, the line and the problem; a version 2 file cut
 * anywhere is rejected; only regular files are read; parsing is linear and lookups agree with
 * the definition of "most specific".
 */
#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

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
    {"cloudaware-rules 3\n", "t.conf:1: expected 'cloudaware-rules 2' (or 1"},
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
    /* exactly as strict as docs/rules-format.md */
    {"cloudaware-rules 1\nbcast 2K 0 model\n", "t.conf:2: min-nodes '2K' is not a plain decimal"},
    {"cloudaware-rules 1\nbcast 1000001 0 model\n", "t.conf:2: min-nodes must be between 1 and"},
    {"cloudaware-rules 1\nbcast 2 0 model top=ring\n", "t.conf:2: 'model' takes no options"},
    {"cloudaware-rules 1\nbcast 2 0 cool top=ring top=chain\n",
     "t.conf:2: option 'top' given twice"},
    {"cloudaware-rules 1\nbcast 2 0 cool segment=4K segment=8K\n",
     "t.conf:2: option 'segment' given twice"},
    /* version 2: the end line */
    {"cloudaware-rules 2\nbcast 2 0 tree\n", "t.conf:2: unexpected end of file, expected 'end'"},
    {"cloudaware-rules 2\nbcast 2 0 tree\nend", "t.conf:3: 'end' is not followed by a newline"},
    {"cloudaware-rules 2\nbcast 2 0 tree\nend\n# more\n", "t.conf:3: content after 'end'"},
    {"cloudaware-rules 2\nend\nbcast 2 0 tree\n", "t.conf:2: content after 'end'"},
    {"cloudaware-rules 2\nend now\n", "t.conf:2: nothing may follow 'end'"},
    {"cloudaware-rules 1\nbcast 2 0 tree\nend\n", "t.conf:3: a rule is"},
    /* input quoted in a message is escaped: no raw control byte reaches a log */
    {"cloudaware-rules 1\nbc\x1b[2Jast 2 0 tree\n", "t.conf:2: unknown collective 'bc\\x1b[2Jast'"},
    {"cloudaware-rules 1\nbcast 2 0 tree top=\x07\x7f\xff\\\n",
     "t.conf:2: unknown pattern '\\x07\\x7f\\xff\\\\'"},
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
    for (const char *p = err; *p; ++p) {
        ck_assert_msg((unsigned char) *p >= 0x20 && (unsigned char) *p < 0x7f,
                      "case %d: raw byte 0x%02x in the message", _i, (unsigned char) *p);
    }
}
END_TEST

/* The name of the file is input too: escaped in every message. */
START_TEST(file_name_is_escaped)
{
    cacore_rules_t *r = NULL;
    char err[256];
    ck_assert_int_eq(cacore_rules_parse("cloudaware-rules 1\nx 1 0 tree\n", "a\nb\x1b.conf", &r,
                                        err, sizeof err),
                     CACORE_ERR_FORMAT);
    ck_assert_str_eq(err, "a\\nb\\x1b.conf:2: unknown collective 'x' (bcast, reduce, allreduce, "
                          "gather, scatter, allgather or *)");
    char out[16];
    ck_assert_str_eq(cacore_escape("a\tb\\c\x01", out, sizeof out), "a\\tb\\\\c\\x01");
    /* cut to fit, never in the middle of an escape */
    ck_assert_str_eq(cacore_escape("abcdefghijklm\x01", out, sizeof out), "abcdefghijklm");
}
END_TEST

/* Reads FILE into a fresh string; the whole file. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    static char buf[65536];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    return strdup(buf);
}

/* The first ``` block of docs/rules-format.md. */
static char *doc_example(void)
{
    char *md = slurp(CACORE_TOP_SRCDIR "/docs/rules-format.md");
    char *start = strstr(md, "```\n");
    ck_assert_ptr_nonnull(start);
    start += 4;
    char *end = strstr(start, "```");
    ck_assert_ptr_nonnull(end);
    *end = '\0';
    char *block = strdup(start);
    free(md);
    return block;
}

/* Every proper prefix of a version 2 file (a cut after any byte) is rejected as a format error;
 * the whole file is accepted. */
static void every_cut_rejected(const char *text)
{
    const size_t len = strlen(text);
    char *buf = malloc(len + 1);
    cacore_rules_t *r = NULL;
    char err[256];
    for (size_t cut = 0; cut < len; ++cut) {
        memcpy(buf, text, cut);
        buf[cut] = '\0';
        cacore_status_t st = cacore_rules_parse(buf, "cut.conf", &r, err, sizeof err);
        ck_assert_msg(st == CACORE_ERR_FORMAT, "the first %zu of %zu bytes were accepted", cut, len);
        ck_assert_ptr_null(r);
    }
    ck_assert_msg(cacore_rules_parse(text, "whole.conf", &r, err, sizeof err) == CACORE_OK, "%s",
                  err);
    cacore_rules_free(r);
    free(buf);
}

START_TEST(version2_every_truncation_is_rejected)
{
    char *doc = doc_example();
    ck_assert_msg(strncmp(doc, "cloudaware-rules 2\n", 19) == 0, "the docs' example is version 2");
    every_cut_rejected(doc);
    char *file = slurp(CACORE_TOP_SRCDIR "/docs/examples/rules.conf");
    every_cut_rejected(file);
    /* The docs' block and the example file hold the same rules. */
    cacore_rules_t *a = NULL, *b = NULL;
    char err[256];
    ck_assert_int_eq(cacore_rules_parse(doc, "doc", &a, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_rules_parse(file, "file", &b, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_rules_count(a), cacore_rules_count(b));
    cacore_rules_free(a);
    cacore_rules_free(b);
    free(doc);
    free(file);
}
END_TEST

/* Version 1 (as documented) cannot detect a cut after a complete rule: the example rewritten as
 * version 1 and cut before its last rule still parses, with one rule fewer. */
START_TEST(version1_is_read_and_cannot_detect_truncation)
{
    char *doc = doc_example();
    doc[17] = '1';  /* "cloudaware-rules 2" -> 1 */
    char *end = strstr(doc, "end\n");
    ck_assert_ptr_nonnull(end);
    *end = '\0';
    cacore_rules_t *r = NULL;
    char err[256];
    ck_assert_msg(cacore_rules_parse(doc, "v1.conf", &r, err, sizeof err) == CACORE_OK, "%s", err);
    ck_assert_int_eq(cacore_rules_count(r), 6);
    cacore_rules_free(r);
    char *last = strstr(doc, "allreduce");
    ck_assert_ptr_nonnull(last);
    *last = '\0';
    ck_assert_int_eq(cacore_rules_parse(doc, "v1cut.conf", &r, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_rules_count(r), 5);
    cacore_rules_free(r);
    free(doc);
}
END_TEST

/* A FIFO (no writer: opening it would block), a device that never ends and a directory are
 * refused at once with one line; so is a file above the 64 MiB cap (sparse, nothing read). */
START_TEST(only_regular_files_are_read)
{
    char dir[] = "/tmp/cacore-rules-XXXXXX", path[128], err[256];
    cacore_rules_t *r = NULL;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(cacore_rules_read_file(path, &r, err, sizeof err), CACORE_ERR_IO);
    ck_assert_msg(strstr(err, "fifo: not a regular file (a FIFO)") != NULL, "%s", err);
    ck_assert_ptr_null(r);
    unlink(path);
    ck_assert_int_eq(cacore_rules_read_file("/dev/zero", &r, err, sizeof err), CACORE_ERR_IO);
    ck_assert_str_eq(err, "/dev/zero: not a regular file (a character device); a rules file must "
                          "be a regular file");
    ck_assert_int_eq(cacore_rules_read_file(dir, &r, err, sizeof err), CACORE_ERR_IO);
    ck_assert_msg(strstr(err, "not a regular file (a directory)") != NULL, "%s", err);
    snprintf(path, sizeof path, "%s/huge", dir);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "cloudaware-rules 2\n", 19), 19);
    ck_assert_int_eq(ftruncate(fd, (off_t) (64 << 20) + 1), 0);
    close(fd);
    ck_assert_int_eq(cacore_rules_read_file(path, &r, err, sizeof err), CACORE_ERR_IO);
    ck_assert_msg(strstr(err, "larger than the limit of 67108864 bytes for a rules file") != NULL,
                  "%s", err);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* 200,000 rules (one collective each, distinct keys): read in linear time. The bound is
 * generous (3 s of CPU; about 0.1 s here) so that a loaded machine cannot fail it, but a
 * quadratic duplicate check (about 15 s) cannot pass it. Version 1, which every parser reads. */
START_TEST(many_rules_parse_in_linear_time)
{
    static const char *colls[] = {"bcast", "reduce", "allreduce", "gather", "scatter",
                                  "allgather", "*"};
    const int nrules = 200000;
    char *text = malloc((size_t) nrules * 40 + 64);
    size_t len = (size_t) sprintf(text, "cloudaware-rules 1\n");
    for (int i = 0; i < nrules; ++i) {
        len += (size_t) sprintf(text + len, "%s %d %d tree\n", colls[i % 7], 1 + (i / 7) % 1000,
                                i / 7000);
    }
    const char *path = tu_write_temp(text);
    free(text);
    cacore_rules_t *r = NULL;
    char err[256];
    clock_t t0 = clock();
    ck_assert_msg(cacore_rules_read_file(path, &r, err, sizeof err) == CACORE_OK, "%s", err);
    double cpu = (double) (clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_int_eq(cacore_rules_count(r), nrules);
    ck_assert_msg(cpu < 3.0, "200000 rules took %.2f s of CPU", cpu);
    /* lookups by the index: 100,000 of them are fast too */
    cacore_rule_t a;
    t0 = clock();
    for (int i = 0; i < 100000; ++i) {
        ck_assert_int_eq(cacore_rules_lookup(r, (cacore_coll_t) (i % 6), 1 + i % 1000,
                                             (size_t) i, &a), 1);
    }
    cpu = (double) (clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_msg(cpu < 3.0, "100000 lookups took %.2f s of CPU", cpu);
    cacore_rules_free(r);
    unlink(path);
}
END_TEST

/* The index gives what the definition in docs/rules-format.md says, checked against a direct
 * reading of it on random rule sets (many rules share min-nodes or min-bytes). */
START_TEST(lookup_matches_the_definition)
{
    enum { NR = 300 };
    static int coll[NR], nodes[NR], bytes[NR];
    unsigned seed = 2024u + (unsigned) _i;
    char *text = malloc(NR * 48 + 64);
    for (int round = 0; round < 4; ++round) {
        size_t len = (size_t) sprintf(text, "cloudaware-rules 1\n");
        int n = 0;
        for (int k = 0; k < NR; ++k) {
            seed = seed * 1103515245u + 12345u;
            int c = (int) ((seed >> 16) % 7) - 1, mn = 1 + (int) ((seed >> 8) % 40),
                mb = (int) ((seed >> 4) % 50) * 100;
            int dup = 0;
            for (int q = 0; q < n; ++q) {
                dup |= coll[q] == c && nodes[q] == mn && bytes[q] == mb;
            }
            if (dup) {
                continue;
            }
            coll[n] = c;
            nodes[n] = mn;
            bytes[n] = mb;
            len += (size_t) sprintf(text + len, "%s %d %d ring\n",
                                    c < 0 ? "*" : (const char *[]){"bcast", "reduce", "allreduce",
                                                                   "gather", "scatter",
                                                                   "allgather"}[c],
                                    mn, mb);
            ++n;
        }
        cacore_rules_t *r = NULL;
        char err[256];
        ck_assert_msg(cacore_rules_parse(text, "r.conf", &r, err, sizeof err) == CACORE_OK, "%s",
                      err);
        for (int c = 0; c < CACORE_COLL_COUNT; ++c) {
            for (int qn = 0; qn <= 42; qn += 1) {
                for (int qb = 0; qb <= 5100; qb += 50) {
                    int best = -1;
                    for (int k = 0; k < n; ++k) {
                        if ((coll[k] >= 0 && coll[k] != c) || nodes[k] > qn || bytes[k] > qb) {
                            continue;
                        }
                        if (best < 0 || (coll[k] >= 0) > (coll[best] >= 0) ||
                            ((coll[k] >= 0) == (coll[best] >= 0) &&
                             (nodes[k] > nodes[best] ||
                              (nodes[k] == nodes[best] && bytes[k] > bytes[best])))) {
                            best = k;
                        }
                    }
                    cacore_rule_t a;
                    int got = cacore_rules_lookup(r, (cacore_coll_t) c, qn, (size_t) qb, &a);
                    ck_assert_int_eq(got, best >= 0);
                    if (best >= 0) {
                        ck_assert_msg(a.line == best + 2, "coll %d nodes %d bytes %d: line %d, want %d",
                                      c, qn, qb, a.line, best + 2);
                    }
                }
            }
        }
        cacore_rules_free(r);
    }
    free(text);
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
    tcase_add_test(tc, file_name_is_escaped);
    tcase_add_test(tc, version2_every_truncation_is_rejected);
    tcase_add_test(tc, version1_is_read_and_cannot_detect_truncation);
    tcase_add_test(tc, only_regular_files_are_read);
    suite_add_tcase(s, tc);
    /* Timing and brute-force tests: generous timeouts, the asserts inside bound the CPU time. */
    TCase *big = tcase_create("scale");
    tcase_set_timeout(big, 120);
    tcase_add_test(big, many_rules_parse_in_linear_time);
    tcase_add_loop_test(big, lookup_matches_the_definition, 0, 3);
    suite_add_tcase(s, big);
    return tu_run_suite(s);
}
