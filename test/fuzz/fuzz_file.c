/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * fuzz_file.c - one memory file per process, rewritten for every input (see fuzz_file.h).
 */
#define _GNU_SOURCE
#include "fuzz_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

const char *fuzz_file_set(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];

    if (fd < 0) {
        fd = memfd_create("cloudaware-fuzz", MFD_CLOEXEC);
        if (fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0) {
        perror("ftruncate");
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(fd, data + done, size - done, (off_t) done);
        if (w <= 0) {
            perror("pwrite");
            abort();
        }
        done += (size_t) w;
    }
    return path;
}
