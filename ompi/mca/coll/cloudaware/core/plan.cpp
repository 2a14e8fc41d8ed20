// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// plan.cpp - plan helpers and the builder.
#include "plan.hpp"

#include "error.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace cacore {

bool is_rooted(cacore_coll_t c)
{
    return c == CACORE_COLL_BCAST || c == CACORE_COLL_REDUCE || c == CACORE_COLL_GATHER ||
           c == CACORE_COLL_SCATTER;
}

bool is_gather_type(cacore_coll_t c)
{
    return c == CACORE_COLL_GATHER || c == CACORE_COLL_SCATTER || c == CACORE_COLL_ALLGATHER;
}

bool is_reduction(cacore_coll_t c) { return c == CACORE_COLL_REDUCE || c == CACORE_COLL_ALLREDUCE; }

int Plan::blocks_per_rank() const { return is_gather_type(coll) ? nblocks / nranks : 0; }

PlanBuilder::PlanBuilder(cacore_coll_t coll, int root, int nranks, int nblocks)
    : coll_(coll), root_(root), nranks_(nranks), nblocks_(nblocks), steps_(nranks)
{
    if (nranks < 1 || nblocks < 1) {
        fail_arg("a plan needs at least one rank and one block");
    }
}

void PlanBuilder::add(int rank, cacore_step_t s)
{
    if (rank < 0 || rank >= nranks_ || s.first_block < 0 || s.nblocks < 0 ||
        s.first_block + s.nblocks > nblocks_ || s.round < 0) {
        throw Error(CACORE_ERR_INTERNAL, "planner produced an out-of-range step");
    }
    if (s.buf >= CACORE_BUF_TMP0) {
        ntmp_ = std::max(ntmp_, s.buf - CACORE_BUF_TMP0 + 1);
    }
    if ((s.kind == CACORE_STEP_COPY || s.kind == CACORE_STEP_REDUCE) && s.src_buf >= CACORE_BUF_TMP0) {
        ntmp_ = std::max(ntmp_, s.src_buf - CACORE_BUF_TMP0 + 1);
    }
    steps_[rank].push_back(s);
}

static cacore_step_t make_step(int kind, int round, int level, int buf, int peer, int first, int n)
{
    cacore_step_t s{};
    s.kind = static_cast<uint8_t>(kind);
    s.level = static_cast<uint8_t>(std::min(level, 255));
    s.buf = static_cast<uint8_t>(buf);
    s.src_buf = 0;
    s.src_first = 0;
    s.peer = peer;
    s.round = round;
    s.first_block = first;
    s.nblocks = n;
    return s;
}

void PlanBuilder::send(int rank, int round, int level, int buf, int peer, int first, int n)
{
    add(rank, make_step(CACORE_STEP_SEND, round, level, buf, peer, first, n));
}

void PlanBuilder::recv(int rank, int round, int level, int buf, int peer, int first, int n)
{
    add(rank, make_step(CACORE_STEP_RECV, round, level, buf, peer, first, n));
}

void PlanBuilder::transfer(int from, int rs, int from_buf, int to, int rr, int to_buf, int level,
                           int first, int n)
{
    if (from == to) {
        throw Error(CACORE_ERR_INTERNAL, "planner produced a message to self");
    }
    send(from, rs, level, from_buf, to, first, n);
    recv(to, rr, level, to_buf, from, first, n);
}

void PlanBuilder::copy(int rank, int round, int level, int dst, int src, int first, int n)
{
    cacore_step_t s = make_step(CACORE_STEP_COPY, round, level, dst, -1, first, n);
    s.src_buf = static_cast<uint8_t>(src);
    add(rank, s);
}

void PlanBuilder::reduce(int rank, int round, int level, int dst, int src, bool src_first,
                         int first, int n)
{
    cacore_step_t s = make_step(CACORE_STEP_REDUCE, round, level, dst, -1, first, n);
    s.src_buf = static_cast<uint8_t>(src);
    s.src_first = src_first ? 1 : 0;
    add(rank, s);
}

Plan PlanBuilder::finish(double total_bytes, cacore_algo_t algo, const std::string &description)
{
    Plan p;
    p.coll = coll_;
    p.algo = algo;
    p.root = root_;
    p.nranks = nranks_;
    p.nblocks = nblocks_;
    p.ntmp = ntmp_;
    p.total_bytes = total_bytes;
    p.description = description;
    p.steps = std::move(steps_);
    for (auto &v : p.steps) {
        std::stable_sort(v.begin(), v.end(), [](const cacore_step_t &a, const cacore_step_t &b) {
            return a.round < b.round;
        });
    }
    steps_.assign(nranks_, {});
    return p;
}

static const char *buf_name(int b, char *tmp)
{
    if (b == CACORE_BUF_IN) {
        return "IN";
    }
    if (b == CACORE_BUF_OUT) {
        return "OUT";
    }
    std::snprintf(tmp, 16, "TMP%d", b - CACORE_BUF_TMP0);
    return tmp;
}

std::string format_steps(const Plan &p, int max_ranks)
{
    std::ostringstream os;
    int shown = 0;
    for (int r = 0; r < p.nranks; ++r) {
        if (max_ranks >= 0 && shown++ >= max_ranks) {
            os << "  ... (" << p.nranks - max_ranks << " more ranks)\n";
            break;
        }
        os << "  rank " << r << ":\n";
        for (const auto &s : p.steps[r]) {
            char t1[16], t2[16];
            os << "    round " << s.round << " L" << int(s.level) << " ";
            switch (s.kind) {
            case CACORE_STEP_SEND:
                os << "send " << buf_name(s.buf, t1) << "[" << s.first_block << "+" << s.nblocks
                   << "] -> " << s.peer;
                break;
            case CACORE_STEP_RECV:
                os << "recv " << buf_name(s.buf, t1) << "[" << s.first_block << "+" << s.nblocks
                   << "] <- " << s.peer;
                break;
            case CACORE_STEP_COPY:
                os << "copy " << buf_name(s.buf, t1) << " = " << buf_name(s.src_buf, t2) << " ["
                   << s.first_block << "+" << s.nblocks << "]";
                break;
            default:
                os << "reduce " << buf_name(s.buf, t1) << " = "
                   << (s.src_first ? std::string(buf_name(s.src_buf, t2)) + " op " + buf_name(s.buf, t1)
                                   : std::string(buf_name(s.buf, t1)) + " op " + buf_name(s.src_buf, t2))
                   << " [" << s.first_block << "+" << s.nblocks << "]";
            }
            os << "\n";
        }
    }
    return os.str();
}

}  // namespace cacore
