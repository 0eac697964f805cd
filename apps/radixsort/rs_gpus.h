/* rs_gpus.h -- radixsort --gpus N: the sort of rs_sort_host() spread over
 * N GPUs of this machine with libscan_nccl (<libscan/nccl.h>): one
 * communicator from ncclCommInitAll, one thread per GPU, each GPU given a
 * contiguous share of the keys (and their u64 input positions when the job
 * needs the permutation); the sorted pieces come back into the caller's host
 * buffers in rank order, so the outputs are written (and committed) by the
 * one-GPU path's code. Built without NCCL, rs_gpus_built() is 0 and
 * --gpus is refused. */
#ifndef RS_GPUS_H
#define RS_GPUS_H

#include <stddef.h>
#include <stdint.h>
#include "radixsort_chunked.h"

/* 1 when this radixsort was built with libscan_nccl, else 0. */
int rs_gpus_built(void);

/* Checks that `gpus` GPUs are usable. Returns APP_EXIT_OK, or prints one
 * line and returns APP_EXIT_INTERNAL (fewer GPUs, as --device gpu without
 * one) or APP_EXIT_USAGE (no NCCL in this build). */
int rs_gpus_check(const char *prog, int gpus);

/* Sorts keys[0..n) of job->key in host memory across job->gpus GPUs, with
 * idx (n u64, or NULL) receiving the stable permutation, as rs_sort_host()
 * does. Returns an exit code (the error printed as one line). */
int rs_gpus_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n);

#endif
