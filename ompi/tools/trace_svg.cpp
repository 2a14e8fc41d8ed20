// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// trace_svg.cpp - the timeline and link heatmap of `cloudaware-plan trace`.
#include "trace_svg.hpp"

#include "heatmap.hpp"
#include "names.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace cloudaware_plan {

namespace {

std::string xml(const std::string &s)
{
    std::string o;
    for (char c : s) {
        switch (c) {
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '&': o += "&amp;"; break;
        case '"': o += "&quot;"; break;
        default: o += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
        }
    }
    return o;
}

std::string fmt_us(double s)
{
    char b[32];
    std::snprintf(b, sizeof b, s >= 1e-3 ? "%.3f ms" : "%.1f us", s >= 1e-3 ? s * 1e3 : s * 1e6);
    return b;
}

const char *const kLevelColour[] = {"#4c78a8", "#f58518", "#54a24b"};

}  // namespace

std::string trace_timeline_svg(const cacore::CallSummary &c,
                               const std::map<int, std::string> &host_of)
{
    constexpr int kMaxRows = 256, kLeft = 170, kWidth = 1000, kRow = 20, kTop = 60;
    std::vector<const cacore::RankInCall *> rows;
    for (const auto &r : c.ranks) {
        rows.push_back(&r);
    }
    std::sort(rows.begin(), rows.end(), [](auto *x, auto *y) { return x->rank < y->rank; });
    if (rows.size() > kMaxRows) {
        rows.resize(kMaxRows);
    }
    const double t0 = c.start, span = c.duration > 0 ? c.duration : 1e-9;
    auto X = [&](double t) { return kLeft + kWidth * (t - t0) / span; };
    const int height = kTop + kRow * static_cast<int>(rows.size()) + 60;
    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kLeft + kWidth + 60
      << "\" height=\"" << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    char title[512];
    std::snprintf(title, sizeof title, "call %d: %s of %llu bytes, %s (predicted %s); plan %s",
                  c.index, cacore::coll_name(c.coll), static_cast<unsigned long long>(c.bytes),
                  fmt_us(c.duration).c_str(), fmt_us(c.predicted).c_str(), c.plan.c_str());
    o << "<text x=\"10\" y=\"20\" font-size=\"14\">" << xml(title) << "</text>\n";
    o << "<text x=\"10\" y=\"40\">bars: steps from post to completion, by level (";
    for (int l = 0; l < cacore::kTraceLevels; ++l) {
        o << "<tspan fill=\"" << kLevelColour[l] << "\">" << cacore::level_name(l) << "</tspan> ";
    }
    o << "), grey: local copy/reduce; red strip below a bar: the time the rank waited for "
         "that step; outline: the rank's call</text>\n";
    for (size_t i = 0; i < rows.size(); ++i) {
        const cacore::RankInCall &r = *rows[i];
        const double y = kTop + kRow * static_cast<double>(i);
        auto h = host_of.find(r.rank);
        o << "<text x=\"5\" y=\"" << y + 13 << "\">rank " << r.rank << " "
          << xml(h != host_of.end() ? h->second : "?") << "</text>\n";
        o << "<rect x=\"" << X(r.start) << "\" y=\"" << y + 1 << "\" width=\""
          << std::max(0.5, X(r.end) - X(r.start)) << "\" height=\"" << kRow - 2
          << "\" fill=\"none\" stroke=\"#333\" stroke-width=\"0.5\"/>\n";
        if (r.call == nullptr) {
            continue;
        }
        for (const auto &s : r.call->steps) {
            const bool comm = s.kind == cacore::kTraceSend || s.kind == cacore::kTraceRecv;
            const double a = s.post + r.offset, b = s.done + r.offset;
            const char *col = comm ? kLevelColour[std::min(s.level, 2)] : "#999999";
            o << "<rect x=\"" << X(a) << "\" y=\"" << y + 3 << "\" width=\""
              << std::max(0.5, X(b) - X(a)) << "\" height=\"" << kRow - 10 << "\" fill=\"" << col
              << "\" fill-opacity=\"0.8\"><title>" << (s.kind == 0 ? "send to" : s.kind == 1 ? "recv from" : "local")
              << " " << s.peer << ", " << s.bytes << " bytes, round " << s.round << ", waited "
              << fmt_us(s.wait) << "</title></rect>\n";
            if (s.wait > 0) {
                o << "<rect x=\"" << X(b - s.wait) << "\" y=\"" << y + kRow - 6 << "\" width=\""
                  << std::max(0.5, X(b) - X(b - s.wait)) << "\" height=\"4\" fill=\"#d62728\"/>\n";
            }
        }
    }
    const double ya = kTop + kRow * static_cast<double>(rows.size()) + 10;
    o << "<line x1=\"" << kLeft << "\" y1=\"" << ya << "\" x2=\"" << kLeft + kWidth << "\" y2=\""
      << ya << "\" stroke=\"#333\"/>\n";
    for (int k = 0; k <= 5; ++k) {
        o << "<text x=\"" << kLeft + kWidth * k / 5 << "\" y=\"" << ya + 16
          << "\" text-anchor=\"middle\">" << fmt_us(span * k / 5) << "</text>\n";
    }
    o << "</svg>\n";
    return o.str();
}

void write_trace_link_heatmap(const cacore::TraceAnalysis &a, const std::string &path,
                              std::vector<std::string> &hosts)
{
    hosts.clear();
    for (const auto &n : a.nodes) {
        hosts.push_back(n.host);
    }
    std::sort(hosts.begin(), hosts.end());
    const int n = static_cast<int>(hosts.size());
    auto at = [&](const std::string &h) {
        return static_cast<int>(std::lower_bound(hosts.begin(), hosts.end(), h) - hosts.begin());
    };
    HeatPanel rate, ratio;
    rate.cells = ratio.cells = n;
    rate.f.assign(static_cast<size_t>(n) * n, -1.0);
    ratio.f.assign(static_cast<size_t>(n) * n, -1.0);
    // Only pairs that carried bulk traffic (is_bulk): a few small messages time the peers and the
    // software, not the link, and would stretch the scale by orders of magnitude.
    double lo = INFINITY, hi = 0;
    for (const auto &l : a.links) {
        if (cacore::is_bulk(l)) {
            lo = std::min(lo, l.rate);
            hi = std::max(hi, l.rate);
        }
    }
    for (const auto &l : a.links) {
        if (!cacore::is_bulk(l)) {
            continue;
        }
        const size_t k = static_cast<size_t>(at(l.from)) * n + at(l.to);
        // the slowest link stays visible (0.1), apart from pairs without messages (white)
        rate.f[k] = hi > lo ? 0.1 + 0.9 * std::log(l.rate / lo) / std::log(hi / lo) : 1.0;
        if (l.predicted_rate > 0) {
            ratio.f[k] = std::min(1.0, l.rate / l.predicted_rate);
        }
    }
    char lbl[64];
    std::snprintf(lbl, sizeof lbl, "%.4g Mbit/s", (std::isfinite(lo) ? lo : 0) * 8 / 1e6);
    rate.lo_label = lbl;
    std::snprintf(lbl, sizeof lbl, "%.4g Mbit/s", hi * 8 / 1e6);
    rate.hi_label = lbl;
    rate.title = "achieved rate per node pair, 64 KiB or more (row = sender; dark = fast)";
    std::vector<HeatPanel> panels{rate};
    if (a.have_matrix) {
        ratio.title = "achieved / matrix rate (dark = as predicted)";
        ratio.lo_label = "0";
        ratio.hi_label = ">= 1";
        panels.push_back(ratio);
    }
    write_heatmap_svg(panels, path);
}

}  // namespace cloudaware_plan
