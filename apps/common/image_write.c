/* image_write.c -- img_write: PNG through libpng, JPEG/BMP/TGA through
 * stb_image_write (the implementation is in the system's libstb), always
 * into a temporary file in the destination's directory that is renamed
 * into place only when complete (cli.h's app_out_*, shared with the array
 * writer and its signal clean-up). */
#define _POSIX_C_SOURCE 200809L
#include "common/image_io.h"
#include "image_private.h"
#include "common/cli.h"

#include <png.h>
#include <stb/stb_image_write.h>

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
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

/* ---- PNG through libpng --------------------------------------------------- */

typedef struct png_sink {
    FILE *fp;
    int io_failed; /* the failure was the file's, not libpng's */
    char msg[200];
} png_sink;

static void png_on_error(png_structp png, png_const_charp msg)
{
    png_sink *s = (png_sink *)png_get_error_ptr(png);
    if (!s->msg[0])
        snprintf(s->msg, sizeof s->msg, "%s", msg ? msg : "unknown libpng error");
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png; /* libpng must not print; nothing the writer warns about matters here */
    (void)msg;
}

static void png_on_write(png_structp png, png_bytep data, size_t len)
{
    png_sink *s = (png_sink *)png_get_io_ptr(png);
    if (fwrite(data, 1, len, s->fp) != len) {
        s->io_failed = 1;
        snprintf(s->msg, sizeof s->msg, "write error: %s", strerror(errno));
        png_error(png, s->msg);
    }
}

static void png_on_flush(png_structp png)
{
    (void)png; /* app_out_commit flushes */
}

/* 0, or -1 with the reason in msg; *io set when the file failed (not the
 * encoder). */
static int write_png(FILE *fp, const img_t *img, char *msg, size_t msglen, int *io)
{
    png_sink s;
    memset(&s, 0, sizeof s);
    s.fp = fp;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s, png_on_error, png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        snprintf(msg, msglen, "out of memory (libpng)");
        png_destroy_write_struct(png ? &png : NULL, NULL);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        snprintf(msg, msglen, "%s", s.msg);
        *io = s.io_failed;
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                 PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_write_fn(png, &s, png_on_write, png_on_flush);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, img->bits, types[img->channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    /* Adaptive row filters without Paeth: Paeth's trial encodings cost about
     * a third of the encode time of a 4K image and gave no smaller files on
     * the sample scene or its blurred output (measured 2026-11-21). */
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB | PNG_FILTER_UP | PNG_FILTER_AVG);
    png_write_info(png, info);
    if (img->bits == 16 && img__little_endian())
        png_set_swap(png);
    const size_t rowbytes = (size_t)img->width * (size_t)img->channels * (size_t)(img->bits / 8);
    for (int y = 0; y < img->height; ++y)
        png_write_row(png, (png_const_bytep)img->pixels + (size_t)y * rowbytes);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

/* ---- JPEG/BMP/TGA through stb_image_write ----------------------------------- */

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

static uint8_t to8(const img_t *img, size_t i)
{
    if (img->bits == 8)
        return ((const uint8_t *)img->pixels)[i];
    uint32_t v = ((const uint16_t *)img->pixels)[i];
    return (uint8_t)((v * 255u + 32767u) / 65535u);
}

/* The 8-bit buffer stb gets: *out_ch channels. JPEG: alpha composited over
 * black in linear light; BMP: gray+alpha expanded to RGBA. */
static uint8_t *stb_pixels(const img_t *img, img_format_t fmt, int *out_ch)
{
    const int ch = img->channels;
    const int alpha = (ch == 2 || ch == 4);
    int och = ch;
    if (fmt == IMG_FORMAT_JPEG && alpha)
        och = ch - 1;
    else if (fmt == IMG_FORMAT_BMP && ch == 2)
        och = 4;
    const size_t n = img_pixel_count(img);
    uint8_t *buf = (uint8_t *)malloc(n * (size_t)och);
    if (!buf)
        return NULL;
    for (size_t i = 0; i < n; ++i) {
        const size_t s = i * (size_t)ch;
        uint8_t *o = buf + i * (size_t)och;
        if (fmt == IMG_FORMAT_JPEG && alpha) {
            float a = img->bits == 8 ? ((const uint8_t *)img->pixels)[s + ch - 1] / 255.0f
                                     : ((const uint16_t *)img->pixels)[s + ch - 1] / 65535.0f;
            for (int c = 0; c < ch - 1; ++c) {
                float l = img->bits == 8 ? img_srgb8_to_linear(((const uint8_t *)img->pixels)[s + c])
                                         : img_srgb16_to_linear(((const uint16_t *)img->pixels)[s + c]);
                o[c] = img_linear_to_srgb8(l * a);
            }
        } else if (och == 4 && ch == 2) {
            o[0] = o[1] = o[2] = to8(img, s);
            o[3] = to8(img, s + 1);
        } else {
            for (int c = 0; c < ch; ++c)
                o[c] = to8(img, s + (size_t)c);
        }
    }
    *out_ch = och;
    return buf;
}

/* Sizes each stb encoder can take: it indexes with int, and the file
 * headers hold 16-bit (TGA, JPEG) or 32-bit (BMP) sizes. */
static int stb_size_ok(const img_t *img, img_format_t fmt)
{
    uint64_t bytes = (uint64_t)img->width * (uint64_t)img->height * 4u;
    if (bytes > (uint64_t)INT_MAX)
        return 0;
    if ((fmt == IMG_FORMAT_JPEG || fmt == IMG_FORMAT_TGA) && (img->width > 65535 || img->height > 65535))
        return 0;
    return 1;
}

static int write_stb(FILE *fp, const img_t *img, img_format_t fmt, int quality, char *msg, size_t msglen, int *io)
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
    case IMG_FORMAT_JPEG: ok = stbi_write_jpg_to_func(stb_put, &s, img->width, img->height, ch, buf, quality); break;
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
    int quality = 90;
    if (opts && opts->jpeg_quality != 0) {
        if (opts->jpeg_quality < 1 || opts->jpeg_quality > 100) {
            img__err(err, errlen, "%s: JPEG quality %d out of range 1..100", path, opts->jpeg_quality);
            return -1;
        }
        quality = opts->jpeg_quality;
    }
    if (fmt != IMG_FORMAT_PNG && !stb_size_ok(img, fmt)) {
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
    int rc = fmt == IMG_FORMAT_PNG ? write_png(app_out_file(out), img, msg, sizeof msg, &io)
                                   : write_stb(app_out_file(out), img, fmt, quality, msg, sizeof msg, &io);
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
