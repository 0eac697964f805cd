/* rs_output.c -- radixsort's outputs, committed together (rs_output.h). */
#define _POSIX_C_SOURCE 200809L
#include "rs_output.h"
#include "common/par_io.h"
#include "common/stream_io.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* ---- stage files visible to the signal handler ---------------------------- */

#define STAGE_MAX 4 /* radixsort has at most two outputs */
static char g_stage_path[STAGE_MAX][PATH_MAX];
static volatile sig_atomic_t g_stage_used[STAGE_MAX];
static const int g_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIG_HANDLED (sizeof g_signals / sizeof g_signals[0])
static struct sigaction g_prev[NSIG_HANDLED];
static int g_installed = 0;

static void on_signal(int sig) {
    for (int i = 0; i < STAGE_MAX; ++i)
        if (g_stage_used[i]) unlink(g_stage_path[i]);
    /* Hand the signal on: put the previous disposition back and raise the
       signal again; it is delivered when this handler returns (it is
       blocked while we run). apps/common's handler then removes its own
       temporary files and dies by the signal. */
    for (size_t k = 0; k < NSIG_HANDLED; ++k)
        if (g_signals[k] == sig) sigaction(sig, &g_prev[k], NULL);
    raise(sig);
}

/* Called after the first arr_writer_open, so that apps/common has installed
 * its handler by then and ours can chain to it (apps/common keeps a handler
 * the program set itself, so installing ours first would shut its out).
 * Signals the user had ignored (nohup) stay ignored. */
static void install_handler(void) {
    if (g_installed) return;
    g_installed = 1;
    for (size_t k = 0; k < NSIG_HANDLED; ++k) {
        if (sigaction(g_signals[k], NULL, &g_prev[k]) != 0 || g_prev[k].sa_handler == SIG_IGN) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < NSIG_HANDLED; ++j) sigaddset(&sa.sa_mask, g_signals[j]);
        sigaction(g_signals[k], &sa, NULL);
    }
}

static void block_signals(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t j = 0; j < NSIG_HANDLED; ++j) sigaddset(&set, g_signals[j]);
    sigprocmask(SIG_BLOCK, &set, old);
}

static int stage_register(const char *path) {
    if (strlen(path) >= PATH_MAX) return -1;
    sigset_t old;
    block_signals(&old);
    int slot = -1;
    for (int i = 0; i < STAGE_MAX && slot < 0; ++i)
        if (!g_stage_used[i]) {
            memcpy(g_stage_path[i], path, strlen(path) + 1);
            g_stage_used[i] = 1;
            slot = i;
        }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return slot;
}

static void stage_unregister(int slot) {
    if (slot >= 0 && slot < STAGE_MAX) g_stage_used[slot] = 0;
}

/* ---- helpers ---------------------------------------------------------------- */

/* The writer's messages name the stage; the user gave the final path. */
static void rename_in_message(char *err, size_t errlen, const char *stage, const char *path) {
    if (!err || errlen == 0 || !stage) return;
    char out[1024];
    size_t o = 0;
    const size_t sl = strlen(stage), pl = strlen(path);
    const char *p = err, *hit;
    while ((hit = strstr(p, stage)) != NULL && o + (size_t)(hit - p) + pl < sizeof out) {
        memcpy(out + o, p, (size_t)(hit - p));
        o += (size_t)(hit - p);
        memcpy(out + o, path, pl);
        o += pl;
        p = hit + sl;
    }
    snprintf(out + o, sizeof out - o, "%s", p);
    snprintf(err, errlen, "%s", out);
}

/* "<dir>/.<base>.rs<pid>-<n>", a name no file has now. */
static char *stage_name(const char *path) {
    static unsigned counter = 0;
    const char *slash = strrchr(path, '/');
    const size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = slash ? slash + 1 : path;
    const size_t cap = dirlen + strlen(base) + 48;
    char *s = malloc(cap);
    if (!s) return NULL;
    struct stat st;
    do {
        snprintf(s, cap, "%.*s.%s.rs%ld-%u", (int)dirlen, path, base, (long)getpid(), counter++);
    } while (lstat(s, &st) == 0);
    return s;
}

/* ---- the API ---------------------------------------------------------------- */

arr_status_t rs_output_open(rs_output_t *o, const char *path, arr_format_t format, arr_dtype_t dtype,
                            size_t count, char *err, size_t errlen) {
    memset(o, 0, sizeof *o);
    o->path = path;
    o->slot = -1;
    const arr_format_t fmt = arr_format_resolve(path, format); /* the stage name has no extension */
    if (strcmp(path, "-") == 0) return arr_writer_open(&o->w, path, fmt, dtype, count, err, errlen);

    /* The rename at publish would fail on a directory; say so now. */
    struct stat st;
    const int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory", path);
        return ARR_ERR_INPUT;
    }
    /* A device, FIFO or socket is never replaced by a renamed file: the
     * writer of apps/common writes into it in place (as cp does), or refuses
     * it, and there is nothing to stage or publish. */
    if (exists && !S_ISREG(st.st_mode)) return arr_writer_open(&o->w, path, fmt, dtype, count, err, errlen);
    if (!path[0] || path[strlen(path) - 1] == '/') {
        snprintf(err, errlen, "%s: is a directory name, not a file name", path);
        return ARR_ERR_INPUT;
    }
    if (!(o->stage = stage_name(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        return ARR_ERR_SYSTEM;
    }
    arr_status_t s = arr_writer_open(&o->w, o->stage, fmt, dtype, count, err, errlen);
    if (s != ARR_OK) {
        rename_in_message(err, errlen, o->stage, path);
        free(o->stage);
        o->stage = NULL;
        return s;
    }
    install_handler();
    if ((o->slot = stage_register(o->stage)) < 0) {
        snprintf(err, errlen, "%s: too many outputs", path);
        rs_output_abort(o);
        return ARR_ERR_SYSTEM;
    }
    return ARR_OK;
}

arr_writer_t *rs_output_writer(rs_output_t *o) { return o->w; }

arr_status_t rs_output_write(rs_output_t *o, const void *data, size_t k, char *err, size_t errlen) {
    arr_status_t s = arr_writer_write(o->w, data, k, err, errlen);
    if (s != ARR_OK) rename_in_message(err, errlen, o->stage, o->path);
    return s;
}

arr_status_t rs_output_finish(rs_output_t *o, char *err, size_t errlen) {
    arr_writer_t *w = o->w;
    o->w = NULL; /* commit frees it, on failure too */
    arr_status_t s = arr_writer_commit(w, err, errlen);
    if (s != ARR_OK) {
        rename_in_message(err, errlen, o->stage, o->path);
        rs_output_abort(o);
        return s;
    }
    o->finished = 1;
    return ARR_OK;
}

arr_status_t rs_outputs_publish(rs_output_t *outs, size_t n, char *err, size_t errlen) {
    arr_status_t s = ARR_OK;
    for (size_t i = 0; i < n; ++i) {
        rs_output_t *o = &outs[i];
        if (!o->stage || !o->finished) continue;
        if (s == ARR_OK && rename(o->stage, o->path) != 0) {
            /* Both stages sit beside their final paths, on the same file
               system, so this hardly happens; when it does, earlier outputs
               have been replaced already, and the message says which one
               failed. */
            snprintf(err, errlen, "%s: cannot write (rename into place failed): %s", o->path, strerror(errno));
            s = ARR_ERR_SYSTEM;
            continue; /* abort this one and the rest */
        }
        if (s == ARR_OK) {
            stage_unregister(o->slot);
            o->slot = -1;
            free(o->stage);
            o->stage = NULL;
        }
    }
    if (s != ARR_OK)
        for (size_t i = 0; i < n; ++i) rs_output_abort(&outs[i]);
    return s;
}

void rs_output_abort(rs_output_t *o) {
    if (!o) return;
    arr_writer_abort(o->w);
    o->w = NULL;
    if (o->stage && o->finished) unlink(o->stage);
    stage_unregister(o->slot);
    o->slot = -1;
    free(o->stage);
    o->stage = NULL;
    o->finished = 0;
}

/* ---- both outputs of a run ----------------------------------------------------- */

void rs_outputs_init(rs_outputs_t *x) {
    memset(x, 0, sizeof *x);
    x->o[0].slot = x->o[1].slot = -1;
}

arr_status_t rs_outputs_open(rs_outputs_t *x, const char *const paths[2], arr_format_t format,
                             const arr_dtype_t dtypes[2], size_t count, rs_out_mode_t mode, char *err,
                             size_t errlen) {
    for (int i = 0; i < 2; ++i) {
        if (!paths[i]) continue;
        arr_status_t st = rs_output_open(&x->o[i], paths[i], format, dtypes[i], count, err, errlen);
        if (st == ARR_OK) st = app_sink_open(&x->k[i], rs_output_writer(&x->o[i]), paths[i], err, errlen);
        if (st == ARR_OK && count != ARR_COUNT_UNKNOWN)
            st = mode == RS_OUT_RESERVE ? app_sink_reserve(x->k[i], count, err, errlen)
                                        : app_sink_map(x->k[i], count, mode == RS_OUT_MAP ? 0 : app_io_threads(), err,
                                                       errlen);
        if (st != ARR_OK) return st;
    }
    return ARR_OK;
}

arr_status_t rs_outputs_commit(rs_outputs_t *x, char *err, size_t errlen) {
    arr_status_t st = ARR_OK;
    for (int i = 0; i < 2; ++i) {
        app_sink_close(x->k[i]); /* a mapping is unmapped here, before the writer's commit */
        x->k[i] = NULL;
    }
    for (int i = 0; i < 2 && st == ARR_OK; ++i)
        if (x->o[i].path) st = rs_output_finish(&x->o[i], err, errlen);
    if (st == ARR_OK) st = rs_outputs_publish(x->o, 2, err, errlen);
    return st;
}

void rs_outputs_abort(rs_outputs_t *x) {
    for (int i = 0; i < 2; ++i) {
        app_sink_close(x->k[i]);
        x->k[i] = NULL;
        rs_output_abort(&x->o[i]);
    }
}
