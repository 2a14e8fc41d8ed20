/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The measurement tournament among node leaders (coll_cloudaware_tournament.c; CMPI §3.1).
 */
#ifndef MCA_COLL_CLOUDAWARE_TOURNAMENT_H
#define MCA_COLL_CLOUDAWARE_TOURNAMENT_H

#include "ompi_config.h"

#include "coll_cloudaware.h"
#include "coll_cloudaware_nodes.h"
#include "core/cloudaware_core.h"

BEGIN_C_DECLS

typedef struct {
    int status;          /* cacore_meas_status_t */
    int peer;            /* node involved in the failure, -1 */
    double *lat;         /* [nnodes]: this node -> j, seconds */
    double *bw;          /* [nnodes]: this node -> j, bytes/s */
} mca_coll_cloudaware_row_t;

/* Runs by node leaders only. todo[i*n+j] (symmetric) says which node pairs to measure. */
void mca_coll_cloudaware_measure(struct ompi_communicator_t *comm,
                                 const mca_coll_cloudaware_nodemap_t *map,
                                 const unsigned char *todo, double deadline,
                                 mca_coll_cloudaware_row_t *row);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_TOURNAMENT_H */
