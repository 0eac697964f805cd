/* make_scene.c -- renders the sample scene for sat_blur: shaded spheres at
 * several depths on a checkered floor that recedes to the horizon, under a
 * sky gradient, and its depth map.
 *
 *   make_scene [OUTDIR]     writes OUTDIR/scene.png and OUTDIR/depth.png (default ".")
 *
 * scene.png: 960x540 RGB, 8-bit sRGB. depth.png: 960x540 8-bit gray, WHITE =
 * FAR: value = round(255 * clamp((z - Z_NEAR) / (Z_FAR - Z_NEAR), 0, 1)),
 * z = camera-space depth (distance along the viewing axis) of the surface
 * seen through the pixel centre; the sky is 255.
 *
 * Deterministic: no randomness, a fixed 4x4 sample grid per pixel, shading in
 * plain arithmetic and sqrt (powers by repeated multiplication) so other
 * machines reproduce the same bytes. Colours are computed and averaged in
 * linear light and encoded to sRGB once. */
#include "common/image_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WIDTH = 960, HEIGHT = 540, SUB = 4 };
#define Z_NEAR 1.5
#define Z_FAR 30.0
#define FOCAL 580.0            /* pixels: about 50 degrees vertical field of view */
#define HORIZON (0.40 * HEIGHT) /* image row of the horizon (camera looks level) */
#define FLOOR_Y (-1.0)         /* camera 1 unit above the floor */

typedef struct vec3 {
    double x, y, z;
} vec3;

static vec3 v3(double x, double y, double z) { vec3 v = {x, y, z}; return v; }
static vec3 add(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static vec3 sub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static vec3 scale(vec3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static double dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec3 norm(vec3 a) { return scale(a, 1.0 / sqrt(dot(a, a))); }
static vec3 mix(vec3 a, vec3 b, double t) { return add(scale(a, 1.0 - t), scale(b, t)); }
static double clamp01(double v) { return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v; }

typedef struct sphere {
    vec3 c;
    double r;
    vec3 albedo;  /* linear */
    int striped;  /* latitude bands, so that blur is easy to see */
} sphere;

/* Each rests on the floor (c.y = FLOOR_Y + r), at depths from 3 to 26. */
static const sphere SPHERES[] = {
    {{-1.55, -0.45, 3.6}, 0.55, {0.70, 0.06, 0.05}, 0},
    {{0.55, -0.75, 2.9}, 0.25, {0.85, 0.85, 0.85}, 0},
    {{1.15, -0.20, 6.5}, 0.80, {0.08, 0.45, 0.10}, 1},
    {{-1.90, 0.10, 11.0}, 1.10, {0.10, 0.20, 0.75}, 0},
    {{7.00, 0.50, 21.0}, 1.50, {0.80, 0.60, 0.05}, 1},
    {{-9.0, 0.00, 26.0}, 1.00, {0.55, 0.10, 0.55}, 0},
};
enum { NSPHERES = sizeof SPHERES / sizeof SPHERES[0] };

static vec3 light_dir(void) { return norm(v3(-0.55, 0.75, -0.45)); } /* towards the light */

static const vec3 SKY_HORIZON = {0.72, 0.82, 0.92};
static const vec3 SKY_ZENITH = {0.12, 0.28, 0.70};

/* Nearest hit of the ray o + t d (t > eps) with sphere s, or -1. */
static double hit_sphere(vec3 o, vec3 d, const sphere *s)
{
    vec3 oc = sub(o, s->c);
    double b = dot(oc, d), c = dot(oc, oc) - s->r * s->r, a = dot(d, d);
    double disc = b * b - a * c;
    if (disc < 0.0)
        return -1.0;
    double q = sqrt(disc);
    double t = (-b - q) / a;
    if (t > 1e-6)
        return t;
    t = (-b + q) / a;
    return t > 1e-6 ? t : -1.0;
}

static int in_shadow(vec3 p)
{
    vec3 l = light_dir();
    for (int i = 0; i < NSPHERES; ++i)
        if (hit_sphere(p, l, &SPHERES[i]) > 0.0)
            return 1;
    return 0;
}

static double pow32(double x)
{
    for (int i = 0; i < 5; ++i)
        x *= x;
    return x;
}

/* Haze toward the horizon: weight of the horizon colour at depth z. */
static double haze(double z)
{
    double k = z * z;
    return k / (k + 45.0 * 45.0);
}

/* Trace one camera ray d (d.z = 1, so t is the camera-space depth z).
 * Returns the linear colour; *depth gets z, or INFINITY for the sky. */
static vec3 trace(vec3 d, double *depth)
{
    const vec3 o = v3(0, 0, 0);
    double best = INFINITY;
    int which = -1; /* sphere index, NSPHERES = floor, -1 = sky */
    for (int i = 0; i < NSPHERES; ++i) {
        double t = hit_sphere(o, d, &SPHERES[i]);
        if (t > 0.0 && t < best) {
            best = t;
            which = i;
        }
    }
    if (d.y < 0.0) {
        double t = FLOOR_Y / d.y;
        if (t < best) {
            best = t;
            which = NSPHERES;
        }
    }
    *depth = best;
    const vec3 l = light_dir();
    if (which < 0) {
        double e = clamp01(d.y / sqrt(dot(d, d)) * 2.2);
        return mix(SKY_HORIZON, SKY_ZENITH, sqrt(e));
    }
    vec3 p = scale(d, best);
    vec3 colour;
    if (which == NSPHERES) {
        /* Checkerboard of 1-unit squares with a thin dark stripe every 4 units
         * along z (lines that converge to the horizon are good blur tests). */
        long cx = (long)floor(p.x), cz = (long)floor(p.z);
        vec3 albedo = ((cx + cz) & 1) ? v3(0.62, 0.52, 0.36) : v3(0.16, 0.19, 0.24);
        double fz = p.z / 4.0 - floor(p.z / 4.0);
        if (fz < 0.06)
            albedo = v3(0.55, 0.08, 0.05);
        double lit = in_shadow(p) ? 0.0 : l.y; /* floor normal is +y */
        colour = scale(albedo, 0.22 + 0.78 * lit);
    } else {
        const sphere *s = &SPHERES[which];
        vec3 n = scale(sub(p, s->c), 1.0 / s->r);
        vec3 albedo = s->albedo;
        if (s->striped) {
            double band = (n.y + 1.0) * 4.0;
            if (band - floor(band) < 0.5)
                albedo = scale(albedo, 0.25);
        }
        double diff = dot(n, l);
        if (diff < 0.0)
            diff = 0.0;
        if (diff > 0.0 && in_shadow(add(p, scale(n, 1e-4))))
            diff = 0.0;
        vec3 v = norm(scale(d, -1.0));
        vec3 r = sub(scale(n, 2.0 * dot(n, l)), l); /* l mirrored about n */
        double spec = dot(r, v);
        spec = (spec > 0.0 && diff > 0.0) ? 0.45 * pow32(spec) : 0.0;
        colour = add(scale(albedo, 0.18 + 0.82 * diff), v3(spec, spec, spec));
    }
    return mix(colour, SKY_HORIZON, haze(best));
}

static vec3 ray_through(double px, double py)
{
    return v3((px - 0.5 * WIDTH) / FOCAL, (HORIZON - py) / FOCAL, 1.0);
}

static int write_or_report(const char *path, const img_t *img)
{
    char err[512];
    if (img_write(path, img, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "make_scene: %s\n", err);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* --scale K renders the same scene K times larger (for benchmarks at 4K and
     * beyond), with SUB / K samples per axis per pixel so the cost stays flat. */
    int mag = 1;
    const char *dir = ".";
    int bad = 0, dirs = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: make_scene [--scale K] [OUTDIR]\n"
                   "Writes OUTDIR/scene.png (960x540 RGB, times K with --scale K, K in 1..8) and\n"
                   "OUTDIR/depth.png (8-bit gray, white = far).\n");
            return 0;
        } else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
            char *end;
            long k = strtol(argv[++i], &end, 10);
            if (*end || k < 1 || k > 8) {
                fprintf(stderr, "make_scene: --scale %s: expected an integer in 1..8\n", argv[i]);
                return 1;
            }
            mag = (int)k;
        } else if (argv[i][0] == '-' || dirs++) {
            bad = 1;
        } else {
            dir = argv[i];
        }
    }
    if (bad) {
        fprintf(stderr, "make_scene: usage: make_scene [--scale K] [OUTDIR]\n");
        return 1;
    }
    const int width = WIDTH * mag, height = HEIGHT * mag, sub = SUB / mag > 0 ? SUB / mag : 1;
    char err[512];
    img_t scene, depth;
    if (img_alloc(&scene, (size_t)width, (size_t)height, 3, 8, err, sizeof err) != 0 ||
        img_alloc(&depth, (size_t)width, (size_t)height, 1, 8, err, sizeof err) != 0) {
        fprintf(stderr, "make_scene: %s\n", err);
        return 2;
    }
    uint8_t *rgb = (uint8_t *)scene.pixels, *dep = (uint8_t *)depth.pixels;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            vec3 sum = v3(0, 0, 0);
            double z;
            for (int sy = 0; sy < sub; ++sy)
                for (int sx = 0; sx < sub; ++sx)
                    sum = add(sum, trace(ray_through((x + (sx + 0.5) / sub) / mag, (y + (sy + 0.5) / sub) / mag),
                                         &z));
            sum = scale(sum, 1.0 / (sub * sub));
            uint8_t *o = rgb + ((size_t)y * (size_t)width + (size_t)x) * 3;
            o[0] = img_linear_to_srgb8((float)sum.x);
            o[1] = img_linear_to_srgb8((float)sum.y);
            o[2] = img_linear_to_srgb8((float)sum.z);
            (void)trace(ray_through((x + 0.5) / mag, (y + 0.5) / mag), &z);
            double dn = isinf(z) ? 1.0 : clamp01((z - Z_NEAR) / (Z_FAR - Z_NEAR));
            dep[(size_t)y * (size_t)width + (size_t)x] = (uint8_t)floor(dn * 255.0 + 0.5);
        }
    }
    size_t n = strlen(dir) + 16;
    char *path = (char *)malloc(n);
    int rc = 0;
    if (!path) {
        fprintf(stderr, "make_scene: out of memory\n");
        rc = 2;
    } else {
        snprintf(path, n, "%s/scene.png", dir);
        if (write_or_report(path, &scene) != 0)
            rc = 1;
        snprintf(path, n, "%s/depth.png", dir);
        if (rc == 0 && write_or_report(path, &depth) != 0)
            rc = 1;
    }
    free(path);
    img_free(&scene);
    img_free(&depth);
    return rc;
}
