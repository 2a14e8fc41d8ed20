/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * nbc_check: every collective in three modes -- nonblocking (MPI_I*), persistent (MPIX_*_init,
 * started twice) and blocking -- on MPI_COMM_WORLD, MPI_COMM_SELF, a dup, a split with ragged
 * group sizes and an intercommunicator between two groups of different sizes, with each result
 * checked against values computed locally. Intracommunicators also run MPI_IN_PLACE variants,
 * a non-contiguous vector type and a user-defined non-commutative op (affine maps composed in
 * rank order).
 *
 * Usage: nbc_check [--mode nb|persistent|blocking|all]   Exit status = number of failures (capped).
 */
#include "mpi_persistent.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENT (-7777)
#define PRIME 10007
enum { M_NB, M_PERS, M_BLK };
static const char *mode_names[] = { "nonblocking", "persistent", "blocking" };

static int failures, checks, wrank;
static const char *cur_comm, *cur_coll;
static int cur_mode;

static void fail(const char *what, int at, long got, long want)
{
    if (failures < 30) {
        fprintf(stderr, "nbc_check: rank %d: %s %s on %s: %s[%d] = %ld, expected %ld\n", wrank,
                mode_names[cur_mode], cur_coll, cur_comm, what, at, got, want);
    }
    failures++;
}

static void expect(const char *what, int at, long got, long want)
{
    checks++;
    if (got != want) {
        fail(what, at, got, want);
    }
}

/* Value i of the data of rank r in group g (group 0 for intracommunicators). */
static int val(int g, int r, int i)
{
    return g * 100000 + r * 1000 + i + 1;
}

/* Affine map x -> a x + b (mod PRIME); a op b = apply a, then b (associative, not commutative). */
static void affine_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *u = in, *v = inout;
    for (int k = 0; k < *len; k++) {
        int a = (int) (((long) v[2 * k] * u[2 * k]) % PRIME);
        int b = (int) (((long) v[2 * k] * u[2 * k + 1] + v[2 * k + 1]) % PRIME);
        v[2 * k] = a;
        v[2 * k + 1] = b;
    }
}
static MPI_Op affine;
static void affine_of(int r, int i, int out[2])
{
    out[0] = (r * 7 + i * 3) % (PRIME - 2) + 2;
    out[1] = (r * 13 + i + 5) % PRIME;
}
/* Composition of ranks lo..hi-1 in order, element i. */
static void affine_fold(int lo, int hi, int i, int out[2])
{
    int acc[2] = { 1, 0 }, x[2], len = 1;
    for (int r = lo; r < hi; r++) {
        affine_of(r, i, x);
        affine_op(acc, x, &len, NULL);   /* x = acc then x */
        acc[0] = x[0];
        acc[1] = x[1];
    }
    out[0] = acc[0];
    out[1] = acc[1];
}

static int *ialloc(int n)
{
    int *b = malloc(sizeof(int) * (size_t) (n > 0 ? n : 1));
    for (int i = 0; i < n; i++) {
        b[i] = SENT;
    }
    return b;
}

/* Runs one collective in the current mode; for persistent, INIT creates rq on the first
 * iteration and every iteration starts it. */
#define NITER (M_PERS == mode ? 2 : 1)
#define DO(NB, INIT, BLK)                                  \
    do {                                                   \
        if (M_NB == mode) {                                \
            NB;                                            \
            MPI_Wait(&rq, MPI_STATUS_IGNORE);              \
        } else if (M_PERS == mode) {                       \
            if (0 == it) {                                 \
                INIT;                                      \
            }                                              \
            MPI_Start(&rq);                                \
            MPI_Wait(&rq, MPI_STATUS_IGNORE);              \
        } else {                                           \
            BLK;                                           \
        }                                                  \
    } while (0)
#define END_PERS()                                         \
    if (M_PERS == mode) {                                  \
        MPI_Request_free(&rq);                             \
    }

typedef struct {
    MPI_Comm comm;
    const char *name;
    int inter, g, p, q, r;   /* group id, local size, remote size (= p for intra), local rank */
} ctx_t;

static void t_barrier(const ctx_t *c, int mode)
{
    MPI_Request rq;
    cur_coll = "barrier";
    for (int it = 0; it < NITER; it++) {
        DO(MPI_Ibarrier(c->comm, &rq), MPIX_Barrier_init(c->comm, MPI_INFO_NULL, &rq),
           MPI_Barrier(c->comm));
    }
    END_PERS();
}

static void t_bcast(const ctx_t *c, int mode, int count)
{
    MPI_Request rq;
    int *b = ialloc(count);
    for (int root = 0; root < (c->inter ? 1 : c->p); root += (c->p > 2 ? c->p - 1 : 1)) {
        int croot = root, sender = 0, receiver = 1;
        cur_coll = "bcast";
        if (c->inter) {
            sender = (0 == c->g && 0 == c->r);
            receiver = (1 == c->g);
            croot = (0 == c->g) ? (sender ? MPI_ROOT : MPI_PROC_NULL) : 0;
        } else {
            sender = (c->r == root);
        }
        for (int it = 0; it < NITER; it++) {
            for (int i = 0; i < count; i++) {
                b[i] = sender ? val(0, root, i) : SENT;
            }
            DO(MPI_Ibcast(b, count, MPI_INT, croot, c->comm, &rq),
               MPIX_Bcast_init(b, count, MPI_INT, croot, c->comm, MPI_INFO_NULL, &rq),
               MPI_Bcast(b, count, MPI_INT, croot, c->comm));
            for (int i = 0; i < count; i++) {
                expect("buf", i, b[i], (receiver || sender) ? val(0, root, i) : SENT);
            }
        }
        END_PERS();
    }
    free(b);
}

/* Vector type: 2 ints with a hole; holes must stay untouched. */
static void t_bcast_vector(const ctx_t *c, int mode, int count)
{
    MPI_Request rq;
    MPI_Datatype vec;
    int *b = ialloc(3 * count + 1);
    if (c->inter) {
        free(b);
        return;
    }
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    cur_coll = "bcast(vector)";
    for (int it = 0; it < NITER; it++) {
        for (int i = 0; i < 3 * count; i++) {
            b[i] = (0 == c->r && i % 3 != 1) ? val(0, 0, i) : SENT;
        }
        DO(MPI_Ibcast(b, count, vec, 0, c->comm, &rq),
           MPIX_Bcast_init(b, count, vec, 0, c->comm, MPI_INFO_NULL, &rq),
           MPI_Bcast(b, count, vec, 0, c->comm));
        for (int i = 0; i < 3 * count; i++) {
            expect("vbuf", i, b[i], (i % 3 != 1) ? val(0, 0, i) : SENT);
        }
    }
    END_PERS();
    MPI_Type_free(&vec);   /* freed while a persistent request may still exist: must be kept */
    free(b);
}

static void t_reduce(const ctx_t *c, int mode, int count, int inplace)
{
    MPI_Request rq;
    int *s = ialloc(count), *b = ialloc(count);
    int root = c->inter ? 0 : c->p - 1;
    int croot = root, am_root;
    cur_coll = inplace ? "reduce(in place)" : "reduce";
    if (c->inter) {
        am_root = (0 == c->g && 0 == c->r);
        croot = (0 == c->g) ? (am_root ? MPI_ROOT : MPI_PROC_NULL) : 0;
    } else {
        am_root = (c->r == root);
    }
    for (int it = 0; it < NITER; it++) {
        const void *sb = s;
        for (int i = 0; i < count; i++) {
            s[i] = val(c->g, c->r, i);
            b[i] = (inplace && am_root) ? s[i] : SENT;
        }
        if (inplace && am_root) {
            sb = MPI_IN_PLACE;
        }
        DO(MPI_Ireduce(sb, b, count, MPI_INT, MPI_SUM, croot, c->comm, &rq),
           MPIX_Reduce_init(sb, b, count, MPI_INT, MPI_SUM, croot, c->comm, MPI_INFO_NULL, &rq),
           MPI_Reduce(sb, b, count, MPI_INT, MPI_SUM, croot, c->comm));
        for (int i = 0; i < count && am_root; i++) {
            long want = 0;
            for (int j = 0; j < c->q; j++) {
                want += val(c->inter ? 1 - c->g : 0, j, i);
            }
            expect("rbuf", i, b[i], want);
        }
    }
    END_PERS();
    free(s);
    free(b);
}

static void t_allreduce(const ctx_t *c, int mode, int count, int inplace)
{
    MPI_Request rq;
    int *s = ialloc(count), *b = ialloc(count);
    cur_coll = inplace ? "allreduce(in place)" : "allreduce";
    if (inplace && c->inter) {
        free(s);
        free(b);
        return;
    }
    for (int it = 0; it < NITER; it++) {
        for (int i = 0; i < count; i++) {
            s[i] = val(c->g, c->r, i);
            b[i] = inplace ? s[i] : SENT;
        }
        DO(MPI_Iallreduce(inplace ? MPI_IN_PLACE : s, b, count, MPI_INT, MPI_SUM, c->comm, &rq),
           MPIX_Allreduce_init(inplace ? MPI_IN_PLACE : s, b, count, MPI_INT, MPI_SUM, c->comm,
                               MPI_INFO_NULL, &rq),
           MPI_Allreduce(inplace ? MPI_IN_PLACE : s, b, count, MPI_INT, MPI_SUM, c->comm));
        for (int i = 0; i < count; i++) {
            long want = 0;
            for (int j = 0; j < c->q; j++) {
                want += val(c->inter ? 1 - c->g : 0, j, i);
            }
            expect("rbuf", i, b[i], want);
        }
    }
    END_PERS();
    free(s);
    free(b);
}

/* Non-commutative: reduce, allreduce, scan, exscan with the affine op on MPI_2INT. */
static void t_noncommutative(const ctx_t *c, int mode, int count)
{
    MPI_Request rq;
    int *s = ialloc(2 * count), *b = ialloc(2 * count), want[2];
    if (c->inter) {
        free(s);
        free(b);
        return;
    }
    for (int i = 0; i < count; i++) {
        affine_of(c->r, i, &s[2 * i]);
    }
    cur_coll = "reduce(non-commutative)";
    for (int it = 0; it < NITER; it++) {
        memset(b, 0, sizeof(int) * 2 * (size_t) count);
        DO(MPI_Ireduce(s, b, count, MPI_2INT, affine, 0, c->comm, &rq),
           MPIX_Reduce_init(s, b, count, MPI_2INT, affine, 0, c->comm, MPI_INFO_NULL, &rq),
           MPI_Reduce(s, b, count, MPI_2INT, affine, 0, c->comm));
        for (int i = 0; i < count && 0 == c->r; i++) {
            affine_fold(0, c->p, i, want);
            expect("a", i, b[2 * i], want[0]);
            expect("b", i, b[2 * i + 1], want[1]);
        }
    }
    END_PERS();
    cur_coll = "allreduce(non-commutative)";
    for (int it = 0; it < NITER; it++) {
        memset(b, 0, sizeof(int) * 2 * (size_t) count);
        DO(MPI_Iallreduce(s, b, count, MPI_2INT, affine, c->comm, &rq),
           MPIX_Allreduce_init(s, b, count, MPI_2INT, affine, c->comm, MPI_INFO_NULL, &rq),
           MPI_Allreduce(s, b, count, MPI_2INT, affine, c->comm));
        for (int i = 0; i < count; i++) {
            affine_fold(0, c->p, i, want);
            expect("a", i, b[2 * i], want[0]);
            expect("b", i, b[2 * i + 1], want[1]);
        }
    }
    END_PERS();
    cur_coll = "scan(non-commutative)";
    for (int it = 0; it < NITER; it++) {
        memset(b, 0, sizeof(int) * 2 * (size_t) count);
        DO(MPI_Iscan(s, b, count, MPI_2INT, affine, c->comm, &rq),
           MPIX_Scan_init(s, b, count, MPI_2INT, affine, c->comm, MPI_INFO_NULL, &rq),
           MPI_Scan(s, b, count, MPI_2INT, affine, c->comm));
        for (int i = 0; i < count; i++) {
            affine_fold(0, c->r + 1, i, want);
            expect("a", i, b[2 * i], want[0]);
            expect("b", i, b[2 * i + 1], want[1]);
        }
    }
    END_PERS();
    cur_coll = "exscan(non-commutative, in place)";
    for (int it = 0; it < NITER && !(M_BLK == mode && 1 == c->p); it++) {   /* see t_scan */
        memcpy(b, s, sizeof(int) * 2 * (size_t) count);
        DO(MPI_Iexscan(MPI_IN_PLACE, b, count, MPI_2INT, affine, c->comm, &rq),
           MPIX_Exscan_init(MPI_IN_PLACE, b, count, MPI_2INT, affine, c->comm, MPI_INFO_NULL,
                            &rq),
           MPI_Exscan(MPI_IN_PLACE, b, count, MPI_2INT, affine, c->comm));
        for (int i = 0; i < count && c->r > 0; i++) {
            affine_fold(0, c->r, i, want);
            expect("a", i, b[2 * i], want[0]);
            expect("b", i, b[2 * i + 1], want[1]);
        }
    }
    END_PERS();
    free(s);
    free(b);
}

static void t_scan(const ctx_t *c, int mode, int count, int inplace)
{
    MPI_Request rq;
    int *s = ialloc(count), *b = ialloc(count);
    if (c->inter) {
        free(s);
        free(b);
        return;
    }
    for (int ex = 0; ex < 2; ex++) {
        /* coll/basic's blocking exscan sends to rank 1 on a 1-process communicator (Open MPI
         * 4.1.4 bug; the self component normally takes such communicators). */
        if (ex && M_BLK == mode && 1 == c->p) {
            continue;
        }
        cur_coll = ex ? "exscan" : (inplace ? "scan(in place)" : "scan");
        for (int it = 0; it < NITER; it++) {
            const void *sb = s;
            for (int i = 0; i < count; i++) {
                s[i] = val(0, c->r, i);
                b[i] = (inplace && !ex) ? s[i] : SENT;
            }
            if (inplace && !ex) {
                sb = MPI_IN_PLACE;
            }
            if (ex) {
                DO(MPI_Iexscan(sb, b, count, MPI_INT, MPI_SUM, c->comm, &rq),
                   MPIX_Exscan_init(sb, b, count, MPI_INT, MPI_SUM, c->comm, MPI_INFO_NULL, &rq),
                   MPI_Exscan(sb, b, count, MPI_INT, MPI_SUM, c->comm));
            } else {
                DO(MPI_Iscan(sb, b, count, MPI_INT, MPI_SUM, c->comm, &rq),
                   MPIX_Scan_init(sb, b, count, MPI_INT, MPI_SUM, c->comm, MPI_INFO_NULL, &rq),
                   MPI_Scan(sb, b, count, MPI_INT, MPI_SUM, c->comm));
            }
            for (int i = 0; i < count && (!ex || c->r > 0); i++) {
                long want = 0;
                for (int j = 0; j < c->r + (ex ? 0 : 1); j++) {
                    want += val(0, j, i);
                }
                expect("rbuf", i, b[i], want);
            }
        }
        END_PERS();
    }
    free(s);
    free(b);
}

/* gather / gatherv (v: rank j contributes count + j elements). */
static void t_gather(const ctx_t *c, int mode, int count, int v, int inplace)
{
    MPI_Request rq;
    int n = c->q, total = 0, *rc = malloc(sizeof(int) * (size_t) n), *dp = malloc(sizeof(int) * (size_t) n);
    int mine = count + (v ? c->r : 0), root = c->inter ? 0 : c->p / 2, croot = root, am_root;
    int *s = ialloc(mine), *b;
    for (int j = 0; j < n; j++) {
        rc[j] = count + (v ? j : 0);
        dp[j] = total;
        total += rc[j];
    }
    b = ialloc(total);
    cur_coll = v ? (inplace ? "gatherv(in place)" : "gatherv") : (inplace ? "gather(in place)" : "gather");
    if (c->inter) {
        am_root = (0 == c->g && 0 == c->r);
        croot = (0 == c->g) ? (am_root ? MPI_ROOT : MPI_PROC_NULL) : 0;
    } else {
        am_root = (c->r == root);
    }
    for (int it = 0; it < NITER; it++) {
        const void *sb = s;
        for (int i = 0; i < mine; i++) {
            s[i] = val(c->g, c->r, i);
        }
        for (int i = 0; i < total; i++) {
            b[i] = SENT;
        }
        if (inplace && am_root && !c->inter) {
            memcpy(b + dp[c->r], s, sizeof(int) * (size_t) mine);
            sb = MPI_IN_PLACE;
        }
        if (v) {
            DO(MPI_Igatherv(sb, mine, MPI_INT, b, rc, dp, MPI_INT, croot, c->comm, &rq),
               MPIX_Gatherv_init(sb, mine, MPI_INT, b, rc, dp, MPI_INT, croot, c->comm,
                                 MPI_INFO_NULL, &rq),
               MPI_Gatherv(sb, mine, MPI_INT, b, rc, dp, MPI_INT, croot, c->comm));
        } else {
            DO(MPI_Igather(sb, mine, MPI_INT, b, count, MPI_INT, croot, c->comm, &rq),
               MPIX_Gather_init(sb, mine, MPI_INT, b, count, MPI_INT, croot, c->comm,
                                MPI_INFO_NULL, &rq),
               MPI_Gather(sb, mine, MPI_INT, b, count, MPI_INT, croot, c->comm));
        }
        for (int j = 0; j < n && am_root; j++) {
            for (int i = 0; i < rc[j]; i++) {
                expect("rbuf", dp[j] + i, b[dp[j] + i], val(c->inter ? 1 : 0, j, i));
            }
        }
    }
    END_PERS();
    free(rc);
    free(dp);
    free(s);
    free(b);
}

/* scatter / scatterv (v: rank j receives count + j elements). */
static void t_scatter(const ctx_t *c, int mode, int count, int v, int inplace)
{
    MPI_Request rq;
    /* Layout of the root's send buffer: over the receiving group (remote of the root). */
    int n = (c->inter && 1 == c->g) ? c->p : c->q, total = 0;
    int *sc = malloc(sizeof(int) * (size_t) n), *dp = malloc(sizeof(int) * (size_t) n);
    int mine = count + (v ? c->r : 0), root = c->inter ? 0 : c->p - 1, croot = root, am_root;
    int *s, *b = ialloc(mine), receiver;
    for (int j = 0; j < n; j++) {
        sc[j] = count + (v ? j : 0);
        dp[j] = total;
        total += sc[j];
    }
    s = ialloc(total);
    cur_coll = v ? (inplace ? "scatterv(in place)" : "scatterv") : (inplace ? "scatter(in place)" : "scatter");
    if (c->inter) {
        am_root = (0 == c->g && 0 == c->r);
        croot = (0 == c->g) ? (am_root ? MPI_ROOT : MPI_PROC_NULL) : 0;
        receiver = (1 == c->g);
    } else {
        am_root = (c->r == root);
        receiver = !(inplace && am_root);
    }
    for (int it = 0; it < NITER; it++) {
        void *rb = b;
        for (int i = 0; i < total; i++) {
            s[i] = am_root ? val(0, 0, i) : SENT;
        }
        for (int i = 0; i < mine; i++) {
            b[i] = SENT;
        }
        if (inplace && am_root && !c->inter) {
            rb = MPI_IN_PLACE;
        }
        if (v) {
            DO(MPI_Iscatterv(s, sc, dp, MPI_INT, rb, mine, MPI_INT, croot, c->comm, &rq),
               MPIX_Scatterv_init(s, sc, dp, MPI_INT, rb, mine, MPI_INT, croot, c->comm,
                                  MPI_INFO_NULL, &rq),
               MPI_Scatterv(s, sc, dp, MPI_INT, rb, mine, MPI_INT, croot, c->comm));
        } else {
            DO(MPI_Iscatter(s, count, MPI_INT, rb, mine, MPI_INT, croot, c->comm, &rq),
               MPIX_Scatter_init(s, count, MPI_INT, rb, mine, MPI_INT, croot, c->comm,
                                 MPI_INFO_NULL, &rq),
               MPI_Scatter(s, count, MPI_INT, rb, mine, MPI_INT, croot, c->comm));
        }
        for (int i = 0; i < mine && receiver; i++) {
            expect("rbuf", i, b[i], val(0, 0, dp[c->r] + i));
        }
    }
    END_PERS();
    free(sc);
    free(dp);
    free(s);
    free(b);
}

/* allgather / allgatherv (v: rank j contributes count + j elements). */
static void t_allgather(const ctx_t *c, int mode, int count, int v, int inplace)
{
    MPI_Request rq;
    int n = c->q, total = 0, *rc = malloc(sizeof(int) * (size_t) n), *dp = malloc(sizeof(int) * (size_t) n);
    int mine = count + (v ? c->r : 0), *s = ialloc(mine), *b;
    if (inplace && c->inter) {
        free(rc), free(dp), free(s);
        return;
    }
    for (int j = 0; j < n; j++) {
        rc[j] = count + (v ? j : 0);
        dp[j] = total + j;   /* a gap between blocks must stay untouched */
        total += rc[j];
    }
    b = ialloc(total + n);
    cur_coll = v ? (inplace ? "allgatherv(in place)" : "allgatherv") : (inplace ? "allgather(in place)" : "allgather");
    for (int it = 0; it < NITER; it++) {
        const void *sb = s;
        for (int i = 0; i < mine; i++) {
            s[i] = val(c->g, c->r, i);
        }
        for (int i = 0; i < total + n; i++) {
            b[i] = SENT;
        }
        if (inplace) {
            memcpy(b + (v ? dp[c->r] : c->r * count), s, sizeof(int) * (size_t) mine);
            sb = MPI_IN_PLACE;
        }
        if (v) {
            DO(MPI_Iallgatherv(sb, mine, MPI_INT, b, rc, dp, MPI_INT, c->comm, &rq),
               MPIX_Allgatherv_init(sb, mine, MPI_INT, b, rc, dp, MPI_INT, c->comm, MPI_INFO_NULL,
                                    &rq),
               MPI_Allgatherv(sb, mine, MPI_INT, b, rc, dp, MPI_INT, c->comm));
        } else {
            DO(MPI_Iallgather(sb, mine, MPI_INT, b, count, MPI_INT, c->comm, &rq),
               MPIX_Allgather_init(sb, mine, MPI_INT, b, count, MPI_INT, c->comm, MPI_INFO_NULL,
                                   &rq),
               MPI_Allgather(sb, mine, MPI_INT, b, count, MPI_INT, c->comm));
        }
        for (int j = 0; j < n; j++) {
            int at = v ? dp[j] : j * count;
            for (int i = 0; i < rc[j]; i++) {
                expect("rbuf", at + i, b[at + i], val(c->inter ? 1 - c->g : 0, j, i));
            }
            if (v) {
                expect("gap", at + rc[j], b[at + rc[j]], SENT);
            }
        }
    }
    END_PERS();
    free(rc);
    free(dp);
    free(s);
    free(b);
}

/* alltoall / alltoallv / alltoallw. v: sender x sends (x + y) % 3 + count elements to y. */
static void t_alltoall(const ctx_t *c, int mode, int count, int kind, int inplace)
{
    static const char *names[] = { "alltoall", "alltoallv", "alltoallw" };
    MPI_Request rq;
    int n = c->q, st = 0, rt = 0;
    int *scnt = malloc(sizeof(int) * (size_t) n), *sdp = malloc(sizeof(int) * (size_t) n);
    int *rcnt = malloc(sizeof(int) * (size_t) n), *rdp = malloc(sizeof(int) * (size_t) n);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t) n);
    int *s, *b, *sbytes = malloc(sizeof(int) * (size_t) n), *rbytes = malloc(sizeof(int) * (size_t) n);
    char name[64];

    if (inplace && c->inter) {
        free(scnt), free(sdp), free(rcnt), free(rdp), free(types), free(sbytes), free(rbytes);
        return;
    }
    for (int j = 0; j < n; j++) {
        scnt[j] = kind ? (c->r + j) % 3 + count : count;
        rcnt[j] = kind ? (j + c->r) % 3 + count : count;
        if (inplace) {
            scnt[j] = rcnt[j];
        }
        sdp[j] = st;
        rdp[j] = rt;
        sbytes[j] = st * (int) sizeof(int);
        rbytes[j] = rt * (int) sizeof(int);
        st += scnt[j];
        rt += rcnt[j];
        types[j] = MPI_INT;
    }
    s = ialloc(st);
    b = ialloc(rt);
    snprintf(name, sizeof(name), "%s%s", names[kind], inplace ? "(in place)" : "");
    cur_coll = name;
    for (int it = 0; it < NITER; it++) {
        const void *sb = s;
        /* element i of the block for y: val(g, r, y * 100 + i) */
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < scnt[j]; i++) {
                s[sdp[j] + i] = val(c->g, c->r, j * 100 + i);
            }
        }
        for (int i = 0; i < rt; i++) {
            b[i] = SENT;
        }
        if (inplace) {
            memcpy(b, s, sizeof(int) * (size_t) rt);
            sb = MPI_IN_PLACE;
        }
        if (0 == kind) {
            DO(MPI_Ialltoall(sb, count, MPI_INT, b, count, MPI_INT, c->comm, &rq),
               MPIX_Alltoall_init(sb, count, MPI_INT, b, count, MPI_INT, c->comm, MPI_INFO_NULL,
                                  &rq),
               MPI_Alltoall(sb, count, MPI_INT, b, count, MPI_INT, c->comm));
        } else if (1 == kind) {
            DO(MPI_Ialltoallv(sb, scnt, sdp, MPI_INT, b, rcnt, rdp, MPI_INT, c->comm, &rq),
               MPIX_Alltoallv_init(sb, scnt, sdp, MPI_INT, b, rcnt, rdp, MPI_INT, c->comm,
                                   MPI_INFO_NULL, &rq),
               MPI_Alltoallv(sb, scnt, sdp, MPI_INT, b, rcnt, rdp, MPI_INT, c->comm));
        } else {
            DO(MPI_Ialltoallw(sb, scnt, sbytes, types, b, rcnt, rbytes, types, c->comm, &rq),
               MPIX_Alltoallw_init(sb, scnt, sbytes, types, b, rcnt, rbytes, types, c->comm,
                                   MPI_INFO_NULL, &rq),
               MPI_Alltoallw(sb, scnt, sbytes, types, b, rcnt, rbytes, types, c->comm));
        }
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < rcnt[j]; i++) {
                expect("rbuf", rdp[j] + i, b[rdp[j] + i],
                       val(c->inter ? 1 - c->g : 0, j, c->r * 100 + i));
            }
        }
    }
    END_PERS();
    free(scnt), free(sdp), free(rcnt), free(rdp), free(types), free(sbytes), free(rbytes);
    free(s);
    free(b);
}

/* reduce_scatter_block / reduce_scatter (v: local rank k gets count + k % 2 elements; for an
 * intercommunicator both groups use vectors of the same total length, as MPI requires). */
static void t_reduce_scatter(const ctx_t *c, int mode, int count, int v, int inplace)
{
    MPI_Request rq;
    int p = c->p, n, *rc = malloc(sizeof(int) * (size_t) p), *off = malloc(sizeof(int) * (size_t) p);
    int *s, *b, total = 0;
    if (inplace && c->inter) {
        free(rc), free(off);
        return;
    }
    for (int k = 0; k < p; k++) {
        /* Intercommunicator: n = recvcount * group size must agree between the groups. */
        rc[k] = c->inter ? count * c->q : count;
        off[k] = total;
        total += rc[k];
    }
    if (v) {
        /* Same total T = 2 * count + 4 on both groups of an intercommunicator. */
        int T = c->inter ? 2 * count + 4 : total + p / 2, left = T;
        total = 0;
        for (int k = 0; k < p; k++) {
            rc[k] = (k == p - 1) ? left : (c->inter ? left / (p - k) : count + k % 2);
            left -= rc[k];
            off[k] = total;
            total += rc[k];
        }
    }
    /* The send vector: n elements (block: rcount times the size of the receiving group). */
    n = total;
    s = ialloc(inplace ? total : n);
    b = ialloc(inplace ? total : rc[c->r]);
    cur_coll = v ? (inplace ? "reduce_scatter(in place)" : "reduce_scatter")
                 : (inplace ? "reduce_scatter_block(in place)" : "reduce_scatter_block");
    for (int it = 0; it < NITER; it++) {
        for (int i = 0; i < n; i++) {
            s[i] = val(c->g, c->r, i);
        }
        if (inplace) {
            memcpy(b, s, sizeof(int) * (size_t) n);
        } else {
            for (int i = 0; i < rc[c->r]; i++) {
                b[i] = SENT;
            }
        }
        if (v) {
            DO(MPI_Ireduce_scatter(inplace ? MPI_IN_PLACE : s, b, rc, MPI_INT, MPI_SUM, c->comm, &rq),
               MPIX_Reduce_scatter_init(inplace ? MPI_IN_PLACE : s, b, rc, MPI_INT, MPI_SUM,
                                        c->comm, MPI_INFO_NULL, &rq),
               MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : s, b, rc, MPI_INT, MPI_SUM, c->comm));
        } else {
            DO(MPI_Ireduce_scatter_block(inplace ? MPI_IN_PLACE : s, b, rc[0], MPI_INT, MPI_SUM,
                                         c->comm, &rq),
               MPIX_Reduce_scatter_block_init(inplace ? MPI_IN_PLACE : s, b, rc[0], MPI_INT,
                                              MPI_SUM, c->comm, MPI_INFO_NULL, &rq),
               MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : s, b, rc[0], MPI_INT, MPI_SUM,
                                        c->comm));
        }
        for (int i = 0; i < rc[c->r]; i++) {
            long want = 0;
            for (int j = 0; j < c->q; j++) {
                want += val(c->inter ? 1 - c->g : 0, j, off[c->r] + i);
            }
            expect("rbuf", i, b[i], want);
        }
    }
    END_PERS();
    free(rc);
    free(off);
    free(s);
    free(b);
}

static void run_all(const ctx_t *c, int mode)
{
    static const int counts[] = { 0, 1, 7 };
    cur_comm = c->name;
    cur_mode = mode;
    t_barrier(c, mode);
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        int n = counts[k];
        for (int ip = 0; ip < 2; ip++) {
            if (ip && c->inter) {
                continue;
            }
            t_reduce(c, mode, n, ip);
            t_allreduce(c, mode, n, ip);
            t_scan(c, mode, n, ip);
            for (int v = 0; v < 2; v++) {
                t_gather(c, mode, n, v, ip);
                t_scatter(c, mode, n, v, ip);
                t_allgather(c, mode, n, v, ip);
                t_reduce_scatter(c, mode, n, v, ip);
            }
            for (int kind = 0; kind < 3; kind++) {
                t_alltoall(c, mode, n, kind, ip);
            }
        }
        t_bcast(c, mode, n);
        t_bcast_vector(c, mode, n);
        t_noncommutative(c, mode, n);
    }
}

int main(int argc, char **argv)
{
    int size, modes[3] = { 1, 1, 1 }, total_fail;
    MPI_Comm dup, split, inter;
    ctx_t ctx[5];
    int nctx = 0;

    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i++) {
        if (0 == strcmp(argv[i], "--mode")) {
            modes[0] = !strcmp(argv[i + 1], "nb") || !strcmp(argv[i + 1], "all");
            modes[1] = !strcmp(argv[i + 1], "persistent") || !strcmp(argv[i + 1], "all");
            modes[2] = !strcmp(argv[i + 1], "blocking") || !strcmp(argv[i + 1], "all");
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op_create(affine_op, 0, &affine);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    /* Ragged split: rank 0 alone in group 0, everyone else in group 1 (when size > 2). */
    MPI_Comm_split(MPI_COMM_WORLD, (size > 2 && wrank > 0) ? 1 : wrank % 2, size - wrank, &split);

    ctx[nctx++] = (ctx_t) { MPI_COMM_WORLD, "MPI_COMM_WORLD", 0, 0, 0, 0, 0 };
    ctx[nctx++] = (ctx_t) { MPI_COMM_SELF, "MPI_COMM_SELF", 0, 0, 0, 0, 0 };
    ctx[nctx++] = (ctx_t) { dup, "dup(world)", 0, 0, 0, 0, 0 };
    ctx[nctx++] = (ctx_t) { split, "split(ragged, reversed keys)", 0, 0, 0, 0, 0 };
    if (size >= 2) {
        int color = (size > 2 && wrank > 0) ? 1 : wrank % 2;
        MPI_Comm local;
        MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local);
        /* Leaders: world rank 0 for group 0; the lowest world rank of group 1 (1). */
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 0 == color ? 1 : 0, 77, &inter);
        MPI_Comm_free(&local);
        ctx[nctx++] = (ctx_t) { inter, "intercomm", 1, color, 0, 0, 0 };
    }
    for (int k = 0; k < nctx; k++) {
        MPI_Comm_rank(ctx[k].comm, &ctx[k].r);
        MPI_Comm_size(ctx[k].comm, &ctx[k].p);
        ctx[k].q = ctx[k].p;
        if (ctx[k].inter) {
            MPI_Comm_remote_size(ctx[k].comm, &ctx[k].q);
        }
    }
    for (int mode = 0; mode < 3; mode++) {
        if (!modes[mode]) {
            continue;
        }
        for (int k = 0; k < nctx; k++) {
            run_all(&ctx[k], mode);
        }
    }
    MPI_Allreduce(&failures, &total_fail, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == wrank) {
        printf("nbc_check: %d ranks, %d result checks on rank 0, %d failures\n", size, checks,
               total_fail);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
    if (size >= 2) {
        MPI_Comm_free(&inter);
    }
    MPI_Op_free(&affine);
    MPI_Finalize();
    return total_fail > 100 ? 100 : total_fail;
}
