// bench_type_u32.cu -- the benchmark driver for uint32_t (one file per type so that
// CUB's scans for each type compile in parallel).
#include "bench_driver.cuh"

BENCH_INSTANTIATE(uint32_t, u32)
