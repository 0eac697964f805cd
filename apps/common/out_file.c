/* out_file.c -- atomic output files and app_same_file (cli.h).
 *
 * A temporary file is made with mkstemp() beside the final path and renamed
 * over it at commit (after a flush and close that report any write error; no
 * fsync, see app_out_commit). Pending temporary names live in a fixed table that the
 * SIGINT/SIGTERM/SIGHUP handler can walk without allocating: it unlinks them
 * (unlink is async-signal-safe) and re-raises the signal with the default
 * action, so the exit status still says "killed by signal". An existing
 * non-regular target (device, FIFO) is written in place instead, as cp does. */
#define _POSIX_C_SOURCE 200809L
#include "common/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

struct app_out {
    FILE *f;
    char *final_path;
    char *tmp_path; /* NULL for standard output and in-place files */
    int slot;       /* index in the pending table, -1 for standard output and in-place files */
    bool in_place;  /* an existing non-regular file (device, FIFO) written directly */
};

/* ---- pending temporary files, visible to the signal handler ------------- */

#define PENDING_MAX APP_OUT_MAX_PENDING
/* Slot states: a slot is claimed (compare-and-swap, so threads writing
 * images and arrays at once never share one) BEFORE its temporary file is
 * created, then the path is written and the slot published; the handler
 * unlinks published paths only, never a half-written name.
 *
 * With several threads writing, the signal runs the handler on one thread
 * while the others go on, so it must miss no file another thread creates
 * meanwhile (sat_blur --batch left ".frame.png.XXXXXX" behind otherwise):
 *   - the handler first sets g_dying, then walks the slots, waiting on a
 *     claimed one until it is published (or freed): its owner has these
 *     signals blocked and is only a few system calls from publishing;
 *   - a thread that claims a slot reads g_dying right after, and creates no
 *     file when it is set.
 * All sequentially consistent: for each slot, either the handler sees the
 * claim (and waits for the file's name) or the claimer sees g_dying (and
 * makes no file). */
enum { SLOT_FREE = 0, SLOT_READY = 1, SLOT_CLAIMED = 2 };
static char g_pending_path[PENDING_MAX][PATH_MAX];
static volatile sig_atomic_t g_pending_used[PENDING_MAX];
static volatile sig_atomic_t g_dying;
static const int g_signals[] = {SIGINT, SIGTERM, SIGHUP};

void app_out_remove_pending(void) {
    __atomic_store_n(&g_dying, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < PENDING_MAX; ++i) {
        sig_atomic_t s;
        while ((s = __atomic_load_n(&g_pending_used[i], __ATOMIC_SEQ_CST)) == SLOT_CLAIMED) {
        }
        if (s == SLOT_READY) unlink(g_pending_path[i]);
    }
}

static void on_signal(int sig) {
    app_out_remove_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Checked at every open (cheap), so a handler reset by the program in between
 * (or in a forked child) is put back. */
static void install_handlers(void) {
    for (size_t i = 0; i < sizeof g_signals / sizeof g_signals[0]; ++i) {
        struct sigaction old;
        /* Keep a handler the program set itself (ours included), and
           "ignored" (e.g. under nohup). */
        if (sigaction(g_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof g_signals / sizeof g_signals[0]; ++j) sigaddset(&sa.sa_mask, g_signals[j]);
        sigaction(g_signals[i], &sa, NULL);
    }
}

/* Blocks/unblocks the signals we handle, so that creating a temporary file
 * and recording its name happen as one step for the handler. */
static void block_signals(sigset_t *old) {
    sigset_t block;
    sigemptyset(&block);
    for (size_t j = 0; j < sizeof g_signals / sizeof g_signals[0]; ++j) sigaddset(&block, g_signals[j]);
    sigprocmask(SIG_BLOCK, &block, old);
}

/* Claims a free slot before its file is made (signals blocked by the
 * caller). Returns the slot, -1 when the table is full, or -2 when a signal
 * handler is already removing the files (the process is about to die: make
 * none). */
static int pending_claim(void) {
    for (int i = 0; i < PENDING_MAX; ++i) {
        sig_atomic_t expected = SLOT_FREE;
        if (__atomic_compare_exchange_n(&g_pending_used[i], &expected, SLOT_CLAIMED, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
            if (__atomic_load_n(&g_dying, __ATOMIC_SEQ_CST)) {
                __atomic_store_n(&g_pending_used[i], SLOT_FREE, __ATOMIC_SEQ_CST);
                return -2;
            }
            return i;
        }
    }
    return -1;
}

/* The claimed slot's file exists: record its name for the handler. */
static void pending_publish(int slot, const char *path) {
    snprintf(g_pending_path[slot], PATH_MAX, "%s", path);
    __atomic_store_n(&g_pending_used[slot], SLOT_READY, __ATOMIC_SEQ_CST);
}

static void pending_remove(int slot) {
    if (slot >= 0 && slot < PENDING_MAX) __atomic_store_n(&g_pending_used[slot], SLOT_FREE, __ATOMIC_SEQ_CST);
}

/* ---- helpers ------------------------------------------------------------- */

static void put_err(char *err, size_t errlen, const char *fmt, ...) APP_PRINTF(3, 4);
static void put_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* 0666 & ~umask, the mode fopen() would give. The umask is read from
 * /proc/self/status: umask(2) would change it for a moment under every
 * other thread (image writes may run on several). */
static mode_t default_file_mode(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[128];
        unsigned int m;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "Umask: %o", &m) == 1) {
                fclose(f);
                return (mode_t)(0666 & ~m);
            }
        fclose(f);
    }
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* ---- the API --------------------------------------------------------------- */

app_out_t *app_out_open(const char *path, char *err, size_t errlen) {
    if (!path || !*path) {
        put_err(err, errlen, "empty output file name");
        return NULL;
    }
    app_out_t *o = calloc(1, sizeof *o);
    if (!o || !(o->final_path = dup_str(path))) {
        free(o);
        put_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    o->slot = -1;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return o;
    }

    /* An existing directory at the final path would make rename() fail late. */
    struct stat st;
    int fail_errno = 0; /* what errno says after a failure (see cli.h) */
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        put_err(err, errlen, "%s: is a directory", path);
        fail_errno = EISDIR;
        goto fail;
    }
    /* An existing file that is not a regular file (a character or block
       device such as /dev/null or /dev/full, a FIFO) is written into in
       place, as cp does. A temporary file renamed over it would replace the
       device node (root may create files in /dev) and turn a full disk into
       a silent success; and a FIFO's reader would never see the data. There
       is nothing to make atomic about a device anyway. A socket cannot be
       opened at all: say so. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISSOCK(st.st_mode)) {
            put_err(err, errlen, "%s: is a socket; cannot write to it", path);
            fail_errno = ENXIO;
            goto fail;
        }
        /* O_TRUNC as cp: ignored by devices and FIFOs. A FIFO's open waits
           for its reader, as cp's does. */
        int fd = open(path, O_WRONLY | O_TRUNC | O_NOCTTY);
        if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
            fail_errno = errno;
            if (fd >= 0) close(fd);
            put_err(err, errlen, "%s: cannot open for writing: %s", path, strerror(fail_errno));
            goto fail;
        }
        o->in_place = true;
        return o;
    }

    /* "<dir>/.<base>.XXXXXX" */
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = slash ? slash + 1 : path;
    if (!*base) {
        put_err(err, errlen, "%s: is a directory name, not a file name", path);
        fail_errno = EISDIR;
        goto fail;
    }
    size_t tlen = dirlen + 1 + strlen(base) + 8 + 1;
    if (tlen > PATH_MAX) {
        put_err(err, errlen, "%s: file name too long", path);
        fail_errno = ENAMETOOLONG;
        goto fail;
    }
    o->tmp_path = malloc(tlen);
    if (!o->tmp_path) {
        put_err(err, errlen, "%s: out of memory", path);
        fail_errno = ENOMEM;
        goto fail;
    }
    memcpy(o->tmp_path, path, dirlen);
    snprintf(o->tmp_path + dirlen, tlen - dirlen, ".%s.XXXXXX", base);

    install_handlers();
    sigset_t oldmask;
    block_signals(&oldmask);
    int fd = -1, mk_errno = 0;
    const int claim = pending_claim();
    if (claim >= 0) {
        fd = mkstemp(o->tmp_path);
        mk_errno = errno;
        if (fd >= 0) pending_publish(claim, o->tmp_path);
        else pending_remove(claim);
    }
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    if (claim == -1) {
        put_err(err, errlen, "%s: too many output files open at once", path);
        fail_errno = EMFILE;
        goto fail;
    }
    if (claim == -2) {
        put_err(err, errlen, "%s: interrupted by a signal", path);
        fail_errno = EINTR;
        goto fail;
    }
    if (fd < 0) {
        char dir[PATH_MAX];
        if (dirlen == 0) snprintf(dir, sizeof dir, ".");
        else snprintf(dir, sizeof dir, "%.*s", (int)(dirlen > 1 ? dirlen - 1 : 1), path);
        put_err(err, errlen, "%s: cannot create a file in directory '%s': %s", path, dir, strerror(mk_errno));
        fail_errno = mk_errno;
        goto fail;
    }
    o->slot = claim;
    (void)fchmod(fd, default_file_mode());
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        int e = errno;
        close(fd);
        unlink(o->tmp_path);
        pending_remove(o->slot);
        put_err(err, errlen, "%s: %s", path, strerror(e));
        fail_errno = e;
        goto fail;
    }
    return o;

fail:
    free(o->tmp_path);
    free(o->final_path);
    free(o);
    errno = fail_errno ? fail_errno : EIO;
    return NULL;
}

FILE *app_out_file(app_out_t *o) { return o ? o->f : NULL; }

const char *app_out_path(const app_out_t *o) { return o ? o->final_path : NULL; }

static void out_free(app_out_t *o) {
    free(o->tmp_path);
    free(o->final_path);
    free(o);
}

int app_out_commit(app_out_t *o, char *err, size_t errlen) {
    if (!o) {
        put_err(err, errlen, "app_out_commit: no file");
        return -1;
    }
    if (o->in_place) {
        /* No fsync: devices and FIFOs refuse it (EINVAL) and there is no
           rename to order it before. A full device shows here or in the
           writes before: ENOSPC from /dev/full. */
        int e = 0;
        if (fflush(o->f) != 0 || ferror(o->f)) e = errno ? errno : EIO;
        if (fclose(o->f) != 0 && !e) e = errno;
        o->f = NULL;
        if (e) put_err(err, errlen, "%s: write error: %s", o->final_path, strerror(e));
        out_free(o);
        return e ? -1 : 0;
    }
    if (!o->tmp_path) { /* standard output */
        int bad = fflush(o->f) != 0 || ferror(o->f);
        if (bad) put_err(err, errlen, "%s: write error on standard output: %s", o->final_path, strerror(errno));
        out_free(o);
        return bad ? -1 : 0;
    }
    /* No fsync (as cp, GNU sort -o and numpy.save): the temporary file and
       the rename guard against the program's own failures (an error, a
       signal, a full disk: write and close report those), and waiting here
       for the disk would cost as long as the whole rest of a run on a large
       file (issue 21: a 1 GiB output). What a power cut right after the
       rename leaves is the file system's business; ext4 and btrfs flush a
       file renamed over an existing one before the rename commits. */
    int e = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) e = errno ? errno : EIO;
    if (fclose(o->f) != 0 && !e) e = errno;
    o->f = NULL;
    if (!e) {
        if (rename(o->tmp_path, o->final_path) != 0) {
            e = errno;
            unlink(o->tmp_path);
            put_err(err, errlen, "%s: cannot rename the finished temporary file into place: %s", o->final_path,
                    strerror(e));
        }
    } else {
        unlink(o->tmp_path);
        put_err(err, errlen, "%s: write error: %s", o->final_path, strerror(e));
    }
    pending_remove(o->slot);
    out_free(o);
    return e ? -1 : 0;
}

void app_out_abort(app_out_t *o) {
    if (!o) return;
    if (o->tmp_path) {
        if (o->f) fclose(o->f);
        unlink(o->tmp_path);
        pending_remove(o->slot);
    } else if (o->in_place) {
        /* What reached a device or FIFO cannot be taken back. */
        if (o->f) fclose(o->f);
    } else if (o->f) {
        fflush(o->f);
    }
    out_free(o);
}

int app_same_file(const char *a, const char *b) {
    if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0) return 0;
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
