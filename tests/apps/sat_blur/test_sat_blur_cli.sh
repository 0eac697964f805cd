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
# The CPU blur on any number of threads (issue #22: the library's SAT build
# and filter split over LIBSCAN_CPU_THREADS, the weighting over the cores)
# writes the same bytes as the runs above: weighted (depth) and uniform with
# several passes.
for threads in 1 2 3 7; do
    for job in dof r; do
        if [[ $job == dof ]]; then set -- --depth "$depth" --focus 0.3; else set -- --radius 3.5 --passes 3; fi
        rm -f "$tmp/t.png"
        if expect_cmd 0 "$job, $threads threads" env LIBSCAN_CPU_THREADS="$threads" "$cli_prog" --device cpu --quiet \
            "$@" "$img" "$tmp/t.png"; then
            cmp -s "$tmp/$job.png" "$tmp/t.png" || fail "$job: $threads CPU threads changed the output"
        fi
    done
done
# --radius 0 gives the file back (issue #22, item 6): every 8-bit colour at
# every alpha exactly, 16-bit colours (every 16th, at 12 alphas) within
# 2/65535, alpha exactly, and transparent black where alpha is 0; in linear
# light and with --no-linear. png_pixels.py decodes with zlib alone.
pp=$png_gen_tool # png_pixels.py (png_gen.sh)
for lin in "" --no-linear; do
    rm -f "$tmp/id.png"
    # shellcheck disable=SC2086 # $lin: no option, or one
    if expect 0 "radius 0 is identity $lin" -- --device cpu --radius 0 $lin "$img" "$tmp/id.png"; then
        python3 "$pp" same 0 "$img" "$tmp/id.png" >/dev/null || fail "radius 0 $lin: the scene's pixels changed"
    fi
done
for spec in "0 8" "2 8" "4 8" "6 8" "0 16" "2 16" "4 16" "6 16"; do
    set -- $spec
    python3 "$pp" sweep "$2" "$1" "$tmp/sw_$1_$2.png"
    tol=0
    [[ $2 == 16 ]] && tol=2
    for lin in "" --no-linear; do
        rm -f "$tmp/swo.png"
        # shellcheck disable=SC2086
        if expect 0 "radius 0, sweep $spec $lin" -- --device cpu --quiet --radius 0 $lin "$tmp/sw_$1_$2.png" "$tmp/swo.png"; then
            python3 "$pp" same "$tol" "$tmp/sw_$1_$2.png" "$tmp/swo.png" >"$tmp/same.txt" 2>&1 ||
                fail "radius 0, sweep $spec $lin: $(cat "$tmp/same.txt")"
        fi
    done
done
# --compression 0..9: the same pixels at every level (the 960x540 scene is
# several bands of the parallel encoder), smaller files at higher levels,
# and the default within 1.15x of level 6 (libpng's default size).
for level in 0 1 2 3 4 5 6 7 8 9; do
    run_ok "compression $level" "$tmp/c$level.png" --device cpu --radius 2 --compression "$level" "$img"
done
run_ok "compression default" "$tmp/cdef.png" --device cpu --radius 2 "$img"
cmp -s "$tmp/cdef.png" "$tmp/c5.png" || fail "the default compression is not level 5"
python3 "$pp" same 0 "$tmp/c5.png" "$tmp/c0.png" "$tmp/c1.png" "$tmp/c2.png" "$tmp/c3.png" "$tmp/c4.png" \
    "$tmp/c6.png" "$tmp/c7.png" "$tmp/c8.png" "$tmp/c9.png" >/dev/null || fail "--compression: the levels decode to different pixels"
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
# --device auto with a single image below SAT_BLUR_AUTO_GPU_MIN_PIXELS (the
# scene: 0.5 MP): the CPU, chosen without probing the GPU (no "no usable GPU"
# note, whatever the machine), said in --timing's first line; the bytes of
# --device cpu.
if expect 0 "auto, single" -- --timing --depth "$depth" --focus 0.3 "$img" "$tmp/auto.png"; then
    head -1 "$tmp/err" | grep -qF "timing [on the CPU: --device auto, a single image of" ||
        fail "auto, single: --timing does not say the CPU was chosen: $(head -1 "$tmp/err")"
    grep -q "no usable GPU" "$tmp/err" && fail "auto, single: the GPU was probed: $(cat "$tmp/err")"
    "$prog" --device cpu --depth "$depth" --focus 0.3 "$img" "$tmp/cpu.png" 2>/dev/null &&
        cmp -s "$tmp/auto.png" "$tmp/cpu.png" || fail "auto, single: not the bytes of --device cpu"
fi
# (The help is read whole first: grep -q stopping early would give the
# program SIGPIPE, and pipefail a false failure.)
"$prog" --help >"$tmp/help.txt"
grep -q "32 megapixels" "$tmp/help.txt" || fail "--help does not say where --device auto takes the GPU"

# --- GPU: same bytes as the CPU -------------------------------------------------------
if "$prog" --device gpu --radius 1 "$img" "$tmp/probe.png" 2>/dev/null; then
    for args in "--depth $depth --focus 0.3" "--radius 3.5 --passes 3" "--tilt-shift" "--depth $depth --focus-at 380,210 --no-linear"; do
        # shellcheck disable=SC2086
        "$prog" --device cpu $args "$img" "$tmp/c.png" && "$prog" --device gpu --timing $args "$img" "$tmp/g.png" 2>"$tmp/err" ||
            fail "gpu/cpu run failed: $args"
        cmp -s "$tmp/c.png" "$tmp/g.png" || fail "GPU and CPU outputs differ for: $args"
        for phase in convert upload download; do grep -q "$phase" "$tmp/err" || fail "gpu timing: no $phase"; done
    done
    # every precision (8-bit with and without partial alpha, 16-bit with and
    # without), the sweep as its own depth map (gray or the mean of R, G, B)
    for f in "$tmp"/sw_*.png; do
        for args in "--radius 0" "--radius 2.5" "--depth $f --focus 0.5 --aperture 8" "--tilt-shift --passes 2 --no-linear"; do
            # shellcheck disable=SC2086
            "$prog" --device cpu $args "$f" "$tmp/c.png" && "$prog" --device gpu $args "$f" "$tmp/g.png" ||
                fail "gpu/cpu run failed: $args $f"
            cmp -s "$tmp/c.png" "$tmp/g.png" || fail "GPU and CPU outputs differ for: $args $(basename "$f")"
        done
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
