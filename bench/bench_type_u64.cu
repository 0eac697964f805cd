// bench_type_u64.cu -- the benchmark driver for uint64_t (one file per type so that
// CUB's scans for each type compile in parallel).
#include "bench_driver.cuh"

BENCH_INSTANTIATE(uint64_t, u64)
