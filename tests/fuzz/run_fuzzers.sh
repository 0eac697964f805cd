#!/usr/bin/env bash
# run_fuzzers.sh -- runs each libFuzzer harness (fuzz_npy, fuzz_text, fuzz_png)
# for a while, one after the other, starting from its committed corpus.
#
#   bash tests/fuzz/run_fuzzers.sh BIN_DIR [SECONDS_EACH] [WORK_DIR]
#
# BIN_DIR: the folder holding the fuzz_* binaries (build-fuzz for the
# stand-alone build, build/tests/fuzz inside a clang build of libscan).
# SECONDS_EACH: default 20. WORK_DIR (default BIN_DIR/fuzz-work): new inputs
# that reached new code go to WORK_DIR/corpus/<reader>/ (kept between runs, so
# later runs start further on; never written into the committed corpus), and
# any input that crashed, leaked, ran out of memory or took longer than 25 s
# to WORK_DIR/findings/<reader>/.
#
# Exit status 0 when no fuzzer found anything; 1 otherwise (each finding is
# named with the command that replays it). libFuzzer stops at its first
# finding, so every reader gets its turn however the others fare.
set -uo pipefail

bin=${1:?usage: run_fuzzers.sh BIN_DIR [SECONDS_EACH] [WORK_DIR]}
secs=${2:-20}
work=${3:-$bin/fuzz-work}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "run_fuzzers: SECONDS_EACH must be a positive integer, not '$secs'" >&2; exit 2; }

failed=()
for r in npy text png; do
    fuzzer=$bin/fuzz_$r
    if [[ ! -x $fuzzer ]]; then
        echo "run_fuzzers: $fuzzer is missing (build with clang and LIBSCAN_FUZZ=ON: tests/fuzz/README.md)" >&2
        exit 2
    fi
    mkdir -p "$work/corpus/$r" "$work/findings/$r"
    echo "run_fuzzers: fuzz_$r for $secs s (seeds: tests/fuzz/corpus/$r)" >&2
    # -timeout: an input slower than 25 s is a hang (a finding);
    # -malloc_limit_mb: one allocation over 64 MiB is one too (fuzz_support.c
    # says why). -max_len:
    # room for inputs larger than the seeds. UBSan stops at its first report
    # (the harnesses are built with -fno-sanitize-recover=all).
    if ! ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
        "$fuzzer" -max_total_time="$secs" -timeout=25 -malloc_limit_mb=64 -max_len=8192 -print_final_stats=1 \
        -dict="$here/$r.dict" -artifact_prefix="$work/findings/$r/" \
        "$work/corpus/$r" "$here/corpus/$r"; then
        failed+=("$r")
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    for r in "${failed[@]}"; do
        for f in "$work/findings/$r"/*; do
            [[ -e $f ]] && echo "run_fuzzers: FINDING in the $r reader: $f (replay: $bin/fuzz_$r $f)" >&2
        done
    done
    echo "run_fuzzers: findings in: ${failed[*]}" >&2
    exit 1
fi
echo "run_fuzzers: no findings (npy, text, png; $secs s each)" >&2
