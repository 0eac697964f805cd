/* png_unfilter.c -- see png_unfilter.h. */
#include "png_unfilter.h"
#include "threads.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* One byte of each filter, as the specification writes it: the reference
   for every bpp without a vector version (and for the tests' reasoning).
   a: the byte bpp to the left (0 at the start of a row), b: the byte above
   (0 in the first row), c: the byte above a. */
static inline int paeth_pick(int a, int b, int c)
{
    const int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Bytes [s, e) of a row; a and c come from the bytes before s, already final. */
static void row_scalar(int type, const uint8_t *in, const uint8_t *prev, uint8_t *out, size_t s, size_t e, size_t bpp)
{
    for (size_t i = s; i < e; ++i) {
        const int a = i >= bpp ? out[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
        int p = 0;
        switch (type) {
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: p = paeth_pick(a, b, c); break;
        default: break;
        }
        out[i] = (uint8_t)(in[i] + p);
    }
}

#if defined(__SSE2__)
/* A pixel's bpp bytes as 16-bit lanes, and back. memcpy with a constant bpp
   compiles to plain loads and stores; a store writes exactly bpp bytes. */
static inline __m128i load_px(const uint8_t *p, size_t bpp)
{
    uint64_t v = 0;
    memcpy(&v, p, bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)v), _mm_setzero_si128());
}

static inline void store_px(uint8_t *p, __m128i x, size_t bpp)
{
    const uint64_t v = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(x, x));
    memcpy(p, &v, bpp);
}

static inline __m128i abs16(__m128i v)
{
    return _mm_max_epi16(v, _mm_sub_epi16(_mm_setzero_si128(), v));
}

/* paeth_pick on every lane: a unless pa > pb or pa > pc; then b unless pb > pc; then c. */
static inline __m128i paeth_px(__m128i a, __m128i b, __m128i c)
{
    const __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c);
    const __m128i pa = abs16(bc), pb = abs16(ac), pc = abs16(_mm_add_epi16(bc, ac));
    const __m128i not_a = _mm_or_si128(_mm_cmpgt_epi16(pa, pb), _mm_cmpgt_epi16(pa, pc));
    const __m128i not_b = _mm_cmpgt_epi16(pb, pc);
    const __m128i b_or_c = _mm_or_si128(_mm_and_si128(not_b, c), _mm_andnot_si128(not_b, b));
    return _mm_or_si128(_mm_and_si128(not_a, b_or_c), _mm_andnot_si128(not_a, a));
}

/* Sub (1), Average (3) and Paeth (4) chain from pixel to pixel; the lanes
   of one pixel are independent. [s, e) is a whole number of pixels. While 8
   bytes are left before e, a pixel is loaded and stored as 8 bytes (the
   lanes past bpp compute garbage that the next pixel's store overwrites,
   and no lane feeds another): composing bpp bytes through memory stalled
   every pixel on store forwarding, slower than libpng. The last pixels go
   exactly, so nothing at or past e is touched: past e is another thread's
   (or not yet final). a and c start from the pixel before s. */
#define PIXEL_STEP(LOAD, STORE)                                                                            \
    {                                                                                                      \
        const __m128i x = LOAD(in + i), b = LOAD(prev + i);                                                \
        const __m128i p = type == 1 ? a : type == 3 ? _mm_srli_epi16(_mm_add_epi16(a, b), 1)               \
                                                    : paeth_px(a, b, c);                                   \
        a = _mm_and_si128(_mm_add_epi16(x, p), low);                                                       \
        STORE(out + i, a);                                                                                 \
        c = b;                                                                                             \
    }
#define LOAD8(p) _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(p)), _mm_setzero_si128())
#define STORE8(p, v) _mm_storel_epi64((__m128i *)(p), _mm_packus_epi16((v), (v)))
#define DEFINE_ROW_SSE2(BPP)                                                                               \
    static void row_sse2_##BPP(int type, const uint8_t *in, const uint8_t *prev, uint8_t *out, size_t s,  \
                               size_t e)                                                                   \
    {                                                                                                      \
        const __m128i low = _mm_set1_epi16(0xff);                                                          \
        __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128();                                          \
        if (s) {                                                                                           \
            a = LOAD_EXACT_##BPP(out + s - BPP);                                                           \
            c = LOAD_EXACT_##BPP(prev + s - BPP);                                                          \
        }                                                                                                  \
        size_t i = s;                                                                                      \
        for (; i + 8 <= e; i += BPP)                                                                       \
            PIXEL_STEP(LOAD8, STORE8)                                                                      \
        for (; i < e; i += BPP)                                                                            \
            PIXEL_STEP(LOAD_EXACT_##BPP, STORE_EXACT_##BPP)                                                \
    }
#define EXACT(BPP)                                                                                         \
    static inline __m128i LOAD_EXACT_##BPP(const uint8_t *p) { return load_px(p, BPP); }                  \
    static inline void STORE_EXACT_##BPP(uint8_t *p, __m128i v) { store_px(p, v, BPP); }
EXACT(1)
EXACT(2)
EXACT(3)
EXACT(4)
EXACT(6)
EXACT(8)
DEFINE_ROW_SSE2(1)
DEFINE_ROW_SSE2(2)
DEFINE_ROW_SSE2(3)
DEFINE_ROW_SSE2(4)
DEFINE_ROW_SSE2(6)
DEFINE_ROW_SSE2(8)
#endif

/* Bytes [s, e) of one row: row y-1 (prev) must be final up to e, and this
   row up to s. */
static void row_span(int type, const uint8_t *in, const uint8_t *prev, uint8_t *out, size_t s, size_t e,
                     unsigned bpp)
{
    if (type == 0) {
        memcpy(out + s, in + s, e - s);
        return;
    }
    if (type == 2) { /* Up: no chain, the compiler vectorises it */
        for (size_t i = s; i < e; ++i)
            out[i] = (uint8_t)(in[i] + prev[i]);
        return;
    }
#if defined(__SSE2__)
    if (s % bpp == 0 && (e - s) % bpp == 0) {
        switch (bpp) {
        case 1: row_sse2_1(type, in, prev, out, s, e); return;
        case 2: row_sse2_2(type, in, prev, out, s, e); return;
        case 3: row_sse2_3(type, in, prev, out, s, e); return;
        case 4: row_sse2_4(type, in, prev, out, s, e); return;
        case 6: row_sse2_6(type, in, prev, out, s, e); return;
        case 8: row_sse2_8(type, in, prev, out, s, e); return;
        default: break;
        }
    }
#endif
    row_scalar(type, in, prev, out, s, e, bpp);
}

/* 16-bit samples from the file's big-endian bytes to little-endian. */
static void swap_pairs(uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        const uint8_t t = p[i];
        p[i] = p[i + 1];
        p[i + 1] = t;
    }
}

/* ---- the wavefront ---------------------------------------------------------- */

/* How many bytes of one row are final. One per cache line: the rows in
   flight are on different threads, and a shared line would bounce between
   them at every block. */
typedef struct progress {
    _Alignas(64) atomic_size_t done;
    char pad[64 - sizeof(atomic_size_t)];
} progress_t;

typedef struct job {
    const uint8_t *src;
    uint8_t *dst;
    const uint8_t *zero; /* the row above the first */
    size_t h, rowbytes, block;
    unsigned bpp;
    int swap16;
    progress_t *rows;       /* h counters; NULL when one thread does everything */
    atomic_size_t next_row; /* the next row nobody has taken */
} job_t;

static inline void cpu_relax(void)
{
#if defined(__SSE2__)
    _mm_pause();
#endif
}

/* Waits until row y is final up to `need` bytes; returns how many it is.
   Spins first (a block of the row above takes about a microsecond), then
   yields, so threads beyond the cores (a test's forced count) still let the
   row above run. */
static size_t wait_row(const job_t *j, size_t y, size_t need)
{
    size_t v = atomic_load_explicit(&j->rows[y].done, memory_order_acquire);
    for (unsigned spins = 0; v < need; ++spins) {
        if (spins < 1000)
            cpu_relax();
        else
            sched_yield();
        v = atomic_load_explicit(&j->rows[y].done, memory_order_acquire);
    }
    return v;
}

/* Row y, block by block. Before a block, the row above must be final up to
   the block's end (b and c of every byte in it). After block k, block k-1
   of the row above is swapped (swap16): this row's block k was the last to
   read it (its first pixel's c), and nobody else reads the row above. */
static void do_row(job_t *j, size_t y)
{
    const size_t stride = j->rowbytes + 1, n = j->rowbytes;
    const uint8_t *in = j->src + y * stride + 1;
    uint8_t *out = j->dst + y * n;
    uint8_t *above = y ? out - n : NULL;
    const uint8_t *prev = y ? above : j->zero;
    const int type = in[-1];
    size_t seen = 0, last = 0; /* bytes of the row above known final; start of the previous block */
    for (size_t s = 0; s < n;) {
        const size_t e = n - s > j->block ? s + j->block : n;
        if (j->rows && y && seen < e)
            seen = wait_row(j, y - 1, e);
        row_span(type, in, prev, out, s, e, j->bpp);
        if (j->rows)
            atomic_store_explicit(&j->rows[y].done, e, memory_order_release);
        if (j->swap16 && above && s)
            swap_pairs(above + last, s - last);
        last = s;
        s = e;
    }
    if (j->swap16 && above)
        swap_pairs(above + last, n - last);
    if (j->swap16 && y + 1 == j->h) /* no row below will read it */
        swap_pairs(out, n);
}

/* Takes rows in order until none is left. Rows are taken, not dealt out in
   advance, so that however many threads did start, every row taken has its
   row above taken before it, by a thread that is running: no deadlock. */
static void *worker_main(void *arg)
{
    job_t *j = (job_t *)arg;
    for (;;) {
        const size_t y = atomic_fetch_add_explicit(&j->next_row, 1, memory_order_relaxed);
        if (y >= j->h)
            return NULL;
        do_row(j, y);
    }
}

/* Starts up to n threads (threads.h: signals blocked, so that the programs'
   handlers run on their own threads). Returns how many started. */
static unsigned start_workers(job_t *j, pthread_t *tids, unsigned n)
{
    unsigned started = 0;
    while (started < n && app_thread_start(&tids[started], worker_main, j) == 0)
        ++started;
    return started;
}

/* All rows on `threads` threads (the caller's among them); one thread, or
   no memory for the counters, runs them in order here. */
static void run(job_t *j, unsigned threads)
{
    pthread_t tids[PNG_UNFILTER_MAX_THREADS];
    if (threads > PNG_UNFILTER_MAX_THREADS)
        threads = PNG_UNFILTER_MAX_THREADS;
    if (threads > j->h)
        threads = (unsigned)j->h;
    j->rows = NULL;
    if (threads > 1)
        j->rows = (progress_t *)aligned_alloc(64, j->h * sizeof(progress_t));
    if (!j->rows) {
        for (size_t y = 0; y < j->h; ++y)
            do_row(j, y);
        return;
    }
    for (size_t y = 0; y < j->h; ++y)
        atomic_init(&j->rows[y].done, 0);
    atomic_init(&j->next_row, 0);
    const unsigned started = start_workers(j, tids, threads - 1);
    worker_main(j);
    for (unsigned i = 0; i < started; ++i)
        pthread_join(tids[i], NULL);
    free(j->rows);
    j->rows = NULL;
}

/* ---- how many threads, how large a block ------------------------------------ */

/* LIBSCAN_CPU_THREADS as a count (a plain decimal number >= 1), else 0. */
static unsigned env_threads(void)
{
    const char *s = getenv("LIBSCAN_CPU_THREADS");
    if (!s || !*s)
        return 0;
    unsigned long v = 0;
    for (const char *p = s; *p; ++p) {
        if (*p < '0' || *p > '9')
            return 0;
        v = v * 10u + (unsigned long)(*p - '0');
        if (v > 1024)
            v = 1024; /* no overflow on long strings */
    }
    return (unsigned)v;
}

unsigned png_unfilter_threads(size_t h, size_t rowbytes)
{
    if (h < 2 || rowbytes < PNG_UNFILTER_MIN_ROW || h * rowbytes < PNG_UNFILTER_MIN_BYTES)
        return 1;
    unsigned n = env_threads();
    if (!n)
        n = app_usable_cpus();
    if (n > PNG_UNFILTER_AUTO_THREADS)
        n = PNG_UNFILTER_AUTO_THREADS;
    return n;
}

/* A block: a multiple of 2 * bpp (whole pixels, and whole 16-bit samples
   for swap16), so that a row holds about two per thread: the thread of row
   y starts once row y-1's first block is done, so fewer blocks would leave
   threads waiting, and much smaller ones cost a counter update each for
   nothing. */
static size_t auto_block(size_t rowbytes, unsigned threads)
{
    size_t b = rowbytes / (2u * (threads ? threads : 1u));
    if (b < PNG_UNFILTER_MIN_BLOCK)
        b = PNG_UNFILTER_MIN_BLOCK;
    if (b > PNG_UNFILTER_MAX_BLOCK)
        b = PNG_UNFILTER_MAX_BLOCK;
    return b;
}

/* ---- the entry points ------------------------------------------------------- */

int png_unfilter_ex(const uint8_t *src, size_t h, size_t rowbytes, unsigned bpp, int swap16, unsigned threads,
                    size_t block, uint8_t *dst)
{
    if (bpp < 1 || bpp > 8)
        return -1;
    const size_t stride = rowbytes + 1;
    /* Every type first: a bad one anywhere leaves dst untouched. */
    for (size_t y = 0; y < h; ++y)
        if (src[y * stride] > 4)
            return -1;
    if (h == 0 || rowbytes == 0)
        return 0;
    if (threads == 0)
        threads = png_unfilter_threads(h, rowbytes);
    if (block == 0)
        block = auto_block(rowbytes, threads);
    const size_t unit = 2u * bpp;
    block = (block + unit - 1) / unit * unit;
    uint8_t *zero = (uint8_t *)calloc(rowbytes, 1);
    if (!zero)
        return -1;
    job_t j;
    memset(&j, 0, sizeof j);
    j.src = src;
    j.dst = dst;
    j.zero = zero;
    j.h = h;
    j.rowbytes = rowbytes;
    j.block = block;
    j.bpp = bpp;
    j.swap16 = swap16;
    run(&j, threads);
    free(zero);
    return 0;
}

int png_unfilter(const uint8_t *src, size_t h, size_t rowbytes, unsigned bpp, int swap16, uint8_t *dst)
{
    return png_unfilter_ex(src, h, rowbytes, bpp, swap16, 0, 0, dst);
}
