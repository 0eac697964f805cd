/* sat_common.c -- status strings, type sizes and the argument checks that the
 * GPU (sat_gpu.cu) and CPU (sat_cpu.c, blur_cpu.c) entry points share, so
 * both reject exactly the same calls. */
#include "sat_internal.h"

#include <stdint.h>

int libscan_sat_pair_supported(libscan_dtype_t in, libscan_dtype_t table) {
    return (in == LIBSCAN_U8 && table == LIBSCAN_U32) || (in == LIBSCAN_U16 && table == LIBSCAN_U32) ||
           (in == LIBSCAN_U16 && table == LIBSCAN_U64) || (in == LIBSCAN_F32 && table == LIBSCAN_F32) ||
           (in == LIBSCAN_F32 && table == LIBSCAN_F64);
}

uint64_t libscan_sat_u32_max_exact_area(uint32_t max_value) {
    if (max_value == 0) return UINT64_MAX;
    return (uint64_t)UINT32_MAX / max_value;
}

size_t libscan__sat_image_span(const libscan_sat_image_t *img) {
    return img->pitch * (img->height - 1) + img->width * (size_t)img->channels * libscan_dtype_size(img->type);
}

libscan_status_t libscan__sat_check_image(const libscan_sat_image_t *img) {
    if (!img || !img->data) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    const size_t es = libscan_dtype_size(img->type);
    if (es == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (img->channels < 1 || img->channels > 4) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (img->width < 1 || img->height < 1 || img->width > LIBSCAN_SAT_MAX_DIM || img->height > LIBSCAN_SAT_MAX_DIM)
        return LIBSCAN_ERROR_INVALID_ARGUMENT;
    const size_t row = img->width * (size_t)img->channels * es;
    if (img->pitch < row || img->pitch % es != 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    /* pitch * (height - 1) must not overflow size_t */
    if (img->height > 1 && img->pitch > (SIZE_MAX - row) / (img->height - 1)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if ((uintptr_t)img->data % es != 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    return LIBSCAN_SUCCESS;
}

int libscan__sat_images_overlap(const libscan_sat_image_t *a, const libscan_sat_image_t *b) {
    const uintptr_t a0 = (uintptr_t)a->data, a1 = a0 + libscan__sat_image_span(a);
    const uintptr_t b0 = (uintptr_t)b->data, b1 = b0 + libscan__sat_image_span(b);
    return a0 < b1 && b0 < a1;
}

static int same_shape(const libscan_sat_image_t *a, const libscan_sat_image_t *b) {
    return a->width == b->width && a->height == b->height && a->channels == b->channels;
}

libscan_status_t libscan__sat_check_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out) {
    libscan_status_t st = libscan__sat_check_image(in);
    if (st != LIBSCAN_SUCCESS) return st;
    if ((st = libscan__sat_check_image(out)) != LIBSCAN_SUCCESS) return st;
    if (!same_shape(in, out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (!libscan_sat_pair_supported(in->type, out->type)) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (libscan__sat_images_overlap(in, out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    return LIBSCAN_SUCCESS;
}

libscan_status_t libscan__sat_check_filter(const libscan_sat_image_t *table, const libscan_sat_image_t *wtable, const uint16_t *radius_q8,
                               size_t radius_pitch, const libscan_sat_image_t *out) {
    libscan_status_t st = libscan__sat_check_image(table);
    if (st != LIBSCAN_SUCCESS) return st;
    if ((st = libscan__sat_check_image(out)) != LIBSCAN_SUCCESS) return st;
    if (table->type != LIBSCAN_U32) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (out->type != LIBSCAN_U8 && out->type != LIBSCAN_U16) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (!same_shape(table, out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (libscan__sat_images_overlap(table, out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (wtable) {
        if ((st = libscan__sat_check_image(wtable)) != LIBSCAN_SUCCESS) return st;
        if (wtable->type != LIBSCAN_U32) return LIBSCAN_ERROR_INVALID_DTYPE;
        if (wtable->channels != 1 || wtable->width != table->width || wtable->height != table->height)
            return LIBSCAN_ERROR_INVALID_ARGUMENT;
        if (libscan__sat_images_overlap(wtable, out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    }
    if (radius_q8) {
        if ((uintptr_t)radius_q8 % 2 != 0 || radius_pitch % 2 != 0 || radius_pitch < table->width * 2)
            return LIBSCAN_ERROR_INVALID_ARGUMENT;
        const libscan_sat_image_t r = {(void *)(uintptr_t)radius_q8, LIBSCAN_U16, 1, table->width, table->height, radius_pitch};
        if (libscan__sat_check_image(&r) != LIBSCAN_SUCCESS || libscan__sat_images_overlap(&r, out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    }
    return LIBSCAN_SUCCESS;
}

libscan_status_t libscan__sat_check_sums(const libscan_sat_image_t *table, const void *boxes, size_t n, const void *sums) {
    libscan_status_t st = libscan__sat_check_image(table);
    if (st != LIBSCAN_SUCCESS) return st;
    if (table->type != LIBSCAN_U32 && table->type != LIBSCAN_U64 && table->type != LIBSCAN_F32 && table->type != LIBSCAN_F64)
        return LIBSCAN_ERROR_INVALID_DTYPE;
    if (n > 0 && (!boxes || !sums)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (n > SIZE_MAX / 32) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (n > 0 && (uintptr_t)sums % libscan_dtype_size(table->type) != 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    return LIBSCAN_SUCCESS;
}
