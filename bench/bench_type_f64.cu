// bench_type_f64.cu -- the benchmark driver for double (one file per type so that
// CUB's scans for each type compile in parallel).
#include "bench_driver.cuh"

BENCH_INSTANTIATE(double, f64)
