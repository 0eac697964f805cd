/* bulk_mem.c -- see bulk_mem.h. */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "common/bulk_mem.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void *app_bulk_alloc(size_t bytes) {
    if (bytes < HUGE_PAGE) return malloc(bytes ? bytes : 1);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    /* Advice only, on the whole huge pages inside the block. */
    (void)madvise(p, bytes / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
#endif
    return p;
}
