/* frame.h -- one image through sat_blur, in three steps that single mode
 * runs one after another and batch mode (batch.h) runs on different threads
 * for different frames at once:
 *
 *   frame_decode  read the image (and its depth map);
 *   frame_blur    the whole blur job on the GPU or the CPU (pipeline.h): the
 *                 conversion to fixed point, the radius map, the tables and
 *                 the filter, the conversion back to the image's own samples;
 *   frame_encode  write the result, atomically.
 *
 * Both modes call exactly these functions, so a frame of a batch gets the
 * bytes single mode writes for the same file and options.
 *
 * Every function returns an exit status of cli.h (APP_EXIT_OK, or
 * APP_EXIT_USAGE for bad input, APP_EXIT_INTERNAL for a GPU failure, out of
 * memory or an I/O error while writing) with one line in err. Thread-safe:
 * different frames may be in different steps on different threads; a
 * frame_depth_t is only read once loaded. */
#ifndef LIBSCAN_SAT_BLUR_FRAME_H
#define LIBSCAN_SAT_BLUR_FRAME_H

#include "pipeline.h"
#include "common/cli.h"
#include "common/image_io.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The per-image options (the same for every frame of a batch). */
typedef struct frame_params {
    double radius;       /* uniform blur (when neither a depth map nor tilt) */
    double focus, aperture, max_radius;
    int64_t focus_x, focus_y; /* --focus-at */
    int passes;
    int threads;         /* host threads of a frame's conversions: 0 = every core (single mode), 1 in batch
                            mode, whose workers already run a frame each */
    uint64_t max_pixels;
    bool focus_set, focus_at_set, tilt, invert, no_linear;
    img_write_opts_t write; /* JPEG quality and subsampling (frame_encode sets jpeg_gpu and report) */
} frame_params_t;

/* Where a frame's time went, in seconds (the phases of --timing). */
typedef struct frame_times {
    double decode, convert, upload, sat, blur, download, encode;
} frame_times_t;

/* A depth map and the depth in focus: the focus is taken from the map itself
 * (--focus, the depth under --focus-at, or at the centre), so the radii
 * (made in frame_blur's job, radius.h) depend on the map and the options
 * alone and one map can serve every frame of a batch. */
typedef struct frame_depth {
    const char *path; /* the file it came from (not owned), for messages */
    img_t img;        /* the map as read (PNG or JPEG) */
    double focus;     /* the depth in focus, after --invert-depth */
} frame_depth_t;

/* One frame between the steps. Zero-initialise (or frame_free) before
 * frame_decode. */
typedef struct frame {
    img_t img;                 /* the image as read */
    img_t out;                 /* the blurred image: img's shape and bits */
    frame_depth_t depth;       /* the frame's own depth map (frame_decode's depth_path), or empty */
    blur_image_job_t job;      /* what frame_blur runs: img -> out */
    app_device_t device;       /* where frame_blur ran it */
    img_write_report_t report; /* what frame_encode's img_write did (JPEG encoder, a note) */
    frame_times_t t;
} frame_t;

/* Reads the depth map at path and finds the depth in focus (p's --focus,
 * --focus-at or the centre, and inversion). --focus-at outside the map is
 * bad input. */
int frame_depth_load(const frame_params_t *p, const char *path, frame_depth_t *d, char *err, size_t errlen);
void frame_depth_free(frame_depth_t *d);

/* Step 1: reads `in` (a PNG or a JPEG, img_read); with depth_path, reads that depth map for this frame
 * alone, else uses `shared` when not NULL (a map loaded once for many
 * frames, which must outlive the frame's blur), else a uniform or tilt-shift
 * blur as p says. A depth map of another size than the image is bad input
 * (the message names both files). f must be empty; on failure it is left
 * empty. */
int frame_decode(const frame_params_t *p, const char *in, const char *depth_path, const frame_depth_t *shared,
                 frame_t *f, char *err, size_t errlen);

/* Step 2: the blur, on dev (APP_DEVICE_GPU or APP_DEVICE_CPU). */
int frame_blur(frame_t *f, app_device_t dev, char *err, size_t errlen);

/* Step 3: writes the blurred image to `out` (its format from its extension)
 * through img_write: atomically, a write I/O error is
 * APP_EXIT_INTERNAL, a destination that cannot be written APP_EXIT_USAGE.
 * A frame blurred on the GPU asks for nvJPEG (img_write_opts_t.jpeg_gpu);
 * f->report says which encoder wrote a JPEG and why nvJPEG was not used. */
int frame_encode(const frame_params_t *p, frame_t *f, const char *out, char *err, size_t errlen);

/* Releases what f holds and leaves it empty (its times and report are kept). */
void frame_free(frame_t *f);

#ifdef __cplusplus
}
#endif
#endif
