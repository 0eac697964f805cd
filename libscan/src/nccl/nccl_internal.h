/* nccl_internal.h -- what the C entry points of libscan_nccl (nccl_scan.c,
 * nccl_sort.c) ask of its kernels (nccl_kernels.cu) and of each other. Not
 * installed. Every launcher enqueues on `stream` and returns the launch's
 * error; none allocates or synchronises. */
#ifndef LIBSCAN_NCCL_INTERNAL_H
#define LIBSCAN_NCCL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include "libscan/nccl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shard total's fixed tree: at most this many blocks of
 * LIBSCAN__NCCL_REDUCE_THREADS threads (fewer for small counts: ceil(count
 * / threads)), whose partials the second stage folds. */
#define LIBSCAN__NCCL_REDUCE_BLOCKS 1024
#define LIBSCAN__NCCL_REDUCE_THREADS 256

/* *d_total = d_in[0] (+) ... (+) d_in[count-1] (the identity for count 0),
 * through d_partials (LIBSCAN__NCCL_REDUCE_BLOCKS elements). */
cudaError_t libscan__nccl_reduce(const void *d_in, size_t count, libscan_dtype_t dtype, libscan_op_t op,
                                 void *d_partials, void *d_total, cudaStream_t stream);

/* *d_carry = d_totals[0] (+) ... (+) d_totals[rank-1] (the identity for rank 0). */
cudaError_t libscan__nccl_carry(const void *d_totals, int rank, libscan_dtype_t dtype, libscan_op_t op,
                                void *d_carry, cudaStream_t stream);

/* How keys map to ordered bits: the fields of libscan's key map
 * (sort_cpu_internal.h's libscan__key_map, the one place sort.h's order is
 * written on the host) that the kernels need. mapped(x) = x ^ xor_all ^
 * (x's sign bit set ? xor_neg : 0), in key_bytes * 8 bits. */
typedef struct libscan__nccl_keys {
    size_t key_bytes;
    uint64_t xor_all;
    uint64_t xor_neg;
} libscan__nccl_keys_t;

/* Samples of the sorted keys d_sorted[0..count): for j < s =
 * libscan__np_num_samples(count), d_out[2j] = the mapped bits of the key at
 * libscan__np_sample_pos(count, s, j), d_out[2j+1] = that position. */
cudaError_t libscan__nccl_samples(const void *d_sorted, size_t count, const libscan__nccl_keys_t *k,
                                  uint64_t *d_out, cudaStream_t stream);

/* For each of the nkeys mapped keys d_keys[i]: d_bounds[2i] = the first
 * position of d_sorted[0..count) whose mapped key is >= d_keys[i] (lower
 * bound), d_bounds[2i+1] = the first whose mapped key is > it (upper). */
cudaError_t libscan__nccl_bounds(const void *d_sorted, size_t count, const libscan__nccl_keys_t *k,
                                 const uint64_t *d_keys, int nkeys, uint64_t *d_bounds, cudaStream_t stream);

/* Merges nruns (1..64) sorted runs (run i: lens[i] keys, values of
 * value_bytes 0, 4 or 8 alongside; vals and first_vals NULL for 0) into one
 * stable sorted run, by rounds of pairwise merges of adjacent runs
 * (nccl_merge.h) between the buffer sets keys[0]/vals[0] and
 * keys[1]/vals[1]: the first round reads run i at first_keys[i] (and
 * first_vals[i]) and writes the merged runs back to back into set 1, each
 * later round reads the set the round before wrote. *result = the set that
 * holds the result: ceil(log2(nruns)) rounds, odd: 1 (one run: nothing is
 * moved, *result = 0, the run stays where first_keys[0] says). d_parts:
 * libscan__nccl_merge_parts(largest pair) words of device memory. */
cudaError_t libscan__nccl_merge_runs(const libscan__nccl_keys_t *k, size_t value_bytes, const void *const *first_keys,
                                     const void *const *first_vals, void *keys[2], void *vals[2],
                                     const uint64_t *lens, int nruns, uint64_t *d_parts, int *result,
                                     cudaStream_t stream);

/* The merge's tile (outputs per block) and the words of d_parts that merging
 * runs of `total` keys in all takes: a path at every tile's edge. */
#define LIBSCAN__NCCL_MERGE_TILE 2048
static inline size_t libscan__nccl_merge_parts(size_t total) { return total / LIBSCAN__NCCL_MERGE_TILE + 2; }

/* The NCCL type of a scan dtype (ncclNumTypes for none). */
ncclDataType_t libscan__nccl_type(libscan_dtype_t dtype);

/* An NCCL result as a status (ncclSuccess: SUCCESS; else NCCL). */
libscan_status_t libscan__nccl_status(ncclResult_t r);

/* The communicator's rank and size: SUCCESS, NULL_POINTER (comm NULL) or NCCL. */
libscan_status_t libscan__nccl_comm(ncclComm_t comm, int *rank, int *nranks);

/* x rounded up to LIBSCAN_TEMP_ALIGNMENT: temp is laid out in such slices. */
static inline size_t libscan__nccl_slice(size_t x) {
    return (x + LIBSCAN_TEMP_ALIGNMENT - 1) / LIBSCAN_TEMP_ALIGNMENT * LIBSCAN_TEMP_ALIGNMENT;
}

#ifdef __cplusplus
}
#endif
#endif
