// bench_type_f32.cu -- the benchmark driver for float (one file per type so that
// CUB's scans for each type compile in parallel).
#include "bench_driver.cuh"

BENCH_INSTANTIATE(float, f32)
