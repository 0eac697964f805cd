// tile_stage.cuh -- a per-warp shared-memory staging area between the
// warp-striped arrangement of 16-byte coalesced loads and stores and the
// blocked arrangement in which each lane holds consecutive elements.
//
// Why: the device scan (device_scan.cuh) and the head-flag scan
// (flag_scan.cuh) fold and rescan each lane's IPT consecutive elements, and
// keep them here, not in registers, while the tile waits on its look-back:
// fewer registers, so more tiles resident per SM to hide that wait.
//
// Layout. A warp's elements of a tile are contiguous (block_scan.cuh:
// warp-striped vectors), so the transpose never leaves the warp: a
// __syncwarp() between writing and reading is all the synchronisation it
// needs. The area of a warp holds 32*U 16-byte units, U = IPT*sizeof(T)/16
// per lane; striped vector k of lane l is unit k*32 + l, blocked unit j of
// lane l is unit l*U + j (element order both ways).
//
// Swizzle. Unit u is stored at slot u ^ g(u >> 3), g(r) = r & (U-1) for
// U <= 8 and (r / (U/8)) & 7 above. It changes only the low three bits by a
// function of the others, so it permutes each aligned group of 8 slots. A
// 16-byte shared access is served in quarter warps of 8 lanes, conflict-free
// when their 8 slots differ mod 8: striped accesses (unit k*32 + l) have one
// row u >> 3 per quarter warp, so one g and 8 different low bits; blocked
// accesses (unit l*U + j) have U rows of 8/U lanes each (U <= 8) or one row
// per lane (U >= 8), and g(row) makes their low bits differ. Both hold for U
// a power of two (U = 8 with the tuned shapes: 128 bytes per lane); other U
// are correct, only slower.
#pragma once

#include <cstdint>
#include "libscan/cuda/warp_scan.cuh"

namespace libscan {
namespace detail {

template <typename T, int IPT> struct WarpStage {
    static_assert((IPT * sizeof(T)) % 16 == 0, "libscan: a lane's items must fill whole 16-byte units");
    static constexpr int U = int(IPT * sizeof(T) / 16);
    static constexpr int kWarpUnits = kWarpThreads * U;

    static __device__ __forceinline__ int slot(int u) {
        const int row = u >> 3;
        const int g = U <= 8 ? (row & (U - 1)) : ((row / (U / 8)) & 7);
        return u ^ g;
    }
    // Blocked unit j of this lane (elements lane*IPT + j*16/sizeof(T) ...).
    static __device__ __forceinline__ T *unit(uint4 *area, int j) {
        return reinterpret_cast<T *>(area + slot(lane_id() * U + j));
    }
    // Striped vector k of this lane, as loaded by load_tile (device_scan.cuh).
    static __device__ __forceinline__ T *striped(uint4 *area, int k) {
        return reinterpret_cast<T *>(area + slot(k * kWarpThreads + lane_id()));
    }
};

} // namespace detail
} // namespace libscan
