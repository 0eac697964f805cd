/* rng.h -- the tests' random numbers: xoshiro256** streams derived from one
 * base seed per run. The base seed comes from LIBSCAN_TEST_SEED (decimal or
 * 0x hex) when set, else from the time and the pid; it is printed once at
 * start and in every failure message, so any failure can be replayed with
 * LIBSCAN_TEST_SEED=<seed>. Each test derives its own stream from the base
 * seed and a label, so a replay does not depend on which tests ran before. */
#ifndef LIBSCAN_TEST_RNG_H
#define LIBSCAN_TEST_RNG_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rng {
    uint64_t s[4];
} rng_t;

/* The base seed of this run (computed and printed on first use). */
unsigned long long test_seed(void);

/* A stream for (base seed, label, index). */
void rng_init(rng_t *r, const char *label, uint64_t index);

uint64_t rng_u64(rng_t *r);
uint32_t rng_u32(rng_t *r);
/* Uniform in [0, bound), bound > 0. */
uint64_t rng_below(rng_t *r, uint64_t bound);
/* Uniform in [lo, hi] (inclusive). */
int64_t rng_range(rng_t *r, int64_t lo, int64_t hi);
/* Uniform in [0, 1). */
double rng_unit(rng_t *r);

#ifdef __cplusplus
}
#endif
#endif
