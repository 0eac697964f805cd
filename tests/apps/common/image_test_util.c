/* image_test_util.c -- see image_test_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "image_test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[512];

const char *itu_dir(void)
{
    if (!g_dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(g_dir, sizeof g_dir, "%s/test_image_io.XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(g_dir)) {
            perror("mkdtemp");
            abort();
        }
    }
    return g_dir;
}

const char *itu_path(const char *name)
{
    static char bufs[8][1024];
    static int next = 0;
    char *b = bufs[next];
    next = (next + 1) % 8;
    snprintf(b, sizeof bufs[0], "%s/%s", itu_dir(), name);
    return b;
}

static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        chmod(path, 0700); /* a test may have made it read-only */
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                char sub[2048];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                remove_tree(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

const char *itu_subdir(const char *name)
{
    const char *p = itu_path(name);
    remove_tree(p);
    if (mkdir(p, 0700) != 0) {
        perror("mkdir");
        abort();
    }
    return p;
}

uint8_t *itu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = (uint8_t *)malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = (uint8_t *)realloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int itu_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int itu_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            ++n;
    closedir(d);
    return n;
}

void itu_cleanup(void)
{
    if (g_dir[0])
        remove_tree(g_dir);
    g_dir[0] = 0;
}
