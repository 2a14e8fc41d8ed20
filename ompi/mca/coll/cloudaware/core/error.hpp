// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// error.hpp - the one exception type of the model core; c_api.cpp turns it into a status + message.
#ifndef CACORE_ERROR_HPP
#define CACORE_ERROR_HPP

#include "cloudaware_core.h"

#include <stdexcept>
#include <string>

namespace cacore {

class Error : public std::runtime_error {
public:
    Error(cacore_status_t status, const std::string &message)
        : std::runtime_error(message), status_(status) {}
    cacore_status_t status() const { return status_; }

private:
    cacore_status_t status_;
};

[[noreturn]] inline void fail_arg(const std::string &message) { throw Error(CACORE_ERR_ARG, message); }

}  // namespace cacore
#endif
