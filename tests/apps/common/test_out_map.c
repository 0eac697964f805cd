/* test_out_map.c -- outputs written through a mapping (common/out_map.h,
 * stream_io.h's app_sink_map): the bytes in the file are the test's own
 * random bytes behind a .npy header parsed here by hand; a file truncated
 * under the mapping (SIGBUS) ends the process with one line and exit status
 * 2, and the pending temporary file is gone; outputs that cannot be mapped
 * (text, a device) still write through the old paths. */
#define _GNU_SOURCE
#include "support/harness.h"

#include "common/array_io.h"
#include "common/cli.h"
#include "common/out_map.h"
#include "common/stream_io.h"
#include "fixtures.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void fill(rng_t *r, void *buf, size_t n) {
    unsigned char *p = buf;
    for (size_t i = 0; i < n; ++i) p[i] = (unsigned char)rng_u32(r);
}

/* The data part of a v1.0 .npy file of n 4-byte elements (header parsed here). */
static const unsigned char *npy_payload(const unsigned char *file, size_t len, size_t n) {
    if (len < 10 || memcmp(file, "\x93NUMPY\x01\x00", 8) != 0) TFAIL("not a .npy v1.0 file");
    const size_t hlen = (size_t)file[8] | (size_t)file[9] << 8;
    if (len != 10 + hlen + n * 4) TFAIL("%zu bytes for %zu elements and a %zu-byte header", len, n, hlen);
    return file + 10 + hlen;
}

/* Mapped, written in pieces on 1 and several threads: the file holds the
 * header and exactly the elements, nothing beyond. */
static void test_map_npy(void **state) {
    fx_dir_t *fx = *state;
    if (!app_omap_enabled()) skip();
    rng_t r;
    rng_init(&r, "omap", 0);
    const size_t n = (size_t)3 << 20; /* 12 MiB: several copy threads */
    uint32_t *v = malloc(n * 4);
    fill(&r, v, n * 4);
    char path[1200], err[512];
    snprintf(path, sizeof path, "%s/o.npy", fx->dir);
    /* Prefault on 0 threads (the copies fault the pages in) and on 4;
       copies on 1 thread and on 4. */
    for (int round = 0; round < 4; ++round) {
        const int threads = round & 1 ? 4 : 1, prefault = round & 2 ? 4 : 0;
        arr_writer_t *w;
        assert_int_equal(arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_U32, n, err, sizeof err), ARR_OK);
        app_sink_t *k;
        assert_int_equal(app_sink_open(&k, w, "shown.npy", err, sizeof err), ARR_OK);
        assert_int_equal(app_sink_map(k, n, prefault, err, sizeof err), ARR_OK);
        assert_int_equal(app_sink_write(k, v, 1, threads, err, sizeof err), ARR_OK);
        assert_int_equal(app_sink_write(k, v + 1, n - 1001, threads, err, sizeof err), ARR_OK);
        assert_int_equal(app_sink_write(k, v + n - 1000, 1000, threads, err, sizeof err), ARR_OK);
        app_sink_close(k);
        assert_int_equal(arr_writer_commit(w, err, sizeof err), ARR_OK);
        size_t len;
        unsigned char *file = fx_read_file(path, &len);
        if (memcmp(npy_payload(file, len, n), v, n * 4) != 0)
            TFAIL("mapped output differs (%d threads, prefault on %d)", threads, prefault);
        free(file);
    }
    free(v);
}

/* Text cannot be mapped (its size is not known): app_sink_map only
 * reserves, and the values still arrive. */
static void test_map_text_falls_back(void **state) {
    fx_dir_t *fx = *state;
    char path[1200], err[512];
    snprintf(path, sizeof path, "%s/o.txt", fx->dir);
    const uint32_t v[3] = {7, 1, 42};
    arr_writer_t *w;
    assert_int_equal(arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_U32, 3, err, sizeof err), ARR_OK);
    app_sink_t *k;
    assert_int_equal(app_sink_open(&k, w, path, err, sizeof err), ARR_OK);
    assert_int_equal(app_sink_map(k, 3, 2, err, sizeof err), ARR_OK);
    assert_int_equal(app_sink_write(k, v, 3, 2, err, sizeof err), ARR_OK);
    app_sink_close(k);
    assert_int_equal(arr_writer_commit(w, err, sizeof err), ARR_OK);
    size_t len;
    char *text = (char *)fx_read_file(path, &len);
    assert_int_equal(len, strlen("7\n1\n42\n"));
    assert_memory_equal(text, "7\n1\n42\n", len);
    free(text);
}

/* The file truncated under the mapping while it is written: SIGBUS. The
 * child (the writer) must end with status 2 and one line naming the file,
 * leaving no temporary file; never die by the signal. */
static void test_map_sigbus(void **state) {
    fx_dir_t *fx = *state;
    if (!app_omap_enabled()) skip();
    char out_dir[1100], path[1200], errpath[1200];
    snprintf(out_dir, sizeof out_dir, "%s/out", fx->dir);
    assert_int_equal(mkdir(out_dir, 0700), 0);
    snprintf(path, sizeof path, "%s/o.npy", out_dir);
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", fx->dir);
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen(errpath, "w", stderr)) _exit(90);
        char err[512];
        const size_t n = (size_t)1 << 20;
        uint32_t *v = calloc(n, 4);
        arr_writer_t *w;
        app_sink_t *k;
        int fd;
        unsigned long long off;
        bool seekable;
        if (!v || arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_U32, n, err, sizeof err) != ARR_OK) _exit(91);
        if (app_sink_open(&k, w, "shown.npy", err, sizeof err) != ARR_OK) _exit(92);
        if (app_sink_map(k, n, 2, err, sizeof err) != ARR_OK) _exit(93);
        /* The first write waits for the prefault and commits to the mapping. */
        if (app_sink_write(k, v, 1, 1, err, sizeof err) != ARR_OK) _exit(94);
        if (!arr_writer_binary_layout(w, &fd, &off, &seekable) || ftruncate(fd, 0) != 0) _exit(95);
        (void)app_sink_write(k, v + 1, n - 1, 2, err, sizeof err);
        _exit(96); /* the store should not have returned */
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    struct stat est;
    if (stat(errpath, &est) != 0) TFAIL("the writer left no stderr file (status 0x%x)", status);
    size_t len = 0;
    char *msg = (char *)fx_read_file(errpath, &len);
    char *text = strndup(msg, len);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != APP_EXIT_INTERNAL)
        TFAIL("the writer ended with status 0x%x, not exit %d (stderr: %s)", status, APP_EXIT_INTERNAL, text);
    if (!strstr(text, "shown.npy: write failed (disk full or file truncated)") || strchr(text, '\n') != text + len - 1)
        TFAIL("stderr is not the one line expected: '%s'", text);
    char names[512];
    if (fx_count_entries(out_dir, names, sizeof names) != 0) TFAIL("left behind in the output folder: %s", names);
    free(text);
    free(msg);
}

int main(void) {
    test_begin("test_out_map");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_map_npy, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_map_text_falls_back, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_map_sigbus, fx_dir_setup, fx_dir_teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
