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

// One pair of adjacent runs: thread t merges outputs [t ITEMS, (t+1) ITEMS).
constexpr int kMergeItems = 8;
template <typename K, typename V>
__global__ void __launch_bounds__(256) merge_kernel(const K *src, const V *vsrc, size_t na, size_t nb, K *dst,
                                                     V *vdst, KeyMap<K> map) {
    const size_t d0 = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * kMergeItems;
    libscan::nccl_merge::merge_items(src, vsrc, na, src + na, vsrc ? vsrc + na : nullptr, nb, dst, vdst, d0,
                                     size_t(kMergeItems), map);
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
// is copied across. Run i has lens[i] keys; runs start at 0, back to back.
extern "C" cudaError_t libscan__nccl_merge_runs(const libscan__nccl_keys_t *k, size_t value_bytes, void *keys[2],
                                                void *vals[2], const uint64_t *lens_in, int nruns, int *result,
                                                cudaStream_t stream) {
    uint64_t lens[64];
    if (nruns < 1 || nruns > 64) return cudaErrorInvalidValue;
    for (int i = 0; i < nruns; ++i) lens[i] = lens_in[i];
    int cur = 0;
    const size_t ks = k->key_bytes;
    while (nruns > 1) {
        size_t off = 0;
        int out = 0;
        for (int i = 0; i < nruns; i += 2, ++out) {
            char *sk = static_cast<char *>(keys[cur]) + off * ks, *dk = static_cast<char *>(keys[1 - cur]) + off * ks;
            char *sv = value_bytes ? static_cast<char *>(vals[cur]) + off * value_bytes : nullptr;
            char *dv = value_bytes ? static_cast<char *>(vals[1 - cur]) + off * value_bytes : nullptr;
            if (i + 1 == nruns) { // the odd one out
                cudaError_t e = cudaMemcpyAsync(dk, sk, lens[i] * ks, cudaMemcpyDeviceToDevice, stream);
                if (e == cudaSuccess && value_bytes)
                    e = cudaMemcpyAsync(dv, sv, lens[i] * value_bytes, cudaMemcpyDeviceToDevice, stream);
                if (e != cudaSuccess) return e;
                lens[out] = lens[i];
                off += lens[i];
                continue;
            }
            const size_t na = lens[i], nb = lens[i + 1], threads = (na + nb + kMergeItems - 1) / kMergeItems;
            const unsigned blocks = unsigned((threads + 255) / 256);
            cudaError_t e = with_key_bytes(ks, [&](auto key) {
                using K = decltype(key);
                const KeyMap<K> map = codec_of<K>(k);
                if (value_bytes == 4)
                    merge_kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const K *>(sk),
                                                             reinterpret_cast<const uint32_t *>(sv), na, nb,
                                                             reinterpret_cast<K *>(dk), reinterpret_cast<uint32_t *>(dv),
                                                             map);
                else if (value_bytes == 8)
                    merge_kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const K *>(sk),
                                                             reinterpret_cast<const uint64_t *>(sv), na, nb,
                                                             reinterpret_cast<K *>(dk), reinterpret_cast<uint64_t *>(dv),
                                                             map);
                else
                    merge_kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const K *>(sk),
                                                             static_cast<const uint32_t *>(nullptr), na, nb,
                                                             reinterpret_cast<K *>(dk), static_cast<uint32_t *>(nullptr),
                                                             map);
                return cudaGetLastError();
            });
            if (e != cudaSuccess) return e;
            lens[out] = na + nb;
            off += na + nb;
        }
        nruns = out;
        cur = 1 - cur;
    }
    *result = cur;
    return cudaSuccess;
}
