/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * cloudaware-bench - OSU-style timing of MPI collectives on MPI_COMM_WORLD.
 *
 * usage: cloudaware-bench [--ops LIST] [--sizes LIST] [--iters N] [--warmup N] [--reps N]
 *                         [--root R] [--validate] [--csv FILE] [--json FILE] [--label TEXT] [--quiet]
 *                         [--connect-all]
 *   --ops     comma list of bcast,reduce,allreduce,gather,scatter,allgather,barrier (default: all)
 *   --sizes   comma list of bytes, K/M suffixes = KiB/MiB (default 1K,64K,1M).  For bcast, reduce and
 *             allreduce the size is the buffer; for gather, scatter and allgather it is the block
 *             each rank contributes (OSU convention).  Data are MPI_INT (size rounded down to a
 *             multiple of 4, at least one element); reductions use MPI_SUM.
 *   --iters   timed calls per repetition (default by size: <=8 KiB 20, <=128 KiB 5, larger 2)
 *   --warmup  untimed calls before each repetition (default: 2 if <=8 KiB, else 1)
 *   --reps    repetitions (default 1); min/median/max are over repetitions
 *   --connect-all  first, every rank exchanges one byte with every other, so the timed calls
 *             start with a connection between every pair, as a calibrated cloudaware job has
 *             (on loopback TCP with 16 ranks on 2 cores, 1 KiB allreduces and barriers ran
 *             12-30 % slower so; docs/benchmarks.md)
 *   --validate  after timing, one more call per op and size with known data, checked on every rank;
 *             the exit code is 1 if any rank saw a wrong result
 * Timing: each rank times every call (MPI_Barrier between calls, not timed); a repetition's time
 * is the maximum over ranks of the per-rank mean time per call.  A repetition's cycle time is the
 * maximum over ranks of the wall time of its timed loop per call, the barriers included: a call
 * that returns early on some ranks (a leaf's eager send) moves waiting into the next barrier,
 * which the call time does not count and the cycle time does (docs/benchmarks.md).
 * Output: a table on stdout (rank 0); --csv/--json write one row per op, size and repetition
 * (time_s and cycle_s).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_GATHER, OP_SCATTER, OP_ALLGATHER, OP_BARRIER, NOPS };
static const char *op_names[NOPS] = {"bcast", "reduce", "allreduce", "gather", "scatter", "allgather",
                                     "barrier"};

static int rank, nprocs, root;

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* The median of n sorted values. */
static double median(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static long long parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    long long mult = 1;
    if (*end == 'k' || *end == 'K') {
        mult = 1024;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        mult = 1024 * 1024;
        end++;
    } else if (*end == 'g' || *end == 'G') {
        mult = 1024LL * 1024 * 1024;
        end++;
    }
    if (*end == 'i' || *end == 'B' || *end == 'b') {
        while (*end) {
            end++;
        }
    }
    if (end == s || *end || v < 0) {
        return -1;
    }
    return (long long) (v * mult);
}

static int op_index(const char *s)
{
    for (int i = 0; i < NOPS; i++) {
        if (!strcmp(s, op_names[i])) {
            return i;
        }
    }
    return -1;
}

/* one call of op; count = ints per buffer (bcast/reduce/allreduce) or per rank block */
static void do_op(int op, int *sbuf, int *rbuf, int count)
{
    switch (op) {
    case OP_BCAST:
        MPI_Bcast(sbuf, count, MPI_INT, root, MPI_COMM_WORLD);
        break;
    case OP_REDUCE:
        MPI_Reduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        break;
    case OP_ALLREDUCE:
        MPI_Allreduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case OP_GATHER:
        MPI_Gather(sbuf, count, MPI_INT, rbuf, count, MPI_INT, root, MPI_COMM_WORLD);
        break;
    case OP_SCATTER:
        MPI_Scatter(sbuf, count, MPI_INT, rbuf, count, MPI_INT, root, MPI_COMM_WORLD);
        break;
    case OP_ALLGATHER:
        MPI_Allgather(sbuf, count, MPI_INT, rbuf, count, MPI_INT, MPI_COMM_WORLD);
        break;
    case OP_BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    }
}

static int pattern(int r, int i, int salt)
{
    return (r * 1000003 + i * 7 + salt) & 0x3fffffff;
}

/* returns number of wrong elements on this rank */
static long validate(int op, int *sbuf, int *rbuf, int count, int salt)
{
    long bad = 0;
    int i, r;
    long long total = (long long) count * nprocs;
    for (i = 0; i < total; i++) {
        rbuf[i] = -1;
    }
    switch (op) {
    case OP_BCAST:
        for (i = 0; i < count; i++) {
            sbuf[i] = rank == root ? pattern(root, i, salt) : -1;
        }
        break;
    case OP_REDUCE:
    case OP_ALLREDUCE:
        for (i = 0; i < count; i++) {
            sbuf[i] = (rank + 1) * ((i + salt) % 97 + 1);
        }
        break;
    case OP_GATHER:
    case OP_ALLGATHER:
        for (i = 0; i < count; i++) {
            sbuf[i] = pattern(rank, i, salt);
        }
        break;
    case OP_SCATTER:
        for (r = 0; r < nprocs; r++) {
            for (i = 0; i < count; i++) {
                sbuf[(long long) r * count + i] = rank == root ? pattern(r, i, salt) : -1;
            }
        }
        break;
    default:
        break;
    }
    do_op(op, sbuf, rbuf, count);
    long long sumr = (long long) nprocs * (nprocs + 1) / 2;
    switch (op) {
    case OP_BCAST:
        for (i = 0; i < count; i++) {
            bad += sbuf[i] != pattern(root, i, salt);
        }
        break;
    case OP_REDUCE:
    case OP_ALLREDUCE:
        if (op == OP_ALLREDUCE || rank == root) {
            for (i = 0; i < count; i++) {
                bad += rbuf[i] != (int) (sumr * ((i + salt) % 97 + 1));
            }
        }
        break;
    case OP_GATHER:
    case OP_ALLGATHER:
        if (op == OP_ALLGATHER || rank == root) {
            for (r = 0; r < nprocs; r++) {
                for (i = 0; i < count; i++) {
                    bad += rbuf[(long long) r * count + i] != pattern(r, i, salt);
                }
            }
        }
        break;
    case OP_SCATTER:
        for (i = 0; i < count; i++) {
            bad += rbuf[i] != pattern(rank, i, salt);
        }
        break;
    default:
        break;
    }
    return bad;
}

static void usage(void)
{
    if (rank == 0) {
        fprintf(stderr, "usage: cloudaware-bench [--ops LIST] [--sizes LIST] [--iters N] [--warmup N] "
                        "[--reps N] [--root R] [--validate] [--csv FILE] [--json FILE] [--label TEXT] "
                        "[--quiet] [--connect-all]\n");
    }
}

int main(int argc, char **argv)
{
    int ops[NOPS], nops = 0, iters_opt = 0, warm_opt = -1, reps = 1, do_validate = 0, quiet = 0,
        connect_all = 0;
    long long sizes[64];
    int nsizes = 0;
    const char *csv = NULL, *json = NULL, *label = "";
    char tmp[4096];
    int i;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    root = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--ops") && v) {
            snprintf(tmp, sizeof tmp, "%s", v);
            for (char *t = strtok(tmp, ","); t; t = strtok(NULL, ",")) {
                int o = op_index(t);
                if (o < 0 || nops >= NOPS) {
                    if (rank == 0) {
                        fprintf(stderr, "cloudaware-bench: unknown op '%s'\n", t);
                    }
                    MPI_Finalize();
                    return 2;
                }
                ops[nops++] = o;
            }
            i++;
        } else if (!strcmp(a, "--sizes") && v) {
            snprintf(tmp, sizeof tmp, "%s", v);
            for (char *t = strtok(tmp, ","); t; t = strtok(NULL, ",")) {
                long long s = parse_size(t);
                if (s < 0 || nsizes >= 64) {
                    if (rank == 0) {
                        fprintf(stderr, "cloudaware-bench: bad size '%s'\n", t);
                    }
                    MPI_Finalize();
                    return 2;
                }
                sizes[nsizes++] = s;
            }
            i++;
        } else if (!strcmp(a, "--iters") && v) {
            iters_opt = atoi(argv[++i]);
        } else if (!strcmp(a, "--warmup") && v) {
            warm_opt = atoi(argv[++i]);
        } else if (!strcmp(a, "--reps") && v) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(a, "--root") && v) {
            root = atoi(argv[++i]);
        } else if (!strcmp(a, "--csv") && v) {
            csv = argv[++i];
        } else if (!strcmp(a, "--json") && v) {
            json = argv[++i];
        } else if (!strcmp(a, "--label") && v) {
            label = argv[++i];
        } else if (!strcmp(a, "--validate")) {
            do_validate = 1;
        } else if (!strcmp(a, "--connect-all")) {
            connect_all = 1;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else {
            if (rank == 0) {
                fprintf(stderr, "cloudaware-bench: unknown or incomplete argument '%s'\n", a);
            }
            usage();
            MPI_Finalize();
            return 2;
        }
    }
    if (reps < 1 || iters_opt < 0 || root < 0 || root >= nprocs) {
        usage();
        MPI_Finalize();
        return 2;
    }
    if (!nops) {
        for (i = 0; i < NOPS; i++) {
            ops[nops++] = i;
        }
    }
    if (!nsizes) {
        sizes[nsizes++] = 1024;
        sizes[nsizes++] = 64 * 1024;
        sizes[nsizes++] = 1024 * 1024;
    }

    /* hosts = distinct processor names */
    char name[MPI_MAX_PROCESSOR_NAME];
    int nl, nhosts = 0;
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &nl);
    char *names = malloc((size_t) nprocs * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    for (i = 0; i < nprocs; i++) {
        int j;
        for (j = 0; j < i; j++) {
            if (!strcmp(names + (size_t) i * MPI_MAX_PROCESSOR_NAME, names + (size_t) j * MPI_MAX_PROCESSOR_NAME)) {
                break;
            }
        }
        nhosts += j == i;
    }
    free(names);
    for (int d = 1; connect_all && d < nprocs; d++) {   /* pairwise: step d pairs i with i +- d */
        char out = 0, in;
        MPI_Sendrecv(&out, 1, MPI_CHAR, (rank + d) % nprocs, 0, &in, 1, MPI_CHAR,
                     (rank - d + nprocs) % nprocs, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    long long maxbytes = 4;
    for (i = 0; i < nsizes; i++) {
        maxbytes = sizes[i] > maxbytes ? sizes[i] : maxbytes;
    }
    size_t maxcount = (size_t) (maxbytes / 4);
    int *sbuf = malloc(maxcount * nprocs * sizeof(int));
    int *rbuf = malloc(maxcount * nprocs * sizeof(int));
    if (!sbuf || !rbuf) {
        fprintf(stderr, "cloudaware-bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t k = 0; k < maxcount * nprocs; k++) {
        sbuf[k] = (int) (k & 0xffff);
        rbuf[k] = 0;
    }

    FILE *fc = NULL, *fj = NULL;
    if (rank == 0) {
        if (csv && !(fc = fopen(csv, "w"))) {
            fprintf(stderr, "cloudaware-bench: cannot write %s\n", csv);
        }
        if (json && !(fj = fopen(json, "w"))) {
            fprintf(stderr, "cloudaware-bench: cannot write %s\n", json);
        }
        if (fc) {
            fprintf(fc, "label,op,bytes,ranks,hosts,rep,iters,time_s,cycle_s\n");
        }
        if (fj) {
            fprintf(fj, "{\"label\": \"%s\", \"ranks\": %d, \"hosts\": %d, \"results\": [", label, nprocs, nhosts);
        }
        if (!quiet) {
            printf("# cloudaware-bench: %d ranks on %d hosts, root %d%s%s\n", nprocs, nhosts, root,
                   *label ? ", " : "", label);
            printf("# time = max over ranks of the mean time per call; min/median/max over %d repetition(s);\n"
                   "# cycle = max over ranks of the timed loop's wall time per call, barriers included (median)\n",
                   reps);
            printf("%-10s %10s %6s %12s %12s %12s %12s%s\n", "op", "bytes", "iters", "median_ms", "min_ms", "max_ms",
                   "cycle_ms", do_validate ? "  valid" : "");
            fflush(stdout);
        }
    }
    long total_bad = 0;
    int first_json = 1;
    double *rt = malloc(reps * sizeof(double)), *ct = malloc(reps * sizeof(double));
    for (int oi = 0; oi < nops; oi++) {
        int op = ops[oi];
        for (int si = 0; si < nsizes; si++) {
            long long bytes = op == OP_BARRIER ? 0 : sizes[si];
            int count = (int) (bytes / 4 > 0 ? bytes / 4 : 1);
            int iters = iters_opt ? iters_opt : (bytes <= 8192 ? 20 : bytes <= 131072 ? 5 : 2);
            int warm = warm_opt >= 0 ? warm_opt : (bytes <= 8192 ? 2 : 1);
            if (op == OP_BARRIER && si > 0) {
                break; /* barrier has no size */
            }
            if (op == OP_BARRIER) {
                count = 0;
                iters = iters_opt ? iters_opt : 50;
            }
            for (int r = 0; r < reps; r++) {
                for (int w = 0; w < warm; w++) {
                    do_op(op, sbuf, rbuf, count);
                }
                MPI_Barrier(MPI_COMM_WORLD);
                double sum = 0, loop0 = MPI_Wtime();
                for (int it = 0; it < iters; it++) {
                    double t0 = MPI_Wtime();
                    do_op(op, sbuf, rbuf, count);
                    sum += MPI_Wtime() - t0;
                    if (op != OP_BARRIER) {
                        MPI_Barrier(MPI_COMM_WORLD);
                    }
                }
                double mine[2] = {sum / iters, (MPI_Wtime() - loop0) / iters}, mx[2];
                MPI_Allreduce(mine, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                rt[r] = mx[0];
                ct[r] = mx[1];
                if (rank == 0 && fc) {
                    fprintf(fc, "%s,%s,%lld,%d,%d,%d,%d,%.9e,%.9e\n", label, op_names[op],
                            op == OP_BARRIER ? 0 : (long long) count * 4, nprocs, nhosts, r, iters, mx[0], mx[1]);
                    fflush(fc);
                }
                if (rank == 0 && fj) {
                    fprintf(fj, "%s\n  {\"op\": \"%s\", \"bytes\": %lld, \"rep\": %d, \"iters\": %d, \"time_s\": %.9e, "
                            "\"cycle_s\": %.9e}",
                            first_json ? "" : ",", op_names[op], op == OP_BARRIER ? 0 : (long long) count * 4, r,
                            iters, mx[0], mx[1]);
                    first_json = 0;
                }
            }
            long bad = 0, allbad = 0;
            if (do_validate && op != OP_BARRIER) {
                bad = validate(op, sbuf, rbuf, count, si * 131 + oi);
                MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
                total_bad += allbad;
                if (bad) {
                    fprintf(stderr, "cloudaware-bench: rank %d: %s %lld bytes: %ld wrong elements\n", rank,
                            op_names[op], (long long) count * 4, bad);
                }
            }
            if (rank == 0 && !quiet) {
                qsort(rt, reps, sizeof(double), cmpd);
                qsort(ct, reps, sizeof(double), cmpd);
                printf("%-10s %10lld %6d %12.3f %12.3f %12.3f %12.3f%s\n", op_names[op],
                       op == OP_BARRIER ? 0 : (long long) count * 4, iters, 1e3 * median(rt, reps), 1e3 * rt[0],
                       1e3 * rt[reps - 1], 1e3 * median(ct, reps),
                       !do_validate ? "" : op == OP_BARRIER ? "  -" : allbad ? "  FAIL" : "  ok");
                fflush(stdout);
            }
        }
    }
    if (rank == 0) {
        if (fc) {
            fclose(fc);
        }
        if (fj) {
            fprintf(fj, "\n], \"validation_errors\": %ld}\n", total_bad);
            fclose(fj);
        }
        if (do_validate) {
            printf("# validation: %s\n", total_bad ? "FAILED" : "all results correct");
        }
    }
    free(rt);
    free(ct);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return total_bad ? 1 : 0;
}
