/* jpeg_check.h -- what the JPEG tests check a JPEG against, computed here
 * from the standard rather than by the code under test: the markers of a
 * file (frame header, sampling factors, quantisation tables), the tables
 * IJG's quality scaling gives (JPEG standard Annex K tables, scaled as
 * libjpeg, PIL and ImageMagick do), and distances between two 8-bit images
 * (one decoded by stb_image, an independent decoder). */
#ifndef LIBSCAN_TEST_JPEG_CHECK_H
#define LIBSCAN_TEST_JPEG_CHECK_H

#include <stddef.h>
#include <stdint.h>

typedef struct jc_info {
    int sof;        /* the frame marker's second byte: 0xc0 baseline, 0xc2 progressive, ... (0: none) */
    int width, height, components;
    int h[4], v[4]; /* sampling factors per component */
    int tq[4];      /* quantisation table per component */
    int have_table[4];
    uint16_t table[4][64]; /* quantisation tables in natural (row-major) order */
} jc_info;

/* Parse the markers up to the first SOS. 0, or -1 when the bytes are not
 * a JPEG with a frame header. */
int jc_parse(const uint8_t *f, size_t len, jc_info *info);

/* The quantisation table (natural order) libjpeg's jpeg_set_quality(q,
 * force_baseline = TRUE) makes: chroma = 0 for luma, 1 for chroma. */
void jc_ijg_table(int quality, int chroma, uint16_t out[64]);

/* Distances between a and b (n samples each). */
typedef struct jc_diff {
    double mean_abs; /* mean |a - b| */
    double psnr;     /* 10 log10(255^2 / MSE) in dB (999 when equal) */
    int max_abs;
} jc_diff;
jc_diff jc_compare(const uint8_t *a, const uint8_t *b, size_t n);

/* Decode with stb_image into 8-bit samples of the file's component count
 * (*comps). NULL when stb_image cannot. Free with free(). */
uint8_t *jc_stb_decode(const uint8_t *f, size_t len, int *w, int *h, int *comps);

#endif
