// cuda_shim_util.cuh -- error plumbing shared by the tests' CUDA shims.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstring>

// Evaluates a CUDA call; on error records it (first error wins) and jumps to
// the shim's cleanup label `done`.
#define SHIM_TRY(call)                                                                                   \
    do {                                                                                                 \
        cudaError_t shim_e_ = (call);                                                                    \
        if (shim_e_ != cudaSuccess) {                                                                    \
            if (status == 0) status = static_cast<int>(shim_e_);                                         \
            goto done;                                                                                   \
        }                                                                                                \
    } while (0)

// Frees p, keeping the first error in status.
inline void shim_free(void *p, int &status) {
    if (!p) return;
    cudaError_t e = cudaFree(p);
    if (e != cudaSuccess && status == 0) status = static_cast<int>(e);
}
