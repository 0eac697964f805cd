// nccl_kernels.cu -- the few kernels of libscan_nccl (nccl_internal.h): the
// shard total and the carry of the distributed scan, the samples and the
// splitter bounds of the distributed sort. Everything else is libscan's own
// scan and sort, called through the public API.
#include "nccl/nccl_internal.h"
#include "nccl/nccl_plan.h"
#include "nccl/nccl_merge.h"
#include "core/dispatch.cuh"
#include "libscan/cuda/onesweep.cuh" // libscan::sort::Codec: the key map on the device

namespace {

using libscan::detail::dispatch::with_dtype;
using libscan::detail::dispatch::with_op;

constexpr int kThreads = LIBSCAN__NCCL_REDUCE_THREADS;
constexpr int kMaxBlocks = LIBSCAN__NCCL_REDUCE_BLOCKS;

// Folds a block's kThreads values in a fixed tree (halves, the lower half on
// the left), so a float total is the same on every run. Result in s[0].
template <typename T, class Op> __device__ void block_fold(T *s, T v, Op op) {
    s[threadIdx.x] = v;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (int(threadIdx.x) < half) s[threadIdx.x] = op(s[threadIdx.x], s[threadIdx.x + half]);
        __syncthreads();
    }
}

// Stage 1: thread t of `blocks` folds elements t, t + stride, ... left to
// right (four loads in flight, folded in order), the block folds its threads.
template <typename T, class Op>
__global__ void __launch_bounds__(kThreads) reduce_partials(const T *in, size_t n, T *partials, Op op) {
    __shared__ T s[kThreads];
    const size_t stride = size_t(gridDim.x) * kThreads;
    size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x;
    T acc = op.identity();
    for (; i + 3 * stride < n; i += 4 * stride) {
        const T a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        acc = op(op(op(op(acc, a), b), c), d);
    }
    for (; i < n; i += stride) acc = op(acc, in[i]);
    block_fold(s, acc, op);
    if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}

// Stage 2: one block folds the `blocks` partials (thread t takes t, t +
// kThreads, ... left to right), then the tree.
template <typename T, class Op>
__global__ void __launch_bounds__(kThreads) reduce_final(const T *partials, int blocks, T *total, Op op) {
    __shared__ T s[kThreads];
    T acc = op.identity();
    for (int i = threadIdx.x; i < blocks; i += kThreads) acc = op(acc, partials[i]);
    block_fold(s, acc, op);
    if (threadIdx.x == 0) *total = s[0];
}

template <typename T, class Op> __global__ void carry_kernel(const T *totals, int rank, T *carry, Op op) {
    T c = op.identity();
    for (int q = 0; q < rank; ++q) c = op(c, totals[q]);
    *carry = c;
}

// The key map (nccl_internal.h's fields at the key's width) as
// libscan::sort::Codec, the sort's own, giving 64-bit mapped keys.
template <typename K> struct KeyMap {
    libscan::sort::Codec<K> codec;
    __host__ __device__ uint64_t operator()(K x) const { return uint64_t(codec.map(x)); }
};

template <typename K> __device__ uint64_t mapped(const K *keys, size_t i, const KeyMap<K> &c) { return c(keys[i]); }

template <typename K>
__global__ void samples_kernel(const K *keys, size_t n, size_t s, KeyMap<K> codec, uint64_t *out) {
    const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= s) return;
    const size_t pos = libscan__np_sample_pos(n, s, j);
    out[2 * j] = mapped(keys, pos, codec);
    out[2 * j + 1] = pos;
}

template <typename K>
__global__ void bounds_kernel(const K *keys, size_t n, KeyMap<K> codec, const uint64_t *want, int nkeys,
                              uint64_t *bounds) {
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= nkeys) return;
    const uint64_t w = want[i];
    for (int upper = 0; upper < 2; ++upper) {
        size_t lo = 0, hi = n; // first position whose key is >= w (> w for the upper bound)
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            const uint64_t m = mapped(keys, mid, codec);
            if (upper ? m <= w : m < w)
                lo = mid + 1;
            else
                hi = mid;
        }
        bounds[2 * i + upper] = lo;
    }
}

// One pair of runs, merged in tiles of kMergeTile outputs (a block each).
// The paths at the tiles' edges come first (merge_parts: a thread each,
// binary searches in global memory), so that a tile's block reads its
// slices of A and B once, coalesced, into shared memory; each thread walks
// its kMergeItems outputs there, and the block stores the tile coalesced.
// Values are not staged: each output's value is read from where its key
// came, within the tile's two slices, so a warp's reads stay within two
// short stretches. (The first version let each thread search and write its
// 8 outputs straight in global memory: 0.57 TB/s, a third of the all-to-all
// it follows.)
constexpr int kMergeThreads = 256;
constexpr int kMergeItems = 8;
constexpr int kMergeTile = kMergeThreads * kMergeItems;
static_assert(kMergeTile == LIBSCAN__NCCL_MERGE_TILE, "nccl_internal.h sizes the parts for this tile");

template <typename K>
__global__ void merge_parts(const K *a, size_t na, const K *b, size_t nb, size_t nparts, uint64_t *parts,
                            KeyMap<K> map) {
    const size_t p = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p >= nparts) return;
    const size_t d = p * kMergeTile < na + nb ? p * kMergeTile : na + nb;
    parts[p] = libscan::nccl_merge::path(a, na, b, nb, d, map);
}

template <typename K, typename V>
__global__ void __launch_bounds__(kMergeThreads)
    merge_tiles(const K *a, const V *va, size_t na, const K *b, const V *vb, size_t nb, const uint64_t *parts, K *dst,
                V *vdst, KeyMap<K> map) {
    __shared__ K s_in[kMergeTile];
    __shared__ K s_out[kMergeTile];
    __shared__ uint16_t s_src[kMergeTile]; // where output i came from: < la in A's slice, else B's
    const size_t d0 = size_t(blockIdx.x) * kMergeTile;
    const size_t d1 = d0 + kMergeTile < na + nb ? d0 + kMergeTile : na + nb;
    const size_t a0 = parts[blockIdx.x], a1 = parts[blockIdx.x + 1], b0 = d0 - a0;
    const int la = int(a1 - a0), len = int(d1 - d0);
    for (int i = threadIdx.x; i < len; i += kMergeThreads) s_in[i] = i < la ? a[a0 + i] : b[b0 + size_t(i - la)];
    __syncthreads();
    libscan::nccl_merge::merge_walk(s_in, size_t(la), s_in + la, size_t(len - la),
                                    size_t(threadIdx.x) * kMergeItems, size_t(kMergeItems), map,
                                    [&](size_t d, bool from_a, size_t k) {
                                        const int at = from_a ? int(k) : la + int(k);
                                        s_out[d] = s_in[at];
                                        s_src[d] = uint16_t(at);
                                    });
    __syncthreads();
    for (int i = threadIdx.x; i < len; i += kMergeThreads) {
        dst[d0 + i] = s_out[i];
        if (va) {
            const int at = s_src[i];
            vdst[d0 + i] = at < la ? va[a0 + at] : vb[b0 + size_t(at - la)];
        }
    }
}

template <typename K, typename V>
cudaError_t merge_pair(const K *a, const V *va, size_t na, const K *b, const V *vb, size_t nb, K *dst, V *vdst,
                       uint64_t *parts, KeyMap<K> map, cudaStream_t stream) {
    const size_t tiles = (na + nb + kMergeTile - 1) / kMergeTile;
    if (tiles == 0) return cudaSuccess;
    merge_parts<<<unsigned((tiles + 1 + 255) / 256), 256, 0, stream>>>(a, na, b, nb, tiles + 1, parts, map);
    merge_tiles<<<unsigned(tiles), kMergeThreads, 0, stream>>>(a, va, na, b, vb, nb, parts, dst, vdst, map);
    return cudaGetLastError();
}

// The key launchers: K from the key size (the map's fields carry the type).
template <class F> cudaError_t with_key_bytes(size_t key_bytes, F &&f) {
    switch (key_bytes) {
    case 1: return f(uint8_t());
    case 2: return f(uint16_t());
    case 4: return f(uint32_t());
    case 8: return f(uint64_t());
    }
    return cudaErrorInvalidValue;
}

template <typename K> KeyMap<K> codec_of(const libscan__nccl_keys_t *k) {
    return KeyMap<K>{libscan::sort::Codec<K>{static_cast<K>(k->xor_all), static_cast<K>(k->xor_neg)}};
}

} // namespace

extern "C" cudaError_t libscan__nccl_reduce(const void *d_in, size_t count, libscan_dtype_t dtype, libscan_op_t op,
                                            void *d_partials, void *d_total, cudaStream_t stream) {
    return with_dtype(dtype, cudaErrorInvalidValue, [&](auto t) {
        using T = decltype(t);
        return with_op<T>(op, cudaErrorInvalidValue, [&](auto o) {
            size_t want = (count + kThreads - 1) / kThreads;
            const int blocks = want == 0 ? 1 : want < size_t(kMaxBlocks) ? int(want) : kMaxBlocks;
            reduce_partials<<<blocks, kThreads, 0, stream>>>(static_cast<const T *>(d_in), count,
                                                             static_cast<T *>(d_partials), o);
            reduce_final<<<1, kThreads, 0, stream>>>(static_cast<const T *>(d_partials), blocks,
                                                     static_cast<T *>(d_total), o);
            return cudaGetLastError();
        });
    });
}

extern "C" cudaError_t libscan__nccl_carry(const void *d_totals, int rank, libscan_dtype_t dtype, libscan_op_t op,
                                           void *d_carry, cudaStream_t stream) {
    return with_dtype(dtype, cudaErrorInvalidValue, [&](auto t) {
        using T = decltype(t);
        return with_op<T>(op, cudaErrorInvalidValue, [&](auto o) {
            carry_kernel<<<1, 1, 0, stream>>>(static_cast<const T *>(d_totals), rank, static_cast<T *>(d_carry), o);
            return cudaGetLastError();
        });
    });
}

extern "C" cudaError_t libscan__nccl_samples(const void *d_sorted, size_t count, const libscan__nccl_keys_t *k,
                                             uint64_t *d_out, cudaStream_t stream) {
    const size_t s = libscan__np_num_samples(count);
    if (s == 0) return cudaSuccess;
    return with_key_bytes(k->key_bytes, [&](auto key) {
        using K = decltype(key);
        samples_kernel<<<unsigned((s + 255) / 256), 256, 0, stream>>>(static_cast<const K *>(d_sorted), count, s,
                                                                        codec_of<K>(k), d_out);
        return cudaGetLastError();
    });
}

extern "C" cudaError_t libscan__nccl_bounds(const void *d_sorted, size_t count, const libscan__nccl_keys_t *k,
                                            const uint64_t *d_keys, int nkeys, uint64_t *d_bounds,
                                            cudaStream_t stream) {
    if (nkeys <= 0) return cudaSuccess;
    return with_key_bytes(k->key_bytes, [&](auto key) {
        using K = decltype(key);
        bounds_kernel<<<unsigned((nkeys + 127) / 128), 128, 0, stream>>>(static_cast<const K *>(d_sorted), count,
                                                                          codec_of<K>(k), d_keys, nkeys, d_bounds);
        return cudaGetLastError();
    });
}

// Rounds of pairwise merges of adjacent runs (rank order kept, so A, the
// earlier, wins ties), ping-ponging between the buffer sets; an odd run out
// is copied across. The first round reads run i at first_keys[i] /
// first_vals[i]; later rounds read the runs back to back from element 0 of
// the set the round before wrote.
extern "C" cudaError_t libscan__nccl_merge_runs(const libscan__nccl_keys_t *k, size_t value_bytes,
                                                const void *const *first_keys, const void *const *first_vals,
                                                void *keys[2], void *vals[2], const uint64_t *lens_in, int nruns,
                                                uint64_t *d_parts, int *result, cudaStream_t stream) {
    uint64_t lens[LIBSCAN__NP_MAX_MERGE_RUNS];
    if (nruns < 1 || nruns > LIBSCAN__NP_MAX_MERGE_RUNS) return cudaErrorInvalidValue;
    for (int i = 0; i < nruns; ++i) lens[i] = lens_in[i];
    int cur = 0, first = 1;
    const size_t ks = k->key_bytes, vbytes = value_bytes;
    while (nruns > 1) {
        size_t off = 0;
        int out = 0;
        // run i's keys and values where this round reads them
        auto src_k = [&](int i, size_t at) -> const char * {
            return first ? static_cast<const char *>(first_keys[i]) : static_cast<const char *>(keys[cur]) + at * ks;
        };
        auto src_v = [&](int i, size_t at) -> const char * {
            if (!vbytes) return nullptr;
            return first ? static_cast<const char *>(first_vals[i])
                         : static_cast<const char *>(vals[cur]) + at * vbytes;
        };
        for (int i = 0; i < nruns; i += 2, ++out) {
            char *dk = static_cast<char *>(keys[1 - cur]) + off * ks;
            char *dv = vbytes ? static_cast<char *>(vals[1 - cur]) + off * vbytes : nullptr;
            if (i + 1 == nruns) { // the odd one out
                cudaError_t e = cudaMemcpyAsync(dk, src_k(i, off), lens[i] * ks, cudaMemcpyDeviceToDevice, stream);
                if (e == cudaSuccess && vbytes)
                    e = cudaMemcpyAsync(dv, src_v(i, off), lens[i] * vbytes, cudaMemcpyDeviceToDevice, stream);
                if (e != cudaSuccess) return e;
                lens[out] = lens[i];
                off += lens[i];
                continue;
            }
            const size_t na = lens[i], nb = lens[i + 1];
            const char *ak = src_k(i, off), *bk = src_k(i + 1, off + na);
            const char *av = src_v(i, off), *bv = src_v(i + 1, off + na);
            cudaError_t e = with_key_bytes(ks, [&](auto key) {
                using K = decltype(key);
                const KeyMap<K> map = codec_of<K>(k);
                const K *a = reinterpret_cast<const K *>(ak), *b = reinterpret_cast<const K *>(bk);
                K *d = reinterpret_cast<K *>(dk);
                if (vbytes == 4)
                    return merge_pair(a, reinterpret_cast<const uint32_t *>(av), na, b,
                                      reinterpret_cast<const uint32_t *>(bv), nb, d, reinterpret_cast<uint32_t *>(dv),
                                      d_parts, map, stream);
                if (vbytes == 8)
                    return merge_pair(a, reinterpret_cast<const uint64_t *>(av), na, b,
                                      reinterpret_cast<const uint64_t *>(bv), nb, d, reinterpret_cast<uint64_t *>(dv),
                                      d_parts, map, stream);
                return merge_pair(a, static_cast<const uint32_t *>(nullptr), na, b,
                                  static_cast<const uint32_t *>(nullptr), nb, d, static_cast<uint32_t *>(nullptr),
                                  d_parts, map, stream);
            });
            if (e != cudaSuccess) return e;
            lens[out] = na + nb;
            off += na + nb;
        }
        nruns = out;
        cur = 1 - cur;
        first = 0;
    }
    *result = cur;
    return cudaSuccess;
}
