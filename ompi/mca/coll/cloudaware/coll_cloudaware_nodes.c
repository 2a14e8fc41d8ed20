/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The node map: which ranks of a communicator share a node, which rank leads (measures for) each
 * node, and the key of the node set.
 *
 * Node identity is the host name Open MPI's runtime reports for each process (PMIx
 * PMIX_HOSTNAME, through opal_get_proc_hostname; asked once per process and cached), so the map
 * is the same on every rank without any communication: comm_query and enable must not depend on
 * per-rank state.
 * Nodes are numbered in the order of their sorted host names; the node-set key is a hash of that
 * sorted list (cache file names), and the list itself is kept to detect collisions.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_nodes.h"

#include "ompi/proc/proc.h"
#include "opal/class/opal_hash_table.h"
#include "opal/util/proc.h"
#include CLOUDAWARE_MUTEX_HEADER /* opal_mutex_t: its path differs between 4.1 and 5.0 */

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Host names by process name (jobid << 32 | vpid), asked of the runtime once per process and
 * kept until the component closes. On Open MPI 5.0 every opal_get_proc_hostname() is a
 * PMIx_Get, and PMIx 5.0's blocking PMIx_Get keeps about 100 bytes per call (OpenPMIx fixed
 * those leaks after 5.0.7, PR 3979): asked anew for every rank of every communicator created
 * (count_nodes in comm_query) and calibrated (the node map), that was about 0.8 KiB per
 * communicator in test/mpi/storm.sh. Entries are never removed before close, so a pointer
 * handed out stays valid. hosts_lock: communicators may be created in several threads. */
static opal_mutex_t hosts_lock = OPAL_MUTEX_STATIC_INIT;
static opal_hash_table_t hosts;
static bool hosts_ready = false;
static int hosts_asked = 0;   /* runtime lookups, reported at close (test/mpi/storm.sh) */

/* The host of proc, owned by the cache, or NULL when out of memory. */
static const char *proc_host(ompi_proc_t *proc)
{
    uint64_t key = ((uint64_t) proc->super.proc_name.jobid << 32) | proc->super.proc_name.vpid;
    void *found = NULL;
    char *fresh;

    OPAL_THREAD_LOCK(&hosts_lock);
    if (!hosts_ready) {
        OBJ_CONSTRUCT(&hosts, opal_hash_table_t);
        if (OPAL_SUCCESS != opal_hash_table_init(&hosts, 64)) {
            OBJ_DESTRUCT(&hosts);
            OPAL_THREAD_UNLOCK(&hosts_lock);
            return NULL;
        }
        hosts_ready = true;
    }
    if (OPAL_SUCCESS != opal_hash_table_get_value_uint64(&hosts, key, &found)) {
        found = NULL;
        fresh = mca_coll_cloudaware_proc_hostname(&proc->super);
        hosts_asked++;
        if (NULL != fresh && OPAL_SUCCESS != opal_hash_table_set_value_uint64(&hosts, key, fresh)) {
            free(fresh);
        } else {
            found = fresh;
        }
    }
    OPAL_THREAD_UNLOCK(&hosts_lock);
    return found;
}

void mca_coll_cloudaware_nodes_release(void)
{
    uint64_t key;
    char *host;

    OPAL_THREAD_LOCK(&hosts_lock);
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                        "coll:cloudaware: host names asked of the runtime: %d", hosts_asked);
    hosts_asked = 0;
    if (hosts_ready) {
        OPAL_HASH_TABLE_FOREACH(key, uint64, host, &hosts) {
            free(host);
        }
        OBJ_DESTRUCT(&hosts);
        hosts_ready = false;
    }
    OPAL_THREAD_UNLOCK(&hosts_lock);
}

/* The host of comm rank r, a string the caller frees (NULL: out of memory).
 * coll_cloudaware_test_fake_nodes=K (tests only) splits every host into K pretend nodes by world
 * rank, so one machine can exercise multi-node code paths. */
static char *rank_host(struct ompi_communicator_t *comm, int r)
{
    ompi_proc_t *proc = ompi_comm_peer_lookup(comm, r);
    const char *h;
    int fake = mca_coll_cloudaware_component.test_fake_nodes;
    char buf[512];

    if (NULL == proc) {
        return strdup("");   /* unknown hosts count as one node: never over-estimate spread */
    }
    if (NULL == (h = proc_host(proc))) {
        return NULL;
    }
    if (fake > 1) {
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
