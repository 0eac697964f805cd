/* cli.h -- what the libscan programs share on the command line: exit codes,
 * one-line error messages, device choice (GPU or CPU fallback), atomic output
 * files, strict number parsing, progress and timing on stderr.
 *
 * Plain C (C99-clean), usable from C and C++. Link the `app_common` target and
 * write `#include "common/cli.h"`. Nothing here exits or aborts; every function
 * reports failure through its return value. Not thread-safe unless stated. */
#ifndef APP_COMMON_CLI_H
#define APP_COMMON_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define APP_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#define APP_PRINTF(fmt_idx, arg_idx)
#endif

/* ---------------------------------------------------------------------------
 * Exit codes and errors
 * ------------------------------------------------------------------------- */

/* Exit statuses of every program (libscan/DESIGN.md, "Programs"). */
#define APP_EXIT_OK 0       /* success */
#define APP_EXIT_USAGE 1    /* bad usage or bad input (files, values) */
#define APP_EXIT_INTERNAL 2 /* internal failure: GPU, out of memory, I/O error while writing */

/* Prints exactly one line "<prog>: <message>\n" to stderr. `fmt` is a printf
 * format for the message; a trailing newline in it is dropped, embedded
 * newlines are replaced by spaces so the output stays one line. */
void app_error(const char *prog, const char *fmt, ...) APP_PRINTF(2, 3);

/* app_bad_option: the one line for getopt_long's '?' or ':' return `c` (an
 * unknown option, a missing value, a value given to a flag), naming the
 * option as the user typed it; `longs` is the table given to getopt_long,
 * whose long-only options have values of 256 and up. Returns APP_EXIT_USAGE. */
struct option;
int app_bad_option(const char *prog, int c, const struct option *longs, char **argv);

/* app_error() with a va_list, for callers wrapping it in their own variadic
 * function. */
void app_verror(const char *prog, const char *fmt, va_list ap);

/* Makes bytes read from a file safe to quote in a message: printable ASCII
 * (0x20..0x7e) is copied, a backslash becomes "\\", and every other byte
 * (control characters such as ESC or NUL, DEL, bytes >= 0x80) becomes "\xHH",
 * so file content can never move the cursor, change colours or reprogram the
 * terminal the message is printed on. Escapes the first n bytes of s (stops
 * early at a NUL only when n is SIZE_MAX, i.e. for a C string); the result in
 * buf (cap bytes, cap >= 4) is always NUL-terminated and ends in "..." when it
 * had to be cut. Returns buf. Every message that quotes file content (a text
 * token, a .npy key or dtype, a PNG chunk name) goes through this. */
const char *app_escape(const void *s, size_t n, char *buf, size_t cap);

/* Value of option `name` given as "--name VALUE" or "--name=VALUE" at argv[*i],
 * or NULL when argv[*i] is not that option. Advances *i past a separate VALUE.
 * When argv[*i] is exactly `name` but no value follows, returns NULL and sets
 * *missing = true (the caller reports "option --name needs a value"). */
const char *app_option_value(int argc, char **argv, int *i, const char *name, bool *missing);

/* ---------------------------------------------------------------------------
 * Device choice
 * ------------------------------------------------------------------------- */

typedef enum {
    APP_DEVICE_AUTO = 0, /* the GPU when usable, else the CPU (with one note on stderr) */
    APP_DEVICE_CPU = 1,
    APP_DEVICE_GPU = 2
} app_device_t;

/* Parses "auto", "cpu" or "gpu" (exact, lower case) into *out.
 * Returns 0, or -1 for anything else (*out untouched). */
int app_parse_device(const char *s, app_device_t *out);

/* "auto", "cpu", "gpu" ("?" for values outside the enum). Never NULL. */
const char *app_device_name(app_device_t d);

/* 1 when a CUDA device is present and usable: cudaGetDeviceCount() reports at
 * least one device and cudaFree(0) (which creates the context) succeeds.
 * Otherwise 0, with the reason (e.g. "no CUDA device found", or the CUDA error
 * name and text) written to why (n bytes, NUL-terminated; why may be NULL when
 * n is 0). The result is computed once and cached for the process; when
 * app_gpu_warm_start() runs the probe, this waits for it. Main thread only. */
int app_gpu_usable(char *why, size_t n);

/* Starts app_gpu_usable()'s probe (cudaGetDeviceCount + cudaFree(0), which
 * creates the CUDA context: 0.2-0.6 s on an H100 machine) on a thread and
 * returns at once, so the program opens and checks its inputs, creates its
 * outputs and reads its data meanwhile. Call it right after parsing the
 * options, before any other CUDA call (none may be made until
 * app_gpu_usable() or app_choose_device() has joined the probe). Does
 * nothing for APP_DEVICE_CPU or when the probe already ran. The process
 * waits for the probe at exit (a run that fails early on bad input must not
 * tear the runtime down while the context is being created). Main thread
 * only. */
void app_gpu_warm_start(app_device_t requested);

/* Tells the CUDA driver the most streams this program keeps busy at once:
 * CUDA_DEVICE_MAX_CONNECTIONS = streams (1..32), the hardware work queues
 * the context is created with, unless the environment sets it already. The
 * driver's default is 8, and every queue costs time at the start and at the
 * exit: on the H200 machine the context took 100-125 ms to create and
 * 60-68 ms to destroy with 8, 50-65 ms and 24-30 ms with 1
 * (bench/results/2026-11-28-h200-465a813/probes.md). More streams than queues
 * still work, only their work may then wait for each other's. Call before
 * app_gpu_warm_start() and before any thread is started (it calls setenv).
 * Main thread only. */
void app_gpu_streams(int streams);

/* Decides where to run. AUTO: the GPU when usable; else prints ONCE per process
 * "<prog>: no usable GPU (<reason>); running on the CPU" on stderr and
 * chooses the CPU. CPU: the CPU, no GPU probe. GPU: the GPU when usable, else
 * prints "<prog>: --device gpu: no usable GPU (<reason>)" and returns
 * APP_EXIT_INTERNAL.
 * On success sets *chosen to APP_DEVICE_CPU or APP_DEVICE_GPU and returns
 * APP_EXIT_OK. An invalid `requested` gives APP_EXIT_USAGE. */
int app_choose_device(const char *prog, app_device_t requested, app_device_t *chosen);

/* ---------------------------------------------------------------------------
 * Atomic output files
 *
 * app_out_open() creates a temporary file "<dir>/.<name>.XXXXXX" beside the
 * final path (so the final rename stays within one file system); the program
 * writes through app_out_file(); app_out_commit() flushes, closes and renames
 * it over the final name (no fsync: as cp, sort -o and numpy.save, the data
 * reaches the disk when the kernel writes it back); app_out_abort() closes and unlinks it. A failure at
 * any step leaves no file behind, and an existing file at the final path is
 * only replaced by a complete new one. Pending temporary files are removed if
 * the process gets SIGINT, SIGTERM or SIGHUP (the handler unlinks them and
 * re-raises the signal with its default action), also those that other
 * threads are creating at that moment (such an app_out_open() fails with
 * "interrupted by a signal" as the process dies). The committed file gets mode
 * 0666 & ~umask, like a file made by fopen().
 * The path "-" means standard output: no temporary file, commit only flushes.
 * An existing path that is not a regular file (a character or block device
 * such as /dev/null or /dev/full, a FIFO) is opened and written in place, as
 * cp does, never replaced: no temporary file, commit flushes and closes, and
 * a write error there (ENOSPC from /dev/full) fails the write or the commit.
 * What was written to it cannot be taken back by abort. A socket is refused.
 * ------------------------------------------------------------------------- */

typedef struct app_out app_out_t; /* opaque */

/* Temporary files one process may have open at once (the signal clean-up's
 * table); app_out_open() fails beyond ("too many output files open at
 * once"), so a program writing on many threads keeps below it. */
#define APP_OUT_MAX_PENDING 32

/* Removes every pending temporary file now, as the SIGINT/SIGTERM/SIGHUP
 * handler does, and makes later app_out_open() calls fail: for a handler
 * of another fatal signal (out_map.h's SIGBUS) that then ends the process.
 * Async-signal-safe. */
void app_out_remove_pending(void);

/* Opens `path` for atomic writing. Returns the handle, or NULL with the reason
 * in err (errlen bytes, NUL-terminated), naming the path, e.g.
 * "out/x.npy: cannot create a file in directory 'out': No such file or directory".
 * On failure errno holds the cause (e.g. ENOENT or EACCES from creating the
 * temporary file, EISDIR), for callers that word their own message.
 * The caller must end every handle with exactly one app_out_commit() or
 * app_out_abort(). */
app_out_t *app_out_open(const char *path, char *err, size_t errlen);

/* The stream to write to (binary mode; valid until commit/abort). */
FILE *app_out_file(app_out_t *o);

/* The final path given to app_out_open(). */
const char *app_out_path(const app_out_t *o);

/* Completes the file: fflush, close (both report write errors such as a full
 * disk), rename over the final path. No fsync (see out_file.c).
 * Returns 0, or -1 with the reason in err (naming the path), in which case
 * the temporary file has been removed. Frees o in both cases. */
int app_out_commit(app_out_t *o, char *err, size_t errlen);

/* Discards the file: closes and unlinks the temporary file; the final path is
 * left as it was. Frees o. NULL is allowed (no-op). */
void app_out_abort(app_out_t *o);

/* 1 when a and b both exist and are the same file (same device and inode),
 * also through different names (links, "./x" vs "x"); 0 otherwise, including
 * when either does not exist or is "-". Programs use it to refuse to write
 * their output over their input. */
int app_same_file(const char *a, const char *b);

/* ---------------------------------------------------------------------------
 * Strict number parsing for option values
 *
 * The whole string must be consumed (no leading/trailing spaces, no empty
 * string). On error the functions return -1 and write a message into err
 * (errlen bytes) such as "'12x' is not an integer" or
 * "'300' is out of range [0, 255]"; the caller prefixes the option name.
 * On success they return 0 and store the value.
 * ------------------------------------------------------------------------- */

/* Decimal integer with optional sign, in [lo, hi]. */
int app_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out, char *err, size_t errlen);

/* Decimal integer with optional '+', in [lo, hi] ("-1" is an error). */
int app_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *err, size_t errlen);

/* Floating-point number: decimal or exponent form, "nan", "inf", "infinity"
 * (any case, optional sign). Finite values that overflow a double are an
 * error; underflow to a subnormal or zero is accepted. */
int app_parse_f64(const char *s, double *out, char *err, size_t errlen);

/* "X,Y" where X and Y are each parsed by app_parse_f64 (no spaces). */
int app_parse_pair_f64(const char *s, double *x, double *y, char *err, size_t errlen);

/* "X,Y" where X and Y are each parsed by app_parse_i64 in [lo, hi]. */
int app_parse_pair_i64(const char *s, int64_t lo, int64_t hi, int64_t *x, int64_t *y, char *err,
                       size_t errlen);

/* ---------------------------------------------------------------------------
 * Progress on stderr
 *
 * Shown only when stderr is a terminal, `quiet` is false and the work has run
 * for more than about one second; redrawn at most 4 times a second on one
 * line ("<prog>: <label> 42%"), erased by app_progress_end(). Cheap to call
 * often (one clock read per call).
 * ------------------------------------------------------------------------- */

typedef struct app_progress {
    /* private: use the functions below */
    const char *prog, *label;
    uint64_t total;
    double start, last_draw;
    bool enabled, drawn;
} app_progress_t;

/* Starts tracking work of `total` units (0 = unknown: shows a count instead of a
 * percentage). prog and label must outlive the tracking. */
void app_progress_begin(app_progress_t *p, const char *prog, const char *label, uint64_t total,
                        bool quiet);

/* Reports that `done` units are finished (absolute, not an increment). */
void app_progress_update(app_progress_t *p, uint64_t done);

/* Erases the progress line if one was drawn. Safe to call more than once. */
void app_progress_end(app_progress_t *p);

/* ---------------------------------------------------------------------------
 * Timing of named phases (--timing)
 *
 * Phases ("read", "upload", "compute", "download", "write", or any label) are
 * timed with a monotonic clock and accumulated by name, in first-use order.
 * GPU phases must be synchronised by the caller before app_timing_stop() (the
 * clock is the host's). When disabled every call is a no-op.
 * ------------------------------------------------------------------------- */

#define APP_TIMING_MAX_PHASES 16
#define APP_TIMING_NAME_MAX 24

typedef struct app_timing {
    /* private: use the functions below */
    bool enabled;
    int count;       /* phases used */
    int current;     /* index of the running phase, -1 when none */
    double started;
    double t0;       /* app_now() at init */
    struct {
        char name[APP_TIMING_NAME_MAX];
        double seconds;
        unsigned calls;
        double from, to; /* first start and last end, app_now() clock */
        bool added;      /* by app_timing_add: its place in the run is not known */
    } phase[APP_TIMING_MAX_PHASES];
    char note[160];      /* app_timing_note */
} app_timing_t;

/* Seconds on a monotonic clock (CLOCK_MONOTONIC), for the caller's own use. */
double app_now(void);

/* Resets t; `enabled` is the value of --timing. */
void app_timing_init(app_timing_t *t, bool enabled);

/* Starts phase `name` (truncated to APP_TIMING_NAME_MAX - 1 characters),
 * stopping the running phase first if there is one. Beyond
 * APP_TIMING_MAX_PHASES distinct names, the time goes to a phase "other". */
void app_timing_start(app_timing_t *t, const char *name);

/* Stops the running phase, adding its time to its total. No-op when none runs. */
void app_timing_stop(app_timing_t *t);

/* Adds `seconds` measured elsewhere (e.g. with CUDA events) to phase `name`. */
void app_timing_add(app_timing_t *t, const char *name, double seconds);

/* Records phase `name` as a stage that ran from `from` to `to` (app_now()
 * clock values) alongside others, as the streaming pipelines' read, upload,
 * download and write do (stream_io.h). Its time is its wall span (from its
 * first to its last piece of work, waits included), several spans of one
 * name merge into one from the earliest start to the latest end. A span
 * with to < from (a stage that did nothing) is ignored. */
void app_timing_span(app_timing_t *t, const char *name, double from, double to);

/* Records the GPU probe (app_gpu_usable, warm-started or not) as the span
 * "gpu init", its wall time from start to end, placed in the run; nothing
 * when no probe ran. Call after app_choose_device(). */
void app_timing_gpu_init(app_timing_t *t);

/* Total seconds of phase `name` so far (0 when unknown). */
double app_timing_get(const app_timing_t *t, const char *name);

/* A few words for the table's first line (e.g. where the work ran and why),
 * copied (at most 159 characters). */
void app_timing_note(app_timing_t *t, const char *note);

/* Counts the run's wall time (the total, and the "at" places) from t0
 * (app_now() clock) instead of from app_timing_init(): for a table made at
 * the end from totals kept elsewhere. */
void app_timing_since(app_timing_t *t, double t0);

/* Stops the running phase and, when enabled, prints one table to stderr, in
 * one style for every program and path:
 *   <prog>: timing [note] (each stage's time; at = from .. to ms into the run; stages may overlap, so the total is the wall time)
 *     gpu init      319.000 ms  at      0.1 ..    319.1
 *     read           80.123 ms  at     12.0 ..     92.1
 *     decode         12.000 ms
 *     ...
 *     total (wall)  410.000 ms
 * A stage's time is the sum of its app_timing_start/stop pieces (or of
 * app_timing_add), or its wall span for app_timing_span; `at` is its first
 * start and last end (none for times only added). Does nothing when
 * disabled. */
void app_timing_print(app_timing_t *t, const char *prog);

#ifdef __cplusplus
}
#endif
#endif
