#!/usr/bin/env bash
# test_cli.sh -- command-line checks of scan_demo: usage, bad input, exit
# statuses and results. Needs no GPU; with one, it also checks that the GPU
# and the CPU agree where they must (integers, min/max).
#
#   test_cli.sh SCAN_DEMO SAMPLE_FILE
set -euo pipefail

demo=$1
sample=$2
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../../support/cli_lib.sh"
cli_init "$demo"

same_output() { # NAME EXPECTED (lines joined by spaces)
    local got
    got=$(tr '\n' ' ' <"$tmp/out" | sed 's/ $//')
    [[ $got == "$2" ]] || fail "$1: printed '$got', expected '$2'"
}

# --- usage -----------------------------------------------------------------
if expect 0 help -- --help; then
    grep -q '^Usage: scan_demo' "$tmp/out" || fail "help: no usage line"
fi
if expect 0 version -- --version; then
    grep -q 'libscan [0-9]*\.[0-9]*\.[0-9]*' "$tmp/out" || fail "version: no version"
fi
expect 1 "no file" -- && one_line "no file" "FILE"
expect 1 "two files" -- a.txt b.txt && one_line "two files" a.txt b.txt
expect 1 "unknown option" -- --frobnicate x && one_line "unknown option" --frobnicate
expect 1 "bad op" -- --op avg x && one_line "bad op" avg
expect 1 "bad device" -- --device tpu x && one_line "bad device" tpu
expect 1 "op without value" -- --op && one_line "op without value" --op

# --- bad input ---------------------------------------------------------------
expect 1 "missing file" -- "$tmp/nope.txt" && one_line "missing file" "$tmp/nope.txt"
printf '1\n2\n\nabc\n' >"$tmp/bad.txt"
expect 1 "non-numeric line" -- "$tmp/bad.txt" && one_line "non-numeric line" "bad.txt:4" abc
printf '1.5\n2e999\n' >"$tmp/range.txt"
expect 1 "out of range" -- --device cpu "$tmp/range.txt" && one_line "out of range" "range.txt:2"
printf '1\n2\0\n' >"$tmp/nul.txt"
expect 1 "NUL byte" -- "$tmp/nul.txt" && one_line "NUL byte" "nul.txt:2"

# --- results on the CPU ----------------------------------------------------------
printf '3\n-1\n\n 4 \n1\r\n-5\n' >"$tmp/ints.txt"
expect 0 "sum" -- --device cpu "$tmp/ints.txt" && same_output sum "3 2 6 7 2"
expect 0 "exclusive sum" -- --device cpu --exclusive "$tmp/ints.txt" && same_output "exclusive sum" "0 3 2 6 7"
expect 0 "min" -- --device=cpu --op=min "$tmp/ints.txt" && same_output min "3 -1 -1 -1 -5"
expect 0 "max" -- --device cpu --op max "$tmp/ints.txt" && same_output max "3 3 4 4 4"
expect 0 "exclusive max" -- --device cpu --op max --exclusive "$tmp/ints.txt" &&
    same_output "exclusive max" "-9223372036854775808 3 3 4 4"
printf '0.5\n0.25\n-1\n' >"$tmp/f64.txt"
expect 0 "f64 sum" -- --device cpu "$tmp/f64.txt" && same_output "f64 sum" "0.5 0.75 -0.25"
printf '9223372036854775807\n1\n' >"$tmp/wrap.txt"
expect 0 "i64 wraps" -- --device cpu "$tmp/wrap.txt" && same_output "i64 wraps" "9223372036854775807 -9223372036854775808"
: >"$tmp/empty.txt"
expect 0 "empty file" -- --device cpu "$tmp/empty.txt" && same_output "empty file" ""
expect 0 "stdin" -- --device cpu - <"$tmp/ints.txt" && same_output stdin "3 2 6 7 2"
if expect 0 "sample" -- --device cpu "$sample"; then
    [[ $(wc -l <"$tmp/out") == $(grep -c . "$sample") ]] || fail "sample: not one output line per input line"
fi

# --- option forms (issue 21, item 4): getopt_long in every spelling -------------
expect 0 "options after FILE" -- "$tmp/ints.txt" --op max --device cpu && same_output "options after FILE" "3 3 4 4 4"
expect 0 "--opt=value" -- --op=min --device=cpu "$tmp/ints.txt" && same_output "--opt=value" "3 -1 -1 -1 -5"
cp "$tmp/ints.txt" "$tmp/-ints.txt"
in_tmp() { (cd "$tmp" && "$@"); }
if expect_cmd 0 "-- then a file named -ints.txt" in_tmp "$demo" --device cpu -- -ints.txt; then
    same_output "--" "3 2 6 7 2"
fi
expect_cmd 1 "-ints.txt without --" in_tmp "$demo" --device cpu -ints.txt && one_line "-ints.txt without --" "'-i'"
expect 0 "- after --" -- --device cpu -- - <"$tmp/ints.txt" && same_output "- after --" "3 2 6 7 2"
expect 1 "unknown short option" -- -x "$tmp/ints.txt" && one_line "unknown short option" "'-x'"
expect 1 "flag with a value" -- --exclusive=1 "$tmp/ints.txt" && one_line "flag with a value" "--exclusive"
expect 1 "unknown option with =" -- --frob=1 "$tmp/ints.txt" && one_line "unknown option with =" "--frob"
expect 1 "device without value" -- "$tmp/ints.txt" --device && one_line "device without value" "--device"
if expect 0 "-h" -- -h; then grep -q '^Usage: scan_demo' "$tmp/out" || fail "-h: no usage line"; fi

# --- default device: the GPU, or the CPU with one note ----------------------------
if expect 0 "auto device" -- --op max "$sample"; then
    cp "$tmp/out" "$tmp/auto.txt"
    notes=$(grep -c 'no usable GPU (.*); running on the CPU' "$tmp/err" || true)
    "$demo" --device cpu --op max "$sample" >"$tmp/cpu.txt"
    cmp -s "$tmp/auto.txt" "$tmp/cpu.txt" || fail "auto device: max differs from the CPU's"
    if [[ $notes == 0 ]]; then
        echo "GPU present: checking GPU against CPU"
        for args in "--op sum" "--op min --exclusive" "--op max"; do
            # shellcheck disable=SC2086
            "$demo" --device gpu $args "$tmp/ints.txt" >"$tmp/g.txt" || fail "gpu $args: exit $?"
            # shellcheck disable=SC2086
            "$demo" --device cpu $args "$tmp/ints.txt" >"$tmp/c.txt"
            cmp -s "$tmp/g.txt" "$tmp/c.txt" || fail "gpu $args: differs from the CPU"
        done
    else
        echo "no GPU: checking the CPU fallback"
        [[ $notes == 1 && $(wc -l <"$tmp/err") == 1 ]] || fail "auto device: expected one note on stderr: $(cat "$tmp/err")"
        expect 2 "forced gpu without GPU" -- --device gpu "$sample" && one_line "forced gpu" "GPU"
    fi
fi

cli_finish "scan_demo CLI"
