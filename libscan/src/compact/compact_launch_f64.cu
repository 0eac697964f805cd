// compact_launch_f64.cu -- the C API's compaction kernels for double.
#include "compact_launch.cuh"

COMPACT__DEFINE(f64, double)
