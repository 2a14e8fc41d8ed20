// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// simulate.cpp - the completeness checker every emitted plan must pass.
#include "simulate.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <sstream>
#include <utility>
#include <vector>

namespace cacore {
namespace {

// A reduction result, summarised exactly enough to check it in O(1) per combination: how many
// contributions, a sum of per-rank 64-bit random tags (a contribution counted twice and another
// missing cannot cancel out except with probability 2^-64), the rank range, and whether the
// operands were combined left to right in rank order with no gap.
struct Contrib {
    int count = 0;
    int lo = 0, hi = -1;
    uint64_t tag = 0;
    bool ordered = true;
};

uint64_t rank_tag(int r)
{
    uint64_t z = static_cast<uint64_t>(r) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Contrib combine(const Contrib &left, const Contrib &right)
{
    Contrib c;
    c.count = left.count + right.count;
    c.lo = std::min(left.lo, right.lo);
    c.hi = std::max(left.hi, right.hi);
    c.tag = left.tag + right.tag;
    c.ordered = left.ordered && right.ordered && left.hi + 1 == right.lo;
    return c;
}

// A buffer of one rank: per block the id of the data it holds (-1 = undefined) and, for
// reductions, what was combined into it. Allocated on first use.
struct Buf {
    std::vector<int> block;
    std::vector<Contrib> red;
};

struct Msg {
    int first, n;
    std::vector<int> blocks;
    std::vector<Contrib> reds;
};

struct Chan {
    std::vector<Msg> sends;
    size_t recvs_posted = 0;
};

class Sim {
public:
    explicit Sim(const Plan &p) : p_(p), red_(is_reduction(p.coll)), bpr_(p.blocks_per_rank()) {}

    SimResult run();

private:
    int map_buf(int b) const { return (p_.coll == CACORE_COLL_BCAST && b == CACORE_BUF_OUT) ? CACORE_BUF_IN : b; }
    bool own_part(int rank, int first, int n) const
    {
        return first >= rank * bpr_ && first + n <= (rank + 1) * bpr_;
    }
    // Empty string when rank may access buf[first, first+n) (write: may modify).
    std::string access(int rank, int buf, int first, int n, bool write) const;
    std::string fail_at(int rank, const cacore_step_t &s, const std::string &what) const;
    Buf &buf(int rank, int b)
    {
        Buf &x = bufs_[rank][map_buf(b)];
        if (x.block.empty()) {
            x.block.assign(p_.nblocks, -1);
            if (red_) {
                x.red.resize(p_.nblocks);
            }
        }
        return x;
    }
    std::string check_final();

    const Plan &p_;
    bool red_;
    int bpr_;
    std::vector<std::vector<Buf>> bufs_;
    bool ordered_ = true;
    uint64_t all_tags_ = 0;
};

std::string Sim::access(int rank, int b, int first, int n, bool write) const
{
    if (n == 0) {
        return "";
    }
    const cacore_coll_t c = p_.coll;
    const bool root = rank == p_.root;
    if (b >= CACORE_BUF_TMP0 + p_.ntmp) {
        return "temporary buffer beyond ntmp";
    }
    if (b == CACORE_BUF_IN) {
        if (write && c != CACORE_COLL_BCAST) {
            return "writes the user's input buffer";
        }
        if ((c == CACORE_COLL_GATHER || c == CACORE_COLL_ALLGATHER) && !own_part(rank, first, n)) {
            return "reads input blocks outside its own part";
        }
        if (c == CACORE_COLL_SCATTER && !root) {
            return "reads the input buffer on a non-root rank";
        }
    } else if (b == CACORE_BUF_OUT) {
        if ((c == CACORE_COLL_REDUCE || c == CACORE_COLL_GATHER) && !root) {
            return "uses the output buffer on a non-root rank";
        }
        if (c == CACORE_COLL_SCATTER && !own_part(rank, first, n)) {
            return "uses output blocks outside its own part";
        }
    }
    return "";
}

std::string Sim::fail_at(int rank, const cacore_step_t &s, const std::string &what) const
{
    std::ostringstream os;
    static const char *kinds[] = {"send", "recv", "copy", "reduce"};
    os << "rank " << rank << " round " << s.round << " " << kinds[s.kind & 3] << " buf " << int(s.buf)
       << " blocks [" << s.first_block << "," << s.first_block + s.nblocks << ")";
    if (s.kind <= CACORE_STEP_RECV) {
        os << " peer " << s.peer;
    }
    os << ": " << what;
    return os.str();
}

std::string Sim::check_final()
{
    const int n = p_.nranks, nb = p_.nblocks;
    auto want_block = [&](int r, int b, int blk) -> std::string {
        Buf &v = buf(r, b);
        if (v.block[blk] != blk) {
            std::ostringstream os;
            os << "rank " << r << " ends without block " << blk << " in "
               << (b == CACORE_BUF_OUT ? "OUT" : "IN");
            return os.str();
        }
        if (red_) {
            const Contrib &c = v.red[blk];
            if (c.count != n || c.tag != all_tags_ || c.lo != 0 || c.hi != n - 1) {
                std::ostringstream os;
                os << "rank " << r << " block " << blk << ": " << c.count << " contributions of "
                   << n << " ranks: "
                   << (c.count > n ? "some contribution reduced twice"
                                   : c.count < n ? "contribution missing"
                                                 : "a contribution reduced twice and another missing");
                return os.str();
            }
            if (!c.ordered) {
                ordered_ = false;
            }
        }
        return "";
    };
    for (int r = 0; r < n; ++r) {
        for (int blk = 0; blk < nb; ++blk) {
            bool need = false;
            switch (p_.coll) {
            case CACORE_COLL_BCAST:
            case CACORE_COLL_ALLREDUCE:
            case CACORE_COLL_ALLGATHER: need = true; break;
            case CACORE_COLL_REDUCE:
            case CACORE_COLL_GATHER: need = r == p_.root; break;
            case CACORE_COLL_SCATTER: need = own_part(r, blk, 1); break;
            default: break;
            }
            if (need) {
                std::string e = want_block(r, CACORE_BUF_OUT, blk);
                if (!e.empty()) {
                    return e;
                }
            }
        }
    }
    return "";
}

SimResult Sim::run()
{
    SimResult res;
    const int n = p_.nranks, nb = p_.nblocks;
    if (p_.root < 0 || p_.root >= n || static_cast<int>(p_.steps.size()) != n) {
        res.error = "plan shape is inconsistent (root or rank count)";
        return res;
    }
    if (is_gather_type(p_.coll) && (bpr_ < 1 || nb != bpr_ * n)) {
        res.error = "gather-type plan needs nblocks to be a multiple of nranks";
        return res;
    }
    for (int r = 0; r < n; ++r) {
        all_tags_ += rank_tag(r);
    }
    bufs_.assign(n, std::vector<Buf>(CACORE_BUF_TMP0 + p_.ntmp));
    for (int r = 0; r < n; ++r) {
        Buf &in = buf(r, CACORE_BUF_IN);
        for (int b = 0; b < nb; ++b) {
            switch (p_.coll) {
            case CACORE_COLL_BCAST:
            case CACORE_COLL_SCATTER:
                if (r == p_.root) {
                    in.block[b] = b;
                }
                break;
            case CACORE_COLL_REDUCE:
            case CACORE_COLL_ALLREDUCE:
                in.block[b] = b;
                in.red[b] = Contrib{1, r, r, rank_tag(r), true};
                break;
            default:
                if (own_part(r, b, 1)) {
                    in.block[b] = b;
                }
            }
        }
    }
    // Round boundaries per rank.
    std::vector<std::vector<std::pair<size_t, size_t>>> rounds(n);
    for (int r = 0; r < n; ++r) {
        const auto &st = p_.steps[r];
        for (size_t i = 0; i < st.size();) {
            size_t j = i;
            while (j < st.size() && st[j].round == st[i].round) {
                ++j;
            }
            if (i > 0 && st[i].round < st[i - 1].round) {
                res.error = "rank " + std::to_string(r) + ": steps are not sorted by round";
                return res;
            }
            rounds[r].push_back({i, j});
            i = j;
        }
    }
    std::unordered_map<long long, Chan> chans;  // from * n + to
    std::vector<size_t> cur(n, 0);
    std::vector<bool> posted(n, false);
    // Per rank and round: index of each send/recv in its channel.
    std::vector<std::vector<size_t>> slot(n);

    bool progress = true;
    int done = 0;
    for (int r = 0; r < n; ++r) {
        if (rounds[r].empty()) {
            ++done;
        }
    }
    while (progress && done < n) {
        progress = false;
        for (int r = 0; r < n; ++r) {
            if (cur[r] >= rounds[r].size()) {
                continue;
            }
            auto [a, z] = rounds[r][cur[r]];
            const auto &st = p_.steps[r];
            if (!posted[r]) {
                // Local steps first, in order.
                for (size_t i = a; i < z; ++i) {
                    const auto &s = st[i];
                    if (s.kind != CACORE_STEP_COPY && s.kind != CACORE_STEP_REDUCE) {
                        continue;
                    }
                    std::string e = access(r, s.src_buf, s.first_block, s.nblocks, false);
                    if (e.empty()) {
                        e = access(r, s.buf, s.first_block, s.nblocks, true);
                    }
                    if (!e.empty()) {
                        res.error = fail_at(r, s, e);
                        return res;
                    }
                    auto &dst = buf(r, s.buf);
                    auto &src = buf(r, s.src_buf);
                    for (int b = s.first_block; b < s.first_block + s.nblocks; ++b) {
                        if (src.block[b] != b) {
                            res.error = fail_at(r, s, "reads undefined block " + std::to_string(b));
                            return res;
                        }
                        if (s.kind == CACORE_STEP_COPY) {
                            dst.block[b] = src.block[b];
                            if (red_) {
                                dst.red[b] = src.red[b];
                            }
                        } else {
                            if (!red_) {
                                res.error = fail_at(r, s, "reduction in a non-reducing collective");
                                return res;
                            }
                            if (dst.block[b] != b) {
                                res.error = fail_at(r, s, "reduces into undefined block " + std::to_string(b));
                                return res;
                            }
                            dst.red[b] = s.src_first ? combine(src.red[b], dst.red[b])
                                                     : combine(dst.red[b], src.red[b]);
                        }
                    }
                }
                // Then post sends and receives; check conflicts inside the round.
                slot[r].assign(z - a, 0);
                std::vector<std::pair<int, std::pair<int, int>>> recv_ranges, send_ranges;
                for (size_t i = a; i < z; ++i) {
                    const auto &s = st[i];
                    if (s.kind != CACORE_STEP_SEND && s.kind != CACORE_STEP_RECV) {
                        continue;
                    }
                    if (s.peer < 0 || s.peer >= n || s.peer == r) {
                        res.error = fail_at(r, s, "invalid peer");
                        return res;
                    }
                    const bool is_send = s.kind == CACORE_STEP_SEND;
                    std::string e = access(r, s.buf, s.first_block, s.nblocks, !is_send);
                    if (!e.empty()) {
                        res.error = fail_at(r, s, e);
                        return res;
                    }
                    const int mb = map_buf(s.buf);
                    std::pair<int, int> rng{s.first_block, s.first_block + s.nblocks};
                    for (const auto &o : recv_ranges) {
                        if (o.first == mb && o.second.first < rng.second && rng.first < o.second.second) {
                            res.error = fail_at(r, s, "overlaps a receive of the same round");
                            return res;
                        }
                    }
                    if (!is_send) {
                        for (const auto &o : send_ranges) {
                            if (o.first == mb && o.second.first < rng.second && rng.first < o.second.second) {
                                res.error = fail_at(r, s, "receives into blocks sent in the same round");
                                return res;
                            }
                        }
                    }
                    (is_send ? send_ranges : recv_ranges).push_back({mb, rng});
                    if (is_send) {
                        Msg m{s.first_block, s.nblocks, {}, {}};
                        auto &src = buf(r, s.buf);
                        for (int b = s.first_block; b < s.first_block + s.nblocks; ++b) {
                            if (src.block[b] != b) {
                                res.error = fail_at(r, s, "sends undefined block " + std::to_string(b));
                                return res;
                            }
                            m.blocks.push_back(src.block[b]);
                            if (red_) {
                                m.reds.push_back(src.red[b]);
                            }
                        }
                        auto &ch = chans[static_cast<long long>(r) * n + (s.peer)];
                        slot[r][i - a] = ch.sends.size();
                        ch.sends.push_back(std::move(m));
                    } else {
                        auto &ch = chans[static_cast<long long>(s.peer) * n + (r)];
                        slot[r][i - a] = ch.recvs_posted++;
                    }
                }
                posted[r] = true;
                progress = true;
            }
            // Complete the round when every send and receive has its partner.
            bool complete = true;
            for (size_t i = a; i < z && complete; ++i) {
                const auto &s = st[i];
                if (s.kind == CACORE_STEP_SEND) {
                    complete = chans[static_cast<long long>(r) * n + (s.peer)].recvs_posted > slot[r][i - a];
                } else if (s.kind == CACORE_STEP_RECV) {
                    complete = chans[static_cast<long long>(s.peer) * n + (r)].sends.size() > slot[r][i - a];
                }
            }
            if (!complete) {
                continue;
            }
            for (size_t i = a; i < z; ++i) {
                const auto &s = st[i];
                if (s.kind != CACORE_STEP_RECV) {
                    continue;
                }
                Msg &m = chans[static_cast<long long>(s.peer) * n + (r)].sends[slot[r][i - a]];
                if (m.first != s.first_block || m.n != s.nblocks) {
                    std::ostringstream os;
                    os << "matches a send of blocks [" << m.first << "," << m.first + m.n << ")";
                    res.error = fail_at(r, s, os.str());
                    return res;
                }
                auto &dst = buf(r, s.buf);
                for (int k = 0; k < m.n; ++k) {
                    dst.block[m.first + k] = m.blocks[k];
                    if (red_) {
                        dst.red[m.first + k] = m.reds[k];
                    }
                }
                std::vector<int>().swap(m.blocks);  // delivered: free the snapshot
                std::vector<Contrib>().swap(m.reds);
            }
            posted[r] = false;
            ++cur[r];
            if (cur[r] >= rounds[r].size()) {
                ++done;
            }
            progress = true;
        }
    }
    if (done < n) {
        for (int r = 0; r < n; ++r) {
            if (cur[r] >= rounds[r].size()) {
                continue;
            }
            auto [a, z] = rounds[r][cur[r]];
            for (size_t i = a; i < z; ++i) {
                const auto &s = p_.steps[r][i];
                if (s.kind == CACORE_STEP_RECV && chans[static_cast<long long>(s.peer) * n + (r)].sends.size() <= slot[r][i - a]) {
                    res.error = fail_at(r, s, "deadlock: waits for a message the peer never sends "
                                              "(or sends only after waiting itself)");
                    return res;
                }
                if (s.kind == CACORE_STEP_SEND && chans[static_cast<long long>(r) * n + (s.peer)].recvs_posted <= slot[r][i - a]) {
                    res.error = fail_at(r, s, "deadlock: the peer never posts the matching receive");
                    return res;
                }
            }
        }
        res.error = "deadlock";
        return res;
    }
    for (const auto &kv : chans) {
        if (kv.second.sends.size() != kv.second.recvs_posted) {
            res.error = "rank " + std::to_string(kv.first / n) + " sends " +
                        std::to_string(kv.second.sends.size()) + " messages to rank " +
                        std::to_string(kv.first % n) + " which receives " +
                        std::to_string(kv.second.recvs_posted);
            return res;
        }
    }
    res.error = check_final();
    res.ok = res.error.empty();
    res.ordered = res.ok && red_ && ordered_;
    if (res.ok && !red_) {
        res.ordered = true;
    }
    return res;
}

}  // namespace

SimResult simulate(const Plan &p)
{
    Sim s(p);
    return s.run();
}

}  // namespace cacore
