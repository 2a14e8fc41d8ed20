/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The node map: which ranks of a communicator share a node, which rank leads (measures for) each
 * node, and the key of the node set.
 *
 * Node identity is the host name Open MPI's runtime reports for each process (PMIx
 * PMIX_HOSTNAME, through opal_get_proc_hostname), so the map is the same on every rank without
 * any communication: comm_query and enable must not depend on per-rank state.
 * Nodes are numbered in the order of their sorted host names; the node-set key is a hash of that
 * sorted list (cache file names), and the list itself is kept to detect collisions.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_nodes.h"

#include "ompi/proc/proc.h"
#include "opal/util/proc.h"

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The host of comm rank r. coll_cloudaware_test_fake_nodes=K (tests only) splits every host
 * into K pretend nodes by world rank, so one machine can exercise multi-node code paths. */
static char *rank_host(struct ompi_communicator_t *comm, int r)
{
    ompi_proc_t *proc = ompi_comm_peer_lookup(comm, r);
    const char *h = (NULL == proc) ? NULL : opal_get_proc_hostname(&proc->super);
    int fake = mca_coll_cloudaware_component.test_fake_nodes;
    char buf[512];

    if (NULL == h) {
        h = "";   /* unknown hosts count as one node: never over-estimate spread */
    }
    if (fake > 1 && NULL != proc) {
        snprintf(buf, sizeof(buf), "%s~%u", h, (unsigned) (proc->super.proc_name.vpid % fake));
        return strdup(buf);
    }
    return strdup(h);
}

uint64_t mca_coll_cloudaware_hosts_key(int n, char *const *hosts)
{
    uint64_t h = 14695981039346656037ULL;

    for (int i = 0; i < n; i++) {
        for (const unsigned char *p = (const unsigned char *) hosts[i]; *p; p++) {
            h = (h ^ *p) * 1099511628211ULL;
        }
        h = (h ^ '\n') * 1099511628211ULL;
    }
    return h;
}

void mca_coll_cloudaware_nodemap_free(mca_coll_cloudaware_nodemap_t *map)
{
    if (NULL == map) {
        return;
    }
    if (NULL != map->hosts) {
        for (int i = 0; i < map->nnodes; i++) {
            free(map->hosts[i]);
        }
    }
    free(map->hosts);
    free(map->rank_node);
    free(map->node_nranks);
    free(map->leaders);
    free(map);
}

int mca_coll_cloudaware_nodemap_build(struct ompi_communicator_t *comm,
                                      mca_coll_cloudaware_nodemap_t **out)
{
    int size = ompi_comm_size(comm), choice = mca_coll_cloudaware_component.node_leader;
    mca_coll_cloudaware_nodemap_t *map = calloc(1, sizeof(*map));
    char **names = calloc((size_t) size, sizeof(char *));
    char **sorted = calloc((size_t) size, sizeof(char *));
    int *seen = NULL;

    *out = NULL;
    if (NULL == map || NULL == names || NULL == sorted) {
        goto nomem;
    }
    map->nranks = size;
    map->my_rank = ompi_comm_rank(comm);
    for (int r = 0; r < size; r++) {
        if (NULL == (names[r] = rank_host(comm, r))) {
            goto nomem;
        }
        sorted[r] = names[r];
    }
    qsort(sorted, (size_t) size, sizeof(char *), compare_names);
    map->hosts = calloc((size_t) size, sizeof(char *));
    map->rank_node = calloc((size_t) size, sizeof(int));
    if (NULL == map->hosts || NULL == map->rank_node) {
        goto nomem;
    }
    for (int r = 0; r < size; r++) {
        if (0 == r || 0 != strcmp(sorted[r - 1], sorted[r])) {
            if (NULL == (map->hosts[map->nnodes++] = strdup(sorted[r]))) {
                goto nomem;
            }
        }
    }
    map->node_nranks = calloc((size_t) map->nnodes, sizeof(int));
    map->leaders = calloc((size_t) map->nnodes, sizeof(int));
    seen = calloc((size_t) map->nnodes, sizeof(int));
    if (NULL == map->node_nranks || NULL == map->leaders || NULL == seen) {
        goto nomem;
    }
    for (int r = 0; r < size; r++) {
        char **hit = bsearch(&names[r], map->hosts, (size_t) map->nnodes, sizeof(char *),
                             compare_names);
        map->rank_node[r] = (int) (hit - map->hosts);
        map->node_nranks[map->rank_node[r]]++;
    }
    /* Leader: the choice-th rank of the node in communicator order (0 = lowest, -1 = highest),
     * clamped to the ranks the node has. */
    for (int r = 0; r < size; r++) {
        int nd = map->rank_node[r], k = choice;

        if (k < 0) {
            k = map->node_nranks[nd] + k;
        }
        if (k < 0) {
            k = 0;
        }
        if (k >= map->node_nranks[nd]) {
            k = map->node_nranks[nd] - 1;
        }
        if (seen[nd]++ == k) {
            map->leaders[nd] = r;
        }
    }
    map->my_node = map->rank_node[map->my_rank];
    map->key = mca_coll_cloudaware_hosts_key(map->nnodes, map->hosts);
    for (int r = 0; r < size; r++) {
        free(names[r]);
    }
    free(names);
    free(sorted);
    free(seen);
    *out = map;
    return OMPI_SUCCESS;

nomem:
    if (NULL != names) {
        for (int r = 0; r < size; r++) {
            free(names[r]);
        }
    }
    free(names);
    free(sorted);
    free(seen);
    mca_coll_cloudaware_nodemap_free(map);
    return OMPI_ERR_OUT_OF_RESOURCE;
}

int mca_coll_cloudaware_count_nodes(struct ompi_communicator_t *comm)
{
    mca_coll_cloudaware_nodemap_t *map;
    int n;

    if (OMPI_SUCCESS != mca_coll_cloudaware_nodemap_build(comm, &map)) {
        return 0;
    }
    n = map->nnodes;
    mca_coll_cloudaware_nodemap_free(map);
    return n;
}
