/* compact_shim.h -- C declarations of compact_shim.cu (test helpers). */
#ifndef COMPACT_TEST_SHIM_H
#define COMPACT_TEST_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <libscan/libscan.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Elements per tile of the compaction kernels for dtype (0 for a dtype that
 * compaction does not take). */
size_t compact_test_tile_items(libscan_dtype_t dtype);
/* DeviceCompact<uint32_t>::select_if (or partition_if when d_rejected is not
 * NULL) with a functor keeping multiples of m, synchronised. 0 on success. */
int compact_test_functor_select(const uint32_t *d_in, uint32_t *d_out, uint32_t *d_rejected, size_t *d_num,
                                size_t n, uint32_t m);
#ifdef __cplusplus
}
#endif
#endif
