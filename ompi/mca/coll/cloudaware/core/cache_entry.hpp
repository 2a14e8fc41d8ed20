// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// cache_entry.hpp - cache entries of measured matrices (docs/calibration.md, "Cache"): their file
// names, the age rule, and the check that an entry holds exactly a communicator's node set. The
// directory and file handling (descriptors, atomic replacement) is the component's
// coll_cloudaware_cache.c; everything here is pure.
#ifndef CACORE_CACHE_ENTRY_HPP
#define CACORE_CACHE_ENTRY_HPP

#include "matrix.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cacore {

// "cloudaware-<16 lower-case hex digits of key>.matrix"
std::string cache_entry_name(uint64_t key);
// The writer's temporary file: the entry name + ".tmp." + the nonce in hex.
std::string cache_temp_name(uint64_t key, uint64_t nonce);
// True for names cache_temp_name makes (and the ".tmp.XXXXXX" names of earlier writers): the
// only names the leftover cleanup ever removes.
bool is_cache_temp_name(std::string_view name);

enum class CacheAge { Fresh, Old, Future };
// Seconds a modification time may lie ahead of now and still count as now (clocks of the hosts
// sharing a directory differ a little).
constexpr int64_t kCacheClockSlack = 60;
// max_age <= 0: no limit, always Fresh. Otherwise Old when now - mtime > max_age, Future when
// mtime - now > kCacheClockSlack (an entry from the future would otherwise stay fresh for as
// long as its timestamp says).
CacheAge cache_age(int64_t mtime, int64_t now, int64_t max_age);

// idx[i] = the entry's node of hosts[i]. Throws Error(CACORE_ERR_FORMAT) naming the difference
// when the entry's host set is not exactly the (distinct) hosts.
std::vector<int> cache_entry_match(const Matrix &entry, const std::vector<std::string> &hosts);

// The entry's file content: a matrix file (docs/matrix-format.md) with a comment naming the key.
std::string format_cache_entry(const Matrix &m, uint64_t key);

}  // namespace cacore
#endif
