/* blur.c -- radius maps, fixed-point conversions and the CPU run of the
 * depth-of-field blur (see blur.h). */
#include "blur.h"
#include <libscan/sat.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double blur_coc_radius(double depth, double focus, double aperture, double max_radius) {
    if (depth != depth || focus != focus) return 0; /* NaN: no blur rather than the most */
    const double d = depth > BLUR_MIN_DEPTH ? depth : BLUR_MIN_DEPTH;
    const double f = focus > BLUR_MIN_DEPTH ? focus : BLUR_MIN_DEPTH;
    double r = aperture * fabs(d - f) / d;
    if (!(r > 0)) r = 0; /* also NaN */
    return r < max_radius ? r : max_radius;
}

uint16_t blur_radius_q8(double radius) {
    if (!(radius > 0)) return 0;
    const double q = floor(radius * 256.0 + 0.5);
    return (uint16_t)(q > BLUR_MAX_RADIUS * 256.0 ? BLUR_MAX_RADIUS * 256.0 : q);
}

void blur_radius_map_depth(const float *depth, size_t width, size_t height, int invert, double focus,
                           double aperture, double max_radius, uint16_t *radius_q8) {
    const size_t n = width * height;
    for (size_t i = 0; i < n; ++i) {
        const double d = invert ? 1.0 - (double)depth[i] : (double)depth[i];
        radius_q8[i] = blur_radius_q8(blur_coc_radius(d, focus, aperture, max_radius));
    }
}

void blur_radius_map_tilt(size_t width, size_t height, double centre, double max_radius, uint16_t *radius_q8) {
    for (size_t y = 0; y < height; ++y) {
        const double dist = fabs(((double)y + 0.5) / (double)height - centre);
        double t = (dist - BLUR_TILT_HALF_BAND) / BLUR_TILT_RAMP;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        const uint16_t r = blur_radius_q8(t * max_radius);
        for (size_t x = 0; x < width; ++x) radius_q8[y * width + x] = r;
    }
}

void blur_to_fixed(const float *in, size_t count, uint16_t *out) {
    for (size_t i = 0; i < count; ++i) {
        const float v = in[i];
        const double c = v > 0 ? (v < 1 ? (double)v : 1.0) : 0.0; /* NaN -> 0 */
        out[i] = (uint16_t)floor(c * BLUR_FIXED_ONE + 0.5);
    }
}

void blur_from_fixed(const uint16_t *in, size_t count, float *out) {
    for (size_t i = 0; i < count; ++i) out[i] = (float)((double)in[i] / BLUR_FIXED_ONE);
}

void blur_apply_weights(const uint16_t *in, const uint16_t *radius_q8, size_t pixels, int channels, uint16_t *out,
                        uint8_t *wmap) {
    for (size_t p = 0; p < pixels; ++p) {
        const uint16_t w = blur_weight(radius_q8[p]);
        for (int c = 0; c < channels; ++c)
            out[p * (size_t)channels + (size_t)c] = (uint16_t)(in[p * (size_t)channels + (size_t)c] * w);
        if (wmap) wmap[p] = (uint8_t)w;
    }
}

int blur_run_cpu(const blur_job_t *job, blur_times_t *times, char *err, size_t errlen) {
    if (times) times->upload = times->sat = times->blur = times->download = 0;
    const size_t W = job->width, H = job->height, C = (size_t)job->channels, n = W * H;
    uint16_t *src = job->pixels;
    uint16_t *weighted = NULL;
    uint8_t *wmap = NULL;
    uint32_t *table = malloc(n * C * sizeof(uint32_t));
    uint32_t *wtable = NULL;
    int rc = 0;
    if (!table) goto oom;
    if (job->weighted) {
        weighted = malloc(n * C * sizeof(uint16_t));
        wmap = malloc(n);
        wtable = malloc(n * sizeof(uint32_t));
        if (!weighted || !wmap || !wtable) goto oom;
    }
    const libscan_sat_image_t img = {src, LIBSCAN_U16, (int)C, W, H, W * C * 2};
    const libscan_sat_image_t wimg = {weighted, LIBSCAN_U16, (int)C, W, H, W * C * 2};
    const libscan_sat_image_t tab = {table, LIBSCAN_U32, (int)C, W, H, W * C * 4};
    const libscan_sat_image_t wm = {wmap, LIBSCAN_U8, 1, W, H, W};
    const libscan_sat_image_t wtab = {wtable, LIBSCAN_U32, 1, W, H, W * 4};
    for (int pass = 0; pass < job->passes; ++pass) {
        double t0 = now_s();
        libscan_status_t st;
        if (job->weighted) {
            blur_apply_weights(src, job->radius_q8, n, (int)C, weighted, wmap);
            st = libscan_cpu_sat_build(&wimg, &tab);
            if (st == LIBSCAN_SUCCESS && pass == 0) st = libscan_cpu_sat_build(&wm, &wtab);
        } else {
            st = libscan_cpu_sat_build(&img, &tab);
        }
        double t1 = now_s();
        if (st == LIBSCAN_SUCCESS)
            st = libscan_cpu_sat_box_filter(&tab, job->weighted ? &wtab : NULL, job->radius_q8, W * 2, job->uniform_q8, &img);
        double t2 = now_s();
        if (times) {
            times->sat += t1 - t0;
            times->blur += t2 - t1;
        }
        if (st != LIBSCAN_SUCCESS) {
            snprintf(err, errlen, "CPU blur: %s", libscan_status_string(st));
            rc = -1;
            break;
        }
    }
    goto done;
oom:
    snprintf(err, errlen, "out of memory for the CPU blur of %zux%zu pixels", W, H);
    rc = -1;
done:
    free(table);
    free(weighted);
    free(wmap);
    free(wtable);
    return rc;
}
