#!/usr/bin/env bash
# test_radixsort_ooc_cli.sh -- radixsort's out-of-core sort (issue 21): an
# input over --mem-limit is cut into chunks, each chunk sorted and spilled as
# a run, and the runs merged by several threads (RADIXSORT_MERGE_THREADS
# forces the count). Every key dtype, both directions, --unique, --argsort,
# --values of several widths, equal keys in every run (stability), runs of one
# record, thread counts from 1 to more than the records of a part, text and
# raw files. Each result is checked against tests/support/array_ref.py (an
# independent sort in stdlib Python) and byte for byte against the program's
# in-memory path. Failures (a bad RADIXSORT_MERGE_THREADS, an unusable TMPDIR,
# a spill over the file size limit, SIGTERM) give one line and the
# documented exit status, and leave no temporary file and every old file.
#
#   test_radixsort_ooc_cli.sh RADIXSORT [--gpu]
# Without --gpu everything runs on the CPU (--device cpu). With --gpu the
# chunks are sorted with --device gpu (every dtype, direction and mode; the
# merge is the same): exit 77, skipped, where there is no usable GPU.
set -u
RS=${1:?usage: test_radixsort_ooc_cli.sh RADIXSORT [--gpu]}
DEVICE=cpu
[[ ${2-} == --gpu ]] && DEVICE=gpu
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
cli_ref_init "$RS"
ok() { echo "ok: $*"; }
cli_require_gpu "$DEVICE" "the --device gpu cases of the out-of-core sort" \
    "$RS" "$tmp/probe.txt" -o "$tmp/probe_out.txt" --device gpu --quiet
# The runs go to $spill (TMPDIR), which must be empty after every run.
spill=$tmp/spill
mkdir -p "$spill"
export TMPDIR=$spill

# sort_case NAME LIMIT THREADS IN VALS FLAGS...: sorts IN (with the values
# file VALS, or none for "-") with the program flags FLAGS (-r, -u,
# --argsort) under --mem-limit LIMIT on THREADS merge threads. It must say
# that it merged chunks, match sort_ref.py, and match the in-memory sort of
# the same arguments byte for byte (keys and values).
sort_case() {
    local name=$1 limit=$2 threads=$3 in=$4 vals=$5
    shift 5
    local cv=() mv=() refv=() refflags=() f why
    if [[ $vals != - ]]; then
        cv=(--values "$vals" --values-out "$tmp/cv.npy")
        mv=(--values "$vals" --values-out "$tmp/mv.npy")
        refv=("values=$vals,$tmp/cv.npy")
    fi
    for f in "$@"; do
        case $f in
        -r) refflags+=(desc) ;;
        -u) refflags+=(unique) ;;
        --argsort) refflags+=(argsort) ;;
        esac
    done
    rm -f "$tmp/c.npy" "$tmp/cv.npy" "$tmp/m.npy" "$tmp/mv.npy"
    expect_cmd 0 "$name" env RADIXSORT_MERGE_THREADS="$threads" "$RS" "$in" -o "$tmp/c.npy" "${cv[@]}" "$@" \
        --mem-limit "$limit" --device "$DEVICE" || return 0
    local chunks
    chunks=$(grep -Eo "sorted [0-9]+ chunks" "$tmp/err")
    [[ $chunks =~ ^sorted\ ([2-9]|[1-9][0-9]+)\ chunks$ ]] || {
        fail "$name: not sorted in chunks: $(cat "$tmp/err")"
        return 0
    }
    if ! why=$(ref sort "$in" "$tmp/c.npy" "${refflags[@]}" "${refv[@]}" 2>&1); then
        fail "$name: differs from the reference: $why"
        return 0
    fi
    expect_cmd 0 "$name (in memory)" "$RS" "$in" -o "$tmp/m.npy" "${mv[@]}" "$@" --device "$DEVICE" --quiet || return 0
    cmp -s "$tmp/c.npy" "$tmp/m.npy" || fail "$name: keys differ from the in-memory sort"
    [[ $vals == - ]] || cmp -s "$tmp/cv.npy" "$tmp/mv.npy" || fail "$name: values differ from the in-memory sort"
    [[ -z $(ls -A "$spill") ]] || fail "$name: files left in TMPDIR: $(ls -A "$spill")"
    ok "$name ($chunks, $threads threads)"
}

N=20011 # prime: no chunk, window or part divides it
ref make "$tmp/iota8.npy" '<i8' iota $N 0
ref make "$tmp/iota4.npy" '<u4' iota $N 0
ref make "$tmp/v1.npy" '|u1' rand $N "$SEED"
ref make "$tmp/v2.npy" '<f2' rand $N "$SEED"

# --- every key dtype: random keys, and runs of equal keys from a small
# alphabet (every run holds many equal keys: ties across runs) ---------------
for d in '|u1' '|i1' '|b1' '<u2' '<i2' '<u4' '<i4' '<u8' '<i8' '<f4' '<f8' '>u4' '>f8'; do
    ref make "$tmp/r.npy" "$d" rand $N "$SEED"
    sort_case "$d random" 20000 1 "$tmp/r.npy" -
    sort_case "$d random -r" 20000 3 "$tmp/r.npy" - -r
    ref make "$tmp/d.npy" "$d" runs $N "$SEED"
    sort_case "$d equal keys, i8 values (stable)" 20000 2 "$tmp/d.npy" "$tmp/iota8.npy"
    sort_case "$d equal keys -r, u4 values (stable)" 30000 5 "$tmp/d.npy" "$tmp/iota4.npy" -r
    sort_case "$d equal keys -u" 20000 4 "$tmp/d.npy" - -u
    sort_case "$d equal keys -r -u, u1 values" 20000 7 "$tmp/d.npy" "$tmp/v1.npy" -r -u
    sort_case "$d equal keys --argsort" 20000 3 "$tmp/d.npy" - --argsort
    sort_case "$d equal keys -r --argsort, f2 values" 40000 16 "$tmp/d.npy" "$tmp/v2.npy" -r --argsort
done

# --- floats: NaNs of both signs and with payloads, infinities, -0.0 and +0.0,
# denormals (a fifth of array_ref's rand floats), in every run ---------------
for d in '<f4' '<f8'; do
    ref make "$tmp/s.npy" "$d" rand $N "$SEED"
    sort_case "$d NaN/inf/-0.0" 20000 2 "$tmp/s.npy" "$tmp/iota8.npy"
    sort_case "$d NaN/inf/-0.0 -r" 20000 3 "$tmp/s.npy" "$tmp/iota8.npy" -r
    sort_case "$d NaN/inf/-0.0 -u (-0.0 and +0.0 distinct)" 20000 4 "$tmp/s.npy" - -u
    sort_case "$d NaN/inf/-0.0 -r -u --argsort" 20000 5 "$tmp/s.npy" - -r -u --argsort
done

# --- run shapes -------------------------------------------------------------
ref make "$tmp/same.npy" '<u4' same $N "$SEED"
sort_case "one key throughout, values (ties all across the runs)" 20000 4 "$tmp/same.npy" "$tmp/iota8.npy"
sort_case "one key throughout -r -u" 20000 4 "$tmp/same.npy" "$tmp/iota8.npy" -r -u
ref make "$tmp/asc.npy" '<i4' sorted $N "$SEED"
sort_case "sorted input (runs do not overlap)" 20000 3 "$tmp/asc.npy" "$tmp/iota4.npy"
sort_case "sorted input -r (runs in reverse)" 20000 3 "$tmp/asc.npy" "$tmp/iota4.npy" -r
ref make "$tmp/desc.npy" '<f8' rsorted $N "$SEED"
sort_case "descending input" 20000 2 "$tmp/desc.npy" -
ref make "$tmp/tiny.npy" '<u4' runs 3001 "$SEED"
ref make "$tmp/tinyv.npy" '<i8' iota 3001 0
sort_case "runs of one record (--mem-limit 1: 3001 runs)" 1 3 "$tmp/tiny.npy" "$tmp/tinyv.npy"
sort_case "runs of one record -u" 1 2 "$tmp/tiny.npy" "$tmp/tinyv.npy" -u
ref make "$tmp/two.npy" '<u4' rand 1177 "$SEED"
sort_case "a last run of one record" 20000 4 "$tmp/two.npy" - # 1176 keys a chunk
ref make "$tmp/d4.npy" '<i4' runs $N "$SEED"
for t in 1 2 3 8 64; do
    sort_case "threads: $t" 7000 "$t" "$tmp/d4.npy" "$tmp/iota8.npy" -r
done
ref make "$tmp/big.npy" '<u8' rand 150001 "$SEED"
ref make "$tmp/bigv.npy" '<u4' iota 150001 0
sort_case "150001 u64 keys, several windows of many parts" 400000 6 "$tmp/big.npy" "$tmp/bigv.npy"
# Runs over 16 MiB: the spill crosses its 4 MiB stripes, over 4 files.
ref make "$tmp/huge.npy" '<u8' runs 700001 "$SEED"
ref make "$tmp/hugev.npy" '<i8' iota 700001 0
sort_case "700001 u64 keys and positions, --argsort too: 17 MB of runs striped over 4 files" 4000000 4 "$tmp/huge.npy" "$tmp/hugev.npy" --argsort

# What follows is the same on either device: the CPU half only.
if [[ $DEVICE == gpu ]]; then
    cli_finish "radixsort out-of-core CLI (--device gpu)"
fi

# --- text and raw files: the same bytes as in memory, and sorted -------------
python3 -c "
import random, sys
r = random.Random(int(sys.argv[2]))
open(sys.argv[1], 'w').write(''.join('%d\n' % r.randrange(-300, 300) for _ in range(9001)))" "$tmp/k.txt" "$SEED"
for flags in "" "-r" "-u" "-r -u"; do
    # shellcheck disable=SC2086
    expect_cmd 0 "text $flags" env RADIXSORT_MERGE_THREADS=3 "$RS" "$tmp/k.txt" -o "$tmp/c.txt" $flags --mem-limit 9000 --device cpu &&
        grep -q "chunks" "$tmp/err" &&
        # shellcheck disable=SC2086
        expect_cmd 0 "text $flags (in memory)" "$RS" "$tmp/k.txt" -o "$tmp/m.txt" $flags --device cpu &&
        { cmp -s "$tmp/c.txt" "$tmp/m.txt" && ok "text $flags: as in memory" || fail "text $flags: differs from the in-memory sort"; }
done
expect_cmd 0 "text ascending" "$RS" "$tmp/k.txt" -o "$tmp/c.txt" --mem-limit 9000 --device cpu &&
    { cmp -s <(sort -n "$tmp/k.txt") "$tmp/c.txt" && ok "text: equals sort -n" || fail "text: differs from sort -n"; }
expect_cmd 0 "text -u" "$RS" "$tmp/k.txt" -u -o "$tmp/c.txt" --mem-limit 9000 --device cpu &&
    { cmp -s <(sort -nu "$tmp/k.txt") "$tmp/c.txt" && ok "text -u: equals sort -nu" || fail "text -u: differs from sort -nu"; }
tail -c +129 "$tmp/big.npy" >"$tmp/big.bin" # the .npy's 128-byte header off: raw u64
expect_cmd 0 "raw --dtype uint64" env RADIXSORT_MERGE_THREADS=4 "$RS" "$tmp/big.bin" --dtype uint64 -o "$tmp/c.bin" --mem-limit 400000 --device cpu &&
    expect_cmd 0 "raw --dtype uint64 (in memory)" "$RS" "$tmp/big.bin" --dtype uint64 -o "$tmp/m.bin" --device cpu &&
    { cmp -s "$tmp/c.bin" "$tmp/m.bin" && ok "raw: as in memory" || fail "raw: differs from the in-memory sort"; }
expect_cmd 0 "-o - (stdout)" env RADIXSORT_MERGE_THREADS=2 "$RS" "$tmp/k.txt" -o - --format text --mem-limit 9000 --device cpu &&
    { cmp -s <(sort -n "$tmp/k.txt") "$tmp/out" && ok "-o -: sorted text on stdout" || fail "-o -: differs from sort -n"; }

# --- failures -----------------------------------------------------------------
ref make "$tmp/f.npy" '<u4' rand $N "$SEED"
cp "$tmp/iota4.npy" "$tmp/old.npy"
for bad in 0 -1 x 2k 100000 ''; do
    expect_cmd 1 "RADIXSORT_MERGE_THREADS='$bad'" env RADIXSORT_MERGE_THREADS="$bad" "$RS" "$tmp/f.npy" -o "$tmp/old.npy" --mem-limit 20000 --device cpu &&
        one_line "RADIXSORT_MERGE_THREADS='$bad'" RADIXSORT_MERGE_THREADS && no_file "RADIXSORT_MERGE_THREADS='$bad'" "" &&
        { cmp -s "$tmp/old.npy" "$tmp/iota4.npy" && ok "RADIXSORT_MERGE_THREADS='$bad': exit 1, $(cat "$tmp/err")" || fail "RADIXSORT_MERGE_THREADS='$bad': old output changed"; }
done
expect_cmd 2 "TMPDIR missing" env TMPDIR="$tmp/nodir" "$RS" "$tmp/f.npy" -o "$tmp/old.npy" --mem-limit 20000 --device cpu &&
    one_line "TMPDIR missing" "$tmp/nodir" "temporary" && no_file "TMPDIR missing" "" &&
    { cmp -s "$tmp/old.npy" "$tmp/iota4.npy" && ok "TMPDIR missing: exit 2, $(cat "$tmp/err")" || fail "TMPDIR missing: old output changed"; }
# The spill over the file size limit (the runs are 80 KB, the limit 40 KB;
# SIGXFSZ ignored, so the write fails with EFBIG).
limited() { (trap '' XFSZ; ulimit -f "$1"; shift; exec "$@"); }
expect_cmd 2 "spill over the file size limit" limited 40 "$RS" "$tmp/f.npy" -o "$tmp/old.npy" --mem-limit 20000 --device cpu &&
    one_line "spill over the file size limit" "temporary file" "$spill" && no_file "spill over the file size limit" "" &&
    { cmp -s "$tmp/old.npy" "$tmp/iota4.npy" && ok "spill fails: exit 2, $(cat "$tmp/err")" || fail "spill fails: old output changed"; }
# SIGTERM at some point of a longer sort: the output is either the old file
# or the complete sorted one (the signal may land after the rename that
# publishes it), never anything between, and no temporary file is left,
# neither beside the output nor in TMPDIR.
ref make "$tmp/sig.npy" '<u4' rand 2097152 "$SEED"
"$RS" "$tmp/sig.npy" -o "$tmp/sig_sorted.npy" --device cpu --quiet
for delay in 0.05 0.2 0.5; do
    cp "$tmp/iota4.npy" "$tmp/sigout.npy"
    RADIXSORT_MERGE_THREADS=1 "$RS" "$tmp/sig.npy" -o "$tmp/sigout.npy" --mem-limit 2000000 --device cpu --quiet 2>"$tmp/err" &
    pid=$!
    sleep "$delay"
    kill -TERM "$pid" 2>/dev/null
    status=0
    wait "$pid" || status=$?
    no_file "SIGTERM after ${delay}s" ""
    [[ -z $(ls -A "$spill") ]] || fail "SIGTERM after ${delay}s: files left in TMPDIR: $(ls -A "$spill")"
    if [[ $status != 143 && $status != 0 ]]; then
        fail "SIGTERM after ${delay}s: exit status $status: $(cat "$tmp/err")"
    elif cmp -s "$tmp/sigout.npy" "$tmp/iota4.npy"; then
        [[ $status == 143 ]] && ok "SIGTERM after ${delay}s: killed, old output kept, no temporary file" ||
            fail "SIGTERM after ${delay}s: exit 0 but the old output is still there"
    elif cmp -s "$tmp/sigout.npy" "$tmp/sig_sorted.npy"; then
        ok "SIGTERM after ${delay}s: exit $status, the output complete and sorted, no temporary file"
    else
        fail "SIGTERM after ${delay}s: exit $status, the output is neither the old file nor the sorted one"
    fi
done
[[ -z $(ls -A "$spill") ]] || fail "failures left files in TMPDIR: $(ls -A "$spill")"

cli_finish "radixsort out-of-core CLI"
