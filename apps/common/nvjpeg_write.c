/* nvjpeg_write.c -- JPEG encoding on the GPU through nvJPEG (built only
 * when CMake found CUDA::nvjpeg and nvjpeg.h; nvjpeg_none.c otherwise).
 * Same quality scaling and subsampling as the TurboJPEG path; img_write
 * falls back to TurboJPEG whenever this fails. */
#define _POSIX_C_SOURCE 200809L
#include "common/jpeg_io.h"
#include "image_private.h"
#include "common/host_mem.h"

#include <cuda_runtime_api.h>
#include <nvjpeg.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int img_jpeg_gpu_built(void)
{
    return 1;
}

/* ---- the handle: one per process ------------------------------------------------ */

/* nvJPEG's library handle costs milliseconds to create and may be shared by
 * threads (its encoder states and parameters may not: each call makes its
 * own), so a program writing many JPEGs creates it once. It is tied to the
 * device current at creation and kept until the process exits. */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static nvjpegHandle_t g_handle;
static nvjpegStatus_t g_handle_status = NVJPEG_STATUS_NOT_INITIALIZED;

static void create_handle(void)
{
    g_handle_status = nvjpegCreateSimple(&g_handle);
}

static const char *status_name(nvjpegStatus_t s)
{
    switch (s) {
    case NVJPEG_STATUS_SUCCESS: return "success";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "not initialized";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "invalid parameter";
    case NVJPEG_STATUS_BAD_JPEG: return "bad JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "JPEG not supported";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "allocator failure";
    case NVJPEG_STATUS_EXECUTION_FAILED: return "execution failed";
    case NVJPEG_STATUS_ARCH_MISMATCH: return "architecture mismatch";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "internal error";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "not supported by this implementation";
    default: return "unknown status";
    }
}

/* ---- one encode ------------------------------------------------------------------ */

/* Everything one call owns, released by release() whatever step failed. */
typedef struct nv_call {
    cudaStream_t stream;
    int own_stream;
    nvjpegEncoderState_t state;
    nvjpegEncoderParams_t params;
    nvjpegJpegStream_t tables; /* TurboJPEG's reference JPEG, parsed (same_tables) */
    void *d_px;                /* the host variant's copy of the samples */
} nv_call;

static void release(nv_call *c)
{
    if (c->stream)
        (void)cudaStreamSynchronize(c->stream); /* nothing may still use what is freed below */
    if (c->tables)
        (void)nvjpegJpegStreamDestroy(c->tables);
    if (c->params)
        (void)nvjpegEncoderParamsDestroy(c->params);
    if (c->state)
        (void)nvjpegEncoderStateDestroy(c->state);
    app_device_free(c->d_px);
    if (c->own_stream && c->stream)
        (void)cudaStreamDestroy(c->stream);
    /* A failed CUDA call leaves its error for the next cudaGetLastError;
       clear it, so that a program going on (with TurboJPEG) does not trip
       over ours. Sticky errors stay, as CUDA wants. */
    (void)cudaGetLastError();
}

static nvjpegChromaSubsampling_t nv_subsampling(img_jpeg_subsampling_t s, int channels)
{
    if (channels == 1)
        return NVJPEG_CSS_GRAY;
    switch (s) {
    case IMG_JPEG_SUB_422: return NVJPEG_CSS_422;
    case IMG_JPEG_SUB_444: return NVJPEG_CSS_444;
    default: return NVJPEG_CSS_420;
    }
}

#define NV_TRY(call)                                                                              \
    do {                                                                                          \
        nvjpegStatus_t nv_try_s_ = (call);                                                        \
        if (nv_try_s_ != NVJPEG_STATUS_SUCCESS) {                                                 \
            img__err(err, errlen, "%s: %s (status %d)", #call, status_name(nv_try_s_), (int)nv_try_s_); \
            goto fail;                                                                            \
        }                                                                                         \
    } while (0)

#define CUDA_TRY(call)                                                                            \
    do {                                                                                          \
        cudaError_t cuda_try_e_ = (call);                                                         \
        if (cuda_try_e_ != cudaSuccess) {                                                         \
            img__err(err, errlen, "%s: %s", #call, cudaGetErrorString(cuda_try_e_));             \
            goto fail;                                                                            \
        }                                                                                         \
    } while (0)

static int valid_args(int width, int height, int channels, int quality, img_jpeg_subsampling_t s)
{
    return width >= 1 && height >= 1 && width <= IMG_JPEG_MAX_SIDE && height <= IMG_JPEG_MAX_SIDE &&
           (channels == 1 || channels == 3) && quality >= 0 && quality <= 100 &&
           (s == IMG_JPEG_SUB_DEFAULT || s == IMG_JPEG_SUB_420 || s == IMG_JPEG_SUB_422 || s == IMG_JPEG_SUB_444);
}

/* "Same quality" made exact: the quantisation tables TurboJPEG writes for
 * this quality (IJG's scaling of the standard tables, as PIL and ImageMagick
 * use), copied into nvJPEG's parameters from a tiny JPEG that TurboJPEG
 * encodes here, rather than trusting nvJPEG's own quality scale to be the
 * same. Only the tables matter, so the reference is 16 x 16 of zeros. */
static int same_tables(nv_call *c, int channels, int quality, img_jpeg_subsampling_t subsampling, char *err,
                       size_t errlen)
{
    uint8_t zeros[16 * 16 * 3] = {0};
    uint8_t *ref = NULL;
    size_t len = 0;
    char why[200];
    if (img_jpeg_encode_turbo(zeros, 16, 16, channels, quality, subsampling, &ref, &len, why, sizeof why) != 0) {
        img__err(err, errlen, "the reference tables: %s", why);
        return -1;
    }
    int rc = -1;
    NV_TRY(nvjpegJpegStreamCreate(g_handle, &c->tables));
    NV_TRY(nvjpegJpegStreamParse(g_handle, ref, len, 0, 0, c->tables));
    NV_TRY(nvjpegEncoderParamsCopyQuantizationTables(c->params, c->tables, c->stream));
    rc = 0;
fail:
    free(ref);
    return rc;
}

/* The encode proper, on c->stream, from device samples. */
static int encode(nv_call *c, const void *d_px, size_t pitch, int width, int height, int channels, int quality,
                  img_jpeg_subsampling_t subsampling, uint8_t **jpeg, size_t *len, char *err, size_t errlen)
{
    uint8_t *buf = NULL;
    const nvjpegChromaSubsampling_t css = nv_subsampling(subsampling, channels);
    NV_TRY(nvjpegEncoderStateCreate(g_handle, &c->state, c->stream));
    NV_TRY(nvjpegEncoderParamsCreate(g_handle, &c->params, c->stream));
    NV_TRY(nvjpegEncoderParamsSetQuality(c->params, quality ? quality : 90, c->stream));
    if (same_tables(c, channels, quality, subsampling, err, errlen) != 0)
        goto fail;
    NV_TRY(nvjpegEncoderParamsSetSamplingFactors(c->params, css, c->stream));
    /* Standard Huffman tables, as TurboJPEG writes by default. */
    NV_TRY(nvjpegEncoderParamsSetOptimizedHuffman(c->params, 0, c->stream));
    nvjpegImage_t src;
    memset(&src, 0, sizeof src);
    src.channel[0] = (unsigned char *)d_px;
    src.pitch[0] = pitch;
    if (channels == 3) {
        NV_TRY(nvjpegEncodeImage(g_handle, c->state, c->params, &src, NVJPEG_INPUT_RGBI, width, height, c->stream));
    } else {
        /* Gray is the luma plane as it is (Y = gray in JFIF's conversion):
           one component, as TurboJPEG writes gray. */
        NV_TRY(nvjpegEncodeYUV(g_handle, c->state, c->params, &src, NVJPEG_CSS_GRAY, width, height, c->stream));
    }
    size_t n = 0;
    NV_TRY(nvjpegEncodeRetrieveBitstream(g_handle, c->state, NULL, &n, c->stream));
    CUDA_TRY(cudaStreamSynchronize(c->stream));
    if (n == 0) {
        img__err(err, errlen, "nvJPEG produced no data");
        goto fail;
    }
    buf = (uint8_t *)malloc(n);
    if (!buf) {
        img__err(err, errlen, "out of memory for a %zu-byte JPEG", n);
        goto fail;
    }
    NV_TRY(nvjpegEncodeRetrieveBitstream(g_handle, c->state, buf, &n, c->stream));
    CUDA_TRY(cudaStreamSynchronize(c->stream));
    *jpeg = buf;
    *len = n;
    return 0;
fail:
    free(buf);
    return -1;
}

/* The handle, and a stream when the caller gave none. */
static int begin(nv_call *c, void *cuda_stream, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
        (void)cudaGetLastError();
        img__err(err, errlen, "no usable GPU");
        return -1;
    }
    pthread_once(&g_once, create_handle);
    if (g_handle_status != NVJPEG_STATUS_SUCCESS) {
        img__err(err, errlen, "nvjpegCreateSimple: %s (status %d)", status_name(g_handle_status), (int)g_handle_status);
        return -1;
    }
    if (cuda_stream) {
        c->stream = (cudaStream_t)cuda_stream;
        return 0;
    }
    cudaError_t e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        c->stream = NULL;
        img__err(err, errlen, "cudaStreamCreateWithFlags: %s", cudaGetErrorString(e));
        (void)cudaGetLastError();
        return -1;
    }
    c->own_stream = 1;
    return 0;
}

int img_jpeg_encode_nvjpeg_device(const void *d_px, size_t pitch, int width, int height, int channels,
                                  int quality, img_jpeg_subsampling_t subsampling, void *cuda_stream,
                                  uint8_t **jpeg, size_t *len, char *err, size_t errlen)
{
    if (!d_px || !jpeg || !len || !valid_args(width, height, channels, quality, subsampling) ||
        pitch < (size_t)width * (size_t)channels) {
        img__err(err, errlen, "img_jpeg_encode_nvjpeg_device: invalid arguments");
        return -1;
    }
    nv_call c;
    if (begin(&c, cuda_stream, err, errlen) != 0)
        return -1;
    const int rc = encode(&c, d_px, pitch, width, height, channels, quality, subsampling, jpeg, len, err, errlen);
    release(&c);
    return rc;
}

int img_jpeg_encode_nvjpeg(const uint8_t *px, int width, int height, int channels, int quality,
                           img_jpeg_subsampling_t subsampling, uint8_t **jpeg, size_t *len, char *err,
                           size_t errlen)
{
    if (!px || !jpeg || !len || !valid_args(width, height, channels, quality, subsampling)) {
        img__err(err, errlen, "img_jpeg_encode_nvjpeg: invalid arguments");
        return -1;
    }
    nv_call c;
    if (begin(&c, NULL, err, errlen) != 0)
        return -1;
    const size_t row = (size_t)width * (size_t)channels, bytes = row * (size_t)height;
    int rc = -1;
    CUDA_TRY(cudaMalloc(&c.d_px, bytes));
    CUDA_TRY(cudaMemcpyAsync(c.d_px, px, bytes, cudaMemcpyHostToDevice, c.stream));
    rc = encode(&c, c.d_px, row, width, height, channels, quality, subsampling, jpeg, len, err, errlen);
fail:
    release(&c);
    return rc;
}
