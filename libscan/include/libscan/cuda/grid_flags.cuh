// grid_flags.cuh -- one value per block of a launch, published in global
// memory that the library owns and never resets, for grid_scan.cuh.
//
// Why: a one-launch scan over many SMs needs each block to learn what the
// blocks before it hold. The look-back (lookback.cuh) keeps that in tile
// states that must be zeroed before every launch: a memset node, or caller
// temp storage. Here the slots are tagged with the launch's own grid id, so a
// slot that an earlier launch wrote simply reads as "not yet published":
// nothing is reset, and no temp storage is needed.
//
// Storage: kSets sets of kBlocks slots of kWords 64-bit words (256 KiB), a
// static array (zero when the module loads; one per module and device
// context).
// A launch with grid id g (PTX %gridid: the launch number of the grid in its
// context) uses set g mod kSets, with tag t(g) = floor(g / kSets) + 1
// (mod 2^32), never 0 before g reaches 2^40, so the zeroed array reads as
// unpublished. Every eager launch gets a grid id of its own, counting up;
// a kernel node of a CUDA graph keeps the one it got at instantiation for
// every replay (bench/grid_sweep checks both on the GPU), so these flags
// serve eager launches only (a captured grid scan passes its values through
// temp and a grid barrier instead: grid_scan.cuh).
//
// Words: as in lookback.cuh, each 64-bit word carries the 32-bit tag and 32
// bits of the value (64-bit aligned accesses are single-copy atomic: a word
// is never torn). A value counts as published when every one of its words
// carries this launch's tag. One-word values are written with one
// st.relaxed.gpu and read with one ld.relaxed.gpu; a two-word slot (16-byte
// aligned) with one 16-byte st.relaxed.gpu.v2 and one ld.relaxed.gpu.v2, so
// both words travel together. PTX does not promise that the pair is
// single-copy atomic as a whole, which is why each word keeps its own tag:
// a reader that catches one word without the other sees "not yet". Nothing
// but the value itself passes between blocks, so no fences are needed.
//
// Why a slot cannot mislead:
//  * another launch's value: its words carry its own tag. A slot last
//    written by launch g' reads as published for launch g only when
//    g' = g (mod 2^40): 2^40 launches apart in one context (12 days at a
//    million launches a second) with no launch of the same set in between.
//  * a concurrent launch of the same set, overwriting a slot before its
//    reader saw it: sets are taken by g mod 256, so two eager launches
//    would be at least 256 grid ids apart while both run. The scan is
//    launched cooperatively (every block resident at once, grid_scan.cuh),
//    so it lives for a few microseconds; 256 launches in that time is
//    beyond what a context can issue.
#pragma once

#include <cstdint>
#include "libscan/cuda/lookback.cuh"

namespace libscan {
namespace detail {

struct GridFlagsLayout {
    static constexpr unsigned kSets = 256;  // a power of two: the set is g mod kSets
    static constexpr int kSetShift = 8;     // log2(kSets)
    static constexpr int kBlocks = 64;      // most blocks that may publish in one launch
    static constexpr int kWords = 2;        // values of up to 8 bytes
};

// The table. A function-local static, so that only modules that launch the
// grid scan carry it (256 KiB), not every one that includes this header.
__device__ inline unsigned long long *grid_flag_table() {
    // 16-byte aligned: a two-word slot is written and read as one vector.
    __align__(16) static unsigned long long
        table[GridFlagsLayout::kSets * GridFlagsLayout::kBlocks * GridFlagsLayout::kWords];
    return table;
}

// A two-word slot as one 16-byte access (see Words above).
__device__ __forceinline__ void st_relaxed_v2(unsigned long long *p, unsigned long long a, unsigned long long b) {
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}
__device__ __forceinline__ void ld_relaxed_v2(const unsigned long long *p, unsigned long long &a,
                                              unsigned long long &b) {
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

template <typename T> struct GridFlags {
    using L = GridFlagsLayout;
    static constexpr int kWords = Words<T>::N;
    static_assert(kWords <= L::kWords, "libscan: grid flags hold values of up to 8 bytes");

    unsigned long long *slots; // this launch's set
    unsigned tag;

    static __device__ __forceinline__ unsigned long long grid_id() {
        unsigned long long g;
        asm("mov.u64 %0, %%gridid;" : "=l"(g));
        return g;
    }
    // The set and tag of the calling launch.
    static __device__ __forceinline__ GridFlags current() {
        const unsigned long long g = grid_id();
        return GridFlags{grid_flag_table() + (g & (L::kSets - 1)) * L::kBlocks * L::kWords,
                         static_cast<unsigned>(g >> L::kSetShift) + 1u};
    }

    __device__ __forceinline__ void publish(unsigned block, const T &value) const {
        const Words<T> w = to_words(value);
        unsigned long long *slot = slots + block * L::kWords;
        if constexpr (kWords == 2) {
            st_relaxed_v2(slot, (static_cast<unsigned long long>(w.w[0]) << 32) | tag,
                          (static_cast<unsigned long long>(w.w[1]) << 32) | tag);
        } else {
            st_relaxed(slot, (static_cast<unsigned long long>(w.w[0]) << 32) | tag);
        }
    }
    // True (and the values) once blocks first .. first+K-1 of this launch
    // have published; v[k] = `none` for first+k >= limit, which is not read.
    // A poll must cost one round trip to L2 whatever K and the size of T:
    // for values of two words, every slot's 16-byte load is issued before
    // any is examined (checking each slot as it arrived let ptxas hold the
    // last load behind the first slot's compares, two round trips per poll:
    // 2^16 u64 scans spent ~0.13 us more). One 16-byte access per slot
    // rather than two 8-byte ones took a further ~0.17 us off the 2^16 u64
    // scan's device time. Both measured as bench/grid_sweep measures device
    // time (calls queued behind a sleeping kernel), on probes of this kernel.
    // One-word values keep the per-slot form: its SASS also issues both
    // loads first, and it measured ~0.12 us faster there than the
    // loads-first form, whose loop differs only in register moves.
    template <int K>
    __device__ __forceinline__ bool try_load(unsigned first, unsigned limit, T (&v)[K], const T &none) const {
        bool ok = true;
        if constexpr (kWords == 1) {
#pragma unroll
            for (int k = 0; k < K; ++k) {
                v[k] = none;
                if (first + k < limit) {
                    const unsigned long long raw = ld_relaxed(slots + (first + k) * L::kWords);
                    Words<T> w;
                    w.w[0] = static_cast<unsigned>(raw >> 32);
                    v[k] = from_words<T>(w);
                    ok &= static_cast<unsigned>(raw) == tag;
                }
            }
        } else {
            unsigned long long raw[K][kWords];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                raw[k][0] = raw[k][1] = tag;
                if (first + k < limit) ld_relaxed_v2(slots + (first + k) * L::kWords, raw[k][0], raw[k][1]);
            }
#pragma unroll
            for (int k = 0; k < K; ++k) {
                Words<T> w;
#pragma unroll
                for (int i = 0; i < kWords; ++i) {
                    w.w[i] = static_cast<unsigned>(raw[k][i] >> 32);
                    ok &= static_cast<unsigned>(raw[k][i]) == tag;
                }
                v[k] = first + k < limit ? from_words<T>(w) : none;
            }
        }
        return ok;
    }
};

} // namespace detail
} // namespace libscan
