/* nccl_sort.c -- libscan_nccl_sort (nccl.h): a sample sort over NCCL.
 * Checks, describes the call to libscan's entry path (core/entry.h), and in
 * its launch runs the steps nccl.h lists, with the host-side decisions in
 * nccl_plan.c and the kernels in nccl_kernels.cu.
 *
 * Temp, in LIBSCAN_TEMP_ALIGNMENT slices:
 *   small   the sample block sent (header + samples) and all ranks' blocks,
 *           the splitter keys, their bounds, the count row sent and all rows,
 *           the merge's tile edges;
 *   A       this rank's shard sorted (count keys, count values), kept until
 *           the exchange has read it;
 *   R       first libscan_sort()'s temp for the shard (out of place), then,
 *           once A is sent, the alternate buffers (capacity keys and values,
 *           each with the slack of the aligned receive slots, nccl_plan.h)
 *           and the temp of the double-buffer sort of what was received.
 * The received runs land in the caller's outputs (or R's alternate buffers)
 * directly and are merged from there and from A (this rank's own piece is
 * never copied when merging): no receive buffer of its own. */
#include <stdlib.h>
#include <string.h>
#include "core/entry.h"
#include "nccl/nccl_internal.h"
#include "nccl/nccl_plan.h"
#include "sort/sort_cpu_internal.h" /* libscan__key_map: sort.h's order on the host */

typedef struct sort_layout {
    size_t hdr_send, hdr_all, split, bounds, row_send, rows_all, parts; /* small */
    size_t a_keys, a_vals, r, r_alt_vals, r_db_temp, bytes;
} sort_layout_t;

static size_t block_words(void) { return LIBSCAN__NP_HEADER + 2 * (size_t)LIBSCAN__NP_SAMPLES; }

static sort_layout_t layout(size_t count, size_t capacity, int nranks, libscan_dtype_t key, size_t vb) {
    const size_t ks = libscan_dtype_size(key), n = (size_t)nranks, w = sizeof(uint64_t);
    sort_layout_t l;
    size_t at = 0;
    l.hdr_send = at;
    at += libscan__nccl_slice(block_words() * w);
    l.hdr_all = at;
    at += libscan__nccl_slice(n * block_words() * w);
    l.split = at;
    at += libscan__nccl_slice(n * w);
    l.bounds = at;
    at += libscan__nccl_slice(2 * n * w);
    l.row_send = at;
    at += libscan__nccl_slice((n + 1) * w);
    l.rows_all = at;
    at += libscan__nccl_slice(n * (n + 1) * w);
    l.parts = at;
    at += libscan__nccl_slice(libscan__nccl_merge_parts(capacity) * w);
    l.a_keys = at;
    at += libscan__nccl_slice(count * ks);
    l.a_vals = at;
    at += libscan__nccl_slice(count * vb);
    l.r = at;
    size_t local = 0, db = 0;
    (void)libscan_sort_temp_bytes(count, key, vb, LIBSCAN_SORT_OUT_OF_PLACE, &local);
    (void)libscan_sort_temp_bytes(capacity, key, vb, LIBSCAN_SORT_DOUBLE_BUFFER, &db);
    const size_t slack = libscan__np_slot_slack(nranks);
    l.r_alt_vals = libscan__nccl_slice(capacity * ks + slack);
    l.r_db_temp = l.r_alt_vals + libscan__nccl_slice(vb ? capacity * vb + slack : 0);
    const size_t final_bytes = l.r_db_temp + db;
    at += local > final_bytes ? local : final_bytes;
    l.bytes = at;
    return l;
}

static int value_bytes_ok(size_t vb) { return vb == 0 || vb == 4 || vb == 8; }

libscan_status_t libscan_nccl_sort_temp_bytes(size_t count, size_t capacity, int nranks, libscan_dtype_t key,
                                              size_t value_bytes, size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    size_t dummy = 0;
    if (libscan_sort_temp_bytes(0, key, 0, LIBSCAN_SORT_OUT_OF_PLACE, &dummy) == LIBSCAN_ERROR_INVALID_DTYPE)
        return LIBSCAN_ERROR_INVALID_DTYPE;
    if (nranks < 1 || !value_bytes_ok(value_bytes)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > LIBSCAN_MAX_COUNT || capacity > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    *temp_bytes = libscan__with_slack(layout(count, capacity, nranks, key, value_bytes).bytes);
    return LIBSCAN_SUCCESS;
}

size_t libscan_nccl_sort_capacity(size_t total, int nranks) {
    if (nranks < 1) return 0;
    return (size_t)libscan__np_capacity((uint64_t)total, nranks);
}

typedef struct sort_ctx {
    const void *keys_in, *vals_in;
    void *keys_out, *vals_out;
    size_t count, capacity, *out_count;
    libscan_dtype_t key;
    size_t vb;
    int descending;
    ncclComm_t comm;
    int rank, nranks;
    libscan_status_t status; /* beyond CUDA: NCCL, CAPACITY, INVALID_ARGUMENT, OUT_OF_MEMORY, inner calls */
} sort_ctx_t;

/* Host <- device, then wait: the sort's three points where the host decides. */
static cudaError_t fetch(void *dst, const void *src, size_t bytes, cudaStream_t stream) {
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream);
    return e != cudaSuccess ? e : cudaStreamSynchronize(stream);
}

static libscan_status_t gather_u64(sort_ctx_t *s, const void *send, void *recv, size_t words, cudaStream_t stream) {
    return libscan__nccl_status(ncclAllGather(send, recv, words, ncclUint64, s->comm, stream));
}

/* Where this rank receives the piece of each rank q: at[q] bytes into the
 * receive buffer, the piece itself skip[q] bytes further (keys k_, values
 * v_). Back to back at recv_off[q] elements, or in the aligned slots of
 * nccl_plan.h. */
typedef struct recv_plan {
    uint64_t *k_at, *k_skip, *v_at, *v_skip;
} recv_plan_t;

/* Sends `bytes` from base + off, starting at the 16-byte boundary at or
 * before it when the receiver takes the piece into an aligned slot
 * (nccl_plan.h): the bytes from that boundary on lie within the sorted
 * shard, whose start is aligned. */
static ncclResult_t send_piece(const char *base, size_t off, size_t bytes, int aligned, int peer, ncclComm_t comm,
                               cudaStream_t stream) {
    const size_t from = aligned ? off / LIBSCAN__NP_ALIGN * LIBSCAN__NP_ALIGN : off;
    return ncclSend(base + from, bytes + (off - from), ncclUint8, peer, comm, stream);
}

/* The exchange: the piece for rank q of the sorted shard (from cut[q]) goes
 * to q, q's piece for this rank lands where rp says in ok/ov (the outputs,
 * or the alternate buffers when the merge rounds end in the outputs that
 * way); this rank's own piece is a device copy to recv_off when copy_own
 * (the merge reads it where it is instead). slotted[q]: q receives into
 * aligned slots. */
static cudaError_t exchange(sort_ctx_t *s, const char *a_keys, const char *a_vals, const uint64_t *cut,
                            const uint64_t *rows, const recv_plan_t *rp, const uint64_t *recv_off,
                            const unsigned char *slotted, char *ok, char *ov, int copy_own, cudaStream_t stream) {
    const size_t ks = libscan_dtype_size(s->key), vb = s->vb, stride = (size_t)s->nranks + 1;
    if (ncclGroupStart() != ncclSuccess) goto nccl_failed;
    for (int q = 0; q < s->nranks; ++q) {
        const size_t send = (size_t)(cut[q + 1] - cut[q]);
        const size_t recv = (size_t)rows[(size_t)q * stride + 1 + (size_t)s->rank];
        if (q == s->rank) continue;
        if (send) {
            if (send_piece(a_keys, cut[q] * ks, send * ks, slotted[q], q, s->comm, stream) != ncclSuccess)
                goto group_failed;
            if (vb && send_piece(a_vals, cut[q] * vb, send * vb, slotted[q], q, s->comm, stream) != ncclSuccess)
                goto group_failed;
        }
        if (recv) {
            if (ncclRecv(ok + rp->k_at[q], rp->k_skip[q] + recv * ks, ncclUint8, q, s->comm, stream) != ncclSuccess)
                goto group_failed;
            if (vb && ncclRecv(ov + rp->v_at[q], rp->v_skip[q] + recv * vb, ncclUint8, q, s->comm, stream) !=
                          ncclSuccess)
                goto group_failed;
        }
    }
    if (ncclGroupEnd() != ncclSuccess) goto nccl_failed;
    {
        const int r = s->rank;
        const size_t own = copy_own ? (size_t)(cut[r + 1] - cut[r]) : 0;
        cudaError_t e = cudaSuccess;
        if (own) e = cudaMemcpyAsync(ok + recv_off[r] * ks, a_keys + cut[r] * ks, own * ks,
                                     cudaMemcpyDeviceToDevice, stream);
        if (e == cudaSuccess && own && vb)
            e = cudaMemcpyAsync(ov + recv_off[r] * vb, a_vals + cut[r] * vb, own * vb, cudaMemcpyDeviceToDevice,
                                stream);
        return e;
    }
group_failed:
    (void)ncclGroupEnd();
nccl_failed:
    s->status = LIBSCAN_ERROR_NCCL;
    return cudaSuccess;
}

/* Sorts the m received keys (runs in rank order) in the outputs, stably,
 * with R's alternate buffers. */
static cudaError_t final_sort(sort_ctx_t *s, char *t, const sort_layout_t *l, size_t temp_bytes, size_t m,
                              cudaStream_t stream) {
    const size_t ks = libscan_dtype_size(s->key);
    libscan_double_buffer_t buf;
    memset(&buf, 0, sizeof buf);
    buf.d_keys[0] = s->keys_out;
    buf.d_keys[1] = t + l->r;
    if (s->vb) {
        buf.d_values[0] = s->vals_out;
        buf.d_values[1] = t + l->r + l->r_alt_vals;
    }
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = s->descending;
    size_t db = 0;
    (void)libscan_sort_temp_bytes(m, s->key, s->vb, LIBSCAN_SORT_DOUBLE_BUFFER, &db);
    o.d_temp = db ? t + l->r + l->r_db_temp : NULL;
    o.temp_bytes = db ? temp_bytes - (l->r + l->r_db_temp) : 0;
    s->status = libscan_sort_double_buffer(&buf, m, s->key, s->vb, &o, stream);
    if (s->status != LIBSCAN_SUCCESS || buf.selector == 0 || m == 0) return cudaSuccess;
    /* An odd number of passes (u8 keys) leaves the result in the alternate. */
    cudaError_t e = cudaMemcpyAsync(s->keys_out, buf.d_keys[1], m * ks, cudaMemcpyDeviceToDevice, stream);
    if (e == cudaSuccess && s->vb)
        e = cudaMemcpyAsync(s->vals_out, buf.d_values[1], m * s->vb, cudaMemcpyDeviceToDevice, stream);
    return e;
}

static cudaError_t launch(void *ctx, void *temp, size_t temp_bytes, cudaStream_t stream) {
    sort_ctx_t *s = ctx;
    const int N = s->nranks, me = s->rank;
    const size_t ks = libscan_dtype_size(s->key), words = block_words(), stride = (size_t)N + 1;
    const sort_layout_t l = layout(s->count, s->capacity, N, s->key, s->vb);
    char *t = temp;
    uint64_t *hdr_send = (uint64_t *)(t + l.hdr_send);
    cudaError_t e = cudaSuccess;

    /* Host memory: every rank's sample block, the triples, and the small
     * vectors of the later steps, in one allocation. */
    const size_t host_words = (size_t)N * words + 3 * (size_t)N * LIBSCAN__NP_SAMPLES + 17 * ((size_t)N + 1) +
                              (size_t)N * stride;
    uint64_t *h = malloc(host_words * sizeof(uint64_t));
    if (!h) {
        s->status = LIBSCAN_ERROR_OUT_OF_MEMORY;
        return cudaSuccess;
    }
    uint64_t *blocks = h;
    libscan__np_triple_t *triples = (libscan__np_triple_t *)(blocks + (size_t)N * words);
    uint64_t *counts = (uint64_t *)(triples + (size_t)N * LIBSCAN__NP_SAMPLES);
    libscan__np_triple_t *split = (libscan__np_triple_t *)(counts + stride);
    uint64_t *vec = (uint64_t *)(split + N); /* split keys, bounds (2x), cuts, row, recv_off: N + 1 words
                                                 each, then rows (N of them), the run lengths, the
                                                 receive plan (4x) and the slotted flags */
    uint64_t *split_keys = vec, *bounds = vec + stride, *cut = bounds + 2 * stride, *row = cut + stride;
    uint64_t *recv_off = row + stride, *rows = recv_off + stride;
    uint64_t *lens = rows + (size_t)N * stride; /* the run lengths */
    recv_plan_t rp = {lens + stride, lens + 2 * stride, lens + 3 * stride, lens + 4 * stride};
    unsigned char *slotted = (unsigned char *)(lens + 5 * stride); /* N bytes in stride words */

    /* 1. The shard sorted into A, its samples and header into the block. */
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = s->descending;
    size_t local = 0;
    (void)libscan_sort_temp_bytes(s->count, s->key, s->vb, LIBSCAN_SORT_OUT_OF_PLACE, &local);
    o.d_temp = local ? t + l.r : NULL;
    o.temp_bytes = local ? temp_bytes - l.r : 0;
    if (N == 1) { /* one rank: nothing to exchange, the shard is sorted straight into the outputs */
        *s->out_count = s->count;
        s->status = s->count > s->capacity ? LIBSCAN_ERROR_CAPACITY
                                           : libscan_sort(s->keys_in, s->keys_out, s->vals_in, s->vals_out, s->count,
                                                          s->key, s->vb, &o, stream);
        goto done;
    }
    char *a_keys = t + l.a_keys, *a_vals = s->vb ? t + l.a_vals : NULL;
    s->status = libscan_sort(s->keys_in, a_keys, s->vals_in, a_vals, s->count, s->key, s->vb, &o, stream);
    if (s->status != LIBSCAN_SUCCESS) goto done;
    const libscan__key_map_t map = libscan__key_map(s->key, s->descending, 0, 0);
    const libscan__nccl_keys_t kmap = {ks, map.xor_all, map.xor_neg};
    /* The header's shape word: value bytes, direction, and (bit 9, not part
     * of the shape) this rank's LIBSCAN_NCCL_MERGE=0: every rank merges, or
     * every rank sorts again, as the receive plan must agree everywhere. */
    const char *merge_env = getenv("LIBSCAN_NCCL_MERGE");
    const uint64_t resort_bit = (uint64_t)1 << 9;
    const uint64_t header[LIBSCAN__NP_HEADER] = {
        s->count, libscan__np_num_samples(s->count), (uint64_t)s->key,
        (uint64_t)s->vb | (uint64_t)(s->descending != 0) << 8 |
            (merge_env && strcmp(merge_env, "0") == 0 ? resort_bit : 0)};
    if ((e = cudaMemcpyAsync(hdr_send, header, sizeof header, cudaMemcpyHostToDevice, stream)) != cudaSuccess ||
        (e = libscan__nccl_samples(a_keys, s->count, &kmap, hdr_send + LIBSCAN__NP_HEADER, stream)) != cudaSuccess)
        goto done;

    /* 2. Every rank's block; the same splitters everywhere. */
    if ((s->status = gather_u64(s, hdr_send, t + l.hdr_all, words, stream)) != LIBSCAN_SUCCESS) goto done;
    if ((e = fetch(blocks, t + l.hdr_all, (size_t)N * words * sizeof(uint64_t), stream)) != cudaSuccess) goto done;
    size_t nsamples = 0;
    uint64_t total = 0;
    int merge_all = 1;
    for (int q = 0; q < N; ++q) {
        const uint64_t *b = blocks + (size_t)q * words;
        if (b[3] & resort_bit) merge_all = 0;
        if (b[2] != header[2] || (b[3] & ~resort_bit) != (header[3] & ~resort_bit)) {
            s->status = LIBSCAN_ERROR_INVALID_ARGUMENT; /* every rank sees the same blocks: all refuse */
            goto done;
        }
        counts[q] = b[0];
        total += b[0];
        for (uint64_t j = 0; j < b[1]; ++j) {
            libscan__np_triple_t tr = {b[LIBSCAN__NP_HEADER + 2 * j], (uint64_t)q, b[LIBSCAN__NP_HEADER + 2 * j + 1]};
            triples[nsamples++] = tr;
        }
    }
    if (total == 0) {
        *s->out_count = 0;
        goto done;
    }
    libscan__np_pick_splitters(triples, nsamples, counts, N, split);

    /* 3. Where the splitters cut this rank's sorted shard. */
    for (int d = 0; d + 1 < N; ++d) split_keys[d] = split[d].key;
    if (N > 1) {
        if ((e = cudaMemcpyAsync(t + l.split, split_keys, (size_t)(N - 1) * sizeof(uint64_t), cudaMemcpyHostToDevice,
                                 stream)) != cudaSuccess ||
            (e = libscan__nccl_bounds(a_keys, s->count, &kmap, (const uint64_t *)(t + l.split), N - 1,
                                      (uint64_t *)(t + l.bounds), stream)) != cudaSuccess ||
            (e = fetch(bounds, t + l.bounds, 2 * (size_t)(N - 1) * sizeof(uint64_t), stream)) != cudaSuccess)
            goto done;
    }
    cut[0] = 0;
    for (int d = 1; d < N; ++d) cut[d] = libscan__np_cut(&split[d - 1], me, bounds[2 * (d - 1)], bounds[2 * d - 1]);
    cut[N] = s->count;

    /* 4. Everyone's counts and capacity: the receive plan, or CAPACITY everywhere. */
    row[0] = s->capacity;
    for (int q = 0; q < N; ++q) row[1 + q] = cut[q + 1] - cut[q];
    if ((e = cudaMemcpyAsync(t + l.row_send, row, stride * sizeof(uint64_t), cudaMemcpyHostToDevice, stream)) !=
        cudaSuccess)
        goto done;
    if ((s->status = gather_u64(s, t + l.row_send, t + l.rows_all, stride, stream)) != LIBSCAN_SUCCESS) goto done;
    if ((e = fetch(rows, t + l.rows_all, (size_t)N * stride * sizeof(uint64_t), stream)) != cudaSuccess) goto done;
    uint64_t m = 0, need_max = 0;
    const int over = libscan__np_exchange(rows, N, me, recv_off, &m, &need_max);
    *s->out_count = (size_t)m;
    if (over) {
        s->status = LIBSCAN_ERROR_CAPACITY;
        goto done;
    }

    /* 5. The exchange, then the received runs, each sorted, made one: merged
     * (rounds of pairwise merges, nccl_merge.h), or sorted again with
     * libscan_sort where any rank set LIBSCAN_NCCL_MERGE=0 or there are
     * more than LIBSCAN__NP_MAX_MERGE_RUNS runs. One non-empty run (one
     * rank; or keys that all come from one rank, as already-sorted input
     * does) is sorted already. The merge's rounds ping-pong between the
     * outputs and the alternate buffers, so with an odd number of rounds the
     * runs are received into the alternate and the last round lands in the
     * outputs. Merged runs arrive in aligned slots where the buffer has room
     * (nccl_plan.h); every rank works out every rank's choice alike. */
    int runs = 0;
    for (int q = 0; q < N; ++q) {
        const uint64_t c = rows[(size_t)q * stride + 1 + (size_t)me];
        if (c) lens[runs++] = c;
    }
    const int merge = merge_all && runs > 1 && runs <= LIBSCAN__NP_MAX_MERGE_RUNS;
    const int rounds = merge ? libscan__np_rounds(runs) : 0;
    for (int q = 0; q < N; ++q) slotted[q] = (unsigned char)libscan__np_slotted(rows, N, q, ks, s->vb, merge_all);
    if (slotted[me]) {
        (void)libscan__np_slots(rows, N, me, ks, rp.k_at, rp.k_skip);
        if (s->vb) (void)libscan__np_slots(rows, N, me, s->vb, rp.v_at, rp.v_skip);
    } else {
        for (int q = 0; q < N; ++q) {
            rp.k_at[q] = recv_off[q] * ks;
            rp.v_at[q] = recv_off[q] * s->vb;
            rp.k_skip[q] = rp.v_skip[q] = 0;
        }
    }
    char *alt_keys = t + l.r, *alt_vals = s->vb ? t + l.r + l.r_alt_vals : NULL;
    char *rk = (rounds & 1) ? alt_keys : s->keys_out, *rv = (rounds & 1) ? alt_vals : s->vals_out;
    if ((e = exchange(s, a_keys, a_vals, cut, rows, &rp, recv_off, slotted, rk, rv, !merge, stream)) != cudaSuccess ||
        s->status != LIBSCAN_SUCCESS)
        goto done;
    if (merge) {
        void *keys[2] = {rk, rk == alt_keys ? s->keys_out : alt_keys};
        void *vals[2] = {rv, rv == alt_vals ? s->vals_out : alt_vals};
        const void *first_keys[LIBSCAN__NP_MAX_MERGE_RUNS], *first_vals[LIBSCAN__NP_MAX_MERGE_RUNS];
        for (int q = 0, i = 0; q < N; ++q) {
            if (!rows[(size_t)q * stride + 1 + (size_t)me]) continue;
            const int own = q == me;
            first_keys[i] = own ? a_keys + cut[me] * ks : rk + rp.k_at[q] + rp.k_skip[q];
            first_vals[i++] = !s->vb ? NULL : own ? a_vals + cut[me] * s->vb : rv + rp.v_at[q] + rp.v_skip[q];
        }
        int result = 0;
        e = libscan__nccl_merge_runs(&kmap, s->vb, first_keys, s->vb ? first_vals : NULL, keys, s->vb ? vals : NULL,
                                     lens, runs, (uint64_t *)(t + l.parts), &result, stream);
        /* The rounds' parity chose the receive buffers so that keys[result] is
         * the outputs; a copy only if that ever changed. */
        if (e == cudaSuccess && keys[result] != s->keys_out) {
            e = cudaMemcpyAsync(s->keys_out, keys[result], (size_t)m * ks, cudaMemcpyDeviceToDevice, stream);
            if (e == cudaSuccess && s->vb)
                e = cudaMemcpyAsync(s->vals_out, vals[result], (size_t)m * s->vb, cudaMemcpyDeviceToDevice, stream);
        }
    } else if (runs > 1) {
        e = final_sort(s, t, &l, temp_bytes, (size_t)m, stream);
    }
done:
    free(h);
    return e;
}

static const libscan_nccl_sort_opts_t default_opts = LIBSCAN_NCCL_SORT_OPTS_INIT;

libscan_status_t libscan_nccl_sort(const void *d_keys_in, void *d_keys_out, const void *d_values_in,
                                   void *d_values_out, size_t count, size_t capacity, size_t *out_count,
                                   libscan_dtype_t key, size_t value_bytes, const libscan_nccl_sort_opts_t *opts,
                                   ncclComm_t comm, cudaStream_t stream) {
    if (!opts) opts = &default_opts;
    if (!out_count) return LIBSCAN_ERROR_NULL_POINTER;
    size_t need = 0;
    libscan_status_t st = libscan_nccl_sort_temp_bytes(count, capacity, 1, key, value_bytes, &need);
    if (st != LIBSCAN_SUCCESS) return st;
    if (value_bytes == 0 && (d_values_in || d_values_out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > 0 && !d_keys_in) return LIBSCAN_ERROR_NULL_POINTER;
    if (capacity > 0 && !d_keys_out) return LIBSCAN_ERROR_NULL_POINTER;
    if (value_bytes && ((count > 0 && !d_values_in) || (capacity > 0 && !d_values_out)))
        return LIBSCAN_ERROR_NULL_POINTER;
    sort_ctx_t s;
    memset(&s, 0, sizeof s);
    if ((st = libscan__nccl_comm(comm, &s.rank, &s.nranks)) != LIBSCAN_SUCCESS) return st;
    s.keys_in = d_keys_in;
    s.vals_in = d_values_in;
    s.keys_out = d_keys_out;
    s.vals_out = d_values_out;
    s.count = count;
    s.capacity = capacity;
    s.out_count = out_count;
    s.key = key;
    s.vb = value_bytes;
    s.descending = opts->descending != 0;
    s.comm = comm;
    s.status = LIBSCAN_SUCCESS;
    (void)libscan_nccl_sort_temp_bytes(count, capacity, s.nranks, key, value_bytes, &need);
    const size_t ks = libscan_dtype_size(key);
    libscan__call_t c;
    libscan__call_init(&c, opts->d_temp, opts->temp_bytes, need);
    c.launch = launch; /* never empty: a rank without keys still takes part */
    c.ctx = &s;
    libscan__call_buf(&c, d_keys_in, count * ks, ks, 1, -1); /* "writes": no other buffer may share a byte */
    libscan__call_buf(&c, d_keys_out, capacity * ks, ks, 1, -1);
    libscan__call_buf(&c, d_values_in, count * value_bytes, value_bytes, 1, -1);
    libscan__call_buf(&c, d_values_out, capacity * value_bytes, value_bytes, 1, -1);
    st = libscan__enter(&c, stream);
    return st != LIBSCAN_SUCCESS ? st : s.status;
}
