/* sat_cpu.c -- the SAT library's CPU path: building a table and box sums on
 * the host. Integer tables wrap exactly like the GPU's, so they are bitwise
 * equal to libscan_sat_build's; float tables are summed left to right, row by row. */
#include <libscan/sat.h>
#include "sat_internal.h"

#include <stdint.h>

/* One table: S(x, y) = rowsum(0..x, y) + S(x, y - 1), per channel. */
#define SAT_CPU_BUILD(NAME, IN_T, ACC_T)                                                                   \
    static void NAME(const libscan_sat_image_t *in, const libscan_sat_image_t *out) {                                      \
        const size_t C = (size_t)in->channels, W = in->width;                                              \
        for (size_t y = 0; y < in->height; ++y) {                                                          \
            const IN_T *src = (const IN_T *)(const void *)((const unsigned char *)in->data + y * in->pitch); \
            ACC_T *dst = (ACC_T *)(void *)((unsigned char *)out->data + y * out->pitch);                     \
            const ACC_T *above =                                                                           \
                y ? (const ACC_T *)(const void *)((const unsigned char *)out->data + (y - 1) * out->pitch) \
                  : NULL;                                                                                  \
            for (size_t c = 0; c < C; ++c) {                                                               \
                ACC_T run = 0;                                                                             \
                for (size_t x = 0; x < W; ++x) {                                                           \
                    run = (ACC_T)(run + (ACC_T)src[x * C + c]);                                            \
                    dst[x * C + c] = above ? (ACC_T)(run + above[x * C + c]) : run;                        \
                }                                                                                          \
            }                                                                                              \
        }                                                                                                  \
    }

SAT_CPU_BUILD(build_u8_u32, uint8_t, uint32_t)
SAT_CPU_BUILD(build_u16_u32, uint16_t, uint32_t)
SAT_CPU_BUILD(build_u16_u64, uint16_t, uint64_t)
SAT_CPU_BUILD(build_u32_u64, uint32_t, uint64_t)
SAT_CPU_BUILD(build_u64_u64, uint64_t, uint64_t)
SAT_CPU_BUILD(build_f32_f32, float, float)
SAT_CPU_BUILD(build_f32_f64, float, double)

libscan_status_t libscan_cpu_sat_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out) {
    const libscan_status_t st = libscan__sat_check_build(in, out);
    if (st != LIBSCAN_SUCCESS) return st;
    switch (in->dtype * 8 + out->dtype) {
    case LIBSCAN_U8 * 8 + LIBSCAN_U32: build_u8_u32(in, out); break;
    case LIBSCAN_U16 * 8 + LIBSCAN_U32: build_u16_u32(in, out); break;
    case LIBSCAN_U16 * 8 + LIBSCAN_U64: build_u16_u64(in, out); break;
    case LIBSCAN_U32 * 8 + LIBSCAN_U64: build_u32_u64(in, out); break;
    case LIBSCAN_U64 * 8 + LIBSCAN_U64: build_u64_u64(in, out); break;
    case LIBSCAN_F32 * 8 + LIBSCAN_F32: build_f32_f32(in, out); break;
    case LIBSCAN_F32 * 8 + LIBSCAN_F64: build_f32_f64(in, out); break;
    default: return LIBSCAN_ERROR_INVALID_DTYPE;
    }
    return LIBSCAN_SUCCESS;
}

#define SAT_CPU_SUMS(NAME, ACC_T)                                                                          \
    static void NAME(const libscan_sat_image_t *t, const libscan_box_t *boxes, size_t n, ACC_T *sums) {                \
        const size_t C = (size_t)t->channels;                                                              \
        for (size_t i = 0; i < n; ++i) {                                                                   \
            const libscan_box_t b = boxes[i];                                                                  \
            const int ok = b.x0 >= 0 && b.y0 >= 0 && b.x0 <= b.x1 && b.y0 <= b.y1 &&                       \
                           (size_t)b.x1 < t->width && (size_t)b.y1 < t->height;                            \
            for (size_t c = 0; c < C; ++c) {                                                               \
                ACC_T s = 0;                                                                               \
                if (ok) {                                                                                  \
                    const unsigned char *base = (const unsigned char *)t->data;                            \
                    const ACC_T *r1 = (const ACC_T *)(const void *)(base + (size_t)b.y1 * t->pitch);       \
                    const ACC_T *r0 =                                                                      \
                        b.y0 ? (const ACC_T *)(const void *)(base + (size_t)(b.y0 - 1) * t->pitch) : NULL; \
                    const ACC_T d = r1[(size_t)b.x1 * C + c];                                              \
                    const ACC_T bb = r0 ? r0[(size_t)b.x1 * C + c] : 0;                                    \
                    const ACC_T cc = b.x0 ? r1[(size_t)(b.x0 - 1) * C + c] : 0;                            \
                    const ACC_T a = (r0 && b.x0) ? r0[(size_t)(b.x0 - 1) * C + c] : 0;                     \
                    s = (ACC_T)((ACC_T)((ACC_T)(d - bb) - cc) + a);                                        \
                }                                                                                          \
                sums[i * C + c] = s;                                                                       \
            }                                                                                              \
        }                                                                                                  \
    }

SAT_CPU_SUMS(sums_u32, uint32_t)
SAT_CPU_SUMS(sums_u64, uint64_t)
SAT_CPU_SUMS(sums_f32, float)
SAT_CPU_SUMS(sums_f64, double)

libscan_status_t libscan_cpu_sat_box_sums(const libscan_sat_image_t *table, const libscan_box_t *boxes, size_t n, void *sums) {
    const libscan_status_t st = libscan__sat_check_sums(table, boxes, n, sums);
    if (st != LIBSCAN_SUCCESS || n == 0) return st;
    switch (table->dtype) {
    case LIBSCAN_U32: sums_u32(table, boxes, n, (uint32_t *)sums); break;
    case LIBSCAN_U64: sums_u64(table, boxes, n, (uint64_t *)sums); break;
    case LIBSCAN_F32: sums_f32(table, boxes, n, (float *)sums); break;
    case LIBSCAN_F64: sums_f64(table, boxes, n, (double *)sums); break;
    default: return LIBSCAN_ERROR_INVALID_DTYPE;
    }
    return LIBSCAN_SUCCESS;
}
