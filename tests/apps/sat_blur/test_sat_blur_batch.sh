#!/usr/bin/env bash
# test_sat_blur_batch.sh -- `sat_blur --batch` end to end: every frame of a
# batch is the file single mode writes for it (the same bytes, and the same
# pixels through an independent decoder, stb_image's test_stb_decode),
# whatever the number of threads; the folder's order and filter; a corrupt frame reported with its
# name while the others are written; the exit statuses; the refusals made
# before anything starts (missing or wrong output folder, an output that is
# an input, two frames with one output); progress, summary, --timing; no
# temporary file left by a write error or SIGTERM.
#
#   test_sat_blur_batch.sh SAT_BLUR TEST_STB_DECODE SCENE_DIR cpu|gpu
#
# cpu: everything, with the batch on --device cpu. gpu: the batch on
# --device gpu against single mode on the GPU (exit 77, reported as skipped,
# without a usable GPU; LIBSCAN_REQUIRE_GPU=1 makes that a failure).
set -euo pipefail

prog=$1
stb=$2
scene=$3
mode=$4
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
# shellcheck source-path=SCRIPTDIR source=png_gen.sh
source "$(dirname "${BASH_SOURCE[0]}")/png_gen.sh"
cli_init "$prog"

dev=cpu
if [[ $mode == gpu ]]; then
    png 8 8 2 8 "$tmp/probe.png"
    if ! "$prog" --device gpu --quiet --radius 1 "$tmp/probe.png" "$tmp/probe_out.png" 2>"$tmp/err"; then
        echo "SKIP: no usable GPU ($(head -c 300 "$tmp/err")): batch on the GPU not tested"
        [[ ${LIBSCAN_REQUIRE_GPU:-0} == 1 ]] && exit 1
        exit 77
    fi
    dev=gpu
fi

# decoded NAME FILE OUT: FILE decodes with stb_image into OUT (a PNM: gray or
# RGB, 8 bits).
decoded() {
    "$stb" "$2" "$3" 2>"$tmp/stb_err" || { fail "$1: $2 does not decode: $(cat "$tmp/stb_err")"; return 1; }
}

# same_as_single NAME BATCH_OUT IN ARGS...: BATCH_OUT is what single mode
# writes for IN with ARGS on the batch's device: the same bytes, and the same
# pixels through stb_image. (JPEG comes from TurboJPEG on both devices
# unless --jpeg-encoder nvjpeg; PNG from both devices is compared by
# sat_blur_cli.)
same_as_single() {
    local name=$1 got=$2 in=$3
    shift 3
    local ext=${got##*.}
    local want="$tmp/single.$ext"
    rm -f "$want"
    if ! "$prog" --device "$dev" --quiet "$@" "$in" "$want" 2>"$tmp/single_err"; then
        fail "$name: single mode failed on $in: $(cat "$tmp/single_err")"
        return 0
    fi
    [[ -f $got ]] || { fail "$name: $got was not written"; return 0; }
    cmp -s "$got" "$want" || fail "$name: $got differs from single mode's output for $in"
    decoded "$name" "$got" "$tmp/px_batch" && decoded "$name" "$want" "$tmp/px_single" &&
        { cmp -s "$tmp/px_batch" "$tmp/px_single" || fail "$name: $got decodes to other pixels than single mode's"; }
    return 0
}

# no_temp NAME DIR: DIR holds no temporary file of an output (".NAME.XXXXXX").
no_temp() {
    local f
    for f in "$2"/.[!.]*; do
        [[ -e $f ]] || continue
        [[ ${f##*/} =~ ^\..*\.[A-Za-z0-9]{6}$ ]] && fail "$1: temporary file left behind: $f"
    done
    return 0
}

# fresh DIR: an empty folder.
fresh() { rm -rf "$1" && mkdir -p "$1"; }

# --- the frames: one folder, six good frames (every PNG layout, a JPEG), one
# corrupt, and what a folder listing must leave out ----------------------------
frames="$tmp/frames"
mkdir -p "$frames"
png 40 24 2 8 "$frames/f10.png" 1
png 40 24 6 8 "$frames/f9.png" 2
png 40 24 0 8 "$frames/F1.png" 3
png 40 24 4 16 "$frames/a b.png" 4
png 40 24 2 16 "$frames/g.PNG" 5
png 40 24 2 8 "$tmp/j.png" 8
"$prog" --device cpu --quiet --radius 0 "$tmp/j.png" "$frames/j.jpg" || fail "making the JPEG frame"
head -c 60 "$frames/f10.png" >"$frames/bad.png" # valid signature, cut inside IDAT
good=("F1.png" "a b.png" "f10.png" "f9.png" "g.PNG" "j.jpg")
echo "not an image" >"$frames/notes.txt"
png 40 24 2 8 "$frames/.hidden.png" 6
mkdir -p "$frames/sub.png"
png 40 24 2 8 "$frames/sub.png/inner.png" 7
ln -s "$frames/missing.png" "$frames/dangling.png"
out="$tmp/outdir" # ($tmp/out and $tmp/err are expect's stdout and stderr)

# one depth map for every frame, and one per frame (but f9's) in a folder
png 40 24 0 16 "$tmp/depth.png" 11
depths="$tmp/depths"
mkdir -p "$depths"
s=20
for f in F1 "a b" f10 g; do
    png 40 24 0 8 "$depths/$f.png" "$s"
    s=$((s + 1))
done

# batch NAME STATUS ARGS...: runs the batch into a fresh $out; the status must be STATUS.
batch() {
    local name=$1 want=$2
    shift 2
    fresh "$out"
    expect "$want" "$name" -- --batch --device "$dev" "$@" -o "$out"
}

# --- every mode: each frame equals single mode's output ---------------------------
modes=(
    "--radius 2"
    "--radius 1.5 --passes 3 --no-linear"
    "--tilt-shift --focus 0.4 --max-radius 6"
    "--depth $tmp/depth.png --focus 0.3"
    "--depth $tmp/depth.png --focus-at 3,4 --invert-depth --aperture 10"
)
for m in "${modes[@]}"; do
    # shellcheck disable=SC2086 # the mode's words
    if batch "batch $m" 1 $m "$frames"; then
        grep -qF "sat_blur: $frames/bad.png: " "$tmp/err" || fail "batch $m: the corrupt frame is not named: $(cat "$tmp/err")"
        grep -qxF "sat_blur: 6 written, 1 failed" "$tmp/err" || fail "batch $m: no summary: $(cat "$tmp/err")"
        [[ $(grep -vc '^sat_blur: note: ' "$tmp/err") == 2 ]] || fail "batch $m: stderr is not two lines: $(cat "$tmp/err")"
    fi
    [[ ! -e $out/bad.png ]] || fail "batch $m: the corrupt frame has an output"
    no_temp "batch $m" "$out"
    [[ $(find "$out" -mindepth 1 | wc -l) == 6 ]] || fail "batch $m: not six files in the output: $(ls -A "$out")"
    for f in "${good[@]}"; do
        # shellcheck disable=SC2086
        same_as_single "batch $m: $f" "$out/$f" "$frames/$f" $m
    done
done

# per-frame depth maps: f9 has none, so it fails (named with its depth map)
if batch "depth-dir" 1 --depth-dir "$depths" --focus 0.4 "$frames/f9.png" "$frames/f10.png" "$frames/g.PNG"; then
    grep -qF "$depths/f9.png" "$tmp/err" || fail "depth-dir: f9's missing depth map is not named: $(cat "$tmp/err")"
    grep -qxF "sat_blur: 2 written, 1 failed" "$tmp/err" || fail "depth-dir: no summary: $(cat "$tmp/err")"
fi
same_as_single "depth-dir f10" "$out/f10.png" "$frames/f10.png" --depth "$depths/f10.png" --focus 0.4
same_as_single "depth-dir g" "$out/g.PNG" "$frames/g.PNG" --depth "$depths/g.png" --focus 0.4

# --format: JPEG and BMP outputs named after the inputs
for fmt in jpg bmp; do
    batch "format $fmt" 0 --radius 3 --quality 80 --format "$fmt" "$frames/f10.png" "$frames/a b.png"
    same_as_single "format $fmt f10" "$out/f10.$fmt" "$frames/f10.png" --radius 3 --quality 80
    same_as_single "format $fmt a b" "$out/a b.$fmt" "$frames/a b.png" --radius 3 --quality 80
done

# many different frames, every thread count: each output is its own frame's
# (a frame written under another's name would show)
seq_dir="$tmp/seq"
mkdir -p "$seq_dir"
for i in $(seq -w 1 24); do png 31 17 2 8 "$seq_dir/s$i.png" "$i"; done
for threads in 1 2 3 7; do
    fresh "$out"
    if SAT_BLUR_THREADS=$threads expect 0 "24 frames, $threads threads" -- --batch --device "$dev" --quiet \
        --tilt-shift --max-radius 5 "$seq_dir" -o "$out"; then
        [[ ! -s $tmp/err ]] || fail "24 frames, $threads threads: stderr with --quiet: $(cat "$tmp/err")"
    fi
    for i in 01 07 13 24; do
        same_as_single "24 frames, $threads threads: s$i" "$out/s$i.png" "$seq_dir/s$i.png" --tilt-shift --max-radius 5
    done
    [[ $(find "$out" -mindepth 1 | wc -l) == 24 ]] || fail "24 frames, $threads threads: not 24 outputs"
done

if [[ $mode == gpu ]]; then
    cli_finish "sat_blur batch (GPU)"
fi

# --- the folder: which files, in which order ----------------------------------
fresh "$out"
if expect 0 "dry run" -- --batch --dry-run "$frames" -o "$out"; then
    printf '%s\n' "$frames/F1.png -> $out/F1.png" "$frames/a b.png -> $out/a b.png" \
        "$frames/bad.png -> $out/bad.png" "$frames/f10.png -> $out/f10.png" "$frames/f9.png -> $out/f9.png" \
        "$frames/g.PNG -> $out/g.PNG" "$frames/j.jpg -> $out/j.jpg" >"$tmp/want_list"
    cmp -s "$tmp/out" "$tmp/want_list" || fail "dry run: frames or order wrong: $(cat "$tmp/out")"
fi
# files first in the order given, folders sorted, --format and --depth-dir in the names
if expect 0 "dry run, files and format" -- --batch --dry-run --format jpg --depth-dir "$depths" \
    "$frames/f9.png" "$seq_dir" -o "$out/"; then
    [[ $(head -n 1 "$tmp/out") == "$frames/f9.png -> $out/f9.jpg, depth $depths/f9.png" ]] ||
        fail "dry run: first line: $(head -n 1 "$tmp/out")"
    [[ $(sed -n 2p "$tmp/out") == "$seq_dir/s01.png -> $out/s01.jpg, depth $depths/s01.png" ]] ||
        fail "dry run: second line: $(sed -n 2p "$tmp/out")"
    [[ $(wc -l <"$tmp/out") == 25 ]] || fail "dry run: not 25 lines"
fi
[[ -z $(ls -A "$out") ]] || fail "dry run wrote files: $(ls -A "$out")"

# --- refused before anything starts: one line, exit 1, nothing written -----------
# refused NAME STRINGS... -- ARGS
refused() {
    local name=$1
    shift
    local words=()
    while [[ $1 != -- ]]; do words+=("$1"); shift; done
    shift
    if expect 1 "$name" -- "$@"; then one_line "$name" "${words[@]}"; fi
    [[ -z $(ls -A "$out" 2>/dev/null) ]] || fail "$name: something was written: $(ls -A "$out")"
    [[ -z $(find "$frames" -newer "$tmp/stamp" -print -quit) ]] || fail "$name: the input folder changed"
}
fresh "$out"
touch "$tmp/stamp"
sleep 0.01
refused "output folder missing" "$tmp/nope" "no such output folder" -- --batch "$frames" -o "$tmp/nope"
refused "output is a file" "notes.txt" "not a folder" -- --batch "$frames" -o "$frames/notes.txt"
refused "output folder is the input folder" "$frames" "input folder" -- --batch "$frames" -o "$frames"
ln -s "$frames" "$tmp/alias"
refused "output folder is the input folder (other name)" "input folder" -- --batch "$frames" -o "$tmp/alias/"
refused "output is an input file" "$frames/f9.png" "overwrite the input" -- --batch --device cpu "$frames/f9.png" -o "$tmp/alias"
cp "$depths/f10.png" "$out/f10.png"
refused_depth_out() {
    expect 1 "output is a depth map" -- --batch --device cpu --depth-dir "$out" "$frames/f10.png" -o "$out" &&
        one_line "output is a depth map" "overwrite the depth map" "$out/f10.png"
    cmp -s "$depths/f10.png" "$out/f10.png" || fail "output is a depth map: the depth map was changed"
}
refused_depth_out
fresh "$out"
cp "$tmp/depth.png" "$out/depth.png"
expect 1 "output is the shared depth map" -- --batch --device cpu --depth "$out/depth.png" "$tmp/depth.png" -o "$out" &&
    one_line "output is the shared depth map" "overwrite the depth map"
fresh "$out"
mkdir -p "$tmp/other"
cp "$frames/f9.png" "$tmp/other/f9.png"
refused "two frames, one output" "$frames/f9.png" "$tmp/other/f9.png" "$out/f9.png" -- --batch "$frames" "$tmp/other/f9.png" -o "$out"
refused "the same frame twice" "both be written" -- --batch "$frames/f9.png" "$frames/f9.png" -o "$out"
mkdir -p "$tmp/empty"
refused "empty folder" "$tmp/empty" "no image files" -- --batch "$tmp/empty" -o "$out"
cp "$frames/f9.png" "$tmp/noext"
refused "input without extension" "noext" "--format" -- --batch "$tmp/noext" -o "$out"
cp "$frames/f9.png" "$tmp/frame.gif"
refused "input extension not writable" "frame.gif" "--format" -- --batch "$tmp/frame.gif" -o "$out"
refused "no -o" "-o DIR" -- --batch "$frames"
refused "no inputs" "no input" -- --batch -o "$out"
refused "-o without --batch" "-o" "batch mode" -- "$frames/f9.png" -o "$out"
refused "--format without --batch" "--format" "batch mode" -- --format png "$frames/f9.png" "$out/x.png"
refused "--depth-dir without --batch" "--depth-dir" "batch mode" -- --depth-dir "$depths" "$frames/f9.png" "$out/x.png"
refused "--dry-run without --batch" "--dry-run" "batch mode" -- --dry-run "$frames/f9.png" "$out/x.png"
refused "bad --format" "--format" "gif" -- --batch --format gif "$frames" -o "$out"
refused "--force" "--force" -- --batch --force "$frames" -o "$out"
refused "--depth and --depth-dir" "--depth-dir" -- --batch --depth "$tmp/depth.png" --depth-dir "$depths" "$frames" -o "$out"
refused "--depth-dir with --radius" "--radius" -- --batch --depth-dir "$depths" --radius 3 "$frames" -o "$out"
refused "-o without a value" "'-o'" -- --batch "$frames" -o
SAT_BLUR_THREADS=0 refused "SAT_BLUR_THREADS=0" "SAT_BLUR_THREADS" -- --batch --device cpu "$frames" -o "$out"
SAT_BLUR_THREADS=x refused "SAT_BLUR_THREADS=x" "SAT_BLUR_THREADS" -- --batch --device cpu "$frames" -o "$out"
refused "shared depth map unreadable" "nope.png" -- --batch --device cpu --depth "$tmp/nope.png" "$frames" -o "$out"
refused "--focus-at outside the shared depth map" "--focus-at" "40x24" -- --batch --device cpu --depth "$tmp/depth.png" \
    --focus-at 40,0 "$frames" -o "$out"

# --- the device, chosen while the first frames decode ---------------------------------
# auto: the GPU where one is usable, else the CPU; either way each frame is
# the bytes single mode writes on the CPU (both devices write the same).
if [[ $mode == cpu ]]; then
    fresh "$out"
    if expect 0 "batch --device auto" -- --batch --device auto --quiet --radius 2 "$frames/f9.png" \
        "$frames/f10.png" "$frames/F1.png" -o "$out"; then
        for f in f9.png f10.png F1.png; do same_as_single "batch --device auto: $f" "$out/$f" "$frames/$f" --radius 2; done
    fi
    # --device gpu without a usable GPU: one line, status 2, no frame written
    # although the workers had started decoding
    png 8 8 2 8 "$tmp/probe.png"
    if "$prog" --device gpu --quiet --radius 1 "$tmp/probe.png" "$tmp/probe_out.png" 2>/dev/null; then
        echo "not checked here (a GPU is usable): --batch --device gpu refused without one"
    else
        fresh "$out"
        if expect 2 "batch --device gpu without a GPU" -- --batch --device gpu --radius 2 "$frames/f9.png" \
            "$frames/f10.png" "$frames/F1.png" -o "$out"; then
            one_line "batch --device gpu without a GPU" "--device gpu" "no usable GPU"
            [[ -z $(ls -A "$out") ]] || fail "batch --device gpu without a GPU: left $(ls -A "$out")"
        fi
    fi
fi

# --- frames that fail while the others go through -----------------------------------
# a frame of another size than the one depth map: exit 1, the rest written
png 20 10 2 8 "$tmp/other/small.png" 3
if batch "frame of another size" 1 --depth "$tmp/depth.png" "$frames/f9.png" "$tmp/other/small.png" "$frames/f10.png"; then
    grep -qF "$tmp/other/small.png" "$tmp/err" || fail "frame of another size: not named: $(cat "$tmp/err")"
    grep -qF "20x10" "$tmp/err" || fail "frame of another size: sizes not given: $(cat "$tmp/err")"
fi
[[ -f $out/f9.png && -f $out/f10.png && ! -e $out/small.png ]] || fail "frame of another size: outputs: $(ls -A "$out")"
# a missing frame named on the command line is a failed frame, not a refusal
if batch "missing frame" 1 --radius 2 "$frames/f9.png" "$tmp/gone.png"; then
    grep -qF "sat_blur: $tmp/gone.png: " "$tmp/err" || fail "missing frame: not named: $(cat "$tmp/err")"
fi
[[ -f $out/f9.png ]] || fail "missing frame: f9 not written"
# a write error (file size limit, as a full disk) fails the big frame with
# exit 2; the small ones are still written and nothing is left half-written
limited() { (trap '' XFSZ; ulimit -f "$1"; shift; exec "$@"); }
fresh "$out"
cp "$scene/scene.png" "$tmp/other/big.png"
if expect_cmd 2 "write error" limited 32 "$prog" --batch --device cpu --radius 2 "$frames/f9.png" "$tmp/other/big.png" \
    "$frames/f10.png" -o "$out"; then
    grep -qF "sat_blur: $out/big.png: write error" "$tmp/err" || fail "write error: not reported: $(cat "$tmp/err")"
    grep -qxF "sat_blur: 2 written, 1 failed" "$tmp/err" || fail "write error: no summary: $(cat "$tmp/err")"
fi
[[ -f $out/f9.png && -f $out/f10.png && ! -e $out/big.png ]] || fail "write error: outputs: $(ls -A "$out")"
no_temp "write error" "$out"
# an existing output is replaced (atomically), other files are left alone
fresh "$out"
echo "old" >"$out/f9.png"
echo "keep" >"$out/unrelated.png"
batch_keep() { expect 0 "existing output" -- --batch --device cpu --quiet --radius 2 "$frames/f9.png" -o "$out"; }
batch_keep
same_as_single "existing output" "$out/f9.png" "$frames/f9.png" --radius 2
[[ $(cat "$out/unrelated.png") == keep ]] || fail "existing output: an unrelated file was changed"

# --- stderr: summary, timing, no progress off a terminal ---------------------------
if batch "summary" 0 --radius 2 "$seq_dir"; then
    [[ $(cat "$tmp/err") == "sat_blur: 24 written, 0 failed" ]] || fail "summary: stderr: $(cat "$tmp/err")"
fi
if batch "timing" 0 --timing --radius 2 "$seq_dir"; then
    for phase in decode convert SAT blur encode total "frames/s" "24 frames in"; do
        grep -qF "$phase" "$tmp/err" || fail "timing: no '$phase': $(cat "$tmp/err")"
    done
    if grep -q $'\r' "$tmp/err"; then fail "timing: a progress line on a file"; fi
fi
# progress on a terminal: one line rewritten in place (a pseudo-terminal by
# script(1)). The line shows from the batch's first second on, so the batch
# gets enough frames for about 3 s on this machine: one frame in single mode
# is timed first (a fixed 8 frames took under a second on a fast CI runner).
if command -v script >/dev/null; then
    slow="$tmp/slow"
    mkdir -p "$slow"
    t0=$(date +%s%N)
    SAT_BLUR_THREADS=1 "$prog" --device cpu --quiet --passes 6 --depth "$scene/depth.png" "$scene/scene.png" "$tmp/one.png" ||
        fail "progress: single mode failed on the scene"
    t1=$(date +%s%N)
    nframes=$(((3000000000 + (t1 - t0)) / (t1 - t0 + 1)))
    ((nframes < 8)) && nframes=8
    ((nframes > 400)) && nframes=400
    for ((i = 1; i <= nframes; ++i)); do cp "$scene/scene.png" "$slow/s$i.png"; done
    fresh "$out"
    cmd=$(printf '%q ' env SAT_BLUR_THREADS=1 "$prog" --batch --device cpu --passes 6 --depth "$scene/depth.png" "$slow" -o "$out")
    if script -qec "$cmd" /dev/null >"$tmp/tty" 2>&1; then
        grep -qa $'\rsat_blur: '"$nframes"' frames *[0-9]*%' "$tmp/tty" || fail "progress: no progress line on the terminal ($nframes frames): $(od -c "$tmp/tty" | head -20)"
        grep -qa "sat_blur: $nframes written, 0 failed" "$tmp/tty" || fail "progress: no summary on the terminal"
    else
        fail "progress: the batch failed under script: $(head -c 400 "$tmp/tty")"
    fi
else
    echo "script(1) not found: progress on a terminal not tested"
fi

# --- SIGTERM: what is written is complete, nothing is left half-written -------------
sig="$tmp/sig"
mkdir -p "$sig"
for i in $(seq -w 1 12); do cp "$scene/scene.png" "$sig/s$i.png"; done
fresh "$out"
SAT_BLUR_THREADS=2 "$prog" --batch --device cpu --quiet --passes 4 --depth "$scene/depth.png" "$sig" -o "$out" 2>"$tmp/sig_err" &
pid=$!
for _ in $(seq 1 200); do # until the first frame is written (at most 10 s)
    [[ -n $(ls "$out") ]] && break
    sleep 0.05
done
kill -TERM "$pid" 2>/dev/null || true
status=0
wait "$pid" || status=$?
[[ $status == 143 ]] || echo "note: SIGTERM arrived after the batch ended (status $status)"
no_temp "SIGTERM" "$out"
for f in "$out"/*; do
    [[ -e $f ]] || continue
    decoded "SIGTERM: $f" "$f" "$tmp/px_sig" || true
done

cli_finish "sat_blur batch"
