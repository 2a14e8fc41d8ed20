/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Tracing (coll_cloudaware_trace=DIR): records in a preallocated buffer, written as text lines
 * (docs/trace-format.md) to DIR/rank-<world rank>.trace when the buffer fills, at the start of
 * MPI_Finalize (the delete callback of an attribute on MPI_COMM_SELF, while every rank still
 * runs: MPI_Finalize then fences, so at component close world rank 0 sees every file complete)
 * and at component close. World rank 0 then writes DIR/hints.txt from all files of its job
 * (cacore_trace_hints).
 *
 * The directory is opened as the cache directory is (mca_coll_cloudaware_dir_open: no symbolic
 * link in its path, ours, not group/world writable; created 0700); the file is created 0600
 * relative to it, with O_NOFOLLOW, and must be a regular file. Any problem: one line, tracing
 * off on this rank, the job runs on.
 */
#include "ompi_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_cache.h"
#include "coll_cloudaware_exec.h"
#include "coll_cloudaware_trace.h"

#include "ompi/proc/proc.h"
#include "opal/util/proc.h"
#include CLOUDAWARE_MUTEX_HEADER

bool mca_coll_cloudaware_trace_active = false;

/* Records waiting to be written: a plan step, a plan call, a call of the previous module. */
enum { REC_STEP, REC_CALL, REC_PREVIOUS };
typedef struct {
    uint8_t type;
    uint8_t kind;        /* STEP: ca_op_kind_t; CALL/PREVIOUS: cacore_coll_t */
    uint8_t level;       /* STEP */
    uint8_t mode;        /* CALL/PREVIOUS: ca_run_mode_t */
    int32_t peer;        /* STEP: communicator rank; CALL/PREVIOUS: root */
    int32_t round;       /* STEP */
    int32_t comm;        /* CALL/PREVIOUS */
    int32_t plan;        /* CALL */
    int32_t rc;          /* CALL */
    int64_t call;
    int64_t seq;         /* CALL/PREVIOUS */
    uint64_t bytes;
    double t0, t1;       /* post/done, start/end */
    double x;            /* STEP: wait; CALL: predicted */
} trace_rec_t;

#define TRACE_RECORDS 4096

typedef struct {
    const void *owner;
    int id;
    int64_t seq;
} trace_comm_t;

static struct {
    char *dir;             /* coll_cloudaware_trace (the MCA variable is gone at close) */
    char name[32];         /* rank-<world rank>.trace */
    int dirfd;
    FILE *file;
    bool opened;           /* the file was opened (or tried): never again */
    double origin;         /* monotonic seconds of the file's time 0 */
    int64_t ncalls;
    trace_rec_t *recs;
    int nrecs;
    trace_comm_t *comms;
    int ncomms, comms_cap, next_comm;
    char **plans;
    int nplans;
    opal_mutex_t lock;
} tr = { .dirfd = -1 };

double mca_coll_cloudaware_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

void mca_coll_cloudaware_trace_open(void)
{
    const char *dir = mca_coll_cloudaware_component.trace_dir;

    OBJ_CONSTRUCT(&tr.lock, opal_mutex_t);
    if (NULL != dir && '\0' != dir[0]) {
        tr.dir = strdup(dir);
        mca_coll_cloudaware_trace_active = (NULL != tr.dir);
    }
}

/* Tracing stops on this rank (one line says why: "<what>: <problem>"); what was written stays. */
static void trace_off(const char *what, const char *problem)
{
    opal_output(0, "coll:cloudaware: %s%s%s; tracing off on this rank (coll_cloudaware_trace)",
                what, '\0' != problem[0] ? ": " : "", problem);
    mca_coll_cloudaware_trace_active = false;
}

/* "trace file DIR/NAME" for messages. */
static const char *file_label(const char *name)
{
    static char label[600];

    snprintf(label, sizeof(label), "trace file %s/%s", tr.dir, name);
    return label;
}

static const char *const mode_names[] = { "blocking", "nonblocking", "persistent" };
static const char *const kind_names[] = { "send", "recv", "copy", "reduce" };

/* Writes the buffered records (lock held). */
static void flush_records(void)
{
    for (int i = 0; NULL != tr.file && i < tr.nrecs; i++) {
        const trace_rec_t *r = &tr.recs[i];

        if (REC_STEP == r->type) {
            fprintf(tr.file,
                    "step %lld round %d kind %s level %d peer %d bytes %llu post %.9f done %.9f "
                    "wait %.9f\n", (long long) r->call, r->round, kind_names[r->kind & 3],
                    r->level, r->peer, (unsigned long long) r->bytes, r->t0 - tr.origin,
                    r->t1 - tr.origin, r->x);
        } else if (REC_CALL == r->type) {
            fprintf(tr.file,
                    "call %lld comm %d seq %lld op %s mode %s root %d bytes %llu plan %d "
                    "predicted %.9g start %.9f end %.9f status %s\n", (long long) r->call,
                    r->comm, (long long) r->seq, cacore_coll_name(r->kind), mode_names[r->mode % 3],
                    r->peer, (unsigned long long) r->bytes, r->plan, r->x, r->t0 - tr.origin,
                    r->t1 - tr.origin, OMPI_SUCCESS == r->rc ? "ok" : "error");
        } else {
            fprintf(tr.file,
                    "previous %lld comm %d seq %lld op %s mode %s root %d bytes %llu start %.9f "
                    "end %.9f\n", (long long) r->call, r->comm, (long long) r->seq,
                    cacore_coll_name(r->kind), mode_names[r->mode % 3], r->peer,
                    (unsigned long long) r->bytes, r->t0 - tr.origin, r->t1 - tr.origin);
        }
    }
    tr.nrecs = 0;
    if (NULL != tr.file && (0 != fflush(tr.file) || ferror(tr.file))) {
        int err = errno;

        fclose(tr.file);
        tr.file = NULL;
        trace_off(file_label(tr.name), strerror(err));
    }
}

/* The delete callback of our attribute on MPI_COMM_SELF: the start of MPI_Finalize. */
static int self_gone(MPI_Comm comm, int key, void *value, void *extra)
{
    OPAL_THREAD_LOCK(&tr.lock);
    flush_records();
    OPAL_THREAD_UNLOCK(&tr.lock);
    return MPI_SUCCESS;
}

/* Opens DIR/rank-<world rank>.trace and writes its header (lock held; called from an MPI call,
 * never from progress); the file's time 0 is `earliest` (monotonic seconds: the start of the
 * record that opens it, which may precede the opening) or now, whichever comes first. false:
 * tracing is off. */
static bool ensure_file(double earliest)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char why[512], *host;
    struct timespec real;
    struct stat st;
    int fd, self_key, fake = c->test_fake_nodes;
    char *name = tr.name;

    if (tr.opened) {
        return NULL != tr.file;
    }
    tr.opened = true;
    tr.recs = malloc(sizeof(trace_rec_t) * TRACE_RECORDS);
    if (NULL == tr.recs) {
        trace_off("tracing: out of memory", "");
        return false;
    }
    tr.dirfd = mca_coll_cloudaware_dir_open("trace directory", tr.dir, true, why,
                                            sizeof(why));
    if (tr.dirfd < 0) {
        trace_off(why, "");
        return false;
    }
    snprintf(name, sizeof(tr.name), "rank-%u.trace", (unsigned) OPAL_PROC_MY_NAME.vpid);
    fd = openat(tr.dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                0600);
    if (fd < 0 || 0 != fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        const char *err = (fd < 0 && ELOOP == errno) ? "is a symbolic link (refused)"
                          : (fd < 0) ? strerror(errno) : "is not a regular file (refused)";
        if (fd >= 0) {
            close(fd);
        }
        trace_off(file_label(name), err);
        return false;
    }
    tr.file = fdopen(fd, "w");
    if (NULL == tr.file) {
        close(fd);
        trace_off(file_label(name), strerror(errno));
        return false;
    }
    /* Time 0 of the file and the wall clock then (aligns hosts: docs/trace-format.md). */
    tr.origin = mca_coll_cloudaware_now();
    clock_gettime(CLOCK_REALTIME, &real);
    if (earliest < tr.origin) {   /* a record that started before now: time 0 moves back to it */
        double back = tr.origin - earliest;
        long long ns = (long long) real.tv_sec * 1000000000LL + real.tv_nsec
                       - (long long) (back * 1e9);
        real.tv_sec = (time_t) (ns / 1000000000LL);
        real.tv_nsec = (long) (ns % 1000000000LL);
        tr.origin = earliest;
    }
    host = mca_coll_cloudaware_proc_hostname(&ompi_proc_local()->super);
    fprintf(tr.file, "cloudaware-trace 1\n");
    fprintf(tr.file, "rank %u size %d job %u host %s", (unsigned) OPAL_PROC_MY_NAME.vpid,
            ompi_comm_size((ompi_communicator_t *) &ompi_mpi_comm_world),
            (unsigned) OPAL_PROC_MY_NAME.jobid, (NULL != host && '\0' != host[0]) ? host : "-");
    if (fake > 1) {
        fprintf(tr.file, "~%u", (unsigned) (OPAL_PROC_MY_NAME.vpid % fake));
    }
    fprintf(tr.file, " pid %ld\n", (long) getpid());
    free(host);
    fprintf(tr.file, "clock realtime %lld.%09ld\n", (long long) real.tv_sec, (long) real.tv_nsec);
    if (NULL != c->matrix_file && '\0' != c->matrix_file[0]) {
        fprintf(tr.file, "matrix %s\n", c->matrix_file);
    } else if (NULL != c->dump_matrix && '\0' != c->dump_matrix[0]) {
        fprintf(tr.file, "matrix %s\n", c->dump_matrix);
    }
    /* Written at the start of MPI_Finalize, while every rank still runs. The key is freed at
     * once: MPI keeps it until the attribute goes. */
    if (MPI_SUCCESS == PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_gone, &self_key, NULL)) {
        PMPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL);
        PMPI_Comm_free_keyval(&self_key);
    }
    return true;
}

/* This communicator's number in the file, written with its world ranks when first seen, and its
 * next call number (lock held). */
static trace_comm_t *comm_entry(const void *owner, ompi_communicator_t *comm)
{
    trace_comm_t *e;
    int size;

    for (int i = tr.ncomms - 1; i >= 0; i--) {
        if (tr.comms[i].owner == owner) {
            return &tr.comms[i];
        }
    }
    if (tr.ncomms == tr.comms_cap) {
        int cap = tr.comms_cap ? 2 * tr.comms_cap : 16;
        trace_comm_t *n = realloc(tr.comms, sizeof(*n) * (size_t) cap);
        if (NULL == n) {
            return NULL;
        }
        tr.comms = n;
        tr.comms_cap = cap;
    }
    e = &tr.comms[tr.ncomms++];
    e->owner = owner;
    e->id = tr.next_comm++;
    e->seq = 0;
    size = ompi_comm_size(comm);
    fprintf(tr.file, "comm %d cid %u size %d", e->id, (unsigned) ompi_comm_get_cid(comm), size);
    if (OMPI_COMM_IS_INTER(comm)) {
        fprintf(tr.file, " inter\n");
        return e;
    }
    fprintf(tr.file, " ranks");
    for (int r = 0; r < size; r++) {
        ompi_proc_t *p = ompi_comm_peer_lookup(comm, r);
        fprintf(tr.file, " %u", NULL != p ? (unsigned) p->super.proc_name.vpid : 0u);
    }
    fprintf(tr.file, "\n");
    return e;
}

void mca_coll_cloudaware_trace_comm_gone(const void *owner)
{
    if (!mca_coll_cloudaware_trace_active) {
        return;
    }
    OPAL_THREAD_LOCK(&tr.lock);
    for (int i = 0; i < tr.ncomms; i++) {
        if (tr.comms[i].owner == owner) {
            tr.comms[i] = tr.comms[--tr.ncomms];
            break;
        }
    }
    OPAL_THREAD_UNLOCK(&tr.lock);
}

/* The plan's number in the file, its description written when first seen (lock held). */
static int plan_number(const char *desc)
{
    char **n;

    for (int i = tr.nplans - 1; i >= 0; i--) {
        if (0 == strcmp(tr.plans[i], desc)) {
            return i;
        }
    }
    n = realloc(tr.plans, sizeof(*n) * (size_t) (tr.nplans + 1));
    if (NULL == n) {
        return -1;
    }
    tr.plans = n;
    if (NULL == (tr.plans[tr.nplans] = strdup(desc))) {
        return -1;
    }
    fprintf(tr.file, "plan %d %s\n", tr.nplans, desc);
    return tr.nplans++;
}

/* At a call's end (lock held): a buffer more than half full is written out now, so that the
 * next call's steps fit before it fills. After a blocking call or a handed-over one that is
 * between this rank's calls; a nonblocking call ends when progress finds it complete, which may
 * be inside another call, as a write of a full buffer could be before. Writing 4096 records
 * takes 30-50 ms on a loaded host (cloud-16, 16 ranks on 2 cores): inside a call it stalled the
 * rank and showed in the trace as the call's slowest wait. */
static void flush_between_calls(void)
{
    if (tr.nrecs > TRACE_RECORDS / 2) {
        flush_records();
    }
}

/* A free record (lock held): the buffer is written out when full (a call of more than half the
 * buffer's steps; otherwise flush_between_calls has written it first). */
static trace_rec_t *new_record(int type)
{
    trace_rec_t *r;

    if (tr.nrecs == TRACE_RECORDS) {
        flush_records();
    }
    if (NULL == tr.file) {
        return NULL;
    }
    r = &tr.recs[tr.nrecs++];
    memset(r, 0, sizeof(*r));
    r->type = (uint8_t) type;
    return r;
}

void mca_coll_cloudaware_trace_describe(mca_coll_cloudaware_trace_call_t *t, const void *owner,
                                        int coll, int mode, int root, size_t bytes,
                                        const void *plan)
{
    const cacore_plan_t *p = plan;

    OPAL_THREAD_LOCK(&tr.lock);
    if (ensure_file(mca_coll_cloudaware_now())) {
        t->traced = true;
        t->owner = owner;
        t->coll = (uint8_t) coll;
        t->mode = (uint8_t) mode;
        t->root = root;
        t->bytes = bytes;
        t->plan = plan_number(cacore_plan_describe(p));
        t->predicted = cacore_plan_predicted(p);
    }
    OPAL_THREAD_UNLOCK(&tr.lock);
}

void mca_coll_cloudaware_trace_call_start(mca_coll_cloudaware_trace_call_t *t,
                                          ompi_communicator_t *comm)
{
    trace_comm_t *e;

    OPAL_THREAD_LOCK(&tr.lock);
    if (ensure_file(mca_coll_cloudaware_now()) && NULL != (e = comm_entry(t->owner, comm))) {
        t->comm = e->id;
        t->seq = e->seq++;
        t->call = tr.ncalls++;
    } else {
        t->traced = false;
    }
    OPAL_THREAD_UNLOCK(&tr.lock);
    t->start = t->last = mca_coll_cloudaware_now();
}

void mca_coll_cloudaware_trace_call_end(mca_coll_cloudaware_trace_call_t *t, int rc)
{
    double end = mca_coll_cloudaware_now();
    trace_rec_t *r;

    OPAL_THREAD_LOCK(&tr.lock);
    if (NULL != (r = new_record(REC_CALL))) {
        r->kind = t->coll;
        r->mode = t->mode;
        r->peer = t->root;
        r->comm = t->comm;
        r->plan = t->plan;
        r->rc = rc;
        r->call = t->call;
        r->seq = t->seq;
        r->bytes = t->bytes;
        r->t0 = t->start;
        r->t1 = end;
        r->x = t->predicted;
    }
    flush_between_calls();
    OPAL_THREAD_UNLOCK(&tr.lock);
}

void mca_coll_cloudaware_trace_step(mca_coll_cloudaware_trace_call_t *t, int kind, int level,
                                    int peer, int round, size_t bytes, double post, double done)
{
    double from = t->last > post ? t->last : post;
    trace_rec_t *r;

    OPAL_THREAD_LOCK(&tr.lock);
    if (NULL != (r = new_record(REC_STEP))) {
        r->kind = (uint8_t) kind;
        r->level = (uint8_t) level;
        r->peer = peer;
        r->round = round;
        r->call = t->call;
        r->bytes = bytes;
        r->t0 = post;
        r->t1 = done;
        /* Local steps are work, not waiting; a message's wait is the time since the rank last
         * had something to do in this call (its round posted, or its previous completion). */
        r->x = (CA_OP_SEND == kind || CA_OP_RECV == kind) && done > from ? done - from : 0.0;
    }
    OPAL_THREAD_UNLOCK(&tr.lock);
    if (done > t->last) {
        t->last = done;
    }
}

void mca_coll_cloudaware_trace_previous(const void *owner, ompi_communicator_t *comm, int coll,
                                        int mode, int root, size_t bytes, double start,
                                        double end)
{
    trace_comm_t *e;
    trace_rec_t *r;

    OPAL_THREAD_LOCK(&tr.lock);
    if (ensure_file(start) && NULL != (e = comm_entry(owner, comm))
        && NULL != (r = new_record(REC_PREVIOUS))) {
        r->kind = (uint8_t) coll;
        r->mode = (uint8_t) mode;
        r->peer = root;
        r->comm = e->id;
        r->seq = e->seq++;
        r->call = tr.ncalls++;
        r->bytes = bytes;
        r->t0 = start;
        r->t1 = end;
    }
    flush_between_calls();
    OPAL_THREAD_UNLOCK(&tr.lock);
}

/* World rank 0, after MPI_Finalize's fence: DIR/hints.txt from every file of this job. */
static void write_hints(void)
{
    char err[512], job[32], *text = NULL;
    int fd;

    snprintf(job, sizeof(job), "%u", (unsigned) OPAL_PROC_MY_NAME.jobid);
    if (CACORE_OK != cacore_trace_hints(tr.dir, job, &text, err,
                                        sizeof(err))) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_trace %s: no hints: %s",
                    tr.dir, err);
        return;
    }
    fd = openat(tr.dirfd, "hints.txt",
                O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0 || (ssize_t) strlen(text) != write(fd, text, strlen(text))) {
        opal_output(0, "coll:cloudaware: coll_cloudaware_trace %s: cannot write hints.txt: %s",
                    tr.dir, strerror(errno));
    }
    if (fd >= 0) {
        close(fd);
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, mca_coll_cloudaware_component.output,
                        "coll:cloudaware: hints (%s/hints.txt):\n%s",
                        tr.dir, text);
    free(text);
}

void mca_coll_cloudaware_trace_close(void)
{
    bool traced = NULL != tr.file;

    if (traced) {
        flush_records();
        fclose(tr.file);
        tr.file = NULL;
        if (0 == OPAL_PROC_MY_NAME.vpid) {
            write_hints();
        }
    }
    mca_coll_cloudaware_trace_active = false;
    if (tr.dirfd >= 0) {
        close(tr.dirfd);
    }
    for (int i = 0; i < tr.nplans; i++) {
        free(tr.plans[i]);
    }
    free(tr.plans);
    free(tr.comms);
    free(tr.recs);
    free(tr.dir);
    OBJ_DESTRUCT(&tr.lock);
    memset(&tr, 0, sizeof(tr));
    tr.dirfd = -1;
}
