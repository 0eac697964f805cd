/* stream_sink.c -- sinks, spills, rings and the write pipe (stream_io.h). */
#define _GNU_SOURCE /* fallocate, copy_file_range */
#include "common/stream_io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "array_io_internal.h"
#include "common/cli.h"
#include "common/out_map.h"
#include "common/par_io.h"
#include "common/temp_file.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* ---- sinks --------------------------------------------------------------------- */

struct app_sink {
    arr_writer_t *w;         /* NULL for a spill */
    char *name;              /* for messages */
    size_t es;
    bool direct;             /* elements go to fd ourselves; else through w */
    bool seekable;           /* direct: at base + i * es, from any thread */
    int fd;                  /* direct */
    unsigned long long base; /* direct: offset of element 0 of the sink */
    size_t count;            /* elements appended (the pipe: submitted) */
    bool tmpfs;              /* fallocate would only clear pages twice */
    app_omap_t *map;         /* direct, seekable: the file mapped (app_sink_map), or NULL */
};

static arr_status_t write_fail(const app_sink_t *k, int e, char *err, size_t errlen) {
    return arr__fail(err, errlen, ARR_ERR_SYSTEM, k->name, "write error: %s", strerror(e ? e : EIO));
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static bool on_tmpfs(int fd) {
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

arr_status_t app_sink_open(app_sink_t **kp, arr_writer_t *w, const char *name, char *err, size_t errlen) {
    *kp = NULL;
    app_sink_t *k = calloc(1, sizeof *k);
    if (!k || !(k->name = dup_str(name))) {
        free(k);
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, name, "out of memory");
    }
    k->w = w;
    k->direct = arr_writer_binary_layout(w, &k->fd, &k->base, &k->seekable);
    k->es = arr_dtype_size(arr_writer_dtype(w));
    k->tmpfs = k->direct && k->seekable && on_tmpfs(k->fd);
    *kp = k;
    return ARR_OK;
}

arr_status_t app_sink_open_spill(app_sink_t **kp, const char *near_path, size_t elem_size, char *err, size_t errlen) {
    *kp = NULL;
    /* The folder of near_path, so a later copy into the output can stay
       within one file system. */
    char dir[4096];
    const char *slash = near_path ? strrchr(near_path, '/') : NULL;
    if (!near_path || strcmp(near_path, "-") == 0) dir[0] = '\0';
    else if (!slash) snprintf(dir, sizeof dir, ".");
    else snprintf(dir, sizeof dir, "%.*s", slash == near_path ? 1 : (int)(slash - near_path), near_path);
    /* No name to clean up (temp_file.h); where that folder refuses, the
       temporary folder ($TMPDIR or /tmp). */
    int fd = dir[0] ? app_temp_file(dir) : -1;
    if (fd < 0) fd = app_temp_file(app_temp_dir());
    if (fd < 0)
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, near_path ? near_path : "(spill)",
                         "cannot create a temporary file: %s", strerror(errno));
    app_sink_t *k = calloc(1, sizeof *k);
    char name[4200];
    snprintf(name, sizeof name, "%s (its temporary file)", near_path ? near_path : "-");
    if (!k || !(k->name = dup_str(name))) {
        free(k);
        close(fd);
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, near_path ? near_path : "(spill)", "out of memory");
    }
    k->direct = k->seekable = true;
    k->fd = fd;
    k->es = elem_size;
    k->tmpfs = on_tmpfs(fd);
    *kp = k;
    return ARR_OK;
}

size_t app_sink_count(const app_sink_t *k) { return k->count; }

/* Puts n elements from data at element `at` of the sink (direct sinks), on
 * up to `threads` threads when it can seek; else in order. */
static int put_direct(const app_sink_t *k, const void *data, size_t n, size_t at, int threads) {
    const size_t bytes = n * k->es;
    if (k->map && app_omap_ready(k->map)) {
        app_omap_copy(k->map, k->base + (unsigned long long)at * k->es, data, bytes, threads);
        return 0;
    }
    if (k->seekable) return app_pwrite_full(k->fd, data, bytes, k->base + (unsigned long long)at * k->es, threads);
    return app_write_full(k->fd, data, bytes);
}

arr_status_t app_sink_reserve(app_sink_t *k, size_t count, char *err, size_t errlen) {
    if (!k->direct || !k->seekable || k->tmpfs || count == 0) return ARR_OK;
    /* KEEP_SIZE: the file does not grow until written, so a failure later
       leaves no tail of zeros in it. */
    const unsigned long long at = k->base + (unsigned long long)k->count * k->es;
    if (fallocate(k->fd, FALLOC_FL_KEEP_SIZE, (off_t)at, (off_t)(count * k->es)) == 0) return ARR_OK;
    const int e = errno;
    if (e == ENOSPC || e == EFBIG || e == EDQUOT || e == EIO) return write_fail(k, e, err, errlen);
    return ARR_OK; /* no fallocate here (EOPNOTSUPP, ENOSYS, ...): just write */
}

arr_status_t app_sink_map(app_sink_t *k, size_t count, int threads, char *err, size_t errlen) {
    if (!k->direct || !k->seekable || !k->w || k->map || count == 0) return app_sink_reserve(k, count, err, errlen);
    int e = 0;
    const unsigned long long end = k->base + (unsigned long long)(k->count + count) * k->es;
    k->map = app_omap_open(k->fd, end, threads, k->name, &e);
    if (e) return write_fail(k, e, err, errlen);
    return k->map ? ARR_OK : app_sink_reserve(k, count, err, errlen);
}

arr_status_t app_sink_write(app_sink_t *k, const void *data, size_t count, int threads, char *err, size_t errlen) {
    if (count == 0) return ARR_OK;
    if (!k->direct) {
        arr_status_t st = arr_writer_write(k->w, data, count, err, errlen);
        if (st == ARR_OK) k->count += count;
        return st;
    }
    int e = put_direct(k, data, count, k->count, threads);
    if (e) return write_fail(k, e, err, errlen);
    k->count += count;
    if (k->w) arr_writer_add_written(k->w, count);
    return ARR_OK;
}

arr_status_t app_sink_append_spill(app_sink_t *k, app_sink_t *spill, int threads, char *err, size_t errlen) {
    const size_t n = spill->count, es = spill->es;
    if (k->es != es) {
        app_sink_close(spill);
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, k->name, "appending elements of %zu bytes to a file of %zu", es,
                         k->es);
    }
    size_t done = 0; /* elements in place */
    if (k->direct && k->seekable && n > 0) {
        /* In the kernel: no copy through user space, and file systems that
           share blocks (btrfs, XFS) may not copy at all. Where it cannot
           (EXDEV, ENOSYS, ...), the buffer below does the rest. */
        loff_t in = 0, out = (loff_t)(k->base + (unsigned long long)k->count * es);
        const size_t bytes = n * es;
        size_t moved = 0;
        while (moved < bytes) {
            ssize_t r = copy_file_range(spill->fd, &in, k->fd, &out, bytes - moved, 0);
            if (r <= 0) break;
            moved += (size_t)r;
        }
        done = moved / es;
        k->count += done;
        if (k->w) arr_writer_add_written(k->w, done);
    }
    arr_status_t st = ARR_OK;
    if (done < n) {
        const size_t per = ((size_t)4 << 20) / es ? ((size_t)4 << 20) / es : 1;
        unsigned char *buf = malloc(per * es);
        if (!buf) st = arr__fail(err, errlen, ARR_ERR_SYSTEM, k->name, "out of memory");
        while (st == ARR_OK && done < n) {
            const size_t m = n - done < per ? n - done : per;
            int e = app_pread_full(spill->fd, buf, m * es, (unsigned long long)done * es, 1, es, NULL, NULL);
            if (e)
                st = arr__fail(err, errlen, ARR_ERR_SYSTEM, spill->name, "read error: %s",
                               e == APP_IO_SHORT ? "the file ended early" : strerror(e));
            else
                st = app_sink_write(k, buf, m, threads, err, errlen);
            done += m;
        }
        free(buf);
    }
    app_sink_close(spill);
    return st;
}

void app_sink_close(app_sink_t *k) {
    if (!k) return;
    app_omap_close(k->map);
    if (!k->w && k->fd >= 0) close(k->fd); /* a spill's own file */
    free(k->name);
    free(k);
}

/* ---- rings --------------------------------------------------------------------- */

arr_status_t app_ring_alloc(app_ring_t *r, int n, size_t bytes, bool pinned, const char *what, char *err,
                            size_t errlen) {
    memset(r, 0, sizeof *r);
    if (n < 1 || n > 64) return arr__fail(err, errlen, ARR_ERR_SYSTEM, what, "%d staging buffers asked", n);
    /* One block for them all, each buffer on a page boundary: one mapping
       and one registration, and no buffer rounded up to whole huge pages on
       its own (13 of 4 MiB + 16 bytes took 78 MiB, now 52). */
    const size_t stride = bytes > SIZE_MAX - 4095 ? 0 : (bytes + 4095) / 4096 * 4096;
    if (stride == 0 || stride > SIZE_MAX / (size_t)n || app_hostbuf_alloc(&r->mem, stride * (size_t)n, pinned) != 0)
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, what, "out of memory for %d staging buffers of %zu bytes", n,
                         bytes);
    r->n = n;
    r->bytes = bytes;
    for (int i = 0; i < n; ++i) r->buf[i] = (unsigned char *)r->mem.p + (size_t)i * stride;
    return ARR_OK;
}

void app_ring_free(app_ring_t *r) {
    app_hostbuf_free(&r->mem);
    memset(r, 0, sizeof *r);
}

/* ---- the write pipe --------------------------------------------------------------- */

#define MAX_WRITERS 64

typedef struct job {
    int slot;
    const void *data;
    size_t count, at; /* at: element of the sink (direct sinks) */
} job_t;

struct app_wpipe {
    app_sink_t *k;
    app_ring_t *ring;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool busy[64]; /* acquired, queued or being written */
    job_t q[64];   /* submitted, not taken: a buffer is in it at most once */
    int qhead, qlen;
    bool closing;
    arr_status_t st;
    char msg[512];
    app_span_t span;
    pthread_t tid[MAX_WRITERS];
    int started;
};

static void *writer(void *arg) {
    app_wpipe_t *p = arg;
    app_sink_t *k = p->k;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->qlen == 0 && !p->closing) pthread_cond_wait(&p->cv, &p->mu);
        if (p->qlen == 0) break; /* closing and nothing left */
        job_t j = p->q[p->qhead];
        p->qhead = (p->qhead + 1) % 64;
        --p->qlen;
        const bool failed = p->st != ARR_OK;
        pthread_mutex_unlock(&p->mu);
        /* After a failure the rest is only given back, not written. */
        arr_status_t st = ARR_OK;
        char err[512];
        const double t0 = app_now();
        if (!failed && j.count > 0) {
            if (k->direct) {
                int e = put_direct(k, j.data, j.count, j.at, 1);
                if (e) st = write_fail(k, e, err, sizeof err);
            } else {
                st = arr_writer_write(k->w, j.data, j.count, err, sizeof err);
            }
        }
        const double t1 = app_now();
        pthread_mutex_lock(&p->mu);
        if (!failed && j.count > 0) app_span_add(&p->span, t0, t1);
        if (st == ARR_OK && !failed && k->direct && k->w) arr_writer_add_written(k->w, j.count);
        if (st != ARR_OK && p->st == ARR_OK) {
            p->st = st;
            snprintf(p->msg, sizeof p->msg, "%s", err);
        }
        p->busy[j.slot] = false;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

arr_status_t app_wpipe_start(app_wpipe_t **pp, app_sink_t *k, app_ring_t *ring, int threads, char *err,
                             size_t errlen) {
    *pp = NULL;
    app_wpipe_t *p = calloc(1, sizeof *p);
    if (!p) return arr__fail(err, errlen, ARR_ERR_SYSTEM, k->name, "out of memory");
    p->k = k;
    p->ring = ring;
    p->span = (app_span_t)APP_SPAN_NONE;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    /* In order where offsets mean nothing (standard output, a FIFO) and
       where array_io formats the elements (text): one writer. */
    if (!k->direct || !k->seekable) threads = 1;
    if (threads < 1) threads = 1;
    if (threads > ring->n) threads = ring->n;
    if (threads > MAX_WRITERS) threads = MAX_WRITERS;
    for (; p->started < threads; ++p->started)
        if (pthread_create(&p->tid[p->started], NULL, writer, p) != 0) break;
    if (p->started == 0) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, k->name, "cannot start a writer thread");
    }
    *pp = p;
    return ARR_OK;
}

void *app_wpipe_acquire(app_wpipe_t *p, int *slot) {
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->st != ARR_OK) break;
        for (int i = 0; i < p->ring->n; ++i)
            if (!p->busy[i]) {
                p->busy[i] = true;
                pthread_mutex_unlock(&p->mu);
                *slot = i;
                return p->ring->buf[i];
            }
        pthread_cond_wait(&p->cv, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    *slot = -1;
    return NULL;
}

void app_wpipe_submit(app_wpipe_t *p, int slot, const void *data, size_t count) {
    if (slot < 0 || slot >= p->ring->n) return;
    pthread_mutex_lock(&p->mu);
    /* Its place in the file is fixed now, so writers can take jobs in any
       order where the sink seeks. */
    job_t j = {slot, data, count, p->k->count};
    p->k->count += count;
    p->q[(p->qhead + p->qlen) % 64] = j;
    ++p->qlen;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

arr_status_t app_wpipe_finish(app_wpipe_t *p, app_span_t *span, char *err, size_t errlen) {
    if (span) *span = (app_span_t)APP_SPAN_NONE;
    if (!p) return ARR_OK;
    pthread_mutex_lock(&p->mu);
    p->closing = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->started; ++i) pthread_join(p->tid[i], NULL);
    arr_status_t st = p->st;
    if (st != ARR_OK && err && errlen) snprintf(err, errlen, "%s", p->msg);
    if (span) *span = p->span; /* complete: every writer has been joined */
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
    return st;
}
