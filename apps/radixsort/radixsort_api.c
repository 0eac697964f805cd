/* radixsort_api.c -- the GPU entry points of radixsort.h: check every
 * argument, find temp storage, lay out the ping-pong buffers, then hand the
 * checked plan to the launcher (radixsort_launch.cu). Nothing is launched
 * unless every check passed. */
#include <stdint.h>
#include <string.h>
#include "radixsort_internal.h"

/* Sub-buffers of temp start at libscan's temp alignment. */
static size_t round_up(size_t x) {
    const size_t a = LIBSCAN_TEMP_ALIGNMENT;
    return (x + a - 1) / a * a;
}

size_t radixsort_key_size(radixsort_key_t key) {
    switch (key) {
    case RADIXSORT_U8: return 1;
    case RADIXSORT_U16: return 2;
    case RADIXSORT_U32: case RADIXSORT_I32: case RADIXSORT_F32: return 4;
    case RADIXSORT_U64: case RADIXSORT_I64: case RADIXSORT_F64: return 8;
    }
    return 0;
}

const char *radixsort_key_name(radixsort_key_t key) {
    switch (key) {
    case RADIXSORT_U8: return "u8";
    case RADIXSORT_U16: return "u16";
    case RADIXSORT_U32: return "u32";
    case RADIXSORT_U64: return "u64";
    case RADIXSORT_I32: return "i32";
    case RADIXSORT_I64: return "i64";
    case RADIXSORT_F32: return "f32";
    case RADIXSORT_F64: return "f64";
    }
    return "unknown";
}

int radixsort_num_passes(radixsort_key_t key, unsigned begin_bit, unsigned end_bit) {
    const unsigned width = (unsigned)radixsort_key_size(key) * 8u;
    if (width == 0) return -1;
    if (end_bit == 0) end_bit = width;
    if (end_bit > width || begin_bit > end_bit) return -1;
    return (int)((end_bit - begin_bit + 7u) / 8u);
}

libscan_status_t radixsort_temp_bytes(radixsort_mode_t mode, size_t count, radixsort_key_t key,
                                      size_t value_bytes, size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    const size_t ks = radixsort_key_size(key);
    if (ks == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (mode != RADIXSORT_MODE_DOUBLE_BUFFER && mode != RADIXSORT_MODE_OUT_OF_PLACE && mode != RADIXSORT_MODE_ARGSORT)
        return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (mode == RADIXSORT_MODE_ARGSORT && value_bytes == 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > RADIXSORT_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    if (count == 0) {
        *temp_bytes = 0;
        return LIBSCAN_SUCCESS;
    }
    size_t need = radixsort__scratch_bytes(count, ks, value_bytes);
    if (mode == RADIXSORT_MODE_OUT_OF_PLACE) need += round_up(count * ks) + round_up(count * value_bytes);
    if (mode == RADIXSORT_MODE_ARGSORT) need += 2 * round_up(count * ks) + round_up(count * value_bytes);
    *temp_bytes = need + LIBSCAN_TEMP_ALIGNMENT; /* any caller pointer can be aligned up */
    return LIBSCAN_SUCCESS;
}

/* The buffers of one call: pointer, bytes, required alignment. */
#define MAX_BUFS 6
typedef struct bufs {
    const void *p[MAX_BUFS];
    size_t bytes[MAX_BUFS];
    size_t align[MAX_BUFS];
    int n;
} bufs_t;

static void add_buf(bufs_t *b, const void *p, size_t bytes, size_t align) {
    b->p[b->n] = p;
    b->bytes[b->n] = bytes;
    b->align[b->n] = align;
    b->n++;
}

/* Alignment, pairwise overlap (exact equality too: every buffer of a call is
 * distinct), then device accessibility -- the only check that calls CUDA. */
static libscan_status_t check_bufs(const bufs_t *b) {
    for (int i = 0; i < b->n; ++i)
        if (b->p[i] && b->align[i] > 1 && (uintptr_t)b->p[i] % b->align[i]) return LIBSCAN_ERROR_INVALID_POINTER;
    for (int i = 0; i < b->n; ++i)
        for (int j = i + 1; j < b->n; ++j)
            if (libscan_ranges_overlap(b->p[i], b->bytes[i], b->p[j], b->bytes[j])) return LIBSCAN_ERROR_OVERLAP;
    for (int i = 0; i < b->n; ++i)
        if (b->p[i] && b->bytes[i]) {
            libscan_status_t st = libscan_check_device_pointer(b->p[i]);
            if (st != LIBSCAN_SUCCESS) return st;
        }
    return LIBSCAN_SUCCESS;
}

/* Checks shared by the three entry points; fills the plan's type, range and
 * pass fields. */
static libscan_status_t check_common(size_t count, radixsort_key_t key, size_t value_bytes,
                                     const radixsort_opts_t *opts, radixsort__plan_t *pl) {
    const size_t ks = radixsort_key_size(key);
    if (ks == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > RADIXSORT_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    if (!opts->d_temp && opts->temp_bytes) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    const int passes = radixsort_num_passes(key, opts->begin_bit, opts->end_bit);
    if (passes < 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    memset(pl, 0, sizeof(*pl));
    pl->key = key;
    pl->value_bytes = value_bytes;
    pl->count = count;
    pl->descending = opts->descending != 0;
    pl->begin_bit = opts->begin_bit;
    pl->end_bit = opts->end_bit ? opts->end_bit : (unsigned)ks * 8u;
    pl->passes = passes;
    return LIBSCAN_SUCCESS;
}

/* Checks caller temp (or allocates it stream-ordered), launches, frees. */
static libscan_status_t launch(radixsort__plan_t *pl, radixsort_mode_t mode, const radixsort_opts_t *opts,
                               bufs_t *b, void **keys_extra, cudaStream_t stream) {
    size_t need = 0;
    (void)radixsort_temp_bytes(mode, pl->count, pl->key, pl->value_bytes, &need);
    if (opts->d_temp) {
        if (opts->temp_bytes < need) return LIBSCAN_ERROR_TEMP_TOO_SMALL;
        add_buf(b, opts->d_temp, opts->temp_bytes, 1);
    }
    libscan_status_t st = check_bufs(b);
    if (st != LIBSCAN_SUCCESS) return st;
    if (pl->count == 0) return LIBSCAN_SUCCESS;

    libscan_temp_t t;
    st = libscan_temp_acquire(opts->d_temp, opts->temp_bytes, need, stream, &t);
    if (st != LIBSCAN_SUCCESS) return st;
    /* Layout: scratch | alternate keys | alternate values | argsort's keys. */
    const size_t ks = radixsort_key_size(pl->key);
    char *base = (char *)t.ptr;
    pl->scratch = base;
    base += radixsort__scratch_bytes(pl->count, ks, pl->value_bytes);
    if (mode != RADIXSORT_MODE_DOUBLE_BUFFER) {
        pl->keys_alt = base;
        base += round_up(pl->count * ks);
        pl->values_alt = pl->value_bytes ? base : NULL;
        base += round_up(pl->count * pl->value_bytes);
        if (keys_extra) *keys_extra = base;
    }
    if (mode == RADIXSORT_MODE_ARGSORT && !pl->keys_out) pl->keys_out = *keys_extra;

    cudaError_t e = radixsort__launch(pl, stream);
    if (e != cudaSuccess) (void)cudaGetLastError();
    const libscan_status_t released = libscan_temp_release(&t, stream);
    return e != cudaSuccess ? LIBSCAN_ERROR_CUDA : released;
}

static const radixsort_opts_t default_opts = RADIXSORT_OPTS_INIT;

libscan_status_t radixsort_sort(const void *d_keys_in, void *d_keys_out, const void *d_values_in,
                                void *d_values_out, size_t count, radixsort_key_t key, size_t value_bytes,
                                const radixsort_opts_t *opts, cudaStream_t stream) {
    if (!opts) opts = &default_opts;
    radixsort__plan_t pl;
    libscan_status_t st = check_common(count, key, value_bytes, opts, &pl);
    if (st != LIBSCAN_SUCCESS) return st;
    if (value_bytes == 0 && (d_values_in || d_values_out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > 0 && (!d_keys_in || !d_keys_out)) return LIBSCAN_ERROR_NULL_POINTER;
    if (count > 0 && value_bytes && (!d_values_in || !d_values_out)) return LIBSCAN_ERROR_NULL_POINTER;
    const size_t ks = radixsort_key_size(key);
    bufs_t b = {{0}, {0}, {0}, 0};
    add_buf(&b, d_keys_in, count * ks, ks);
    add_buf(&b, d_keys_out, count * ks, ks);
    add_buf(&b, d_values_in, count * value_bytes, value_bytes);
    add_buf(&b, d_values_out, count * value_bytes, value_bytes);
    pl.keys_in = d_keys_in;
    pl.keys_out = d_keys_out;
    pl.values_in = d_values_in;
    pl.values_out = d_values_out;
    return launch(&pl, RADIXSORT_MODE_OUT_OF_PLACE, opts, &b, NULL, stream);
}

libscan_status_t radixsort_sort_double_buffer(radixsort_double_buffer_t *buf, size_t count, radixsort_key_t key,
                                              size_t value_bytes, const radixsort_opts_t *opts,
                                              cudaStream_t stream) {
    if (!opts) opts = &default_opts;
    if (!buf) return LIBSCAN_ERROR_NULL_POINTER;
    radixsort__plan_t pl;
    libscan_status_t st = check_common(count, key, value_bytes, opts, &pl);
    if (st != LIBSCAN_SUCCESS) return st;
    if (buf->selector != 0 && buf->selector != 1) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (value_bytes == 0 && (buf->d_values[0] || buf->d_values[1])) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > 0 && (!buf->d_keys[0] || !buf->d_keys[1])) return LIBSCAN_ERROR_NULL_POINTER;
    if (count > 0 && value_bytes && (!buf->d_values[0] || !buf->d_values[1])) return LIBSCAN_ERROR_NULL_POINTER;
    const size_t ks = radixsort_key_size(key);
    bufs_t b = {{0}, {0}, {0}, 0};
    for (int i = 0; i < 2; ++i) {
        add_buf(&b, buf->d_keys[i], count * ks, ks);
        add_buf(&b, buf->d_values[i], count * value_bytes, value_bytes);
    }
    const int cur = buf->selector;
    /* A single key (or an empty range) still moves when the pass count is odd,
     * so the selector depends on the pass count alone. */
    const int result = (pl.passes & 1) ? 1 - cur : cur;
    pl.keys_in = buf->d_keys[cur];
    pl.keys_out = buf->d_keys[result];
    pl.keys_alt = buf->d_keys[1 - cur];
    pl.values_in = buf->d_values[cur];
    pl.values_out = buf->d_values[result];
    pl.values_alt = buf->d_values[1 - cur];
    st = launch(&pl, RADIXSORT_MODE_DOUBLE_BUFFER, opts, &b, NULL, stream);
    if (st == LIBSCAN_SUCCESS) buf->selector = result;
    return st;
}

libscan_status_t radixsort_argsort(const void *d_keys_in, void *d_keys_out, void *d_indices, size_t count,
                                   radixsort_key_t key, size_t index_bytes, const radixsort_opts_t *opts,
                                   cudaStream_t stream) {
    if (!opts) opts = &default_opts;
    radixsort__plan_t pl;
    libscan_status_t st = check_common(count, key, index_bytes, opts, &pl);
    if (st != LIBSCAN_SUCCESS) return st;
    if (index_bytes != 4 && index_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (index_bytes == 4 && count > ((size_t)1 << 32)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > 0 && (!d_keys_in || !d_indices)) return LIBSCAN_ERROR_NULL_POINTER;
    const size_t ks = radixsort_key_size(key);
    bufs_t b = {{0}, {0}, {0}, 0};
    add_buf(&b, d_keys_in, count * ks, ks);
    add_buf(&b, d_keys_out, count * ks, ks);
    add_buf(&b, d_indices, count * index_bytes, index_bytes);
    pl.keys_in = d_keys_in;
    pl.keys_out = d_keys_out; /* NULL: launch() points it into temp */
    pl.values_in = NULL;
    pl.values_out = d_indices;
    pl.iota_values = 1;
    void *extra = NULL;
    return launch(&pl, RADIXSORT_MODE_ARGSORT, opts, &b, &extra, stream);
}
