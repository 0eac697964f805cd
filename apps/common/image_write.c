/* image_write.c -- img_write: PNG through png_write.c (parallel deflate,
 * libpng for the chunks), JPEG through jpeg_write.c (TurboJPEG or nvJPEG),
 * BMP/TGA through stb_image_write (the
 * implementation is in the system's libstb), always
 * into a temporary file in the destination's directory that is renamed
 * into place only when complete (cli.h's app_out_*, shared with the array
 * writer and its signal clean-up). */
#define _POSIX_C_SOURCE 200809L
#include "common/image_io.h"
#include "image_private.h"
#include "jpeg_private.h"
#include "common/cli.h"

#include <stb/stb_image_write.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the output file --------------------------------------------------------
 *
 * Through cli.h's app_out_*, as the array writer: a temporary file beside
 * the target, registered with the SIGINT/SIGTERM/SIGHUP clean-up (so an
 * interrupted sat_blur leaves no ".NAME.XXXXXX" behind), renamed into place
 * at commit; an existing device or FIFO is written in place instead. */

/* The message for a failed app_out_open(), worded for images (e) is the
 * errno it left): name the directory, since that is what is missing or not
 * writable. */
static void describe_open_error(const char *path, int e, const char *out_msg, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0; /* includes the '/' */
    char dir[PATH_MAX];
    if (dirlen == 0)
        snprintf(dir, sizeof dir, ".");
    else if (dirlen == 1)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(dirlen - 1), path);
    struct stat st;
    if (e == EISDIR || e == ENAMETOOLONG || e == ENOMEM || e == EMFILE || e == ENXIO)
        img__err(err, errlen, "%s", out_msg); /* app_out's own words name the path */
    else if (stat(dir, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
        img__err(err, errlen, "%s: cannot write: directory '%s' does not exist", path, dir);
    else if (e == ENOTDIR || (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)))
        img__err(err, errlen, "%s: cannot write: '%s' is not a directory", path, dir);
    else if (e == EACCES || e == EPERM || e == EROFS)
        img__err(err, errlen, "%s: cannot write: directory '%s' is not writable (%s)", path, dir, strerror(e));
    else
        img__err(err, errlen, "%s: cannot write a file in '%s': %s", path, dir, strerror(e));
}

/* ---- BMP/TGA through stb_image_write ---------------------------------------- */

typedef struct stb_sink {
    FILE *fp;
    int failed;
    int err;
} stb_sink;

static void stb_put(void *ctx, void *data, int size)
{
    stb_sink *s = (stb_sink *)ctx;
    if (s->failed || size <= 0)
        return;
    if (fwrite(data, 1, (size_t)size, s->fp) != (size_t)size) {
        s->failed = 1;
        s->err = errno;
    }
}

/* The 8-bit buffer stb gets: *out_ch channels. BMP: gray+alpha expanded to
 * RGBA. */
static uint8_t *stb_pixels(const img_t *img, img_format_t fmt, int *out_ch)
{
    const int ch = img->channels;
    int och = ch;
    if (fmt == IMG_FORMAT_BMP && ch == 2)
        och = 4;
    const size_t n = img_pixel_count(img);
    uint8_t *buf = (uint8_t *)malloc(n * (size_t)och);
    if (!buf)
        return NULL;
    for (size_t i = 0; i < n; ++i) {
        const size_t s = i * (size_t)ch;
        uint8_t *o = buf + i * (size_t)och;
        if (och == 4 && ch == 2) {
            o[0] = o[1] = o[2] = img__sample8(img, s);
            o[3] = img__sample8(img, s + 1);
        } else {
            for (int c = 0; c < ch; ++c)
                o[c] = img__sample8(img, s + (size_t)c);
        }
    }
    *out_ch = och;
    return buf;
}

/* Sizes each stb encoder can take: it indexes with int, and the file
 * headers hold 16-bit (TGA) or 32-bit (BMP) sizes. */
static int stb_size_ok(const img_t *img, img_format_t fmt)
{
    uint64_t bytes = (uint64_t)img->width * (uint64_t)img->height * 4u;
    if (bytes > (uint64_t)INT_MAX)
        return 0;
    if (fmt == IMG_FORMAT_TGA && (img->width > 65535 || img->height > 65535))
        return 0;
    return 1;
}

static int write_stb(FILE *fp, const img_t *img, img_format_t fmt, char *msg, size_t msglen, int *io)
{
    int ch = 0;
    uint8_t *buf = stb_pixels(img, fmt, &ch);
    if (!buf) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    stb_sink s = {fp, 0, 0};
    int ok = 0;
    switch (fmt) {
    case IMG_FORMAT_BMP: ok = stbi_write_bmp_to_func(stb_put, &s, img->width, img->height, ch, buf); break;
    case IMG_FORMAT_TGA: ok = stbi_write_tga_to_func(stb_put, &s, img->width, img->height, ch, buf); break;
    default: break;
    }
    free(buf);
    if (s.failed) {
        *io = 1;
        snprintf(msg, msglen, "write error: %s", strerror(s.err));
        return -1;
    }
    if (!ok) {
        snprintf(msg, msglen, "the %s encoder failed", img_format_name(fmt));
        return -1;
    }
    return 0;
}

/* ---- img_write ------------------------------------------------------------ */

int img_write(const char *path, const img_t *img, const img_write_opts_t *opts, char *err, size_t errlen)
{
    if (opts && opts->report)
        memset(opts->report, 0, sizeof *opts->report);
    if (!path || !path[0]) {
        img__err(err, errlen, "img_write: no file name given");
        return -1;
    }
    const img_format_t fmt = img_format_from_path(path);
    if (fmt == IMG_FORMAT_UNKNOWN) {
        const char *slash = strrchr(path, '/');
        const char *dot = strrchr(slash ? slash + 1 : path, '.');
        img__err(err, errlen, "%s: unknown image format%s%s%s (use .png, .jpg, .jpeg, .bmp or .tga)", path,
                 dot ? " '" : "", dot ? dot : "", dot ? "'" : " (no extension)");
        return -1;
    }
    if (!img || !img->pixels || img->width < 1 || img->height < 1 || img->channels < 1 || img->channels > 4 ||
        (img->bits != 8 && img->bits != 16)) {
        img__err(err, errlen, "%s: cannot write an empty or invalid image", path);
        return -1;
    }
    if (img__jpeg_check_opts(path, opts, err, errlen) != 0)
        return -1;
    int png_level = 0;
    if (img__png_check_opts(path, opts, &png_level, err, errlen) != 0)
        return -1;
    if (fmt == IMG_FORMAT_JPEG && img__jpeg_check_size(path, img, err, errlen) != 0)
        return -1;
    if ((fmt == IMG_FORMAT_BMP || fmt == IMG_FORMAT_TGA) && !stb_size_ok(img, fmt)) {
        img__err(err, errlen, "%s: %dx%d is too large for the %s writer", path, img->width, img->height,
                 img_format_name(fmt));
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        img__err(err, errlen, "%s: is a directory", path);
        return -1;
    }

    char oerr[512];
    app_out_t *out = app_out_open(path, oerr, sizeof oerr);
    if (!out) {
        describe_open_error(path, errno, oerr, err, errlen);
        return -1;
    }
    char msg[200] = "";
    int io = 0;
    FILE *fp = app_out_file(out);
    const int threads = opts ? opts->threads : 0;
    int rc = fmt == IMG_FORMAT_PNG    ? img__write_png(fp, img, png_level, threads, msg, sizeof msg, &io)
             : fmt == IMG_FORMAT_JPEG ? img__jpeg_write(fp, img, opts, msg, sizeof msg, &io)
                                      : write_stb(fp, img, fmt, msg, sizeof msg, &io);
    if (rc != 0) {
        img__err(err, errlen, "%s: %s", path, msg);
        app_out_abort(out);
        return io ? IMG_ERR_IO : -1;
    }
    /* Flush, close, rename: what fails here is the file system's. */
    if (app_out_commit(out, err, errlen) != 0)
        return IMG_ERR_IO;
    return 0;
}
