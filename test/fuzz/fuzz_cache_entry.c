/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * fuzz_cache_entry.c - fuzz target of reading a calibration cache entry (docs/calibration.md):
 * an ordinary matrix file whose host list must be exactly the job's node set. The component
 * (coll_cloudaware_cache.c, mca_coll_cloudaware_cache_load) reads the entry with
 * cacore_matrix_read_file through /proc/self/fd/N, checks the node count, looks every host of
 * the node set up in the matrix and copies the pairs into the node set's order; this target
 * runs that same sequence of core calls.
 *
 * Input: the first line is the node set (host names separated by blanks, as the component
 * knows them from the runtime); the rest is the entry file. A node set with a repeated name or
 * no name is not one the runtime gives, and is skipped.
 *
 * Invariants: an entry is used only when it holds exactly the node set; the copied pairs are
 * the entry's pairs for those hosts (finite latency >= 0, finite bandwidth > 0); a refused
 * entry returns no matrix and a one-line message.
 */
#include "fuzz.h"
#include "fuzz_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloudaware_core.h"

enum { MAX_SET = 64 };

/* Splits the first line of data into at most MAX_SET distinct names; returns their number, or
 * -1 when the set is not one the runtime could give; *rest = the entry file after the line. */
static int node_set(const uint8_t *data, size_t size, char *line, char **hosts, size_t *rest)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t len = nl ? (size_t) (nl - data) : size;
    int n = 0;

    memcpy(line, data, len);
    line[len] = '\0';
    *rest = nl ? len + 1 : size;
    if (strlen(line) != len) {
        return -1;   /* a NUL byte inside a host name */
    }
    for (char *save = NULL, *h = strtok_r(line, " \t", &save); h != NULL;
         h = strtok_r(NULL, " \t", &save)) {
        if (n == MAX_SET) {
            return -1;
        }
        for (int i = 0; i < n; i++) {
            if (0 == strcmp(hosts[i], h)) {
                return -1;
            }
        }
        hosts[n++] = h;
    }
    return n > 0 ? n : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1), *hosts[MAX_SET], err[512];
    size_t rest;
    int n = node_set(data, size, line, hosts, &rest);
    cacore_matrix_t *mx = NULL;

    if (n < 0) {
        free(line);
        return 0;
    }
    cacore_status_t st = cacore_matrix_read_file(fuzz_file_set(data + rest, size - rest), &mx,
                                                 err, sizeof err);
    if (CACORE_OK != st) {
        FUZZ_REQUIRE(NULL == mx, "a failed read returned a matrix");
        FUZZ_REQUIRE(CACORE_ERR_NOMEM != st, "out of memory on a %zu-byte entry", size - rest);
        FUZZ_REQUIRE_MESSAGE(err, sizeof err);
        free(line);
        return 0;
    }
    if (cacore_matrix_nodes(mx) == n) {
        int idx[MAX_SET], found = 0;
        for (int i = 0; i < n; i++) {
            idx[i] = cacore_matrix_find_host(mx, hosts[i]);
            if (idx[i] < 0) {
                break;
            }
            FUZZ_REQUIRE(idx[i] < n && 0 == strcmp(cacore_matrix_host(mx, idx[i]), hosts[i]),
                         "host %s found at %d", hosts[i], idx[i]);
            for (int k = 0; k < i; k++) {
                FUZZ_REQUIRE(idx[k] != idx[i], "hosts %s and %s at the same index", hosts[k],
                             hosts[i]);
            }
            found++;
        }
        if (found == n) {   /* the entry is used: the pairs in the node set's order */
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (i == j) {
                        continue;
                    }
                    double l = cacore_matrix_latency(mx, idx[i], idx[j]);
                    double b = cacore_matrix_bandwidth(mx, idx[i], idx[j]);
                    FUZZ_REQUIRE(isfinite(l) && l >= 0, "latency %s->%s = %g", hosts[i],
                                 hosts[j], l);
                    FUZZ_REQUIRE(isfinite(b) && b > 0, "bandwidth %s->%s = %g", hosts[i],
                                 hosts[j], b);
                }
            }
        }
    }
    cacore_matrix_free(mx);
    free(line);
    return 0;
}
