/* host_mem.c -- pinned staging buffers and huge-page bulk buffers (host_mem.h). */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "common/host_mem.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <cuda_runtime_api.h>

enum { HOW_NONE = 0, HOW_MMAP = 1, HOW_PINNED = 2, HOW_MMAP_REGISTERED = 3 };

#define HUGE_PAGE ((size_t)2 << 20)

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL */
#endif

/* Pinned buffers from this size up are our own memory, faulted in and then
 * registered (host_mem.h says why); smaller ones, cudaHostAlloc's. */
#define PIN_BY_REGISTER_MIN ((size_t)1 << 20)

/* Anonymous memory of whole huge pages for `bytes`, advised to use them;
 * NULL when none. */
static void *map_bulk(size_t bytes, size_t *len) {
    /* Rounded up to whole huge pages, so the last one can be a huge page too. */
    if (bytes > SIZE_MAX - HUGE_PAGE) return NULL;
    *len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    /* Advice only: where huge pages are off, 4 KiB pages it is. */
    if (*len >= HUGE_PAGE) (void)madvise(p, *len, MADV_HUGEPAGE);
#endif
    return p;
}

/* Faults every page of [p, p + len) in, writable, so that registering
 * finds them present: a 4 KiB page touched where the kernel refuses the
 * advice (before Linux 5.14). */
static void populate(unsigned char *p, size_t len) {
    if (madvise(p, len, MADV_POPULATE_WRITE) == 0) return;
    for (size_t i = 0; i < len; i += 4096) ((volatile unsigned char *)p)[i] = 0;
}

int app_hostbuf_alloc(app_hostbuf_t *b, size_t bytes, bool pinned) {
    memset(b, 0, sizeof *b);
    if (bytes == 0) return 0;
    if (pinned && bytes < PIN_BY_REGISTER_MIN) {
        void *p = NULL;
        if (cudaHostAlloc(&p, bytes, cudaHostAllocDefault) == cudaSuccess && p) {
            b->p = p;
            b->bytes = bytes;
            b->how = HOW_PINNED;
            return 0;
        }
        (void)cudaGetLastError(); /* the failure must not stick to later calls */
    }
    size_t len;
    void *p = map_bulk(bytes, &len);
    if (!p) return -1;
    b->p = p;
    b->bytes = bytes;
    b->how = HOW_MMAP;
    if (pinned && bytes >= PIN_BY_REGISTER_MIN) {
        populate(p, len);
        (void)app_hostbuf_register(b); /* without it, only slower */
    }
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
        (void)munmap(b->p, (b->bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE);
    }
    memset(b, 0, sizeof *b);
}
