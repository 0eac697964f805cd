#!/usr/bin/env bash
# test_radixsort_stream.sh -- radixsort's in-memory sort through apps/common's
# streaming I/O (issue 21): reads and writes in many chunks
# (LIBSCAN_STREAM_CHUNK, bytes) on several threads (LIBSCAN_IO_THREADS), for
# every key type and file format, keys alone (the GPU streams these through
# pinned buffers) and with --values/--argsort/--unique (whole arrays); every
# output checked against tests/support/array_ref.py, an independent
# reference in Python's standard library.
#
#   test_radixsort_stream.sh RADIXSORT [--gpu]
# With --gpu the cases run with --device gpu (exit 77, skipped, where there
# is no usable GPU).
set -uo pipefail
RS=$1
dev=cpu
[[ ${2-} == --gpu ]] && dev=gpu
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
cli_ref_init "$RS"
cli_require_gpu "$dev" "the --device gpu cases of the streamed sort" \
    "$RS" "$tmp/probe.txt" -o "$tmp/probe_out.txt" --device gpu --quiet
checks=0

# sort_check NAME CHUNK THREADS IN OUT REF-FLAGS -- ARGS...
sort_check() {
    local name=$1 chunk=$2 threads=$3 in=$4 out=$5 flags=$6
    shift 7
    rm -f "$out"
    local env=(env LIBSCAN_IO_THREADS="$threads")
    [[ $chunk != - ]] && env+=(LIBSCAN_STREAM_CHUNK="$chunk")
    if expect_cmd 0 "$name" "${env[@]}" "$RS" "$in" -o "$out" --device "$dev" --quiet "$@"; then
        # shellcheck disable=SC2086
        if ref sort "$in" "$out" $flags 2>"$tmp/referr"; then checks=$((checks + 1)); else fail "$name: $(cat "$tmp/referr")"; fi
    fi
}

# ---- keys alone: every type, chunk sizes that end anywhere ------------------------
for spec in "<u4 rand" "<f4 rand" "<f8 rand" "<i8 rand" "<u8 runs" "|u1 rand" "<u2 rand" "|b1 rand" "<i2 rand" "|i1 rand" "<i4 runs"; do
    read -r d kind <<<"$spec"
    ref make "$tmp/k.npy" "$d" "$kind" 5003 "$SEED"
    for chunk in 1 24 4096 -; do
        for threads in 1 4; do
            sort_check "$d $kind (chunk $chunk, $threads threads)" "$chunk" "$threads" "$tmp/k.npy" "$tmp/o.npy" "" --
        done
    done
    sort_check "$d $kind -r" 40 3 "$tmp/k.npy" "$tmp/o.npy" "desc" -- -r
done

# ---- formats: big-endian v2 .npy, raw, text, standard output -------------------------------
ref make "$tmp/be.npy" '>f4' rand 3001 "$SEED" 2
sort_check "big-endian v2 .npy" 12 3 "$tmp/be.npy" "$tmp/o.npy" "" --
ref make "$tmp/k.bin" '<u8' rand 2002 "$SEED"
ref make "$tmp/kref.npy" '<u8' rand 2002 "$SEED"
rm -f "$tmp/o.bin"
if expect_cmd 0 "raw" env LIBSCAN_STREAM_CHUNK=16 LIBSCAN_IO_THREADS=3 "$RS" "$tmp/k.bin" --dtype u64 -o "$tmp/o.bin" --device "$dev" --quiet; then
    cp "$tmp/o.bin" "$tmp/o_raw_as.bin"
    # The raw output read back by the reference with the input's dtype (same seed as kref.npy).
    python3 - "$REF" "$tmp/kref.npy" "$tmp/o.bin" <<'PYEOF' || fail "raw: output differs from the reference"
import importlib.util, sys
spec = importlib.util.spec_from_file_location('r', sys.argv[1]); r = importlib.util.module_from_spec(spec); spec.loader.exec_module(r)
d, keys = r.read_file(sys.argv[2]); _, out = r.read_file(sys.argv[3], '<u8')
sys.exit(0 if out == sorted(keys) else 1)
PYEOF
    checks=$((checks + 1))
fi
ref make "$tmp/k.txt" '<i8' runs 3003 "$SEED"
ref make "$tmp/ktxt.npy" '<i8' runs 3003 "$SEED"
if expect_cmd 0 "text in, npy out" env LIBSCAN_STREAM_CHUNK=8 "$RS" "$tmp/k.txt" -o "$tmp/o.npy" --device "$dev" --quiet; then
    if ref sort "$tmp/ktxt.npy" "$tmp/o.npy" 2>"$tmp/referr"; then checks=$((checks + 1)); else fail "text in: $(cat "$tmp/referr")"; fi
fi
if expect_cmd 0 "npy in, text out" env LIBSCAN_STREAM_CHUNK=8 "$RS" "$tmp/ktxt.npy" -o "$tmp/o.txt" --device "$dev" --quiet; then
    if python3 - "$REF" "$tmp/ktxt.npy" "$tmp/o.txt" <<'PYEOF'; then checks=$((checks + 1)); else fail "text out: output differs from the reference"; fi
import importlib.util, sys
spec = importlib.util.spec_from_file_location('r', sys.argv[1]); r = importlib.util.module_from_spec(spec); spec.loader.exec_module(r)
d, keys = r.read_file(sys.argv[2]); _, out = r.read_file(sys.argv[3], d)
sys.exit(0 if [r.value_of(d, b) for b in out] == sorted(r.value_of(d, b) for b in keys) else 1)
PYEOF
fi
ref make "$tmp/s.npy" '<f4' rand 4001 "$SEED"
if expect_cmd 0 "stdout npy" env LIBSCAN_STREAM_CHUNK=20 LIBSCAN_IO_THREADS=4 "$RS" "$tmp/s.npy" -o - --format npy --device "$dev" --quiet; then
    cp "$tmp/out" "$tmp/stdout.npy"
    if ref sort "$tmp/s.npy" "$tmp/stdout.npy" 2>"$tmp/referr"; then checks=$((checks + 1)); else fail "stdout npy: $(cat "$tmp/referr")"; fi
fi

# ---- keys with values, permutation, unique: whole arrays on several threads -------------------
ref make "$tmp/dup.npy" '<u4' runs 6007 "$SEED"
ref make "$tmp/vals.npy" '<f8' rand 6007 "$((SEED + 1))"
sort_check "--values" 8 4 "$tmp/dup.npy" "$tmp/o.npy" "values=$tmp/vals.npy,$tmp/vo.npy" -- --values "$tmp/vals.npy" --values-out "$tmp/vo.npy"
sort_check "--values -r" 8 4 "$tmp/dup.npy" "$tmp/o.npy" "desc values=$tmp/vals.npy,$tmp/vo.npy" -- -r --values "$tmp/vals.npy" --values-out "$tmp/vo.npy"
sort_check "--argsort" 8 4 "$tmp/dup.npy" "$tmp/o.npy" "argsort" -- --argsort
sort_check "-u" 8 4 "$tmp/dup.npy" "$tmp/o.npy" "unique" -- -u
sort_check "-u --values" 8 4 "$tmp/dup.npy" "$tmp/o.npy" "unique values=$tmp/vals.npy,$tmp/vo.npy" -- -u --values "$tmp/vals.npy" --values-out "$tmp/vo.npy"

# ---- empty input, and --in-place through the streamed path ---------------------------------------
ref make "$tmp/e.npy" '<u4' rand 0 "$SEED"
sort_check "empty" 4 2 "$tmp/e.npy" "$tmp/o.npy" "" --
ref make "$tmp/ip.npy" '<u4' rand 3000 "$SEED"
cp "$tmp/ip.npy" "$tmp/ip.orig.npy"
if expect_cmd 0 "--in-place" env LIBSCAN_STREAM_CHUNK=100 LIBSCAN_IO_THREADS=3 "$RS" "$tmp/ip.npy" --in-place --device "$dev" --quiet; then
    if ref sort "$tmp/ip.orig.npy" "$tmp/ip.npy" 2>"$tmp/referr"; then checks=$((checks + 1)); else fail "--in-place: $(cat "$tmp/referr")"; fi
fi

# ---- --timing: the stages, and the wall total where they overlap ---------------------------------
if expect_cmd 0 "timing" env LIBSCAN_STREAM_CHUNK=4096 "$RS" "$tmp/s.npy" -o "$tmp/t.npy" --device "$dev" --timing; then
    if [[ $dev == gpu ]]; then stages=(read upload sort download write "total (wall)"); else stages=(read compute write total); fi
    for s in "${stages[@]}"; do grep -q "  $s " "$tmp/err" || fail "timing: no '$s' line: $(cat "$tmp/err")"; done
fi

echo "# $checks outputs checked against the reference ($dev)"
cli_finish "radixsort streamed ($dev)"
