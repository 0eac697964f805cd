// tile_sweep.cu -- chooses the tile shapes in libscan/include/libscan/cuda/tuning.cuh:
// times DeviceScan<T, BLOCK, ITEMS> for several shapes against CUB and a
// device memcpy in the same run, after checking each shape's output against a
// CPU running sum. Sum operator; 2^20 + 17 and 2^28 elements. Shapes are
// BLOCK x ITEMS with a __launch_bounds__ minimum of minB blocks per SM and an
// L2 prefetch distance of `ahead` tiles (0 = none; device_scan.cuh).
// Run on the GPU: build/bench/tile_sweep [--prefetch] [--8byte] (results:
// bench/results/*tile-sweep*); --prefetch sweeps the prefetch distance of the
// shapes in tuning.cuh instead of the shapes; --8byte runs only the 8-byte
// types (shapes above 40 KiB stage in dynamic shared memory).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <string>
#include <cub/device/device_scan.cuh>
#include "libscan/cuda/device_scan.cuh"
#include "sweep_util.cuh"

template <typename T> float med(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size()/2]; }

template <typename F> float timeit(F f, int reps = 25) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> ts;
  for (int i = 0; i < reps; ++i) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); ts.push_back(ms * 1000); }
  CK(cudaGetLastError());
  return med<float>(ts);
}

template <class D, typename T> float run_variant(const T* in, T* out, size_t n, void* temp, bool excl) {
  libscan::DeviceScanArgs<T> a; a.in = in; a.out = out; a.n = n; a.exclusive = excl;
  return timeit([&] { CK(D::run(a, libscan::Sum<T>(), temp, D::temp_bytes(n), 0)); });
}

template <class D, typename T> bool check_variant(const T* in, T* out, size_t n, void* temp, bool excl, const std::vector<T>& h_in) {
  libscan::DeviceScanArgs<T> a; a.in = in; a.out = out; a.n = n; a.exclusive = excl;
  CK(cudaMemset(out, 0xff, n * sizeof(T)));
  CK(D::run(a, libscan::Sum<T>(), temp, D::temp_bytes(n), 0));
  CK(cudaDeviceSynchronize());
  std::vector<T> h(n); CK(cudaMemcpy(h.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
  double acc = 0; T iacc = 0; size_t bad = 0; const bool isf = (T)0.5 != 0;
  for (size_t i = 0; i < n; ++i) { double e = excl ? acc : (acc + (double)h_in[i]); T ie = excl ? iacc : (T)(iacc + h_in[i]); iacc += h_in[i]; double d = (double)h[i] - e; if (d < 0) d = -d; if (isf ? d > 1e-4 * e + 1 : h[i] != ie) { if (bad++ < 3) printf("  mismatch n=%zu i=%zu got %g want %g\n", n, i, (double)h[i], (double)e); } acc += (double)h_in[i]; }
  return bad == 0;
}

template <typename T> void suite(const char* name, size_t n, bool prefetch) {
  T *in, *out; CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, n * sizeof(T)));
  sweep_fill<T><<<1024, 256>>>(in, n, 1234); CK(cudaDeviceSynchronize());
  void* temp; size_t tb = 64 << 20; CK(cudaMalloc(&temp, tb));
  std::vector<T> h_in(n); CK(cudaMemcpy(h_in.data(), in, n * sizeof(T), cudaMemcpyDeviceToHost));
  // CUB
  size_t cub_bytes = 0; cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, (int64_t)n);
  void* cub_temp; CK(cudaMalloc(&cub_temp, cub_bytes));
  float t_cub = timeit([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, (int64_t)n)); });
  float t_cubx = timeit([&] { CK(cub::DeviceScan::ExclusiveSum(cub_temp, cub_bytes, in, out, (int64_t)n)); });
  float t_cpy = timeit([&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); });
  printf("%s n=%zu: memcpy %.1f us, CUB incl %.1f (%.3fx), CUB excl %.1f\n", name, n, t_cpy, t_cub, t_cub / t_cpy, t_cubx);
#define VD(D, B, I, M, P, what) { bool ok = check_variant<D>(in, out, n, temp, false, h_in) && check_variant<D>(in, out, n, temp, true, h_in); \
    float t = run_variant<D>(in, out, n, temp, false), tx = run_variant<D>(in, out, n, temp, true); \
    printf("  %-4s %-6s B=%4d I=%2d minB=%d ahead=%4d incl %8.1f us %.3fx memcpy %.3fx CUB | excl %8.1f us %.3fx memcpy\n", ok ? "ok" : "BAD", what, B, I, M, P, t, t / t_cpy, t / t_cub, tx, tx / t_cpy); }
#define VP(B, I, M, P) { using D = libscan::DeviceScan<T, B, I, M, P>; VD(D, B, I, M, P, "plain") }
#define V(B, I, M) VP(B, I, M, libscan::ScanTuning<sizeof(T)>::kPrefetchTiles)
  // minB: the __launch_bounds__ minimum blocks per SM (1 = the compiler's choice).
  if (prefetch) {
    constexpr int B = libscan::ScanTuning<sizeof(T)>::kBlockThreads, I = libscan::ScanTuning<sizeof(T)>::kItemsPerThread;
    constexpr int M = libscan::scan_min_blocks<T>();
    VP(B, I, M, 0) VP(B, I, M, 66) VP(B, I, M, 132) VP(B, I, M, 264) VP(B, I, M, 528) VP(B, I, M, 792) VP(B, I, M, 1056) VP(B, I, M, 0)
  } else if constexpr (sizeof(T) == 4) { V(256, 32, 5) V(256, 32, 4) V(256, 32, 6) V(256, 24, 6) V(512, 16, 4) V(256, 32, 5) }
  else { V(256, 16, 4) V(256, 32, 3) V(256, 32, 2) V(512, 16, 2) V(256, 24, 3) V(256, 16, 4) }
  CK(cudaFree(in)); CK(cudaFree(out)); CK(cudaFree(temp)); CK(cudaFree(cub_temp));
}

int main(int argc, char** argv) {
  const bool prefetch = argc > 1 && std::string(argv[1]) == "--prefetch";
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0)); printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
  const bool wide = argc > 1 && std::string(argv[argc - 1]) == "--8byte"; // 8-byte types only
  if (!wide) {
    suite<unsigned>("u32", (1u << 20) + 17, prefetch);
    suite<unsigned>("u32", 1u << 28, prefetch);
    suite<float>("f32", 1u << 28, prefetch);
  }
  suite<unsigned long long>("u64", (1u << 20) + 17, prefetch);
  suite<unsigned long long>("u64", 1u << 28, prefetch);
  suite<double>("f64", 1u << 28, prefetch);
  return 0;
}
