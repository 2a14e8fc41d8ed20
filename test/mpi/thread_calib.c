/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * thread_calib: four threads per process calibrate four different communicators at the same
 * time under MPI_THREAD_MULTIPLE, through the one pair store of their process.
 *
 *   thread_calib [REPS] [DUPS]   (defaults 3 and 5; exactly 4 processes)
 *
 * Meant for 4 processes with coll_cloudaware_test_fake_nodes 4 (one pretend node each). In each
 * repetition the 4 threads of every process start together and each creates its own
 * communicator with MPI_Comm_create_group (a distinct tag per thread: concurrent creation is
 * allowed, and no collective runs on the parent, so nothing is calibrated before the threads):
 *
 *   thread 0: {r, r^1}   thread 1: {r, r^2}   thread 2: {r, r^3}   thread 3: all four
 *
 * so every process looks up, measures and merges four different node sets at once (the first
 * repetition measures; later ones find their pairs in the store). Each thread checks an
 * allreduce and a bcast on its communicator, then DUPS times dups it, checks, frees.
 *
 * Finally MPI_COMM_WORLD runs its first collective: the threads' calibrations covered all its
 * pairs, so it must measure nothing ("calibration of MPI_COMM_WORLD: 4 nodes known from this
 * process's store") -- a pair lost by a racing store shows up there as a measurement. With a
 * matrix file covering the nodes nothing is measured at all. Tests grep the verbose output.
 * Exit status 0 iff every result is right.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "comm_cycle.h"

#define NTHREADS 4

typedef struct {
    int thread;
    int rep;
    int failures;
} job_t;

static int world_rank, dups;
static MPI_Group world_group;
static pthread_barrier_t start;

static void *run(void *arg)
{
    job_t *job = arg;
    int members[NTHREADS], n = 0;
    MPI_Group group;
    MPI_Comm comm;

    if (job->thread < NTHREADS - 1) {
        int other = world_rank ^ (job->thread + 1);
        members[n++] = world_rank < other ? world_rank : other;
        members[n++] = world_rank < other ? other : world_rank;
    } else {
        for (n = 0; n < NTHREADS; n++) {
            members[n] = n;
        }
    }
    MPI_Group_incl(world_group, n, members, &group);
    pthread_barrier_wait(&start);
    MPI_Comm_create_group(MPI_COMM_WORLD, group, 100 * job->rep + job->thread, &comm);
    job->failures += check_iteration(comm, job->thread);
    for (int d = 0; d < dups; d++) {
        MPI_Comm dup;
        MPI_Comm_dup(comm, &dup);
        job->failures += check_iteration(dup, job->thread + d + 1);
        MPI_Comm_free(&dup);
    }
    MPI_Comm_free(&comm);
    MPI_Group_free(&group);
    return NULL;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 3, provided, size, failures = 0, total = 0;
    pthread_t tid[NTHREADS];
    job_t jobs[NTHREADS];

    dups = argc > 2 ? atoi(argv[2]) : 5;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (MPI_THREAD_MULTIPLE != provided || NTHREADS != size) {
        fprintf(stderr, "thread_calib: needs MPI_THREAD_MULTIPLE (got level %d) and %d processes "
                "(got %d)\n", provided, NTHREADS, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    pthread_barrier_init(&start, NULL, NTHREADS);
    for (int rep = 0; rep < reps; rep++) {
        for (int t = 0; t < NTHREADS; t++) {
            jobs[t] = (job_t) {.thread = t, .rep = rep, .failures = 0};
            if (0 != pthread_create(&tid[t], NULL, run, &jobs[t])) {
                fprintf(stderr, "thread_calib: pthread_create failed\n");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        for (int t = 0; t < NTHREADS; t++) {
            pthread_join(tid[t], NULL);
            failures += jobs[t].failures;
        }
    }
    pthread_barrier_destroy(&start);
    MPI_Group_free(&world_group);
    failures += check_iteration(MPI_COMM_WORLD, 7);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == world_rank) {
        printf("thread_calib: %d ranks, %d threads, %d repetitions, %d dups, %d failures\n", size,
               NTHREADS, reps, dups, total);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
