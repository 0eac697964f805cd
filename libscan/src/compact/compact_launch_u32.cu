// compact_launch_u32.cu -- the C API's compaction kernels for uint32_t.
#include "compact_launch.cuh"

LIBSCAN__COMPACT_DEFINE(u32, uint32_t)
