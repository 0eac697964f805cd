// probe-tiles.cu -- what costs ~13 ns per tile in the look-back scan when
// tiles are small: block dispatch, the tile counter's atomicAdd, or the
// look-back itself. Kernels of N blocks x 128 threads, timed by events
// (median of 21 launches, 3 warm-ups).
#include <cstdio>
#include <vector>
#include <algorithm>
#include "sweep_util.cuh"

__global__ void empty_k() {}
__global__ void atomic_k(unsigned *c) {
    __shared__ unsigned s;
    if (threadIdx.x == 0) s = atomicAdd(c, 1u);
    __syncthreads();
    if (s == 0xffffffffu) c[1] = threadIdx.x; // keep s alive
}
// The atomic, then a dependent global store and load per block (a block
// that publishes something after learning its id).
__global__ void atomic_pub_k(unsigned *c, unsigned long long *slots) {
    __shared__ unsigned s;
    if (threadIdx.x == 0) s = atomicAdd(c, 1u);
    __syncthreads();
    if (threadIdx.x == 0) slots[s] = s;
}
__global__ void blockid_pub_k(unsigned long long *slots) {
    if (threadIdx.x == 0) slots[blockIdx.x] = blockIdx.x;
}
// A chain: block b waits until slot b-1 is set, then sets slot b
// (blockIdx order, relies on in-order dispatch; probe only).
__global__ void chain_k(volatile unsigned long long *slots, unsigned tag) {
    if (threadIdx.x == 0) {
        const unsigned b = blockIdx.x;
        if (b > 0) while (slots[b - 1] != tag) {}
        slots[b] = tag;
    }
}

int main() {
    unsigned *c;
    unsigned long long *slots;
    CK(cudaMalloc(&c, 256));
    CK(cudaMalloc(&slots, sizeof(unsigned long long) << 20));
    CK(cudaMemset(slots, 0, sizeof(unsigned long long) << 20));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned tag = 1;
    for (int threads : {128, 256}) {
        for (unsigned n : {2048u, 8192u, 32768u, 131072u}) {
            bench::EventTimes t[5];
            CK(bench::time_events(s, 3, 21, [&] { empty_k<<<n, threads, 0, s>>>(); }, &t[0]));
            CK(bench::time_events(s, 3, 21, [&] { cudaMemsetAsync(c, 0, 4, s); atomic_k<<<n, threads, 0, s>>>(c); }, &t[1]));
            CK(bench::time_events(s, 3, 21, [&] { cudaMemsetAsync(c, 0, 4, s); atomic_pub_k<<<n, threads, 0, s>>>(c, slots); }, &t[2]));
            CK(bench::time_events(s, 3, 21, [&] { blockid_pub_k<<<n, threads, 0, s>>>(slots); }, &t[3]));
            CK(bench::time_events(s, 3, 21, [&] { chain_k<<<n, threads, 0, s>>>(slots, ++tag); }, &t[4]));
            printf("%4d threads, %6u blocks: empty %8.2f us | atomic id %8.2f | atomic id + store %8.2f | blockIdx + store %8.2f | chain %8.2f  (ns per block: %.2f %.2f %.2f %.2f %.2f)\n",
                   threads, n, t[0].median() * 1e3, t[1].median() * 1e3, t[2].median() * 1e3, t[3].median() * 1e3, t[4].median() * 1e3,
                   t[0].median() * 1e6 / n, t[1].median() * 1e6 / n, t[2].median() * 1e6 / n, t[3].median() * 1e6 / n, t[4].median() * 1e6 / n);
        }
    }
    return 0;
}
