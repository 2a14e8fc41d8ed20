// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// line_reader.hpp - the line-oriented text files of the core (matrix, rules) are read the same
// way: '#' comments, blank lines skipped, white-space separated tokens, and every error names
// "FILE:LINE: problem" (FILE escaped; a problem that quotes input quotes it with quote()).
#ifndef CACORE_LINE_READER_HPP
#define CACORE_LINE_READER_HPP

#include "error.hpp"
#include "escape.hpp"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cacore {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Iterates over the meaningful lines of the text: comments and blank lines are skipped, a '#'
// at the start of a token ends the line. The text must outlive the reader.
class LineReader {
public:
    LineReader(std::string_view text, const std::string &name) : text_(text), name_(escape(name)) {}

    // The next meaningful line as it is (tokens and perhaps a trailing comment); false at the end.
    bool next_line(std::string_view &line)
    {
        while (pos_ < text_.size()) {
            size_t end = text_.find('\n', pos_);
            if (end == std::string_view::npos) {
                end = text_.size();
            }
            ++line_;
            std::string_view l(text_.data() + pos_, end - pos_);
            pos_ = end + 1;
            size_t i = 0;
            while (i < l.size() && is_blank(l[i])) {
                ++i;
            }
            if (i < l.size() && l[i] != '#') {
                line = l;
                return true;
            }
        }
        return false;
    }

    // Splits a line into its tokens (up to a token starting with '#').
    static void tokenize(std::string_view line, std::vector<std::string_view> &tokens)
    {
        tokens.clear();
        size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && is_blank(line[i])) {
                ++i;
            }
            if (i >= line.size() || line[i] == '#') {
                break;
            }
            size_t j = i;
            while (j < line.size() && !is_blank(line[j])) {
                ++j;
            }
            tokens.push_back(line.substr(i, j - i));
            i = j;
        }
    }

    // Splits the next meaningful line into tokens; false at the end of the text.
    bool next(std::vector<std::string_view> &tokens)
    {
        std::string_view l;
        if (!next_line(l)) {
            return false;
        }
        tokenize(l, tokens);
        return true;
    }

    int line() const { return line_; }
    // Bytes not yet read (from the start of the line after the current one).
    size_t remaining() const { return pos_ < text_.size() ? text_.size() - pos_ : 0; }
    // True when the text ends with a newline (a file cut in its last line does not).
    bool ends_with_newline() const { return !text_.empty() && text_.back() == '\n'; }

    [[noreturn]] void error(const std::string &problem) const
    {
        throw Error(CACORE_ERR_FORMAT, name_ + ":" + std::to_string(line_) + ": " + problem);
    }
    [[noreturn]] void eof_error(const std::string &expected) const
    {
        throw Error(CACORE_ERR_FORMAT, name_ + ":" + std::to_string(line_) +
                                           ": unexpected end of file, expected " + expected +
                                           " (truncated file?)");
    }

private:
    std::string_view text_;
    std::string name_;
    size_t pos_ = 0;
    int line_ = 0;
};

// Parses a plain decimal number ([-]digits[.digits][(e|E)[+-]digits]) at the start of [p, e)
// when it has at most 19 digits and its value is m * 10^x with m <= 2^53 and |x| <= 22: then one
// IEEE multiplication or division of two exact doubles gives the correctly rounded value, the
// same double std::from_chars gives (Clinger's fast path). Returns the end of the number, or
// nullptr for anything else (the caller then uses std::from_chars).
inline const char *parse_decimal_prefix(const char *p, const char *e, double &out)
{
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const bool neg = p < e && *p == '-';
    p += neg ? 1 : 0;
    uint64_t m = 0;  // wraps harmlessly before the digit count rejects it
    const char *d0 = p;
    while (p < e && static_cast<unsigned>(*p - '0') < 10) {
        m = m * 10 + static_cast<unsigned>(*p - '0');
        ++p;
    }
    long digits = p - d0;
    int exp10 = 0;
    if (p < e && *p == '.') {
        const char *f0 = ++p;
        while (p < e && static_cast<unsigned>(*p - '0') < 10) {
            m = m * 10 + static_cast<unsigned>(*p - '0');
            ++p;
        }
        digits += p - f0;
        exp10 = -static_cast<int>(p - f0);
    }
    if (digits == 0 || digits > 19) {
        return nullptr;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        ++p;
        bool eneg = false;
        if (p < e && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            ++p;
        }
        const char *x0 = p;
        int x = 0;
        while (p < e && static_cast<unsigned>(*p - '0') < 10 && p - x0 < 6) {
            x = x * 10 + (*p - '0');
            ++p;
        }
        if (p == x0 || (p < e && static_cast<unsigned>(*p - '0') < 10)) {
            return nullptr;  // no exponent digits, or a huge exponent
        }
        exp10 += eneg ? -x : x;
    }
    if (m > (uint64_t(1) << 53)) {
        return nullptr;
    }
    double v;
    if (m == 0) {
        v = 0.0;
    } else if (exp10 >= -22 && exp10 <= 22) {
        v = exp10 < 0 ? static_cast<double>(m) / kPow10[-exp10] : static_cast<double>(m) * kPow10[exp10];
    } else {
        return nullptr;
    }
    out = neg ? -v : v;
    return p;
}

// A number token: C locale decimal or exponent notation, an optional leading '+'; nan and inf
// parse (callers check finiteness); trailing characters are an error.
inline bool parse_number_token(std::string_view tok, double &v)
{
    const char *b = tok.data();
    const char *e = tok.data() + tok.size();
    if (!tok.empty() && *b == '+') {
        ++b;
    }
    if (parse_decimal_prefix(b, e, v) == e) {
        return true;
    }
    auto res = std::from_chars(b, e, v);
    return res.ec == std::errc() && res.ptr == e;
}

inline double parse_number(const LineReader &rd, std::string_view tok)
{
    double v = 0;
    if (!parse_number_token(tok, v)) {
        rd.error(quote(tok) + " is not a number");
    }
    return v;
}

}  // namespace cacore
#endif
