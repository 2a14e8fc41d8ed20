/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/cloudaware cache files: measured matrices kept on disk across jobs, keyed by node set
 * (docs/calibration.md, "Cache"), and the trial books beside them ("Live trial"). Read and
 * written by rank 0 of a calibrating (or trying) communicator only.
 */
#ifndef MCA_COLL_CLOUDAWARE_CACHE_H
#define MCA_COLL_CLOUDAWARE_CACHE_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cloudaware_core.h"

BEGIN_C_DECLS

/* Opens directory `dir` by walking its path one component at a time (O_NOFOLLOW: a symbolic
 * link anywhere in it is refused; with create, missing components are made 0700) and checks that
 * it is ours and not group/world writable. Returns its descriptor, or -1 with why set: "" when
 * it does not exist and create is false, otherwise a message starting with "<what> <dir>" (the
 * caller warns once). Also used for the trace directory (coll_cloudaware_trace.c). */
int mca_coll_cloudaware_dir_open(const char *what, const char *dir, bool create, char *why,
                                 size_t whylen);

/* Loads the cache entry of the node set (hosts sorted, key its node-set key) into L/B/known and
 * its node properties into P (CACORE_NODE_VALUES per node). An entry without node properties
 * (written by an older version, `cloudaware-matrix 1`) is not usable. Returns true on a usable entry; otherwise false, with why set ("" when there simply is no
 * entry; why starts with "cache directory" when the directory itself is refused). */
bool mca_coll_cloudaware_cache_load(int n, char *const *hosts, uint64_t key, double *L, double *B,
                                    unsigned char *known, double *P, char *why, size_t whylen);
/* Writes the entry atomically (directory 0700, entry 0600), replacing whatever unusable file
 * (symbolic link, FIFO, corrupt or foreign entry) holds its name; removes leftover temporary
 * files of crashed writers. true without a cache directory; false + why on failure. */
bool mca_coll_cloudaware_cache_store(const cacore_matrix_t *m, uint64_t key, char *why,
                                     size_t whylen);

/* The node set's trial book (DIR/cloudaware-<key>.trials, next to its matrix entry; docs/
 * calibration.md, "Live trial"), opened and checked as an entry is. true with *book (caller
 * frees) on a usable book; otherwise false with why set as for an entry ("" when there is none). */
bool mca_coll_cloudaware_cache_load_trials(uint64_t key, cacore_trial_book_t **book, char *why,
                                           size_t whylen);
/* Writes the book atomically as mca_coll_cloudaware_cache_store writes an entry. */
bool mca_coll_cloudaware_cache_store_trials(uint64_t key, const cacore_trial_book_t *book,
                                            char *why, size_t whylen);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_CACHE_H */
