/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MPI_T performance variables of coll/cloudaware (coll_cloudaware_pvars.c; docs/parameters.md,
 * "Performance variables"): process-wide counters, read-only and continuous, bound to no object,
 * so a tool reads them with MPI_T_pvar_* (a handle counts from when it was allocated, as every
 * MPI_T counter does). mca_base_component_pvar_register has the same signature on Open MPI 4.1
 * and 5.0, so nothing here needs coll_cloudaware_compat.h.
 */
#ifndef MCA_COLL_CLOUDAWARE_PVARS_H
#define MCA_COLL_CLOUDAWARE_PVARS_H

#include "ompi_config.h"

#include <stdbool.h>

#include "core/cloudaware_core.h"

BEGIN_C_DECLS

/* From the component's register function. */
int mca_coll_cloudaware_pvars_register(void);

/* A call the application made (not one nested in another call of ours) of collective coll, run
 * as a plan or handed to the previous module. */
void mca_coll_cloudaware_pvars_call(cacore_coll_t coll, bool plan);

/* A calibration of a communicator (again: a recalibration) that took seconds on this rank. */
void mca_coll_cloudaware_pvars_calibration(bool again, double seconds);

/* A live trial decided: outcome (CACORE_TRIAL_UNKNOWN when the agreement or the judgement
 * failed); stored: taken from the trial book without trial calls. */
void mca_coll_cloudaware_pvars_trial(cacore_trial_t outcome, bool stored);

END_C_DECLS

#endif /* MCA_COLL_CLOUDAWARE_PVARS_H */
