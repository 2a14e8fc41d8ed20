/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * What this process knows about the network (coll_cloudaware_store.c): ONE pair store per
 * process, shared by every communicator, holding latency and bandwidth for every ordered pair of
 * hosts learnt so far (the matrix file, cache entries, calibrations). Every function here is
 * safe to call from several threads at once (MPI_THREAD_MULTIPLE).
 */
#ifndef MCA_COLL_CLOUDAWARE_STORE_H
#define MCA_COLL_CLOUDAWARE_STORE_H

#include "ompi_config.h"

#include <stddef.h>

#include "core/cloudaware_core.h"

BEGIN_C_DECLS

/* Fills L, B (n*n row-major, row = sender) and known[n*n] for the given hosts from what this
 * process knows (loading the matrix file first if that has not happened yet), and the node
 * properties P (CACORE_NODE_VALUES per host) with pknown[n]. Returns the number of known ordered
 * pairs (off-diagonal); 0, with nothing known, if the lookup cannot be done. */
size_t mca_coll_cloudaware_store_lookup(int n, char *const *hosts, double *L, double *B,
                                        unsigned char *known, double *P, unsigned char *pknown);
/* Adds (or replaces) the pairs flagged in known[] and the node properties flagged in pknown[].
 * OMPI_SUCCESS, or an error (invalid values, out of memory; the pairs may then be kept without
 * the node properties). */
int mca_coll_cloudaware_store_merge(int n, char *const *hosts, const double *L, const double *B,
                                    const unsigned char *known, const double *P,
                                    const unsigned char *pknown);
/* The matrix file named by coll_cloudaware_matrix_file as read (merged into the store on first
 * use; a file that cannot be used is reported once and ignored), or NULL. It stays valid until
 * mca_coll_cloudaware_store_release. */
const cacore_matrix_t *mca_coll_cloudaware_store_matrix_file(void);
/* Forgets everything (component close). */
void mca_coll_cloudaware_store_release(void);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_STORE_H */
