/* png_inflate.c -- see png_inflate.h. */
#define _POSIX_C_SOURCE 200809L
#include "png_inflate.h"
#include "image_private.h"
#include "common/bulk_mem.h"

#include <libdeflate.h>
#include <png.h> /* PNG_USER_CHUNK_MALLOC_MAX: libpng's limit on a chunk */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STORED_MAX ((size_t)65535) /* the most one stored block holds */

struct png_inflate {
    uint8_t *map; /* the file, read whole (not mmap'd: a file cut short
                     while mapped would be SIGBUS, not a message) */
    size_t map_len;
    uint8_t *data; /* the inflated image data */
    size_t data_len;
    uint8_t adler[4];    /* the stream's Adler-32, as stored in the file */
    size_t prefix_end;   /* the first IDAT chunk's offset: served from 8 up to here */
    size_t suffix_start; /* after the last IDAT chunk ... */
    size_t suffix_end;   /* ... to the end of IEND */
    size_t nrec;         /* stored blocks, one IDAT chunk each */

    /* The cursor: segment 0 = the chunks before the image data, 1 = the
       stored blocks, 2 = the chunks after, 3 = the end. */
    int seg;
    size_t pos; /* file offset in segments 0 and 2; offset in the current record in 1 */
    size_t rec; /* the current record (one IDAT chunk) */
    uint8_t head[8 + 2 + 5]; /* chunk length and type, zlib header (first), block header */
    size_t head_len;
    uint8_t tail[4 + 4]; /* Adler-32 (last), CRC (not checked: the reader turns the check off) */
    size_t tail_len;
    size_t rec_off, rec_len; /* the record's slice of data */
    int direct_ok;           /* png_inflate_direct may hand out data */
};

static uint32_t be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Filtered bytes of the image data for an IHDR, 0 when invalid or above
 * PNG_INFLATE_MAX_BYTES. */
static uint64_t data_bytes(const uint8_t *ihdr, uint64_t max_pixels)
{
    const uint64_t w = be32(ihdr), h = be32(ihdr + 4);
    const unsigned depth = ihdr[8], ct = ihdr[9];
    if (w == 0 || h == 0 || w > 0x7fffffffu || h > 0x7fffffffu || ihdr[10] != 0 || ihdr[11] != 0 || ihdr[12] > 1)
        return 0;
    if (w * h > max_pixels)
        return 0; /* libpng's path words "image too large" */
    unsigned channels = 0;
    int depth_ok = 0;
    switch (ct) {
    case 0: channels = 1; depth_ok = depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16; break;
    case 3: channels = 1; depth_ok = depth == 1 || depth == 2 || depth == 4 || depth == 8; break;
    case 2: channels = 3; depth_ok = depth == 8 || depth == 16; break;
    case 4: channels = 2; depth_ok = depth == 8 || depth == 16; break;
    case 6: channels = 4; depth_ok = depth == 8 || depth == 16; break;
    default: return 0;
    }
    if (!depth_ok)
        return 0;
    const uint64_t bits = (uint64_t)channels * depth;
    /* Adam7's passes: first column and row, column and row steps. */
    static const unsigned passes[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                          {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};
    static const unsigned whole[1][4] = {{0, 0, 1, 1}};
    const unsigned(*p)[4] = ihdr[12] ? passes : whole;
    const int np = ihdr[12] ? 7 : 1;
    uint64_t total = 0;
    for (int i = 0; i < np; ++i) {
        const uint64_t pw = w > p[i][0] ? (w - p[i][0] + p[i][2] - 1) / p[i][2] : 0;
        const uint64_t ph = h > p[i][1] ? (h - p[i][1] + p[i][3] - 1) / p[i][3] : 0;
        if (pw == 0 || ph == 0)
            continue;
        const uint64_t row = 1 + (pw * bits + 7) / 8; /* < 2^35 */
        if (row > PNG_INFLATE_MAX_BYTES / ph)
            return 0;
        total += row * ph;
        if (total > PNG_INFLATE_MAX_BYTES)
            return 0;
    }
    return total;
}

/* What libpng checks in every chunk header (png_read_chunk_header): a
 * type of four ASCII letters, and a length within its limit (the chunk
 * allocation limit, or for IDAT the larger of that and its bound on the
 * image's compressed size). The direct path (png_inflate_direct) skips the
 * chunks after the image data, so a file with a chunk that fails is left to
 * libpng, and reads exactly as the same bytes from a pipe do (fuzzing found a
 * trailing chunk typed \xb7\xb7\xbb\xad that only the pipe refused). */
static int libpng_takes_header(const uint8_t *type, uint32_t len, const uint8_t *ihdr)
{
    for (int i = 0; i < 4; ++i)
        if (!((type[i] >= 'A' && type[i] <= 'Z') || (type[i] >= 'a' && type[i] <= 'z')))
            return 0;
    uint64_t limit = 0x7fffffffu;
#if defined(PNG_USER_CHUNK_MALLOC_MAX) && PNG_USER_CHUNK_MALLOC_MAX > 0
    if ((uint64_t)PNG_USER_CHUNK_MALLOC_MAX < limit)
        limit = (uint64_t)PNG_USER_CHUNK_MALLOC_MAX;
#endif
    if (memcmp(type, "IDAT", 4) == 0) {
        static const unsigned channels[7] = {1, 0, 3, 1, 2, 0, 4}; /* by colour type */
        const uint64_t w = be32(ihdr), h = be32(ihdr + 4);
        uint64_t row = w * channels[ihdr[9] < 7 ? ihdr[9] : 0] * (ihdr[8] > 8 ? 2 : 1) + 1 + (ihdr[12] ? 6 : 0);
        uint64_t idat = h > 0xffffffffu / row ? 0x7fffffffu : h * row;
        row = row > 32566 ? 32566 : row;
        idat += 6 + 5 * (idat / row + 1); /* zlib's and deflate's overhead */
        idat = idat < 0x7fffffffu ? idat : 0x7fffffffu;
        limit = limit < idat ? idat : limit;
    }
    return len <= limit;
}

/* Set up record k: the IDAT chunk holding stored block k. */
static void record_layout(png_inflate_t *s, size_t k)
{
    const size_t off = k * STORED_MAX;
    const size_t n = s->data_len - off < STORED_MAX ? s->data_len - off : STORED_MAX;
    const int first = k == 0, last = k + 1 == s->nrec;
    uint8_t *h = s->head;
    put_be32(h, (uint32_t)((first ? 2 : 0) + 5 + n + (last ? 4 : 0)));
    memcpy(h + 4, "IDAT", 4);
    size_t hl = 8;
    if (first) { /* deflate, 32 KiB window, no dictionary; 0x7801 is a multiple of 31 */
        h[hl++] = 0x78;
        h[hl++] = 0x01;
    }
    h[hl++] = (uint8_t)(last ? 1 : 0); /* BFINAL, BTYPE 00: stored */
    h[hl++] = (uint8_t)n;
    h[hl++] = (uint8_t)(n >> 8);
    h[hl++] = (uint8_t)~n;
    h[hl++] = (uint8_t)(~n >> 8);
    s->head_len = hl;
    s->tail_len = 0;
    if (last) {
        memcpy(s->tail, s->adler, 4);
        s->tail_len = 4;
    }
    memset(s->tail + s->tail_len, 0, 4);
    s->tail_len += 4;
    s->rec_off = off;
    s->rec_len = n;
}

void png_inflate_close(png_inflate_t *s)
{
    if (!s)
        return;
    free(s->map);
    free(s->data);
    free(s);
}

png_inflate_t *png_inflate_open(FILE *f, uint64_t max_pixels)
{
    struct stat st;
    const int fd = fileno(f);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 8 + 25 + 12 + 12 ||
        (uint64_t)st.st_size > (uint64_t)SIZE_MAX)
        return NULL;
    png_inflate_t *s = (png_inflate_t *)calloc(1, sizeof *s);
    if (!s)
        return NULL;
    const size_t size = (size_t)st.st_size;
    s->map = (uint8_t *)app_bulk_alloc(size);
    s->map_len = size;
    if (!s->map) {
        free(s);
        return NULL;
    }
    for (size_t got = 0; got < size;) { /* pread: the caller's FILE position stays */
        const ssize_t n = pread(fd, s->map + got, size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) { /* an error, or the file was cut short meanwhile */
            png_inflate_close(s);
            return NULL;
        }
        got += (size_t)n;
    }
    const uint8_t *m = s->map;
    uint8_t *gathered = NULL;
    struct libdeflate_decompressor *d = NULL;

    /* Every chunk: inside the file, CRC right; IHDR first; the IDAT chunks
       together; IEND last. */
    size_t off = 8, first_idat = 0, after_idat = 0, nidat = 0;
    uint64_t zlen = 0, expected = 0;
    int idat_done = 0, critical_after = 0;
    for (;;) {
        if (size - off < 12)
            goto decline;
        const uint32_t len = be32(m + off);
        if (len > 0x7fffffffu || size - off - 12 < len)
            goto decline;
        const uint8_t *type = m + off + 4;
        if ((uint32_t)libdeflate_crc32(0, type, 4 + (size_t)len) != be32(m + off + 8 + len))
            goto decline;
        if (off == 8) {
            if (memcmp(type, "IHDR", 4) != 0 || len != 13 || (expected = data_bytes(m + off + 8, max_pixels)) == 0)
                goto decline;
        }
        if (!libpng_takes_header(type, len, m + 16))
            goto decline;
        if (memcmp(type, "IDAT", 4) == 0) {
            if (idat_done)
                goto decline;
            if (nidat++ == 0)
                first_idat = off;
            zlen += len;
            after_idat = off + 12 + len;
        } else if (nidat) {
            idat_done = 1;
            /* A critical chunk (upper-case first letter) other than an
               empty IEND after the data is for libpng's png_read_end. */
            if (!(type[0] & 0x20) && (memcmp(type, "IEND", 4) != 0 || len != 0))
                critical_after = 1;
        }
        if (memcmp(type, "IEND", 4) == 0) {
            s->suffix_end = off + 12 + len;
            break;
        }
        off += 12 + (size_t)len;
    }
    if (nidat == 0 || zlen < 6)
        goto decline;
    /* Deflate turns at most 2 bits into 258 bytes (1032:1): a header that
       promises more than the stream could hold gets no buffer here. */
    if (expected / 1032 > zlen + 64)
        goto decline;

    /* The zlib stream, in one piece. */
    const uint8_t *z = m + first_idat + 8;
    if (nidat > 1) {
        gathered = (uint8_t *)malloc((size_t)zlen);
        if (!gathered)
            goto decline;
        size_t g = 0;
        for (size_t o = first_idat; o < after_idat;) {
            const uint32_t len = be32(m + o);
            memcpy(gathered + g, m + o + 8, len);
            g += len;
            o += 12 + (size_t)len;
        }
        z = gathered;
    }
    s->data = (uint8_t *)app_bulk_alloc((size_t)expected);
    d = libdeflate_alloc_decompressor();
    if (!s->data || !d)
        goto decline;
    size_t used = 0, got = 0;
    if (libdeflate_zlib_decompress_ex(d, z, (size_t)zlen, s->data, (size_t)expected, &used, &got) !=
            LIBDEFLATE_SUCCESS ||
        got != expected || used != zlen)
        goto decline; /* corrupt, short, too long, or data after the stream: libpng says which */
    memcpy(s->adler, z + used - 4, 4);
    libdeflate_free_decompressor(d);
    free(gathered);

    s->data_len = (size_t)expected;
    s->direct_ok = !critical_after;
    s->nrec = (s->data_len + STORED_MAX - 1) / STORED_MAX;
    s->prefix_end = first_idat;
    s->suffix_start = after_idat;
    s->seg = 0;
    s->pos = 8;
    return s;

decline:
    if (d)
        libdeflate_free_decompressor(d);
    free(gathered);
    png_inflate_close(s);
    return NULL;
}

size_t png_inflate_read(png_inflate_t *s, uint8_t *dst, size_t len)
{
    size_t done = 0;
    while (done < len && s->seg != 3) {
        const size_t want = len - done;
        size_t n;
        if (s->seg == 0 || s->seg == 2) {
            const size_t end = s->seg == 0 ? s->prefix_end : s->suffix_end;
            n = end - s->pos < want ? end - s->pos : want;
            memcpy(dst + done, s->map + s->pos, n);
            s->pos += n;
            if (s->pos == end) {
                if (s->seg == 0) {
                    s->seg = 1;
                    s->rec = 0;
                    s->pos = 0;
                    record_layout(s, 0);
                } else {
                    s->seg = 3;
                }
            }
        } else {
            const size_t total = s->head_len + s->rec_len + s->tail_len;
            if (s->pos < s->head_len) {
                n = s->head_len - s->pos < want ? s->head_len - s->pos : want;
                memcpy(dst + done, s->head + s->pos, n);
            } else if (s->pos < s->head_len + s->rec_len) {
                const size_t in = s->pos - s->head_len;
                n = s->rec_len - in < want ? s->rec_len - in : want;
                memcpy(dst + done, s->data + s->rec_off + in, n);
            } else {
                const size_t in = s->pos - s->head_len - s->rec_len;
                n = s->tail_len - in < want ? s->tail_len - in : want;
                memcpy(dst + done, s->tail + in, n);
            }
            s->pos += n;
            if (s->pos == total) {
                if (++s->rec == s->nrec) {
                    s->seg = 2;
                    s->pos = s->suffix_start;
                } else {
                    record_layout(s, s->rec);
                    s->pos = 0;
                }
            }
        }
        done += n;
    }
    return done;
}

const uint8_t *png_inflate_direct(const png_inflate_t *s, size_t *len)
{
    /* png_read_info stops after the first IDAT's length and type: 8 bytes
       of the first record's head. */
    if (!s || !s->direct_ok || s->seg != 1 || s->rec != 0 || s->pos > 8)
        return NULL;
    *len = s->data_len;
    return s->data;
}
