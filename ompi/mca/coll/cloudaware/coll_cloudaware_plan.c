/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Translator: one rank's steps of a model-core plan (cacore_step_t over global blocks, schema in
 * core/cloudaware_core.h) -> an executor schedule on the user's buffers. The executor's round
 * semantics are the plan's (local steps in listed order, then all sends/receives, then wait), so
 * the translation is step by step:
 *   - blocks [first, first+n) become the element range [lo, hi) of the data vector, with
 *     lo = floor(first*D/nblocks), and an address base + lo*extent in the named buffer;
 *   - IN/OUT are resolved per collective, including "only this rank's part" buffers and
 *     MPI_IN_PLACE; TMPk are executor temporaries of D elements (true extent);
 *   - REDUCE with src_first=0 (buf = buf op src) on a non-commutative op goes through a scratch
 *     temporary, since ompi_op_reduce only computes target = source op target.
 */
#include "ompi_config.h"

#include "coll_cloudaware_plan.h"

#include "ompi/constants.h"

static size_t elem_lo(int64_t block, int64_t nblocks, int64_t D)
{
    return (size_t) ((block * D) / nblocks);
}

static int step_order(const void *a, const void *b)
{
    const cacore_step_t *x = *(const cacore_step_t *const *) a, *y = *(const cacore_step_t *const *) b;
    if (x->round != y->round) {
        return x->round < y->round ? -1 : 1;
    }
    return (x < y) ? -1 : (x > y);   /* stable: keep listed order within a round */
}

int mca_coll_cloudaware_plan_to_sched(ca_sched_t *s, cacore_coll_t coll,
                                      const cacore_step_t *steps, size_t nsteps, int nblocks,
                                      int ntmp, const void *sbuf, void *rbuf, int count,
                                      struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    int size = ompi_comm_size(s->comm), rank = ompi_comm_rank(s->comm);
    bool per_rank = (CACORE_COLL_GATHER == coll || CACORE_COLL_SCATTER == coll ||
                     CACORE_COLL_ALLGATHER == coll);
    int64_t D = per_rank ? (int64_t) size * count : count;
    ptrdiff_t ext = ca_extent(dtype), mine = (ptrdiff_t) rank * count * ext;
    int nbuf = CACORE_BUF_TMP0 + ntmp, last_round = 0;
    ca_addr_t *base, scratch = ca_user(NULL);
    bool have_scratch = false, first = true;
    const cacore_step_t **order;

    if (OMPI_COMM_IS_INTER(s->comm) || nblocks <= 0 || ntmp < 0 || count < 0 ||
        coll >= CACORE_COLL_COUNT || (per_rank && nblocks % size != 0)) {
        return OMPI_ERR_BAD_PARAM;
    }
    base = malloc(sizeof(ca_addr_t) * (size_t) nbuf);
    order = malloc(sizeof(*order) * (nsteps ? nsteps : 1));
    if (NULL == base || NULL == order) {
        free(base);
        free(order);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    /* Buffer bases in the global element numbering (address of element e = base + e*extent). */
    switch (coll) {
    case CACORE_COLL_BCAST:
        base[CACORE_BUF_IN] = base[CACORE_BUF_OUT] = ca_user(rbuf);
        break;
    case CACORE_COLL_REDUCE:
    case CACORE_COLL_ALLREDUCE:
        base[CACORE_BUF_OUT] = ca_user(rbuf);
        if (MPI_IN_PLACE == sbuf) {
            /* Plans treat IN and OUT as distinct: keep the input aside before round 0. */
            base[CACORE_BUF_IN] = ca_sched_tmp(s, (size_t) D, dtype);
            ca_sched_copy(s, ca_user(rbuf), (size_t) D, dtype, base[CACORE_BUF_IN], (size_t) D,
                          dtype);
        } else {
            base[CACORE_BUF_IN] = ca_user(sbuf);
        }
        break;
    case CACORE_COLL_GATHER:
    case CACORE_COLL_ALLGATHER:
        base[CACORE_BUF_OUT] = ca_user(rbuf);
        base[CACORE_BUF_IN] = (MPI_IN_PLACE == sbuf) ? ca_user(rbuf)
                                                     : ca_user((const char *) sbuf - mine);
        break;
    default: /* CACORE_COLL_SCATTER */
        base[CACORE_BUF_IN] = ca_user(sbuf);
        base[CACORE_BUF_OUT] = (MPI_IN_PLACE == rbuf) ? ca_user(sbuf)
                                                      : ca_user((char *) rbuf - mine);
        break;
    }
    for (int k = 0; k < ntmp; k++) {
        base[CACORE_BUF_TMP0 + k] = ca_sched_tmp(s, (size_t) D, dtype);
    }

    for (size_t i = 0; i < nsteps; i++) {
        order[i] = &steps[i];
    }
    qsort(order, nsteps, sizeof(*order), step_order);
    for (size_t i = 0; i < nsteps && OMPI_SUCCESS == s->error; i++) {
        const cacore_step_t *st = order[i];
        size_t lo, n;
        ca_addr_t dst, src;

        if (st->buf >= nbuf || st->first_block < 0 || st->nblocks < 0 ||
            st->first_block + st->nblocks > nblocks ||
            ((CACORE_STEP_COPY == st->kind || CACORE_STEP_REDUCE == st->kind) &&
             st->src_buf >= nbuf) ||
            ((CACORE_STEP_SEND == st->kind || CACORE_STEP_RECV == st->kind) &&
             (st->peer < 0 || st->peer >= size)) || st->kind > CACORE_STEP_REDUCE) {
            s->error = OMPI_ERR_BAD_PARAM;
            break;
        }
        if (first || st->round != last_round) {
            ca_sched_round(s);
            first = false;
            last_round = st->round;
        }
        lo = elem_lo(st->first_block, nblocks, D);
        n = elem_lo(st->first_block + st->nblocks, nblocks, D) - lo;
        dst = ca_off(base[st->buf], (ptrdiff_t) lo * ext);
        s->level = st->level;   /* tracing reports each step's level */
        switch (st->kind) {
        case CACORE_STEP_SEND:
            ca_sched_send(s, dst, n, dtype, st->peer, false);
            break;
        case CACORE_STEP_RECV:
            ca_sched_recv(s, dst, n, dtype, st->peer, false);
            break;
        case CACORE_STEP_COPY:
            src = ca_off(base[st->src_buf], (ptrdiff_t) lo * ext);
            ca_sched_copy(s, src, n, dtype, dst, n, dtype);
            break;
        default: /* CACORE_STEP_REDUCE */
            src = ca_off(base[st->src_buf], (ptrdiff_t) lo * ext);
            if (st->src_first || ompi_op_is_commute(op)) {
                ca_sched_reduce(s, src, dst, n, dtype, op);   /* buf = src op buf */
            } else {
                ca_addr_t tmp;
                if (!have_scratch) {
                    scratch = ca_sched_tmp(s, (size_t) D, dtype);
                    have_scratch = true;
                }
                tmp = ca_off(scratch, (ptrdiff_t) lo * ext);
                ca_sched_copy(s, src, n, dtype, tmp, n, dtype);
                ca_sched_reduce(s, dst, tmp, n, dtype, op);   /* tmp = buf op src */
                ca_sched_copy(s, tmp, n, dtype, dst, n, dtype);
            }
            break;
        }
    }
    free(base);
    free(order);
    return s->error;
}
