/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The MPI_T performance variables (coll_cloudaware_pvars.h says what they are). Counters are
 * updated with relaxed atomic adds (MPI_THREAD_MULTIPLE: calls on several communicators at once);
 * the seconds under a lock. Open MPI reads them through the default get_value (a copy of the
 * variable named by ctx).
 */
#include "ompi_config.h"

#include <stdio.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_pvars.h"

#include "opal/mca/base/mca_base_pvar.h"
#include CLOUDAWARE_MUTEX_HEADER /* opal_mutex_t: its path differs between 4.1 and 5.0 */

typedef unsigned long long counter_t;

static counter_t plan_calls[CACORE_COLL_COUNT];
static counter_t previous_calls[CACORE_COLL_COUNT];
static counter_t calibrations, recalibrations;
static double calibration_seconds;
static counter_t trials_plan, trials_alternative, trials_peer, trials_previous, trials_stored,
    trials_failed;
static opal_mutex_t pvars_lock = OPAL_MUTEX_STATIC_INIT;

static void count(counter_t *c)
{
    (void) __atomic_fetch_add(c, 1ULL, __ATOMIC_RELAXED);
}

static int register_one(const char *name, const char *help, int var_class,
                        mca_base_var_type_t type, void *storage)
{
    int rc = mca_base_component_pvar_register(
        &mca_coll_cloudaware_component.super.collm_version, name, help, OPAL_INFO_LVL_4,
        var_class, type, NULL, MCA_BASE_VAR_BIND_NO_OBJECT,
        MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS, NULL, NULL, NULL, storage);
    return rc < 0 ? rc : OPAL_SUCCESS;
}

static int register_counter(const char *name, const char *help, counter_t *storage)
{
    return register_one(name, help, MCA_BASE_PVAR_CLASS_COUNTER,
                        MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, storage);
}

int mca_coll_cloudaware_pvars_register(void)
{
    char name[64], help[256];
    int rc = OPAL_SUCCESS;

    for (int i = 0; i < CACORE_COLL_COUNT; i++) {
        snprintf(name, sizeof(name), "%s_plan_calls", cacore_coll_name(i));
        snprintf(help, sizeof(help), "MPI_%s calls the application made on communicators of "
                 "coll/cloudaware that ran as a cloud-aware plan (every form)",
                 cacore_coll_name(i));
        rc = OPAL_SUCCESS != rc ? rc : register_counter(name, help, &plan_calls[i]);
        snprintf(name, sizeof(name), "%s_previous_calls", cacore_coll_name(i));
        snprintf(help, sizeof(help), "MPI_%s calls the application made on communicators of "
                 "coll/cloudaware that went to the previous module (every form)",
                 cacore_coll_name(i));
        rc = OPAL_SUCCESS != rc ? rc : register_counter(name, help, &previous_calls[i]);
    }
    rc = OPAL_SUCCESS != rc ? rc : register_counter(
        "calibrations", "Calibrations of a communicator's first matrix (measured, found or "
        "failed)", &calibrations);
    rc = OPAL_SUCCESS != rc ? rc : register_counter(
        "recalibrations", "Recalibrations after drift (successful or not)", &recalibrations);
    rc = OPAL_SUCCESS != rc ? rc : register_one(
        "calibration_seconds", "Seconds this process spent in calibrations and recalibrations",
        MCA_BASE_PVAR_CLASS_TIMER, MCA_BASE_VAR_TYPE_DOUBLE, &calibration_seconds);
    rc = OPAL_SUCCESS != rc ? rc : register_counter(
        "trials_plan", "Live trials the cloud-aware plan won", &trials_plan);
    rc = OPAL_SUCCESS != rc ? rc : register_counter(
        "trials_alternative", "Live trials the cost model's second plan (the alternative) won",
        &trials_alternative);
    rc = OPAL_SUCCESS != rc ? rc : register_counter(
        "trials_peer",
        "Live trials the other default's algorithm run by the executor (the peer) won",
        &trials_peer);
    rc = OPAL_SUCCESS != rc ? rc : register_counter(
        "trials_previous", "Live trials the previous module won", &trials_previous);
    rc = OPAL_SUCCESS != rc ? rc : register_counter(
        "trials_stored", "Live trials decided by a stored outcome (trial book), without trial "
        "calls", &trials_stored);
    rc = OPAL_SUCCESS != rc ? rc : register_counter(
        "trials_failed", "Live trials whose agreement failed (the cost model's choice stayed)",
        &trials_failed);
    return rc;
}

void mca_coll_cloudaware_pvars_call(cacore_coll_t coll, bool plan)
{
    if ((int) coll >= 0 && coll < CACORE_COLL_COUNT) {
        count(plan ? &plan_calls[coll] : &previous_calls[coll]);
    }
}

void mca_coll_cloudaware_pvars_calibration(bool again, double seconds)
{
    count(again ? &recalibrations : &calibrations);
    OPAL_THREAD_LOCK(&pvars_lock);
    calibration_seconds += seconds;
    OPAL_THREAD_UNLOCK(&pvars_lock);
}

void mca_coll_cloudaware_pvars_trial(cacore_trial_t outcome, bool stored)
{
    if (stored) {
        count(&trials_stored);
    } else if (CACORE_TRIAL_PLAN == outcome) {
        count(&trials_plan);
    } else if (CACORE_TRIAL_ALTERNATIVE == outcome) {
        count(&trials_alternative);
    } else if (CACORE_TRIAL_PEER == outcome) {
        count(&trials_peer);
    } else if (CACORE_TRIAL_PREVIOUS == outcome) {
        count(&trials_previous);
    } else {
        count(&trials_failed);
    }
}
