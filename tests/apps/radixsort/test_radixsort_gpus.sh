#!/usr/bin/env bash
# test_radixsort_gpus.sh -- radixsort --gpus N (the sort across GPUs over
# NCCL, apps/radixsort/rs_gpus.c).
#
#   test_radixsort_gpus.sh RADIXSORT            usage errors (no GPU needed): --gpus out
#                                               of range, with --device cpu or --segments (exit 1), a
#                                               build without NCCL (exit 1), more GPUs than
#                                               the machine has (exit 2); one line each, and
#                                               an existing output is left as it was
#   test_radixsort_gpus.sh RADIXSORT --gpu N    sorts across N GPUs (every key type, keys
#                                               alone and descending, --values, --argsort,
#                                               -u, counts that do not divide by N, an empty
#                                               file) checked against tests/support/array_ref.py;
#                                               a truncated input while the GPUs start (exit 1,
#                                               the output kept);
#                                               exit 77 (skipped) with fewer than N GPUs or
#                                               without NCCL in the build
set -uo pipefail
RS=$1
mode=usage
gpus=1
if [[ ${2-} == --gpu ]]; then
    mode=gpu
    gpus=${3:-1}
fi
# NVLink multicast stays off.
export NCCL_NVLS_ENABLE=0
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
cli_init "$RS"
REF="$(dirname "${BASH_SOURCE[0]}")/../../support/array_ref.py"
ref() { python3 "$REF" "$@"; }
SEED=${LIBSCAN_TEST_SEED:-$RANDOM}
echo "# seed $SEED (LIBSCAN_TEST_SEED=$SEED replays)"
built=1
"$RS" --help >"$tmp/help.txt" # whole, before grep -q (which would stop the pipe early)
grep -q "built without NCCL" "$tmp/help.txt" && built=0

printf '3\n1\n2\n' >"$tmp/k.txt"
if [[ $mode == usage ]]; then
    echo keep >"$tmp/old.txt"
    kept() { [[ $(cat "$tmp/old.txt") == keep ]] || fail "$1: the existing output was changed"; no_file "$1" ""; }
    expect 1 "--gpus 0" -- "$tmp/k.txt" -o "$tmp/old.txt" --gpus 0 && one_line "--gpus 0" "--gpus" && kept "--gpus 0"
    expect 1 "--gpus abc" -- "$tmp/k.txt" -o "$tmp/old.txt" --gpus abc && one_line "--gpus abc" "--gpus" && kept "--gpus abc"
    expect 1 "--gpus 65" -- "$tmp/k.txt" -o "$tmp/old.txt" --gpus 65 && one_line "--gpus 65" "--gpus" && kept "--gpus 65"
    expect 1 "--gpus with --device cpu" -- "$tmp/k.txt" -o "$tmp/old.txt" --gpus 2 --device cpu &&
        one_line "--gpus with --device cpu" "--gpus" && kept "--gpus with --device cpu"
    expect 1 "--gpus with --segments" -- "$tmp/k.txt" -o "$tmp/old.txt" --gpus 2 --segments "$tmp/k.txt" &&
        one_line "--gpus with --segments" "--gpus" && kept "--gpus with --segments"
    if [[ $built == 0 ]]; then
        expect 1 "--gpus without NCCL" -- "$tmp/k.txt" -o "$tmp/old.txt" --gpus 1 &&
            one_line "--gpus without NCCL" "NCCL" && kept "--gpus without NCCL"
    else
        # More GPUs than any machine here has: refused like --device gpu without a GPU.
        expect 2 "--gpus 64" -- "$tmp/k.txt" -o "$tmp/old.txt" --gpus 64 && one_line "--gpus 64" "--gpus 64" "usable" &&
            kept "--gpus 64"
    fi
    cli_finish "radixsort --gpus (usage)"
fi

if [[ $built == 0 ]]; then
    echo "SKIP: this radixsort was built without NCCL: --gpus $gpus was not run"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the reference"; exit 77; }
if ! "$RS" "$tmp/k.txt" -o "$tmp/probe.txt" --gpus "$gpus" --quiet >/dev/null 2>"$tmp/probe_err"; then
    echo "SKIP: radixsort --gpus $gpus does not run here: $(head -c 300 "$tmp/probe_err")"
    [[ ${LIBSCAN_REQUIRE_GPU-} == 1 ]] && exit 1
    exit 77
fi
checks=0
# A bad input found while the GPUs and NCCL start up (on a thread): one
# line, exit 1, the output left as it was, and the exit waits for the start
# (no crash, no hang).
ref make "$tmp/t.npy" '<u4' rand 5003 "$SEED"
head -c 1000 "$tmp/t.npy" >"$tmp/trunc.npy"
echo keep >"$tmp/old.txt"
if expect 1 "truncated input" -- "$tmp/trunc.npy" -o "$tmp/old.txt" --gpus "$gpus" &&
    one_line "truncated input" "trunc.npy" "truncated"; then
    [[ $(cat "$tmp/old.txt") == keep ]] || fail "truncated input: the existing output was changed"
fi
# sort_check NAME IN OUT REF-FLAGS -- ARGS...
sort_check() {
    local name=$1 in=$2 out=$3 flags=$4
    shift 5
    rm -f "$out"
    if expect_cmd 0 "$name" "$RS" "$in" -o "$out" --gpus "$gpus" --quiet "$@"; then
        # shellcheck disable=SC2086
        if ref sort "$in" "$out" $flags 2>"$tmp/referr"; then checks=$((checks + 1)); else fail "$name: $(cat "$tmp/referr")"; fi
    fi
}
for spec in "<u4 rand" "<f4 rand" "<f8 rand" "<i8 rand" "<u8 runs" "|u1 rand" "<u2 rand" "|b1 rand" "<i2 rand" "<i4 runs"; do
    read -r d kind <<<"$spec"
    for n in 1 5003 $((gpus * 1000 + 1)); do
        ref make "$tmp/k.npy" "$d" "$kind" "$n" "$SEED"
        sort_check "$d $kind n=$n" "$tmp/k.npy" "$tmp/o.npy" "" --
    done
    sort_check "$d $kind -r" "$tmp/k.npy" "$tmp/o.npy" "desc" -- -r
done
ref make "$tmp/dup.npy" '<u4' runs 6007 "$SEED"
ref make "$tmp/vals.npy" '<f8' rand 6007 "$((SEED + 1))"
sort_check "--values" "$tmp/dup.npy" "$tmp/o.npy" "values=$tmp/vals.npy,$tmp/vo.npy" -- --values "$tmp/vals.npy" --values-out "$tmp/vo.npy"
sort_check "--values -r" "$tmp/dup.npy" "$tmp/o.npy" "desc values=$tmp/vals.npy,$tmp/vo.npy" -- -r --values "$tmp/vals.npy" --values-out "$tmp/vo.npy"
sort_check "--argsort" "$tmp/dup.npy" "$tmp/o.npy" "argsort" -- --argsort
sort_check "-u" "$tmp/dup.npy" "$tmp/o.npy" "unique" -- -u
ref make "$tmp/e.npy" '<u4' rand 0 "$SEED"
sort_check "empty" "$tmp/e.npy" "$tmp/o.npy" "" --
echo "# $checks outputs checked against the reference (--gpus $gpus)"
cli_finish "radixsort --gpus $gpus"
