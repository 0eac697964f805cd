/* batch.c -- the pipeline of `sat_blur --batch` (batch.h).
 *
 * One mutex and one condition variable hold the whole schedule: frames move
 * WAITING -> DECODING -> DECODED -> BLURRING -> BLURRED -> ENCODING -> DONE
 * (or straight to DONE when a step fails), a step takes milliseconds to
 * seconds, so a single lock taken a few times per frame costs nothing and
 * keeps the rules in one place:
 *   - a worker takes, in this order of preference: an encode (frees a frame's
 *     memory), a CPU blur (CPU device), the next frame to decode (in list
 *     order, while fewer than workers + BATCH_QUEUE_FRAMES frames are in
 *     flight);
 *   - the GPU thread blurs frames strictly in list order, skipping those
 *     whose decode failed.
 * The workers start decoding before the device is chosen: the main thread
 * then joins the GPU probe (app_choose_device), whose context creation took
 * a third of a second that the first decodes now fill. Until then a decoded
 * frame waits; on the CPU device the waiting frames are queued for the CPU
 * blur in list order, on the GPU device the GPU thread starts; a refusal
 * drops every frame unwritten.
 * No step waits for a later frame and every frame in flight has a step that
 * some thread will take, so the batch always finishes. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "batch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/threads.h"

/* At most this many outputs are being written at once: each holds a
 * temporary file in out_file.c's table for the signal clean-up, which
 * refuses more than APP_OUT_MAX_PENDING (half is left for anything else). */
#define MAX_ENCODES (APP_OUT_MAX_PENDING / 2)

enum { S_WAITING, S_DECODING, S_DECODED, S_BLURRING, S_BLURRED, S_ENCODING, S_DONE };

typedef struct batch {
    const batch_list_t *list;
    const batch_config_t *cfg;
    const frame_depth_t *shared;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    frame_t *frames;
    int *state;
    size_t *blur_q, *enc_q; /* FIFOs of frame indices; a frame enters each at most once */
    size_t blur_head, blur_tail, enc_head, enc_tail;
    size_t next_decode, next_gpu, in_flight, max_in_flight, done, written, failed;
    int encoding;
    int worst; /* worst exit status of a failed frame */
    app_device_t device; /* APP_DEVICE_CPU or _GPU once chosen */
    bool chosen;         /* device is known */
    bool dropped;        /* no device: frames are dropped unwritten */
    frame_times_t sum;
    double gpu_idle; /* the GPU thread waiting for the next frame's decode */
    bool noted;      /* an img_write note (nvJPEG not used, why) was printed: once per batch */
    struct {
        char name[sizeof(((img_write_report_t *)0)->jpeg_encoder)];
        size_t frames;
    } encoders[2]; /* the JPEG encoders that wrote frames (TurboJPEG, nvJPEG), for --timing */
    app_progress_t progress;
    char label[64];
} batch_t;

int batch_threads(int *workers, char *err, size_t errlen) {
    const char *env = getenv("SAT_BLUR_THREADS");
    if (env && *env) {
        int64_t v;
        char why[160];
        if (app_parse_i64(env, 1, 1024, &v, why, sizeof why) != 0) {
            snprintf(err, errlen, "SAT_BLUR_THREADS: %s", why);
            return -1;
        }
        *workers = (int)v;
        return 0;
    }
    const unsigned n = app_usable_cpus();
    *workers = n > BATCH_AUTO_WORKERS ? BATCH_AUTO_WORKERS : (int)n;
    return 0;
}

/* 1 when msg starts with "path:". */
static int names(const char *msg, const char *path) {
    const size_t n = path ? strlen(path) : 0;
    return n && strncmp(msg, path, n) == 0 && msg[n] == ':';
}

/* Ends frame i (lock held): the failure line, the counts, the progress. */
static void finish(batch_t *b, size_t i, int rc, const char *err) {
    const batch_item_t *it = &b->list->items[i];
    frame_t *f = &b->frames[i];
    if (rc != APP_EXIT_OK) {
        app_progress_end(&b->progress); /* the line goes above the progress line, not into it */
        const char *msg = err[0] ? err : "failed";
        if (names(msg, it->in) || names(msg, it->out) || names(msg, it->depth) ||
            names(msg, b->shared ? b->shared->path : NULL))
            app_error(b->cfg->prog, "%s", msg);
        else
            app_error(b->cfg->prog, "%s: %s", it->in, msg);
        b->failed++;
        if (rc > b->worst) b->worst = rc;
    } else {
        b->written++;
        const img_write_report_t *r = &f->report;
        if (r->note[0] && !b->noted) {
            app_progress_end(&b->progress);
            app_error(b->cfg->prog, "note: %s", r->note);
            b->noted = true;
        }
        for (size_t e = 0; r->jpeg_encoder[0] && e < sizeof b->encoders / sizeof b->encoders[0]; ++e)
            if (!b->encoders[e].name[0] || strcmp(b->encoders[e].name, r->jpeg_encoder) == 0) {
                snprintf(b->encoders[e].name, sizeof b->encoders[e].name, "%s", r->jpeg_encoder);
                b->encoders[e].frames++;
                break;
            }
    }
    b->sum.decode += f->t.decode;
    b->sum.convert += f->t.convert;
    b->sum.upload += f->t.upload;
    b->sum.sat += f->t.sat;
    b->sum.blur += f->t.blur;
    b->sum.download += f->t.download;
    b->sum.encode += f->t.encode;
    frame_free(f);
    b->state[i] = S_DONE;
    b->in_flight--;
    b->done++;
    app_progress_update(&b->progress, b->done);
    pthread_cond_broadcast(&b->cv);
}

/* Frame i ends unwritten and unreported (lock held): the batch has no
 * device, which the caller reports once. */
static void drop(batch_t *b, size_t i) {
    frame_free(&b->frames[i]);
    b->state[i] = S_DONE;
    b->in_flight--;
    b->done++;
    pthread_cond_broadcast(&b->cv);
}

/* Frame i is decoded (lock held): it waits for the GPU thread, or joins the
 * CPU blur queue; it waits as well while the device is not known. */
static void decoded(batch_t *b, size_t i) {
    b->state[i] = S_DECODED;
    if (b->dropped)
        drop(b, i);
    else if (b->chosen && b->device == APP_DEVICE_CPU)
        b->blur_q[b->blur_tail++] = i;
    pthread_cond_broadcast(&b->cv);
}

/* No frame will be written (lock held): those not started never will be,
 * the decoded ones are dropped now, those being decoded when they are. */
static void drop_all(batch_t *b) {
    b->dropped = true;
    b->done += b->list->count - b->next_decode;
    b->next_decode = b->list->count;
    for (size_t i = 0; i < b->list->count; ++i)
        if (b->state[i] == S_DECODED) drop(b, i);
    pthread_cond_broadcast(&b->cv);
}

/* The device, chosen on the main thread while the workers decode (lock not
 * held). Returns app_choose_device's status. */
static int choose_device(batch_t *b) {
    /* The wait for the probe, without the lock (the workers go on); then the
       choice under it, after the progress line is erased: its note or
       refusal goes above that line, not into it (a failed decode may have
       drawn it meanwhile). */
    if (b->cfg->device != APP_DEVICE_CPU) (void)app_gpu_usable(NULL, 0);
    app_device_t dev = APP_DEVICE_CPU;
    pthread_mutex_lock(&b->mu);
    app_progress_end(&b->progress);
    const int rc = app_choose_device(b->cfg->prog, b->cfg->device, &dev);
    if (rc != APP_EXIT_OK) {
        drop_all(b);
    } else {
        b->device = dev;
        b->chosen = true;
        for (size_t i = 0; dev == APP_DEVICE_CPU && i < b->list->count; ++i)
            if (b->state[i] == S_DECODED) b->blur_q[b->blur_tail++] = i;
    }
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    return rc;
}

/* Frame i is blurred (lock held): on to its encode. */
static void blurred(batch_t *b, size_t i) {
    b->state[i] = S_BLURRED;
    b->enc_q[b->enc_tail++] = i;
    pthread_cond_broadcast(&b->cv);
}

static void *worker(void *arg) {
    batch_t *b = arg;
    const frame_params_t *p = b->cfg->params;
    const size_t n = b->list->count;
    char err[1024];
    pthread_mutex_lock(&b->mu);
    for (;;) {
        size_t i;
        int rc;
        err[0] = 0;
        if (b->enc_head < b->enc_tail && b->encoding < MAX_ENCODES) {
            i = b->enc_q[b->enc_head++];
            b->state[i] = S_ENCODING;
            b->encoding++;
            pthread_mutex_unlock(&b->mu);
            rc = frame_encode(p, &b->frames[i], b->list->items[i].out, err, sizeof err);
            pthread_mutex_lock(&b->mu);
            b->encoding--;
            finish(b, i, rc, err);
        } else if (b->blur_head < b->blur_tail) { /* CPU device only */
            i = b->blur_q[b->blur_head++];
            b->state[i] = S_BLURRING;
            pthread_mutex_unlock(&b->mu);
            rc = frame_blur(&b->frames[i], APP_DEVICE_CPU, err, sizeof err);
            pthread_mutex_lock(&b->mu);
            if (rc == APP_EXIT_OK) blurred(b, i);
            else finish(b, i, rc, err);
        } else if (b->next_decode < n && b->in_flight < b->max_in_flight) {
            i = b->next_decode++;
            b->state[i] = S_DECODING;
            b->in_flight++;
            pthread_mutex_unlock(&b->mu);
            const batch_item_t *it = &b->list->items[i];
            rc = frame_decode(p, it->in, it->depth, b->shared, &b->frames[i], err, sizeof err);
            pthread_mutex_lock(&b->mu);
            if (rc != APP_EXIT_OK && b->dropped) {
                drop(b, i);
            } else if (rc != APP_EXIT_OK) {
                finish(b, i, rc, err);
            } else {
                decoded(b, i);
            }
        } else if (b->done == n) {
            break;
        } else {
            pthread_cond_wait(&b->cv, &b->mu);
        }
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

/* The GPU stage: the existing per-image GPU path (blur_image_run_gpu,
 * synchronous: upload of the raw pixels, conversions, tables, filter,
 * conversion back, download), one frame at a time in list order, on this
 * thread's GPU workspace (kept from frame to frame: no allocation after the
 * first frames, copies through pinned staging). Its upload cannot overlap
 * the previous frame's compute through that call; the decode and encode of
 * other frames run meanwhile on the workers. */
static void *gpu_stage(void *arg) {
    batch_t *b = arg;
    const size_t n = b->list->count;
    char err[1024];
    pthread_mutex_lock(&b->mu);
    while (b->next_gpu < n) {
        const size_t i = b->next_gpu;
        if (b->state[i] == S_WAITING || b->state[i] == S_DECODING) {
            const double t0 = app_now();
            pthread_cond_wait(&b->cv, &b->mu);
            b->gpu_idle += app_now() - t0;
            continue;
        }
        b->next_gpu++;
        if (b->state[i] != S_DECODED) continue; /* its decode failed: already done */
        b->state[i] = S_BLURRING;
        pthread_mutex_unlock(&b->mu);
        err[0] = 0;
        const int rc = frame_blur(&b->frames[i], APP_DEVICE_GPU, err, sizeof err);
        pthread_mutex_lock(&b->mu);
        if (rc == APP_EXIT_OK) blurred(b, i);
        else finish(b, i, rc, err);
    }
    pthread_mutex_unlock(&b->mu);
    blur_gpu_release();
    return NULL;
}

/* --timing: the stage totals (summed over threads, so they may add up to
 * more than the wall time) and the batch's rate. */
static void print_timing(const batch_t *b, double wall, int workers) {
    app_timing_t tm;
    app_timing_init(&tm, true);
    app_timing_since(&tm, app_now() - wall);
    const bool gpu = b->device == APP_DEVICE_GPU;
    app_timing_add(&tm, "decode", b->sum.decode);
    app_timing_add(&tm, "convert", b->sum.convert);
    if (gpu) app_timing_add(&tm, "upload", b->sum.upload);
    app_timing_add(&tm, "SAT", b->sum.sat);
    app_timing_add(&tm, "blur", b->sum.blur);
    if (gpu) app_timing_add(&tm, "download", b->sum.download);
    app_timing_add(&tm, "encode", b->sum.encode);
    app_timing_print(&tm, b->cfg->prog);
    char gpu_note[96] = "";
    if (gpu) snprintf(gpu_note, sizeof gpu_note, "; the GPU stage waited %.3f s for decoded frames", b->gpu_idle);
    fprintf(stderr,
            "%s: batch: %zu frames in %.3f s wall: %.2f frames/s (%d worker threads%s; the stage times above are "
            "summed over the threads)\n",
            b->cfg->prog, b->written, wall, wall > 0 ? (double)b->written / wall : 0.0, workers, gpu_note);
    for (size_t e = 0; e < sizeof b->encoders / sizeof b->encoders[0] && b->encoders[e].name[0]; ++e)
        fprintf(stderr, "%s: JPEG encoder: %s (%zu frames)\n", b->cfg->prog, b->encoders[e].name, b->encoders[e].frames);
}

int batch_run(const batch_list_t *list, const batch_config_t *cfg) {
    const size_t n = list->count;
    const double start = app_now();
    char err[1024] = "";
    batch_t b;
    memset(&b, 0, sizeof b);
    b.list = list;
    b.cfg = cfg;
    b.max_in_flight = (size_t)cfg->workers + BATCH_QUEUE_FRAMES;
    frame_depth_t shared;
    memset(&shared, 0, sizeof shared);
    if (cfg->shared_depth) {
        const int rc = frame_depth_load(cfg->params, cfg->shared_depth, &shared, err, sizeof err);
        if (rc != APP_EXIT_OK) {
            app_error(cfg->prog, "%s", err);
            return rc;
        }
        b.shared = &shared;
    }
    /* The workers already fill the cores, one frame each: the library's CPU
     * calls inside a frame (tables, filter) stay on their worker's thread
     * instead of each starting a thread per core (cores x cores threads).
     * A user's own LIBSCAN_CPU_THREADS wins. Set before any thread starts. */
    if (!getenv("LIBSCAN_CPU_THREADS")) setenv("LIBSCAN_CPU_THREADS", "1", 0);
    b.frames = calloc(n ? n : 1, sizeof *b.frames);
    b.state = calloc(n ? n : 1, sizeof *b.state);
    b.blur_q = malloc((n ? n : 1) * sizeof *b.blur_q);
    b.enc_q = malloc((n ? n : 1) * sizeof *b.enc_q);
    pthread_t *threads = malloc((size_t)cfg->workers * sizeof *threads);
    int rc = APP_EXIT_OK;
    if (!b.frames || !b.state || !b.blur_q || !b.enc_q || !threads) {
        app_error(cfg->prog, "out of memory for a batch of %zu frames", n);
        rc = APP_EXIT_INTERNAL;
        goto out;
    }
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    snprintf(b.label, sizeof b.label, "%zu frames", n);
    app_progress_begin(&b.progress, cfg->prog, b.label, n, cfg->quiet);

    /* The workers first, decoding while the device is chosen (the GPU's
     * context is created meanwhile); then the GPU thread, without which no
     * frame could finish on the GPU. The calling thread is a worker too, so
     * the batch runs even if no other starts. */
    int started = 0;
    for (int t = 1; t < cfg->workers; ++t)
        if (app_thread_start(&threads[started], worker, &b) == 0) started++;
    rc = choose_device(&b);
    pthread_t gpu_thread;
    bool gpu_started = false;
    if (rc == APP_EXIT_OK && b.device == APP_DEVICE_GPU) {
        gpu_started = app_thread_start(&gpu_thread, gpu_stage, &b) == 0;
        if (!gpu_started) {
            app_error(cfg->prog, "cannot start the GPU thread");
            rc = APP_EXIT_INTERNAL;
            pthread_mutex_lock(&b.mu);
            drop_all(&b);
            pthread_mutex_unlock(&b.mu);
        }
    }
    worker(&b);
    for (int t = 0; t < started; ++t) pthread_join(threads[t], NULL);
    if (gpu_started) pthread_join(gpu_thread, NULL);
    app_progress_end(&b.progress);
    if (rc == APP_EXIT_OK) {
        rc = b.worst;
        if (!cfg->quiet) app_error(cfg->prog, "%zu written, %zu failed", b.written, b.failed);
        if (cfg->timing) print_timing(&b, app_now() - start, started + 1);
    }
    pthread_cond_destroy(&b.cv);
    pthread_mutex_destroy(&b.mu);
out:
    free(threads);
    free(b.frames);
    free(b.state);
    free(b.blur_q);
    free(b.enc_q);
    frame_depth_free(&shared);
    return rc;
}
