// blur_gpu.cu -- the GPU runs of the depth-of-field blur: blur_run_gpu
// (fixed-point samples from the host, blur.h) and blur_image_run_gpu (a
// whole job from the file's raw pixels to raw pixels, pipeline.h), sharing
// one per-pass core. Public API only: the C API of <libscan/sat.h> and, for
// the weighted tables (a transform fused into the table's first read), the
// device layer <libscan/cuda/sat_kernels.cuh>.
#include "blur.h"
#include "convert_gpu.h"
#include "pipeline.h"
#include "common/host_mem.h"
#include <libscan/sat.h>
#include <libscan/cuda/sat_kernels.cuh>

#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace {

// Both passes of the weighted image's table over the image read each pixel
// times its weight (blur_apply_weights' product, which fits the sample type:
// blur.h), and those of the weight table read the radius map as a
// 1-channel image and turns each radius into its weight: no separate
// weighting pass, no weighted copies in memory, and the same tables as the
// CPU path.
struct WeightPixels {
    const uint16_t *radius;
    size_t width;
    template <typename V> __device__ __forceinline__ V operator()(size_t row, size_t col, const V &v) const {
        const unsigned w = blur_weight(__ldg(radius + row * width + col));
        V r;
#pragma unroll
        for (int c = 0; c < (int)(sizeof(v.v) / sizeof(v.v[0])); ++c) r.v[c] = v.v[c] * w;
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

// The table of the weighted image: samples S, table elements Acc.
template <typename S, typename Acc, int C>
cudaError_t weighted_table_c(const void *img, const uint16_t *radius, size_t W, size_t H, unsigned char *temp,
                             unsigned char *tab, cudaStream_t stream) {
    return libscan::sat::build_sat<S, Acc, C>(static_cast<const unsigned char *>(img), W * C * sizeof(S), W, H, temp,
                                              tab, W * C * sizeof(Acc), stream, WeightPixels{radius, W});
}
template <typename S, typename Acc>
cudaError_t weighted_table_t(int C, const void *img, const uint16_t *radius, size_t W, size_t H, unsigned char *temp,
                             unsigned char *tab, cudaStream_t stream) {
    switch (C) {
    case 1: return weighted_table_c<S, Acc, 1>(img, radius, W, H, temp, tab, stream);
    case 2: return weighted_table_c<S, Acc, 2>(img, radius, W, H, temp, tab, stream);
    case 3: return weighted_table_c<S, Acc, 3>(img, radius, W, H, temp, tab, stream);
    default: return weighted_table_c<S, Acc, 4>(img, radius, W, H, temp, tab, stream);
    }
}
cudaError_t weighted_image_table(blur_precision_t p, int C, const void *img, const uint16_t *radius, size_t W,
                                 size_t H, unsigned char *temp, unsigned char *tab, cudaStream_t stream) {
    switch (p) {
    case BLUR_P30: return weighted_table_t<uint32_t, unsigned long long>(C, img, radius, W, H, temp, tab, stream);
    case BLUR_P37:
        return weighted_table_t<unsigned long long, unsigned long long>(C, img, radius, W, H, temp, tab, stream);
    default: return weighted_table_t<uint16_t, uint32_t>(C, img, radius, W, H, temp, tab, stream);
    }
}
// The table of the weights (built once: the radii never change).
cudaError_t weight_table(const uint16_t *radius, size_t W, size_t H, unsigned char *temp, unsigned char *wtab,
                         cudaStream_t stream) {
    return libscan::sat::build_sat<uint16_t, uint32_t, 1>(reinterpret_cast<const unsigned char *>(radius), W * 2, W, H,
                                                        temp, wtab, W * 4, stream, RadiusToWeight{});
}

libscan_dtype_t uint_dtype(int bytes) {
    return bytes == 2 ? LIBSCAN_U16 : (bytes == 4 ? LIBSCAN_U32 : LIBSCAN_U64);
}

// The device resources of a thread, kept from one run to the next
// (blur_gpu_release frees them): a batch blurs frame after frame on one
// thread, and per-frame cudaMalloc / cudaFree (which waits for the whole
// device) and stream creation cost more than a 4K frame's GPU work.
// `side` builds the weight table while `stream` builds the image's (each
// table's carry scans between its tile passes are small, so two tables at
// once fill the GPU better than one after the other); ev[0..1] time the
// phases. Buffers are slots that only grow. The pinned staging buffer is
// made on a thread's second run (a single image would pay more for pinning
// than it saves on the copies).
struct Workspace {
    static constexpr int kMaxBufs = 16; // a whole job takes 12 at most
    cudaStream_t stream = nullptr, side = nullptr;
    cudaEvent_t ev[2] = {nullptr, nullptr}, fork = nullptr, join = nullptr;
    void *buf[kMaxBufs] = {};
    size_t cap[kMaxBufs] = {};
    void *pinned = nullptr;
    size_t pinned_cap = 0;
    int runs = 0;
    bool ready = false;

    cudaError_t init() {
        if (ready) return cudaSuccess;
        cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
        for (int i = 0; i < 2 && e == cudaSuccess; ++i) e = cudaEventCreate(&ev[i]);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
        if (e != cudaSuccess) release();
        ready = e == cudaSuccess;
        return e;
    }
    void release() {
        for (int i = 0; i < kMaxBufs; ++i) {
            app_device_free(buf[i]);
            buf[i] = nullptr;
            cap[i] = 0;
        }
        if (pinned) cudaFreeHost(pinned);
        pinned = nullptr;
        pinned_cap = 0;
        for (cudaEvent_t *x : {&ev[0], &ev[1], &fork, &join})
            if (*x) cudaEventDestroy(*x), *x = nullptr;
        if (stream) cudaStreamDestroy(stream);
        if (side) cudaStreamDestroy(side);
        stream = side = nullptr;
        runs = 0;
        ready = false;
    }
};
thread_local Workspace tl_ws;

// One run on the thread's workspace. The first CUDA error stays in `e`,
// with `what` saying what was being done.
struct Gpu {
    Workspace &w = tl_ws;
    // The workspace's streams and events under the names the run uses.
    cudaStream_t &stream = w.stream, &side = w.side;
    cudaEvent_t (&ev)[2] = w.ev;
    cudaEvent_t &fork = w.fork, &join = w.join;
    int nbuf = 0;
    cudaError_t e = cudaSuccess;
    const char *what = "";
    float ms = 0;

    Gpu() {
        what = "creating streams";
        e = w.init();
        if (e != cudaSuccess) return;
        w.runs++;
        e = cudaEventRecord(ev[0], stream);
    }
    // Device memory of at least `bytes` (nullptr for 0), kept for the
    // thread's next run. Slots are handed out in call order, so a run that
    // asks for the same buffers as the last one allocates nothing.
    void *alloc(size_t bytes) {
        if (e != cudaSuccess || !bytes) return nullptr;
        what = "allocating GPU memory";
        if (nbuf >= Workspace::kMaxBufs) {
            e = cudaErrorMemoryAllocation;
            return nullptr;
        }
        const int i = nbuf++;
        if (w.cap[i] < bytes) {
            app_device_free(w.buf[i]);
            w.buf[i] = nullptr;
            w.cap[i] = 0;
            e = cudaMalloc(&w.buf[i], bytes);
            if (e != cudaSuccess) return nullptr;
            w.cap[i] = bytes;
        }
        return w.buf[i];
    }
    void copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, const char *doing) {
        if (e != cudaSuccess || !bytes) return;
        what = doing;
        e = cudaMemcpyAsync(dst, src, bytes, kind, stream);
    }
    // The pinned staging buffer of at least `bytes`, or nullptr on a
    // thread's first run and when pinning fails (the copies then go from
    // pageable memory, as before).
    unsigned char *staging(size_t bytes) {
        if (w.runs < 2 || e != cudaSuccess) return nullptr;
        if (w.pinned_cap < bytes) {
            if (w.pinned) cudaFreeHost(w.pinned);
            w.pinned = nullptr;
            w.pinned_cap = 0;
            if (cudaMallocHost(&w.pinned, bytes) != cudaSuccess) {
                (void)cudaGetLastError();
                w.pinned = nullptr;
                return nullptr;
            }
            w.pinned_cap = bytes;
        }
        return static_cast<unsigned char *>(w.pinned);
    }
    // Host to device through the staging buffer in slices, so that copying a
    // slice into pinned memory overlaps the DMA of the slice before; falls
    // back to a pageable copy when there is no staging buffer.
    void upload(void *dst, const void *src, size_t bytes, const char *doing) {
        if (e != cudaSuccess || !bytes) return;
        unsigned char *pin = staging(bytes);
        if (!pin) return copy(dst, src, bytes, cudaMemcpyHostToDevice, doing);
        what = doing;
        constexpr size_t kSlice = size_t(4) << 20;
        for (size_t o = 0; o < bytes && e == cudaSuccess; o += kSlice) {
            const size_t n = bytes - o < kSlice ? bytes - o : kSlice;
            memcpy(pin + o, static_cast<const unsigned char *>(src) + o, n);
            e = cudaMemcpyAsync(static_cast<unsigned char *>(dst) + o, pin + o, n, cudaMemcpyHostToDevice, stream);
        }
        // The staging buffer is reused by the next upload or download.
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    }
    // Device to host through the staging buffer (see upload).
    void download(void *dst, const void *src, size_t bytes, const char *doing) {
        if (e != cudaSuccess || !bytes) return;
        unsigned char *pin = staging(bytes);
        if (!pin) return copy(dst, src, bytes, cudaMemcpyDeviceToHost, doing);
        what = doing;
        e = cudaMemcpyAsync(pin, src, bytes, cudaMemcpyDeviceToHost, stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
        if (e == cudaSuccess) memcpy(dst, pin, bytes);
    }
    // Waits for the stream and adds the time since the last lap to *slot.
    void lap(double *slot) {
        if (e != cudaSuccess) return;
        e = cudaEventRecord(ev[1], stream);
        if (e == cudaSuccess) e = cudaEventSynchronize(ev[1]);
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, ev[0], ev[1]);
        if (e == cudaSuccess && slot) *slot += ms * 1e-3;
        if (e == cudaSuccess) e = cudaEventRecord(ev[0], stream);
    }
    int fail(char *err, size_t errlen) const {
        snprintf(err, errlen, "GPU blur: %s while %s", cudaGetErrorString(e), what);
        return -2;
    }
};

// A blur of fixed-point samples already on the device.
struct DeviceJob {
    size_t W, H;
    int C;
    blur_precision_t precision;
    void *img;             // samples, in and out
    const uint16_t *radius; // nullptr: uniform_q8
    uint16_t uniform_q8;
    int weighted, passes;
};

// Per pass: the table(s), then the filter back into the image. Returns 0,
// -1 (refused by the library) or -2 (CUDA), with err.
int run_passes(Gpu &g, const DeviceJob &j, blur_times_t *times, char *err, size_t errlen) {
    const blur_format_t f = blur_format(j.precision);
    const size_t W = j.W, H = j.H, C = (size_t)j.C, n = W * H;
    const libscan_dtype_t sdt = uint_dtype(f.sample_bytes), tdt = uint_dtype(f.table_bytes);
    size_t temp_bytes = 0, wtemp_bytes = 0;
    // The library's own figure (slack included) serves build_sat too: the
    // buffers come from cudaMalloc, already 256-byte aligned.
    libscan_status_t st = libscan_sat_temp_bytes(W, H, (int)C, tdt, &temp_bytes);
    if (st == LIBSCAN_SUCCESS) st = libscan_sat_temp_bytes(W, H, 1, LIBSCAN_U32, &wtemp_bytes);
    if (st != LIBSCAN_SUCCESS) {
        snprintf(err, errlen, "GPU blur: %s (%zux%zu pixels)", libscan_status_string(st), W, H);
        return -1;
    }
    auto *tab = static_cast<unsigned char *>(g.alloc(n * C * (size_t)f.table_bytes));
    auto *temp = static_cast<unsigned char *>(g.alloc(temp_bytes));
    auto *wtab = static_cast<unsigned char *>(g.alloc(j.weighted ? n * 4 : 0));
    auto *wtemp = static_cast<unsigned char *>(g.alloc(j.weighted ? wtemp_bytes : 0));
    if (g.e != cudaSuccess) return g.fail(err, errlen);
    // The allocations ran on the host while the stream stood idle: restart
    // the lap clock so that times->sat counts the GPU's work, not them.
    g.lap(nullptr);
    const libscan_sat_image_t img = {j.img, sdt, (int)C, W, H, W * C * (size_t)f.sample_bytes};
    const libscan_sat_image_t table = {tab, tdt, (int)C, W, H, W * C * (size_t)f.table_bytes};
    const libscan_sat_image_t wtable = {wtab, LIBSCAN_U32, 1, W, H, W * 4};
    const char *what = "";
    for (int pass = 0; pass < j.passes && st == LIBSCAN_SUCCESS; ++pass) {
        what = "building the table";
        g.what = what;
        if (j.weighted) {
            if (pass == 0) { // fork: the weight table on the side stream
                g.e = cudaEventRecord(g.fork, g.stream);
                if (g.e == cudaSuccess) g.e = cudaStreamWaitEvent(g.side, g.fork, 0);
                if (g.e == cudaSuccess) g.e = weight_table(j.radius, W, H, wtemp, wtab, g.side);
                if (g.e == cudaSuccess) g.e = cudaEventRecord(g.join, g.side);
            }
            if (g.e == cudaSuccess) g.e = weighted_image_table(j.precision, j.C, j.img, j.radius, W, H, temp, tab, g.stream);
            if (g.e == cudaSuccess && pass == 0) g.e = cudaStreamWaitEvent(g.stream, g.join, 0); // join
        } else {
            const libscan_sat_opts_t o = {temp, temp_bytes};
            st = libscan_sat_build(&img, &table, &o, g.stream);
        }
        g.lap(times ? &times->sat : nullptr);
        if (g.e != cudaSuccess) return g.fail(err, errlen);
        if (st != LIBSCAN_SUCCESS) break;
        what = "filtering";
        st = libscan_sat_box_filter(&table, j.weighted ? &wtable : nullptr, j.radius, W * 2, j.uniform_q8, &img,
                                    g.stream);
        g.what = what;
        g.lap(times ? &times->blur : nullptr);
        if (g.e != cudaSuccess) return g.fail(err, errlen);
    }
    if (st != LIBSCAN_SUCCESS) {
        snprintf(err, errlen, "GPU blur: %s while %s", libscan_status_string(st), what);
        return st == LIBSCAN_ERROR_CUDA || st == LIBSCAN_ERROR_OUT_OF_MEMORY ? -2 : -1;
    }
    return 0;
}

void zero_times(blur_times_t *t) {
    if (t) t->upload = t->sat = t->blur = t->download = t->convert = 0;
}

double now_s() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

} // namespace

extern "C" void blur_gpu_release(void) {
    tl_ws.release();
}

extern "C" int blur_run_gpu(const blur_job_t *job, blur_times_t *times, char *err, size_t errlen) {
    zero_times(times);
    if (!job || !job->pixels || job->channels < 1 || job->channels > 4 || job->passes < 1 ||
        (job->weighted && !job->radius_q8) || (unsigned)job->precision > BLUR_P37) {
        snprintf(err, errlen, "GPU blur: invalid job");
        return -1;
    }
    const size_t W = job->width, H = job->height, n = W * H;
    const size_t img_bytes = n * (size_t)job->channels * (size_t)blur_format(job->precision).sample_bytes;
    Gpu g;
    void *d_img = g.alloc(img_bytes);
    auto *d_radius = static_cast<uint16_t *>(g.alloc(job->radius_q8 ? n * 2 : 0));
    g.copy(d_img, job->pixels, img_bytes, cudaMemcpyHostToDevice, "uploading the image");
    if (d_radius) g.copy(d_radius, job->radius_q8, n * 2, cudaMemcpyHostToDevice, "uploading the radii");
    g.lap(times ? &times->upload : nullptr);
    if (g.e != cudaSuccess) return g.fail(err, errlen);
    const DeviceJob dj = {W, H, job->channels, job->precision, d_img, d_radius, job->uniform_q8, job->weighted, job->passes};
    const int rc = run_passes(g, dj, times, err, errlen);
    if (rc != 0) return rc;
    g.copy(job->pixels, d_img, img_bytes, cudaMemcpyDeviceToHost, "downloading the result");
    g.lap(times ? &times->download : nullptr);
    return g.e == cudaSuccess ? 0 : g.fail(err, errlen);
}

extern "C" int blur_image_run_gpu(const blur_image_job_t *job, blur_times_t *times, char *err, size_t errlen) {
    zero_times(times);
    const double t0 = now_s();
    blur_plan_t plan;
    if (blur_plan_init(job, &plan, err, errlen) != 0) return -1;
    if (times) times->convert += now_s() - t0;
    const blur_pixels_t &in = job->in;
    const size_t W = in.width, H = in.height, C = (size_t)in.channels, n = W * H;
    const size_t raw_bytes = n * C * (size_t)(in.bits / 8);
    const size_t fixed_bytes = n * C * (size_t)blur_format(plan.precision).sample_bytes;
    const size_t depth_bytes =
        job->mode == BLUR_MODE_DEPTH ? n * (size_t)job->depth.channels * (size_t)(job->depth.bits / 8) : 0;
    const size_t levels = in.bits == 16 ? 65536u : 256u;
    int rc = -2;
    {
        Gpu g;
        void *d_raw = g.alloc(raw_bytes); // the file's pixels in, and out
        void *d_fixed = g.alloc(fixed_bytes);
        void *d_depth = g.alloc(depth_bytes);
        auto *d_radius = static_cast<uint16_t *>(g.alloc(plan.weighted ? n * 2 : 0));
        auto *d_decode = static_cast<uint64_t *>(g.alloc(levels * sizeof(uint64_t)));
        auto *d_split = static_cast<uint32_t *>(g.alloc((levels - 1) * sizeof(uint32_t)));
        auto *d_index = static_cast<uint16_t *>(g.alloc(BLUR_INDEX_LEN * sizeof(uint16_t)));
        auto *d_rlut = static_cast<uint16_t *>(g.alloc(plan.radius_lut_len * sizeof(uint16_t)));
        g.upload(d_raw, in.data, raw_bytes, "uploading the image");
        g.upload(d_depth, job->depth.data, depth_bytes, "uploading the depth map");
        g.copy(d_decode, plan.luts.decode, levels * sizeof(uint64_t), cudaMemcpyHostToDevice, "uploading the tables");
        g.copy(d_split, plan.luts.split, (levels - 1) * sizeof(uint32_t), cudaMemcpyHostToDevice, "uploading the tables");
        g.copy(d_index, plan.luts.index, BLUR_INDEX_LEN * sizeof(uint16_t), cudaMemcpyHostToDevice,
               "uploading the tables");
        g.copy(d_rlut, plan.radius_lut, plan.radius_lut_len * sizeof(uint16_t), cudaMemcpyHostToDevice,
               "uploading the tables");
        g.lap(times ? &times->upload : nullptr);
        if (g.e == cudaSuccess) {
            g.what = "converting the pixels";
            g.e = blur_gpu_to_fixed(d_raw, in.bits, (int)C, n, d_decode, plan.precision, d_fixed, g.stream);
        }
        if (g.e == cudaSuccess && job->mode == BLUR_MODE_DEPTH)
            g.e = blur_gpu_radius_from_depth(d_depth, job->depth.bits, job->depth.channels, n, d_rlut, d_radius,
                                             g.stream);
        if (g.e == cudaSuccess && job->mode == BLUR_MODE_TILT)
            g.e = blur_gpu_radius_from_rows(d_rlut, W, H, d_radius, g.stream);
        g.lap(times ? &times->convert : nullptr);
        if (g.e != cudaSuccess) {
            rc = g.fail(err, errlen);
        } else {
            const DeviceJob dj = {W,        H,       (int)C,         plan.precision, d_fixed,
                                  d_radius, plan.uniform_q8, plan.weighted, job->passes};
            rc = run_passes(g, dj, times, err, errlen);
        }
        if (rc == 0) {
            g.what = "converting the pixels back";
            g.e = blur_gpu_from_fixed(d_fixed, plan.precision, (int)C, n, d_split, d_index, in.bits, d_raw, g.stream);
            g.lap(times ? &times->convert : nullptr);
            g.download(job->out.data, d_raw, raw_bytes, "downloading the result");
            g.lap(times ? &times->download : nullptr);
            if (g.e != cudaSuccess) rc = g.fail(err, errlen);
        }
    }
    blur_plan_free(&plan);
    return rc;
}
