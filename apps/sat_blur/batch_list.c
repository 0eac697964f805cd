/* batch_list.c -- the frames of a batch and the checks before it runs
 * (batch_list.h). */
#define _POSIX_C_SOURCE 200809L
#include "batch_list.h"
#include "common/cli.h"
#include "common/image_io.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* dir + "/" + name (trailing slashes of dir dropped, "/" kept), malloc'd. */
static char *join(const char *dir, const char *name) {
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') --dl;
    const bool root = dl == 1 && dir[0] == '/';
    const size_t n = dl + (root ? 0 : 1) + strlen(name) + 1;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%.*s%s%s", (int)dl, dir, root ? "" : "/", name);
    return s;
}

static char *dup_str(const char *s) {
    const size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* The last path component, and in it the dot of the extension (NULL when
 * there is none: no dot, or only a leading one). */
static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
static const char *extension_dot(const char *base) {
    const char *dot = strrchr(base, '.');
    return dot && dot != base && dot[1] ? dot : NULL;
}

/* An image file of a folder: by its name (.png, .jpg, .jpeg; not hidden, so
 * the temporary files of outputs being written are never taken). */
static bool image_name(const char *name) {
    if (name[0] == '.') return false;
    const char *dot = extension_dot(name);
    return dot && (strcasecmp(dot, ".png") == 0 || strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct builder {
    batch_list_t *list;
    size_t cap;
    const batch_spec_t *spec;
    char *err;
    size_t errlen;
} builder_t;

static int oom(builder_t *b) {
    snprintf(b->err, b->errlen, "out of memory for the list of frames");
    return APP_EXIT_INTERNAL;
}

/* Adds frame `in` with its output and depth map names. */
static int add_frame(builder_t *b, const char *in) {
    batch_list_t *l = b->list;
    if (l->count == b->cap) {
        const size_t cap = b->cap ? 2 * b->cap : 64;
        batch_item_t *items = realloc(l->items, cap * sizeof *items);
        if (!items) return oom(b);
        l->items = items;
        b->cap = cap;
    }
    const char *base = base_name(in), *dot = extension_dot(base);
    const size_t stem = dot ? (size_t)(dot - base) : strlen(base);
    const char *ext = b->spec->format ? b->spec->format : (dot ? dot + 1 : NULL);
    if (!ext) {
        snprintf(b->err, b->errlen, "%s: no extension to take the output format from (give --format png|jpg)", in);
        return APP_EXIT_USAGE;
    }
    const size_t n = stem + 1 + strlen(ext) + 5; /* + ".png" for the depth map */
    char *name = malloc(n);
    if (!name) return oom(b);
    batch_item_t it = {dup_str(in), NULL, NULL};
    snprintf(name, n, "%.*s.%s", (int)stem, base, ext);
    it.out = join(b->spec->outdir, name);
    if (b->spec->depth_dir) {
        snprintf(name, n, "%.*s.png", (int)stem, base);
        it.depth = join(b->spec->depth_dir, name);
    }
    free(name);
    if (!it.in || !it.out || (b->spec->depth_dir && !it.depth)) {
        free(it.in);
        free(it.out);
        free(it.depth);
        return oom(b);
    }
    l->items[l->count++] = it;
    if (img_format_from_path(it.out) == IMG_FORMAT_UNKNOWN) {
        snprintf(b->err, b->errlen, "%s: cannot write '.%s' files (give --format png|jpg)", in, ext);
        return APP_EXIT_USAGE;
    }
    return APP_EXIT_OK;
}

/* Adds the image files of folder `dir`, sorted by name. */
static int add_folder(builder_t *b, const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(b->err, b->errlen, "%s: cannot read the folder: %s", dir, strerror(errno));
        return APP_EXIT_USAGE;
    }
    char **paths = NULL;
    size_t n = 0, cap = 0;
    int rc = APP_EXIT_OK;
    errno = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL; errno = 0) {
        if (!image_name(e->d_name)) continue;
        char *p = join(dir, e->d_name);
        struct stat st;
        if (!p) {
            rc = oom(b);
            break;
        }
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) { /* a folder named x.png, a dangling link */
            free(p);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **np = realloc(paths, cap * sizeof *np);
            if (!np) {
                free(p);
                rc = oom(b);
                break;
            }
            paths = np;
        }
        paths[n++] = p;
    }
    if (rc == APP_EXIT_OK && errno != 0) {
        snprintf(b->err, b->errlen, "%s: cannot read the folder: %s", dir, strerror(errno));
        rc = APP_EXIT_USAGE;
    }
    closedir(d);
    if (rc == APP_EXIT_OK && n == 0) {
        snprintf(b->err, b->errlen, "%s: no image files (.png, .jpg, .jpeg) in this folder", dir);
        rc = APP_EXIT_USAGE;
    }
    /* Full paths share the folder's prefix, so they sort as the names do. */
    if (rc == APP_EXIT_OK) qsort(paths, n, sizeof *paths, cmp_str);
    for (size_t i = 0; i < n; ++i) {
        if (rc == APP_EXIT_OK) rc = add_frame(b, paths[i]);
        free(paths[i]);
    }
    free(paths);
    return rc;
}

/* ---- the checks over the whole list ---------------------------------------- */

typedef struct file_id {
    dev_t dev;
    ino_t ino;
    const char *name, *what;
} file_id_t;

static int cmp_id(const void *a, const void *b) {
    const file_id_t *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    return 0;
}

static int cmp_out(const void *a, const void *b) {
    const batch_item_t *x = *(const batch_item_t *const *)a, *y = *(const batch_item_t *const *)b;
    return strcmp(x->out, y->out);
}

/* Two frames with one output. Outputs are all OUTDIR + "/" + a name without
 * a slash, so equal files have equal strings. */
static int check_clashes(builder_t *b) {
    const batch_list_t *l = b->list;
    const batch_item_t **by_out = malloc(l->count * sizeof *by_out);
    if (!by_out) return oom(b);
    for (size_t i = 0; i < l->count; ++i) by_out[i] = &l->items[i];
    qsort(by_out, l->count, sizeof *by_out, cmp_out);
    int rc = APP_EXIT_OK;
    for (size_t i = 1; i < l->count && rc == APP_EXIT_OK; ++i)
        if (strcmp(by_out[i - 1]->out, by_out[i]->out) == 0) {
            /* Name them in command-line order. */
            const batch_item_t *x = by_out[i - 1] < by_out[i] ? by_out[i - 1] : by_out[i];
            const batch_item_t *y = x == by_out[i] ? by_out[i - 1] : by_out[i];
            snprintf(b->err, b->errlen, "%s and %s would both be written to %s", x->in, y->in, x->out);
            rc = APP_EXIT_USAGE;
        }
    free(by_out);
    return rc;
}

/* An output that is an existing input or depth map (any name for it: links,
 * "./x"), found by device and inode. */
static int check_overwrites(builder_t *b) {
    const batch_list_t *l = b->list;
    const size_t cap = 2 * l->count + 1;
    file_id_t *ids = malloc(cap * sizeof *ids);
    if (!ids) return oom(b);
    size_t n = 0;
    struct stat st;
    for (size_t i = 0; i < l->count; ++i) {
        if (stat(l->items[i].in, &st) == 0) ids[n++] = (file_id_t){st.st_dev, st.st_ino, l->items[i].in, "input"};
        if (l->items[i].depth && stat(l->items[i].depth, &st) == 0)
            ids[n++] = (file_id_t){st.st_dev, st.st_ino, l->items[i].depth, "depth map"};
    }
    if (b->spec->shared_depth && stat(b->spec->shared_depth, &st) == 0)
        ids[n++] = (file_id_t){st.st_dev, st.st_ino, b->spec->shared_depth, "depth map"};
    qsort(ids, n, sizeof *ids, cmp_id);
    int rc = APP_EXIT_OK;
    for (size_t i = 0; i < l->count && rc == APP_EXIT_OK; ++i) {
        if (stat(l->items[i].out, &st) != 0) continue;
        const file_id_t key = {st.st_dev, st.st_ino, NULL, NULL};
        const file_id_t *hit = n ? bsearch(&key, ids, n, sizeof *ids, cmp_id) : NULL;
        if (hit) {
            snprintf(b->err, b->errlen, "%s: would overwrite the %s %s (batch mode never overwrites its inputs)",
                     l->items[i].out, hit->what, hit->name);
            rc = APP_EXIT_USAGE;
        }
    }
    free(ids);
    return rc;
}

/* ---- the API ------------------------------------------------------------------ */

int batch_list_build(const batch_spec_t *spec, batch_list_t *list, char *err, size_t errlen) {
    memset(list, 0, sizeof *list);
    builder_t b = {list, 0, spec, err, errlen};
    struct stat out_st, st;
    int rc = APP_EXIT_OK;
    if (stat(spec->outdir, &out_st) != 0) {
        snprintf(err, errlen, "%s: no such output folder (-o names a folder that must exist)", spec->outdir);
        return APP_EXIT_USAGE;
    }
    if (!S_ISDIR(out_st.st_mode)) {
        snprintf(err, errlen, "%s: not a folder (-o names the folder the frames are written to)", spec->outdir);
        return APP_EXIT_USAGE;
    }
    for (int i = 0; i < spec->ninputs && rc == APP_EXIT_OK; ++i) {
        const char *in = spec->inputs[i];
        if (stat(in, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (st.st_dev == out_st.st_dev && st.st_ino == out_st.st_ino) {
                snprintf(err, errlen, "%s: the output folder is the input folder (give -o another folder)", in);
                rc = APP_EXIT_USAGE;
            } else {
                rc = add_folder(&b, in);
            }
        } else { /* a file; one that cannot be read fails as its frame */
            rc = add_frame(&b, in);
        }
    }
    if (rc == APP_EXIT_OK) rc = check_clashes(&b);
    if (rc == APP_EXIT_OK) rc = check_overwrites(&b);
    if (rc != APP_EXIT_OK) batch_list_free(list);
    return rc;
}

void batch_list_print(const batch_list_t *list, FILE *to) {
    for (size_t i = 0; i < list->count; ++i) {
        const batch_item_t *it = &list->items[i];
        if (it->depth) fprintf(to, "%s -> %s, depth %s\n", it->in, it->out, it->depth);
        else fprintf(to, "%s -> %s\n", it->in, it->out);
    }
}

void batch_list_free(batch_list_t *list) {
    for (size_t i = 0; i < list->count; ++i) {
        free(list->items[i].in);
        free(list->items[i].out);
        free(list->items[i].depth);
    }
    free(list->items);
    memset(list, 0, sizeof *list);
}
