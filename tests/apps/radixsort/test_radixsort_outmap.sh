#!/usr/bin/env bash
# test_radixsort_outmap.sh -- radixsort's outputs written through a mapping
# (apps/common/out_map.h: fallocate, mmap, prefault, memcpy) against the
# pwrite path (LIBSCAN_OUT_MAP=0): the same bytes, every output checked
# against tests/support/array_ref.py (an independent reference); a failing
# fallocate (the file-size limit) keeps the old file, exits 2 with one line
# naming the output and leaves no temporary file, both ways.
#
#   test_radixsort_outmap.sh RADIXSORT [--gpu]
# With --gpu the cases run with --device gpu (exit 77, skipped, where there
# is no usable GPU; the stand-in GPU of tests/apps/mock_gpu runs them on any
# machine).
set -uo pipefail
RS=$1
dev=cpu
[[ ${2-} == --gpu ]] && dev=gpu
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
cli_ref_init "$RS"
cli_require_gpu "$dev" "the --device gpu cases of the mapped outputs" \
    "$RS" "$tmp/probe.txt" -o "$tmp/probe_out.txt" --device gpu --quiet
checks=0

# both NAME IN OUT-EXT ENV... -- ARGS...: the sort with mapping on and off;
# both succeed, write the same bytes, and the mapped one is the reference's.
both() {
    local name=$1 in=$2 ext=$3
    shift 3
    local envs=()
    while [[ $1 != -- ]]; do envs+=("$1"); shift; done
    shift
    local m
    for m in 1 0; do
        rm -f "$tmp/o$m.$ext"
        expect_cmd 0 "$name (LIBSCAN_OUT_MAP=$m)" env "${envs[@]}" LIBSCAN_OUT_MAP=$m "$RS" "$in" -o "$tmp/o$m.$ext" \
            --device "$dev" --quiet "$@" || return 0
    done
    cmp -s "$tmp/o1.$ext" "$tmp/o0.$ext" || { fail "$name: mapped and pwrite outputs differ"; return 0; }
    no_file "$name: no temporary file" ""
    checks=$((checks + 1))
}

for spec in "<u4 rand" "<f8 rand" "<i8 runs" "|u1 rand" "<i2 rand"; do
    read -r d kind <<<"$spec"
    ref make "$tmp/k.npy" "$d" "$kind" 70001 "$SEED"
    for chunk in 24 65536 -; do
        envs=(LIBSCAN_IO_THREADS=4)
        [[ $chunk != - ]] && envs+=(LIBSCAN_STREAM_CHUNK="$chunk")
        both "$d $kind .npy (chunk $chunk)" "$tmp/k.npy" npy "${envs[@]}" --
        ref sort "$tmp/k.npy" "$tmp/o1.npy" 2>"$tmp/referr" || fail "$d $kind (chunk $chunk): $(cat "$tmp/referr")"
    done
done
# raw output (no header: the data starts at offset 0 of the mapping), -r, --values (the host path, two outputs)
ref make "$tmp/k.npy" '<u8' rand 50000 "$SEED"
both "raw output" "$tmp/k.npy" bin LIBSCAN_STREAM_CHUNK=4096 --
both "-r" "$tmp/k.npy" npy LIBSCAN_STREAM_CHUNK=4096 -- -r
ref make "$tmp/v.npy" '<f4' rand 50000 "$((SEED + 1))"
for m in 1 0; do
    rm -f "$tmp/vo$m.npy"
    expect_cmd 0 "--values (LIBSCAN_OUT_MAP=$m)" env LIBSCAN_OUT_MAP=$m "$RS" "$tmp/k.npy" -o "$tmp/ko$m.npy" \
        --values "$tmp/v.npy" --values-out "$tmp/vo$m.npy" --device "$dev" --quiet
done
if cmp -s "$tmp/ko1.npy" "$tmp/ko0.npy" && cmp -s "$tmp/vo1.npy" "$tmp/vo0.npy"; then
    if ref sort "$tmp/k.npy" "$tmp/ko1.npy" "values=$tmp/v.npy,$tmp/vo1.npy" 2>"$tmp/referr"; then
        checks=$((checks + 1))
    else
        fail "--values: $(cat "$tmp/referr")"
    fi
else
    fail "--values: mapped and pwrite outputs differ"
fi

# A file-size limit of 100 blocks (51200 bytes; the output is 400 KB): the
# mapped path's fallocate fails with EFBIG (SIGXFSZ ignored), the pwrite
# path's write does; both keep the old file and say so in one line.
limited() { (trap '' XFSZ; ulimit -f "$1"; shift; exec "$@"); }
for m in 1 0; do
    printf 'old output\n' >"$tmp/old.npy"
    if expect_cmd 2 "size limit (LIBSCAN_OUT_MAP=$m)" limited 100 env LIBSCAN_OUT_MAP=$m "$RS" "$tmp/k.npy" \
        -o "$tmp/old.npy" --device "$dev" --quiet; then
        one_line "size limit (LIBSCAN_OUT_MAP=$m)" "old.npy" "File too large"
    fi
    [[ $(cat "$tmp/old.npy") == "old output" ]] || fail "size limit (LIBSCAN_OUT_MAP=$m): the old file changed"
    no_file "size limit (LIBSCAN_OUT_MAP=$m): no temporary file" ""
    checks=$((checks + 1))
done

echo "# $checks cases checked ($dev)"
cli_finish "radixsort mapped outputs ($dev)"
