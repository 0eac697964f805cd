/* rng.c -- see rng.h. */
#include "support/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

unsigned long long test_seed(void) {
    static int have = 0;
    static unsigned long long seed = 0;
    if (!have) {
        const char *env = getenv("LIBSCAN_TEST_SEED");
        char *end = NULL;
        if (env && *env) {
            seed = strtoull(env, &end, 0);
            if (!end || *end) {
                fprintf(stderr, "LIBSCAN_TEST_SEED=%s is not a number; using 0\n", env);
                seed = 0;
            }
        } else {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t x = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40);
            seed = splitmix64(&x);
        }
        have = 1;
        printf("libscan tests: seed %llu (LIBSCAN_TEST_SEED=%llu repeats this run)\n", seed, seed);
        fflush(stdout);
    }
    return seed;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void rng_init(rng_t *r, const char *label, uint64_t index) {
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a of the label */
    for (const char *p = label ? label : ""; *p; ++p) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    uint64_t x = (uint64_t)test_seed() ^ h ^ (index * 0xd1b54a32d192ed03ull);
    for (int i = 0; i < 4; ++i) r->s[i] = splitmix64(&x);
}

uint64_t rng_u64(rng_t *r) {
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t rng_u32(rng_t *r) { return (uint32_t)(rng_u64(r) >> 32); }

uint64_t rng_below(rng_t *r, uint64_t bound) {
    if (bound <= 1) return 0;
    /* Rejection keeps it unbiased. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do x = rng_u64(r);
    while (x >= limit);
    return x % bound;
}

int64_t rng_range(rng_t *r, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u;
    if (span == 0) return (int64_t)rng_u64(r); /* the full 64-bit range */
    return (int64_t)((uint64_t)lo + rng_below(r, span));
}

double rng_unit(rng_t *r) { return (double)(rng_u64(r) >> 11) * 0x1.0p-53; }
