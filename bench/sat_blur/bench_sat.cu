// bench_sat.cu -- summed-area tables of RGBA8 images: libscan's libscan_sat_build
// (all four channels at once over interleaved pixels) against NPP's
// nppiIntegral_8u32s_C1R called once per channel, as a user of NPP must
// (it takes one channel: the image is de-interleaved into four planes
// first, and that kernel is timed on its own), and against a device memcpy
// of the table's bytes (W * H * 16), and against the build's memory floor: the
// W * H * 4 bytes of image it must read and the W * H * 16 of table it must
// write (166 MB at 3840x2160), at the rate that memcpy reached in the same run
// (it moves 2 * W * H * 16 bytes), with the fraction of that floor the build
// reaches (issue #22 item 7: 3840x2160 in <= 0.1 ms). Also the blur: SAT + libscan_sat_box_filter with
// a uniform radius and with a per-pixel radius map, and (when sat_blur_dof is
// built) the GPU part of what `sat_blur --depth` really runs: blur_run_gpu on
// a 4-channel 12-bit job with a depth radius map and bleeding weights (weights
// kernel, image table, weight-map table, weighted filter), timed by the
// program's own events (times.sat + times.blur), upload and download apart.
//
// CUDA events around each call, 3 warm-up calls, the median of --reps runs
// (default 21; the DoF job: 1 warm-up run, then --reps runs). Checks
// libscan's table against NPP's (or, without NPP, against the CPU path at the
// smallest size) before timing.
//
// Second table, the temp: libscan_sat_build with opts = NULL (libscan's temp
// cache) beside the same call with caller temp, for RGBA8 3840x2160 and
// one-channel u8 images of 2^16, 2^20, 2^24 and 2^28 pixels. Per image: one
// caller-temp call (kernels loaded), libscan_temp_cache_release(), then the
// first opts = NULL call timed on its own (the cache's block is mapped anew),
// then the two calls interleaved (A B A B ...), each alone between two CUDA
// events, max(--reps, 21) of each, medians. Both tables (and the first
// call's) are checked element by element against NPP's integral image where
// NPP is built, else against libscan_cpu_sat_build.
//
// Prints markdown tables with the GPU, date and commit.
//
//   bench_sat [--reps N] [--sizes WxH,WxH,...] [--temp-only | --no-temp]
#include "../bench_timing.cuh"
#include "bench_config.h"
#include <libscan/sat.h>

#include <cuda_runtime.h>
#ifdef BENCH_SAT_HAVE_DOF
#include "blur.h"
#include "radius.h"
#endif
#ifdef BENCH_SAT_HAVE_NPP
#include <nppi_statistics_functions.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <new>
#include <string>
#include <vector>

namespace {

void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "bench_sat: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(2);
    }
}
void check_sat(libscan_status_t s, const char *what) {
    if (s != LIBSCAN_SUCCESS) {
        std::fprintf(stderr, "bench_sat: %s: %s\n", what, libscan_status_string(s));
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

#ifdef BENCH_SAT_HAVE_NPP
NppStreamContext npp_context(cudaStream_t st, int dev, const cudaDeviceProp &prop) {
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
    return ctx;
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

#ifdef BENCH_SAT_HAVE_DOF
// The depth-of-field job as sat_blur builds it (main.c): its defaults for
// --aperture, --max-radius, --radius (uniform_q8, unused when a map is given)
// and --passes, with --focus 0.3.
constexpr double kDofFocus = 0.3, kDofAperture = 24, kDofMaxRadius = 32, kDofRadius = 8;
constexpr int kDofChannels = 4, kDofPasses = 1;

struct DofResult {
    const char *skipped = nullptr; // why there is no time, else nullptr
    double gpu_ms = 0, upload_ms = 0, download_ms = 0; // medians
};

// What blur_run_gpu allocates for a weighted job (blur_gpu.cu), with room
// to spare: image (twice), table, temp, weight map, weight table, radii.
size_t dof_gpu_bytes(size_t W, size_t H, blur_precision_t p) {
    const size_t n = W * H, C = kDofChannels;
    const blur_format_t f = blur_format(p);
    size_t temp = 0;
    check_sat(libscan_sat_temp_bytes(W, H, (int)C, f.table_bytes == 8 ? LIBSCAN_U64 : LIBSCAN_U32, &temp),
              "temp bytes (DoF)");
    return n * C * (size_t)f.sample_bytes * 2 + n * C * (size_t)f.table_bytes + temp + n + n * 4 + n * 2;
}

// splitmix64: random samples for the image (the values do not matter, only
// that the job is the program's).
uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Upper median (times[reps / 2]), the convention of the other columns.
double upper_median_ms(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// p: the samples' precision (blur.h): BLUR_P12 is what an 8-bit file
// without partial alpha becomes, P30 and P37 what 8-bit files with partial
// alpha and 16-bit files become (wider samples, uint64 tables).
DofResult run_dof(size_t W, size_t H, int reps, blur_precision_t p = BLUR_P12) {
    DofResult r;
    const size_t n = W * H, C = kDofChannels;
    const blur_format_t f = blur_format(p);
    size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "memory info");
    // 64 MiB of slack for allocation granularity and the library's own use.
    if (dof_gpu_bytes(W, H, p) + ((size_t)64 << 20) > free_b) {
        r.skipped = "skipped (memory)";
        return r;
    }
    std::vector<unsigned char> orig, pixels;
    std::vector<uint16_t> radius;
    try {
        orig.resize(n * C * (size_t)f.sample_bytes);
        pixels.resize(n * C * (size_t)f.sample_bytes);
        radius.resize(n);
    } catch (const std::bad_alloc &) {
        r.skipped = "skipped (host memory)";
        return r;
    }
    // Pixels: random samples in [0, 1.0] of the precision. Radii: the circle
    // of confusion of a diagonal depth ramp, (x + y + 1) / (W + H) in (0, 1):
    // near (clamped to max radius) at the top left, sharp along the depth 0.3
    // diagonal, 16.8 px at the far bottom right.
    {
        uint64_t rng = (uint64_t)W * 1000003u + H;
        for (size_t i = 0; i < n * C; ++i) blur_store(orig.data(), i, f.sample_bytes, splitmix64(&rng) % (f.one + 1));
        for (size_t y = 0; y < H; ++y)
            for (size_t x = 0; x < W; ++x)
                radius[y * W + x] = blur_radius_q8(
                    blur_coc_radius((double)(x + y + 1) / (double)(W + H), kDofFocus, kDofAperture, kDofMaxRadius));
    }
    blur_job_t job = {W, H, kDofChannels, pixels.data(), radius.data(), blur_radius_q8(kDofRadius), 1, kDofPasses, p};
    std::vector<double> gpu, up, down;
    char err[512] = "";
    for (int i = 0; i <= reps; ++i) { // run 0 is the warm-up
        // The job blurs in place: every run starts from the same image.
        std::copy(orig.begin(), orig.end(), pixels.begin());
        blur_times_t t;
        const int rc = blur_run_gpu(&job, &t, err, sizeof err);
        if (rc != 0) {
            std::fprintf(stderr, "bench_sat: DoF job %zux%zu: %s\n", W, H, err);
            std::exit(2);
        }
        if (i == 0) continue;
        gpu.push_back((t.sat + t.blur) * 1e3); // blur_times_t is in seconds
        up.push_back(t.upload * 1e3);
        down.push_back(t.download * 1e3);
    }
    r.gpu_ms = upper_median_ms(gpu);
    r.upload_ms = upper_median_ms(up);
    r.download_ms = upper_median_ms(down);
    return r;
}

// One table cell: the time, or why there is none.
std::string dof_cell(const DofResult &r) {
    if (r.skipped) return r.skipped;
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", r.gpu_ms);
    return b;
}
#endif

// The first table: SAT of RGBA8 images (caller temp) against NPP and memcpy,
// the blur and the DoF job. Returns the number of wrong tables.
int main_table(const std::vector<Size> &sizes, int reps, cudaStream_t st, int dev, const cudaDeviceProp &prop,
               const char *date, const char *commit) {
    (void)dev; // NPP's context only
    std::printf("## bench_sat: SAT of RGBA8 images (4 channels, uint32 table)\n\n");
    std::printf("GPU: %s (%d SMs), CUDA runtime %d, %s, commit %s, median of %d runs (CUDA events), times in ms.\n\n",
                prop.name, prop.multiProcessorCount, CUDART_VERSION, date, commit, reps);
#ifdef BENCH_SAT_HAVE_NPP
    std::printf("NPP: nppiIntegral_8u32s_C1R_Ctx, 4 calls (one per channel) on planes made by a de-interleave kernel.\n\n");
#endif
#ifdef BENCH_SAT_HAVE_DOF
    std::printf("DoF job: blur_run_gpu as `sat_blur --depth D --focus %g` runs it (RGBA, 12-bit samples in uint16, "
                "radius map from a depth ramp, aperture %g, max radius %g, weighted, %d pass): weights kernel + image "
                "SAT + weight-map SAT + weighted filter, the program's own events (times.sat + times.blur), "
                "1 warm-up + %d runs, upload and download not included.\n\n",
                kDofFocus, kDofAperture, kDofMaxRadius, kDofPasses, reps);
#define DOF_HEAD " DoF job GPU (weights + 2 SATs + weighted filter) |"
#define DOF_RULE " --- |"
#else
    std::printf("sat_blur_dof not built: no DoF job column (blur_run_gpu of `sat_blur --depth`).\n\n");
#define DOF_HEAD ""
#define DOF_RULE ""
#endif
#ifdef BENCH_SAT_HAVE_NPP
    std::printf("| size | libscan SAT | NPP 4 x C1R | de-interleave | NPP total | memcpy table bytes | SAT / memcpy | "
                "floor | floor / SAT | SAT GB/s | NPP total / SAT | blur uniform r=8 (SAT+filter) | blur radius map "
                "(SAT+filter) |" DOF_HEAD " check |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" DOF_RULE " --- |\n");
#else
    std::printf("| size | libscan SAT | memcpy table bytes | SAT / memcpy | floor | floor / SAT | SAT GB/s | "
                "blur uniform r=8 (SAT+filter) | blur radius map (SAT+filter) |" DOF_HEAD " check |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |" DOF_RULE " --- |\n");
#endif
    int wrong = 0;
    double sat_4k = -1, floor_4k = -1; // the issue's case, when it is among the sizes
#ifdef BENCH_SAT_HAVE_DOF
    DofResult dof_4k;
    bool have_4k = false;
#endif
    for (const Size &sz : sizes) {
        const size_t W = sz.w, H = sz.h, n = W * H;
        uint8_t *in = nullptr, *out8 = nullptr;
        uint32_t *table = nullptr, *copy = nullptr;
        uint16_t *radius = nullptr;
        void *temp = nullptr;
        size_t temp_bytes = 0;
        check_sat(libscan_sat_temp_bytes(W, H, 4, LIBSCAN_U32, &temp_bytes), "temp bytes");
        check(cudaMalloc(&in, n * 4), "malloc in");
        check(cudaMalloc(&table, n * 16), "malloc table");
        check(cudaMalloc(&copy, n * 16), "malloc copy");
        check(cudaMalloc(&temp, temp_bytes), "malloc temp");
        check(cudaMalloc(&out8, n * 4), "malloc out");
        check(cudaMalloc(&radius, n * 2), "malloc radius");
        fill_kernel<<<1024, 256, 0, st>>>(in, n * 4, (uint32_t)W * 7919u + (uint32_t)H);
        radius_kernel<<<1024, 256, 0, st>>>(radius, W, H);
        check(cudaGetLastError(), "fill");
        const libscan_sat_image_t img = {in, LIBSCAN_U8, 4, W, H, W * 4};
        const libscan_sat_image_t tab = {table, LIBSCAN_U32, 4, W, H, W * 16};
        const libscan_sat_image_t outi = {out8, LIBSCAN_U8, 4, W, H, W * 4};
        const libscan_sat_opts_t opts = {temp, temp_bytes};
        auto sat = [&] { check_sat(libscan_sat_build(&img, &tab, &opts, st), "libscan_sat_build"); };
        auto blur_u = [&] {
            sat();
            check_sat(libscan_sat_box_filter(&tab, nullptr, nullptr, 0, 8 * 256, &outi, st), "filter");
        };
        auto blur_m = [&] {
            sat();
            check_sat(libscan_sat_box_filter(&tab, nullptr, radius, W * 2, 0, &outi, st), "filter");
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
        const NppStreamContext ctx = npp_context(st, dev, prop);
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
            const libscan_sat_image_t hi = {h.data(), LIBSCAN_U8, 4, W, H, W * 4}, ht = {ref.data(), LIBSCAN_U32, 4, W, H, W * 16};
            check_sat(libscan_cpu_sat_build(&hi, &ht), "cpu build");
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
        // The floor: image read once (4 bytes a pixel), table written once
        // (16), at memcpy's rate (2 x 16 bytes a pixel in t_mcp).
        const double floor_bytes = (double)n * (4 + 16), t_floor = t_mcp * floor_bytes / ((double)n * 32);
        const double sat_gbs = floor_bytes / (t_sat * 1e-3) * 1e-9;
        if (W == 3840 && H == 2160) {
            sat_4k = t_sat;
            floor_4k = t_floor;
        }
        // Freed before the DoF job, which allocates its own buffers.
#ifdef BENCH_SAT_HAVE_NPP
        cudaFree(planes);
        cudaFree(npp);
#endif
        cudaFree(in);
        cudaFree(table);
        cudaFree(copy);
        cudaFree(temp);
        cudaFree(out8);
        cudaFree(radius);
#ifdef BENCH_SAT_HAVE_DOF
        const DofResult dof = run_dof(W, H, reps);
        if (W == 3840 && H == 2160) {
            dof_4k = dof;
            have_4k = true;
        }
        const std::string dof_col = " " + dof_cell(dof) + " |";
#else
        const std::string dof_col;
#endif
#ifdef BENCH_SAT_HAVE_NPP
        std::printf("| %zux%zu | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.3f | %.2f | %.0f | %.2f | %.3f | %.3f |%s "
                    "%s |\n",
                    W, H, t_sat, t_npp, t_de, t_npp + t_de, t_mcp, t_sat / t_mcp, t_floor, t_floor / t_sat, sat_gbs,
                    (t_npp + t_de) / t_sat, t_bu, t_bm, dof_col.c_str(), verdict.c_str());
#else
        std::printf("| %zux%zu | %.3f | %.3f | %.2f | %.3f | %.2f | %.0f | %.3f | %.3f |%s %s |\n", W, H, t_sat, t_mcp,
                    t_sat / t_mcp, t_floor, t_floor / t_sat, sat_gbs, t_bu, t_bm, dof_col.c_str(), verdict.c_str());
#endif
        std::fflush(stdout);
    }
#ifdef BENCH_SAT_HAVE_DOF
    if (have_4k && !dof_4k.skipped)
        std::printf("\nDoF job 3840x2160, the same runs (pageable host buffers, as sat_blur's): median upload %.3f ms "
                    "(image + radius map), download %.3f ms.\n",
                    dof_4k.upload_ms, dof_4k.download_ms);
    else if (have_4k)
        std::printf("\nDoF job 3840x2160: %s, no upload/download times.\n", dof_4k.skipped);
    if (have_4k) { // the price of the wider precisions (convert.h: 8-bit with partial alpha, 16-bit)
        const DofResult p30 = run_dof(3840, 2160, reps, BLUR_P30), p37 = run_dof(3840, 2160, reps, BLUR_P37);
        std::printf("\nDoF job 3840x2160 GPU (times.sat + times.blur) by precision: 12-bit samples, uint32 tables "
                    "%s ms; 30-bit, uint64 tables %s ms; 37-bit (uint64 samples and tables) %s ms.\n",
                    dof_cell(dof_4k).c_str(), dof_cell(p30).c_str(), dof_cell(p37).c_str());
    }
#endif
    std::printf("\nfloor: the bytes a SAT build must move (the RGBA8 image read once, W * H * 4, and the uint32 table "
                "written once, W * H * 16) at the rate memcpy reached in this run; floor / SAT is the fraction of it "
                "the build reaches (1 = at the floor); SAT GB/s: those bytes over the SAT's time.\n");
    if (sat_4k > 0)
        std::printf("\nRGBA8 3840x2160 SAT build: %.3f ms, floor %.3f ms (%.0f MB), %.2f of the floor; "
                    "target (issue #22 item 7, H100) <= 0.1 ms: %s.\n",
                    sat_4k, floor_4k, 3840.0 * 2160 * 20 * 1e-6, floor_4k / sat_4k, sat_4k <= 0.1 ? "met" : "MISSED");
    std::printf("\nTargets (H100): issue #22 item 7, SAT 3840x2160 <= 0.1 ms (issue 6: <= 0.25 ms); blur (SAT + "
                "filter) 3840x2160 <= 0.6 ms, for the two blur columns and the DoF job GPU column (what "
                "`sat_blur --depth` runs).\n");
    return wrong;
}

// ---- the second table: opts = NULL (temp cache) beside caller temp ----------

// Elements where the W x H x C table (rows t_pitch elements apart,
// interleaved) differs from a reference whose element (x, y, c) is
// ref[c * ref_cstride + (y + off) * ref_pitch + (x + off) * ref_xstride]:
// NPP's planes with their zero first row and column (off 1), or another
// table of ours (off 0). *bad counts them, *first gets the smallest index.
__global__ void diff_kernel(const uint32_t *t, size_t t_pitch, size_t W, size_t H, int C, const uint32_t *ref,
                            size_t ref_pitch, size_t ref_xstride, size_t ref_cstride, size_t off,
                            unsigned long long *bad, unsigned long long *first) {
    const size_t n = W * H * (size_t)C;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const size_t c = i % (size_t)C, p = i / (size_t)C, x = p % W, y = p / W;
        const uint32_t got = t[y * t_pitch + x * (size_t)C + c];
        const uint32_t want = ref[c * ref_cstride + (y + off) * ref_pitch + (x + off) * ref_xstride];
        if (got != want) {
            atomicAdd(bad, 1ull);
            atomicMin(first, (unsigned long long)i);
        }
    }
}

// A reference table in device memory, laid out as diff_kernel reads it.
struct Reference {
    const uint32_t *p = nullptr;
    size_t pitch = 0, xstride = 1, cstride = 0, off = 0;
    const char *name = "";
};

// "" when the table (W x H x C, pitch W * C elements) equals the reference,
// else where it first differs.
std::string diff_table(const uint32_t *table, size_t W, size_t H, int C, const Reference &ref, cudaStream_t st,
                       unsigned long long *d_counts) {
    const unsigned long long init[2] = {0, ~0ull};
    check(cudaMemcpyAsync(d_counts, init, sizeof init, cudaMemcpyHostToDevice, st), "diff init");
    diff_kernel<<<2048, 256, 0, st>>>(table, W * (size_t)C, W, H, C, ref.p, ref.pitch, ref.xstride, ref.cstride,
                                      ref.off, d_counts, d_counts + 1);
    check(cudaGetLastError(), "diff kernel");
    unsigned long long got[2];
    check(cudaMemcpyAsync(got, d_counts, sizeof got, cudaMemcpyDeviceToHost, st), "diff result");
    check(cudaStreamSynchronize(st), "diff");
    if (got[0] == 0) return "";
    const size_t p = (size_t)(got[1] / (unsigned long long)C);
    return std::to_string(got[0]) + " elements differ from " + ref.name + ", first at (" + std::to_string(p % W) +
           "," + std::to_string(p / W) + ") channel " + std::to_string(got[1] % (unsigned long long)C);
}

// A and B interleaved, A B A B ..., each call alone between two CUDA events
// (the host waits for the second before the next call), after `warmup` calls
// of each; medians (upper, as bench_timing.cuh's) in milliseconds.
void time_interleaved(cudaStream_t st, int warmup, int reps, const std::function<void()> &a,
                      const std::function<void()> &b, double *ms_a, double *ms_b) {
    cudaEvent_t ev[2];
    check(cudaEventCreate(&ev[0]), "event");
    check(cudaEventCreate(&ev[1]), "event");
    for (int i = 0; i < warmup; ++i) {
        a();
        b();
    }
    check(cudaStreamSynchronize(st), "warm-up");
    std::vector<float> t[2];
    for (int i = 0; i < reps; ++i)
        for (int k = 0; k < 2; ++k) {
            check(cudaEventRecord(ev[0], st), "record");
            (k ? b : a)();
            check(cudaEventRecord(ev[1], st), "record");
            check(cudaEventSynchronize(ev[1]), "sync");
            float ms = 0;
            check(cudaEventElapsedTime(&ms, ev[0], ev[1]), "elapsed");
            t[k].push_back(ms);
        }
    for (cudaEvent_t e : ev) check(cudaEventDestroy(e), "event destroy");
    for (auto &v : t) std::sort(v.begin(), v.end());
    *ms_a = t[0][t[0].size() / 2];
    *ms_b = t[1][t[1].size() / 2];
}

struct TempCase {
    size_t w, h;
    int channels;
    const char *name;
};

// Returns the number of wrong tables.
int temp_table(int reps, cudaStream_t st, int dev, const cudaDeviceProp &prop, const char *date, const char *commit) {
    (void)dev;
    const int n_ab = std::max(reps, 21);
    const TempCase cases[] = {{3840, 2160, 4, "RGBA8 3840x2160"},
                              {256, 256, 1, "u8 256x256 (2^16 px)"},
                              {1024, 1024, 1, "u8 1024x1024 (2^20 px)"},
                              {4096, 4096, 1, "u8 4096x4096 (2^24 px)"},
                              {16384, 16384, 1, "u8 16384x16384 (2^28 px)"}};
    std::printf("\n## bench_sat: libscan_sat_build with opts = NULL (temp cache) beside caller temp\n\n");
    std::printf("GPU: %s (%d SMs), CUDA runtime %d, %s, commit %s. uint32 tables. Per image: one caller-temp call, "
                "libscan_temp_cache_release(), the first opts = NULL call alone (CUDA events; host = the call's own "
                "host time), then opts = NULL and caller temp interleaved (A B A B), %d of each after 3 warm-ups of "
                "each, medians of CUDA-event times, in microseconds. ratio = opts NULL / caller temp; target: <= 1.03 "
                "for large images, <= +1 us for images of <= 2^20 px.\n",
                prop.name, prop.multiProcessorCount, CUDART_VERSION, date, commit, n_ab);
#ifdef BENCH_SAT_HAVE_NPP
    std::printf("NPP: nppiIntegral_8u32s_C1R_Ctx (RGBA8: a de-interleave kernel and 4 calls, one per channel), median "
                "of %d; libscan/NPP = opts NULL / NPP. Every table libscan wrote (first call, opts = NULL, caller "
                "temp) is compared element by element with NPP's.\n\n",
                n_ab);
#else
    std::printf("NPP not built: every table libscan wrote (first call, opts = NULL, caller temp) is compared element "
                "by element with libscan_cpu_sat_build's.\n\n");
#endif
    std::printf("| image | first opts NULL call (events / host) | opts NULL | caller temp | ratio | NULL - caller "
                "| target | NPP | libscan/NPP | check |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int wrong = 0;
    for (const TempCase &tc : cases) {
        const size_t W = tc.w, H = tc.h, C = (size_t)tc.channels, n = W * H;
        size_t temp_bytes = 0;
        check_sat(libscan_sat_temp_bytes(W, H, (int)C, LIBSCAN_U32, &temp_bytes), "temp bytes");
        // in, two tables, caller temp, the cache's block (about temp_bytes),
        // and the reference (NPP's table and planes, or the CPU's table).
        const size_t need = n * C + 2 * n * C * 4 + 2 * temp_bytes + (W + 1) * (H + 1) * C * 4 + n * C;
        size_t free_b = 0, total_b = 0;
        check(cudaMemGetInfo(&free_b, &total_b), "memory info");
        if (need + ((size_t)256 << 20) > free_b) {
            std::printf("| %s | skipped (needs %zu MiB of GPU memory, %zu MiB free) | | | | | | | | |\n", tc.name,
                        need >> 20, free_b >> 20);
            continue;
        }
        uint8_t *in = nullptr;
        uint32_t *tab_a = nullptr, *tab_b = nullptr;
        void *temp = nullptr;
        unsigned long long *d_counts = nullptr;
        check(cudaMalloc(&in, n * C), "malloc in");
        check(cudaMalloc(&tab_a, n * C * 4), "malloc table A");
        check(cudaMalloc(&tab_b, n * C * 4), "malloc table B");
        check(cudaMalloc(&temp, temp_bytes), "malloc temp");
        check(cudaMalloc(&d_counts, 2 * sizeof(unsigned long long)), "malloc counts");
        fill_kernel<<<1024, 256, 0, st>>>(in, n * C, (uint32_t)W * 7919u + (uint32_t)H + (uint32_t)C);
        check(cudaGetLastError(), "fill");
        const libscan_sat_image_t img = {in, LIBSCAN_U8, (int)C, W, H, W * C};
        const libscan_sat_image_t ta = {tab_a, LIBSCAN_U32, (int)C, W, H, W * C * 4};
        const libscan_sat_image_t tb = {tab_b, LIBSCAN_U32, (int)C, W, H, W * C * 4};
        const libscan_sat_opts_t caller = {temp, temp_bytes};
        auto with_null = [&] { check_sat(libscan_sat_build(&img, &ta, nullptr, st), "libscan_sat_build (opts NULL)"); };
        auto with_temp = [&] { check_sat(libscan_sat_build(&img, &tb, &caller, st), "libscan_sat_build (caller temp)"); };

        // ---- the reference ----
        Reference ref;
        double t_npp = -1;
        std::string npp_note;
#ifdef BENCH_SAT_HAVE_NPP
        uint8_t *planes = nullptr;
        int32_t *npp = nullptr;
        const size_t plane = (W + 1) * (H + 1);
        check(cudaMalloc(&npp, plane * C * 4), "malloc npp");
        if (C > 1) check(cudaMalloc(&planes, n * C), "malloc planes");
        const NppStreamContext ctx = npp_context(st, dev, prop);
        const NppiSize roi = {(int)W, (int)H};
        NppStatus npp_status = NPP_SUCCESS;
        auto npp_call = [&] {
            if (C > 1) {
                deinterleave_kernel<<<2048, 256, 0, st>>>(reinterpret_cast<const uchar4 *>(in), planes, n);
                check(cudaGetLastError(), "de-interleave");
            }
            for (size_t c = 0; c < C; ++c) {
                const NppStatus s = nppiIntegral_8u32s_C1R_Ctx(C > 1 ? planes + c * n : in, (int)W, npp + c * plane,
                                                               (int)((W + 1) * 4), roi, 0, ctx);
                if (s != NPP_SUCCESS && npp_status == NPP_SUCCESS) npp_status = s;
            }
        };
        npp_call();
        check(cudaStreamSynchronize(st), "npp");
        if (npp_status == NPP_SUCCESS) {
            ref.p = reinterpret_cast<const uint32_t *>(npp); // the same bits modulo 2^32
            ref.pitch = W + 1;
            ref.xstride = 1;
            ref.cstride = plane;
            ref.off = 1;
            ref.name = "NPP";
            t_npp = median_ms(st, n_ab, npp_call);
        } else {
            npp_note = "NPP failed (status " + std::to_string((int)npp_status) + "); ";
        }
#endif
        uint32_t *cpu_ref = nullptr;
        if (!ref.p) { // no NPP: the CPU path
            std::vector<uint8_t> h_in(n * C);
            std::vector<uint32_t> h_ref(n * C);
            check(cudaMemcpy(h_in.data(), in, n * C, cudaMemcpyDeviceToHost), "download in");
            const libscan_sat_image_t hi = {h_in.data(), LIBSCAN_U8, (int)C, W, H, W * C};
            const libscan_sat_image_t ht = {h_ref.data(), LIBSCAN_U32, (int)C, W, H, W * C * 4};
            check_sat(libscan_cpu_sat_build(&hi, &ht), "cpu build");
            check(cudaMalloc(&cpu_ref, n * C * 4), "malloc cpu ref");
            check(cudaMemcpy(cpu_ref, h_ref.data(), n * C * 4, cudaMemcpyHostToDevice), "upload cpu ref");
            ref.p = cpu_ref;
            ref.pitch = W * C;
            ref.xstride = C;
            ref.cstride = 1;
            ref.off = 0;
            ref.name = "libscan_cpu_sat_build";
        }

        // ---- the first opts = NULL call after the cache is released ----
        with_temp(); // kernels loaded, nothing lazy left in the timed call
        check(cudaStreamSynchronize(st), "caller-temp warm-up");
        check_sat(libscan_temp_cache_release(), "libscan_temp_cache_release");
        cudaEvent_t ev[2];
        check(cudaEventCreate(&ev[0]), "event");
        check(cudaEventCreate(&ev[1]), "event");
        check(cudaEventRecord(ev[0], st), "record");
        const auto h0 = std::chrono::steady_clock::now();
        with_null();
        const auto h1 = std::chrono::steady_clock::now();
        check(cudaEventRecord(ev[1], st), "record");
        check(cudaEventSynchronize(ev[1]), "first call");
        float first_ms = 0;
        check(cudaEventElapsedTime(&first_ms, ev[0], ev[1]), "elapsed");
        for (cudaEvent_t e : ev) check(cudaEventDestroy(e), "event destroy");
        const double first_host_us = std::chrono::duration<double, std::micro>(h1 - h0).count();
        std::string verdict = diff_table(tab_a, W, H, (int)C, ref, st, d_counts);
        if (!verdict.empty()) verdict = "first call: " + verdict;

        // ---- interleaved ----
        double ms_null = 0, ms_temp = 0;
        time_interleaved(st, 3, n_ab, with_null, with_temp, &ms_null, &ms_temp);
        std::string bad = diff_table(tab_a, W, H, (int)C, ref, st, d_counts);
        if (!bad.empty()) verdict += (verdict.empty() ? "opts NULL: " : "; opts NULL: ") + bad;
        bad = diff_table(tab_b, W, H, (int)C, ref, st, d_counts);
        if (!bad.empty()) verdict += (verdict.empty() ? "caller temp: " : "; caller temp: ") + bad;
        if (!verdict.empty()) ++wrong;
        verdict = npp_note + (verdict.empty() ? "ok (vs " + std::string(ref.name) + ")" : "WRONG: " + verdict);

        const double us_null = ms_null * 1e3, us_temp = ms_temp * 1e3;
        const bool small = n <= ((size_t)1 << 20);
        const bool met = small ? us_null - us_temp <= 1.0 : ms_null <= 1.03 * ms_temp;
        char npp_cells[64] = "n/a | n/a";
        if (t_npp > 0) std::snprintf(npp_cells, sizeof npp_cells, "%.1f | %.2f", t_npp * 1e3, ms_null / t_npp);
        std::printf("| %s | %.1f / %.1f | %.1f | %.1f | %.3f | %+.1f | %s %s | %s | %s |\n", tc.name, first_ms * 1e3,
                    first_host_us, us_null, us_temp, ms_null / ms_temp, us_null - us_temp,
                    small ? "<= +1 us:" : "<= 1.03:", met ? "met" : "MISSED", npp_cells, verdict.c_str());
        std::fflush(stdout);
#ifdef BENCH_SAT_HAVE_NPP
        cudaFree(planes);
        cudaFree(npp);
#endif
        cudaFree(cpu_ref);
        cudaFree(d_counts);
        cudaFree(in);
        cudaFree(tab_a);
        cudaFree(tab_b);
        cudaFree(temp);
    }
    // The cache keeps the largest block until released: give it back before
    // anything else runs in this process.
    check_sat(libscan_temp_cache_release(), "libscan_temp_cache_release");
    return wrong;
}

} // namespace

int main(int argc, char **argv) {
    int reps = 21;
    bool temp_only = false, no_temp = false;
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
        } else if (!std::strcmp(argv[i], "--temp-only")) {
            temp_only = true;
        } else if (!std::strcmp(argv[i], "--no-temp")) {
            no_temp = true;
        } else if (!std::strcmp(argv[i], "--help")) {
            std::printf("usage: bench_sat [--reps N] [--sizes WxH,...] [--temp-only | --no-temp]\n"
                        "  --sizes      the RGBA8 sizes of the first table (SAT vs NPP, blur, DoF job)\n"
                        "  --temp-only  only the second table (opts = NULL beside caller temp)\n"
                        "  --no-temp    only the first table\n");
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
    const char *commit = libscan_bench_commit();

    int wrong = 0;
    if (!temp_only) wrong += main_table(sizes, reps, st, dev, prop, date, commit);
    if (!no_temp) wrong += temp_table(reps, st, dev, prop, date, commit);
    return wrong ? 3 : 0;
}
