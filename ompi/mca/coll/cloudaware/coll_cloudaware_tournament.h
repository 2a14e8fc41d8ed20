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
    double *node;        /* [CACORE_NODE_VALUES]: this node's egress and ingress capacity
                            (bytes/s, 0 = no cap seen), per-message overhead (s) and lone
                            sample (cloudaware_core.h) */
} mca_coll_cloudaware_row_t;

/* Peers of one node in the capacity phase (fewer when there are fewer other nodes). */
#define CLOUDAWARE_FAN_PEERS 3
/* A fan's aggregate rate below this fraction of the sum of its pairs' rates is a node cap. */
#define CLOUDAWARE_CAP_RATIO 0.8

/* Runs by node leaders only. todo[i*n+j] (symmetric) says which node pairs to measure,
 * node_todo[i] which nodes' properties (capacity phase after the tournament). */
void mca_coll_cloudaware_measure(struct ompi_communicator_t *comm,
                                 const mca_coll_cloudaware_nodemap_t *map,
                                 const unsigned char *todo, const unsigned char *node_todo,
                                 double deadline, mca_coll_cloudaware_row_t *row);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_TOURNAMENT_H */
