/* blur.c -- the CPU run of the depth-of-field blur on fixed-point samples
 * (see blur.h). */
#include "blur.h"
#include "parallel.h"
#include "common/bulk_mem.h"
#include <libscan/sat.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The libscan dtype of an unsigned integer of `bytes` bytes (1, 2, 4, 8). */
static libscan_dtype_t uint_dtype(int bytes) {
    switch (bytes) {
    case 1: return LIBSCAN_U8;
    case 2: return LIBSCAN_U16;
    case 4: return LIBSCAN_U32;
    default: return LIBSCAN_U64;
    }
}

void blur_apply_weights(const void *in, const uint16_t *radius_q8, size_t pixels, int channels,
                        blur_precision_t precision, void *out, uint8_t *wmap) {
    const int sb = blur_format(precision).sample_bytes;
    for (size_t p = 0; p < pixels; ++p) {
        const uint16_t w = blur_weight(radius_q8[p]);
        for (int c = 0; c < channels; ++c) {
            const size_t i = p * (size_t)channels + (size_t)c;
            blur_store(out, i, sb, blur_load(in, i, sb) * w);
        }
        if (wmap) wmap[p] = (uint8_t)w;
    }
}

/* blur_apply_weights over rows [begin, end) of a blur_run_cpu job: every
 * pixel is independent, so the rows go to parallel.h's bands. */
typedef struct weights_ctx {
    const blur_job_t *job;
    void *out;
    uint8_t *wmap;
} weights_ctx_t;

static void weights_rows(void *arg, size_t begin, size_t end) {
    const weights_ctx_t *w = (const weights_ctx_t *)arg;
    const blur_job_t *j = w->job;
    const size_t first = begin * j->width, C = (size_t)j->channels;
    const size_t off = first * C * (size_t)blur_format(j->precision).sample_bytes;
    blur_apply_weights((const unsigned char *)j->pixels + off, j->radius_q8 + first, (end - begin) * j->width,
                       j->channels, j->precision, (unsigned char *)w->out + off, w->wmap ? w->wmap + first : NULL);
}

int blur_run_cpu(const blur_job_t *job, blur_times_t *times, char *err, size_t errlen) {
    if (times) times->upload = times->sat = times->blur = times->download = times->convert = 0;
    if (!job || !job->pixels || job->channels < 1 || job->channels > 4 || job->passes < 1 ||
        (job->weighted && !job->radius_q8) || (unsigned)job->precision > BLUR_P37) {
        snprintf(err, errlen, "CPU blur: invalid job");
        return -1;
    }
    const blur_format_t f = blur_format(job->precision);
    const size_t W = job->width, H = job->height, C = (size_t)job->channels, n = W * H;
    const size_t sb = (size_t)f.sample_bytes, tb = (size_t)f.table_bytes;
    const libscan_dtype_t sdt = uint_dtype(f.sample_bytes), tdt = uint_dtype(f.table_bytes);
    void *src = job->pixels, *weighted = NULL;
    uint8_t *wmap = NULL;
    /* Whole tables and images: bulk_mem.h's huge pages (fewer first-touch faults). */
    void *table = app_bulk_alloc(n * C * tb);
    uint32_t *wtable = NULL;
    int rc = 0;
    if (!table) goto oom;
    if (job->weighted) {
        weighted = app_bulk_alloc(n * C * sb);
        wmap = app_bulk_alloc(n);
        wtable = app_bulk_alloc(n * sizeof(uint32_t));
        if (!weighted || !wmap || !wtable) goto oom;
    }
    const libscan_sat_image_t img = {src, sdt, (int)C, W, H, W * C * sb};
    const libscan_sat_image_t wimg = {weighted, sdt, (int)C, W, H, W * C * sb};
    const libscan_sat_image_t tab = {table, tdt, (int)C, W, H, W * C * tb};
    const libscan_sat_image_t wm = {wmap, LIBSCAN_U8, 1, W, H, W};
    const libscan_sat_image_t wtab = {wtable, LIBSCAN_U32, 1, W, H, W * 4};
    for (int pass = 0; pass < job->passes; ++pass) {
        double t0 = now_s();
        libscan_status_t st;
        if (job->weighted) {
            /* On every core like the library calls below (which take their
             * thread count from LIBSCAN_CPU_THREADS or the usable CPUs). */
            weights_ctx_t wc = {job, weighted, pass == 0 ? wmap : NULL};
            blur_parallel_rows(0, H, weights_rows, &wc);
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
