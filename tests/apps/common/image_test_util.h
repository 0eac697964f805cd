/* image_test_util.h -- files and folders for the image tests: a private
 * temporary folder per run, whole-file reads, listings. */
#ifndef LIBSCAN_TEST_IMAGE_TEST_UTIL_H
#define LIBSCAN_TEST_IMAGE_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The run's temporary folder (created on first use under $TMPDIR or /tmp;
 * removed with its files by itu_cleanup). */
const char *itu_dir(void);

/* itu_dir()/name in a static rotating buffer (valid for 8 further calls). */
const char *itu_path(const char *name);

/* Make a fresh empty sub-folder of itu_dir() and return its path (rotating buffer). */
const char *itu_subdir(const char *name);

/* Read a whole file (malloc'd, *len set). NULL when it cannot be read. */
uint8_t *itu_read_file(const char *path, size_t *len);

/* 1 when path exists (any type). */
int itu_exists(const char *path);

/* Number of entries in a folder other than . and .. (-1 on error). */
int itu_count_entries(const char *dir);

/* Remove the run's folder and everything in it. */
void itu_cleanup(void);

#endif
