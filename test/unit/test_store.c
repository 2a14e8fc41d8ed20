/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * test_store.c - the pair store: what a process learns about pairs of hosts from matrix files,
 * cache entries and calibrations of node subsets, looked up as the sub-matrix of any host list.
 *
 * The hand-made network: three hosts a, b, c with asymmetric links (row = sender),
 *
 *   latency (us)   a    b    c        bandwidth (MB/s)  a    b    c
 *        a         -   10   30              a          -   100  300
 *        b        20    -   50              b         200   -   500
 *        c        40   60    -              c         400  600   -
 *
 * learnt the way a job learns it: first a calibration of {a, b}, then one of {b, c}. The store
 * then knows a<->b and b<->c but not a<->c, and must say so. */
#include "test_util.h"

#include <math.h>

static const char *ABC[] = {"a", "b", "c"};

/* The table above; hosts are named a, b, c. */
static const double LAT_US[3][3] = {{0, 10, 30}, {20, 0, 50}, {40, 60, 0}};
static const double BW_MBS[3][3] = {{0, 100, 300}, {200, 0, 500}, {400, 600, 0}};

static double lat_of(const char *from, const char *to)
{
    return 1e-6 * LAT_US[from[0] - 'a'][to[0] - 'a'];
}

static double bw_of(const char *from, const char *to)
{
    return 1e6 * BW_MBS[from[0] - 'a'][to[0] - 'a'];
}

/* Merges the table's pairs among hosts[0..n) (all of them). */
static void merge_table(cacore_store_t *s, int n, const char *const *hosts)
{
    double l[9], b[9];
    unsigned char k[9];
    char err[256];
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            l[i * n + j] = i == j ? 0 : lat_of(hosts[i], hosts[j]);
            b[i * n + j] = i == j ? 0 : bw_of(hosts[i], hosts[j]);
            k[i * n + j] = i != j;
        }
    }
    ck_assert_msg(cacore_store_merge(s, n, hosts, l, b, k, err, sizeof err) == CACORE_OK, "%s",
                  err);
}

static cacore_store_t *new_store(void)
{
    cacore_store_t *s = NULL;
    char err[256];
    ck_assert_int_eq(cacore_store_create(&s, err, sizeof err), CACORE_OK);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(cacore_store_hosts(s), 0);
    return s;
}

/* All of a, b, c learnt at once; {c, a} looked up in that order is the transposed corner. */
START_TEST(hand_made_example)
{
    cacore_store_t *s = new_store();
    merge_table(s, 3, ABC);
    ck_assert_int_eq(cacore_store_hosts(s), 3);
    ck_assert_uint_eq(cacore_store_pairs(s), 6);

    const char *ca[] = {"c", "a"};
    double l[4], b[4];
    unsigned char k[4];
    size_t nknown = 99;
    char err[256];
    ck_assert_int_eq(cacore_store_lookup(s, 2, ca, l, b, k, &nknown, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(nknown, 2);
    ck_assert_int_eq(k[0], 0);   /* the diagonal is never known */
    ck_assert_int_eq(k[3], 0);
    ck_assert_int_eq(k[1], 1);   /* c -> a */
    ck_assert_int_eq(k[2], 1);   /* a -> c */
    ck_assert_double_eq_tol(l[1], 40e-6, 1e-12);
    ck_assert_double_eq_tol(b[1], 400e6, 1e-3);
    ck_assert_double_eq_tol(l[2], 30e-6, 1e-12);
    ck_assert_double_eq_tol(b[2], 300e6, 1e-3);
    ck_assert_double_eq(l[0], 0.0);
    cacore_store_free(s);
}
END_TEST

/* {a, b} then {b, c}: b is shared; a<->c was never measured together and is reported unknown,
 * with value 0, while the others keep their values. A later {b, a} that flags b->a only replaces
 * that one direction. */
START_TEST(merge_overlapping_host_sets)
{
    cacore_store_t *s = new_store();
    const char *ab[] = {"a", "b"}, *bc[] = {"b", "c"};
    merge_table(s, 2, ab);
    merge_table(s, 2, bc);
    ck_assert_int_eq(cacore_store_hosts(s), 3);   /* b counted once */
    ck_assert_uint_eq(cacore_store_pairs(s), 4);

    double l[9], b[9];
    unsigned char k[9];
    size_t nknown = 0;
    char err[256];
    ck_assert_int_eq(cacore_store_lookup(s, 3, ABC, l, b, k, &nknown, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(nknown, 4);
    static const unsigned char want[9] = {0, 1, 0,
                                          1, 0, 1,
                                          0, 1, 0};
    for (int x = 0; x < 9; ++x) {
        ck_assert_msg(k[x] == want[x], "pair %d->%d: known %d, expected %d", x / 3, x % 3, k[x],
                      want[x]);
        if (!want[x]) {
            ck_assert_double_eq(l[x], 0.0);
            ck_assert_double_eq(b[x], 0.0);
        }
    }
    ck_assert_double_eq_tol(l[1 * 3 + 2], 50e-6, 1e-12);   /* b -> c, from the second merge */
    ck_assert_double_eq_tol(b[2 * 3 + 1], 600e6, 1e-3);    /* c -> b */

    /* Replace b -> a only: flags may be any non-zero byte. */
    const char *ba[] = {"b", "a"};
    double l2[4] = {0, 7e-6, 0, 0}, b2[4] = {0, 7e6, 0, 0};
    unsigned char k2[4] = {0, 0xff, 0, 0};
    ck_assert_int_eq(cacore_store_merge(s, 2, ba, l2, b2, k2, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(cacore_store_pairs(s), 4);   /* replaced, not added */
    ck_assert_int_eq(cacore_store_lookup(s, 2, ab, l2, b2, k2, &nknown, err, sizeof err),
                     CACORE_OK);
    ck_assert_uint_eq(nknown, 2);
    ck_assert_double_eq_tol(l2[0 * 2 + 1], 10e-6, 1e-12);   /* a -> b unchanged */
    ck_assert_double_eq_tol(l2[1 * 2 + 0], 7e-6, 1e-12);    /* b -> a replaced */
    ck_assert_double_eq_tol(b2[1 * 2 + 0], 7e6, 1e-3);

    /* Filling the gap a<->c completes the set. */
    const char *ac[] = {"a", "c"};
    merge_table(s, 2, ac);
    ck_assert_int_eq(cacore_store_lookup(s, 3, ABC, l, b, k, &nknown, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(nknown, 6);
    cacore_store_free(s);
}
END_TEST

/* Lookups of any host list: subsets, a host never seen, one host, none, a repeated host. */
START_TEST(lookup_of_subsets_and_unknown_hosts)
{
    cacore_store_t *s = new_store();
    merge_table(s, 3, ABC);
    double l[9], b[9];
    unsigned char k[9];
    size_t nknown = 99;
    char err[256];

    const char *bzc[] = {"b", "zz", "c"};
    ck_assert_int_eq(cacore_store_lookup(s, 3, bzc, l, b, k, &nknown, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(nknown, 2);                /* only b <-> c */
    ck_assert_int_eq(k[0 * 3 + 2], 1);
    ck_assert_int_eq(k[2 * 3 + 0], 1);
    ck_assert_double_eq_tol(l[2 * 3 + 0], 60e-6, 1e-12);   /* c -> b */
    for (int j = 0; j < 3; ++j) {
        ck_assert_int_eq(k[1 * 3 + j], 0);       /* zz knows nobody */
        ck_assert_int_eq(k[j * 3 + 1], 0);
    }
    ck_assert_int_eq(cacore_store_hosts(s), 3);  /* a lookup learns nothing */

    const char *one[] = {"a"};
    ck_assert_int_eq(cacore_store_lookup(s, 1, one, l, b, k, &nknown, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(nknown, 0);
    ck_assert_int_eq(cacore_store_lookup(s, 0, NULL, NULL, NULL, NULL, &nknown, err, sizeof err),
                     CACORE_OK);
    ck_assert_uint_eq(nknown, 0);

    const char *aa[] = {"a", "a"};
    ck_assert_int_eq(cacore_store_lookup(s, 2, aa, l, b, k, &nknown, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(nknown, 0);                /* a host with itself is not a pair */
    cacore_store_free(s);
}
END_TEST

/* A bad merge is refused as a whole, with a one-line message that does not echo the input. */
static void expect_refused(cacore_store_t *s, int n, const char *const *hosts, const double *l,
                           const double *b, const unsigned char *k, const char *want)
{
    char err[256];
    int hosts_before = cacore_store_hosts(s);
    size_t pairs_before = cacore_store_pairs(s);
    ck_assert_int_eq(cacore_store_merge(s, n, hosts, l, b, k, err, sizeof err), CACORE_ERR_ARG);
    ck_assert_msg(strstr(err, want) != NULL, "'%s' does not mention '%s'", err, want);
    ck_assert_msg(strchr(err, '\n') == NULL, "message is not one line: '%s'", err);
    ck_assert_msg(strstr(err, "\x01") == NULL, "message echoes a control byte: '%s'", err);
    ck_assert_int_eq(cacore_store_hosts(s), hosts_before);
    ck_assert_uint_eq(cacore_store_pairs(s), pairs_before);
}

START_TEST(bad_merges_change_nothing)
{
    cacore_store_t *s = new_store();
    const char *ab[] = {"a", "b"};
    merge_table(s, 2, ab);

    const char *xy[] = {"x", "y"}, *xx[] = {"x", "x"}, *ctl[] = {"x", "y\x01z"},
               *blank[] = {"x", ""}, *nul[] = {"x", NULL};
    double l[4] = {0, 1e-5, 1e-5, 0}, b[4] = {0, 1e8, 1e8, 0};
    unsigned char k[4] = {0, 1, 1, 0};
    expect_refused(s, 2, xx, l, b, k, "host 1 repeats host 0");
    expect_refused(s, 2, blank, l, b, k, "host 1: empty host name");
    expect_refused(s, 2, nul, l, b, k, "host 1 is NULL");
    expect_refused(s, -1, xy, l, b, k, "bad host list");

    double nan_l[4] = {0, NAN, 1e-5, 0}, neg_l[4] = {0, 1e-5, -1e-6, 0};
    double zero_b[4] = {0, 1e8, 0.0, 0}, inf_b[4] = {0, INFINITY, 1e8, 0};
    expect_refused(s, 2, xy, nan_l, b, k, "pair 0->1");
    expect_refused(s, 2, xy, neg_l, b, k, "pair 1->0");
    expect_refused(s, 2, xy, l, zero_b, k, "pair 1->0");
    expect_refused(s, 2, xy, l, inf_b, k, "pair 0->1");
    /* A host name with a control byte that is not white space is a valid name for the store
     * (matrix files allow it too) -- and is not quoted back by the refusals above. */
    char err[256];
    ck_assert_int_eq(cacore_store_merge(s, 2, ctl, l, b, k, err, sizeof err), CACORE_OK);

    /* An invalid value on an unflagged pair or the diagonal is not looked at. */
    unsigned char only01[4] = {0, 1, 0, 0};
    double diag[4] = {NAN, 1e-5, NAN, NAN};
    ck_assert_int_eq(cacore_store_merge(s, 2, xy, diag, b, only01, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_store_merge(s, 2, xy, NULL, b, k, err, sizeof err), CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_store_merge(NULL, 2, xy, l, b, k, err, sizeof err), CACORE_ERR_ARG);
    cacore_store_free(s);
}
END_TEST

static double lat_fn(int i, int j, void *ctx)
{
    (void) ctx;
    return 1e-6 * (1 + i) + 1e-7 * j;
}

static double bw_fn(int i, int j, void *ctx)
{
    (void) ctx;
    return 1e8 + 1e6 * i + 1e3 * j;
}

/* A matrix file's matrix goes in whole; its sub-matrices come back exactly. */
START_TEST(merge_of_a_matrix)
{
    cacore_store_t *s = new_store();
    cacore_matrix_t *m = tu_matrix(5, lat_fn, bw_fn, NULL);
    char err[256];
    ck_assert_int_eq(cacore_store_merge_matrix(s, m, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(cacore_store_pairs(s), 20);
    const char *sub[] = {"n4", "n1", "n2"};
    const int idx[] = {4, 1, 2};
    double l[9], b[9];
    unsigned char k[9];
    size_t nknown = 0;
    ck_assert_int_eq(cacore_store_lookup(s, 3, sub, l, b, k, &nknown, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(nknown, 6);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            if (i != j) {
                ck_assert_double_eq(l[i * 3 + j], cacore_matrix_latency(m, idx[i], idx[j]));
                ck_assert_double_eq(b[i * 3 + j], cacore_matrix_bandwidth(m, idx[i], idx[j]));
            }
        }
    }
    ck_assert_int_eq(cacore_store_merge_matrix(s, NULL, err, sizeof err), CACORE_ERR_ARG);
    cacore_matrix_free(m);
    cacore_store_free(s);
}
END_TEST

/* Node properties are learnt per host like pairs: merged for the flagged hosts only, found by
 * any later lookup naming the host, replaced by a later merge; a matrix brings its own; invalid
 * values change nothing. */
START_TEST(node_properties_per_host)
{
    cacore_store_t *s = new_store();
    const char *ab[] = {"a", "b"}, *cba[] = {"c", "b", "a"};
    double p[3 * CACORE_NODE_VALUES] = {1e6, 2e6, 1e-5, 0, 0, 3e6, 0, 0, 0, 2e6, 1e-5, 0, 0, 0, 0, 0},
           q[3 * CACORE_NODE_VALUES];
    unsigned char known[3] = {1, 0}, k[3];
    size_t nknown = 0;
    char err[256];
    ck_assert_int_eq(cacore_store_merge_nodes(s, 2, ab, p, known, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_store_lookup_nodes(s, 3, cba, q, k, &nknown, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(nknown, 1);
    ck_assert(!k[0] && !k[1] && k[2]);
    ck_assert_double_eq(q[2 * CACORE_NODE_VALUES + CACORE_NODE_INGRESS], 2e6);
    ck_assert_double_eq(q[CACORE_NODE_VALUES + CACORE_NODE_EGRESS], 0);
    p[CACORE_NODE_OVERHEAD] = -1;   /* invalid: nothing changes */
    known[1] = 1;
    ck_assert_int_eq(cacore_store_merge_nodes(s, 2, ab, p, known, err, sizeof err), CACORE_ERR_ARG);
    ck_assert_int_eq(cacore_store_lookup_nodes(s, 3, cba, q, k, &nknown, err, sizeof err), CACORE_OK);
    ck_assert_uint_eq(nknown, 1);
    ck_assert_double_eq(q[2 * CACORE_NODE_VALUES + CACORE_NODE_OVERHEAD], 1e-5);
    cacore_matrix_t *m = tu_matrix(5, lat_fn, bw_fn, NULL);
    double mp[5 * CACORE_NODE_VALUES] = {0};
    mp[CACORE_NODE_OVERHEAD] = 7e-6;   /* host n0 */
    ck_assert_int_eq(cacore_matrix_set_node_props(m, mp, err, sizeof err), CACORE_OK);
    ck_assert_int_eq(cacore_store_merge_matrix(s, m, err, sizeof err), CACORE_OK);
    const char *n0[] = {"n0"};
    ck_assert_int_eq(cacore_store_lookup_nodes(s, 1, n0, q, k, &nknown, err, sizeof err), CACORE_OK);
    ck_assert(k[0]);
    ck_assert_double_eq(q[CACORE_NODE_OVERHEAD], 7e-6);
    cacore_matrix_free(m);
    cacore_store_free(s);
}
END_TEST

/* Many hosts learnt a pair at a time, as sliding windows of 2 (a chain h0-h1-...-h(N-1)): the
 * store grows without losing pairs, and a lookup of all N knows exactly the 2(N-1) chain pairs.
 * (The component's old store kept capacity^2 entries in int arithmetic; this one keeps rows.) */
START_TEST(many_hosts_a_pair_at_a_time)
{
    enum { N = 3000 };
    cacore_store_t *s = new_store();
    char (*names)[16] = malloc(sizeof(*names) * N);
    const char **hosts = malloc(sizeof(*hosts) * N);
    char err[256];
    for (int i = 0; i < N; ++i) {
        snprintf(names[i], sizeof names[i], "h%d", i);
        hosts[i] = names[i];
    }
    for (int i = 0; i + 1 < N; ++i) {
        double l[4] = {0, 1e-6 * i, 2e-6 * i, 0}, b[4] = {0, 1e6 + i, 2e6 + i, 0};
        unsigned char k[4] = {0, 1, 1, 0};
        ck_assert_int_eq(cacore_store_merge(s, 2, hosts + i, l, b, k, err, sizeof err), CACORE_OK);
    }
    ck_assert_int_eq(cacore_store_hosts(s), N);
    ck_assert_uint_eq(cacore_store_pairs(s), 2 * (N - 1));
    size_t nn = (size_t) N * N, nknown = 0;
    double *l = malloc(sizeof(double) * nn), *b = malloc(sizeof(double) * nn);
    unsigned char *k = malloc(nn);
    ck_assert_int_eq(cacore_store_lookup(s, N, hosts, l, b, k, &nknown, err, sizeof err),
                     CACORE_OK);
    ck_assert_uint_eq(nknown, 2 * (N - 1));
    ck_assert_int_eq(k[(size_t) 1000 * N + 1001], 1);
    ck_assert_double_eq_tol(l[(size_t) 1001 * N + 1000], 2e-3, 1e-12);
    ck_assert_int_eq(k[(size_t) 1000 * N + 1002], 0);
    free(l);
    free(b);
    free(k);
    free(hosts);
    free(names);
    cacore_store_free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pair store");
    TCase *tc = tcase_create("store");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, hand_made_example);
    tcase_add_test(tc, node_properties_per_host);
    tcase_add_test(tc, merge_overlapping_host_sets);
    tcase_add_test(tc, lookup_of_subsets_and_unknown_hosts);
    tcase_add_test(tc, bad_merges_change_nothing);
    tcase_add_test(tc, merge_of_a_matrix);
    tcase_add_test(tc, many_hosts_a_pair_at_a_time);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
