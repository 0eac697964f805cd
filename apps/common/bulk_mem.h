/* bulk_mem.h -- large host arrays (images, tables, whole files) in memory
 * that the kernel can back with 2 MiB pages.
 *
 * Why: the first touch of a fresh 4 KiB page is a fault and a clear. For
 * arrays of many MiB the faults cost more than the work done in them: they
 * were 40% of decoding a 4K PNG once its filters went fast (issue #22). With
 * transparent huge pages advised, there are 512 times fewer.
 * Where huge pages are off, the advice does nothing and 4 KiB pages it is.
 *
 * Plain C, no CUDA (the fuzzed readers use it): link app_common and write
 * #include "common/bulk_mem.h". Thread-safe. */
#ifndef APP_COMMON_BULK_MEM_H
#define APP_COMMON_BULK_MEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `bytes` of uninitialised memory, to be released with free(); from 2 MiB
 * up aligned to 2 MiB and advised to use huge pages (MADV_HUGEPAGE), below
 * that plain malloc (0 bytes: a valid 1-byte block). NULL when out of
 * memory. */
void *app_bulk_alloc(size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
