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

#endif
