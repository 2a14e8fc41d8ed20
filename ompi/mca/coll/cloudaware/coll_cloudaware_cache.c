/*
 * Cache files: measured matrices kept on disk, keyed by node set, so the next job on the same
 * hosts does not measure (docs/calibration.md).
 *
 *   coll_cloudaware_cache_dir/cloudaware-<16 hex digits>.matrix
 *
 * The hex digits are the FNV-1a 64 hash of the sorted host names; the file is an ordinary
 * matrix file (docs/matrix-format.md, so cloudaware-plan reads it) whose host list must be
 * exactly the node set: a hash collision or a hand-edited file is detected, not trusted.
 * Age is the file's modification time (coll_cloudaware_cache_max_age).
 *
 * Safety: the directory is created 0700 and must be a real directory (not a symlink), owned by
 * us and not group/world writable; files are opened with O_NOFOLLOW, must be regular, ours, not
 * group/world writable; writes are atomic (temp file + rename, mode 0600, by the core).
 * Any problem means "no usable entry": the caller measures and warns once.
 */
#include "ompi_config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"

static void entry_path(char *buf, size_t len, uint64_t key)
{
    snprintf(buf, len, "%s/cloudaware-%016" PRIx64 ".matrix",
             mca_coll_cloudaware_component.cache_dir, key);
}

/* The directory is usable: exists (create=true: created 0700 with missing parents), a real
 * directory, ours, not writable by group or others. */
static bool dir_ok(const char *dir, bool create, char *why, size_t whylen)
{
    struct stat st;

    if (0 != lstat(dir, &st)) {
        if (ENOENT == errno && create) {
            char *tmp = strdup(dir);
            if (NULL == tmp) {
                snprintf(why, whylen, "out of memory");
                return false;
            }
            for (char *p = tmp + 1; *p; p++) {
                if ('/' == *p) {
                    *p = '\0';
                    (void) mkdir(tmp, 0700);
                    *p = '/';
                }
            }
            if (0 != mkdir(tmp, 0700) && EEXIST != errno) {
                snprintf(why, whylen, "cannot create cache directory %s: %s", dir,
                         strerror(errno));
                free(tmp);
                return false;
            }
            free(tmp);
            if (0 != lstat(dir, &st)) {
                snprintf(why, whylen, "cache directory %s: %s", dir, strerror(errno));
                return false;
            }
        } else {
            snprintf(why, whylen, "cache directory %s: %s", dir, strerror(errno));
            return false;
        }
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(why, whylen, "cache directory %s is a symbolic link (refused)", dir);
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "cache directory %s is not a directory", dir);
        return false;
    }
    if (st.st_uid != geteuid()) {
        snprintf(why, whylen, "cache directory %s is not owned by this user (refused)", dir);
        return false;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, whylen, "cache directory %s is group or world writable (refused)", dir);
        return false;
    }
    return true;
}

int mca_coll_cloudaware_safe_open(const char *path, bool check_owner, char *why, size_t whylen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0) {
        snprintf(why, whylen, "%s: %s", path,
                 ELOOP == errno ? "is a symbolic link (refused)" : strerror(errno));
        return -1;
    }
    if (0 != fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    if (check_owner && (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
        snprintf(why, whylen, "%s: not owned by this user or writable by others (refused)", path);
        close(fd);
        return -1;
    }
    return fd;
}

bool mca_coll_cloudaware_cache_load(int n, char *const *hosts, uint64_t key, double *L, double *B,
                                    unsigned char *known, char *why, size_t whylen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char path[4096], fdpath[64], err[512];
    struct stat st;
    cacore_matrix_t *mx = NULL;
    int fd, *idx = NULL;
    bool ok = false;

    why[0] = '\0';
    if (NULL == c->cache_dir || '\0' == c->cache_dir[0]) {
        return false;
    }
    if (!dir_ok(c->cache_dir, false, why, whylen)) {
        if (0 == strncmp(why, "cache directory", 15) && NULL != strstr(why, "No such file")) {
            why[0] = '\0';   /* no directory yet: simply no entry */
        }
        return false;
    }
    entry_path(path, sizeof(path), key);
    fd = mca_coll_cloudaware_safe_open(path, true, why, whylen);
    if (fd < 0) {
        if (NULL != strstr(why, "No such file")) {
            why[0] = '\0';
        }
        return false;
    }
    if (0 == fstat(fd, &st) && c->cache_max_age > 0
        && difftime(time(NULL), st.st_mtime) > (double) c->cache_max_age) {
        snprintf(why, whylen, "cache entry %s is stale (%.0f s old, coll_cloudaware_cache_max_age"
                 " %d s)", path, difftime(time(NULL), st.st_mtime), c->cache_max_age);
        close(fd);
        return false;
    }
    /* Read through the descriptor we checked, never through the name again. */
    snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
    if (CACORE_OK != cacore_matrix_read_file(fdpath, &mx, err, sizeof(err))) {
        const char *detail = strncmp(err, fdpath, strlen(fdpath)) ? err : err + strlen(fdpath);
        snprintf(why, whylen, "cache entry is corrupt (%s%s)", detail == err ? "" : path,
                 detail);
        close(fd);
        return false;
    }
    close(fd);
    if (cacore_matrix_nodes(mx) != n) {
        snprintf(why, whylen, "cache entry %s is for %d hosts, not these %d", path,
                 cacore_matrix_nodes(mx), n);
        goto out;
    }
    idx = malloc(sizeof(int) * (size_t) n);
    if (NULL == idx) {
        goto out;
    }
    for (int i = 0; i < n; i++) {
        idx[i] = cacore_matrix_find_host(mx, hosts[i]);
        if (idx[i] < 0) {
            snprintf(why, whylen, "cache entry %s does not list host %s (a matrix of other hosts)",
                     path, hosts[i]);
            goto out;
        }
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            L[i * n + j] = (i == j) ? 0.0 : cacore_matrix_latency(mx, idx[i], idx[j]);
            B[i * n + j] = (i == j) ? 0.0 : cacore_matrix_bandwidth(mx, idx[i], idx[j]);
            known[i * n + j] = (i != j);
        }
    }
    ok = true;
out:
    free(idx);
    cacore_matrix_free(mx);
    return ok;
}

bool mca_coll_cloudaware_cache_store(const cacore_matrix_t *m, uint64_t key, char *why,
                                     size_t whylen)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char path[4096], err[512];
    struct stat st;

    why[0] = '\0';
    if (NULL == c->cache_dir || '\0' == c->cache_dir[0]) {
        return true;
    }
    if (!dir_ok(c->cache_dir, true, why, whylen)) {
        return false;
    }
    entry_path(path, sizeof(path), key);
    /* rename() replaces a symlink rather than following it, but refuse one anyway: someone
     * is playing games in our directory. */
    if (0 == lstat(path, &st) && !S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s exists and is not a regular file (refused)", path);
        return false;
    }
    if (CACORE_OK != cacore_matrix_write_file(m, path, err, sizeof(err))) {
        snprintf(why, whylen, "cannot write cache entry: %s", err);
        return false;
    }
    return true;
}
