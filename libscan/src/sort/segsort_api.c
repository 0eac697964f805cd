/* segsort_api.c -- the GPU entry point of the segmented sort (sort.h,
 * "Segmented sort"): check what only it knows (key type, value size, bit
 * range, segments; the offsets themselves by reading them back unless the
 * caller vouches for them, as the segmented scan does), describe the
 * buffers, and go through the one entry path (core/entry.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/entry.h"
#include "segsort_internal.h"
#include "sort_internal.h"

libscan_status_t libscan_segmented_sort_temp_bytes(size_t count, size_t num_segments, libscan_dtype_t key,
                                                   size_t value_bytes, size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    const size_t ks = libscan__sort_key_bytes(key);
    if (ks == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > LIBSCAN_MAX_COUNT || num_segments > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    *temp_bytes = libscan__with_slack(libscan__segsort_scratch_bytes(count, num_segments, ks, value_bytes));
    return LIBSCAN_SUCCESS;
}

/* Copies the offsets to the host a chunk at a time (synchronising with
 * stream) and checks them. */
static libscan_status_t check_offsets(const uint64_t *d_offsets, size_t num_segments, size_t count,
                                      cudaStream_t stream) {
    const size_t chunk = (size_t)1 << 20;
    const size_t entries = num_segments + 1;
    uint64_t *h = malloc((entries < chunk ? entries : chunk) * sizeof *h);
    if (!h) return LIBSCAN_ERROR_OUT_OF_MEMORY;
    libscan_status_t st = LIBSCAN_SUCCESS;
    uint64_t prev = 0;
    for (size_t done = 0; done < entries && st == LIBSCAN_SUCCESS; done += chunk) {
        const size_t k = entries - done < chunk ? entries - done : chunk;
        if (cudaMemcpyAsync(h, d_offsets + done, k * sizeof *h, cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
            cudaStreamSynchronize(stream) != cudaSuccess) {
            (void)cudaGetLastError();
            st = LIBSCAN_ERROR_CUDA;
            break;
        }
        if (!libscan__segsort_offsets_ok(h, k, done, &prev, count, num_segments)) st = LIBSCAN_ERROR_INVALID_ARGUMENT;
    }
    free(h);
    return st;
}

typedef struct segsort_ctx {
    libscan__segsort_plan_t pl;
    int check_offsets;
} segsort_ctx_t;

/* Offsets are read back once every pointer is known to be device memory; a
 * call with nothing to order, or no segment that can exceed one block's
 * share, touches no temp. */
static libscan_status_t plan(void *ctx, cudaStream_t stream, int *uses_temp) {
    segsort_ctx_t *s = ctx;
    if (s->check_offsets) {
        libscan_status_t st = check_offsets(s->pl.offsets, s->pl.num_segments, s->pl.count, stream);
        if (st != LIBSCAN_SUCCESS) return st;
    }
    const size_t ks = libscan__sort_key_bytes(s->pl.key);
    *uses_temp = s->pl.count > 1 && s->pl.passes > 0 &&
                 libscan__segsort_scratch_bytes(s->pl.count, s->pl.num_segments, ks, s->pl.value_bytes) > 0;
    return LIBSCAN_SUCCESS;
}

static cudaError_t launch(void *ctx, void *temp, size_t temp_bytes, cudaStream_t stream) {
    (void)temp_bytes;
    segsort_ctx_t *s = ctx;
    s->pl.temp = temp;
    return libscan__segsort_launch(&s->pl, stream);
}

static const libscan_segsort_opts_t default_opts = LIBSCAN_SEGSORT_OPTS_INIT;

libscan_status_t libscan_segmented_sort(const void *d_keys_in, void *d_keys_out, const void *d_values_in,
                                        void *d_values_out, size_t count, const uint64_t *d_offsets,
                                        size_t num_segments, libscan_dtype_t key, size_t value_bytes,
                                        const libscan_segsort_opts_t *opts, cudaStream_t stream) {
    if (!opts) opts = &default_opts;
    const size_t ks = libscan__sort_key_bytes(key);
    if (ks == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > LIBSCAN_MAX_COUNT || num_segments > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    const int passes = libscan_sort_num_passes(key, opts->begin_bit, opts->end_bit);
    if (passes < 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (value_bytes == 0 && (d_values_in || d_values_out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (!d_offsets) return LIBSCAN_ERROR_NULL_POINTER;
    if (count > 0 && (!d_keys_in || !d_keys_out)) return LIBSCAN_ERROR_NULL_POINTER;
    if (count > 0 && value_bytes && (!d_values_in || !d_values_out)) return LIBSCAN_ERROR_NULL_POINTER;
    if (num_segments == 0 && count > 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;

    segsort_ctx_t s;
    memset(&s, 0, sizeof s);
    s.pl.key = key;
    s.pl.value_bytes = value_bytes;
    s.pl.count = count;
    s.pl.offsets = d_offsets;
    s.pl.num_segments = num_segments;
    s.pl.descending = opts->descending != 0;
    s.pl.begin_bit = opts->begin_bit;
    s.pl.end_bit = opts->end_bit ? opts->end_bit : (unsigned)ks * 8u;
    s.pl.passes = passes;
    s.pl.keys_in = d_keys_in;
    s.pl.keys_out = d_keys_out;
    s.pl.values_in = d_values_in;
    s.pl.values_out = d_values_out;
    s.check_offsets = !opts->trust_offsets;

    size_t need = 0;
    (void)libscan_segmented_sort_temp_bytes(count, num_segments, key, value_bytes, &need);
    libscan__call_t c;
    libscan__call_init(&c, opts->d_temp, opts->temp_bytes, need);
    libscan__call_buf(&c, d_keys_in, count * ks, ks, 1, -1);
    libscan__call_buf(&c, d_keys_out, count * ks, ks, 1, -1);
    libscan__call_buf(&c, d_values_in, count * value_bytes, value_bytes, 1, -1);
    libscan__call_buf(&c, d_values_out, count * value_bytes, value_bytes, 1, -1);
    /* The offsets are checked even when count is 0: a host pointer is still refused. */
    libscan__call_buf(&c, d_offsets, (num_segments + 1) * sizeof(uint64_t), sizeof(uint64_t), 1, -1);
    c.empty = count == 0;
    c.plan = plan;
    c.launch = launch;
    c.ctx = &s;
    return libscan__enter(&c, stream);
}
