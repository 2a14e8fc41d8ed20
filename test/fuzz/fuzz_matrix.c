/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * fuzz_matrix.c - fuzz target of the matrix reader (docs/matrix-format.md), through the C API
 * the component uses: cacore_matrix_read_file on a path (a memory file, no temporary files).
 *
 * Besides "no crash, no hang, no leak, no undefined behaviour" and "no running out of memory"
 * (a file of a few kilobytes must not need a gigabyte: the replay and the fuzzer run with a memory
 * limit far above what any input they try justifies), an accepted matrix must keep the
 * documented promises the component relies on: 1 <= N <= 16384 unique, non-empty host names
 * without blanks; finite latencies >= 0 and finite bandwidths > 0 off the diagonal; the
 * constructor accepts what the reader accepts; and, as the component does with it next, the
 * hierarchy builds and every plan built from it passes the plan checker with a finite
 * prediction (small matrices only, to keep the fuzzer fast).
 */
#include "fuzz.h"
#include "fuzz_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloudaware_core.h"

enum { PLAN_MAX_NODES = 8 };

/* One plan per algorithm the cost model weighs, with fixed settings: the automatic choice tries
 * many settings and would make every input a hundred times slower. */
static void check_plans(const cacore_matrix_t *m, int n)
{
    static const struct { cacore_coll_t coll; int algo; } plans[] = {
        {CACORE_COLL_BCAST, CACORE_ALGO_COOL}, {CACORE_COLL_ALLREDUCE, CACORE_ALGO_COOL},
        {CACORE_COLL_GATHER, CACORE_ALGO_TREE}, {CACORE_COLL_REDUCE, CACORE_ALGO_BINOMIAL}};
    int rank_node[2 * PLAN_MAX_NODES];
    char err[512];

    for (int r = 0; r < 2 * n; r++) {
        rank_node[r] = r / 2;   /* two ranks per node */
    }
    for (size_t c = 0; c < sizeof plans / sizeof plans[0]; c++) {
        cacore_plan_t *p = NULL;
        cacore_plan_params_t params;
        cacore_plan_params_default(&params);
        params.algo = plans[c].algo;
        for (int l = 0; l < CACORE_PLAN_LEVELS; l++) {
            params.pattern[l] = CACORE_PAT_BINOMIAL;
        }
        params.segment_bytes = 1 << 16;
        if (CACORE_OK != cacore_plan_build(m, 2 * n, rank_node, plans[c].coll, 0, 1 << 20,
                                           1 << 18, &params, &p, err, sizeof err)) {
            FUZZ_REQUIRE_MESSAGE(err, sizeof err);
            continue;   /* the component uses the previous module then */
        }
        FUZZ_REQUIRE(CACORE_OK == cacore_plan_check(p, err, sizeof err), "%s", err);
        double t = cacore_plan_predicted(p);
        FUZZ_REQUIRE(isfinite(t) && t >= 0, "predicted time %g", t);
        cacore_plan_free(p);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    cacore_matrix_t *m = NULL;
    cacore_status_t st = cacore_matrix_read_file(fuzz_file_set(data, size), &m, err, sizeof err);

    if (CACORE_OK != st) {
        FUZZ_REQUIRE(NULL == m, "a failed read returned a matrix");
        FUZZ_REQUIRE(CACORE_ERR_NOMEM != st, "out of memory on a %zu-byte file", size);
        FUZZ_REQUIRE(CACORE_ERR_FORMAT == st || CACORE_ERR_IO == st, "status %d: %s", (int) st,
                     err);
        FUZZ_REQUIRE_MESSAGE(err, sizeof err);
        return 0;
    }
    int n = cacore_matrix_nodes(m);
    FUZZ_REQUIRE(n >= 1 && n <= 16384, "n = %d", n);
    const char **hosts = malloc(sizeof(char *) * (size_t) n);
    double *L = malloc(sizeof(double) * (size_t) n * (size_t) n);
    double *B = malloc(sizeof(double) * (size_t) n * (size_t) n);
    FUZZ_REQUIRE(hosts && L && B, "out of memory");
    for (int i = 0; i < n; i++) {
        hosts[i] = cacore_matrix_host(m, i);
        FUZZ_REQUIRE(hosts[i] != NULL && hosts[i][0] != '\0', "host %d empty", i);
        FUZZ_REQUIRE(strlen(hosts[i]) <= 255, "host %d longer than 255 bytes", i);
        FUZZ_REQUIRE(strpbrk(hosts[i], " \t\r\n\v\f") == NULL, "host %d has a blank", i);
        FUZZ_REQUIRE(cacore_matrix_find_host(m, hosts[i]) == i, "host %s not found at %d",
                     hosts[i], i);
        for (int j = 0; j < n; j++) {
            double l = cacore_matrix_latency(m, i, j), b = cacore_matrix_bandwidth(m, i, j);
            if (i != j) {
                FUZZ_REQUIRE(isfinite(l) && l >= 0, "latency[%d][%d] = %g", i, j, l);
                FUZZ_REQUIRE(isfinite(b) && b > 0, "bandwidth[%d][%d] = %g", i, j, b);
            }
            L[(size_t) i * n + j] = l;
            B[(size_t) i * n + j] = b;
        }
    }
    cacore_matrix_t *copy = NULL;
    st = cacore_matrix_create(n, hosts, L, B, &copy, err, sizeof err);
    FUZZ_REQUIRE(CACORE_OK == st, "the reader accepted what the constructor refuses: %s", err);
    cacore_matrix_free(copy);
    if (n <= PLAN_MAX_NODES) {
        cacore_hierarchy_t *h = NULL;
        st = cacore_hierarchy_build(m, 1 << 20, NULL, &h, err, sizeof err);
        FUZZ_REQUIRE(CACORE_OK == st, "no hierarchy for an accepted matrix: %s", err);
        FUZZ_REQUIRE(cacore_hierarchy_ngroups(h, 0) == n, "%d groups of one node at level 0",
                     cacore_hierarchy_ngroups(h, 0));
        FUZZ_REQUIRE(cacore_hierarchy_ngroups(h, cacore_hierarchy_levels(h) - 1) == 1,
                     "top level has %d groups",
                     cacore_hierarchy_ngroups(h, cacore_hierarchy_levels(h) - 1));
        cacore_hierarchy_free(h);
        check_plans(m, n);
    }
    free(hosts);
    free(L);
    free(B);
    cacore_matrix_free(m);
    return 0;
}
