// blur_gpu.cu -- the GPU run of the depth-of-field blur (blur.h): upload,
// per pass the table(s) and the filter, download. Public API only: the C API
// of <libscan/sat.h> and, for the weighted tables (a transform fused into the
// table's first read), the device layer <libscan/cuda/sat_kernels.cuh>.
#include "blur.h"
#include <libscan/sat.h>
#include <libscan/cuda/sat_kernels.cuh>

#include <cuda_runtime.h>
#include <cstdio>

namespace {

// The first pass of the weighted image's table reads each pixel times its
// weight (blur_apply_weights' formula, u16 product included), and the first
// pass of the weight table reads the radius map as a 1-channel image and
// turns each radius into its weight: no separate weighting pass, no weighted
// copies in memory, and the same tables as the CPU path.
struct WeightPixels {
    const uint16_t *radius;
    size_t width;
    template <typename V> __device__ __forceinline__ V operator()(size_t row, size_t col, const V &v) const {
        const unsigned w = blur_weight(__ldg(radius + row * width + col));
        V r;
#pragma unroll
        for (int c = 0; c < (int)(sizeof(v.v) / sizeof(v.v[0])); ++c) r.v[c] = (uint16_t)(v.v[c] * w);
        return r;
    }
};
struct RadiusToWeight {
    template <typename V> __device__ __forceinline__ V operator()(size_t, size_t, const V &v) const {
        V r;
        r.v[0] = blur_weight((uint16_t)v.v[0]);
        return r;
    }
};

// The table of the weighted image.
template <int C>
cudaError_t weighted_image_table(const uint16_t *img, const uint16_t *radius, size_t W, size_t H, unsigned char *temp,
                                 unsigned char *tab, cudaStream_t stream) {
    return libscan::sat::build_sat<uint16_t, uint32_t, C>(reinterpret_cast<const unsigned char *>(img), W * C * 2, W, H,
                                                        temp, tab, W * C * 4, stream, WeightPixels{radius, W});
}
// The table of the weights (built once: the radii never change).
cudaError_t weight_table(const uint16_t *radius, size_t W, size_t H, unsigned char *temp, unsigned char *wtab,
                         cudaStream_t stream) {
    return libscan::sat::build_sat<uint16_t, uint32_t, 1>(reinterpret_cast<const unsigned char *>(radius), W * 2, W, H,
                                                        temp, wtab, W * 4, stream, RadiusToWeight{});
}

// `side` builds the weight table while `stream` builds the image's: each
// table's scans use a few warps per row, so two tables at once fill the GPU
// better than one after the other.
struct Gpu {
    cudaStream_t stream = nullptr, side = nullptr;
    cudaEvent_t ev[2] = {nullptr, nullptr}, fork = nullptr, join = nullptr;
    void *buf[6] = {};
    ~Gpu() {
        for (void *p : buf) cudaFree(p);
        for (cudaEvent_t e : {ev[0], ev[1], fork, join})
            if (e) cudaEventDestroy(e);
        if (stream) cudaStreamDestroy(stream);
        if (side) cudaStreamDestroy(side);
    }
};

} // namespace

extern "C" int blur_run_gpu(const blur_job_t *job, blur_times_t *times, char *err, size_t errlen) {
    if (times) times->upload = times->sat = times->blur = times->download = 0;
    if (!job || !job->pixels || job->channels < 1 || job->channels > 4 || job->passes < 1 ||
        (job->weighted && !job->radius_q8)) {
        snprintf(err, errlen, "GPU blur: invalid job");
        return -1;
    }
    const size_t W = job->width, H = job->height, C = (size_t)job->channels, n = W * H;
    Gpu g;
    cudaError_t e = cudaSuccess;
    float ms = 0;
    // The phase between the two events, added to `slot`.
    auto lap = [&](double *slot) {
        if (e != cudaSuccess) return;
        e = cudaEventRecord(g.ev[1], g.stream);
        if (e == cudaSuccess) e = cudaEventSynchronize(g.ev[1]);
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, g.ev[0], g.ev[1]);
        if (e == cudaSuccess && slot) *slot += ms * 1e-3;
        if (e == cudaSuccess) e = cudaEventRecord(g.ev[0], g.stream);
    };
    libscan_status_t st = LIBSCAN_SUCCESS;
    const char *what = "";
    size_t temp_bytes = 0, wtemp_bytes = 0;
    // The library's own figure (slack included) serves build_sat too: the
    // buffers come from cudaMalloc, already 256-byte aligned.
    st = libscan_sat_temp_bytes(W, H, (int)C, LIBSCAN_U32, &temp_bytes);
    if (st == LIBSCAN_SUCCESS) st = libscan_sat_temp_bytes(W, H, 1, LIBSCAN_U32, &wtemp_bytes);
    if (st != LIBSCAN_SUCCESS) {
        snprintf(err, errlen, "GPU blur: %s (%zux%zu pixels)", libscan_status_string(st), W, H);
        return -1;
    }
    const size_t img_bytes = n * C * 2, tab_bytes = n * C * 4;
    // buf: 0 image, 1 table, 2 temp, 3 weight table, 4 radii, 5 weight table's temp
    const size_t sizes[6] = {img_bytes,       tab_bytes, temp_bytes, job->weighted ? n * 4 : 0, job->radius_q8 ? n * 2 : 0,
                             job->weighted ? wtemp_bytes : 0};
    e = cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&g.side, cudaStreamNonBlocking);
    for (int i = 0; i < 2 && e == cudaSuccess; ++i) e = cudaEventCreate(&g.ev[i]);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&g.fork, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&g.join, cudaEventDisableTiming);
    for (int i = 0; i < 6 && e == cudaSuccess; ++i)
        if (sizes[i]) e = cudaMalloc(&g.buf[i], sizes[i]);
    if (e != cudaSuccess) {
        what = "allocating GPU memory";
        goto cuda_fail;
    }
    {
        uint16_t *d_img = static_cast<uint16_t *>(g.buf[0]);
        uint16_t *d_radius = static_cast<uint16_t *>(g.buf[4]);
        unsigned char *d_tab = static_cast<unsigned char *>(g.buf[1]), *d_temp = static_cast<unsigned char *>(g.buf[2]);
        unsigned char *d_wtab = static_cast<unsigned char *>(g.buf[3]), *d_wtemp = static_cast<unsigned char *>(g.buf[5]);
        const libscan_sat_image_t img = {d_img, LIBSCAN_U16, (int)C, W, H, W * C * 2};
        const libscan_sat_image_t tab = {d_tab, LIBSCAN_U32, (int)C, W, H, W * C * 4};
        const libscan_sat_image_t wtab = {d_wtab, LIBSCAN_U32, 1, W, H, W * 4};

        e = cudaEventRecord(g.ev[0], g.stream);
        if (e == cudaSuccess) e = cudaMemcpyAsync(d_img, job->pixels, img_bytes, cudaMemcpyHostToDevice, g.stream);
        if (e == cudaSuccess && d_radius)
            e = cudaMemcpyAsync(d_radius, job->radius_q8, n * 2, cudaMemcpyHostToDevice, g.stream);
        lap(times ? &times->upload : nullptr);
        what = "uploading the image";
        if (e != cudaSuccess) goto cuda_fail;

        for (int pass = 0; pass < job->passes && st == LIBSCAN_SUCCESS; ++pass) {
            what = "building the table";
            if (job->weighted) {
                if (pass == 0) { // fork: the weight table on the side stream
                    e = cudaEventRecord(g.fork, g.stream);
                    if (e == cudaSuccess) e = cudaStreamWaitEvent(g.side, g.fork, 0);
                    if (e == cudaSuccess) e = weight_table(d_radius, W, H, d_wtemp, d_wtab, g.side);
                    if (e == cudaSuccess) e = cudaEventRecord(g.join, g.side);
                }
                if (e == cudaSuccess) {
                    switch (C) {
                    case 1: e = weighted_image_table<1>(d_img, d_radius, W, H, d_temp, d_tab, g.stream); break;
                    case 2: e = weighted_image_table<2>(d_img, d_radius, W, H, d_temp, d_tab, g.stream); break;
                    case 3: e = weighted_image_table<3>(d_img, d_radius, W, H, d_temp, d_tab, g.stream); break;
                    default: e = weighted_image_table<4>(d_img, d_radius, W, H, d_temp, d_tab, g.stream); break;
                    }
                }
                if (e == cudaSuccess && pass == 0) e = cudaStreamWaitEvent(g.stream, g.join, 0); // join
                if (e != cudaSuccess) goto cuda_fail;
            } else {
                {
                    const libscan_sat_opts_t o = {d_temp, temp_bytes};
                    st = libscan_sat_build(&img, &tab, &o, g.stream);
                }
            }
            lap(times ? &times->sat : nullptr);
            if (e != cudaSuccess) goto cuda_fail;
            if (st != LIBSCAN_SUCCESS) break;
            what = "filtering";
            st = libscan_sat_box_filter(&tab, job->weighted ? &wtab : nullptr, d_radius, W * 2, job->uniform_q8, &img,
                                g.stream);
            lap(times ? &times->blur : nullptr);
            if (e != cudaSuccess) goto cuda_fail;
        }
        if (st != LIBSCAN_SUCCESS) {
            snprintf(err, errlen, "GPU blur: %s while %s", libscan_status_string(st), what);
            return st == LIBSCAN_ERROR_CUDA || st == LIBSCAN_ERROR_OUT_OF_MEMORY ? -2 : -1;
        }
        what = "downloading the result";
        e = cudaMemcpyAsync(job->pixels, d_img, img_bytes, cudaMemcpyDeviceToHost, g.stream);
        lap(times ? &times->download : nullptr);
        if (e == cudaSuccess) e = cudaStreamSynchronize(g.stream);
        if (e != cudaSuccess) goto cuda_fail;
    }
    return 0;
cuda_fail:
    snprintf(err, errlen, "GPU blur: %s while %s", cudaGetErrorString(e), what);
    return -2;
}
