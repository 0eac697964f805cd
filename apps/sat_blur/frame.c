/* frame.c -- one image through sat_blur: decode, blur, encode (frame.h). The
 * pixel conversions and the radius map are part of the blur job
 * (pipeline.h), so on the GPU they run there and only raw pixels cross PCIe. */
#include "frame.h"
#include "radius.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An image as the blur sees it (the same layout). */
static blur_pixels_t pixels_of(const img_t *im) {
    const blur_pixels_t p = {im->pixels, im->bits, im->channels, (size_t)im->width, (size_t)im->height};
    return p;
}

/* The depth in focus of a depth image already read. */
static int depth_focus(const frame_params_t *p, frame_depth_t *d, char *err, size_t errlen) {
    const img_t *dimg = &d->img;
    if (p->focus_at_set &&
        (p->focus_x < 0 || p->focus_y < 0 || p->focus_x >= dimg->width || p->focus_y >= dimg->height)) {
        snprintf(err, errlen, "--focus-at %lld,%lld is outside the %dx%d image", (long long)p->focus_x,
                 (long long)p->focus_y, dimg->width, dimg->height);
        return APP_EXIT_USAGE;
    }
    d->focus = p->focus;
    if (!p->focus_set) { /* the depth under --focus-at, or at the centre */
        const blur_pixels_t px = pixels_of(dimg);
        const size_t fx = p->focus_at_set ? (size_t)p->focus_x : px.width / 2;
        const size_t fy = p->focus_at_set ? (size_t)p->focus_y : px.height / 2;
        d->focus = blur_depth_at(&px, fx, fy);
        if (p->invert) d->focus = 1.0 - d->focus;
    }
    return APP_EXIT_OK;
}

int frame_depth_load(const frame_params_t *p, const char *path, frame_depth_t *d, char *err, size_t errlen) {
    memset(d, 0, sizeof *d);
    img_init(&d->img);
    if (img_read(path, p->max_pixels, &d->img, err, errlen) != 0) return APP_EXIT_USAGE;
    d->path = path;
    const int rc = depth_focus(p, d, err, errlen);
    if (rc != APP_EXIT_OK) frame_depth_free(d);
    return rc;
}

void frame_depth_free(frame_depth_t *d) {
    img_free(&d->img);
    memset(d, 0, sizeof *d);
    img_init(&d->img);
}

void frame_free(frame_t *f) {
    const frame_times_t t = f->t;
    const img_write_report_t report = f->report;
    img_free(&f->img);
    img_free(&f->out);
    frame_depth_free(&f->depth);
    memset(f, 0, sizeof *f);
    img_init(&f->img);
    img_init(&f->out);
    img_init(&f->depth.img);
    f->t = t;
    f->report = report;
}

int frame_decode(const frame_params_t *p, const char *in, const char *depth_path, const frame_depth_t *shared,
                 frame_t *f, char *err, size_t errlen) {
    img_init(&f->img);
    img_init(&f->out);
    img_init(&f->depth.img);
    int rc = APP_EXIT_USAGE;
    const double t0 = app_now();

    if (img_read(in, p->max_pixels, &f->img, err, errlen) != 0) goto fail;
    if (depth_path && img_read(depth_path, p->max_pixels, &f->depth.img, err, errlen) != 0) goto fail;
    f->depth.path = depth_path;
    const frame_depth_t *depth = depth_path ? &f->depth : shared;
    const int dw = depth ? depth->img.width : f->img.width, dh = depth ? depth->img.height : f->img.height;
    if (dw != f->img.width || dh != f->img.height) {
        snprintf(err, errlen, "%s: depth map is %dx%d but %s is %dx%d", depth->path, dw, dh, in, f->img.width,
                 f->img.height);
        goto fail;
    }
    if (depth_path && (rc = depth_focus(p, &f->depth, err, errlen)) != APP_EXIT_OK) goto fail;
    if (img_alloc(&f->out, f->img.width, f->img.height, f->img.channels, f->img.bits, err, errlen) != 0) {
        rc = APP_EXIT_INTERNAL;
        goto fail;
    }
    f->job = (blur_image_job_t){.in = pixels_of(&f->img), .out = pixels_of(&f->out), .linear = !p->no_linear,
                                .passes = p->passes, .mode = BLUR_MODE_UNIFORM, .radius = p->radius,
                                .threads = p->threads};
    if (depth) {
        f->job.mode = BLUR_MODE_DEPTH;
        f->job.depth = pixels_of(&depth->img);
        f->job.invert = p->invert;
        f->job.focus = depth->focus;
        f->job.aperture = p->aperture;
        f->job.max_radius = p->max_radius;
    } else if (p->tilt) {
        f->job.mode = BLUR_MODE_TILT;
        f->job.focus = p->focus_set ? p->focus : 0.5;
        f->job.max_radius = p->max_radius;
    }
    f->t.decode += app_now() - t0;
    return APP_EXIT_OK;
fail:
    frame_free(f);
    return rc;
}

int frame_blur(frame_t *f, app_device_t dev, char *err, size_t errlen) {
    blur_times_t bt;
    f->device = dev;
    if (dev == APP_DEVICE_GPU) {
        const int g = blur_image_run_gpu(&f->job, &bt, err, errlen);
        if (g != 0) return g == -2 ? APP_EXIT_INTERNAL : APP_EXIT_USAGE;
        f->t.upload += bt.upload;
        f->t.download += bt.download;
    } else if (blur_image_run_cpu(&f->job, &bt, err, errlen) != 0) {
        return APP_EXIT_INTERNAL;
    }
    f->t.convert += bt.convert;
    f->t.sat += bt.sat;
    f->t.blur += bt.blur;
    return APP_EXIT_OK;
}

int frame_encode(const frame_params_t *p, frame_t *f, const char *out, char *err, size_t errlen) {
    const double t0 = app_now();
    /* nvJPEG only when asked (--jpeg-encoder nvjpeg, p->write.jpeg_gpu):
     * from host pixels it lost to TurboJPEG on the H100 machine, 125 against
     * 47 ms a 4K frame in a 32-thread batch, and in single mode its handle's
     * set-up cost more than the whole TurboJPEG encode; and TurboJPEG gives
     * GPU and CPU runs the same bytes. */
    img_write_opts_t wo = p->write;
    wo.report = &f->report;
    const int wrc = img_write(out, &f->out, &wo, err, errlen);
    f->t.encode += app_now() - t0;
    /* A failed write (disk full, I/O error) is exit 2, as the README says;
     * a destination the user got wrong is bad input, 1. */
    return wrc == 0 ? APP_EXIT_OK : (wrc == IMG_ERR_IO ? APP_EXIT_INTERNAL : APP_EXIT_USAGE);
}
