/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * two-way - does a two-way exchange between two ranks cost the sum of both directions?
 * The measurement behind the cost model's coll_cloudaware_model_duplex (docs/cost-model.md,
 * "Two-way traffic").
 *
 * usage: two-way [--partner D] [--sizes LIST] [--segment BYTES] [--reps N] [--post send|recv]
 *   --partner  rank r exchanges with rank r XOR D (default: half the ranks, so with one rank per
 *              host and two racks of equal size every pair crosses the racks); ranks whose
 *              partner does not exist wait
 *   --sizes    comma list of bytes per direction, K/M suffixes = KiB/MiB (default 64K,256K,1M)
 *   --segment  send each size as messages of this many bytes (default: one message)
 *   --reps     repetitions per size (default 5); the table shows medians
 *   --post     what a rank posts first: its sends (default, as the executor does) or its
 *              receives (as Open MPI's base algorithms' sendrecv does)
 * Per repetition: one-way (the lower rank of each pair sends, the other receives), then two-way
 * (both send and receive at once); a repetition's time is the maximum over ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 16
#define MAX_REPS 64

static long parse_bytes(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);

    if ('K' == *end) {
        v <<= 10;
    } else if ('M' == *end) {
        v <<= 20;
    }
    return v;
}

/* Bytes per message when `bytes` go in messages of at most `seg` (0: one message). */
static long segment_of(long bytes, long seg)
{
    return seg > 0 && seg < bytes ? seg : bytes;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof(double), cmp_double);
    return v[n / 2];
}

/* One repetition of `bytes` per direction in messages of `seg` bytes; both: two-way. */
static double exchange(int rank, int partner, long bytes, long seg, int both, int recv_first,
                       char *sbuf, char *rbuf, MPI_Request *reqs)
{
    int nreq = 0, nmsg = (int) ((bytes + seg - 1) / seg);
    double t, mine, all;

    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int pass = 0; pass < 2 && partner >= 0; pass++) {
        int sends = (0 == pass) != recv_first;

        for (int m = 0; m < nmsg; m++) {
            long off = (long) m * seg, len = bytes - off < seg ? bytes - off : seg;

            if (sends && (both || rank < partner)) {
                MPI_Isend(sbuf + off, (int) len, MPI_BYTE, partner, m, MPI_COMM_WORLD,
                          &reqs[nreq++]);
            }
            if (!sends && (both || rank > partner)) {
                MPI_Irecv(rbuf + off, (int) len, MPI_BYTE, partner, m, MPI_COMM_WORLD,
                          &reqs[nreq++]);
            }
        }
    }
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    mine = MPI_Wtime() - t;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

int main(int argc, char **argv)
{
    long sizes[MAX_SIZES] = {64 << 10, 256 << 10, 1 << 20}, seg = 0, maxb = 0;
    int nsizes = 3, reps = 5, rank, n, d = -1, recv_first = 0, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (0 == strcmp(argv[i], "--partner")) {
            d = atoi(argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--segment")) {
            seg = parse_bytes(argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--post")) {
            recv_first = 0 == strcmp(argv[i + 1], "recv");
            bad |= !recv_first && 0 != strcmp(argv[i + 1], "send");
        } else if (0 == strcmp(argv[i], "--reps")) {
            reps = atoi(argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--sizes")) {
            char *list = strdup(argv[i + 1]);

            nsizes = 0;
            char *tok = strtok(list, ",");

            for (; NULL != tok && nsizes < MAX_SIZES; tok = strtok(NULL, ",")) {
                sizes[nsizes++] = parse_bytes(tok);
            }
            free(list);
        } else {
            if (0 == rank) {
                fprintf(stderr, "two-way: unknown option %s\n", argv[i]);
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (d < 0) {
        d = n / 2;
    }
    if (d <= 0 || reps < 1 || reps > MAX_REPS || seg < 0 || bad) {
        if (0 == rank) {
            fprintf(stderr, "two-way: --partner must be > 0, --reps 1..%d, --segment >= 0, "
                    "--post send or recv\n", MAX_REPS);
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int s = 0; s < nsizes; s++) {
        if (sizes[s] <= 0) {
            if (0 == rank) {
                fprintf(stderr, "two-way: sizes must be > 0 bytes\n");
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        maxb = sizes[s] > maxb ? sizes[s] : maxb;
    }
    int partner = (rank ^ d) < n ? rank ^ d : -1;
    long maxmsg = 0;
    for (int s = 0; s < nsizes; s++) {
        long g = segment_of(sizes[s], seg), m = (sizes[s] + g - 1) / g;
        maxmsg = m > maxmsg ? m : maxmsg;
    }
    char *sbuf = calloc((size_t) maxb, 1), *rbuf = calloc((size_t) maxb, 1);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t) (2 * maxmsg));
    if (NULL == sbuf || NULL == rbuf || NULL == reqs) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (0 == rank) {
        printf("%d ranks, rank r with r XOR %d, %s posted first, median of %d\n", n, d,
               recv_first ? "receives" : "sends", reps);
        printf("%10s %10s %12s %12s %7s\n", "bytes", "segment", "one-way ms", "two-way ms",
               "ratio");
    }
    for (int s = 0; s < nsizes; s++) {
        long g = segment_of(sizes[s], seg);
        double one[MAX_REPS], two[MAX_REPS];

        for (int k = 0; k < reps; k++) {
            one[k] = exchange(rank, partner, sizes[s], g, 0, recv_first, sbuf, rbuf, reqs);
            two[k] = exchange(rank, partner, sizes[s], g, 1, recv_first, sbuf, rbuf, reqs);
        }
        double m1 = median(one, reps), m2 = median(two, reps);
        if (0 == rank) {
            printf("%10ld %10ld %12.2f %12.2f %7.2f\n", sizes[s], g, m1 * 1e3, m2 * 1e3, m2 / m1);
        }
    }
    free(sbuf);
    free(rbuf);
    free(reqs);
    MPI_Finalize();
    return 0;
}
