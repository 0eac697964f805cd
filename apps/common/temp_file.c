/* temp_file.c -- unnamed temporary files (temp_file.h). */
#define _GNU_SOURCE /* O_TMPFILE, mkostemp */
#include "common/temp_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *app_temp_dir(void) {
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

int app_temp_file(const char *dir) {
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    /* These say the folder is unusable; anything else, that O_TMPFILE is. */
    if (errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == EROFS || errno == ENOSPC) return -1;
#endif
    char path[4096];
    if (snprintf(path, sizeof path, "%s/.libscan-tmp.XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    const int f = mkostemp(path, O_CLOEXEC);
    const int e = errno;
    if (f >= 0) unlink(path);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return f;
}
