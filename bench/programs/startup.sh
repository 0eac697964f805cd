#!/usr/bin/env bash
# startup.sh -- what starting the GPU costs the programs, and what the warm
# start (the context created on a thread while the program reads its input),
# the mapped outputs and sat_blur's --device auto win back, in one call on the
# GPU machine. Writes a markdown table of medians to stdout, then the last
# --timing table of every command.
#
#   bash bench/programs/startup.sh BUILD_DIR [WORK_DIR] [--rounds N] [--small]
#
# BUILD_DIR holds apps/{radixsort,compact,sat_blur} and data/scene/make_scene.
# WORK_DIR (default BUILD_DIR/bench_files, the inputs of bench_files.sh,
# same seed, so a run of either reuses the other's files) gets k.npy (2^28
# random uint32, 1 GiB), x.npy (2^28 normal float32) and a 3840x2160 scene
# with its depth map (make_scene --scale 4), made once when missing.
# --small: 2^22 elements and the 960x540 scene, to try the script anywhere.
#
# Rows (wall seconds of the whole process, medians of --rounds (default 5)
# interleaved rounds, warm page cache, outputs deleted before each run):
#   gpu init alone      radixsort of a 2-key file --device gpu: the "gpu init"
#                       line of --timing (the probe: cudaGetDeviceCount +
#                       cudaFree(0)) and the process's wall time, beside the
#                       same job --device cpu (the difference is start-up
#                       and teardown of the GPU)
#   radixsort 1 GiB     mapped output (default) and LIBSCAN_OUT_MAP=0, beside
#                       cp; the same with --device cpu
#   compact 1 GiB       --gt 0.5, beside cp
#   sat_blur 4K         PNG with depth map: --device auto (a single image: the
#                       CPU below SAT_BLUR_AUTO_GPU_MIN_PIXELS), gpu, cpu; and
#                       PNG -> JPEG --radius 8, gpu and cpu
# Each command's output is compared with its first run's sibling (mapped vs
# pwrite, gpu vs cpu PNG) byte for byte.
set -euo pipefail
export LC_ALL=C
usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; }
build="" work="" rounds=5 log2n=28 scale=4
while (($#)); do
    case $1 in
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    --small) log2n=22; scale=1; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "startup.sh: unknown option $1" >&2; exit 2 ;;
    *) if [[ -z $build ]]; then build=$1; elif [[ -z $work ]]; then work=$1; else echo "startup.sh: too many arguments" >&2; exit 2; fi; shift ;;
    esac
done
[[ -n $build ]] || { usage >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "startup.sh: --rounds must be a positive integer" >&2; exit 2; }
RS=$build/apps/radixsort/radixsort
CP=$build/apps/compact/compact
SB=$build/apps/sat_blur/sat_blur
SCENE=$build/data/scene/make_scene
for p in "$RS" "$CP" "$SB" "$SCENE"; do [[ -x $p ]] || { echo "startup.sh: $p is not built" >&2; exit 2; }; done
python3 -c 'import numpy' 2>/dev/null || { echo "startup.sh: python3 with numpy is needed (the inputs)" >&2; exit 2; }
work=${work:-$build/bench_files}
mkdir -p "$work"
note() { echo "startup.sh: $*" >&2; }

# ---- inputs (bench_files.sh's, seed 21) ------------------------------------------------
note "inputs in $work (made once)"
python3 - "$work" "$log2n" <<'PYEOF'
import os, sys
import numpy as np
work, log2n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(21)
n = 1 << log2n
def have(path, itemsize):
    return os.path.exists(path) and os.path.getsize(path) == 128 + n * itemsize
if not have(f'{work}/k.npy', 4):
    np.save(f'{work}/k.npy', rng.integers(0, 1 << 32, size=n, dtype=np.uint32))
if not have(f'{work}/x.npy', 4):
    np.save(f'{work}/x.npy', rng.standard_normal(n, dtype=np.float32))
PYEOF
scene=$work/scene_x$scale
if [[ ! -s $scene/scene.png || ! -s $scene/depth.png ]]; then
    mkdir -p "$scene"
    "$SCENE" --scale "$scale" "$scene" >/dev/null
fi
printf '2\n1\n' >"$work/tiny.txt"
cat "$work/k.npy" "$work/x.npy" "$scene"/*.png >/dev/null # into the page cache

# Without a usable GPU (to try the script) the GPU rows are left out.
gpu=1
"$RS" "$work/tiny.txt" -o "$work/o_probe.txt" --device gpu --quiet 2>/dev/null || { gpu=0; note "no usable GPU: the GPU rows are left out"; }
rm -f "$work/o_probe.txt"

# ---- the commands ----------------------------------------------------------------------
declare -A CMD OUT TIMES
names=()
add() { # add NAME OUTPUT COMMAND...: a command whose name ends in _gpu, or
        # uses the GPU by default (rs_*, compact), is left out without a GPU
    local name=$1 out=$2
    shift 2
    ((gpu)) || [[ $name == *cpu* || $name == cp_k || $name == sb_auto ]] || return 0
    OUT[$name]=$out
    CMD[$name]=$(printf '%q ' "$@")
    TIMES[$name]=""
    names+=("$name")
}
add init_gpu "$work/o_tiny_gpu.txt" "$RS" "$work/tiny.txt" -o "$work/o_tiny_gpu.txt" --device gpu --timing
add init_cpu "$work/o_tiny_cpu.txt" "$RS" "$work/tiny.txt" -o "$work/o_tiny_cpu.txt" --device cpu --timing
add cp_k "$work/o_cp_k.npy" cp "$work/k.npy" "$work/o_cp_k.npy"
add rs_map "$work/o_rs_map.npy" "$RS" "$work/k.npy" -o "$work/o_rs_map.npy" --timing --quiet
add rs_pwrite "$work/o_rs_pwrite.npy" env LIBSCAN_OUT_MAP=0 "$RS" "$work/k.npy" -o "$work/o_rs_pwrite.npy" --timing --quiet
add rs_cpu_map "$work/o_rs_cpu_map.npy" "$RS" "$work/k.npy" -o "$work/o_rs_cpu_map.npy" --device cpu --timing --quiet
add rs_cpu_pwrite "$work/o_rs_cpu_pwrite.npy" env LIBSCAN_OUT_MAP=0 "$RS" "$work/k.npy" -o "$work/o_rs_cpu_pwrite.npy" --device cpu --timing --quiet
add compact "$work/o_compact.npy" "$CP" "$work/x.npy" "$work/o_compact.npy" --gt 0.5 --timing --quiet
depth=(--depth "$scene/depth.png" --focus 0.5)
add sb_auto "$work/o_sb_auto.png" "$SB" "$scene/scene.png" "$work/o_sb_auto.png" "${depth[@]}" --timing --quiet
add sb_gpu "$work/o_sb_gpu.png" "$SB" "$scene/scene.png" "$work/o_sb_gpu.png" "${depth[@]}" --device gpu --timing --quiet
add sb_cpu "$work/o_sb_cpu.png" "$SB" "$scene/scene.png" "$work/o_sb_cpu.png" "${depth[@]}" --device cpu --timing --quiet
add sbj_gpu "$work/o_sbj_gpu.jpg" "$SB" "$scene/scene.png" "$work/o_sbj_gpu.jpg" --radius 8 --device gpu --timing --quiet
add sbj_cpu "$work/o_sbj_cpu.jpg" "$SB" "$scene/scene.png" "$work/o_sbj_cpu.jpg" --radius 8 --device cpu --timing --quiet

run() { # run NAME: once, output deleted first, stderr kept in $work/NAME.err; prints wall seconds
    local name=$1
    rm -f "${OUT[$name]}"
    local t0=$EPOCHREALTIME
    if ! eval "${CMD[$name]}" >/dev/null 2>"$work/$name.err"; then
        echo "startup.sh: $name failed: $(head -c 400 "$work/$name.err")" >&2
        exit 1
    fi
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f\n", b - a }'
}
gpu_init_ms() { sed -n 's/^  gpu init  *\([0-9.]*\) ms.*/\1/p' "$work/init_gpu.err" | head -1; }

note "warm-up (each command once)"
for n in "${names[@]}"; do run "$n" >/dev/null; done
INIT_MS=""
for ((i = 1; i <= rounds; ++i)); do
    note "round $i of $rounds"
    for n in "${names[@]}"; do TIMES[$n]+="$(run "$n") "; done
    ((gpu)) && INIT_MS+="$(gpu_init_ms) "
done

# ---- checks: the same bytes both ways --------------------------------------------------
bad=0
same() { [[ ! -e $1 || ! -e $2 ]] || cmp -s "$1" "$2" || { echo "startup.sh: $1 and $2 differ" >&2; bad=1; }; }
same "$work/o_rs_map.npy" "$work/o_rs_pwrite.npy"
same "$work/o_rs_cpu_map.npy" "$work/o_rs_cpu_pwrite.npy"
same "$work/o_sb_gpu.png" "$work/o_sb_cpu.png"
same "$work/o_sb_auto.png" "$work/o_sb_cpu.png"
[[ ! -e $work/o_rs_map.npy ]] || python3 - "$work/k.npy" "$work/o_rs_map.npy" <<'PYEOF' || bad=1
import sys
import numpy as np
if not np.array_equal(np.sort(np.load(sys.argv[1])), np.load(sys.argv[2])):
    sys.exit("startup.sh: radixsort's output is not numpy's sort")
PYEOF

# ---- the table ---------------------------------------------------------------------------
median() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -n | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "-"; exit } printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { median "${TIMES[$1]-}"; }
ratio() { awk -v a="$(med "$1")" -v b="$(med "$2")" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.2f", a / b }'; }
echo "## startup.sh: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU'), $(date -u +%Y-%m-%d), $rounds rounds"
echo
echo "| what | median wall s | vs |"
echo "| --- | ---: | --- |"
echo "| gpu init alone (the probe, --timing's \"gpu init\", ms) | $(median "$INIT_MS") ms | |"
echo "| radixsort 2 keys --device gpu (start-up + teardown) | $(med init_gpu) | $(ratio init_gpu init_cpu)x the same --device cpu ($(med init_cpu) s) |"
echo "| cp of k.npy | $(med cp_k) | |"
echo "| radixsort k.npy (mapped output) | $(med rs_map) | $(ratio rs_map cp_k)x cp (target <= 1.5x and <= 0.7 s) |"
echo "| radixsort k.npy, LIBSCAN_OUT_MAP=0 (pwrite) | $(med rs_pwrite) | $(ratio rs_pwrite cp_k)x cp |"
echo "| radixsort k.npy --device cpu (mapped output) | $(med rs_cpu_map) | $(ratio rs_cpu_map cp_k)x cp |"
echo "| radixsort k.npy --device cpu, LIBSCAN_OUT_MAP=0 | $(med rs_cpu_pwrite) | $(ratio rs_cpu_pwrite cp_k)x cp |"
echo "| compact x.npy --gt 0.5 | $(med compact) | $(ratio compact cp_k)x cp of k.npy |"
echo "| sat_blur PNG + depth, --device auto | $(med sb_auto) | $(ratio sb_auto sb_cpu)x --device cpu |"
echo "| sat_blur PNG + depth, --device gpu | $(med sb_gpu) | $(ratio sb_gpu sb_cpu)x --device cpu |"
echo "| sat_blur PNG + depth, --device cpu | $(med sb_cpu) | |"
echo "| sat_blur PNG -> JPEG --radius 8, --device gpu | $(med sbj_gpu) | $(ratio sbj_gpu sbj_cpu)x --device cpu |"
echo "| sat_blur PNG -> JPEG --radius 8, --device cpu | $(med sbj_cpu) | |"
echo
echo "Each command's --timing, last round:"
for n in "${names[@]}"; do
    [[ $n == cp_k ]] && continue
    echo
    echo "### $n"
    echo '```'
    cat "$work/$n.err"
    echo '```'
done
for n in "${names[@]}"; do rm -f "${OUT[$n]}" "$work/$n.err"; done
exit $bad
