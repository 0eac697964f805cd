// compact_launch_f32.cu -- the C API's compaction kernels for float.
#include "compact_launch.cuh"

LIBSCAN__COMPACT_DEFINE(f32, float)
