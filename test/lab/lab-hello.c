/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * lab-hello.c - smoke test for the lab: every rank reports its host; rank 0 checks that the lab
 * hosts are separate nodes for Open MPI (one MPI_COMM_TYPE_SHARED group per hostname) and that a
 * collective across them is correct.  Prints "LAB-HELLO OK hosts=N ranks=P" on success. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, nl, i, j, nhosts = 0, shm_size, nshm = 0, ok = 1;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm shm;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &nl);
    char *all = malloc((size_t) size * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    for (i = 0; i < size; i++) {
        for (j = 0; j < i; j++) {
            if (!strcmp(all + (size_t) i * MPI_MAX_PROCESSOR_NAME, all + (size_t) j * MPI_MAX_PROCESSOR_NAME)) {
                break;
            }
        }
        nhosts += j == i;
    }
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &shm_size);
    double share = 1.0 / shm_size, groups;   /* sum of 1/size over ranks = number of groups */
    MPI_Allreduce(&share, &groups, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    nshm = (int) (groups + 0.5);
    int big = 1 << 18, *buf = malloc(big * sizeof(int));   /* 1 MiB broadcast across the hosts */
    for (i = 0; i < big; i++) {
        buf[i] = rank == 0 ? i ^ 0x5a5a : -1;
    }
    MPI_Bcast(buf, big, MPI_INT, 0, MPI_COMM_WORLD);
    for (i = 0; i < big; i++) {
        ok &= buf[i] == (i ^ 0x5a5a);
    }
    int allok;
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    printf("rank %d on %s\n", rank, name);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        if (allok && nshm == nhosts && strncmp(name, "calab", 5) == 0) {
            printf("LAB-HELLO OK hosts=%d ranks=%d\n", nhosts, size);
        } else {
            printf("LAB-HELLO FAIL hosts=%d shared-memory-groups=%d bcast=%s rank0-host=%s\n", nhosts, nshm,
                   allok ? "ok" : "WRONG", name);
        }
    }
    MPI_Comm_free(&shm);
    free(buf);
    free(all);
    MPI_Finalize();
    return 0;
}
