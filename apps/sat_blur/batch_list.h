/* batch_list.h -- the frames of `sat_blur --batch`: which files are read,
 * which are written, and the checks made before any frame is touched.
 *
 * Inputs are files, taken in the order given, or folders, which stand for
 * their image files (a name ending in .png, .jpg or .jpeg, any case, not
 * starting with '.'; regular files or links to them; not recursive) sorted
 * by name in byte order (as `LC_ALL=C ls`). Frame IN is written to
 * OUTDIR/<IN's name without its extension>.<EXT>, EXT being the format
 * asked for or else IN's own extension; with a depth folder its depth map is
 * DEPTHDIR/<the same base name>.png.
 *
 * Refused before anything is read or written (one line, APP_EXIT_USAGE):
 * an output folder that is missing or not a folder; an input folder that is
 * the output folder, or that holds no image file; an output format that
 * img_write does not know; two frames with the same output; an output that
 * is an existing input or depth map (batch mode never overwrites one). */
#ifndef LIBSCAN_SAT_BLUR_BATCH_LIST_H
#define LIBSCAN_SAT_BLUR_BATCH_LIST_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct batch_item {
    char *in, *out;
    char *depth; /* this frame's depth map, or NULL */
} batch_item_t;

typedef struct batch_list {
    batch_item_t *items;
    size_t count;
} batch_list_t;

/* What the command line gave. */
typedef struct batch_spec {
    char *const *inputs; /* files and folders */
    int ninputs;
    const char *outdir;
    const char *format;       /* output extension ("png", "jpg", ...), or NULL for each input's own */
    const char *depth_dir;    /* per-frame depth maps, or NULL */
    const char *shared_depth; /* one depth map for every frame (only checked against the outputs), or NULL */
} batch_spec_t;

/* Builds the list. Returns APP_EXIT_OK, or APP_EXIT_USAGE (APP_EXIT_INTERNAL
 * when out of memory) with one line in err and an empty list. */
int batch_list_build(const batch_spec_t *spec, batch_list_t *list, char *err, size_t errlen);

/* "IN -> OUT" per frame (", depth DEPTH" when it has one), in order. */
void batch_list_print(const batch_list_t *list, FILE *to);

void batch_list_free(batch_list_t *list);

#ifdef __cplusplus
}
#endif
#endif
