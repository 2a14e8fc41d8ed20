/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The persistent collectives of the integration tests: Open MPI 4.1 has them as MPIX_<Name>_init
 * (mpi-ext.h), Open MPI 5.0 as MPI 4.0's MPI_<Name>_init. The tests call the MPIX_ names.
 */
#ifndef CLOUDAWARE_TEST_MPI_PERSISTENT_H
#define CLOUDAWARE_TEST_MPI_PERSISTENT_H

#include <mpi.h>
#include <mpi-ext.h>

#if OMPI_MAJOR_VERSION >= 5
#define MPIX_Allgather_init MPI_Allgather_init
#define MPIX_Allgatherv_init MPI_Allgatherv_init
#define MPIX_Allreduce_init MPI_Allreduce_init
#define MPIX_Alltoall_init MPI_Alltoall_init
#define MPIX_Alltoallv_init MPI_Alltoallv_init
#define MPIX_Alltoallw_init MPI_Alltoallw_init
#define MPIX_Barrier_init MPI_Barrier_init
#define MPIX_Bcast_init MPI_Bcast_init
#define MPIX_Exscan_init MPI_Exscan_init
#define MPIX_Gather_init MPI_Gather_init
#define MPIX_Gatherv_init MPI_Gatherv_init
#define MPIX_Reduce_init MPI_Reduce_init
#define MPIX_Reduce_scatter_init MPI_Reduce_scatter_init
#define MPIX_Reduce_scatter_block_init MPI_Reduce_scatter_block_init
#define MPIX_Scan_init MPI_Scan_init
#define MPIX_Scatter_init MPI_Scatter_init
#define MPIX_Scatterv_init MPI_Scatterv_init
#endif

#endif
