// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// file_text.hpp - the one way the core reads a whole input file (matrix, rules, cache entry):
// regular files only, opened so that a FIFO cannot block the open, never more than a cap.
#ifndef CACORE_FILE_TEXT_HPP
#define CACORE_FILE_TEXT_HPP

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace cacore {

// The whole content of a file, read with one read() into one buffer (no zero-filling).
struct FileText {
    std::unique_ptr<char[]> data;
    size_t size = 0;
    std::string_view view() const { return std::string_view(data.get(), size); }
};

// Opens path with O_NONBLOCK (a FIFO cannot block the open), fstat()s the open descriptor and
// refuses anything that is not a regular file, and a file larger than max_bytes (before reading
// it and again if it grows while being read). Errors are Error(CACORE_ERR_IO, "PATH: problem")
// with PATH escaped; `what` names the kind of file in the size message ("matrix", "rules").
FileText read_file_text(const std::string &path, size_t max_bytes, const char *what);

}  // namespace cacore
#endif
