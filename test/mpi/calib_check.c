/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * calib_check: calibration reuse and fault paths stay correct.
 *
 *   calib_check [NCOMMS] [split-first]   (default 200)
 *
 * split-first: before anything else, run the collectives on the group of ranks with
 * rank % 4 < 2 (MPI_Comm_create_group: no collective on MPI_COMM_WORLD; with
 * coll_cloudaware_test_fake_nodes 4 that is 2 of the 4 nodes), so the later calibration of
 * MPI_COMM_WORLD measures only the pairs rank 0 does not know yet (5 of 6).
 *
 * Runs an allreduce and a bcast on MPI_COMM_WORLD (the first collective: coll/cloudaware
 * calibrates there with calibrate=lazy), then creates NCOMMS communicators in turn - dup, split
 * by parity, split by node (MPI_COMM_TYPE_SHARED) - runs an allreduce and a bcast on each, checks
 * the results and frees it. With coll_cloudaware_verbose >= 10 the component prints
 * "calibration: measured N pairs" once per measurement and its totals at finalize: tests count
 * those lines. Exit status 0 iff every result is right.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_cycle.h"

int main(int argc, char **argv)
{
    int ncomms = argc > 1 ? atoi(argv[1]) : 200, rank, size, failures = 0, total = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && 0 == strcmp(argv[2], "split-first")) {
        MPI_Group world, group;
        MPI_Comm half = MPI_COMM_NULL;
        int *members = malloc(sizeof(int) * (size_t) size), n = 0;
        for (int r = 0; r < size; r++) {
            if ((r % 4 < 2) == (rank % 4 < 2)) {
                members[n++] = r;
            }
        }
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, n, members, &group);
        MPI_Comm_create_group(MPI_COMM_WORLD, group, 0, &half);
        failures += check_iteration(half, 7);
        MPI_Comm_free(&half);
        MPI_Group_free(&group);
        MPI_Group_free(&world);
        free(members);
    }
    failures += check_iteration(MPI_COMM_WORLD, 0);
    for (int i = 0; i < ncomms; i++) {
        MPI_Comm c = cycle_comm(i, rank);
        failures += check_iteration(c, i + 1);
        MPI_Comm_free(&c);
    }
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("calib_check: %d ranks, %d communicators, %d failures\n", size, ncomms, total);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
