/* png_read.c -- img_read_png: every PNG through libpng, with libpng's
 * errors caught by setjmp and turned into one message naming the file. A
 * well-formed file's image data is inflated by libdeflate first and handed
 * to libpng stored (png_inflate.h); anything else goes through libpng alone. */
#define _POSIX_C_SOURCE 200809L
#include "common/image_io.h"
#include "image_private.h"
#include "common/bulk_mem.h"
#include "common/cli.h"
#include "png_inflate.h"
#include "png_unfilter.h"

#include <png.h>
#include <zlib.h>

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Everything the error path must see lives here rather than in locals, so
 * nothing depends on the value of a non-volatile local after longjmp. */
typedef struct read_ctx {
    FILE *f;
    png_inflate_t *fast; /* the stream libpng reads when not NULL (else f) */
    uint64_t max_pixels; /* the limit on width * height */
    unsigned char *pixels;
    png_bytep *rows;
    int own_msg;       /* msg was written by us (already worded), not by libpng */
    char msg[256];     /* the first error */
    char warning[160]; /* the first libpng warning (explains "Invalid IHDR data") */
} read_ctx;

static void on_error(png_structp png, png_const_charp msg)
{
    read_ctx *c = (read_ctx *)png_get_error_ptr(png);
    if (!c->msg[0])
        snprintf(c->msg, sizeof c->msg, "%s", msg ? msg : "unknown libpng error");
    png_longjmp(png, 1);
}

/* libpng must not print: warnings are kept (the first one) for the message. */
static void on_warning(png_structp png, png_const_charp msg)
{
    read_ctx *c = (read_ctx *)png_get_error_ptr(png);
    if (!c->warning[0] && msg)
        snprintf(c->warning, sizeof c->warning, "%s", msg);
}

static void on_read(png_structp png, png_bytep data, size_t len)
{
    read_ctx *c = (read_ctx *)png_get_io_ptr(png);
    size_t got = c->fast ? png_inflate_read(c->fast, data, len) : fread(data, 1, len, c->f);
    if (got == len)
        return;
    if (!c->msg[0]) {
        c->own_msg = 1;
        if (!c->fast && ferror(c->f))
            snprintf(c->msg, sizeof c->msg, "read error: %s", strerror(errno));
        else
            snprintf(c->msg, sizeof c->msg, "truncated file (ends before the image is complete)");
    }
    png_error(png, c->msg);
}

static uint32_t be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* After a libpng error: walk the file's chunks and check every CRC. libpng
 * inflates IDAT data before it reaches the chunk's CRC, so a damaged IDAT
 * shows up as a zlib error first; this names the real cause. Returns 1 and
 * fills type/offset for the first chunk whose CRC does not match. */
static int find_bad_crc(FILE *f, char type[17], long *offset)
{
    unsigned char buf[65536];
    if (fseek(f, 8, SEEK_SET) != 0)
        return 0;
    long off = 8;
    for (;;) {
        unsigned char hdr[8];
        if (fread(hdr, 1, 8, f) != 8)
            return 0;
        uint32_t len = be32(hdr);
        if (len > 0x7fffffffu)
            return 0;
        uLong crc = crc32(crc32(0L, Z_NULL, 0), hdr + 4, 4);
        for (uint32_t left = len; left > 0;) {
            size_t n = left < sizeof buf ? left : sizeof buf;
            if (fread(buf, 1, n, f) != n)
                return 0;
            crc = crc32(crc, buf, (uInt)n);
            left -= (uint32_t)n;
        }
        unsigned char stored[4];
        if (fread(stored, 1, 4, f) != 4)
            return 0;
        if (be32(stored) != (uint32_t)crc) {
            /* The chunk type is file content: escaped (app_escape) for the
               message. */
            app_escape(hdr + 4, 4, type, 17);
            *offset = off;
            return 1;
        }
        if (memcmp(hdr + 4, "IEND", 4) == 0)
            return 0;
        off += 12 + (long)len;
    }
}

/* The message for an error that libpng raised (c->own_msg == 0). */
static void format_libpng_error(const read_ctx *c, const char *path, char *err, size_t errlen)
{
    char type[17]; /* 4 bytes, each up to 4 escaped */
    long off = 0;
    if (find_bad_crc(c->f, type, &off))
        img__err(err, errlen, "%s: corrupt PNG file (CRC error in the %s chunk at byte %ld)", path, type, off);
    else if (strstr(c->msg, "CRC error"))
        img__err(err, errlen, "%s: corrupt PNG file (%s)", path, c->msg);
    else if (strstr(c->msg, "IHDR") && c->warning[0])
        img__err(err, errlen, "%s: invalid PNG header (%s)", path, c->warning);
    else
        img__err(err, errlen, "%s: invalid PNG file (%s)", path, c->msg);
}

int img_read_png(const char *path, uint64_t max_pixels, img_t *out, char *err, size_t errlen)
{
    if (!out) {
        img__err(err, errlen, "img_read_png: no output image given");
        return -1;
    }
    img_init(out);
    if (!path || !path[0]) {
        img__err(err, errlen, "img_read_png: no file name given");
        return -1;
    }
    read_ctx c;
    memset(&c, 0, sizeof c);
    c.max_pixels = max_pixels ? max_pixels : IMG_DEFAULT_MAX_PIXELS;
    c.f = fopen(path, "rb");
    if (!c.f) {
        img__err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(c.f), &st) != 0) {
        img__err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        fclose(c.f);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        img__err(err, errlen, "%s: is a directory, not a PNG file", path);
        fclose(c.f);
        return -1;
    }

    /* The signature first, by hand: a clear message for non-PNG input. */
    unsigned char sig[8];
    size_t nsig = fread(sig, 1, sizeof sig, c.f);
    if (nsig < sizeof sig) {
        if (ferror(c.f))
            img__err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        else if (nsig == 0)
            img__err(err, errlen, "%s: empty file, not a PNG file", path);
        else if (png_sig_cmp(sig, 0, nsig) == 0)
            img__err(err, errlen, "%s: truncated file (%zu bytes, inside the PNG signature)", path, nsig);
        else
            img__err(err, errlen, "%s: not a PNG file (bad signature)", path);
        fclose(c.f);
        return -1;
    }
    if (png_sig_cmp(sig, 0, sizeof sig) != 0) {
        img__err(err, errlen, "%s: not a PNG file (bad signature)", path);
        fclose(c.f);
        return -1;
    }

    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        img__err(err, errlen, "%s: out of memory (libpng)", path);
        png_destroy_read_struct(png ? &png : NULL, NULL, NULL);
        fclose(c.f);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        if (c.own_msg)
            img__err(err, errlen, "%s: %s", path, c.msg);
        else
            format_libpng_error(&c, path, err, errlen);
        png_destroy_read_struct(&png, &info, NULL);
        png_inflate_close(c.fast);
        free(c.rows);
        free(c.pixels);
        fclose(c.f);
        img_init(out);
        return -1;
    }
    c.fast = png_inflate_open(c.f, c.max_pixels);
    if (c.fast) {
        /* Both checksums were verified on the original chunks. The stored
           copy libpng reads has no chunk CRCs (png_inflate.h), so those
           checks go; its Adler-32 is the original's (same uncompressed
           bytes), so skipping that check only saves time, where this libpng
           can (PNG_IGNORE_ADLER32 is optional since 1.6.43: Ubuntu 24.04's
           lacks it). Read one stored block (one IDAT chunk) per call. */
        png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
#ifdef PNG_IGNORE_ADLER32
        png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
        png_set_compression_buffer_size(png, 65536 + 16);
    }
    png_set_read_fn(png, &c, on_read);
    png_set_sig_bytes(png, (int)sizeof sig);
    /* Any size the format allows gets past libpng; max_pixels decides below. */
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    /* Skip every ancillary chunk but tRNS unread (num_chunks -1 is libpng's
       "all of them"): nothing here uses gAMA, iCCP, sPLT, text and the rest,
       and libpng buffers such a chunk at the size its length field claims
       before it finds the file too short (fuzzing: a 58-byte file made it
       ask for 1.9 GB through sPLT). */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);

    png_read_info(png, info); /* IHDR and the chunks up to the first IDAT */
    png_uint_32 w = 0, h = 0;
    int depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, info, &w, &h, &depth, &color_type, &interlace, NULL, NULL);
    if ((uint64_t)w * (uint64_t)h > c.max_pixels) {
        snprintf(c.msg, sizeof c.msg, "image too large: %lux%lu = %llu pixels, the limit is %llu",
                 (unsigned long)w, (unsigned long)h, (unsigned long long)((uint64_t)w * h),
                 (unsigned long long)c.max_pixels);
        c.own_msg = 1;
        png_longjmp(png, 1);
    }

    out->source_bits = depth;
    out->source_color_type = color_type;
    out->interlaced = (interlace != PNG_INTERLACE_NONE);
    out->was_palette = (color_type == PNG_COLOR_TYPE_PALETTE);

    if (color_type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png); /* scales to 0..255 */
    if (png_get_valid(png, info, PNG_INFO_tRNS)) {
        png_set_tRNS_to_alpha(png);
        out->had_trns = 1;
    }
    if (depth == 16 && img__little_endian())
        png_set_swap(png);
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);

    int channels = png_get_channels(png, info);
    int bits = png_get_bit_depth(png, info);
    size_t rowbytes = png_get_rowbytes(png, info);
    if (channels < 1 || channels > 4 || (bits != 8 && bits != 16) ||
        rowbytes != (size_t)w * (size_t)channels * (size_t)(bits / 8)) {
        snprintf(c.msg, sizeof c.msg, "unsupported layout after conversion (%d channels, %d bits)", channels, bits);
        c.own_msg = 1;
        png_longjmp(png, 1);
    }
    c.pixels = (unsigned char *)app_bulk_alloc(rowbytes * (size_t)h);
    c.rows = (png_bytep *)malloc(sizeof(png_bytep) * (size_t)h);
    if (!c.pixels || !c.rows) {
        snprintf(c.msg, sizeof c.msg, "out of memory for a %lux%lu image", (unsigned long)w, (unsigned long)h);
        c.own_msg = 1;
        png_longjmp(png, 1);
    }
    /* The direct path: rows that need no conversion but the byte swap
       (8 or 16 bits, gray, gray+alpha, RGB, RGBA, no tRNS, not interlaced)
       are unfiltered here from the inflated data (png_unfilter.h), and
       libpng reads nothing more. Anything else, or a bad filter type, goes
       through libpng as before, which reports it. */
    size_t direct_len = 0;
    const uint8_t *direct = (interlace == PNG_INTERLACE_NONE && color_type != PNG_COLOR_TYPE_PALETTE && depth >= 8 &&
                             !out->had_trns)
                                ? png_inflate_direct(c.fast, &direct_len)
                                : NULL;
    if (!direct || direct_len != (rowbytes + 1) * (size_t)h ||
        png_unfilter(direct, h, rowbytes, (unsigned)(channels * bits / 8), depth == 16 && img__little_endian(),
                     c.pixels) != 0) {
        for (png_uint_32 y = 0; y < h; ++y)
            c.rows[y] = c.pixels + (size_t)y * rowbytes;
        png_read_image(png, c.rows);
        png_read_end(png, NULL); /* checks the trailing chunks up to IEND */
    }

    png_destroy_read_struct(&png, &info, NULL);
    png_inflate_close(c.fast);
    free(c.rows);
    fclose(c.f);

    out->width = (int)w;
    out->height = (int)h;
    out->channels = channels;
    out->bits = bits;
    out->pixels = c.pixels;
    out->has_alpha = (channels == 2 || channels == 4);
    return 0;
}
