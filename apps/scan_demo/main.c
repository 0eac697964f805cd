/* scan_demo -- prefix scan of a text file of numbers with libscan.
 *
 *   scan_demo [--op sum|min|max] [--exclusive] [--device cpu|gpu] FILE
 *
 * Reads one number per line, scans the numbers on the GPU through libscan's
 * C API (or on the CPU when there is no GPU, or with --device cpu) and prints
 * the result, one number per line. See usage() for the details.
 *
 * Exit status: 0 success, 1 bad usage or bad input, 2 GPU failure.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <libscan/libscan.h>

#include "common/cli.h"

#define PROG "scan_demo"

enum { EXIT_USAGE = APP_EXIT_USAGE, EXIT_INTERNAL = APP_EXIT_INTERNAL }; /* and EXIT_SUCCESS */

typedef struct {
    libscan_op_t op;
    bool exclusive;
    app_device_t device;
    const char *path; /* "-" is standard input */
} options_t;

static void usage(FILE *f) {
    fputs("Usage: " PROG " [--op sum|min|max] [--exclusive] [--device cpu|gpu] FILE\n"
          "\n"
          "Prefix scan (running sum, minimum or maximum) of a text file of numbers\n"
          "with libscan. Prints the scanned values to standard output, one per line.\n"
          "\n"
          "  --op OP        sum (default), min or max\n"
          "  --exclusive    line i of the output combines the lines before line i only;\n"
          "                 the first output line is the operator's identity\n"
          "                 (0 for sum, the largest value for min, the smallest for max)\n"
          "  --device DEV   gpu: scan on the GPU, fail (exit 2) if there is none\n"
          "                 cpu: scan on the CPU with a plain loop\n"
          "                 default: the GPU if there is one, else the CPU (with a note\n"
          "                 on standard error)\n"
          "  -h, --help     show this help and exit\n"
          "  --version      show the versions of scan_demo and libscan and exit\n"
          "\n"
          "Options may come before or after FILE (--op=min or --op min); -- ends the\n"
          "options, for a FILE whose name starts with '-'.\n"
          "\n"
          "FILE holds one number per line (blank lines are skipped); - reads standard\n"
          "input. If every line is an integer that fits in 64 bits, the scan runs over\n"
          "int64 (sums wrap around); otherwise over double, and decimals, exponents,\n"
          "inf and nan are accepted. Doubles are printed with the fewest digits that\n"
          "read back to the same value. Integer results and min/max results are the\n"
          "same on both devices; double sums on the CPU add in file order, so they can\n"
          "differ from the GPU's (which are reproducible run to run) in the last digits.\n"
          "\n"
          "Exit status: 0 success, 1 bad usage or input, 2 GPU failure.\n",
          f);
}

/* ---------------------------------------------------------------------------
 * Command line
 * ------------------------------------------------------------------------- */

/* Option values, all from 256 up (no short form but -h), so that
 * getopt_long's optopt names a long option by its value (app_bad_option). */
enum { OPT_OP = 256, OPT_EXCLUSIVE, OPT_DEVICE, OPT_HELP, OPT_VERSION };

static const struct option kLongs[] = {{"op", required_argument, NULL, OPT_OP},
                                       {"exclusive", no_argument, NULL, OPT_EXCLUSIVE},
                                       {"device", required_argument, NULL, OPT_DEVICE},
                                       {"help", no_argument, NULL, OPT_HELP},
                                       {"version", no_argument, NULL, OPT_VERSION},
                                       {NULL, 0, NULL, 0}};

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, options_t *o) {
    o->op = LIBSCAN_OP_SUM;
    o->exclusive = false;
    o->device = APP_DEVICE_AUTO;
    o->path = NULL;
    opterr = 0; /* our own one-line messages */
    int c;
    while ((c = getopt_long(argc, argv, ":h", kLongs, NULL)) != -1) {
        const char *v = optarg;
        switch (c) {
        case 'h': case OPT_HELP:
            usage(stdout);
            return EXIT_SUCCESS;
        case OPT_VERSION:
            printf(PROG " %s (libscan %s)\n", LIBSCAN_VERSION_STRING, libscan_version_string());
            return EXIT_SUCCESS;
        case OPT_EXCLUSIVE: o->exclusive = true; break;
        case OPT_OP:
            if (strcmp(v, "sum") == 0) o->op = LIBSCAN_OP_SUM;
            else if (strcmp(v, "min") == 0) o->op = LIBSCAN_OP_MIN;
            else if (strcmp(v, "max") == 0) o->op = LIBSCAN_OP_MAX;
            else {
                fprintf(stderr, PROG ": --op must be sum, min or max, not '%s'\n", v);
                return EXIT_USAGE;
            }
            break;
        case OPT_DEVICE:
            if (strcmp(v, "auto") == 0 || app_parse_device(v, &o->device) != 0) {
                fprintf(stderr, PROG ": --device must be cpu or gpu, not '%s'\n", v);
                return EXIT_USAGE;
            }
            break;
        default:
            return app_bad_option(PROG, c, kLongs, argv);
        }
    }
    for (int i = optind; i < argc; ++i) {
        if (o->path) {
            fprintf(stderr, PROG ": more than one FILE given ('%s' and '%s'); see --help\n", o->path, argv[i]);
            return EXIT_USAGE;
        }
        o->path = argv[i];
    }
    if (!o->path) {
        fprintf(stderr, PROG ": no input FILE given; see --help\n");
        return EXIT_USAGE;
    }
    return -1;
}

/* ---------------------------------------------------------------------------
 * Input: the whole file, then one number per line
 * ------------------------------------------------------------------------- */

/* Reads all of f into a NUL-terminated buffer. NULL on failure (errno set). */
static char *read_all(FILE *f, size_t *size) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) return NULL;
    for (;;) {
        len += fread(buf + len, 1, cap - len, f);
        if (ferror(f)) {
            int e = errno;
            free(buf);
            errno = e ? e : EIO;
            return NULL;
        }
        if (len < cap) break; /* end of file */
        if (cap > SIZE_MAX / 2 - 1) {
            free(buf);
            errno = ENOMEM;
            return NULL;
        }
        char *bigger = realloc(buf, 2 * cap + 1);
        if (!bigger) {
            free(buf);
            errno = ENOMEM;
            return NULL;
        }
        buf = bigger;
        cap *= 2;
    }
    buf[len] = '\0';
    *size = len;
    return buf;
}

typedef enum { TOKEN_INT, TOKEN_FLOAT, TOKEN_BAD, TOKEN_RANGE } token_kind_t;

/* An integer: optional sign, then decimal digits only. */
static bool integer_syntax(const char *s) {
    if (*s == '+' || *s == '-') ++s;
    if (!isdigit((unsigned char)*s)) return false;
    while (isdigit((unsigned char)*s)) ++s;
    return *s == '\0';
}

static token_kind_t classify(const char *s) {
    char *end;
    if (integer_syntax(s)) {
        errno = 0;
        (void)strtoll(s, &end, 10);
        if (errno != ERANGE) return TOKEN_INT;
        /* Too large for int64: read as a double below. */
    }
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0') return TOKEN_BAD;
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL)) return TOKEN_RANGE;
    return TOKEN_FLOAT;
}

/* Copies up to 40 characters of s for a message, non-printables as '?'. */
static void quote_token(const char *s, char *out, size_t cap) {
    size_t n = 0;
    for (; *s && n + 4 < cap && n < 40; ++s) out[n++] = isprint((unsigned char)*s) ? *s : '?';
    if (*s) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
}

typedef struct {
    libscan_dtype_t dtype; /* LIBSCAN_I64 or LIBSCAN_F64 */
    size_t count;
    void *values;          /* count elements of dtype */
} numbers_t;

/* Splits buf into lines in place and parses them. Returns 0 or EXIT_USAGE
 * (after one line on stderr naming the file, the line and the problem). */
static int parse_numbers(char *buf, size_t len, const char *name, numbers_t *out) {
    size_t cap = 1024, count = 0;
    char **tokens = malloc(cap * sizeof *tokens);
    if (!tokens) {
        fprintf(stderr, PROG ": %s: out of memory\n", name);
        return EXIT_USAGE;
    }
    bool all_int = true;
    size_t line = 0;
    char *p = buf, *stop = buf + len;
    while (p < stop) {
        ++line;
        char *nl = memchr(p, '\n', (size_t)(stop - p));
        char *eol = nl ? nl : stop;
        char *next = nl ? nl + 1 : stop;
        if (memchr(p, '\0', (size_t)(eol - p))) {
            fprintf(stderr, PROG ": %s:%zu: not a number (the line holds a NUL byte; binary file?)\n", name, line);
            free(tokens);
            return EXIT_USAGE;
        }
        while (p < eol && isspace((unsigned char)*p)) ++p;
        char *e = eol;
        while (e > p && isspace((unsigned char)e[-1])) --e;
        *e = '\0';
        if (e > p) {
            token_kind_t kind = classify(p);
            if (kind == TOKEN_BAD || kind == TOKEN_RANGE) {
                char q[64];
                quote_token(p, q, sizeof q);
                fprintf(stderr, PROG ": %s:%zu: %s: '%s'\n", name, line,
                        kind == TOKEN_BAD ? "not a number" : "number out of the range of a double", q);
                free(tokens);
                return EXIT_USAGE;
            }
            if (kind == TOKEN_FLOAT) all_int = false;
            if (count == cap) {
                char **bigger = cap < SIZE_MAX / (2 * sizeof *tokens) ? realloc(tokens, 2 * cap * sizeof *tokens) : NULL;
                if (!bigger) {
                    fprintf(stderr, PROG ": %s: out of memory\n", name);
                    free(tokens);
                    return EXIT_USAGE;
                }
                tokens = bigger;
                cap *= 2;
            }
            tokens[count++] = p;
        }
        p = next;
    }

    out->dtype = all_int ? LIBSCAN_I64 : LIBSCAN_F64;
    out->count = count;
    out->values = malloc(count ? count * 8 : 1);
    if (!out->values) {
        fprintf(stderr, PROG ": %s: out of memory for %zu numbers\n", name, count);
        free(tokens);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < count; ++i) {
        if (all_int) ((int64_t *)out->values)[i] = strtoll(tokens[i], NULL, 10);
        else ((double *)out->values)[i] = strtod(tokens[i], NULL);
    }
    free(tokens);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Scans
 * ------------------------------------------------------------------------- */

/* Operators with libscan's semantics (libscan.h): integer sums wrap; float
 * min/max propagate NaN and order -0.0 below +0.0; identities 0 / -0.0,
 * the type's maximum (+inf) for min and minimum (-inf) for max. */
static int64_t i64_combine(libscan_op_t op, int64_t a, int64_t b) {
    switch (op) {
    case LIBSCAN_OP_MIN: return b < a ? b : a;
    case LIBSCAN_OP_MAX: return a < b ? b : a;
    default: return (int64_t)((uint64_t)a + (uint64_t)b);
    }
}
static int64_t i64_identity(libscan_op_t op) {
    return op == LIBSCAN_OP_MIN ? INT64_MAX : op == LIBSCAN_OP_MAX ? INT64_MIN : 0;
}

static bool f64_negative(double x) { return x < 0.0 || (x == 0.0 && 1.0 / x < 0.0); }
static double f64_combine(libscan_op_t op, double a, double b) {
    if (op == LIBSCAN_OP_SUM) return a + b;
    if (a != a || b != b) return (double)NAN;
    if (a == b) { /* equal, perhaps +0.0 and -0.0 */
        bool take_a = (op == LIBSCAN_OP_MIN) == f64_negative(a);
        return take_a ? a : b;
    }
    if (op == LIBSCAN_OP_MIN) return b < a ? b : a;
    return a < b ? b : a;
}
static double f64_identity(libscan_op_t op) {
    return op == LIBSCAN_OP_MIN ? (double)HUGE_VAL : op == LIBSCAN_OP_MAX ? -(double)HUGE_VAL : -0.0;
}

static void scan_cpu(numbers_t *x, libscan_op_t op, bool exclusive) {
    if (x->dtype == LIBSCAN_I64) {
        int64_t *v = x->values, run = i64_identity(op);
        for (size_t i = 0; i < x->count; ++i) {
            int64_t next = i64_combine(op, run, v[i]);
            v[i] = exclusive ? run : next;
            run = next;
        }
    } else {
        double *v = x->values, run = f64_identity(op);
        for (size_t i = 0; i < x->count; ++i) {
            double next = f64_combine(op, run, v[i]);
            v[i] = exclusive ? run : next;
            run = next;
        }
    }
}

/* Scans x in place on the GPU. Returns 0 or EXIT_INTERNAL (after a message). */
static int scan_gpu(numbers_t *x, libscan_op_t op, bool exclusive) {
    if (x->count == 0) return 0;
    const size_t bytes = x->count * libscan_dtype_size(x->dtype);
    void *d = NULL;
    const char *step = "cudaMalloc";
    cudaError_t e = cudaMalloc(&d, bytes);
    if (e == cudaSuccess) {
        step = "copy to the GPU";
        e = cudaMemcpy(d, x->values, bytes, cudaMemcpyHostToDevice);
    }
    if (e == cudaSuccess) {
        libscan_status_t st = exclusive ? libscan_exclusive_scan(d, d, x->count, x->dtype, op, NULL, 0)
                                        : libscan_inclusive_scan(d, d, x->count, x->dtype, op, NULL, 0);
        if (st != LIBSCAN_SUCCESS) {
            fprintf(stderr, PROG ": GPU scan failed: %s\n", libscan_status_string(st));
            (void)cudaGetLastError();
            cudaFree(d);
            return EXIT_INTERNAL;
        }
        step = "copy from the GPU"; /* also reports errors of the scan kernel itself */
        e = cudaMemcpy(x->values, d, bytes, cudaMemcpyDeviceToHost);
    }
    if (d) cudaFree(d);
    if (e != cudaSuccess) {
        fprintf(stderr, PROG ": GPU scan failed: %s: %s\n", step, cudaGetErrorString(e));
        return EXIT_INTERNAL;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Output
 * ------------------------------------------------------------------------- */

/* Shortest of %.15g, %.16g, %.17g that reads back as v. */
static void print_double(double v) {
    if (v != v) {
        fputs("nan\n", stdout);
        return;
    }
    char buf[40];
    for (int digits = 15; digits <= 17; ++digits) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, stdout);
    fputc('\n', stdout);
}

static int print_numbers(const numbers_t *x) {
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    for (size_t i = 0; i < x->count; ++i) {
        if (x->dtype == LIBSCAN_I64) printf("%" PRId64 "\n", ((const int64_t *)x->values)[i]);
        else print_double(((const double *)x->values)[i]);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": cannot write the result to standard output: %s\n", strerror(errno));
        return EXIT_INTERNAL;
    }
    return 0;
}

int main(int argc, char **argv) {
    options_t o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;

    const bool from_stdin = strcmp(o.path, "-") == 0;
    const char *name = from_stdin ? "<stdin>" : o.path;
    FILE *f = from_stdin ? stdin : fopen(o.path, "rb");
    if (!f) {
        fprintf(stderr, PROG ": cannot open '%s': %s\n", o.path, strerror(errno));
        return EXIT_USAGE;
    }
    size_t len = 0;
    char *text = read_all(f, &len);
    int read_errno = errno;
    if (!from_stdin) fclose(f);
    if (!text) {
        fprintf(stderr, PROG ": cannot read '%s': %s\n", name, strerror(read_errno));
        return EXIT_USAGE;
    }

    numbers_t x;
    rc = parse_numbers(text, len, name, &x);
    free(text);
    if (rc) return rc;

    app_device_t dev;
    rc = app_choose_device(PROG, o.device, &dev);
    if (rc != APP_EXIT_OK) {
        free(x.values);
        return rc;
    }
    const bool on_gpu = dev == APP_DEVICE_GPU;
    rc = on_gpu ? scan_gpu(&x, o.op, o.exclusive) : (scan_cpu(&x, o.op, o.exclusive), 0);
    if (rc == 0) rc = print_numbers(&x);
    free(x.values);
    return rc;
}
