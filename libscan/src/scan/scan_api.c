/* scan_api.c -- the public scan entry points: check what only a scan knows
 * (enums, NULLs, the carry options), describe the call's buffers, and hand
 * it to the one entry path (core/entry.h), which checks the rest, takes temp
 * and launches scan_launch.cu's kernels. */
#include <stdint.h>
#include <string.h>
#include "core/entry.h"
#include "scan_internal.h"

libscan_status_t libscan__scan_check_enums(libscan_dtype_t dtype, libscan_op_t op) {
    if ((unsigned)dtype > (unsigned)LIBSCAN_F64) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (op != LIBSCAN_OP_SUM && op != LIBSCAN_OP_MIN && op != LIBSCAN_OP_MAX) return LIBSCAN_ERROR_INVALID_OP;
    return LIBSCAN_SUCCESS;
}

libscan_status_t libscan_scan_temp_bytes(size_t count, libscan_dtype_t dtype, size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    if ((unsigned)dtype > (unsigned)LIBSCAN_F64) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    *temp_bytes = libscan__with_slack(libscan__scan_temp_bytes(count, dtype));
    return LIBSCAN_SUCCESS;
}

typedef struct scan_ctx {
    libscan__scan_call_t call;
    libscan__scan_plan_t plan;
} scan_ctx_t;

/* The path is decided once per call (a capture query and a device query);
 * an eager small-count scan (the grid scan with the library's flag table)
 * never touches temp, a captured one does (its block values wait in temp
 * behind a grid barrier: device_scan.cuh, grid_scan.cuh). */
static libscan_status_t plan(void *ctx, cudaStream_t stream, int *uses_temp) {
    scan_ctx_t *s = ctx;
    s->plan = libscan__scan_plan(s->call.count, s->call.dtype, s->call.op, stream);
    *uses_temp = s->plan.uses_temp;
    return LIBSCAN_SUCCESS;
}

static cudaError_t launch(void *ctx, void *temp, size_t temp_bytes, cudaStream_t stream) {
    scan_ctx_t *s = ctx;
    s->call.temp = temp;
    s->call.temp_bytes = temp_bytes;
    return libscan__scan_launch(&s->call, &s->plan, stream);
}

static libscan_status_t scan(const void *d_in, void *d_out, size_t count, libscan_dtype_t dtype, libscan_op_t op,
                             const libscan_scan_opts_t *opts, cudaStream_t stream, bool exclusive) {
    libscan_status_t st = libscan__scan_check_enums(dtype, op);
    if (st != LIBSCAN_SUCCESS) return st;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    static const libscan_scan_opts_t defaults = LIBSCAN_SCAN_OPTS_INIT;
    if (!opts) opts = &defaults;
    if (count > 0 && (!d_in || !d_out)) return LIBSCAN_ERROR_NULL_POINTER;
    if (opts->init && opts->d_init) return LIBSCAN_ERROR_INVALID_ARGUMENT;

    const size_t esize = libscan_dtype_size(dtype), bytes = count * esize;
    size_t need = 0;
    (void)libscan_scan_temp_bytes(count, dtype, &need);
    scan_ctx_t s;
    memset(&s, 0, sizeof s);
    libscan__call_t c;
    libscan__call_init(&c, opts->d_temp, opts->temp_bytes, need);
    const int in = libscan__call_buf(&c, d_in, bytes, esize, 0, -1);
    libscan__call_buf(&c, d_out, bytes, esize, 1, in); /* in place: d_out == d_in */
    const int init = libscan__call_buf(&c, opts->d_init, esize, esize, 0, -1);
    libscan__call_buf(&c, opts->d_total, esize, esize, 1, init); /* the carry updated in place */
    c.empty = count == 0 && !opts->d_total;
    c.plan = plan;
    c.launch = launch;
    c.ctx = &s;

    s.call.in = d_in;
    s.call.out = d_out;
    s.call.count = count;
    s.call.dtype = dtype;
    s.call.op = op;
    s.call.exclusive = exclusive;
    s.call.has_init = opts->init != NULL;
    if (opts->init) memcpy(s.call.init, opts->init, esize);
    s.call.d_init = opts->d_init;
    s.call.d_total = opts->d_total;
    return libscan__enter(&c, stream);
}

libscan_status_t libscan_inclusive_scan(const void *d_in, void *d_out, size_t count, libscan_dtype_t dtype,
                                        libscan_op_t op, const libscan_scan_opts_t *opts, cudaStream_t stream) {
    return scan(d_in, d_out, count, dtype, op, opts, stream, false);
}

libscan_status_t libscan_exclusive_scan(const void *d_in, void *d_out, size_t count, libscan_dtype_t dtype,
                                        libscan_op_t op, const libscan_scan_opts_t *opts, cudaStream_t stream) {
    return scan(d_in, d_out, count, dtype, op, opts, stream, true);
}
