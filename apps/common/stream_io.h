/* stream_io.h -- array files moved between the disk and memory (host or GPU)
 * with the stages overlapped, shared by radixsort and compact.
 *
 * A source (app_src_t) reads the elements of an array file; a sink
 * (app_sink_t) writes them into an array_io writer's file (the atomic
 * temporary file of cli.h's app_out, or radixsort's stage). Two ways to use
 * them:
 *
 *  - whole arrays: app_src_read() of a range into host memory and
 *    app_sink_write() of host memory, each on several threads at once
 *    (par_io.h); the CPU path.
 *  - chunks through a ring of staging buffers (app_ring_t, pinned for the
 *    GPU): the read pipe (app_rpipe_*) hands out the file's chunks in order
 *    while reader threads fill the next ones, so reading chunk i+1 overlaps
 *    whatever the caller does with chunk i (an upload, a compaction); the
 *    write pipe (app_wpipe_*) takes filled buffers and writer threads put
 *    them into the file, each at its offset, while the caller fills the next
 *    (a download). Memory stays bounded by the ring whatever the file's size.
 *
 * Fast path: binary files (.npy in either byte order, raw) are read with
 * pread and written with pwrite at known offsets, by app_io_threads()
 * threads (par_io.h); a byte-swapped .npy is swapped by the thread that read
 * it. Text files (and .npy output on a big-endian host) keep array_io's
 * sequential reader and writer, on one thread, still overlapped with the
 * caller. Outputs that cannot seek (standard output, a FIFO, a device) are
 * written in order with write().
 *
 * Chunk size: app_stream_chunk_bytes(), 4 MiB unless the environment
 * variable LIBSCAN_STREAM_CHUNK gives another byte count (at least one
 * element is always taken), so tests can force many small chunks.
 *
 * Errors: arr_status_t as in array_io.h, with one message naming the file.
 * Nothing here prints, exits or aborts. */
#ifndef APP_COMMON_STREAM_IO_H
#define APP_COMMON_STREAM_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "common/array_io.h"
#include "common/host_mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes per chunk: LIBSCAN_STREAM_CHUNK (a positive integer) or 4 MiB.
 * Read once per process. */
size_t app_stream_chunk_bytes(void);

/* Elements of `elem_size` bytes per chunk: app_stream_chunk_bytes() / size,
 * at least 1. */
size_t app_stream_chunk_elems(size_t elem_size);

/* A stage's wall span: the first start and the last end of its work
 * (app_now() clock; last < first while it did nothing), for
 * app_timing_span(). */
typedef struct app_span {
    double first, last;
} app_span_t;

#define APP_SPAN_NONE {1e300, -1e300}

/* Widens *s to include [a, b]. Not thread-safe: the pipes call it under
 * their lock. */
void app_span_add(app_span_t *s, double a, double b);

/* ---------------------------------------------------------------------------
 * Sources
 * ------------------------------------------------------------------------- */

typedef struct app_src app_src_t; /* opaque */

/* Opens an array file as arr_reader_open() does (same arguments, checks and
 * messages). */
arr_status_t app_src_open(app_src_t **s, const char *path, arr_format_t format, arr_dtype_t raw_dtype, char *err,
                          size_t errlen);

arr_dtype_t app_src_dtype(const app_src_t *s);
size_t app_src_count(const app_src_t *s);
const char *app_src_notice(const app_src_t *s); /* as arr_reader_notice */
const char *app_src_path(const app_src_t *s);

/* true for a binary file: any range may be read, from any thread. false for
 * text: ranges must be read in order, one after the other. */
bool app_src_random_access(const app_src_t *s);

/* Reads elements [first, first + count) into dst (native byte order), on up
 * to `threads` threads for a binary file. A text file must be read in
 * order: first is the next unread element. Errors: the file changed (ended
 * early), a read error, a malformed text line. */
arr_status_t app_src_read(app_src_t *s, size_t first, size_t count, void *dst, int threads, char *err,
                          size_t errlen);

/* Closes and frees s. NULL is fine. */
void app_src_close(app_src_t *s);

/* ---------------------------------------------------------------------------
 * Sinks
 * ------------------------------------------------------------------------- */

typedef struct app_sink app_sink_t; /* opaque */

/* A sink that appends elements of w's dtype to w's file, after what w holds.
 * `name` (kept, not copied) is the path that messages give: the user's, not
 * a temporary name. w stays the caller's: commit or abort it after
 * app_sink_close(). Every element written through the sink is counted in w
 * (arr_writer_add_written), so w's commit checks the total. After the sink,
 * only commit or abort may follow on w. */
arr_status_t app_sink_open(app_sink_t **k, arr_writer_t *w, const char *name, char *err, size_t errlen);

/* A sink into an anonymous temporary file (no name: nothing to clean up on
 * any exit) of raw elements of `elem_size` bytes, beside `near_path` (in its
 * folder, so that appending it there later can share blocks; "-" or a
 * folder that refuses: $TMPDIR or /tmp). For data that goes after data not
 * known yet (compact --partition's rejected elements). */
arr_status_t app_sink_open_spill(app_sink_t **k, const char *near_path, size_t elem_size, char *err, size_t errlen);

/* Elements appended so far. */
size_t app_sink_count(const app_sink_t *k);

/* Tells the file system that `count` more elements will follow (fallocate:
 * the blocks are found now, and a full disk is reported before the work).
 * Only where the sink writes at offsets; elsewhere, and where the file
 * system has no fallocate, it does nothing and succeeds. */
arr_status_t app_sink_reserve(app_sink_t *k, size_t count, char *err, size_t errlen);

/* Tells the sink that exactly `count` more elements will follow, and where
 * it writes a regular file at offsets, writes them through a mapping of the
 * file (out_map.h: fallocate, mmap, its pages faulted in on `threads`
 * threads from now on, while the caller does other work; 0: not ahead, by
 * the copies themselves; the elements are then memcpy'd). Where the mapping cannot be had (LIBSCAN_OUT_MAP=0, a
 * file system without fallocate, standard output, a device, text), it is
 * app_sink_reserve() and the elements go with pwrite/write as before.
 * Returns ARR_OK, or a write error (a full disk, the file-size limit)
 * found by fallocate. */
arr_status_t app_sink_map(app_sink_t *k, size_t count, int threads, char *err, size_t errlen);

/* Appends count elements from data (host memory, native order), on up to
 * `threads` threads where the sink writes at offsets. */
arr_status_t app_sink_write(app_sink_t *k, const void *data, size_t count, int threads, char *err, size_t errlen);

/* Appends everything in `spill` (from app_sink_open_spill, same element
 * size) to k, then closes spill. In the kernel where it can (copy_file_range),
 * else through a buffer. */
arr_status_t app_sink_append_spill(app_sink_t *k, app_sink_t *spill, int threads, char *err, size_t errlen);

/* Frees k (a spill's file goes with it). The writer, if any, is not touched.
 * NULL is fine. */
void app_sink_close(app_sink_t *k);

/* ---------------------------------------------------------------------------
 * Rings of staging buffers
 * ------------------------------------------------------------------------- */

typedef struct app_ring {
    int n;             /* buffers */
    size_t bytes;      /* bytes in each */
    void *buf[64];     /* the buffers, each on a 4 KiB boundary of mem */
    app_hostbuf_t mem; /* all of them in one block */
} app_ring_t;

/* n (1 to 64) buffers of `bytes` each, pinned when asked (host_mem.h), in
 * one block. Returns ARR_OK, or ARR_ERR_SYSTEM ("out of memory ...", naming
 * `what`). app_ring_free empties it (an empty or freed ring is fine). */
arr_status_t app_ring_alloc(app_ring_t *r, int n, size_t bytes, bool pinned, const char *what, char *err,
                            size_t errlen);
void app_ring_free(app_ring_t *r);

/* ---------------------------------------------------------------------------
 * The read pipe: a source's chunks, in order, read ahead by threads
 * ------------------------------------------------------------------------- */

typedef struct app_rpipe app_rpipe_t; /* opaque */

typedef struct app_chunk {
    size_t index; /* 0, 1, 2, ... */
    size_t first; /* element of the file it starts at */
    size_t count; /* elements in it (0 only at the end) */
    void *data;   /* count elements in a ring buffer, NULL at the end */
    int slot;     /* which buffer */
} app_chunk_t;

/* Starts reading elements [first, first + count) of s in chunks of
 * chunk_elems (the last may be shorter) into the ring's buffers, `headroom`
 * bytes into each (bytes the caller may fill before the data, e.g. the last
 * element of the previous chunk; the ring's buffers must hold headroom +
 * chunk_elems elements). `threads` reader threads (one for a text file)
 * read ahead as long as buffers are free. s and ring must outlive the pipe.
 * Returns ARR_OK or ARR_ERR_SYSTEM (no thread could be started). */
arr_status_t app_rpipe_start(app_rpipe_t **p, app_src_t *s, size_t first, size_t count, app_ring_t *ring,
                             size_t headroom, size_t chunk_elems, int threads, char *err, size_t errlen);

/* The next chunk in order, once read (waits for it). At the end c->data is
 * NULL and c->count 0. On a read error returns the error (every later call
 * returns it too). */
arr_status_t app_rpipe_next(app_rpipe_t *p, app_chunk_t *c, char *err, size_t errlen);

/* Gives c's buffer back for the chunks to come. Every chunk from next()
 * must be released, in any order; a buffer is reused only after that. */
void app_rpipe_release(app_rpipe_t *p, const app_chunk_t *c);

/* The reading's wall span so far. */
app_span_t app_rpipe_span(app_rpipe_t *p);

/* Stops the readers (at the end, after an error, or to give up early),
 * joins them and frees p. NULL is fine. */
void app_rpipe_stop(app_rpipe_t *p);

/* ---------------------------------------------------------------------------
 * The write pipe: filled buffers written by threads while the next are filled
 * ------------------------------------------------------------------------- */

typedef struct app_wpipe app_wpipe_t; /* opaque */

/* Starts `threads` writer threads on sink k (one where the sink cannot write
 * at offsets), with the ring's buffers to fill. k and ring must outlive the
 * pipe. Returns ARR_OK or ARR_ERR_SYSTEM. */
arr_status_t app_wpipe_start(app_wpipe_t **p, app_sink_t *k, app_ring_t *ring, int threads, char *err,
                             size_t errlen);

/* A free buffer (waits for one); its index in *slot. NULL once a write has
 * failed (app_wpipe_finish says why). */
void *app_wpipe_acquire(app_wpipe_t *p, int *slot);

/* Queues `count` elements at `data`, which lies in buffer `slot` (from
 * acquire), to be appended after everything submitted before; the buffer
 * is free again once they are written. count 0 just frees the buffer. */
void app_wpipe_submit(app_wpipe_t *p, int slot, const void *data, size_t count);

/* Waits until everything submitted is written, joins the writers and frees
 * p; *span (when not NULL) receives the writing's wall span. Returns ARR_OK
 * or the first write error (e.g. "out.npy: write error: No space left on
 * device", ARR_ERR_SYSTEM). NULL is fine (ARR_OK, an empty span). */
arr_status_t app_wpipe_finish(app_wpipe_t *p, app_span_t *span, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
