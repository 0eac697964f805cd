#!/usr/bin/env bash
# sat_tile_sweep.sh -- sweep the RGBA8 SAT tile (sat_tuning.cuh, SatTuning<16>)
# on the GPU machine: compiles sat_tile_sweep.cu once per candidate that
# meets the tile rules of sat_kernels.cuh (in parallel), times each once, then
# the 12 fastest and the table's entry in ROUNDS interleaved rounds, and
# prints their medians. SWEEP_MAX=N keeps the first N candidates (a dry run).
#   bash bench/sat_blur/sat_tile_sweep.sh OUT_DIR [ROUNDS]   (ROUNDS of the finalists, default 3)
set -u
out=${1:?OUT_DIR}; rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
mkdir -p "$out/bin"
cands=()
for tw in 32 64 128; do for th in 16 32 64; do for ch in 4 8; do for sg in 2 4 8; do for thr in 128 256 512; do for mb in 2 4; do
    units=$tw; smem=$(( (th + sg) * units * 16 ))
    [ $smem -le 49152 ] || continue
    rt=$(( tw / ch )); [ $rt -le 32 ] || continue
    [ $units -le $thr ] || continue
    [ $(( th % sg )) -eq 0 ] || continue
    [ $(( units * sg % 32 )) -eq 0 ] || continue
    # keep the sweep to tiles with at most 2 rounds per pass
    [ $(( (th * rt + thr - 1) / thr )) -le 2 ] || continue
    [ $(( (units * sg + thr - 1) / thr )) -le 2 ] || continue
    [ $(( th * rt % thr )) -eq 0 ] || continue
    [ $(( thr * mb )) -le 2048 ] || continue
    cands+=("$tw $th $ch $sg $thr $mb")
done; done; done; done; done; done
cands=("64 32 8 4 256 4" "${cands[@]:0:${SWEEP_MAX:-${#cands[@]}}}") # the entry first
echo "candidates: ${#cands[@]}"
build() {
    set -- $1
    local name="t$1x$2_c$3_s$4_n$5_b$6"
    nvcc -O3 -std=c++17 -arch=sm_90 -I"$root/libscan/include" -DSW_TW=$1 -DSW_TH=$2 -DSW_CHUNK=$3 -DSW_SEGS=$4 -DSW_THREADS=$5 \
        -DSW_MINB=$6 "$root/bench/sat_blur/sat_tile_sweep.cu" -o "$out/bin/$name" 2>"$out/bin/$name.log" \
        || echo "$name: does not compile" >>"$out/bin/failed.txt"
}
export -f build; export out root
printf '%s\n' "${cands[@]}" | xargs -P "$(nproc)" -I{} bash -c 'build "{}"'
# Round 1 times every candidate once; the 12 fastest and the table's entry
# then run ROUNDS more times, interleaved, and their medians decide.
for b in "$out"/bin/t*; do
    case "$b" in *.log) continue ;; esac
    timeout 20 "$b" || echo "$(basename "$b"): failed"
done >"$out/round1.txt"
entry="TW=64 TH=32 CHUNK=8 SEGS=4 THREADS=256 MINB=4"
awk '$8=="us"' "$out/round1.txt" | sort -k7 -g | head -12 | cut -d' ' -f1-6 >"$out/finalists.txt"
grep -qx "$entry" "$out/finalists.txt" || echo "$entry" >>"$out/finalists.txt"
: >"$out/final.txt"
for r in $(seq "$rounds"); do
    while read -r tw th ch sg thr mb; do
        n="t${tw#TW=}x${th#TH=}_c${ch#CHUNK=}_s${sg#SEGS=}_n${thr#THREADS=}_b${mb#MINB=}"
        timeout 20 "$out/bin/$n" >>"$out/final.txt" || echo "$n: failed" >>"$out/final.txt"
    done <"$out/finalists.txt"
done
echo "candidates compiled: $(ls "$out"/bin/t* | grep -vc '\.log$'); wrong tables: $(grep -c WRONG "$out/round1.txt" "$out/final.txt" | paste -sd' ')"
echo "median of $rounds interleaved rounds, microseconds (the table's entry: $entry):"
python3 - "$out/final.txt" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 8 and f[7] == "us":
        times.setdefault(" ".join(f[:6]), []).append(float(f[6]))
for k, v in sorted(times.items(), key=lambda kv: statistics.median(kv[1])):
    print(f"{statistics.median(v):8.1f}  {k}  ({' '.join(map(str, v))})")
PY
