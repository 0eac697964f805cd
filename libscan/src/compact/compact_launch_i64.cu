// compact_launch_i64.cu -- the C API's compaction kernels for int64_t.
#include "compact_launch.cuh"

LIBSCAN__COMPACT_DEFINE(i64, int64_t)
