/* main.c -- sat_blur: depth-of-field (or uniform, or tilt-shift) blur of a PNG
 * through summed-area tables, on the GPU or the CPU. See --help. */
#include "blur.h"
#include "common/cli.h"
#include "common/image_io.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SAT_BLUR_VERSION
#define SAT_BLUR_VERSION "0"
#endif

static const char *const kProg = "sat_blur";

static const char kHelp[] =
    "Usage: sat_blur [options] IN.png OUT.{png,jpg,jpeg,bmp,tga}\n"
    "\n"
    "Blurs IN with box filters computed from summed-area tables (scan rows,\n"
    "transpose, scan again) and writes OUT in the format its extension names.\n"
    "\n"
    "Modes (pick one; the default is --radius 8):\n"
    "  --depth FILE        depth-of-field blur from a depth map: any PNG of the same\n"
    "                      size, gray (or the mean of R, G, B), WHITE = FAR, black =\n"
    "                      near (--invert-depth for the other convention).\n"
    "  --radius R          uniform box blur of radius R pixels, 0..255 (fractional\n"
    "                      radii blend the two nearest integer boxes).\n"
    "  --tilt-shift        a horizontal focus band: sharp within 0.1 of the image\n"
    "                      height of the band centre (--focus, default 0.5, as a\n"
    "                      fraction of the height from the top), the radius growing\n"
    "                      linearly to --max-radius over the next 0.25 of the height.\n"
    "\n"
    "Depth of field (thin lens): a pixel of depth d (in [0, 1], read as distance,\n"
    "1 = far plane) focused at depth f gets the circle-of-confusion radius\n"
    "    r = aperture * |d' - f'| / d',   d' = max(d, 1/64), f' = max(f, 1/64),\n"
    "clamped to [0, --max-radius]: the thin-lens blur |S2 - S1| / S2 scaled by\n"
    "`aperture` (the radius, in pixels, of a point at infinity focused near).\n"
    "  --focus F           depth in focus, 0..1 (default: the depth at the centre)\n"
    "  --focus-at X,Y      focus on the depth of pixel (X, Y) (0-based, in the image)\n"
    "  --aperture A        pixels, >= 0 (default 24)\n"
    "  --max-radius R      largest radius, 0..255 pixels (default 32)\n"
    "  --invert-depth      white = near, black = far\n"
    "In-focus pixels are kept from bleeding into the blurred background by\n"
    "weighting every pixel by its own blur (1 when sharp up to 4 from a radius of\n"
    "3 px) in a second summed-area table: see the README for what remains.\n"
    "\n"
    "Other options:\n"
    "  --passes N          repeat the box filter N times, 1..16 (3 approaches a Gaussian)\n"
    "  --no-linear         blur the sRGB-encoded values instead of linear light\n"
    "  --quality Q         JPEG quality 1..100 (default 90)\n"
    "  --compression N     PNG compression, zlib level 0..9: 0 none, 1 fastest,\n"
    "                      9 smallest (default 5; 6 gives the size of libpng's\n"
    "                      default, at about twice the time). Every level uses\n"
    "                      all cores and writes the same file on any machine.\n"
    "  --device D          auto, cpu or gpu (default auto: the GPU when usable,\n"
    "                      else the CPU with a note); both give the same image\n"
    "  --max-pixels N      refuse images larger than N pixels (default 268435456)\n"
    "  --force             allow OUT to be the same file as IN\n"
    "  --timing            print where the time went (decode, convert, upload, SAT,\n"
    "                      blur, download, encode) on stderr\n"
    "  --quiet             no progress output\n"
    "  -h, --help, --version\n"
    "\n"
    "The blur runs in linear light (sRGB decoded) with premultiplied alpha, on\n"
    "12-bit fixed-point samples; integer tables make GPU and CPU output identical.\n"
    "Options may come before or after the files (--opt=V or --opt V); -- ends\n"
    "the options.\n"
    "Exit status: 0 success, 1 bad usage or input (one line on stderr, no output\n"
    "file), 2 GPU or internal failure, or an I/O error while writing OUT.\n";

typedef struct options {
    const char *in, *out, *depth;
    double radius, focus, aperture, max_radius;
    int64_t focus_x, focus_y, passes, quality, compression;
    uint64_t max_pixels;
    bool radius_set, focus_set, focus_at_set, tilt, invert, no_linear, timing, quiet, force;
    bool aperture_set, max_radius_set;
    app_device_t device;
} options_t;

/* Parses a double option value in [lo, hi]; one-line error and 0 on failure. */
static int parse_range(const char *name, const char *v, double lo, double hi, double *out) {
    char err[160];
    if (app_parse_f64(v, out, err, sizeof err) != 0) {
        app_error(kProg, "%s: %s", name, err);
        return 0;
    }
    if (!(*out >= lo && *out <= hi)) {
        app_error(kProg, "%s: '%s' is out of range [%g, %g]", name, v, lo, hi);
        return 0;
    }
    return 1;
}

/* Option values, all from 256 up (no short form but -h), so that
 * getopt_long's optopt names a long option by its value (app_bad_option). */
enum {
    OPT_DEPTH = 256, OPT_RADIUS, OPT_TILT_SHIFT, OPT_FOCUS, OPT_FOCUS_AT, OPT_APERTURE, OPT_MAX_RADIUS,
    OPT_INVERT_DEPTH, OPT_PASSES, OPT_NO_LINEAR, OPT_QUALITY, OPT_DEVICE, OPT_MAX_PIXELS, OPT_FORCE, OPT_TIMING,
    OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_COMPRESSION
};

static const struct option kLongs[] = {
    {"depth", required_argument, NULL, OPT_DEPTH},           {"radius", required_argument, NULL, OPT_RADIUS},
    {"tilt-shift", no_argument, NULL, OPT_TILT_SHIFT},       {"focus", required_argument, NULL, OPT_FOCUS},
    {"focus-at", required_argument, NULL, OPT_FOCUS_AT},     {"aperture", required_argument, NULL, OPT_APERTURE},
    {"max-radius", required_argument, NULL, OPT_MAX_RADIUS}, {"invert-depth", no_argument, NULL, OPT_INVERT_DEPTH},
    {"passes", required_argument, NULL, OPT_PASSES},         {"no-linear", no_argument, NULL, OPT_NO_LINEAR},
    {"quality", required_argument, NULL, OPT_QUALITY},       {"device", required_argument, NULL, OPT_DEVICE},
    {"max-pixels", required_argument, NULL, OPT_MAX_PIXELS}, {"force", no_argument, NULL, OPT_FORCE},
    {"timing", no_argument, NULL, OPT_TIMING},               {"quiet", no_argument, NULL, OPT_QUIET},
    {"help", no_argument, NULL, OPT_HELP},                   {"version", no_argument, NULL, OPT_VERSION},
    {"compression", required_argument, NULL, OPT_COMPRESSION},
    {NULL, 0, NULL, 0}};

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, options_t *o) {
    memset(o, 0, sizeof *o);
    o->radius = 8;
    o->aperture = 24;
    o->max_radius = 32;
    o->passes = 1;
    o->quality = 90;
    o->compression = -1; /* not given: img_write's default */
    o->max_pixels = IMG_DEFAULT_MAX_PIXELS;
    o->device = APP_DEVICE_AUTO;
    opterr = 0; /* our own one-line messages */
    int c;
    char err[160];
    while ((c = getopt_long(argc, argv, ":h", kLongs, NULL)) != -1) {
        const char *v = optarg;
        switch (c) {
        case 'h': case OPT_HELP:
            fputs(kHelp, stdout);
            return APP_EXIT_OK;
        case OPT_VERSION:
            printf("sat_blur (libscan %s)\n", SAT_BLUR_VERSION);
            return APP_EXIT_OK;
        case OPT_INVERT_DEPTH: o->invert = true; break;
        case OPT_TILT_SHIFT: o->tilt = true; break;
        case OPT_NO_LINEAR: o->no_linear = true; break;
        case OPT_TIMING: o->timing = true; break;
        case OPT_QUIET: o->quiet = true; break;
        case OPT_FORCE: o->force = true; break;
        case OPT_DEPTH: o->depth = v; break;
        case OPT_RADIUS:
            if (!parse_range("--radius", v, 0, BLUR_MAX_RADIUS, &o->radius)) return APP_EXIT_USAGE;
            o->radius_set = true;
            break;
        case OPT_FOCUS:
            if (!parse_range("--focus", v, 0, 1, &o->focus)) return APP_EXIT_USAGE;
            o->focus_set = true;
            break;
        case OPT_FOCUS_AT:
            if (app_parse_pair_i64(v, INT32_MIN, INT32_MAX, &o->focus_x, &o->focus_y, err, sizeof err) != 0) {
                app_error(kProg, "--focus-at: %s (want X,Y: a pixel of the image)", err);
                return APP_EXIT_USAGE;
            }
            o->focus_at_set = true;
            break;
        case OPT_APERTURE:
            if (!parse_range("--aperture", v, 0, 1e6, &o->aperture)) return APP_EXIT_USAGE;
            o->aperture_set = true;
            break;
        case OPT_MAX_RADIUS:
            if (!parse_range("--max-radius", v, 0, BLUR_MAX_RADIUS, &o->max_radius)) return APP_EXIT_USAGE;
            o->max_radius_set = true;
            break;
        case OPT_PASSES:
            if (app_parse_i64(v, 1, 16, &o->passes, err, sizeof err) != 0) {
                app_error(kProg, "--passes: %s", err);
                return APP_EXIT_USAGE;
            }
            break;
        case OPT_QUALITY:
            if (app_parse_i64(v, 1, 100, &o->quality, err, sizeof err) != 0) {
                app_error(kProg, "--quality: %s", err);
                return APP_EXIT_USAGE;
            }
            break;
        case OPT_COMPRESSION:
            if (app_parse_i64(v, 0, 9, &o->compression, err, sizeof err) != 0) {
                app_error(kProg, "--compression: %s", err);
                return APP_EXIT_USAGE;
            }
            break;
        case OPT_MAX_PIXELS:
            if (app_parse_u64(v, 1, UINT64_MAX, &o->max_pixels, err, sizeof err) != 0) {
                app_error(kProg, "--max-pixels: %s", err);
                return APP_EXIT_USAGE;
            }
            break;
        case OPT_DEVICE:
            if (app_parse_device(v, &o->device) != 0) {
                app_error(kProg, "--device: '%s' is not auto, cpu or gpu", v);
                return APP_EXIT_USAGE;
            }
            break;
        default:
            return app_bad_option(kProg, c, kLongs, argv);
        }
    }
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    for (int i = optind; i < argc; ++i) {
        if (npos == 2) {
            app_error(kProg, "too many file arguments: '%s' (usage: sat_blur [options] IN OUT)", argv[i]);
            return APP_EXIT_USAGE;
        }
        pos[npos++] = argv[i];
    }
    if (npos < 2) {
        app_error(kProg, "missing %s (usage: sat_blur [options] IN OUT)", npos == 0 ? "IN and OUT files" : "OUT file");
        return APP_EXIT_USAGE;
    }
    o->in = pos[0];
    o->out = pos[1];
    /* mode conflicts */
    if (o->radius_set && (o->depth || o->tilt)) {
        app_error(kProg, "--radius gives a uniform blur: it does not go with %s", o->depth ? "--depth" : "--tilt-shift");
        return APP_EXIT_USAGE;
    }
    if (o->depth && o->tilt) {
        app_error(kProg, "--tilt-shift and --depth are two different modes: pick one");
        return APP_EXIT_USAGE;
    }
    if (o->focus_at_set && !o->depth) {
        app_error(kProg, "--focus-at needs a depth map (--depth FILE)");
        return APP_EXIT_USAGE;
    }
    if (o->focus_at_set && o->focus_set) {
        app_error(kProg, "--focus and --focus-at both set the focus: give one");
        return APP_EXIT_USAGE;
    }
    if ((o->focus_set || o->invert || o->aperture_set) && !o->depth && !o->tilt) {
        app_error(kProg, "%s needs --depth FILE (or --tilt-shift for --focus)",
                  o->focus_set ? "--focus" : (o->invert ? "--invert-depth" : "--aperture"));
        return APP_EXIT_USAGE;
    }
    if (o->tilt && (o->invert || o->aperture_set)) {
        app_error(kProg, "%s has no meaning with --tilt-shift", o->invert ? "--invert-depth" : "--aperture");
        return APP_EXIT_USAGE;
    }
    if (img_format_from_path(o->out) == IMG_FORMAT_UNKNOWN) {
        app_error(kProg, "%s: unknown output format (use .png, .jpg, .jpeg, .bmp or .tga)", o->out);
        return APP_EXIT_USAGE;
    }
    if (!o->force && app_same_file(o->in, o->out)) {
        app_error(kProg, "%s: output is the input file (use --force to overwrite it)", o->out);
        return APP_EXIT_USAGE;
    }
    return -1;
}

/* Depth in [0, 1] per pixel: gray, or the mean of R, G, B (alpha ignored). */
static float *depth_values(const img_t *d, char *err, size_t errlen) {
    const size_t n = img_pixel_count(d), C = (size_t)d->channels;
    float *all = malloc(n * C * sizeof(float));
    if (!all) {
        snprintf(err, errlen, "out of memory for the depth map");
        return NULL;
    }
    if (img_to_linear_f32(d, all, 0, 0, err, errlen) != 0) {
        free(all);
        return NULL;
    }
    const size_t colour = C >= 3 ? 3 : 1;
    for (size_t i = 0; i < n; ++i) {
        float s = 0;
        for (size_t c = 0; c < colour; ++c) s += all[i * C + c];
        all[i] = s / (float)colour; /* in place: i <= i * C */
    }
    return all;
}

int main(int argc, char **argv) {
    options_t o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;

    app_device_t dev = APP_DEVICE_CPU;
    app_timing_t tm;
    app_timing_init(&tm, o.timing);
    char err[512] = "";
    img_t img, depth, outimg;
    img_init(&img);
    img_init(&depth);
    img_init(&outimg);
    float *lin = NULL, *dv = NULL;
    uint16_t *fixed = NULL, *radius = NULL;
    rc = APP_EXIT_USAGE;

    app_timing_start(&tm, "decode");
    if (img_read_png(o.in, o.max_pixels, &img, err, sizeof err) != 0) goto fail;
    if (o.depth) {
        if (img_read_png(o.depth, o.max_pixels, &depth, err, sizeof err) != 0) goto fail;
        if (depth.width != img.width || depth.height != img.height) {
            snprintf(err, sizeof err, "%s: depth map is %dx%d but %s is %dx%d", o.depth, depth.width, depth.height,
                     o.in, img.width, img.height);
            goto fail;
        }
    }
    if (o.focus_at_set && (o.focus_x < 0 || o.focus_y < 0 || o.focus_x >= img.width || o.focus_y >= img.height)) {
        snprintf(err, sizeof err, "--focus-at %lld,%lld is outside the %dx%d image", (long long)o.focus_x,
                 (long long)o.focus_y, img.width, img.height);
        goto fail;
    }

    app_timing_start(&tm, "convert");
    const size_t W = (size_t)img.width, H = (size_t)img.height, C = (size_t)img.channels, n = W * H;
    lin = malloc(n * C * sizeof(float));
    fixed = malloc(n * C * sizeof(uint16_t));
    if (!lin || !fixed) {
        snprintf(err, sizeof err, "%s: out of memory for %zux%zu pixels", o.in, W, H);
        rc = APP_EXIT_INTERNAL;
        goto fail;
    }
    if (img_to_linear_f32(&img, lin, !o.no_linear, 1, err, sizeof err) != 0) goto fail;
    blur_to_fixed(lin, n * C, fixed);

    blur_job_t job = {W, H, (int)C, fixed, NULL, blur_radius_q8(o.radius), 0, (int)o.passes};
    if (o.depth || o.tilt) {
        radius = malloc(n * sizeof(uint16_t));
        if (!radius) {
            snprintf(err, sizeof err, "out of memory for the radius map");
            rc = APP_EXIT_INTERNAL;
            goto fail;
        }
        if (o.depth) {
            if (!(dv = depth_values(&depth, err, sizeof err))) goto fail;
            double focus = o.focus;
            if (!o.focus_set) { /* the depth under --focus-at, or at the centre */
                const size_t fx = o.focus_at_set ? (size_t)o.focus_x : W / 2, fy = o.focus_at_set ? (size_t)o.focus_y : H / 2;
                focus = dv[fy * W + fx];
                if (o.invert) focus = 1.0 - focus;
            }
            blur_radius_map_depth(dv, W, H, o.invert, focus, o.aperture, o.max_radius, radius);
        } else {
            blur_radius_map_tilt(W, H, o.focus_set ? o.focus : 0.5, o.max_radius, radius);
        }
        job.radius_q8 = radius;
        job.weighted = 1;
    }

    blur_times_t bt;
    app_timing_stop(&tm);
    /* Chosen only now, so that bad input gets its one error line and nothing else. */
    if ((rc = app_choose_device(kProg, o.device, &dev)) != APP_EXIT_OK) {
        err[0] = 0;
        goto done;
    }
    rc = APP_EXIT_USAGE;
    if (dev == APP_DEVICE_GPU) {
        const int g = blur_run_gpu(&job, &bt, err, sizeof err);
        if (g != 0) {
            rc = g == -2 ? APP_EXIT_INTERNAL : APP_EXIT_USAGE;
            goto fail;
        }
        app_timing_add(&tm, "upload", bt.upload);
    } else if (blur_run_cpu(&job, &bt, err, sizeof err) != 0) {
        rc = APP_EXIT_INTERNAL;
        goto fail;
    }
    app_timing_add(&tm, "SAT", bt.sat);
    app_timing_add(&tm, "blur", bt.blur);
    if (dev == APP_DEVICE_GPU) app_timing_add(&tm, "download", bt.download);

    app_timing_start(&tm, "encode");
    blur_from_fixed(fixed, n * C, lin);
    if (img_alloc(&outimg, img.width, img.height, img.channels, img.bits, err, sizeof err) != 0) {
        rc = APP_EXIT_INTERNAL;
        goto fail;
    }
    if (img_from_linear_f32(lin, &outimg, !o.no_linear, 1, err, sizeof err) != 0) {
        rc = APP_EXIT_INTERNAL;
        goto fail;
    }
    img_write_opts_t wo = {.jpeg_quality = (int)o.quality};
    if (o.compression >= 0) wo.png_compression = o.compression == 0 ? IMG_PNG_NO_COMPRESSION : (int)o.compression;
    const int wrc = img_write(o.out, &outimg, &wo, err, sizeof err);
    if (wrc != 0) {
        /* A failed write (disk full, I/O error) is exit 2, as the README
         * says; a destination the user got wrong is bad input, 1. */
        rc = wrc == IMG_ERR_IO ? APP_EXIT_INTERNAL : APP_EXIT_USAGE;
        goto fail;
    }
    app_timing_stop(&tm);
    app_timing_print(&tm, kProg);
    rc = APP_EXIT_OK;
    goto done;
fail:
    app_error(kProg, "%s", err[0] ? err : "failed");
done:
    free(lin);
    free(dv);
    free(fixed);
    free(radius);
    img_free(&img);
    img_free(&depth);
    img_free(&outimg);
    return rc;
}
