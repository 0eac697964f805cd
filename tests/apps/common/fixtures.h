/* fixtures.h -- what the apps/common suites build their inputs with, written
 * independently of the code under test: temporary directories, files of
 * given bytes, .npy files assembled byte by byte (any version, byte order and
 * header text), byte swapping, and capture of stderr. */
#ifndef LIBSCAN_TEST_COMMON_FIXTURES_H
#define LIBSCAN_TEST_COMMON_FIXTURES_H

#include <stddef.h>

/* A fresh directory under $TMPDIR (or /tmp); fails the test if it cannot. */
void fx_tmpdir(char *out, size_t cap);

/* Removes the directory and everything in it (one level of subdirectories). */
void fx_rmdir(const char *dir);

/* A cmocka fixture: *state becomes an fx_dir_t with a fresh temporary
 * directory, removed with everything in it afterwards. Use as
 * cmocka_unit_test_setup_teardown(test, fx_dir_setup, fx_dir_teardown). */
typedef struct {
    char dir[1024];
} fx_dir_t;
int fx_dir_setup(void **state);
int fx_dir_teardown(void **state);

/* Number of entries in dir other than "." and ".."; names joined into
 * `names` (cap bytes, may be NULL) for failure messages. */
int fx_count_entries(const char *dir, char *names, size_t cap);

/* Writes n bytes to path (created or replaced). */
void fx_write_file(const char *path, const void *bytes, size_t n);

/* Reads a whole file into a malloc'd buffer (+1 NUL byte); *n its size. */
unsigned char *fx_read_file(const char *path, size_t *n);

/* Writes a .npy file: magic, version major.minor, the header-length field
 * (2 bytes for major 1, else 4), `dict` followed by spaces and '\n' so the
 * header is a multiple of 64 bytes (or exactly as given when pad is 0), then
 * nbytes of data. header_len_delta is added to the length field (to make it
 * lie). */
void fx_write_npy(const char *path, int major, int minor, const char *dict, int pad, long header_len_delta,
                  const void *data, size_t nbytes);

/* Reverses the bytes of each element in place. */
void fx_swap(void *data, size_t count, size_t size);

/* 1 on a little-endian host. */
int fx_little_endian(void);

/* Starts capturing what is written to file descriptor 2 (stderr). */
void fx_capture_stderr_begin(void);
/* Ends the capture and returns the text (malloc'd, NUL-terminated). */
char *fx_capture_stderr_end(void);

#endif
