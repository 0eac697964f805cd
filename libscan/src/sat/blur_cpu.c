/* blur_cpu.c -- libscan_cpu_sat_box_filter: the variable-radius box filter on the
 * host, with the very same integer arithmetic as the GPU kernel
 * (filter_math.h), hence the same output bits. Every output pixel depends
 * only on the (read-only) tables and its radius, so the rows are split into
 * contiguous bands, one per thread (core/cpu_threads.h): any split writes
 * the same bytes. */
#include <libscan/sat.h>
#include "sat_internal.h"
#include "filter_math.h"
#include "core/cpu_threads.h"

/* Below this many pixels per thread the filter runs on fewer threads: a
 * pixel costs tens of nanoseconds (two boxes of four corners, divisions),
 * so 2^14 pixels (~0.5 ms) pay for a thread's start many times over. */
#define SAT_CPU_FILTER_GRAIN ((size_t)1 << 14)

typedef struct filter_ctx {
    const libscan_sat_image_t *table, *wtable, *out;
    const uint16_t *radius_q8;
    size_t radius_pitch;
    uint16_t uniform_radius_q8;
} filter_ctx_t;

/* Rows [y0, y1) with the channel count, the table's width and the
 * output's sample size as constants: inlined once per combination below,
 * so that the per-channel loops of filter_math.h unroll and its branches on
 * `wide` fold away. The arithmetic is filter_math.h's, word for word. */
static inline __attribute__((always_inline)) void filter_rows_as(const filter_ctx_t *f, size_t y0, size_t y1,
                                                                 const int C, const int wide, const int obytes) {
    const libscan_sat_image_t *table = f->table, *out = f->out;
    const unsigned char *t = (const unsigned char *)table->data;
    const unsigned char *wt = f->wtable ? (const unsigned char *)f->wtable->data : NULL;
    const size_t wpitch = f->wtable ? f->wtable->pitch : 0;
    /* Two boxes a pixel (the radius's whole part and one more), and most
       pixels' boxes weigh what their left neighbour's did. */
    libscan__sat_inv_t inv[2] = {{0, 0.0}, {0, 0.0}};
    for (size_t y = y0; y < y1; ++y) {
        const uint16_t *rrow = f->radius_q8 ? (const uint16_t *)(const void *)((const unsigned char *)f->radius_q8 +
                                                                               y * f->radius_pitch)
                                            : NULL;
        unsigned char *orow = (unsigned char *)out->data + y * out->pitch;
        for (size_t x = 0; x < table->width; ++x) {
            uint64_t v[4];
            libscan__sat_filter_pixel(t, table->pitch, C, wide, wt, wpitch, table->width, table->height, x, y,
                                      rrow ? rrow[x] : f->uniform_radius_q8, v, inv);
            for (int c = 0; c < C; ++c) libscan__sat_store(orow, x * (size_t)C + (size_t)c, obytes, v[c]);
        }
    }
}

#define FILTER_CASE(C, WIDE, OB) \
    case (C) * 100 + (WIDE) * 10 + (OB): filter_rows_as(f, y0, y1, C, WIDE, OB); return;

static void filter_rows(const filter_ctx_t *f, size_t y0, size_t y1) {
    const int C = f->table->channels, wide = f->table->dtype == LIBSCAN_U64;
    const int obytes = (int)libscan_dtype_size(f->out->dtype);
    /* The outputs sat_blur writes (16-bit samples from 32-bit tables, 32-
       and 64-bit from 64-bit ones) get their own copies; any other, the
       general one. */
    switch (C * 100 + wide * 10 + (obytes < 10 ? obytes : 9)) {
        FILTER_CASE(1, 0, 2) FILTER_CASE(2, 0, 2) FILTER_CASE(3, 0, 2) FILTER_CASE(4, 0, 2)
        FILTER_CASE(1, 1, 4) FILTER_CASE(2, 1, 4) FILTER_CASE(3, 1, 4) FILTER_CASE(4, 1, 4)
        FILTER_CASE(1, 1, 8) FILTER_CASE(2, 1, 8) FILTER_CASE(3, 1, 8) FILTER_CASE(4, 1, 8)
    default: filter_rows_as(f, y0, y1, C, wide, obytes);
    }
}

#undef FILTER_CASE

static void filter_team(void *arg, libscan__team_t *team, unsigned t) {
    const filter_ctx_t *f = (const filter_ctx_t *)arg;
    size_t y0, y1;
    libscan__split(f->table->height, libscan__team_size(team), t, &y0, &y1);
    filter_rows(f, y0, y1);
}

libscan_status_t libscan_cpu_sat_box_filter(const libscan_sat_image_t *table, const libscan_sat_image_t *wtable, const uint16_t *radius_q8,
                                size_t radius_pitch, uint16_t uniform_radius_q8, const libscan_sat_image_t *out) {
    const libscan_status_t st = libscan__sat_check_filter(table, wtable, radius_q8, radius_pitch, out);
    if (st != LIBSCAN_SUCCESS) return st;
    const filter_ctx_t f = {table, wtable, out, radius_q8, radius_pitch, uniform_radius_q8};
    /* Never more threads than rows: a band is at least one row. */
    unsigned threads = libscan__cpu_threads(table->width * table->height, SAT_CPU_FILTER_GRAIN);
    if (threads > table->height) threads = (unsigned)table->height;
    libscan__team_run(threads, filter_team, (void *)&f);
    return LIBSCAN_SUCCESS;
}
