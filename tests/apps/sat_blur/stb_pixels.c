/* stb_pixels.c -- the CLI tests' independent decoder: decodes an image file
 * with stb_image (not libpng or the program's own readers) and writes
 *   "<width> <height> <channels> <bits>\n" + the samples (row-major,
 *   interleaved; 16-bit in native byte order)
 * to OUT, so a script can compare what two files hold pixel for pixel.
 *
 *   stb_pixels FILE OUT     exit 0, or 1 with one line on stderr when FILE
 *                           does not decode (truncated, corrupt, unknown) */
#include <stb/stb_image.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: stb_pixels FILE OUT\n");
        return 1;
    }
    int w = 0, h = 0, c = 0;
    const int sixteen = stbi_is_16_bit(argv[1]);
    void *px = sixteen ? (void *)stbi_load_16(argv[1], &w, &h, &c, 0) : (void *)stbi_load(argv[1], &w, &h, &c, 0);
    if (!px) {
        fprintf(stderr, "stb_pixels: %s: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    FILE *f = fopen(argv[2], "wb");
    const size_t bytes = (size_t)w * (size_t)h * (size_t)c * (sixteen ? 2u : 1u);
    int ok = f && fprintf(f, "%d %d %d %d\n", w, h, c, sixteen ? 16 : 8) > 0 && fwrite(px, 1, bytes, f) == bytes;
    if (f && fclose(f) != 0) ok = 0;
    stbi_image_free(px);
    if (!ok) {
        fprintf(stderr, "stb_pixels: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
