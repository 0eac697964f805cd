/* pipeline.c -- a job's plan, and the whole job on the CPU (pipeline.h). */
#include "pipeline.h"
#include "radius.h"
#include "common/bulk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int pixels_ok(const blur_pixels_t *p) {
    return p->data && (p->bits == 8 || p->bits == 16) && p->channels >= 1 && p->channels <= 4 && p->width >= 1 &&
           p->height >= 1;
}

static int job_ok(const blur_image_job_t *j) {
    if (!pixels_ok(&j->in) || !pixels_ok(&j->out) || j->out.bits != j->in.bits || j->out.channels != j->in.channels ||
        j->out.width != j->in.width || j->out.height != j->in.height || j->passes < 1)
        return 0;
    if (j->mode == BLUR_MODE_DEPTH)
        return pixels_ok(&j->depth) && j->depth.width == j->in.width && j->depth.height == j->in.height;
    return j->mode == BLUR_MODE_UNIFORM || j->mode == BLUR_MODE_TILT;
}

int blur_plan_init(const blur_image_job_t *job, blur_plan_t *plan, char *err, size_t errlen) {
    memset(&plan->luts, 0, sizeof plan->luts);
    plan->radius_lut = NULL;
    plan->radius_lut_len = 0;
    if (!job_ok(job)) {
        snprintf(err, errlen, "blur: invalid job");
        return -1;
    }
    plan->precision = blur_precision_for(&job->in, job->threads);
    if (blur_luts_init(&plan->luts, job->in.bits, plan->precision, job->linear, err, errlen) != 0) return -1;
    plan->uniform_q8 = job->mode == BLUR_MODE_UNIFORM ? blur_radius_q8(job->radius) : 0;
    plan->weighted = job->mode != BLUR_MODE_UNIFORM;
    if (job->mode == BLUR_MODE_DEPTH)
        plan->radius_lut_len = blur_depth_lut_len(job->depth.bits, job->depth.channels);
    else if (job->mode == BLUR_MODE_TILT)
        plan->radius_lut_len = job->in.height;
    if (plan->radius_lut_len) {
        plan->radius_lut = malloc(plan->radius_lut_len * sizeof *plan->radius_lut);
        if (!plan->radius_lut) {
            blur_plan_free(plan);
            snprintf(err, errlen, "out of memory for the radius table");
            return -1;
        }
        if (job->mode == BLUR_MODE_DEPTH)
            blur_depth_lut(job->depth.bits, job->depth.channels, job->invert, job->focus, job->aperture,
                           job->max_radius, plan->radius_lut);
        else
            blur_tilt_rows(job->in.height, job->focus, job->max_radius, plan->radius_lut);
    }
    return 0;
}

void blur_plan_free(blur_plan_t *plan) {
    blur_luts_free(&plan->luts);
    free(plan->radius_lut);
    plan->radius_lut = NULL;
}

int blur_image_run_cpu(const blur_image_job_t *job, blur_times_t *times, char *err, size_t errlen) {
    blur_times_t t = {0, 0, 0, 0, 0};
    const double t0 = now_s();
    blur_plan_t plan;
    if (blur_plan_init(job, &plan, err, errlen) != 0) return -1;
    const size_t W = job->in.width, H = job->in.height, C = (size_t)job->in.channels;
    /* Whole images: bulk_mem.h's huge pages (fewer first-touch faults). */
    void *fixed = app_bulk_alloc(W * H * C * (size_t)blur_format(plan.precision).sample_bytes);
    uint16_t *radius = plan.weighted ? app_bulk_alloc(W * H * sizeof *radius) : NULL;
    int rc = -1;
    if (!fixed || (plan.weighted && !radius)) {
        snprintf(err, errlen, "out of memory for the blur of %zux%zu pixels", W, H);
        goto done;
    }
    blur_image_to_fixed(&plan.luts, &job->in, fixed, job->threads);
    if (job->mode == BLUR_MODE_DEPTH) blur_radius_from_depth(&job->depth, plan.radius_lut, radius, job->threads);
    if (job->mode == BLUR_MODE_TILT) blur_radius_from_rows(plan.radius_lut, W, H, radius, job->threads);
    t.convert = now_s() - t0;

    const blur_job_t core = {W, H, (int)C, fixed, radius, plan.uniform_q8, plan.weighted, job->passes, plan.precision};
    blur_times_t ct;
    if ((rc = blur_run_cpu(&core, &ct, err, errlen)) != 0) goto done;
    t.sat = ct.sat;
    t.blur = ct.blur;

    const double t1 = now_s();
    blur_image_from_fixed(&plan.luts, fixed, &job->out, job->threads);
    t.convert += now_s() - t1;
done:
    free(fixed);
    free(radius);
    blur_plan_free(&plan);
    if (times) *times = t;
    return rc;
}
