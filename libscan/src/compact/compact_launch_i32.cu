// compact_launch_i32.cu -- the C API's compaction kernels for int32_t.
#include "compact_launch.cuh"

LIBSCAN__COMPACT_DEFINE(i32, int32_t)
