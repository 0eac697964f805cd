/* host_mem.c -- pinned staging buffers and bulk buffers (host_mem.h). */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "common/host_mem.h"
#include "common/bulk_mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cuda_runtime_api.h>

enum { HOW_NONE = 0, HOW_BULK = 1, HOW_PINNED = 2, HOW_BULK_REGISTERED = 3 };

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL */
#endif

/* Pinned buffers from this size up are our own memory, faulted in and then
 * registered (host_mem.h says why); smaller ones, cudaHostAlloc's. */
#define PIN_BY_REGISTER_MIN ((size_t)1 << 20)

/* Faults every page of [p, p + len) in, writable (the whole pages around
 * it: madvise wants them), so that registering finds them present; each
 * 4 KiB page touched where the kernel refuses the advice (before Linux
 * 5.14). */
static void populate(void *p, size_t len) {
    const uintptr_t a = (uintptr_t)p / 4096 * 4096, e = ((uintptr_t)p + len + 4095) / 4096 * 4096;
    if (madvise((void *)a, e - a, MADV_POPULATE_WRITE) == 0) return;
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
    void *p = app_bulk_alloc(bytes);
    if (!p) return -1;
    b->p = p;
    b->bytes = bytes;
    b->how = HOW_BULK;
    if (pinned && bytes >= PIN_BY_REGISTER_MIN) {
        populate(p, bytes);
        (void)app_hostbuf_register(b); /* without it, only slower */
    }
    return 0;
}

bool app_hostbuf_register(app_hostbuf_t *b) {
    if (!b || !b->p) return false;
    if (b->how != HOW_BULK) return b->how == HOW_PINNED || b->how == HOW_BULK_REGISTERED;
    /* Portable: pinned for every GPU's context (radixsort --gpus copies with each). */
    if (cudaHostRegister(b->p, b->bytes, cudaHostRegisterPortable) != cudaSuccess) {
        (void)cudaGetLastError(); /* the failure must not stick to later calls */
        return false;
    }
    b->how = HOW_BULK_REGISTERED;
    return true;
}

bool app_hostbuf_pinned(const app_hostbuf_t *b) {
    return b && (b->how == HOW_PINNED || b->how == HOW_BULK_REGISTERED);
}

void app_hostbuf_free(app_hostbuf_t *b) {
    if (!b || !b->p) return;
    if (b->how == HOW_PINNED) {
        (void)cudaFreeHost(b->p);
        (void)cudaGetLastError();
    } else {
        if (b->how == HOW_BULK_REGISTERED) {
            (void)cudaHostUnregister(b->p);
            (void)cudaGetLastError();
        }
        free(b->p);
    }
    memset(b, 0, sizeof *b);
}
