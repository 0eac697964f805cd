// compact_launch_u64.cu -- the C API's compaction kernels for uint64_t.
#include "compact_launch.cuh"

LIBSCAN__COMPACT_DEFINE(u64, uint64_t)
