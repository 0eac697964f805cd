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
    const int C = table->channels;
    for (size_t y = 0; y < table->height; ++y) {
        const uint16_t *rrow =
            radius_q8 ? (const uint16_t *)(const void *)((const unsigned char *)radius_q8 + y * radius_pitch) : NULL;
        unsigned char *orow = (unsigned char *)out->data + y * out->pitch;
        for (size_t x = 0; x < table->width; ++x) {
            uint32_t v[4];
            libscan__sat_filter_pixel(t, table->pitch, C, wt, wpitch, table->width, table->height, x, y,
                              rrow ? rrow[x] : uniform_radius_q8, v);
            for (int c = 0; c < C; ++c) {
                if (out->dtype == LIBSCAN_U16)
                    ((uint16_t *)(void *)orow)[x * (size_t)C + (size_t)c] = (uint16_t)(v[c] > 65535u ? 65535u : v[c]);
                else
                    orow[x * (size_t)C + (size_t)c] = (uint8_t)(v[c] > 255u ? 255u : v[c]);
            }
        }
    }
    return LIBSCAN_SUCCESS;
}
