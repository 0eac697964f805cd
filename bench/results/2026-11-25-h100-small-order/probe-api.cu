// probe-api.cu -- drives probe-api-steps.c (scan_api.c's scan() with clock
// stamps) after a CUB scan and a stream sync, as bench_scan's event loop
// does; prints the median time of each step, and events around the call.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/device/device_scan.cuh>
#include "libscan/libscan.h"
extern "C" double probe_stamps[8];
extern "C" libscan_status_t probe_scan(const void *d_in, void *d_out, size_t count, libscan_dtype_t dtype,
                                       libscan_op_t op, const libscan_scan_opts_t *opts, cudaStream_t stream,
                                       bool exclusive);
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)
template <typename T> void run(cudaStream_t s, int rounds) {
    const size_t n = size_t(1) << 16;
    T *in, *out;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMemset(in, 1, n * sizeof(T)));
    void *cub_temp = nullptr;
    size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int(n)));
    CK(cudaMalloc(&cub_temp, cub_bytes));
    size_t lt = 0;
    const libscan_dtype_t dt = sizeof(T) == 4 ? LIBSCAN_U32 : LIBSCAN_U64;
    if (libscan_scan_temp_bytes(n, dt, &lt) != LIBSCAN_SUCCESS) exit(2);
    void *ltemp = nullptr;
    CK(cudaMalloc(&ltemp, lt));
    libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
    opts.d_temp = ltemp;
    opts.temp_bytes = lt;
    std::vector<double> step[6], ev;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int r = 0; r < rounds + 5; ++r) {
        CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int(n), s));
        CK(cudaStreamSynchronize(s));
        CK(cudaEventRecord(e0, s));
        if (probe_scan(in, out, n, dt, LIBSCAN_OP_SUM, &opts, s, false) != LIBSCAN_SUCCESS) exit(2);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float x = 0;
        CK(cudaEventElapsedTime(&x, e0, e1));
        if (r < 5) continue;
        ev.push_back(x * 1000.0);
        for (int i = 0; i < 6; ++i) step[i].push_back(probe_stamps[i + 1] - probe_stamps[i]);
    }
    const char *names[6] = {"enum/alignment/overlap checks", "temp size + temp overlap", "pointer checks (in, out, temp)",
                            "call setup + temp acquire", "libscan__scan_launch", "temp release"};
    printf("%s n = 65536, %d rounds, medians (us): events %.2f\n", sizeof(T) == 4 ? "u32" : "u64", rounds,
           (std::sort(ev.begin(), ev.end()), ev[ev.size() / 2]));
    for (int i = 0; i < 6; ++i) {
        std::sort(step[i].begin(), step[i].end());
        printf("  %-34s %.3f\n", names[i], step[i][step[i].size() / 2]);
    }
    CK(cudaFree(in)); CK(cudaFree(out)); CK(cudaFree(cub_temp)); CK(cudaFree(ltemp));
}
int main() {
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    run<unsigned>(s, 1000);
    run<unsigned long long>(s, 1000);
    run<unsigned>(s, 1000);
    run<unsigned long long>(s, 1000);
}
