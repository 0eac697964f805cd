/* test_stream_io.c -- apps/common's streaming I/O: par_io.h (a byte range on
 * several threads), stream_io.h (sources, sinks, spills, the read and write
 * pipes) and host_mem.h. Input files are assembled by the test (fixtures.c)
 * from its own random bytes, and outputs are checked against those bytes,
 * parsed here (the .npy header by hand), never through the code under test.
 * Chunk sizes, thread counts and ring sizes are varied so that chunks end
 * everywhere: mid-ring, at a buffer's reuse, on the last element. */
#define _GNU_SOURCE
#include "support/harness.h"

#include "common/array_io.h"
#include "common/cli.h"
#include "common/host_mem.h"
#include "common/par_io.h"
#include "common/stream_io.h"
#include "fixtures.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void path_in(const fx_dir_t *fx, const char *name, char *out, size_t cap) {
    snprintf(out, cap, "%s/%s", fx->dir, name);
}

static void fill(rng_t *r, void *buf, size_t n) {
    unsigned char *p = buf;
    for (size_t i = 0; i < n; ++i) p[i] = (unsigned char)rng_u32(r);
}

/* A 1-D .npy of n u32 (little or big endian) whose values are v[]. */
static void write_u32_npy(const char *path, const uint32_t *v, size_t n, int big) {
    char dict[128];
    snprintf(dict, sizeof dict, "{'descr': '%cu4', 'fortran_order': False, 'shape': (%zu,), }", big ? '>' : '<', n);
    uint32_t *file = malloc(n * 4 + 4);
    memcpy(file, v, n * 4);
    if (big == fx_little_endian()) fx_swap(file, n, 4);
    fx_write_npy(path, 1, 0, dict, 1, 0, file, n * 4);
    free(file);
}

/* The data of a .npy file written by array_io: checks that its header says
 * `descr` and (n,), and returns a pointer to the data in *bytes (freed by the
 * caller through *file). */
static const unsigned char *npy_data(const char *path, const char *descr, size_t n, unsigned char **file) {
    size_t len;
    *file = fx_read_file(path, &len);
    if (len < 10 || memcmp(*file, "\x93NUMPY\x01\x00", 8) != 0) TFAIL("%s: not a .npy v1.0 file", path);
    const size_t hlen = (size_t)(*file)[8] | (size_t)(*file)[9] << 8;
    char want[96];
    snprintf(want, sizeof want, "'descr': '%s'", descr);
    char *hdr = strndup((const char *)*file + 10, hlen);
    if (!strstr(hdr, want)) TFAIL("%s: header lacks %s: %s", path, want, hdr);
    snprintf(want, sizeof want, "'shape': (%zu,)", n);
    if (!strstr(hdr, want)) TFAIL("%s: header lacks %s: %s", path, want, hdr);
    free(hdr);
    if (len != 10 + hlen + n * 4 && len != 10 + hlen + n * 8) TFAIL("%s: %zu bytes for %zu elements", path, len, n);
    return *file + 10 + hlen;
}

/* ---- par_io ------------------------------------------------------------------------ */

static void test_par_io(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "par_io", 0);
    char path[1200];
    path_in(fx, "bytes", path, sizeof path);
    const size_t sizes[] = {0, 1, 4095, 4097, ((size_t)3 << 20) + 7, ((size_t)9 << 20) + 4096};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
        const size_t n = sizes[si];
        unsigned char *want = malloc(n + 1), *got = malloc(n + 1);
        fill(&r, want, n);
        fx_write_file(path, want, n);
        int fd = open(path, O_RDONLY);
        for (int t = 1; t <= 5; t += 2) {
            memset(got, 0xA5, n + 1);
            int e = app_pread_full(fd, got, n, 0, t, 4, NULL, NULL);
            if (e || memcmp(got, want, n) != 0) TFAIL("pread_full of %zu bytes on %d threads: %d", n, t, e);
            if (n > 3) {
                /* A range from an odd offset, and one past the end. */
                e = app_pread_full(fd, got, n - 3, 3, t, 1, NULL, NULL);
                if (e || memcmp(got, want + 3, n - 3) != 0) TFAIL("pread_full at offset 3 of %zu: %d", n, e);
                assert_int_equal(app_pread_full(fd, got, n, 3, t, 1, NULL, NULL), APP_IO_SHORT);
            }
        }
        close(fd);
        /* pwrite on several threads, then the bytes read back plainly. */
        char out[1200];
        path_in(fx, "written", out, sizeof out);
        fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        assert_int_equal(app_pwrite_full(fd, want, n, 5, 4), 0);
        close(fd);
        size_t len;
        unsigned char *back = fx_read_file(out, &len);
        if (n > 0 && (len != n + 5 || memcmp(back + 5, want, n) != 0)) TFAIL("pwrite_full of %zu bytes", n);
        free(back);
        free(want);
        free(got);
    }
    assert_int_equal(app_pread_full(0, NULL, 1, 0, 1, 3, NULL, NULL), EINVAL); /* 3 does not divide 4096 */
    assert_true(app_io_threads() >= 1 && app_io_threads() <= 64);
}

/* ---- sources -------------------------------------------------------------------------- */

static void test_src_formats(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "src", 0);
    const size_t n = 100003;
    uint32_t *v = malloc(n * 4), *got = malloc(n * 4);
    fill(&r, v, n * 4);
    char le[1200], be[1200], raw[1200], txt[1200], err[512];
    path_in(fx, "le.npy", le, sizeof le);
    path_in(fx, "be.npy", be, sizeof be);
    path_in(fx, "raw.bin", raw, sizeof raw);
    path_in(fx, "t.txt", txt, sizeof txt);
    write_u32_npy(le, v, n, 0);
    write_u32_npy(be, v, n, 1);
    fx_write_file(raw, v, n * 4);
    FILE *f = fopen(txt, "w");
    for (size_t i = 0; i < 1000; ++i) fprintf(f, "%u\n", v[i]);
    fclose(f);
    const char *paths[3] = {le, be, raw};
    for (int p = 0; p < 3; ++p) {
        app_src_t *s;
        assert_int_equal(app_src_open(&s, paths[p], ARR_FMT_AUTO, ARR_U32, err, sizeof err), ARR_OK);
        assert_int_equal(app_src_count(s), n);
        assert_int_equal(app_src_dtype(s), ARR_U32);
        assert_true(app_src_random_access(s));
        /* Random ranges, any order, several threads. */
        for (int k = 0; k < 20; ++k) {
            size_t a = (size_t)rng_below(&r, n), b = (size_t)rng_below(&r, n + 1);
            if (a > b) { size_t t = a; a = b; b = t; }
            memset(got, 0, n * 4);
            assert_int_equal(app_src_read(s, a, b - a, got, 1 + k % 4, err, sizeof err), ARR_OK);
            if (memcmp(got, v + a, (b - a) * 4) != 0) TFAIL("%s: elements %zu..%zu differ", paths[p], a, b);
        }
        assert_int_equal(app_src_read(s, n - 1, 2, got, 1, err, sizeof err), ARR_ERR_SYSTEM); /* beyond the end */
        app_src_close(s);
    }
    /* Text: in order only. */
    app_src_t *s;
    assert_int_equal(app_src_open(&s, txt, ARR_FMT_AUTO, ARR_U32, err, sizeof err), ARR_OK);
    assert_false(app_src_random_access(s));
    assert_int_equal(app_src_read(s, 0, 10, got, 4, err, sizeof err), ARR_OK);
    assert_int_equal(app_src_read(s, 20, 10, got, 1, err, sizeof err), ARR_ERR_SYSTEM);
    assert_int_equal(app_src_read(s, 10, 990, got + 10, 1, err, sizeof err), ARR_OK);
    if (memcmp(got, v, 1000 * 4) != 0) TFAIL("text source differs");
    app_src_close(s);
    /* The file shrinks after it was opened: the read says so. */
    assert_int_equal(app_src_open(&s, le, ARR_FMT_AUTO, ARR_NONE, err, sizeof err), ARR_OK);
    assert_int_equal(truncate(le, 128 + 4 * 1000), 0);
    assert_int_equal(app_src_read(s, 0, n, got, 3, err, sizeof err), ARR_ERR_INPUT);
    assert_non_null(strstr(err, "le.npy"));
    assert_non_null(strstr(err, "truncated"));
    app_src_close(s);
    free(v);
    free(got);
}

/* ---- the read pipe ------------------------------------------------------------------------ */

/* Every chunk once, in order, with the file's data, for chunk sizes, reader
 * counts and ring sizes that put chunk ends everywhere; chunks held two at
 * a time and released in reverse order, and the headroom left free. */
static void test_rpipe_chunks(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "rpipe", 0);
    const size_t n = 30011;
    uint32_t *v = malloc(n * 4);
    fill(&r, v, n * 4);
    char path[1200], txt[1200], err[512];
    path_in(fx, "k.npy", path, sizeof path);
    path_in(fx, "k.txt", txt, sizeof txt);
    write_u32_npy(path, v, n, 1);
    FILE *f = fopen(txt, "w");
    for (size_t i = 0; i < n; ++i) fprintf(f, "%u\n", v[i]);
    fclose(f);
    const size_t chunks[] = {1, 7, 64, 4096, 30011, 50000};
    const int readers[] = {1, 3, 8};
    const int rings[] = {1, 2, 3, 9};
    for (int file = 0; file < 2; ++file)
        for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ++ci)
            for (size_t ti = 0; ti < 3; ++ti)
                for (size_t ri = 0; ri < 4; ++ri) {
                    const size_t chunk = chunks[ci];
                    if (file == 1 && ti > 0) continue; /* text: one reader whatever is asked */
                    app_src_t *s;
                    assert_int_equal(app_src_open(&s, file ? txt : path, ARR_FMT_AUTO, ARR_U32, err, sizeof err), ARR_OK);
                    app_ring_t ring;
                    assert_int_equal(app_ring_alloc(&ring, rings[ri], 16 + chunk * 4, false, "t", err, sizeof err), ARR_OK);
                    for (int i = 0; i < ring.n; ++i) memset(ring.buf[i], 0x5A, 16);
                    /* Tiny chunks over a part only, to keep the run short. */
                    const size_t first = file ? 0 : 5, count = chunk < 64 ? 2003 : n - first - (file ? 0 : 2);
                    app_rpipe_t *p;
                    assert_int_equal(app_rpipe_start(&p, s, first, count, &ring, 16, chunk, readers[ti], err, sizeof err),
                                     ARR_OK);
                    size_t expect = first, index = 0;
                    app_chunk_t held = {0};
                    held.slot = -1;
                    for (;;) {
                        app_chunk_t c;
                        assert_int_equal(app_rpipe_next(p, &c, err, sizeof err), ARR_OK);
                        if (!c.data) break;
                        if (c.index != index || c.first != expect || c.count == 0 || c.count > chunk ||
                            memcmp(c.data, v + c.first, c.count * 4) != 0)
                            TFAIL("chunk %zu (of %zu, %d readers, %d buffers, file %d) is wrong", index, chunk,
                                  readers[ti], rings[ri], file);
                        if (((unsigned char *)c.data)[-1] != 0x5A) TFAIL("the headroom was written");
                        expect += c.count;
                        ++index;
                        /* Hold two when the ring allows, release the newer first. */
                        if (ring.n >= 2 && !held.data) {
                            held = c;
                            continue;
                        }
                        app_rpipe_release(p, &c);
                        if (held.data) {
                            app_rpipe_release(p, &held);
                            held.data = NULL;
                        }
                    }
                    if (held.data) app_rpipe_release(p, &held);
                    if (expect != first + count) TFAIL("chunks covered %zu..%zu, not %zu..%zu", first, expect, first, first + count);
                    app_span_t sp = app_rpipe_span(p);
                    assert_true(sp.last >= sp.first);
                    app_rpipe_stop(p);
                    app_ring_free(&ring);
                    app_src_close(s);
                }
    free(v);
}

/* A read error mid-stream: next() reports it (naming the file), and
 * stopping early, with chunks still unread and readers waiting, does not
 * hang. */
static void test_rpipe_errors(void **state) {
    fx_dir_t *fx = *state;
    const size_t n = 100000;
    uint32_t *v = calloc(n, 4);
    char path[1200], err[512];
    path_in(fx, "e.npy", path, sizeof path);
    write_u32_npy(path, v, n, 0);
    app_src_t *s;
    app_ring_t ring;
    assert_int_equal(app_src_open(&s, path, ARR_FMT_AUTO, ARR_NONE, err, sizeof err), ARR_OK);
    assert_int_equal(app_ring_alloc(&ring, 4, 1000 * 4, false, "t", err, sizeof err), ARR_OK);
    assert_int_equal(truncate(path, 128 + 4 * 50000), 0);
    app_rpipe_t *p;
    assert_int_equal(app_rpipe_start(&p, s, 0, n, &ring, 0, 1000, 3, err, sizeof err), ARR_OK);
    arr_status_t st = ARR_OK;
    size_t seen = 0;
    for (;;) {
        app_chunk_t c;
        st = app_rpipe_next(p, &c, err, sizeof err);
        if (st != ARR_OK || !c.data) break;
        seen += c.count;
        app_rpipe_release(p, &c);
    }
    assert_int_equal(st, ARR_ERR_INPUT);
    assert_non_null(strstr(err, "e.npy"));
    assert_true(seen <= 50000);
    app_rpipe_stop(p);
    /* Given up early: readers blocked on full buffers must still stop. */
    assert_int_equal(app_rpipe_start(&p, s, 0, 40000, &ring, 0, 100, 8, err, sizeof err), ARR_OK);
    app_chunk_t c;
    assert_int_equal(app_rpipe_next(p, &c, err, sizeof err), ARR_OK);
    app_rpipe_stop(p);
    /* Chunks that do not fit the buffers are refused. */
    assert_int_equal(app_rpipe_start(&p, s, 0, n, &ring, 8, 1000, 1, err, sizeof err), ARR_ERR_SYSTEM);
    app_ring_free(&ring);
    app_src_close(s);
    free(v);
}

/* ---- sinks and the write pipe --------------------------------------------------------------- */

/* Appends v[0..n) through a write pipe in pieces of random sizes (taken from
 * buffers filled while earlier ones are written). */
static arr_status_t pipe_out(app_sink_t *k, const uint32_t *v, size_t n, int threads, int nbuf, rng_t *r, char *err,
                             size_t errlen) {
    app_ring_t ring;
    const size_t cap = 777;
    if (app_ring_alloc(&ring, nbuf, cap * 4, false, "t", err, errlen) != ARR_OK) return ARR_ERR_SYSTEM;
    app_wpipe_t *p;
    arr_status_t st = app_wpipe_start(&p, k, &ring, threads, err, errlen);
    for (size_t at = 0; st == ARR_OK && at < n;) {
        size_t m = 1 + (size_t)rng_below(r, cap);
        if (m > n - at) m = n - at;
        int slot;
        uint32_t *buf = app_wpipe_acquire(p, &slot);
        if (!buf) break;
        /* Data not at the buffer's start: the pipe writes what it is given. */
        const size_t off = m < cap ? (size_t)rng_below(r, cap - m + 1) : 0;
        memcpy(buf + off, v + at, m * 4);
        app_wpipe_submit(p, slot, buf + off, m);
        at += m;
    }
    app_span_t sp;
    if (st == ARR_OK) st = app_wpipe_finish(p, &sp, err, errlen);
    if (st == ARR_OK && n > 0 && !(sp.last >= sp.first)) TFAIL("the write pipe's span is empty after %zu elements", n);
    app_ring_free(&ring);
    return st;
}

static void test_sink_pipe_npy(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "sink", 0);
    const size_t n = 54321;
    uint32_t *v = malloc(n * 4);
    fill(&r, v, n * 4);
    char path[1200], err[512];
    path_in(fx, "o.npy", path, sizeof path);
    for (int known = 0; known < 2; ++known)
        for (int threads = 1; threads <= 6; threads += 5) {
            arr_writer_t *w;
            assert_int_equal(arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_U32, known ? n : ARR_COUNT_UNKNOWN, err,
                                             sizeof err), ARR_OK);
            app_sink_t *k;
            assert_int_equal(app_sink_open(&k, w, "shown.npy", err, sizeof err), ARR_OK);
            if (known) assert_int_equal(app_sink_reserve(k, n, err, sizeof err), ARR_OK);
            /* Some elements whole (several threads), the rest through the pipe. */
            assert_int_equal(app_sink_write(k, v, 1000, 3, err, sizeof err), ARR_OK);
            assert_int_equal(pipe_out(k, v + 1000, n - 1000, threads, 1 + threads, &r, err, sizeof err), ARR_OK);
            assert_int_equal(app_sink_count(k), n);
            app_sink_close(k);
            assert_int_equal(arr_writer_commit(w, err, sizeof err), ARR_OK);
            unsigned char *file;
            const unsigned char *data = npy_data(path, "<u4", n, &file);
            if (memcmp(data, v, n * 4) != 0) TFAIL("npy through the pipe (%d threads, known %d) differs", threads, known);
            free(file);
        }
    /* A writer that announced fewer elements: commit refuses it. */
    arr_writer_t *w;
    app_sink_t *k;
    assert_int_equal(arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_U32, 10, err, sizeof err), ARR_OK);
    assert_int_equal(app_sink_open(&k, w, path, err, sizeof err), ARR_OK);
    assert_int_equal(app_sink_write(k, v, 9, 2, err, sizeof err), ARR_OK);
    app_sink_close(k);
    assert_int_equal(arr_writer_commit(w, err, sizeof err), ARR_ERR_SYSTEM);
    free(v);
}

/* Text goes through array_io's formatting, in order. */
static void test_sink_pipe_text(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "text", 0);
    const size_t n = 5000;
    uint32_t *v = malloc(n * 4);
    fill(&r, v, n * 4);
    char path[1200], err[512];
    path_in(fx, "o.txt", path, sizeof path);
    arr_writer_t *w;
    assert_int_equal(arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_U32, ARR_COUNT_UNKNOWN, err, sizeof err), ARR_OK);
    app_sink_t *k;
    assert_int_equal(app_sink_open(&k, w, path, err, sizeof err), ARR_OK);
    assert_int_equal(pipe_out(k, v, n, 8, 4, &r, err, sizeof err), ARR_OK);
    app_sink_close(k);
    assert_int_equal(arr_writer_commit(w, err, sizeof err), ARR_OK);
    FILE *f = fopen(path, "r");
    for (size_t i = 0; i < n; ++i) {
        unsigned x;
        if (fscanf(f, "%u", &x) != 1 || x != v[i]) TFAIL("text line %zu", i + 1);
    }
    fclose(f);
    free(v);
}

/* Spills: appended after the rest, into a .npy of unknown count (the
 * kernel's copy) and into text (through a buffer). */
static void test_spill(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "spill", 0);
    const size_t n = 20000, m = 7777;
    uint32_t *v = malloc((n + m) * 4);
    fill(&r, v, (n + m) * 4);
    char path[1200], txt[1200], err[512];
    path_in(fx, "p.npy", path, sizeof path);
    path_in(fx, "p.txt", txt, sizeof txt);
    for (int as_text = 0; as_text < 2; ++as_text) {
        const char *out = as_text ? txt : path;
        arr_writer_t *w;
        app_sink_t *k, *sp;
        assert_int_equal(arr_writer_open(&w, out, ARR_FMT_AUTO, ARR_U32, ARR_COUNT_UNKNOWN, err, sizeof err), ARR_OK);
        assert_int_equal(app_sink_open(&k, w, out, err, sizeof err), ARR_OK);
        assert_int_equal(app_sink_open_spill(&sp, out, 4, err, sizeof err), ARR_OK);
        assert_int_equal(pipe_out(sp, v + n, m, 3, 4, &r, err, sizeof err), ARR_OK);
        assert_int_equal(app_sink_count(sp), m);
        assert_int_equal(pipe_out(k, v, n, 3, 4, &r, err, sizeof err), ARR_OK);
        assert_int_equal(app_sink_append_spill(k, sp, 2, err, sizeof err), ARR_OK);
        assert_int_equal(app_sink_count(k), n + m);
        app_sink_close(k);
        assert_int_equal(arr_writer_commit(w, err, sizeof err), ARR_OK);
        if (as_text) {
            FILE *f = fopen(txt, "r");
            for (size_t i = 0; i < n + m; ++i) {
                unsigned x;
                if (fscanf(f, "%u", &x) != 1 || x != v[i]) TFAIL("spilled text line %zu", i + 1);
            }
            fclose(f);
        } else {
            unsigned char *file;
            const unsigned char *data = npy_data(path, "<u4", n + m, &file);
            if (memcmp(data, v, (n + m) * 4) != 0) TFAIL("npy with a spill appended differs");
            free(file);
        }
    }
    /* The spill left no file in the folder: only the two outputs. */
    assert_int_equal(fx_count_entries(fx->dir, NULL, 0), 2);
    free(v);
}

/* A FIFO is written in order by one writer, whatever the threads asked. */
typedef struct {
    const char *path;
    unsigned char *buf;
    size_t len, cap;
} drain_t;

static void *drain(void *arg) {
    drain_t *d = arg;
    int fd = open(d->path, O_RDONLY);
    ssize_t r;
    while (fd >= 0 && d->len < d->cap && (r = read(fd, d->buf + d->len, d->cap - d->len)) > 0) d->len += (size_t)r;
    if (fd >= 0) close(fd);
    return NULL;
}

static void test_sink_sequential(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "fifo", 0);
    const size_t n = 300000;
    uint32_t *v = malloc(n * 4);
    fill(&r, v, n * 4);
    char path[1200], err[512];
    path_in(fx, "fifo", path, sizeof path);
    assert_int_equal(mkfifo(path, 0600), 0);
    drain_t d = {path, malloc(n * 4 + 4096), 0, n * 4 + 4096};
    pthread_t t;
    pthread_create(&t, NULL, drain, &d);
    arr_writer_t *w;
    assert_int_equal(arr_writer_open(&w, path, ARR_FMT_RAW, ARR_U32, n, err, sizeof err), ARR_OK);
    app_sink_t *k;
    assert_int_equal(app_sink_open(&k, w, path, err, sizeof err), ARR_OK);
    assert_int_equal(app_sink_reserve(k, n, err, sizeof err), ARR_OK); /* nothing to reserve on a FIFO */
    assert_int_equal(pipe_out(k, v, n, 8, 8, &r, err, sizeof err), ARR_OK);
    app_sink_close(k);
    assert_int_equal(arr_writer_commit(w, err, sizeof err), ARR_OK);
    pthread_join(t, NULL);
    if (d.len != n * 4 || memcmp(d.buf, v, n * 4) != 0) TFAIL("the FIFO got %zu bytes out of order or short", d.len);
    free(d.buf);
    free(v);
}

/* A full device (a private node of /dev/full's kind): the pipe's write fails,
 * acquire stops handing out buffers, finish names the file. */
static void test_sink_full(void **state) {
    fx_dir_t *fx = *state;
    char path[1200], err[512];
    path_in(fx, "full", path, sizeof path);
    if (mknod(path, S_IFCHR | 0600, makedev(1, 7)) != 0) {
        print_message("note: cannot make a device node here (not root?); the full-device case is skipped\n");
        return;
    }
    rng_t r;
    rng_init(&r, "full", 0);
    const size_t n = 100000;
    uint32_t *v = calloc(n, 4);
    arr_writer_t *w;
    assert_int_equal(arr_writer_open(&w, path, ARR_FMT_RAW, ARR_U32, n, err, sizeof err), ARR_OK);
    app_sink_t *k;
    assert_int_equal(app_sink_open(&k, w, path, err, sizeof err), ARR_OK);
    assert_int_equal(pipe_out(k, v, n, 4, 3, &r, err, sizeof err), ARR_ERR_SYSTEM);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, strerror(ENOSPC)));
    assert_int_equal(app_sink_write(k, v, 10, 1, err, sizeof err), ARR_ERR_SYSTEM);
    app_sink_close(k);
    arr_writer_abort(w);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    free(v);
}

/* ---- host memory ------------------------------------------------------------------------ */

static void test_hostbuf(void **state) {
    (void)state;
    app_hostbuf_t b;
    assert_int_equal(app_hostbuf_alloc(&b, 0, false), 0);
    assert_null(b.p);
    app_hostbuf_free(&b);
    const size_t sizes[] = {1, 4096, ((size_t)2 << 20) + 1, (size_t)9 << 20};
    for (size_t i = 0; i < 4; ++i) {
        assert_int_equal(app_hostbuf_alloc(&b, sizes[i], false), 0);
        assert_false(app_hostbuf_pinned(&b));
        memset(b.p, 0x3C, sizes[i]);
        assert_int_equal(((unsigned char *)b.p)[sizes[i] - 1], 0x3C);
        app_hostbuf_free(&b);
        assert_null(b.p);
    }
    /* Pinned only with a GPU; without one it must still be usable memory. */
    if (test_gpu_present()) {
        /* Both ways of pinning (host_mem.c: cudaHostAlloc below 1 MiB, our
           own memory registered from there), each through a GPU round trip. */
        const size_t psizes[] = {4096, ((size_t)1 << 20) - 1, (size_t)1 << 20, ((size_t)9 << 20) + 3};
        for (size_t i = 0; i < 4; ++i) {
            const size_t n = psizes[i];
            app_hostbuf_t back;
            assert_int_equal(app_hostbuf_alloc(&b, n, true), 0);
            assert_int_equal(app_hostbuf_alloc(&back, n, true), 0);
            assert_true(app_hostbuf_pinned(&b) && app_hostbuf_pinned(&back));
            for (size_t k = 0; k < n; ++k) ((unsigned char *)b.p)[k] = (unsigned char)(k * 131u + i);
            memset(back.p, 0, n);
            void *d = NULL;
            assert_int_equal(cudaMalloc(&d, n), cudaSuccess);
            assert_int_equal(cudaMemcpy(d, b.p, n, cudaMemcpyHostToDevice), cudaSuccess);
            assert_int_equal(cudaMemcpy(back.p, d, n, cudaMemcpyDeviceToHost), cudaSuccess);
            assert_memory_equal(back.p, b.p, n);
            app_device_free(d);
            app_hostbuf_free(&b);
            app_hostbuf_free(&back);
            assert_null(b.p);
        }
    }
}

/* A ring is one block: every buffer on its own page boundary, whole, and
 * apart from the others; pinned on a GPU; 0 or 65 buffers refused. */
static void test_ring_layout(void **state) {
    (void)state;
    char err[256];
    app_ring_t ring;
    assert_int_equal(app_ring_alloc(&ring, 0, 64, false, "t", err, sizeof err), ARR_ERR_SYSTEM);
    assert_non_null(strstr(err, "t: 0 staging buffers asked"));
    assert_int_equal(app_ring_alloc(&ring, 65, 64, false, "t", err, sizeof err), ARR_ERR_SYSTEM);
    app_ring_free(&ring); /* a refused ring is empty: freeing it is fine */
    const bool pin[2] = {false, true};
    for (int k = 0; k < (test_gpu_present() ? 2 : 1); ++k) {
        const size_t bytes = ((size_t)4 << 20) + 16;
        assert_int_equal(app_ring_alloc(&ring, 13, bytes, pin[k], "t", err, sizeof err), ARR_OK);
        assert_int_equal(ring.n, 13);
        assert_int_equal(ring.bytes, bytes);
        assert_int_equal(app_hostbuf_pinned(&ring.mem), pin[k]);
        for (int i = 0; i < ring.n; ++i) {
            assert_int_equal((uintptr_t)ring.buf[i] % 4096, 0);
            if (i > 0) assert_true((unsigned char *)ring.buf[i] >= (unsigned char *)ring.buf[i - 1] + bytes);
            memset(ring.buf[i], i + 1, bytes);
        }
        for (int i = 0; i < ring.n; ++i) {
            const unsigned char *b = ring.buf[i];
            assert_int_equal(b[0], i + 1);
            assert_int_equal(b[bytes - 1], i + 1);
        }
        app_ring_free(&ring);
        assert_int_equal(ring.n, 0);
        assert_null(ring.mem.p);
    }
}

static void test_chunk_size(void **state) {
    (void)state;
    /* LIBSCAN_STREAM_CHUNK is read once; whatever it is, a chunk holds at
       least one element of any size. */
    assert_true(app_stream_chunk_bytes() >= 1);
    assert_true(app_stream_chunk_elems(8) >= 1);
    assert_true(app_stream_chunk_elems(1) >= app_stream_chunk_elems(8));
}

int main(void) {
    test_begin("test_stream_io");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_par_io, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_src_formats, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_rpipe_chunks, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_rpipe_errors, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_sink_pipe_npy, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_sink_pipe_text, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_spill, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_sink_sequential, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_sink_full, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test(test_hostbuf),
        cmocka_unit_test(test_ring_layout),
        cmocka_unit_test(test_chunk_size),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
