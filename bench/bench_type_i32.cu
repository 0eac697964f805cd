// bench_type_i32.cu -- the benchmark driver for int32_t (one file per type so that
// CUB's scans for each type compile in parallel).
#include "bench_driver.cuh"

BENCH_INSTANTIATE(int32_t, i32)
