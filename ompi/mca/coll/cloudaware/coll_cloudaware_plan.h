/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Running model-core plans (core/cloudaware_core.h) on the executor. The six cloud-aware
 * collectives' dispatch (coll_cloudaware_dispatch.c) appends this rank's steps to a schedule with
 * mca_coll_cloudaware_plan_to_sched and runs it with ca_sched_finish.
 */
#ifndef MCA_COLL_CLOUDAWARE_PLAN_H
#define MCA_COLL_CLOUDAWARE_PLAN_H

#include "coll_cloudaware_sched.h"
#include "core/cloudaware_core.h"

BEGIN_C_DECLS

/* Appends this rank's steps of a plan to s (intracommunicators only).
 *   coll      which collective (fixes D and what IN/OUT mean, see cloudaware_core.h)
 *   steps     this rank's steps, in any round order (listed order kept within a round)
 *   nblocks   blocks the data vector is split into (a multiple of the size for per-rank colls)
 *   ntmp      temporaries TMP0..TMP(ntmp-1) the plan uses (D elements each)
 *   sbuf/rbuf the user's buffers as passed to the collective (bcast: buffer in rbuf, sbuf
 *             ignored); MPI_IN_PLACE handled. gather/scatter/allgather: count and dtype must
 *             be the per-rank count and type of both sides (callers fall back otherwise).
 *   op        reduce/allreduce only (NULL otherwise)
 * Returns OMPI_ERR_BAD_PARAM for a step outside the schema (nothing is run then). */
int mca_coll_cloudaware_plan_to_sched(ca_sched_t *s, cacore_coll_t coll,
                                      const cacore_step_t *steps, size_t nsteps, int nblocks,
                                      int ntmp, const void *sbuf, void *rbuf, int count,
                                      struct ompi_datatype_t *dtype, struct ompi_op_t *op);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_PLAN_H */
