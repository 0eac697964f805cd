// test_nccl_merge.cpp -- the merge that ends libscan_nccl_sort
// (libscan/src/nccl/nccl_merge.h), run on the host (label cpu: no GPU, no
// NCCL): the merge path and each thread's sequential merge, over every
// thread start the kernel uses (outputs in steps of ITEMS = 1, 3 and 8, as
// the kernel's threads take them), whole and cut into tiles at paths as the
// kernel cuts them, for run lengths 0, 1, around ITEMS and
// thousands, keys with few distinct values (many ties across the runs), and
// a descending key map. Expected: std::stable_sort of the concatenation by
// the mapped key (A before B on ties), values following their keys.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

// harness.h has no extern "C" of its own: its C++-aware dependencies first,
// then its own declarations with C linkage.
#include <cuda_runtime_api.h>
#include "libscan/libscan.h"
#include "support/cm.h"
#include "support/rng.h"
extern "C" {
#include "support/harness.h"
}
#include "nccl/nccl_merge.h"

namespace {

struct Asc {
    uint64_t operator()(uint32_t x) const { return x; }
};
struct Desc { // the descending sort's map: the complement
    uint64_t operator()(uint8_t x) const { return uint8_t(~x); }
};

template <typename K, class Map>
void check(size_t na, size_t nb, unsigned distinct, size_t items, const Map &map, uint64_t idx) {
    rng_t r;
    rng_init(&r, "nccl-merge", idx);
    std::vector<K> keys(na + nb);
    std::vector<uint64_t> vals(na + nb);
    for (size_t i = 0; i < na + nb; ++i) {
        keys[i] = K(rng_below(&r, distinct));
        vals[i] = i;
    }
    // each run sorted by the map, stably (as the sort leaves them)
    auto by_map = [&](size_t x, size_t y) { return map(keys[x]) < map(keys[y]); };
    std::vector<size_t> order(na + nb);
    for (size_t i = 0; i < na + nb; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.begin() + long(na), by_map);
    std::stable_sort(order.begin() + long(na), order.end(), by_map);
    std::vector<K> src(na + nb);
    std::vector<uint64_t> vsrc(na + nb);
    for (size_t i = 0; i < na + nb; ++i) src[i] = keys[order[i]], vsrc[i] = vals[order[i]];
    // expected: the stable sort of the concatenation of the two runs
    std::vector<size_t> want(na + nb);
    for (size_t i = 0; i < na + nb; ++i) want[i] = i;
    std::stable_sort(want.begin(), want.end(), [&](size_t x, size_t y) { return map(src[x]) < map(src[y]); });
    std::vector<K> out(na + nb + 1, K(0x5A));
    std::vector<uint64_t> vout(na + nb + 1, ~uint64_t(0));
    for (size_t d0 = 0; d0 < na + nb; d0 += items)
        libscan::nccl_merge::merge_items(src.data(), vsrc.data(), na, src.data() + na, vsrc.data() + na, nb,
                                         out.data(), vout.data(), d0, items, map);
    for (size_t i = 0; i < na + nb; ++i)
        if (out[i] != src[want[i]] || vout[i] != vsrc[want[i]])
            TFAIL("merge na=%zu nb=%zu distinct=%u items=%zu: output %zu differs (value %llu, expected %llu)", na, nb,
                  distinct, items, i, (unsigned long long)vout[i], (unsigned long long)vsrc[want[i]]);
    if (vout[na + nb] != ~uint64_t(0)) TFAIL("merge na=%zu nb=%zu: wrote past the end", na, nb);
    // the kernel's tiles: paths at every tile's edge (merge_parts), then
    // each tile's slices merged on their own by threads of ITEMS outputs
    // walking them (merge_tiles), values fetched from where the key came
    for (size_t tile : {items, items * 5, size_t(2048)}) {
        std::vector<K> tout(na + nb + 1, K(0x5A));
        std::vector<uint64_t> tvout(na + nb + 1, ~uint64_t(0));
        const K *a = src.data(), *b = src.data() + na;
        for (size_t d0 = 0; d0 < na + nb; d0 += tile) {
            const size_t d1 = std::min(d0 + tile, na + nb);
            const size_t a0 = libscan::nccl_merge::path(a, na, b, nb, d0, map);
            const size_t a1 = libscan::nccl_merge::path(a, na, b, nb, d1, map);
            const size_t b0 = d0 - a0, b1 = d1 - a1;
            for (size_t t0 = 0; t0 < d1 - d0; t0 += items)
                libscan::nccl_merge::merge_walk(a + a0, a1 - a0, b + b0, b1 - b0, t0, items, map,
                                                [&](size_t d, bool from_a, size_t k) {
                                                    tout[d0 + d] = from_a ? a[a0 + k] : b[b0 + k];
                                                    tvout[d0 + d] = from_a ? vsrc[a0 + k] : vsrc[na + b0 + k];
                                                });
        }
        for (size_t i = 0; i < na + nb; ++i)
            if (tout[i] != src[want[i]] || tvout[i] != vsrc[want[i]])
                TFAIL("tiled merge na=%zu nb=%zu distinct=%u items=%zu tile=%zu: output %zu differs", na, nb, distinct,
                      items, tile, i);
        if (tvout[na + nb] != ~uint64_t(0)) TFAIL("tiled merge na=%zu nb=%zu: wrote past the end", na, nb);
    }
    // keys only (no values)
    std::vector<K> out2(na + nb + 1, K(0x5A));
    for (size_t d0 = 0; d0 < na + nb; d0 += items)
        libscan::nccl_merge::merge_items<K, uint64_t>(src.data(), nullptr, na, src.data() + na, nullptr, nb,
                                                      out2.data(), nullptr, d0, items, map);
    for (size_t i = 0; i < na + nb; ++i)
        if (out2[i] != src[want[i]]) TFAIL("keys-only merge na=%zu nb=%zu: output %zu differs", na, nb, i);
}

void test_merge(void **state) {
    (void)state;
    const size_t lens[] = {0, 1, 2, 7, 8, 9, 100, 4099};
    const unsigned distinct[] = {1, 2, 16, 1u << 30};
    const size_t items[] = {1, 3, 8};
    uint64_t idx = 0;
    for (size_t a : lens)
        for (size_t b : lens)
            for (unsigned d : distinct)
                for (size_t it : items) {
                    check<uint32_t>(a, b, d, it, Asc(), idx++);
                    check<uint8_t>(a, b, d > 256 ? 256 : d, it, Desc(), idx++);
                }
}

} // namespace

int main(void) {
    test_begin("test_nccl_merge");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_merge)};
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
