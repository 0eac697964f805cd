#!/usr/bin/env bash
# test_device_cpu_no_gpu.sh -- `--device cpu` never touches the GPU.
#
#   bash test_device_cpu_no_gpu.sh RADIXSORT_MOCKGPU COMPACT_MOCKGPU
#
# Both programs are the mock-GPU builds (mock_gpu/mock_gpu.h): every CUDA
# runtime call they make goes to mock_gpu.c, which aborts under
# MOCK_GPU_FORBID=1. On a GPU machine any such call -- even cudaFree(NULL),
# which the sort's CPU path used to make on its way out -- creates the CUDA
# context first, 0.2-0.6 s added to a CPU job (issue #21); on a machine
# without a GPU it fails quietly, so only the mock can see it. Each run
# below is a CPU job the programs support: in memory, with values, unique,
# segments, out of core, and compaction with each output kind.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../support/cli_lib.sh"
rs=${1:?usage: test_device_cpu_no_gpu.sh RADIXSORT_MOCKGPU COMPACT_MOCKGPU}
cp_prog=${2:?usage: test_device_cpu_no_gpu.sh RADIXSORT_MOCKGPU COMPACT_MOCKGPU}
cli_init "$rs"

# Inputs: 5000 keys (text), a value per key, offsets of 3 segments.
for ((i = 0; i < 5000; ++i)); do echo $(((i * 7919 + 13) % 1009)); done >"$tmp/k.txt"
for ((i = 0; i < 5000; ++i)); do echo "$i"; done >"$tmp/v.txt"
printf '0\n1000\n1000\n5000\n' >"$tmp/seg.txt"
sort -n "$tmp/k.txt" >"$tmp/k_sorted.txt"

export MOCK_GPU_FORBID=1

# The check can fail: the same program asked for the GPU aborts (SIGABRT).
if expect_cmd 134 "--device gpu under MOCK_GPU_FORBID" "$rs" "$tmp/k.txt" -o "$tmp/gpu.txt" --device gpu --quiet; then
    grep -q "MOCK_GPU_FORBID" "$tmp/err" ||
        fail "--device gpu under MOCK_GPU_FORBID aborted without the mock's message: $(head -c 300 "$tmp/err")"
fi

# cpu_ok NAME CMD...: CMD exits 0 (expect_cmd counts any other status) and
# the mock saw no CUDA call.
cpu_ok() {
    local name=$1
    shift
    expect_cmd 0 "$name" "$@" || :
    if grep -q "MOCK_GPU_FORBID" "$tmp/err"; then
        fail "$name: a CUDA call on the CPU path: $(grep -m1 MOCK_GPU_FORBID "$tmp/err")"
    fi
}

cpu_ok "sort in memory" "$rs" "$tmp/k.txt" -o "$tmp/s.txt" --device cpu --quiet
cmp -s "$tmp/s.txt" "$tmp/k_sorted.txt" || fail "sort in memory: output not sorted as sort -n"
cpu_ok "sort with values" "$rs" "$tmp/k.txt" -o "$tmp/s2.txt" --values "$tmp/v.txt" --values-out "$tmp/v2.txt" --device cpu --quiet
cpu_ok "argsort, reverse" "$rs" "$tmp/k.txt" -o "$tmp/a.txt" --argsort -r --device cpu --quiet
cpu_ok "unique" "$rs" "$tmp/k.txt" -o "$tmp/u.txt" -u --device cpu --quiet
cpu_ok "check" "$rs" "$tmp/k_sorted.txt" --check --device cpu --quiet
cpu_ok "segments" "$rs" "$tmp/k.txt" -o "$tmp/sg.txt" --segments "$tmp/seg.txt" --device cpu --quiet
cpu_ok "out of core" "$rs" "$tmp/k.txt" -o "$tmp/ooc.txt" --mem-limit 8192 --device cpu --quiet
cmp -s "$tmp/ooc.txt" "$tmp/k_sorted.txt" || fail "out of core: output not sorted as sort -n"

cpu_ok "compact --gt" "$cp_prog" "$tmp/k.txt" "$tmp/c.txt" --gt 500 --device cpu --quiet
cpu_ok "compact --partition" "$cp_prog" "$tmp/k.txt" "$tmp/p.txt" --lt 100 --partition --device cpu --quiet
cpu_ok "compact --indices" "$cp_prog" "$tmp/k.txt" "$tmp/i.txt" --unique --indices --device cpu --quiet
cpu_ok "compact --count" "$cp_prog" "$tmp/k.txt" --count --nonzero --device cpu --quiet

cli_finish "--device cpu makes no CUDA call"
