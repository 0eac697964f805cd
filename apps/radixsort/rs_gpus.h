/* rs_gpus.h -- radixsort --gpus N: the sort of rs_sort_host() spread over
 * N GPUs of this machine with libscan_nccl (<libscan/nccl.h>): one
 * communicator from ncclCommInitAll, one thread per GPU, each GPU given a
 * contiguous share of the keys (and their u64 input positions when the job
 * needs the permutation); the sorted pieces come back into the caller's host
 * buffers in rank order, so the outputs are written (and committed) by the
 * one-GPU path's code. Built without NCCL, rs_gpus_built() is 0 and
 * --gpus is refused. The order of a run: rs_gpus_start() as soon as the
 * options are known, the input read, rs_gpus_sort_host(), the output
 * written, rs_gpus_finish(). */
#ifndef RS_GPUS_H
#define RS_GPUS_H

#include <stddef.h>
#include <stdint.h>
#include "radixsort_chunked.h"
#include "common/cli.h" /* app_timing_t */

/* 1 when this radixsort was built with libscan_nccl, else 0. */
int rs_gpus_built(void);

/* Built without NCCL: prints one line and returns APP_EXIT_USAGE; else
 * APP_EXIT_OK. Decided before anything is read. */
int rs_gpus_check_built(const char *prog, int gpus);

/* Starts, on a thread, what the sort across `gpus` GPUs needs before it can
 * begin: the GPUs' CUDA contexts (created in parallel), the communicator
 * (ncclCommInitAll) and its connections (a small all-gather and
 * all-to-all), so that they overlap reading the input; on a 4-GPU machine
 * they take about a second. rs_gpus_sort_host() waits for it, and so does
 * exit(). Nothing without NCCL. */
void rs_gpus_start(int gpus);

/* Sorts keys[0..n) of job->key in host memory across job->gpus GPUs, with
 * idx (n u64, or NULL) receiving the stable permutation, as rs_sort_host()
 * does; keys and idx are best page-locked (for all GPUs) by the caller.
 * Waits for rs_gpus_start() (starting it if nobody did); fewer usable GPUs
 * than job->gpus is one line and APP_EXIT_INTERNAL, as --device gpu without
 * one. Afterwards the communicator is torn down on a thread, while the
 * caller writes the output. Returns an exit code (the error printed as one
 * line). */
int rs_gpus_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n);

/* Waits for the teardown and adds the start's and the teardown's wall spans
 * to t as "gpu init" and "gpu release" (t may be NULL). */
void rs_gpus_finish(app_timing_t *t);

#endif
