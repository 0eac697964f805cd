#!/usr/bin/env bash
# test_compact_cli.sh -- the compact program on real files made here (text,
# .npy written byte by byte with printf, raw): every flag, every criterion,
# usage errors, malformed files (one line on stderr naming the file, exit 1,
# no output file), output directory missing, output == input refused.
# With a usable GPU it also checks that --device gpu writes the CPU's bytes.
#
#   test_compact_cli.sh COMPACT
set -uo pipefail

prog=$1
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
cli_init "$prog"

stdout_is() { [[ $(cat "$tmp/out") == "$2" ]] || fail "$1: stdout '$(cat "$tmp/out")', expected '$2'"; }
file_is() { # NAME FILE EXPECTED (lines joined by spaces)
    local got
    got=$(tr '\n' ' ' <"$2" | sed 's/ $//')
    [[ $got == "$3" ]] || fail "$1: $2 holds '$got', expected '$3'"
}

# ---- writing .npy files -----------------------------------------------------------
# le BYTES VALUE: VALUE (non-negative, < 2^63) as BYTES little-endian bytes.
le() {
    local n=$1 v=$2 i s=""
    for ((i = 0; i < n; i++)); do
        s+=$(printf '\\x%02x' $(((v >> (8 * i)) & 255)))
    done
    printf "$s"
}
# npy FILE DESCR SHAPE [VERSION]: writes a header (padded to 64 bytes, v1 by
# default, v2/v3 with a 4-byte length); the data is appended by the caller.
npy_header() {
    local file=$1 descr=$2 shape=$3 ver=${4:-1}
    local dict="{'descr': '$descr', 'fortran_order': False, 'shape': $shape, }"
    local pre=$((ver == 1 ? 10 : 12))
    local total=$(((pre + ${#dict} + 1 + 63) / 64 * 64))
    local pad=$((total - pre - ${#dict} - 1))
    {
        printf '\x93NUMPY'
        le 1 "$ver"
        le 1 0
        if ((ver == 1)); then le 2 $((total - pre)); else le 4 $((total - pre)); fi
        printf '%s%*s\n' "$dict" "$pad" ""
    } >"$file"
}
# npy_u32 FILE VALUES...: a 1-D <u4 file.
npy_u32() {
    local file=$1
    shift
    npy_header "$file" '<u4' "($#,)"
    local v
    for v in "$@"; do le 4 "$v"; done >>"$file"
}

# ---- usage ---------------------------------------------------------------------
printf '5\n1\n7\n2\n9\n3\n3\n' >"$tmp/a.txt"
expect 0 help --help && grep -q '^Usage: compact' "$tmp/out" || fail "help: no usage line"
grep -q -- '--indices' "$tmp/out" && grep -q 'uint64' "$tmp/out" || fail "help: --indices does not say uint64"
expect 0 version --version && grep -q 'libscan [0-9]*\.[0-9]*\.[0-9]*' "$tmp/out" || fail "version: no version"
expect 1 "no args" && one_line "no args" "no input file"
expect 1 "no criterion" "$tmp/a.txt" "$tmp/o.txt" && one_line "no criterion" "criterion"
expect 1 "no output" "$tmp/a.txt" --gt 1 && one_line "no output" "no output file"
expect 1 "two criteria" "$tmp/a.txt" "$tmp/o.txt" --gt 1 --unique && one_line "two criteria" --unique --gt
expect 1 "too many files" "$tmp/a.txt" "$tmp/o.txt" extra --gt 1 && one_line "too many files" extra
expect 1 "unknown option" "$tmp/a.txt" "$tmp/o.txt" --frobnicate && one_line "unknown option" --frobnicate
expect 1 "missing value" "$tmp/a.txt" "$tmp/o.txt" --gt && one_line "missing value" --gt
expect 1 "range one value" "$tmp/a.txt" "$tmp/o.txt" --range 1 && one_line "range one value" --range
expect 1 "bad device" "$tmp/a.txt" "$tmp/o.txt" --gt 1 --device tpu && one_line "bad device" tpu
expect 1 "bad format" "$tmp/a.txt" "$tmp/o.txt" --gt 1 --format xls && one_line "bad format" xls
expect 1 "bad out-format" "$tmp/a.txt" "$tmp/o.txt" --gt 1 --out-format xls && one_line "bad out-format" xls
expect 1 "bad dtype" "$tmp/a.txt" "$tmp/o.txt" --gt 1 --dtype int7 && one_line "bad dtype" int7
expect 1 "count with OUT" "$tmp/a.txt" "$tmp/o.txt" --count --gt 1 && one_line "count with OUT" --count
expect 1 "count with partition" "$tmp/a.txt" --count --partition --gt 1 && one_line "count with partition" --partition
expect 1 "partition unique" "$tmp/a.txt" "$tmp/o.txt" --partition --unique && one_line "partition unique" --partition
no_file usage "$tmp/o.txt"

# ---- every criterion on a text file (CPU) -------------------------------------------
c=(--device cpu --quiet)
check() { # NAME EXPECTED-OUTPUT EXPECTED-STDOUT ARGS...
    local name=$1 want=$2 want_stdout=$3
    shift 3
    rm -f "$tmp/o.txt"
    expect 0 "$name" "${c[@]}" "$tmp/a.txt" "$tmp/o.txt" "$@" && { file_is "$name" "$tmp/o.txt" "$want"; stdout_is "$name" "$want_stdout"; }
}
check gt "5 7 9" "kept 3 of 7" --gt 4
check ge "5 7 9" "kept 3 of 7" --ge 5
check "gt=" "5 7 9" "kept 3 of 7" --gt=4
check lt "1 2" "kept 2 of 7" --lt 3
check le "1 2 3 3" "kept 4 of 7" --le 3
check eq "3 3" "kept 2 of 7" --eq 3
check ne "5 1 7 2 9" "kept 5 of 7" --ne 3
check "ne negative" "5 1 7 2 9 3 3" "kept 7 of 7" --ne -3
check range "5 7 3 3" "kept 4 of 7" --range 3 7
check "range beyond 2^53" "" "kept 0 of 7" --range 9007199254740993 9007199254740995
check nonzero "5 1 7 2 9 3 3" "kept 7 of 7" --nonzero
check finite "5 1 7 2 9 3 3" "kept 7 of 7" --finite
check nan "" "kept 0 of 7" --nan
check unique "5 1 7 2 9 3" "kept 6 of 7" --unique
check partition "5 7 9 1 2 3 3" "kept 3 of 7
split 3" --gt 4 --partition
check indices "0 2 4" "kept 3 of 7" --gt 4 --indices
check "partition indices" "0 2 4 1 3 5 6" "kept 3 of 7
split 3" --gt 4 --partition --indices
expect 0 count "${c[@]}" "$tmp/a.txt" --count --gt 4 && stdout_is count 3
expect 0 "count unique" "${c[@]}" "$tmp/a.txt" --unique --count && stdout_is "count unique" 6
printf '1\n0\n0\n1\n1\n0\n-300\n' >"$tmp/flags.txt"
check flags "5 2 9 3" "kept 4 of 7" --flags "$tmp/flags.txt"
check "flags partition" "5 2 9 3 1 7 3" "kept 4 of 7
split 4" --flags "$tmp/flags.txt" --partition
rm -f "$tmp/o.txt"
printf '1\n0\n' >"$tmp/short.txt"
expect 1 "flags length" "${c[@]}" "$tmp/a.txt" "$tmp/o.txt" --flags "$tmp/short.txt" && one_line "flags length" short.txt
printf '1.5\n0\n' >"$tmp/fflags.txt"
expect 1 "float flags" "${c[@]}" "$tmp/a.txt" "$tmp/o.txt" --flags "$tmp/fflags.txt" && one_line "float flags" fflags.txt
expect 1 "missing flags" "${c[@]}" "$tmp/a.txt" "$tmp/o.txt" --flags "$tmp/nope.txt" && one_line "missing flags" nope.txt
expect 1 "range reversed" "${c[@]}" "$tmp/a.txt" "$tmp/o.txt" --range 7 3 && one_line "range reversed" --range
expect 1 "value not a number" "${c[@]}" "$tmp/a.txt" "$tmp/o.txt" --gt abc && one_line "value not a number" --gt abc
expect 1 "value not an integer" "${c[@]}" "$tmp/a.txt" "$tmp/o.txt" --gt 2.5 && one_line "value not an integer" --gt 2.5
no_file "bad values" "$tmp/o.txt"
printf '\x01\x00\x00\x01\x01\x00\x07' >"$tmp/flags.bin"
check "raw flags" "5 2 9 3" "kept 4 of 7" --flags "$tmp/flags.bin"

# Floats: NaN, signed zeros, infinities.
printf 'nan\nnan\n-0\n0\n1.5\ninf\n-inf\n1.5\n' >"$tmp/f.txt"
expect 0 "float unique" "${c[@]}" "$tmp/f.txt" "$tmp/fo.txt" --unique && stdout_is "float unique" "kept 6 of 8"
expect 0 "float nan" "${c[@]}" "$tmp/f.txt" "$tmp/fo.txt" --nan && stdout_is "float nan" "kept 2 of 8"
expect 0 "float finite" "${c[@]}" "$tmp/f.txt" "$tmp/fo.txt" --finite && stdout_is "float finite" "kept 4 of 8"
expect 0 "float eq zero" "${c[@]}" "$tmp/f.txt" "$tmp/fo.txt" --eq -0 && stdout_is "float eq zero" "kept 2 of 8"
expect 0 "float ne" "${c[@]}" "$tmp/f.txt" "$tmp/fo.txt" --ne 1.5 && stdout_is "float ne" "kept 6 of 8"
expect 0 "float nonzero" "${c[@]}" "$tmp/f.txt" "$tmp/fo.txt" --nonzero && stdout_is "float nonzero" "kept 6 of 8"
expect 1 "float nan value" "${c[@]}" "$tmp/f.txt" "$tmp/fo.txt" --gt nan && one_line "float nan value" --nan

# ---- .npy in, every output format, --format/--out-format/--dtype ------------------------
npy_u32 "$tmp/u.npy" 10 20 30 40 4294967295
expect 0 "npy gt" "${c[@]}" "$tmp/u.npy" "$tmp/uo.npy" --gt 15 && stdout_is "npy gt" "kept 4 of 5"
# Read our own output back (the .npy writer is apps/common's).
expect 0 "npy back" "${c[@]}" "$tmp/uo.npy" "$tmp/uo.txt" --ge 0 && file_is "npy back" "$tmp/uo.txt" "20 30 40 4294967295"
expect 0 "npy 2^32" "${c[@]}" "$tmp/u.npy" "$tmp/uo.txt" --lt 4294967296 && stdout_is "npy 2^32" "kept 5 of 5"
expect 1 "npy negative for unsigned" "${c[@]}" "$tmp/u.npy" "$tmp/uo.txt" --gt -1 && one_line "npy negative for unsigned" --gt u32
expect 0 "raw out" "${c[@]}" "$tmp/u.npy" "$tmp/uo.bin" --gt 15 && [[ $(stat -c %s "$tmp/uo.bin") == 16 ]] || fail "raw out: not 16 bytes"
expect 0 "raw in" "${c[@]}" --dtype uint32 "$tmp/uo.bin" "$tmp/uo2.txt" --le 30 && file_is "raw in" "$tmp/uo2.txt" "20 30"
expect 1 "raw without dtype" "${c[@]}" "$tmp/uo.bin" "$tmp/uo2.txt" --le 30 && one_line "raw without dtype" uo.bin
cp "$tmp/u.npy" "$tmp/u.dat"
expect 0 "--format npy" "${c[@]}" --format npy "$tmp/u.dat" "$tmp/x.out" --out-format text --eq 30 && file_is "--format npy" "$tmp/x.out" 30
expect 0 "indices npy" "${c[@]}" "$tmp/u.npy" "$tmp/ui.npy" --indices --gt 15 &&
    expect 0 "indices npy back" "${c[@]}" "$tmp/ui.npy" "$tmp/ui.txt" --ge 0 && file_is "indices npy" "$tmp/ui.txt" "1 2 3 4"
grep -qa "<u8" "$tmp/ui.npy" || fail "indices npy: not written as <u8"
npy_header "$tmp/v2.npy" '<u4' '(2,)' 2
le 4 7 >>"$tmp/v2.npy"; le 4 8 >>"$tmp/v2.npy"
expect 0 "npy v2" "${c[@]}" "$tmp/v2.npy" "$tmp/v2.txt" --gt 7 && file_is "npy v2" "$tmp/v2.txt" 8
npy_header "$tmp/big.npy" '>u4' '(2,)'
printf '\x00\x00\x00\x07\x00\x00\x01\x00' >>"$tmp/big.npy"
expect 0 "npy big endian" "${c[@]}" "$tmp/big.npy" "$tmp/big.txt" --gt 7 && file_is "npy big endian" "$tmp/big.txt" 256
npy_header "$tmp/u8.npy" '|u1' '(2,)'
printf '\x01\x02' >>"$tmp/u8.npy"
expect 1 "unsupported dtype" "${c[@]}" "$tmp/u8.npy" "$tmp/x.txt" --gt 1 && one_line "unsupported dtype" u8.npy uint8
no_file "unsupported dtype" "$tmp/x.txt"
npy_header "$tmp/m.npy" '<i4' '(2, 2)'
for v in 1 2 2 3; do le 4 $v >>"$tmp/m.npy"; done
expect 0 "2-D npy" --device cpu "$tmp/m.npy" "$tmp/m.txt" --unique && file_is "2-D npy" "$tmp/m.txt" "1 2 3"
grep -q 'note' "$tmp/err" || fail "2-D npy: no note about the shape"

# ---- malformed input: one line naming the file, exit 1, no output --------------------------
bad() { # NAME FILE
    rm -f "$tmp/bo.txt"
    expect 1 "$1" "${c[@]}" "$2" "$tmp/bo.txt" --gt 1 && one_line "$1" "$(basename "$2")"
    no_file "$1" "$tmp/bo.txt"
}
head -c 8 "$tmp/u.npy" >"$tmp/trunc_header.npy"; bad "truncated header" "$tmp/trunc_header.npy"
{ printf 'XNUMPY'; tail -c +7 "$tmp/u.npy"; } >"$tmp/magic.npy"; bad "bad magic" "$tmp/magic.npy"
npy_header "$tmp/descr.npy" '<c8' '(1,)'; le 8 0 >>"$tmp/descr.npy"; bad "bad dtype string" "$tmp/descr.npy"
npy_header "$tmp/f2.npy" '<u4' '(2, 2)'
sed -i 's/False/True /' "$tmp/f2.npy"; for v in 1 2 3 4; do le 4 $v >>"$tmp/f2.npy"; done; bad "fortran order" "$tmp/f2.npy"
npy_header "$tmp/short.npy" '<u4' '(5,)'; for v in 1 2 3; do le 4 $v >>"$tmp/short.npy"; done; bad "truncated data" "$tmp/short.npy"
npy_header "$tmp/long.npy" '<u4' '(1,)'; for v in 1 2; do le 4 $v >>"$tmp/long.npy"; done; bad "shape/size mismatch" "$tmp/long.npy"
: >"$tmp/empty.npy"; bad "empty file" "$tmp/empty.npy"
npy_header "$tmp/huge.npy" '<u4' '(9223372036854775807,)'; le 4 1 >>"$tmp/huge.npy"; bad "huge shape" "$tmp/huge.npy"
printf '1\nabc\n' >"$tmp/badtext.txt"; bad "bad text" "$tmp/badtext.txt"
printf '1\n2\n3\n' >"$tmp/odd.bin"; rm -f "$tmp/bo.txt"
expect 1 "raw size" "${c[@]}" --dtype uint32 "$tmp/odd.bin" "$tmp/bo.txt" --gt 1 && one_line "raw size" odd.bin
bad "missing input" "$tmp/nope.npy"

# ---- output rules ----------------------------------------------------------------------
expect 1 "missing directory" "${c[@]}" "$tmp/a.txt" "$tmp/nodir/o.txt" --gt 1 && one_line "missing directory" "$tmp/nodir"
cp "$tmp/a.txt" "$tmp/keep.txt"
expect 1 "output is input" "${c[@]}" "$tmp/keep.txt" "$tmp/keep.txt" --gt 1 && one_line "output is input" keep.txt
expect 1 "output is input (other name)" "${c[@]}" "$tmp/keep.txt" "$tmp/./keep.txt" --gt 1
expect 1 "output is flags" "${c[@]}" "$tmp/a.txt" "$tmp/flags.txt" --flags "$tmp/flags.txt"
cmp -s "$tmp/a.txt" "$tmp/keep.txt" || fail "output is input: the input changed"
printf 'old\n' >"$tmp/exists.txt"
expect 0 "replace output" "${c[@]}" "$tmp/a.txt" "$tmp/exists.txt" --gt 8 && file_is "replace output" "$tmp/exists.txt" 9
expect 0 "timing" --device cpu --timing "$tmp/a.txt" "$tmp/t.txt" --gt 1 && grep -q 'compute' "$tmp/err" || fail "timing: no compute phase"
expect 0 "empty input" "${c[@]}" "$tmp/uo2.txt" "$tmp/e.txt" --gt 100 && expect 0 "empty in" "${c[@]}" "$tmp/e.txt" "$tmp/e2.txt" --gt 0 --dtype uint32 &&
    stdout_is "empty in" "kept 0 of 0"

# ---- GPU agrees with the CPU byte for byte (only with a usable GPU) ---------------------
if "$prog" --device gpu --quiet "$tmp/a.txt" --count --gt 1 >/dev/null 2>&1; then
    awk 'BEGIN { srand(7); for (i = 0; i < 100000; i++) print int(rand() * 1000) - 500 }' >"$tmp/r.txt"
    "$prog" --device cpu --quiet "$tmp/r.txt" "$tmp/r.bin" --ge -1000000 >/dev/null || fail "gpu: making raw input"
    for args in "--gt 0" "--range -10 10" "--unique" "--flags $tmp/r.txt" "--lt 100 --partition" "--ne 3 --indices" \
        "--nonzero --partition --indices"; do
        # shellcheck disable=SC2086
        "$prog" --device cpu --quiet --dtype int64 "$tmp/r.bin" "$tmp/cpu.bin" $args >"$tmp/cpu.out" || fail "gpu: cpu run $args"
        # shellcheck disable=SC2086
        "$prog" --device gpu --quiet --dtype int64 "$tmp/r.bin" "$tmp/gpu.bin" $args >"$tmp/gpu.out" || fail "gpu: gpu run $args"
        cmp -s "$tmp/cpu.bin" "$tmp/gpu.bin" || fail "gpu: output differs from the CPU's for $args"
        cmp -s "$tmp/cpu.out" "$tmp/gpu.out" || fail "gpu: summary differs from the CPU's for $args"
    done
else
    echo "note: no usable GPU; --device gpu comparisons not run" >&2
    expect 2 "device gpu without GPU" "$tmp/a.txt" "$tmp/g.txt" --gt 1 --device gpu && one_line "device gpu without GPU" "--device gpu"
fi

# ---- option forms (issue 21, item 4): getopt_long in every spelling -----------------
# a.txt holds 5 1 7 2 9 3 3.
forms() { # NAME EXPECTED-OUTPUT-FILE-CONTENT ARGS... (OUT is $tmp/f.txt or given in ARGS)
    local name=$1 want=$2
    shift 2
    rm -f "$tmp/f.txt"
    expect 0 "$name" "$@" && file_is "$name" "$tmp/f.txt" "$want"
}
forms "--gt=V" "5 7 9" --device=cpu --quiet "$tmp/a.txt" "$tmp/f.txt" --gt=4
forms "--gt V, options first" "5 7 9" --device cpu --quiet --gt 4 "$tmp/a.txt" "$tmp/f.txt"
forms "options between files" "5 7 9" "$tmp/a.txt" --gt 4 --device cpu "$tmp/f.txt" --quiet
forms "--gt negative value" "5 1 7 2 9 3 3" --device cpu --quiet "$tmp/a.txt" "$tmp/f.txt" --gt -3
forms "--range LO HI first" "5 7 3 3" --range 3 7 --device cpu --quiet "$tmp/a.txt" "$tmp/f.txt"
forms "--range negative" "1 2" --device cpu --quiet "$tmp/a.txt" "$tmp/f.txt" --range -2 2
forms "--range=LO HI" "5 7 3 3" --device cpu --quiet "$tmp/a.txt" "$tmp/f.txt" --range=3 7
cp "$tmp/a.txt" "$tmp/-a.txt"
in_tmp() { (cd "$tmp" && "$@"); }
rm -f "$tmp/-f.txt"
expect_cmd 0 "-- then files named -a.txt -f.txt" in_tmp "$prog" --device cpu --quiet --gt 4 -- -a.txt -f.txt &&
    file_is "--" "$tmp/-f.txt" "5 7 9"
expect_cmd 1 "-a.txt without --" in_tmp "$prog" --device cpu --gt 4 -a.txt f.txt && one_line "-a.txt without --" "'-a'"
expect 1 "unknown short option" "$tmp/a.txt" "$tmp/f.txt" --gt 4 -x && one_line "unknown short option" "'-x'"
expect 1 "flag with a value" "$tmp/a.txt" "$tmp/f.txt" --gt 4 --quiet=yes && one_line "flag with a value" "--quiet"
expect 1 "unknown option with =" "$tmp/a.txt" "$tmp/f.txt" --gt 4 --frob=3 && one_line "unknown option with =" "--frob"
expect 0 "-h" -h && grep -q '^Usage: compact' "$tmp/out" || fail "-h: no usage line"

# ---- OUT "-": standard output holds the data alone (issue 21, item 3) ---------------
if expect 0 "OUT - text" --device cpu --quiet "$tmp/a.txt" - --ge 0 --out-format text; then
    stdout_is "OUT -: stdout is the data only" "5
1
7
2
9
3
3"
    grep -q "kept 7 of 7" "$tmp/err" || fail "OUT -: the summary is not on stderr: $(cat "$tmp/err")"
fi
if expect 0 "OUT - partition" --device cpu --quiet "$tmp/a.txt" - --gt 4 --partition --out-format text; then
    stdout_is "OUT - --partition: stdout is the data only" "5
7
9
1
2
3
3"
    grep -q "split 3" "$tmp/err" || fail "OUT - --partition: 'split 3' is not on stderr: $(cat "$tmp/err")"
fi
# Binary data on stdout: exactly the bytes of the same file written to disk.
if expect 0 "OUT - npy file" --device cpu --quiet "$tmp/a.txt" "$tmp/s.npy" --gt 1; then
    if expect 0 "OUT - npy stream" --device cpu --quiet "$tmp/a.txt" - --gt 1 --out-format npy; then
        cmp -s "$tmp/out" "$tmp/s.npy" || fail "OUT - npy: stdout differs from the file's bytes"
    fi
fi

# ---- a device is written in place, and a full disk is exit 2 (issue 21, item 3) ----
# (a private node of /dev/full's kind, 1 7, so a regression cannot harm /dev/full)
if mknod "$tmp/full" c 1 7 2>/dev/null; then
    printf '1\n5\n3\n' >"$tmp/full_in.txt"
    expect 2 "OUT = a full device" "$tmp/full_in.txt" "$tmp/full" --out-format text --gt 2 --device cpu && one_line "OUT = a full device" "$tmp/full"
    [[ -c $tmp/full ]] || fail "the full device was replaced by a file"
fi

cli_finish "compact CLI"
