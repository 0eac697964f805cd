/* fuzz_support.c -- see fuzz_support.h. */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz_support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ASan's defaults for every harness binary (ASAN_OPTIONS still overrides
 * them). The inputs are a few KiB, the images at most FUZZ_MAX_PIXELS: a
 * reader that asks for more than 64 MiB at once is sizing a buffer from what
 * a file claims rather than from what it holds, and that is a finding (an
 * "allocation-size-too-big" report), in the replays as in libFuzzer runs
 * (run_fuzzers.sh gives libFuzzer -malloc_limit_mb=64 for the same rule). */
const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void) { return "max_allocation_size_mb=64"; }

void fuzz_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz finding: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

const char *fuzz_input_file(const uint8_t *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("libscan-fuzz-input", MFD_CLOEXEC);
        if (fd < 0) fuzz_fail("harness: memfd_create: %s", strerror(errno)); /* not the reader's fault */
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0) fuzz_fail("harness: ftruncate: %s", strerror(errno));
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        if (n <= 0) fuzz_fail("harness: pwrite: %s", n < 0 ? strerror(errno) : "wrote nothing");
        done += (size_t)n;
    }
    return path;
}

static int g_pipe_read_end = -1;

const char *fuzz_input_pipe(const uint8_t *data, size_t size) {
    static char path[64];
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) fuzz_fail("harness: pipe2: %s", strerror(errno));
    int cap = fcntl(fds[1], F_GETPIPE_SZ);
    if (cap >= 0 && (size_t)cap < size && size <= (size_t)1 << 30) cap = fcntl(fds[1], F_SETPIPE_SZ, (int)size);
    if (cap < 0 || (size_t)cap < size) { /* would block: no reader yet */
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fds[1], data + done, size - done);
        if (n <= 0) fuzz_fail("harness: write to a pipe: %s", n < 0 ? strerror(errno) : "wrote nothing");
        done += (size_t)n;
    }
    close(fds[1]);
    g_pipe_read_end = fds[0];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
    return path;
}

void fuzz_input_pipe_done(void) {
    if (g_pipe_read_end >= 0) close(g_pipe_read_end);
    g_pipe_read_end = -1;
}

static void check_text(const char *who, const char *what, const char *msg, const char *path) {
    size_t plen = strlen(path);
    if (strncmp(msg, path, plen) != 0 || strncmp(msg + plen, ": ", 2) != 0)
        fuzz_fail("%s: the %s does not start with the file name '%s: ': \"%s\"", who, what, path, msg);
    for (const unsigned char *p = (const unsigned char *)msg; *p; ++p)
        if (*p < 0x20 || *p > 0x7e)
            fuzz_fail("%s: the %s holds byte 0x%02x at offset %zu (not one line of printable ASCII)", who, what, *p,
                      (size_t)(p - (const unsigned char *)msg));
}

void fuzz_check_message(const char *who, const char *msg, const char *path) {
    if (!msg || !msg[0]) fuzz_fail("%s failed without a message", who);
    check_text(who, "error message", msg, path);
}

void fuzz_check_notice(const char *who, const char *notice, const char *path) {
    if (!notice) fuzz_fail("%s: NULL notice", who);
    if (notice[0]) check_text(who, "notice", notice, path);
}
