// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// decision_memo.hpp - a process's memory of its decisions: a communicator whose decision inputs
// are those of an earlier one (an MPI_Comm_dup, a split over the same nodes and ranks, a class a
// module's plan cache let go) gets that decision again without the search
// (cacore_decide_input_t.memo; docs/model.md, "Decision").
#ifndef CACORE_DECISION_MEMO_HPP
#define CACORE_DECISION_MEMO_HPP

#include "decide.hpp"

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace cacore {

class DecisionMemo {
public:
    // At most max_entries decisions and about max_bytes of their plans' steps; the oldest go first.
    explicit DecisionMemo(size_t max_entries = 64, size_t max_bytes = size_t(64) << 20);

    // The decision remembered for exactly these inputs (every field, the matrix compared in
    // full), or none. Safe to call from several threads.
    std::optional<Decision> find(const DecideInput &d) const;
    // Remembers `dec` as the decision for d's inputs (replacing any for the same inputs). A
    // decision larger than max_bytes on its own is not kept.
    void put(const DecideInput &d, const Decision &dec);

    size_t size() const;

private:
    struct Entry {
        std::string key;                        // every input but the matrix's content
        std::shared_ptr<const Matrix> matrix;   // shared by the entries of one content
        Decision decision;
        size_t bytes = 0;
    };
    std::list<Entry>::const_iterator locate(const std::string &key, const Matrix &m) const;

    size_t max_entries_, max_bytes_, bytes_ = 0;
    mutable std::mutex mu_;
    std::list<Entry> entries_;   // oldest first
};

}  // namespace cacore
#endif
