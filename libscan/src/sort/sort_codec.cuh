// sort_codec.cuh -- the key map of sort.h's "Order" for a dtype and a
// direction (onesweep.cuh's Codec), shared by the launchers of the sort
// (sort_launch.cu) and of the segmented sort (segsort_launch.cu), so both
// order keys the same way.
#pragma once

#include <libscan/libscan.h>

#include "libscan/cuda/onesweep.cuh"

namespace libscan::sort {

// Signed integers flip the sign bit; floats flip the sign bit and, for
// negative values, every other bit (IEEE total order); descending flips all.
template <typename K> inline Codec<K> make_codec(libscan_dtype_t key, bool descending) {
    const K sign = static_cast<K>(K(1) << (sizeof(K) * 8 - 1));
    Codec<K> c{K(0), K(0)};
    if (key == LIBSCAN_I32 || key == LIBSCAN_I64) c.xor_all = sign;
    if (key == LIBSCAN_F32 || key == LIBSCAN_F64) {
        c.xor_all = sign;
        c.xor_neg = static_cast<K>(~sign);
    }
    if (descending) c.xor_all = static_cast<K>(~c.xor_all);
    return c;
}

} // namespace libscan::sort
