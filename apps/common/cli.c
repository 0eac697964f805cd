/* cli.c -- errors, option values, device names, number parsing (cli.h).
 * Atomic output is in out_file.c, progress and timing in progress.c, the
 * GPU probe, its warm start and the device choice in gpu_probe.c (the only
 * file here that calls the CUDA runtime). */
#define _POSIX_C_SOURCE 200809L
#include "common/cli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <getopt.h>
#include <string.h>

void app_verror(const char *prog, const char *fmt, va_list ap) {
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t len = strlen(msg);
    while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == '\r')) msg[--len] = '\0';
    for (size_t i = 0; i < len; ++i)
        if (msg[i] == '\n' || msg[i] == '\r') msg[i] = ' ';
    /* One fprintf, so the line is not interleaved with other writers. */
    fprintf(stderr, "%s: %s\n", prog ? prog : "?", msg);
}

void app_error(const char *prog, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    app_verror(prog, fmt, ap);
    va_end(ap);
}

const char *app_escape(const void *s, size_t n, char *buf, size_t cap) {
    const unsigned char *p = s;
    size_t o = 0, i = 0;
    if (!buf || cap == 0) return buf;
    if (cap < 4 || !p) {
        buf[0] = '\0';
        return buf;
    }
    for (; i < n && !(n == SIZE_MAX && p[i] == '\0'); ++i) {
        char piece[5];
        size_t len;
        if (p[i] == '\\') len = (size_t)snprintf(piece, sizeof piece, "\\\\");
        else if (p[i] >= 0x20 && p[i] <= 0x7e) len = (size_t)snprintf(piece, sizeof piece, "%c", p[i]);
        else len = (size_t)snprintf(piece, sizeof piece, "\\x%02x", p[i]);
        /* Keep room for "..." in case more follows. */
        if (o + len + 3 >= cap) break;
        memcpy(buf + o, piece, len);
        o += len;
    }
    bool more = i < n && !(n == SIZE_MAX && p[i] == '\0');
    if (more) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

const char *app_option_value(int argc, char **argv, int *i, const char *name, bool *missing) {
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return NULL;
    if (arg[n] == '=') return arg + n + 1;
    if (arg[n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

/* ---------------------------------------------------------------------------
 * Device choice
 * ------------------------------------------------------------------------- */

int app_parse_device(const char *s, app_device_t *out) {
    if (!s) return -1;
    if (strcmp(s, "auto") == 0) *out = APP_DEVICE_AUTO;
    else if (strcmp(s, "cpu") == 0) *out = APP_DEVICE_CPU;
    else if (strcmp(s, "gpu") == 0) *out = APP_DEVICE_GPU;
    else return -1;
    return 0;
}

const char *app_device_name(app_device_t d) {
    switch (d) {
    case APP_DEVICE_AUTO: return "auto";
    case APP_DEVICE_CPU: return "cpu";
    case APP_DEVICE_GPU: return "gpu";
    }
    return "?";
}

/* ---------------------------------------------------------------------------
 * Number parsing
 * ------------------------------------------------------------------------- */

static int set_err(char *err, size_t errlen, const char *fmt, ...) APP_PRINTF(3, 4);
static int set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Checks "[sign]digits" with nothing else; *neg tells the sign. */
static int is_decimal_integer(const char *s, int *neg) {
    const char *p = s;
    *neg = 0;
    if (*p == '+' || *p == '-') *neg = (*p++ == '-');
    if (!isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) ++p;
    return *p == '\0';
}

int app_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out, char *err, size_t errlen) {
    int neg;
    if (!s || !is_decimal_integer(s, &neg)) return set_err(err, errlen, "'%s' is not an integer", s ? s : "");
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE || v < lo || v > hi)
        return set_err(err, errlen, "'%s' is out of range [%" PRId64 ", %" PRId64 "]", s, lo, hi);
    *out = (int64_t)v;
    return 0;
}

int app_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *err, size_t errlen) {
    int neg;
    if (!s || !is_decimal_integer(s, &neg)) return set_err(err, errlen, "'%s' is not an integer", s ? s : "");
    if (neg) return set_err(err, errlen, "'%s' is out of range [%" PRIu64 ", %" PRIu64 "]", s, lo, hi);
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE || v < lo || v > hi)
        return set_err(err, errlen, "'%s' is out of range [%" PRIu64 ", %" PRIu64 "]", s, lo, hi);
    *out = (uint64_t)v;
    return 0;
}

int app_parse_f64(const char *s, double *out, char *err, size_t errlen) {
    if (!s || !*s || isspace((unsigned char)s[0]))
        return set_err(err, errlen, "'%s' is not a number", s ? s : "");
    /* strtod also takes hex floats and "nan(chars)"; numbers on our command
       lines are decimal, so refuse those forms to keep typos from passing. */
    const char *p = s + (s[0] == '+' || s[0] == '-');
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) return set_err(err, errlen, "'%s' is not a number", s);
    if (strchr(p, '(')) return set_err(err, errlen, "'%s' is not a number", s);
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0') return set_err(err, errlen, "'%s' is not a number", s);
    if (errno == ERANGE && isinf(v)) return set_err(err, errlen, "'%s' is too large for a double", s);
    *out = v;
    return 0;
}

/* Splits "X,Y" at the single comma into two NUL-terminated copies. */
static int split_pair(const char *s, char *a, char *b, size_t cap, char *err, size_t errlen) {
    const char *comma = s ? strchr(s, ',') : NULL;
    if (!comma || strchr(comma + 1, ','))
        return set_err(err, errlen, "'%s' is not a pair X,Y", s ? s : "");
    size_t la = (size_t)(comma - s), lb = strlen(comma + 1);
    if (la >= cap || lb >= cap) return set_err(err, errlen, "'%s' is too long for a pair X,Y", s);
    memcpy(a, s, la);
    a[la] = '\0';
    memcpy(b, comma + 1, lb + 1);
    return 0;
}

int app_parse_pair_f64(const char *s, double *x, double *y, char *err, size_t errlen) {
    char a[128], b[128], e[192];
    if (split_pair(s, a, b, sizeof a, err, errlen)) return -1;
    double vx = 0.0, vy = 0.0; /* set by app_parse_f64 on success; initialised for GCC, which cannot tell when inlined (-fPIE) */
    if (app_parse_f64(a, &vx, e, sizeof e)) return set_err(err, errlen, "in pair '%s': %s", s, e);
    if (app_parse_f64(b, &vy, e, sizeof e)) return set_err(err, errlen, "in pair '%s': %s", s, e);
    *x = vx;
    *y = vy;
    return 0;
}

int app_parse_pair_i64(const char *s, int64_t lo, int64_t hi, int64_t *x, int64_t *y, char *err,
                       size_t errlen) {
    char a[128], b[128], e[192];
    if (split_pair(s, a, b, sizeof a, err, errlen)) return -1;
    int64_t vx, vy;
    if (app_parse_i64(a, lo, hi, &vx, e, sizeof e)) return set_err(err, errlen, "in pair '%s': %s", s, e);
    if (app_parse_i64(b, lo, hi, &vy, e, sizeof e)) return set_err(err, errlen, "in pair '%s': %s", s, e);
    *x = vx;
    *y = vy;
    return 0;
}

int app_bad_option(const char *prog, int c, const struct option *longs, char **argv) {
    /* getopt_long reports a long option by its value in optopt (values of
     * 256 and up name long-only options), a short one by its letter. */
    const char *name = NULL;
    for (const struct option *l = longs; l->name; ++l)
        if (optopt >= 256 && l->val == optopt) name = l->name;
    if (c == ':') {
        if (name) app_error(prog, "option '--%s' needs a value", name);
        else app_error(prog, "option '-%c' needs a value", optopt);
    } else if (name) {
        app_error(prog, "option '--%s' takes no value", name);
    } else if (optopt > 0 && optopt < 256) {
        app_error(prog, "unknown option '-%c' (see --help)", optopt);
    } else {
        const char *a = argv[optind - 1], *eq = strchr(a, '=');
        app_error(prog, "unknown or ambiguous option '%.*s' (see --help)", eq ? (int)(eq - a) : (int)strlen(a), a);
    }
    return APP_EXIT_USAGE;
}
