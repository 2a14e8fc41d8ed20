/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The node map of a communicator (coll_cloudaware_nodes.c): which ranks share a node, which rank
 * leads (measures for) each node, and the key of the node set.
 */
#ifndef MCA_COLL_CLOUDAWARE_NODES_H
#define MCA_COLL_CLOUDAWARE_NODES_H

#include "ompi_config.h"

#include <stdint.h>

#include "coll_cloudaware.h"

BEGIN_C_DECLS

/* Which ranks share a node. Nodes are numbered in the order of their sorted host names, so the
 * numbering (and everything derived from it) is identical on every rank. */
typedef struct mca_coll_cloudaware_nodemap_t {
    int nranks;
    int nnodes;
    char **hosts;        /* [nnodes], sorted */
    int *rank_node;      /* [nranks]: node of each communicator rank */
    int *node_nranks;    /* [nnodes]: ranks on each node */
    int *leaders;        /* [nnodes]: communicator rank that measures for the node */
    int my_node;
    int my_rank;
    uint64_t key;        /* FNV-1a 64 of the sorted host names, '\n'-separated */
} mca_coll_cloudaware_nodemap_t;

int mca_coll_cloudaware_nodemap_build(struct ompi_communicator_t *comm,
                                      mca_coll_cloudaware_nodemap_t **out);
void mca_coll_cloudaware_nodemap_free(mca_coll_cloudaware_nodemap_t *map);
uint64_t mca_coll_cloudaware_hosts_key(int n, char *const *hosts);
/* Frees the host names cached by process (component close). */
void mca_coll_cloudaware_nodes_release(void);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_NODES_H */
