// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// cloudaware_plan.cpp - the planner CLI: generate synthetic matrices, show the performance
// hierarchy, and show plans with their predicted times next to baselines (docs/planner.md).
#include "baselines.hpp"
#include "bottleneck.hpp"
#include "cool_plan.hpp"
#include "cost_model.hpp"
#include "decide.hpp"
#include "error.hpp"
#include "escape.hpp"
#include "generate.hpp"
#include "heatmap.hpp"
#include "hierarchy.hpp"
#include "layout.hpp"
#include "matrix_io.hpp"
#include "median.hpp"
#include "montecarlo.hpp"
#include "names.hpp"
#include "patterns.hpp"
#include "planner.hpp"
#include "rules.hpp"
#include "simulate.hpp"
#include "trace_analysis.hpp"
#include "trace_svg.hpp"
#include "tree.hpp"
#include "units.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace cacore;

namespace {

// The names come from the core's tables (names.cpp), as the rules parser's and the MCA's do.
std::string usage()
{
    return "usage:\n"
           "  cloudaware-plan generate --nodes N [--racks R] [--oversubscription X] [--unevenness U]\n"
           "                           [--asymmetry A] [--seed S] [--placement random|contiguous] -o FILE\n"
           "  cloudaware-plan show --matrix FILE [--size BYTES] [--k K] [--tspan T]\n"
           "                       [--format text|json|dot] [--heatmap FILE.svg|FILE.png]\n"
           "                       [--reference FILE]\n"
           "  cloudaware-plan plan --matrix FILE --op OP --root R --size BYTES [--format text|json|dot]\n"
           "                       [--ranks-per-node P | --rank-nodes i,j,...] [--algo ALGO]\n"
           "                       [--pattern NODE,GROUP,TOP] [--segment BYTES] [--lanes K] [--k K]\n"
           "                       [--tspan T]\n"
           "                       [--montecarlo N] [--seed S] [--check] [--steps]\n"
           "                       [--previous PREV] [--min-gain X] [--large-message BYTES]\n"
           "                       [--slots N] [--rules FILE] [--trial TRIAL] [--noncommutative]\n"
           "                       [--trial-spread X] [--trial-peer on|off] [--relay on|off]\n"
           "                       [--duplex BYTES] [--burst BYTES] [--one-call]\n"
           "  cloudaware-plan trace DIR [DIR2] [--matrix FILE] [--format text|json] [--hints]\n"
           "                        [--calls N] [--svg-timeline FILE.svg] [--svg-call N]\n"
           "                        [--svg-links FILE.svg]\n"
           "      analyses the rank-N.trace files coll_cloudaware_trace=DIR wrote (docs/monitoring.md);\n"
           "      with DIR2, compares the two runs per (op, size class)\n"
           "  OP: " + name_list(coll_name) + "\n"
           "  ALGO: " + name_list(algo_name) + "\n"
           "  patterns: " + name_list(pattern_name) + "\n"
           "  PREV: " + name_list(prev_name) + " (default tuned)   TRIAL: " + name_list(trial_name) + "\n"
           "  BYTES: binary suffixes, as the rules file and OSU: 1048576 = 1024K = 1M = 1MiB\n"
           "         (K, M, G and Ki, Mi, Gi, KiB, MiB, GiB are all powers of 1024)\n";
}

[[noreturn]] void usage_error(const std::string &msg)
{
    std::fprintf(stderr, "cloudaware-plan: %s\n%s", msg.c_str(), usage().c_str());
    std::exit(2);
}

struct Args {
    std::string cmd;
    std::map<std::string, std::string> opt;
    std::vector<std::string> pos;   // positional arguments (trace's directories)
    bool has(const std::string &k) const { return opt.count(k) != 0; }
    std::string get(const std::string &k, const std::string &def = "") const
    {
        auto it = opt.find(k);
        return it == opt.end() ? def : it->second;
    }
};

Args parse_args(int argc, char **argv)
{
    if (argc < 2) {
        usage_error("missing command");
    }
    Args a;
    a.cmd = argv[1];
    if (a.cmd == "-h" || a.cmd == "--help" || a.cmd == "help") {
        std::fputs(usage().c_str(), stdout);
        std::exit(0);
    }
    static const char *flags[] = {"--check", "--steps", "--noncommutative", "--hints", "--one-call"};
    for (int i = 2; i < argc; ++i) {
        std::string k = argv[i];
        bool flag = false;
        for (const char *f : flags) {
            flag |= k == f;
        }
        if (flag) {
            a.opt[k.substr(2)] = "1";
            continue;
        }
        if (k == "-o") {
            k = "--output";
        }
        if (a.cmd == "trace" && k.rfind("--", 0) != 0) {
            a.pos.push_back(k);
            continue;
        }
        if (k.rfind("--", 0) != 0 || i + 1 >= argc) {
            usage_error("bad argument " + quote(k));
        }
        a.opt[k.substr(2)] = argv[++i];
    }
    return a;
}

double parse_double(const std::string &s, const char *what)
{
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v)) {
        usage_error(std::string("--") + what + ": " + quote(s) + " is not a number");
    }
    return v;
}

long parse_int(const std::string &s, const char *what)
{
    char *end = nullptr;
    long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0') {
        usage_error(std::string("--") + what + ": " + quote(s) + " is not an integer");
    }
    return v;
}

double parse_bytes(const std::string &s, const char *what)
{
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    std::string suf(end);
    // Binary everywhere (as the rules file and OSU): a decimal "MB" would be read differently by
    // different tools, so it is refused rather than guessed.
    static const std::map<std::string, double> mult = {
        {"", 1}, {"B", 1}, {"K", 1024}, {"Ki", 1024}, {"KiB", 1024},
        {"M", 1048576}, {"Mi", 1048576}, {"MiB", 1048576},
        {"G", 1073741824.0}, {"Gi", 1073741824.0}, {"GiB", 1073741824.0}};
    auto it = mult.find(suf);
    if (s.empty() || end == s.c_str() || it == mult.end() || !(v >= 0) || !std::isfinite(v)) {
        usage_error(std::string("--") + what + ": " + quote(s) +
                    " is not a size (e.g. 1048576, 64K, 1MiB; suffixes are binary)");
    }
    return std::floor(v * it->second);
}

// A JSON number; null for a value JSON cannot hold (inf, nan). The matrix reader already
// rejects values that could make a cost non-finite; this is the second line of defence.
std::string jnum(double v)
{
    if (!std::isfinite(v)) {
        return "null";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

// A JSON string: quotes and backslashes escaped, control characters as \u00XX.
std::string jstr(const std::string &s)
{
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
            o += buf;
        } else {
            o += c;
        }
    }
    return o + "\"";
}

double elapsed(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

HierParams hier_params(const Args &a)
{
    HierParams hp;
    if (a.has("k")) {
        hp.k = parse_double(a.get("k"), "k");
    }
    if (a.has("tspan")) {
        hp.t_span = static_cast<int>(parse_int(a.get("tspan"), "tspan"));
    }
    return hp;
}

// ---- generate -----------------------------------------------------------------------------------

int cmd_generate(const Args &a)
{
    GenParams g;
    if (!a.has("nodes")) {
        usage_error("generate needs --nodes");
    }
    if (!a.has("output")) {
        usage_error("generate needs -o FILE");
    }
    g.nodes = static_cast<int>(parse_int(a.get("nodes"), "nodes"));
    g.racks = static_cast<int>(parse_int(a.get("racks", "1"), "racks"));
    g.oversubscription = parse_double(a.get("oversubscription", "4"), "oversubscription");
    g.unevenness = parse_double(a.get("unevenness", "0"), "unevenness");
    g.asymmetry = parse_double(a.get("asymmetry", "0"), "asymmetry");
    g.seed = static_cast<uint64_t>(parse_int(a.get("seed", "1"), "seed"));
    std::string pl = a.get("placement", "random");
    if (pl != "random" && pl != "contiguous") {
        usage_error("--placement must be random or contiguous");
    }
    g.shuffle = pl == "random";
    auto t0 = std::chrono::steady_clock::now();
    std::vector<int> rack;
    Matrix m = generate_matrix(g, &rack);
    std::string comment = describe_generation(g) + "\nrack of each node:";
    for (size_t i = 0; i < rack.size(); ++i) {
        comment += (i % 32 == 0 ? "\n" : " ") + std::to_string(rack[i]);
    }
    write_matrix_file(m, a.get("output"), comment);
    std::printf("wrote %s: %d nodes, %d racks (%.3f s)\n", a.get("output").c_str(), g.nodes, g.racks,
                elapsed(t0));
    return 0;
}

// ---- show ---------------------------------------------------------------------------------------

// L and B averaged per cell (nodes binned when n > 256), on a log colour scale between the
// smallest and the largest cell; SVG or PNG by the file's extension.
void write_heatmap(const Matrix &m, const std::string &path)
{
    auto ends_with = [&](const char *ext) {
        const size_t k = std::strlen(ext);
        return path.size() > k && path.compare(path.size() - k, k, ext) == 0;
    };
    const bool png = ends_with(".png");
    if (!png && !ends_with(".svg")) {
        throw Error(CACORE_ERR_ARG, escape(path) + ": heatmaps are .svg or .png files");
    }
    const int n = m.nodes();
    const int cells = std::min(n, 256);
    std::vector<cloudaware_plan::HeatPanel> panels(2);
    for (int which = 0; which < 2; ++which) {
        std::vector<double> v(static_cast<size_t>(cells) * cells, 0.0);
        std::vector<int> cnt(v.size(), 0);
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                if (i == j) {
                    continue;
                }
                double x = which == 0 ? m.latency(i, j) : m.bandwidth(i, j);
                size_t k = static_cast<size_t>(i * cells / n) * cells + j * cells / n;
                v[k] += x;
                cnt[k]++;
            }
        }
        for (size_t k = 0; k < v.size(); ++k) {
            if (cnt[k]) {
                v[k] /= cnt[k];
                lo = std::min(lo, v[k]);
                hi = std::max(hi, v[k]);
            }
        }
        cloudaware_plan::HeatPanel &p = panels[which];
        p.cells = cells;
        p.f.assign(v.size(), -1.0);
        for (size_t k = 0; k < v.size(); ++k) {
            if (cnt[k]) {
                p.f[k] = hi > lo ? std::log(v[k] / lo) / std::log(hi / lo) : 0.0;
            }
        }
        if (!(lo <= hi)) {
            lo = hi = 0;  // a single node: no pairs
        }
        p.lo_label = which == 0 ? format_time(lo) : format_rate(lo);
        p.hi_label = which == 0 ? format_time(hi) : format_rate(hi);
        p.title = which == 0 ? "latency L (row = sender; dark = slow)"
                             : "bandwidth B (row = sender; dark = fast)";
    }
    if (png) {
        cloudaware_plan::write_heatmap_png(panels, path);
    } else {
        cloudaware_plan::write_heatmap_svg(panels, path);
    }
}

// The shared bottlenecks the cost model infers from the lone samples (docs/calibration.md,
// "Shared bottlenecks").
void show_bottlenecks(const Matrix &m)
{
    const Bottlenecks *b = m.bottlenecks();
    if (b == nullptr) {
        std::printf("shared bottlenecks: none inferred\n");
        return;
    }
    std::printf("shared bottlenecks (%d groups; factor = lone / concurrent rate):\n", b->ngroups);
    for (int g = 0; g < b->ngroups; ++g) {
        std::printf("  group %d: nodes", g);
        for (int k = 0; k < m.nodes(); ++k) {
            if (b->group_of(k) == g) {
                std::printf(" %d", k);
            }
        }
        if (b->way_out(g) > 0 || b->way_in(g) > 0) {   // known with three groups or more
            std::printf("; way out %s, way in %s",
                        b->way_out(g) > 0 ? format_rate(b->way_out(g)).c_str() : "unknown",
                        b->way_in(g) > 0 ? format_rate(b->way_in(g)).c_str() : "unknown");
        }
        std::printf("\n");
    }
    for (int g = 0; g < b->ngroups; ++g) {
        for (int h = 0; h < b->ngroups; ++h) {
            if (b->capacity(g, h) > 0) {
                std::printf("  %d -> %d: factor %.2f, capacity %s\n", g, h, b->factor_of(g, h),
                            format_rate(b->capacity(g, h)).c_str());
            }
        }
    }
    // The pairs behind a shared capacity that were sampled alone: they run at that rate, not at
    // the factor times their round's rate.
    for (int k = 0; k < m.nodes(); ++k) {
        for (int s = 0; s < kLoneSamples; ++s) {
            const LoneSample &x = b->sample(k, s);
            if (x.peer < 0 || !b->shared(b->group_of(k), b->group_of(x.peer))) {
                continue;
            }
            std::printf("  node %d -> %d sampled alone: %s (round %s, x%.2f)\n", k, x.peer,
                        format_rate(x.lone_Bps).c_str(), format_rate(x.shared_Bps).c_str(),
                        x.lone_Bps / x.shared_Bps);
        }
    }
}

// Each pair across a shared bottleneck at the rate the model takes for it alone
// (Bottlenecks::lone_rate) against a reference matrix's rate for the same hosts (the lab's
// configured lone goodput, `lab show TOPOLOGY`): how many the model believes faster or slower
// than 1.3 times the reference, the largest of each (docs/calibration.md, "Shared bottlenecks").
void show_reference(const Matrix &m, const std::string &path)
{
    const Matrix ref = read_matrix_file(path);
    std::vector<int> at(static_cast<size_t>(m.nodes()));
    for (int i = 0; i < m.nodes(); ++i) {
        const auto it = std::find(ref.hosts().begin(), ref.hosts().end(), m.host(i));
        if (it == ref.hosts().end()) {
            throw Error(CACORE_ERR_ARG, escape(path) + ": no host " + escape(m.host(i)));
        }
        at[static_cast<size_t>(i)] = static_cast<int>(it - ref.hosts().begin());
    }
    const Bottlenecks *b = m.bottlenecks();
    struct Off {
        double ratio;
        int from, to;
    };
    std::vector<Off> off;
    std::vector<double> ratios;
    for (int i = 0; b != nullptr && i < m.nodes(); ++i) {
        for (int j = 0; j < m.nodes(); ++j) {
            if (i == j || !b->shared(b->group_of(i), b->group_of(j))) {
                continue;
            }
            const double r = b->lone_rate(m, i, j) /
                             ref.bandwidth(at[static_cast<size_t>(i)], at[static_cast<size_t>(j)]);
            ratios.push_back(r);
            if (r > 1.3 || r < 1 / 1.3) {
                off.push_back({r, i, j});
            }
        }
    }
    if (ratios.empty()) {
        std::printf("against %s: no pair across a shared bottleneck\n", path.c_str());
        return;
    }
    const size_t above = std::count_if(off.begin(), off.end(), [](const Off &o) { return o.ratio > 1; });
    std::printf("against %s (the model's rate alone / the reference's): %zu pairs across shared "
                "bottlenecks, median x%.2f; %zu above x1.3, %zu below x0.77\n",
                path.c_str(), ratios.size(), median(ratios), above, off.size() - above);
    std::sort(off.begin(), off.end(), [](const Off &x, const Off &y) {
        return std::fabs(std::log(x.ratio)) > std::fabs(std::log(y.ratio));
    });
    for (size_t k = 0; k < std::min<size_t>(off.size(), 8); ++k) {
        const Off &o = off[k];
        std::printf("  %s -> %s: x%.2f (model %s alone, round %s; reference %s)\n",
                    m.host(o.from).c_str(), m.host(o.to).c_str(), o.ratio,
                    format_rate(b->lone_rate(m, o.from, o.to)).c_str(),
                    format_rate(m.bandwidth(o.from, o.to)).c_str(),
                    format_rate(ref.bandwidth(at[static_cast<size_t>(o.from)],
                                              at[static_cast<size_t>(o.to)])).c_str());
    }
}

int cmd_show(const Args &a)
{
    if (!a.has("matrix")) {
        usage_error("show needs --matrix FILE");
    }
    const std::string fmt = a.get("format", "text");
    if (fmt != "text" && fmt != "json" && fmt != "dot") {
        usage_error("--format must be text, json or dot");
    }
    if (a.has("reference") && fmt != "text") {
        usage_error("--reference applies to --format text");
    }
    const double size = parse_bytes(a.get("size", "1MiB"), "size");
    HierParams hp = hier_params(a);
    auto t0 = std::chrono::steady_clock::now();
    Matrix m = read_matrix_file(a.get("matrix"));
    const double t_read = elapsed(t0);
    auto t1 = std::chrono::steady_clock::now();
    Hierarchy h = build_hierarchy(m, size, hp);
    const double t_hier = elapsed(t1);
    if (a.has("heatmap")) {
        write_heatmap(m, a.get("heatmap"));
    }
    // wall and CPU time of the command so far (read, hierarchy, heatmap): under load the wall
    // time is the CPU time stretched by the share of the machine the command gets
    const double t_total = elapsed(t0);
    const double t_cpu = static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
    char times[160];
    std::snprintf(times, sizeof times, "read %s, hierarchy %s, total %s (%s CPU)", format_time(t_read).c_str(),
                  format_time(t_hier).c_str(), format_time(t_total).c_str(), format_time(t_cpu).c_str());
    const int n = m.nodes();
    if (fmt == "json") {
        std::ostringstream os;
        os << "{\n  \"nodes\": " << n << ",\n  \"size_bytes\": " << jnum(size) << ",\n  \"k\": "
           << jnum(hp.k) << ",\n  \"t_span\": " << hp.t_span << ",\n  \"read_s\": " << jnum(t_read)
           << ",\n  \"hierarchy_s\": " << jnum(t_hier) << ",\n  \"total_s\": " << jnum(t_total)
           << ",\n  \"cpu_s\": " << jnum(t_cpu) << ",\n  \"hosts\": [";
        for (int i = 0; i < n; ++i) {
            os << (i ? ", " : "") << jstr(m.host(i));
        }
        os << "],\n  \"node_props\": ";
        if (m.has_node_props()) {
            os << "[";
            for (int i = 0; i < n; ++i) {
                const NodeProps &p = m.node_props(i);
                os << (i ? ", " : "") << "{\"egress_Bps\": " << jnum(p.egress_Bps)
                   << ", \"ingress_Bps\": " << jnum(p.ingress_Bps) << ", \"overhead_s\": "
                   << jnum(p.overhead_s) << ", \"burst_bytes\": " << jnum(p.burst_bytes) << "}";
            }
            os << "]";
        } else {
            os << "null";
        }
        os << ",\n  \"levels\": [\n";
        for (int l = 0; l < h.levels(); ++l) {
            os << "    [";
            for (size_t g = 0; g < h.level(l).size(); ++g) {
                const Group &gr = h.level(l)[g];
                os << (g ? ", " : "") << "{\"members\": [";
                for (size_t i = 0; i < gr.members.size(); ++i) {
                    os << (i ? ", " : "") << gr.members[i];
                }
                os << "], \"leader\": " << gr.leader << "}";
            }
            os << "]" << (l + 1 < h.levels() ? "," : "") << "\n";
        }
        os << "  ]\n}\n";
        std::fputs(os.str().c_str(), stdout);
    } else if (fmt == "dot") {
        std::printf("digraph hierarchy {\n  rankdir=TB; node [shape=box, fontsize=10];\n");
        for (int l = h.levels() - 1; l >= 1; --l) {
            for (size_t g = 0; g < h.level(l).size(); ++g) {
                const Group &gr = h.level(l)[g];
                std::printf("  \"L%dG%zu\" [label=\"level %d group %zu\\n%zu nodes, leader %s\"%s];\n", l, g, l,
                            g, gr.members.size(), m.host(gr.leader).c_str(),
                            l == h.top() ? ", style=bold" : "");
                for (int c : gr.children) {
                    if (l - 1 == 0) {
                        std::printf("  \"L%dG%zu\" -> \"%s\";\n", l, g, m.host(c).c_str());
                    } else {
                        std::printf("  \"L%dG%zu\" -> \"L%dG%d\";\n", l, g, l - 1, c);
                    }
                }
            }
        }
        for (int i = 0; i < n; ++i) {
            std::printf("  \"%s\" [shape=ellipse];\n", m.host(i).c_str());
        }
        std::printf("}\n");
    } else {
        std::printf("matrix %s: %d nodes; M(m) for m = %s; k = %g, T_span = %d\n",
                    a.get("matrix").c_str(), n, format_bytes(size).c_str(), hp.k, hp.t_span);
        std::printf("%s; %d levels\n", times, h.levels());
        for (int l = h.levels() - 1; l >= 1; --l) {
            const auto &lv = h.level(l);
            size_t mn = SIZE_MAX, mx = 0;
            for (const auto &g : lv) {
                mn = std::min(mn, g.members.size());
                mx = std::max(mx, g.members.size());
            }
            std::printf("level %d: %zu group%s, %zu..%zu nodes each\n", l, lv.size(),
                        lv.size() == 1 ? "" : "s", mn, mx);
            const size_t show = std::min<size_t>(lv.size(), 16);
            for (size_t g = 0; g < show; ++g) {
                std::printf("  group %zu: %zu nodes, leader %s (node %d), members", g,
                            lv[g].members.size(), m.host(lv[g].leader).c_str(), lv[g].leader);
                for (size_t i = 0; i < std::min<size_t>(lv[g].members.size(), 12); ++i) {
                    std::printf(" %d", lv[g].members[i]);
                }
                std::printf("%s\n", lv[g].members.size() > 12 ? " ..." : "");
            }
            if (lv.size() > show) {
                std::printf("  ... %zu more groups\n", lv.size() - show);
            }
        }
        std::printf("level 0: %d nodes\n", n);
        if (m.has_node_props()) {
            // docs/calibration.md, "Node capacity and per-message overhead"
            std::printf("node properties (egress / ingress capacity, '-' = no cap seen; "
                        "per-message overhead; burst credit, '?' = not measured):\n");
            for (int i = 0; i < n; ++i) {
                const NodeProps &p = m.node_props(i);
                auto cap = [](double v) {
                    char b[32];
                    std::snprintf(b, sizeof b, v > 0 ? "%.1f Mbit/s" : "-", v * 8e-6);
                    return std::string(b);
                };
                char burst[32];
                std::snprintf(burst, sizeof burst, p.burst_bytes < 0 ? "?" : "%.0f KiB",
                              p.burst_bytes / 1024);
                std::printf("  %-24s %14s %14s %8.1f us %9s\n", m.host(i).c_str(),
                            cap(p.egress_Bps).c_str(), cap(p.ingress_Bps).c_str(),
                            p.overhead_s * 1e6, burst);
            }
            show_bottlenecks(m);
        } else {
            std::printf("node properties: none in this matrix (cloudaware-matrix 1): the cost model "
                        "takes one message at a time per node\n");
        }
        if (a.has("reference")) {
            show_reference(m, a.get("reference"));
        }
    }
    if (fmt != "text") {
        std::fprintf(stderr, "%s\n", times);
    }
    return 0;
}

// ---- plan ---------------------------------------------------------------------------------------

int parse_pattern(const std::string &s)
{
    int p = find_name(pattern_name, s);
    if (p < 0) {
        usage_error("unknown pattern " + quote(s) + " (" + name_list(pattern_name) + ")");
    }
    return p;
}

cacore_coll_t parse_op(const std::string &s)
{
    int c = find_name(coll_name, s);
    if (c < 0) {
        usage_error("unknown --op " + quote(s) + " (" + name_list(coll_name) + ")");
    }
    return static_cast<cacore_coll_t>(c);
}

struct Edge {
    int from, to, level;
    double bytes;
    int messages;
};

std::vector<Edge> edges_of(const Plan &p)
{
    std::map<std::pair<int, int>, Edge> e;
    for (int r = 0; r < p.nranks; ++r) {
        for (const auto &s : p.steps[r]) {
            if (s.kind != CACORE_STEP_SEND) {
                continue;
            }
            auto &x = e[{r, s.peer}];
            x.from = r;
            x.to = s.peer;
            x.level = s.level;
            x.bytes += block_bytes(p.total_bytes, p.nblocks, s.first_block, s.nblocks);
            x.messages++;
        }
    }
    std::vector<Edge> out;
    for (auto &kv : e) {
        out.push_back(kv.second);
    }
    std::stable_sort(out.begin(), out.end(), [](const Edge &a, const Edge &b) { return a.level > b.level; });
    return out;
}

int cmd_plan(const Args &a)
{
    if (!a.has("matrix") || !a.has("op") || !a.has("size")) {
        usage_error("plan needs --matrix FILE --op OP --size BYTES");
    }
    const std::string fmt = a.get("format", "text");
    if (fmt != "text" && fmt != "json" && fmt != "dot") {
        usage_error("--format must be text, json or dot");
    }
    auto t0 = std::chrono::steady_clock::now();
    Matrix m = read_matrix_file(a.get("matrix"));
    PlanInput in;
    in.matrix = &m;
    in.coll = parse_op(a.get("op"));
    in.root = static_cast<int>(parse_int(a.get("root", "0"), "root"));
    in.bytes = parse_bytes(a.get("size"), "size");
    in.count = static_cast<size_t>(in.bytes);
    if (a.has("rank-nodes")) {
        std::stringstream ss(a.get("rank-nodes"));
        std::string tok;
        while (std::getline(ss, tok, ',')) {
            in.rank_node.push_back(static_cast<int>(parse_int(tok, "rank-nodes")));
        }
    } else {
        int ppn = static_cast<int>(parse_int(a.get("ranks-per-node", "1"), "ranks-per-node"));
        if (ppn < 1) {
            usage_error("--ranks-per-node must be >= 1");
        }
        for (int node = 0; node < m.nodes(); ++node) {
            for (int i = 0; i < ppn; ++i) {
                in.rank_node.push_back(node);
            }
        }
    }
    PlanParams pp;
    pp.hier = hier_params(a);
    std::string algo = a.get("algo", "auto");
    pp.algo = find_name(algo_name, algo);
    if (pp.algo < 0) {
        usage_error("unknown --algo " + quote(algo) + " (" + name_list(algo_name) + ")");
    }
    if (a.has("lanes")) {
        // the lanes plan's lane count (PlanParams::lanes; the cost model chooses it otherwise)
        if (pp.algo != CACORE_ALGO_LANES) {
            usage_error("--lanes applies to --algo lanes");
        }
        pp.lanes = static_cast<int>(parse_int(a.get("lanes"), "lanes"));
        if (pp.lanes < 1 || pp.lanes > kMaxLanes) {
            usage_error("--lanes must be 1 to " + std::to_string(kMaxLanes));
        }
    }
    if (a.has("pattern")) {
        std::stringstream ss(a.get("pattern"));
        std::string tok;
        int i = 0;
        while (std::getline(ss, tok, ',')) {
            if (i >= CACORE_PLAN_LEVELS) {
                usage_error("--pattern takes NODE,GROUP,TOP");
            }
            pp.pattern[i++] = parse_pattern(tok);
        }
    }
    if (a.has("slots")) {
        // messages a node sends and receives at once in the cost model (0 = unlimited,
        // -1 = measured: the flow model with the matrix's node properties, the default)
        pp.cost.node_send_slots = pp.cost.node_recv_slots = static_cast<int>(parse_int(a.get("slots"), "slots"));
    }
    if (a.has("duplex")) {   // as coll_cloudaware_model_duplex: -2 = measured (the default)
        const long d = parse_int(a.get("duplex"), "duplex");
        if (d < CACORE_DUPLEX_MEASURED) {
            usage_error("--duplex must be -2 (measured), -1 (none), 0 (every message) or a byte "
                        "count");
        }
        pp.cost.duplex_above_bytes = static_cast<double>(d);
    }
    if (a.has("burst")) {
        // as coll_cloudaware_model_burst: -1 = each sender's measured credit (the default;
        // fading toward its edge), 0 = none, else messages up to BYTES pass idle links at once,
        // which then owe their time (CostParams::burst_bytes, docs/cost-model.md "Short bursts")
        const std::string b = a.get("burst");
        pp.cost.burst_bytes = b == "-1" ? CACORE_BURST_MEASURED : parse_bytes(b, "burst");
    }
    // what if: one call from idle links instead of one of many back to back (CostParams::repeated,
    // docs/cost-model.md "Repeated calls"); not an MCA parameter
    pp.cost.repeated = !a.has("one-call");
    const bool what_if = a.has("burst") || a.has("one-call");
    if (a.has("segment")) {
        pp.segment_bytes = parse_bytes(a.get("segment"), "segment");
    }
    const std::string relay = a.get("relay", "on");   // as coll_cloudaware_relay
    if (relay != "on" && relay != "off") {
        usage_error("--relay must be on or off");
    }
    pp.relay = relay == "on";
    // What the component decides for this call (cacore_decide): the same inputs, the same
    // defaults as its MCA parameters.
    DecideInput d;
    d.in = in;
    d.params = pp;
    d.commutative = !a.has("noncommutative");
    d.previous = find_name(prev_name, a.get("previous", "tuned"));
    if (d.previous < 0) {
        usage_error("unknown --previous " + quote(a.get("previous")) + " (" + name_list(prev_name) + ")");
    }
    d.trial = find_name(trial_name, a.get("trial", "unknown"));
    if (d.trial < 0) {
        usage_error("unknown --trial " + quote(a.get("trial")) + " (" + name_list(trial_name) + ")");
    }
    d.min_gain = parse_double(a.get("min-gain", "0.1"), "min-gain");
    if (!(d.min_gain >= 0 && d.min_gain < 1)) {
        usage_error("--min-gain must be in [0, 1)");
    }
    d.large_message = parse_bytes(a.get("large-message", "65536"), "large-message");
    d.trial_spread = parse_double(a.get("trial-spread", "2"), "trial-spread");
    const std::string peer = a.get("trial-peer", "on");   // as coll_cloudaware_trial_peer
    if (peer != "on" && peer != "off") {
        usage_error("--trial-peer must be on or off");
    }
    d.trial_peer = peer == "on";
    if (!(d.trial_spread >= 0 && d.trial_spread < 1e6)) {
        usage_error("--trial-spread must be in [0, 1e6)");
    }
    Rules rules;
    cacore_rule_t rule{};
    if (a.has("rules")) {
        rules = read_rules_file(a.get("rules"));
        const int nodes = static_cast<int>(std::set<int>(in.rank_node.begin(), in.rank_node.end()).size());
        if (const Rule *r = rules.lookup(in.coll, nodes, static_cast<size_t>(in.bytes))) {
            rule = r->action;
            d.rule = &rule;
        }
    }
    Decision dec = decide(d);
    // With --burst or --one-call: the plan the component would choose (the defaults), priced with
    // them (how far the what-if moves the prediction of the plan the component would run)
    Plan as_is;
    double as_is_priced = -1;
    if (what_if) {
        DecideInput d0 = d;
        d0.params.cost.burst_bytes = CostParams().burst_bytes;
        d0.params.cost.repeated = CostParams().repeated;
        const Decision dec0 = decide(d0);
        if (dec0.have_plan) {
            as_is = dec0.run_alternative ? dec0.alternative : dec0.run_peer ? dec0.peer : dec0.plan;
            as_is_priced = predict_for(as_is, in, pp.cost);
        }
    }
    const Plan prev = dec.previous_s >= 0 ? Plan() : predict_previous(d);
    const std::string prev_desc = dec.previous_s >= 0 ? dec.previous : prev.description;
    const double prev_s = dec.previous_s >= 0 ? dec.previous_s : prev.predicted_s;
    if (!dec.have_plan) {
        // a rule or a trial chose the previous module before any plan was built: show the plan
        // the model would have weighed, if there is one
        try {
            dec.plan = build_plan(in, decide_params(d));
        } catch (const Error &) {
            std::printf("decision: %s\nprevious    %12s   %s\n", dec.reason.c_str(),
                        format_time(prev_s).c_str(), prev_desc.c_str());
            return 0;
        }
    }
    // The plan shown is the one that runs (the alternative or the peer when a trial said so).
    const Plan &plan = dec.run_alternative ? dec.alternative : dec.run_peer ? dec.peer : dec.plan;
    const char *runs = dec.run_alternative ? "alternative"
                       : dec.run_peer      ? "peer"
                       : dec.run_plan      ? "plan"
                                           : "previous";
    const double t_plan = elapsed(t0);
    const double binom = predict_for(build_binomial(in), in, pp.cost);
    double ring = -1;
    if (ring_applies(in.coll)) {
        // the ring baseline with its best segment count (not simulated: a ring over thousands of
        // ranks has millions of steps; the unit tests check ring plans)
        for (int s : {1, 4, 8, 16, 32, 64, 128}) {
            if (s > 1 && in.bytes / s < 8192) {
                break;
            }
            double t = predict_for(build_ring(in, s), in, pp.cost);
            ring = ring < 0 ? t : std::min(ring, t);
            if (in.coll == CACORE_COLL_ALLGATHER) {
                break;
            }
        }
    }
    long mc = a.has("montecarlo") ? parse_int(a.get("montecarlo"), "montecarlo") : 0;
    double mc_best = 0, mc_median = 0;
    long mc_fast = 0;
    double t_mc = 0;
    if (mc > 0) {
        if (!is_rooted(in.coll)) {
            usage_error("--montecarlo applies to bcast, reduce, gather and scatter");
        }
        auto t2 = std::chrono::steady_clock::now();
        Layout lay(in, pp.hier);
        MonteCarloResult r = run_montecarlo(in, lay, pp.cost, mc,
                                            static_cast<uint64_t>(parse_int(a.get("seed", "1"), "seed")));
        mc_best = r.best_s;
        mc_median = r.median_s;
        mc_fast = r.fast;
        t_mc = elapsed(t2);
    }
    std::string check_error;
    if (a.has("check")) {
        SimResult r = simulate(plan);
        check_error = r.ok ? "" : r.error;
    }
    const auto edges = edges_of(plan);
    if (fmt == "json") {
        std::ostringstream os;
        os << "{\n  \"op\": " << jstr(coll_name(in.coll)) << ",\n  \"root\": " << plan.root
           << ",\n  \"size_bytes\": " << jnum(in.bytes) << ",\n  \"ranks\": " << plan.nranks
           << ",\n  \"nodes\": " << m.nodes() << ",\n  \"predicted_s\": " << jnum(plan.predicted_s)
           << ",\n  \"baselines\": {\"binomial_s\": " << jnum(binom);
        if (ring >= 0) {
            os << ", \"ring_s\": " << jnum(ring);
        }
        os << "},\n  \"previous\": {\"module\": " << jstr(prev_name(d.previous)) << ", \"algorithm\": "
           << jstr(prev_desc) << ", \"predicted_s\": " << jnum(prev_s) << "},\n  \"decision\": {\"runs\": "
           << jstr(runs) << ", \"reason\": " << jstr(dec.reason) << "},\n";
        if (dec.have_alternative) {
            os << "  \"alternative\": {\"algo\": " << jstr(dec.alternative.description)
               << ", \"predicted_s\": " << jnum(dec.alternative.predicted_s)
               << ", \"note\": " << jstr(dec.alternative_note) << "},\n";
        }
        if (dec.have_peer) {
            os << "  \"peer\": {\"algo\": " << jstr(dec.peer.description)
               << ", \"predicted_s\": " << jnum(dec.peer.predicted_s) << "},\n";
        }
        if (as_is_priced >= 0) {
            os << "  \"without_what_if\": {\"algo\": " << jstr(as_is.description)
               << ", \"predicted_s\": " << jnum(as_is.predicted_s)
               << ", \"priced_s\": " << jnum(as_is_priced) << "},\n";
        }
        if (mc > 0) {
            os << "  \"montecarlo\": {\"trees\": " << mc << ", \"best_s\": " << jnum(mc_best)
               << ", \"median_s\": " << jnum(mc_median) << ", \"fast_path\": " << mc_fast
               << ", \"montecarlo_s\": " << jnum(t_mc) << "},\n";
        }
        if (a.has("check")) {
            os << "  \"check\": " << (check_error.empty() ? "\"ok\"" : jstr(check_error)) << ",\n";
        }
        os << "  \"plan\": {\"algo\": " << jstr(plan.description) << ", \"nblocks\": " << plan.nblocks
           << ", \"ntmp\": " << plan.ntmp << ", \"preserves_order\": "
           << (plan.preserves_order ? "true" : "false") << ",\n    \"edges\": [";
        for (size_t i = 0; i < edges.size(); ++i) {
            os << (i ? ",\n      " : "\n      ") << "{\"from\": " << edges[i].from << ", \"to\": "
               << edges[i].to << ", \"level\": " << edges[i].level << ", \"bytes\": "
               << jnum(edges[i].bytes) << ", \"messages\": " << edges[i].messages << "}";
        }
        os << "]},\n  \"plan_s\": " << jnum(t_plan) << "\n}\n";
        std::fputs(os.str().c_str(), stdout);
    } else if (fmt == "dot") {
        static const char *colors[] = {"gray", "blue", "darkgreen", "red", "purple", "orange"};
        std::printf("digraph plan {\n  label=\"%s %s, root %d: %s, predicted %s\";\n",
                    coll_name(in.coll), format_bytes(in.bytes).c_str(), plan.root,
                    plan.description.c_str(), format_time(plan.predicted_s).c_str());
        for (const auto &e : edges) {
            std::printf("  r%d -> r%d [color=%s, label=\"%s\"];\n", e.from, e.to,
                        colors[std::min(e.level, 5)], format_bytes(e.bytes).c_str());
        }
        for (int r = 0; r < plan.nranks; ++r) {
            std::printf("  r%d [label=\"%d\\n%s\"%s];\n", r, r, m.host(in.rank_node[r]).c_str(),
                        r == plan.root ? ", style=bold" : "");
        }
        std::printf("}\n");
    } else {
        std::printf("%s of %s per %s, root %d, %d ranks on %d nodes\n", coll_name(in.coll),
                    format_bytes(in.bytes).c_str(), is_gather_type(in.coll) ? "rank" : "call", plan.root,
                    plan.nranks, m.nodes());
        std::printf("plan: %s (%d blocks, %d temporary buffers, %s rank order)\n",
                    plan.description.c_str(), plan.nblocks, plan.ntmp,
                    plan.preserves_order ? "keeps" : "does not keep");
        std::printf("predicted   %12s\n", format_time(plan.predicted_s).c_str());
        std::printf("binomial    %12s   (cloudaware %+.1f %%)\n", format_time(binom).c_str(),
                    100.0 * (plan.predicted_s / binom - 1));
        if (ring >= 0) {
            std::printf("ring        %12s   (cloudaware %+.1f %%)\n", format_time(ring).c_str(),
                        100.0 * (plan.predicted_s / ring - 1));
        }
        std::printf("previous    %12s   (cloudaware %+.1f %%) %s (%s)\n", format_time(prev_s).c_str(),
                    100.0 * (plan.predicted_s / prev_s - 1), prev_desc.c_str(), prev_name(d.previous));
        if (dec.have_alternative && !dec.run_alternative) {
            std::printf("alternative %12s   %s (the live trial tries it too%s%s)\n",
                        format_time(dec.alternative.predicted_s).c_str(),
                        dec.alternative.description.c_str(),
                        dec.alternative_note.empty() ? "" : "; ", dec.alternative_note.c_str());
        }
        if (dec.have_peer && !dec.run_peer) {
            std::printf("peer        %12s   %s run by the executor (the live trial tries it too)\n",
                        format_time(dec.peer.predicted_s).c_str(), dec.peer.description.c_str());
        }
        std::printf("decision: %s%s\n", dec.run_plan ? "plan " : dec.run_alternative ? "alternative "
                                         : dec.run_peer ? "peer " : "",
                    dec.reason.c_str());
        if (as_is_priced >= 0) {
            std::printf("without %s: %s, predicted %s; with it %s\n",
                        a.has("burst") && a.has("one-call") ? "--burst and --one-call"
                        : a.has("one-call")                 ? "--one-call"
                                                            : "--burst",
                        as_is.description.c_str(), format_time(as_is.predicted_s).c_str(),
                        format_time(as_is_priced).c_str());
        }
        if (mc > 0) {
            std::printf("monte carlo %ld random trees: best %s, median %s (cloudaware %+.1f %% vs best; %.1f s, %ld on the fast path)\n",
                        mc, format_time(mc_best).c_str(), format_time(mc_median).c_str(),
                        100.0 * (plan.predicted_s / mc_best - 1), t_mc, mc_fast);
        }
        if (a.has("check")) {
            std::printf("check: %s\n", check_error.empty() ? "ok (complete, no deadlock)" : check_error.c_str());
        }
        std::printf("planning took %s\n", format_time(t_plan).c_str());
        std::printf("edges (level: from -> to, bytes, messages):\n");
        size_t shown = 0;
        for (const auto &e : edges) {
            if (shown++ >= 64) {
                std::printf("  ... %zu more edges\n", edges.size() - 64);
                break;
            }
            std::printf("  L%d: %d -> %d  %s in %d message%s\n", e.level, e.from, e.to,
                        format_bytes(e.bytes).c_str(), e.messages, e.messages == 1 ? "" : "s");
        }
        if (a.has("steps")) {
            std::fputs(format_steps(plan).c_str(), stdout);
        }
    }
    return check_error.empty() ? 0 : 1;
}

// The analysis of one trace directory; the matrix from --matrix, else the one the files name
// (when it can be read; a note says otherwise).
TraceAnalysis trace_analysis(const Args &a, const std::string &dir, TraceRun &run)
{
    run = read_trace_dir(dir);
    std::unique_ptr<Matrix> m;
    std::string note;
    if (a.has("matrix")) {
        m = std::make_unique<Matrix>(read_matrix_file(a.get("matrix")));
        note = "matrix: " + escape(a.get("matrix"));
    } else {
        for (const auto &r : run.ranks) {
            if (!r.matrix.empty()) {
                try {
                    m = std::make_unique<Matrix>(read_matrix_file(r.matrix));
                    note = "matrix: " + escape(r.matrix) + " (named in the trace)";
                } catch (const Error &e) {
                    note = std::string("matrix named in the trace not used: ") + e.what();
                }
                break;
            }
        }
    }
    TraceAnalysis an = analyse_trace(run, m.get());
    an.matrix_note = note;
    return an;
}

int cmd_trace(const Args &a)
{
    if (a.pos.empty() || a.pos.size() > 2) {
        usage_error("trace needs one or two trace directories");
    }
    const std::string fmt = a.get("format", "text");
    if (fmt != "text" && fmt != "json") {
        usage_error("--format must be text or json");
    }
    const long ncalls = parse_int(a.get("calls", "3"), "calls");
    TraceRun run, run2;
    TraceAnalysis an = trace_analysis(a, a.pos[0], run);
    if (a.pos.size() == 2) {
        TraceAnalysis an2 = trace_analysis(a, a.pos[1], run2);
        std::fputs(fmt == "json" ? format_trace_comparison_json(an, an2).c_str()
                                 : format_trace_comparison_text(an, an2).c_str(),
                   stdout);
    } else if (a.has("hints")) {
        std::fputs(format_trace_hints(an).c_str(), stdout);
    } else {
        std::fputs(fmt == "json" ? format_trace_json(an).c_str()
                                 : format_trace_text(an, static_cast<int>(ncalls)).c_str(),
                   stdout);
    }
    if (a.has("svg-timeline")) {
        const CallSummary *c = nullptr;
        if (a.has("svg-call")) {
            const long i = parse_int(a.get("svg-call"), "svg-call");
            if (i < 0 || i >= static_cast<long>(an.calls.size())) {
                usage_error("--svg-call: no call " + std::to_string(i) + " (the run has " +
                            std::to_string(an.calls.size()) + ")");
            }
            c = &an.calls[static_cast<size_t>(i)];
        } else {
            for (const auto &x : an.calls) {   // the slowest plan call
                if (!x.previous && (c == nullptr || x.duration > c->duration)) {
                    c = &x;
                }
            }
        }
        if (c == nullptr) {
            throw Error(CACORE_ERR_ARG, "--svg-timeline: the trace has no call run as a plan");
        }
        std::map<int, std::string> host_of;
        for (const auto &r : run.ranks) {
            host_of[r.rank] = r.host;
        }
        std::ofstream f(a.get("svg-timeline"));
        f << cloudaware_plan::trace_timeline_svg(*c, host_of);
        if (!f.flush()) {
            throw Error(CACORE_ERR_IO, escape(a.get("svg-timeline")) + ": cannot write");
        }
    }
    if (a.has("svg-links")) {
        std::vector<std::string> hosts;
        cloudaware_plan::write_trace_link_heatmap(an, a.get("svg-links"), hosts);
        if (fmt == "text") {
            std::printf("link heatmap %s: rows and columns", escape(a.get("svg-links")).c_str());
            for (const auto &h : hosts) {
                std::printf(" %s", escape(h).c_str());
            }
            std::printf("\n");
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv)
{
    Args a = parse_args(argc, argv);
    try {
        if (a.cmd == "generate") {
            return cmd_generate(a);
        }
        if (a.cmd == "show") {
            return cmd_show(a);
        }
        if (a.cmd == "plan") {
            return cmd_plan(a);
        }
        if (a.cmd == "trace") {
            return cmd_trace(a);
        }
        usage_error("unknown command " + quote(a.cmd));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "cloudaware-plan: %s\n", e.what());
        return 1;
    }
}
