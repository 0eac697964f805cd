/* sat_internal.h -- argument checks shared by the GPU and CPU halves of the
 * SAT library (not installed). */
#ifndef LIBSCAN_SAT_INTERNAL_H
#define LIBSCAN_SAT_INTERNAL_H

#include <libscan/sat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Checks one image descriptor: pointer, type in the enum, channels 1..4,
 * sizes 1..LIBSCAN_SAT_MAX_DIM, pitch large enough and a multiple of the element
 * size, data aligned to the element size. */
libscan_status_t libscan__sat_check_image(const libscan_sat_image_t *img);

/* 1 when the byte ranges the two images cover overlap. */
int libscan__sat_images_overlap(const libscan_sat_image_t *a, const libscan_sat_image_t *b);

/* Bytes an image covers from its data pointer: pitch * (height - 1) + row bytes. */
size_t libscan__sat_image_span(const libscan_sat_image_t *img);

/* Shared checks of libscan_sat_build / libscan_cpu_sat_build. */
libscan_status_t libscan__sat_check_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out);

/* Shared checks of libscan_sat_box_filter / libscan_cpu_sat_box_filter (radius pointer may
 * be NULL; radius_pitch is checked when it is not). */
libscan_status_t libscan__sat_check_filter(const libscan_sat_image_t *table, const libscan_sat_image_t *wtable, const uint16_t *radius_q8,
                               size_t radius_pitch, const libscan_sat_image_t *out);

/* Shared checks of libscan_sat_box_sums / libscan_cpu_sat_box_sums. */
libscan_status_t libscan__sat_check_sums(const libscan_sat_image_t *table, const void *boxes, size_t n, const void *sums);

#ifdef __cplusplus
}
#endif
#endif
