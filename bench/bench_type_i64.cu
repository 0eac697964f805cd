// bench_type_i64.cu -- the benchmark driver for int64_t (one file per type so that
// CUB's scans for each type compile in parallel).
#include "bench_driver.cuh"

BENCH_INSTANTIATE(int64_t, i64)
