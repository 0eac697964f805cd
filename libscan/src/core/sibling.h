/* sibling.h -- private functions that libscan.so exports to its sibling
 * libraries (libscan_nccl), so that they go through the same entry path,
 * temp cache and key map instead of growing their own. Not installed: the
 * names start with libscan__ (so libscan.map exports them and the prefix
 * check of tests/consumer holds), no header a user sees declares them, and
 * they carry no ABI promise: a sibling requires the libscan it was built
 * with. Every other libscan__ symbol stays hidden. */
#ifndef LIBSCAN_CORE_SIBLING_H
#define LIBSCAN_CORE_SIBLING_H

#if defined(__GNUC__) && !defined(_WIN32)
#define LIBSCAN__SIBLING __attribute__((visibility("default")))
#else
#define LIBSCAN__SIBLING
#endif

#endif
