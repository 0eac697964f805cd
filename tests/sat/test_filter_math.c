/* test_filter_math.c -- the integer arithmetic of the box filter
 * (libscan/src/sat/filter_math.h, private to the library), shared by the CPU path and the GPU kernel:
 * the division by reciprocal plus one correction step must equal exact
 * 64-bit division everywhere the filter can call it. CPU only. */
#include "support/harness.h"
#include "support/rng.h"
#include "filter_math.h"

#include <stdio.h>

/* a < 2^48, b > 0: the helper against the host's exact division. */
static int check_div(uint64_t a, uint64_t b) {
    const uint64_t got = libscan__sat_div_floor(a, b, 1.0 / (double)b), want = a / b;
    if (got != want) {
        test_fail_seeded(__FILE__, __LINE__, "libscan__sat_div_floor(%llu, %llu) = %llu, want %llu", (unsigned long long)a,
                         (unsigned long long)b, (unsigned long long)got, (unsigned long long)want);
        return 0;
    }
    return 1;
}

/* Quotients next to integers are where a rounded estimate goes wrong. */
static void cpu_div_floor_edges(void **state) {
    (void)state;
    const uint64_t top = (1ull << 48) - 1;
    /* Every divisor the filter can use is a box area or a weight sum below 2^32. */
    const uint64_t bs[] = {1, 2, 3, 7, 255, 256, 4095, 65535, 65536, 261121, 263169, 16777215, 4294967295ull};
    for (size_t i = 0; i < sizeof bs / sizeof bs[0]; ++i) {
        const uint64_t b = bs[i];
        const uint64_t qs[] = {0, 1, 2, top / b - 1, top / b, (top / b) / 2, 12345};
        for (size_t j = 0; j < sizeof qs / sizeof qs[0]; ++j) {
            const uint64_t base = qs[j] * b;
            for (int d = -1; d <= 1; ++d) {
                const uint64_t a = base + (uint64_t)(int64_t)d;
                if ((d < 0 && base == 0) || a > top) continue;
                if (!check_div(a, b)) return;
            }
        }
        if (!check_div(top, b)) return;
    }
}

static void cpu_div_floor_random(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "div_floor", 0);
    for (int i = 0; i < 2000000; ++i) {
        const uint64_t b = 1 + rng_below(&r, (i & 1) ? 263169u : 0xffffffffull); /* box areas, then any weight */
        const uint64_t a = (i & 2) ? rng_below(&r, 1ull << 48) : rng_below(&r, 1ull << 32) << 16;
        if (!check_div(a, b)) return;
        const uint64_t k = a / b * b; /* a multiple of b and its neighbours */
        if (!check_div(k, b) || (k && !check_div(k - 1, b)) || (k + b - 1 < (1ull << 48) && !check_div(k + b - 1, b)))
            return;
    }
}

/* The box of a 4-channel table: four corners per channel, 0 outside. */
static void cpu_box_sums_and_means(void **state) {
    (void)state;
    enum { W = 5, H = 4, C = 4 };
    uint32_t img[H][W][C], tab[H][W][C];
    rng_t r;
    rng_init(&r, "box", 0);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < C; ++c) img[y][x][c] = (uint32_t)rng_below(&r, 4096);
    for (int y = 0; y < H; ++y) /* the table by direct sums, independent of the library */
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < C; ++c) {
                uint32_t s = 0;
                for (int j = 0; j <= y; ++j)
                    for (int i = 0; i <= x; ++i) s += img[j][i][c];
                tab[y][x][c] = s;
            }
    for (int y0 = 0; y0 < H; ++y0)
        for (int y1 = y0; y1 < H; ++y1)
            for (int x0 = 0; x0 < W; ++x0)
                for (int x1 = x0; x1 < W; ++x1) {
                    uint32_t s[4];
                    libscan__sat_u32_box((const unsigned char *)tab, W * C * 4, C, x0, y0, x1, y1, s);
                    for (int c = 0; c < C; ++c) {
                        uint32_t want = 0;
                        for (int j = y0; j <= y1; ++j)
                            for (int i = x0; i <= x1; ++i) want += img[j][i][c];
                        assert_int_equal(s[c], want);
                    }
                }
    /* Means over a clamped box: radius 1 at the corner (0, 0) covers 2 x 2 pixels. */
    uint64_t m[4];
    libscan__sat_box_means((const unsigned char *)tab, W * C * 4, C, 0, NULL, 0, W, H, 0, 0, 1, m, NULL);
    for (int c = 0; c < C; ++c) {
        const uint64_t sum = (uint64_t)img[0][0][c] + img[0][1][c] + img[1][0][c] + img[1][1][c];
        assert_int_equal(m[c], (sum << 16) / 4);
    }
}

/* A wide (uint64) table of values up to 2^40 - 1, the filter's limit: box
 * sums modulo 2^64 against direct 64-bit sums, and the 16.16 means against
 * exact 128-bit division, where sum << 16 needs more than 64 bits. */
static void cpu_wide_box_sums_and_means(void **state) {
    (void)state;
    enum { W = 6, H = 5, C = 3 };
    uint64_t img[H][W][C], tab[H][W][C];
    rng_t r;
    rng_init(&r, "wide_box", 0);
    const uint64_t top = (1ull << 40) - 1;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < C; ++c) img[y][x][c] = (x + y) % 3 == 0 ? top : rng_below(&r, top + 1);
    /* corner values pushed past 2^64 (as in a large image) by a constant that cancels in every box */
    const uint64_t bias = 0xfff0000000000000ull;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < C; ++c) {
                uint64_t s = 0;
                for (int j = 0; j <= y; ++j)
                    for (int i = 0; i <= x; ++i) s += img[j][i][c];
                tab[y][x][c] = s + bias * (uint64_t)((x + 1) * (y + 1)); /* bias * area: cancels in D - B - C + A */
            }
    for (int y0 = 0; y0 < H; ++y0)
        for (int y1 = y0; y1 < H; ++y1)
            for (int x0 = 0; x0 < W; ++x0)
                for (int x1 = x0; x1 < W; ++x1) {
                    uint64_t s[4];
                    libscan__sat_u64_box((const unsigned char *)tab, W * C * 8, C, x0, y0, x1, y1, s);
                    for (int c = 0; c < C; ++c) {
                        uint64_t want = bias * (uint64_t)((x1 - x0 + 1) * (y1 - y0 + 1));
                        for (int j = y0; j <= y1; ++j)
                            for (int i = x0; i <= x1; ++i) want += img[j][i][c];
                        assert_true(s[c] == want);
                    }
                }
    /* mean_q16 against unsigned __int128 division: sums of up to 513^2 values below 2^40, weights up to 4 * 513^2 */
    for (int i = 0; i < 1000000; ++i) {
        const uint64_t b = 1 + rng_below(&r, (i & 1) ? 263169u : 4u * 263169u);
        const uint64_t mean = (i & 2) ? rng_below(&r, top + 1) : top - rng_below(&r, 3);
        uint64_t sum = mean * b + rng_below(&r, b); /* floor(sum / b) == mean */
        if (i % 5 == 0) sum = mean * b;              /* exact multiples */
        const uint64_t want = (uint64_t)(((unsigned __int128)sum << 16) / b);
        const uint64_t got = libscan__sat_mean_q16(sum, b, 1.0 / (double)b);
        if (got != want) {
            test_fail_seeded(__FILE__, __LINE__, "libscan__sat_mean_q16(%llu, %llu) = %llu, want %llu",
                             (unsigned long long)sum, (unsigned long long)b, (unsigned long long)got,
                             (unsigned long long)want);
            return;
        }
    }
    /* the filtered pixel of a wide table at the limit: every value 2^40 - 1, radius 1.5, blend in range */
    uint64_t ftab[3][3][1];
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) ftab[y][x][0] = top * (uint64_t)((x + 1) * (y + 1));
    uint64_t out[4];
    libscan__sat_filter_pixel((const unsigned char *)ftab, 3 * 8, 1, 1, NULL, 0, 3, 3, 1, 1, 256 + 128, out, NULL);
    assert_true(out[0] == top);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_div_floor_edges),
        cmocka_unit_test(cpu_div_floor_random),
        cmocka_unit_test(cpu_box_sums_and_means),
        cmocka_unit_test(cpu_wide_box_sums_and_means),
    };
    test_begin("test_filter_math");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
