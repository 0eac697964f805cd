/* batch.h -- `sat_blur --batch`: many frames through the steps of frame.h
 * at once, so that the decode of frame n+1, the blur of frame n and the
 * encode of frame n-1 overlap and every core has work.
 *
 * Threads: `workers` threads decode and encode (an encode is taken before a
 * decode, so finished frames leave memory first) and, on the CPU device,
 * blur too; on the GPU device one more thread runs the blurs one frame at a
 * time in the frames' order. A frame is taken for decoding only while fewer
 * than workers + BATCH_QUEUE_FRAMES frames are between their decode and the
 * end of their encode, so memory stays bounded whatever the batch's length.
 *
 * A frame that fails (bad file, depth map of another size, write error, GPU
 * failure) is reported on stderr as "<prog>: <message naming the file>" and
 * the others still go through. stderr also gets a progress line (when it is
 * a terminal and not quiet), a summary "N written, M failed" (unless quiet)
 * and, with timing, the stage totals summed over the threads and the batch's
 * frames per second. */
#ifndef LIBSCAN_SAT_BLUR_BATCH_H
#define LIBSCAN_SAT_BLUR_BATCH_H

#include "batch_list.h"
#include "frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Frames waiting between the stages, beyond one per worker thread. */
#define BATCH_QUEUE_FRAMES 4

typedef struct batch_config {
    const char *prog;
    const frame_params_t *params;
    const char *shared_depth; /* one depth map for every frame, or NULL */
    app_device_t device;      /* as asked (auto, cpu or gpu): batch_run chooses (app_choose_device)
                                 while the workers already decode, so that the GPU's context
                                 (app_gpu_warm_start) is created meanwhile */
    int workers;              /* >= 1 */
    bool quiet, timing;
} batch_config_t;

/* The most workers batch_threads gives by default. More only slowed each
 * decode: 32 frames of 4K to JPEG on the 2-GPU H200 machine (32 cores) took
 * 0.835 s with 32 workers, 0.617 s with 16 and 0.599 s with 8, the decodes
 * summing to 4.07, 3.41 and 2.96 s (bench/results/2026-11-28-h200x2-16de35f/). */
#define BATCH_AUTO_WORKERS 16

/* Threads for the workers: $SAT_BLUR_THREADS when set (1..1024), else the
 * CPUs this process may run on, at most BATCH_AUTO_WORKERS. Returns 0, or
 * -1 with a reason in err when the variable is not such a number. */
int batch_threads(int *workers, char *err, size_t errlen);

/* Runs every frame of list. Returns APP_EXIT_OK when every frame was
 * written; else the worst status of the failed frames (APP_EXIT_USAGE for
 * bad input only, APP_EXIT_INTERNAL when a write, the GPU or memory failed),
 * or that of a failure before the first frame (the shared depth map, no
 * thread could start, no device: app_choose_device's status, after which no
 * frame is written). */
int batch_run(const batch_list_t *list, const batch_config_t *cfg);

#ifdef __cplusplus
}
#endif
#endif
