// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// matrix_io.cpp - reader and atomic writer for `cloudaware-matrix 1` and `2` files.
#include "matrix_io.hpp"

#include "error.hpp"
#include "escape.hpp"
#include "file_text.hpp"
#include "line_reader.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <memory>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cacore {
namespace {

// A value of the latency (seconds) or bandwidth (bytes/s) block within the documented range.
bool value_ok(double v, bool bandwidth)
{
    return bandwidth ? v >= kMinBandwidthBps && v <= kMaxBandwidthBps
                     : v >= 0.0 && v <= kMaxLatencyS;
}

// One row of a block, parsed in place: true and dst[0..n) filled when the row has exactly n
// numbers, every off-diagonal one valid. Anything else is left to the checks of read_block,
// which name the problem.
bool parse_row(std::string_view line, int n, int row, bool bandwidth, double *dst)
{
    const char *p = line.data();
    const char *e = p + line.size();
    int j = 0;
    for (;;) {
        while (p < e && is_blank(*p)) {
            ++p;
        }
        if (p == e || *p == '#') {
            break;
        }
        if (j >= n) {
            return false;
        }
        double v;
        const char *q = parse_decimal_prefix(p, e, v);
        if (q == nullptr || (q < e && !is_blank(*q))) {
            // not the writer's plain form: the whole token, as parse_number reads it
            q = p;
            while (q < e && !is_blank(*q)) {
                ++q;
            }
            if (!parse_number_token(std::string_view(p, static_cast<size_t>(q - p)), v)) {
                return false;
            }
        }
        if (j != row) {
            if (!value_ok(v, bandwidth)) {
                return false;
            }
            dst[j] = v;
        } else {
            dst[j] = 0.0;
        }
        ++j;
        p = q;
    }
    return j == n;
}

void read_block(LineReader &rd, std::vector<std::string_view> &tok, const char *keyword, int n,
                bool bandwidth, std::vector<double> &out)
{
    if (!rd.next(tok)) {
        rd.eof_error(std::string("'") + keyword + "'");
    }
    if (tok.size() != 1 || tok[0] != keyword) {
        rd.error(std::string("expected '") + keyword + "'");
    }
    out.resize(static_cast<size_t>(n) * n);
    std::string_view line;
    for (int i = 0; i < n; ++i) {
        if (!rd.next_line(line)) {
            rd.eof_error(std::string(keyword) + " row " + std::to_string(i + 1) + " of " +
                         std::to_string(n));
        }
        double *dst = out.data() + static_cast<size_t>(i) * n;
        if (parse_row(line, n, i, bandwidth, dst)) {
            continue;
        }
        LineReader::tokenize(line, tok);
        if (tok.size() != static_cast<size_t>(n)) {
            rd.error(std::string(keyword) + " row " + std::to_string(i + 1) + " has " +
                     std::to_string(tok.size()) + " numbers, expected " + std::to_string(n));
        }
        for (int j = 0; j < n; ++j) {
            double v = parse_number(rd, tok[j]);
            if (i != j) {
                if (!std::isfinite(v)) {
                    rd.error(std::string(keyword) + " [" + std::to_string(i) + "][" +
                             std::to_string(j) + "] is not finite");
                }
                if (!value_ok(v, bandwidth)) {
                    char range[96];
                    std::snprintf(range, sizeof range, bandwidth ? "%g..%g bytes/s" : "%g..%g s",
                                  bandwidth ? kMinBandwidthBps : 0.0,
                                  bandwidth ? kMaxBandwidthBps : kMaxLatencyS);
                    rd.error(std::string(keyword) + " [" + std::to_string(i) + "][" +
                             std::to_string(j) + "] = " + escape(tok[j]) +
                             " is out of range " + range);
                }
            }
            dst[j] = i == j ? 0.0 : v;
        }
    }
}

// One row of n node values after its keyword (versions 2 to 5).
std::vector<double> read_node_row(LineReader &rd, std::vector<std::string_view> &tok,
                                  const char *keyword, int n)
{
    if (!rd.next(tok)) {
        rd.eof_error(std::string("'") + keyword + "'");
    }
    if (tok.size() != 1 || tok[0] != keyword) {
        rd.error(std::string("expected '") + keyword + "'");
    }
    std::string_view line;
    if (!rd.next_line(line)) {
        rd.eof_error(std::string(keyword) + " row");
    }
    LineReader::tokenize(line, tok);
    if (tok.size() != static_cast<size_t>(n)) {
        rd.error(std::string(keyword) + " has " + std::to_string(tok.size()) +
                 " numbers, expected " + std::to_string(n));
    }
    std::vector<double> v(static_cast<size_t>(n));
    for (int j = 0; j < n; ++j) {
        v[j] = parse_number(rd, tok[j]);
    }
    return v;
}

}  // namespace

Matrix parse_matrix(std::string_view text, const std::string &name)
{
    LineReader rd(text, name);
    std::vector<std::string_view> tok;
    if (!rd.next(tok)) {
        rd.eof_error("'cloudaware-matrix 1'");
    }
    if (tok.size() != 2 || tok[0] != "cloudaware-matrix") {
        rd.error("not a matrix file: expected 'cloudaware-matrix 1'");
    }
    if (tok[1].size() != 1 || tok[1][0] < '1' || tok[1][0] > '5') {
        rd.error("unsupported version " + quote(tok[1]) + " (this reader knows 1 to 5)");
    }
    const int version = tok[1][0] - '0';
    const bool has_nodes = version >= 2;
    if (!rd.next(tok)) {
        rd.eof_error("'nodes N'");
    }
    if (tok.size() != 2 || tok[0] != "nodes") {
        rd.error("expected 'nodes N'");
    }
    long n = 0;
    {
        auto res = std::from_chars(tok[1].data(), tok[1].data() + tok[1].size(), n);
        if (res.ec != std::errc() || res.ptr != tok[1].data() + tok[1].size()) {
            rd.error(quote(tok[1]) + " is not a node count");
        }
        if (n < 1 || n > kMaxMatrixNodes) {
            rd.error("node count " + quote(tok[1]) + " out of range 1.." +
                     std::to_string(kMaxMatrixNodes));
        }
    }
    // Before anything is allocated for n nodes: the rest of the text must be able to hold them.
    // Every one of the 2n rows holds n numbers of at least one byte, each followed by a blank or
    // the newline; every host line is at least "host x\n".
    const size_t un = static_cast<size_t>(n);
    const size_t least = 7 * un + sizeof "latency_s\nbandwidth_Bps\nend" - 1 + 4 * un * un;
    if (rd.remaining() < least) {
        rd.error("'nodes " + std::to_string(n) + "' needs at least " + std::to_string(least) +
                 " more bytes (two blocks of n rows of n numbers), the file has " +
                 std::to_string(rd.remaining()) + " (wrong node count or truncated file?)");
    }
    std::vector<std::string> hosts;
    std::unordered_set<std::string> seen;
    for (long i = 0; i < n; ++i) {
        if (!rd.next(tok)) {
            rd.eof_error("host line " + std::to_string(i + 1) + " of " + std::to_string(n));
        }
        if (tok[0] != "host") {
            rd.error("expected 'host NAME' (" + std::to_string(i) + " of " + std::to_string(n) +
                     " host lines so far)");
        }
        if (tok.size() != 2) {
            rd.error("expected exactly one name after 'host'");
        }
        std::string h(tok[1]);
        std::string p = host_name_problem(h);
        if (!p.empty()) {
            rd.error(p);
        }
        for (char ch : h) {
            if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) {
                rd.error("host name " + quote(h) + " contains a control character");
            }
        }
        if (!seen.insert(h).second) {
            rd.error("duplicate host name " + quote(h));
        }
        hosts.push_back(std::move(h));
    }
    std::vector<double> lat, bw;
    read_block(rd, tok, "latency_s", static_cast<int>(n), false, lat);
    read_block(rd, tok, "bandwidth_Bps", static_cast<int>(n), true, bw);
    std::vector<NodeProps> props;
    if (has_nodes) {
        const int ni = static_cast<int>(n);
        std::vector<double> e = read_node_row(rd, tok, "node_egress_Bps", ni);
        std::vector<double> in = read_node_row(rd, tok, "node_ingress_Bps", ni);
        std::vector<double> o = read_node_row(rd, tok, "node_overhead_s", ni);
        std::vector<double> lone(un, 0.0), shared(un, 0.0), burst(un, -1.0), lone2(un, -1.0),
            shared2(un, -1.0);
        if (version >= 3) {
            lone = read_node_row(rd, tok, "node_lone_Bps", ni);
            shared = read_node_row(rd, tok, "node_shared_Bps", ni);
        }
        if (version >= 4) {
            burst = read_node_row(rd, tok, "node_burst_bytes", ni);
        }
        if (version >= 5) {
            lone2 = read_node_row(rd, tok, "node_lone2_Bps", ni);
            shared2 = read_node_row(rd, tok, "node_shared2_Bps", ni);
        }
        props.resize(un);
        for (size_t i = 0; i < un; ++i) {
            props[i] = NodeProps{e[i],     in[i],    o[i],     lone[i],
                                 shared[i], burst[i], lone2[i], shared2[i]};
            std::string p = node_props_problem(props[i]);
            if (!p.empty()) {
                rd.error("node " + std::to_string(i) + " (" + hosts[i] + "): " + p);
            }
        }
    }
    if (!rd.next(tok)) {
        rd.eof_error("'end'");
    }
    if (tok.size() != 1 || tok[0] != "end") {
        rd.error("expected 'end'");
    }
    if (rd.next(tok)) {
        rd.error("content after 'end'");
    }
    Matrix m(std::move(hosts), std::move(lat), std::move(bw));
    m.set_node_props(std::move(props));
    return m;
}

Matrix read_matrix_file(const std::string &path)
{
    // One read() into one buffer (a 2048-node file is 83 MB), parsed in place.
    const FileText text = read_file_text(path, kMaxMatrixFileBytes, "matrix");
    return parse_matrix(text.view(), path);
}

namespace {

void append_number(std::string &s, double v)
{
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    s.append(buf, res.ptr);
}

}  // namespace

std::string format_matrix(const Matrix &m, const std::string &comment)
{
    const int n = m.nodes();
    std::string s;
    s.reserve(static_cast<size_t>(n) * n * 20 + 256);
    if (!comment.empty()) {
        std::istringstream cs(comment);
        std::string line;
        while (std::getline(cs, line)) {
            s += "# " + line + "\n";
        }
    }
    s += std::string("cloudaware-matrix ") + (m.has_node_props() ? "5" : "1") + "\nnodes " +
         std::to_string(n) + "\n";
    for (int i = 0; i < n; ++i) {
        s += "host " + m.host(i) + "\n";
    }
    for (int pass = 0; pass < 2; ++pass) {
        s += pass == 0 ? "latency_s\n" : "bandwidth_Bps\n";
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                if (j) {
                    s += ' ';
                }
                append_number(s, i == j ? 0.0 : pass == 0 ? m.latency(i, j) : m.bandwidth(i, j));
            }
            s += '\n';
        }
    }
    if (m.has_node_props()) {
        static const char *const keys[] = {"node_egress_Bps", "node_ingress_Bps", "node_overhead_s",
                                           "node_lone_Bps", "node_shared_Bps", "node_burst_bytes",
                                           "node_lone2_Bps", "node_shared2_Bps"};
        for (size_t k = 0; k < std::size(keys); ++k) {
            s += keys[k];
            s += '\n';
            for (int i = 0; i < n; ++i) {
                const NodeProps &p = m.node_props(i);
                if (i) {
                    s += ' ';
                }
                const double v[] = {p.egress_Bps, p.ingress_Bps, p.overhead_s, p.lone_Bps,
                                     p.shared_Bps, p.burst_bytes, p.lone2_Bps,  p.shared2_Bps};
                append_number(s, v[k]);
            }
            s += '\n';
        }
    }
    s += "end\n";
    return s;
}

void write_matrix_file(const Matrix &m, const std::string &path, const std::string &comment)
{
    const std::string text = format_matrix(m, comment);
    std::string tmpl = path + ".tmp.XXXXXX";
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    int fd = mkstemp(name.data());  // creates the file with mode 0600
    if (fd < 0) {
        throw Error(CACORE_ERR_IO, path + ": cannot create temporary file: " + std::strerror(errno));
    }
    const char *p = text.data();
    size_t left = text.size();
    bool ok = fchmod(fd, 0600) == 0;
    while (ok && left > 0) {
        ssize_t w = ::write(fd, p, left);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            ok = false;
            break;
        }
        p += w;
        left -= static_cast<size_t>(w);
    }
    int saved = errno;
    if (ok && fsync(fd) != 0) {
        ok = false;
        saved = errno;
    }
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && std::rename(name.data(), path.c_str()) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlink(name.data());
        throw Error(CACORE_ERR_IO, path + ": write failed: " + std::strerror(saved));
    }
}

}  // namespace cacore
