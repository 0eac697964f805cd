# shellcheck shell=bash
# png_gen.sh -- small PNG files for sat_blur's CLI tests, written by python3
# (struct + zlib only, png_pixels.py), so the inputs never come from the code
# under test. Sourced, not run:
#
#   png W H COLOR_TYPE BITS FILE [SEED]
#
# COLOR_TYPE: 0 gray, 2 RGB, 4 gray + alpha, 6 RGBA; BITS 8 or 16. Sample
# (x, y, c) is ((x * 37 + y * 11 + c * 90 + SEED * 53) % 256), scaled to 16
# bits by 257; alpha is 255 but 128 on every third column. SEED (default 0)
# gives different frames of one size.
png_gen_tool="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/png_pixels.py"
png() {
    python3 "$png_gen_tool" pattern "$@"
}
