/* host_mem.h -- large host buffers for the streaming I/O (stream_io.h).
 *
 * Two kinds:
 *  - pinned: page-locked memory, which the GPU copies at full bus speed (an
 *    upload from ordinary memory is staged by the driver through its own
 *    pinned buffers at a fraction of that). From 1 MiB up it is plain
 *    memory (below), faulted in and then registered (cudaHostRegister):
 *    40 MiB of staging buffers cost 1-3 ms to register on the H200 machine,
 *    against 15-29 ms from cudaHostAlloc, which pins and clears page by page
 *    (bench/results/2026-11-28-h200-465a813/probes.md). Smaller buffers come
 *    from cudaHostAlloc. Either way only a few staging buffers of some MiB
 *    are pinned, never a whole file.
 *  - plain: bulk_mem.h's memory, advised to use transparent huge pages, for
 *    whole arrays on the CPU path: the first touch of a fresh 4 KiB page is
 *    a fault and a clear, which for a 1 GiB array costs more than the read
 *    from the page cache itself; 2 MiB pages cut the faults 512-fold.
 *
 * Plain C; link app_common (app_device_free alone needs no link) and write
 * #include "common/host_mem.h". Nothing here prints. Thread-safe (distinct
 * buffers). */
#ifndef APP_COMMON_HOST_MEM_H
#define APP_COMMON_HOST_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct app_hostbuf {
    void *p;      /* NULL when empty */
    size_t bytes; /* as asked */
    int how;      /* private: how p was obtained */
} app_hostbuf_t;

/* Allocates `bytes` (0 gives an empty buffer and succeeds). pinned: page-
 * locked through the CUDA runtime when it can be had, else plain memory
 * (still correct for cudaMemcpy, only slower); the caller must have chosen
 * the GPU (no CUDA call is made otherwise). Returns 0, or -1 when no memory
 * at all could be had (*b empty). */
int app_hostbuf_alloc(app_hostbuf_t *b, size_t bytes, bool pinned);

/* Page-locks plain buffer b in place (cudaHostRegister), so that the GPU
 * copies it at full bus speed: about 70 ms per GiB once, against about
 * 100 ms per GiB lost on every copy from pageable memory; and never the
 * 0.6 s per GiB of allocating pinned memory at once (cudaHostAlloc), for
 * a buffer of hundreds of MiB used for several copies. Pinned for every
 * GPU (cudaHostRegisterPortable), as radixsort --gpus copies with each.
 * The caller must have chosen the GPU. Returns true when b is page-locked now (also when it was
 * already); false leaves b as it was, still usable (slower copies).
 * app_hostbuf_free unregisters it. */
bool app_hostbuf_register(app_hostbuf_t *b);

/* true when b is page-locked. */
bool app_hostbuf_pinned(const app_hostbuf_t *b);

/* Frees b and empties it. An empty buffer is fine. */
void app_hostbuf_free(app_hostbuf_t *b);

/* cudaFree(p) for device memory the program allocated, and nothing at all
 * for NULL: the runtime's cudaFree(NULL) is no no-op, it creates the CUDA
 * context (0.2-0.6 s on the H100 machines), which a --device cpu run or a
 * failure before any allocation must never pay. Every program frees its
 * device buffers through this; inline, so that code outside app_common
 * (app_image's nvJPEG writer, sat_blur's GPU workspace) needs no link to it. */
static inline void app_device_free(void *p) {
    if (p) (void)cudaFree(p);
}

#ifdef __cplusplus
}
#endif
#endif
