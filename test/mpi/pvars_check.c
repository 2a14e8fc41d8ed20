/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * pvars_check: reads coll/cloudaware's MPI_T performance variables (docs/parameters.md,
 * "Performance variables") around a loop of collectives, through MPI_T_pvar_* only, and checks
 * what every rank can know for sure: each collective's calls run as plans plus calls handed to
 * the previous module equal the calls the program made (bcast, allreduce plus one last
 * allreduce that runs a recalibration still pending, so that the counters are complete; zero for
 * the four others), one calibration (MPI_COMM_WORLD's), calibration seconds > 0, and, when asked, the
 * number of recalibrations. Every bcast and allreduce result is checked too.
 *
 * Usage: pvars_check BCASTS ALLREDUCES COUNT [RECALIBRATIONS]
 *   COUNT ints per call; RECALIBRATIONS: the exact count expected (left out: not checked).
 * Rank 0 prints "pvars_check: NAME VALUE" for every variable, and the verdict line
 * "pvars_check: N ranks: F failures".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const colls[] = { "bcast", "reduce", "allreduce", "gather", "scatter",
                                     "allgather" };
#define NCOLLS 6

static int rank, failures;
static MPI_T_pvar_session session;

#define FAIL(...)                                                     \
    do {                                                              \
        fprintf(stderr, "pvars_check: rank %d: ", rank);             \
        fprintf(stderr, __VA_ARGS__);                                 \
        fprintf(stderr, "\n");                                        \
        failures++;                                                   \
    } while (0)

/* A handle on the variable called name (full name, coll_cloudaware_...), or exits. */
static MPI_T_pvar_handle handle(const char *name, MPI_Datatype *type)
{
    int num, count;
    MPI_T_pvar_handle h;

    MPI_T_pvar_get_num(&num);
    for (int i = 0; i < num; i++) {
        char n[256], desc[1024];
        int nlen = sizeof(n), dlen = sizeof(desc), verb, cls, bind, ro, cont, atomic;
        MPI_T_enum e;
        if (MPI_SUCCESS != MPI_T_pvar_get_info(i, n, &nlen, &verb, &cls, type, &e, desc, &dlen,
                                               &bind, &ro, &cont, &atomic)
            || 0 != strcmp(n, name)) {
            continue;
        }
        if (MPI_SUCCESS != MPI_T_pvar_handle_alloc(session, i, NULL, &h, &count) || 1 != count
            || !ro || !cont || MPI_T_BIND_NO_OBJECT != bind) {
            fprintf(stderr, "pvars_check: %s: cannot allocate a handle, or not a read-only "
                    "continuous variable bound to no object\n", name);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        return h;
    }
    fprintf(stderr, "pvars_check: rank %d: no performance variable %s\n", rank, name);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return h;
}

static double read_var(MPI_T_pvar_handle h, MPI_Datatype type)
{
    unsigned long long u = 0;
    double d = 0;

    if (MPI_DOUBLE == type) {
        MPI_T_pvar_read(session, h, &d);
        return d;
    }
    if (MPI_UNSIGNED_LONG_LONG != type) {
        FAIL("a counter is not an MPI_UNSIGNED_LONG_LONG");
        return -1;
    }
    MPI_T_pvar_read(session, h, &u);
    return (double) u;
}

int main(int argc, char **argv)
{
    int provided, size, bcasts, allreduces, count, want_recal = -1, nfail;
    static const char *const trial_names[] = { "plan", "alternative", "peer", "previous",
                                                "stored", "failed" };
    enum { NTRIALS = sizeof(trial_names) / sizeof(trial_names[0]) };
    MPI_T_pvar_handle plan[NCOLLS], prev[NCOLLS], calib, recal, secs, trials[NTRIALS];
    MPI_Datatype tplan[NCOLLS], tprev[NCOLLS], tcalib, trecal, tsecs, ttrials[NTRIALS];
    char name[128];
    int *buf, *sum;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (0 == rank) {
            fprintf(stderr, "usage: pvars_check BCASTS ALLREDUCES COUNT [RECALIBRATIONS]\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bcasts = atoi(argv[1]);
    allreduces = atoi(argv[2]);
    count = atoi(argv[3]);
    if (argc > 4) {
        want_recal = atoi(argv[4]);
    }
    if (MPI_SUCCESS != MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)
        || MPI_SUCCESS != MPI_T_pvar_session_create(&session)) {
        fprintf(stderr, "pvars_check: MPI_T is not usable\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Handles first: a counter's handle counts from when it was allocated. */
    for (int c = 0; c < NCOLLS; c++) {
        snprintf(name, sizeof(name), "coll_cloudaware_%s_plan_calls", colls[c]);
        plan[c] = handle(name, &tplan[c]);
        snprintf(name, sizeof(name), "coll_cloudaware_%s_previous_calls", colls[c]);
        prev[c] = handle(name, &tprev[c]);
    }
    calib = handle("coll_cloudaware_calibrations", &tcalib);
    recal = handle("coll_cloudaware_recalibrations", &trecal);
    secs = handle("coll_cloudaware_calibration_seconds", &tsecs);
    for (int t = 0; t < NTRIALS; t++) {
        snprintf(name, sizeof(name), "coll_cloudaware_trials_%s", trial_names[t]);
        trials[t] = handle(name, &ttrials[t]);
    }

    buf = malloc(sizeof(int) * (size_t) count);
    sum = malloc(sizeof(int) * (size_t) count);
    for (int k = 0; k < bcasts; k++) {
        for (int e = 0; e < count; e++) {
            buf[e] = 0 == rank ? k * 31 + e : -1;
        }
        MPI_Bcast(buf, count, MPI_INT, 0, MPI_COMM_WORLD);
        for (int e = 0; e < count; e++) {
            if (buf[e] != k * 31 + e) {
                FAIL("bcast %d: element %d is %d, not %d", k, e, buf[e], k * 31 + e);
                break;
            }
        }
    }
    for (int k = 0; k < allreduces; k++) {
        for (int e = 0; e < count; e++) {
            buf[e] = rank + k + e % 7;
        }
        MPI_Allreduce(buf, sum, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int e = 0; e < count; e++) {
            int want = size * (size - 1) / 2 + size * (k + e % 7);
            if (sum[e] != want) {
                FAIL("allreduce %d: element %d is %d, not %d", k, e, sum[e], want);
                break;
            }
        }
    }

    /* A recalibration the last calls asked for runs at the next collective: this one. */
    int settle = 0;
    MPI_Allreduce(MPI_IN_PLACE, &settle, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int c = 0; c < NCOLLS; c++) {
        double p = read_var(plan[c], tplan[c]), q = read_var(prev[c], tprev[c]);
        int want = 0 == strcmp(colls[c], "bcast") ? bcasts
                 : 0 == strcmp(colls[c], "allreduce") ? allreduces + 1 : 0;
        if (p + q != want) {
            FAIL("%s: %.0f calls as plans + %.0f to the previous module != %d calls made",
                 colls[c], p, q, want);
        }
        if (0 == rank) {
            printf("pvars_check: coll_cloudaware_%s_plan_calls %.0f\n", colls[c], p);
            printf("pvars_check: coll_cloudaware_%s_previous_calls %.0f\n", colls[c], q);
        }
    }
    double ncalib = read_var(calib, tcalib), nrecal = read_var(recal, trecal);
    double nsecs = read_var(secs, tsecs);
    if (1 != ncalib) {
        FAIL("%.0f calibrations, expected 1 (MPI_COMM_WORLD's)", ncalib);
    }
    if (!(nsecs > 0)) {
        FAIL("calibration seconds %g, expected > 0", nsecs);
    }
    if (want_recal >= 0 && nrecal != want_recal) {
        FAIL("%.0f recalibrations, expected %d", nrecal, want_recal);
    }
    if (0 == rank) {
        printf("pvars_check: coll_cloudaware_calibrations %.0f\n", ncalib);
        printf("pvars_check: coll_cloudaware_recalibrations %.0f\n", nrecal);
        printf("pvars_check: coll_cloudaware_calibration_seconds %g\n", nsecs);
        for (int t = 0; t < NTRIALS; t++) {
            printf("pvars_check: coll_cloudaware_trials_%s %.0f\n", trial_names[t],
                   read_var(trials[t], ttrials[t]));
        }
    }
    free(buf);
    free(sum);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Allreduce(&failures, &nfail, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("pvars_check: %d ranks: %d failures\n", size, nfail);
    }
    MPI_Finalize();
    return 0 == nfail ? 0 : 1;
}
