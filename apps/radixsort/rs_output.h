/* rs_output.h -- radixsort's outputs, committed together.
 *
 * radixsort may write two files (the keys and --values-out). Each one goes
 * through an arr_writer, but the writer's commit renames its file into place
 * at once; committing one writer and then failing on the other would leave
 * a new values file beside an old keys file. So each writer here targets a
 * hidden stage name beside the final path (".<name>.rs<pid>-<n>"), and the
 * stages are renamed over the final paths only after every output was
 * written, flushed and closed (rs_outputs_publish). A failure before that
 * leaves every existing file as it was.
 *
 * Stage files are removed on SIGINT/SIGTERM/SIGHUP by a handler that then
 * hands the signal on to the handler apps/common installed for its own
 * temporary files (which re-raises it with the default action).
 * "-" (standard output) is written directly: it cannot be staged. */
#ifndef RS_OUTPUT_H
#define RS_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include "common/array_io.h"

typedef struct rs_output {
    const char *path;  /* final path, "-" for standard output */
    char *stage;       /* stage path (malloc'd), NULL for standard output */
    int slot;          /* index in the signal handler's table, -1 when none */
    arr_writer_t *w;   /* open between open and finish */
    int finished;      /* the stage holds the complete file */
} rs_output_t;

/* Opens a writer for `path` (format resolved from `path`, not from the stage
 * name). Errors name `path`. Returns ARR_OK or an error (o is then empty). */
arr_status_t rs_output_open(rs_output_t *o, const char *path, arr_format_t format, arr_dtype_t dtype,
                            size_t count, char *err, size_t errlen);

/* o's writer, for code that writes through it itself (stream_io.h's sinks,
 * whose messages name o->path). Valid between open and finish. */
arr_writer_t *rs_output_writer(rs_output_t *o);

/* arr_writer_write on o's writer, with errors naming the final path. */
arr_status_t rs_output_write(rs_output_t *o, const void *data, size_t k, char *err, size_t errlen);

/* Completes o's file into its stage (flush, close, rename to the stage).
 * For standard output this flushes it. On error the stage is gone. */
arr_status_t rs_output_finish(rs_output_t *o, char *err, size_t errlen);

/* Renames every finished stage over its final path. Call only when every
 * output of the run is finished. Returns ARR_OK, or ARR_ERR_SYSTEM when a
 * rename failed (the rest are aborted). */
arr_status_t rs_outputs_publish(rs_output_t *outs, size_t n, char *err, size_t errlen);

/* Discards o: aborts its writer and removes its stage. Safe on an empty or
 * published output, and more than once. */
void rs_output_abort(rs_output_t *o);

/* ---- both outputs of a run, each written through a sink ------------------ */

typedef struct app_sink app_sink_t; /* common/stream_io.h */

typedef struct rs_outputs {
    rs_output_t o[2]; /* [0] the keys (or argsort's positions), [1] the values */
    app_sink_t *k[2]; /* their sinks (stream_io.h), NULL where no output */
} rs_outputs_t;

/* Empties x (before open, so that abort is safe whatever happens). */
void rs_outputs_init(rs_outputs_t *x);

/* Opens the outputs named in paths[] (NULL: none) for elements of dtypes[],
 * `count` each (ARR_COUNT_UNKNOWN where not known yet), both before either
 * is written (a bad path is reported before work is spent on the other).
 * With a known count their room is taken now (a full disk shows at once),
 * as `mode` says. Errors name the path. */
typedef enum {
    RS_OUT_RESERVE,     /* fallocate'd, written with pwrite (app_sink_reserve) */
    RS_OUT_MAP,         /* mapped (app_sink_map), the pages faulted in by the copies */
    RS_OUT_MAP_PREFAULT /* mapped, the pages faulted in on threads from now on, while the caller works */
} rs_out_mode_t;
arr_status_t rs_outputs_open(rs_outputs_t *x, const char *const paths[2], arr_format_t format,
                             const arr_dtype_t dtypes[2], size_t count, rs_out_mode_t mode, char *err,
                             size_t errlen);

/* Closes the sinks, completes both files in their stages, then renames both
 * into place: a failure leaves every old file as it was. */
arr_status_t rs_outputs_commit(rs_outputs_t *x, char *err, size_t errlen);

/* Discards whatever x holds (no file left). Safe more than once. */
void rs_outputs_abort(rs_outputs_t *x);

#endif
