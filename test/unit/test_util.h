/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * test_util.h - small helpers shared by the unit tests (temporary files, hand-made matrices).
 * Valid C and C++: the core's C++ tests include it too. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cloudaware_core.h"

/* Writes text to a fresh temporary file; returns its path (static buffer rotated per call). */
static inline const char *tu_write_temp(const char *text)
{
    static char paths[8][64];
    static int next = 0;
    char *p = paths[next++ % 8];
    snprintf(p, 64, "/tmp/cacore-test-XXXXXX");
    int fd = mkstemp(p);
    ck_assert_int_ge(fd, 0);
    size_t len = strlen(text);
    ck_assert_int_eq((int) write(fd, text, len), (int) len);
    close(fd);
    return p;
}

/* A matrix from per-pair latency and bandwidth functions of (i, j); hosts are "n0", "n1", ... */
typedef double (*tu_pair_fn)(int i, int j, void *ctx);

static inline cacore_matrix_t *tu_matrix(int n, tu_pair_fn lat, tu_pair_fn bw, void *ctx)
{
    char **hosts = (char **) calloc((size_t) n, sizeof *hosts);
    double *l = (double *) calloc((size_t) n * n, sizeof *l);
    double *b = (double *) calloc((size_t) n * n, sizeof *b);
    for (int i = 0; i < n; ++i) {
        hosts[i] = (char *) malloc(16);
        snprintf(hosts[i], 16, "n%d", i);
        for (int j = 0; j < n; ++j) {
            l[i * n + j] = i == j ? 0 : lat(i, j, ctx);
            b[i * n + j] = i == j ? 0 : bw(i, j, ctx);
        }
    }
    cacore_matrix_t *m = NULL;
    char err[256];
    cacore_status_t st = cacore_matrix_create(n, (const char *const *) hosts, l, b, &m, err,
                                              sizeof err);
    ck_assert_msg(st == CACORE_OK, "cacore_matrix_create: %s", err);
    for (int i = 0; i < n; ++i) {
        free(hosts[i]);
    }
    free(hosts);
    free(l);
    free(b);
    return m;
}

/* Runs a suite and returns the process exit code (0: every check passed). */
/* rank -> node layouts: 0 = one rank per node, 1 = ragged blocks, 2 = round robin,
 * 3 = reversed blocks (a split with reversed keys) */
static inline void tu_layout(int kind, int nranks, int nnodes, int *rank_node)
{
    for (int r = 0; r < nranks; ++r) {
        switch (kind) {
        case 0: rank_node[r] = r % nnodes; break;
        case 1: rank_node[r] = (r * r / 3 + r) % nnodes; break;
        case 2: rank_node[r] = (r * 5) % nnodes; break;
        default: rank_node[r] = (nranks - 1 - r) / 3 % nnodes; break;
        }
    }
}

static inline int tu_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

#endif
