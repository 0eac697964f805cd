/* image_read.c -- img_read: PNG or JPEG by the file's first bytes, handed to
 * img_read_png or img_read_jpeg. */
#define _POSIX_C_SOURCE 200809L
#include "common/image_io.h"
#include "image_private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const unsigned char kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

/* A pipe or a device can be read once only: its name decides. */
static int name_says_jpeg(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return dot && (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0);
}

int img_read(const char *path, uint64_t max_pixels, img_t *out, char *err, size_t errlen)
{
    if (!out) {
        img__err(err, errlen, "img_read: no output image given");
        return -1;
    }
    img_init(out);
    if (!path || !path[0]) {
        img__err(err, errlen, "img_read: no file name given");
        return -1;
    }
    /* stat first: a FIFO must not be opened here (what a writer sent to
       this open would be lost to the reader's own). */
    struct stat st;
    if (stat(path, &st) != 0) {
        img__err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        img__err(err, errlen, "%s: is a directory, not an image file", path);
        return -1;
    }
    int jpeg;
    if (!S_ISREG(st.st_mode)) {
        jpeg = name_says_jpeg(path);
    } else {
        FILE *f = fopen(path, "rb");
        if (!f) {
            img__err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
            return -1;
        }
        unsigned char sig[8];
        const size_t n = fread(sig, 1, sizeof sig, f);
        const int read_failed = n < sizeof sig && ferror(f);
        const int e = errno;
        fclose(f);
        if (read_failed) {
            img__err(err, errlen, "%s: cannot read: %s", path, strerror(e));
            return -1;
        }
        if (n == 0) {
            img__err(err, errlen, "%s: empty file, not a PNG or JPEG file", path);
            return -1;
        }
        /* A file shorter than the PNG signature that starts it goes to the
           PNG reader too, which calls it truncated. */
        const int png = memcmp(sig, kPngSignature, n) == 0;
        jpeg = sig[0] == 0xff && (n == 1 || sig[1] == 0xd8);
        if (!png && !jpeg) {
            img__err(err, errlen, "%s: not a PNG or JPEG file (unrecognised signature)", path);
            return -1;
        }
    }
    if (jpeg)
        return img_read_jpeg(path, max_pixels, out, err, errlen);
    if (img_read_png(path, max_pixels, out, err, errlen) != 0)
        return -1;
    out->source_format = IMG_FORMAT_PNG;
    return 0;
}
