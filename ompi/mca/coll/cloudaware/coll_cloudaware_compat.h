/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/cloudaware: the ONE place for differences between the Open MPI generations the component
 * builds against (4.1.x: coll API 2.0.0; 5.0.x: coll API 2.4.0). Every other file is written once
 * for both; docs/ompi-versions.md lists what differs and what Open MPI main (coll API 3.0.0)
 * will change.
 *
 * Differences handled here:
 *  - the coll component version macro and struct type (2.0.0 / 2.4.0), and the visibility
 *    attribute of the component symbol (OMPI_MODULE_DECLSPEC is gone in 5.0);
 *  - 5.0 built with ULFM (OPAL_ENABLE_FT_MPI) requires every communicator's agree/iagree slots
 *    filled: CLOUDAWARE_FOREACH_FT lists them with their provider, empty on 4.1
 *    (coll_cloudaware_module.c fills them in complete-provider mode);
 *  - 5.0 renamed ompi_comm_get_cid() to ompi_comm_get_local_cid(), whose value can differ
 *    between ranks for MPI-4 sessions' communicators (CLOUDAWARE_COMM_CID_IS_GLOBAL tells), and
 *    moved opal/threads/mutex.h to opal/mca/threads/mutex.h;
 *  - opal_get_proc_hostname() hands out the proc's own cached string on 4.1 but a fresh copy the
 *    caller must free on 5.0: mca_coll_cloudaware_proc_hostname() returns a copy on both;
 *  - opal_info_get() fills the caller's buffer on 4.1 but hands out an opal_cstring_t on 5.0:
 *    mca_coll_cloudaware_comm_info() copies a communicator's info value on both;
 *  - the load-time check that the Open MPI running the job is the major.minor the component was
 *    built for (the MCA loader does not check it: both generations use MCA base 2.1.0).
 */
#ifndef MCA_COLL_CLOUDAWARE_COMPAT_H
#define MCA_COLL_CLOUDAWARE_COMPAT_H

#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"
#include "opal/util/info.h"
#include "opal/util/proc.h"

#if OMPI_MAJOR_VERSION == 4 && OMPI_MINOR_VERSION == 1
#define CLOUDAWARE_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
typedef mca_coll_base_component_2_0_0_t mca_coll_cloudaware_base_component_t;
#define CLOUDAWARE_COMPONENT_DECLSPEC OMPI_MODULE_DECLSPEC
#define CLOUDAWARE_MUTEX_HEADER "opal/threads/mutex.h"
#define CLOUDAWARE_COMM_CID_IS_GLOBAL(comm) true   /* 4.1: one cid on every rank, always */
/* Whether a PMIx key put again (the calibration's start key of a reused cid) is seen anew by
 * the others after the next fence: yes with 4.1's runtime (ORTE; tried with PMIx 4.2.2). */
#define CLOUDAWARE_PMIX_REPUT_SEEN 1
/* A copy of proc's host name for the caller to free, or NULL when out of memory. 4.1's
 * opal_get_proc_hostname returns the proc's cached string (or a literal), never to be freed. */
static inline char *mca_coll_cloudaware_proc_hostname(const opal_proc_t *proc)
{
    const char *h = opal_get_proc_hostname(proc);

    return strdup(NULL == h ? "" : h);
}
/* comm's info value for key in buf (cut to len - 1 characters), or false when comm has none. */
static inline bool mca_coll_cloudaware_comm_info(ompi_communicator_t *comm, const char *key,
                                                 char *buf, int len)
{
    int flag = 0;

    if (NULL == comm->super.s_info || len < 2
        || OPAL_SUCCESS != opal_info_get(comm->super.s_info, key, len - 1, buf, &flag)) {
        return false;
    }
    buf[len - 1] = '\0';
    return 0 != flag;
}
#elif OMPI_MAJOR_VERSION == 5 && OMPI_MINOR_VERSION == 0
#define CLOUDAWARE_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_4_0
typedef mca_coll_base_component_2_4_0_t mca_coll_cloudaware_base_component_t;
#define CLOUDAWARE_COMPONENT_DECLSPEC OMPI_DECLSPEC
#define CLOUDAWARE_MUTEX_HEADER "opal/mca/threads/mutex.h"
/* No with 5.0's (PRRTE, PMIx 5.0.7): a process's PMIx client answers a key it has read once from
 * its own cache ever after; a fence with PMIX_COLLECT_DATA does not update it, and
 * PMIX_GET_REFRESH_CACHE answers "not found". So the start message goes over PMIx only where
 * its key is put once in the job, MPI_COMM_WORLD's (docs/ompi-versions.md). */
#define CLOUDAWARE_PMIX_REPUT_SEEN 0
/* The local index; equal on all ranks for communicators made from a parent communicator
 * (dup, split, create: OMPI_COMM_GLOBAL_INDEX), not for MPI-4 sessions' from-group ones. */
static inline uint32_t ompi_comm_get_cid(const ompi_communicator_t *comm)
{
    return ompi_comm_get_local_cid(comm);
}
#define CLOUDAWARE_COMM_CID_IS_GLOBAL(comm) (0 != OMPI_COMM_IS_GLOBAL_INDEX(comm))
/* 5.0's opal_get_proc_hostname returns a fresh string on every call (its PMIx_Get's copy of
 * PMIX_HOSTNAME, or strdup("unknown")), which the caller frees, as Open MPI's own callers do. */
static inline char *mca_coll_cloudaware_proc_hostname(const opal_proc_t *proc)
{
    return opal_get_proc_hostname(proc);
}
/* comm's info value for key in buf (cut to len - 1 characters), or false when comm has none. */
static inline bool mca_coll_cloudaware_comm_info(ompi_communicator_t *comm, const char *key,
                                                 char *buf, int len)
{
    opal_cstring_t *value = NULL;
    int flag = 0;

    if (NULL == comm->super.s_info || len < 1
        || OPAL_SUCCESS != opal_info_get(comm->super.s_info, key, &value, &flag) || !flag
        || NULL == value) {
        return false;
    }
    snprintf(buf, (size_t) len, "%s", value->string);
    OBJ_RELEASE(value);
    return true;
}
#else
#error "coll/cloudaware builds against Open MPI 4.1.x and 5.0.x only (docs/ompi-versions.md)"
#endif

/* Slots Open MPI requires on every communicator beyond 4.1's set, X(slot, provider). 5.0 with
 * ULFM (OPAL_ENABLE_FT_MPI, Debian's build) requires agree/iagree; without a fault-tolerant
 * component (ftagree) they are Open MPI's own allreduce-based ompi_coll_base_(i)agree_noft, as
 * coll/basic installs them, which complete-provider mode fills when nothing else does. */
#if OMPI_MAJOR_VERSION >= 5 && OPAL_ENABLE_FT_MPI
/* As in 5.0's coll_base_functions.h, which cannot be included here: its BCAST_ARGS & co. clash
 * with the component's own macros. Assigning them to the slots type-checks the prototypes. */
int ompi_coll_base_agree_noft(void *contrib, int dt_count, struct ompi_datatype_t *dt,
                              struct ompi_op_t *op, struct ompi_group_t **group, bool update_grp,
                              struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int ompi_coll_base_iagree_noft(void *contrib, int dt_count, struct ompi_datatype_t *dt,
                               struct ompi_op_t *op, struct ompi_group_t **group, bool update_grp,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module);
#define CLOUDAWARE_FOREACH_FT(X)                    \
    X(agree, ompi_coll_base_agree_noft)             \
    X(iagree, ompi_coll_base_iagree_noft)
#else
#define CLOUDAWARE_FOREACH_FT(X)
#endif

/* The component's own version (VERSION, passed by configure), which ompi_info reports. */
#define CLOUDAWARE_STR2(x) #x
#define CLOUDAWARE_STR(x) CLOUDAWARE_STR2(x)
#define CLOUDAWARE_VERSION_STRING                                                     \
    CLOUDAWARE_STR(CLOUDAWARE_MAJOR_VERSION) "." CLOUDAWARE_STR(CLOUDAWARE_MINOR_VERSION) \
    "." CLOUDAWARE_STR(CLOUDAWARE_RELEASE_VERSION)

/*
 * True when the Open MPI library running this process has the major.minor this component was
 * compiled against. Otherwise prints one line (once per job: rank 0, or the tool's single
 * process) and returns false; the component's register function then reports
 * OPAL_ERR_NOT_AVAILABLE, which makes the MCA base drop the component silently and the job run on
 * with the others. Uses only MPI_Get_library_version (callable before MPI_Init, same in every
 * Open MPI) and stdio, so it is safe to run inside a mismatching Open MPI.
 */
static inline bool mca_coll_cloudaware_runtime_matches(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, major = -1, minor = -1;
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");

    if (MPI_SUCCESS != MPI_Get_library_version(lib, &len)
        || 2 != sscanf(lib, "Open MPI v%d.%d", &major, &minor)) {
        major = minor = -1;
    }
    if (OMPI_MAJOR_VERSION == major && OMPI_MINOR_VERSION == minor) {
        return true;
    }
    if (NULL == rank || 0 == atoi(rank)) {
        fprintf(stderr, "coll:cloudaware: built for Open MPI %d.%d but this is Open MPI %d.%d; "
                "not loading it (rebuild coll/cloudaware against this Open MPI)\n",
                OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, major, minor);
    }
    return false;
}

#endif /* MCA_COLL_CLOUDAWARE_COMPAT_H */
