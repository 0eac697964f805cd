/* pipeline.h -- one whole sat_blur job, from the file's pixels to the
 * file's pixels: the precision the image needs (convert.h), the conversion
 * to fixed point and the radius map, the blur (blur.h), the conversion back.
 * The CPU run does the conversions on every core; the GPU run uploads the
 * raw 8/16-bit pixels (and depth map) plus the small lookup tables, does
 * every step on the GPU and downloads raw pixels: nothing else crosses
 * PCIe. Both write the same bytes.
 * C99-clean. */
#ifndef LIBSCAN_SAT_BLUR_PIPELINE_H
#define LIBSCAN_SAT_BLUR_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "blur.h"
#include "convert.h"
#include "pixels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum blur_mode {
    BLUR_MODE_UNIFORM = 0, /* one radius everywhere (--radius) */
    BLUR_MODE_DEPTH = 1,   /* circle of confusion from a depth map, bleeding weights */
    BLUR_MODE_TILT = 2     /* a tilt-shift focus band, bleeding weights */
} blur_mode_t;

typedef struct blur_image_job {
    blur_pixels_t in;    /* the decoded image */
    blur_pixels_t out;   /* in's shape and bits: receives the result (may be in's own pixels) */
    int linear;          /* 1: blur linear light (sRGB decoded); 0: the encoded values (--no-linear) */
    int passes;          /* 1..16 */
    blur_mode_t mode;
    double radius;       /* UNIFORM: pixels, 0..BLUR_MAX_RADIUS */
    blur_pixels_t depth; /* DEPTH: the depth map, in's width and height (radius.h) */
    int invert;          /* DEPTH: 1 = white is near */
    double focus;        /* DEPTH: the depth in focus (after inversion); TILT: the band centre, 0..1 of the height */
    double aperture;     /* DEPTH */
    double max_radius;   /* DEPTH, TILT: 0..BLUR_MAX_RADIUS */
    int threads;         /* host threads for the conversions (parallel.h): 0 = every core; 1 where the
                            caller already runs one job per core (batch mode) */
} blur_image_job_t;

/* What a job needs besides its pixels, built on the host and used as is by
 * both devices. */
typedef struct blur_plan {
    blur_precision_t precision;
    blur_luts_t luts;
    uint16_t *radius_lut;  /* DEPTH: radius by depth index (blur_depth_lut); TILT: by row; else NULL */
    size_t radius_lut_len;
    uint16_t uniform_q8;   /* UNIFORM: the radius */
    int weighted;          /* DEPTH, TILT */
} blur_plan_t;

/* Checks the job and builds its plan. Returns 0, or -1 with a one-line
 * reason (invalid job, out of memory; nothing to free then). */
int blur_plan_init(const blur_image_job_t *job, blur_plan_t *plan, char *err, size_t errlen);
void blur_plan_free(blur_plan_t *plan);

/* Runs the job on the CPU. Returns 0, or -1 with a reason in err (invalid
 * job, out of memory). times may be NULL. */
int blur_image_run_cpu(const blur_image_job_t *job, blur_times_t *times, char *err, size_t errlen);

/* Runs the job on the current CUDA device; synchronous, the same bytes as
 * blur_image_run_cpu. Returns 0, -1 (invalid job, host out of memory) or
 * -2 (CUDA failure, GPU out of memory), with a reason in err. */
int blur_image_run_gpu(const blur_image_job_t *job, blur_times_t *times, char *err, size_t errlen);

/* The GPU runs keep their streams, device buffers and a pinned staging
 * buffer per thread from one run to the next (a batch blurs frame after
 * frame on one thread); this frees the calling thread's. Optional: the
 * process's exit frees them too. */
void blur_gpu_release(void);

#ifdef __cplusplus
}
#endif
#endif
