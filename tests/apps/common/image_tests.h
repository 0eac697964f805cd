/* image_tests.h -- the cmocka tests of the test_image_io suite, spread over
 * test_image_io.c (reading, scene), test_image_write.c (writing),
 * test_png_codec.c (the PNG encoder's parts, every level, the reader's fast
 * path), test_png_unfilter.c (the row filters undone, on threads) and
 * test_image_srgb.c (sRGB and float conversions); main() is in
 * test_image_io.c. */
#ifndef LIBSCAN_TEST_IMAGE_TESTS_H
#define LIBSCAN_TEST_IMAGE_TESTS_H

/* test_image_write.c */
void test_write_png_roundtrip(void **state);
void test_write_png_16bit_from_file(void **state);
void test_write_bmp(void **state);
void test_write_tga(void **state);
void test_write_extension_rules(void **state);
void test_write_unknown_extension(void **state);
void test_write_bad_image_and_options(void **state);
void test_write_missing_directory(void **state);
void test_write_unwritable_directory(void **state);
void test_write_path_is_directory(void **state);
void test_write_atomic_replace(void **state);
void test_write_fails_midway(void **state);
void test_write_full_device(void **state);
void test_write_signal_cleanup(void **state);

/* test_png_codec.c */
void test_png_deflate_bands(void **state);
void test_png_deflate_dictionary(void **state);
void test_png_deflate_failures(void **state);
void test_write_png_levels(void **state);
void test_write_png_wide(void **state);
void test_write_png_bad_options(void **state);
void test_read_fast_path(void **state);
void test_read_fast_path_every_kind(void **state);

/* test_png_unfilter.c */
void test_png_unfilter_threads_match_spec(void **state);
void test_png_unfilter_tall_narrow(void **state);
void test_png_unfilter_large(void **state);
void test_png_unfilter_bad_type(void **state);
void test_png_unfilter_thread_rule(void **state);

/* test_image_srgb.c */
void test_srgb_known_points(void **state);
void test_srgb8_table_and_roundtrip(void **state);
void test_srgb16_roundtrip(void **state);
void test_srgb_clamping(void **state);
void test_f32_plain_and_linear(void **state);
void test_f32_premultiply_roundtrip(void **state);
void test_f32_16bit_roundtrip(void **state);
void test_f32_bad_arguments(void **state);

#endif
