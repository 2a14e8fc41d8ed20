// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// trace_analysis.cpp - trace files (docs/trace-format.md) and their analysis (docs/monitoring.md).
#include "trace_analysis.hpp"

#include "error.hpp"
#include "escape.hpp"
#include "file_text.hpp"
#include "line_reader.hpp"
#include "median.hpp"
#include "names.hpp"
#include "units.hpp"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

namespace cacore {

namespace {

constexpr size_t kMaxTraceFileBytes = size_t(4) << 30;
constexpr int kMaxInt = 0x7fffffff;
const char *const kKindNames[] = {"send", "recv", "copy", "reduce"};
const char *const kModeNames[] = {"blocking", "nonblocking", "persistent"};

const char *kind_name(int k) { return k >= 0 && k < 4 ? kKindNames[k] : nullptr; }
const char *mode_name(int m) { return m >= 0 && m < 3 ? kModeNames[m] : nullptr; }

// The fields of one record: "KEY VALUE" pairs after the record's own number.
class Fields {
public:
    Fields(const LineReader &r, const std::vector<std::string_view> &t, size_t from) : r_(r)
    {
        if ((t.size() - from) % 2 != 0) {
            r.error("record " + quote(t[0]) + ": fields must be KEY VALUE pairs");
        }
        for (size_t i = from; i + 1 < t.size(); i += 2) {
            kv_.emplace_back(t[i], t[i + 1]);
        }
    }
    std::string_view get(const char *key) const
    {
        for (const auto &p : kv_) {
            if (p.first == key) {
                return p.second;
            }
        }
        r_.error(std::string("missing field '") + key + "'");
    }
    bool has(const char *key) const
    {
        for (const auto &p : kv_) {
            if (p.first == key) {
                return true;
            }
        }
        return false;
    }
    double num(const char *key, double lo = 0) const
    {
        std::string s(get(key));
        char *end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0' || !std::isfinite(v) || v < lo) {
            r_.error(std::string("field '") + key + "': " + quote(s) + " is not a number >= " +
                     std::to_string(static_cast<long long>(lo)));
        }
        return v;
    }
    int64_t integer(const char *key, int64_t lo = 0, int64_t hi = int64_t(1) << 53) const
    {
        std::string s(get(key));
        char *end = nullptr;
        errno = 0;
        long long v = std::strtoll(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0' || errno != 0 || v < lo || v > hi) {
            r_.error(std::string("field '") + key + "': " + quote(s) + " is not an integer from " +
                     std::to_string(static_cast<long long>(lo)) + " to " +
                     std::to_string(static_cast<long long>(hi)));
        }
        return v;
    }
    // A value that fits an int (ranks, ids, rounds).
    int small(const char *key, int lo = 0, int hi = kMaxInt) const
    {
        return static_cast<int>(integer(key, lo, hi));
    }
    int name(const char *key, const char *(*table)(int)) const
    {
        int i = find_name(table, get(key));
        if (i < 0) {
            r_.error(std::string("field '") + key + "': " + quote(get(key)) + " is not one of " +
                     name_list(table));
        }
        return i;
    }

private:
    const LineReader &r_;
    std::vector<std::pair<std::string_view, std::string_view>> kv_;
};

int64_t record_number(const LineReader &r, const std::vector<std::string_view> &t,
                      int64_t hi = int64_t(1) << 53)
{
    if (t.size() < 2) {
        r.error("record " + quote(t[0]) + " without its number");
    }
    std::string s(t[1]);
    char *end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || v < 0 || v > hi) {
        r.error("record " + quote(t[0]) + ": " + quote(s) + " is not a number from 0 to " +
                std::to_string(static_cast<long long>(hi)));
    }
    return v;
}

// The rest of a line after its first n tokens (plan descriptions and paths keep their spaces).
std::string rest_of_line(std::string_view line, int n)
{
    size_t i = 0;
    for (int k = 0; k < n; ++k) {
        while (i < line.size() && is_blank(line[i])) {
            ++i;
        }
        while (i < line.size() && !is_blank(line[i])) {
            ++i;
        }
    }
    while (i < line.size() && is_blank(line[i])) {
        ++i;
    }
    size_t e = line.size();
    while (e > i && is_blank(line[e - 1])) {
        --e;
    }
    return std::string(line.substr(i, e - i));
}

}  // namespace

RankTrace parse_rank_trace(std::string_view text, const std::string &name)
{
    RankTrace t;
    t.name = name;
    LineReader r(text, name);
    std::vector<std::string_view> tok;
    std::string_view line;
    if (!r.next_line(line)) {
        r.eof_error("'cloudaware-trace 1'");
    }
    LineReader::tokenize(line, tok);
    if (tok.size() != 2 || tok[0] != "cloudaware-trace" || tok[1] != "1") {
        r.error("not a trace file of format 1 (expected 'cloudaware-trace 1')");
    }
    bool have_rank = false, have_clock = false;
    std::map<int64_t, std::vector<TraceStep>> steps;
    std::set<int64_t> call_ids;
    std::map<int, int64_t> comm_line;   // for messages: where each comm was defined
    while (r.next_line(line)) {
        LineReader::tokenize(line, tok);
        const std::string_view what = tok[0];
        if (what == "rank") {
            Fields f(r, tok, 0);
            t.rank = f.small("rank");
            t.size = f.small("size", 1);
            t.job = std::string(f.get("job"));
            t.host = std::string(f.get("host"));
            if (t.rank >= t.size) {
                r.error("rank " + std::to_string(t.rank) + " is not below size " +
                        std::to_string(t.size));
            }
            have_rank = true;
        } else if (what == "clock") {
            Fields f(r, tok, 1);
            t.realtime = f.num("realtime");
            have_clock = true;
        } else if (what == "matrix") {
            t.matrix = rest_of_line(line, 1);
        } else if (what == "comm") {
            int id = static_cast<int>(record_number(r, tok, kMaxInt));
            if (t.comms.count(id)) {
                r.error("communicator " + std::to_string(id) + " defined twice");
            }
            TraceComm c;
            if (tok.size() < 6 || tok[2] != "cid" || tok[4] != "size") {
                r.error("expected 'comm N cid CID size S ranks W...' or '... inter'");
            }
            std::vector<std::string_view> head(tok.begin(), tok.begin() + 6);
            Fields hf(r, head, 2);
            c.cid = static_cast<unsigned>(hf.integer("cid", 0, 0xffffffffLL));
            c.size = hf.small("size", 1);
            if (tok.size() == 7 && tok[6] == "inter") {
                c.inter = true;
            } else {
                if (tok.size() < 7 || tok[6] != "ranks" ||
                    tok.size() - 7 != static_cast<size_t>(c.size)) {
                    r.error("communicator " + std::to_string(id) + ": expected 'ranks' and " +
                            std::to_string(c.size) + " world ranks");
                }
                for (size_t i = 7; i < tok.size(); ++i) {
                    std::string s(tok[i]);
                    char *end = nullptr;
                    long v = std::strtol(s.c_str(), &end, 10);
                    if (s.empty() || *end != '\0' || v < 0 || v > (1L << 30)) {
                        r.error("communicator " + std::to_string(id) + ": " + quote(s) +
                                " is not a world rank");
                    }
                    c.ranks.push_back(static_cast<int>(v));
                }
            }
            t.comms[id] = std::move(c);
        } else if (what == "plan") {
            int id = static_cast<int>(record_number(r, tok, kMaxInt));
            t.plans[id] = rest_of_line(line, 2);
        } else if (what == "step") {
            int64_t call = record_number(r, tok);
            Fields f(r, tok, 2);
            TraceStep s;
            s.round = f.small("round");
            s.kind = f.name("kind", kind_name);
            s.level = f.small("level", 0, 255);
            s.peer = f.small("peer", -1);
            s.bytes = static_cast<uint64_t>(f.integer("bytes"));
            s.post = f.num("post");
            s.done = f.num("done");
            s.wait = f.num("wait");
            if (s.done < s.post) {
                r.error("step done before it was posted");
            }
            if ((s.kind == kTraceSend || s.kind == kTraceRecv) && s.peer < 0) {
                r.error("a send or receive step without a peer");
            }
            if (call_ids.count(call)) {
                r.error("step of call " + std::to_string(call) + " after the call's record");
            }
            steps[call].push_back(s);
        } else if (what == "call" || what == "previous") {
            TraceCall c;
            c.id = record_number(r, tok);
            Fields f(r, tok, 2);
            c.previous = what == "previous";
            c.comm = f.small("comm");
            c.seq = f.integer("seq");
            c.coll = f.name("op", coll_name);
            c.mode = f.name("mode", mode_name);
            c.root = f.small("root", -1);
            c.bytes = static_cast<uint64_t>(f.integer("bytes"));
            c.start = f.num("start");
            c.end = f.num("end");
            if (c.end < c.start) {
                r.error("call ends before it starts");
            }
            if (!c.previous) {
                c.plan = f.small("plan", -1);
                c.predicted = f.num("predicted");
                std::string_view st = f.get("status");
                if (st != "ok" && st != "error") {
                    r.error("field 'status': " + quote(st) + " is not ok or error");
                }
                c.ok = st == "ok";
            }
            if (!call_ids.insert(c.id).second) {
                r.error("call " + std::to_string(c.id) + " recorded twice");
            }
            if (!t.comms.count(c.comm)) {
                r.error("call " + std::to_string(c.id) + " on communicator " +
                        std::to_string(c.comm) + ", which no 'comm' record defined before");
            }
            if (c.plan >= 0 && !t.plans.count(c.plan)) {
                r.error("call " + std::to_string(c.id) + " runs plan " + std::to_string(c.plan) +
                        ", which no 'plan' record defined before");
            }
            auto it = steps.find(c.id);
            if (it != steps.end()) {
                if (c.previous) {
                    r.error("steps of call " + std::to_string(c.id) +
                            ", which the previous module ran");
                }
                c.steps = std::move(it->second);
                steps.erase(it);
                const TraceComm &cm = t.comms[c.comm];
                for (const auto &s : c.steps) {
                    if (s.peer >= cm.size) {
                        r.error("call " + std::to_string(c.id) + ": peer " +
                                std::to_string(s.peer) + " outside its communicator of " +
                                std::to_string(cm.size));
                    }
                }
                std::stable_sort(c.steps.begin(), c.steps.end(),
                                 [](const TraceStep &a, const TraceStep &b) {
                                     return a.round != b.round ? a.round < b.round
                                                               : a.post < b.post;
                                 });
            }
            t.calls.push_back(std::move(c));
        } else {
            r.error("unknown record " + quote(what));
        }
        if (!have_rank && what != "rank") {
            r.error("the 'rank' record must come first");
        }
    }
    if (!r.ends_with_newline()) {
        r.error("the last line is cut (truncated file?)");
    }
    if (!have_rank || !have_clock) {
        r.eof_error(have_rank ? "a 'clock' record" : "a 'rank' record");
    }
    if (!steps.empty()) {
        r.error("steps of call " + std::to_string(steps.begin()->first) +
                ", which has no 'call' record");
    }
    return t;
}

TraceRun read_trace_dir(const std::string &dir, const std::string &job)
{
    DIR *d = opendir(dir.c_str());
    if (d == nullptr) {
        throw Error(CACORE_ERR_IO, escape(dir) + ": cannot open the trace directory");
    }
    std::vector<std::string> names;
    while (dirent *e = readdir(d)) {
        std::string n = e->d_name;
        if (n.rfind("rank-", 0) == 0 && n.size() > 11 && n.compare(n.size() - 6, 6, ".trace") == 0) {
            names.push_back(n);
        }
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    std::map<std::string, std::vector<RankTrace>> jobs;
    for (const auto &n : names) {
        const std::string path = dir + "/" + n;
        FileText f = read_file_text(path, kMaxTraceFileBytes, "trace");
        RankTrace t = parse_rank_trace(f.view(), path);
        jobs[t.job].push_back(std::move(t));
    }
    if (jobs.empty()) {
        throw Error(CACORE_ERR_IO, escape(dir) + ": no trace files (rank-N.trace)");
    }
    std::string which = job;
    if (which.empty()) {
        if (jobs.size() > 1) {
            std::string list;
            for (const auto &j : jobs) {
                list += (list.empty() ? "" : ", ") + escape(j.first) + " (" +
                        std::to_string(j.second.size()) + " files)";
            }
            throw Error(CACORE_ERR_FORMAT, escape(dir) + ": traces of several jobs: " + list +
                                               "; use one directory per job");
        }
        which = jobs.begin()->first;
    } else if (!jobs.count(which)) {
        throw Error(CACORE_ERR_IO, escape(dir) + ": no trace file of job " + escape(which));
    }
    TraceRun run;
    run.dir = dir;
    run.job = which;
    auto &v = jobs[which];
    std::sort(v.begin(), v.end(), [](const RankTrace &a, const RankTrace &b) { return a.rank < b.rank; });
    run.size = v.front().size;
    for (size_t i = 0; i < v.size(); ++i) {
        if (v[i].size != run.size) {
            throw Error(CACORE_ERR_FORMAT, escape(v[i].name) + ": world size " +
                                               std::to_string(v[i].size) + ", but " +
                                               escape(v.front().name) + " says " +
                                               std::to_string(run.size));
        }
        if (i > 0 && v[i].rank == v[i - 1].rank) {
            throw Error(CACORE_ERR_FORMAT, escape(v[i].name) + ": rank " +
                                               std::to_string(v[i].rank) + " has two files");
        }
    }
    std::set<int> have;
    for (const auto &t : v) {
        have.insert(t.rank);
    }
    for (int r = 0; r < run.size; ++r) {
        if (!have.count(r)) {
            run.missing.push_back(r);
        }
    }
    run.ranks = std::move(v);
    return run;
}

int trace_size_class(uint64_t bytes)
{
    int c = 0;
    while (bytes > 1) {
        bytes >>= 1;
        ++c;
    }
    return c;
}

namespace {

std::string pct(double f)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f %%", 100 * f);
    return buf;
}

}  // namespace

std::string trace_class_label(int size_class)
{
    return format_bytes(std::ldexp(1.0, size_class)) + "-" + format_bytes(std::ldexp(1.0, size_class + 1));
}

namespace {

// One rank's part of one collective call, in aligned time.
struct Part {
    const RankTrace *rt = nullptr;
    const TraceCall *call = nullptr;
    const TraceComm *comm = nullptr;
    double offset = 0;   // add to the file's times
};

// A collective call across ranks: its parts by world rank.
struct Collective {
    std::map<int, Part> parts;
    double start = 0;
};

std::string comm_identity(const TraceComm &c)
{
    std::string k = std::to_string(c.cid) + (c.inter ? "i" : ":") + std::to_string(c.size);
    for (int r : c.ranks) {
        k += "," + std::to_string(r);
    }
    return k;
}

// Calls of all ranks grouped into collectives: a communicator is known by its cid and world
// ranks, and which of the communicators with that identity it is (in the order each rank met
// them: every member meets the same ones); a call by its number on it.
std::vector<Collective> group_calls(const TraceRun &run)
{
    double t0 = INFINITY;
    for (const auto &rt : run.ranks) {
        t0 = std::min(t0, rt.realtime);
    }
    std::map<std::string, Collective> by_key;
    for (const auto &rt : run.ranks) {
        std::map<int, std::string> comm_key;
        std::map<std::string, int> seen;
        for (const auto &c : rt.comms) {
            std::string id = comm_identity(c.second);
            comm_key[c.first] = id + "#" + std::to_string(seen[id]++);
        }
        for (const auto &call : rt.calls) {
            Part p;
            p.rt = &rt;
            p.call = &call;
            p.comm = &rt.comms.at(call.comm);
            p.offset = rt.realtime - t0;
            Collective &col = by_key[comm_key[call.comm] + "/" + std::to_string(call.seq)];
            col.parts[rt.rank] = p;
        }
    }
    std::vector<Collective> out;
    for (auto &kv : by_key) {
        double s = INFINITY;
        for (const auto &p : kv.second.parts) {
            s = std::min(s, p.second.call->start + p.second.offset);
        }
        kv.second.start = s;
        out.push_back(std::move(kv.second));
    }
    std::sort(out.begin(), out.end(),
              [](const Collective &a, const Collective &b) { return a.start < b.start; });
    return out;
}

struct StepRef {
    int rank = 0;
    const TraceStep *step = nullptr;
    double offset = 0;
    double post() const { return step->post + offset; }
    double done() const { return step->done + offset; }
};

// The world rank of a communicator rank, or -1.
int world_of(const Part &p, int peer)
{
    return (peer >= 0 && static_cast<size_t>(peer) < p.comm->ranks.size()) ? p.comm->ranks[peer]
                                                                             : -1;
}

// Matched messages of a collective: for every (sender, receiver) the k-th send with the k-th
// receive (messages match in posting order on one tag).
struct Message {
    StepRef send, recv;
};

void match_messages(const Collective &col,
                    std::map<std::pair<int, const TraceStep *>, const Message *> &index,
                    std::vector<Message> &storage, int64_t &unmatched)
{
    std::map<std::pair<int, int>, std::vector<StepRef>> sends, recvs;
    for (const auto &pp : col.parts) {
        const Part &p = pp.second;
        for (const auto &s : p.call->steps) {
            int q = world_of(p, s.peer);
            if (q < 0) {
                continue;
            }
            StepRef ref{pp.first, &s, p.offset};
            if (s.kind == kTraceSend) {
                sends[{pp.first, q}].push_back(ref);
            } else if (s.kind == kTraceRecv) {
                recvs[{q, pp.first}].push_back(ref);
            }
        }
    }
    storage.clear();
    for (const auto &kv : sends) {
        auto it = recvs.find(kv.first);
        const size_t nr = it == recvs.end() ? 0 : it->second.size();
        const size_t n = std::min(kv.second.size(), nr);
        for (size_t i = 0; i < n; ++i) {
            storage.push_back(Message{kv.second[i], it->second[i]});
        }
        unmatched += static_cast<int64_t>(kv.second.size() - n);
    }
    for (const auto &kv : recvs) {
        auto it = sends.find(kv.first);
        const size_t ns = it == sends.end() ? 0 : it->second.size();
        unmatched += static_cast<int64_t>(kv.second.size() - std::min(ns, kv.second.size()));
    }
    index.clear();
    for (const auto &m : storage) {
        index[{m.send.rank, m.send.step}] = &m;
        index[{m.recv.rank, m.recv.step}] = &m;
    }
}

int host_index(const Matrix &m, const std::string &host)
{
    const auto &h = m.hosts();
    auto it = std::find(h.begin(), h.end(), host);
    return it == h.end() ? -1 : static_cast<int>(it - h.begin());
}

// One call's traffic over one link (kBulkLinkBytes or more).
struct BulkCall {
    int call;               // CallSummary::index
    double bytes, seconds;
};

// The link's early rate (median of its first third of bulk calls) and its slowest window of
// kLinkDropCalls bulk calls in a row after them (their median): s.early_rate, s.drop_rate,
// s.drop_ratio, s.drop_call and s.drop_lost_s. Needs at least 2 * kLinkDropCalls bulk calls.
void find_drop(const std::vector<BulkCall> &calls, LinkSummary &s)
{
    const size_t n = calls.size(), w = static_cast<size_t>(kLinkDropCalls);
    if (n < 2 * w) {
        return;
    }
    std::vector<double> rate;
    for (const auto &c : calls) {
        rate.push_back(c.bytes / c.seconds);
    }
    const size_t early_n = std::max(w, n / 3);
    s.early_rate = median(std::vector<double>(rate.begin(), rate.begin() + early_n));
    if (!(s.early_rate > 0)) {
        return;
    }
    for (size_t i = early_n; i + w <= n; ++i) {
        double lost = 0;
        for (size_t k = i; k < i + w; ++k) {
            lost += calls[k].seconds - calls[k].bytes / s.early_rate;
        }
        // The slowest window; of windows as slow, the one that lost the most time.
        const double win = median(std::vector<double>(rate.begin() + i, rate.begin() + i + w));
        const double r = win / s.early_rate;
        if (r < s.drop_ratio - 1e-9 || (r < s.drop_ratio + 1e-9 && lost > s.drop_lost_s)) {
            s.drop_ratio = r;
            s.drop_rate = win;
            s.drop_lost_s = lost;
            s.drop_call = calls[i].call;
            for (size_t k = i; k < i + w; ++k) {   // from its first slow call
                if (rate[k] < kLinkDropRatio * s.early_rate) {
                    s.drop_call = calls[k].call;
                    break;
                }
            }
        }
    }
}

}  // namespace

TraceAnalysis analyse_trace(const TraceRun &run, const Matrix *m)
{
    TraceAnalysis a;
    a.dir = run.dir;
    a.job = run.job;
    a.size = run.size;
    a.ranks_read = static_cast<int>(run.ranks.size());
    a.missing = run.missing;
    a.have_matrix = m != nullptr;
    std::map<int, std::string> host_of;
    for (const auto &rt : run.ranks) {
        host_of[rt.rank] = rt.host;
    }
    std::vector<Collective> cols = group_calls(run);

    struct Traffic {
        int messages = 0;
        double bytes = 0, seconds = 0, predicted = 0;
    };
    struct LinkAcc {
        Traffic total;
        std::vector<BulkCall> bulk_calls;   // the calls that carried kBulkLinkBytes or more
    };
    std::map<std::pair<std::string, std::string>, LinkAcc> links;
    std::map<std::pair<int, int>, double> waits;
    std::map<int, std::vector<std::pair<double, double>>> busy;   // per rank: call intervals
    std::map<std::string, std::vector<double>> node_durations, node_arrivals;
    std::map<std::pair<int, bool>, std::map<int, std::vector<size_t>>> class_calls;
    std::vector<Message> storage;
    std::map<std::pair<int, const TraceStep *>, const Message *> index;

    for (size_t ci = 0; ci < cols.size(); ++ci) {
        const Collective &col = cols[ci];
        const Part &any = col.parts.begin()->second;
        CallSummary cs;
        cs.index = static_cast<int>(ci);
        cs.coll = any.call->coll;
        cs.mode = any.call->mode;
        cs.previous = any.call->previous;
        cs.bytes = any.call->bytes;
        cs.size_class = trace_size_class(cs.bytes);
        cs.predicted = any.call->predicted;
        if (cs.previous) {
            cs.plan = "previous module";
        } else {
            auto it = any.rt->plans.find(any.call->plan);
            cs.plan = it != any.rt->plans.end() ? it->second : "?";
        }
        double first_start = INFINITY, last_start = -INFINITY, first_end = INFINITY,
               last_end = -INFINITY;
        int last_rank = col.parts.begin()->first;
        for (const auto &pp : col.parts) {
            const Part &p = pp.second;
            double s = p.call->start + p.offset, e = p.call->end + p.offset;
            first_start = std::min(first_start, s);
            last_start = std::max(last_start, s);
            first_end = std::min(first_end, e);
            if (e > last_end) {
                last_end = e;
                last_rank = pp.first;
            }
            busy[pp.first].push_back({s, e});
        }
        if (!any.comm->inter && col.parts.size() != static_cast<size_t>(any.comm->size)) {
            a.incomplete++;
        }
        cs.start = first_start;
        cs.duration = last_end - first_start;
        cs.imbalance = last_start - first_start;
        match_messages(col, index, storage, a.unmatched);
        for (const auto &msg : storage) {
            a.messages++;
            a.size_mismatches += msg.send.step->bytes != msg.recv.step->bytes;
        }
        std::map<std::string, std::vector<double>> node_arr;
        for (const auto &pp : col.parts) {
            const Part &p = pp.second;
            RankInCall rc;
            rc.rank = pp.first;
            rc.start = p.call->start + p.offset;
            rc.end = p.call->end + p.offset;
            rc.arrival_wait = last_start - rc.start;
            rc.departure_wait = rc.end - first_end;
            rc.call = p.call;
            rc.offset = p.offset;
            for (const auto &s : p.call->steps) {
                int l = std::min(s.level, kTraceLevels - 1);
                if (s.kind == kTraceSend || s.kind == kTraceRecv) {
                    rc.wait += s.wait;
                    rc.level[l] += s.wait;
                    int q = world_of(p, s.peer);
                    if (q >= 0 && s.wait > 0) {
                        waits[{pp.first, q}] += s.wait;
                    }
                } else {
                    rc.level[l] += s.done - s.post;
                }
            }
            if (!cs.previous) {
                node_durations[host_of[pp.first]].push_back(rc.end - rc.start);
            }
            node_arr[host_of[pp.first]].push_back(rc.arrival_wait);
            cs.ranks.push_back(rc);
        }
        for (const auto &na : node_arr) {
            double sum = 0;
            for (double v : na.second) {
                sum += v;
            }
            node_arrivals[na.first].push_back(sum / na.second.size());
        }
        // Links: the time from when both sides had posted to the receive's completion; summed
        // per call, then into the run's totals.
        std::map<std::pair<std::string, std::string>, Traffic> in_call;
        for (const auto &msg : storage) {
            const std::string &hf = host_of[msg.send.rank], &ht = host_of[msg.recv.rank];
            double t = msg.recv.done() - std::max(msg.send.post(), msg.recv.post());
            if (hf == ht || !(t > 0)) {
                continue;
            }
            Traffic &tr = in_call[{hf, ht}];
            tr.messages++;
            tr.bytes += static_cast<double>(msg.recv.step->bytes);
            tr.seconds += t;
            if (m != nullptr) {
                int i = host_index(*m, hf), j = host_index(*m, ht);
                if (i >= 0 && j >= 0) {
                    tr.predicted += m->cost(i, j, static_cast<double>(msg.recv.step->bytes));
                }
            }
        }
        for (const auto &ic : in_call) {
            LinkAcc &la = links[ic.first];
            la.total.messages += ic.second.messages;
            la.total.bytes += ic.second.bytes;
            la.total.seconds += ic.second.seconds;
            la.total.predicted += ic.second.predicted;
            if (ic.second.bytes >= kBulkLinkBytes) {
                la.bulk_calls.push_back({cs.index, ic.second.bytes, ic.second.seconds});
            }
        }
        // Critical path: back from the last rank to finish, through what each rank waited for.
        if (!cs.previous) {
            int cur = last_rank;
            double t = last_end;
            for (int hop = 0; hop < 256; ++hop) {
                const Part &p = col.parts.at(cur);
                const TraceStep *best = nullptr;
                for (const auto &s : p.call->steps) {
                    if ((s.kind == kTraceSend || s.kind == kTraceRecv) && s.wait > 0 &&
                        s.done + p.offset <= t + 1e-12 &&
                        (best == nullptr || s.done > best->done)) {
                        best = &s;
                    }
                }
                auto it = best ? index.find({cur, best}) : index.end();
                if (it == index.end()) {
                    break;
                }
                const Message *msg = it->second;
                const StepRef &other = best->kind == kTraceRecv ? msg->send : msg->recv;
                if (!(other.post() < t)) {
                    break;
                }
                cs.critical_path.push_back(
                    PathHop{other.rank, cur, best->level, best->bytes, best->wait});
                cur = other.rank;
                t = other.post();
            }
            std::reverse(cs.critical_path.begin(), cs.critical_path.end());
            cs.first_rank = cur;
        }
        class_calls[{cs.coll, cs.previous}][cs.size_class].push_back(a.calls.size());
        a.calls.push_back(std::move(cs));
    }

    // Per (op, size class).
    for (const auto &ck : class_calls) {
        for (const auto &sc : ck.second) {
            ClassSummary c;
            c.coll = ck.first.first;
            c.previous = ck.first.second;
            c.size_class = sc.first;
            c.calls = static_cast<int>(sc.second.size());
            std::vector<double> d;
            std::map<std::string, int> plans;
            for (size_t i : sc.second) {
                const CallSummary &cs = a.calls[i];
                d.push_back(cs.duration);
                c.mean += cs.duration;
                c.max = std::max(c.max, cs.duration);
                c.predicted += cs.predicted;
                c.imbalance += cs.imbalance;
                plans[cs.plan]++;
                double w = 0;
                for (int l = 0; l < kTraceLevels; ++l) {
                    double mx = 0;
                    for (const auto &r : cs.ranks) {
                        mx = std::max(mx, r.level[l]);
                    }
                    c.level[l] += mx;
                }
                for (const auto &r : cs.ranks) {
                    w += r.wait;
                }
                c.wait += cs.ranks.empty() ? 0 : w / cs.ranks.size();
            }
            c.mean /= c.calls;
            c.predicted /= c.calls;
            c.imbalance /= c.calls;
            c.wait /= c.calls;
            for (double &l : c.level) {
                l /= c.calls;
            }
            c.median = median(d);
            c.plan = std::max_element(plans.begin(), plans.end(), [](const auto &x, const auto &y) {
                         return x.second < y.second;
                     })->first;
            a.classes.push_back(c);
        }
    }

    // Who waits on whom.
    for (const auto &w : waits) {
        a.waits.push_back(WaitPair{w.first.first, w.first.second, w.second});
        a.rank_waited[w.first.first] += w.second;
        a.rank_caused[w.first.second] += w.second;
    }
    std::sort(a.waits.begin(), a.waits.end(),
              [](const WaitPair &x, const WaitPair &y) { return x.seconds > y.seconds; });

    // Links, slowest first.
    for (const auto &l : links) {
        LinkSummary s;
        s.from = l.first.first;
        s.to = l.first.second;
        s.messages = l.second.total.messages;
        s.bytes = l.second.total.bytes;
        s.seconds = l.second.total.seconds;
        s.rate = s.bytes / s.seconds;
        s.predicted_rate = l.second.total.predicted > 0 ? s.bytes / l.second.total.predicted : 0;
        find_drop(l.second.bulk_calls, s);
        if (s.drop_ratio < kLinkDropRatio) {
            a.dropped.push_back(s);
        }
        a.links.push_back(s);
    }
    std::sort(a.dropped.begin(), a.dropped.end(), [](const LinkSummary &x, const LinkSummary &y) {
        return x.drop_lost_s > y.drop_lost_s;
    });
    // Pairs that carried less than kBulkLinkBytes come last: their few small messages time the
    // peers' arrival and the software, not the link.
    std::sort(a.links.begin(), a.links.end(), [](const LinkSummary &x, const LinkSummary &y) {
        if (is_bulk(x) != is_bulk(y)) {
            return is_bulk(x);
        }
        double kx = x.predicted_rate > 0 ? x.rate / x.predicted_rate : x.rate;
        double ky = y.predicted_rate > 0 ? y.rate / y.predicted_rate : y.rate;
        if ((x.predicted_rate > 0) != (y.predicted_rate > 0)) {
            return x.predicted_rate > 0;
        }
        return kx < ky;
    });

    // Nodes.
    std::map<std::string, NodeSummary> nodes;
    for (const auto &rt : run.ranks) {
        NodeSummary &n = nodes[rt.host];
        n.host = rt.host;
        n.ranks.push_back(rt.rank);
        n.waited += a.rank_waited.count(rt.rank) ? a.rank_waited[rt.rank] : 0;
        n.caused += a.rank_caused.count(rt.rank) ? a.rank_caused[rt.rank] : 0;
    }
    for (auto &n : nodes) {
        const auto &d = node_durations[n.first];
        const auto &ar = node_arrivals[n.first];
        for (double v : d) {
            n.second.mean_duration += v / d.size();
        }
        for (double v : ar) {
            n.second.arrival_wait += v / ar.size();
        }
        a.nodes.push_back(n.second);
    }
    // Nodes that behave alike: sorted by their ranks' mean time in a plan call, a new group
    // starts where the next node takes more than 15 % longer than the previous one.
    std::vector<const NodeSummary *> order;
    for (const auto &n : a.nodes) {
        if (n.mean_duration > 0) {
            order.push_back(&n);
        }
    }
    std::sort(order.begin(), order.end(), [](const NodeSummary *x, const NodeSummary *y) {
        return x->mean_duration < y->mean_duration;
    });
    for (size_t i = 0; i < order.size(); ++i) {
        if (i == 0 || order[i]->mean_duration > 1.15 * order[i - 1]->mean_duration) {
            a.alike.emplace_back();
        }
        a.alike.back().push_back(order[i]->host);
    }

    // Time in collectives: per rank, the union of its calls over its first start to last end.
    std::vector<double> fr;
    double g0 = INFINITY, g1 = -INFINITY;
    for (auto &b : busy) {
        auto &v = b.second;
        std::sort(v.begin(), v.end());
        double in = 0, cs = v.front().first, ce = v.front().second;
        for (const auto &iv : v) {
            if (iv.first > ce) {
                in += ce - cs;
                cs = iv.first;
            }
            ce = std::max(ce, iv.second);
        }
        in += ce - cs;
        double span = ce - v.front().first;
        g0 = std::min(g0, v.front().first);
        g1 = std::max(g1, ce);
        if (span > 0) {
            fr.push_back(in / span);
        }
    }
    if (!fr.empty()) {
        double s = 0;
        for (double f : fr) {
            s += f;
        }
        a.coll_fraction = s / fr.size();
        a.coll_fraction_min = *std::min_element(fr.begin(), fr.end());
        a.coll_fraction_max = *std::max_element(fr.begin(), fr.end());
    }
    a.span = g1 > g0 ? g1 - g0 : 0;
    return a;
}

namespace {

std::string coll_label(int coll, bool previous)
{
    return std::string(coll_name(coll)) + (previous ? " (previous)" : "");
}

std::string level_label(int l) { return level_name(l) ? level_name(l) : "?"; }

std::string host_label(const TraceAnalysis &a, int rank)
{
    for (const auto &n : a.nodes) {
        if (std::find(n.ranks.begin(), n.ranks.end(), rank) != n.ranks.end()) {
            return n.host;
        }
    }
    return "?";
}

std::string json_str(const std::string &s)
{
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += static_cast<char>(c);
        } else if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += static_cast<char>(c);
        }
    }
    return o + "\"";
}

std::string num(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.9g", std::isfinite(v) ? v : 0.0);
    return b;
}

const CallSummary *slowest_rank_call(const TraceAnalysis &a, int rank, double &worst)
{
    const CallSummary *c = nullptr;
    worst = -1;
    for (const auto &cs : a.calls) {
        for (const auto &r : cs.ranks) {
            if (r.rank == rank && r.arrival_wait > worst) {
                worst = r.arrival_wait;
                c = &cs;
            }
        }
    }
    return c;
}

}  // namespace

std::string format_trace_text(const TraceAnalysis &a, int ncalls)
{
    std::ostringstream o;
    char b[512];
    o << "trace " << escape(a.dir) << ": job " << escape(a.job) << ", " << a.ranks_read << " of "
      << a.size << " ranks, " << a.calls.size() << " collective calls over " << format_time(a.span)
      << "\n";
    if (!a.missing.empty()) {
        o << "missing rank files: " << a.missing.size() << " (first: rank " << a.missing.front()
          << ")\n";
    }
    if (!a.matrix_note.empty()) {
        o << a.matrix_note << "\n";
    }
    o << "time in collectives: " << pct(a.coll_fraction) << " of each rank's traced span (min "
      << pct(a.coll_fraction_min) << ", max " << pct(a.coll_fraction_max) << ")\n";
    o << "messages: " << a.messages << " sends matched with their receives, " << a.unmatched
      << " unmatched steps, " << a.size_mismatches << " with different sizes\n";
    o << "calls: " << a.calls.size() << ", " << a.incomplete
      << " of them not recorded by every member of their communicator\n\n";
    o << "per (op, size class): time per call, its stages (max over ranks) and waits\n";
    std::snprintf(b, sizeof b, "  %-22s %-21s %5s %11s %11s %11s %11s %11s %11s %11s %11s\n", "op",
                  "size", "calls", "mean", "median", "predicted", "node", "group", "top",
                  "arrival", "wait/rank");
    o << b;
    for (const auto &c : a.classes) {
        std::snprintf(b, sizeof b, "  %-22s %-21s %5d %11s %11s %11s %11s %11s %11s %11s %11s\n",
                      coll_label(c.coll, c.previous).c_str(), trace_class_label(c.size_class).c_str(),
                      c.calls, format_time(c.mean).c_str(), format_time(c.median).c_str(),
                      c.previous ? "-" : format_time(c.predicted).c_str(),
                      format_time(c.level[0]).c_str(), format_time(c.level[1]).c_str(),
                      format_time(c.level[2]).c_str(), format_time(c.imbalance).c_str(),
                      format_time(c.wait).c_str());
        o << b;
        if (!c.previous) {
            o << "      plan: " << escape(c.plan) << "\n";
        }
    }
    o << "\nwho waits on whom (blocked time on messages, all calls)\n";
    for (size_t i = 0; i < a.waits.size() && i < 10; ++i) {
        const WaitPair &w = a.waits[i];
        std::snprintf(b, sizeof b, "  rank %d (%s) waited %s on rank %d (%s)\n", w.waiter,
                      escape(host_label(a, w.waiter)).c_str(), format_time(w.seconds).c_str(),
                      w.culprit, escape(host_label(a, w.culprit)).c_str());
        o << b;
    }
    if (a.waits.empty()) {
        o << "  (no waits recorded)\n";
    }
    o << "\nnodes: ranks, mean time per plan call, arrival wait per call, waited, made others wait\n";
    for (const auto &n : a.nodes) {
        std::snprintf(b, sizeof b, "  %-24s %3zu %11s %11s %11s %11s\n", escape(n.host).c_str(),
                      n.ranks.size(), format_time(n.mean_duration).c_str(),
                      format_time(n.arrival_wait).c_str(), format_time(n.waited).c_str(),
                      format_time(n.caused).c_str());
        o << b;
    }
    o << "nodes that behave alike (mean time per plan call within 15 %):";
    for (const auto &g : a.alike) {
        o << " {";
        for (size_t i = 0; i < g.size(); ++i) {
            o << (i ? " " : "") << escape(g[i]);
        }
        o << "}";
    }
    o << "\n\nslowest links (node pairs; achieved rate";
    o << (a.have_matrix ? " against the matrix)\n" : ")\n");
    for (size_t i = 0; i < a.links.size() && i < 10; ++i) {
        const LinkSummary &l = a.links[i];
        std::snprintf(b, sizeof b, "  %s -> %s: %s over %d messages (%s)", escape(l.from).c_str(),
                      escape(l.to).c_str(), format_rate(l.rate).c_str(), l.messages,
                      format_bytes(l.bytes).c_str());
        o << b;
        if (l.predicted_rate > 0) {
            o << ", matrix " << format_rate(l.predicted_rate) << " (" << pct(l.rate / l.predicted_rate)
              << ")";
        }
        o << "\n";
    }
    if (a.links.empty()) {
        o << "  (no messages between nodes)\n";
    }
    if (!a.dropped.empty()) {
        o << "\nlinks whose rate dropped during the run (first third of their calls -> slowest "
          << kLinkDropCalls << " calls in a row)\n";
        for (const auto &l : a.dropped) {
            std::snprintf(b, sizeof b, "  %s -> %s: %s -> %s from call %d (%s), %s longer\n",
                          escape(l.from).c_str(), escape(l.to).c_str(),
                          format_rate(l.early_rate).c_str(), format_rate(l.drop_rate).c_str(),
                          l.drop_call, pct(l.drop_ratio).c_str(),
                          format_time(l.drop_lost_s).c_str());
            o << b;
        }
    }
    std::vector<const CallSummary *> slow;
    for (const auto &c : a.calls) {
        if (!c.previous) {
            slow.push_back(&c);
        }
    }
    std::sort(slow.begin(), slow.end(), [](const CallSummary *x, const CallSummary *y) {
        return x->duration > y->duration;
    });
    if (ncalls > 0 && !slow.empty()) {
        o << "\nslowest plan calls\n";
    }
    for (int i = 0; i < ncalls && i < static_cast<int>(slow.size()); ++i) {
        const CallSummary &c = *slow[i];
        std::snprintf(b, sizeof b, "  call %d: %s %s %s, %s (predicted %s), arrival spread %s\n",
                      c.index, kModeNames[c.mode % 3], coll_name(c.coll), format_bytes(c.bytes).c_str(),
                      format_time(c.duration).c_str(), format_time(c.predicted).c_str(),
                      format_time(c.imbalance).c_str());
        o << b;
        o << "    critical path: rank " << c.first_rank << " arrives";
        for (const auto &h : c.critical_path) {
            o << " -> rank " << h.to << " (" << level_label(std::min(h.level, 2)) << ", "
              << format_bytes(h.bytes) << ", waited " << format_time(h.wait) << ")";
        }
        o << "\n";
    }
    return o.str();
}

std::string format_trace_json(const TraceAnalysis &a)
{
    std::ostringstream o;
    o << "{\"dir\":" << json_str(a.dir) << ",\"job\":" << json_str(a.job) << ",\"size\":" << a.size
      << ",\"ranks_read\":" << a.ranks_read << ",\"missing\":[";
    for (size_t i = 0; i < a.missing.size(); ++i) {
        o << (i ? "," : "") << a.missing[i];
    }
    o << "],\"have_matrix\":" << (a.have_matrix ? "true" : "false")
      << ",\"span_s\":" << num(a.span) << ",\"coll_fraction\":" << num(a.coll_fraction)
      << ",\"coll_fraction_min\":" << num(a.coll_fraction_min)
      << ",\"coll_fraction_max\":" << num(a.coll_fraction_max) << ",\"messages\":" << a.messages
      << ",\"unmatched\":" << a.unmatched << ",\"size_mismatches\":" << a.size_mismatches
      << ",\"incomplete_calls\":" << a.incomplete
      << ",\"classes\":[";
    for (size_t i = 0; i < a.classes.size(); ++i) {
        const ClassSummary &c = a.classes[i];
        o << (i ? "," : "") << "{\"op\":" << json_str(coll_name(c.coll))
          << ",\"previous\":" << (c.previous ? "true" : "false") << ",\"size_class\":" << c.size_class
          << ",\"plan\":" << json_str(c.plan) << ",\"calls\":" << c.calls << ",\"mean_s\":" << num(c.mean)
          << ",\"median_s\":" << num(c.median) << ",\"max_s\":" << num(c.max)
          << ",\"predicted_s\":" << num(c.predicted) << ",\"arrival_spread_s\":" << num(c.imbalance)
          << ",\"wait_per_rank_s\":" << num(c.wait) << ",\"levels_s\":[" << num(c.level[0]) << ","
          << num(c.level[1]) << "," << num(c.level[2]) << "]}";
    }
    o << "],\"calls\":[";
    for (size_t i = 0; i < a.calls.size(); ++i) {
        const CallSummary &c = a.calls[i];
        o << (i ? "," : "") << "{\"index\":" << c.index << ",\"op\":" << json_str(coll_name(c.coll))
          << ",\"mode\":" << json_str(kModeNames[c.mode % 3])
          << ",\"previous\":" << (c.previous ? "true" : "false") << ",\"bytes\":" << c.bytes
          << ",\"plan\":" << json_str(c.plan) << ",\"predicted_s\":" << num(c.predicted)
          << ",\"start_s\":" << num(c.start) << ",\"duration_s\":" << num(c.duration)
          << ",\"arrival_spread_s\":" << num(c.imbalance) << ",\"ranks\":[";
        for (size_t j = 0; j < c.ranks.size(); ++j) {
            const RankInCall &r = c.ranks[j];
            o << (j ? "," : "") << "{\"rank\":" << r.rank << ",\"start_s\":" << num(r.start)
              << ",\"end_s\":" << num(r.end) << ",\"arrival_wait_s\":" << num(r.arrival_wait)
              << ",\"departure_wait_s\":" << num(r.departure_wait) << ",\"wait_s\":" << num(r.wait)
              << ",\"levels_s\":[" << num(r.level[0]) << "," << num(r.level[1]) << ","
              << num(r.level[2]) << "]}";
        }
        o << "],\"critical_path\":{\"first_rank\":" << c.first_rank << ",\"hops\":[";
        for (size_t j = 0; j < c.critical_path.size(); ++j) {
            const PathHop &h = c.critical_path[j];
            o << (j ? "," : "") << "{\"from\":" << h.from << ",\"to\":" << h.to
              << ",\"level\":" << h.level << ",\"bytes\":" << h.bytes << ",\"wait_s\":" << num(h.wait)
              << "}";
        }
        o << "]}}";
    }
    o << "],\"waits\":[";
    for (size_t i = 0; i < a.waits.size(); ++i) {
        o << (i ? "," : "") << "{\"waiter\":" << a.waits[i].waiter
          << ",\"culprit\":" << a.waits[i].culprit << ",\"seconds\":" << num(a.waits[i].seconds)
          << "}";
    }
    o << "],\"links\":[";
    for (size_t i = 0; i < a.links.size(); ++i) {
        const LinkSummary &l = a.links[i];
        o << (i ? "," : "") << "{\"from\":" << json_str(l.from) << ",\"to\":" << json_str(l.to)
          << ",\"messages\":" << l.messages << ",\"bytes\":" << num(l.bytes)
          << ",\"seconds\":" << num(l.seconds) << ",\"rate_Bps\":" << num(l.rate)
          << ",\"predicted_rate_Bps\":" << num(l.predicted_rate) << "}";
    }
    o << "],\"dropped\":[";
    for (size_t i = 0; i < a.dropped.size(); ++i) {
        const LinkSummary &l = a.dropped[i];
        o << (i ? "," : "") << "{\"from\":" << json_str(l.from) << ",\"to\":" << json_str(l.to)
          << ",\"early_rate_Bps\":" << num(l.early_rate) << ",\"drop_rate_Bps\":"
          << num(l.drop_rate) << ",\"drop_call\":" << l.drop_call << ",\"lost_s\":"
          << num(l.drop_lost_s) << "}";
    }
    o << "],\"nodes\":[";
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        const NodeSummary &n = a.nodes[i];
        o << (i ? "," : "") << "{\"host\":" << json_str(n.host) << ",\"ranks\":[";
        for (size_t j = 0; j < n.ranks.size(); ++j) {
            o << (j ? "," : "") << n.ranks[j];
        }
        o << "],\"mean_duration_s\":" << num(n.mean_duration)
          << ",\"arrival_wait_s\":" << num(n.arrival_wait) << ",\"waited_s\":" << num(n.waited)
          << ",\"caused_s\":" << num(n.caused) << "}";
    }
    o << "],\"alike\":[";
    for (size_t i = 0; i < a.alike.size(); ++i) {
        o << (i ? "," : "") << "[";
        for (size_t j = 0; j < a.alike[i].size(); ++j) {
            o << (j ? "," : "") << json_str(a.alike[i][j]);
        }
        o << "]";
    }
    o << "]}\n";
    return o.str();
}

namespace {

struct ClassKey {
    int coll;
    bool previous;
    int size_class;
    bool operator<(const ClassKey &o) const
    {
        return std::tie(coll, previous, size_class) < std::tie(o.coll, o.previous, o.size_class);
    }
};

std::map<ClassKey, const ClassSummary *> by_class(const TraceAnalysis &a)
{
    std::map<ClassKey, const ClassSummary *> m;
    for (const auto &c : a.classes) {
        m[{c.coll, c.previous, c.size_class}] = &c;
    }
    return m;
}

// The classes of either run.
std::set<ClassKey> class_keys(const std::map<ClassKey, const ClassSummary *> &a,
                              const std::map<ClassKey, const ClassSummary *> &b)
{
    std::set<ClassKey> keys;
    for (const auto &k : a) {
        keys.insert(k.first);
    }
    for (const auto &k : b) {
        keys.insert(k.first);
    }
    return keys;
}

}  // namespace

std::string format_trace_comparison_text(const TraceAnalysis &a, const TraceAnalysis &b)
{
    std::ostringstream o;
    char buf[512];
    o << "A: " << escape(a.dir) << " (" << a.calls.size() << " calls, " << pct(a.coll_fraction)
      << " in collectives)\nB: " << escape(b.dir) << " (" << b.calls.size() << " calls, "
      << pct(b.coll_fraction) << " in collectives)\n";
    std::snprintf(buf, sizeof buf, "  %-22s %-21s %6s %6s %11s %11s %7s %11s %11s\n", "op", "size",
                  "A", "B", "A mean", "B mean", "B/A", "A wait", "B wait");
    o << buf;
    auto ma = by_class(a), mb = by_class(b);
    const std::set<ClassKey> keys = class_keys(ma, mb);
    for (const auto &k : keys) {
        const ClassSummary *x = ma.count(k) ? ma[k] : nullptr, *y = mb.count(k) ? mb[k] : nullptr;
        char ratio[32] = "-";
        if (x && y && x->mean > 0) {
            std::snprintf(ratio, sizeof ratio, "%.3f", y->mean / x->mean);
        }
        std::snprintf(buf, sizeof buf, "  %-22s %-21s %6d %6d %11s %11s %7s %11s %11s\n",
                      coll_label(k.coll, k.previous).c_str(), trace_class_label(k.size_class).c_str(),
                      x ? x->calls : 0, y ? y->calls : 0, x ? format_time(x->mean).c_str() : "-",
                      y ? format_time(y->mean).c_str() : "-", ratio,
                      x ? format_time(x->wait).c_str() : "-", y ? format_time(y->wait).c_str() : "-");
        o << buf;
        if (x && y && x->plan != y->plan) {
            o << "      A plan: " << escape(x->plan) << "\n      B plan: " << escape(y->plan)
              << "\n";
        }
    }
    return o.str();
}

std::string format_trace_comparison_json(const TraceAnalysis &a, const TraceAnalysis &b)
{
    std::ostringstream o;
    auto ma = by_class(a), mb = by_class(b);
    o << "{\"a\":" << json_str(a.dir) << ",\"b\":" << json_str(b.dir) << ",\"classes\":[";
    bool first = true;
    const std::set<ClassKey> keys = class_keys(ma, mb);
    for (const auto &k : keys) {
        const ClassSummary *x = ma.count(k) ? ma[k] : nullptr, *y = mb.count(k) ? mb[k] : nullptr;
        o << (first ? "" : ",") << "{\"op\":" << json_str(coll_name(k.coll))
          << ",\"previous\":" << (k.previous ? "true" : "false") << ",\"size_class\":" << k.size_class
          << ",\"a_calls\":" << (x ? x->calls : 0) << ",\"b_calls\":" << (y ? y->calls : 0)
          << ",\"a_mean_s\":" << num(x ? x->mean : 0) << ",\"b_mean_s\":" << num(y ? y->mean : 0)
          << ",\"a_plan\":" << json_str(x ? x->plan : "") << ",\"b_plan\":"
          << json_str(y ? y->plan : "") << "}";
        first = false;
    }
    o << "]}\n";
    return o.str();
}

std::string format_trace_hints(const TraceAnalysis &a)
{
    std::ostringstream o;
    char b[768];
    std::snprintf(b, sizeof b, "cloudaware hints (job %s: %d of %d ranks traced, %zu calls)\n",
                  escape(a.job).c_str(), a.ranks_read, a.size, a.calls.size());
    o << b;
    // Collectives vs the rest (DA-MCM: transmission vs processing time).
    std::snprintf(b, sizeof b,
                  "- time in collectives: %s of the time from the first to the last traced call "
                  "(ranks: %s to %s)%s\n",
                  pct(a.coll_fraction).c_str(), pct(a.coll_fraction_min).c_str(),
                  pct(a.coll_fraction_max).c_str(),
                  a.coll_fraction > 0.5   ? ": communication dominates"
                  : a.coll_fraction < 0.1 ? ": computation dominates"
                                          : "");
    o << b;
    // Slow links: below half of the matrix's rate, or of the median achieved rate without one.
    std::vector<double> rates;
    for (const auto &l : a.links) {
        rates.push_back(l.rate);
    }
    double med = median(rates);
    std::vector<const LinkSummary *> slow;
    for (const auto &l : a.links) {
        double ref = l.predicted_rate > 0 ? l.predicted_rate : med;
        if (is_bulk(l) && ref > 0 && l.rate < 0.5 * ref && slow.size() < 3) {
            slow.push_back(&l);
        }
    }
    for (const auto *l : slow) {
        bool m = l->predicted_rate > 0;
        std::snprintf(b, sizeof b, "- slow link %s -> %s: %s, %s of %s\n", escape(l->from).c_str(),
                      escape(l->to).c_str(), format_rate(l->rate).c_str(),
                      pct(l->rate / (m ? l->predicted_rate : med)).c_str(),
                      m ? ("the matrix's " + format_rate(l->predicted_rate)).c_str()
                        : ("the median link's " + format_rate(med)).c_str());
        o << b;
    }
    // Drops that cost at least a quarter of the largest one's time (smaller ones on other links
    // are mostly the same slowdown seen downstream).
    for (size_t i = 0; i < a.dropped.size() && i < 3; ++i) {
        const LinkSummary &l = a.dropped[i];
        if (l.drop_lost_s < 0.25 * a.dropped[0].drop_lost_s) {
            break;
        }
        std::snprintf(b, sizeof b, "- link %s -> %s slowed down from call %d: %s, %s of its %s "
                      "before, %s lost over %d calls\n", escape(l.from).c_str(),
                      escape(l.to).c_str(), l.drop_call, format_rate(l.drop_rate).c_str(),
                      pct(l.drop_ratio).c_str(), format_rate(l.early_rate).c_str(),
                      format_time(l.drop_lost_s).c_str(), kLinkDropCalls);
        o << b;
    }
    if (a.links.empty()) {
        o << "- no messages between nodes were traced\n";
    } else if (slow.empty()) {
        o << "- no slow link: every node pair reached at least half of "
          << (a.have_matrix ? "the matrix's rate" : "the median rate") << "\n";
    }
    // A node in most of the slow links.
    std::map<std::string, int> in_slow;
    for (const auto *l : slow) {
        in_slow[l->from]++;
        in_slow[l->to]++;
    }
    std::string slow_node;
    int slow_count = 1;
    for (const auto &n : in_slow) {
        if (n.second > slow_count) {
            slow_node = n.first;
            slow_count = n.second;
        }
    }
    if (!slow_node.empty()) {
        o << "- slow node: " << escape(slow_node) << " (in " << in_slow[slow_node] << " of the "
          << slow.size() << " slow links)\n";
    }
    // Ranks that waited most, and on whom.
    std::vector<std::pair<double, int>> waited;
    for (const auto &w : a.rank_waited) {
        waited.push_back({w.second, w.first});
    }
    std::sort(waited.rbegin(), waited.rend());
    for (size_t i = 0; i < waited.size() && i < 3; ++i) {
        int r = waited[i].second;
        const WaitPair *top = nullptr;
        for (const auto &w : a.waits) {
            if (w.waiter == r) {
                top = &w;
                break;
            }
        }
        std::snprintf(b, sizeof b, "- rank %d (%s) waited %s in all, %s of it on rank %d (%s)\n", r,
                      escape(host_label(a, r)).c_str(), format_time(waited[i].first).c_str(),
                      format_time(top ? top->seconds : 0).c_str(), top ? top->culprit : -1,
                      escape(host_label(a, top ? top->culprit : -1)).c_str());
        o << b;
    }
    // Arrival spread against call time: the ranks reach the collectives at different times.
    double spread = 0, dur = 0;
    int late_rank = -1;
    std::map<int, int> last_arrivals;
    int plan_calls = 0;
    for (const auto &c : a.calls) {
        spread += c.imbalance;
        dur += c.duration;
        plan_calls++;
        double latest = -INFINITY;
        int who = -1;
        for (const auto &r : c.ranks) {
            if (r.start > latest) {
                latest = r.start;
                who = r.rank;
            }
        }
        if (c.ranks.size() > 1) {
            last_arrivals[who]++;
        }
    }
    int most = 0;
    for (const auto &la : last_arrivals) {
        if (la.second > most) {
            most = la.second;
            late_rank = la.first;
        }
    }
    bool uneven = plan_calls > 0 && dur > 0 && spread > 0.5 * dur;
    if (uneven && late_rank >= 0) {
        double worst;
        slowest_rank_call(a, late_rank, worst);
        std::snprintf(b, sizeof b,
                      "- uneven arrival: ranks reach the collectives %s apart on average (%s of the "
                      "calls' time); rank %d (%s) is the last in %d of %d calls\n",
                      format_time(spread / plan_calls).c_str(), pct(spread / dur).c_str(), late_rank,
                      escape(host_label(a, late_rank)).c_str(), most, plan_calls);
        o << b;
    }
    // One suggestion, the first that fits.
    if (uneven) {
        o << "suggestion: balance the work between the collectives (the decomposition): the ranks "
             "arrive unevenly, which no network setting fixes\n";
    } else if (!slow_node.empty()) {
        o << "suggestion: leave node " << escape(slow_node)
          << " out of the host file (or give it fewer ranks) and rerun; if its slowness is "
             "temporary, recalibrate instead (a fresh coll_cloudaware_cache_dir entry)\n";
    } else if (!slow.empty() && slow.front()->predicted_rate > 0) {
        o << "suggestion: the matrix no longer matches link " << escape(slow.front()->from)
          << " -> " << escape(slow.front()->to)
          << "; recalibrate (remove its coll_cloudaware_cache_dir entry) so the plans avoid it\n";
    } else if (!slow.empty()) {
        o << "suggestion: place the ranks so that the heaviest exchanges stay off "
          << escape(slow.front()->from) << " -> " << escape(slow.front()->to)
          << " (calibrate, or give the nodes of a subtree neighbours on fast links)\n";
    } else if (a.coll_fraction < 0.1) {
        o << "suggestion: none for the collectives: they take under 10 % of the time\n";
    } else {
        o << "suggestion: none: no slow link, no slow node, even arrival\n";
    }
    return o.str();
}

}  // namespace cacore
