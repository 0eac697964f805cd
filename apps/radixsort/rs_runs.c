/* rs_runs.c -- see rs_runs.h. */
#include "rs_runs.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/par_io.h"
#include "common/temp_file.h"
#include "rs_threads.h"

#define PIECE_BYTES ((size_t)4 << 20) /* one pread/pwrite: large, yet many per window for the threads */
#define STAGE_BYTES ((size_t)1 << 20) /* a thread's staging buffer for gathered values and offset positions */

/* ---- parallel I/O ---------------------------------------------------------- */

typedef enum { IO_READ, IO_WRITE, IO_WRITE_GATHER, IO_WRITE_OFFSET } io_op_t;

/* One pread or pwrite of count elements of esize bytes at off. GATHER writes
 * src[perm[i]] (the values in the run's order), OFFSET writes perm[i] + add
 * (input positions): both through the thread's staging buffer. */
typedef struct io_piece {
    io_op_t op;
    unsigned char *buf;       /* READ: destination; WRITE: source */
    const unsigned char *src; /* GATHER */
    const uint64_t *perm;     /* GATHER, OFFSET */
    uint64_t add;             /* OFFSET */
    size_t count, esize;
    off_t off;
} io_piece_t;

typedef struct io_list {
    io_piece_t *p;
    size_t n, cap;
    bool oom;
} io_list_t;

/* Appends the pieces of one transfer, each at most a piece (or a staging
 * buffer for transformed writes). */
static void io_add(io_list_t *l, io_op_t op, void *buf, const void *src, const uint64_t *perm, uint64_t add,
                   size_t count, size_t esize, off_t off) {
    const size_t per = (op == IO_READ || op == IO_WRITE ? PIECE_BYTES : STAGE_BYTES) / esize;
    for (size_t i = 0; i < count && !l->oom; i += per) {
        if (l->n == l->cap) {
            const size_t cap = l->cap ? 2 * l->cap : 64;
            io_piece_t *p = realloc(l->p, cap * sizeof *p);
            if (!p) {
                l->oom = true;
                return;
            }
            l->p = p;
            l->cap = cap;
        }
        io_piece_t *q = &l->p[l->n++];
        q->op = op;
        q->buf = buf ? (unsigned char *)buf + i * esize : NULL;
        q->src = src;
        q->perm = perm ? perm + i : NULL;
        q->add = add;
        q->count = count - i < per ? count - i : per;
        q->esize = esize;
        q->off = off + (off_t)(i * esize);
    }
}

/* One whole pread/pwrite on this thread (the pieces are already spread
 * over the threads): 0 or an errno, EIO where the file ended first. */
static int fd_io(int fd, bool write, unsigned char *buf, size_t bytes, off_t off) {
    const int e = write ? app_pwrite_full(fd, buf, bytes, (unsigned long long)off, 1)
                        : app_pread_full(fd, buf, bytes, (unsigned long long)off, 1, 1, NULL, NULL);
    return e == APP_IO_SHORT ? EIO : e;
}

/* pread/pwrite at offset `off` of the logical file, striped over the
 * spill's files: stripe i (RS_STRIPE bytes) is stripe i / nfiles of file
 * i % nfiles. A buffered write holds its file's lock (ext4, XFS, tmpfs), so
 * writers of one file take turns; over several files they run together. */
static int spill_io(const rs_spill_t *s, bool write, unsigned char *buf, size_t bytes, off_t off) {
    while (bytes) {
        const uint64_t stripe = (uint64_t)off / RS_STRIPE, within = (uint64_t)off % RS_STRIPE;
        const size_t n = bytes < RS_STRIPE - within ? bytes : (size_t)(RS_STRIPE - within);
        const off_t at = (off_t)((stripe / s->nfiles) * RS_STRIPE + within);
        const int e = fd_io(s->fds[stripe % s->nfiles], write, buf, n, at);
        if (e) return e;
        buf += n;
        bytes -= n;
        off += (off_t)n;
    }
    return 0;
}

typedef struct io_ctx {
    const io_list_t *list;
    const rs_spill_t *spill;
    unsigned char *stage;
    atomic_int err; /* the first errno */
} io_ctx_t;

static void io_task(void *p, size_t i, unsigned thread) {
    io_ctx_t *x = p;
    const io_piece_t *q = &x->list->p[i];
    if (atomic_load(&x->err)) return;
    unsigned char *buf = q->buf;
    if (q->op == IO_WRITE_GATHER) {
        buf = x->stage + (size_t)thread * STAGE_BYTES;
        const size_t es = q->esize;
        for (size_t j = 0; j < q->count; ++j) memcpy(buf + j * es, q->src + q->perm[j] * es, es);
    } else if (q->op == IO_WRITE_OFFSET) {
        buf = x->stage + (size_t)thread * STAGE_BYTES;
        for (size_t j = 0; j < q->count; ++j) {
            const uint64_t v = q->perm[j] + q->add;
            memcpy(buf + j * 8, &v, 8);
        }
    }
    const int e = spill_io(x->spill, q->op != IO_READ, buf, q->count * q->esize, q->off);
    int none = 0;
    if (e) atomic_compare_exchange_strong(&x->err, &none, e);
}

/* Runs the list on the spill's threads. Returns 0 or the first errno. */
static int io_run(rs_spill_t *s, const io_list_t *l) {
    if (l->oom) return ENOMEM;
    io_ctx_t x = {l, s, s->stage, 0};
    rs_parallel_for(l->n, s->threads, io_task, &x);
    return atomic_load(&x.err);
}

/* ---- the file -------------------------------------------------------------- */

static size_t record_bytes(const rs_spill_t *s) { return s->ks + (s->has_idx ? 8 : 0) + s->vsize; }

int rs_spill_open(rs_spill_t *s, size_t nruns, size_t chunk, size_t ks, bool has_idx, size_t vsize,
                  const rs_keymap_t *map, unsigned threads, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    s->dir = app_temp_dir();
    s->chunk = chunk;
    s->ks = ks;
    s->vsize = vsize;
    s->has_idx = has_idx;
    s->map = *map;
    s->nruns = nruns;
    s->threads = threads ? threads : 1;
    s->per_run = (chunk + RS_SAMPLE - 1) / RS_SAMPLE;
    const size_t block = chunk < RS_SAMPLE ? chunk : RS_SAMPLE;
    s->runs = calloc(nruns + 1, sizeof *s->runs);
    s->lens = calloc(nruns + 1, sizeof *s->lens);
    s->scratch = calloc(nruns + 1, sizeof *s->scratch);
    s->samples = malloc((nruns * s->per_run + 1) * sizeof *s->samples);
    s->stage = malloc(s->threads * STAGE_BYTES);
    s->block = malloc(nruns * block * ks + 1);
    s->block_id = malloc((nruns + 1) * sizeof *s->block_id);
    if (!s->runs || !s->lens || !s->scratch || !s->samples || !s->stage || !s->block || !s->block_id) {
        snprintf(err, errlen, "out of host memory for %zu sorted runs", nruns);
        return -1;
    }
    for (size_t r = 0; r < nruns; ++r) {
        s->block_id[r] = SIZE_MAX;
        s->runs[r].at = (off_t)(r * chunk * record_bytes(s));
    }
    const unsigned files = s->threads < RS_MAX_FILES ? s->threads : RS_MAX_FILES;
    for (s->nfiles = 0; s->nfiles < files; ++s->nfiles) {
        const int fd = app_temp_file(s->dir);
        if (fd < 0) {
            snprintf(err, errlen, "cannot create a temporary file in %s for the sorted runs: %s", s->dir,
                     strerror(errno));
            return -1;
        }
        s->fds[s->nfiles] = fd;
    }
    return 0;
}

int rs_spill_run(rs_spill_t *s, size_t r, const void *keys, const uint64_t *perm, uint64_t base, const void *vals,
                 size_t len, char *err, size_t errlen) {
    rs_run_t *run = &s->runs[r];
    s->lens[r] = len;
    const unsigned char *k = keys;
    for (size_t i = 0; i < len; i += RS_SAMPLE) s->samples[r * s->per_run + i / RS_SAMPLE] = rs_map_key(&s->map, k + i * s->ks);
    if (len) {
        run->first = rs_map_key(&s->map, k);
        run->last = rs_map_key(&s->map, k + (len - 1) * s->ks);
    }
    io_list_t l = {NULL, 0, 0, false};
    off_t off = run->at;
    io_add(&l, IO_WRITE, (void *)k, NULL, NULL, 0, len, s->ks, off);
    off += (off_t)(len * s->ks);
    if (s->has_idx) {
        io_add(&l, IO_WRITE_OFFSET, NULL, NULL, perm, base, len, 8, off);
        off += (off_t)(len * 8);
    }
    if (s->vsize) io_add(&l, IO_WRITE_GATHER, NULL, vals, perm, 0, len, s->vsize, off);
    const int e = io_run(s, &l);
    free(l.p);
    if (e) {
        snprintf(err, errlen, "cannot write sorted run %zu to a temporary file in %s: %s", r, s->dir, strerror(e));
        return -1;
    }
    return 0;
}

/* ---- co-rank over the file ------------------------------------------------- */

/* The keys of block b of run r (RS_SAMPLE records from b * RS_SAMPLE), read
 * once and cached; NULL after a read error (in s->search_errno). */
static const unsigned char *run_block(rs_spill_t *s, size_t r, size_t b) {
    const size_t block = s->chunk < RS_SAMPLE ? s->chunk : RS_SAMPLE;
    unsigned char *buf = s->block + r * block * s->ks;
    if (s->block_id[r] == b) return buf;
    const size_t from = b * RS_SAMPLE, n = s->lens[r] - from < block ? s->lens[r] - from : block;
    const int e = spill_io(s, false, buf, n * s->ks, s->runs[r].at + (off_t)(from * s->ks));
    if (e) {
        s->block_id[r] = SIZE_MAX;
        if (!s->search_errno) s->search_errno = e;
        return NULL;
    }
    s->block_id[r] = b;
    return buf;
}

/* rs_count_fn over the file: the samples narrow the search to one block. */
static size_t count_run(void *ctx, size_t r, uint64_t v, bool inclusive) {
    rs_spill_t *s = ctx;
    const size_t len = s->lens[r];
    if (!len) return 0;
    const rs_run_t *run = &s->runs[r];
#define RS_IN(m) ((inclusive) ? (m) <= v : (m) < v)
    if (!RS_IN(run->first)) return 0;
    if (RS_IN(run->last)) return len;
    const uint64_t *smp = s->samples + r * s->per_run;
    size_t lo = 0, hi = (len + RS_SAMPLE - 1) / RS_SAMPLE;
    while (lo < hi) { /* the samples in: [0, lo) */
        const size_t mid = lo + (hi - lo) / 2;
        if (RS_IN(smp[mid])) lo = mid + 1;
        else hi = mid;
    }
    /* Sample lo - 1 is in, sample lo (if any) out: the boundary lies in
       block lo - 1, past its first record. */
    const size_t b = lo - 1, from = b * RS_SAMPLE;
    const unsigned char *keys = run_block(s, r, b);
    if (!keys) return from;
    size_t a = 1, z = len - from < RS_SAMPLE ? len - from : RS_SAMPLE;
    while (a < z) {
        const size_t mid = a + (z - a) / 2;
        if (RS_IN(rs_map_key(&s->map, keys + mid * s->ks))) a = mid + 1;
        else z = mid;
    }
#undef RS_IN
    return from + a;
}

int rs_spill_split(rs_spill_t *s, size_t t, size_t *split, char *err, size_t errlen) {
    uint64_t vlo = UINT64_MAX, vhi = 0;
    for (size_t r = 0; r < s->nruns; ++r) {
        if (!s->lens[r]) continue;
        if (s->runs[r].first < vlo) vlo = s->runs[r].first;
        if (s->runs[r].last > vhi) vhi = s->runs[r].last;
    }
    s->search_errno = 0;
    rs_corank(s->nruns, s->lens, t, vlo, vhi, count_run, s, split, s->scratch);
    if (s->search_errno) {
        snprintf(err, errlen, "cannot read back the sorted runs from a temporary file in %s: %s", s->dir,
                 strerror(s->search_errno));
        return -1;
    }
    return 0;
}

int rs_spill_read_window(rs_spill_t *s, const size_t *from, const size_t *to, bool unique, rs_window_t *w,
                         char *err, size_t errlen) {
    io_list_t l = {NULL, 0, 0, false};
    size_t total = 0;
    w->k = s->nruns;
    for (size_t r = 0; r < s->nruns; ++r) {
        const size_t n = to[r] - from[r], len = s->lens[r];
        w->len[r] = n;
        w->at[r] = total;
        if (n) {
            off_t off = s->runs[r].at;
            io_add(&l, IO_READ, w->keys + total * s->ks, NULL, NULL, 0, n, s->ks, off + (off_t)(from[r] * s->ks));
            off += (off_t)(len * s->ks);
            if (s->has_idx) {
                io_add(&l, IO_READ, w->idx + total, NULL, NULL, 0, n, 8, off + (off_t)(from[r] * 8));
                off += (off_t)(len * 8);
            }
            if (s->vsize)
                io_add(&l, IO_READ, w->vals + total * s->vsize, NULL, NULL, 0, n, s->vsize,
                       off + (off_t)(from[r] * s->vsize));
        }
        total += n;
    }
    w->total = total;
    int e = io_run(s, &l);
    free(l.p);
    /* --unique: the record just before the window is the largest of the
       runs' records before their slices. */
    w->has_prev = false;
    w->prev = 0;
    for (size_t r = 0; unique && !e && r < s->nruns; ++r) {
        if (from[r] == 0) continue;
        unsigned char key[8];
        e = spill_io(s, false, key, s->ks, s->runs[r].at + (off_t)((from[r] - 1) * s->ks));
        if (e) break;
        const uint64_t m = rs_map_key(&s->map, key);
        if (!w->has_prev || m > w->prev) w->prev = m;
        w->has_prev = true;
    }
    if (e) {
        snprintf(err, errlen, "cannot read back the sorted runs from a temporary file in %s: %s", s->dir, strerror(e));
        return -1;
    }
    return 0;
}

void rs_spill_close(rs_spill_t *s) {
    for (unsigned i = 0; i < s->nfiles; ++i) close(s->fds[i]);
    s->nfiles = 0;
    free(s->runs);
    free(s->lens);
    free(s->scratch);
    free(s->samples);
    free(s->stage);
    free(s->block);
    free(s->block_id);
    s->runs = NULL;
    s->lens = s->scratch = NULL;
    s->samples = NULL;
    s->stage = s->block = NULL;
    s->block_id = NULL;
}
