/* main.c -- sat_blur: depth-of-field (or uniform, or tilt-shift) blur of a PNG
 * or JPEG through summed-area tables, on the GPU or the CPU; one image, or a
 * batch of frames (--batch). See --help. */
#include "batch.h"
#include "batch_list.h"
#include "frame.h"
#include "common/cli.h"
#include "common/image_io.h"
#include "common/jpeg_io.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SAT_BLUR_VERSION
#define SAT_BLUR_VERSION "0"
#endif

static const char *const kProg = "sat_blur";

static const char kHelp[] =
    "Usage: sat_blur [options] IN.{png,jpg} OUT.{png,jpg,jpeg,bmp,tga}\n"
    "       sat_blur --batch [options] IN... -o DIR\n"
    "\n"
    "Blurs IN (a PNG or a JPEG: its first bytes decide, not its name) with box\n"
    "filters computed from summed-area tables (scan rows, transpose, scan again)\n"
    "and writes OUT in the format its extension names.\n"
    "With --batch, blurs every IN the same way into folder DIR (below).\n"
    "\n"
    "Modes (pick one; the default is --radius 8):\n"
    "  --depth FILE        depth-of-field blur from a depth map: any PNG or JPEG of\n"
    "                      the same size, gray (or the mean of R, G, B), WHITE = FAR,\n"
    "                      black = near (--invert-depth for the other convention).\n"
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
    "  --quality Q         JPEG quality 1..100 (default 90; the IJG scale PIL and\n"
    "                      ImageMagick use)\n"
    "  --subsampling S     JPEG chroma subsampling 420, 422 or 444 (4:2:0 ... 4:4:4,\n"
    "                      the last at full colour resolution); default 420, as PIL\n"
    "                      (and ImageMagick below quality 90)\n"
    "  --jpeg-encoder E    turbojpeg (default: the same bytes on GPU and CPU, and\n"
    "                      the faster one where measured) or nvjpeg (on the GPU,\n"
    "                      where the build has it; TurboJPEG writes the file with\n"
    "                      a note if it cannot)\n"
    "  --compression N     PNG compression, zlib level 0..9: 0 none, 1 fastest,\n"
    "                      9 smallest (default 5; 6 gives the size of libpng's\n"
    "                      default, at about twice the time). A single image is\n"
    "                      compressed on all cores, the same file on any machine.\n"
    "  --device D          auto, cpu or gpu; both give the same image. auto (the\n"
    "                      default): a single image of fewer than 32 megapixels\n"
    "                      on the CPU (starting the GPU costs more than it saves),\n"
    "                      larger ones and --batch on the GPU when usable, else\n"
    "                      the CPU with a note; --timing says which and why\n"
    "  --max-pixels N      refuse images larger than N pixels (default 268435456)\n"
    "  --force             allow OUT to be the same file as IN\n"
    "  --timing            print where the time went (decode, convert, upload, SAT,\n"
    "                      blur, download, encode) on stderr\n"
    "  --quiet             no progress output (and no batch summary)\n"
    "  -h, --help, --version\n"
    "\n"
    "Batch mode, for frame sequences:\n"
    "  --batch             every IN is a frame: a file, or a folder standing for\n"
    "                      its image files (.png, .jpg, .jpeg, not hidden, not\n"
    "                      recursive) sorted by name in byte order (LC_ALL=C ls)\n"
    "  -o, --output DIR    the folder the frames go to, as DIR/<stem>.<ext>, <stem>\n"
    "                      being IN's name without its extension; DIR must exist\n"
    "                      and must not be an input folder\n"
    "  --format F          output format: png, jpg, jpeg, bmp or tga (default:\n"
    "                      each input's own extension)\n"
    "  --depth FILE        one depth map for every frame (all of its size)\n"
    "  --depth-dir D       each frame its own depth map: D/<stem>.png\n"
    "  --dry-run           print 'IN -> OUT' for every frame and stop\n"
    "Every other option applies to every frame. The decode of frame n+1, the blur\n"
    "of frame n and the encode of frame n-1 run at once, on every core (or on\n"
    "$SAT_BLUR_THREADS worker threads). An output is never an input (refused\n"
    "before anything starts; --force is for single mode); an existing file of\n"
    "another name in DIR is replaced, each one atomically. A frame that fails is\n"
    "reported as 'sat_blur: FILE: problem' and the others are still written;\n"
    "stderr ends with 'N written, M failed'.\n"
    "\n"
    "The blur runs in linear light (sRGB decoded) with premultiplied alpha, in\n"
    "fixed point as fine as the file needs (--radius 0 gives every pixel back;\n"
    "where alpha is 0, as transparent black); integer tables make GPU and CPU\n"
    "output identical.\n"
    "JPEG output has no alpha: it is dropped (colours kept as they are), as\n"
    "ImageMagick's convert does. JPEG is encoded with TurboJPEG on GPU and CPU\n"
    "alike (the same bytes), or with nvJPEG when asked (--jpeg-encoder).\n"
    "Options may come before or after the files (--opt=V or --opt V); -- ends\n"
    "the options.\n"
    "Exit status: 0 success, 1 bad usage or input (a corrupt or truncated PNG or\n"
    "JPEG included: one line on stderr, no output file), 2 GPU or internal\n"
    "failure, or an I/O error while writing OUT.\n"
    "In batch mode: 0 when every frame was written; 1 for bad usage (nothing\n"
    "written) or when a frame failed on bad input; 2 when a frame failed on a\n"
    "GPU, memory or write error (the other frames are written either way).\n";

typedef struct options {
    const char *in, *out, *depth;
    /* batch mode */
    char *const *inputs;
    int ninputs;
    const char *outdir, *format, *depth_dir;
    bool batch, dry_run;
    double radius, focus, aperture, max_radius;
    int64_t focus_x, focus_y, passes, quality, compression;
    uint64_t max_pixels;
    bool radius_set, focus_set, focus_at_set, tilt, invert, no_linear, timing, quiet, force;
    bool aperture_set, max_radius_set;
    app_device_t device;
    img_jpeg_subsampling_t subsampling;
    bool nvjpeg; /* --jpeg-encoder nvjpeg */
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

/* Option values, all from 256 up (no short form but -h and -o), so that
 * getopt_long's optopt names a long option by its value (app_bad_option). */
enum {
    OPT_DEPTH = 256, OPT_RADIUS, OPT_TILT_SHIFT, OPT_FOCUS, OPT_FOCUS_AT, OPT_APERTURE, OPT_MAX_RADIUS,
    OPT_INVERT_DEPTH, OPT_PASSES, OPT_NO_LINEAR, OPT_QUALITY, OPT_DEVICE, OPT_MAX_PIXELS, OPT_FORCE, OPT_TIMING,
    OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_SUBSAMPLING, OPT_BATCH, OPT_FORMAT, OPT_DEPTH_DIR, OPT_DRY_RUN,
    OPT_COMPRESSION, OPT_JPEG_ENCODER
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
    {"subsampling", required_argument, NULL, OPT_SUBSAMPLING},
    {"batch", no_argument, NULL, OPT_BATCH},                 {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, OPT_FORMAT},         {"depth-dir", required_argument, NULL, OPT_DEPTH_DIR},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},             {"compression", required_argument, NULL, OPT_COMPRESSION},
    {"jpeg-encoder", required_argument, NULL, OPT_JPEG_ENCODER},
    {NULL, 0, NULL, 0}};

static int check_modes(const options_t *o);
static int check_batch_args(int argc, char **argv, options_t *o);

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
    while ((c = getopt_long(argc, argv, ":ho:", kLongs, NULL)) != -1) {
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
        case OPT_BATCH: o->batch = true; break;
        case OPT_DRY_RUN: o->dry_run = true; break;
        case 'o': o->outdir = v; break;
        case OPT_DEPTH_DIR: o->depth_dir = v; break;
        case OPT_FORMAT: {
            char probe[32];
            snprintf(probe, sizeof probe, "x.%s", v);
            if (strlen(v) > 8 || strchr(v, '.') || img_format_from_path(probe) == IMG_FORMAT_UNKNOWN) {
                app_error(kProg, "--format: '%s' is not png, jpg, jpeg, bmp or tga", v);
                return APP_EXIT_USAGE;
            }
            o->format = v;
            break;
        }
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
        case OPT_SUBSAMPLING:
            if (img_jpeg_parse_subsampling(v, &o->subsampling) != 0) {
                app_error(kProg, "--subsampling: '%s' is not 420, 422 or 444", v);
                return APP_EXIT_USAGE;
            }
            break;
        case OPT_JPEG_ENCODER:
            if (strcmp(v, "turbojpeg") == 0) o->nvjpeg = false;
            else if (strcmp(v, "nvjpeg") == 0) o->nvjpeg = true;
            else {
                app_error(kProg, "--jpeg-encoder: '%s' is not turbojpeg or nvjpeg", v);
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
    if (o->batch) return check_batch_args(argc, argv, o);
    const char *batch_only = o->outdir      ? "-o"
                             : o->format    ? "--format"
                             : o->depth_dir ? "--depth-dir"
                             : o->dry_run   ? "--dry-run"
                                            : NULL;
    if (batch_only) {
        app_error(kProg, "%s is for batch mode (sat_blur --batch IN... -o DIR)", batch_only);
        return APP_EXIT_USAGE;
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
    if (check_modes(o) >= 0) return APP_EXIT_USAGE;
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

/* The blur's mode options that do not go together (either mode). Returns
 * -1 when they are fine, else APP_EXIT_USAGE after the one line. */
static int check_modes(const options_t *o) {
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
    return -1;
}

/* Batch mode: every file argument is an input; -o names the folder. */
static int check_batch_args(int argc, char **argv, options_t *o) {
    if (optind >= argc) {
        app_error(kProg, "--batch: no input files or folders (usage: sat_blur --batch [options] IN... -o DIR)");
        return APP_EXIT_USAGE;
    }
    if (!o->outdir) {
        app_error(kProg, "--batch needs -o DIR, the folder to write the frames into");
        return APP_EXIT_USAGE;
    }
    if (o->force) {
        app_error(kProg, "--force is for single mode: batch mode never overwrites an input");
        return APP_EXIT_USAGE;
    }
    if (o->depth && o->depth_dir) {
        app_error(kProg, "--depth (one map for every frame) and --depth-dir (one per frame): give one");
        return APP_EXIT_USAGE;
    }
    o->inputs = argv + optind;
    o->ninputs = argc - optind;
    /* --depth-dir is a depth-of-field blur as --depth is, for the mode checks. */
    options_t m = *o;
    if (m.depth_dir) m.depth = m.depth_dir;
    return check_modes(&m) >= 0 ? APP_EXIT_USAGE : -1;
}

/* The per-image options of both modes. */
static frame_params_t frame_params(const options_t *o) {
    frame_params_t p;
    memset(&p, 0, sizeof p);
    p.radius = o->radius;
    p.focus = o->focus;
    p.aperture = o->aperture;
    p.max_radius = o->max_radius;
    p.focus_x = o->focus_x;
    p.focus_y = o->focus_y;
    p.passes = (int)o->passes;
    p.max_pixels = o->max_pixels;
    p.focus_set = o->focus_set;
    p.focus_at_set = o->focus_at_set;
    p.tilt = o->tilt;
    p.invert = o->invert;
    p.no_linear = o->no_linear;
    p.write.jpeg_quality = (int)o->quality;
    p.write.jpeg_subsampling = (int)o->subsampling;
    p.write.jpeg_gpu = o->nvjpeg;
    if (o->compression >= 0)
        p.write.png_compression = o->compression == 0 ? IMG_PNG_NO_COMPRESSION : (int)o->compression;
    /* A single image's PNG is compressed on every core; in batch mode the
       frames already are, one per worker, so each encodes on its own thread
       (no cores x cores threads). */
    p.write.threads = o->batch ? 1 : 0;
    p.threads = p.write.threads; /* the pixel conversions likewise (pipeline.h) */
    return p;
}

/* --device auto, single image: pixels from which the GPU is worth starting.
 * Below, the CPU writes the same bytes sooner: creating the CUDA context
 * (0.2-0.6 s) and tearing it down cost more than the blur saves (a 4K frame
 * with a depth map: 0.64 s on the GPU against 0.34 s on the CPU on the H100
 * machine, most of the GPU's time its start). A first guess, to be set from
 * bench/programs/startup.sh on the GPU machine. --batch pays the start once
 * for every frame and keeps the GPU. */
#define SAT_BLUR_AUTO_GPU_MIN_PIXELS ((uint64_t)32 << 20)

/* Where a single image runs: --device as given, or for auto the CPU below
 * SAT_BLUR_AUTO_GPU_MIN_PIXELS (said in --timing's first line). */
static int choose_single(const options_t *o, const frame_t *f, app_device_t *dev, app_timing_t *tm) {
    const uint64_t px = (uint64_t)img_pixel_count(&f->img);
    char note[160];
    if (o->device == APP_DEVICE_AUTO && px < SAT_BLUR_AUTO_GPU_MIN_PIXELS) {
        *dev = APP_DEVICE_CPU;
        snprintf(note, sizeof note, "on the CPU: --device auto, a single image of %.1f MP, below the GPU's %.0f MP",
                 (double)px / (1 << 20), (double)SAT_BLUR_AUTO_GPU_MIN_PIXELS / (1 << 20));
        app_timing_note(tm, note);
        return APP_EXIT_OK;
    }
    const int rc = app_choose_device(kProg, o->device, dev);
    app_timing_gpu_init(tm);
    snprintf(note, sizeof note, "on the %s: --device %s", *dev == APP_DEVICE_GPU ? "GPU" : "CPU",
             app_device_name(o->device));
    app_timing_note(tm, note);
    return rc;
}

/* The streams sat_blur keeps busy on the GPU (cli.h's app_gpu_streams):
 * the blur's two (blur_gpu.cu: the image's table, the weights' beside it).
 * nvJPEG encoders run on streams of their own, one per worker, so with them
 * the driver's default stays. Before any CUDA call. */
static void gpu_streams(const options_t *o) {
    if (!o->nvjpeg) app_gpu_streams(2);
}

/* Single mode: IN to OUT, the three steps one after another. */
static int run_single(const options_t *o) {
    const frame_params_t p = frame_params(o);
    gpu_streams(o);
    app_timing_t tm;
    app_timing_init(&tm, o->timing);
    /* --device gpu: the context is created on a thread while the image is
       decoded (cli.h). auto waits for the decode to know the size, as a
       probe started for nothing would hold the exit up. */
    if (o->device == APP_DEVICE_GPU) app_gpu_warm_start(o->device);
    char err[1024] = "";
    frame_t f;
    memset(&f, 0, sizeof f);
    app_device_t dev = APP_DEVICE_CPU;
    int rc = frame_decode(&p, o->in, o->depth, NULL, &f, err, sizeof err);
    if (rc != APP_EXIT_OK) goto fail;
    /* Chosen only now, so that bad input gets its one error line and nothing else. */
    if ((rc = choose_single(o, &f, &dev, &tm)) != APP_EXIT_OK) goto done;
    if ((rc = frame_blur(&f, dev, err, sizeof err)) != APP_EXIT_OK) goto fail;
    if ((rc = frame_encode(&p, &f, o->out, err, sizeof err)) != APP_EXIT_OK) goto fail;
    if (f.report.note[0]) app_error(kProg, "note: %s", f.report.note);
    app_timing_add(&tm, "decode", f.t.decode);
    app_timing_add(&tm, "convert", f.t.convert);
    if (dev == APP_DEVICE_GPU) app_timing_add(&tm, "upload", f.t.upload);
    app_timing_add(&tm, "SAT", f.t.sat);
    app_timing_add(&tm, "blur", f.t.blur);
    if (dev == APP_DEVICE_GPU) app_timing_add(&tm, "download", f.t.download);
    app_timing_add(&tm, "encode", f.t.encode);
    app_timing_print(&tm, kProg);
    if (o->timing && f.report.jpeg_encoder[0]) app_error(kProg, "JPEG encoder: %s", f.report.jpeg_encoder);
    goto done;
fail:
    app_error(kProg, "%s", err[0] ? err : "failed");
done:
    frame_free(&f);
    return rc;
}

/* Batch mode: the list and its checks, then the pipeline (batch.h). */
static int run_batch(const options_t *o) {
    const frame_params_t p = frame_params(o);
    const batch_spec_t spec = {o->inputs, o->ninputs, o->outdir, o->format, o->depth_dir, o->depth};
    char err[1024] = "";
    /* The GPU's context is created on a thread while the list is built and
       checked (cli.h); a batch keeps the GPU under auto, as it pays the
       start once for every frame. */
    gpu_streams(o);
    if (!o->dry_run) app_gpu_warm_start(o->device);
    int workers = 1;
    if (batch_threads(&workers, err, sizeof err) != 0) {
        app_error(kProg, "%s", err);
        return APP_EXIT_USAGE;
    }
    batch_list_t list;
    int rc = batch_list_build(&spec, &list, err, sizeof err);
    if (rc != APP_EXIT_OK) {
        app_error(kProg, "%s", err);
        return rc;
    }
    if (o->dry_run) {
        batch_list_print(&list, stdout);
        rc = fflush(stdout) == 0 && !ferror(stdout) ? APP_EXIT_OK : APP_EXIT_INTERNAL;
        batch_list_free(&list);
        return rc;
    }
    /* batch_run chooses the device while its workers decode the first frames. */
    const batch_config_t cfg = {kProg, &p, o->depth, o->device, workers, o->quiet, o->timing};
    rc = batch_run(&list, &cfg);
    batch_list_free(&list);
    return rc;
}

int main(int argc, char **argv) {
    options_t o;
    const int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    return o.batch ? run_batch(&o) : run_single(&o);
}
