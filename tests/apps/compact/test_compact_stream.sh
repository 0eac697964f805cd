#!/usr/bin/env bash
# test_compact_stream.sh -- compact streamed in many chunks (issue 21): the
# chunk size forced down with LIBSCAN_STREAM_CHUNK (bytes) so that chunk
# boundaries fall everywhere (after every element, inside runs of equal
# values, between NaNs and signed zeros), and the I/O threads with
# LIBSCAN_IO_THREADS; every output checked against tests/support/array_ref.py
# (an independent reference in Python's standard library) and the summary
# line against its count. Also: .npy/raw/text in and out, a byte-swapped
# input, --flags streamed alongside, stdout (the .npy header waits for the
# count), an empty input, a killed run leaving nothing behind.
#
#   test_compact_stream.sh COMPACT [--gpu]
# With --gpu the same cases run with --device gpu (exit 77, skipped, where
# there is no usable GPU).
set -uo pipefail
prog=$1
dev=cpu
[[ ${2-} == --gpu ]] && dev=gpu
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
cli_ref_init "$prog"
cli_require_gpu "$dev" "the --device gpu cases of the streamed compaction" \
    "$prog" --device gpu --quiet "$tmp/probe.txt" --count --gt 0
checks=0
ok() { checks=$((checks + 1)); }

# run_check NAME CHUNK THREADS IN OUT OUT_DESCR ARGS...: compact IN OUT ARGS
# with the chunk size and threads given, then the reference on the result
# (output and summary).
run_check() {
    local name=$1 chunk=$2 threads=$3 in=$4 out=$5 od=$6
    shift 6
    rm -f "$out"
    local env=(env LIBSCAN_IO_THREADS="$threads")
    [[ $chunk != - ]] && env+=(LIBSCAN_STREAM_CHUNK="$chunk")
    if expect_cmd 0 "$name" "${env[@]}" "$prog" --device "$dev" --quiet "$in" "$out" "$@"; then
        local rargs=("$@")
        if ref compact "$in" "$out" "$od" "${rargs[@]}" >"$tmp/want" 2>"$tmp/referr"; then
            cmp -s "$tmp/out" "$tmp/want" || fail "$name: summary '$(tr '\n' ' ' <"$tmp/out")', expected '$(tr '\n' ' ' <"$tmp/want")'"
            ok
        else
            fail "$name: output differs from the reference: $(cat "$tmp/referr")"
        fi
    fi
}

# ---- inputs ----------------------------------------------------------------
ref make "$tmp/f4.npy" '<f4' rand 3001 "$SEED"        # NaNs of both signs, +-0, +-inf, denormals
ref make "$tmp/f4runs.npy" '<f4' runs 2003 "$SEED"    # runs of equal values, NaN and +-0 runs
ref make "$tmp/f8norm.npy" '<f8' norm 2500 "$SEED"
ref make "$tmp/i64.npy" '<i8' rand 1777 "$SEED"
ref make "$tmp/u32runs.npy" '<u4' runs 4099 "$SEED"
ref make "$tmp/i32be.npy" '>i4' rand 1501 "$SEED" 2   # big-endian, .npy v2
ref make "$tmp/u64.bin" '<u8' runs 999 "$SEED"        # raw
ref make "$tmp/i64.txt" '<i8' runs 1203 "$SEED"       # text
ref make "$tmp/flags.npy" '<i2' flags 3001 "$SEED"
ref make "$tmp/flags.bin" '|u1' flags 3001 "$SEED"

# ---- many chunk sizes and thread counts: every criterion ------------------------
# 4 bytes: one f32 per chunk; 12: three; 28: seven; 4096: a few chunks; -: the default (one).
for chunk in 4 12 28 4096 -; do
    for threads in 1 3; do
        t="chunk $chunk, $threads threads"
        run_check "gt ($t)" "$chunk" "$threads" "$tmp/f4.npy" "$tmp/o.npy" '<f4' --gt 0.5
        run_check "partition lt ($t)" "$chunk" "$threads" "$tmp/f4.npy" "$tmp/o.npy" '<f4' --lt 0 --partition
        run_check "unique f32 runs ($t)" "$chunk" "$threads" "$tmp/f4runs.npy" "$tmp/o.npy" '<f4' --unique
        run_check "unique u32 runs indices ($t)" "$chunk" "$threads" "$tmp/u32runs.npy" "$tmp/o.npy" '<u4' --unique --indices
        run_check "ne indices ($t)" "$chunk" "$threads" "$tmp/f4.npy" "$tmp/o.npy" '<f4' --ne 0 --indices
        run_check "partition indices ($t)" "$chunk" "$threads" "$tmp/i64.npy" "$tmp/o.npy" '<i8' --gt 0 --partition --indices
        run_check "flags ($t)" "$chunk" "$threads" "$tmp/f4.npy" "$tmp/o.npy" '<f4' --flags "$tmp/flags.npy"
        run_check "flags partition raw flags ($t)" "$chunk" "$threads" "$tmp/f4.npy" "$tmp/o.npy" '<f4' --flags "$tmp/flags.bin" --partition
        run_check "nan ($t)" "$chunk" "$threads" "$tmp/f4.npy" "$tmp/o.npy" '<f4' --nan
    done
done

# ---- formats, one tiny chunk size (every boundary) ---------------------------------------
C=8
run_check "finite f8 -> raw" $C 2 "$tmp/f8norm.npy" "$tmp/o.bin" '<f8' --finite
run_check "range f8 -> raw partition" $C 2 "$tmp/f8norm.npy" "$tmp/o.bin" '<f8' --range -1 1 --partition
run_check "big-endian v2 in" $C 3 "$tmp/i32be.npy" "$tmp/o.npy" '<i4' --lt 0
run_check "big-endian v2 unique" $C 3 "$tmp/i32be.npy" "$tmp/o.npy" '<i4' --unique
run_check "raw in (--dtype), unique" $C 2 "$tmp/u64.bin" "$tmp/o.npy" '<u8' --unique --dtype uint64
run_check "text in, text out" $C 2 "$tmp/i64.txt" "$tmp/o.txt" '<i8' --unique --dtype int64
run_check "text in, partition text out" $C 2 "$tmp/i64.txt" "$tmp/o.txt" '<i8' --ge 1 --partition --dtype int64
run_check "npy in, text out, partition indices" $C 2 "$tmp/i64.npy" "$tmp/o.txt" '<u8' --lt 0 --partition --indices
run_check "u64 eq beyond 2^53 (text out)" $C 2 "$tmp/u64.bin" "$tmp/o.txt" '<u8' --eq 18446744073709551615 --dtype uint64

# --count: the count only, from every chunk.
if expect_cmd 0 "count" env LIBSCAN_STREAM_CHUNK=4 "$prog" --device "$dev" --quiet "$tmp/f4runs.npy" --count --unique; then
    want=$(ref compact "$tmp/f4runs.npy" - '<f4' --unique | sed -n 's/^kept \([0-9]*\) .*/\1/p')
    if [[ $(cat "$tmp/out") == "$want" ]]; then ok; else fail "count: $(cat "$tmp/out"), expected $want"; fi
fi

# ---- standard output: data alone on stdout, the same bytes as the file -------------------
for args in "--gt 0.5" "--lt 0 --partition" "--unique"; do
    read -r -a a <<<"$args"
    expect_cmd 0 "file ($args)" env LIBSCAN_STREAM_CHUNK=12 "$prog" --device "$dev" --quiet "$tmp/f4runs.npy" "$tmp/s.npy" "${a[@]}" || continue
    cp "$tmp/out" "$tmp/s.sum"
    expect_cmd 0 "stdout npy ($args)" env LIBSCAN_STREAM_CHUNK=12 "$prog" --device "$dev" --quiet "$tmp/f4runs.npy" - --out-format npy "${a[@]}" || continue
    cmp -s "$tmp/out" "$tmp/s.npy" || fail "stdout npy ($args): not the bytes of the file"
    cmp -s "$tmp/err" "$tmp/s.sum" || fail "stdout npy ($args): the summary is not on stderr: $(cat "$tmp/err")"
    if ref compact "$tmp/f4runs.npy" "$tmp/s.npy" '<f4' "${a[@]}" >/dev/null 2>"$tmp/referr"; then ok; else fail "stdout npy ($args): $(cat "$tmp/referr")"; fi
done
if expect_cmd 0 "stdout raw partition" env LIBSCAN_STREAM_CHUNK=4 "$prog" --device "$dev" --quiet "$tmp/f4.npy" - --lt 0 --partition; then
    cp "$tmp/out" "$tmp/s.bin"
    if ref compact "$tmp/f4.npy" "$tmp/s.bin" '<f4' --lt 0 --partition >/dev/null 2>"$tmp/referr"; then ok; else fail "stdout raw partition: $(cat "$tmp/referr")"; fi
fi

# ---- empty input ----------------------------------------------------------------------
ref make "$tmp/empty.npy" '<f4' rand 0 "$SEED"
run_check "empty" 4 2 "$tmp/empty.npy" "$tmp/o.npy" '<f4' --gt 0
run_check "empty partition" 4 2 "$tmp/empty.npy" "$tmp/o.npy" '<f4' --gt 0 --partition

# ---- a run killed midway leaves no file and no temporary one (the spill has no name) ----
ref make "$tmp/kill.npy" '<f4' rand 400000 "$SEED"
mkdir -p "$tmp/k"
env LIBSCAN_STREAM_CHUNK=4 "$prog" --device "$dev" --quiet "$tmp/kill.npy" "$tmp/k/out.npy" --lt 0 --partition >/dev/null 2>&1 &
pid=$!
sleep 0.5
if kill -TERM "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null
    left=$(ls -A "$tmp/k")
    if [[ -z $left ]]; then ok; else fail "killed run left: $left"; fi
else
    echo "note: the run ended before it could be killed; the signal case was not tried"
fi
wait 2>/dev/null

# ---- --timing shows the stages and the wall total ---------------------------------------
if expect_cmd 0 "timing" env LIBSCAN_STREAM_CHUNK=64 "$prog" --device "$dev" --timing "$tmp/f4.npy" "$tmp/t.npy" --gt 0; then
    stages=(read compute write "total (wall)")
    [[ $dev == gpu ]] && stages+=(upload download)
    for s in "${stages[@]}"; do grep -q "  $s " "$tmp/err" || fail "timing: no '$s' line: $(cat "$tmp/err")"; done
    ok
fi

echo "# $checks cases checked against the reference ($dev)"
cli_finish "compact streamed ($dev)"
