/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/cloudaware tracing (coll_cloudaware_trace=DIR, docs/trace-format.md): every rank records,
 * per collective call it runs as a plan, the call and each step of the executor (post and
 * completion time, peer, bytes, kind, level, the time the rank waited for it), and, per call
 * handed to the previous module, the call and its duration. Records go to a preallocated buffer,
 * written as text to DIR/rank-<world rank>.trace when it fills, at the start of MPI_Finalize and
 * at component close. The analysis (cloudaware-plan trace, the hints world rank 0 writes at
 * close) is the model core's (core/trace_analysis.cpp).
 *
 * Off (the default) every hook is one predictable branch on mca_coll_cloudaware_trace_active.
 * The executor (coll_cloudaware_exec.c) includes this header: it depends on Open MPI only.
 */
#ifndef MCA_COLL_CLOUDAWARE_TRACE_H
#define MCA_COLL_CLOUDAWARE_TRACE_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ompi/communicator/communicator.h"

BEGIN_C_DECLS

/* True while this process traces: the hooks test nothing else. */
extern bool mca_coll_cloudaware_trace_active;

/* What a traced schedule runs (filled by the dispatch before the executor runs it); a schedule
 * without one (the simple schedules of coll_cloudaware_sched_*.c) is not traced as a plan. */
typedef struct {
    bool traced;
    const void *owner;     /* the communicator's module: its identity while it lives */
    uint8_t coll;          /* cacore_coll_t */
    uint8_t mode;          /* ca_run_mode_t: blocking, nonblocking, persistent */
    int root;              /* communicator rank, -1 for allreduce/allgather */
    int plan;              /* plan number in the file (its description on a "plan" line) */
    size_t bytes;          /* as the call's description: per rank for gather/scatter/allgather */
    double predicted;      /* the cost model's time for the plan, seconds */
    int comm;              /* communicator number in the file */
    int64_t seq;           /* collective call number on that communicator */
    int64_t call;          /* call number in the file */
    double start;          /* seconds (CLOCK_MONOTONIC) */
    double last;           /* the later of: the round's last post, the last completion */
} mca_coll_cloudaware_trace_call_t;

/* Seconds of CLOCK_MONOTONIC: the component's one clock (trace records, the live trial's and
 * the drift check's times, calibration deadlines). */
double mca_coll_cloudaware_now(void);

/* Component open/close: opens nothing yet (the file is opened at the first record, when the
 * world rank is known); close writes what is left and, on world rank 0, DIR/hints.txt. */
void mca_coll_cloudaware_trace_open(void);
void mca_coll_cloudaware_trace_close(void);

/* The dispatch describes a plan call before the executor runs it (owner: the communicator's
 * module, plan: a cacore_plan_t). */
void mca_coll_cloudaware_trace_describe(mca_coll_cloudaware_trace_call_t *t, const void *owner,
                                        int coll, int mode, int root, size_t bytes,
                                        const void *plan);
/* The executor: a traced call starts (each MPI_Start of a persistent request is one call) and
 * ends (completion); the end time is also what a drift check would compare with `predicted`. */
void mca_coll_cloudaware_trace_call_start(mca_coll_cloudaware_trace_call_t *t,
                                          ompi_communicator_t *comm);
void mca_coll_cloudaware_trace_call_end(mca_coll_cloudaware_trace_call_t *t, int rc);
/* One step of the call: kind (ca_op_kind_t), level, peer (communicator rank or -1), round,
 * bytes, posted at `post`, completed at `done`; the rank waited for it since t->last. */
void mca_coll_cloudaware_trace_step(mca_coll_cloudaware_trace_call_t *t, int kind, int level,
                                    int peer, int round, size_t bytes, double post, double done);

/* A call handed to the previous module: start before it, end after it (for the nonblocking and
 * persistent forms, the time to post or set it up). */
void mca_coll_cloudaware_trace_previous(const void *owner, ompi_communicator_t *comm, int coll,
                                        int mode, int root, size_t bytes, double start,
                                        double end);

/* The communicator of this module is going away (module destructor): a later one may reuse
 * the module's address. */
void mca_coll_cloudaware_trace_comm_gone(const void *owner);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_TRACE_H */
