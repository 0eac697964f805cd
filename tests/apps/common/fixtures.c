/* fixtures.c -- see fixtures.h. */
#define _GNU_SOURCE
#include "fixtures.h"

#include "support/cm.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fx_tmpdir(char *out, size_t cap) {
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    snprintf(out, cap, "%s/libscan_common_XXXXXX", base);
    if (!mkdtemp(out)) fail_msg("cannot create a temporary directory under %s", base);
}

static void rm_tree(const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && depth < 4) {
            chmod(p, 0700);
            rm_tree(p, depth + 1);
        } else {
            unlink(p);
        }
    }
    closedir(d);
    rmdir(dir);
}

void fx_rmdir(const char *dir) { rm_tree(dir, 0); }

int fx_count_entries(const char *dir, char *names, size_t cap) {
    DIR *d = opendir(dir);
    if (!d) fail_msg("cannot list %s", dir);
    int n = 0;
    size_t used = 0;
    if (names && cap) names[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        ++n;
        if (names && used < cap) used += (size_t)snprintf(names + used, cap - used, "%s ", e->d_name);
    }
    closedir(d);
    return n;
}

void fx_write_file(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) fail_msg("cannot create %s", path);
    if (n && fwrite(bytes, 1, n, f) != n) fail_msg("cannot write %s", path);
    if (fclose(f) != 0) fail_msg("cannot close %s", path);
}

unsigned char *fx_read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    size_t cap = 4096, len = 0;
    unsigned char *buf = malloc(cap + 1);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            if (!buf) fail_msg("out of memory reading %s", path);
        }
    }
    fclose(f);
    buf[len] = '\0';
    *n = len;
    return buf;
}

void fx_write_npy(const char *path, int major, int minor, const char *dict, int pad, long header_len_delta,
                  const void *data, size_t nbytes) {
    size_t dl = strlen(dict);
    size_t prefix = major == 1 ? 10 : 12;
    size_t total = prefix + dl;
    if (pad) total = (prefix + dl + 1 + 63) / 64 * 64;
    size_t hlen = total - prefix;
    unsigned char *buf = malloc(total + nbytes + 1);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = (unsigned char)minor;
    unsigned long long field = (unsigned long long)((long long)hlen + header_len_delta);
    for (size_t i = 0; i < prefix - 8; ++i) buf[8 + i] = (unsigned char)(field >> (8 * i));
    memcpy(buf + prefix, dict, dl);
    if (pad) {
        memset(buf + prefix + dl, ' ', total - prefix - dl - 1);
        buf[total - 1] = '\n';
    }
    if (nbytes) memcpy(buf + total, data, nbytes);
    fx_write_file(path, buf, total + nbytes);
    free(buf);
}

void fx_swap(void *data, size_t count, size_t size) {
    unsigned char *p = data;
    for (size_t i = 0; i < count; ++i, p += size)
        for (size_t a = 0; a < size / 2; ++a) {
            unsigned char t = p[a];
            p[a] = p[size - 1 - a];
            p[size - 1 - a] = t;
        }
}

int fx_little_endian(void) {
    uint32_t x = 0x01020304;
    return *(unsigned char *)&x == 0x04;
}

static int g_saved_fd = -1;
static char g_capture_path[4096];

void fx_capture_stderr_begin(void) {
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    snprintf(g_capture_path, sizeof g_capture_path, "%s/libscan_stderr_XXXXXX", base);
    int fd = mkstemp(g_capture_path);
    if (fd < 0) fail_msg("cannot create a capture file");
    fflush(stderr);
    g_saved_fd = dup(2);
    dup2(fd, 2);
    close(fd);
}

char *fx_capture_stderr_end(void) {
    fflush(stderr);
    dup2(g_saved_fd, 2);
    close(g_saved_fd);
    g_saved_fd = -1;
    size_t n;
    char *text = (char *)fx_read_file(g_capture_path, &n);
    unlink(g_capture_path);
    return text;
}

int fx_dir_setup(void **state) {
    fx_dir_t *fx = calloc(1, sizeof *fx);
    if (!fx) return -1;
    fx_tmpdir(fx->dir, sizeof fx->dir);
    *state = fx;
    return 0;
}

int fx_dir_teardown(void **state) {
    fx_dir_t *fx = *state;
    fx_rmdir(fx->dir);
    free(fx);
    return 0;
}
