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
                            (bytes/s, 0 = no cap seen), per-message overhead (s), lone
                            samples and burst credit (bytes) (cloudaware_core.h) */
} mca_coll_cloudaware_row_t;

/* Peers of one node in the capacity phase (fewer when there are fewer other nodes). */
#define CLOUDAWARE_FAN_PEERS 3
/* A fan's aggregate rate below this fraction of the sum of its pairs' rates is a node cap. */
#define CLOUDAWARE_CAP_RATIO 0.8
/* Runs of a fan at most: one that shows a cap runs again until two runs in a row agree within
 * CLOUDAWARE_FAN_AGREE (relative), the fastest counts (docs/calibration.md, "Node capacity and
 * per-message overhead"). */
#define CLOUDAWARE_FAN_TRIES 3
#define CLOUDAWARE_FAN_AGREE 0.1
/* Lone samples per node (its slowest measured peers, one after the other, a quarter of a bulk
 * transfer each), both kept: node[LONE] / [SHARED] and node[LONE2] / [SHARED2]
 * (docs/calibration.md, "Shared bottlenecks"). */
#define CLOUDAWARE_LONE_SAMPLES 2
/* Burst credit probes (docs/calibration.md, "Burst credit"): sizes CLOUDAWARE_BURST_MIN << i for
 * i < CLOUDAWARE_BURST_SIZES, each sent at most twice (CLOUDAWARE_BURST_PROBES messages in all;
 * cacore_burst_judge says what follows each), each after CLOUDAWARE_BURST_GAP_S of idling plus
 * what the one before owes at the pair's rate; sizes that take more than CLOUDAWARE_BURST_MAX_S
 * at that rate are not sent. */
#define CLOUDAWARE_BURST_MIN 16384
#define CLOUDAWARE_BURST_SIZES 4
#define CLOUDAWARE_BURST_PROBES (2 * CLOUDAWARE_BURST_SIZES)
#define CLOUDAWARE_BURST_GAP_S 0.025
#define CLOUDAWARE_BURST_MAX_S 0.1

/* Runs by node leaders only. todo[i*n+j] (symmetric) says which node pairs to measure,
 * node_todo[i] which nodes' properties (capacity phase after the tournament). */
void mca_coll_cloudaware_measure(struct ompi_communicator_t *comm,
                                 const mca_coll_cloudaware_nodemap_t *map,
                                 const unsigned char *todo, const unsigned char *node_todo,
                                 double deadline, mca_coll_cloudaware_row_t *row);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_TOURNAMENT_H */
