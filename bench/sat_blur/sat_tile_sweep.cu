// sat_tile_sweep.cu -- times one candidate tile of the RGBA8 -> uint32 SAT
// build (sat_tuning.cuh, SatTuning<16>) on a 3840x2160 image, for
// sat_tile_sweep.sh, which compiles this file once per candidate with
// -DSW_TW= -DSW_TH= -DSW_CHUNK= -DSW_SEGS= -DSW_THREADS= -DSW_MINB= and runs the binaries in
// turn. Prints one line: the candidate, the median of 51 CUDA-event times in
// microseconds, and whether the table equals a host-computed SAT.
#define LIBSCAN_SAT_TUNING_16                                                                                     \
    static constexpr int kTileW = SW_TW, kTileH = SW_TH, kChunk = SW_CHUNK, kColSegments = SW_SEGS;                          \
    static constexpr int kThreads = SW_THREADS, kMinBlocksPerSM = SW_MINB;
#include <libscan/cuda/sat_kernels.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
    const size_t W = 3840, H = 2160, C = 4;
    std::vector<unsigned char> img(W * H * C);
    unsigned s = 12345;
    for (auto &b : img) b = (unsigned char)((s = s * 1103515245u + 12345u) >> 24);
    unsigned char *d_in, *d_out, *d_temp;
    const size_t tb = libscan::sat::sat_temp_bytes(W, H, (int)C, 4);
    if (!tb) { std::printf("TW=%d TH=%d: sizes refused\n", SW_TW, SW_TH); return 1; }
    cudaMalloc(&d_in, img.size());
    cudaMalloc(&d_out, W * H * C * 4);
    cudaMalloc(&d_temp, tb + 256);
    cudaMemcpy(d_in, img.data(), img.size(), cudaMemcpyHostToDevice);
    auto run = [&] {
        return libscan::sat::build_sat<unsigned char, unsigned, 4>(d_in, W * C, W, H, d_temp, d_out, W * C * 4, 0);
    };
    if (run() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        std::printf("TW=%d TH=%d CHUNK=%d SEGS=%d THREADS=%d MINB=%d: launch failed\n", SW_TW, SW_TH, SW_CHUNK, SW_SEGS, SW_THREADS, SW_MINB);
        return 1;
    }
    // Host SAT, row by row from the row above.
    std::vector<unsigned> ref(W * H * C), got(W * H * C);
    for (size_t y = 0; y < H; ++y)
        for (size_t c = 0; c < C; ++c) {
            unsigned row = 0;
            for (size_t x = 0; x < W; ++x) {
                row += img[(y * W + x) * C + c];
                ref[(y * W + x) * C + c] = row + (y ? ref[((y - 1) * W + x) * C + c] : 0u);
            }
        }
    cudaMemcpy(got.data(), d_out, got.size() * 4, cudaMemcpyDeviceToHost);
    const bool ok = got == ref;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < 5; ++i) run();
    std::vector<float> ms;
    for (int i = 0; i < 51; ++i) {
        cudaEventRecord(a);
        run();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t;
        cudaEventElapsedTime(&t, a, b);
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("TW=%d TH=%d CHUNK=%d SEGS=%d THREADS=%d MINB=%d  %.1f us  %s\n", SW_TW, SW_TH, SW_CHUNK, SW_SEGS, SW_THREADS, SW_MINB,
                ms[25] * 1000.0, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
