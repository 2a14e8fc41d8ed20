/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * trial_check: the same collective, root and size many times, as the live trial sees an
 * application (docs/calibration.md, "Live trial"): REPS blocking calls (the trial's calls and the
 * ones after it), then REPS nonblocking ones (which run the trial's outcome). Every result is
 * checked against a local reference; the inputs change with every call, so a stale buffer
 * cannot pass. Exits non-zero on any wrong result or error.
 *
 * Usage: trial_check COLL[,COLL...] COUNT REPS [ROOT [DUPS]]
 *   COLL: bcast, reduce, allreduce, gather, scatter or allgather (several: one after the other);
 *   COUNT ints per rank (per block for gather, scatter and allgather); ROOT default 0; DUPS
 *   (default 0): afterwards the same calls again on each of DUPS communicators dup'ed from
 *   MPI_COMM_WORLD, one after the other.
 * Rank 0 prints each blocking call's time (its local view) as "trial_check: COLL call K: T s"
 * ("trial_check: dup D: COLL call K: T s" on the D-th dup).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures, checks;
static MPI_Comm comm;   /* the communicator of the calls: MPI_COMM_WORLD, then each dup */

/* The input of rank r, call k, element e. */
static int input(int r, int k, int e)
{
    return (r + 1) * 1000 + k * 7 + e % 101;
}

static void expect(const char *what, int k, const int *got, int n, int (*want)(int, int, int),
                   int a, int b)
{
    checks++;
    for (int e = 0; e < n; e++) {
        int w = want(e, a, b);
        if (got[e] != w) {
            if (failures++ < 10) {
                fprintf(stderr, "trial_check: [rank %d] %s call %d: element %d is %d, want %d\n",
                        rank, what, k, e, got[e], w);
            }
            return;
        }
    }
}

static int want_input(int e, int r, int k) { return input(r, k, e); }

static int want_sum(int e, int k, int unused)
{
    long s = 0;
    (void) unused;
    for (int r = 0; r < size; r++) {
        s += input(r, k, e);
    }
    return (int) s;
}

/* Rank-major blocks of count elements: block r is rank r's input. */
static int count_g;
static int want_gathered(int e, int k, int unused)
{
    (void) unused;
    return input(e / count_g, k, e % count_g);
}

/* One call k of coll, blocking or not; checks its result. */
static void one(const char *coll, int count, int root, int k, int blocking)
{
    int *s = malloc(sizeof(int) * (size_t) count * (size_t) size);
    int *r = malloc(sizeof(int) * (size_t) count * (size_t) size);
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;

    for (int e = 0; e < count * size; e++) {
        s[e] = input(rank, k, e % count);
        r[e] = -1;
    }
    if (0 == strcmp(coll, "bcast")) {
        int *b = rank == root ? s : r;
        rc = blocking ? MPI_Bcast(b, count, MPI_INT, root, comm)
                      : MPI_Ibcast(b, count, MPI_INT, root, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        expect(coll, k, b, count, want_input, root, k);
    } else if (0 == strcmp(coll, "reduce") || 0 == strcmp(coll, "allreduce")) {
        int all = 0 == strcmp(coll, "allreduce");
        if (all) {
            rc = blocking ? MPI_Allreduce(s, r, count, MPI_INT, MPI_SUM, comm)
                          : MPI_Iallreduce(s, r, count, MPI_INT, MPI_SUM, comm, &req);
        } else {
            rc = blocking ? MPI_Reduce(s, r, count, MPI_INT, MPI_SUM, root, comm)
                          : MPI_Ireduce(s, r, count, MPI_INT, MPI_SUM, root, comm, &req);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (all || rank == root) {
            expect(coll, k, r, count, want_sum, k, 0);
        }
    } else if (0 == strcmp(coll, "gather") || 0 == strcmp(coll, "allgather")) {
        int all = 0 == strcmp(coll, "allgather");
        if (all) {
            rc = blocking ? MPI_Allgather(s, count, MPI_INT, r, count, MPI_INT, comm)
                          : MPI_Iallgather(s, count, MPI_INT, r, count, MPI_INT, comm,
                                           &req);
        } else {
            rc = blocking ? MPI_Gather(s, count, MPI_INT, r, count, MPI_INT, root, comm)
                          : MPI_Igather(s, count, MPI_INT, r, count, MPI_INT, root,
                                        comm, &req);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (all || rank == root) {
            expect(coll, k, r, count * size, want_gathered, k, 0);
        }
    } else if (0 == strcmp(coll, "scatter")) {
        /* The root's block for rank d is rank d's "input". */
        for (int e = 0; e < count * size && rank == root; e++) {
            s[e] = input(e / count, k, e % count);
        }
        rc = blocking ? MPI_Scatter(s, count, MPI_INT, r, count, MPI_INT, root, comm)
                      : MPI_Iscatter(s, count, MPI_INT, r, count, MPI_INT, root, comm,
                                     &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        expect(coll, k, r, count, want_input, rank, k);
    } else {
        if (0 == rank) {
            fprintf(stderr, "trial_check: unknown collective %s\n", coll);
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (MPI_SUCCESS != rc) {
        failures++;
        fprintf(stderr, "trial_check: [rank %d] %s call %d returned %d\n", rank, coll, k, rc);
    }
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    int count = 0, reps = 0, root = 0, dups = 0, total_failures, total_checks;
    char colls[256];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4 || argc > 6 || (count = atoi(argv[2])) < 1 || (reps = atoi(argv[3])) < 1
        || (argc >= 5 && ((root = atoi(argv[4])) < 0 || root >= size))
        || (6 == argc && (dups = atoi(argv[5])) < 0)) {
        if (0 == rank) {
            fprintf(stderr, "usage: trial_check COLL[,COLL...] COUNT REPS [ROOT [DUPS]]\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    count_g = count;
    snprintf(colls, sizeof(colls), "%s", argv[1]);
    for (int d = 0; d <= dups; d++) {
        char list[256], *save = NULL;

        comm = MPI_COMM_WORLD;
        if (d > 0) {
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        }
        snprintf(list, sizeof(list), "%s", colls);   /* strtok_r cuts it */
        for (char *coll = strtok_r(list, ",", &save); NULL != coll;
             coll = strtok_r(NULL, ",", &save)) {
            for (int k = 0; k < reps; k++) {
                double t = MPI_Wtime();
                one(coll, count, root, k, 1);
                t = MPI_Wtime() - t;
                if (0 == rank && 0 == d) {
                    printf("trial_check: %s call %d: %.6f s\n", coll, k, t);
                } else if (0 == rank) {
                    printf("trial_check: dup %d: %s call %d: %.6f s\n", d, coll, k, t);
                }
            }
            for (int k = reps; k < 2 * reps; k++) {
                one(coll, count, root, k, 0);
            }
        }
        if (d > 0) {
            MPI_Comm_free(&comm);
        }
    }
    /* Point-to-point, so that the summary does not go through the collectives checked. */
    total_failures = failures;
    total_checks = checks;
    if (0 == rank) {
        for (int r = 1; r < size; r++) {
            int v[2];
            MPI_Recv(v, 2, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total_failures += v[0];
            total_checks += v[1];
        }
        printf("trial_check: %s count=%d reps=%d on %d ranks: %d checks, %d failures\n", colls,
               count, reps, size, total_checks, total_failures);
    } else {
        int v[2] = { failures, checks };
        MPI_Send(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return (0 == rank ? total_failures : failures) ? 1 : 0;
}
