/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * comm_cycle.h - shared by the calibration test programs (calib_check, comm_storm, thread_calib):
 * a collective check whose results depend on the iteration, and the communicators they cycle
 * through.
 */
#ifndef CLOUDAWARE_TEST_COMM_CYCLE_H
#define CLOUDAWARE_TEST_COMM_CYCLE_H

#include <mpi.h>

/* An allreduce and a bcast (root iter % size) whose results depend on iter. Returns the number
 * of wrong results on this rank. */
static inline int check_iteration(MPI_Comm comm, int iter)
{
    int rank, size, sum = 0, val = -1, failures = 0, mine;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    mine = rank + iter;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm);
    if (sum != size * (size - 1) / 2 + iter * size) {
        failures++;
    }
    if (rank == iter % size) {
        val = 1000 + iter;
    }
    MPI_Bcast(&val, 1, MPI_INT, iter % size, comm);
    if (val != 1000 + iter) {
        failures++;
    }
    return failures;
}

/* Communicator i of a cycle over MPI_COMM_WORLD: a dup, a split into even and odd ranks, a
 * shared-memory split, in turn (the caller frees it). */
static inline MPI_Comm cycle_comm(int i, int world_rank)
{
    MPI_Comm c;

    switch (i % 3) {
    case 0:
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        break;
    case 1:
        MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &c);
        break;
    default:
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &c);
        break;
    }
    return c;
}

#endif /* CLOUDAWARE_TEST_COMM_CYCLE_H */
