// blur_gpu.cu -- the GPU run of the depth-of-field blur (blur.h): upload,
// per pass the weighted copy, the table(s) and the filter, download.
#include "blur.h"
#include "sat.h"

#include <cuda_runtime.h>
#include <cstdio>

namespace {

// out = in * weight(radius), and the weight map: blur_apply_weights on the GPU
// (same integer formula from blur.h, so the same values).
__global__ void weights_kernel(const uint16_t *in, const uint16_t *radius, size_t pixels, int channels, uint16_t *out,
                               uint8_t *wmap) {
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < pixels; p += (size_t)gridDim.x * blockDim.x) {
        const uint16_t w = blur_weight(radius[p]);
        for (int c = 0; c < channels; ++c) out[p * channels + c] = (uint16_t)(in[p * channels + c] * w);
        if (wmap) wmap[p] = (uint8_t)w;
    }
}

struct Gpu {
    cudaStream_t stream = nullptr;
    cudaEvent_t ev[2] = {nullptr, nullptr};
    void *buf[7] = {};
    ~Gpu() {
        for (void *p : buf) cudaFree(p);
        for (cudaEvent_t e : ev)
            if (e) cudaEventDestroy(e);
        if (stream) cudaStreamDestroy(stream);
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
    sat_status_t st = SAT_SUCCESS;
    const char *what = "";
    size_t temp_bytes = 0;
    sat_temp_bytes(W, H, (int)C, SAT_U32, &temp_bytes);
    const size_t img_bytes = n * C * 2, tab_bytes = n * C * 4;
    // buf: 0 image, 1 weighted image, 2 table, 3 temp, 4 weight map, 5 weight table, 6 radii
    const size_t sizes[7] = {img_bytes, job->weighted ? img_bytes : 0, tab_bytes, temp_bytes, job->weighted ? n : 0,
                             job->weighted ? n * 4 : 0, job->radius_q8 ? n * 2 : 0};
    e = cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking);
    for (int i = 0; i < 2 && e == cudaSuccess; ++i) e = cudaEventCreate(&g.ev[i]);
    for (int i = 0; i < 7 && e == cudaSuccess; ++i)
        if (sizes[i]) e = cudaMalloc(&g.buf[i], sizes[i]);
    if (e != cudaSuccess) {
        what = "allocating GPU memory";
        goto cuda_fail;
    }
    {
        uint16_t *d_img = static_cast<uint16_t *>(g.buf[0]), *d_wimg = static_cast<uint16_t *>(g.buf[1]);
        uint8_t *d_wmap = static_cast<uint8_t *>(g.buf[4]);
        uint16_t *d_radius = static_cast<uint16_t *>(g.buf[6]);
        const sat_image_t img = {d_img, SAT_U16, (int)C, W, H, W * C * 2};
        const sat_image_t wimg = {d_wimg, SAT_U16, (int)C, W, H, W * C * 2};
        const sat_image_t tab = {g.buf[2], SAT_U32, (int)C, W, H, W * C * 4};
        const sat_image_t wm = {d_wmap, SAT_U8, 1, W, H, W};
        const sat_image_t wtab = {g.buf[5], SAT_U32, 1, W, H, W * 4};

        e = cudaEventRecord(g.ev[0], g.stream);
        if (e == cudaSuccess) e = cudaMemcpyAsync(d_img, job->pixels, img_bytes, cudaMemcpyHostToDevice, g.stream);
        if (e == cudaSuccess && d_radius)
            e = cudaMemcpyAsync(d_radius, job->radius_q8, n * 2, cudaMemcpyHostToDevice, g.stream);
        lap(times ? &times->upload : nullptr);
        what = "uploading the image";
        if (e != cudaSuccess) goto cuda_fail;

        for (int pass = 0; pass < job->passes && st == SAT_SUCCESS; ++pass) {
            what = "building the table";
            if (job->weighted) {
                const size_t blocks = (n + 255) / 256;
                weights_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, g.stream>>>(
                    d_img, d_radius, n, (int)C, d_wimg, pass == 0 ? d_wmap : nullptr);
                e = cudaGetLastError();
                if (e != cudaSuccess) goto cuda_fail;
                st = sat_build(&wimg, &tab, g.buf[3], temp_bytes, g.stream);
                if (st == SAT_SUCCESS && pass == 0) st = sat_build(&wm, &wtab, g.buf[3], temp_bytes, g.stream);
            } else {
                st = sat_build(&img, &tab, g.buf[3], temp_bytes, g.stream);
            }
            lap(times ? &times->sat : nullptr);
            if (e != cudaSuccess) goto cuda_fail;
            if (st != SAT_SUCCESS) break;
            what = "filtering";
            st = sat_box_filter(&tab, job->weighted ? &wtab : nullptr, d_radius, W * 2, job->uniform_q8, &img,
                                g.stream);
            lap(times ? &times->blur : nullptr);
            if (e != cudaSuccess) goto cuda_fail;
        }
        if (st != SAT_SUCCESS) {
            snprintf(err, errlen, "GPU blur: %s while %s", sat_status_string(st), what);
            return st == SAT_ERROR_CUDA || st == SAT_ERROR_OUT_OF_MEMORY ? -2 : -1;
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
