/* nccl_scan.c -- libscan_nccl_inclusive_scan / _exclusive_scan (nccl.h):
 * check, describe the call to libscan's entry path (core/entry.h), and in
 * its launch: reduce the shard, all-gather the totals, fold the carry, and
 * scan the shard with the carry as libscan's device carry-in.
 *
 * Why reduce first rather than scan, gather, then add the carry: adding a
 * carry afterwards reads and writes the shard a second time (2x the
 * traffic of a one-GPU scan); reducing first reads it once more (1.5x) and
 * lets libscan's own carry-in (opts.d_init, read on the device) do the
 * rest, without a host round trip. No design can reach 1x: rank r's first
 * output needs every lower rank's whole shard read first. */
#include <string.h>
#include "core/entry.h"
#include "nccl/nccl_internal.h"

/* Temp: partials | total | the N totals | carry | libscan's scan temp. */
typedef struct scan_layout {
    size_t partials, total, totals, carry, scan, bytes;
} scan_layout_t;

static scan_layout_t layout(size_t count, int nranks, libscan_dtype_t dtype) {
    scan_layout_t l;
    const size_t esize = libscan_dtype_size(dtype);
    size_t scan_temp = 0;
    (void)libscan_scan_temp_bytes(count, dtype, &scan_temp);
    l.partials = 0;
    l.total = l.partials + libscan__nccl_slice(LIBSCAN__NCCL_REDUCE_BLOCKS * esize);
    l.totals = l.total + libscan__nccl_slice(esize);
    l.carry = l.totals + libscan__nccl_slice((size_t)nranks * esize);
    l.scan = l.carry + libscan__nccl_slice(esize);
    l.bytes = l.scan + scan_temp;
    return l;
}

libscan_status_t libscan_nccl_scan_temp_bytes(size_t count, int nranks, libscan_dtype_t dtype, size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    if (libscan__nccl_type(dtype) == ncclNumTypes) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (nranks < 1) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    *temp_bytes = libscan__with_slack(layout(count, nranks, dtype).bytes);
    return LIBSCAN_SUCCESS;
}

typedef struct scan_ctx {
    const void *in;
    void *out;
    size_t count;
    libscan_dtype_t dtype;
    libscan_op_t op;
    int exclusive;
    ncclComm_t comm;
    int rank, nranks;
    libscan_status_t status; /* what launch() found beyond CUDA: NCCL, or the inner scan's */
} scan_ctx_t;

static cudaError_t launch(void *ctx, void *temp, size_t temp_bytes, cudaStream_t stream) {
    scan_ctx_t *s = ctx;
    const scan_layout_t l = layout(s->count, s->nranks, s->dtype);
    char *t = temp;
    libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
    o.d_temp = l.bytes > l.scan ? t + l.scan : NULL;
    o.temp_bytes = l.bytes > l.scan ? temp_bytes - l.scan : 0;
    if (s->nranks > 1) { /* one rank has no carry: no reduce, no gather */
        cudaError_t e = libscan__nccl_reduce(s->in, s->count, s->dtype, s->op, t + l.partials, t + l.total, stream);
        if (e != cudaSuccess) return e;
        s->status = libscan__nccl_status(
            ncclAllGather(t + l.total, t + l.totals, 1, libscan__nccl_type(s->dtype), s->comm, stream));
        if (s->status != LIBSCAN_SUCCESS) return cudaSuccess;
        e = libscan__nccl_carry(t + l.totals, s->rank, s->dtype, s->op, t + l.carry, stream);
        if (e != cudaSuccess) return e;
        o.d_init = t + l.carry;
    }
    s->status = s->exclusive ? libscan_exclusive_scan(s->in, s->out, s->count, s->dtype, s->op, &o, stream)
                             : libscan_inclusive_scan(s->in, s->out, s->count, s->dtype, s->op, &o, stream);
    return cudaSuccess;
}

static const libscan_nccl_scan_opts_t default_opts = LIBSCAN_NCCL_SCAN_OPTS_INIT;

static libscan_status_t scan(const void *d_in, void *d_out, size_t count, libscan_dtype_t dtype, libscan_op_t op,
                             const libscan_nccl_scan_opts_t *opts, ncclComm_t comm, cudaStream_t stream,
                             int exclusive) {
    if (!opts) opts = &default_opts;
    if (libscan__nccl_type(dtype) == ncclNumTypes) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (op != LIBSCAN_OP_SUM && op != LIBSCAN_OP_MIN && op != LIBSCAN_OP_MAX) return LIBSCAN_ERROR_INVALID_OP;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    if (count > 0 && (!d_in || !d_out)) return LIBSCAN_ERROR_NULL_POINTER;
    scan_ctx_t s;
    memset(&s, 0, sizeof s);
    libscan_status_t st = libscan__nccl_comm(comm, &s.rank, &s.nranks);
    if (st != LIBSCAN_SUCCESS) return st;
    s.in = d_in;
    s.out = d_out;
    s.count = count;
    s.dtype = dtype;
    s.op = op;
    s.exclusive = exclusive;
    s.comm = comm;
    s.status = LIBSCAN_SUCCESS;
    const size_t esize = libscan_dtype_size(dtype);
    size_t need = 0;
    (void)libscan_nccl_scan_temp_bytes(count, s.nranks, dtype, &need);
    libscan__call_t c;
    libscan__call_init(&c, opts->d_temp, opts->temp_bytes, need);
    /* Never empty: a rank with no elements still sends its total (the
     * identity) to the others. */
    c.launch = launch;
    c.ctx = &s;
    const int in = libscan__call_buf(&c, d_in, count * esize, esize, 0, -1);
    libscan__call_buf(&c, d_out, count * esize, esize, 1, in);
    st = libscan__enter(&c, stream);
    return st != LIBSCAN_SUCCESS ? st : s.status;
}

libscan_status_t libscan_nccl_inclusive_scan(const void *d_in, void *d_out, size_t count, libscan_dtype_t dtype,
                                             libscan_op_t op, const libscan_nccl_scan_opts_t *opts, ncclComm_t comm,
                                             cudaStream_t stream) {
    return scan(d_in, d_out, count, dtype, op, opts, comm, stream, 0);
}

libscan_status_t libscan_nccl_exclusive_scan(const void *d_in, void *d_out, size_t count, libscan_dtype_t dtype,
                                             libscan_op_t op, const libscan_nccl_scan_opts_t *opts, ncclComm_t comm,
                                             cudaStream_t stream) {
    return scan(d_in, d_out, count, dtype, op, opts, comm, stream, 1);
}
