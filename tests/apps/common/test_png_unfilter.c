/* test_png_unfilter.c -- png_unfilter (the reader's direct path) alone,
 * against this file's own byte-at-a-time reading of the PNG specification
 * (clause 9), sharing no code with it: every bpp 1..8, random filter types
 * per row (all five), swap16 on and off, widths that are not a multiple of
 * the column block, one row, tall narrow images, thread counts 1..8 forced
 * (so a 2-core machine runs the wavefront too), small forced blocks; and a
 * bad filter type, anywhere, refused before anything is written. */
#define _POSIX_C_SOURCE 200809L
#include "support/harness.h"

#include "common/png_unfilter.h"
#include "image_tests.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reference ----------------------------------------------------------- */

static int ref_paeth(int a, int b, int c)
{
    const int p = a + b - c;
    const int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc)
        return a;
    if (pb <= pc)
        return b;
    return c;
}

/* Every row in order, every byte in order, straight from the specification
   (Paeth written as its p = a + b - c form); then every row's byte pairs
   swapped when asked, from the start of the row. */
static void ref_unfilter(const uint8_t *src, size_t h, size_t rowbytes, unsigned bpp, int swap16, uint8_t *dst)
{
    for (size_t y = 0; y < h; ++y) {
        const uint8_t *in = src + y * (rowbytes + 1);
        uint8_t *out = dst + y * rowbytes;
        for (size_t i = 0; i < rowbytes; ++i) {
            const int a = i >= bpp ? out[i - bpp] : 0;
            const int b = y ? out[i - rowbytes] : 0;
            const int c = (y && i >= bpp) ? out[i - rowbytes - bpp] : 0;
            int p = 0;
            switch (in[0]) {
            case 0: p = 0; break;
            case 1: p = a; break;
            case 2: p = b; break;
            case 3: p = (a + b) / 2; break;
            case 4: p = ref_paeth(a, b, c); break;
            default: TFAIL("reference: bad type %d", in[0]);
            }
            out[i] = (uint8_t)((in[1 + i] + p) & 0xff);
        }
    }
    if (swap16)
        for (size_t y = 0; y < h; ++y)
            for (size_t i = 0; i + 1 < rowbytes; i += 2) {
                uint8_t *q = dst + y * rowbytes + i;
                const uint8_t t = q[0];
                q[0] = q[1];
                q[1] = t;
            }
}

/* ---- cases -------------------------------------------------------------------- */

/* h rows of filtered data with random types (0..4). Half the images have
   bytes from a few values only, so that Paeth's ties (pa == pb, pb == pc)
   and Average's carries come up often. */
static uint8_t *make_filtered(rng_t *r, size_t h, size_t rowbytes)
{
    uint8_t *src = (uint8_t *)malloc(h * (rowbytes + 1) + 1);
    if (!src)
        TFAIL("out of memory");
    const int few = (int)rng_below(r, 2);
    static const uint8_t vals[] = {0, 1, 2, 127, 128, 254, 255};
    for (size_t y = 0; y < h; ++y) {
        uint8_t *row = src + y * (rowbytes + 1);
        row[0] = (uint8_t)rng_below(r, 5);
        for (size_t i = 1; i <= rowbytes; ++i)
            row[i] = few ? vals[rng_below(r, sizeof vals)] : (uint8_t)rng_u32(r);
    }
    return src;
}

/* Runs png_unfilter_ex and compares with the reference, and checks that
   the byte after the image is untouched. */
static void check_case(const uint8_t *src, size_t h, size_t rowbytes, unsigned bpp, int swap16, unsigned threads,
                       size_t block, const uint8_t *want)
{
    const size_t n = h * rowbytes;
    uint8_t *got = (uint8_t *)malloc(n + 1);
    if (!got)
        TFAIL("out of memory");
    memset(got, 0xa5, n + 1);
    const int rc = png_unfilter_ex(src, h, rowbytes, bpp, swap16, threads, block, got);
    if (rc != 0)
        TFAIL("png_unfilter_ex(h %zu, rowbytes %zu, bpp %u, swap16 %d, threads %u, block %zu) = %d", h, rowbytes, bpp,
              swap16, threads, block, rc);
    for (size_t i = 0; i < n; ++i)
        if (got[i] != want[i])
            TFAIL("h %zu, rowbytes %zu, bpp %u, swap16 %d, threads %u, block %zu: byte %zu (row %zu, column %zu, "
                  "type %d) is %d, the specification says %d",
                  h, rowbytes, bpp, swap16, threads, block, i, i / rowbytes, i % rowbytes,
                  src[(i / rowbytes) * (rowbytes + 1)], got[i], want[i]);
    if (got[n] != 0xa5)
        TFAIL("h %zu, rowbytes %zu, bpp %u, threads %u: a byte after the image was written", h, rowbytes, bpp,
              threads);
    free(got);
}

/* One image at every thread count 1..8 and a few blocks: 0 (the automatic
   one), the smallest (2 * bpp), one that divides no width below, and the
   largest. */
static int check_all_counts(const uint8_t *src, size_t h, size_t rowbytes, unsigned bpp, int swap16)
{
    static const size_t blocks[] = {0, 1, 100, 4096};
    uint8_t *want = (uint8_t *)malloc(h * rowbytes + 1);
    if (!want)
        TFAIL("out of memory");
    ref_unfilter(src, h, rowbytes, bpp, swap16, want);
    int runs = 0;
    for (unsigned t = 1; t <= 8; ++t)
        for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; ++k) {
            check_case(src, h, rowbytes, bpp, swap16, t, blocks[k], want);
            ++runs;
        }
    free(want);
    return runs;
}

/* Every bpp, swap16 on and off, widths around and between the blocks, one
   row to a few dozen, every thread count. */
void test_png_unfilter_threads_match_spec(void **state)
{
    (void)state;
    static const size_t widths[] = {1, 2, 5, 37, 171, 700, 1365};
    static const size_t heights[] = {1, 2, 9, 40};
    rng_t r;
    rng_init(&r, "png_unfilter_threads", 0);
    int runs = 0;
    for (unsigned bpp = 1; bpp <= 8; ++bpp)
        for (int swap16 = 0; swap16 <= 1; ++swap16)
            for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; ++wi) {
                const size_t h = heights[rng_below(&r, sizeof heights / sizeof heights[0])];
                const size_t rowbytes = widths[wi] * bpp;
                uint8_t *src = make_filtered(&r, h, rowbytes);
                runs += check_all_counts(src, h, rowbytes, bpp, swap16);
                free(src);
            }
    /* Images of one row, and rows of one filter type throughout (a wavefront
       of Up or None rows runs ahead to the row above's progress). */
    for (unsigned bpp = 1; bpp <= 8; ++bpp)
        for (int type = 0; type <= 4; ++type) {
            const size_t h = 24, rowbytes = 333 * (size_t)bpp;
            uint8_t *src = make_filtered(&r, h, rowbytes);
            for (size_t y = 0; y < h; ++y)
                src[y * (rowbytes + 1)] = (uint8_t)type;
            runs += check_all_counts(src, h, rowbytes, bpp, bpp % 2 == 0);
            runs += check_all_counts(src, 1, rowbytes, bpp, 0);
            free(src);
        }
    print_message("png_unfilter: %d runs equal to the specification's bytes\n", runs);
}

/* Tall and narrow: a row is one block, so each row waits for the whole row
   above (the wavefront degenerates to a hand-over per row), with more
   threads than this machine may have cores. */
void test_png_unfilter_tall_narrow(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "png_unfilter_tall", 0);
    static const unsigned bpps[] = {1, 3, 6, 8};
    static const unsigned counts[] = {2, 3, 8};
    for (size_t k = 0; k < sizeof bpps / sizeof bpps[0]; ++k) {
        const unsigned bpp = bpps[k];
        const size_t h = 1500, rowbytes = (size_t)(1 + rng_below(&r, 3)) * bpp;
        uint8_t *src = make_filtered(&r, h, rowbytes);
        uint8_t *want = (uint8_t *)malloc(h * rowbytes);
        if (!want)
            TFAIL("out of memory");
        const int swap16 = bpp % 2 == 0;
        ref_unfilter(src, h, rowbytes, bpp, swap16, want);
        for (size_t t = 0; t < sizeof counts / sizeof counts[0]; ++t)
            check_case(src, h, rowbytes, bpp, swap16, counts[t], 0, want);
        free(want);
        free(src);
    }
}

/* A larger image on the automatic rule and on forced counts: the blocks
   the rule picks for a 4K-like row, with every filter type mixed. */
void test_png_unfilter_large(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "png_unfilter_large", 0);
    const unsigned bpp = 3;
    const size_t h = 300, rowbytes = 3841 * (size_t)bpp;
    uint8_t *src = make_filtered(&r, h, rowbytes);
    uint8_t *want = (uint8_t *)malloc(h * rowbytes);
    if (!want)
        TFAIL("out of memory");
    ref_unfilter(src, h, rowbytes, bpp, 0, want);
    for (unsigned t = 0; t <= 8; ++t)
        check_case(src, h, rowbytes, bpp, 0, t, 0, want);
    uint8_t *got = (uint8_t *)malloc(h * rowbytes);
    if (!got)
        TFAIL("out of memory");
    assert_int_equal(png_unfilter(src, h, rowbytes, bpp, 0, got), 0);
    assert_memory_equal(got, want, h * rowbytes);
    free(got);
    free(want);
    free(src);
}

/* A filter type above 4 in the last row, the first, or the middle: -1 at
   every thread count, and not one byte written. */
void test_png_unfilter_bad_type(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "png_unfilter_bad", 0);
    const size_t h = 64, rowbytes = 900, n = h * rowbytes;
    uint8_t *src = make_filtered(&r, h, rowbytes);
    uint8_t *got = (uint8_t *)malloc(n);
    if (!src || !got)
        TFAIL("out of memory");
    const size_t rows[] = {h - 1, 0, h / 2};
    static const uint8_t bad[] = {5, 255};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k)
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b)
            for (unsigned t = 0; t <= 8; ++t) {
                const uint8_t keep = src[rows[k] * (rowbytes + 1)];
                src[rows[k] * (rowbytes + 1)] = bad[b];
                memset(got, 0x3c, n);
                const int rc = png_unfilter_ex(src, h, rowbytes, 3, 0, t, 64, got);
                src[rows[k] * (rowbytes + 1)] = keep;
                if (rc != -1)
                    TFAIL("type %d in row %zu, %u threads: returned %d, not -1", bad[b], rows[k], t, rc);
                for (size_t i = 0; i < n; ++i)
                    if (got[i] != 0x3c)
                        TFAIL("type %d in row %zu, %u threads: byte %zu written", bad[b], rows[k], t, i);
            }
    assert_int_equal(png_unfilter(src, h, rowbytes, 9, 0, got), -1); /* bpp out of range */
    assert_int_equal(png_unfilter(src, h, rowbytes, 0, 0, got), -1);
    free(got);
    free(src);
}

/* The automatic count: one thread for small images, short rows or one row;
   LIBSCAN_CPU_THREADS (sat_blur's batch sets 1) else the CPUs, at most
   PNG_UNFILTER_AUTO_THREADS. */
void test_png_unfilter_thread_rule(void **state)
{
    (void)state;
    const char *saved = getenv("LIBSCAN_CPU_THREADS");
    char *keep = saved ? strdup(saved) : NULL;
    const size_t big_h = 2160, big_row = 3840 * 3;
    setenv("LIBSCAN_CPU_THREADS", "6", 1);
    assert_int_equal(png_unfilter_threads(big_h, big_row), 6);
    assert_int_equal(png_unfilter_threads(100, 3000), 1);         /* under 1 MiB */
    assert_int_equal(png_unfilter_threads(1u << 20, 600), 1);     /* rows too short to split */
    assert_int_equal(png_unfilter_threads(1, (size_t)1 << 22), 1); /* one row */
    setenv("LIBSCAN_CPU_THREADS", "1", 1);
    assert_int_equal(png_unfilter_threads(big_h, big_row), 1);
    setenv("LIBSCAN_CPU_THREADS", "100", 1);
    assert_int_equal(png_unfilter_threads(big_h, big_row), PNG_UNFILTER_AUTO_THREADS);
    setenv("LIBSCAN_CPU_THREADS", "x", 1); /* not a number: the CPUs */
    const unsigned n = png_unfilter_threads(big_h, big_row);
    assert_true(n >= 1 && n <= PNG_UNFILTER_AUTO_THREADS);
    if (keep)
        setenv("LIBSCAN_CPU_THREADS", keep, 1);
    else
        unsetenv("LIBSCAN_CPU_THREADS");
    free(keep);
}
