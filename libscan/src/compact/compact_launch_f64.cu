// compact_launch_f64.cu -- the C API's compaction kernels for double.
#include "compact_launch.cuh"

LIBSCAN__COMPACT_DEFINE(f64, double)
