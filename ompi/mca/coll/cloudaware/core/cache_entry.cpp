// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// cache_entry.cpp - cache entry names, the age rule and the node-set check.
#include "cache_entry.hpp"

#include "error.hpp"
#include "matrix_io.hpp"

#include <cinttypes>
#include <cstdio>
#include <unordered_map>

namespace cacore {
namespace {

constexpr std::string_view kPrefix = "cloudaware-";
constexpr std::string_view kSuffix = ".matrix";
constexpr std::string_view kTemp = ".tmp.";
constexpr size_t kKeyDigits = 16;

std::string hex(uint64_t v, int width)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*" PRIx64, width, v);
    return buf;
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

std::string cache_entry_name(uint64_t key)
{
    return std::string(kPrefix) + hex(key, kKeyDigits) + std::string(kSuffix);
}

std::string cache_temp_name(uint64_t key, uint64_t nonce)
{
    return cache_entry_name(key) + std::string(kTemp) + hex(nonce, 1);
}

bool is_cache_temp_name(std::string_view name)
{
    const size_t fixed = kPrefix.size() + kKeyDigits + kSuffix.size() + kTemp.size();
    if (name.size() <= fixed || name.substr(0, kPrefix.size()) != kPrefix) {
        return false;
    }
    for (size_t i = 0; i < kKeyDigits; ++i) {
        if (!is_hex(name[kPrefix.size() + i])) {
            return false;
        }
    }
    std::string_view rest = name.substr(kPrefix.size() + kKeyDigits);
    if (rest.substr(0, kSuffix.size()) != kSuffix ||
        rest.substr(kSuffix.size(), kTemp.size()) != kTemp) {
        return false;
    }
    return name.find('/') == std::string_view::npos;
}

CacheAge cache_age(int64_t mtime, int64_t now, int64_t max_age)
{
    if (max_age <= 0) {
        return CacheAge::Fresh;
    }
    // Differences in double: mtime and now come from the file system and the clock, any value.
    const double age = static_cast<double>(now) - static_cast<double>(mtime);
    if (age < -static_cast<double>(kCacheClockSlack)) {
        return CacheAge::Future;
    }
    return age > static_cast<double>(max_age) ? CacheAge::Old : CacheAge::Fresh;
}

std::vector<int> cache_entry_match(const Matrix &entry, const std::vector<std::string> &hosts)
{
    if (static_cast<size_t>(entry.nodes()) != hosts.size()) {
        throw Error(CACORE_ERR_FORMAT, "is for " + std::to_string(entry.nodes()) +
                                           " hosts, not these " + std::to_string(hosts.size()));
    }
    std::unordered_map<std::string, int> index;
    for (int i = 0; i < entry.nodes(); ++i) {
        index.emplace(entry.host(i), i);
    }
    std::vector<int> idx(hosts.size());
    std::vector<bool> used(hosts.size(), false);
    for (size_t i = 0; i < hosts.size(); ++i) {
        auto it = index.find(hosts[i]);
        if (it == index.end()) {
            throw Error(CACORE_ERR_FORMAT, "does not list host " + hosts[i] +
                                               " (a matrix of other hosts)");
        }
        if (used[static_cast<size_t>(it->second)]) {
            fail_arg("node set lists host " + hosts[i] + " twice");
        }
        used[static_cast<size_t>(it->second)] = true;
        idx[i] = it->second;
    }
    return idx;
}

std::string format_cache_entry(const Matrix &m, uint64_t key)
{
    return format_matrix(m, "coll/cloudaware cache entry " + hex(key, kKeyDigits) +
                                " (docs/calibration.md)");
}

}  // namespace cacore
