// mid_one.cu -- one DeviceScan (tuned shape) at n = 2^lg for ncu.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "libscan/cuda/device_scan.cuh"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(2);} } while (0)
template <typename T> void go(int lg) {
    const size_t n = size_t(1) << lg;
    T *in, *out; void *temp;
    CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, n * sizeof(T)));
    std::vector<T> h(n, T(1));
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    using DS = libscan::DeviceScan<T>;
    const size_t tb = DS::temp_bytes(n);
    CK(cudaMalloc(&temp, tb));
    libscan::DeviceScanArgs<T> a; a.in = in; a.out = out; a.n = n;
    for (int i = 0; i < 3; ++i) CK(DS::run(a, libscan::Sum<T>(), temp, tb, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    printf("%zu-byte 2^%d last %llu\n", sizeof(T), lg, (unsigned long long)h[n - 1]);
}
int main(int argc, char **argv) {
    const int lg = argc > 1 ? atoi(argv[1]) : 20;
    const int bytes = argc > 2 ? atoi(argv[2]) : 4;
    if (bytes == 4) go<unsigned>(lg); else go<unsigned long long>(lg);
}
