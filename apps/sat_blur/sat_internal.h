/* sat_internal.h -- argument checks shared by the GPU and CPU halves of the
 * SAT library (not installed). */
#ifndef LIBSCAN_SAT_INTERNAL_H
#define LIBSCAN_SAT_INTERNAL_H

#include "sat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks one image descriptor: pointer, type in the enum, channels 1..4,
 * sizes 1..SAT_MAX_DIM, pitch large enough and a multiple of the element
 * size, data aligned to the element size. */
sat_status_t sat__check_image(const sat_image_t *img);

/* 1 when the byte ranges the two images cover overlap. */
int sat__images_overlap(const sat_image_t *a, const sat_image_t *b);

/* Bytes an image covers from its data pointer: pitch * (height - 1) + row bytes. */
size_t sat__image_span(const sat_image_t *img);

/* Shared checks of sat_build / sat_cpu_build. */
sat_status_t sat__check_build(const sat_image_t *in, const sat_image_t *out);

/* Shared checks of sat_box_filter / sat_cpu_box_filter (radius pointer may
 * be NULL; radius_pitch is checked when it is not). */
sat_status_t sat__check_filter(const sat_image_t *table, const sat_image_t *wtable, const uint16_t *radius_q8,
                               size_t radius_pitch, const sat_image_t *out);

/* Shared checks of sat_box_sums / sat_cpu_box_sums. */
sat_status_t sat__check_sums(const sat_image_t *table, const void *boxes, size_t n, const void *sums);

#ifdef __cplusplus
}
#endif
#endif
