/* sat_internal.h -- argument checks shared by the GPU and CPU halves of the
 * SAT family (not installed), so both reject exactly the same calls with the
 * same status (sat.h, "Status"). The GPU half then describes its buffers to
 * libscan__enter (core/entry.h), which repeats the alignment and overlap
 * checks on its own and adds the temp and device-memory ones. */
#ifndef LIBSCAN_SAT_INTERNAL_H
#define LIBSCAN_SAT_INTERNAL_H

#include <libscan/sat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One image descriptor: NULL descriptor or data (NULL_POINTER), dtype unknown
 * (INVALID_DTYPE), channels 1..4, sizes 1..LIBSCAN_SAT_MAX_DIM, pitch at least
 * a row and a multiple of the element size, span fits a size_t
 * (INVALID_ARGUMENT), data aligned to the element size (INVALID_POINTER). */
libscan_status_t libscan__sat_check_image(const libscan_sat_image_t *img);

/* Bytes an image covers from its data pointer: pitch * (height - 1) + row
 * bytes (for an image that passed libscan__sat_check_image). */
size_t libscan__sat_image_span(const libscan_sat_image_t *img);

/* 1 when the byte ranges the two (checked) images cover share a byte. */
int libscan__sat_images_overlap(const libscan_sat_image_t *a, const libscan_sat_image_t *b);

/* Shared checks of libscan_sat_build / libscan_cpu_sat_build. */
libscan_status_t libscan__sat_check_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out);

/* Shared checks of libscan_sat_box_filter / libscan_cpu_sat_box_filter
 * (radius_q8 may be NULL; radius_pitch is checked when it is not). */
libscan_status_t libscan__sat_check_filter(const libscan_sat_image_t *table, const libscan_sat_image_t *wtable,
                                           const uint16_t *radius_q8, size_t radius_pitch,
                                           const libscan_sat_image_t *out);

/* Shared checks of libscan_sat_box_sums / libscan_cpu_sat_box_sums. */
libscan_status_t libscan__sat_check_sums(const libscan_sat_image_t *table, const libscan_box_t *boxes, size_t n,
                                         const void *sums);

/* Bytes of the sums array of n boxes of a (checked) table. */
size_t libscan__sat_sums_bytes(const libscan_sat_image_t *table, size_t n);

#ifdef __cplusplus
}
#endif
#endif
