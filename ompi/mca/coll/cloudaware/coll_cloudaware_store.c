/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * What this process knows about the network: ONE pair store per process, shared by every
 * communicator. Matrices belong to the node set, not to a communicator: the store (the model
 * core's cacore_store_t) holds latency and bandwidth for every ordered pair of hosts it has ever
 * learnt (matrix file, cache entries, calibrations), and a communicator takes the sub-matrix of
 * its nodes from it. Only pairs the store does not know are ever measured.
 *
 * Source files: coll_cloudaware_matrix_file is merged in on first use. A file that cannot be
 * used is reported once, in one line naming the file, the line and the problem, and ignored.
 *
 * Threads: under MPI_THREAD_MULTIPLE several communicators may calibrate at once; one mutex
 * guards the store and the loading of the matrix file (a thread that finds the file being loaded
 * waits for it rather than seeing "no file").
 */
#include "ompi_config.h"

#include <string.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_store.h"

#include CLOUDAWARE_MUTEX_HEADER /* opal_mutex_t: its path differs between 4.1 and 5.0 */

static opal_mutex_t store_lock = OPAL_MUTEX_STATIC_INIT;
static cacore_store_t *store = NULL;             /* created on first use */
static cacore_matrix_t *file_matrix = NULL;      /* the matrix file as read */
static bool file_loaded = false;

/* With store_lock held. */
static cacore_store_t *store_get(void)
{
    char err[256];

    if (NULL == store && CACORE_OK != cacore_store_create(&store, err, sizeof(err))) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                            "coll:cloudaware: no pair store: %s", err);
        store = NULL;
    }
    return store;
}

/* With store_lock held: reads coll_cloudaware_matrix_file once and merges it into the store. */
static void load_file(void)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    cacore_store_t *s;
    char err[512];

    if (file_loaded) {
        return;
    }
    file_loaded = true;
    if (NULL == c->matrix_file || '\0' == c->matrix_file[0]) {
        return;
    }
    if (CACORE_OK != cacore_matrix_read_file(c->matrix_file, &file_matrix, err, sizeof(err))) {
        /* One line per job, not one per process. */
        if (0 == ompi_comm_rank(&ompi_mpi_comm_world.comm)) {
            opal_output(0, "coll:cloudaware: ignoring coll_cloudaware_matrix_file: %s", err);
        }
        file_matrix = NULL;
        return;
    }
    if (NULL == (s = store_get())
        || CACORE_OK != cacore_store_merge_matrix(s, file_matrix, err, sizeof(err))) {
        /* Out of memory: the file's pairs are not known, so they are measured. */
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: matrix file %s not merged into the pair store",
                            c->matrix_file);
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: loaded matrix file %s (%d nodes)", c->matrix_file,
                        cacore_matrix_nodes(file_matrix));
}

size_t mca_coll_cloudaware_store_lookup(int n, char *const *hosts, double *L, double *B,
                                        unsigned char *known, double *P, unsigned char *pknown)
{
    size_t nknown = 0, pk = 0, nn = (size_t) (n > 0 ? n : 0) * (size_t) (n > 0 ? n : 0);
    char err[256];
    int rc = CACORE_ERR_ARG;

    OPAL_THREAD_LOCK(&store_lock);
    load_file();
    if (NULL != store) {
        rc = cacore_store_lookup(store, n, (const char *const *) hosts, L, B, known, &nknown,
                                 err, sizeof(err));
        if (CACORE_OK == rc) {
            rc = cacore_store_lookup_nodes(store, n, (const char *const *) hosts, P, pknown, &pk,
                                           err, sizeof(err));
        }
    }
    OPAL_THREAD_UNLOCK(&store_lock);
    if (CACORE_OK != rc) {
        memset(pknown, 0, (size_t) (n > 0 ? n : 0));
        memset(P, 0, sizeof(double) * CACORE_NODE_VALUES * (size_t) (n > 0 ? n : 0));
        /* Nothing learnt yet, or the lookup failed (out of memory): nothing is known. */
        memset(known, 0, nn);
        memset(L, 0, sizeof(double) * nn);
        memset(B, 0, sizeof(double) * nn);
        nknown = 0;
    }
    return nknown;
}

int mca_coll_cloudaware_store_merge(int n, char *const *hosts, const double *L, const double *B,
                                    const unsigned char *known, const double *P,
                                    const unsigned char *pknown)
{
    cacore_store_t *s;
    char err[256];
    int rc = CACORE_ERR_NOMEM;

    OPAL_THREAD_LOCK(&store_lock);
    if (NULL != (s = store_get())) {
        rc = cacore_store_merge(s, n, (const char *const *) hosts, L, B, known, err,
                                sizeof(err));
        if (CACORE_OK == rc) {
            rc = cacore_store_merge_nodes(s, n, (const char *const *) hosts, P, pknown, err,
                                          sizeof(err));
        }
    }
    OPAL_THREAD_UNLOCK(&store_lock);
    if (CACORE_OK == rc) {
        return OMPI_SUCCESS;
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                        "coll:cloudaware: pairs of %d nodes not kept in the pair store: %s", n,
                        CACORE_ERR_NOMEM == rc ? "out of memory" : err);
    return CACORE_ERR_NOMEM == rc ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_ERR_BAD_PARAM;
}

const cacore_matrix_t *mca_coll_cloudaware_store_matrix_file(void)
{
    const cacore_matrix_t *m;

    OPAL_THREAD_LOCK(&store_lock);
    load_file();
    m = file_matrix;
    OPAL_THREAD_UNLOCK(&store_lock);
    return m;
}

void mca_coll_cloudaware_store_release(void)
{
    OPAL_THREAD_LOCK(&store_lock);
    cacore_matrix_free(file_matrix);
    file_matrix = NULL;
    file_loaded = false;
    cacore_store_free(store);
    store = NULL;
    OPAL_THREAD_UNLOCK(&store_lock);
}
