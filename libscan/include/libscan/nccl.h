/*
 * nccl.h -- libscan across GPUs: a scan and a sort of data spread over the
 * ranks of an NCCL communicator (ncclComm_t), one shard per rank.
 *
 * Plain C99, usable from C and C++. A library of its own, libscan_nccl
 * (CMake: libscan::nccl or libscan::nccl_static; pkg-config: libscan_nccl),
 * on top of libscan (which never depends on NCCL); built when CMake finds
 * NCCL >= 2.7 (README.md, "NCCL"). This header includes <nccl.h> and
 * libscan.h, whose conventions it follows, with what spreading a call over
 * ranks adds:
 *
 * ---------------------------------------------------------------------------
 * Conventions
 * ---------------------------------------------------------------------------
 * Collective Every rank of `comm` makes the same call (same function, dtype,
 *          op or key type, value bytes, direction) with its own shard; the
 *          call communicates with the other ranks, so it returns only when
 *          they take part. Rank r's shard comes after rank r-1's: the
 *          distributed array is the concatenation of the shards in rank
 *          order (ncclCommUserRank).
 * Threads  Drive each rank from a thread (or process) of its own, whose
 *          current device is the rank's, as NCCL itself asks of blocking
 *          calls: the sort waits on the host for the other ranks' counts, so
 *          calling it for several ranks in turn from one thread would wait
 *          forever. Do not wrap these calls in ncclGroupStart/ncclGroupEnd:
 *          their NCCL operations must run where they are enqueued, between
 *          their kernels.
 * Streams  Work is enqueued on `stream`, on the rank's device. The scans
 *          never wait on the host. The sort synchronises with `stream`
 *          three times (the samples, the cuts, the exchange plan); it
 *          returns with the exchange and the final merge enqueued, not
 *          finished. So the sort cannot be captured into a CUDA graph
 *          (under capture it returns LIBSCAN_ERROR_CUDA); the scans can be,
 *          as far as NCCL's own capture support goes.
 * Checks   Arguments are checked on each rank before it communicates; a
 *          rank that returns an argument error has communicated nothing, so
 *          the others would wait for it: give every rank consistent
 *          arguments, or abort the communicator (ncclCommAbort) on an
 *          error. The sort also compares the shape of the call (key type,
 *          value bytes, direction) across ranks, and every rank returns
 *          INVALID_ARGUMENT when they differ.
 * Temp     As in libscan.h: caller temp sized by the *_temp_bytes() query
 *          (opts->d_temp, opts->temp_bytes), or none and the call takes it
 *          from libscan's temp cache for the rank's device and stream.
 * Errors   LIBSCAN_ERROR_NCCL: an NCCL call failed (the communicator may
 *          then be unusable: NCCL's own rules). LIBSCAN_ERROR_CAPACITY: the
 *          sort would hand some rank more keys than its capacity; every
 *          rank returns it and no output is written. All other statuses as
 *          in libscan.h.
 * Determinism The sort's result is a function of the shards alone. The
 *          scans' association is fixed by the counts of every rank (below),
 *          so float results are the same on every run with the same shards.
 */
#ifndef LIBSCAN_NCCL_H
#define LIBSCAN_NCCL_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include "libscan/libscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/* Distributed scans                                                          */
/* ------------------------------------------------------------------------- */

/*
 * Options of a distributed scan. Zero-initialise (or use
 * LIBSCAN_NCCL_SCAN_OPTS_INIT); opts = NULL means the defaults.
 * d_temp, temp_bytes  device scratch sized by libscan_nccl_scan_temp_bytes(),
 *                     or NULL and 0: the temp cache.
 */
typedef struct libscan_nccl_scan_opts {
    void *d_temp;
    size_t temp_bytes;
} libscan_nccl_scan_opts_t;

#define LIBSCAN_NCCL_SCAN_OPTS_INIT {NULL, 0}

/*
 * libscan_nccl_scan_temp_bytes: *temp_bytes = the scratch a distributed scan
 * of `count` elements of `dtype` on a communicator of nranks ranks needs on
 * this rank (both scan kinds, every operator). Host-only. Returns SUCCESS,
 * NULL_POINTER, INVALID_DTYPE, INVALID_ARGUMENT (nranks < 1) or TOO_LARGE.
 */
LIBSCAN_API libscan_status_t libscan_nccl_scan_temp_bytes(size_t count, int nranks, libscan_dtype_t dtype,
                                                          size_t *temp_bytes);

/*
 * libscan_nccl_inclusive_scan: the inclusive scan of the concatenation of
 * the shards. On rank r, d_out[i] = T_0 (+) ... (+) T_{r-1} (+) d_in[0] (+)
 * ... (+) d_in[i], where T_q is the total of rank q's shard.
 *
 * How: each rank reduces its shard to T_r (a fixed tree: 1024 blocks of 256
 * threads, each thread folding a strided part left to right, the threads and
 * then the blocks in a fixed order), the ranks all-gather the N totals (one
 * element each: ncclAllGather), the carry T_0 (+) ... (+) T_{r-1} is folded
 * left to right on the device, and the shard is scanned once with that carry
 * as libscan's device carry-in (opts.d_init of libscan.h). So the shard is
 * read twice and written once, and nothing waits on the host. With one
 * rank there is no carry: the shard is scanned once, as libscan.h does.
 * Association: a float sum on rank r is the carry above combined with
 * libscan_inclusive_scan's association of the shard: fixed by the counts.
 *
 * d_in, d_out  this rank's shard: device arrays of `count` elements (count
 *              may differ between ranks, 0 included; d_in == d_out allowed).
 * dtype, op    as libscan.h (the same on every rank).
 * opts         NULL or options.
 * comm         the communicator; its rank and size are read from it.
 * stream       on this rank's device.
 *
 * Returns SUCCESS, or libscan_inclusive_scan()'s statuses, NULL_POINTER for
 * comm NULL, NCCL. Asynchronous.
 */
LIBSCAN_API libscan_status_t libscan_nccl_inclusive_scan(const void *d_in, void *d_out, size_t count,
                                                         libscan_dtype_t dtype, libscan_op_t op,
                                                         const libscan_nccl_scan_opts_t *opts, ncclComm_t comm,
                                                         cudaStream_t stream);

/*
 * libscan_nccl_exclusive_scan: the exclusive scan of the concatenation: on
 * rank r, d_out[0] = T_0 (+) ... (+) T_{r-1} (the identity on rank 0), and
 * d_out[i] adds d_in[0..i). Same parameters, statuses and rules as the
 * inclusive scan.
 */
LIBSCAN_API libscan_status_t libscan_nccl_exclusive_scan(const void *d_in, void *d_out, size_t count,
                                                         libscan_dtype_t dtype, libscan_op_t op,
                                                         const libscan_nccl_scan_opts_t *opts, ncclComm_t comm,
                                                         cudaStream_t stream);

/* ------------------------------------------------------------------------- */
/* Distributed sort                                                           */
/* ------------------------------------------------------------------------- */

/*
 * Options of a distributed sort. Zero-initialise (or use
 * LIBSCAN_NCCL_SORT_OPTS_INIT); opts = NULL means the defaults.
 * descending  nonzero: largest key first (same on every rank).
 * d_temp, temp_bytes  device scratch sized by libscan_nccl_sort_temp_bytes(),
 *             or NULL and 0: the temp cache.
 */
typedef struct libscan_nccl_sort_opts {
    int descending;
    void *d_temp;
    size_t temp_bytes;
} libscan_nccl_sort_opts_t;

#define LIBSCAN_NCCL_SORT_OPTS_INIT {0, NULL, 0}

/*
 * libscan_nccl_sort_temp_bytes: *temp_bytes = the scratch a distributed sort
 * needs on a rank holding `count` keys that may receive up to `capacity`
 * keys, on nranks ranks (key type and value bytes as for the sort): the
 * rank's sorted shard, a receive buffer of `capacity` keys and values,
 * libscan_sort()'s temp for the larger of the two, and the samples. Host
 * only. Returns SUCCESS, NULL_POINTER, INVALID_DTYPE, INVALID_ARGUMENT
 * (nranks < 1, value_bytes not 0, 4 or 8) or TOO_LARGE.
 */
LIBSCAN_API libscan_status_t libscan_nccl_sort_temp_bytes(size_t count, size_t capacity, int nranks,
                                                          libscan_dtype_t key, size_t value_bytes,
                                                          size_t *temp_bytes);

/*
 * libscan_nccl_sort_capacity: a capacity that is always enough: given on
 * every rank, libscan_nccl_sort never returns CAPACITY, whatever the keys
 * (all equal, few distinct, sorted, one rank holding all of them...).
 * total = the keys of all ranks together. It is about total / nranks * (1 +
 * 3 nranks / 2048) + 4 nranks + 2, and never more than total (see "Load
 * balance" below). Host-only; 0 for nranks < 1.
 */
LIBSCAN_API size_t libscan_nccl_sort_capacity(size_t total, int nranks);

/*
 * libscan_nccl_sort: sorts the keys of all ranks (and the values with them)
 * across the communicator. On return, every key on rank r comes before
 * (<=) every key on rank r+1, each rank's keys are sorted, and *out_count
 * says how many a rank holds. Order: sort.h's (IEEE total order for floats,
 * -0.0 before +0.0, NaNs by their bits), stable across ranks: equal keys
 * keep the order of (rank, position) of the input, so the result is the
 * stable sort of the concatenation of the shards, cut into consecutive
 * pieces.
 *
 * How (a sample sort; DESIGN.md, "libscan_nccl", says why not a radix
 * partition): each rank sorts its shard (libscan_sort); takes up to 2048
 * evenly spaced samples of it, as (key, rank, position) triples; the
 * samples are all-gathered and every rank picks the same nranks - 1
 * splitters; binary searches cut each sorted shard at the splitters; the
 * ranks all-gather their send counts and capacities; one ncclSend/ncclRecv
 * group moves every piece (each received on a 16-byte boundary, where NCCL
 * copies fastest); each rank merges the sorted runs it received and its own
 * piece (read where it is), in rounds of stable pairwise merges (earlier
 * ranks first on ties). The environment variable LIBSCAN_NCCL_MERGE=0 (read
 * at every call; set on any rank, every rank follows it) sorts them again
 * with libscan_sort instead (the own piece copied in by the device), as
 * also happens with more than 64 runs; the result is the same. With one rank
 * the shard is sorted straight into the outputs, as libscan_sort does.
 *
 * Load balance. Splitters are triples, not keys, so the shares are even
 * whatever the keys: all equal, two distinct, one rank holding everything
 * or nothing. A rank receives at most libscan_nccl_sort_capacity(total,
 * nranks) keys (an even share plus about 3 / 2048 of the total, plus 4
 * nranks + 2), with no assumption on the distribution.
 *
 * d_keys_in, d_values_in    this rank's shard: `count` keys (and values, or
 *                           NULL with value_bytes 0); not modified.
 * d_keys_out, d_values_out  device arrays of `capacity` keys (and values):
 *                           receive this rank's part of the result.
 * count                     the keys of this rank (0 allowed; counts may
 *                           differ between ranks).
 * capacity                  how many keys the outputs hold (0 allowed).
 *                           Every rank's capacity is sent to every other,
 *                           so an overflow is refused on all ranks.
 * out_count                 host pointer: on SUCCESS the keys this rank
 *                           holds; on CAPACITY the keys it would have to
 *                           hold (compare with capacity; a rank whose own
 *                           is enough learns that another's is not).
 * key, value_bytes          sort.h's key types; values of 0, 4 or 8 bytes.
 * opts, comm, stream        options, the communicator, the rank's stream.
 * The four arrays must be distinct (no byte shared), as for libscan_sort.
 *
 * Returns SUCCESS, or: NULL_POINTER (out_count or comm NULL; an array NULL
 * that is needed), INVALID_DTYPE, INVALID_ARGUMENT (value_bytes; values
 * given with value_bytes 0; the ranks disagree on key, value_bytes or
 * descending; d_temp NULL with temp_bytes != 0), TEMP_TOO_SMALL, OVERLAP,
 * INVALID_POINTER, TOO_LARGE, OUT_OF_MEMORY, CAPACITY, NCCL, CUDA. Nothing
 * is written to the outputs unless the call succeeds (CUDA and NCCL errors
 * aside). Synchronises with `stream` (see Streams).
 */
LIBSCAN_API libscan_status_t libscan_nccl_sort(const void *d_keys_in, void *d_keys_out, const void *d_values_in,
                                               void *d_values_out, size_t count, size_t capacity, size_t *out_count,
                                               libscan_dtype_t key, size_t value_bytes,
                                               const libscan_nccl_sort_opts_t *opts, ncclComm_t comm,
                                               cudaStream_t stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LIBSCAN_NCCL_H */
