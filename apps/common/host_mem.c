/* host_mem.c -- pinned staging buffers and huge-page bulk buffers (host_mem.h). */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "common/host_mem.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <cuda_runtime_api.h>

enum { HOW_NONE = 0, HOW_MMAP = 1, HOW_PINNED = 2, HOW_MMAP_REGISTERED = 3 };

#define HUGE_PAGE ((size_t)2 << 20)

int app_hostbuf_alloc(app_hostbuf_t *b, size_t bytes, bool pinned) {
    memset(b, 0, sizeof *b);
    if (bytes == 0) return 0;
    if (pinned) {
        void *p = NULL;
        if (cudaHostAlloc(&p, bytes, cudaHostAllocDefault) == cudaSuccess && p) {
            b->p = p;
            b->bytes = bytes;
            b->how = HOW_PINNED;
            return 0;
        }
        (void)cudaGetLastError(); /* the failure must not stick to later calls */
    }
    /* Rounded up to whole huge pages, so the last one can be a huge page too. */
    if (bytes > SIZE_MAX - HUGE_PAGE) return -1;
    const size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
#ifdef MADV_HUGEPAGE
    /* Advice only: where huge pages are off, 4 KiB pages it is. */
    if (len >= HUGE_PAGE) (void)madvise(p, len, MADV_HUGEPAGE);
#endif
    b->p = p;
    b->bytes = bytes;
    b->how = HOW_MMAP;
    return 0;
}

bool app_hostbuf_register(app_hostbuf_t *b) {
    if (!b || !b->p) return false;
    if (b->how != HOW_MMAP) return b->how == HOW_PINNED || b->how == HOW_MMAP_REGISTERED;
    if (cudaHostRegister(b->p, b->bytes, cudaHostRegisterDefault) != cudaSuccess) {
        (void)cudaGetLastError(); /* the failure must not stick to later calls */
        return false;
    }
    b->how = HOW_MMAP_REGISTERED;
    return true;
}

bool app_hostbuf_pinned(const app_hostbuf_t *b) {
    return b && (b->how == HOW_PINNED || b->how == HOW_MMAP_REGISTERED);
}

void app_hostbuf_free(app_hostbuf_t *b) {
    if (!b || !b->p) return;
    if (b->how == HOW_PINNED) {
        (void)cudaFreeHost(b->p);
        (void)cudaGetLastError();
    } else {
        if (b->how == HOW_MMAP_REGISTERED) {
            (void)cudaHostUnregister(b->p);
            (void)cudaGetLastError();
        }
        const size_t len = (b->bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        (void)munmap(b->p, len);
    }
    memset(b, 0, sizeof *b);
}
