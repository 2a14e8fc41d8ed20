/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Cache files: measured matrices kept on disk, keyed by node set, so the next job on the same
 * hosts does not measure (docs/calibration.md, "Cache").
 *
 *   coll_cloudaware_cache_dir/cloudaware-<16 hex digits>.matrix
 *
 * Names, the age rule and the node-set check are the core's (cacore_cache_*); this file does the
 * file system, so that no name is ever looked up twice:
 *   - the directory is opened once per load or store by walking its path one component at a
 *     time (openat with O_DIRECTORY|O_NOFOLLOW from "/" or from the working directory; a store
 *     creates missing components 0700), so a symbolic link anywhere in the path is refused; the
 *     directory reached must be ours and not group/world writable. Everything after that is
 *     relative to that descriptor.
 *   - an entry is opened with O_NOFOLLOW|O_NONBLOCK (a FIFO cannot block), checked through the
 *     descriptor (regular, ours, not writable by others, not stale, not from the future) and
 *     parsed through that same descriptor (/proc/self/fd/N).
 *   - a write goes to a fresh temporary file (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), is fsync'ed,
 *     renamed over the entry (replacing whatever unusable file held the name: a planted symbolic
 *     link or FIFO, a foreign or corrupt entry) and the directory is fsync'ed. Temporary files
 *     older than CACORE_CACHE_TEMP_MAX_AGE_S (crashed writers) are removed first.
 * Any problem means "no usable entry": the caller measures and warns once.
 */
#include "ompi_config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_cache.h"

int mca_coll_cloudaware_dir_open(const char *what, const char *dir, bool create, char *why,
                                 size_t whylen)
{
    struct stat st;
    char *copy = strdup(dir), *save = NULL, *comp;
    int fd;

    if (NULL == copy) {
        snprintf(why, whylen, "%s %s: out of memory", what, dir);
        return -1;
    }
    fd = open('/' == dir[0] ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "%s %s: cannot open %s: %s", what, dir,
                 '/' == dir[0] ? "/" : "the working directory", strerror(errno));
    }
    for (comp = strtok_r(copy, "/", &save); fd >= 0 && NULL != comp;
         comp = strtok_r(NULL, "/", &save)) {
        /* dir up to and including this component, for messages */
        int upto = (int) (comp - copy + strlen(comp));
        int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (next < 0 && ENOENT == errno && create
            && (0 == mkdirat(fd, comp, 0700) || EEXIST == errno)) {
            next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (next < 0) {
            int err = errno;

            /* O_DIRECTORY reports a symbolic link as ENOTDIR: ask what it is. */
            if (0 == fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode)) {
                snprintf(why, whylen, "%s %s: %.*s is a symbolic link (refused)",
                         what, dir, upto, dir);
            } else if (ENOTDIR == err) {
                snprintf(why, whylen, "%s %s: %.*s is not a directory", what, dir, upto,
                         dir);
            } else if (ENOENT == err && !create) {
                why[0] = '\0';
            } else {
                snprintf(why, whylen, "%s %s: %.*s: %s", what, dir, upto, dir,
                         strerror(err));
            }
            close(fd);
            fd = -1;
            break;
        }
        close(fd);
        fd = next;
    }
    free(copy);
    if (fd < 0) {
        return -1;
    }
    if (0 != fstat(fd, &st)) {
        snprintf(why, whylen, "%s %s: %s", what, dir, strerror(errno));
    } else if (st.st_uid != geteuid()) {
        snprintf(why, whylen, "%s %s is not owned by this user (refused)", what, dir);
    } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, whylen, "%s %s is group or world writable (refused)", what, dir);
    } else {
        return fd;
    }
    close(fd);
    return -1;
}

/* The entry opened for reading and checked through its descriptor, or -1 with why set ("" when
 * there is no entry). */
static int entry_open(int dirfd, const char *name, char *why, size_t whylen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    const char *dir = c->cache_dir;
    struct stat st;
    time_t now;
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        if (ENOENT == errno) {
            why[0] = '\0';
        } else if (ELOOP == errno) {
            snprintf(why, whylen, "cache entry %s/%s is a symbolic link (refused)", dir, name);
        } else {
            snprintf(why, whylen, "cache entry %s/%s: %s", dir, name, strerror(errno));
        }
        return -1;
    }
    now = time(NULL);
    if (0 != fstat(fd, &st)) {
        snprintf(why, whylen, "cache entry %s/%s: %s", dir, name, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "cache entry %s/%s is not a regular file (refused)", dir, name);
    } else if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        snprintf(why, whylen, "cache entry %s/%s is not owned by this user or is writable by "
                 "others (refused)", dir, name);
    } else {
        switch (cacore_cache_age((int64_t) st.st_mtime, (int64_t) now, c->cache_max_age)) {
        case CACORE_CACHE_OLD:
            snprintf(why, whylen, "cache entry %s/%s is stale (%.0f s old, "
                     "coll_cloudaware_cache_max_age %d s)", dir, name,
                     difftime(now, st.st_mtime), c->cache_max_age);
            break;
        case CACORE_CACHE_FUTURE:
            snprintf(why, whylen, "cache entry %s/%s is stale (modified %.0f s in the future)",
                     dir, name, difftime(st.st_mtime, now));
            break;
        default:
            return fd;
        }
    }
    close(fd);
    return -1;
}

/* Opens the entry `name` of the cache directory for reading (the directory walked and the entry
 * checked as above) and names its descriptor in fdpath: read through the descriptor checked,
 * never through the name again. -1 when there is no cache or no usable entry (why says which,
 * or is empty when there is no cache). */
static int entry_open_read(const char *name, char *fdpath, size_t fdlen, char *why,
                           size_t whylen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    int dirfd, fd;

    why[0] = '\0';
    if (NULL == c->cache_dir || '\0' == c->cache_dir[0]) {
        return -1;
    }
    dirfd = mca_coll_cloudaware_dir_open("cache directory", c->cache_dir, false, why, whylen);
    if (dirfd < 0) {
        return -1;
    }
    fd = entry_open(dirfd, name, why, whylen);
    close(dirfd);
    if (fd >= 0) {
        snprintf(fdpath, fdlen, "/proc/self/fd/%d", fd);
    }
    return fd;
}

/* why = "WHAT (ERR)", the descriptor's path at the start of the reader's ERR replaced by the
 * entry's name. */
static void say_read_error(const char *what, const char *name, const char *fdpath,
                           const char *err, char *why, size_t whylen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    size_t plen = strlen(fdpath);
    bool named = 0 == strncmp(err, fdpath, plen);

    snprintf(why, whylen, "%s (%s%s%s%s)", what, named ? c->cache_dir : "", named ? "/" : "",
             named ? name : "", named ? err + plen : err);
}

bool mca_coll_cloudaware_cache_load(int n, char *const *hosts, uint64_t key, double *L, double *B,
                                    unsigned char *known, double *P, char *why, size_t whylen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char name[CACORE_CACHE_NAME_MAX], fdpath[64], err[512];
    cacore_matrix_t *mx = NULL;
    cacore_status_t st;
    int fd;

    cacore_cache_entry_name(key, name);
    fd = entry_open_read(name, fdpath, sizeof(fdpath), why, whylen);
    if (fd < 0) {
        return false;
    }
    st = cacore_matrix_read_file(fdpath, &mx, err, sizeof(err));
    close(fd);
    if (CACORE_OK != st) {
        say_read_error("cache entry is corrupt", name, fdpath, err, why, whylen);
        return false;
    }
    st = cacore_cache_entry_values(mx, n, (const char *const *) hosts, L, B, known, err,
                                   sizeof(err));
    if (CACORE_OK == st) {
        /* An entry of an older version has no node properties: measured again. */
        st = cacore_cache_entry_node_props(mx, n, (const char *const *) hosts, P, err,
                                           sizeof(err));
    }
    cacore_matrix_free(mx);
    if (CACORE_OK != st) {
        memset(known, 0, (size_t) n * (size_t) n);   /* none of it is used */
        snprintf(why, whylen, "cache entry %s/%s %s", c->cache_dir, name, err);
        return false;
    }
    return true;
}

/* Removes the temporary files of writers that died before renaming them. */
static void remove_leftovers(int dirfd)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), removed = 0;
    time_t now = time(NULL);
    struct dirent *e;
    struct stat st;
    DIR *d;

    if (fd < 0) {
        return;
    }
    d = fdopendir(fd);
    if (NULL == d) {
        close(fd);
        return;
    }
    while (NULL != (e = readdir(d))) {
        if (cacore_cache_is_temp_name(e->d_name)
            && 0 == fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISDIR(st.st_mode)
            && CACORE_CACHE_FRESH != cacore_cache_age((int64_t) st.st_mtime, (int64_t) now,
                                                      CACORE_CACHE_TEMP_MAX_AGE_S)
            && 0 == unlinkat(dirfd, e->d_name, 0)) {
            removed++;
        }
    }
    closedir(d);
    if (removed > 0) {
        opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                            "coll:cloudaware: cache: removed %d leftover temporary file(s) from "
                            "%s", removed, c->cache_dir);
    }
}

static bool write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);

        if (w < 0 && EINTR == errno) {
            continue;
        }
        if (w <= 0) {
            return false;
        }
        p += w;
        len -= (size_t) w;
    }
    return true;
}

/* A temporary file of our own in the directory: created here, never an existing name. */
static int temp_create(int dirfd, uint64_t key, char *tmp)
{
    static uint64_t counter = 0;
    struct timespec ts;
    int fd = -1;

    clock_gettime(CLOCK_REALTIME, &ts);
    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
        uint64_t nonce = ((uint64_t) getpid() << 32) ^ (uint64_t) ts.tv_nsec
                         ^ ((uint64_t) ts.tv_sec << 20) ^ ++counter;

        cacore_cache_temp_name(key, nonce, tmp);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && EEXIST != errno) {
            break;
        }
    }
    return fd;
}

/* Writes text as the entry `name` of the directory: a fresh temporary file (named after the
 * node set's matrix entry, so that the leftover cleanup knows it), fsync'ed, renamed over name. */
static bool text_write(int dirfd, uint64_t key, const char *name, const char *text, size_t len,
                       char *why, size_t whylen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char tmp[CACORE_CACHE_NAME_MAX];
    bool ok;
    int fd, saved;

    fd = temp_create(dirfd, key, tmp);
    if (fd < 0) {
        snprintf(why, whylen, "cannot write cache entry %s/%s: cannot create a temporary file: "
                 "%s", c->cache_dir, name, strerror(errno));
        return false;
    }
    /* 0600 whatever the umask; then the content, on disk before the name points to it. */
    ok = 0 == fchmod(fd, 0600) && write_all(fd, text, len) && 0 == fsync(fd);
    saved = errno;
    if (0 != close(fd) && ok) {
        ok = false;
        saved = errno;
    }
    /* rename replaces a symbolic link, FIFO or foreign file of that name, never follows it. */
    if (ok && 0 != renameat(dirfd, tmp, dirfd, name)) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        (void) unlinkat(dirfd, tmp, 0);
        snprintf(why, whylen, "cannot write cache entry %s/%s: %s", c->cache_dir, name,
                 strerror(saved));
        return false;
    }
    /* The rename itself durable: the directory's own data. */
    if (0 != fsync(dirfd)) {
        snprintf(why, whylen, "cache entry %s/%s written, but syncing the directory failed: %s",
                 c->cache_dir, name, strerror(errno));
        return false;
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: cache: wrote %s/%s", c->cache_dir, name);
    return true;
}

static bool entry_write(int dirfd, const cacore_matrix_t *m, uint64_t key, char *why,
                        size_t whylen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char name[CACORE_CACHE_NAME_MAX], err[512];
    char *text = NULL;
    size_t len = 0;
    bool ok;

    cacore_cache_entry_name(key, name);
    if (CACORE_OK != cacore_cache_entry_format(m, key, &text, &len, err, sizeof(err))) {
        snprintf(why, whylen, "cannot write cache entry %s/%s: %s", c->cache_dir, name, err);
        return false;
    }
    ok = text_write(dirfd, key, name, text, len, why, whylen);
    free(text);
    return ok;
}

bool mca_coll_cloudaware_cache_store(const cacore_matrix_t *m, uint64_t key, char *why,
                                     size_t whylen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    bool ok;
    int dirfd;

    why[0] = '\0';
    if (NULL == c->cache_dir || '\0' == c->cache_dir[0]) {
        return true;
    }
    dirfd = mca_coll_cloudaware_dir_open("cache directory", c->cache_dir, true, why, whylen);
    if (dirfd < 0) {
        return false;
    }
    remove_leftovers(dirfd);
    ok = entry_write(dirfd, m, key, why, whylen);
    close(dirfd);
    return ok;
}

bool mca_coll_cloudaware_cache_load_trials(uint64_t key, cacore_trial_book_t **book, char *why,
                                           size_t whylen)
{
    char name[CACORE_CACHE_NAME_MAX], fdpath[64], err[512];
    cacore_status_t st;
    int fd;

    *book = NULL;
    cacore_trial_book_name(key, name);
    fd = entry_open_read(name, fdpath, sizeof(fdpath), why, whylen);
    if (fd < 0) {
        return false;
    }
    st = cacore_trial_book_read_file(fdpath, book, err, sizeof(err));
    close(fd);
    if (CACORE_OK != st) {
        say_read_error("trial book is unusable, the trials run again", name, fdpath, err, why,
                       whylen);
        return false;
    }
    return true;
}

bool mca_coll_cloudaware_cache_store_trials(uint64_t key, const cacore_trial_book_t *book,
                                            char *why, size_t whylen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char name[CACORE_CACHE_NAME_MAX], err[512];
    char *text = NULL;
    size_t len = 0;
    bool ok;
    int dirfd;

    why[0] = '\0';
    if (NULL == c->cache_dir || '\0' == c->cache_dir[0]) {
        return true;
    }
    cacore_trial_book_name(key, name);
    if (CACORE_OK != cacore_trial_book_format(book, &text, &len, err, sizeof(err))) {
        snprintf(why, whylen, "cannot write cache entry %s/%s: %s", c->cache_dir, name, err);
        return false;
    }
    dirfd = mca_coll_cloudaware_dir_open("cache directory", c->cache_dir, true, why, whylen);
    if (dirfd < 0) {
        free(text);
        return false;
    }
    ok = text_write(dirfd, key, name, text, len, why, whylen);
    close(dirfd);
    free(text);
    return ok;
}
