/* test_sort_counting.c -- the counting-sort short path of the GPU sort (label
 * gpu): U8 and U16 keys without values over the whole key (sort_launch.cu,
 * counting_sort.cuh), taken at every size through the tests' switch
 * (libscan__sort_force_path), and once each where the library chooses it
 * itself (U16 from 2^24 keys). Against qsort of the same keys: uniform keys, one key
 * value, the two extreme values only (a fill block spans all digits between
 * them), every U16 value once, one value in every 16 (U8) or 256 (U16);
 * ascending and descending; sizes around the 16-byte vectors, fill tiles and
 * 2^16, and past the GPU's resident fill blocks (each then fills several
 * tiles); input and output pointers off the
 * 16-byte boundary by 1 and 3 keys (the scalar head, tail and stores); the
 * double buffer, in place for U16 (two passes: the result is the input
 * buffer). Outputs are poisoned before every sort. */
#include "support/harness.h"
#include <libscan/sort.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { D_UNIFORM, D_ONE_VALUE, D_EXTREMES, D_EVERY_VALUE, D_SPARSE, D_COUNT };

/* sort_internal.h's switch (libscan_static exports it): 0 the library's
 * choice, 2 the counting sort wherever it applies. */
void libscan__sort_force_path(int path);
enum { PATH_AUTO = 0, PATH_COUNTING = 2 };

static int cmp_u8(const void *a, const void *b) { return (int)*(const uint8_t *)a - (int)*(const uint8_t *)b; }
static int cmp_u16(const void *a, const void *b) { return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b; }

/* The expected output: qsort ascending, reversed for descending. */
static void reference(unsigned char *k, size_t n, size_t ks, int desc) {
    qsort(k, n, ks, ks == 1 ? cmp_u8 : cmp_u16);
    if (!desc) return;
    for (size_t i = 0, j = n ? n - 1 : 0; i < j; ++i, --j) {
        unsigned char t[2];
        memcpy(t, k + i * ks, ks);
        memcpy(k + i * ks, k + j * ks, ks);
        memcpy(k + j * ks, t, ks);
    }
}

static void fill(rng_t *r, unsigned char *k, size_t n, size_t ks, int dist) {
    const unsigned max = ks == 1 ? 0xffu : 0xffffu;
    const unsigned one = rng_u32(r) & max;
    for (size_t i = 0; i < n; ++i) {
        unsigned v = rng_u32(r) & max;
        if (dist == D_ONE_VALUE) v = one;
        if (dist == D_EXTREMES) v = (v & 1) ? max : 0;
        if (dist == D_EVERY_VALUE) v = (unsigned)((i * 40503u) & max); /* odd multiplier: a permutation mod 2^16 */
        /* The last value of each run of 256 (16-bit) or 16 (8-bit) values: the
         * fill's sample of the starts (every 256th U16 start) then brackets
         * runs of empty digits. */
        if (dist == D_SPARSE) v = ks == 1 ? ((v & 0x0fu) << 4) | 0x0fu : ((v & 0xffu) << 8) | 0xffu;
        memcpy(k + i * ks, &v, ks); /* little-endian: the low bytes */
    }
}

/* One sort: out of place with keys at in_off / out_off keys past cudaMalloc's
 * alignment, or the double buffer (offsets 0). */
static void one_case(libscan_dtype_t key, int dist, int desc, size_t n, size_t in_off, size_t out_off,
                     int double_buffer, uint64_t idx) {
    const size_t ks = libscan_dtype_size(key), slack = 8;
    rng_t r;
    rng_init(&r, "sort-counting", idx);
    unsigned char *keys = malloc(n * ks + 1), *want = malloc(n * ks + 1), *got = malloc(n * ks + 1);
    assert_true(keys && want && got);
    fill(&r, keys, n, ks, dist);
    memcpy(want, keys, n * ks);
    reference(want, n, ks, desc);

    unsigned char *d_in = NULL, *d_out = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_in, (n + slack) * ks));
    CUDA_CHECK(cudaMalloc((void **)&d_out, (n + slack) * ks));
    CUDA_CHECK(cudaMemcpy(d_in + in_off * ks, keys, n * ks, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0xAB, (n + slack) * ks));
    CUDA_SYNC();
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = desc;
    const unsigned char *res = d_out + out_off * ks;
    if (double_buffer) {
        libscan_double_buffer_t db = {{d_in, d_out}, {NULL, NULL}, 0};
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_double_buffer(&db, n, key, 0, &o, 0));
        assert_int_equal(db.selector, libscan_sort_num_passes(key, 0, 0) & 1);
        res = db.d_keys[db.selector];
    } else {
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(d_in + in_off * ks, d_out + out_off * ks, NULL, NULL, n, key, 0, &o, 0));
    }
    CUDA_SYNC();
    CUDA_CHECK(cudaMemcpy(got, res, n * ks, cudaMemcpyDeviceToHost));
    if (memcmp(got, want, n * ks)) {
        size_t i = 0;
        while (memcmp(got + i * ks, want + i * ks, ks) == 0) ++i;
        TFAIL("%s dist %d %s n=%zu offsets %zu/%zu%s: first difference at %zu", libscan_dtype_name(key), dist,
              desc ? "desc" : "asc", n, in_off, out_off, double_buffer ? " double buffer" : "", i);
    }
    if (!double_buffer) { /* nothing written around the output */
        unsigned char edge[16];
        CUDA_CHECK(cudaMemcpy(edge, d_out, out_off * ks, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < out_off * ks; ++i) assert_int_equal(edge[i], 0xAB);
        CUDA_CHECK(cudaMemcpy(edge, d_out + (out_off + n) * ks, ks, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < ks; ++i) assert_int_equal(edge[i], 0xAB);
    }
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(keys);
    free(want);
    free(got);
}

static void test_counting_sort_against_qsort(void **state) {
    (void)state;
    test_require_gpu();
    const libscan_dtype_t keys_of[2] = {LIBSCAN_U8, LIBSCAN_U16};
    const size_t sizes[] = {2, 15, 17, 31, 33, 4095, 4097, 8193, 65536, 65541, ((size_t)1 << 20) + 3};
    const size_t offsets[3][2] = {{0, 0}, {1, 3}, {3, 1}};
    uint64_t idx = 0;
    libscan__sort_force_path(PATH_COUNTING);
    for (int k = 0; k < 2; ++k)
        for (int d = 0; d < D_COUNT; ++d)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
                for (int o = 0; o < 3; ++o, ++idx) {
                    const size_t n = test_capped_n(sizes[s], 1);
                    one_case(keys_of[k], d, (int)(idx & 1), n, offsets[o][0], offsets[o][1], 0, idx);
                }
    libscan__sort_force_path(PATH_AUTO);
}

/* The library's own choice at sizes where it takes the counting sort. */
static void test_counting_sort_chosen(void **state) {
    (void)state;
    test_require_gpu();
    libscan__sort_force_path(PATH_AUTO); /* also after a failed test that forced the counting sort */
    one_case(LIBSCAN_U8, D_UNIFORM, 0, test_capped_n(100003, 1), 1, 0, 0, 2000);
    one_case(LIBSCAN_U16, D_UNIFORM, 1, test_capped_n(((size_t)1 << 24) + 5, 1), 0, 1, 0, 2001);
}

/* More tiles than fill_kernel has resident blocks (132 SMs x 8 blocks x 8192
 * U8 or 4096 U16 outputs: 8.7M / 4.3M keys on an H200), so that blocks fill
 * several tiles each, with runs of every length. */
static void test_counting_sort_many_tiles_per_block(void **state) {
    (void)state;
    test_require_gpu();
    const libscan_dtype_t keys_of[2] = {LIBSCAN_U8, LIBSCAN_U16};
    const int dists[3] = {D_UNIFORM, D_EXTREMES, D_SPARSE};
    uint64_t idx = 3000;
    libscan__sort_force_path(PATH_COUNTING);
    for (int k = 0; k < 2; ++k)
        for (int d = 0; d < 3; ++d, ++idx)
            one_case(keys_of[k], dists[d], (int)(idx & 1), test_capped_n(((size_t)1 << 24) + 5, 1), idx % 2,
                     (idx / 2) % 2 * 3, 0, idx);
    libscan__sort_force_path(PATH_AUTO);
}

static void test_counting_sort_double_buffer(void **state) {
    (void)state;
    test_require_gpu();
    const libscan_dtype_t keys_of[2] = {LIBSCAN_U8, LIBSCAN_U16};
    uint64_t idx = 1000;
    libscan__sort_force_path(PATH_COUNTING);
    for (int k = 0; k < 2; ++k)
        for (int desc = 0; desc < 2; ++desc, ++idx)
            one_case(keys_of[k], D_UNIFORM, desc, test_capped_n(300007, 1), 0, 0, 1, idx);
    libscan__sort_force_path(PATH_AUTO);
}

int main(void) {
    test_begin("test_sort_counting");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counting_sort_against_qsort),
        cmocka_unit_test(test_counting_sort_double_buffer),
        cmocka_unit_test(test_counting_sort_chosen),
        cmocka_unit_test(test_counting_sort_many_tiles_per_block),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
