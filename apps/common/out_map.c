/* out_map.c -- outputs written through a shared mapping (out_map.h). */
#define _GNU_SOURCE /* fallocate, program_invocation_short_name */
#include "common/out_map.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/cli.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL */
#endif

#define MAX_THREADS 64
#define MAX_MAPS 8 /* mappings open at once (radixsort has two outputs) */

struct app_omap {
    unsigned char *base;
    size_t len;
    int slot; /* in the SIGBUS table */
    pthread_t tid[MAX_THREADS];
    int started;
    int populate_err; /* first failure of a prefault thread (errno), atomic */
    pthread_mutex_t mu; /* held by the first app_omap_ready while it decides */
    int decided;        /* 0 undecided, 1 use the mapping, -1 given up */
};

/* ---- switch --------------------------------------------------------------------- */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static bool g_enabled = true;

static void enabled_init(void) {
    const char *s = getenv("LIBSCAN_OUT_MAP");
    g_enabled = !(s && strcmp(s, "0") == 0);
}

bool app_omap_enabled(void) {
    pthread_once(&g_once, enabled_init);
    return g_enabled;
}

/* ---- SIGBUS: a store the file could not take ------------------------------------ */

/* Each open mapping's range and its one-line message, prepared at open so
 * that the handler only compares and writes. */
static struct {
    volatile sig_atomic_t used;
    unsigned char *base;
    size_t len;
    char msg[600];
    size_t msglen;
} g_maps[MAX_MAPS];
static pthread_mutex_t g_maps_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction g_prev_bus;
static int g_active = 0; /* mappings open: the handler is ours while > 0 */

static void on_sigbus(int sig, siginfo_t *si, void *uctx) {
    (void)uctx;
    const unsigned char *a = si ? (const unsigned char *)si->si_addr : NULL;
    for (int i = 0; i < MAX_MAPS; ++i) {
        if (!g_maps[i].used || !a || a < g_maps[i].base || a >= g_maps[i].base + g_maps[i].len) continue;
        ssize_t w = write(STDERR_FILENO, g_maps[i].msg, g_maps[i].msglen);
        (void)w;
        app_out_remove_pending();
        _exit(APP_EXIT_INTERNAL);
    }
    /* Not ours: the previous disposition takes the fault when the store
       runs again on return. */
    sigaction(sig, &g_prev_bus, NULL);
}

static int guard_add(unsigned char *base, size_t len, const char *name) {
    pthread_mutex_lock(&g_maps_mu);
    int slot = -1;
    for (int i = 0; i < MAX_MAPS && slot < 0; ++i)
        if (!g_maps[i].used) slot = i;
    if (slot >= 0) {
        g_maps[slot].base = base;
        g_maps[slot].len = len;
        int n = snprintf(g_maps[slot].msg, sizeof g_maps[slot].msg,
                         "%s: %s: write failed (disk full or file truncated)\n", program_invocation_short_name, name);
        g_maps[slot].msglen = n < 0 ? 0 : (size_t)n < sizeof g_maps[slot].msg ? (size_t)n : sizeof g_maps[slot].msg - 1;
        __atomic_store_n(&g_maps[slot].used, 1, __ATOMIC_SEQ_CST);
        /* Installed while mappings are open and the previous handler put
           back after the last, so a handler the program (or a test
           framework) sets in between is not shut out for good. */
        if (g_active++ == 0) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_sigaction = on_sigbus;
            sa.sa_flags = SA_SIGINFO;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGBUS, &sa, &g_prev_bus);
        }
    }
    pthread_mutex_unlock(&g_maps_mu);
    return slot;
}

static void guard_remove(int slot) {
    if (slot < 0) return;
    pthread_mutex_lock(&g_maps_mu);
    __atomic_store_n(&g_maps[slot].used, 0, __ATOMIC_SEQ_CST);
    if (--g_active == 0) sigaction(SIGBUS, &g_prev_bus, NULL);
    pthread_mutex_unlock(&g_maps_mu);
}

/* ---- prefault ------------------------------------------------------------------- */

typedef struct populate_arg {
    app_omap_t *m;
    size_t from, to;
} populate_arg_t;

static void *populate_main(void *p) {
    populate_arg_t *a = p;
    if (a->to > a->from && madvise(a->m->base + a->from, a->to - a->from, MADV_POPULATE_WRITE) != 0) {
        int expected = 0;
        __atomic_compare_exchange_n(&a->m->populate_err, &expected, errno, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
    }
    free(a);
    return NULL;
}

/* ---- the API -------------------------------------------------------------------- */

app_omap_t *app_omap_open(int fd, unsigned long long size, int threads, const char *name, int *werr) {
    *werr = 0;
    if (!app_omap_enabled() || size == 0 || size > (unsigned long long)SIZE_MAX / 2) return NULL;
    /* The raw system call, not posix_fallocate: glibc's emulation writes
       zeros over the whole range where the file system has no fallocate. */
    if (fallocate(fd, 0, 0, (off_t)size) != 0) {
        const int e = errno;
        if (e == ENOSPC || e == EFBIG || e == EDQUOT || e == EIO) *werr = e;
        return NULL; /* else EOPNOTSUPP, ENOSYS, ...: pwrite it is */
    }
    app_omap_t *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->len = (size_t)size;
    void *p = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        free(m);
        return NULL;
    }
    m->base = p;
    pthread_mutex_init(&m->mu, NULL);
    if ((m->slot = guard_add(m->base, m->len, name)) < 0) {
        munmap(m->base, m->len);
        pthread_mutex_destroy(&m->mu);
        free(m);
        return NULL;
    }
    /* No prefault: the copy faults the pages in itself (a caller with
       nothing to do meanwhile saves a pass over the memory). */
    if (threads < 1) return m;
    /* Whole pages to each thread, so no page is faulted twice. */
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t pages = (m->len + page - 1) / page;
    const size_t per = (pages + (size_t)threads - 1) / (size_t)threads * page;
    for (size_t at = 0; at < m->len; at += per) {
        populate_arg_t *a = malloc(sizeof *a);
        if (!a) break;
        a->m = m;
        a->from = at;
        a->to = at + per < m->len ? at + per : m->len;
        if (pthread_create(&m->tid[m->started], NULL, populate_main, a) != 0) {
            free(a);
            break; /* the rest is faulted in by the copy itself */
        }
        ++m->started;
    }
    return m;
}

bool app_omap_ready(app_omap_t *m) {
    /* The lock is held through the joins: a second writer waits for the
       first one's decision instead of joining the threads again. */
    pthread_mutex_lock(&m->mu);
    if (!m->decided) {
        for (int i = 0; i < m->started; ++i) pthread_join(m->tid[i], NULL);
        m->started = 0;
        m->decided = __atomic_load_n(&m->populate_err, __ATOMIC_SEQ_CST) ? -1 : 1;
    }
    const bool ok = m->decided > 0;
    pthread_mutex_unlock(&m->mu);
    return ok;
}

typedef struct copy_arg {
    unsigned char *dst;
    const unsigned char *src;
    size_t n;
} copy_arg_t;

static void *copy_main(void *p) {
    const copy_arg_t *a = p;
    memcpy(a->dst, a->src, a->n);
    return NULL;
}

void app_omap_copy(app_omap_t *m, unsigned long long off, const void *src, size_t n, int threads) {
    unsigned char *dst = m->base + off;
    /* Below a few MiB a thread costs more than it saves. */
    const size_t min_piece = (size_t)2 << 20;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads > 1 && n / (size_t)threads < min_piece) threads = (int)(n / min_piece);
    if (threads <= 1) {
        memcpy(dst, src, n);
        return;
    }
    pthread_t tid[MAX_THREADS];
    copy_arg_t arg[MAX_THREADS];
    const size_t per = (n + (size_t)threads - 1) / (size_t)threads;
    int started = 0;
    size_t done_inline = n; /* where this thread takes over when a thread could not start */
    for (int i = 0; i < threads; ++i) {
        const size_t from = (size_t)i * per, to = from + per < n ? from + per : n;
        arg[i] = (copy_arg_t){dst + from, (const unsigned char *)src + from, to - from};
        if (i == 0) continue; /* this thread's own piece, below */
        if (pthread_create(&tid[started], NULL, copy_main, &arg[i]) != 0) {
            done_inline = from;
            break;
        }
        ++started;
    }
    memcpy(arg[0].dst, arg[0].src, arg[0].n);
    if (done_inline < n) memcpy(dst + done_inline, (const unsigned char *)src + done_inline, n - done_inline);
    for (int i = 0; i < started; ++i) pthread_join(tid[i], NULL);
}

void app_omap_close(app_omap_t *m) {
    if (!m) return;
    for (int i = 0; i < m->started; ++i) pthread_join(m->tid[i], NULL);
    munmap(m->base, m->len);
    guard_remove(m->slot);
    pthread_mutex_destroy(&m->mu);
    free(m);
}
