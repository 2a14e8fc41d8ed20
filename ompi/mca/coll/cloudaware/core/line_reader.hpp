// line_reader.hpp - the line-oriented text files of the core (matrix, rules) are read the same
// way: '#' comments, blank lines skipped, white-space separated tokens, and every error names
// "FILE:LINE: problem".
#ifndef CACORE_LINE_READER_HPP
#define CACORE_LINE_READER_HPP

#include "error.hpp"

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace cacore {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Iterates over the meaningful lines of the text: comments and blank lines are skipped, a '#'
// at the start of a token ends the line.
class LineReader {
public:
    LineReader(const std::string &text, const std::string &name) : text_(text), name_(name) {}

    // Splits the next meaningful line into tokens; false at the end of the text.
    bool next(std::vector<std::string_view> &tokens)
    {
        while (pos_ < text_.size()) {
            size_t end = text_.find('\n', pos_);
            if (end == std::string::npos) {
                end = text_.size();
            }
            ++line_;
            std::string_view line(text_.data() + pos_, end - pos_);
            pos_ = end + 1;
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
            if (!tokens.empty()) {
                return true;
            }
        }
        return false;
    }

    int line() const { return line_; }

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
    const std::string &text_;
    const std::string &name_;
    size_t pos_ = 0;
    int line_ = 0;
};

inline double parse_number(const LineReader &rd, std::string_view tok)
{
    double v = 0;
    const char *b = tok.data();
    const char *e = tok.data() + tok.size();
    if (!tok.empty() && *b == '+') {
        ++b;
    }
    auto res = std::from_chars(b, e, v);
    if (res.ec != std::errc() || res.ptr != e) {
        rd.error("'" + std::string(tok) + "' is not a number");
    }
    return v;
}

}  // namespace cacore
#endif
