/* bench_png.c -- img_write (PNG) and img_read_png against plain libpng as
 * the programs used it before issue #22, in one run. See --help. */
#define _POSIX_C_SOURCE 200809L
#include "common/image_io.h"
#include "common/png_unfilter.h"

#include <png.h>
#include <zlib.h>

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char kHelp[] =
    "Usage: bench_png [--runs N] [--levels L,...] [--threads T,...] [--photo] IMAGE.png...\n"
    "       bench_png --unfilter [--runs N] [--threads T,...] [--blocks B,...] IMAGE.png...\n"
    "\n"
    "For each image: the PNG writer before issue #22 (libpng, zlib level 6,\n"
    "adaptive Sub/Up/Average filters, one thread) against img_write at each\n"
    "level (default: the default level, then 6) and thread count (default: 1,\n"
    "2 and one per online CPU); then decoding with plain libpng against\n"
    "img_read_png. Times are medians of N runs (default 5) after a warm-up,\n"
    "writing to /dev/null; sizes from a real file. Every file written is\n"
    "decoded again with plain libpng and compared with the image. CPU ms is\n"
    "the process's CPU time (all threads): the work, which other load on a\n"
    "shared machine does not inflate.\n"
    "  --photo   instead of each image, two photograph-like 8-bit images made\n"
    "            from it: RGB with +-1 of sensor-like noise per sample, and the\n"
    "            same with an alpha ramp (RGBA). For the rendered sample scene\n"
    "            at 4K (make_scene --scale 4) this gives a 5.7 MB RGB PNG at\n"
    "            level 6, like a 4K photograph.\n"
    "  --unfilter  only png_unfilter (the reader's row filters undone) on\n"
    "            each image's inflated data, at each thread count (default: 1,\n"
    "            2, 4, 8 and 0 = its automatic choice) and block size in bytes\n"
    "            (default: 0 = its automatic choice); every output compared\n"
    "            with one thread's. Non-interlaced, 8 or 16 bits, no palette.\n"
    "Output: a markdown table on stdout.\n";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CPU time of the whole process (every thread): the work done, which the
 * other load on a shared machine does not inflate as it does wall time. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "bench_png: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    exit(1);
}

/* ---- plain libpng: the writer and reader before issue #22 ------------------- */

static jmp_buf g_jmp;
static void on_png_error(png_structp png, png_const_charp msg)
{
    (void)png;
    fprintf(stderr, "bench_png: libpng: %s\n", msg);
    longjmp(g_jmp, 1);
}
static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* What image_write.c did: level 6 (libpng's default), Z_FILTERED, filters
 * Sub/Up/Average chosen per row by libpng. */
static void libpng_write(FILE *f, const img_t *img)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, on_png_error, on_png_warning);
    png_infop info = png_create_info_struct(png);
    if (setjmp(g_jmp))
        exit(2);
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                 PNG_COLOR_TYPE_RGB_ALPHA};
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, img->bits, types[img->channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB | PNG_FILTER_UP | PNG_FILTER_AVG);
    png_write_info(png, info);
    if (img->bits == 16)
        png_set_swap(png); /* x86: little-endian */
    const size_t rb = (size_t)img->width * (size_t)img->channels * (size_t)(img->bits / 8);
    for (int y = 0; y < img->height; ++y)
        png_write_row(png, (png_const_bytep)img->pixels + (size_t)y * rb);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
}

/* What png_read.c did: libpng's own inflate, expanded to 8/16 bits. Returns
 * the pixels (malloc'd) and the image's shape. */
static uint8_t *libpng_read(const char *path, int *w, int *h, int *ch, int *bits)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open %s", path);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, on_png_error, on_png_warning);
    png_infop info = png_create_info_struct(png);
    if (setjmp(g_jmp))
        exit(2);
    png_init_io(png, f);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    png_set_expand(png);
    png_set_swap(png);
    png_read_update_info(png, info);
    *w = (int)png_get_image_width(png, info);
    *h = (int)png_get_image_height(png, info);
    *ch = png_get_channels(png, info);
    *bits = png_get_bit_depth(png, info);
    const size_t rb = png_get_rowbytes(png, info);
    uint8_t *px = (uint8_t *)malloc(rb * (size_t)*h);
    png_bytep *rows = (png_bytep *)malloc(sizeof(png_bytep) * (size_t)*h);
    for (int y = 0; y < *h; ++y)
        rows[y] = px + (size_t)y * rb;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    fclose(f);
    return px;
}

/* ---- the measurements ------------------------------------------------------- */

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The file decodes (plain libpng) to exactly img's samples. */
static void check_file(const char *path, const img_t *img)
{
    int w, h, ch, bits;
    uint8_t *px = libpng_read(path, &w, &h, &ch, &bits);
    if (w != img->width || h != img->height || ch != img->channels || bits != img->bits ||
        memcmp(px, img->pixels, img_byte_count(img)) != 0)
        die("%s does not decode to the image written", path);
    free(px);
}

typedef struct cfg {
    int runs;
    int levels[10], nlevels;
    int threads[16], nthreads;
    const char *dir; /* the run's temporary folder */
} cfg_t;

static void bench_image(const cfg_t *c, const char *name, const img_t *img)
{
    char err[512], ref_path[1100], null_png[1100], path[1100];
    double t[64], u[64];
    snprintf(ref_path, sizeof ref_path, "%s/libpng.png", c->dir);
    snprintf(null_png, sizeof null_png, "%s/null.png", c->dir);
    unlink(null_png);
    if (symlink("/dev/null", null_png) != 0)
        die("cannot make %s", null_png);

    /* before: plain libpng, level 6 */
    FILE *f = fopen(ref_path, "wb");
    libpng_write(f, img);
    fclose(f);
    check_file(ref_path, img);
    const long ref_size = file_size(ref_path);
    for (int r = -1; r < c->runs; ++r) {
        FILE *nf = fopen("/dev/null", "wb");
        const double t0 = now(), u0 = cpu_now();
        libpng_write(nf, img);
        const double dt = now() - t0, du = cpu_now() - u0;
        fclose(nf);
        if (r >= 0) {
            t[r] = dt;
            u[r] = du;
        }
    }
    const double ref_t = median(t, c->runs), ref_u = median(u, c->runs);
    const double mb = (double)img_byte_count(img) / 1e6;
    printf("| %s | libpng, level 6 (before) | 1 | %.1f | %.1f | %.1f | %ld | 1.000 | 1.00 |\n", name, ref_t * 1e3,
           ref_u * 1e3, mb / ref_t, ref_size);

    /* img_write: each level and thread count */
    for (int li = 0; li < c->nlevels; ++li)
        for (int ti = 0; ti < c->nthreads; ++ti) {
            img_write_opts_t o = {.png_compression = c->levels[li], .threads = c->threads[ti]};
            snprintf(path, sizeof path, "%s/new_%d.png", c->dir, c->levels[li]);
            if (img_write(path, img, &o, err, sizeof err) != 0)
                die("%s", err);
            check_file(path, img);
            const long size = file_size(path);
            for (int r = -1; r < c->runs; ++r) {
                const double t0 = now(), u0 = cpu_now();
                if (img_write(null_png, img, &o, err, sizeof err) != 0)
                    die("%s", err);
                const double dt = now() - t0, du = cpu_now() - u0;
                if (r >= 0) {
                    t[r] = dt;
                    u[r] = du;
                }
            }
            unlink(path);
            const double med = median(t, c->runs), cpu = median(u, c->runs);
            const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            char th[32];
            if (c->threads[ti] == 0)
                snprintf(th, sizeof th, "all (%ld)", cpus);
            else
                snprintf(th, sizeof th, "%d", c->threads[ti]);
            char lv[48];
            if (c->levels[li] == 0)
                snprintf(lv, sizeof lv, "img_write, default (%d)", IMG_PNG_DEFAULT_LEVEL);
            else
                snprintf(lv, sizeof lv, "img_write, level %d", c->levels[li]);
            printf("| %s | %s | %s | %.1f | %.1f | %.1f | %ld | %.3f | %.2f |\n", name, lv, th, med * 1e3, cpu * 1e3,
                   mb / med, size, (double)size / (double)ref_size, ref_t / med);
        }

    /* decode: the file libpng wrote, and img_write's default */
    const char *files[2] = {ref_path, path};
    snprintf(path, sizeof path, "%s/new_default.png", c->dir);
    if (img_write(path, img, NULL, err, sizeof err) != 0)
        die("%s", err);
    for (int fi = 0; fi < 2; ++fi) {
        double tl[64], tn[64];
        for (int r = -1; r < c->runs; ++r) { /* the two readers take turns */
            int w, h, ch, bits;
            double t0 = now();
            uint8_t *px = libpng_read(files[fi], &w, &h, &ch, &bits);
            const double dl = now() - t0;
            img_t got;
            t0 = now();
            if (img_read_png(files[fi], 0, &got, err, sizeof err) != 0)
                die("%s", err);
            const double dn = now() - t0;
            if (memcmp(px, got.pixels, img_byte_count(&got)) != 0 || memcmp(px, img->pixels, img_byte_count(img)))
                die("%s: the readers disagree", files[fi]);
            free(px);
            img_free(&got);
            if (r >= 0) {
                tl[r] = dl;
                tn[r] = dn;
            }
        }
        const double ml = median(tl, c->runs), mn = median(tn, c->runs);
        printf("| %s | decode %s: libpng (before) %.1f ms, img_read_png %.1f ms | | | | | %ld | | %.2f |\n", name,
               fi == 0 ? "libpng's file" : "img_write's file", ml * 1e3, mn * 1e3, file_size(files[fi]), ml / mn);
    }
    unlink(null_png);
    unlink(ref_path);
    unlink(path);
}

/* ---- png_unfilter alone ------------------------------------------------------ */

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The file's IDAT stream inflated (zlib): h rows of a filter-type byte and
 * *rowbytes bytes; *swap16 for 16-bit samples (the reader swaps those).
 * Dies on anything png_unfilter would not get. */
static uint8_t *inflated_rows(const char *path, size_t *h, size_t *rowbytes, unsigned *bpp, int *swap16)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *file = (uint8_t *)malloc((size_t)len), *idat = (uint8_t *)malloc((size_t)len);
    if (len < 33 || !file || !idat || fread(file, 1, (size_t)len, f) != (size_t)len)
        die("cannot read %s", path);
    fclose(f);
    const uint8_t *ihdr = file + 16;
    static const int channels[7] = {1, 0, 3, 0, 2, 0, 4};
    if (ihdr[9] > 6 || !channels[ihdr[9]] || (ihdr[8] != 8 && ihdr[8] != 16) || ihdr[12] != 0)
        die("%s: --unfilter needs a non-interlaced 8/16-bit PNG without a palette", path);
    *bpp = (unsigned)channels[ihdr[9]] * ihdr[8] / 8u;
    *swap16 = ihdr[8] == 16;
    *rowbytes = (size_t)be32(ihdr) * *bpp;
    *h = be32(ihdr + 4);
    size_t n = 0;
    for (long at = 8; at + 12 <= len;) {
        const uint32_t clen = be32(file + at);
        if (at + 12 + (long)clen > len)
            break;
        if (!memcmp(file + at + 4, "IDAT", 4)) {
            memcpy(idat + n, file + at + 8, clen);
            n += clen;
        }
        at += 12 + (long)clen;
    }
    uLongf out_len = (uLongf)(*h * (*rowbytes + 1));
    uint8_t *rows = (uint8_t *)malloc(out_len);
    if (!rows || uncompress(rows, &out_len, idat, (uLong)n) != Z_OK || out_len != *h * (*rowbytes + 1))
        die("%s: the image data does not inflate to its size", path);
    free(file);
    free(idat);
    return rows;
}

static void bench_unfilter(const cfg_t *c, const char *path, const size_t *blocks, int nblocks)
{
    size_t h, rowbytes;
    unsigned bpp;
    int swap16;
    uint8_t *rows = inflated_rows(path, &h, &rowbytes, &bpp, &swap16);
    int types[5] = {0};
    for (size_t y = 0; y < h; ++y)
        types[rows[y * (rowbytes + 1)] % 5]++;
    const size_t n = h * rowbytes;
    uint8_t *want = (uint8_t *)malloc(n), *got = (uint8_t *)malloc(n);
    if (!want || !got || png_unfilter_ex(rows, h, rowbytes, bpp, swap16, 1, 0, want) != 0)
        die("%s: png_unfilter failed", path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    double t[64], one = 0;
    for (int bi = 0; bi < nblocks; ++bi)
        for (int ti = 0; ti < c->nthreads; ++ti) {
            const unsigned th = (unsigned)c->threads[ti];
            for (int r = -1; r < c->runs; ++r) {
                memset(got, 0, n); /* faulted in and cold for every run alike */
                const double t0 = now();
                png_unfilter_ex(rows, h, rowbytes, bpp, swap16, th, blocks[bi], got);
                const double dt = now() - t0;
                if (r >= 0)
                    t[r] = dt;
            }
            if (memcmp(got, want, n) != 0)
                die("%s: the threaded bytes differ from one thread's", path);
            const double med = median(t, c->runs);
            if (ti == 0 && bi == 0)
                one = med;
            char tl[32];
            if (th == 0)
                snprintf(tl, sizeof tl, "auto (%u)", png_unfilter_threads(h, rowbytes));
            else
                snprintf(tl, sizeof tl, "%u", th);
            printf("| %s %zux%zu bpp %u (types 0-4: %d %d %d %d %d) | %s | %zu | %.2f | %.2f | %.2f |\n", base,
                   rowbytes / bpp, h, bpp, types[0], types[1], types[2], types[3], types[4], tl, blocks[bi],
                   med * 1e3, (double)n / 1e6 / med / 1e3, one / med);
        }
    free(rows);
    free(want);
    free(got);
}

/* A photograph-like image from a render: +-1 of noise per sample (sum of
 * two uniform draws, deterministic), optionally an alpha ramp. */
static void photo(const img_t *src, int alpha, img_t *out)
{
    char err[256];
    if (src->bits != 8 || src->channels != 3)
        die("--photo needs an 8-bit RGB image, not %s", "this one");
    if (img_alloc(out, src->width, src->height, alpha ? 4 : 3, 8, err, sizeof err) != 0)
        die("%s", err);
    uint32_t x = 12345;
    const uint8_t *s = (const uint8_t *)src->pixels;
    uint8_t *o = (uint8_t *)out->pixels;
    const size_t n = img_pixel_count(src), och = (size_t)out->channels;
    for (size_t p = 0; p < n; ++p) {
        for (size_t c = 0; c < 3; ++c) {
            int noise = 0;
            for (int k = 0; k < 2; ++k) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                noise += (int)(x % 3u) - 1;
            }
            int v = s[p * 3 + c] + noise / 2;
            o[p * och + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
        if (alpha)
            o[p * och + 3] = (uint8_t)(255 - (p % (size_t)src->width) * 7 / (size_t)src->width * 30);
    }
}

static int parse_list(const char *s, int *out, int cap, int lo, int hi)
{
    int n = 0;
    while (*s && n < cap) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < lo || v > hi)
            return -1;
        out[n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return n;
}

int main(int argc, char **argv)
{
    cfg_t c = {.runs = 5, .levels = {0, 6}, .nlevels = 2, .threads = {1, 2, 0}, .nthreads = 3};
    int photo_mode = 0, unfilter_mode = 0, first = argc, nblocks = 1, threads_given = 0;
    size_t blocks[16] = {0};
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(kHelp, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            c.runs = atoi(argv[++i]);
            if (c.runs < 1 || c.runs > 64)
                die("--runs %s: want 1..64", argv[i]);
        } else if (!strcmp(argv[i], "--levels") && i + 1 < argc) {
            if ((c.nlevels = parse_list(argv[++i], c.levels, 10, -1, 9)) <= 0)
                die("--levels %s: want values in -1..9 (0: default, -1: none)", argv[i]);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if ((c.nthreads = parse_list(argv[++i], c.threads, 16, 0, 256)) <= 0)
                die("--threads %s: want values in 0..256 (0: one per CPU)", argv[i]);
            threads_given = 1;
        } else if (!strcmp(argv[i], "--blocks") && i + 1 < argc) {
            int b[16];
            if ((nblocks = parse_list(argv[++i], b, 16, 0, 1 << 24)) <= 0)
                die("--blocks %s: want values in 0..16777216 (0: automatic)", argv[i]);
            for (int k = 0; k < nblocks; ++k)
                blocks[k] = (size_t)b[k];
        } else if (!strcmp(argv[i], "--unfilter")) {
            unfilter_mode = 1;
        } else if (!strcmp(argv[i], "--photo")) {
            photo_mode = 1;
        } else if (argv[i][0] == '-') {
            die("unknown option %s (see --help)", argv[i]);
        } else {
            first = i;
            break;
        }
    }
    if (first == argc)
        die("%s", "no image given (see --help)");
    if (unfilter_mode) {
        if (!threads_given) {
            static const int dflt[5] = {1, 2, 4, 8, 0};
            memcpy(c.threads, dflt, sizeof dflt);
            c.nthreads = 5;
        }
        printf("## png_unfilter, %ld online CPUs, median of %d runs\n\n", sysconf(_SC_NPROCESSORS_ONLN), c.runs);
        printf("| image | threads | block (0 = auto) | ms | GB/s | speed-up vs the first row |\n");
        printf("| --- | --- | --- | --- | --- | --- |\n");
        for (int i = first; i < argc; ++i) {
            bench_unfilter(&c, argv[i], blocks, nblocks);
            fflush(stdout);
        }
        return 0;
    }
    char dir[] = "/tmp/bench_png.XXXXXX";
    if (!mkdtemp(dir))
        die("cannot make a folder in %s", "/tmp");
    c.dir = dir;
    printf("## PNG encode and decode, %ld online CPUs, median of %d runs\n\n", sysconf(_SC_NPROCESSORS_ONLN),
           c.runs);
    printf("| image | writer | threads | wall ms | CPU ms | MB/s (raw, wall) | bytes | size vs before | speed-up (wall) |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (int i = first; i < argc; ++i) {
        img_t img;
        char err[512], name[256];
        if (img_read_png(argv[i], 0, &img, err, sizeof err) != 0)
            die("%s", err);
        const char *base = strrchr(argv[i], '/');
        base = base ? base + 1 : argv[i];
        if (photo_mode) {
            for (int alpha = 0; alpha <= 1; ++alpha) {
                img_t p;
                photo(&img, alpha, &p);
                snprintf(name, sizeof name, "%s photo-like %s %dx%d", base, alpha ? "RGBA" : "RGB", p.width, p.height);
                bench_image(&c, name, &p);
                img_free(&p);
            }
        } else {
            snprintf(name, sizeof name, "%s %dx%d %dch %d-bit", base, img.width, img.height, img.channels, img.bits);
            bench_image(&c, name, &img);
        }
        img_free(&img);
        fflush(stdout);
    }
    rmdir(dir);
    return 0;
}
