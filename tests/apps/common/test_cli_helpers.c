/* test_cli_helpers.c -- apps/common/cli.h: error lines, option values, device
 * parsing and choice, strict numbers, atomic output (commit, abort, errors,
 * signals, also with threads writing at once), same-file detection, progress (through a pseudo-terminal) and
 * phase timing. */
#define _GNU_SOURCE
#include "support/harness.h"

#include "common/cli.h"
#include "fixtures.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- errors and options ------------------------------------------------------ */

static void test_error_line(void **state) {
    (void)state;
    fx_capture_stderr_begin();
    app_error("prog", "%s: bad value %d", "in.npy", 42);
    char *s = fx_capture_stderr_end();
    assert_string_equal(s, "prog: in.npy: bad value 42\n");
    free(s);
    fx_capture_stderr_begin();
    app_error("prog", "two\nlines\n");
    s = fx_capture_stderr_end();
    assert_string_equal(s, "prog: two lines\n");
    free(s);
    assert_int_equal(APP_EXIT_OK, 0);
    assert_int_equal(APP_EXIT_USAGE, 1);
    assert_int_equal(APP_EXIT_INTERNAL, 2);
}

/* app_escape: file content quoted in a message never reaches the terminal
 * raw (issue 21: an ESC in a .npy dtype was echoed as is). */
static void test_escape(void **state) {
    (void)state;
    char buf[64];
    assert_string_equal(app_escape("<i4", SIZE_MAX, buf, sizeof buf), "<i4");
    assert_string_equal(app_escape("a\x1b[31mb", SIZE_MAX, buf, sizeof buf), "a\\x1b[31mb");
    assert_string_equal(app_escape("x\\y", SIZE_MAX, buf, sizeof buf), "x\\\\y");
    assert_string_equal(app_escape("\x7f\xc3\xa9\t", SIZE_MAX, buf, sizeof buf), "\\x7f\\xc3\\xa9\\x09");
    /* An explicit length quotes NUL bytes too. */
    assert_string_equal(app_escape("a\0b", 3, buf, sizeof buf), "a\\x00b");
    /* Cut to fit, marked with "...", never split inside an escape. */
    char small[10];
    assert_string_equal(app_escape("\x01\x02\x03\x04", SIZE_MAX, small, sizeof small), "\\x01...");
    assert_string_equal(app_escape("abcdefghijkl", SIZE_MAX, small, sizeof small), "abcdef...");
    assert_string_equal(app_escape(NULL, 0, small, sizeof small), "");
    /* Nothing outside printable ASCII survives, whatever the input. */
    unsigned char all[256];
    for (int i = 0; i < 256; ++i) all[i] = (unsigned char)i;
    char big[1200];
    app_escape(all, sizeof all, big, sizeof big);
    assert_int_equal(strlen(big), 32 * 4 + 95 + 1 + 129 * 4); /* controls, printables (+ one '\\'), DEL and high */
    for (const char *p = big; *p; ++p)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) TFAIL("byte 0x%02x left raw", (unsigned char)*p);
}

static void test_option_value(void **state) {
    (void)state;
    char *argv[] = {"prog", "--dtype=u32", "--dtype", "f64", "--dtypes", "x", "--dtype", NULL};
    int argc = 7, i = 1;
    bool missing = false;
    const char *v = app_option_value(argc, argv, &i, "--dtype", &missing);
    assert_non_null(v);
    assert_string_equal(v, "u32");
    assert_int_equal(i, 1);
    i = 2;
    v = app_option_value(argc, argv, &i, "--dtype", &missing);
    assert_string_equal(v, "f64");
    assert_int_equal(i, 3);
    i = 4;
    assert_null(app_option_value(argc, argv, &i, "--dtype", &missing));
    assert_false(missing);
    assert_int_equal(i, 4);
    i = 6;
    assert_null(app_option_value(argc, argv, &i, "--dtype", &missing));
    assert_true(missing);
    char *argv2[] = {"prog", "--dtype=", NULL};
    i = 1;
    missing = false;
    v = app_option_value(2, argv2, &i, "--dtype", &missing);
    assert_string_equal(v, "");
}

/* ---- devices ------------------------------------------------------------------ */

static void test_parse_device(void **state) {
    (void)state;
    app_device_t d = APP_DEVICE_GPU;
    assert_int_equal(app_parse_device("auto", &d), 0);
    assert_int_equal(d, APP_DEVICE_AUTO);
    assert_int_equal(app_parse_device("cpu", &d), 0);
    assert_int_equal(d, APP_DEVICE_CPU);
    assert_int_equal(app_parse_device("gpu", &d), 0);
    assert_int_equal(d, APP_DEVICE_GPU);
    const char *bad[] = {"", "GPU", "cuda", "gpu0", " cpu", "cpu ", "Auto"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        d = APP_DEVICE_CPU;
        assert_int_equal(app_parse_device(bad[i], &d), -1);
        assert_int_equal(d, APP_DEVICE_CPU);
    }
    assert_int_equal(app_parse_device(NULL, &d), -1);
    assert_string_equal(app_device_name(APP_DEVICE_AUTO), "auto");
    assert_string_equal(app_device_name(APP_DEVICE_CPU), "cpu");
    assert_string_equal(app_device_name(APP_DEVICE_GPU), "gpu");
    assert_string_equal(app_device_name((app_device_t)7), "?");
}

/* app_gpu_usable agrees with the harness's own probe; the device choice
 * prints its note once, and only in AUTO mode. */
static void test_choose_device(void **state) {
    (void)state;
    char why[256] = "unchanged";
    /* The probe started on a thread (cli.h's warm start; --device cpu starts
       none) and joined by app_gpu_usable: the same answer as the harness's
       own probe, and "gpu init" placed in the run for --timing. */
    app_timing_t tm;
    app_timing_init(&tm, true);
    /* app_gpu_streams: the user's CUDA_DEVICE_MAX_CONNECTIONS wins; else the
       count, kept within 1..32, until the probe starts; then nothing. */
    const char *const CONN = "CUDA_DEVICE_MAX_CONNECTIONS";
    assert_int_equal(setenv(CONN, "5", 1), 0);
    app_gpu_streams(1);
    assert_string_equal(getenv(CONN), "5");
    const int asked[] = {0, 99, -3, 3}, got[] = {1, 32, 1, 3};
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(unsetenv(CONN), 0);
        app_gpu_streams(asked[k]);
        assert_non_null(getenv(CONN));
        assert_int_equal(atoi(getenv(CONN)), got[k]);
    }
    app_gpu_warm_start(APP_DEVICE_CPU);
    app_timing_gpu_init(&tm);
    assert_int_equal(tm.count, 0); /* nothing probed yet */
    app_gpu_warm_start(APP_DEVICE_AUTO);
    app_gpu_warm_start(APP_DEVICE_GPU); /* already running: no second thread */
    int usable = app_gpu_usable(why, sizeof why);
    app_timing_gpu_init(&tm);
    assert_int_equal(tm.count, 1);
    assert_string_equal(tm.phase[0].name, "gpu init");
    assert_true(tm.phase[0].from >= tm.t0 && tm.phase[0].to >= tm.phase[0].from);
    assert_int_equal(usable, test_gpu_present());
    if (!usable) assert_true(why[0] != '\0' && strcmp(why, "unchanged") != 0);
    else assert_string_equal(why, "");
    assert_int_equal(app_gpu_usable(NULL, 0), usable);
    assert_int_equal(unsetenv(CONN), 0);
    app_gpu_streams(2); /* the context exists (or was tried) with 3 queues */
    assert_null(getenv(CONN));

    app_device_t chosen = APP_DEVICE_AUTO;
    fx_capture_stderr_begin();
    assert_int_equal(app_choose_device("prog", APP_DEVICE_CPU, &chosen), APP_EXIT_OK);
    char *s = fx_capture_stderr_end();
    assert_int_equal(chosen, APP_DEVICE_CPU);
    assert_string_equal(s, "");
    free(s);

    fx_capture_stderr_begin();
    int r1 = app_choose_device("prog", APP_DEVICE_AUTO, &chosen);
    app_device_t first = chosen;
    int r2 = app_choose_device("prog", APP_DEVICE_AUTO, &chosen);
    s = fx_capture_stderr_end();
    assert_int_equal(r1, APP_EXIT_OK);
    assert_int_equal(r2, APP_EXIT_OK);
    assert_int_equal(first, chosen);
    if (usable) {
        assert_int_equal(chosen, APP_DEVICE_GPU);
        assert_string_equal(s, "");
    } else {
        assert_int_equal(chosen, APP_DEVICE_CPU);
        char want[512];
        snprintf(want, sizeof want, "prog: no usable GPU (%s); running on the CPU\n", why);
        assert_string_equal(s, want); /* exactly once */
    }
    free(s);

    fx_capture_stderr_begin();
    chosen = APP_DEVICE_AUTO;
    int r = app_choose_device("prog", APP_DEVICE_GPU, &chosen);
    s = fx_capture_stderr_end();
    if (usable) {
        assert_int_equal(r, APP_EXIT_OK);
        assert_int_equal(chosen, APP_DEVICE_GPU);
    } else {
        assert_int_equal(r, APP_EXIT_INTERNAL);
        assert_int_equal(chosen, APP_DEVICE_AUTO);
        assert_non_null(strstr(s, "prog: --device gpu: no usable GPU ("));
        assert_int_equal(strchr(s, '\n') - s, (long)strlen(s) - 1); /* one line */
    }
    free(s);

    fx_capture_stderr_begin();
    r = app_choose_device("prog", (app_device_t)9, &chosen);
    s = fx_capture_stderr_end();
    assert_int_equal(r, APP_EXIT_USAGE);
    free(s);
    print_message("GPU %s (%s)\n", usable ? "usable" : "not usable", usable ? "-" : why);
}

/* ---- numbers -------------------------------------------------------------------- */

static void test_parse_integers(void **state) {
    (void)state;
    char err[256];
    int64_t v;
    struct { const char *s; int64_t want; } ok[] = {
        {"0", 0}, {"-0", 0}, {"+5", 5}, {"007", 7}, {"9223372036854775807", INT64_MAX},
        {"-9223372036854775808", INT64_MIN},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; ++i) {
        if (app_parse_i64(ok[i].s, INT64_MIN, INT64_MAX, &v, err, sizeof err) != 0) TFAIL("'%s': %s", ok[i].s, err);
        assert_true(v == ok[i].want);
    }
    const char *notint[] = {"", " 1", "1 ", "1.5", "1e3", "0x10", "--1", "+", "-", "abc", "1,2", "٣"};
    for (size_t i = 0; i < sizeof notint / sizeof notint[0]; ++i) {
        v = 123;
        if (app_parse_i64(notint[i], INT64_MIN, INT64_MAX, &v, err, sizeof err) != -1) TFAIL("'%s' accepted", notint[i]);
        assert_true(v == 123);
        assert_non_null(strstr(err, "is not an integer"));
    }
    assert_int_equal(app_parse_i64("9223372036854775808", INT64_MIN, INT64_MAX, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "out of range"));
    assert_int_equal(app_parse_i64("-9223372036854775809", INT64_MIN, INT64_MAX, &v, err, sizeof err), -1);
    assert_int_equal(app_parse_i64("11", 0, 10, &v, err, sizeof err), -1);
    assert_string_equal(err, "'11' is out of range [0, 10]");
    assert_int_equal(app_parse_i64("-1", 0, 10, &v, err, sizeof err), -1);
    assert_int_equal(app_parse_i64("10", 0, 10, &v, err, sizeof err), 0);
    assert_int_equal(v, 10);
    assert_int_equal(app_parse_i64(NULL, 0, 10, &v, err, sizeof err), -1);

    uint64_t u;
    assert_int_equal(app_parse_u64("18446744073709551615", 0, UINT64_MAX, &u, err, sizeof err), 0);
    assert_true(u == UINT64_MAX);
    assert_int_equal(app_parse_u64("+3", 0, UINT64_MAX, &u, err, sizeof err), 0);
    assert_true(u == 3);
    assert_int_equal(app_parse_u64("18446744073709551616", 0, UINT64_MAX, &u, err, sizeof err), -1);
    assert_non_null(strstr(err, "out of range"));
    assert_int_equal(app_parse_u64("-1", 0, UINT64_MAX, &u, err, sizeof err), -1);
    assert_non_null(strstr(err, "out of range"));
    assert_int_equal(app_parse_u64("0", 1, 8, &u, err, sizeof err), -1);
    assert_string_equal(err, "'0' is out of range [1, 8]");
    assert_int_equal(app_parse_u64("2.0", 0, 8, &u, err, sizeof err), -1);
    assert_non_null(strstr(err, "is not an integer"));
}

static void test_parse_floats(void **state) {
    (void)state;
    char err[256];
    double v;
    struct { const char *s; double want; } ok[] = {
        {"1.5", 1.5}, {"-2e-3", -2e-3}, {"+.5", 0.5}, {"5.", 5.0}, {"1e308", 1e308}, {"-0", -0.0},
        {"inf", INFINITY}, {"-Infinity", -INFINITY}, {"INF", INFINITY}, {"1e-400", 0.0}, {"0.1", 0.1},
        {"4.9e-324", 4.9406564584124654e-324},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; ++i) {
        if (app_parse_f64(ok[i].s, &v, err, sizeof err) != 0) TFAIL("'%s': %s", ok[i].s, err);
        if (memcmp(&v, &ok[i].want, sizeof v) != 0) TFAIL("'%s' gave %.17g", ok[i].s, v);
    }
    assert_int_equal(app_parse_f64("nan", &v, err, sizeof err), 0);
    assert_true(isnan(v));
    assert_int_equal(app_parse_f64("-NaN", &v, err, sizeof err), 0);
    assert_true(isnan(v));
    const char *bad[] = {"", " 1", "1 ", "abc", "1.5x", "0x1p3", "nan(1)", "1,5", "e5", ".", "--1", "1e"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        v = 7;
        if (app_parse_f64(bad[i], &v, err, sizeof err) != -1) TFAIL("'%s' accepted", bad[i]);
        assert_true(v == 7);
        assert_non_null(strstr(err, "is not a number"));
    }
    assert_int_equal(app_parse_f64("1e309", &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "too large"));
    assert_int_equal(app_parse_f64("-1e309", &v, err, sizeof err), -1);
    assert_int_equal(app_parse_f64(NULL, &v, err, sizeof err), -1);
}

static void test_parse_pairs(void **state) {
    (void)state;
    char err[256];
    double x = 0, y = 0;
    assert_int_equal(app_parse_pair_f64("1,2", &x, &y, err, sizeof err), 0);
    assert_true(x == 1 && y == 2);
    assert_int_equal(app_parse_pair_f64("-1.5,2e3", &x, &y, err, sizeof err), 0);
    assert_true(x == -1.5 && y == 2000);
    assert_int_equal(app_parse_pair_f64("nan,inf", &x, &y, err, sizeof err), 0);
    assert_true(isnan(x) && isinf(y));
    const char *bad[] = {"1", "1,2,3", ",1", "1,", "a,b", "1, 2", "", ","};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        x = y = 9;
        if (app_parse_pair_f64(bad[i], &x, &y, err, sizeof err) != -1) TFAIL("'%s' accepted", bad[i]);
        assert_true(x == 9 && y == 9);
        assert_true(err[0] != '\0');
    }
    assert_int_equal(app_parse_pair_f64("1", &x, &y, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a pair"));
    assert_int_equal(app_parse_pair_f64("1,x", &x, &y, err, sizeof err), -1);
    assert_non_null(strstr(err, "'x' is not a number"));

    int64_t a = 0, b = 0;
    assert_int_equal(app_parse_pair_i64("640,480", 1, 65535, &a, &b, err, sizeof err), 0);
    assert_true(a == 640 && b == 480);
    assert_int_equal(app_parse_pair_i64("-3,4", -10, 10, &a, &b, err, sizeof err), 0);
    assert_true(a == -3 && b == 4);
    assert_int_equal(app_parse_pair_i64("0,480", 1, 65535, &a, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "out of range"));
    assert_int_equal(app_parse_pair_i64("1.5,2", 1, 65535, &a, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "not an integer"));
    char longs[400];
    memset(longs, '1', sizeof longs - 1);
    longs[sizeof longs - 1] = '\0';
    longs[200] = ',';
    assert_int_equal(app_parse_pair_i64(longs, 0, 10, &a, &b, err, sizeof err), -1);
}

/* ---- atomic output ------------------------------------------------------------------ */

static void test_out_commit_abort(void **state) {
    fx_dir_t *fx = *state;
    char path[1200], err[512], names[512];
    snprintf(path, sizeof path, "%s/out.txt", fx->dir);
    app_out_t *o = app_out_open(path, err, sizeof err);
    if (!o) TFAIL("app_out_open: %s", err);
    assert_string_equal(app_out_path(o), path);
    fputs("hello\n", app_out_file(o));
    assert_int_equal(access(path, F_OK), -1); /* not there before commit */
    assert_int_equal(fx_count_entries(fx->dir, names, sizeof names), 1);
    assert_true(names[0] == '.'); /* a hidden temporary beside it */
    assert_int_equal(app_out_commit(o, err, sizeof err), 0);
    size_t len;
    unsigned char *s = fx_read_file(path, &len);
    assert_string_equal((char *)s, "hello\n");
    free(s);
    assert_int_equal(fx_count_entries(fx->dir, names, sizeof names), 1);
    /* Mode as fopen would give. */
    mode_t mask = umask(022);
    umask(mask);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);

    /* Abort: the existing file stays as it was, no temporary file left. */
    o = app_out_open(path, err, sizeof err);
    assert_non_null(o);
    fputs("new content", app_out_file(o));
    app_out_abort(o);
    s = fx_read_file(path, &len);
    assert_string_equal((char *)s, "hello\n");
    free(s);
    if (fx_count_entries(fx->dir, names, sizeof names) != 1) TFAIL("left behind: %s", names);
    app_out_abort(NULL);

    /* Commit replaces. */
    o = app_out_open(path, err, sizeof err);
    fputs("second\n", app_out_file(o));
    assert_int_equal(app_out_commit(o, err, sizeof err), 0);
    s = fx_read_file(path, &len);
    assert_string_equal((char *)s, "second\n");
    free(s);

    /* A relative name (temporary in the current directory). */
    char cwd[1200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(fx->dir), 0);
    o = app_out_open("rel.bin", err, sizeof err);
    assert_non_null(o);
    fputs("r", app_out_file(o));
    assert_int_equal(app_out_commit(o, err, sizeof err), 0);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(fx_count_entries(fx->dir, names, sizeof names), 2);

    /* Many at once. */
    app_out_t *many[8];
    for (int i = 0; i < 8; ++i) {
        char p[1300];
        snprintf(p, sizeof p, "%s/m%d", fx->dir, i);
        many[i] = app_out_open(p, err, sizeof err);
        assert_non_null(many[i]);
    }
    for (int i = 0; i < 8; ++i) app_out_abort(many[i]);
    assert_int_equal(fx_count_entries(fx->dir, names, sizeof names), 2);

    /* Standard output. */
    o = app_out_open("-", err, sizeof err);
    assert_non_null(o);
    assert_ptr_equal(app_out_file(o), stdout);
    assert_int_equal(app_out_commit(o, err, sizeof err), 0);
}

static void test_out_errors(void **state) {
    fx_dir_t *fx = *state;
    char path[1400], err[512], file[1200];
    snprintf(path, sizeof path, "%s/missing/out.npy", fx->dir);
    assert_null(app_out_open(path, err, sizeof err));
    if (!strstr(err, path) || !strstr(err, "/missing'") || !strstr(err, "No such file"))
        TFAIL("error '%s' should name %s and its directory", err, path);
    snprintf(file, sizeof file, "%s/plain", fx->dir);
    fx_write_file(file, "x", 1);
    snprintf(path, sizeof path, "%s/out.npy", file);
    assert_null(app_out_open(path, err, sizeof err));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "Not a directory"));
    assert_null(app_out_open(fx->dir, err, sizeof err));
    assert_non_null(strstr(err, "is a directory"));
    snprintf(path, sizeof path, "%s/", fx->dir);
    assert_null(app_out_open(path, err, sizeof err));
    assert_null(app_out_open("", err, sizeof err));
    if (geteuid() != 0) {
        snprintf(path, sizeof path, "%s/ro", fx->dir);
        assert_int_equal(mkdir(path, 0500), 0);
        strcat(path, "/x");
        assert_null(app_out_open(path, err, sizeof err));
        assert_non_null(strstr(err, "Permission denied"));
    } else {
        print_message("note: running as root, so the read-only-directory case cannot be provoked here\n");
    }
    /* Commit failure: the directory vanishes before the rename. */
    char sub[1300];
    snprintf(sub, sizeof sub, "%s/sub", fx->dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/f.txt", sub);
    app_out_t *o = app_out_open(path, err, sizeof err);
    assert_non_null(o);
    char tmpname[2048] = "";
    {
        char names[600];
        assert_int_equal(fx_count_entries(sub, names, sizeof names), 1);
        snprintf(tmpname, sizeof tmpname, "%s/%.*s", sub, (int)strcspn(names, " "), names);
    }
    /* Replace the final path with a non-empty directory: rename must fail. */
    char blocker[1500];
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(blocker, sizeof blocker, "%s/keep", path);
    fx_write_file(blocker, "k", 1);
    assert_int_equal(app_out_commit(o, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_int_equal(access(tmpname, F_OK), -1); /* temporary removed */
}

/* An existing device or FIFO is written in place, as cp does, never replaced
 * by a regular file (issue 21: as root, -o /dev/full became a regular file
 * and the full disk went unreported). The devices are private nodes of
 * /dev/full's and /dev/null's kinds, so a regression cannot harm the
 * machine's own. */
static void test_out_non_regular(void **state) {
    fx_dir_t *fx = *state;
    char err[512], fifo[1200];
    struct stat st;
    snprintf(fifo, sizeof fifo, "%s/fifo", fx->dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* A reader first (non-blocking, so no second process is needed); the
       writer's open then does not wait. */
    int rfd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(rfd >= 0);
    app_out_t *o = app_out_open(fifo, err, sizeof err);
    if (!o) TFAIL("open %s: %s", fifo, err);
    fputs("through the fifo\n", app_out_file(o));
    if (app_out_commit(o, err, sizeof err) != 0) TFAIL("commit %s: %s", fifo, err);
    char got[64] = "";
    ssize_t n = read(rfd, got, sizeof got - 1);
    close(rfd);
    if (n != 17 || memcmp(got, "through the fifo\n", 17) != 0) TFAIL("the FIFO's reader got %zd bytes", n);
    assert_int_equal(lstat(fifo, &st), 0);
    if (!S_ISFIFO(st.st_mode)) TFAIL("%s is no longer a FIFO", fifo);
    /* Abort leaves the FIFO a FIFO too. */
    rfd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(rfd >= 0);
    o = app_out_open(fifo, err, sizeof err);
    assert_non_null(o);
    app_out_abort(o);
    close(rfd);
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(fx_count_entries(fx->dir, NULL, 0), 1); /* no temporary file beside it */

    /* A full device: the write fails with ENOSPC, reported, and it stays a
     * device. Private nodes of /dev/full's and /dev/null's kinds (1, 7 and
     * 1, 3), so a regression could not harm the machine's; making them
     * needs root (CI runs as root). */
    struct stat before;
    char full[1200], null_dev[1200];
    snprintf(full, sizeof full, "%s/full", fx->dir);
    snprintf(null_dev, sizeof null_dev, "%s/null", fx->dir);
    if (mknod(full, S_IFCHR | 0666, makedev(1, 7)) == 0 && stat(full, &before) == 0) {
        o = app_out_open(full, err, sizeof err);
        if (!o) TFAIL("open the full device: %s", err);
        for (int i = 0; i < 3; ++i) fputs("data that has nowhere to go\n", app_out_file(o));
        assert_int_equal(app_out_commit(o, err, sizeof err), -1);
        if (!strstr(err, full) || !strstr(err, strerror(ENOSPC)) || strchr(err, '\n'))
            TFAIL("commit to the full device: message '%s' should name it and say '%s'", err, strerror(ENOSPC));
        assert_int_equal(lstat(full, &st), 0);
        if (!S_ISCHR(st.st_mode) || st.st_rdev != before.st_rdev) TFAIL("the full device is no longer a device");
        /* Aborting it is harmless as well. */
        o = app_out_open(full, err, sizeof err);
        assert_non_null(o);
        app_out_abort(o);
        assert_int_equal(lstat(full, &st), 0);
        assert_true(S_ISCHR(st.st_mode));
    } else {
        print_message("note: cannot make a device node here (not root?); the full-device case is skipped\n");
    }
    /* A null device takes anything and stays a device. */
    if (mknod(null_dev, S_IFCHR | 0666, makedev(1, 3)) == 0 && stat(null_dev, &before) == 0) {
        o = app_out_open(null_dev, err, sizeof err);
        assert_non_null(o);
        fputs("gone\n", app_out_file(o));
        if (app_out_commit(o, err, sizeof err) != 0) TFAIL("commit to the null device: %s", err);
        assert_int_equal(lstat(null_dev, &st), 0);
        assert_true(S_ISCHR(st.st_mode) && st.st_rdev == before.st_rdev);
    }
}

/* A signal while an output is pending removes the temporary file, and the
 * process still dies of that signal. */
static void test_out_signal_cleanup(void **state) {
    fx_dir_t *fx = *state;
    const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            /* A default disposition, as a fresh program has. */
            signal(sigs[i], SIG_DFL);
            char p1[1200], p2[1200], err[256];
            snprintf(p1, sizeof p1, "%s/a.npy", fx->dir);
            snprintf(p2, sizeof p2, "%s/b.npy", fx->dir);
            app_out_t *a = app_out_open(p1, err, sizeof err), *b = app_out_open(p2, err, sizeof err);
            if (!a || !b) _exit(3);
            fputs("partial", app_out_file(a));
            fflush(app_out_file(a));
            kill(getpid(), sigs[i]);
            _exit(4); /* not reached */
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != sigs[i])
            TFAIL("child did not die of signal %d (status 0x%x)", sigs[i], status);
        char names[512];
        if (fx_count_entries(fx->dir, names, sizeof names) != 0) TFAIL("signal %d left files: %s", sigs[i], names);
    }
}

/* Threads opening outputs while the signal comes (sat_blur --batch writes
 * frames on every core): no temporary file may be left, whichever thread
 * gets the signal and wherever the others are in app_out_open. Each trial
 * kills a child whose threads open and abort outputs in a loop. */
typedef struct churn {
    const char *dir;
    int id;
} churn_t;

static void *churn_outputs(void *arg) {
    const churn_t *c = arg;
    char path[1200], err[256];
    snprintf(path, sizeof path, "%s/t%d.png", c->dir, c->id);
    for (;;) {
        app_out_t *o = app_out_open(path, err, sizeof err);
        if (!o) { /* only "interrupted by a signal": the handler is at work */
            if (!strstr(err, "interrupted")) _exit(3);
            for (;;) pause();
        }
        fputs("x", app_out_file(o));
        app_out_abort(o);
    }
    return NULL;
}

static void test_out_signal_threads(void **state) {
    fx_dir_t *fx = *state;
    enum { kThreads = 4, kTrials = 40 };
    for (int trial = 0; trial < kTrials; ++trial) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            signal(SIGTERM, SIG_DFL);
            /* One output first, so the handler is in place before the signal. */
            char first[1200], err[256];
            snprintf(first, sizeof first, "%s/first.png", fx->dir);
            app_out_abort(app_out_open(first, err, sizeof err));
            static churn_t c[kThreads];
            pthread_t t[kThreads];
            for (int i = 0; i < kThreads; ++i) {
                c[i] = (churn_t){fx->dir, i};
                if (pthread_create(&t[i], NULL, churn_outputs, &c[i]) != 0) _exit(5);
            }
            for (;;) pause();
        }
        usleep(2000 + 500 * (useconds_t)(trial % 8)); /* the threads busy at different points */
        kill(pid, SIGTERM);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM)
            TFAIL("trial %d: child did not die of SIGTERM (status 0x%x)", trial, status);
        char names[512];
        if (fx_count_entries(fx->dir, names, sizeof names) != 0) TFAIL("trial %d: SIGTERM left files: %s", trial, names);
    }
}

static void test_same_file(void **state) {
    fx_dir_t *fx = *state;
    char a[1200], b[1200], sym[1200], alias[1400];
    snprintf(a, sizeof a, "%s/a", fx->dir);
    snprintf(b, sizeof b, "%s/b", fx->dir);
    snprintf(sym, sizeof sym, "%s/s", fx->dir);
    snprintf(alias, sizeof alias, "%s/../%s/a", fx->dir, strrchr(fx->dir, '/') + 1);
    fx_write_file(a, "1", 1);
    fx_write_file(b, "1", 1);
    assert_int_equal(symlink(a, sym), 0);
    assert_int_equal(app_same_file(a, a), 1);
    assert_int_equal(app_same_file(a, sym), 1);
    assert_int_equal(app_same_file(sym, a), 1);
    assert_int_equal(app_same_file(a, alias), 1);
    assert_int_equal(app_same_file(a, b), 0);
    assert_int_equal(app_same_file(a, "-"), 0);
    assert_int_equal(app_same_file(NULL, a), 0);
    char missing[1200];
    snprintf(missing, sizeof missing, "%s/none", fx->dir);
    assert_int_equal(app_same_file(a, missing), 0);
}

/* ---- progress and timing ------------------------------------------------------------ */

static void busy_wait(double seconds) {
    double t0 = app_now();
    while (app_now() - t0 < seconds) {
    }
}

/* Not a terminal (ctest): nothing, even for long work. */
static void test_progress_not_a_terminal(void **state) {
    (void)state;
    fx_capture_stderr_begin(); /* stderr is now a regular file */
    app_progress_t p;
    app_progress_begin(&p, "prog", "sorting", 100, false);
    for (int i = 0; i <= 100; ++i) {
        app_progress_update(&p, (uint64_t)i);
        if (i == 50) busy_wait(1.2);
    }
    app_progress_end(&p);
    char *s = fx_capture_stderr_end();
    assert_string_equal(s, "");
    free(s);
}

/* Runs a progress sequence with stderr on a pseudo-terminal; returns what the
 * terminal received (malloc'd). */
static char *progress_on_tty(bool quiet, double work_s, uint64_t total) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) TFAIL("no pseudo-terminal available");
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    assert_true(slave >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(slave, 2);
    app_progress_t p;
    app_progress_begin(&p, "prog", "sorting", total, quiet);
    double t0 = app_now();
    uint64_t i = 0, draws_max = 0;
    while (app_now() - t0 < work_s) app_progress_update(&p, total ? (++i % (total + 1)) : ++i);
    (void)draws_max;
    app_progress_end(&p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(slave);
    char *buf = calloc(1, 1 << 16);
    size_t n = 0;
    fcntl(master, F_SETFL, O_NONBLOCK);
    ssize_t m;
    while ((m = read(master, buf + n, (1 << 16) - 1 - n)) > 0) n += (size_t)m;
    close(master);
    return buf;
}

static int count_of(const char *s, const char *needle) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle)) ++n;
    return n;
}

static void test_progress_terminal(void **state) {
    (void)state;
    /* Long work: drawn a few times a second, then erased. */
    char *s = progress_on_tty(false, 2.0, 1000);
    int draws = count_of(s, "prog: sorting");
    if (draws < 2 || draws > 6) TFAIL("%d progress lines in 2 s (expected about 4): '%s'", draws, s);
    assert_non_null(strstr(s, "%"));
    size_t len = strlen(s);
    assert_true(len >= 4);
    assert_string_equal(s + len - 4, "\r\033[K"); /* cleared at the end */
    free(s);
    /* Quick work: nothing. */
    s = progress_on_tty(false, 0.3, 1000);
    assert_string_equal(s, "");
    free(s);
    /* --quiet: nothing. */
    s = progress_on_tty(true, 1.5, 1000);
    assert_string_equal(s, "");
    free(s);
    /* Unknown total: a count instead of a percentage. */
    s = progress_on_tty(false, 1.5, 0);
    assert_true(count_of(s, "prog: sorting ") >= 1);
    assert_null(strstr(s, "%"));
    free(s);
}

static void test_timing(void **state) {
    (void)state;
    double a = app_now(), b = app_now();
    assert_true(b >= a);
    app_timing_t t;
    app_timing_init(&t, true);
    app_timing_start(&t, "read");
    busy_wait(0.02);
    app_timing_start(&t, "compute"); /* stops "read" */
    busy_wait(0.01);
    app_timing_stop(&t);
    app_timing_stop(&t); /* no-op */
    app_timing_start(&t, "read"); /* accumulates */
    busy_wait(0.01);
    app_timing_stop(&t);
    app_timing_add(&t, "upload", 0.5);
    assert_true(app_timing_get(&t, "read") >= 0.03 && app_timing_get(&t, "read") < 1.0);
    assert_true(app_timing_get(&t, "compute") >= 0.01 && app_timing_get(&t, "compute") < 1.0);
    assert_true(app_timing_get(&t, "upload") == 0.5);
    assert_true(app_timing_get(&t, "write") == 0.0);
    app_timing_start(&t, "write");
    fx_capture_stderr_begin();
    app_timing_print(&t, "prog"); /* stops "write" */
    char *s = fx_capture_stderr_end();
    /* One style for every table: each stage placed in the run ("at"),
       except one only added (measured elsewhere), and the wall total. */
    assert_true(strncmp(s, "prog: timing (each stage's time; at = from .. to ms", 51) == 0);
    const char *order[] = {"  read ", "  compute ", "  upload ", "  write ", "  total (wall) "};
    const char *prev = s;
    for (int i = 0; i < 5; ++i) {
        const char *p = strstr(s, order[i]);
        if (!p || p < prev) TFAIL("timing table lacks '%s' in order:\n%s", order[i], s);
        prev = p;
    }
    assert_non_null(strstr(s, "500.000 ms\n")); /* upload: added, so no "at" */
    assert_int_equal(count_of(s, "ms  at "), 3);
    assert_null(strstr(s, "%")); /* no shares of a sum that is not the run's time */
    assert_int_equal(count_of(s, "\n"), 6);
    free(s);

    /* A note in the first line; the wall time counted from an earlier start. */
    app_timing_init(&t, true);
    app_timing_note(&t, "on the CPU: auto");
    app_timing_since(&t, app_now() - 2.0);
    app_timing_add(&t, "blur", 0.25);
    fx_capture_stderr_begin();
    app_timing_print(&t, "prog");
    s = fx_capture_stderr_end();
    assert_true(strncmp(s, "prog: timing [on the CPU: auto] (", 33) == 0);
    const char *total = strstr(s, "  total (wall) ");
    assert_non_null(total);
    double ms = 0;
    assert_int_equal(sscanf(total + 15, "%lf", &ms), 1);
    assert_true(ms >= 2000.0 && ms < 3000.0);
    free(s);

    /* Disabled: nothing recorded, nothing printed. */
    app_timing_init(&t, false);
    app_timing_start(&t, "read");
    app_timing_add(&t, "x", 1.0);
    app_timing_stop(&t);
    assert_true(app_timing_get(&t, "x") == 0.0);
    fx_capture_stderr_begin();
    app_timing_print(&t, "prog");
    s = fx_capture_stderr_end();
    assert_string_equal(s, "");
    free(s);

    /* More names than slots: the rest goes to "other"; long names truncated. */
    app_timing_init(&t, true);
    for (int i = 0; i < APP_TIMING_MAX_PHASES + 4; ++i) {
        char name[32];
        snprintf(name, sizeof name, "phase%d", i);
        app_timing_add(&t, name, 1.0);
    }
    app_timing_add(&t, "a_very_long_phase_name_beyond_the_limit", 1.0);
    assert_true(app_timing_get(&t, "other") >= 5.0);
    fx_capture_stderr_begin();
    app_timing_print(&t, "prog");
    s = fx_capture_stderr_end();
    assert_non_null(strstr(s, "other"));
    free(s);
}

/* Overlapped stages: each line is a wall span (merged per name), placed in
 * the run, and the total is the wall time, not the sum. */
static void test_timing_spans(void **state) {
    (void)state;
    app_timing_t t;
    app_timing_init(&t, true);
    const double t0 = app_now();
    app_timing_start(&t, "gpu init");
    busy_wait(0.01);
    app_timing_stop(&t);
    app_timing_span(&t, "read", t0 + 1.0, t0 + 1.05);
    app_timing_span(&t, "upload", t0 + 1.01, t0 + 1.06);
    app_timing_span(&t, "read", t0 + 1.04, t0 + 1.08); /* widens read to 1.00 .. 1.08 */
    app_timing_span(&t, "idle", t0 + 2.0, t0 + 1.0);   /* did nothing: ignored */
    assert_true(app_timing_get(&t, "read") > 0.0799 && app_timing_get(&t, "read") < 0.0801);
    assert_true(app_timing_get(&t, "upload") > 0.0499 && app_timing_get(&t, "upload") < 0.0501);
    assert_true(app_timing_get(&t, "idle") == 0.0);
    fx_capture_stderr_begin();
    app_timing_print(&t, "prog");
    char *s = fx_capture_stderr_end();
    assert_true(strncmp(s, "prog: timing (each stage's time", 31) == 0);
    const char *order[] = {"  gpu init ", "  read ", "  upload ", "  total (wall) "};
    const char *prev = s;
    for (int i = 0; i < 4; ++i) {
        const char *p = strstr(s, order[i]);
        if (!p || p < prev) TFAIL("overlapped timing table lacks '%s' in order:\n%s", order[i], s);
        prev = p;
    }
    assert_non_null(strstr(s, "80.000 ms"));
    assert_non_null(strstr(s, "50.000 ms"));
    assert_null(strstr(s, "idle"));
    assert_null(strstr(s, "%")); /* no shares of a sum that does not exist */
    assert_int_equal(count_of(s, "\n"), 5);
    free(s);
}

int main(void) {
    test_begin("test_cli_helpers");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_line),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_option_value),
        cmocka_unit_test(test_parse_device),
        cmocka_unit_test(test_choose_device),
        cmocka_unit_test(test_parse_integers),
        cmocka_unit_test(test_parse_floats),
        cmocka_unit_test(test_parse_pairs),
        cmocka_unit_test_setup_teardown(test_out_commit_abort, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_out_errors, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_out_non_regular, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_out_signal_cleanup, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_out_signal_threads, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_same_file, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test(test_progress_not_a_terminal),
        cmocka_unit_test(test_progress_terminal),
        cmocka_unit_test(test_timing),
        cmocka_unit_test(test_timing_spans),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
