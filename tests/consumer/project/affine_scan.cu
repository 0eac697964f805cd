// affine_scan.cu -- a kernel of an outside project built from libscan's
// device collectives (<libscan/cuda/warp_scan.cuh>, <libscan/cuda/block_scan.cuh>)
// with an operator of its own: composition of affine maps x -> a*x + b over
// 32-bit integers (wrapping). Composition is associative but not commutative,
// so any mix-up of operand order shows up in the result.
//
// One block walks the array tile by tile; a prefix callback carries the
// composition of all earlier tiles into the next one. A second output holds
// a plain warp scan of each thread's first item. Without a GPU the program
// prints "no GPU, skipped run" and exits 0.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <libscan/cuda/block_scan.cuh>
#include <libscan/cuda/warp_scan.cuh>

struct Affine {
    uint32_t a, b; // x -> a*x + b
};

// f (+) g = "f, then g" = x -> g.a * (f.a * x + f.b) + g.b. Earlier on the left.
struct Compose {
    __host__ __device__ Affine operator()(const Affine &f, const Affine &g) const {
        return Affine{g.a * f.a, g.a * f.b + g.b};
    }
    __host__ __device__ Affine identity() const { return Affine{1u, 0u}; }
};

constexpr int kThreads = 128;
constexpr int kItems = 4;
constexpr int kTile = kThreads * kItems;

// Called by all lanes of warp 0 once per tile; every lane keeps the same copy.
struct RunningPrefix {
    Affine running;
    __device__ Affine operator()(const Affine &tile_aggregate) {
        Affine before = running;
        running = Compose()(running, tile_aggregate);
        return before;
    }
};

__global__ void affine_scan_kernel(const Affine *in, Affine *out, Affine *warp_out, int n) {
    using BS = libscan::BlockScan<Affine, kThreads>;
    __shared__ typename BS::TempStorage temp;
    const Compose op;
    RunningPrefix prefix{op.identity()};

    for (int base = 0; base < n; base += kTile) {
        Affine items[kItems];
        const int first = base + threadIdx.x * kItems;
#pragma unroll
        for (int i = 0; i < kItems; ++i) items[i] = first + i < n ? in[first + i] : op.identity();

        // Warp scan of each thread's first item, within its warp.
        Affine w = libscan::WarpScan<Affine>::InclusiveScan(items[0], op);
        if (first < n) warp_out[first / kItems] = w;

        Affine tile_aggregate;
        BS(temp).InclusiveScan(items, op, tile_aggregate, prefix);
#pragma unroll
        for (int i = 0; i < kItems; ++i)
            if (first + i < n) out[first + i] = items[i];
        __syncthreads(); // before temp is reused by the next tile
    }
}

static bool same(const Affine &x, const Affine &y) { return x.a == y.a && x.b == y.b; }

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();
        std::printf("no GPU, skipped run\n");
        return 0;
    }

    const int n = 3 * kTile - 5; // three tiles, the last one ragged
    std::vector<Affine> in(n);
    uint32_t s = 12345u;
    for (auto &f : in) {
        s = s * 1664525u + 1013904223u;
        f.a = (s >> 8) | 1u; // odd multipliers keep every map invertible
        s = s * 1664525u + 1013904223u;
        f.b = s >> 4;
    }

    Affine *d_in = nullptr, *d_out = nullptr, *d_warp = nullptr;
    const size_t bytes = n * sizeof(Affine);
    if (cudaMalloc(&d_in, bytes) != cudaSuccess || cudaMalloc(&d_out, bytes) != cudaSuccess ||
        cudaMalloc(&d_warp, bytes) != cudaSuccess) {
        std::fprintf(stderr, "affine_scan: cudaMalloc failed\n");
        return 1;
    }
    cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice);
    affine_scan_kernel<<<1, kThreads>>>(d_in, d_out, d_warp, n);
    std::vector<Affine> out(n), warp_out((n + kItems - 1) / kItems);
    cudaError_t e = cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        e = cudaMemcpy(warp_out.data(), d_warp, warp_out.size() * sizeof(Affine), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        std::fprintf(stderr, "affine_scan: %s\n", cudaGetErrorString(e));
        return 1;
    }

    const Compose op;
    int bad = 0;
    Affine run = op.identity();
    for (int i = 0; i < n; ++i) {
        run = op(run, in[i]);
        if (!same(out[i], run) && bad++ < 5)
            std::fprintf(stderr, "affine_scan: block scan [%d] = (%u, %u), expected (%u, %u)\n", i, out[i].a,
                         out[i].b, run.a, run.b);
    }
    // Warp scan: thread t's first item, scanned over the 32 threads of its warp.
    Affine wrun = op.identity();
    for (size_t t = 0; t < warp_out.size(); ++t) {
        if (t % libscan::kWarpThreads == 0) wrun = op.identity();
        wrun = op(wrun, in[t * kItems]);
        if (!same(warp_out[t], wrun) && bad++ < 10)
            std::fprintf(stderr, "affine_scan: warp scan [%zu] = (%u, %u), expected (%u, %u)\n", t, warp_out[t].a,
                         warp_out[t].b, wrun.a, wrun.b);
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_warp);
    if (bad) {
        std::fprintf(stderr, "affine_scan: %d wrong values\n", bad);
        return 1;
    }
    std::printf("affine_scan: %d items ok\n", n);
    return 0;
}
