/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * fuzz.h - what every fuzz target of test/fuzz shares: the libFuzzer entry point (also called
 * by fuzz_replay.c, the plain main() that replays corpus files in the ordinary build) and the
 * check that turns a broken invariant into a crash the fuzzer records.
 */
#ifndef CLOUDAWARE_FUZZ_H
#define CLOUDAWARE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant of the parser's contract: when it fails the input is a finding. */
#define FUZZ_REQUIRE(cond, ...)                                                     \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: invariant broken: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
            abort();                                                                \
        }                                                                           \
    } while (0)

/* The message of a failed call: NUL-terminated inside err[errlen], not empty, one line. */
#define FUZZ_REQUIRE_MESSAGE(err, errlen)                                           \
    do {                                                                            \
        size_t len_ = 0;                                                            \
        while (len_ < (errlen) && (err)[len_] != '\0') {                            \
            len_++;                                                                 \
        }                                                                           \
        FUZZ_REQUIRE(len_ > 0 && len_ < (errlen), "error message empty or unterminated"); \
        for (size_t k_ = 0; k_ < len_; k_++) {                                      \
            FUZZ_REQUIRE((err)[k_] != '\n', "error message spans lines: %s", (err)); \
        }                                                                           \
    } while (0)

#endif
