/* fuzz_support.h -- what the three harnesses (fuzz_npy.c, fuzz_text.c,
 * fuzz_png.c) share: the input as a file that the public readers open by
 * path, and the rules every reader message must follow. A broken rule is a
 * finding: fuzz_fail() prints it and aborts, which libFuzzer and the corpus
 * replay both report as a crash. */
#ifndef LIBSCAN_FUZZ_SUPPORT_H
#define LIBSCAN_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* The harness entry point (libFuzzer's name), defined by each harness. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A path naming a file that holds exactly data[0..size): one in-memory file
 * (memfd) per process, rewritten on every call, named /proc/self/fd/N. The
 * readers take a path and stat/fopen it themselves, so they run exactly as
 * they do on a user's file, without touching the disk. */
const char *fuzz_input_file(const uint8_t *data, size_t size);

/* The same bytes behind a pipe: /proc/self/fd/N of a fresh pipe's read end,
 * its write end already closed, so a reader sees the data and then the end.
 * A pipe can be neither seeked nor read twice, and the image reader takes
 * its plain libpng path for one (fuzz_png.c compares the two paths). NULL
 * when the data does not fit the pipe's buffer (64 KiB by default, more
 * when the system allows). Call fuzz_input_pipe_done() after reading. */
const char *fuzz_input_pipe(const uint8_t *data, size_t size);
void fuzz_input_pipe_done(void);

/* Reports a finding ("fuzz finding: <what>") on stderr and aborts. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A reader's error message, as the programs print it after "prog: ": not
 * empty, starting with "<path>: ", one line, and nothing but printable ASCII
 * (file content is quoted through app_escape, so no byte of the input may
 * reach the terminal raw). `who` names the call for the report. */
void fuzz_check_message(const char *who, const char *msg, const char *path);

/* The same rules for a notice, which may also be empty. */
void fuzz_check_notice(const char *who, const char *notice, const char *path);

#endif
