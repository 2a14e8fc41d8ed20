// matrix_io.hpp - the `cloudaware-matrix 1` text format (docs/matrix-format.md).
#ifndef CACORE_MATRIX_IO_HPP
#define CACORE_MATRIX_IO_HPP

#include "matrix.hpp"

#include <string>
#include <string_view>

namespace cacore {

constexpr int kMaxMatrixNodes = 16384;

// Parses `text` as the contents of `name`; errors are Error(CACORE_ERR_FORMAT, "NAME:LINE: problem").
Matrix parse_matrix(std::string_view text, const std::string &name);
Matrix read_matrix_file(const std::string &path);
std::string format_matrix(const Matrix &m, const std::string &comment = "");
// Atomic: writes PATH.tmp.XXXXXX (mode 0600) in the same directory, then renames it over PATH.
void write_matrix_file(const Matrix &m, const std::string &path, const std::string &comment = "");

}  // namespace cacore
#endif
