// cluster_mailbox.cuh -- one-way sends of a value between the blocks of a
// thread-block cluster (sm_90+), for cluster_scan.cuh.
//
// Why: a cluster barrier followed by reads of the other blocks' shared memory
// costs two cluster-wide round trips, and every warp reading every earlier
// block's aggregate queues many remote requests on the same few words. Here
// each block owns a mailbox in its shared memory: CLUSTER slots and an
// mbarrier. A sender writes its value straight into the receiver's slot with
// st.async, which also counts the bytes on the receiver's mbarrier; the
// receiver learns that every expected value has landed by waiting on its own
// mbarrier, a local wait. One one-way trip per value, no remote reads.
//
// Protocol (every call below by every thread of the block unless noted):
//   open(expected)   thread 0 only: initialise the mbarrier and declare that
//                    `expected` values will arrive; then every thread calls
//                    arrive_opened() once -- the cluster barrier's first half.
//   wait_all_opened() before the first send: the second half, so that no
//                    st.async reaches an mbarrier that is not initialised.
//   send(v, slot, to) any thread: v into slot `slot` of block `to`.
//   wait()           returns once all `expected` values have landed (acquire
//                    at cluster scope: their contents are then visible).
//   take(slot)       read a landed value.
// Each mailbox is used for one round only (one mbarrier phase). A receiver
// does not exit before its values land (it waits for them), so no block's
// shared memory is written after it exits; senders may exit at once.
#pragma once

#include <cstdint>
#include <cstring>

namespace libscan {
namespace detail {

template <typename T, int CLUSTER> struct ClusterMailbox {
    static constexpr int kWords = int((sizeof(T) + 3) / 4); // values travel as 32-bit words
    static constexpr unsigned kBytes = 4u * kWords; // counted on the mbarrier per value
    struct alignas(kWords % 2 == 0 ? 8 : 4) Slot {
        uint32_t w[kWords];
    };
    Slot slot[CLUSTER];
    alignas(8) uint64_t landed; // mbarrier: one arrival (open) plus the expected bytes

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    static __device__ __forceinline__ uint32_t smem(const void *p) {
        return static_cast<uint32_t>(__cvta_generic_to_shared(p));
    }

    __device__ __forceinline__ void open(unsigned expected) {
        const uint32_t bar = smem(&landed);
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                     "r"(expected * kBytes) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    static __device__ __forceinline__ void arrive_opened() {
        asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    }
    static __device__ __forceinline__ void wait_all_opened() {
        asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    }

    __device__ __forceinline__ void send(const T &v, int s, unsigned to) {
        Slot x{};
        memcpy(&x, &v, sizeof(T));
        uint32_t dst, bar;
        asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(smem(&slot[s])), "r"(to));
        asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(bar) : "r"(smem(&landed)), "r"(to));
        if constexpr (kWords % 2 == 0) {
#pragma unroll
            for (int i = 0; i < kWords; i += 2) {
                const uint64_t d = uint64_t(x.w[i]) | (uint64_t(x.w[i + 1]) << 32);
                asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];" ::"r"(
                                 dst + 4u * unsigned(i)),
                             "l"(d), "r"(bar)
                             : "memory");
            }
        } else {
#pragma unroll
            for (int i = 0; i < kWords; ++i)
                asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(
                                 dst + 4u * unsigned(i)),
                             "r"(x.w[i]), "r"(bar)
                             : "memory");
        }
    }

    __device__ __forceinline__ void wait() const {
        const uint32_t bar = smem(&landed);
        uint32_t done = 0;
        do {
            asm volatile("{\n\t.reg .pred p;\n\t"
                         "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\t"
                         "selp.u32 %0, 1, 0, p;\n\t}"
                         : "=r"(done)
                         : "r"(bar)
                         : "memory");
        } while (!done);
    }

    __device__ __forceinline__ T take(int s) const {
        T v;
        memcpy(&v, &slot[s], sizeof(T));
        return v;
    }
#endif
};

} // namespace detail
} // namespace libscan
