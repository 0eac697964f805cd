/* image_io.h -- images for the libscan programs: every PNG (libpng, the
 * image data inflated by libdeflate) and JPEG (TurboJPEG) in, PNG out
 * (parallel deflate, libpng for the chunks), JPEG/BMP/TGA out (TurboJPEG or
 * nvJPEG, stb_image_write), and sRGB <-> linear light. JPEG in memory (both
 * encoders, the decoder): jpeg_io.h.
 *
 * Conventions shared by every function here:
 *   - Functions that can fail return 0 on success and -1 on failure (img_write
 *     also IMG_ERR_IO, see there). On
 *     failure they write one line (no newline) into err[errlen] when err is
 *     not NULL and errlen > 0; messages about a file start with its path,
 *     e.g. "in.png: not a PNG file (bad signature)". Nothing is printed.
 *   - Pixels are interleaved, row-major, top row first, rows packed with no
 *     padding: sample (x, y, c) is pixels[(y * width + x) * channels + c].
 *     8-bit images hold uint8_t samples, 16-bit images uint16_t samples in
 *     the machine's native byte order.
 *   - Channel layouts: 1 = gray, 2 = gray + alpha, 3 = RGB, 4 = RGBA. The
 *     alpha channel, when present, is always the last one and is straight
 *     (not premultiplied) in an img_t.
 *   - Colour samples in an img_t are sRGB-encoded; alpha is linear.
 *   - No global state of their own: the functions are safe to call from
 *     several threads on different images (img_write registers its
 *     temporary file in cli.h's signal clean-up table, which is safe for
 *     that too).
 * C99-clean, usable from C and C++. */
#ifndef LIBSCAN_APPS_IMAGE_IO_H
#define LIBSCAN_APPS_IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Default limit on width * height for img_read_png (2^28 pixels). */
#define IMG_DEFAULT_MAX_PIXELS ((uint64_t)1 << 28)

/* PNG colour types as stored in a file (the values of the PNG standard),
 * for img_t.source_color_type; IMG_SOURCE_NONE for images not read from a PNG. */
enum {
    IMG_SOURCE_NONE = -1,
    IMG_SOURCE_GRAY = 0,
    IMG_SOURCE_RGB = 2,
    IMG_SOURCE_PALETTE = 3,
    IMG_SOURCE_GRAY_ALPHA = 4,
    IMG_SOURCE_RGBA = 6
};

/* An image in memory. Zero-initialise (or img_init) before use; release
 * with img_free. */
typedef struct img {
    int width;     /* pixels per row, >= 1 */
    int height;    /* rows, >= 1 */
    int channels;  /* 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA */
    int bits;      /* bits per sample in memory: 8 (uint8_t) or 16 (uint16_t) */
    void *pixels;  /* malloc'd, width * height * channels samples (img_free releases it) */

    /* What the file held (filled in by img_read_png; img_alloc sets
     * has_alpha from channels and the rest to "not from a file"). */
    int has_alpha;         /* 1 when channels is 2 or 4 (alpha channel present) */
    int was_palette;       /* 1 when the PNG was palette-based (expanded to RGB/RGBA) */
    int had_trns;          /* 1 when a tRNS chunk was turned into the alpha channel */
    int interlaced;        /* 1 when the PNG was Adam7-interlaced */
    int source_bits;       /* bit depth in the file: 1, 2, 4, 8 or 16 (0 when not from a file) */
    int source_color_type; /* IMG_SOURCE_* (IMG_SOURCE_NONE for a JPEG) */
    int source_format;     /* the file's img_format_t: IMG_FORMAT_JPEG (img_read_jpeg), IMG_FORMAT_PNG
                              (img_read; img_read_png alone leaves it 0), 0 when not from a file */
    int source_subsampling; /* JPEG only: the file's img_jpeg_subsampling_t (IMG_JPEG_SUB_GRAY for a
                               one-component JPEG, IMG_JPEG_SUB_OTHER for CMYK/YCCK or unusual
                               factors); 0 otherwise */
} img_t;

/* Output formats, chosen from the file name's extension. */
typedef enum img_format {
    IMG_FORMAT_UNKNOWN = 0,
    IMG_FORMAT_PNG = 1,  /* .png: 8 or 16 bits kept, all four channel layouts (see img_write) */
    IMG_FORMAT_JPEG = 2, /* .jpg, .jpeg: TurboJPEG (or nvJPEG, see img_write_opts_t), 8-bit, no alpha
                            (see img_write); gray is a one-component (grayscale) JPEG */
    IMG_FORMAT_BMP = 3,  /* .bmp: stb_image_write, 8-bit; 24-bit, or 32-bit with alpha */
    IMG_FORMAT_TGA = 4   /* .tga: stb_image_write, 8-bit, RLE-compressed, alpha kept */
} img_format_t;

/* PNG compression: the zlib level img_write uses by default (see
 * img_write_opts_t.png_compression), and the value that asks for none. */
#define IMG_PNG_DEFAULT_LEVEL 5
#define IMG_PNG_NO_COMPRESSION (-1)

/* JPEG chroma subsampling: how many colour (Cb, Cr) samples a JPEG keeps
 * per luma sample. Writing takes DEFAULT, 420, 422 or 444; reading reports
 * what the file had in img_t.source_subsampling. */
typedef enum img_jpeg_subsampling {
    IMG_JPEG_SUB_DEFAULT = 0, /* writing: 4:2:0, as PIL and libjpeg's cjpeg do */
    IMG_JPEG_SUB_420 = 1,     /* colour at half resolution both ways */
    IMG_JPEG_SUB_422 = 2,     /* colour at half horizontal resolution */
    IMG_JPEG_SUB_444 = 3,     /* colour at full resolution */
    IMG_JPEG_SUB_GRAY = 4,    /* reading: a one-component JPEG */
    IMG_JPEG_SUB_440 = 5,     /* reading: half vertical resolution */
    IMG_JPEG_SUB_411 = 6,     /* reading: quarter horizontal resolution */
    IMG_JPEG_SUB_OTHER = 7    /* reading: CMYK/YCCK or factors TurboJPEG does not name */
} img_jpeg_subsampling_t;

/* What img_write did, for callers that ask (img_write_opts_t.report):
 * cleared at the start of every img_write, filled in as it goes. */
typedef struct img_write_report {
    char jpeg_encoder[16]; /* the encoder that wrote a JPEG: "TurboJPEG" or "nvJPEG"; "" for the
                              other formats */
    char note[256];        /* one line when jpeg_gpu asked for nvJPEG, nvJPEG is built in and it
                              failed (no usable GPU, an nvJPEG error): why; TurboJPEG then wrote
                              the file. "" otherwise (also when nvJPEG is not built in) */
} img_write_report_t;

/* Options of img_write. Zero-initialised options (or NULL) mean the defaults. */
typedef struct img_write_opts {
    int jpeg_quality; /* 1..100; 0 = default (90). Other values are an error. */
    int jpeg_subsampling; /* img_jpeg_subsampling_t: DEFAULT (4:2:0), 420, 422 or 444; others are an
                             error. Gray images are written as one-component JPEGs whatever it is. */
    int jpeg_gpu;     /* 1: encode JPEG with nvJPEG on the current CUDA device when the build found
                         nvJPEG (img_jpeg_gpu_built() in jpeg_io.h), with the same quality and
                         subsampling; TurboJPEG when nvJPEG is not built in or fails (the report's
                         note says why). 0: TurboJPEG. */
    img_write_report_t *report; /* NULL, or where img_write says what it did */
    int png_compression; /* zlib level 1 (fastest) .. 9 (smallest); 0 = default (IMG_PNG_DEFAULT_LEVEL);
                            IMG_PNG_NO_COMPRESSION = stored, unfiltered (zlib level 0). Other values are an
                            error. */
    int threads;         /* PNG encoder threads: 0 = one per usable CPU (at most one per band of rows);
                            1 = the calling thread only. Negative is an error. The file's bytes do not
                            depend on it. */
} img_write_opts_t;

/* ---- images in memory ---------------------------------------------------- */

/* Set every field to "empty" (pixels NULL). */
void img_init(img_t *img);

/* Allocate an image of width x height x channels samples of `bits` bits
 * (8 or 16), pixels zeroed. width, height >= 1; channels 1..4. Any previous
 * contents of *img are overwritten without being freed. Returns 0, or -1
 * (bad argument, size overflow, out of memory) with *img left empty. */
int img_alloc(img_t *img, int width, int height, int channels, int bits, char *err, size_t errlen);

/* Release the pixels and reset *img to empty. NULL and empty images are fine. */
void img_free(img_t *img);

/* width * height (0 for an empty image). */
size_t img_pixel_count(const img_t *img);

/* Bytes of the pixel buffer: width * height * channels * bits / 8. */
size_t img_byte_count(const img_t *img);

/* ---- reading ------------------------------------------------------------- */

/* Read a PNG or a JPEG file, whichever its first bytes say it is (the
 * extension plays no part): the PNG signature goes to img_read_png, a JPEG's
 * start-of-image marker (FF D8) to img_read_jpeg, with their conversions and
 * messages; out->source_format says which. A pipe or a device (FIFO,
 * /dev/stdin) cannot be read twice, so there the name decides: .jpg/.jpeg
 * (any case) is read as JPEG, anything else as PNG.
 * Errors (one message, starting with the path): cannot open, a directory,
 * empty file, not a PNG or JPEG file (unrecognised signature), and those of
 * the reader it picks. */
int img_read(const char *path, uint64_t max_pixels, img_t *out, char *err, size_t errlen);

/* Read a JPEG file into *out (through TurboJPEG; jpeg_io.h's img_jpeg_decode).
 *
 * max_pixels: refuse images with width * height above it (0 =
 * IMG_DEFAULT_MAX_PIXELS), checked from the frame header before the pixels
 * are allocated. Result: 8 bits per sample; a one-component (grayscale)
 * JPEG gives gray (1 channel), YCbCr and RGB JPEGs give RGB (3), and
 * CMYK/YCCK JPEGs give RGB through R = C * K / 255 (and so on), taking the
 * samples as Adobe applications store them (inverted, 255 = no ink), as
 * stb_image and ImageMagick's default conversion do. Baseline, progressive
 * and arithmetic-coded JPEGs are read; chroma is upsampled smoothly and the
 * inverse DCT is the accurate one (libjpeg's defaults). The EXIF orientation
 * and any ICC profile are ignored (as ImageMagick without -auto-orient):
 * samples are taken to be sRGB. out->source_format is IMG_FORMAT_JPEG,
 * source_bits 8, source_subsampling the file's.
 *
 * Errors (one message, starting with the path): cannot open / not readable,
 * a directory, empty file, not a JPEG file (bad signature), truncated JPEG
 * file, corrupt JPEG file (with libjpeg-turbo's reason: a bad marker,
 * corrupt entropy-coded data, 12-bit samples, ...), image too large, out of
 * memory. Any warning libjpeg-turbo raises (corrupt data it could skip) is
 * an error too: a damaged file never gives an image. */
int img_read_jpeg(const char *path, uint64_t max_pixels, img_t *out, char *err, size_t errlen);

/* Read any PNG file into *out.
 *
 * path: the file to read. max_pixels: refuse images with width * height
 * above it (0 = IMG_DEFAULT_MAX_PIXELS); the check uses the IHDR values and
 * happens before the pixel buffer (or any row buffer) is allocated.
 * out: receives the image; it is left empty (img_init) on failure.
 *
 * Every PNG is accepted: gray 1/2/4/8/16-bit, gray + alpha 8/16, RGB 8/16,
 * RGBA 8/16, palette 1/2/4/8-bit, interlaced (Adam7) or not. Conversions:
 *   - gray below 8 bits is scaled to the full 8-bit range (1-bit 1 -> 255,
 *     2-bit v -> v * 85, 4-bit v -> v * 17);
 *   - palette images become RGB, or RGBA when a tRNS chunk is present;
 *   - gray/RGB with a tRNS chunk gain an alpha channel (0 for the listed
 *     colour, full otherwise), at the image's bit depth;
 *   - 16-bit samples stay 16-bit (native byte order); everything else is 8-bit.
 * Gamma/colour-space chunks (gAMA, cHRM, iCCP, sRGB) are ignored: samples
 * are taken to be sRGB-encoded.
 *
 * Errors (one message, starting with the path): cannot open / not readable,
 * a directory, empty file, not a PNG file (bad signature), truncated file,
 * CRC error in a chunk, invalid header (zero width or height, bad bit depth,
 * ...), image too large (width x height above max_pixels), corrupt image
 * data, out of memory. libpng never prints anything. */
int img_read_png(const char *path, uint64_t max_pixels, img_t *out, char *err, size_t errlen);

/* Describe the file format an image was read from, in words, e.g.
 * "PNG 4-bit palette with tRNS, interlaced, 17x5 -> 8-bit RGBA", "JPEG
 * 4:2:0, 640x480 -> 8-bit RGB" or, for an image not read from a file,
 * "8-bit RGB 640x480". Writes at most buflen
 * bytes (always NUL-terminated when buflen > 0) and returns buf. */
const char *img_describe(const img_t *img, char *buf, size_t buflen);

/* ---- writing ------------------------------------------------------------- */

/* The output format for a path, from its extension (case-insensitive):
 * .png, .jpg/.jpeg, .bmp, .tga; IMG_FORMAT_UNKNOWN otherwise. */
img_format_t img_format_from_path(const char *path);

/* Name of a format ("PNG", "JPEG", "BMP", "TGA", "unknown"); never NULL. */
const char *img_format_name(img_format_t format);

/* Write *img to path, in the format its extension names.
 *
 * opts: NULL or zeroed for the defaults (JPEG quality 90, 4:2:0, TurboJPEG;
 * PNG zlib level IMG_PNG_DEFAULT_LEVEL, one encoder thread per CPU).
 * PNG keeps the channels and the bit depth (8 or 16), not interlaced, no
 * ancillary chunks. Each row gets the Sub, Up or Average filter (the one
 * with the smallest sum of absolute values, libpng's heuristic; none at
 * IMG_PNG_NO_COMPRESSION), and the image is cut into bands of rows of about
 * 256 KiB that are filtered and deflated on all cores into one zlib stream
 * (each band primed with the 32 KiB before it), so the output is one
 * ordinary PNG, the same bytes whatever the number of threads. JPEG, BMP and TGA are
 * 8-bit formats: 16-bit samples are converted with rounding, v8 =
 * (v16 * 255 + 32767) / 65535. Alpha handling:
 *   - JPEG has no alpha: it is dropped and the colour samples are written as
 *     they are (straight, not composited), as ImageMagick's `convert in.png
 *     out.jpg` does; gray + alpha becomes a grayscale JPEG, RGBA an RGB one;
 *   - BMP: RGB and gray are written as 24-bit, RGBA and gray + alpha as
 *     32-bit with an alpha mask (gray expanded to RGB);
 *   - TGA: gray, gray + alpha, RGB, RGBA as they are (RLE-compressed).
 *
 * Atomic: the data goes to a temporary file in the destination's directory
 * (".<name>.XXXXXX", created with mkstemp, permissions set from the umask
 * like a new file's) which is renamed over path only when everything was
 * written and flushed. On any failure the temporary file is removed and
 * path is left untouched (an existing file keeps its old contents).
 * An unknown extension, bad options or an invalid image are reported before
 * anything is created. Errors (one message naming path): unknown extension,
 * missing directory, directory not writable, path is a directory, write
 * error (e.g. disk full), encoder failure. Does not modify *img.
 * The temporary file is registered with cli.h's signal clean-up (app_out_*):
 * SIGINT, SIGTERM or SIGHUP during the write removes it. An existing device
 * or FIFO at path is written in place, never replaced (as cp does).
 *
 * Returns 0 on success; IMG_ERR_IO (-2) when writing the file failed: a write,
 * flush, close or the final rename returned an error (disk full, file
 * too large, device error; the message says "write error: <reason>"), which
 * a program reports as an I/O error (exit 2, APP_EXIT_INTERNAL); -1 for
 * everything else: bad arguments, unknown extension, bad options, the
 * directory missing or not writable, path is a directory, encoder failure
 * (a program's exit 1, bad usage or input). */
#define IMG_ERR_IO (-2)
int img_write(const char *path, const img_t *img, const img_write_opts_t *opts, char *err, size_t errlen);

/* ---- sRGB <-> linear light ------------------------------------------------- */

/* The exact sRGB transfer functions (IEC 61966-2-1) on values in [0, 1]
 * (inputs outside are clamped). */
double img_srgb_to_linear(double encoded);
double img_linear_to_srgb(double linear);

/* 8-bit sRGB sample -> linear in [0, 1], from a 256-entry table (computed
 * once with the exact formula; thread-safe). */
float img_srgb8_to_linear(uint8_t v);

/* The 256-entry table itself (never NULL). */
const float *img_srgb8_table(void);

/* Linear [0, 1] -> nearest 8-bit sRGB sample (exact formula, rounded;
 * out-of-range inputs clamped, NaN -> 0). img_linear_to_srgb8(
 * img_srgb8_to_linear(v)) == v for every v. */
uint8_t img_linear_to_srgb8(float linear);

/* 16-bit sRGB sample <-> linear, exact formula (rounded, clamped, NaN -> 0). */
float img_srgb16_to_linear(uint16_t v);
uint16_t img_linear_to_srgb16(float linear);

/* Convert a whole image to floats in [0, 1].
 *
 * out: img->width * img->height * img->channels floats, same interleaved
 * layout as the image (gray, gray+alpha, RGB or RGBA; alpha last).
 * linear: 1 = decode sRGB colour samples to linear light; 0 = keep them
 *   encoded, only scaled to [0, 1] (a program's --no-linear).
 * premultiply_alpha: 1 = multiply the colour samples by alpha (after
 *   decoding) when the image has alpha; ignored without alpha.
 * Alpha is always linear (v / max). Returns 0, or -1 for a NULL/empty image,
 * NULL out or unsupported bits. */
int img_to_linear_f32(const img_t *img, float *out, int linear, int premultiply_alpha, char *err, size_t errlen);

/* The inverse of img_to_linear_f32: fill img's pixels from floats.
 *
 * img: already allocated (img_alloc) with the wanted width, height,
 *   channels and bits (8 or 16); only its pixels are written.
 * in: img->width * img->height * img->channels floats, same layout.
 * linear, premultiplied_alpha: as given to img_to_linear_f32. With
 *   premultiplied_alpha and an alpha channel, colour is divided by alpha
 *   (colour = 0 where alpha is 0) before encoding.
 * Values are clamped to [0, 1] (NaN -> 0), encoded to sRGB when linear is 1
 * and quantised with rounding to the image's bit depth. A round trip
 * img_to_linear_f32 -> img_from_linear_f32 with the same flags reproduces
 * every 8-bit image exactly, and every 16-bit image without alpha exactly;
 * with premultiplied alpha, colour where alpha is 0 comes back as 0, and
 * 16-bit colour under a small alpha may differ by rounding.
 * Returns 0, or -1 for bad arguments. */
int img_from_linear_f32(const float *in, img_t *img, int linear, int premultiplied_alpha, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
