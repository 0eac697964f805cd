/* par_io.c -- parallel pread/pwrite of one byte range (par_io.h). */
#define _GNU_SOURCE
#include "common/par_io.h"
#include "common/threads.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 64
#define PIECE_MAX ((size_t)8 << 20) /* big enough that a syscall costs nothing */
#define PIECE_MIN ((size_t)1 << 20) /* small enough that every thread gets some */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_threads = 1;

static void threads_init(void) {
    const char *s = getenv("LIBSCAN_IO_THREADS");
    if (s && *s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (!errno && !*end && v >= 1 && v <= MAX_THREADS) {
            g_threads = (int)v;
            return;
        }
    }
    const unsigned cpus = app_usable_cpus();
    g_threads = cpus > 8 ? 8 : (int)cpus;
}

int app_io_threads(void) {
    pthread_once(&g_once, threads_init);
    return g_threads;
}

/* One range, cut into pieces that the threads take in turn. */
typedef struct job {
    int fd;
    unsigned char *buf; /* read: destination; write: source (not written) */
    size_t len, piece;
    unsigned long long off;
    bool write;
    app_piece_fn after;
    void *ctx;
    size_t next; /* next piece, taken with an atomic add */
    int err;     /* first failure, 0 while none */
} job_t;

/* pread/pwrite until the whole piece is done. */
static int piece_io(const job_t *j, size_t at, size_t n) {
    size_t done = 0;
    while (done < n) {
        const off_t pos = (off_t)(j->off + at + done);
        ssize_t r = j->write ? pwrite(j->fd, j->buf + at + done, n - done, pos)
                             : pread(j->fd, j->buf + at + done, n - done, pos);
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno ? errno : EIO;
        }
        if (r == 0) return j->write ? EIO : APP_IO_SHORT;
        done += (size_t)r;
    }
    return 0;
}

static void *worker(void *arg) {
    job_t *j = arg;
    for (;;) {
        if (__atomic_load_n(&j->err, __ATOMIC_RELAXED)) break; /* someone failed: stop early */
        const size_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (i >= (j->len + j->piece - 1) / j->piece) break;
        const size_t at = i * j->piece, n = j->len - at < j->piece ? j->len - at : j->piece;
        int e = piece_io(j, at, n);
        if (!e && j->after) j->after(j->buf + at, n, j->ctx);
        if (e) {
            int none = 0;
            __atomic_compare_exchange_n(&j->err, &none, e, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

static int run(job_t *j, int threads) {
    if (j->len == 0) return 0;
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    /* About len / threads per piece, within [PIECE_MIN, PIECE_MAX], in whole
       pages (so in whole elements: align divides 4096). */
    size_t piece = j->len / (size_t)threads;
    piece = piece < PIECE_MIN ? PIECE_MIN : piece > PIECE_MAX ? PIECE_MAX : piece;
    piece = piece / 4096 * 4096;
    j->piece = piece;
    const size_t pieces = (j->len + piece - 1) / piece;
    int n = pieces < (size_t)threads ? (int)pieces : threads;
    pthread_t tid[MAX_THREADS];
    int started = 0;
    for (; started < n - 1; ++started)
        if (app_thread_start(&tid[started], worker, j) != 0) break; /* fewer threads: still correct */
    worker(j); /* the caller is one of the threads */
    for (int i = 0; i < started; ++i) pthread_join(tid[i], NULL);
    return j->err;
}

int app_pread_full(int fd, void *buf, size_t len, unsigned long long off, int threads, size_t align,
                   app_piece_fn after, void *ctx) {
    /* Pieces are whole pages (run), so whole elements of any size that
       divides 4096. */
    if (align == 0 || 4096 % align != 0) return EINVAL;
    job_t j = {fd, buf, len, 0, off, false, after, ctx, 0, 0};
    return run(&j, threads);
}

int app_pwrite_full(int fd, const void *buf, size_t len, unsigned long long off, int threads) {
    job_t j = {fd, (unsigned char *)(uintptr_t)buf, len, 0, off, true, NULL, NULL, 0, 0};
    return run(&j, threads);
}

int app_write_full(int fd, const void *buf, size_t len) {
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t r = write(fd, p, len);
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno ? errno : EIO;
        }
        if (r == 0) return EIO;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}
