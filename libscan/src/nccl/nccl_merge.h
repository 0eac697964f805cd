/* nccl_merge.h -- the stable merge of two sorted runs that ends
 * libscan_nccl_sort (nccl_kernels.cu launches it; tests/nccl/test_nccl_merge.cpp
 * runs the same code on the host). Header-only C++, host and device.
 *
 * Runs A and B lie one after the other; the merged run is written at the
 * same place of another buffer. Output element d is found by the merge path:
 * the number of A's elements among the first d outputs, with A winning ties
 * (A holds the lower ranks' keys, so ties keep (rank, position)). Each
 * thread finds the path at its first output and then merges its ITEMS
 * outputs sequentially. Keys are compared through `map` (the key map: a
 * callable giving the mapped 64-bit key, whose unsigned order is the sort's
 * order). */
#ifndef LIBSCAN_NCCL_MERGE_H
#define LIBSCAN_NCCL_MERGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define LIBSCAN__MERGE_HD __host__ __device__
#else
#define LIBSCAN__MERGE_HD
#endif

namespace libscan::nccl_merge {

// The number of A's elements among the first d outputs (0 <= d <= na + nb).
template <typename K, class Map>
LIBSCAN__MERGE_HD size_t path(const K *a, size_t na, const K *b, size_t nb, size_t d, const Map &map) {
    size_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        // a[mid] is among the first d outputs iff fewer than d - mid elements of
        // B come before it, i.e. b[d - 1 - mid] does not (ties: A first).
        if (map(a[mid]) <= map(b[d - 1 - mid]))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// Outputs [d0, d0 + items) of the merge (clipped at na + nb), keys and,
// when va is not NULL, values of type V alongside.
template <typename K, typename V, class Map>
LIBSCAN__MERGE_HD void merge_items(const K *a, const V *va, size_t na, const K *b, const V *vb, size_t nb, K *out,
                                   V *vout, size_t d0, size_t items, const Map &map) {
    const size_t n = na + nb;
    if (d0 >= n) return;
    const size_t end = d0 + items < n ? d0 + items : n;
    size_t i = path(a, na, b, nb, d0, map), j = d0 - i;
    for (size_t d = d0; d < end; ++d) {
        const bool take_a = j >= nb || (i < na && map(a[i]) <= map(b[j]));
        if (take_a) {
            out[d] = a[i];
            if (va) vout[d] = va[i];
            ++i;
        } else {
            out[d] = b[j];
            if (va) vout[d] = vb[j];
            ++j;
        }
    }
}

} // namespace libscan::nccl_merge

#endif
