/* nccl_merge.h -- the stable merge of two sorted runs that ends
 * libscan_nccl_sort (nccl_kernels.cu launches it; tests/nccl/test_nccl_merge.cpp
 * runs the same code on the host). Header-only C++, host and device.
 *
 * Output element d of the merge of runs A and B is found by the merge path:
 * the number of A's elements among the first d outputs, with A winning ties
 * (A holds the lower ranks' keys, so ties keep (rank, position)). The
 * kernel cuts the output into tiles at paths found in global memory, loads
 * a tile's slices of A and B into shared memory, and each thread there finds
 * the path at its first output and walks its ITEMS outputs sequentially. Keys are compared through `map` (the key map: a
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

// Walks outputs [d0, d0 + items) of the merge (clipped at na + nb), calling
// emit(d, from_a, index) for each: output d is a[index] when from_a, else
// b[index]. The kernel's tiles walk their slice of the runs (held in shared
// memory) this way; merge_items below is the same walk over whole runs.
template <typename K, class Map, class Emit>
LIBSCAN__MERGE_HD void merge_walk(const K *a, size_t na, const K *b, size_t nb, size_t d0, size_t items,
                                  const Map &map, Emit &&emit) {
    const size_t n = na + nb;
    if (d0 >= n) return;
    const size_t end = d0 + items < n ? d0 + items : n;
    size_t i = path(a, na, b, nb, d0, map), j = d0 - i;
    for (size_t d = d0; d < end; ++d) {
        const bool take_a = j >= nb || (i < na && map(a[i]) <= map(b[j]));
        emit(d, take_a, take_a ? i++ : j++);
    }
}

// Outputs [d0, d0 + items) of the merge (clipped at na + nb), keys and,
// when va is not NULL, values of type V alongside.
template <typename K, typename V, class Map>
LIBSCAN__MERGE_HD void merge_items(const K *a, const V *va, size_t na, const K *b, const V *vb, size_t nb, K *out,
                                   V *vout, size_t d0, size_t items, const Map &map) {
    merge_walk(a, na, b, nb, d0, items, map, [&](size_t d, bool from_a, size_t k) {
        out[d] = from_a ? a[k] : b[k];
        if (va) vout[d] = from_a ? va[k] : vb[k];
    });
}

} // namespace libscan::nccl_merge

#endif
