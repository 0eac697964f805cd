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

static void filter_rows(const filter_ctx_t *f, size_t y0, size_t y1) {
    const libscan_sat_image_t *table = f->table, *out = f->out;
    const unsigned char *t = (const unsigned char *)table->data;
    const unsigned char *wt = f->wtable ? (const unsigned char *)f->wtable->data : NULL;
    const size_t wpitch = f->wtable ? f->wtable->pitch : 0;
    const int C = table->channels, wide = table->dtype == LIBSCAN_U64;
    const int obytes = (int)libscan_dtype_size(out->dtype);
    for (size_t y = y0; y < y1; ++y) {
        const uint16_t *rrow = f->radius_q8 ? (const uint16_t *)(const void *)((const unsigned char *)f->radius_q8 +
                                                                               y * f->radius_pitch)
                                            : NULL;
        unsigned char *orow = (unsigned char *)out->data + y * out->pitch;
        for (size_t x = 0; x < table->width; ++x) {
            uint64_t v[4];
            libscan__sat_filter_pixel(t, table->pitch, C, wide, wt, wpitch, table->width, table->height, x, y,
                                      rrow ? rrow[x] : f->uniform_radius_q8, v);
            for (int c = 0; c < C; ++c) libscan__sat_store(orow, x * (size_t)C + (size_t)c, obytes, v[c]);
        }
    }
}

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
