/* rs_runs.h -- the sorted runs of the out-of-core sort, in one logical
 * temporary file.
 *
 * Run r (the r-th chunk of the input, sorted) sits at r * chunk records of
 * the file: its keys, then (--argsort) its records' input positions as u64,
 * then (--values) its values already in the run's sorted order. The logical
 * file is striped over one anonymous file per I/O thread (RS_STRIPE bytes
 * each in turn), so that concurrent writes hold different files' locks. The
 * files are unnamed (common/temp_file.h, in $TMPDIR else /tmp), so none is
 * left behind by a crash or a signal.
 *
 * All I/O is large pread/pwrite, split into pieces of a few MiB spread over
 * several threads, so the page cache's copies run in parallel. A sample of
 * every RS_SAMPLE-th mapped key of each run stays in memory: the co-rank of a
 * window's end (rs_merge.h) then binary-searches the samples and reads one
 * block of RS_SAMPLE keys per run, never a run's whole key array. */
#ifndef RS_RUNS_H
#define RS_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "rs_merge.h"

#define RS_SAMPLE 1024 /* records between two samples of a run */
#define RS_STRIPE ((uint64_t)4 << 20) /* bytes of the logical file in one file before the next */
#define RS_MAX_FILES 16

typedef struct rs_run {
    off_t at;             /* file offset of the run's keys */
    uint64_t first, last; /* mapped keys of its first and last record */
} rs_run_t;

typedef struct rs_spill {
    int fds[RS_MAX_FILES]; /* the stripes' files */
    unsigned nfiles;
    const char *dir;       /* where the file is (for messages) */
    size_t chunk;          /* records of a full run */
    size_t ks, vsize;      /* key and value bytes */
    bool has_idx;          /* --argsort: input positions stored */
    rs_keymap_t map;
    size_t nruns;
    rs_run_t *runs;
    size_t *lens;          /* records of each run */
    size_t *scratch;       /* nruns words for rs_corank */
    uint64_t *samples;     /* run r's at r * per_run */
    size_t per_run;        /* samples of a full run */
    unsigned threads;      /* I/O threads */
    unsigned char *stage;  /* a staging buffer for each I/O thread */
    unsigned char *block;  /* co-rank: RS_SAMPLE keys of each run, cached */
    size_t *block_id;      /* which block each run's cache holds (SIZE_MAX none) */
    int search_errno;      /* a read error during a co-rank */
} rs_spill_t;

/* Creates the files for nruns runs of up to `chunk` records. Returns 0, or -1
 * with the message in err. s is then safe to close. */
int rs_spill_open(rs_spill_t *s, size_t nruns, size_t chunk, size_t ks, bool has_idx, size_t vsize,
                  const rs_keymap_t *map, unsigned threads, char *err, size_t errlen);

/* Writes run r: len sorted keys; perm[i] = the chunk position of the i-th
 * sorted key (NULL when neither --argsort nor values need it); base = the
 * chunk's first input position; vals = the chunk's values in input order
 * (NULL without values). Returns 0, or -1 with the message in err. */
int rs_spill_run(rs_spill_t *s, size_t r, const void *keys, const uint64_t *perm, uint64_t base, const void *vals,
                 size_t len, char *err, size_t errlen);

/* The co-rank of t over all runs (rs_corank) into split[nruns]. Returns 0,
 * or -1 with the message in err (a read error). */
int rs_spill_split(rs_spill_t *s, size_t t, size_t *split, char *err, size_t errlen);

/* Reads records [from[r], to[r]) of every run into w (its buffers hold
 * the total; its len/at arrays nruns entries), and for --unique the mapped
 * key of the merge's record just before the window. Returns 0, or -1 with
 * the message in err. */
int rs_spill_read_window(rs_spill_t *s, const size_t *from, const size_t *to, bool unique, rs_window_t *w,
                         char *err, size_t errlen);

/* Closes the files (which then disappear) and frees s's memory. */
void rs_spill_close(rs_spill_t *s);

#endif
