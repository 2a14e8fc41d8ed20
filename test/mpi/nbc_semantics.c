/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * nbc_semantics: the MPI rules nonblocking and persistent collectives must keep, whoever
 * provides them.
 *   1. No deadlock with point-to-point traffic between start and wait: even ranks start
 *      MPI_Ibarrier and then send (rendezvous-sized) to the next odd rank, which receives
 *      before it starts its own MPI_Ibarrier.
 *   2. Several outstanding collectives on one communicator complete in any wait order
 *      (reverse order here, then MPI_Waitall on a shuffled array), with blocking collectives
 *      called while they are outstanding; per-communicator ordering keeps results apart.
 *   3. Leaks: --leak ITER runs ITER persistent start/wait cycles and 10*ITER nonblocking
 *      collectives and fails if the resident set grows by more than 8 MiB after a warm-up.
 * Usage: nbc_semantics [--leak ITER]
 */
#include "mpi_persistent.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures, rank, size;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "nbc_semantics: rank %d: FAILED: %s\n", rank, what);
        failures++;
    }
}

static long rss_kib(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (NULL != f) {
        if (2 != fscanf(f, "%ld %ld", &pages, &rss)) {
            rss = 0;
        }
        fclose(f);
    }
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static void test_interleave(void)
{
    enum { N = 1 << 18 };   /* 1 MiB of ints: rendezvous protocol, the send blocks until matched */
    int *buf = calloc(N, sizeof(int));
    MPI_Request rq;

    if (0 == rank % 2) {
        MPI_Ibarrier(MPI_COMM_WORLD, &rq);
        if (rank + 1 < size) {
            buf[0] = 42;
            MPI_Send(buf, N, MPI_INT, rank + 1, 5, MPI_COMM_WORLD);
        }
    } else {
        MPI_Recv(buf, N, MPI_INT, rank - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(42 == buf[0], "point-to-point data between Ibarrier start and wait");
        MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    free(buf);
}

static void test_outstanding(MPI_Comm comm)
{
    int r, p, a = 0, sum = 0, b0 = -1, b1 = -1, blk = -1;
    int *ag, *at_s, *at_r;
    MPI_Request rq[6];

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    ag = malloc(sizeof(int) * (size_t) p);
    at_s = malloc(sizeof(int) * (size_t) p);
    at_r = malloc(sizeof(int) * (size_t) p);
    for (int j = 0; j < p; j++) {
        at_s[j] = r * 100 + j;
    }
    a = r + 1;
    if (0 == r) {
        b0 = 1000;
    }
    if (p - 1 == r) {
        b1 = 2000;
    }
    MPI_Iallreduce(&a, &sum, 1, MPI_INT, MPI_SUM, comm, &rq[0]);
    MPI_Ibcast(&b0, 1, MPI_INT, 0, comm, &rq[1]);
    MPI_Ibcast(&b1, 1, MPI_INT, p - 1, comm, &rq[2]);
    MPI_Iallgather(&a, 1, MPI_INT, ag, 1, MPI_INT, comm, &rq[3]);
    MPI_Ialltoall(at_s, 1, MPI_INT, at_r, 1, MPI_INT, comm, &rq[4]);
    MPI_Ibarrier(comm, &rq[5]);
    /* A blocking collective while six are outstanding. */
    blk = (0 == r) ? 77 : -1;
    MPI_Bcast(&blk, 1, MPI_INT, 0, comm);
    for (int k = 5; k >= 0; k--) {
        MPI_Wait(&rq[k], MPI_STATUS_IGNORE);
    }
    check(p * (p + 1) / 2 == sum, "Iallreduce outstanding with others");
    check(1000 == b0 && 2000 == b1, "two Ibcasts with different roots outstanding");
    check(77 == blk, "blocking bcast while nonblocking ones are outstanding");
    for (int j = 0; j < p; j++) {
        check(j + 1 == ag[j], "Iallgather outstanding with others");
        check(j * 100 + r == at_r[j], "Ialltoall outstanding with others");
    }

    /* Waitall over a shuffled set, persistent and nonblocking mixed. */
    {
        int x = r, y = -1, z = 0;
        MPI_Request mix[3];
        MPIX_Allreduce_init(&x, &z, 1, MPI_INT, MPI_MAX, comm, MPI_INFO_NULL, &mix[1]);
        MPI_Start(&mix[1]);
        y = (0 == r) ? 5 : -1;
        MPI_Ibcast(&y, 1, MPI_INT, 0, comm, &mix[2]);
        MPI_Ibarrier(comm, &mix[0]);
        MPI_Waitall(3, mix, MPI_STATUSES_IGNORE);
        check(p - 1 == z && 5 == y, "Waitall over persistent + nonblocking");
        MPI_Request_free(&mix[1]);
    }
    free(ag);
    free(at_s);
    free(at_r);
}

static void test_leak(int iter)
{
    int x = rank, y = 0, z = 0;
    long before = 0, after;
    MPI_Request pr[2], rq;

    MPIX_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pr[0]);
    MPIX_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pr[1]);
    for (int phase = 0; phase < 2; phase++) {   /* phase 0 warms up allocator and free lists */
        int n = phase ? iter : iter / 10 + 1;
        for (int i = 0; i < n; i++) {
            MPI_Startall(2, pr);
            MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
        }
        for (int i = 0; i < 10 * n; i++) {
            if (i % 2) {
                MPI_Iallreduce(&x, &z, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
            } else {
                z = (0 == rank) ? i : -1;
                MPI_Ibcast(&z, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq);
            }
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
        if (0 == phase) {
            before = rss_kib();
        }
    }
    after = rss_kib();
    check(size * (size - 1) / 2 == y, "persistent allreduce after many starts");
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);
    if (0 == rank) {
        printf("nbc_semantics: %d persistent start/wait cycles, %d nonblocking collectives: "
               "resident set %ld KiB -> %ld KiB\n", iter, 10 * iter, before, after);
    }
    check(after - before < 8 * 1024, "resident set grew by more than 8 MiB (leak)");
}

int main(int argc, char **argv)
{
    int leak = 0, total;
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i++) {
        if (0 == strcmp(argv[i], "--leak")) {
            leak = atoi(argv[i + 1]);
        }
    }
    test_interleave();
    test_outstanding(MPI_COMM_WORLD);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    test_outstanding(dup);
    test_outstanding(MPI_COMM_SELF);
    MPI_Comm_free(&dup);
    if (leak > 0) {
        test_leak(leak);
    }
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("nbc_semantics: %d ranks, %d failures\n", size, total);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
