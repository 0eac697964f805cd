#!/usr/bin/env bash
# end_to_end.sh -- sat_blur end to end on a 4K PNG: where the wall time goes
# (decode, convert, upload, SAT, blur, download, encode), from the program's
# own --timing, on the GPU and on the CPU path (its conversions on every
# core). Writes markdown to stdout.
#
#   bash bench/sat_blur/end_to_end.sh BUILD_DIR [RUNS]
#
# BUILD_DIR must hold data/scene/make_scene and apps/sat_blur/sat_blur. The
# input is the sample scene rendered at 3840x2160 (make_scene --scale 4). Each
# mode runs RUNS times (default 5) after one warm-up; the run with the median
# total is printed.
set -euo pipefail
build=${1:?usage: end_to_end.sh BUILD_DIR [RUNS]}
runs=${2:-5}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "end_to_end.sh: RUNS must be a positive integer, not '$runs'" >&2; exit 2; }
scene=$build/data/scene/make_scene blur=$build/apps/sat_blur/sat_blur
for p in "$scene" "$blur"; do
    [[ -x $p ]] || { echo "end_to_end.sh: $p not built" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/sat-e2e.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$scene" --scale 4 "$tmp" >/dev/null

# run DEVICE: the timing block of the median run, as "phase ms" lines.
run() {
    local dev=$1 i
    "$blur" "$tmp/scene.png" "$tmp/out.png" --depth "$tmp/depth.png" --focus 0.3 --device "$dev" --quiet \
        2>/dev/null || true # warm-up (CUDA context, page cache)
    for ((i = 0; i < runs; ++i)); do
        if ! "$blur" "$tmp/scene.png" "$tmp/out.png" --depth "$tmp/depth.png" --focus 0.3 --device "$dev" --timing \
            2>"$tmp/t$i.txt" >/dev/null; then
            echo "end_to_end.sh: --device $dev failed: $(head -1 "$tmp/t$i.txt")" >&2
            return 0
        fi
        awk '$1 == "total" {print $2}' "$tmp/t$i.txt" >"$tmp/total$i"
    done
    local best
    best=$(for ((i = 0; i < runs; ++i)); do echo "$(cat "$tmp/total$i") $i"; done | sort -n |
        awk -v m=$(((runs + 1) / 2)) 'NR == m {print $2}')
    awk '/^  [a-zA-Z]/ {print $1, $2}' "$tmp/t$best.txt"
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
echo "## sat_blur end to end, 3840x2160 RGB scene with depth map, --focus 0.3"
echo
echo "GPU: ${gpu:-none}; commit ${LIBSCAN_COMMIT:-unknown}; $(date -u '+%Y-%m-%d %H:%M UTC'); median of $runs runs (by total) after a warm-up; times from \`sat_blur --timing\` in ms."
echo
run gpu >"$tmp/gpu.txt"
run cpu >"$tmp/cpu.txt"
echo "| phase | GPU path ms | share | CPU path ms | share |"
echo "| --- | --- | --- | --- | --- |"
gt=$(awk '$1 == "total" {print $2}' "$tmp/gpu.txt")
ct=$(awk '$1 == "total" {print $2}' "$tmp/cpu.txt")
for ph in $(awk '{print $1}' "$tmp/gpu.txt" "$tmp/cpu.txt" | awk '!seen[$0]++'); do
    g=$(awk -v p="$ph" '$1 == p {print $2}' "$tmp/gpu.txt")
    c=$(awk -v p="$ph" '$1 == p {print $2}' "$tmp/cpu.txt")
    awk -v p="$ph" -v g="${g:-}" -v c="${c:-}" -v gt="$gt" -v ct="$ct" 'BEGIN {
        gs = g == "" ? "" : sprintf("%.1f%%", 100 * g / gt); cs = c == "" ? "" : sprintf("%.1f%%", 100 * c / ct)
        printf "| %s | %s | %s | %s | %s |\n", p, g == "" ? "-" : g, gs, c == "" ? "-" : c, cs }'
done
if [[ -z $gt ]]; then
    echo
    echo "The GPU path did not run (see stderr)."
    exit 0
fi
# On the GPU path "convert" is the conversions and the radius map on the GPU
# plus building their lookup tables on the host (pipeline.h).
gpu_work=$(awk '$1 == "SAT" || $1 == "blur" || $1 == "upload" || $1 == "download" || $1 == "convert" {s += $2} END {print s + 0}' "$tmp/gpu.txt")
echo
awk -v w="$gpu_work" -v t="$gt" 'BEGIN { printf "GPU work (upload + convert + SAT + blur + download): %.3f ms = %.1f%% of the %.3f ms wall time.\n", w, 100 * w / t, t }'
