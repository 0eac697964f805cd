/* sort_api.c -- the GPU entry points of sort.h: check what only a sort knows
 * (key type, value size, bit range, selector), describe the buffers, and go
 * through the one entry path (core/entry.h), whose launch lays out the
 * ping-pong buffers in temp and hands the plan to sort_launch.cu. */
#include <stdint.h>
#include <string.h>
#include "core/entry.h"
#include "sort_internal.h"

/* Sub-buffers of temp start at libscan's temp alignment. */
static size_t round_up(size_t x) {
    const size_t a = LIBSCAN_TEMP_ALIGNMENT;
    return (x + a - 1) / a * a;
}

size_t libscan__sort_key_bytes(libscan_dtype_t key) {
    switch (key) {
    case LIBSCAN_U8: return 1;
    case LIBSCAN_U16: return 2;
    case LIBSCAN_U32:
    case LIBSCAN_I32:
    case LIBSCAN_F32: return 4;
    case LIBSCAN_U64:
    case LIBSCAN_I64:
    case LIBSCAN_F64: return 8;
    }
    return 0; /* not a key type, including dtypes appended later */
}

int libscan_sort_num_passes(libscan_dtype_t key, unsigned begin_bit, unsigned end_bit) {
    const unsigned width = (unsigned)libscan__sort_key_bytes(key) * 8u;
    if (width == 0) return -1;
    if (end_bit == 0) end_bit = width;
    if (end_bit > width || begin_bit > end_bit) return -1;
    return (int)((end_bit - begin_bit + 7u) / 8u);
}

libscan_status_t libscan_sort_temp_bytes(size_t count, libscan_dtype_t key, size_t value_bytes,
                                         libscan_sort_mode_t mode, size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    const size_t ks = libscan__sort_key_bytes(key);
    if (ks == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (mode != LIBSCAN_SORT_DOUBLE_BUFFER && mode != LIBSCAN_SORT_OUT_OF_PLACE && mode != LIBSCAN_SORT_ARGSORT)
        return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (mode == LIBSCAN_SORT_ARGSORT && value_bytes == 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    size_t need = libscan__sort_scratch_bytes(count, ks, value_bytes);
    if (mode == LIBSCAN_SORT_OUT_OF_PLACE) need += round_up(count * ks) + round_up(count * value_bytes);
    if (mode == LIBSCAN_SORT_ARGSORT) need += 2 * round_up(count * ks) + round_up(count * value_bytes);
    *temp_bytes = libscan__with_slack(need); /* 0 for count 0 */
    return LIBSCAN_SUCCESS;
}

/* Checks shared by the three entry points; fills the plan's type, range and
 * pass fields. */
static libscan_status_t check_common(size_t count, libscan_dtype_t key, size_t value_bytes,
                                     const libscan_sort_opts_t *opts, libscan__sort_plan_t *pl) {
    const size_t ks = libscan__sort_key_bytes(key);
    if (ks == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    const int passes = libscan_sort_num_passes(key, opts->begin_bit, opts->end_bit);
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

typedef struct sort_ctx {
    libscan__sort_plan_t pl;
    libscan_sort_mode_t mode;
} sort_ctx_t;

/* A sort with nothing to order (one key, or an empty bit range) copies at
 * most and touches no temp: so it takes none from the cache, and caller temp
 * is not asked whether it is device memory (sort.h, "Temp"). */
static libscan_status_t plan(void *ctx, cudaStream_t stream, int *uses_temp) {
    (void)stream;
    const sort_ctx_t *s = ctx;
    *uses_temp = s->pl.count > 1 && s->pl.passes > 0;
    return LIBSCAN_SUCCESS;
}

/* Lays the temp out -- scratch | alternate keys | alternate values |
 * argsort's keys -- and launches. */
static cudaError_t launch(void *ctx, void *temp, size_t temp_bytes, cudaStream_t stream) {
    (void)temp_bytes;
    sort_ctx_t *s = ctx;
    libscan__sort_plan_t *pl = &s->pl;
    if (!temp) {
        /* plan() said nothing to order. An argsort that keeps no keys points
         * keys_out at keys_in: the launcher copies keys only between distinct
         * buffers, so the input is never written. */
        if (s->mode == LIBSCAN_SORT_ARGSORT && !pl->keys_out) pl->keys_out = (void *)pl->keys_in;
        return libscan__sort_launch(pl, stream);
    }
    const size_t ks = libscan__sort_key_bytes(pl->key);
    char *base = (char *)temp;
    pl->scratch = base;
    base += libscan__sort_scratch_bytes(pl->count, ks, pl->value_bytes);
    if (s->mode != LIBSCAN_SORT_DOUBLE_BUFFER) {
        pl->keys_alt = base;
        base += round_up(pl->count * ks);
        pl->values_alt = pl->value_bytes ? base : NULL;
        base += round_up(pl->count * pl->value_bytes);
        if (s->mode == LIBSCAN_SORT_ARGSORT && !pl->keys_out) pl->keys_out = base;
    }
    return libscan__sort_launch(pl, stream);
}

/* The call as the entry path sees it: every buffer distinct (each is written,
 * or read while another is written), aligned to its element. */
static void describe(libscan__call_t *c, sort_ctx_t *s, const libscan_sort_opts_t *opts) {
    size_t need = 0;
    (void)libscan_sort_temp_bytes(s->pl.count, s->pl.key, s->pl.value_bytes, s->mode, &need);
    libscan__call_init(c, opts->d_temp, opts->temp_bytes, need);
    c->empty = s->pl.count == 0;
    c->plan = plan;
    c->launch = launch;
    c->ctx = s;
}

static void add(libscan__call_t *c, const void *p, size_t count, size_t esize) {
    libscan__call_buf(c, p, count * esize, esize, 1, -1);
}

static const libscan_sort_opts_t default_opts = LIBSCAN_SORT_OPTS_INIT;

libscan_status_t libscan_sort(const void *d_keys_in, void *d_keys_out, const void *d_values_in, void *d_values_out,
                              size_t count, libscan_dtype_t key, size_t value_bytes, const libscan_sort_opts_t *opts,
                              cudaStream_t stream) {
    if (!opts) opts = &default_opts;
    sort_ctx_t s;
    libscan_status_t st = check_common(count, key, value_bytes, opts, &s.pl);
    if (st != LIBSCAN_SUCCESS) return st;
    if (value_bytes == 0 && (d_values_in || d_values_out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > 0 && (!d_keys_in || !d_keys_out)) return LIBSCAN_ERROR_NULL_POINTER;
    if (count > 0 && value_bytes && (!d_values_in || !d_values_out)) return LIBSCAN_ERROR_NULL_POINTER;
    s.mode = LIBSCAN_SORT_OUT_OF_PLACE;
    s.pl.keys_in = d_keys_in;
    s.pl.keys_out = d_keys_out;
    s.pl.values_in = d_values_in;
    s.pl.values_out = d_values_out;
    const size_t ks = libscan__sort_key_bytes(key);
    libscan__call_t c;
    describe(&c, &s, opts);
    add(&c, d_keys_in, count, ks);
    add(&c, d_keys_out, count, ks);
    add(&c, d_values_in, count, value_bytes);
    add(&c, d_values_out, count, value_bytes);
    return libscan__enter(&c, stream);
}

libscan_status_t libscan_sort_double_buffer(libscan_double_buffer_t *buf, size_t count, libscan_dtype_t key,
                                            size_t value_bytes, const libscan_sort_opts_t *opts, cudaStream_t stream) {
    if (!opts) opts = &default_opts;
    if (!buf) return LIBSCAN_ERROR_NULL_POINTER;
    sort_ctx_t s;
    libscan_status_t st = check_common(count, key, value_bytes, opts, &s.pl);
    if (st != LIBSCAN_SUCCESS) return st;
    if (buf->selector != 0 && buf->selector != 1) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (value_bytes == 0 && (buf->d_values[0] || buf->d_values[1])) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > 0 && (!buf->d_keys[0] || !buf->d_keys[1])) return LIBSCAN_ERROR_NULL_POINTER;
    if (count > 0 && value_bytes && (!buf->d_values[0] || !buf->d_values[1])) return LIBSCAN_ERROR_NULL_POINTER;
    const int cur = buf->selector;
    /* A single key (or an empty range) still moves when the pass count is odd,
     * so the selector depends on the pass count alone. */
    const int result = (s.pl.passes & 1) ? 1 - cur : cur;
    s.mode = LIBSCAN_SORT_DOUBLE_BUFFER;
    s.pl.keys_in = buf->d_keys[cur];
    s.pl.keys_out = buf->d_keys[result];
    /* The other pass outputs go to the buffer that is not the result: with an
     * odd pass count that is the input's (pass 1 reads pass 0's output from
     * d_keys[result]), so 3, 5 or 7 passes never read and write one buffer. */
    s.pl.keys_alt = buf->d_keys[1 - result];
    s.pl.values_in = buf->d_values[cur];
    s.pl.values_out = buf->d_values[result];
    s.pl.values_alt = buf->d_values[1 - result];
    const size_t ks = libscan__sort_key_bytes(key);
    libscan__call_t c;
    describe(&c, &s, opts);
    for (int i = 0; i < 2; ++i) {
        add(&c, buf->d_keys[i], count, ks);
        add(&c, buf->d_values[i], count, value_bytes);
    }
    st = libscan__enter(&c, stream);
    if (st == LIBSCAN_SUCCESS) buf->selector = result;
    return st;
}

libscan_status_t libscan_argsort(const void *d_keys_in, void *d_keys_out, void *d_indices, size_t count,
                                 libscan_dtype_t key, size_t index_bytes, const libscan_sort_opts_t *opts,
                                 cudaStream_t stream) {
    if (!opts) opts = &default_opts;
    sort_ctx_t s;
    libscan_status_t st = check_common(count, key, index_bytes, opts, &s.pl);
    if (st != LIBSCAN_SUCCESS) return st;
    if (index_bytes != 4 && index_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (index_bytes == 4 && count > ((size_t)1 << 32)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > 0 && (!d_keys_in || !d_indices)) return LIBSCAN_ERROR_NULL_POINTER;
    s.mode = LIBSCAN_SORT_ARGSORT;
    s.pl.keys_in = d_keys_in;
    s.pl.keys_out = d_keys_out; /* NULL: launch() points it into temp */
    s.pl.values_in = NULL;
    s.pl.values_out = d_indices;
    s.pl.iota_values = 1;
    const size_t ks = libscan__sort_key_bytes(key);
    libscan__call_t c;
    describe(&c, &s, opts);
    add(&c, d_keys_in, count, ks);
    add(&c, d_keys_out, count, ks);
    add(&c, d_indices, count, index_bytes);
    return libscan__enter(&c, stream);
}
