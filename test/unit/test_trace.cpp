// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// test_trace.cpp - the trace files and their analysis (core/trace_analysis.cpp) on the example
// of docs/trace-format.md (docs/examples/trace/): 4 ranks on node-a (0, 1) and node-b (2, 3), one
// 1 MiB bcast run as a plan (0 -> 2 across the nodes, then 0 -> 1 and 2 -> 3 inside them; rank 2
// arrives 2 ms late) and one allreduce handed to the previous module. Every number below follows
// from the file by hand, as docs/monitoring.md explains. Then malformed files: each one a
// one-line error naming the file and the line. And a link that slows down under a running job
// (12 calls of 1 MiB from host h0 to h1, the last 4 five times slower): named, with the call it
// started at and the time it cost; not with a steady link.
#include <check.h>

#include "test_util.h"

#include "error.hpp"
#include "matrix_io.hpp"
#include "names.hpp"
#include "trace_analysis.hpp"

#include <cmath>
#include <cstdlib>
#include <string>
#include <sys/stat.h>

using namespace cacore;

namespace {

const std::string kExample = CACORE_TOP_SRCDIR "/docs/examples/trace";

TraceAnalysis example_analysis(TraceRun &run, bool with_matrix)
{
    run = read_trace_dir(kExample);
    if (!with_matrix) {
        return analyse_trace(run, nullptr);
    }
    Matrix m = read_matrix_file(kExample + "/cluster.matrix");
    return analyse_trace(run, &m);
}

// The error message of parsing text as a trace file, or "" if it parsed.
std::string parse_error(const std::string &text)
{
    try {
        parse_rank_trace(text, "t.trace");
    } catch (const Error &e) {
        ck_assert_int_eq(e.status(), CACORE_ERR_FORMAT);
        return e.what();
    }
    return "";
}

const std::string kHead = "cloudaware-trace 1\n"
                          "rank 0 size 2 job 7 host h pid 1\n"
                          "clock realtime 100.5\n"
                          "comm 0 cid 0 size 2 ranks 0 1\n"
                          "plan 0 linear over ranks\n";
const std::string kCall = "call 0 comm 0 seq 0 op bcast mode blocking root 0 bytes 8 plan 0 "
                          "predicted 1e-5 start 0.1 end 0.2 status ok\n";

}  // namespace

START_TEST(example_parses)
{
    TraceRun run = read_trace_dir(kExample);
    ck_assert_int_eq(run.size, 4);
    ck_assert_int_eq(static_cast<int>(run.ranks.size()), 4);
    ck_assert(run.missing.empty());
    ck_assert_str_eq(run.job.c_str(), "4242");
    const RankTrace &r2 = run.ranks[2];
    ck_assert_str_eq(r2.host.c_str(), "node-b");
    ck_assert_int_eq(static_cast<int>(r2.calls.size()), 2);
    ck_assert(!r2.calls[0].previous);
    ck_assert(r2.calls[1].previous);
    ck_assert_int_eq(static_cast<int>(r2.calls[0].steps.size()), 2);
    ck_assert_int_eq(r2.calls[0].steps[0].kind, kTraceRecv);
    ck_assert_int_eq(r2.calls[0].steps[0].level, 1);
    ck_assert_str_eq(r2.plans.at(0).c_str(), "cool node=binomial group=binomial top=binomial");
    ck_assert_int_eq(static_cast<int>(r2.comms.at(0).ranks.size()), 4);
}
END_TEST

START_TEST(example_analysis_by_hand)
{
    TraceRun run;
    TraceAnalysis a = example_analysis(run, true);
    ck_assert_int_eq(static_cast<int>(a.calls.size()), 2);
    const CallSummary &b = a.calls[0];
    ck_assert_str_eq(coll_name(b.coll), "bcast");
    // first arrival 1.000 ms, last end 11.540 ms (rank 1); rank 2 arrived at 3.000 ms
    ck_assert(std::fabs(b.duration - 0.01054) < 1e-9);
    ck_assert(std::fabs(b.imbalance - 0.002) < 1e-9);
    for (const auto &r : b.ranks) {
        ck_assert(std::fabs(r.arrival_wait - (r.rank == 2 ? 0.0 : 0.002)) < 1e-9);
    }
    // critical path: rank 2 arrives late -> rank 0 waits for it (group level) -> rank 1
    ck_assert_int_eq(b.first_rank, 2);
    ck_assert_int_eq(static_cast<int>(b.critical_path.size()), 2);
    ck_assert_int_eq(b.critical_path[0].from, 2);
    ck_assert_int_eq(b.critical_path[0].to, 0);
    ck_assert_int_eq(b.critical_path[0].level, 1);
    ck_assert_int_eq(b.critical_path[1].from, 0);
    ck_assert_int_eq(b.critical_path[1].to, 1);
    // the group level of the bcast: rank 0 waited 10 ms for its send to rank 2
    ck_assert(std::fabs(a.classes[0].level[1] - 0.010) < 1e-9 ||
              std::fabs(a.classes[1].level[1] - 0.010) < 1e-9);
    // waits: rank 0 waited 10 ms on rank 2, rank 2 8 ms on rank 0
    bool seen02 = false, seen20 = false;
    for (const auto &w : a.waits) {
        seen02 |= w.waiter == 0 && w.culprit == 2 && std::fabs(w.seconds - 0.010) < 1e-9;
        seen20 |= w.waiter == 2 && w.culprit == 0 && std::fabs(w.seconds - 0.008) < 1e-9;
    }
    ck_assert(seen02 && seen20);
    // the one link across nodes: 1 MiB from the receive's post (3.010 ms) to its end (11.010 ms)
    ck_assert_int_eq(static_cast<int>(a.links.size()), 1);
    ck_assert_str_eq(a.links[0].from.c_str(), "node-a");
    ck_assert_str_eq(a.links[0].to.c_str(), "node-b");
    ck_assert(std::fabs(a.links[0].rate - 1048576 / 0.008) < 1e-3);
    ck_assert(std::fabs(a.links[0].predicted_rate - 1048576 / (1e-5 + 1048576 / 1e9)) < 1e-3);
    // 3 messages, all matched, sizes equal
    ck_assert_int_eq(static_cast<int>(a.messages), 3);
    ck_assert_int_eq(static_cast<int>(a.unmatched), 0);
    ck_assert_int_eq(static_cast<int>(a.size_mismatches), 0);
    ck_assert_int_eq(static_cast<int>(a.incomplete), 0);
    // rank 1, the busiest, is in collectives 10.54 + 0.1 ms of 19.1 ms
    ck_assert(std::fabs(a.coll_fraction_max - 0.01064 / 0.0191) < 1e-9);
    // hints: the slow link against the matrix, and what to do about it
    std::string h = format_trace_hints(a);
    ck_assert_msg(h.find("slow link node-a -> node-b") != std::string::npos, "%s", h.c_str());
    ck_assert_msg(h.find("suggestion: the matrix no longer matches link node-a -> node-b") !=
                      std::string::npos, "%s", h.c_str());
    // without a matrix the lone link is the median: not slow
    TraceRun run2;
    TraceAnalysis n = example_analysis(run2, false);
    ck_assert(format_trace_hints(n).find("no slow link") != std::string::npos);
    // JSON and text carry the same facts
    ck_assert(format_trace_json(a).find("\"unmatched\":0") != std::string::npos);
    ck_assert(format_trace_text(a, 1).find("critical path: rank 2 arrives -> rank 0") !=
              std::string::npos);
    // a run compared with itself: every class at ratio 1
    std::string c = format_trace_comparison_text(a, a);
    ck_assert_msg(c.find("1.000") != std::string::npos, "%s", c.c_str());
}
END_TEST

START_TEST(hints_through_the_c_api)
{
    char err[512], *text = nullptr;
    ck_assert_int_eq(cacore_trace_hints(kExample.c_str(), "4242", &text, err, sizeof err),
                     CACORE_OK);
    ck_assert(std::string(text).find("cloudaware hints (job 4242: 4 of 4 ranks") == 0);
    std::free(text);
    ck_assert_int_eq(cacore_trace_hints(kExample.c_str(), "999", &text, err, sizeof err),
                     CACORE_ERR_IO);
    ck_assert(std::string(err).find("no trace file of job 999") != std::string::npos);
    ck_assert_int_eq(cacore_trace_hints("/nonexistent/trace", "", &text, err, sizeof err),
                     CACORE_ERR_IO);
    ck_assert(std::string(err).find("cannot open the trace directory") != std::string::npos);
}
END_TEST

START_TEST(malformed_files)
{
    ck_assert(parse_error(kHead + kCall).empty());
    struct {
        std::string text, expect;
    } cases[] = {
        {"", "t.trace:0: unexpected end of file"},
        {"cloudaware-trace 2\n", "t.trace:1: not a trace file of format 1"},
        {"cloudaware-trace 1\nclock realtime 1\n", "t.trace:2: the 'rank' record must come first"},
        {kHead + "bogus 1\n", "t.trace:6: unknown record 'bogus'"},
        {kHead + "call 0 comm 0 seq 0 op bcast mode blocking root 0 bytes 8 plan 0 start 0.1 "
                 "end 0.2 status ok\n", "t.trace:6: missing field 'predicted'"},
        {kHead + "call 0 comm 0 seq 0 op scan mode blocking root 0 bytes 8 plan 0 predicted 0 "
                 "start 0.1 end 0.2 status ok\n", "field 'op': 'scan' is not one of"},
        {kHead + "call 0 comm 5 seq 0 op bcast mode blocking root 0 bytes 8 plan 0 predicted 0 "
                 "start 0.1 end 0.2 status ok\n", "on communicator 5, which no 'comm' record"},
        {kHead + "call 0 comm 0 seq 0 op bcast mode blocking root 0 bytes 8 plan 0 predicted 0 "
                 "start 0.3 end 0.2 status ok\n", "t.trace:6: call ends before it starts"},
        {kHead + "step 0 round 0 kind send level 0 peer 1 bytes x8 post 0.1 done 0.2 wait 0\n" +
             kCall, "t.trace:6: field 'bytes': 'x8' is not an integer"},
        {kHead + "step 0 round 0 kind send level 0 peer 1 bytes 8 post 0.3 done 0.2 wait 0\n" +
             kCall, "t.trace:6: step done before it was posted"},
        {kHead + "step 0 round 0 kind send level 0 peer 9 bytes 8 post 0.1 done 0.2 wait 0\n" +
             kCall, "peer 9 outside its communicator of 2"},
        {kHead + "step 3 round 0 kind send level 0 peer 1 bytes 8 post 0.1 done 0.2 wait 0\n",
         "steps of call 3, which has no 'call' record"},
        {kHead + "step 0 round 0 kind send level 0 peer 1 bytes 8 post nan done 0.2 wait 0\n",
         "field 'post': 'nan' is not a number"},
        {kHead + "step 0 round 0 kind send level 0 peer 1 bytes 8 post 0.1 done\n",
         "fields must be KEY VALUE pairs"},
        {kHead + "comm 0 cid 0 size 2 ranks 0 1\n", "communicator 0 defined twice"},
        {kHead + "comm 1 cid 0 size 3 ranks 0 1\n", "expected 'ranks' and 3 world ranks"},
        {kHead + kCall + kCall, "call 0 recorded twice"},
        {kHead + "step 0 round 0 kind send level 300 peer 1 bytes 8 post 0.1 done 0.2 wait 0\n" +
             kCall, "field 'level': '300' is not an integer from 0 to 255"},
        {kHead + "step 0 round 0 kind send level 0 peer 99999999999 bytes 8 post 0.1 done 0.2 "
                 "wait 0\n" + kCall, "field 'peer': '99999999999' is not an integer"},
        {kHead + "plan 99999999999 x\n", "record 'plan': '99999999999' is not a number"},
        {kHead + kCall.substr(0, kCall.size() - 1), "the last line is cut"},
        {"cloudaware-trace 1\nrank 4 size 2 job 7 host h pid 1\n", "rank 4 is not below size 2"},
    };
    for (const auto &c : cases) {
        std::string e = parse_error(c.text);
        ck_assert_msg(e.find(c.expect) != std::string::npos, "expected '%s', got '%s'",
                      c.expect.c_str(), e.c_str());
        ck_assert_msg(e.find('\n') == std::string::npos, "one line: '%s'", e.c_str());
    }
}
END_TEST

// A directory with two ranks on hosts h0 and h1: `calls` bcasts of 1 MiB from rank 0 to rank 1,
// call k taking seconds(k) on the link, 1 s apart.
template <typename F> std::string write_link_run(int calls, F seconds)
{
    char dir[] = "/tmp/cacore-trace-drop-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int r = 0; r < 2; ++r) {
        std::string text = "cloudaware-trace 1\nrank " + std::to_string(r) + " size 2 job 9 host h" +
                           std::to_string(r) + " pid 1\nclock realtime 100.0\n"
                           "comm 0 cid 0 size 2 ranks 0 1\nplan 0 linear over ranks\n";
        for (int k = 0; k < calls; ++k) {
            const double t = 1.0 + k, d = seconds(k);
            const std::string tt = std::to_string(t), te = std::to_string(t + d);
            text += "step " + std::to_string(k) + " round 0 kind " + (r ? "recv" : "send") +
                    " level 1 peer " + std::to_string(1 - r) + " bytes 1048576 post " + tt +
                    " done " + te + " wait " + (r ? std::to_string(d) : "0") + "\n";
            text += "call " + std::to_string(k) + " comm 0 seq " + std::to_string(k) +
                    " op bcast mode blocking root 0 bytes 1048576 plan 0 predicted 0.1 start " + tt +
                    " end " + te + " status ok\n";
        }
        FILE *f = std::fopen((std::string(dir) + "/rank-" + std::to_string(r) + ".trace").c_str(), "w");
        std::fputs(text.c_str(), f);
        std::fclose(f);
    }
    return dir;
}

void remove_link_run(const std::string &d)
{
    std::remove((d + "/rank-0.trace").c_str());
    std::remove((d + "/rank-1.trace").c_str());
    rmdir(d.c_str());
}

START_TEST(link_rate_drop)
{
    std::string d = write_link_run(12, [](int k) { return k < 8 ? 0.1 : 0.5; });
    TraceAnalysis a = analyse_trace(read_trace_dir(d), nullptr);
    ck_assert_int_eq(static_cast<int>(a.dropped.size()), 1);
    const LinkSummary &l = a.dropped[0];
    ck_assert_str_eq(l.from.c_str(), "h0");
    ck_assert_str_eq(l.to.c_str(), "h1");
    ck_assert_int_eq(l.drop_call, 8);
    ck_assert(std::fabs(l.early_rate - 1048576 / 0.1) < 1);
    ck_assert(std::fabs(l.drop_rate - 1048576 / 0.5) < 1);
    ck_assert(std::fabs(l.drop_ratio - 0.2) < 1e-9);
    ck_assert(std::fabs(l.drop_lost_s - 3 * 0.4) < 1e-6);   // 3 calls, each 0.4 s longer
    const std::string hints = format_trace_hints(a);
    ck_assert_msg(hints.find("- link h0 -> h1 slowed down from call 8: ") != std::string::npos, "%s",
                  hints.c_str());
    ck_assert(format_trace_text(a, 0).find("h0 -> h1: 83.89 Mbit/s -> 16.78 Mbit/s from call 8 (20 %)") !=
              std::string::npos);
    ck_assert(format_trace_json(a).find("\"dropped\":[{\"from\":\"h0\",\"to\":\"h1\"") !=
              std::string::npos);
    remove_link_run(d);
    // a steady link, and one that drops to only 60 % of its rate: no drop reported
    for (double late : {0.1, 1.0 / 6}) {
        d = write_link_run(12, [late](int k) { return k < 8 ? 0.1 : late; });
        a = analyse_trace(read_trace_dir(d), nullptr);
        ck_assert_int_eq(static_cast<int>(a.dropped.size()), 0);
        ck_assert(format_trace_hints(a).find("slowed down") == std::string::npos);
        remove_link_run(d);
    }
}
END_TEST

START_TEST(directory_errors)
{
    char dir[] = "/tmp/cacore-trace-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const std::string d = dir;
    try {
        read_trace_dir(d);
        ck_abort_msg("an empty directory must not read");
    } catch (const Error &e) {
        ck_assert(std::string(e.what()).find("no trace files") != std::string::npos);
    }
    // two jobs in one directory: named, never mixed
    FILE *f = std::fopen((d + "/rank-0.trace").c_str(), "w");
    std::fputs((kHead + kCall).c_str(), f);
    std::fclose(f);
    std::string other = kHead + kCall;
    other.replace(other.find("rank 0 size 2 job 7"), 19, "rank 1 size 2 job 8");
    f = std::fopen((d + "/rank-1.trace").c_str(), "w");
    std::fputs(other.c_str(), f);
    std::fclose(f);
    try {
        read_trace_dir(d);
        ck_abort_msg("two jobs must not read as one");
    } catch (const Error &e) {
        ck_assert_msg(std::string(e.what()).find("traces of several jobs: 7 (1 files), 8 (1 files)") !=
                          std::string::npos, "%s", e.what());
    }
    TraceRun r = read_trace_dir(d, "7");
    ck_assert_int_eq(static_cast<int>(r.missing.size()), 1);
    ck_assert_int_eq(r.missing[0], 1);
    // the analysis of an incomplete run still works: the lone rank's call, no messages
    TraceAnalysis a = analyse_trace(r, nullptr);
    ck_assert_int_eq(static_cast<int>(a.calls.size()), 1);
    ck_assert_int_eq(static_cast<int>(a.incomplete), 1);   // rank 1 of its communicator is missing
    // a corrupt file names itself
    f = std::fopen((d + "/rank-1.trace").c_str(), "w");
    std::fputs("cloudaware-trace 1\nrank 1 size 2 job 7 host h pid 1\nclock\n", f);
    std::fclose(f);
    try {
        read_trace_dir(d);
        ck_abort_msg("a corrupt file must not read");
    } catch (const Error &e) {
        ck_assert_msg(std::string(e.what()).find("rank-1.trace:3:") != std::string::npos, "%s",
                      e.what());
    }
    std::remove((d + "/rank-0.trace").c_str());
    std::remove((d + "/rank-1.trace").c_str());
    rmdir(dir);
}
END_TEST

int main()
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, example_parses);
    tcase_add_test(tc, example_analysis_by_hand);
    tcase_add_test(tc, hints_through_the_c_api);
    tcase_add_test(tc, malformed_files);
    tcase_add_test(tc, directory_errors);
    tcase_add_test(tc, link_rate_drop);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
