/* temp_file.h -- unnamed temporary files: scratch space that nothing has to
 * clean up, whatever way the process ends.
 *
 * Plain C; link app_common and write #include "common/temp_file.h". Nothing
 * here prints. Thread-safe. */
#ifndef APP_COMMON_TEMP_FILE_H
#define APP_COMMON_TEMP_FILE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The folder for temporary files: $TMPDIR when set and not empty, else
 * /tmp (as GNU sort does). Never NULL. */
const char *app_temp_dir(void);

/* A file open for reading and writing in folder `dir` that has no name:
 * O_TMPFILE where the file system has it; elsewhere a name made by mkstemp
 * and unlinked at once, with SIGINT, SIGTERM and SIGHUP held off in between
 * so that no signal can leave the name behind. Returns the descriptor
 * (close-on-exec; the file goes with its last close), or -1 with errno
 * (e.g. ENOENT for a missing folder). */
int app_temp_file(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
