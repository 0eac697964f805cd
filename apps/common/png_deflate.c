/* png_deflate.c -- see png_deflate.h for the technique. */
#define _POSIX_C_SOURCE 200809L
#include "png_deflate.h"

#include <zlib.h>

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/threads.h"

#define WINDOW_BYTES ((size_t)32768) /* deflate's window: the dictionary a band gets */
#define MAX_THREADS 256
#define ZLIB_PIECE ((size_t)1 << 30) /* zlib counts in uInt: at most this per call */

enum { BAND_PENDING = 0, BAND_DONE = 1, BAND_FAILED = 2 };

typedef struct band {
    uint8_t *out; /* 2 bytes of room for the zlib header, len bytes, 4 of room for the Adler-32 */
    size_t len;
    size_t raw;  /* filtered bytes of the band */
    uLong adler; /* their Adler-32 */
    int state;   /* BAND_*, under the job's mutex */
} band_t;

/* What one thread keeps from band to band. */
typedef struct worker {
    z_stream z;
    int z_ready;
    uint8_t *in; /* the band's filtered rows, after the dictionary rows */
    size_t in_cap;
} worker_t;

typedef struct job {
    const png_rows_t *src;
    int level;
    size_t band_rows, nbands, dict_rows;
    band_t *bands;
    pthread_mutex_t mu;
    pthread_cond_t done_cv; /* a band finished (or failed) */
    pthread_cond_t room_cv; /* the writer moved on, or the job stops */
    size_t next;            /* the next band to take */
    size_t written;         /* bands handed to the sink */
    size_t ahead;           /* bands taken but not yet written, at most */
    int stop;
    char msg[160]; /* the first failure */
} job_t;

size_t png_deflate_band_rows(size_t row_bytes, size_t band_bytes)
{
    if (band_bytes == 0)
        band_bytes = PNG_DEFLATE_BAND_BYTES;
    const size_t r = row_bytes ? band_bytes / row_bytes : 1;
    return r ? r : 1;
}

int png_deflate_thread_count(int requested, size_t bands)
{
    long n = requested;
    if (n <= 0)
        n = (long)app_usable_cpus();
    if ((size_t)n > bands)
        n = (long)bands;
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    return n < 1 ? 1 : (int)n;
}

static void worker_free(worker_t *w)
{
    if (w->z_ready)
        deflateEnd(&w->z);
    free(w->in);
    memset(w, 0, sizeof *w);
}

/* Filter and deflate band k into b (b->state untouched). 0, or -1 with msg. */
static int compress_band(const job_t *j, worker_t *w, size_t k, band_t *b, char *msg, size_t msglen)
{
    const png_rows_t *s = j->src;
    const size_t y0 = k * j->band_rows;
    const size_t n = s->rows - y0 < j->band_rows ? s->rows - y0 : j->band_rows;
    const size_t d = y0 < j->dict_rows ? y0 : j->dict_rows;
    const size_t need = (d + n) * s->row_bytes;
    if (need > w->in_cap) {
        free(w->in);
        w->in = (uint8_t *)malloc(need);
        w->in_cap = w->in ? need : 0;
        if (!w->in) {
            snprintf(msg, msglen, "out of memory for the PNG encoder");
            return -1;
        }
    }
    if (s->filter(s->ctx, y0 - d, d + n, w->in) != 0) {
        snprintf(msg, msglen, "out of memory for the PNG encoder");
        return -1;
    }
    const uint8_t *rows = w->in + d * s->row_bytes;
    const size_t raw = n * s->row_bytes;

    int zrc = w->z_ready ? deflateReset(&w->z)
                         : deflateInit2(&w->z, j->level, Z_DEFLATED, -15 /* raw */, 8, Z_FILTERED);
    if (zrc != Z_OK) {
        snprintf(msg, msglen, "%s", zrc == Z_MEM_ERROR ? "out of memory for the PNG encoder" : "zlib cannot start");
        return -1;
    }
    w->z_ready = 1;
    if (d) {
        const size_t dl = d * s->row_bytes < WINDOW_BYTES ? d * s->row_bytes : WINDOW_BYTES;
        if (deflateSetDictionary(&w->z, rows - dl, (uInt)dl) != Z_OK) {
            snprintf(msg, msglen, "zlib refused the band's dictionary");
            return -1;
        }
    }

    const int final = k + 1 == j->nbands;
    size_t cap = (size_t)deflateBound(&w->z, (uLong)raw) + 64, len = 0, left = raw;
    uint8_t *out = (uint8_t *)malloc(2 + cap + 4);
    const uint8_t *in = rows;
    for (;;) {
        if (!out) {
            snprintf(msg, msglen, "out of memory for the PNG encoder");
            return -1;
        }
        if (w->z.avail_in == 0 && left) {
            const size_t c = left < ZLIB_PIECE ? left : ZLIB_PIECE;
            w->z.next_in = (Bytef *)in;
            w->z.avail_in = (uInt)c;
            in += c;
            left -= c;
        }
        const int flush = left ? Z_NO_FLUSH : final ? Z_FINISH : Z_SYNC_FLUSH;
        const size_t room = cap - len < ZLIB_PIECE ? cap - len : ZLIB_PIECE;
        w->z.next_out = out + 2 + len;
        w->z.avail_out = (uInt)room;
        zrc = deflate(&w->z, flush);
        len += room - w->z.avail_out;
        if (zrc == Z_STREAM_ERROR) {
            free(out);
            snprintf(msg, msglen, "zlib failed while compressing");
            return -1;
        }
        if (flush == Z_FINISH && zrc == Z_STREAM_END)
            break;
        if (flush == Z_SYNC_FLUSH && w->z.avail_in == 0 && w->z.avail_out != 0)
            break; /* the flush is complete */
        if (len == cap) { /* never for sane bounds; grow rather than fail */
            cap *= 2;
            uint8_t *bigger = (uint8_t *)realloc(out, 2 + cap + 4);
            if (!bigger)
                free(out);
            out = bigger;
        }
    }
    b->out = out;
    b->len = len;
    b->raw = raw;
    b->adler = adler32_z(adler32_z(0L, Z_NULL, 0), rows, raw);
    return 0;
}

/* Hand band k to the sink: the zlib header before band 0, the Adler-32 of
 * everything after the last band. */
static int emit(const job_t *j, size_t k, band_t *b, uLong *adler, png_sink_fn sink, void *user)
{
    uint8_t *p = b->out + 2;
    size_t len = b->len;
    if (k == 0) {
        /* CMF 0x78: deflate, 32 KiB window; FLEVEL as zlib sets it; FCHECK
           makes the pair a multiple of 31. */
        const unsigned flevel = j->level < 2 ? 0u : j->level < 6 ? 1u : j->level == 6 ? 2u : 3u;
        unsigned h = (0x78u << 8) | (flevel << 6);
        h += 31u - h % 31u;
        p -= 2;
        p[0] = (uint8_t)(h >> 8);
        p[1] = (uint8_t)h;
        len += 2;
    }
    *adler = adler32_combine(*adler, b->adler, (z_off_t)b->raw);
    if (k + 1 == j->nbands) {
        uint8_t *t = p + len;
        t[0] = (uint8_t)(*adler >> 24);
        t[1] = (uint8_t)(*adler >> 16);
        t[2] = (uint8_t)(*adler >> 8);
        t[3] = (uint8_t)*adler;
        len += 4;
    }
    const int rc = sink(user, p, len);
    free(b->out);
    b->out = NULL;
    return rc;
}

static void *worker_main(void *arg)
{
    job_t *j = (job_t *)arg;
    worker_t w;
    memset(&w, 0, sizeof w);
    for (;;) {
        pthread_mutex_lock(&j->mu);
        while (!j->stop && j->next < j->nbands && j->next >= j->written + j->ahead)
            pthread_cond_wait(&j->room_cv, &j->mu);
        if (j->stop || j->next >= j->nbands) {
            pthread_mutex_unlock(&j->mu);
            break;
        }
        const size_t k = j->next++;
        pthread_mutex_unlock(&j->mu);

        char msg[sizeof j->msg] = "";
        const int rc = compress_band(j, &w, k, &j->bands[k], msg, sizeof msg);
        pthread_mutex_lock(&j->mu);
        j->bands[k].state = rc == 0 ? BAND_DONE : BAND_FAILED;
        if (rc != 0) {
            if (!j->msg[0])
                snprintf(j->msg, sizeof j->msg, "%s", msg);
            j->stop = 1;
            pthread_cond_broadcast(&j->room_cv);
        }
        pthread_cond_broadcast(&j->done_cv);
        pthread_mutex_unlock(&j->mu);
    }
    worker_free(&w);
    return NULL;
}

/* Start up to n workers (signals blocked in them: threads.h, so that the
 * output file's clean-up handler, cli.h, runs on the calling thread).
 * Returns how many started. */
static int start_workers(job_t *j, pthread_t *tids, int n)
{
    int started = 0;
    while (started < n && app_thread_start(&tids[started], worker_main, j) == 0)
        ++started;
    return started;
}

int png_deflate(const png_rows_t *src, const png_deflate_opts_t *opts, png_sink_fn sink, void *user, char *msg,
                size_t msglen)
{
    if (!src || !opts || !sink || !src->filter || src->row_bytes == 0 || src->rows == 0 || opts->level < 0 ||
        opts->level > 9) {
        snprintf(msg, msglen, "bad arguments to the PNG encoder");
        return PNG_DEFLATE_FAILED;
    }
    job_t j;
    memset(&j, 0, sizeof j);
    j.src = src;
    j.level = opts->level;
    j.band_rows = png_deflate_band_rows(src->row_bytes, opts->band_bytes);
    j.nbands = (src->rows + j.band_rows - 1) / j.band_rows;
    /* Stored blocks (level 0) find no matches: no dictionary to prepare. */
    j.dict_rows = opts->level == 0 ? 0 : (WINDOW_BYTES + src->row_bytes - 1) / src->row_bytes;
    j.bands = (band_t *)calloc(j.nbands, sizeof *j.bands);
    if (!j.bands) {
        snprintf(msg, msglen, "out of memory for the PNG encoder");
        return PNG_DEFLATE_FAILED;
    }
    int nthreads = png_deflate_thread_count(opts->threads, j.nbands);
    pthread_t tids[MAX_THREADS];
    int started = 0;
    if (nthreads > 1) {
        pthread_mutex_init(&j.mu, NULL);
        pthread_cond_init(&j.done_cv, NULL);
        pthread_cond_init(&j.room_cv, NULL);
        j.ahead = 4 * (size_t)nthreads;
        started = start_workers(&j, tids, nthreads);
        if (started == 0) { /* no thread to be had: do it all here */
            pthread_mutex_destroy(&j.mu);
            pthread_cond_destroy(&j.done_cv);
            pthread_cond_destroy(&j.room_cv);
        }
    }

    int rc = PNG_DEFLATE_OK;
    uLong adler = adler32_z(0L, Z_NULL, 0);
    worker_t self; /* the calling thread's own state when it compresses */
    memset(&self, 0, sizeof self);
    for (size_t k = 0; k < j.nbands; ++k) {
        if (started == 0) {
            if (compress_band(&j, &self, k, &j.bands[k], j.msg, sizeof j.msg) != 0) {
                rc = PNG_DEFLATE_FAILED;
                break;
            }
        } else {
            pthread_mutex_lock(&j.mu);
            while (j.bands[k].state == BAND_PENDING && !j.stop)
                pthread_cond_wait(&j.done_cv, &j.mu);
            const int state = j.bands[k].state;
            pthread_mutex_unlock(&j.mu);
            if (state != BAND_DONE) {
                rc = PNG_DEFLATE_FAILED;
                break;
            }
        }
        if (emit(&j, k, &j.bands[k], &adler, sink, user) != 0) {
            rc = PNG_DEFLATE_SINK_FAILED;
            break;
        }
        if (started) {
            pthread_mutex_lock(&j.mu);
            j.written = k + 1;
            pthread_cond_broadcast(&j.room_cv);
            pthread_mutex_unlock(&j.mu);
        }
    }
    if (started) {
        pthread_mutex_lock(&j.mu);
        j.stop = 1;
        pthread_cond_broadcast(&j.room_cv);
        pthread_mutex_unlock(&j.mu);
        for (int t = 0; t < started; ++t)
            pthread_join(tids[t], NULL);
        pthread_mutex_destroy(&j.mu);
        pthread_cond_destroy(&j.done_cv);
        pthread_cond_destroy(&j.room_cv);
    }
    worker_free(&self);
    for (size_t k = 0; k < j.nbands; ++k)
        free(j.bands[k].out);
    free(j.bands);
    if (rc == PNG_DEFLATE_FAILED)
        snprintf(msg, msglen, "%s", j.msg[0] ? j.msg : "the PNG encoder failed");
    return rc;
}
