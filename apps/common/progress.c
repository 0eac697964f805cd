/* progress.c -- progress line and phase timing on stderr (cli.h). */
#define _POSIX_C_SOURCE 200809L
#include "common/cli.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

double app_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- progress -------------------------------------------------------------- */

#define PROGRESS_DELAY_S 1.0   /* show nothing for quick work */
#define PROGRESS_PERIOD_S 0.25 /* at most 4 redraws a second */

void app_progress_begin(app_progress_t *p, const char *prog, const char *label, uint64_t total,
                        bool quiet) {
    memset(p, 0, sizeof *p);
    p->prog = prog ? prog : "";
    p->label = label ? label : "";
    p->total = total;
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->start = p->enabled ? app_now() : 0.0;
}

void app_progress_update(app_progress_t *p, uint64_t done) {
    if (!p->enabled) return;
    double t = app_now();
    if (t - p->start < PROGRESS_DELAY_S || t - p->last_draw < PROGRESS_PERIOD_S) return;
    p->last_draw = t;
    p->drawn = true;
    /* "\r" + erase-to-end-of-line keeps it on one line of the terminal. */
    if (p->total > 0) {
        double pct = 100.0 * (double)done / (double)p->total;
        if (pct > 100.0) pct = 100.0;
        fprintf(stderr, "\r%s: %s %3.0f%%\033[K", p->prog, p->label, pct);
    } else {
        fprintf(stderr, "\r%s: %s %llu\033[K", p->prog, p->label, (unsigned long long)done);
    }
    fflush(stderr);
}

void app_progress_end(app_progress_t *p) {
    if (p->enabled && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = false;
}

/* ---- timing ---------------------------------------------------------------- */

void app_timing_init(app_timing_t *t, bool enabled) {
    memset(t, 0, sizeof *t);
    t->enabled = enabled;
    t->current = -1;
    t->t0 = enabled ? app_now() : 0.0;
}

/* Index of phase `name`, created on first use. The last slot is kept for
 * "other", which takes every name beyond the table. */
static int phase_index(app_timing_t *t, const char *name) {
    char key[APP_TIMING_NAME_MAX];
    snprintf(key, sizeof key, "%s", name ? name : "");
    for (int i = 0; i < t->count; ++i)
        if (strcmp(t->phase[i].name, key) == 0) return i;
    if (t->count >= APP_TIMING_MAX_PHASES - 1) {
        for (int i = 0; i < t->count; ++i)
            if (strcmp(t->phase[i].name, "other") == 0) return i;
        snprintf(key, sizeof key, "other");
    }
    snprintf(t->phase[t->count].name, APP_TIMING_NAME_MAX, "%s", key);
    t->phase[t->count].seconds = 0.0;
    t->phase[t->count].calls = 0;
    t->phase[t->count].from = 0.0;
    t->phase[t->count].to = 0.0;
    t->phase[t->count].added = false;
    return t->count++;
}

/* Widens phase i's [from, to] to include [a, b]. */
static void phase_extend(app_timing_t *t, int i, double a, double b) {
    if (t->phase[i].calls == 0 || a < t->phase[i].from) t->phase[i].from = a;
    if (t->phase[i].calls == 0 || b > t->phase[i].to) t->phase[i].to = b;
}

void app_timing_start(app_timing_t *t, const char *name) {
    if (!t->enabled) return;
    app_timing_stop(t);
    t->current = phase_index(t, name);
    t->started = app_now();
}

void app_timing_stop(app_timing_t *t) {
    if (!t->enabled || t->current < 0) return;
    const double end = app_now();
    phase_extend(t, t->current, t->started, end);
    t->phase[t->current].seconds += end - t->started;
    t->phase[t->current].calls++;
    t->current = -1;
}

void app_timing_add(app_timing_t *t, const char *name, double seconds) {
    if (!t->enabled) return;
    int i = phase_index(t, name);
    const double end = app_now();
    phase_extend(t, i, end - seconds, end);
    t->phase[i].seconds += seconds;
    t->phase[i].calls++;
    t->phase[i].added = true;
}

void app_timing_span(app_timing_t *t, const char *name, double from, double to) {
    if (!t->enabled || to < from) return;
    int i = phase_index(t, name);
    phase_extend(t, i, from, to);
    t->phase[i].seconds = t->phase[i].to - t->phase[i].from;
    t->phase[i].calls++;
}

double app_timing_get(const app_timing_t *t, const char *name) {
    char key[APP_TIMING_NAME_MAX];
    snprintf(key, sizeof key, "%s", name ? name : "");
    for (int i = 0; i < t->count; ++i)
        if (strcmp(t->phase[i].name, key) == 0) return t->phase[i].seconds;
    return 0.0;
}

void app_timing_note(app_timing_t *t, const char *note) {
    if (t->enabled) snprintf(t->note, sizeof t->note, "%s", note ? note : "");
}

void app_timing_since(app_timing_t *t, double t0) {
    if (t->enabled) t->t0 = t0;
}

void app_timing_print(app_timing_t *t, const char *prog) {
    if (!t->enabled) return;
    app_timing_stop(t);
    /* One style for every program and path: each stage's own time (summed
       over its pieces; for a stage recorded as a span, its wall span), where
       it ran in the run, and the wall time as the total, since stages that
       overlap do not add up. Built in one buffer and written at once, so it
       stays together. */
    char buf[APP_TIMING_MAX_PHASES * 96 + 512];
    size_t n = 0;
    const double wall = app_now() - t->t0;
    n += (size_t)snprintf(buf + n, sizeof buf - n,
                          "%s: timing%s%s%s (each stage's time; at = from .. to ms into the run; stages may overlap, "
                          "so the total is the wall time)\n",
                          prog ? prog : "", t->note[0] ? " [" : "", t->note, t->note[0] ? "]" : "");
    for (int i = 0; i < t->count && n < sizeof buf; ++i) {
        if (t->phase[i].added) /* measured elsewhere: no place in the run */
            n += (size_t)snprintf(buf + n, sizeof buf - n, "  %-*s %12.3f ms\n", APP_TIMING_NAME_MAX - 1,
                                  t->phase[i].name, t->phase[i].seconds * 1e3);
        else
            n += (size_t)snprintf(buf + n, sizeof buf - n, "  %-*s %12.3f ms  at %8.1f .. %8.1f\n",
                                  APP_TIMING_NAME_MAX - 1, t->phase[i].name, t->phase[i].seconds * 1e3,
                                  (t->phase[i].from - t->t0) * 1e3, (t->phase[i].to - t->t0) * 1e3);
    }
    if (n < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "  %-*s %12.3f ms\n", APP_TIMING_NAME_MAX - 1, "total (wall)", wall * 1e3);
    fputs(buf, stderr);
}
