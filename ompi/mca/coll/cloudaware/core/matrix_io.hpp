// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// matrix_io.hpp - the `cloudaware-matrix 1` text format (docs/matrix-format.md).
#ifndef CACORE_MATRIX_IO_HPP
#define CACORE_MATRIX_IO_HPP

#include "matrix.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace cacore {

constexpr int kMaxMatrixNodes = 16384;
// The largest matrix file read (16 GiB): the writer's output for kMaxMatrixNodes nodes is at most
// 2 * 16384^2 numbers of <= 24 bytes with their separators (12.9 GB); the rest is room for
// comments and wider spacing. Cache entries are matrix files and share the cap.
constexpr size_t kMaxMatrixFileBytes = size_t(16) << 30;
// The documented ranges of off-diagonal values (docs/matrix-format.md): finite, and such that
// every cost the model derives from them (latency + bytes / bandwidth, summed over a plan) stays
// finite.
constexpr double kMaxLatencyS = 1e3;
constexpr double kMinBandwidthBps = 1.0;
constexpr double kMaxBandwidthBps = 1e15;

// Parses `text` as the contents of `name`; errors are Error(CACORE_ERR_FORMAT, "NAME:LINE: problem").
Matrix parse_matrix(std::string_view text, const std::string &name);
Matrix read_matrix_file(const std::string &path);
std::string format_matrix(const Matrix &m, const std::string &comment = "");
// Atomic: writes PATH.tmp.XXXXXX (mode 0600) in the same directory, then renames it over PATH.
void write_matrix_file(const Matrix &m, const std::string &path, const std::string &comment = "");

}  // namespace cacore
#endif
