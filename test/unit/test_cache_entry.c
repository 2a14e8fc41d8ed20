/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * test_cache_entry.c - the pure parts of cache entries (docs/calibration.md, "Cache"): file
 * names, which names the leftover cleanup may remove, the age rule (an entry from the future is
 * stale), the check that an entry holds exactly the node set, and the entry's content. */
#include "test_util.h"

/* Latency 1e-5 * (10 i + j + 1), bandwidth 1e8 * (i + 1) + j: every ordered pair distinct. */
static double lat_ij(int i, int j, void *ctx)
{
    (void) ctx;
    return 1e-5 * (10 * i + j + 1);
}

static double bw_ij(int i, int j, void *ctx)
{
    (void) ctx;
    return 1e8 * (i + 1) + j;
}

START_TEST(entry_and_temp_names)
{
    char name[CACORE_CACHE_NAME_MAX], tmp[CACORE_CACHE_NAME_MAX];

    cacore_cache_entry_name(0xba5b7f22df6a9addull, name);
    ck_assert_str_eq(name, "cloudaware-ba5b7f22df6a9add.matrix");
    cacore_cache_entry_name(0x1ull, name);
    ck_assert_str_eq(name, "cloudaware-0000000000000001.matrix");

    /* The writer's temporary names: the entry name + ".tmp." + a nonce; the cleanup recognises
     * them (and the mkstemp names of earlier versions), and nothing else. */
    cacore_cache_temp_name(0x1ull, 0xffffffffffffffffull, tmp);
    ck_assert_str_eq(tmp, "cloudaware-0000000000000001.matrix.tmp.ffffffffffffffff");
    ck_assert_int_eq(cacore_cache_is_temp_name(tmp), 1);
    cacore_cache_temp_name(0x1ull, 0, tmp);
    ck_assert_str_eq(tmp, "cloudaware-0000000000000001.matrix.tmp.0");
    ck_assert_int_eq(cacore_cache_is_temp_name(tmp), 1);
    ck_assert_int_eq(cacore_cache_is_temp_name("cloudaware-ba5b7f22df6a9add.matrix.tmp.Ab12Zx"), 1);

    ck_assert_int_eq(cacore_cache_is_temp_name(name), 0);                     /* an entry */
    ck_assert_int_eq(cacore_cache_is_temp_name("cloudaware-0000000000000001.matrix.tmp."), 0);
    ck_assert_int_eq(cacore_cache_is_temp_name("cloudaware-000000000000001.matrix.tmp.1"), 0);
    ck_assert_int_eq(cacore_cache_is_temp_name("cloudaware-000000000000000G.matrix.tmp.1"), 0);
    ck_assert_int_eq(cacore_cache_is_temp_name("cloudaware-0000000000000001.matrx.tmp.1"), 0);
    ck_assert_int_eq(cacore_cache_is_temp_name("notes.matrix.tmp.1"), 0);
    ck_assert_int_eq(cacore_cache_is_temp_name("x/cloudaware-0000000000000001.matrix.tmp.1"), 0);
    ck_assert_int_eq(cacore_cache_is_temp_name(""), 0);
    ck_assert_int_eq(cacore_cache_is_temp_name(NULL), 0);
}
END_TEST

START_TEST(age_rule)
{
    const int64_t now = 1700000000, day = 86400, slack = CACORE_CACHE_CLOCK_SLACK_S;

    ck_assert_int_eq(cacore_cache_age(now, now, day), CACORE_CACHE_FRESH);
    ck_assert_int_eq(cacore_cache_age(now - day, now, day), CACORE_CACHE_FRESH);
    ck_assert_int_eq(cacore_cache_age(now - day - 1, now, day), CACORE_CACHE_OLD);
    /* From the future: stale beyond the clock slack (without the rule an entry dated a year
     * ahead would stay fresh for a year and a day). */
    ck_assert_int_eq(cacore_cache_age(now + slack, now, day), CACORE_CACHE_FRESH);
    ck_assert_int_eq(cacore_cache_age(now + slack + 1, now, day), CACORE_CACHE_FUTURE);
    ck_assert_int_eq(cacore_cache_age(now + 365 * day, now, day), CACORE_CACHE_FUTURE);
    /* No limit: age does not matter at all. */
    ck_assert_int_eq(cacore_cache_age(0, now, 0), CACORE_CACHE_FRESH);
    ck_assert_int_eq(cacore_cache_age(now + 365 * day, now, 0), CACORE_CACHE_FRESH);
    /* Extreme timestamps do not overflow into the wrong verdict. */
    ck_assert_int_eq(cacore_cache_age(INT64_MIN, INT64_MAX, day), CACORE_CACHE_OLD);
    ck_assert_int_eq(cacore_cache_age(INT64_MAX, INT64_MIN, day), CACORE_CACHE_FUTURE);
    /* The leftover bound of the writer's temporary files uses the same rule. */
    ck_assert_int_eq(cacore_cache_age(now - CACORE_CACHE_TEMP_MAX_AGE_S - 1, now,
                                      CACORE_CACHE_TEMP_MAX_AGE_S), CACORE_CACHE_OLD);
    ck_assert_int_eq(cacore_cache_age(now - 10, now, CACORE_CACHE_TEMP_MAX_AGE_S),
                     CACORE_CACHE_FRESH);
}
END_TEST

/* An entry for n0 n1 n2, read for the node set in another order: values follow the hosts. */
START_TEST(values_follow_the_node_set)
{
    cacore_matrix_t *m = tu_matrix(3, lat_ij, bw_ij, NULL);
    const char *hosts[3] = {"n2", "n0", "n1"};
    const int entry_of[3] = {2, 0, 1};
    double L[9], B[9];
    unsigned char known[9];
    char err[256];

    ck_assert_int_eq(cacore_cache_entry_values(m, 3, hosts, L, B, known, err, sizeof err),
                     CACORE_OK);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            int a = entry_of[i], b = entry_of[j];
            ck_assert_int_eq(known[i * 3 + j], i != j);
            ck_assert(L[i * 3 + j] == (i == j ? 0.0 : lat_ij(a, b, NULL)));
            ck_assert(B[i * 3 + j] == (i == j ? 0.0 : bw_ij(a, b, NULL)));
        }
    }
    cacore_matrix_free(m);
}
END_TEST

/* Node properties follow the node set like the pairs; an entry without them (written by an
 * older version, cloudaware-matrix 1) or without a node's burst credit (versions 2 and 3 read
 * as -1) or second lone sample (versions 2 to 4) is refused with a message saying so, and the
 * content of an entry with them is version 5. */
START_TEST(node_properties_follow_the_node_set)
{
    cacore_matrix_t *m = tu_matrix(3, lat_ij, bw_ij, NULL);
    const char *hosts[3] = {"n2", "n0", "n1"};
    double props[3 * CACORE_NODE_VALUES] = {1e6, 0,  1e-5, 0, 0,   16384, 0,     0,
                                            2e6, 3e6, 2e-5, 5e6, 2e6, 0, 4e6, 1.5e6,
                                            0,   0,  3e-5, 0, 0,   -1,    -1,    -1},
           got[3 * CACORE_NODE_VALUES];
    char err[256], *text = NULL;
    size_t len = 0;

    ck_assert_int_eq(cacore_cache_entry_node_props(m, 3, hosts, got, err, sizeof err),
                     CACORE_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err, "older version"));
    ck_assert_int_eq(cacore_matrix_set_node_props(m, props, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_cache_entry_node_props(m, 3, hosts, got, err, sizeof err),
                     CACORE_ERR_FORMAT);   /* n2's burst credit was not measured */
    ck_assert_ptr_nonnull(strstr(err, "older version (cloudaware-matrix 2 to 4"));
    props[2 * CACORE_NODE_VALUES + CACORE_NODE_BURST] = 0;
    ck_assert_int_eq(cacore_matrix_set_node_props(m, props, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_cache_entry_node_props(m, 3, hosts, got, err, sizeof err),
                     CACORE_ERR_FORMAT);   /* nor its second lone sample (version 4) */
    ck_assert_ptr_nonnull(strstr(err, "second lone sample"));
    props[2 * CACORE_NODE_VALUES + CACORE_NODE_LONE2] = 0;
    props[2 * CACORE_NODE_VALUES + CACORE_NODE_SHARED2] = 0;
    ck_assert_int_eq(cacore_matrix_set_node_props(m, props, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_cache_entry_node_props(m, 3, hosts, got, err, sizeof err), CACORE_OK);
    for (int k = 0; k < CACORE_NODE_VALUES; k++) {
        const int v = CACORE_NODE_VALUES;
        ck_assert(got[k] == props[2 * v + k]);   /* n2 first */
        ck_assert(got[v + k] == props[k]);       /* then n0 */
        ck_assert(got[2 * v + k] == props[v + k]);   /* then n1 */
    }
    ck_assert_int_eq(cacore_cache_entry_format(m, 42, &text, &len, err, sizeof err), CACORE_OK);
    ck_assert_ptr_nonnull(strstr(text, "\ncloudaware-matrix 5\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nnode_lone2_Bps\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nnode_burst_bytes\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nnode_overhead_s\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nnode_lone_Bps\n"));
    free(text);
    cacore_matrix_free(m);
}
END_TEST

/* A hash collision or a hand-edited file: the host set differs, nothing is used. */
START_TEST(other_host_sets_are_rejected)
{
    cacore_matrix_t *m = tu_matrix(3, lat_ij, bw_ij, NULL);
    const char *fewer[2] = {"n0", "n1"};
    const char *other[3] = {"n0", "n1", "x9"};
    const char *twice[3] = {"n0", "n1", "n1"};
    double L[9], B[9];
    unsigned char known[9];
    char err[256];

    memset(known, 7, sizeof known);
    ck_assert_int_eq(cacore_cache_entry_values(m, 2, fewer, L, B, known, err, sizeof err),
                     CACORE_ERR_FORMAT);
    ck_assert_str_eq(err, "is for 3 hosts, not these 2");
    ck_assert_int_eq(cacore_cache_entry_values(m, 3, other, L, B, known, err, sizeof err),
                     CACORE_ERR_FORMAT);
    ck_assert_str_eq(err, "does not list host x9 (a matrix of other hosts)");
    ck_assert_int_eq(cacore_cache_entry_values(m, 3, twice, L, B, known, err, sizeof err),
                     CACORE_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err, "n1 twice"));
    for (int i = 0; i < 9; i++) {
        ck_assert_int_eq(known[i], 7);   /* nothing written on a mismatch */
    }
    ck_assert_int_eq(cacore_cache_entry_values(NULL, 3, other, L, B, known, err, sizeof err),
                     CACORE_ERR_ARG);
    cacore_matrix_free(m);
}
END_TEST

/* The content is a matrix file naming the key, read back exactly. */
START_TEST(content_round_trips)
{
    cacore_matrix_t *m = tu_matrix(4, lat_ij, bw_ij, NULL), *back = NULL;
    char *text = NULL, err[256];
    size_t len = 0;

    ck_assert_int_eq(cacore_cache_entry_format(m, 0xba5b7f22df6a9addull, &text, &len, err,
                                               sizeof err), CACORE_OK);
    ck_assert_uint_eq(len, strlen(text));
    ck_assert_ptr_nonnull(strstr(text, "# coll/cloudaware cache entry ba5b7f22df6a9add"));
    ck_assert_ptr_nonnull(strstr(text, "\ncloudaware-matrix 1\nnodes 4\n"));
    const char *path = tu_write_temp(text);
    ck_assert_int_eq(cacore_matrix_read_file(path, &back, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_matrix_nodes(back), 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_str_eq(cacore_matrix_host(back, i), cacore_matrix_host(m, i));
        for (int j = 0; j < 4; j++) {
            ck_assert(cacore_matrix_latency(back, i, j) == cacore_matrix_latency(m, i, j));
            ck_assert(cacore_matrix_bandwidth(back, i, j) == cacore_matrix_bandwidth(m, i, j));
        }
    }
    unlink(path);
    free(text);
    cacore_matrix_free(back);
    cacore_matrix_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cache_entry");
    TCase *tc = tcase_create("cache_entry");
    tcase_add_test(tc, entry_and_temp_names);
    tcase_add_test(tc, age_rule);
    tcase_add_test(tc, values_follow_the_node_set);
    tcase_add_test(tc, node_properties_follow_the_node_set);
    tcase_add_test(tc, other_host_sets_are_rejected);
    tcase_add_test(tc, content_round_trips);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
