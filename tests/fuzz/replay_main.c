/* replay_main.c -- main() for a harness without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file named on the command line and on
 * every file in every folder named (not recursively). This is how the
 * committed corpora run as ordinary tests with any compiler (ctest
 * fuzz_*_corpus): a harness finding aborts, so the test fails on the same
 * input every time. Exits 1 when an argument cannot be read or there is
 * nothing to replay (a missing corpus must not pass as an empty one). */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_support.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: %s: %s\n", path, buf ? "read error" : "out of memory");
        free(buf);
        return -1;
    }
    /* Name the input first: a finding aborts inside the call. */
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file of dir, in name order (so runs are reproducible). */
static int replay_dir(const char *dir, size_t *count) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char **more = realloc(names, (n + 1) * sizeof *names);
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = more ? malloc(len) : NULL;
        if (!p) {
            fprintf(stderr, "replay: %s: out of memory\n", dir);
            names = more ? more : names;
            rc = -1;
            break;
        }
        snprintf(p, len, "%s/%s", dir, e->d_name);
        names = more;
        names[n++] = p;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; ++i) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(names[i]) != 0) rc = -1;
            else ++*count;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    size_t count = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        if (S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) != 0 : replay_file(argv[i]) != 0) return 1;
        if (!S_ISDIR(st.st_mode)) ++count;
    }
    if (count == 0) {
        fprintf(stderr, "replay: no inputs (usage: %s FILE|DIR...)\n", argv[0]);
        return 1;
    }
    fprintf(stderr, "replay: %zu inputs, no finding\n", count);
    return 0;
}
