/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * lab-pingpong.c - per-ordered-host-pair bandwidth and latency for `lab verify`.
 *
 * usage: lab-pingpong -p SCHEDULE [-s BYTES] [-r REPS] [-l LATREPS] [-g GAP_MS]
 *   SCHEDULE: lines "ROUND SRC_HOST DST_HOST" (host = MPI processor name); pairs of one round are
 *   measured at the same time, rounds one after another.  One rank per host is used (the lowest
 *   rank on each host); start it with one rank per host.
 * Bandwidth: the sender times MPI_Send(BYTES) followed by a 0-byte reply; median of REPS after one
 * warm-up message; with -g the sender idles GAP_MS milliseconds before each of them (what a shaped
 * link passes after an idle period).  Latency: half the round trip of a 1-byte ping-pong, median of
 * LATREPS.
 * Output (rank 0): "PAIR SRC DST median_Bps min_Bps max_Bps latency_s" per pair and
 * "ROUND r" after each round (progress).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXPAIRS 8192

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(double), cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* barrier in which waiting ranks sleep (2 cores shared by many ranks) */
static void quiet_barrier(void)
{
    MPI_Request r;
    int done = 0;
    struct timespec ts = {0, 1000000};
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    for (;;) {
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (done) {
            break;
        }
        nanosleep(&ts, NULL);
    }
}

int main(int argc, char **argv)
{
    int rank, size, i, k;
    size_t bytes = 1 << 20;
    int reps = 3, lreps = 20, gap_ms = 0;
    const char *sched = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            bytes = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-l") && i + 1 < argc) {
            lreps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-g") && i + 1 < argc) {
            gap_ms = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
            sched = argv[++i];
        } else {
            if (rank == 0) {
                fprintf(stderr, "lab-pingpong: unknown argument '%s'\n", argv[i]);
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (!sched || reps < 1 || lreps < 1 || bytes < 1 || gap_ms < 0 || gap_ms > 10000) {
        if (rank == 0) {
            fprintf(stderr, "usage: lab-pingpong -p SCHEDULE [-s BYTES] [-r REPS] [-l LATREPS] "
                            "[-g GAP_MS (0-10000)]\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char name[MPI_MAX_PROCESSOR_NAME];
    int nl;
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &nl);
    char *names = malloc((size_t) size * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);

    /* every rank reads the schedule (shared file system: same machine) */
    FILE *f = fopen(sched, "r");
    if (!f) {
        fprintf(stderr, "lab-pingpong: cannot open %s\n", sched);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static int rnd[MAXPAIRS], src[MAXPAIRS], dst[MAXPAIRS];
    static char sname[MAXPAIRS][64], dname[MAXPAIRS][64];
    int np = 0, nrounds = 0;
    while (np < MAXPAIRS && fscanf(f, "%d %63s %63s", &rnd[np], sname[np], dname[np]) == 3) {
        src[np] = dst[np] = -1;
        for (i = size - 1; i >= 0; i--) {
            if (!strcmp(names + (size_t) i * MPI_MAX_PROCESSOR_NAME, sname[np])) {
                src[np] = i;
            }
            if (!strcmp(names + (size_t) i * MPI_MAX_PROCESSOR_NAME, dname[np])) {
                dst[np] = i;
            }
        }
        if (src[np] < 0 || dst[np] < 0) {
            if (rank == 0) {
                fprintf(stderr, "lab-pingpong: host %s or %s runs no rank\n", sname[np], dname[np]);
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (rnd[np] + 1 > nrounds) {
            nrounds = rnd[np] + 1;
        }
        np++;
    }
    fclose(f);

    char *buf = malloc(bytes);
    memset(buf, 1, bytes);
    double *res = calloc((size_t) np * 4, sizeof(double));
    double *t = malloc((size_t) (reps > lreps ? reps : lreps) * sizeof(double));
    quiet_barrier();
    for (int r = 0; r < nrounds; r++) {
        for (int p = 0; p < np; p++) {
            if (rnd[p] != r) {
                continue;
            }
            int s = src[p], d = dst[p];
            if (rank == s) {
                MPI_Send(buf, 1, MPI_CHAR, d, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, 1, MPI_CHAR, d, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (k = 0; k < lreps; k++) {
                    double a = MPI_Wtime();
                    MPI_Send(buf, 1, MPI_CHAR, d, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, 1, MPI_CHAR, d, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    t[k] = (MPI_Wtime() - a) / 2;
                }
                res[4 * p + 3] = median(t, lreps);
                for (k = -1; k < reps; k++) {
                    if (gap_ms > 0) {
                        struct timespec gap = {gap_ms / 1000, (gap_ms % 1000) * 1000000L};
                        nanosleep(&gap, NULL);
                    }
                    double a = MPI_Wtime();
                    MPI_Send(buf, (int) bytes, MPI_CHAR, d, 2, MPI_COMM_WORLD);
                    MPI_Recv(NULL, 0, MPI_CHAR, d, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    if (k >= 0) {
                        t[k] = bytes / (MPI_Wtime() - a);
                    }
                }
                double mn = t[0], mx = t[0];
                for (k = 1; k < reps; k++) {
                    mn = t[k] < mn ? t[k] : mn;
                    mx = t[k] > mx ? t[k] : mx;
                }
                res[4 * p] = median(t, reps);
                res[4 * p + 1] = mn;
                res[4 * p + 2] = mx;
            } else if (rank == d) {
                for (k = 0; k <= lreps; k++) {
                    MPI_Recv(buf, 1, MPI_CHAR, s, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, 1, MPI_CHAR, s, 1, MPI_COMM_WORLD);
                }
                for (k = -1; k < reps; k++) {
                    MPI_Recv(buf, (int) bytes, MPI_CHAR, s, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(NULL, 0, MPI_CHAR, s, 2, MPI_COMM_WORLD);
                }
            }
        }
        quiet_barrier();
        if (rank == 0) {
            printf("ROUND %d\n", r + 1);
            fflush(stdout);
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, res, np * 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int p = 0; p < np; p++) {
            printf("PAIR %s %s %.6e %.6e %.6e %.6e\n", sname[p], dname[p], res[4 * p], res[4 * p + 1],
                   res[4 * p + 2], res[4 * p + 3]);
        }
        fflush(stdout);
    }
    free(buf);
    free(res);
    free(t);
    free(names);
    MPI_Finalize();
    return 0;
}
