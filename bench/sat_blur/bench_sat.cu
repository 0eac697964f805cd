// bench_sat.cu -- summed-area tables of RGBA8 images: libscan's sat_build
// (all four channels in one pass over interleaved pixels) against NPP's
// nppiIntegral_8u32s_C1R called once per channel, as a user of NPP must
// (it takes one channel: the image is de-interleaved into four planes
// first, and that kernel is timed on its own), and against a device memcpy
// of the table's bytes (W * H * 16). Also the blur: SAT + sat_box_filter with
// a uniform radius and with a per-pixel radius map.
//
// CUDA events around each call, 3 warm-up calls, the median of --reps runs
// (default 21). Checks libscan's table against NPP's (or, without NPP,
// against the CPU path at the smallest size) before timing. Prints one
// markdown table with the GPU, date and commit.
//
//   bench_sat [--reps N] [--sizes WxH,WxH,...]
#include "../bench_timing.cuh"
#include "bench_config.h"
#include "sat.h"

#include <cuda_runtime.h>
#ifdef BENCH_SAT_HAVE_NPP
#include <nppi_statistics_functions.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace {

void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "bench_sat: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(2);
    }
}
void check_sat(sat_status_t s, const char *what) {
    if (s != SAT_SUCCESS) {
        std::fprintf(stderr, "bench_sat: %s: %s\n", what, sat_status_string(s));
        std::exit(2);
    }
}

__global__ void fill_kernel(uint8_t *p, size_t n, uint32_t seed) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t x = (uint32_t)i * 2654435761u ^ seed;
        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        p[i] = (uint8_t)x;
    }
}

__global__ void radius_kernel(uint16_t *r, size_t w, size_t h) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < w * h; i += (size_t)gridDim.x * blockDim.x) {
        const size_t y = i / w;
        r[i] = (uint16_t)((y * 24 * 256) / h); // 0 .. 24 px, top to bottom
    }
}

#ifdef BENCH_SAT_HAVE_NPP
// RGBA8 -> four 8-bit planes (what a user must do before NPP's C1R integral).
__global__ void deinterleave_kernel(const uchar4 *in, uint8_t *planes, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uchar4 v = in[i];
        planes[i] = v.x;
        planes[n + i] = v.y;
        planes[2 * n + i] = v.z;
        planes[3 * n + i] = v.w;
    }
}
#endif

double median_ms(cudaStream_t s, int reps, const std::function<void()> &f) {
    bench::EventTimes t;
    check(bench::time_events(s, 3, reps, f, &t), "timing");
    return t.upper_median();
}

struct Size {
    size_t w, h;
};

} // namespace

int main(int argc, char **argv) {
    int reps = 21;
    std::vector<Size> sizes = {{1920, 1080}, {3840, 2160}, {7680, 4320}, {16384, 16384}};
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = std::atoi(argv[++i]);
            if (reps < 1) reps = 1;
        } else if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
            sizes.clear();
            std::string s = argv[++i];
            size_t pos = 0;
            while (pos < s.size()) {
                size_t w = 0, h = 0;
                if (std::sscanf(s.c_str() + pos, "%zux%zu", &w, &h) != 2 || !w || !h) {
                    std::fprintf(stderr, "bench_sat: bad --sizes '%s'\n", argv[i]);
                    return 1;
                }
                sizes.push_back({w, h});
                const size_t c = s.find(',', pos);
                pos = c == std::string::npos ? s.size() : c + 1;
            }
        } else if (!std::strcmp(argv[i], "--help")) {
            std::printf("usage: bench_sat [--reps N] [--sizes WxH,...]\n");
            return 0;
        } else {
            std::fprintf(stderr, "bench_sat: unknown argument '%s' (see --help)\n", argv[i]);
            return 1;
        }
    }
    int dev = 0;
    cudaDeviceProp prop;
    check(cudaGetDevice(&dev), "no CUDA device");
    check(cudaGetDeviceProperties(&prop, dev), "device properties");
    cudaStream_t st;
    check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "stream");
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    const char *commit = std::getenv("LIBSCAN_COMMIT") ? std::getenv("LIBSCAN_COMMIT") : LIBSCAN_BENCH_COMMIT;

    std::printf("## bench_sat: SAT of RGBA8 images (4 channels, uint32 table)\n\n");
    std::printf("GPU: %s (%d SMs), CUDA runtime %d, %s, commit %s, median of %d runs (CUDA events), times in ms.\n\n",
                prop.name, prop.multiProcessorCount, CUDART_VERSION, date, commit, reps);
#ifdef BENCH_SAT_HAVE_NPP
    std::printf("NPP: nppiIntegral_8u32s_C1R_Ctx, 4 calls (one per channel) on planes made by a de-interleave kernel.\n\n");
    std::printf("| size | libscan SAT | NPP 4 x C1R | de-interleave | NPP total | memcpy table bytes | SAT / memcpy | "
                "NPP total / SAT | blur uniform r=8 (SAT+filter) | blur radius map (SAT+filter) | check |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
#else
    std::printf("NPP not found at build time: no NPP columns.\n\n");
    std::printf("| size | libscan SAT | memcpy table bytes | SAT / memcpy | blur uniform r=8 (SAT+filter) | "
                "blur radius map (SAT+filter) | check |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
#endif
    int wrong = 0;
    for (const Size &sz : sizes) {
        const size_t W = sz.w, H = sz.h, n = W * H;
        uint8_t *in = nullptr, *out8 = nullptr;
        uint32_t *table = nullptr, *copy = nullptr;
        uint16_t *radius = nullptr;
        void *temp = nullptr;
        size_t temp_bytes = 0;
        check_sat(sat_temp_bytes(W, H, 4, SAT_U32, &temp_bytes), "temp bytes");
        check(cudaMalloc(&in, n * 4), "malloc in");
        check(cudaMalloc(&table, n * 16), "malloc table");
        check(cudaMalloc(&copy, n * 16), "malloc copy");
        check(cudaMalloc(&temp, temp_bytes), "malloc temp");
        check(cudaMalloc(&out8, n * 4), "malloc out");
        check(cudaMalloc(&radius, n * 2), "malloc radius");
        fill_kernel<<<1024, 256, 0, st>>>(in, n * 4, (uint32_t)W * 7919u + (uint32_t)H);
        radius_kernel<<<1024, 256, 0, st>>>(radius, W, H);
        check(cudaGetLastError(), "fill");
        const sat_image_t img = {in, SAT_U8, 4, W, H, W * 4};
        const sat_image_t tab = {table, SAT_U32, 4, W, H, W * 16};
        const sat_image_t outi = {out8, SAT_U8, 4, W, H, W * 4};
        auto sat = [&] { check_sat(sat_build(&img, &tab, temp, temp_bytes, st), "sat_build"); };
        auto blur_u = [&] {
            sat();
            check_sat(sat_box_filter(&tab, nullptr, nullptr, 0, 8 * 256, &outi, st), "filter");
        };
        auto blur_m = [&] {
            sat();
            check_sat(sat_box_filter(&tab, nullptr, radius, W * 2, 0, &outi, st), "filter");
        };
        auto mcp = [&] { check(cudaMemcpyAsync(copy, table, n * 16, cudaMemcpyDeviceToDevice, st), "memcpy"); };
        std::string verdict = "ok";

        // ---- correctness first ----
        sat();
        check(cudaStreamSynchronize(st), "sat");
        std::vector<uint32_t> got(n * 4);
        check(cudaMemcpy(got.data(), table, n * 16, cudaMemcpyDeviceToHost), "download");
#ifdef BENCH_SAT_HAVE_NPP
        uint8_t *planes = nullptr;
        int32_t *npp = nullptr;
        const size_t nstep = (W + 1) * 4;
        check(cudaMalloc(&planes, n * 4), "malloc planes");
        check(cudaMalloc(&npp, 4 * nstep * (H + 1)), "malloc npp");
        NppStreamContext ctx{};
        ctx.hStream = st;
        ctx.nCudaDeviceId = dev;
        ctx.nMultiProcessorCount = prop.multiProcessorCount;
        ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
        ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
        ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
        ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
        ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
        unsigned flags = 0;
        check(cudaStreamGetFlags(st, &flags), "stream flags");
        ctx.nStreamFlags = flags;
        const NppiSize roi = {(int)W, (int)H};
        auto deint = [&] {
            deinterleave_kernel<<<2048, 256, 0, st>>>(reinterpret_cast<const uchar4 *>(in), planes, n);
            check(cudaGetLastError(), "de-interleave");
        };
        auto npp4 = [&] {
            for (int c = 0; c < 4; ++c) {
                const NppStatus s = nppiIntegral_8u32s_C1R_Ctx(planes + c * n, (int)W, npp + c * (nstep / 4) * (H + 1),
                                                               (int)nstep, roi, 0, ctx);
                if (s != NPP_SUCCESS) {
                    std::fprintf(stderr, "bench_sat: nppiIntegral_8u32s_C1R_Ctx failed with %d\n", (int)s);
                    std::exit(2);
                }
            }
        };
        deint();
        npp4();
        check(cudaStreamSynchronize(st), "npp");
        {
            // NPP's table is (W+1) x (H+1) with a zero first row and column:
            // npp(x+1, y+1) == S(x, y) modulo 2^32. Compare every 97th pixel and the last row/column.
            std::vector<int32_t> ref(4 * (nstep / 4) * (H + 1));
            check(cudaMemcpy(ref.data(), npp, ref.size() * 4, cudaMemcpyDeviceToHost), "download npp");
            for (size_t i = 0; i < n && verdict == "ok"; i += (i % W == W - 1 || i / W == H - 1) ? 1 : 97)
                for (int c = 0; c < 4; ++c) {
                    const size_t x = i % W, y = i / W;
                    const uint32_t want = (uint32_t)ref[c * (nstep / 4) * (H + 1) + (y + 1) * (W + 1) + x + 1];
                    if (got[i * 4 + c] != want) {
                        verdict = "WRONG vs NPP at (" + std::to_string(x) + "," + std::to_string(y) + ")";
                        ++wrong;
                        break;
                    }
                }
        }
        const double t_de = median_ms(st, reps, deint), t_npp = median_ms(st, reps, npp4);
#else
        if (&sz == &sizes[0]) { // without NPP: the CPU path at the first size
            std::vector<uint8_t> h(n * 4);
            std::vector<uint32_t> ref(n * 4);
            check(cudaMemcpy(h.data(), in, n * 4, cudaMemcpyDeviceToHost), "download in");
            const sat_image_t hi = {h.data(), SAT_U8, 4, W, H, W * 4}, ht = {ref.data(), SAT_U32, 4, W, H, W * 16};
            check_sat(sat_cpu_build(&hi, &ht), "cpu build");
            if (ref != got) {
                verdict = "WRONG vs CPU";
                ++wrong;
            }
        } else {
            verdict = "not checked";
        }
#endif
        const double t_sat = median_ms(st, reps, sat), t_mcp = median_ms(st, reps, mcp);
        const double t_bu = median_ms(st, reps, blur_u), t_bm = median_ms(st, reps, blur_m);
#ifdef BENCH_SAT_HAVE_NPP
        std::printf("| %zux%zu | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.3f | %.3f | %s |\n", W, H, t_sat,
                    t_npp, t_de, t_npp + t_de, t_mcp, t_sat / t_mcp, (t_npp + t_de) / t_sat, t_bu, t_bm,
                    verdict.c_str());
        cudaFree(planes);
        cudaFree(npp);
#else
        std::printf("| %zux%zu | %.3f | %.3f | %.2f | %.3f | %.3f | %s |\n", W, H, t_sat, t_mcp, t_sat / t_mcp, t_bu,
                    t_bm, verdict.c_str());
#endif
        std::fflush(stdout);
        cudaFree(in);
        cudaFree(table);
        cudaFree(copy);
        cudaFree(temp);
        cudaFree(out8);
        cudaFree(radius);
    }
    std::printf("\nTargets (issue 6, H100): SAT 3840x2160 <= 0.25 ms; blur (SAT + filter) 3840x2160 <= 0.6 ms.\n");
    return wrong ? 3 : 0;
}
