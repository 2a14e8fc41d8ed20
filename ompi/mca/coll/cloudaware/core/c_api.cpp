// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// c_api.cpp - the C API of cloudaware_core.h: handles wrap value types, exceptions become statuses.
#include "cloudaware_core.h"

#include "burst_credit.hpp"
#include "cache_entry.hpp"
#include "calibration_outcome.hpp"
#include "decide.hpp"
#include "decision_memo.hpp"
#include "drift.hpp"
#include "error.hpp"
#include "escape.hpp"
#include "hierarchy.hpp"
#include "matrix.hpp"
#include "matrix_io.hpp"
#include "median.hpp"
#include "names.hpp"
#include "pair_store.hpp"
#include "planner.hpp"
#include "preference.hpp"
#include "rules.hpp"
#include "simulate.hpp"
#include "trace_analysis.hpp"
#include "trial.hpp"
#include "file_text.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

struct cacore_matrix {
    cacore::Matrix m;
};

struct cacore_hierarchy {
    cacore::Hierarchy h;
};

struct cacore_plan {
    cacore::Plan p;
};

struct cacore_rules {
    cacore::Rules r;
};

struct cacore_decision_memo {
    cacore::DecisionMemo memo;
};

namespace {

// A node's CACORE_NODE_VALUES doubles (cloudaware_core.h) and its NodeProps.
cacore::NodeProps node_props_of(const double *v)
{
    return cacore::NodeProps{v[CACORE_NODE_EGRESS], v[CACORE_NODE_INGRESS], v[CACORE_NODE_OVERHEAD],
                             v[CACORE_NODE_LONE],   v[CACORE_NODE_SHARED],  v[CACORE_NODE_BURST],
                             v[CACORE_NODE_LONE2],  v[CACORE_NODE_SHARED2]};
}

void node_values_of(const cacore::NodeProps &p, double *v)
{
    v[CACORE_NODE_EGRESS] = p.egress_Bps;
    v[CACORE_NODE_INGRESS] = p.ingress_Bps;
    v[CACORE_NODE_OVERHEAD] = p.overhead_s;
    v[CACORE_NODE_LONE] = p.lone_Bps;
    v[CACORE_NODE_SHARED] = p.shared_Bps;
    v[CACORE_NODE_BURST] = p.burst_bytes;
    v[CACORE_NODE_LONE2] = p.lone2_Bps;
    v[CACORE_NODE_SHARED2] = p.shared2_Bps;
}

void set_err(char *err, size_t errlen, const std::string &msg)
{
    if (err != nullptr && errlen > 0) {
        std::string line = msg.substr(0, msg.find('\n'));
        std::snprintf(err, errlen, "%s", line.c_str());
    }
}

template <typename F>
cacore_status_t guard(char *err, size_t errlen, F &&f)
{
    try {
        f();
        if (err != nullptr && errlen > 0) {
            err[0] = '\0';
        }
        return CACORE_OK;
    } catch (const cacore::Error &e) {
        set_err(err, errlen, e.what());
        return e.status();
    } catch (const std::bad_alloc &) {
        set_err(err, errlen, "out of memory");
        return CACORE_ERR_NOMEM;
    } catch (const std::exception &e) {
        set_err(err, errlen, std::string("internal error: ") + e.what());
        return CACORE_ERR_INTERNAL;
    } catch (...) {
        set_err(err, errlen, "internal error");
        return CACORE_ERR_INTERNAL;
    }
}

// A C caller can pass any int where the API takes an enum, and in C++ loading a value outside
// the enum's range is undefined behaviour (UBSan's -fsanitize=enum reports it): the boundary
// reads the argument's bytes as the int they are before anything uses it as the enum.
bool coll_ok(const cacore_coll_t &coll)
{
    static_assert(sizeof(cacore_coll_t) == sizeof(int), "cacore_coll_t is an int");
    int v;
    std::memcpy(&v, &coll, sizeof v);
    return v >= 0 && v < CACORE_COLL_COUNT;
}

}  // namespace

extern "C" {

const char *cacore_version(void) { return "cloudaware-core 1.0"; }

const char *cacore_coll_name(int coll) { return cacore::coll_name(coll); }
const char *cacore_algo_name(int algo) { return cacore::algo_name(algo); }
const char *cacore_pattern_name(int pattern) { return cacore::pattern_name(pattern); }
const char *cacore_level_name(int level) { return cacore::level_name(level); }
const char *cacore_prev_name(int prev) { return cacore::prev_name(prev); }
const char *cacore_trial_name(int trial) { return cacore::trial_name(trial); }

cacore_status_t cacore_matrix_read_file(const char *path, cacore_matrix_t **out, char *err,
                                        size_t errlen)
{
    return guard(err, errlen, [&] {
        if (path == nullptr || out == nullptr) {
            cacore::fail_arg("cacore_matrix_read_file: NULL argument");
        }
        *out = nullptr;
        *out = new cacore_matrix{cacore::read_matrix_file(path)};
    });
}

cacore_status_t cacore_matrix_write_file(const cacore_matrix_t *m, const char *path, char *err,
                                         size_t errlen)
{
    return guard(err, errlen, [&] {
        if (path == nullptr || m == nullptr) {
            cacore::fail_arg("cacore_matrix_write_file: NULL argument");
        }
        cacore::write_matrix_file(m->m, path);
    });
}

cacore_status_t cacore_matrix_create(int n, const char *const *hosts, const double *latency_s,
                                     const double *bandwidth_Bps, cacore_matrix_t **out,
                                     char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (out == nullptr) {
            cacore::fail_arg("cacore_matrix_create: NULL out");
        }
        *out = nullptr;
        if (n < 1 || n > cacore::kMaxMatrixNodes) {
            cacore::fail_arg("cacore_matrix_create: node count " + std::to_string(n) +
                             " out of range 1.." + std::to_string(cacore::kMaxMatrixNodes));
        }
        if (hosts == nullptr || latency_s == nullptr || bandwidth_Bps == nullptr) {
            cacore::fail_arg("cacore_matrix_create: NULL argument");
        }
        std::vector<std::string> h;
        for (int i = 0; i < n; ++i) {
            if (hosts[i] == nullptr) {
                cacore::fail_arg("cacore_matrix_create: host " + std::to_string(i) + " is NULL");
            }
            h.emplace_back(hosts[i]);
        }
        const size_t nn = static_cast<size_t>(n) * n;
        *out = new cacore_matrix{cacore::Matrix(std::move(h),
                                                std::vector<double>(latency_s, latency_s + nn),
                                                std::vector<double>(bandwidth_Bps, bandwidth_Bps + nn))};
    });
}

int cacore_matrix_nodes(const cacore_matrix_t *m) { return m ? m->m.nodes() : 0; }

cacore_status_t cacore_matrix_set_node_props(cacore_matrix_t *m, const double *props, char *err,
                                             size_t errlen)
{
    return guard(err, errlen, [&] {
        if (m == nullptr) {
            cacore::fail_arg("cacore_matrix_set_node_props: NULL matrix");
        }
        std::vector<cacore::NodeProps> v;
        if (props != nullptr) {
            v.resize(static_cast<size_t>(m->m.nodes()));
            for (size_t i = 0; i < v.size(); ++i) {
                v[i] = node_props_of(props + CACORE_NODE_VALUES * i);
            }
        }
        m->m.set_node_props(std::move(v));
    });
}

cacore_status_t cacore_node_props_check(const double *props, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (props == nullptr) {
            cacore::fail_arg("cacore_node_props_check: NULL values");
        }
        const std::string problem = cacore::node_props_problem(node_props_of(props));
        if (!problem.empty()) {
            cacore::fail_arg(problem);
        }
    });
}

int cacore_matrix_node_props(const cacore_matrix_t *m, int i, double props[CACORE_NODE_VALUES])
{
    if (m == nullptr || props == nullptr || !m->m.has_node_props() || i < 0 || i >= m->m.nodes()) {
        return 0;
    }
    node_values_of(m->m.node_props(i), props);
    return 1;
}

const char *cacore_matrix_host(const cacore_matrix_t *m, int i)
{
    if (m == nullptr || i < 0 || i >= m->m.nodes()) {
        return nullptr;
    }
    return m->m.host(i).c_str();
}

double cacore_matrix_latency(const cacore_matrix_t *m, int from, int to)
{
    if (m == nullptr || from < 0 || to < 0 || from >= m->m.nodes() || to >= m->m.nodes()) {
        return -1.0;
    }
    return m->m.latency(from, to);
}

double cacore_matrix_bandwidth(const cacore_matrix_t *m, int from, int to)
{
    if (m == nullptr || from < 0 || to < 0 || from >= m->m.nodes() || to >= m->m.nodes()) {
        return -1.0;
    }
    return m->m.bandwidth(from, to);
}

void cacore_matrix_free(cacore_matrix_t *m) { delete m; }

cacore_status_t cacore_matrix_sub(const cacore_matrix_t *m, const int *nodes, int count,
                                  cacore_matrix_t **out, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (m == nullptr || nodes == nullptr || out == nullptr || count < 1) {
            cacore::fail_arg("cacore_matrix_sub: NULL argument or empty node list");
        }
        *out = nullptr;
        *out = new cacore_matrix{m->m.sub(std::vector<int>(nodes, nodes + count))};
    });
}

int cacore_matrix_find_host(const cacore_matrix_t *m, const char *host)
{
    if (m == nullptr || host == nullptr) {
        return -1;
    }
    for (int i = 0; i < m->m.nodes(); ++i) {
        if (m->m.host(i) == host) {
            return i;
        }
    }
    return -1;
}

// ---- hierarchy ------------------------------------------------------------------------------

void cacore_hier_params_default(cacore_hier_params_t *p)
{
    if (p != nullptr) {
        cacore::HierParams d;
        p->k = d.k;
        p->t_span = d.t_span;
    }
}

cacore_status_t cacore_hierarchy_build(const cacore_matrix_t *m, double msg_bytes,
                                       const cacore_hier_params_t *params,
                                       cacore_hierarchy_t **out, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (m == nullptr || out == nullptr) {
            cacore::fail_arg("cacore_hierarchy_build: NULL argument");
        }
        *out = nullptr;
        cacore::HierParams hp;
        if (params != nullptr) {
            hp.k = params->k;
            hp.t_span = params->t_span;
        }
        *out = new cacore_hierarchy{cacore::build_hierarchy(m->m, msg_bytes, hp)};
    });
}

static bool level_ok(const cacore_hierarchy_t *h, int level)
{
    return h != nullptr && level >= 0 && level < h->h.levels();
}

static bool group_ok(const cacore_hierarchy_t *h, int level, int group)
{
    return level_ok(h, level) && group >= 0 && group < static_cast<int>(h->h.level(level).size());
}

int cacore_hierarchy_levels(const cacore_hierarchy_t *h) { return h ? h->h.levels() : 0; }

int cacore_hierarchy_ngroups(const cacore_hierarchy_t *h, int level)
{
    return level_ok(h, level) ? static_cast<int>(h->h.level(level).size()) : 0;
}

int cacore_hierarchy_group_size(const cacore_hierarchy_t *h, int level, int group)
{
    return group_ok(h, level, group) ? static_cast<int>(h->h.group(level, group).members.size()) : 0;
}

const int *cacore_hierarchy_group_members(const cacore_hierarchy_t *h, int level, int group)
{
    return group_ok(h, level, group) ? h->h.group(level, group).members.data() : nullptr;
}

int cacore_hierarchy_group_leader(const cacore_hierarchy_t *h, int level, int group)
{
    return group_ok(h, level, group) ? h->h.group(level, group).leader : -1;
}

int cacore_hierarchy_distance(const cacore_hierarchy_t *h, int a, int b)
{
    if (h == nullptr || a < 0 || b < 0 || a >= h->h.nodes() || b >= h->h.nodes()) {
        return -1;
    }
    return h->h.distance(a, b);
}

void cacore_hierarchy_free(cacore_hierarchy_t *h) { delete h; }

// ---- cost and plans ---------------------------------------------------------------------------

void cacore_cost_params_default(cacore_cost_params_t *p)
{
    if (p != nullptr) {
        *p = cacore::CostParams().to_c();
    }
}

void cacore_plan_params_default(cacore_plan_params_t *p)
{
    if (p == nullptr) {
        return;
    }
    std::memset(p, 0, sizeof *p);
    cacore_hier_params_default(&p->hier);
    cacore_cost_params_default(&p->cost);
    p->algo = CACORE_ALGO_AUTO;
    for (int i = 0; i < CACORE_PLAN_LEVELS; ++i) {
        p->pattern[i] = CACORE_PAT_AUTO;
    }
    p->segment_bytes = 0;
    p->relay = 1;
}

cacore_status_t cacore_plan_build(const cacore_matrix_t *m, int nranks, const int *rank_node,
                                  cacore_coll_t coll, int root, size_t bytes, size_t count,
                                  const cacore_plan_params_t *params, cacore_plan_t **out,
                                  char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (m == nullptr || out == nullptr || rank_node == nullptr) {
            cacore::fail_arg("cacore_plan_build: NULL argument");
        }
        *out = nullptr;
        if (nranks < 1) {
            cacore::fail_arg("cacore_plan_build: nranks must be >= 1");
        }
        if (!coll_ok(coll)) {
            cacore::fail_arg("cacore_plan_build: unknown collective");
        }
        cacore_plan_params_t def;
        cacore_plan_params_default(&def);
        cacore::PlanParams pp = cacore::PlanParams::from_c(params ? *params : def);
        cacore::PlanInput in;
        in.matrix = &m->m;
        in.rank_node.assign(rank_node, rank_node + nranks);
        in.coll = coll;
        in.root = root;
        in.bytes = static_cast<double>(bytes);
        in.count = count;
        *out = new cacore_plan{cacore::build_plan(in, pp)};
    });
}

void cacore_decide_input_default(cacore_decide_input_t *in)
{
    if (in == nullptr) {
        return;
    }
    std::memset(in, 0, sizeof(*in));
    in->coll = CACORE_COLL_BCAST;
    in->bytes = in->count = 1;
    in->commutative = 1;
    in->trial = CACORE_TRIAL_UNKNOWN;
    in->previous = CACORE_PREV_TUNED;
    in->min_gain = 0.1;
    in->large_message = 65536;
    in->trial_spread = 2.0;
    in->trial_peer = 1;
    cacore_plan_params_default(&in->params);
}

cacore_status_t cacore_decide(const cacore_matrix_t *m, int nranks, const int *rank_node,
                              const cacore_decide_input_t *in, cacore_decision_t *out,
                              char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (m == nullptr || rank_node == nullptr || in == nullptr || out == nullptr) {
            cacore::fail_arg("cacore_decide: NULL argument");
        }
        std::memset(out, 0, sizeof(*out));
        if (nranks < 1) {
            cacore::fail_arg("cacore_decide: nranks must be >= 1");
        }
        if (!coll_ok(in->coll)) {
            cacore::fail_arg("cacore_decide: unknown collective");
        }
        cacore::DecideInput d;
        d.in.matrix = &m->m;
        d.in.rank_node.assign(rank_node, rank_node + nranks);
        d.in.coll = in->coll;
        d.in.root = in->root;
        d.in.bytes = static_cast<double>(in->bytes);
        d.in.count = in->count;
        d.commutative = in->commutative != 0;
        d.rule = in->rule;
        d.trial = in->trial;
        d.previous = in->previous;
        d.min_gain = in->min_gain;
        d.large_message = static_cast<double>(in->large_message);
        d.trial_spread = in->trial_spread;
        d.trial_peer = in->trial_peer != 0;
        d.params = cacore::PlanParams::from_c(in->params);
        std::optional<cacore::Decision> kept;
        if (in->memo != nullptr) {
            kept = in->memo->memo.find(d);
        }
        cacore::Decision dec = kept ? std::move(*kept) : cacore::decide(d);
        out->remembered = kept ? 1 : 0;
        if (in->memo != nullptr && !kept) {
            try {
                in->memo->memo.put(d, dec);
            } catch (const std::bad_alloc &) {
                // not kept: the next identical inputs are decided again
            }
        }
        out->plan_s = dec.have_plan ? dec.plan.predicted_s : -1.0;
        out->alternative_s = dec.have_alternative ? dec.alternative.predicted_s : -1.0;
        std::snprintf(out->alternative_note, sizeof(out->alternative_note), "%s",
                      dec.have_alternative ? dec.alternative_note.c_str() : "");
        out->peer_s = dec.have_peer ? dec.peer.predicted_s : -1.0;
        out->previous_s = dec.previous_s;
        out->problem = dec.problem ? 1 : 0;
        std::snprintf(out->previous, sizeof(out->previous), "%s", dec.previous.c_str());
        std::snprintf(out->reason, sizeof(out->reason), "%s", dec.reason.c_str());
        // Every plan is allocated before any is handed out: on bad_alloc none leaks.
        std::unique_ptr<cacore_plan> plan, alt, peer;
        if (dec.have_plan && (dec.run_plan || dec.plan_usable)) {
            plan = std::make_unique<cacore_plan>(cacore_plan{std::move(dec.plan)});
        }
        if (dec.have_alternative) {
            alt = std::make_unique<cacore_plan>(cacore_plan{std::move(dec.alternative)});
        }
        if (dec.have_peer) {
            peer = std::make_unique<cacore_plan>(cacore_plan{std::move(dec.peer)});
        }
        (dec.run_alternative ? out->plan : out->alternative) = alt.release();
        (dec.run_peer ? out->plan : out->peer) = peer.release();
        (dec.run_plan ? out->plan : out->declined) = plan.release();
    });
}

cacore_status_t cacore_decision_memo_create(cacore_decision_memo_t **out, char *err,
                                            size_t errlen)
{
    return guard(err, errlen, [&] {
        if (out == nullptr) {
            cacore::fail_arg("cacore_decision_memo_create: NULL argument");
        }
        *out = new cacore_decision_memo();
    });
}

int cacore_decision_memo_size(const cacore_decision_memo_t *memo)
{
    return memo != nullptr ? static_cast<int>(memo->memo.size()) : 0;
}

void cacore_decision_memo_free(cacore_decision_memo_t *memo) { delete memo; }

int cacore_preference_admits(const char *preference, const char *component)
{
    return preference == nullptr || component == nullptr ||
           cacore::preference_admits(preference, component);
}

cacore_coll_t cacore_plan_coll(const cacore_plan_t *p) { return p ? p->p.coll : CACORE_COLL_COUNT; }
int cacore_plan_nranks(const cacore_plan_t *p) { return p ? p->p.nranks : 0; }
int cacore_plan_nblocks(const cacore_plan_t *p) { return p ? p->p.nblocks : 0; }
int cacore_plan_ntmp(const cacore_plan_t *p) { return p ? p->p.ntmp : 0; }

int cacore_plan_nsteps(const cacore_plan_t *p, int rank)
{
    if (p == nullptr || rank < 0 || rank >= p->p.nranks) {
        return 0;
    }
    return static_cast<int>(p->p.steps[rank].size());
}

const cacore_step_t *cacore_plan_steps(const cacore_plan_t *p, int rank)
{
    if (p == nullptr || rank < 0 || rank >= p->p.nranks) {
        return nullptr;
    }
    return p->p.steps[rank].data();
}

int cacore_plan_preserves_order(const cacore_plan_t *p) { return p && p->p.preserves_order ? 1 : 0; }
const char *cacore_plan_describe(const cacore_plan_t *p) { return p ? p->p.description.c_str() : ""; }
double cacore_plan_predicted(const cacore_plan_t *p) { return p ? p->p.predicted_s : -1.0; }

cacore_status_t cacore_plan_predict(const cacore_plan_t *p, const cacore_matrix_t *m,
                                    const int *rank_node, size_t bytes,
                                    const cacore_cost_params_t *cost, double *seconds,
                                    char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (p == nullptr || m == nullptr || rank_node == nullptr || seconds == nullptr) {
            cacore::fail_arg("cacore_plan_predict: NULL argument");
        }
        cacore::CostParams cp = cost ? cacore::CostParams::from_c(*cost) : cacore::CostParams();
        cacore::Plan plan = p->p;
        plan.total_bytes = cacore::is_gather_type(plan.coll) ? static_cast<double>(bytes) * plan.nranks
                                                             : static_cast<double>(bytes);
        *seconds = cacore::predict(plan, m->m, std::vector<int>(rank_node, rank_node + plan.nranks), cp);
    });
}

cacore_status_t cacore_plan_check(const cacore_plan_t *p, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (p == nullptr) {
            cacore::fail_arg("cacore_plan_check: NULL plan");
        }
        cacore::SimResult r = cacore::simulate(p->p);
        if (!r.ok) {
            throw cacore::Error(CACORE_ERR_INTERNAL, r.error);
        }
    });
}

void cacore_plan_free(cacore_plan_t *p) { delete p; }

/* ---- rules ---- */

cacore_status_t cacore_rules_read_file(const char *path, cacore_rules_t **out, char *err,
                                       size_t errlen)
{
    return guard(err, errlen, [&] {
        if (path == nullptr || out == nullptr) {
            cacore::fail_arg("cacore_rules_read_file: NULL argument");
        }
        *out = new cacore_rules{cacore::read_rules_file(path)};
    });
}

cacore_status_t cacore_rules_parse(const char *text, const char *name, cacore_rules_t **out,
                                   char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (text == nullptr || out == nullptr) {
            cacore::fail_arg("cacore_rules_parse: NULL argument");
        }
        *out = new cacore_rules{cacore::parse_rules(text, name ? name : "<rules>")};
    });
}

int cacore_rules_count(const cacore_rules_t *r)
{
    return r == nullptr ? 0 : static_cast<int>(r->r.rules.size());
}

int cacore_rules_lookup(const cacore_rules_t *r, cacore_coll_t coll, int nodes, size_t bytes,
                        cacore_rule_t *out)
{
    const cacore::Rule *rule =
        (r == nullptr || !coll_ok(coll)) ? nullptr : r->r.lookup(coll, nodes, bytes);
    if (rule == nullptr || out == nullptr) {
        return 0;
    }
    *out = rule->action;
    return 1;
}

void cacore_rules_free(cacore_rules_t *r) { delete r; }

void cacore_cache_entry_name(uint64_t key, char name[CACORE_CACHE_NAME_MAX])
{
    std::snprintf(name, CACORE_CACHE_NAME_MAX, "%s", cacore::cache_entry_name(key).c_str());
}

void cacore_cache_temp_name(uint64_t key, uint64_t nonce, char name[CACORE_CACHE_NAME_MAX])
{
    std::snprintf(name, CACORE_CACHE_NAME_MAX, "%s", cacore::cache_temp_name(key, nonce).c_str());
}

int cacore_cache_is_temp_name(const char *name)
{
    return name != nullptr && cacore::is_cache_temp_name(name) ? 1 : 0;
}

cacore_cache_age_t cacore_cache_age(int64_t mtime_s, int64_t now_s, int64_t max_age_s)
{
    static_assert(CACORE_CACHE_CLOCK_SLACK_S == cacore::kCacheClockSlack, "one slack");
    switch (cacore::cache_age(mtime_s, now_s, max_age_s)) {
    case cacore::CacheAge::Old:
        return CACORE_CACHE_OLD;
    case cacore::CacheAge::Future:
        return CACORE_CACHE_FUTURE;
    default:
        return CACORE_CACHE_FRESH;
    }
}

cacore_status_t cacore_cache_entry_values(const cacore_matrix_t *entry, int n,
                                          const char *const *hosts, double *L, double *B,
                                          unsigned char *known, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (entry == nullptr || hosts == nullptr || L == nullptr || B == nullptr ||
            known == nullptr || n < 1) {
            cacore::fail_arg("cacore_cache_entry_values: NULL argument or empty node set");
        }
        std::vector<std::string> names;
        names.reserve(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) {
            if (hosts[i] == nullptr) {
                cacore::fail_arg("cacore_cache_entry_values: NULL host name");
            }
            names.emplace_back(hosts[i]);
        }
        const std::vector<int> idx = cacore::cache_entry_match(entry->m, names);
        const size_t un = static_cast<size_t>(n);
        for (size_t i = 0; i < un; ++i) {
            for (size_t j = 0; j < un; ++j) {
                const bool off = i != j;
                L[i * un + j] = off ? entry->m.latency(idx[i], idx[j]) : 0.0;
                B[i * un + j] = off ? entry->m.bandwidth(idx[i], idx[j]) : 0.0;
                known[i * un + j] = off ? 1 : 0;
            }
        }
    });
}

cacore_status_t cacore_cache_entry_node_props(const cacore_matrix_t *entry, int n,
                                              const char *const *hosts, double *props, char *err,
                                              size_t errlen)
{
    return guard(err, errlen, [&] {
        if (entry == nullptr || hosts == nullptr || props == nullptr || n < 1) {
            cacore::fail_arg("cacore_cache_entry_node_props: NULL argument or empty node set");
        }
        std::vector<std::string> names;
        for (int i = 0; i < n; ++i) {
            if (hosts[i] == nullptr) {
                cacore::fail_arg("cacore_cache_entry_node_props: NULL host name");
            }
            names.emplace_back(hosts[i]);
        }
        const std::vector<int> idx = cacore::cache_entry_match(entry->m, names);
        if (!entry->m.has_node_props()) {
            throw cacore::Error(CACORE_ERR_FORMAT, "was written by an older version (cloudaware-"
                                                   "matrix 1, without node capacities)");
        }
        for (int i : idx) {
            const cacore::NodeProps &p = entry->m.node_props(i);
            if (p.burst_bytes < 0 || p.lone2_Bps < 0) {
                throw cacore::Error(CACORE_ERR_FORMAT,
                                    "was written by an older version (cloudaware-matrix 2 to 4, "
                                    "without burst credit or the second lone sample)");
            }
        }
        for (size_t i = 0; i < names.size(); ++i) {
            const cacore::NodeProps &p = entry->m.node_props(idx[i]);
            node_values_of(p, props + CACORE_NODE_VALUES * i);
        }
    });
}

cacore_status_t cacore_cache_entry_format(const cacore_matrix_t *m, uint64_t key, char **text,
                                          size_t *len, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (m == nullptr || text == nullptr || len == nullptr) {
            cacore::fail_arg("cacore_cache_entry_format: NULL argument");
        }
        *text = nullptr;
        const std::string s = cacore::format_cache_entry(m->m, key);
        char *buf = static_cast<char *>(std::malloc(s.size() + 1));
        if (buf == nullptr) {
            throw std::bad_alloc();
        }
        std::memcpy(buf, s.c_str(), s.size() + 1);
        *text = buf;
        *len = s.size();
    });
}

/* ---- digests: do all ranks hold the same file content? ---- */

namespace {

const uint64_t fnv_offset = 14695981039346656037ULL;

uint64_t fnv_bytes(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = static_cast<const unsigned char *>(p);
    for (size_t i = 0; i < len; i++) {
        h = (h ^ b[i]) * 1099511628211ULL;
    }
    return h;
}

uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++) {
        b[i] = static_cast<unsigned char>(v >> (8 * i));   // fixed byte order
    }
    return fnv_bytes(h, b, sizeof b);
}

uint64_t fnv_double(uint64_t h, double d)
{
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return fnv_u64(h, bits);
}

/* 0 is reserved for "no content"; a real digest that happens to be 0 becomes 1. */
uint64_t nonzero(uint64_t h) { return h == 0 ? 1 : h; }

}  // namespace

uint64_t cacore_matrix_digest(const cacore_matrix_t *m)
{
    if (m == nullptr) {
        return 0;
    }
    const cacore::Matrix &x = m->m;
    int n = x.nodes();
    uint64_t h = fnv_u64(fnv_offset, static_cast<uint64_t>(n));
    for (int i = 0; i < n; i++) {
        h = fnv_bytes(h, x.host(i).c_str(), x.host(i).size() + 1);
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            h = fnv_double(fnv_double(h, x.latency(i, j)), x.bandwidth(i, j));
        }
    }
    for (int i = 0; x.has_node_props() && i < n; i++) {
        const cacore::NodeProps &p = x.node_props(i);
        h = fnv_double(fnv_double(fnv_double(h, p.egress_Bps), p.ingress_Bps), p.overhead_s);
        h = fnv_double(fnv_double(fnv_double(h, p.lone_Bps), p.shared_Bps), p.burst_bytes);
        h = fnv_double(fnv_double(h, p.lone2_Bps), p.shared2_Bps);
    }
    return nonzero(h);
}

uint64_t cacore_rules_digest(const cacore_rules_t *r)
{
    if (r == nullptr) {
        return 0;
    }
    uint64_t h = fnv_u64(fnv_offset, r->r.rules.size());
    for (const cacore::Rule &rule : r->r.rules) {
        const cacore_rule_t &a = rule.action;
        h = fnv_u64(h, static_cast<uint64_t>(static_cast<int64_t>(rule.coll)));
        h = fnv_u64(h, static_cast<uint64_t>(rule.min_nodes));
        h = fnv_u64(h, rule.min_bytes);
        h = fnv_u64(h, static_cast<uint64_t>(a.choice));
        h = fnv_u64(h, static_cast<uint64_t>(a.algo));
        for (int l = 0; l < CACORE_PLAN_LEVELS; l++) {
            h = fnv_u64(h, static_cast<uint64_t>(a.pattern[l]));
        }
        h = fnv_u64(h, a.segment_bytes);
    }
    return nonzero(h);
}

/* ---- quoting input ---- */

char *cacore_escape(const char *text, char *out, size_t outlen)
{
    if (out == nullptr || outlen == 0) {
        return out;
    }
    out[0] = '\0';
    if (text == nullptr) {
        return out;
    }
    // Byte by byte, so that an escape that does not fit whole is left out, never cut in half.
    size_t len = 0;
    for (const char *p = text; *p != '\0'; ++p) {
        const std::string unit = cacore::escape(std::string_view(p, 1));
        if (len + unit.size() > outlen - 1) {
            break;
        }
        std::memcpy(out + len, unit.data(), unit.size());
        len += unit.size();
    }
    out[len] = '\0';
    return out;
}

}  // extern "C"

// ---- Pair store ----

struct cacore_store {
    cacore::PairStore s;
};

namespace {

std::vector<std::string> host_list(int n, const char *const *hosts, const char *what)
{
    if (n < 0 || (n > 0 && hosts == nullptr)) {
        cacore::fail_arg(std::string(what) + ": bad host list");
    }
    std::vector<std::string> h;
    h.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        if (hosts[i] == nullptr) {
            cacore::fail_arg(std::string(what) + ": host " + std::to_string(i) + " is NULL");
        }
        h.emplace_back(hosts[i]);
    }
    return h;
}

}  // namespace

extern "C" {

cacore_status_t cacore_store_create(cacore_store_t **out, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (out == nullptr) {
            cacore::fail_arg("cacore_store_create: NULL out");
        }
        *out = nullptr;
        *out = new cacore_store{};
    });
}

cacore_status_t cacore_store_merge(cacore_store_t *s, int n, const char *const *hosts,
                                   const double *latency_s, const double *bandwidth_Bps,
                                   const unsigned char *known, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (s == nullptr) {
            cacore::fail_arg("cacore_store_merge: NULL store");
        }
        s->s.merge(host_list(n, hosts, "cacore_store_merge"), latency_s, bandwidth_Bps, known);
    });
}

cacore_status_t cacore_store_merge_matrix(cacore_store_t *s, const cacore_matrix_t *m, char *err,
                                          size_t errlen)
{
    return guard(err, errlen, [&] {
        if (s == nullptr || m == nullptr) {
            cacore::fail_arg("cacore_store_merge_matrix: NULL argument");
        }
        s->s.merge(m->m);
    });
}

cacore_status_t cacore_store_lookup(const cacore_store_t *s, int n, const char *const *hosts,
                                    double *latency_s, double *bandwidth_Bps,
                                    unsigned char *known, size_t *nknown, char *err,
                                    size_t errlen)
{
    return guard(err, errlen, [&] {
        if (s == nullptr || nknown == nullptr) {
            cacore::fail_arg("cacore_store_lookup: NULL argument");
        }
        *nknown = 0;
        *nknown = s->s.lookup(host_list(n, hosts, "cacore_store_lookup"), latency_s,
                              bandwidth_Bps, known);
    });
}

cacore_status_t cacore_store_merge_nodes(cacore_store_t *s, int n, const char *const *hosts,
                                         const double *props, const unsigned char *known,
                                         char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (s == nullptr || (n > 0 && props == nullptr)) {
            cacore::fail_arg("cacore_store_merge_nodes: NULL argument");
        }
        std::vector<cacore::NodeProps> v(static_cast<size_t>(n > 0 ? n : 0));
        for (size_t i = 0; i < v.size(); ++i) {
            v[i] = node_props_of(props + CACORE_NODE_VALUES * i);
        }
        s->s.merge_nodes(host_list(n, hosts, "cacore_store_merge_nodes"), v.data(), known);
    });
}

cacore_status_t cacore_store_lookup_nodes(const cacore_store_t *s, int n,
                                          const char *const *hosts, double *props,
                                          unsigned char *known, size_t *nknown, char *err,
                                          size_t errlen)
{
    return guard(err, errlen, [&] {
        if (s == nullptr || nknown == nullptr || (n > 0 && props == nullptr)) {
            cacore::fail_arg("cacore_store_lookup_nodes: NULL argument");
        }
        *nknown = 0;
        std::vector<cacore::NodeProps> v(static_cast<size_t>(n > 0 ? n : 0));
        *nknown = s->s.lookup_nodes(host_list(n, hosts, "cacore_store_lookup_nodes"), v.data(),
                                    known);
        for (size_t i = 0; i < v.size(); ++i) {
            node_values_of(v[i], props + CACORE_NODE_VALUES * i);
        }
    });
}

int cacore_store_hosts(const cacore_store_t *s) { return s == nullptr ? 0 : s->s.hosts(); }

size_t cacore_store_pairs(const cacore_store_t *s) { return s == nullptr ? 0 : s->s.pairs(); }

void cacore_store_free(cacore_store_t *s) { delete s; }

const char *cacore_fail_point_name(int point) { return cacore::fail_point_name(point); }

double cacore_calib_budget(double per_8_nodes_s, int nnodes)
{
    return cacore::calib_budget(per_8_nodes_s, nnodes);
}

cacore_status_t cacore_calib_tree(int nranks, int rank, cacore_calib_tree_t *t)
{
    if (t == nullptr || rank < 0 || rank >= nranks) {
        return CACORE_ERR_ARG;
    }
    *t = cacore::calib_tree(nranks, rank);
    return CACORE_OK;
}

const char *cacore_fail_point_cause(int point) { return cacore::fail_point_cause(point); }

cacore_calib_verdict_t cacore_calib_failure_cause(const cacore_calib_inputs_t *in,
                                                  const cacore_calib_report_t *rep, char *cause,
                                                  size_t len)
{
    if (in == nullptr || rep == nullptr || in->nranks <= 0 || in->nnodes <= 0) {
        std::snprintf(cause, len, "cacore_calib_failure_cause: invalid argument");
        return CACORE_CALIB_FAILS;
    }
    try {
        bool at_start = false;
        const std::string text = cacore::failure_cause(*in, rep, &at_start);
        std::snprintf(cause, len, "%s", text.c_str());
        return text.empty() ? CACORE_CALIB_STANDS
             : at_start     ? CACORE_CALIB_START_FAILED
                            : CACORE_CALIB_FAILS;
    } catch (...) {   // only std::bad_alloc can come here
        std::snprintf(cause, len, "rank 0: out of memory wording the cause");
        return CACORE_CALIB_FAILS;
    }
}

cacore_calib_summary_t cacore_calib_summarize(int n, const double *latency_s,
                                              const double *bandwidth_Bps)
{
    try {
        return cacore::summarize(n, latency_s, bandwidth_Bps);
    } catch (...) {   // std::bad_alloc: no summary (zeros), it is only printed
        return cacore_calib_summary_t{};
    }
}

}  // extern "C"

// ---- Live trial ----

struct cacore_trial_book {
    cacore::TrialBook b;
};

namespace {

cacore::TrialKey trial_key(const cacore_trial_key_t *k)
{
    cacore::TrialKey t;
    t.layout = k->layout;
    t.coll = k->coll;
    t.root = k->root;
    t.bytes_class = k->bytes_class;
    t.count_class = k->count_class;
    t.plan = k->plan == nullptr ? "" : k->plan;
    return t;
}

// A trial result across the C API: the outcome, the medians and the standing (rank_z and by_mean
// are the judgement's alone, cacore_trial_judge).
cacore::TrialResult trial_result(const cacore_trial_result_t &r)
{
    cacore::TrialResult t;
    t.outcome = r.outcome;
    t.plan_s = r.plan_s;
    t.previous_s = r.previous_s;
    t.alternative_s = r.alternative_s;
    t.peer_s = r.peer_s;
    t.provisional = r.provisional != 0;
    return t;
}

cacore_trial_result_t trial_result(const cacore::TrialResult &t)
{
    cacore_trial_result_t r = { t.outcome, t.plan_s, t.previous_s, t.alternative_s, t.peer_s,
                                0.0, t.provisional ? 1 : 0, 0 };
    return r;
}

constexpr size_t kMaxTrialBookBytes = size_t(1) << 20;

// The outcome's bytes as the int they are (see coll_ok()).
int outcome_int(const cacore_trial_t &o)
{
    static_assert(sizeof(cacore_trial_t) == sizeof(int), "an enum is an int");
    int v;
    std::memcpy(&v, &o, sizeof v);
    return v;
}

// A trial's call times as the C API passes them (variant count x calls_per_variant doubles);
// throws Error(CACORE_ERR_ARG) naming `who` on a NULL pointer (times, or the output when
// out_given is false), no calls or an unknown variant bit.
std::vector<double> trial_times(const char *who, const double *times, int calls_per_variant,
                                int with, bool out_given)
{
    if (times == nullptr || !out_given || calls_per_variant < 1 || !cacore::trial_with_ok(with)) {
        cacore::fail_arg(std::string(who) + ": NULL argument, no calls or unknown variants");
    }
    const size_t variants = static_cast<size_t>(cacore::trial_variant_count(with));
    return std::vector<double>(times, times + variants * static_cast<size_t>(calls_per_variant));
}

}  // namespace

extern "C" {

int cacore_trial_variant_count(int with)
{
    return cacore::trial_with_ok(with) ? cacore::trial_variant_count(with) : 0;
}

cacore_trial_variant_t cacore_trial_variant(int k, int calls_per_variant, int with)
{
    // Out of range: the plan (the C side never asks for an unknown variant).
    return cacore::trial_with_ok(with) && k >= 0
               ? cacore::trial_variant(k, calls_per_variant, with)
               : CACORE_TRIAL_RUN_PLAN;
}

int cacore_trial_calls(int base, double budget_s, double predicted_s)
{
    return cacore::trial_calls(base, budget_s, predicted_s);
}

int cacore_trial_cut_checked(double cut, int calls_per_variant, double budget_s,
                             double predicted_s)
{
    return cacore::trial_cut_checked(cut, calls_per_variant, budget_s, predicted_s) ? 1 : 0;
}

int cacore_trial_cut(const double *first_s, int n, double cut)
{
    // A bad argument cuts nothing: the variant runs its calls, as without the check.
    if (first_s == nullptr || n < 2) {
        return 0;
    }
    try {
        return cacore::trial_cut(std::vector<double>(first_s, first_s + n), cut) ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

int cacore_trial_extra(int extra, int calls_per_variant)
{
    return cacore::trial_extra(extra, calls_per_variant);
}

int cacore_trial_settled(const double *judged, int n, double margin, double *median_out)
{
    // A bad argument settles: the variant runs no extra call, as without the check.
    double m = 0.0;
    int settled = 1;
    if (judged != nullptr && n >= 1) {
        try {
            const std::vector<double> v(judged, judged + n);
            settled = cacore::trial_settled(v, margin) ? 1 : 0;
            m = cacore::median(v);
        } catch (...) {
            settled = 1;
        }
    }
    if (median_out != nullptr) {
        *median_out = m;
    }
    return settled;
}

int cacore_trial_over(int k, int calls_per_variant, int with)
{
    return !cacore::trial_with_ok(with) || cacore::trial_over(k, calls_per_variant, with) ? 1 : 0;
}

cacore_status_t cacore_trial_judge(const double *times, int calls_per_variant, int with,
                                   double margin, int model_chose_plan, const double *slowest,
                                   cacore_trial_result_t *out, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        const std::vector<double> t =
            trial_times("cacore_trial_judge", times, calls_per_variant, with, out != nullptr);
        const size_t variants = static_cast<size_t>(cacore::trial_variant_count(with));
        const std::vector<double> sl = slowest != nullptr
                                           ? std::vector<double>(slowest, slowest + variants)
                                           : std::vector<double>();
        const cacore::TrialResult r = cacore::trial_judge(t, calls_per_variant, with, margin,
                                                              model_chose_plan != 0, sl);
        *out = trial_result(r);   // not provisional: the caller's cacore_trial_provisional
        out->rank_z = r.rank_z;
        out->by_mean = r.by_mean ? 1 : 0;
    });
}

int cacore_trial_short(int calls_per_variant)
{
    return cacore::trial_short(calls_per_variant) ? 1 : 0;
}

int cacore_trial_provisional(int outcome, int short_calls, int prior)
{
    const auto known = [](int o) { return o > CACORE_TRIAL_UNKNOWN && o < CACORE_TRIAL_COUNT; };
    return cacore::trial_provisional(
               known(outcome) ? static_cast<cacore_trial_t>(outcome) : CACORE_TRIAL_UNKNOWN,
               short_calls != 0,
               known(prior) ? static_cast<cacore_trial_t>(prior) : CACORE_TRIAL_UNKNOWN)
               ? 1
               : 0;
}

cacore_trial_t cacore_trial_confirmed(const cacore_trial_result_t *prior,
                                      const cacore_trial_result_t *now, double margin)
{
    if (prior == nullptr || now == nullptr) {
        return now != nullptr ? now->outcome : CACORE_TRIAL_UNKNOWN;
    }
    return cacore::trial_confirmed(trial_result(*prior), trial_result(*now), margin);
}

cacore_status_t cacore_trial_rank_medians(const double *times, int calls_per_variant, int with,
                                          double *out, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        const std::vector<double> m = cacore::trial_rank_medians(
            trial_times("cacore_trial_rank_medians", times, calls_per_variant, with,
                        out != nullptr),
            calls_per_variant, with);
        std::copy(m.begin(), m.end(), out);
    });
}

uint64_t cacore_trial_layout_key(int nranks, const int *rank_node)
{
    return cacore::trial_layout_key(nranks < 0 || rank_node == nullptr ? 0 : nranks, rank_node);
}

cacore_status_t cacore_trial_book_create(cacore_trial_book_t **out, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (out == nullptr) {
            cacore::fail_arg("cacore_trial_book_create: NULL argument");
        }
        *out = nullptr;
        *out = new cacore_trial_book;
    });
}

cacore_status_t cacore_trial_book_read_file(const char *path, cacore_trial_book_t **out,
                                            char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (path == nullptr || out == nullptr) {
            cacore::fail_arg("cacore_trial_book_read_file: NULL argument");
        }
        *out = nullptr;
        const cacore::FileText text =
            cacore::read_file_text(path, kMaxTrialBookBytes, "trial book");
        auto b = std::make_unique<cacore_trial_book>();
        b->b.parse(text.view(), path);
        *out = b.release();
    });
}

cacore_trial_result_t cacore_trial_book_find(const cacore_trial_book_t *b,
                                             const cacore_trial_key_t *key)
{
    cacore_trial_result_t r = { CACORE_TRIAL_UNKNOWN, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0 };
    if (b != nullptr && key != nullptr && key->plan != nullptr) {
        try {
            r = trial_result(b->b.find(trial_key(key)));
        } catch (...) {
            r.outcome = CACORE_TRIAL_UNKNOWN;   /* out of memory copying the key: not found */
        }
    }
    return r;
}

cacore_status_t cacore_trial_book_set(cacore_trial_book_t *b, const cacore_trial_key_t *key,
                                      const cacore_trial_result_t *r, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (b == nullptr || key == nullptr || key->plan == nullptr || r == nullptr) {
            cacore::fail_arg("cacore_trial_book_set: NULL argument");
        }
        const int o = outcome_int(r->outcome);
        if (o <= CACORE_TRIAL_UNKNOWN || o >= CACORE_TRIAL_COUNT) {
            cacore::fail_arg("cacore_trial_book_set: the outcome must be plan, previous, "
                             "alternative or peer");
        }
        b->b.set(trial_key(key), trial_result(*r));
    });
}

cacore_status_t cacore_trial_book_format(const cacore_trial_book_t *b, char **text, size_t *len,
                                         char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (b == nullptr || text == nullptr || len == nullptr) {
            cacore::fail_arg("cacore_trial_book_format: NULL argument");
        }
        *text = nullptr;
        const std::string s = b->b.format();
        char *buf = static_cast<char *>(std::malloc(s.size() + 1));
        if (buf == nullptr) {
            throw std::bad_alloc();
        }
        std::memcpy(buf, s.c_str(), s.size() + 1);
        *text = buf;
        *len = s.size();
    });
}

void cacore_trial_book_name(uint64_t key, char name[CACORE_CACHE_NAME_MAX])
{
    std::snprintf(name, CACORE_CACHE_NAME_MAX, "%s", cacore::trial_book_name(key).c_str());
}

void cacore_trial_book_free(cacore_trial_book_t *b) { delete b; }

}  // extern "C"

/* ---- burst credit probes ---- */
cacore_burst_verdict_t cacore_burst_judge(cacore_burst_state_t *state, double time_s,
                                          double at_rate_s)
{
    if (state == nullptr) {
        return CACORE_BURST_STOP;
    }
    return cacore::burst_judge(*state, time_s, at_rate_s);
}

/* ---- traces ---- */

cacore_status_t cacore_trace_hints(const char *dir, const char *job, char **text, char *err,
                                   size_t errlen)
{
    return guard(err, errlen, [&] {
        if (dir == nullptr || job == nullptr || text == nullptr) {
            cacore::fail_arg("cacore_trace_hints: NULL argument");
        }
        *text = nullptr;
        const cacore::TraceRun run = cacore::read_trace_dir(dir, job);
        std::unique_ptr<cacore::Matrix> m;
        for (const auto &r : run.ranks) {
            if (!r.matrix.empty() && m == nullptr) {
                try {
                    m = std::make_unique<cacore::Matrix>(cacore::read_matrix_file(r.matrix));
                } catch (const cacore::Error &) {
                    break;   /* the hints then compare links with each other */
                }
            }
        }
        const std::string s = cacore::format_trace_hints(cacore::analyse_trace(run, m.get()));
        char *buf = static_cast<char *>(std::malloc(s.size() + 1));
        if (buf == nullptr) {
            throw std::bad_alloc();
        }
        std::memcpy(buf, s.c_str(), s.size() + 1);
        *text = buf;
    });
}
/* ---- drift detection ---- */

void cacore_drift_init(cacore_drift_t *d)
{
    if (d != nullptr) {
        *d = cacore_drift_t{};
    }
}

cacore_status_t cacore_drift_check_params(const cacore_drift_params_t *p, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (p == nullptr) {
            cacore::fail_arg("cacore_drift_check_params: NULL argument");
        }
        cacore::drift_check_params(*p);
    });
}

cacore_status_t cacore_drift_observe(cacore_drift_t *d, const cacore_drift_params_t *p,
                                     const double *times, double since_last_s,
                                     cacore_drift_verdict_t *out, char *err, size_t errlen)
{
    return guard(err, errlen, [&] {
        if (d == nullptr || p == nullptr || times == nullptr || out == nullptr) {
            cacore::fail_arg("cacore_drift_observe: NULL argument");
        }
        cacore::drift_check_params(*p);
        const std::vector<double> t(times, times + p->calls);
        cacore_drift_t next = *d;
        *out = cacore::drift_observe(next, *p, t, since_last_s);
        *d = next;
    });
}

int cacore_drift_merge_pair(double threshold, double old_latency_s, double old_bandwidth_Bps,
                            double *latency_s, double *bandwidth_Bps)
{
    if (latency_s == nullptr || bandwidth_Bps == nullptr) {
        return 0;
    }
    return cacore::drift_merge_pair(threshold, old_latency_s, old_bandwidth_Bps, *latency_s,
                                    *bandwidth_Bps) ? 1 : 0;
}

int cacore_drift_watches(const cacore_drift_params_t *p, size_t class_bytes)
{
    return p != nullptr && cacore::drift_watches(*p, class_bytes) ? 1 : 0;
}

int cacore_plan_node_pairs(const cacore_plan_t *p, int nranks, const int *rank_node, int nnodes,
                           unsigned char *pairs)
{
    if (p == nullptr || rank_node == nullptr || pairs == nullptr || nnodes < 1
        || nranks != p->p.nranks) {
        return -1;
    }
    for (int r = 0; r < nranks; r++) {
        if (rank_node[r] < 0 || rank_node[r] >= nnodes) {
            return -1;
        }
    }
    std::memset(pairs, 0, static_cast<size_t>(nnodes) * static_cast<size_t>(nnodes));
    int count = 0;
    for (int r = 0; r < nranks; r++) {
        for (const cacore_step_t &s : p->p.steps[r]) {
            if ((s.kind != CACORE_STEP_SEND && s.kind != CACORE_STEP_RECV) || s.peer < 0
                || s.peer >= nranks) {
                continue;
            }
            const size_t a = static_cast<size_t>(rank_node[r]);
            const size_t b = static_cast<size_t>(rank_node[s.peer]);
            if (a != b && pairs[a * nnodes + b] == 0) {
                pairs[a * nnodes + b] = pairs[b * nnodes + a] = 1;
                count++;
            }
        }
    }
    return count;
}
