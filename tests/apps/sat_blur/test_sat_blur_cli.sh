#!/usr/bin/env bash
# test_sat_blur_cli.sh -- sat_blur end to end: usage, every flag, bad inputs
# (one line on stderr, exit 1, no output file) and the sample scene. Needs no
# GPU (--device cpu; auto falls back); with one it also checks that the GPU
# and the CPU write the same file. Small PNGs are made with python3 (zlib).
#
#   test_sat_blur_cli.sh SAT_BLUR SCENE_DIR
set -euo pipefail

prog=$1
scene=$2
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
# shellcheck source-path=SCRIPTDIR source=png_gen.sh
source "$(dirname "${BASH_SOURCE[0]}")/png_gen.sh"
cli_init "$prog"

# bad NAME STRINGS... -- ARGS: exit 1, one line naming the strings, no output left.
bad() {
    local name=$1
    shift
    local words=()
    while [[ $1 != -- ]]; do words+=("$1"); shift; done
    shift
    rm -f "$tmp/o.png" "$tmp"/.o.png.*
    if expect 1 "$name" -- "$@"; then one_line "$name" "${words[@]}"; fi
    no_file "$name" "$tmp/o.png"
}

# --- usage -------------------------------------------------------------------
if expect 0 help -- --help; then
    grep -q '^Usage: sat_blur' "$tmp/out" || fail "help: no usage line"
    grep -q 'WHITE = FAR' "$tmp/out" || fail "help: depth convention not stated"
    grep -q "aperture \* |d' - f'| / d'" "$tmp/out" || fail "help: circle-of-confusion formula not stated"
fi
expect 0 version -- --version && { grep -q 'libscan [0-9]*\.[0-9]*\.[0-9]*' "$tmp/out" || fail "version: no version"; }

img="$scene/scene.png"
depth="$scene/depth.png"
out="$tmp/o.png"
bad "no files" "IN" --
bad "one file" "OUT" -- "$img"
bad "three files" "c.png" -- "$img" b.png c.png
bad "unknown option" "--frobnicate" -- --frobnicate "$img" "$out"
bad "missing value" "--radius" "needs a value" -- "$img" "$out" --radius
bad "negative radius" "--radius" "-1" -- --radius -1 "$img" "$out"
bad "radius too large" "--radius" "256" -- --radius 256 "$img" "$out"
bad "radius not a number" "--radius" "3x" -- --radius 3x "$img" "$out"
bad "focus above 1" "--focus" "1.5" -- --depth "$depth" --focus 1.5 "$img" "$out"
bad "focus below 0" "--focus" "-0.1" -- --depth "$depth" --focus -0.1 "$img" "$out"
bad "focus nan" "--focus" -- --depth "$depth" --focus nan "$img" "$out"
bad "focus-at outside" "--focus-at" "outside" -- --depth "$depth" --focus-at 960,10 "$img" "$out"
bad "focus-at negative" "--focus-at" "outside" -- --depth "$depth" --focus-at -1,10 "$img" "$out"
bad "focus-at malformed" "--focus-at" -- --depth "$depth" --focus-at 10 "$img" "$out"
bad "focus-at without depth" "--focus-at" "--depth" -- --focus-at 1,1 "$img" "$out"
bad "focus and focus-at" "--focus" -- --depth "$depth" --focus 0.3 --focus-at 1,1 "$img" "$out"
bad "negative aperture" "--aperture" -- --depth "$depth" --aperture -2 "$img" "$out"
bad "max-radius too large" "--max-radius" -- --depth "$depth" --max-radius 300 "$img" "$out"
bad "passes 0" "--passes" -- --passes 0 "$img" "$out"
bad "passes 17" "--passes" -- --passes 17 "$img" "$out"
bad "quality 0" "--quality" -- --quality 0 "$img" "$out"
bad "quality 101" "--quality" -- --quality 101 "$img" "$out"
bad "compression 10" "--compression" "10" -- --compression 10 "$img" "$out"
bad "compression -1" "--compression" "-1" -- --compression -1 "$img" "$out"
bad "compression not a number" "--compression" "fast" -- --compression fast "$img" "$out"
bad "bad device" "--device" "tpu" -- --device tpu "$img" "$out"
bad "max-pixels 0" "--max-pixels" -- --max-pixels 0 "$img" "$out"
bad "radius with depth" "--radius" "--depth" -- --radius 3 --depth "$depth" "$img" "$out"
bad "radius with tilt" "--radius" "--tilt-shift" -- --radius 3 --tilt-shift "$img" "$out"
bad "tilt with depth" "--tilt-shift" "--depth" -- --tilt-shift --depth "$depth" "$img" "$out"
bad "focus without depth" "--focus" -- --focus 0.3 "$img" "$out"
bad "invert without depth" "--invert-depth" -- --invert-depth "$img" "$out"
bad "aperture with tilt" "--aperture" -- --tilt-shift --aperture 3 "$img" "$out"

# --- bad files ----------------------------------------------------------------
printf 'hello, not a png\n' >"$tmp/text.png"
bad "not a PNG" "text.png" -- --device cpu "$tmp/text.png" "$out"
head -c 2000 "$img" >"$tmp/trunc.png"
bad "truncated" "trunc.png" -- --device cpu "$tmp/trunc.png" "$out"
bad "missing input" "nope.png" -- --device cpu "$tmp/nope.png" "$out"
bad "truncated depth" "trunc.png" -- --device cpu --depth "$tmp/trunc.png" "$img" "$out"
png 20 10 0 8 "$tmp/small_depth.png"
bad "depth size mismatch" "small_depth.png" "20x10" "960x540" -- --device cpu --depth "$tmp/small_depth.png" "$img" "$out"
bad "unknown extension" "o.gif" "format" -- --device cpu "$img" "$tmp/o.gif"
no_file "unknown extension" "$tmp/o.gif"
bad "unwritable output" "no/such/dir" -- --device cpu "$img" "$tmp/no/such/dir/o.png"
bad "too many pixels" "scene.png" -- --device cpu --max-pixels 1000 "$img" "$out"
cp "$img" "$tmp/same.png"
bad "output is input" "same.png" "--force" -- --device cpu --radius 2 "$tmp/same.png" "$tmp/same.png"
cmp -s "$img" "$tmp/same.png" || fail "output is input: the input was changed"
expect 0 "force" -- --device cpu --force --radius 1 "$tmp/same.png" "$tmp/same.png" || true

# --- it works: the sample scene and every mode/flag ---------------------------------------
run_ok() { # NAME OUTFILE ARGS...
    local name=$1 o=$2
    shift 2
    rm -f "$o"
    if expect 0 "$name" -- "$@" "$o"; then
        [[ -s $o ]] || fail "$name: no output file"
        [[ ! -s $tmp/err ]] || fail "$name: unexpected stderr: $(cat "$tmp/err")"
    fi
}
run_ok "depth of field" "$tmp/dof.png" --device cpu --quiet --depth "$depth" --focus 0.3 "$img"
run_ok "focus-at" "$tmp/at.png" --device cpu --depth "$depth" --focus-at 380,210 --aperture 30 --max-radius 40 "$img"
run_ok "invert depth" "$tmp/inv.png" --device cpu --depth "$depth" --invert-depth --focus 0.7 "$img"
run_ok "default focus" "$tmp/def.png" --device cpu --depth "$depth" "$img"
run_ok "uniform radius" "$tmp/r.png" --device cpu --radius 3.5 --passes 3 "$img"
run_ok "default radius" "$tmp/r8.png" --device cpu "$img"
run_ok "tilt-shift" "$tmp/tilt.png" --device cpu --tilt-shift --focus 0.6 --max-radius 12 "$img"
run_ok "no-linear" "$tmp/nl.png" --device cpu --radius 2 --no-linear "$img"
run_ok "jpeg" "$tmp/o.jpg" --device cpu --radius 2 --quality 75 "$img"
run_ok "bmp" "$tmp/o.bmp" --device cpu --radius 2 "$img"
run_ok "tga" "$tmp/o.tga" --device cpu --radius 2 "$img"
run_ok "radius 0" "$tmp/r0.png" --device cpu --radius 0 "$img"
cmp -s "$tmp/r.png" "$tmp/r8.png" && fail "--radius 3.5 --passes 3 and the default gave the same file"
cmp -s "$tmp/dof.png" "$tmp/inv.png" && fail "--invert-depth changed nothing"
# An independent PNG decoder (Python's zlib and the PNG filters by hand):
# pngpix.py A B... exits 0 when every file has A's pixels and layout.
cat >"$tmp/pngpix.py" <<'EOF'
import sys, zlib, struct
def pixels(p):
    d = open(p, 'rb').read(); i = 8; idat = b''; hdr = None
    while i < len(d):
        n, = struct.unpack('>I', d[i:i+4]); t = d[i+4:i+8]; body = d[i+8:i+8+n]; i += 12 + n
        if t == b'IHDR': hdr = body
        if t == b'IDAT': idat += body
    w, h, bits, ct = struct.unpack('>IIBB', hdr[:10])
    ch = {0: 1, 2: 3, 4: 2, 6: 4}[ct]; bpp = ch * bits // 8; raw = zlib.decompress(idat); out = []; prev = bytearray(w * bpp)
    for y in range(h):
        f = raw[y * (w * bpp + 1)]; line = bytearray(raw[y * (w * bpp + 1) + 1:(y + 1) * (w * bpp + 1)])
        for x in range(len(line)):
            a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
        out.append(bytes(line)); prev = line
    return (w, h, ch, bits), b''.join(out)
want = pixels(sys.argv[1])
sys.exit(0 if all(pixels(p) == want for p in sys.argv[2:]) else 1)
EOF
# --radius 0 keeps an 8-bit image (the fixed-point round trip is exact for 8-bit sRGB)
if expect 0 "radius 0 is identity" -- --device cpu --radius 0 --no-linear "$img" "$tmp/id.png"; then
    python3 "$tmp/pngpix.py" "$img" "$tmp/id.png" || fail "radius 0: pixels changed"
fi
# --compression 0..9: the same pixels at every level (the 960x540 scene is
# several bands of the parallel encoder), smaller files at higher levels,
# and the default within 1.15x of level 6 (libpng's default size).
for level in 0 1 2 3 4 5 6 7 8 9; do
    run_ok "compression $level" "$tmp/c$level.png" --device cpu --radius 2 --compression "$level" "$img"
done
run_ok "compression default" "$tmp/cdef.png" --device cpu --radius 2 "$img"
cmp -s "$tmp/cdef.png" "$tmp/c5.png" || fail "the default compression is not level 5"
python3 "$tmp/pngpix.py" "$tmp/c5.png" "$tmp/c0.png" "$tmp/c1.png" "$tmp/c2.png" "$tmp/c3.png" "$tmp/c4.png" \
    "$tmp/c6.png" "$tmp/c7.png" "$tmp/c8.png" "$tmp/c9.png" || fail "--compression: the levels decode to different pixels"
size() { stat -c %s "$1"; }
(($(size "$tmp/c9.png") < $(size "$tmp/c1.png") && $(size "$tmp/c1.png") < $(size "$tmp/c0.png"))) ||
    fail "--compression: sizes not in order (9: $(size "$tmp/c9.png"), 1: $(size "$tmp/c1.png"), 0: $(size "$tmp/c0.png"))"
((100 * $(size "$tmp/c5.png") <= 115 * $(size "$tmp/c6.png"))) ||
    fail "--compression: the default ($(size "$tmp/c5.png") bytes) is over 1.15x level 6 ($(size "$tmp/c6.png"))"
# every PNG layout in, same layout out: gray, gray+alpha, RGB, RGBA at 8 and 16 bits
for spec in "0 8" "4 8" "2 8" "6 8" "0 16" "4 16" "2 16" "6 16"; do
    set -- $spec
    png 33 17 "$1" "$2" "$tmp/in_$1_$2.png"
    run_ok "layout $spec" "$tmp/out_$1_$2.png" --device cpu --radius 1.25 "$tmp/in_$1_$2.png"
    [[ $(head -c 26 "$tmp/out_$1_$2.png" | tail -c 2 | od -An -tu1 | tr -s ' ') == " $2 $1" ]] ||
        fail "layout $spec: output header is not bit depth $2, colour type $1"
done
png 1 1 6 8 "$tmp/one.png"
run_ok "1x1" "$tmp/one_out.png" --device cpu --radius 5 "$tmp/one.png"
# timing lists the phases
if expect 0 timing -- --device cpu --timing --depth "$depth" --focus 0.3 "$img" "$tmp/t.png"; then
    for phase in decode SAT blur encode total; do grep -q "$phase" "$tmp/err" || fail "timing: no $phase"; done
fi

# --- GPU: same bytes as the CPU -------------------------------------------------------
if "$prog" --device gpu --radius 1 "$img" "$tmp/probe.png" 2>/dev/null; then
    for args in "--depth $depth --focus 0.3" "--radius 3.5 --passes 3" "--tilt-shift" "--depth $depth --focus-at 380,210 --no-linear"; do
        # shellcheck disable=SC2086
        "$prog" --device cpu $args "$img" "$tmp/c.png" && "$prog" --device gpu --timing $args "$img" "$tmp/g.png" 2>"$tmp/err" ||
            fail "gpu/cpu run failed: $args"
        cmp -s "$tmp/c.png" "$tmp/g.png" || fail "GPU and CPU outputs differ for: $args"
        for phase in upload download; do grep -q "$phase" "$tmp/err" || fail "gpu timing: no $phase"; done
    done
else
    echo "no usable GPU: GPU/CPU comparison not run (CPU checks only)"
    [[ ${LIBSCAN_REQUIRE_GPU:-0} == 1 ]] && fail "LIBSCAN_REQUIRE_GPU=1 but the GPU run failed"
fi

# --- option forms (issue 21, item 4): getopt_long in every spelling -------------
png 40 30 2 8 "$tmp/small.png"
"$prog" --device cpu --quiet --radius 2 "$tmp/small.png" "$tmp/ref.png" || fail "reference run"
same_as_ref() { # NAME FILE
    cmp -s "$2" "$tmp/ref.png" || fail "$1: output differs from '--radius 2'"
}
rm -f "$tmp/f.png"
expect 0 "--radius=2" -- --device=cpu --quiet --radius=2 "$tmp/small.png" "$tmp/f.png" && same_as_ref "--radius=2" "$tmp/f.png"
rm -f "$tmp/f.png"
expect 0 "options after the files" -- "$tmp/small.png" "$tmp/f.png" --radius 2 --device cpu --quiet && same_as_ref "options after" "$tmp/f.png"
cp "$tmp/small.png" "$tmp/-small.png"
in_tmp() { (cd "$tmp" && "$@"); }
rm -f "$tmp/-f.png"
expect_cmd 0 "-- then files named -small.png -f.png" in_tmp "$prog" --device cpu --quiet --radius 2 -- -small.png -f.png &&
    same_as_ref "--" "$tmp/-f.png"
expect_cmd 1 "-small.png without --" in_tmp "$prog" --device cpu -small.png f.png && one_line "-small.png without --" "'-s'"
bad "unknown short option" "'-x'" -- -x "$img" "$out"
bad "flag with a value" "--quiet" -- --quiet=1 "$img" "$out"
bad "unknown option with =" "--frob" -- --frob=2 "$img" "$out"
expect 0 "-h" -- -h && { grep -q '^Usage: sat_blur' "$tmp/out" || fail "-h: no usage line"; }

# --- write failures (issue 21, item 3): I/O errors are exit 2 ------------------
# A file size limit of 1 block makes writing the scene's image fail (EFBIG,
# as a full disk fails with ENOSPC) while the one error line still fits in
# the stderr file; SIGXFSZ is ignored so that the write returns the error.
limited() { (trap '' XFSZ; ulimit -f "$1"; shift; exec "$@"); }
rm -f "$tmp/w.png"
if expect_cmd 2 "write error" limited 1 "$prog" --device cpu --quiet --radius 2 "$img" "$tmp/w.png"; then
    one_line "write error" "w.png"
fi
no_file "write error" "$tmp/w.png"
# The user's mistakes about the destination stay exit 1.
bad "output folder missing" "nodir" -- --device cpu --radius 2 "$tmp/small.png" "$tmp/nodir/o.png"
mkdir -p "$tmp/dir.png"
expect 1 "output is a directory" -- --device cpu --radius 2 "$tmp/small.png" "$tmp/dir.png" && one_line "output is a directory" "dir.png"
# /dev/full as OUT (root can write there): refused by its missing image
# extension before anything is written, and the device stays a device.
if [[ -c /dev/full && -w /dev/full ]]; then
    expect 1 "/dev/full" -- --device cpu --radius 2 "$tmp/small.png" /dev/full && one_line "/dev/full" "/dev/full"
    [[ -c /dev/full ]] || fail "/dev/full is no longer a character device"
fi

cli_finish "sat_blur CLI"
