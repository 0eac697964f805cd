#!/usr/bin/env bash
# run.sh -- libscan_nccl's benchmark on a multi-GPU machine; builds nothing.
#
#   bash bench/nccl/run.sh OUTDIR [RANKS...] [-- BENCH_OPTIONS...]
#
# Runs build-gpu/bench/nccl/bench_nccl (configure and build it first, e.g.
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DLIBSCAN_WITH_NCCL=ON
#   cmake --build build-gpu -j --target bench_nccl test_nccl_lib radixsort)
# once per rank count (default: 1 and every GPU of the machine; e.g. `1 2 4 8`
# on an 8-GPU machine), each with weak scaling (2^29 u32 keys per GPU),
# strong scaling (2^31 in all) and the scan (2^28 per GPU), and writes
# OUTDIR/bench_nccl_<N>gpu.md (the tables) and OUTDIR/README.md (GPU, NCCL,
# date, commit (LIBSCAN_COMMIT where set: the commit a carried build was made
# from), the command lines). BUILD_DIR=... picks another build folder.
# NCCL_NVLS_ENABLE=0: NVLink multicast stays off.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
[[ $# -ge 1 && $1 != -h && $1 != --help ]] || {
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 1
}
out=$1
shift
ranks=()
while [[ $# -gt 0 && $1 != -- ]]; do
    ranks+=("$1")
    shift
done
[[ ${1-} == -- ]] && shift
build=${BUILD_DIR:-build-gpu}
bench=$build/bench/nccl/bench_nccl
[[ -x $bench ]] || { echo "run.sh: $bench is not built (see the top of this script)" >&2; exit 1; }
export NCCL_NVLS_ENABLE=0
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[[ $gpus -ge 1 ]] || { echo "run.sh: no GPU (nvidia-smi -L lists none)" >&2; exit 1; }
if [[ ${#ranks[@]} -eq 0 ]]; then
    ranks=(1)
    [[ $gpus -gt 1 ]] && ranks+=("$gpus")
fi
mkdir -p "$out"
{
    echo "# bench_nccl run"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- commit: ${LIBSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    echo "- GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | paste -sd ';')"
    echo "- topology:"
    echo '```'
    nvidia-smi topo -m 2>/dev/null || true
    echo '```'
    echo "- NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
    echo
    echo "Commands:"
} >"$out/README.md"
for n in "${ranks[@]}"; do
    if [[ $n -gt $gpus ]]; then
        echo "run.sh: skipping $n ranks: this machine has $gpus GPU(s)" >&2
        continue
    fi
    cmd=("$bench" --ranks "$n" "$@")
    echo "- \`${cmd[*]}\`" >>"$out/README.md"
    echo "run.sh: ${cmd[*]}" >&2
    "${cmd[@]}" | tee "$out/bench_nccl_${n}gpu.md"
done
echo "run.sh: tables in $out/" >&2
