// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// escape.hpp - the one way the core quotes input in a message: control characters and every
// byte that is not printable ASCII become C-style escapes, so a file cannot put a newline, a
// terminal escape sequence or a NUL into a log line.
#ifndef CACORE_ESCAPE_HPP
#define CACORE_ESCAPE_HPP

#include <string>
#include <string_view>

namespace cacore {

// Printable ASCII stays as it is, except '\\' (doubled); \n, \r and \t are spelled so; every
// other byte below 0x20 or above 0x7e becomes \xHH.
inline std::string escape(std::string_view s)
{
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    for (char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c == '\\') {
            out += "\\\\";
        } else if (c >= 0x20 && c < 0x7f) {
            out += ch;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

// 'TEXT', escaped: how a message quotes a token of the input.
inline std::string quote(std::string_view s) { return "'" + escape(s) + "'"; }

}  // namespace cacore
#endif
