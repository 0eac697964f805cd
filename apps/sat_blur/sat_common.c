/* sat_common.c -- status strings, type sizes and the argument checks that the
 * GPU (sat_gpu.cu) and CPU (sat_cpu.c, blur_cpu.c) entry points share, so
 * both reject exactly the same calls. */
#include "sat_internal.h"

#include <stdint.h>

const char *sat_status_string(sat_status_t status) {
    switch (status) {
    case SAT_SUCCESS: return "success";
    case SAT_ERROR_INVALID_ARGUMENT: return "invalid argument (pointer, size, pitch, channels or overlap)";
    case SAT_ERROR_UNSUPPORTED: return "unsupported type or type pair";
    case SAT_ERROR_TEMP_TOO_SMALL: return "temp buffer smaller than sat_temp_bytes()";
    case SAT_ERROR_OUT_OF_MEMORY: return "out of memory";
    case SAT_ERROR_CUDA: return "CUDA error";
    }
    return "unknown sat status";
}

size_t sat_type_size(sat_type_t type) {
    switch (type) {
    case SAT_U8: return 1;
    case SAT_U16: return 2;
    case SAT_U32: return 4;
    case SAT_U64: return 8;
    case SAT_F32: return 4;
    case SAT_F64: return 8;
    }
    return 0;
}

int sat_pair_supported(sat_type_t in, sat_type_t table) {
    return (in == SAT_U8 && table == SAT_U32) || (in == SAT_U16 && table == SAT_U32) ||
           (in == SAT_U16 && table == SAT_U64) || (in == SAT_F32 && table == SAT_F32) ||
           (in == SAT_F32 && table == SAT_F64);
}

uint64_t sat_u32_max_exact_area(uint32_t max_value) {
    if (max_value == 0) return UINT64_MAX;
    return (uint64_t)UINT32_MAX / max_value;
}

size_t sat__image_span(const sat_image_t *img) {
    return img->pitch * (img->height - 1) + img->width * (size_t)img->channels * sat_type_size(img->type);
}

sat_status_t sat__check_image(const sat_image_t *img) {
    if (!img || !img->data) return SAT_ERROR_INVALID_ARGUMENT;
    const size_t es = sat_type_size(img->type);
    if (es == 0) return SAT_ERROR_UNSUPPORTED;
    if (img->channels < 1 || img->channels > 4) return SAT_ERROR_INVALID_ARGUMENT;
    if (img->width < 1 || img->height < 1 || img->width > SAT_MAX_DIM || img->height > SAT_MAX_DIM)
        return SAT_ERROR_INVALID_ARGUMENT;
    const size_t row = img->width * (size_t)img->channels * es;
    if (img->pitch < row || img->pitch % es != 0) return SAT_ERROR_INVALID_ARGUMENT;
    /* pitch * (height - 1) must not overflow size_t */
    if (img->height > 1 && img->pitch > (SIZE_MAX - row) / (img->height - 1)) return SAT_ERROR_INVALID_ARGUMENT;
    if ((uintptr_t)img->data % es != 0) return SAT_ERROR_INVALID_ARGUMENT;
    return SAT_SUCCESS;
}

int sat__images_overlap(const sat_image_t *a, const sat_image_t *b) {
    const uintptr_t a0 = (uintptr_t)a->data, a1 = a0 + sat__image_span(a);
    const uintptr_t b0 = (uintptr_t)b->data, b1 = b0 + sat__image_span(b);
    return a0 < b1 && b0 < a1;
}

static int same_shape(const sat_image_t *a, const sat_image_t *b) {
    return a->width == b->width && a->height == b->height && a->channels == b->channels;
}

sat_status_t sat__check_build(const sat_image_t *in, const sat_image_t *out) {
    sat_status_t st = sat__check_image(in);
    if (st != SAT_SUCCESS) return st;
    if ((st = sat__check_image(out)) != SAT_SUCCESS) return st;
    if (!same_shape(in, out)) return SAT_ERROR_INVALID_ARGUMENT;
    if (!sat_pair_supported(in->type, out->type)) return SAT_ERROR_UNSUPPORTED;
    if (sat__images_overlap(in, out)) return SAT_ERROR_INVALID_ARGUMENT;
    return SAT_SUCCESS;
}

sat_status_t sat__check_filter(const sat_image_t *table, const sat_image_t *wtable, const uint16_t *radius_q8,
                               size_t radius_pitch, const sat_image_t *out) {
    sat_status_t st = sat__check_image(table);
    if (st != SAT_SUCCESS) return st;
    if ((st = sat__check_image(out)) != SAT_SUCCESS) return st;
    if (table->type != SAT_U32) return SAT_ERROR_UNSUPPORTED;
    if (out->type != SAT_U8 && out->type != SAT_U16) return SAT_ERROR_UNSUPPORTED;
    if (!same_shape(table, out)) return SAT_ERROR_INVALID_ARGUMENT;
    if (sat__images_overlap(table, out)) return SAT_ERROR_INVALID_ARGUMENT;
    if (wtable) {
        if ((st = sat__check_image(wtable)) != SAT_SUCCESS) return st;
        if (wtable->type != SAT_U32) return SAT_ERROR_UNSUPPORTED;
        if (wtable->channels != 1 || wtable->width != table->width || wtable->height != table->height)
            return SAT_ERROR_INVALID_ARGUMENT;
        if (sat__images_overlap(wtable, out)) return SAT_ERROR_INVALID_ARGUMENT;
    }
    if (radius_q8) {
        if ((uintptr_t)radius_q8 % 2 != 0 || radius_pitch % 2 != 0 || radius_pitch < table->width * 2)
            return SAT_ERROR_INVALID_ARGUMENT;
        const sat_image_t r = {(void *)(uintptr_t)radius_q8, SAT_U16, 1, table->width, table->height, radius_pitch};
        if (sat__check_image(&r) != SAT_SUCCESS || sat__images_overlap(&r, out)) return SAT_ERROR_INVALID_ARGUMENT;
    }
    return SAT_SUCCESS;
}

sat_status_t sat__check_sums(const sat_image_t *table, const void *boxes, size_t n, const void *sums) {
    sat_status_t st = sat__check_image(table);
    if (st != SAT_SUCCESS) return st;
    if (table->type != SAT_U32 && table->type != SAT_U64 && table->type != SAT_F32 && table->type != SAT_F64)
        return SAT_ERROR_UNSUPPORTED;
    if (n > 0 && (!boxes || !sums)) return SAT_ERROR_INVALID_ARGUMENT;
    if (n > SIZE_MAX / 32) return SAT_ERROR_INVALID_ARGUMENT;
    if (n > 0 && (uintptr_t)sums % sat_type_size(table->type) != 0) return SAT_ERROR_INVALID_ARGUMENT;
    return SAT_SUCCESS;
}
