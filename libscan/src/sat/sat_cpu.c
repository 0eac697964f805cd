/* sat_cpu.c -- the SAT library's CPU path: building a table and box sums on
 * the host. Integer tables wrap exactly like the GPU's, so they are bitwise
 * equal to libscan_sat_build's; float tables are summed left to right along
 * each row, then each row's sums added to the finished row above:
 * S(x, y) = rowsum(0..x, y) + S(x, y - 1), the same operations in the same
 * order whatever the thread count, so every table's bits are independent of
 * it.
 *
 * Threads (core/cpu_threads.h): with one thread the two steps are fused, row
 * by row. With more, a team first scans rows in contiguous bands (each row
 * is independent), then, after a barrier, adds each row to the one above
 * over contiguous column strips, each strip walking down the rows: every
 * thread streams through memory, strips are whole 64-byte lines of a row
 * (so threads share no line where rows start on a line), and nothing is
 * transposed. */
#include <libscan/sat.h>
#include "sat_internal.h"
#include "core/cpu_threads.h"

#include <stdint.h>

/* Below this many table elements per thread a table is built on fewer
 * threads (a 256 x 256 RGB table, ~200 KB, stays on the calling thread):
 * starting threads costs tens of microseconds, the build ~1 ns an element. */
#define SAT_CPU_BUILD_GRAIN ((size_t)1 << 17)

typedef struct build_ctx {
    const libscan_sat_image_t *in, *out;
    void (*rows)(const libscan_sat_image_t *in, const libscan_sat_image_t *out, size_t y0, size_t y1, int fused);
    void (*cols)(const libscan_sat_image_t *out, size_t i0, size_t i1);
} build_ctx_t;

/* Rows [y0, y1) of the table: each row's running sums per channel, plus the
 * row above when `fused` (that row must be final: all rows before y1 are
 * then done in order by this call). */
#define SAT_CPU_ROWS(NAME, IN_T, ACC_T)                                                                      \
    static void NAME(const libscan_sat_image_t *in, const libscan_sat_image_t *out, size_t y0, size_t y1,    \
                     int fused) {                                                                            \
        const size_t C = (size_t)in->channels, W = in->width;                                                \
        for (size_t y = y0; y < y1; ++y) {                                                                   \
            const IN_T *src = (const IN_T *)(const void *)((const unsigned char *)in->data + y * in->pitch); \
            ACC_T *dst = (ACC_T *)(void *)((unsigned char *)out->data + y * out->pitch);                     \
            const ACC_T *above = fused && y ? (const ACC_T *)(const void *)((const unsigned char *)out->data + \
                                                                           (y - 1) * out->pitch)             \
                                            : NULL;                                                          \
            for (size_t c = 0; c < C; ++c) {                                                                 \
                ACC_T run = 0;                                                                               \
                for (size_t x = 0; x < W; ++x) {                                                             \
                    run = (ACC_T)(run + (ACC_T)src[x * C + c]);                                              \
                    dst[x * C + c] = above ? (ACC_T)(run + above[x * C + c]) : run;                          \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }

/* Elements [i0, i1) of every row (row sums already there): each plus the
 * finished element above, top to bottom -- the same addition the fused
 * rows make, so the same bits. */
#define SAT_CPU_COLS(NAME, ACC_T)                                                                 \
    static void NAME(const libscan_sat_image_t *out, size_t i0, size_t i1) {                      \
        const unsigned char *base = (const unsigned char *)out->data;                             \
        for (size_t y = 1; y < out->height; ++y) {                                                \
            ACC_T *dst = (ACC_T *)(void *)((unsigned char *)out->data + y * out->pitch);          \
            const ACC_T *above = (const ACC_T *)(const void *)(base + (y - 1) * out->pitch);      \
            for (size_t i = i0; i < i1; ++i) dst[i] = (ACC_T)(dst[i] + above[i]);                 \
        }                                                                                         \
    }

SAT_CPU_ROWS(rows_u8_u32, uint8_t, uint32_t)
SAT_CPU_ROWS(rows_u16_u32, uint16_t, uint32_t)
SAT_CPU_ROWS(rows_u16_u64, uint16_t, uint64_t)
SAT_CPU_ROWS(rows_u32_u64, uint32_t, uint64_t)
SAT_CPU_ROWS(rows_u64_u64, uint64_t, uint64_t)
SAT_CPU_ROWS(rows_f32_f32, float, float)
SAT_CPU_ROWS(rows_f32_f64, float, double)
SAT_CPU_COLS(cols_u32, uint32_t)
SAT_CPU_COLS(cols_u64, uint64_t)
SAT_CPU_COLS(cols_f32, float)
SAT_CPU_COLS(cols_f64, double)

static void build_team(void *arg, libscan__team_t *team, unsigned t) {
    const build_ctx_t *b = (const build_ctx_t *)arg;
    const unsigned T = libscan__team_size(team);
    const size_t H = b->out->height;
    if (T == 1) {
        b->rows(b->in, b->out, 0, H, 1);
        return;
    }
    size_t y0, y1;
    libscan__split(H, T, t, &y0, &y1);
    b->rows(b->in, b->out, y0, y1, 0);
    libscan__team_barrier(team);
    /* Column strips in whole 64-byte lines of the row (rows start wherever
     * the pitch puts them, so this only keeps strips apart within a row
     * whose start is line-aligned -- sharing a line is still correct, just
     * slower). */
    const size_t es = libscan_dtype_size(b->out->dtype), per_line = 64 / es;
    const size_t n = b->out->width * (size_t)b->out->channels, lines = (n + per_line - 1) / per_line;
    size_t l0, l1;
    libscan__split(lines, T, t, &l0, &l1);
    const size_t i0 = l0 * per_line, i1 = l1 * per_line < n ? l1 * per_line : n;
    if (i0 < i1) b->cols(b->out, i0, i1);
}

libscan_status_t libscan_cpu_sat_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out) {
    const libscan_status_t st = libscan__sat_check_build(in, out);
    if (st != LIBSCAN_SUCCESS) return st;
    build_ctx_t b = {in, out, NULL, NULL};
    switch (in->dtype * 8 + out->dtype) {
    case LIBSCAN_U8 * 8 + LIBSCAN_U32: b.rows = rows_u8_u32, b.cols = cols_u32; break;
    case LIBSCAN_U16 * 8 + LIBSCAN_U32: b.rows = rows_u16_u32, b.cols = cols_u32; break;
    case LIBSCAN_U16 * 8 + LIBSCAN_U64: b.rows = rows_u16_u64, b.cols = cols_u64; break;
    case LIBSCAN_U32 * 8 + LIBSCAN_U64: b.rows = rows_u32_u64, b.cols = cols_u64; break;
    case LIBSCAN_U64 * 8 + LIBSCAN_U64: b.rows = rows_u64_u64, b.cols = cols_u64; break;
    case LIBSCAN_F32 * 8 + LIBSCAN_F32: b.rows = rows_f32_f32, b.cols = cols_f32; break;
    case LIBSCAN_F32 * 8 + LIBSCAN_F64: b.rows = rows_f32_f64, b.cols = cols_f64; break;
    default: return LIBSCAN_ERROR_INVALID_DTYPE;
    }
    const size_t items = in->width * in->height * (size_t)in->channels;
    libscan__team_run(libscan__cpu_threads(items, SAT_CPU_BUILD_GRAIN), build_team, &b);
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
