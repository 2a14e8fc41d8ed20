/*
 * The calibration exchange: some ranks of a communicator ("contributors") publish a blob and
 * every rank of the communicator receives all of them, identically.
 *
 * PMIx path (design §3): contributors PMIx_Put(PMIX_GLOBAL, key, blob) + PMIx_Commit; every rank
 * calls PMIx_Fence over exactly the communicator's processes with PMIX_COLLECT_DATA; then every
 * rank PMIx_Gets each contributor's blob. Keys carry the phase and the communicator's cid; a cid
 * is reused only after its communicator is freed, so Gets ask PMIx to refresh its cache and the
 * blob's own header (checked by the caller) names the phase.
 *
 * PML path: used when PMIx is not usable here (PMIx_Init fails, the communicator spans more than
 * one job/namespace) or coll_cloudaware_calibrate_exchange=pml. Contributors send to rank 0,
 * which sends the concatenation to every rank. Said once at verbose level.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"

#include "ompi/mca/pml/pml.h"
#include "ompi/proc/proc.h"
#include "opal/util/proc.h"

static int pmix_state = 0;    /* 0 untried, 1 initialized, -1 unusable */
static pmix_proc_t pmix_me;
static bool pml_said = false;

static bool pmix_ready(void)
{
    pmix_status_t rc;

    if (0 == pmix_state) {
        rc = PMIx_Init(&pmix_me, NULL, 0);
        pmix_state = (PMIX_SUCCESS == rc) ? 1 : -1;
        if (PMIX_SUCCESS != rc) {
            opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, mca_coll_cloudaware_component.output,
                                "coll:cloudaware: PMIx_Init failed (%s): calibration exchanges "
                                "use the PML", PMIx_Error_string(rc));
        }
    }
    return 1 == pmix_state;
}

void mca_coll_cloudaware_pmix_finalize(void)
{
    if (1 == pmix_state) {
        PMIx_Finalize(NULL, 0);
    }
    pmix_state = 0;
}

static int pml_exchange(struct ompi_communicator_t *comm, const void *blob, size_t len,
                        int ncontrib, const int *contributors, void **out, size_t *outlen)
{
    int me = ompi_comm_rank(comm), size = ompi_comm_size(comm), rc = OMPI_SUCCESS;
    uint64_t *lens = calloc((size_t) ncontrib, sizeof(uint64_t));
    char *all = NULL;
    size_t total = 0;

    if (NULL == lens) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (0 == me) {
        for (int i = 0; i < ncontrib && OMPI_SUCCESS == rc; i++) {
            if (0 == contributors[i]) {
                lens[i] = len;
                out[i] = malloc(len ? len : 1);
                if (NULL == out[i]) {
                    rc = OMPI_ERR_OUT_OF_RESOURCE;
                    break;
                }
                memcpy(out[i], blob, len);
                continue;
            }
            rc = MCA_PML_CALL(recv(&lens[i], 1, MPI_UINT64_T, contributors[i],
                                   CLOUDAWARE_TAG_EXCHANGE, comm, MPI_STATUS_IGNORE));
            if (OMPI_SUCCESS == rc && NULL == (out[i] = malloc(lens[i] ? lens[i] : 1))) {
                rc = OMPI_ERR_OUT_OF_RESOURCE;
            }
            if (OMPI_SUCCESS == rc) {
                rc = MCA_PML_CALL(recv(out[i], lens[i], MPI_BYTE, contributors[i],
                                       CLOUDAWARE_TAG_EXCHANGE, comm, MPI_STATUS_IGNORE));
            }
        }
        for (int i = 0; i < ncontrib; i++) {
            total += lens[i];
        }
        all = malloc(total ? total : 1);
        if (NULL == all) {
            rc = OMPI_ERR_OUT_OF_RESOURCE;
        } else {
            for (int i = 0, off = 0; i < ncontrib; off += (int) lens[i], i++) {
                if (NULL != out[i]) {
                    memcpy(all + off, out[i], lens[i]);
                }
            }
        }
        /* Everyone gets the lengths, then the concatenation (sent even on error so no one
         * waits forever; a zero total tells the receivers it failed). */
        for (int r = 1; r < size; r++) {
            uint64_t t = (OMPI_SUCCESS == rc) ? total : UINT64_MAX;
            MCA_PML_CALL(send(&t, 1, MPI_UINT64_T, r, CLOUDAWARE_TAG_EXCHANGE,
                              MCA_PML_BASE_SEND_STANDARD, comm));
            if (OMPI_SUCCESS == rc) {
                MCA_PML_CALL(send(lens, ncontrib, MPI_UINT64_T, r, CLOUDAWARE_TAG_EXCHANGE,
                                  MCA_PML_BASE_SEND_STANDARD, comm));
                MCA_PML_CALL(send(all, total, MPI_BYTE, r, CLOUDAWARE_TAG_EXCHANGE,
                                  MCA_PML_BASE_SEND_STANDARD, comm));
            }
        }
    } else {
        uint64_t t = 0;

        for (int i = 0; i < ncontrib; i++) {
            if (contributors[i] == me) {
                uint64_t l = len;
                MCA_PML_CALL(send(&l, 1, MPI_UINT64_T, 0, CLOUDAWARE_TAG_EXCHANGE,
                                  MCA_PML_BASE_SEND_STANDARD, comm));
                MCA_PML_CALL(send((void *) blob, len, MPI_BYTE, 0, CLOUDAWARE_TAG_EXCHANGE,
                                  MCA_PML_BASE_SEND_STANDARD, comm));
            }
        }
        rc = MCA_PML_CALL(recv(&t, 1, MPI_UINT64_T, 0, CLOUDAWARE_TAG_EXCHANGE, comm,
                               MPI_STATUS_IGNORE));
        if (OMPI_SUCCESS == rc && UINT64_MAX == t) {
            rc = OMPI_ERROR;
        }
        if (OMPI_SUCCESS == rc) {
            total = t;
            all = malloc(total ? total : 1);
            rc = (NULL == all) ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
            /* receive even when malloc failed? no: the matching sends are buffered by the
             * PML's unexpected queue and dropped with the communicator. */
            if (OMPI_SUCCESS == rc) {
                rc = MCA_PML_CALL(recv(lens, ncontrib, MPI_UINT64_T, 0, CLOUDAWARE_TAG_EXCHANGE,
                                       comm, MPI_STATUS_IGNORE));
            }
            if (OMPI_SUCCESS == rc) {
                rc = MCA_PML_CALL(recv(all, total, MPI_BYTE, 0, CLOUDAWARE_TAG_EXCHANGE, comm,
                                       MPI_STATUS_IGNORE));
            }
        }
        for (int i = 0, off = 0; OMPI_SUCCESS == rc && i < ncontrib; off += (int) lens[i], i++) {
            if (NULL == (out[i] = malloc(lens[i] ? lens[i] : 1))) {
                rc = OMPI_ERR_OUT_OF_RESOURCE;
                break;
            }
            memcpy(out[i], all + off, lens[i]);
        }
    }
    for (int i = 0; i < ncontrib; i++) {
        outlen[i] = (size_t) lens[i];
    }
    free(all);
    free(lens);
    return rc;
}

static int pmix_exchange(struct ompi_communicator_t *comm, const char *phase, const void *blob,
                         size_t len, int ncontrib, const int *contributors, void **out,
                         size_t *outlen)
{
    int size = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    pmix_proc_t *procs = calloc((size_t) size, sizeof(pmix_proc_t));
    pmix_info_t info, ginfo;
    pmix_value_t value, *got = NULL;
    pmix_status_t rc;
    char key[PMIX_MAX_KEYLEN + 1];
    bool collect = true, refresh = true;
    int ret = OMPI_SUCCESS;

    if (NULL == procs) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int r = 0; r < size; r++) {
        ompi_proc_t *proc = ompi_comm_peer_lookup(comm, r);
        PMIX_LOAD_PROCID(&procs[r], pmix_me.nspace, proc->super.proc_name.vpid);
    }
    snprintf(key, sizeof(key), "ca.%s.%u", phase, (unsigned) ompi_comm_get_cid(comm));
    for (int i = 0; i < ncontrib; i++) {
        if (contributors[i] == me) {
            value.type = PMIX_BYTE_OBJECT;
            value.data.bo.bytes = (char *) blob;
            value.data.bo.size = len;
            if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, key, &value))) {
                ret = OMPI_ERROR;
            }
            break;
        }
    }
    /* Commit and fence even after a failed Put: the others are waiting in the fence. */
    PMIx_Commit();
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(procs, (size_t) size, &info, 1);
    if (PMIX_SUCCESS != rc) {
        ret = OMPI_ERROR;
    }
    PMIX_INFO_LOAD(&ginfo, PMIX_GET_REFRESH_CACHE, &refresh, PMIX_BOOL);
    for (int i = 0; i < ncontrib && OMPI_SUCCESS == ret; i++) {
        pmix_proc_t *src = &procs[contributors[i]];
        if (contributors[i] == me) {
            out[i] = malloc(len ? len : 1);
            if (NULL == out[i]) {
                ret = OMPI_ERR_OUT_OF_RESOURCE;
                break;
            }
            memcpy(out[i], blob, len);
            outlen[i] = len;
            continue;
        }
        rc = PMIx_Get(src, key, &ginfo, 1, &got);
        if (PMIX_SUCCESS != rc) {
            rc = PMIx_Get(src, key, NULL, 0, &got);
        }
        if (PMIX_SUCCESS != rc || NULL == got || PMIX_BYTE_OBJECT != got->type) {
            opal_output_verbose(CLOUDAWARE_VERBOSE_WARN, mca_coll_cloudaware_component.output,
                                "coll:cloudaware: PMIx_Get(%s) from rank %d failed: %s", key,
                                contributors[i], PMIx_Error_string(rc));
            ret = OMPI_ERROR;
        } else {
            outlen[i] = got->data.bo.size;
            out[i] = malloc(outlen[i] ? outlen[i] : 1);
            if (NULL == out[i]) {
                ret = OMPI_ERR_OUT_OF_RESOURCE;
            } else {
                memcpy(out[i], got->data.bo.bytes, outlen[i]);
            }
        }
        if (NULL != got) {
            PMIX_VALUE_RELEASE(got);
            got = NULL;
        }
    }
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_DESTRUCT(&ginfo);
    free(procs);
    return ret;
}

int mca_coll_cloudaware_exchange(struct ompi_communicator_t *comm, const char *phase,
                                 const void *blob, size_t len, int ncontrib,
                                 const int *contributors, void **out, size_t *outlen,
                                 const char **how)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    bool use_pmix = (CLOUDAWARE_EXCHANGE_PML != c->calib_exchange);
    const char *why = NULL;

    for (int i = 0; i < ncontrib; i++) {
        out[i] = NULL;
        outlen[i] = 0;
    }
    /* Every test below gives the same answer on every rank of comm (same parameters, same
     * process set, PMIx available to the whole job or to none of it). */
    if (use_pmix) {
        for (int r = 0; r < ompi_comm_size(comm); r++) {
            ompi_proc_t *proc = ompi_comm_peer_lookup(comm, r);
            if (NULL == proc || proc->super.proc_name.jobid != OPAL_PROC_MY_NAME.jobid) {
                use_pmix = false;
                why = "the communicator spans more than one job";
                break;
            }
        }
    }
    /* PMIx keys are (phase, cid) and a freed communicator's cid is given to a later one,
     * while PMIx may still answer a Get with the earlier communicator's value: ranks would then
     * adopt different views and diverge. MPI_COMM_WORLD's cid is never reused, so in auto mode
     * it (the job-wide calibration) goes through PMIx and other communicators through the PML,
     * whose messages belong to the communicator itself. */
    if (use_pmix && CLOUDAWARE_EXCHANGE_AUTO == c->calib_exchange
        && comm != &ompi_mpi_comm_world.comm) {
        use_pmix = false;
    }
    if (use_pmix && !pmix_ready()) {
        use_pmix = false;
        why = "PMIx_Init failed";
    }
    if (use_pmix) {
        *how = "PMIx";
        return pmix_exchange(comm, phase, blob, len, ncontrib, contributors, out, outlen);
    }
    if (NULL != why && !pml_said) {
        pml_said = true;
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: PMIx unusable for the calibration exchange (%s): "
                            "exchanging over the PML", why);
    }
    *how = "PML";
    return pml_exchange(comm, blob, len, ncontrib, contributors, out, outlen);
}
