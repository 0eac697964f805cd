// families.cu -- every family of libscan's C API (scan, segmented scan, sort,
// compaction, SAT) called from CUDA C++, as an outside project that also
// writes kernels of its own would: the inputs are made on the device by a
// kernel of this file, each family's call runs on a stream of this file
// (opts = NULL: the temp cache; and once with caller temp), and the results
// are checked against loops of its own on the host. Without a GPU the
// program prints "no GPU, skipped run" and exits 0.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <libscan/libscan.h>
#include <libscan/sort.h>
#include <libscan/compact.h>
#include <libscan/sat.h>

namespace {

int failures = 0;

void check(bool ok, const char *what) {
    if (!ok) {
        std::fprintf(stderr, "families: %s failed\n", what);
        ++failures;
    }
}

void check_status(libscan_status_t st, const char *what) {
    if (st != LIBSCAN_SUCCESS) std::fprintf(stderr, "families: %s: %s\n", what, libscan_status_string(st));
    check(st == LIBSCAN_SUCCESS, what);
}

// The hash every input comes from, the same on host and device.
__host__ __device__ uint32_t hash(uint32_t i) {
    i ^= i >> 16;
    i *= 0x7feb352du;
    i ^= i >> 15;
    i *= 0x846ca68bu;
    return i ^ (i >> 16);
}

__global__ void fill_kernel(uint32_t *out, size_t n, uint32_t mod) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = mod ? hash((uint32_t)i) % mod : hash((uint32_t)i);
}

__global__ void narrow_kernel(const uint32_t *in, uint16_t *out, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = (uint16_t)in[i];
}

std::vector<uint32_t> host_input(size_t n, uint32_t mod) {
    std::vector<uint32_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = mod ? hash((uint32_t)i) % mod : hash((uint32_t)i);
    return v;
}

template <typename T> struct DeviceArray {
    T *p = nullptr;
    explicit DeviceArray(size_t n) {
        if (cudaMalloc(&p, n * sizeof(T) + 1) != cudaSuccess) p = nullptr;
    }
    ~DeviceArray() { cudaFree(p); }
    DeviceArray(const DeviceArray &) = delete;
    DeviceArray &operator=(const DeviceArray &) = delete;
    std::vector<T> get(size_t n, cudaStream_t s) const {
        std::vector<T> v(n);
        cudaMemcpyAsync(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
        return v;
    }
};

constexpr size_t kN = (1u << 20) + 77; // large enough for the look-back paths, ragged

void scans(cudaStream_t s) {
    DeviceArray<uint32_t> in(kN), out(kN);
    fill_kernel<<<256, 256, 0, s>>>(in.p, kN, 1000u);
    const std::vector<uint32_t> x = host_input(kN, 1000u);

    check_status(libscan_inclusive_scan(in.p, out.p, kN, LIBSCAN_U32, LIBSCAN_OP_SUM, nullptr, s), "inclusive scan");
    std::vector<uint32_t> got = out.get(kN, s);
    uint32_t run = 0;
    bool ok = true;
    for (size_t i = 0; i < kN && ok; ++i) ok = got[i] == (run += x[i]);
    check(ok, "inclusive sum values");

    // The same with caller temp, exclusive max.
    size_t temp_bytes = 0;
    check_status(libscan_scan_temp_bytes(kN, LIBSCAN_U32, &temp_bytes), "scan temp query");
    DeviceArray<unsigned char> temp(temp_bytes);
    libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
    o.d_temp = temp.p;
    o.temp_bytes = temp_bytes;
    check_status(libscan_exclusive_scan(in.p, out.p, kN, LIBSCAN_U32, LIBSCAN_OP_MAX, &o, s), "exclusive scan");
    got = out.get(kN, s);
    run = 0; // the identity of max over u32
    ok = true;
    for (size_t i = 0; i < kN && ok; ++i) {
        ok = got[i] == run;
        run = std::max(run, x[i]);
    }
    check(ok, "exclusive max values");

    // Segmented: rows of 1000 elements, one segment each.
    const size_t rows = kN / 1000;
    check_status(libscan_inclusive_scan_rows(in.p, out.p, rows, 1000, 1000, LIBSCAN_U32, LIBSCAN_OP_SUM, nullptr, s),
                 "segmented scan (rows)");
    got = out.get(rows * 1000, s);
    ok = true;
    for (size_t r = 0; r < rows && ok; ++r) {
        run = 0;
        for (size_t i = r * 1000; i < (r + 1) * 1000 && ok; ++i) ok = got[i] == (run += x[i]);
    }
    check(ok, "segmented sum values");
}

void sort(cudaStream_t s) {
    DeviceArray<uint32_t> keys(kN), sorted(kN), idx(kN);
    fill_kernel<<<256, 256, 0, s>>>(keys.p, kN, 0u);
    std::vector<uint32_t> want = host_input(kN, 0u);
    const std::vector<uint32_t> x = want;
    std::stable_sort(want.begin(), want.end());

    check_status(libscan_sort(keys.p, sorted.p, nullptr, nullptr, kN, LIBSCAN_U32, 0, nullptr, s), "sort");
    check(sorted.get(kN, s) == want, "sorted keys");

    check_status(libscan_argsort(keys.p, nullptr, idx.p, kN, LIBSCAN_U32, 4, nullptr, s), "argsort");
    const std::vector<uint32_t> order = idx.get(kN, s);
    bool ok = true;
    // Each index points at the key the sorted order has there, and equal keys
    // keep their input order: together, a stable permutation.
    for (size_t i = 0; i < kN && ok; ++i)
        ok = order[i] < kN && x[order[i]] == want[i] && (i == 0 || want[i - 1] != want[i] || order[i - 1] < order[i]);
    check(ok, "argsort indices (stable)");
}

void compaction(cudaStream_t s) {
    DeviceArray<uint32_t> in(kN), out(kN);
    DeviceArray<size_t> count(1);
    fill_kernel<<<256, 256, 0, s>>>(in.p, kN, 100u);
    const std::vector<uint32_t> x = host_input(kN, 100u);
    std::vector<uint32_t> want;
    for (uint32_t v : x)
        if (v >= 90u) want.push_back(v);

    libscan_pred_t pred{};
    pred.kind = LIBSCAN_PRED_GE;
    pred.value.u = 90u;
    check_status(libscan_select_if(in.p, out.p, count.p, kN, LIBSCAN_U32, &pred, nullptr, s), "select_if");
    size_t n = 0;
    check_status(libscan_count_to_host(count.p, &n, s), "count_to_host");
    check(n == want.size() && out.get(n, s) == want, "selected values");

    check_status(libscan_unique(in.p, out.p, count.p, kN, LIBSCAN_U32, nullptr, s), "unique");
    check_status(libscan_count_to_host(count.p, &n, s), "count_to_host");
    std::vector<uint32_t> runs(x);
    runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
    check(n == runs.size() && out.get(n, s) == runs, "unique values");
}

void sat(cudaStream_t s) {
    constexpr size_t w = 301, h = 117;
    DeviceArray<uint32_t> raw(w * h);
    DeviceArray<uint16_t> img(w * h);
    DeviceArray<uint64_t> table(w * h);
    fill_kernel<<<64, 256, 0, s>>>(raw.p, w * h, 65536u);
    narrow_kernel<<<64, 256, 0, s>>>(raw.p, img.p, w * h);
    const std::vector<uint32_t> x = host_input(w * h, 65536u);
    const std::vector<uint16_t> pixels(x.begin(), x.end());

    const libscan_sat_image_t in{img.p, LIBSCAN_U16, 1, w, h, w * sizeof(uint16_t)};
    const libscan_sat_image_t out{table.p, LIBSCAN_U64, 1, w, h, w * sizeof(uint64_t)};
    check_status(libscan_sat_build(&in, &out, nullptr, s), "sat_build");
    const std::vector<uint64_t> got = table.get(w * h, s);
    std::vector<uint64_t> want(w * h);
    for (size_t y = 0; y < h; ++y)
        for (size_t xx = 0; xx < w; ++xx)
            want[y * w + xx] = pixels[y * w + xx] + (xx ? want[y * w + xx - 1] : 0) + (y ? want[(y - 1) * w + xx] : 0) -
                               (xx && y ? want[(y - 1) * w + xx - 1] : 0);
    check(got == want, "summed-area table");
}

} // namespace

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();
        std::printf("no GPU, skipped run\n");
        return 0;
    }
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        std::fprintf(stderr, "families: cudaStreamCreate failed\n");
        return 1;
    }
    scans(s);
    sort(s);
    compaction(s);
    sat(s);
    check(cudaStreamSynchronize(s) == cudaSuccess && cudaGetLastError() == cudaSuccess, "CUDA errors");
    cudaStreamDestroy(s);
    check_status(libscan_temp_cache_release(), "temp_cache_release");
    if (failures) {
        std::fprintf(stderr, "families: %d check(s) failed\n", failures);
        return 1;
    }
    std::printf("families: scan, segmented scan, sort, compaction, SAT ok\n");
    return 0;
}
