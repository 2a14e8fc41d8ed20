// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// trace_analysis.hpp - the per-rank trace files of coll_cloudaware_trace (docs/trace-format.md)
// and their analysis (docs/monitoring.md), after the spanning-tree monitoring paper: per call and
// per (op, size class) the time per level, arrival and departure waits per rank and node, the
// critical path, who makes whom wait, the achieved rate per node pair against the matrix, nodes
// that behave alike; a comparison of two runs; and the mitigation hints (DA-MCM's user
// mitigation report). Used by `cloudaware-plan trace` and, for the hints, by world rank 0 of a
// traced job at finalize (cacore_trace_hints).
#ifndef CACORE_TRACE_ANALYSIS_HPP
#define CACORE_TRACE_ANALYSIS_HPP

#include "matrix.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cacore {

// ---- the files ----------------------------------------------------------------------------------
enum TraceKind { kTraceSend = 0, kTraceRecv = 1, kTraceCopy = 2, kTraceReduce = 3 };
enum TraceMode { kTraceBlocking = 0, kTraceNonblocking = 1, kTracePersistent = 2 };

struct TraceStep {
    int round = 0, kind = 0, level = 0, peer = -1;   // peer: communicator rank
    uint64_t bytes = 0;
    double post = 0, done = 0, wait = 0;             // seconds (the file's clock)
};

struct TraceCall {
    int64_t id = 0;
    int comm = 0;
    int64_t seq = 0;
    int coll = 0, mode = 0, root = -1;
    uint64_t bytes = 0;
    bool previous = false;   // handed to the previous module (no plan, no steps)
    int plan = -1;
    double predicted = 0, start = 0, end = 0;
    bool ok = true;
    std::vector<TraceStep> steps;   // in posting order (round, post time)
};

struct TraceComm {
    unsigned cid = 0;
    int size = 0;
    bool inter = false;
    std::vector<int> ranks;   // world rank of each communicator rank (intracommunicators)
};

struct RankTrace {
    std::string name;            // the file, for messages
    int rank = 0, size = 0;      // world rank and size
    std::string job, host, matrix;
    double realtime = 0;         // wall clock (s since the epoch) at the file's time 0
    std::map<int, TraceComm> comms;
    std::map<int, std::string> plans;
    std::vector<TraceCall> calls;   // in the order they ended
};

// Parses one rank's file; Error(CACORE_ERR_FORMAT, "NAME:LINE: problem") on anything outside
// the format (unknown record, missing field, bad number, a step of no call, ...).
RankTrace parse_rank_trace(std::string_view text, const std::string &name);

struct TraceRun {
    std::string dir, job;
    int size = 0;                  // world size the files state
    std::vector<RankTrace> ranks;  // by world rank
    std::vector<int> missing;      // world ranks without a file
};

// Reads DIR/rank-*.trace of one job: `job` names it, or "" when the directory must hold exactly
// one (several jobs: an error that lists them). Error(CACORE_ERR_IO) when there is no file.
TraceRun read_trace_dir(const std::string &dir, const std::string &job = "");

// ---- the analysis ----------------------------------------------------------------------------
constexpr int kTraceLevels = 3;   // node, group, top (levels above 2 count as top)

struct RankInCall {
    int rank = 0;
    double start = 0, end = 0;     // aligned seconds (from the run's first call)
    double arrival_wait = 0;       // the last rank's arrival minus this rank's
    double departure_wait = 0;     // this rank's end minus the first rank's end
    double wait = 0;               // blocked on messages, summed over steps
    double level[kTraceLevels] = {0, 0, 0};   // waits + local work per level
    const TraceCall *call = nullptr;   // the rank's record (points into the TraceRun analysed)
    double offset = 0;                 // add to the record's times to align them
};

struct PathHop {
    int from = 0, to = 0, level = 0;
    uint64_t bytes = 0;
    double wait = 0;               // what `to` waited for this message
};

struct CallSummary {
    int index = 0;                 // position in time order
    int coll = 0, mode = 0;
    bool previous = false;
    uint64_t bytes = 0;
    int size_class = 0;            // floor(log2(bytes)), 0 for 0 bytes
    std::string plan;              // description, "previous module" when handed on
    double predicted = 0;          // the cost model's time (plans)
    double start = 0, duration = 0;   // first start, last end minus first start
    double imbalance = 0;          // last arrival minus first arrival
    std::vector<RankInCall> ranks;
    int first_rank = -1;           // where the critical path starts (its arrival)
    std::vector<PathHop> critical_path;
};

struct ClassSummary {
    int coll = 0;
    bool previous = false;
    int size_class = 0;
    std::string plan;              // the most frequent plan of the class
    int calls = 0;
    double mean = 0, median = 0, max = 0, predicted = 0;
    double imbalance = 0;          // mean last-minus-first arrival
    double level[kTraceLevels] = {0, 0, 0};   // mean over calls of the max over ranks
    double wait = 0;               // mean over calls of the mean blocked time per rank
};

struct WaitPair {
    int waiter = 0, culprit = 0;
    double seconds = 0;
};

struct LinkSummary {
    std::string from, to;
    int messages = 0;
    double bytes = 0, seconds = 0;
    double rate = 0;               // bytes / seconds achieved
    double predicted_rate = 0;     // with the matrix: bytes / the matrix's time for them; else 0
    // A drop of the link's rate during the run (drop_ratio < 1: see kLinkDropRatio): its rate in
    // its first third of calls against the slowest run of kLinkDropCalls calls in a row, which
    // starts at call drop_call (CallSummary::index); drop_ratio = drop_rate / early_rate;
    // drop_lost_s: how much longer those calls' transfers over the link took than at early_rate.
    double early_rate = 0, drop_rate = 0, drop_ratio = 1, drop_lost_s = 0;
    int drop_call = -1;
};

// Links that carried at least this many bytes are ranked by their rate ("slowest links", the
// slow-link hint); the others come after them and give no hint.
constexpr double kBulkLinkBytes = 65536;
inline bool is_bulk(const LinkSummary &l) { return l.bytes >= kBulkLinkBytes; }
// A link's rate dropped when kLinkDropCalls calls in a row that each carried at least
// kBulkLinkBytes over it ran at less than kLinkDropRatio of its rate in its first third of such
// calls (a link degrading under a running job; the median of each window).
constexpr int kLinkDropCalls = 3;
constexpr double kLinkDropRatio = 0.5;

struct NodeSummary {
    std::string host;
    std::vector<int> ranks;
    double mean_duration = 0;      // mean over plan calls and its ranks of their time in the call
    double arrival_wait = 0;       // mean per call of its ranks' mean arrival wait
    double waited = 0;             // its ranks' blocked time, total
    double caused = 0;             // others' blocked time waiting on its ranks, total
};

struct TraceAnalysis {
    std::string dir, job, matrix_note;
    int size = 0, ranks_read = 0;
    std::vector<int> missing;
    bool have_matrix = false;
    std::vector<CallSummary> calls;
    std::vector<ClassSummary> classes;
    std::vector<WaitPair> waits;           // by seconds, largest first
    std::map<int, double> rank_waited, rank_caused;
    std::vector<LinkSummary> links;        // slowest first (by achieved/predicted with a matrix)
    std::vector<LinkSummary> dropped;      // links whose rate dropped, most time lost first
    std::vector<NodeSummary> nodes;
    std::vector<std::vector<std::string>> alike;   // nodes whose ranks take alike times
    double coll_fraction = 0, coll_fraction_min = 0, coll_fraction_max = 0;
    double span = 0;                       // first call start to last call end (aligned)
    // Sends matched with receives across the files (the k-th send from a to b with the k-th
    // receive at b from a, per call): a complete trace has no unmatched step and equal sizes.
    int64_t messages = 0, unmatched = 0, size_mismatches = 0;
    // Calls on an intracommunicator that not every member recorded (a file missing or cut).
    int64_t incomplete = 0;
};

// The analysis of a run; the matrix (may be null) gives the predicted rate of each node pair
// (its hosts are matched by name with the hosts of the files).
TraceAnalysis analyse_trace(const TraceRun &run, const Matrix *m);

// Output. ncalls: how many of the slowest calls the text shows in detail.
std::string format_trace_text(const TraceAnalysis &a, int ncalls);
std::string format_trace_json(const TraceAnalysis &a);
std::string format_trace_comparison_text(const TraceAnalysis &a, const TraceAnalysis &b);
std::string format_trace_comparison_json(const TraceAnalysis &a, const TraceAnalysis &b);
// The mitigation hints (docs/monitoring.md, "Hints"): a few lines a user can act on.
std::string format_trace_hints(const TraceAnalysis &a);

// The class of a size: floor(log2(bytes)); and its range as text ("64 KiB-128 KiB").
int trace_size_class(uint64_t bytes);
std::string trace_class_label(int size_class);

}  // namespace cacore
#endif
