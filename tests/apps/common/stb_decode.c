/* stb_decode.c -- test tool: decode an image file with stb_image (a decoder
 * independent of the code under test) and write it as a binary PGM (gray)
 * or PPM (RGB), which the CLI test scripts read with a few lines of Python.
 *
 *   test_stb_decode IN OUT.pnm      exit 0, or 1 with a message
 */
#include <stb/stb_image.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_stb_decode IN OUT.pnm\n");
        return 1;
    }
    int w, h, comps;
    if (!stbi_info(argv[1], &w, &h, &comps)) {
        fprintf(stderr, "test_stb_decode: %s: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    const int want = comps <= 2 ? 1 : 3; /* alpha, if any, is not what these tests compare */
    unsigned char *px = stbi_load(argv[1], &w, &h, &comps, want);
    if (!px) {
        fprintf(stderr, "test_stb_decode: %s: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    FILE *f = fopen(argv[2], "wb");
    const size_t n = (size_t)w * (size_t)h * (size_t)want;
    int ok = f && fprintf(f, "P%c\n%d %d\n255\n", want == 1 ? '5' : '6', w, h) > 0 && fwrite(px, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    stbi_image_free(px);
    if (!ok) {
        fprintf(stderr, "test_stb_decode: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
