// select_sizes.h -- bench_compact's select-if table over sizes
// (select_sizes.cu): libscan_select_if with opts = NULL beside caller temp,
// and CUB with 32- and 64-bit item counts, interleaved in one process.
#pragma once

#include <cuda_runtime.h>

#include <vector>

namespace bench_compact {

struct SelectSizesResult {
    unsigned long long mismatches = 0; // outputs or counts that differed from CUB's
    bool targets_met = true;           // every row within its targets
};

// Prints the first opts = NULL call after libscan_temp_cache_release(), then
// one markdown row per size (log2 sizes in `logs`, ascending): 50% of
// uniform u32 kept by x < 2^31. reps: timed calls of each contender per size
// (at least 20); warmup: untimed rounds first. Exits with status 2 on a CUDA
// or libscan error.
SelectSizesResult run_select_sizes(const std::vector<int> &logs, int reps, int warmup, cudaStream_t s,
                                   const cudaDeviceProp &prop, unsigned long long seed);

} // namespace bench_compact
