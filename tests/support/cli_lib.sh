# shellcheck shell=bash
# cli_lib.sh -- helpers shared by the programs' command-line test scripts
# (apps/scan_demo/test_cli.sh, tests/*/test_*_cli.sh). Sourced, not run:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/../support/cli_lib.sh"
#   cli_init "$prog"          # program under test; makes $tmp, zeroes $failures
#   expect 1 "bad flag" -- --frobnicate && one_line "bad flag" --frobnicate
#   ...
#   cli_finish "compact CLI"  # exit 1 when anything failed, else 0
#
# Works under `set -euo pipefail`: a helper returns nonzero only where the
# comment says so (use it in `&&`/`if` then, as the scripts do).

# cli_init PROG: PROG is what expect runs. Sets $tmp (a fresh folder,
# removed on exit) and $failures (0).
cli_init() {
    cli_prog=$1
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064 # expand $tmp now: the trap must remove this folder
    trap "rm -rf '$tmp'" EXIT
    failures=0
}

# cli_ref_init PROG: the start of the scripts checked against
# tests/support/array_ref.py: skips (exit 77) without python3, cli_init PROG,
# sets $REF and ref() (the reference), and $SEED (LIBSCAN_TEST_SEED when set,
# printed so that a run can be replayed).
cli_ref_init() {
    command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the reference"; exit 77; }
    cli_init "$1"
    REF="$(dirname "${BASH_SOURCE[0]}")/array_ref.py"
    SEED=${LIBSCAN_TEST_SEED:-$RANDOM$RANDOM}
    echo "# seed $SEED (LIBSCAN_TEST_SEED=$SEED replays)"
}
ref() { python3 "$REF" "$@"; }

# cli_require_gpu MODE WHAT CMD...: with MODE gpu, runs CMD (a small job with
# --device gpu; $tmp/probe.txt holds two numbers for it) and, when it fails,
# skips the script (exit 77) saying that WHAT were not run, or fails it
# under LIBSCAN_REQUIRE_GPU=1 (GPU runs: a missing GPU is a failure). Does
# nothing for another MODE.
cli_require_gpu() {
    local mode=$1 what=$2
    shift 2
    [[ $mode == gpu ]] || return 0
    printf '2\n1\n' >"$tmp/probe.txt"
    if ! "$@" >"$tmp/out" 2>"$tmp/err"; then
        echo "SKIP: no usable GPU: $what were not run ($(head -1 "$tmp/err"))"
        [[ ${LIBSCAN_REQUIRE_GPU-} == 1 ]] && exit 1
        exit 77
    fi
    return 0
}

# fail MESSAGE...: reports one failed check on stderr and counts it.
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# expect_cmd STATUS NAME CMD...: runs CMD with stdout in $tmp/out and stderr
# in $tmp/err; a status other than STATUS is a failure. Returns 1 then.
expect_cmd() {
    local want=$1 name=$2
    shift 2
    local got=0
    "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
    if [[ $got != "$want" ]]; then
        fail "$name: exit status $got, expected $want (stderr: $(head -c 400 "$tmp/err"))"
        return 1
    fi
}

# expect STATUS NAME [--] ARGS...: expect_cmd with the program of cli_init.
# The `--` only separates the check from the program's arguments and is
# dropped (write `-- --` to pass a `--` of its own).
expect() {
    local want=$1 name=$2
    shift 2
    if [[ ${1-} == -- ]]; then shift; fi
    expect_cmd "$want" "$name" "$cli_prog" "$@"
}

# one_line NAME [STRING...]: stderr ($tmp/err) is exactly one line and
# mentions each STRING.
one_line() {
    local name=$1
    shift
    [[ $(wc -l <"$tmp/err") == 1 ]] || fail "$name: stderr is not one line: $(cat "$tmp/err")"
    local s
    for s in "$@"; do
        grep -qF -- "$s" "$tmp/err" || fail "$name: stderr does not mention '$s': $(cat "$tmp/err")"
    done
}

# no_file NAME FILE: FILE does not exist (FILE may be empty: nothing to
# check), and FILE's folder ($tmp when FILE is empty) holds no temporary file
# of an output: ".<base>.XXXXXX" (mkstemp's six characters) or any
# ".<FILE's base>.*".
no_file() {
    local name=$1 file=$2 dir=$tmp base=""
    if [[ -n $file ]]; then
        [[ ! -e $file ]] || fail "$name: $file was left behind"
        dir=$(dirname "$file")
        base=$(basename "$file")
    fi
    local f b
    for f in "$dir"/.[!.]*; do
        [[ -e $f ]] || continue
        b=${f##*/}
        if [[ $b =~ ^\.[^.].*\.[A-Za-z0-9]{6}$ || (-n $base && $b == ".$base".*) ]]; then
            fail "$name: a temporary file was left behind: $f"
            return 0
        fi
    done
    return 0
}

# cli_finish LABEL: prints the outcome and exits, 1 when a check failed.
cli_finish() {
    if ((failures > 0)); then
        echo "$1: $failures failure(s)" >&2
        exit 1
    fi
    echo "$1: all checks passed"
    exit 0
}
