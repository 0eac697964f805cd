/* stream_src.c -- sources and the read pipe (stream_io.h). */
#define _GNU_SOURCE
#include "common/stream_io.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_io_internal.h"
#include "common/cli.h"
#include "common/par_io.h"

/* ---- chunk size and spans ------------------------------------------------- */

#define CHUNK_DEFAULT ((size_t)4 << 20)

static pthread_once_t g_chunk_once = PTHREAD_ONCE_INIT;
static size_t g_chunk = CHUNK_DEFAULT;

static void chunk_init(void) {
    const char *s = getenv("LIBSCAN_STREAM_CHUNK");
    if (!s || !*s) return;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!errno && !*end && v > 0 && s[0] != '-') g_chunk = v > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)v;
}

size_t app_stream_chunk_bytes(void) {
    pthread_once(&g_chunk_once, chunk_init);
    return g_chunk;
}

size_t app_stream_chunk_elems(size_t elem_size) {
    size_t n = elem_size ? app_stream_chunk_bytes() / elem_size : 1;
    return n ? n : 1;
}

void app_span_add(app_span_t *s, double a, double b) {
    if (a < s->first) s->first = a;
    if (b > s->last) s->last = b;
}

/* ---- sources ------------------------------------------------------------------ */

struct app_src {
    arr_reader_t *r;
    arr_dtype_t dtype;
    size_t count, es;
    bool binary, swap;
    int fd;                  /* binary: the reader's descriptor, read with pread */
    unsigned long long base; /* binary: offset of element 0 */
    size_t next;             /* text: the next unread element */
    char *path;
};

arr_status_t app_src_open(app_src_t **sp, const char *path, arr_format_t format, arr_dtype_t raw_dtype, char *err,
                          size_t errlen) {
    *sp = NULL;
    app_src_t *s = calloc(1, sizeof *s);
    if (!s) return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "out of memory");
    arr_status_t st = arr_reader_open(&s->r, path, format, raw_dtype, err, errlen);
    if (st != ARR_OK) {
        free(s);
        return st;
    }
    size_t n = strlen(path) + 1;
    if (!(s->path = malloc(n))) {
        app_src_close(s);
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "out of memory");
    }
    memcpy(s->path, path, n);
    s->dtype = arr_reader_dtype(s->r);
    s->count = arr_reader_count(s->r);
    s->es = arr_dtype_size(s->dtype);
    s->binary = arr_reader_binary_layout(s->r, &s->fd, &s->base, &s->swap);
    *sp = s;
    return ARR_OK;
}

arr_dtype_t app_src_dtype(const app_src_t *s) { return s->dtype; }
size_t app_src_count(const app_src_t *s) { return s->count; }
const char *app_src_notice(const app_src_t *s) { return arr_reader_notice(s->r); }
const char *app_src_path(const app_src_t *s) { return s->path; }
bool app_src_random_access(const app_src_t *s) { return s->binary; }

static void swap_piece(void *piece, size_t bytes, void *ctx) {
    const size_t es = *(const size_t *)ctx;
    arr_swap_bytes(piece, bytes / es, es);
}

arr_status_t app_src_read(app_src_t *s, size_t first, size_t count, void *dst, int threads, char *err,
                          size_t errlen) {
    if (first > s->count || count > s->count - first)
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, s->path, "elements %zu..%zu asked of %zu", first, first + count,
                         s->count);
    if (count == 0) return ARR_OK;
    if (!s->binary) {
        if (first != s->next)
            return arr__fail(err, errlen, ARR_ERR_SYSTEM, s->path, "text read out of order (element %zu, next %zu)",
                             first, s->next);
        size_t got = 0;
        arr_status_t st = arr_reader_read(s->r, dst, count, &got, err, errlen);
        if (st == ARR_OK && got != count)
            st = arr__fail(err, errlen, ARR_ERR_INPUT, s->path, "the file changed while it was being read");
        if (st == ARR_OK) s->next += count;
        return st;
    }
    size_t es = s->es;
    int e = app_pread_full(s->fd, dst, count * es, s->base + (unsigned long long)first * es, threads, es,
                           s->swap ? swap_piece : NULL, &es);
    if (e == APP_IO_SHORT)
        return arr__fail(err, errlen, ARR_ERR_INPUT, s->path,
                         "truncated data: the file ended before element %zu of %zu (changed while being read?)",
                         first + count, s->count);
    if (e) return arr__fail(err, errlen, ARR_ERR_SYSTEM, s->path, "read error: %s", strerror(e));
    return ARR_OK;
}

void app_src_close(app_src_t *s) {
    if (!s) return;
    arr_reader_close(s->r);
    free(s->path);
    free(s);
}

/* ---- the read pipe ------------------------------------------------------------------ */

#define MAX_READERS 64

struct app_rpipe {
    app_src_t *s;
    app_ring_t *ring;
    size_t headroom, first, count, chunk, nchunks;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t assign;    /* next chunk for a reader */
    size_t consume;   /* next chunk for the caller */
    size_t want[64];  /* the chunk each buffer may hold next */
    bool filled[64];  /* it holds that chunk, read */
    bool stop;
    arr_status_t st;
    char msg[512];
    app_span_t span;
    pthread_t tid[MAX_READERS];
    int started;
};

static void chunk_range(const app_rpipe_t *p, size_t c, size_t *first, size_t *n) {
    *first = p->first + c * p->chunk;
    const size_t left = p->first + p->count - *first;
    *n = left < p->chunk ? left : p->chunk;
}

static void *reader(void *arg) {
    app_rpipe_t *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->stop || p->assign >= p->nchunks) break;
        const size_t c = p->assign++;
        const int slot = (int)(c % (size_t)p->ring->n);
        /* The buffer is ours once the chunk n before this one is released. */
        while (!p->stop && !(p->want[slot] == c && !p->filled[slot])) pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop) break;
        pthread_mutex_unlock(&p->mu);
        size_t first, n;
        chunk_range(p, c, &first, &n);
        char err[512];
        const double t0 = app_now();
        /* One thread per chunk: the readers together keep several chunks
           in flight, which is where the parallelism is. */
        arr_status_t st = app_src_read(p->s, first, n, (unsigned char *)p->ring->buf[slot] + p->headroom, 1, err,
                                       sizeof err);
        const double t1 = app_now();
        pthread_mutex_lock(&p->mu);
        app_span_add(&p->span, t0, t1);
        if (st != ARR_OK) {
            if (p->st == ARR_OK) {
                p->st = st;
                snprintf(p->msg, sizeof p->msg, "%s", err);
            }
            p->stop = true;
            pthread_cond_broadcast(&p->cv);
            break;
        }
        p->filled[slot] = true;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

arr_status_t app_rpipe_start(app_rpipe_t **pp, app_src_t *s, size_t first, size_t count, app_ring_t *ring,
                             size_t headroom, size_t chunk_elems, int threads, char *err, size_t errlen) {
    *pp = NULL;
    if (chunk_elems == 0 || ring->n < 1 || ring->n > 64 || headroom > ring->bytes ||
        chunk_elems > (ring->bytes - headroom) / (s->es ? s->es : 1) || first > s->count || count > s->count - first)
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, s->path, "read pipe: chunks of %zu elements do not fit", chunk_elems);
    app_rpipe_t *p = calloc(1, sizeof *p);
    if (!p) return arr__fail(err, errlen, ARR_ERR_SYSTEM, s->path, "out of memory");
    p->s = s;
    p->ring = ring;
    p->headroom = headroom;
    p->first = first;
    p->count = count;
    p->chunk = chunk_elems;
    p->nchunks = (count + chunk_elems - 1) / chunk_elems;
    p->span = (app_span_t)APP_SPAN_NONE;
    for (int i = 0; i < ring->n; ++i) p->want[i] = (size_t)i;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    /* A text file is read in order by one thread; no more readers than
       chunks, nor than buffers (one must stay with the caller). */
    if (!s->binary) threads = 1;
    if (threads < 1) threads = 1;
    if ((size_t)threads > p->nchunks) threads = (int)p->nchunks;
    if (threads > ring->n) threads = ring->n;
    if (threads > MAX_READERS) threads = MAX_READERS;
    for (; p->started < threads; ++p->started)
        if (pthread_create(&p->tid[p->started], NULL, reader, p) != 0) break;
    if (p->started == 0 && p->nchunks > 0) {
        app_rpipe_stop(p);
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, s->path, "cannot start a reader thread");
    }
    *pp = p;
    return ARR_OK;
}

arr_status_t app_rpipe_next(app_rpipe_t *p, app_chunk_t *c, char *err, size_t errlen) {
    memset(c, 0, sizeof *c);
    c->slot = -1;
    pthread_mutex_lock(&p->mu);
    arr_status_t st = ARR_OK;
    if (p->consume < p->nchunks) {
        const size_t i = p->consume;
        const int slot = (int)(i % (size_t)p->ring->n);
        while (p->st == ARR_OK && !(p->filled[slot] && p->want[slot] == i)) pthread_cond_wait(&p->cv, &p->mu);
        if (p->st == ARR_OK) {
            ++p->consume;
            c->index = i;
            chunk_range(p, i, &c->first, &c->count);
            c->data = (unsigned char *)p->ring->buf[slot] + p->headroom;
            c->slot = slot;
        }
    }
    if (p->st != ARR_OK) {
        st = p->st;
        if (err && errlen) snprintf(err, errlen, "%s", p->msg);
    }
    pthread_mutex_unlock(&p->mu);
    return st;
}

void app_rpipe_release(app_rpipe_t *p, const app_chunk_t *c) {
    if (!c->data || c->slot < 0) return;
    pthread_mutex_lock(&p->mu);
    p->filled[c->slot] = false;
    p->want[c->slot] += (size_t)p->ring->n;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

app_span_t app_rpipe_span(app_rpipe_t *p) {
    pthread_mutex_lock(&p->mu);
    app_span_t s = p->span;
    pthread_mutex_unlock(&p->mu);
    return s;
}

void app_rpipe_stop(app_rpipe_t *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->started; ++i) pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
