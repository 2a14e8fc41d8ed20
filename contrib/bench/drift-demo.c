/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * drift-demo: a loop of broadcasts that prints every call's time as it goes, for watching drift
 * detection and recalibration (docs/drift.md): slow a link with `lab set-rate` while it runs.
 *
 * Usage: drift-demo BYTES CALLS [PAUSE_MS [HOLD_CALL HOLD_MS]]
 *   BYTES per broadcast from rank 0 (suffix K or M allowed), CALLS broadcasts, PAUSE_MS between
 *   two calls (default 0), after one untimed broadcast (where the component calibrates). Every
 *   result is checked (the data change with every call).
 *   HOLD_CALL HOLD_MS: after call HOLD_CALL every rank sleeps HOLD_MS instead of PAUSE_MS, a
 *   window for a change made from outside (`lab set-rate`, whose tc commands and Python need
 *   the CPU that the ranks' progress loops would otherwise take from them, slowing the calls
 *   around the change on a small machine).
 * Rank 0 prints, live (flushed), one line per call:
 *   drift-demo: call K at T s: D s
 * (T: seconds since the first call started, D: rank 0's time of the call), and at the end one line
 * per call with the slowest rank's time (gathered after the loop, so the loop itself sends
 * nothing but the broadcasts):
 *   drift-demo: max call K at T s: D s
 * and the verdict "drift-demo: N calls of B bytes on P ranks: F failures". Exits non-zero on a
 * wrong result.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long parse_bytes(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);

    if ('K' == *end || 'k' == *end) {
        v <<= 10;
    } else if ('M' == *end || 'm' == *end) {
        v <<= 20;
    }
    return v;
}

int main(int argc, char **argv)
{
    int rank, size, calls, pause_ms = 0, hold_call = -1, hold_ms = 0, failures = 0, all_failures;
    long bytes;
    unsigned char *buf;
    double *start, *took, *maxtook, t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || (bytes = parse_bytes(argv[1])) < 1 || (calls = atoi(argv[2])) < 1) {
        if (0 == rank) {
            fprintf(stderr, "usage: drift-demo BYTES CALLS [PAUSE_MS [HOLD_CALL HOLD_MS]]\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
        return 2;
    }
    if (argc > 3) {
        pause_ms = atoi(argv[3]);
    }
    if (argc > 5) {
        hold_call = atoi(argv[4]);
        hold_ms = atoi(argv[5]);
    }
    buf = malloc((size_t) bytes);
    start = calloc((size_t) calls, sizeof(double));
    took = calloc((size_t) calls, sizeof(double));
    maxtook = calloc((size_t) calls, sizeof(double));
    if (NULL == buf || NULL == start || NULL == took || NULL == maxtook) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* One untimed call first: the component calibrates at the first collective that uses it. */
    MPI_Bcast(buf, (int) bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int k = 0; k < calls; k++) {
        for (long e = 0; e < bytes; e++) {
            buf[e] = 0 == rank ? (unsigned char) (k * 13 + e) : 0;
        }
        start[k] = MPI_Wtime();
        MPI_Bcast(buf, (int) bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        took[k] = MPI_Wtime() - start[k];
        for (long e = 0; e < bytes; e++) {
            if (buf[e] != (unsigned char) (k * 13 + e)) {
                fprintf(stderr, "drift-demo: rank %d: call %d: byte %ld is wrong\n", rank, k, e);
                failures++;
                break;
            }
        }
        if (0 == rank) {
            printf("drift-demo: call %d at %.3f s: %.6f s\n", k, start[k] - t0, took[k]);
            fflush(stdout);
        }
        int sleep_ms = k == hold_call ? hold_ms : pause_ms;
        if (sleep_ms > 0) {
            struct timespec ts = { sleep_ms / 1000, (long) (sleep_ms % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        }
    }
    MPI_Reduce(took, maxtook, calls, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        for (int k = 0; k < calls; k++) {
            printf("drift-demo: max call %d at %.3f s: %.6f s\n", k, start[k] - t0, maxtook[k]);
        }
        printf("drift-demo: %d calls of %ld bytes on %d ranks: %d failures\n", calls, bytes, size,
               all_failures);
    }
    free(buf);
    free(start);
    free(took);
    free(maxtook);
    MPI_Finalize();
    return 0 == all_failures ? 0 : 1;
}
