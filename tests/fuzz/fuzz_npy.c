/* fuzz_npy.c -- libFuzzer harness of the .npy reader (apps/common/npy.c and
 * array_io.c, through array_io.h): any bytes as a .npy file.
 *
 * Beyond "no crash, no leak, no undefined behaviour", every input must give
 * either a clean error (ARR_ERR_INPUT, the user's fault: exit 1, with one
 * printable line naming the file) or an array that agrees with the file:
 *   - the shape's product is the count (1 for a scalar), and the count fills
 *     the end of the file exactly (the reader refuses any other size), so the
 *     elements are the file's last count * size bytes, in the file's byte
 *     order or reversed element by element;
 *   - the streaming reader, read in small chunks, gives the same dtype, shape
 *     and bytes as the whole-file read;
 *   - a notice exactly when the array is not 1-D. */
#include "fuzz_support.h"

#include "common/array_io.h"

#include <stdlib.h>
#include <string.h>

static void check_elements(const arr_array_t *a, const uint8_t *data, size_t size) {
    const size_t es = arr_dtype_size(a->dtype);
    if (a->count == 0) {
        if (a->data) fuzz_fail("arr_read: no elements but data was allocated");
        return;
    }
    if (!a->data) fuzz_fail("arr_read: %zu elements and no data", a->count);
    if (a->count > size / es) fuzz_fail("arr_read: %zu elements of %zu bytes from a %zu-byte file", a->count, es, size);
    const size_t bytes = a->count * es;
    const uint8_t *tail = data + size - bytes, *got = a->data;
    if (memcmp(got, tail, bytes) == 0) return;
    for (size_t i = 0; i < a->count; ++i)
        for (size_t b = 0; b < es; ++b)
            if (got[i * es + b] != tail[i * es + es - 1 - b])
                fuzz_fail("arr_read: element %zu is neither the file's bytes nor their reverse", i);
}

static void check_shape(const arr_array_t *a, const char *path) {
    if ((int)a->dtype <= ARR_NONE || (int)a->dtype >= ARR_DTYPE_COUNT) fuzz_fail("arr_read: dtype %d", (int)a->dtype);
    if (a->ndim < 0 || a->ndim > ARR_MAX_DIMS) fuzz_fail("arr_read: ndim %d", a->ndim);
    size_t product = 1;
    int zero = 0;
    for (int i = 0; i < a->ndim; ++i) zero |= a->shape[i] == 0;
    for (int i = 0; i < a->ndim && !zero; ++i) {
        if (product > SIZE_MAX / a->shape[i]) fuzz_fail("arr_read: accepted a shape whose product overflows");
        product *= a->shape[i];
    }
    if (zero) product = 0;
    if (product != a->count) fuzz_fail("arr_read: shape product %zu but count %zu", product, a->count);
    fuzz_check_notice("arr_read", a->notice, path);
    if ((a->ndim == 1) != (a->notice[0] == '\0'))
        fuzz_fail("arr_read: a %d-D array with notice \"%s\" (a notice belongs to exactly the arrays that are not 1-D)",
                  a->ndim, a->notice);
}

/* The streaming reader over the same file, chunk elements at a time. */
static void check_streaming(const char *path, const arr_array_t *a, size_t chunk) {
    char err[512];
    arr_reader_t *r;
    arr_status_t s = arr_reader_open(&r, path, ARR_FMT_NPY, ARR_NONE, err, sizeof err);
    if (s != ARR_OK) fuzz_fail("arr_reader_open failed (%s) on a file arr_read accepted", err);
    if (arr_reader_dtype(r) != a->dtype || arr_reader_count(r) != a->count || arr_reader_ndim(r) != a->ndim ||
        memcmp(arr_reader_shape(r), a->shape, (size_t)a->ndim * sizeof(size_t)) != 0 ||
        strcmp(arr_reader_notice(r), a->notice) != 0)
        fuzz_fail("arr_reader_open: dtype, count, shape or notice differ from arr_read's");
    const size_t es = arr_dtype_size(a->dtype);
    unsigned char *buf = malloc(chunk * es);
    if (!buf) fuzz_fail("harness: out of memory");
    size_t pos = 0, got;
    for (;;) {
        s = arr_reader_read(r, buf, chunk, &got, err, sizeof err);
        if (s != ARR_OK) fuzz_fail("arr_reader_read failed (%s) after %zu elements", err, pos);
        if (got == 0) break;
        if (got > chunk || pos + got > a->count) fuzz_fail("arr_reader_read: %zu elements past %zu", got, pos);
        if (memcmp(buf, (const unsigned char *)a->data + pos * es, got * es) != 0)
            fuzz_fail("arr_reader_read: elements %zu.. differ from arr_read's", pos);
        pos += got;
        if (arr_reader_remaining(r) != a->count - pos) fuzz_fail("arr_reader_remaining is wrong after %zu", pos);
    }
    if (pos != a->count) fuzz_fail("arr_reader_read ended after %zu of %zu elements", pos, a->count);
    free(buf);
    arr_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_input_file(data, size);
    char err[512];
    arr_array_t a;
    arr_status_t s = arr_read(path, ARR_FMT_NPY, ARR_NONE, &a, err, sizeof err);
    if (s != ARR_OK) {
        /* Nothing here can run out of memory or fail to read: the file is in
           memory, and the reader allocates no more than its size. */
        if (s != ARR_ERR_INPUT)
            fuzz_fail("arr_read: status %d for bad input (want ARR_ERR_INPUT, the user's fault): %s", (int)s, err);
        fuzz_check_message("arr_read", err, path);
        if (a.data || a.count) fuzz_fail("arr_read: failed but left %zu elements", a.count);
        return 0;
    }
    check_shape(&a, path);
    check_elements(&a, data, size);
    check_streaming(path, &a, size ? 1 + data[size - 1] % 7 : 1);
    arr_free(&a);
    return 0;
}
