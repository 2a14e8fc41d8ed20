/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * fuzz_file.h - fuzz input as a file the core's readers can open by name, without temporary
 * files: an anonymous memory file (memfd_create), named /proc/self/fd/N, the same kind of path
 * the component reads cache entries through.
 */
#ifndef CLOUDAWARE_FUZZ_FILE_H
#define CLOUDAWARE_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Replaces the memory file's content with data[0..size) and returns its path (static storage). */
const char *fuzz_file_set(const uint8_t *data, size_t size);

#endif
