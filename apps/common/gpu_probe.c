/* gpu_probe.c -- is there a usable GPU (app_gpu_usable), the probe started
 * early on a thread so that creating the CUDA context overlaps the program's
 * own start (app_gpu_warm_start), and the choice of device it decides
 * (app_choose_device); cli.h.
 *
 * Why a thread: cudaFree(0) creates the context, 0.2-0.6 s on an H100
 * machine, in which the program could open its inputs, create its output and
 * read or decode the data. The runtime's primary context belongs to the
 * process, so the thread that creates it need not be the one that uses it. */
#define _POSIX_C_SOURCE 200809L
#include "common/cli.h"
#include "common/threads.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

/* The probe's result, written once by whoever runs it (the warm-start thread
 * or the main thread) and read only after that thread is joined. */
static int g_gpu_probed = 0, g_gpu_ok = 0;
static char g_gpu_why[256];
static double g_probe_from, g_probe_to;

/* The warm-start thread: started by app_gpu_warm_start, joined once. */
static pthread_t g_warm_tid;
static int g_warm_running = 0;

static void probe(void) {
    g_probe_from = app_now();
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(g_gpu_why, sizeof g_gpu_why, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
    } else if (count <= 0) {
        snprintf(g_gpu_why, sizeof g_gpu_why, "no CUDA device found");
    } else if ((e = cudaFree(0)) != cudaSuccess) {
        snprintf(g_gpu_why, sizeof g_gpu_why, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
    } else {
        g_gpu_ok = 1;
        g_gpu_why[0] = '\0';
    }
    /* Clear the sticky last-error state so later checks start clean. */
    if (!g_gpu_ok) (void)cudaGetLastError();
    g_probe_to = app_now();
}

static void *warm_main(void *arg) {
    (void)arg;
    probe();
    return NULL;
}

static void warm_join(void) {
    if (!g_warm_running) return;
    pthread_join(g_warm_tid, NULL);
    g_warm_running = 0;
    g_gpu_probed = 1;
}

/* A program that returns early (a bad input found while the probe runs)
 * must not tear the CUDA runtime down under a thread still creating the
 * context: exit() waits for the probe first. Registered in main's thread
 * after the runtime's own handlers (the static constructors of a program
 * with kernels register those before main), so it runs before them. */
static void warm_join_at_exit(void) { warm_join(); }

void app_gpu_streams(int streams) {
    const char *set = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    if ((set && *set) || g_gpu_probed || g_warm_running) return; /* the user's word, or too late */
    if (streams < 1) streams = 1;
    if (streams > 32) streams = 32;
    char v[16];
    snprintf(v, sizeof v, "%d", streams);
    (void)setenv("CUDA_DEVICE_MAX_CONNECTIONS", v, 0);
}

void app_gpu_warm_start(app_device_t requested) {
    if (requested == APP_DEVICE_CPU || g_gpu_probed || g_warm_running) return;
    static int registered = 0;
    if (!registered) registered = atexit(warm_join_at_exit) == 0;
    /* Without the thread (or the exit hook), app_gpu_usable probes inline
       as before: slower, never wrong. */
    if (registered && app_thread_start(&g_warm_tid, warm_main, NULL) == 0) g_warm_running = 1;
}

int app_gpu_usable(char *why, size_t n) {
    warm_join();
    if (!g_gpu_probed) {
        g_gpu_probed = 1;
        probe();
    }
    if (why && n > 0) snprintf(why, n, "%s", g_gpu_why);
    return g_gpu_ok;
}

void app_timing_gpu_init(app_timing_t *t) {
    if (g_gpu_probed && !g_warm_running) app_timing_span(t, "gpu init", g_probe_from, g_probe_to);
}

static int g_cpu_note_printed = 0;

int app_choose_device(const char *prog, app_device_t requested, app_device_t *chosen) {
    char why[256];
    switch (requested) {
    case APP_DEVICE_CPU:
        *chosen = APP_DEVICE_CPU;
        return APP_EXIT_OK;
    case APP_DEVICE_GPU:
        if (!app_gpu_usable(why, sizeof why)) {
            app_error(prog, "--device gpu: no usable GPU (%s)", why);
            return APP_EXIT_INTERNAL;
        }
        *chosen = APP_DEVICE_GPU;
        return APP_EXIT_OK;
    case APP_DEVICE_AUTO:
        if (app_gpu_usable(why, sizeof why)) {
            *chosen = APP_DEVICE_GPU;
        } else {
            if (!g_cpu_note_printed) {
                g_cpu_note_printed = 1;
                app_error(prog, "no usable GPU (%s); running on the CPU", why);
            }
            *chosen = APP_DEVICE_CPU;
        }
        return APP_EXIT_OK;
    }
    app_error(prog, "invalid device choice %d", (int)requested);
    return APP_EXIT_USAGE;
}
