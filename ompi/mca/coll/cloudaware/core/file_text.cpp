// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// file_text.cpp - safe reading of the core's input files (see file_text.hpp).
#include "file_text.hpp"

#include "error.hpp"
#include "escape.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cacore {
namespace {

const char *kind_of(mode_t mode)
{
    if (S_ISFIFO(mode)) {
        return "a FIFO";
    }
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    if (S_ISBLK(mode)) {
        return "a block device";
    }
    if (S_ISDIR(mode)) {
        return "a directory";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return "not a plain file";
}

struct Fd {
    int fd;
    ~Fd()
    {
        if (fd >= 0) {
            ::close(fd);
        }
    }
};

}  // namespace

FileText read_file_text(const std::string &path, size_t max_bytes, const char *what)
{
    const std::string name = escape(path);
    // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one;
    // the type check below then refuses it. O_NOCTTY: a terminal never becomes ours.
    Fd file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
    if (file.fd < 0) {
        throw Error(CACORE_ERR_IO, name + ": cannot open: " + std::strerror(errno));
    }
    struct stat st;
    if (fstat(file.fd, &st) != 0) {
        throw Error(CACORE_ERR_IO, name + ": cannot stat: " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        throw Error(CACORE_ERR_IO, name + ": not a regular file (" + kind_of(st.st_mode) +
                                       "); a " + what + " file must be a regular file");
    }
    const auto too_big = [&](unsigned long long bytes) {
        return Error(CACORE_ERR_IO, name + ": " + std::to_string(bytes) + " bytes or more, larger "
                                        "than the limit of " + std::to_string(max_bytes) +
                                        " bytes for a " + what + " file");
    };
    if (st.st_size < 0 || static_cast<unsigned long long>(st.st_size) > max_bytes) {
        throw too_big(static_cast<unsigned long long>(st.st_size));
    }
    // +1: the end of the file is seen in the same read when the size did not change.
    size_t cap = static_cast<size_t>(st.st_size) + 1;
    FileText out;
    out.data.reset(new char[cap]);
    for (;;) {
        if (out.size == cap) {  // the file grew since fstat: still bounded by max_bytes
            if (cap > max_bytes) {
                throw too_big(cap);
            }
            const size_t bigger_cap = cap > max_bytes / 2 ? max_bytes + 1 : cap * 2;
            std::unique_ptr<char[]> bigger(new char[bigger_cap]);
            std::memcpy(bigger.get(), out.data.get(), out.size);
            out.data = std::move(bigger);
            cap = bigger_cap;
        }
        const ssize_t got = ::read(file.fd, out.data.get() + out.size, cap - out.size);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            throw Error(CACORE_ERR_IO, name + ": read error: " + std::strerror(errno));
        }
        if (got == 0) {
            break;
        }
        out.size += static_cast<size_t>(got);
    }
    return out;
}

}  // namespace cacore
