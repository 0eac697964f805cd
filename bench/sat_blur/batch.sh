#!/usr/bin/env bash
# batch.sh -- `sat_blur --batch` throughput: FRAMES copies of the sample scene
# rendered at 960x540 times SCALE (default 4: 3840x2160), blurred with the
# depth map (--focus 0.3) into PNG and into JPEG, on the GPU (when usable) and
# on the CPU path, beside single mode run once per frame on the first few
# frames. Writes markdown to stdout: wall time, frames/s, and the batch's own
# --timing block (stage totals summed over the threads).
#
#   bash bench/sat_blur/batch.sh BUILD_DIR [FRAMES] [SCALE]
#
# BUILD_DIR must hold data/scene/make_scene and apps/sat_blur/sat_blur.
# SAT_BLUR_THREADS, when set, is passed on (worker threads of the batch).
# Issue #22's targets (16-core H100 machine, 32 4K frames): >= 10 frames/s to
# PNG and >= 30 frames/s to JPEG.
set -euo pipefail
build=${1:?usage: batch.sh BUILD_DIR [FRAMES] [SCALE]}
frames=${2:-32}
scale=${3:-4}
[[ $frames =~ ^[1-9][0-9]*$ ]] || { echo "batch.sh: FRAMES must be a positive integer, not '$frames'" >&2; exit 2; }
[[ $scale =~ ^[1-8]$ ]] || { echo "batch.sh: SCALE must be 1..8, not '$scale'" >&2; exit 2; }
scene=$build/data/scene/make_scene blur=$build/apps/sat_blur/sat_blur
for p in "$scene" "$blur"; do
    [[ -x $p ]] || { echo "batch.sh: $p not built" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/sat-batch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$scene" --scale "$scale" "$tmp" >/dev/null
mkdir -p "$tmp/in" "$tmp/out"
for ((i = 0; i < frames; ++i)); do cp "$tmp/scene.png" "$tmp/in/$(printf 'f%04d.png' "$i")"; done
size=$(python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(24); print('%dx%d' % struct.unpack('>II', d[16:24]))" "$tmp/scene.png")
single_frames=$((frames < 4 ? frames : 4))
args=(--depth "$tmp/depth.png" --focus 0.3)

# rate SECONDS COUNT
rate() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.2f", (s > 0 ? n / s : 0) }'; }

# single DEVICE EXT: seconds for the first frames one process each.
single() {
    local t0 t1 i
    t0=$(date +%s.%N)
    for ((i = 0; i < single_frames; ++i)); do
        "$blur" --quiet --device "$1" "${args[@]}" "$tmp/in/$(printf 'f%04d.png' "$i")" "$tmp/out/single.$2" || return 1
    done
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

# batch DEVICE EXT: seconds for the whole batch; its --timing in $tmp/timing_DEVICE_EXT.
batch() {
    local t0 t1
    rm -rf "$tmp/out" && mkdir -p "$tmp/out"
    t0=$(date +%s.%N)
    "$blur" --batch --device "$1" --format "$2" --timing "${args[@]}" "$tmp/in" -o "$tmp/out" 2>"$tmp/timing_$1_$2" ||
        { echo "batch.sh: --batch --device $1 --format $2 failed: $(tail -3 "$tmp/timing_$1_$2")" >&2; return 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
devices=(cpu)
if "$blur" --quiet --device gpu --radius 1 "$tmp/scene.png" "$tmp/out/probe.png" 2>/dev/null; then devices=(gpu cpu); fi
echo "## sat_blur --batch: $frames frames of $size (the sample scene with its depth map, --focus 0.3)"
echo
echo "GPU: ${gpu:-none}; $(nproc) CPUs; SAT_BLUR_THREADS=${SAT_BLUR_THREADS:-unset}; commit ${LIBSCAN_COMMIT:-unknown}; $(date -u '+%Y-%m-%d %H:%M UTC'). Single mode: one process per frame, first $single_frames frames."
echo
echo "| device | output | single mode frames/s | batch wall s | batch frames/s | target |"
echo "| --- | --- | --- | --- | --- | --- |"
for dev in "${devices[@]}"; do
    "$blur" --quiet --device "$dev" "${args[@]}" "$tmp/scene.png" "$tmp/out/warm.png" 2>/dev/null || true # warm-up
    for ext in png jpg; do
        s=$(single "$dev" "$ext") || s=""
        b=$(batch "$dev" "$ext") || b=""
        target=$([[ $ext == png ]] && echo ">= 10 frames/s" || echo ">= 30 frames/s")
        echo "| $dev | $ext | ${s:+$(rate "$s" "$single_frames")} | ${b:-failed} | ${b:+$(rate "$b" "$frames")} | $target (16-core H100, 32 4K frames) |"
    done
done
for dev in "${devices[@]}"; do
    for ext in png jpg; do
        [[ -s $tmp/timing_${dev}_$ext ]] || continue
        echo
        echo "\`--device $dev --format $ext --timing\`:"
        echo
        echo '```'
        cat "$tmp/timing_${dev}_$ext"
        echo '```'
    done
done
