/* consumer.c -- a C99 program that uses every family of libscan's C API
 * (scan, segmented scan, sort, compaction, SAT) as an outside project would.
 * It checks that the public headers compile as C, that the library links and
 * that the host-only functions (temp queries, the CPU versions of sort,
 * compaction and SAT) answer right; then, if a GPU is present, it runs one
 * call of every family and checks the results against loops of its own.
 * Without a GPU it says "no GPU, skipped run" and exits 0: this program
 * tests building and linking. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <libscan/libscan.h>
#include <libscan/sort.h>
#include <libscan/compact.h>
#include <libscan/sat.h>

static int failures = 0;

#define CHECK(cond)                                                                                                   \
    do {                                                                                                              \
        if (!(cond)) {                                                                                                \
            fprintf(stderr, "consumer: check failed at line %d: %s\n", __LINE__, #cond);                              \
            ++failures;                                                                                               \
        }                                                                                                             \
    } while (0)

#define N 1000
#define W 37 /* SAT image: odd sizes */
#define H 23

/* A small LCG of our own, so the inputs do not depend on libc's rand(). */
static uint32_t next(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static int cmp_u32(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The SAT of a W x H one-channel 8-bit image, by the definition. */
static void sat_by_definition(const uint8_t *img, uint32_t *sat) {
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            uint32_t s = 0;
            for (int j = 0; j <= y; ++j)
                for (int i = 0; i <= x; ++i) s += img[j * W + i];
            sat[y * W + x] = s;
        }
}

static void host_checks(void) {
    CHECK(libscan_version() == LIBSCAN_VERSION);
    CHECK(strcmp(libscan_version_string(), LIBSCAN_VERSION_STRING) == 0);
    CHECK(libscan_status_string(LIBSCAN_SUCCESS) != NULL);
    CHECK(libscan_status_string((libscan_status_t)12345) != NULL);
    CHECK(libscan_dtype_size(LIBSCAN_I64) == sizeof(int64_t));
    CHECK(libscan_dtype_size(LIBSCAN_U8) == 1);
    CHECK(strcmp(libscan_op_name(LIBSCAN_OP_MAX), "max") == 0);

    /* scan and segmented scan: the temp queries; argument errors decided
     * before anything touches the device */
    size_t temp = 0;
    CHECK(libscan_scan_temp_bytes(1u << 20, LIBSCAN_U32, &temp) == LIBSCAN_SUCCESS && temp > 0);
    CHECK(libscan_scan_temp_bytes(1, LIBSCAN_U32, NULL) == LIBSCAN_ERROR_NULL_POINTER);
    CHECK(libscan_inclusive_scan(NULL, NULL, 10, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0) ==
          LIBSCAN_ERROR_NULL_POINTER);
    CHECK(libscan_segmented_temp_bytes(1u << 20, LIBSCAN_F32, LIBSCAN_SEGMENTS_FLAGS, &temp) == LIBSCAN_SUCCESS);
    CHECK(libscan_segmented_inclusive_scan(NULL, NULL, 10, NULL, LIBSCAN_F32, LIBSCAN_OP_SUM, NULL, 0) ==
          LIBSCAN_ERROR_NULL_POINTER);

    /* sort: the temp query and the CPU sort */
    CHECK(libscan_sort_temp_bytes(N, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &temp) == LIBSCAN_SUCCESS);
    CHECK(libscan_sort_num_passes(LIBSCAN_U32, 0, 0) == 4);
    uint32_t keys[N], want[N], s = 1;
    for (int i = 0; i < N; ++i) keys[i] = want[i] = next(&s);
    qsort(want, N, sizeof want[0], cmp_u32);
    CHECK(libscan_cpu_sort(keys, NULL, N, LIBSCAN_U32, 0, NULL) == LIBSCAN_SUCCESS);
    CHECK(memcmp(keys, want, sizeof keys) == 0);

    /* compaction: the temp query and the CPU select */
    CHECK(libscan_compact_temp_bytes(N, LIBSCAN_I32, &temp) == LIBSCAN_SUCCESS);
    int32_t vals[N], sel[N], sel_want[N];
    size_t kept = 0, kept_want = 0;
    for (int i = 0; i < N; ++i) {
        vals[i] = (int32_t)(next(&s) % 11) - 5;
        if (vals[i] > 2) sel_want[kept_want++] = vals[i];
    }
    libscan_pred_t gt2;
    memset(&gt2, 0, sizeof gt2);
    gt2.kind = LIBSCAN_PRED_GT;
    gt2.value.i = 2;
    CHECK(libscan_cpu_select_if(vals, sel, &kept, N, LIBSCAN_I32, &gt2, NULL) == LIBSCAN_SUCCESS);
    CHECK(kept == kept_want && memcmp(sel, sel_want, kept * sizeof sel[0]) == 0);

    /* SAT: the temp query and the CPU table */
    CHECK(libscan_sat_temp_bytes(W, H, 1, LIBSCAN_U32, &temp) == LIBSCAN_SUCCESS && temp > 0);
    static uint8_t img[W * H];
    static uint32_t table[W * H], table_want[W * H];
    for (int i = 0; i < W * H; ++i) img[i] = (uint8_t)next(&s);
    sat_by_definition(img, table_want);
    libscan_sat_image_t in = {img, LIBSCAN_U8, 1, W, H, W};
    libscan_sat_image_t out = {table, LIBSCAN_U32, 1, W, H, W * sizeof(uint32_t)};
    CHECK(libscan_cpu_sat_build(&in, &out) == LIBSCAN_SUCCESS);
    CHECK(memcmp(table, table_want, sizeof table) == 0);
}

static int gpu_present(void) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count > 0;
}

static void *dev_copy(const void *host, size_t bytes) {
    void *d = NULL;
    if (cudaMalloc(&d, bytes) != cudaSuccess) return NULL;
    if (host && cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        cudaFree(d);
        return NULL;
    }
    return d;
}

static int to_host(void *host, const void *d, size_t bytes) {
    return cudaMemcpy(host, d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
}

static void gpu_scans(void) {
    int64_t host[N], out[N];
    for (int i = 0; i < N; ++i) host[i] = (i % 7) - 2; /* -2 .. 4 */
    int64_t *d_in = dev_copy(host, sizeof host), *d_out = dev_copy(NULL, sizeof host);
    CHECK(d_in && d_out);
    if (!d_in || !d_out) return;

    libscan_status_t st = libscan_inclusive_scan(d_in, d_out, N, LIBSCAN_I64, LIBSCAN_OP_SUM, NULL, 0);
    if (st != LIBSCAN_SUCCESS) fprintf(stderr, "consumer: inclusive scan: %s\n", libscan_status_string(st));
    CHECK(st == LIBSCAN_SUCCESS);
    CHECK(to_host(out, d_out, sizeof out));
    int64_t run = 0;
    for (int i = 0; i < N; ++i) {
        run += host[i];
        if (out[i] != run) {
            fprintf(stderr, "consumer: inclusive sum [%d] = %" PRId64 ", expected %" PRId64 "\n", i, out[i], run);
            ++failures;
            break;
        }
    }

    /* Segmented inclusive sum: a segment starts at every multiple of 10. */
    unsigned char flags[N];
    for (int i = 0; i < N; ++i) flags[i] = i % 10 == 0;
    unsigned char *d_flags = dev_copy(flags, sizeof flags);
    CHECK(d_flags != NULL);
    if (d_flags) {
        st = libscan_segmented_inclusive_scan(d_in, d_out, N, d_flags, LIBSCAN_I64, LIBSCAN_OP_SUM, NULL, 0);
        CHECK(st == LIBSCAN_SUCCESS);
        CHECK(to_host(out, d_out, sizeof out));
        run = 0;
        for (int i = 0; i < N; ++i) {
            run = flags[i] ? host[i] : run + host[i];
            if (out[i] != run) {
                fprintf(stderr, "consumer: segmented sum [%d] = %" PRId64 ", expected %" PRId64 "\n", i, out[i], run);
                ++failures;
                break;
            }
        }
        cudaFree(d_flags);
    }

    /* Exclusive max with a carry-in, in place. */
    int64_t init = 3;
    libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
    opts.init = &init;
    st = libscan_exclusive_scan(d_in, d_in, N, LIBSCAN_I64, LIBSCAN_OP_MAX, &opts, 0);
    CHECK(st == LIBSCAN_SUCCESS);
    CHECK(to_host(out, d_in, sizeof out));
    CHECK(out[0] == 3);
    CHECK(out[1] == 3); /* max(3, -2) */
    CHECK(out[7] == 4); /* max(3, -2 .. 4) */
    CHECK(out[N - 1] == 4);

    cudaFree(d_in);
    cudaFree(d_out);
}

static void gpu_sort(void) {
    uint32_t keys[N], want[N], got[N], s = 7;
    for (int i = 0; i < N; ++i) keys[i] = want[i] = next(&s);
    qsort(want, N, sizeof want[0], cmp_u32);
    uint32_t *d_in = dev_copy(keys, sizeof keys), *d_out = dev_copy(NULL, sizeof keys);
    CHECK(d_in && d_out);
    if (d_in && d_out) {
        const libscan_status_t st = libscan_sort(d_in, d_out, NULL, NULL, N, LIBSCAN_U32, 0, NULL, 0);
        if (st != LIBSCAN_SUCCESS) fprintf(stderr, "consumer: sort: %s\n", libscan_status_string(st));
        CHECK(st == LIBSCAN_SUCCESS);
        CHECK(to_host(got, d_out, sizeof got));
        CHECK(memcmp(got, want, sizeof got) == 0);
    }
    cudaFree(d_in);
    cudaFree(d_out);
}

static void gpu_compact(void) {
    int32_t vals[N], got[N], want[N];
    size_t want_n = 0, got_n = 0;
    uint32_t r = 11;
    for (int i = 0; i < N; ++i) {
        vals[i] = (int32_t)(next(&r) % 11) - 5;
        if (vals[i] > 2) want[want_n++] = vals[i];
    }
    libscan_pred_t gt2;
    memset(&gt2, 0, sizeof gt2);
    gt2.kind = LIBSCAN_PRED_GT;
    gt2.value.i = 2;
    int32_t *d_in = dev_copy(vals, sizeof vals), *d_out = dev_copy(NULL, sizeof vals);
    size_t *d_n = dev_copy(NULL, sizeof(size_t));
    CHECK(d_in && d_out && d_n);
    if (d_in && d_out && d_n) {
        libscan_status_t st = libscan_select_if(d_in, d_out, d_n, N, LIBSCAN_I32, &gt2, NULL, 0);
        if (st != LIBSCAN_SUCCESS) fprintf(stderr, "consumer: select_if: %s\n", libscan_status_string(st));
        CHECK(st == LIBSCAN_SUCCESS);
        CHECK(libscan_count_to_host(d_n, &got_n, 0) == LIBSCAN_SUCCESS);
        CHECK(got_n == want_n);
        CHECK(to_host(got, d_out, sizeof got));
        CHECK(got_n == want_n && memcmp(got, want, want_n * sizeof got[0]) == 0);
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_n);
}

static void gpu_sat(void) {
    static uint8_t img[W * H];
    static uint32_t got[W * H], want[W * H];
    uint32_t s = 5;
    for (int i = 0; i < W * H; ++i) img[i] = (uint8_t)next(&s);
    sat_by_definition(img, want);
    void *d_img = dev_copy(img, sizeof img), *d_table = dev_copy(NULL, sizeof got);
    CHECK(d_img && d_table);
    if (d_img && d_table) {
        libscan_sat_image_t in = {d_img, LIBSCAN_U8, 1, W, H, W};
        libscan_sat_image_t out = {d_table, LIBSCAN_U32, 1, W, H, W * sizeof(uint32_t)};
        const libscan_status_t st = libscan_sat_build(&in, &out, NULL, 0);
        if (st != LIBSCAN_SUCCESS) fprintf(stderr, "consumer: sat_build: %s\n", libscan_status_string(st));
        CHECK(st == LIBSCAN_SUCCESS);
        CHECK(to_host(got, d_table, sizeof got));
        CHECK(memcmp(got, want, sizeof got) == 0);
    }
    cudaFree(d_img);
    cudaFree(d_table);
}

int main(void) {
    printf("consumer: libscan %s (headers %s)\n", libscan_version_string(), LIBSCAN_VERSION_STRING);
    host_checks();
    if (gpu_present()) {
        gpu_scans();
        gpu_sort();
        gpu_compact();
        gpu_sat();
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
    } else {
        printf("no GPU, skipped run\n");
    }
    if (failures) {
        fprintf(stderr, "consumer: %d check(s) failed\n", failures);
        return 1;
    }
    printf("consumer: ok (scan, segmented scan, sort, compaction, SAT)\n");
    return 0;
}
