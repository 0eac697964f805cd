/* blur_cpu.c -- libscan_cpu_sat_box_filter: the variable-radius box filter on the
 * host, with the very same integer arithmetic as the GPU kernel
 * (filter_math.h), hence the same output bits. */
#include <libscan/sat.h>
#include "sat_internal.h"
#include "filter_math.h"

libscan_status_t libscan_cpu_sat_box_filter(const libscan_sat_image_t *table, const libscan_sat_image_t *wtable, const uint16_t *radius_q8,
                                size_t radius_pitch, uint16_t uniform_radius_q8, const libscan_sat_image_t *out) {
    const libscan_status_t st = libscan__sat_check_filter(table, wtable, radius_q8, radius_pitch, out);
    if (st != LIBSCAN_SUCCESS) return st;
    const unsigned char *t = (const unsigned char *)table->data;
    const unsigned char *wt = wtable ? (const unsigned char *)wtable->data : NULL;
    const size_t wpitch = wtable ? wtable->pitch : 0;
    const int C = table->channels, wide = table->dtype == LIBSCAN_U64;
    const int obytes = (int)libscan_dtype_size(out->dtype);
    for (size_t y = 0; y < table->height; ++y) {
        const uint16_t *rrow =
            radius_q8 ? (const uint16_t *)(const void *)((const unsigned char *)radius_q8 + y * radius_pitch) : NULL;
        unsigned char *orow = (unsigned char *)out->data + y * out->pitch;
        for (size_t x = 0; x < table->width; ++x) {
            uint64_t v[4];
            libscan__sat_filter_pixel(t, table->pitch, C, wide, wt, wpitch, table->width, table->height, x, y,
                              rrow ? rrow[x] : uniform_radius_q8, v);
            for (int c = 0; c < C; ++c) libscan__sat_store(orow, x * (size_t)C + (size_t)c, obytes, v[c]);
        }
    }
    return LIBSCAN_SUCCESS;
}
