/* cm.h -- include cmocka with the headers it needs, from C or C++.
 * cmocka.h has no extern "C" guard of its own. */
#ifndef LIBSCAN_TEST_CM_H
#define LIBSCAN_TEST_CM_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#include <cmocka.h>
#ifdef __cplusplus
}
#endif
#endif
