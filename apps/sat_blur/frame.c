/* frame.c -- one image through sat_blur: decode, blur, encode (frame.h). */
#include "frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Depth in [0, 1] per pixel: gray, or the mean of R, G, B (alpha ignored).
 * NULL with the reason in err; *rc says which kind of failure. */
static float *depth_values(const img_t *d, int *rc, char *err, size_t errlen) {
    const size_t n = img_pixel_count(d), C = (size_t)d->channels;
    float *all = malloc(n * C * sizeof(float));
    if (!all) {
        snprintf(err, errlen, "out of memory for the depth map");
        *rc = APP_EXIT_INTERNAL;
        return NULL;
    }
    if (img_to_linear_f32(d, all, 0, 0, err, errlen) != 0) {
        free(all);
        *rc = APP_EXIT_USAGE;
        return NULL;
    }
    const size_t colour = C >= 3 ? 3 : 1;
    for (size_t i = 0; i < n; ++i) {
        float s = 0;
        for (size_t c = 0; c < colour; ++c) s += all[i * C + c];
        all[i] = s / (float)colour; /* in place: i <= i * C */
    }
    return all;
}

/* The radius map of a depth image already read (the convert phase). */
static int depth_radii(const frame_params_t *p, const img_t *dimg, frame_depth_t *d, char *err, size_t errlen) {
    const size_t W = (size_t)dimg->width, H = (size_t)dimg->height;
    if (p->focus_at_set &&
        (p->focus_x < 0 || p->focus_y < 0 || p->focus_x >= dimg->width || p->focus_y >= dimg->height)) {
        snprintf(err, errlen, "--focus-at %lld,%lld is outside the %dx%d image", (long long)p->focus_x,
                 (long long)p->focus_y, dimg->width, dimg->height);
        return APP_EXIT_USAGE;
    }
    int rc = APP_EXIT_OK;
    float *dv = depth_values(dimg, &rc, err, errlen);
    if (!dv) return rc;
    d->radius_q8 = malloc(W * H * sizeof(uint16_t));
    if (!d->radius_q8) {
        free(dv);
        snprintf(err, errlen, "out of memory for the radius map");
        return APP_EXIT_INTERNAL;
    }
    double focus = p->focus;
    if (!p->focus_set) { /* the depth under --focus-at, or at the centre */
        const size_t fx = p->focus_at_set ? (size_t)p->focus_x : W / 2;
        const size_t fy = p->focus_at_set ? (size_t)p->focus_y : H / 2;
        focus = dv[fy * W + fx];
        if (p->invert) focus = 1.0 - focus;
    }
    blur_radius_map_depth(dv, W, H, p->invert, focus, p->aperture, p->max_radius, d->radius_q8);
    free(dv);
    d->width = dimg->width;
    d->height = dimg->height;
    return APP_EXIT_OK;
}

int frame_depth_load(const frame_params_t *p, const char *path, frame_depth_t *d, char *err, size_t errlen) {
    memset(d, 0, sizeof *d);
    img_t dimg;
    img_init(&dimg);
    if (img_read(path, p->max_pixels, &dimg, err, errlen) != 0) return APP_EXIT_USAGE;
    const int rc = depth_radii(p, &dimg, d, err, errlen);
    d->path = path;
    img_free(&dimg);
    if (rc != APP_EXIT_OK) frame_depth_free(d);
    return rc;
}

void frame_depth_free(frame_depth_t *d) {
    free(d->radius_q8);
    memset(d, 0, sizeof *d);
}

void frame_free(frame_t *f) {
    const frame_times_t t = f->t;
    const img_write_report_t report = f->report;
    free(f->fixed);
    free(f->tilt_q8);
    frame_depth_free(&f->depth);
    memset(f, 0, sizeof *f);
    f->t = t;
    f->report = report;
}

int frame_decode(const frame_params_t *p, const char *in, const char *depth_path, const frame_depth_t *shared,
                 frame_t *f, char *err, size_t errlen) {
    img_t img, dimg;
    img_init(&img);
    img_init(&dimg);
    float *lin = NULL;
    int rc = APP_EXIT_USAGE;
    double t0 = app_now();

    if (img_read(in, p->max_pixels, &img, err, errlen) != 0) goto fail;
    if (depth_path && img_read(depth_path, p->max_pixels, &dimg, err, errlen) != 0) goto fail;
    const frame_depth_t *depth = depth_path ? NULL : shared;
    const int dw = depth_path ? dimg.width : (depth ? depth->width : img.width);
    const int dh = depth_path ? dimg.height : (depth ? depth->height : img.height);
    if (dw != img.width || dh != img.height) {
        snprintf(err, errlen, "%s: depth map is %dx%d but %s is %dx%d", depth_path ? depth_path : depth->path, dw, dh,
                 in, img.width, img.height);
        goto fail;
    }
    double t1 = app_now();
    f->t.decode += t1 - t0;

    const size_t W = (size_t)img.width, H = (size_t)img.height, C = (size_t)img.channels, n = W * H;
    lin = malloc(n * C * sizeof(float));
    f->fixed = malloc(n * C * sizeof(uint16_t));
    if (!lin || !f->fixed) {
        snprintf(err, errlen, "%s: out of memory for %zux%zu pixels", in, W, H);
        rc = APP_EXIT_INTERNAL;
        goto fail;
    }
    if (img_to_linear_f32(&img, lin, !p->no_linear, 1, err, errlen) != 0) goto fail;
    blur_to_fixed(lin, n * C, f->fixed);
    free(lin);
    lin = NULL;

    f->job = (blur_job_t){W, H, (int)C, f->fixed, NULL, blur_radius_q8(p->radius), 0, p->passes};
    if (depth_path) {
        if ((rc = depth_radii(p, &dimg, &f->depth, err, errlen)) != APP_EXIT_OK) goto fail;
        f->depth.path = depth_path;
        depth = &f->depth;
    }
    if (depth) {
        f->job.radius_q8 = depth->radius_q8;
        f->job.weighted = 1;
    } else if (p->tilt) {
        if (!(f->tilt_q8 = malloc(n * sizeof(uint16_t)))) {
            snprintf(err, errlen, "out of memory for the radius map");
            rc = APP_EXIT_INTERNAL;
            goto fail;
        }
        blur_radius_map_tilt(W, H, p->focus_set ? p->focus : 0.5, p->max_radius, f->tilt_q8);
        f->job.radius_q8 = f->tilt_q8;
        f->job.weighted = 1;
    }
    f->width = img.width;
    f->height = img.height;
    f->channels = img.channels;
    f->bits = img.bits;
    img_free(&img);
    img_free(&dimg);
    f->t.convert += app_now() - t1;
    return APP_EXIT_OK;
fail:
    free(lin);
    img_free(&img);
    img_free(&dimg);
    frame_free(f);
    return rc;
}

int frame_blur(frame_t *f, app_device_t dev, char *err, size_t errlen) {
    blur_times_t bt;
    f->device = dev;
    if (dev == APP_DEVICE_GPU) {
        const int g = blur_run_gpu(&f->job, &bt, err, errlen);
        if (g != 0) return g == -2 ? APP_EXIT_INTERNAL : APP_EXIT_USAGE;
        f->t.upload += bt.upload;
        f->t.download += bt.download;
    } else if (blur_run_cpu(&f->job, &bt, err, errlen) != 0) {
        return APP_EXIT_INTERNAL;
    }
    f->t.sat += bt.sat;
    f->t.blur += bt.blur;
    return APP_EXIT_OK;
}

int frame_encode(const frame_params_t *p, frame_t *f, const char *out, char *err, size_t errlen) {
    const double t0 = app_now();
    const size_t count = (size_t)f->width * (size_t)f->height * (size_t)f->channels;
    int rc = APP_EXIT_INTERNAL;
    img_t outimg;
    img_init(&outimg);
    float *lin = malloc(count * sizeof(float));
    if (!lin) {
        snprintf(err, errlen, "%s: out of memory for %dx%d pixels", out, f->width, f->height);
        goto done;
    }
    blur_from_fixed(f->fixed, count, lin);
    if (img_alloc(&outimg, f->width, f->height, f->channels, f->bits, err, errlen) != 0) goto done;
    if (img_from_linear_f32(lin, &outimg, !p->no_linear, 1, err, errlen) != 0) goto done;
    /* On the GPU, JPEG goes through nvJPEG where the build has it. */
    img_write_opts_t wo = p->write;
    wo.jpeg_gpu = f->device == APP_DEVICE_GPU;
    wo.report = &f->report;
    const int wrc = img_write(out, &outimg, &wo, err, errlen);
    /* A failed write (disk full, I/O error) is exit 2, as the README says;
     * a destination the user got wrong is bad input, 1. */
    rc = wrc == 0 ? APP_EXIT_OK : (wrc == IMG_ERR_IO ? APP_EXIT_INTERNAL : APP_EXIT_USAGE);
done:
    free(lin);
    img_free(&outimg);
    f->t.encode += app_now() - t0;
    return rc;
}
