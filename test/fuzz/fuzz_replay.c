/*
 * Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * fuzz_replay.c - main() for the ordinary (and the sanitizer) build of a fuzz target: runs
 * LLVMFuzzerTestOneInput on every file named, or on every file of every directory named, so the
 * seed and regression corpora are replayed by `make check` without clang. Exits 0 when every
 * input ran; a broken invariant aborts (FUZZ_REQUIRE) and names the input on stderr first, and
 * so does an input that takes more than FUZZ_REPLAY_TIMEOUT seconds (default 10; a hang, as
 * libFuzzer's -timeout reports it).
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void on_alarm(int sig)
{
    static const char msg[] = "fuzz_replay: the input above took too long (a hang)\n";
    (void) sig;
    (void) write(STDERR_FILENO, msg, sizeof msg - 1);
    abort();
}

static unsigned timeout_s = 10;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;

    if (NULL == f) {
        fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *bigger = realloc(buf, cap);
            if (NULL == bigger) {
                fprintf(stderr, "fuzz_replay: %s: out of memory\n", path);
                free(buf);
                fclose(f);
                return 1;
            }
            buf = bigger;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        if (0 == got) {
            break;
        }
        len += got;
    }
    fclose(f);
    fprintf(stderr, "fuzz_replay: %s (%zu bytes)\n", path, len);
    alarm(timeout_s);
    LLVMFuzzerTestOneInput(buf, len);
    alarm(0);
    free(buf);
    return 0;
}

static int compare(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Every regular file of the directory, in name order (so a run is reproducible). */
static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t count = 0;
    int bad = 0;

    if (NULL == d) {
        fprintf(stderr, "fuzz_replay: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    for (struct dirent *e; NULL != (e = readdir(d));) {
        if ('.' == e->d_name[0]) {
            continue;
        }
        char **more = realloc(names, sizeof(char *) * (count + 1));
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (NULL == more || NULL == (more[count] = malloc(len))) {
            fprintf(stderr, "fuzz_replay: out of memory\n");
            free(more);
            closedir(d);
            return 1;
        }
        names = more;
        snprintf(names[count++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (count > 0) {
        qsort(names, count, sizeof(char *), compare);
    }
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (0 == stat(names[i], &st) && S_ISREG(st.st_mode)) {
            bad |= replay_file(names[i]);
        }
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    if (NULL != getenv("FUZZ_REPLAY_TIMEOUT")) {
        timeout_s = (unsigned) atoi(getenv("FUZZ_REPLAY_TIMEOUT"));
    }
    signal(SIGALRM, on_alarm);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (0 == stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
            bad |= replay_dir(argv[i]);
        } else {
            bad |= replay_file(argv[i]);
        }
    }
    return bad;
}
