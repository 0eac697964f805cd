/* compact -- stream compaction of array files with libscan (apps/compact).
 *
 *   compact IN OUT (--gt V | --ge V | --lt V | --le V | --eq V | --ne V |
 *                   --range LO HI | --nonzero | --finite | --nan |
 *                   --flags FLAGFILE | --unique) [--partition] [--indices]
 *   compact IN --count (criterion)
 *
 * See usage() for the details. Exit status: 0 success, 1 bad usage or input,
 * 2 internal/GPU failure. */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array_io.h"
#include "common/cli.h"
#include "common/stream_io.h"
#include "compact_stream.h"
#include <libscan/compact.h>

#define PROG "compact"
#define ERRLEN 512

typedef struct {
    const char *in, *out, *flags_path;
    criterion_t crit;
    libscan_pred_kind_t kind;
    const char *value_text[2]; /* VALUE, or LO and HI */
    const char *crit_name;     /* the option that chose the criterion, for messages */
    bool partition, indices, count_only, quiet, timing;
    arr_format_t in_format, out_format;
    arr_dtype_t raw_dtype;
    app_device_t device;
} options_t;

static void usage(FILE *f) {
    fputs("Usage: " PROG " [OPTIONS] IN OUT CRITERION\n"
          "       " PROG " [OPTIONS] IN --count CRITERION\n"
          "\n"
          "Stream compaction of an array file: keeps the elements of IN that meet\n"
          "CRITERION, in their order, and writes them to OUT (atomically: a failure\n"
          "leaves no file; OUT - is standard output). Prints \"kept K of N\" on\n"
          "standard output, or on standard error when OUT is -.\n"
          "\n"
          "CRITERION (exactly one):\n"
          "  --gt V, --ge V, --lt V, --le V, --eq V, --ne V\n"
          "                   compare each element x with V (x > V, x >= V, ...). V is\n"
          "                   read in the element type's domain: an integer for integer\n"
          "                   files (compared exactly, beyond 2^53 too; unsigned files\n"
          "                   take 0 .. 2^64-1), a number for float files (-0 equals 0;\n"
          "                   NaN elements only pass --ne)\n"
          "  --range LO HI    LO <= x <= HI (both ends included)\n"
          "  --nonzero        x != 0 (NaN counts as non-zero)\n"
          "  --finite         x is not NaN or +-inf (every integer)\n"
          "  --nan            x is NaN (no integer)\n"
          "  --flags FILE     keep x[i] when FILE's element i is non-zero; FILE is an\n"
          "                   integer or bool array of the same length (raw files are\n"
          "                   read as uint8)\n"
          "  --unique         drop consecutive duplicates (a run of NaNs, and a run of\n"
          "                   -0/+0, keeps its first element)\n"
          "\n"
          "Output:\n"
          "  --partition      write the kept elements, then the rejected ones (both in\n"
          "                   input order); also prints \"split K\": OUT[0..K) is kept\n"
          "  --indices        write the positions (uint64, counted from 0) of the\n"
          "                   elements instead of their values\n"
          "  --count          print only the number kept; no OUT\n"
          "\n"
          "Files:\n"
          "  --format F       format of IN: auto (default: by extension), npy, raw, text\n"
          "  --out-format F   format of OUT (default: by its extension)\n"
          "  --dtype T        element type of a raw IN (int32, uint32, int64, uint64,\n"
          "                   float32, float64) or the type text lines are parsed as\n"
          "  .npy (v1/v2/v3, either byte order), raw binary, text (one number per line);\n"
          "  element types int32, uint32, int64, uint64, float32, float64. N-D .npy\n"
          "  files are compacted as flat arrays in C order (with a note).\n"
          "\n"
          "Other:\n"
          "  --device D       gpu, cpu, or auto (default: the GPU if usable, else the\n"
          "                   CPU with a note); both give the same bytes\n"
          "  --quiet          no progress or notes on standard error\n"
          "  --timing         print where the time went on standard error\n"
          "  -h, --help, --version\n"
          "\n"
          "Options may come before, between or after the files; --opt=V or --opt V;\n"
          "--range LO HI or --range=LO HI; -- ends the options.\n"
          "\n"
          "OUT must not be IN (or the flags file). Exit status: 0 success, 1 bad usage\n"
          "or input, 2 internal or GPU failure.\n",
          f);
}

/* ---- command line ------------------------------------------------------------ */

static int set_criterion(options_t *o, criterion_t c, const char *name) {
    if (o->crit != CRIT_NONE) {
        app_error(PROG, "%s: only one criterion at a time (already %s)", name, o->crit_name);
        return -1;
    }
    o->crit = c;
    o->crit_name = name;
    return 0;
}

/* Option values: all from 256 up (no short form but -h), so that
 * getopt_long's optopt names a long option by its value (app_bad_option). */
enum {
    OPT_GT = 256, OPT_GE, OPT_LT, OPT_LE, OPT_EQ, OPT_NE, OPT_RANGE, OPT_NONZERO, OPT_FINITE, OPT_NAN, OPT_FLAGS,
    OPT_UNIQUE, OPT_PARTITION, OPT_INDICES, OPT_COUNT, OPT_QUIET, OPT_TIMING, OPT_DEVICE, OPT_FORMAT,
    OPT_OUT_FORMAT, OPT_DTYPE, OPT_HELP, OPT_VERSION
};

static const struct option kLongs[] = {
    {"gt", required_argument, NULL, OPT_GT},          {"ge", required_argument, NULL, OPT_GE},
    {"lt", required_argument, NULL, OPT_LT},          {"le", required_argument, NULL, OPT_LE},
    {"eq", required_argument, NULL, OPT_EQ},          {"ne", required_argument, NULL, OPT_NE},
    {"range", required_argument, NULL, OPT_RANGE},    {"nonzero", no_argument, NULL, OPT_NONZERO},
    {"finite", no_argument, NULL, OPT_FINITE},        {"nan", no_argument, NULL, OPT_NAN},
    {"flags", required_argument, NULL, OPT_FLAGS},    {"unique", no_argument, NULL, OPT_UNIQUE},
    {"partition", no_argument, NULL, OPT_PARTITION},  {"indices", no_argument, NULL, OPT_INDICES},
    {"count", no_argument, NULL, OPT_COUNT},          {"quiet", no_argument, NULL, OPT_QUIET},
    {"timing", no_argument, NULL, OPT_TIMING},        {"device", required_argument, NULL, OPT_DEVICE},
    {"format", required_argument, NULL, OPT_FORMAT},  {"out-format", required_argument, NULL, OPT_OUT_FORMAT},
    {"dtype", required_argument, NULL, OPT_DTYPE},    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},      {NULL, 0, NULL, 0}};

/* Returns APP_EXIT_OK, APP_EXIT_USAGE, or -1 for "--help/--version done". */
static int parse_args(int argc, char **argv, options_t *o) {
    static const struct {
        int opt;
        libscan_pred_kind_t kind;
    } preds[] = {{OPT_GT, LIBSCAN_PRED_GT},           {OPT_GE, LIBSCAN_PRED_GE},         {OPT_LT, LIBSCAN_PRED_LT},
                 {OPT_LE, LIBSCAN_PRED_LE},           {OPT_EQ, LIBSCAN_PRED_EQ},         {OPT_NE, LIBSCAN_PRED_NE},
                 {OPT_NONZERO, LIBSCAN_PRED_NONZERO}, {OPT_FINITE, LIBSCAN_PRED_FINITE}, {OPT_NAN, LIBSCAN_PRED_ISNAN}};
    static const char *const pred_names[] = {"--gt", "--ge", "--lt", "--le", "--eq", "--ne",
                                             "--nonzero", "--finite", "--nan"};
    opterr = 0; /* our own one-line messages */
    int c;
    while ((c = getopt_long(argc, argv, ":h", kLongs, NULL)) != -1) {
        const char *v = optarg;
        bool done = false;
        for (size_t k = 0; k < sizeof preds / sizeof preds[0]; ++k)
            if (c == preds[k].opt) {
                if (set_criterion(o, CRIT_PRED, pred_names[k])) return APP_EXIT_USAGE;
                o->kind = preds[k].kind;
                o->value_text[0] = v; /* NULL for the unary ones */
                done = true;
            }
        if (done) continue;
        switch (c) {
        case 'h': case OPT_HELP:
            usage(stdout);
            return -1;
        case OPT_VERSION:
            printf(PROG " (libscan %s)\n", libscan_version_string());
            return -1;
        case OPT_RANGE:
            /* Two values: getopt_long gave LO; HI is the next argument,
               taken as it is (a negative HI is not an option). */
            if (optind >= argc) {
                app_error(PROG, "option --range needs two values: --range LO HI");
                return APP_EXIT_USAGE;
            }
            if (set_criterion(o, CRIT_PRED, "--range")) return APP_EXIT_USAGE;
            o->kind = LIBSCAN_PRED_RANGE;
            o->value_text[0] = v;
            o->value_text[1] = argv[optind++];
            break;
        case OPT_FLAGS:
            if (set_criterion(o, CRIT_FLAGS, "--flags")) return APP_EXIT_USAGE;
            o->flags_path = v;
            break;
        case OPT_UNIQUE:
            if (set_criterion(o, CRIT_UNIQUE, "--unique")) return APP_EXIT_USAGE;
            break;
        case OPT_PARTITION: o->partition = true; break;
        case OPT_INDICES: o->indices = true; break;
        case OPT_COUNT: o->count_only = true; break;
        case OPT_QUIET: o->quiet = true; break;
        case OPT_TIMING: o->timing = true; break;
        case OPT_DEVICE:
            if (app_parse_device(v, &o->device)) {
                app_error(PROG, "--device: '%s' is not cpu, gpu or auto", v);
                return APP_EXIT_USAGE;
            }
            break;
        case OPT_FORMAT:
            if (arr_format_parse(v, &o->in_format)) {
                app_error(PROG, "--format: '%s' is not auto, npy, raw or text", v);
                return APP_EXIT_USAGE;
            }
            break;
        case OPT_OUT_FORMAT:
            if (arr_format_parse(v, &o->out_format)) {
                app_error(PROG, "--out-format: '%s' is not auto, npy, raw or text", v);
                return APP_EXIT_USAGE;
            }
            break;
        case OPT_DTYPE:
            if (arr_dtype_parse(v, &o->raw_dtype)) {
                app_error(PROG, "--dtype: '%s' is not an element type (%s)", v, arr_dtype_list());
                return APP_EXIT_USAGE;
            }
            break;
        default:
            return app_bad_option(PROG, c, kLongs, argv);
        }
    }
    const char *pos[2];
    int npos = 0;
    for (int i = optind; i < argc; ++i) {
        if (npos == 2) {
            app_error(PROG, "too many files: '%s' (expected IN OUT)", argv[i]);
            return APP_EXIT_USAGE;
        }
        pos[npos++] = argv[i];
    }
    if (npos == 0) {
        app_error(PROG, "no input file (usage: " PROG " IN OUT CRITERION; see --help)");
        return APP_EXIT_USAGE;
    }
    o->in = pos[0];
    o->out = npos > 1 ? pos[1] : NULL;
    if (o->crit == CRIT_NONE) {
        app_error(PROG, "no criterion: give one of --gt/--ge/--lt/--le/--eq/--ne, --range, --nonzero, "
                        "--finite, --nan, --flags, --unique");
        return APP_EXIT_USAGE;
    }
    if (o->count_only && o->out) {
        app_error(PROG, "--count prints the count and writes no file, but OUT '%s' was given", o->out);
        return APP_EXIT_USAGE;
    }
    if (o->count_only && (o->partition || o->indices)) {
        app_error(PROG, "--count cannot be combined with %s", o->partition ? "--partition" : "--indices");
        return APP_EXIT_USAGE;
    }
    if (!o->count_only && !o->out) {
        app_error(PROG, "no output file (usage: " PROG " IN OUT CRITERION, or --count)");
        return APP_EXIT_USAGE;
    }
    if (o->partition && o->crit == CRIT_UNIQUE) {
        app_error(PROG, "--partition cannot be combined with --unique");
        return APP_EXIT_USAGE;
    }
    if (o->out && strcmp(o->out, "-") != 0 && (strcmp(o->out, o->in) == 0 || app_same_file(o->in, o->out))) {
        app_error(PROG, "%s: is the input file; refusing to overwrite it", o->out);
        return APP_EXIT_USAGE;
    }
    if (o->out && o->flags_path && (strcmp(o->out, o->flags_path) == 0 || app_same_file(o->flags_path, o->out))) {
        app_error(PROG, "%s: is the flags file; refusing to overwrite it", o->out);
        return APP_EXIT_USAGE;
    }
    return APP_EXIT_OK;
}

/* ---- types and values ----------------------------------------------------------------- */

static int to_libscan_dtype(arr_dtype_t t, libscan_dtype_t *out) {
    switch (t) {
    case ARR_U32: *out = LIBSCAN_U32; return 0;
    case ARR_I32: *out = LIBSCAN_I32; return 0;
    case ARR_U64: *out = LIBSCAN_U64; return 0;
    case ARR_I64: *out = LIBSCAN_I64; return 0;
    case ARR_F32: *out = LIBSCAN_F32; return 0;
    case ARR_F64: *out = LIBSCAN_F64; return 0;
    default: return -1;
    }
}

/* Parses one predicate value in dtype's domain. */
static int parse_value(const char *opt, const char *s, libscan_dtype_t t, libscan_value_t *v) {
    char err[ERRLEN];
    int rc;
    if (t == LIBSCAN_F32 || t == LIBSCAN_F64) {
        rc = app_parse_f64(s, &v->f, err, sizeof err);
        if (rc == 0 && isnan(v->f)) {
            app_error(PROG, "%s: NaN compares with nothing; use --nan to select NaNs", opt);
            return -1;
        }
    } else if (t == LIBSCAN_I32 || t == LIBSCAN_I64) {
        rc = app_parse_i64(s, INT64_MIN, INT64_MAX, &v->i, err, sizeof err);
    } else {
        rc = app_parse_u64(s, 0, UINT64_MAX, &v->u, err, sizeof err);
    }
    if (rc) {
        app_error(PROG, "%s: %s (the input holds %s)", opt, err, libscan_dtype_name(t));
        return -1;
    }
    return 0;
}

/* Opens FLAGFILE: an integer or bool array of n elements, one flag each
 * (non-zero keeps). Raw flag files are bytes; text lines are read as
 * whatever integers they hold (floats are refused). */
static int open_flags(const options_t *o, size_t n, app_src_t **fsrc) {
    char err[ERRLEN];
    const arr_dtype_t raw = arr_format_from_path(o->flags_path) == ARR_FMT_RAW ? ARR_U8 : ARR_NONE;
    arr_status_t st = app_src_open(fsrc, o->flags_path, ARR_FMT_AUTO, raw, err, sizeof err);
    if (st != ARR_OK) {
        app_error(PROG, "%s", err);
        return (int)st;
    }
    if (!arr_dtype_is_integer(app_src_dtype(*fsrc))) {
        app_error(PROG, "%s: flags must be integers or bools, not %s", o->flags_path,
                  arr_dtype_name(app_src_dtype(*fsrc)));
        return APP_EXIT_USAGE;
    }
    if (app_src_count(*fsrc) != n) {
        app_error(PROG, "%s: %zu flags for %zu elements in %s", o->flags_path, app_src_count(*fsrc), n, o->in);
        return APP_EXIT_USAGE;
    }
    return APP_EXIT_OK;
}

int main(int argc, char **argv) {
    options_t o;
    memset(&o, 0, sizeof o);
    o.in_format = ARR_FMT_AUTO;
    o.out_format = ARR_FMT_AUTO;
    o.raw_dtype = ARR_NONE;
    o.device = APP_DEVICE_AUTO;
    int rc = parse_args(argc, argv, &o);
    if (rc < 0) return APP_EXIT_OK;
    if (rc != APP_EXIT_OK) return rc;

    app_timing_t tm;
    app_timing_init(&tm, o.timing);
    char err[ERRLEN];
    app_src_t *src = NULL, *fsrc = NULL;
    compact_job_t j;
    memset(&j, 0, sizeof j);
    j.prog = PROG;
    j.out = o.count_only ? NULL : o.out;
    j.out_format = o.out_format;
    j.crit = o.crit;
    j.partition = o.partition;
    j.indices = o.indices;
    j.quiet = o.quiet;

    /* The GPU's context is created on a thread while the input is checked
       (cli.h), with one hardware queue per lane; --timing shows it as
       "gpu init". */
    app_gpu_streams(COMPACT_GPU_LANES);
    app_gpu_warm_start(o.device);

    /* The header decides the type the criterion's values are read in; the
       data is streamed later (compact_stream.h). */
    arr_status_t ast = app_src_open(&src, o.in, o.in_format, o.raw_dtype, err, sizeof err);
    if (ast != ARR_OK) {
        app_error(PROG, "%s", err);
        return (int)ast;
    }
    if (app_src_notice(src)[0] && !o.quiet) app_error(PROG, "note: %s", app_src_notice(src));
    const size_t n = app_src_count(src);
    if (to_libscan_dtype(app_src_dtype(src), &j.dtype)) {
        app_error(PROG, "%s: element type %s is not supported (int32, uint32, int64, uint64, float32, float64)",
                  o.in, arr_dtype_name(app_src_dtype(src)));
        rc = APP_EXIT_USAGE;
        goto out;
    }
    if (o.crit == CRIT_PRED) {
        j.pred.kind = o.kind;
        if (o.value_text[0] && parse_value(o.crit_name, o.value_text[0], j.dtype, &j.pred.value)) {
            rc = APP_EXIT_USAGE;
            goto out;
        }
        if (o.value_text[1] && parse_value(o.crit_name, o.value_text[1], j.dtype, &j.pred.hi)) {
            rc = APP_EXIT_USAGE;
            goto out;
        }
        if (libscan_pred_check(&j.pred, j.dtype) != LIBSCAN_SUCCESS) {
            app_error(PROG, "--range: LO %s is above HI %s", o.value_text[0], o.value_text[1]);
            rc = APP_EXIT_USAGE;
            goto out;
        }
    }
    if (o.crit == CRIT_FLAGS && (rc = open_flags(&o, n, &fsrc)) != APP_EXIT_OK) goto out;

    app_device_t where;
    rc = app_choose_device(PROG, o.device, &where);
    app_timing_gpu_init(&tm);
    if (rc != APP_EXIT_OK) goto out;
    j.gpu = where == APP_DEVICE_GPU;

    size_t k = 0;
    rc = compact_stream_run(&j, src, fsrc, &k, &tm);
    if (rc != APP_EXIT_OK) goto out;
    if (o.count_only) {
        printf("%zu\n", k);
    } else {
        /* With OUT "-" the data is on standard output: the summary goes to
           standard error, so that the stream holds the data alone. */
        FILE *msg = strcmp(o.out, "-") == 0 ? stderr : stdout;
        fprintf(msg, "kept %zu of %zu\n", k, n);
        if (o.partition) fprintf(msg, "split %zu\n", k);
    }
    if (fflush(stdout) != 0) {
        app_error(PROG, "writing to standard output failed");
        rc = APP_EXIT_INTERNAL;
    }
    app_timing_print(&tm, PROG);
out:
    app_src_close(src);
    app_src_close(fsrc);
    return rc;
}
