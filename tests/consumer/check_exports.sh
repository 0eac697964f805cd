#!/usr/bin/env bash
# check_exports.sh -- what libscan.so exports (ctest, label cpu; see
# tests/consumer/CMakeLists.txt).
#
#   check_exports.sh prefix LIBSCAN_SO
#       every symbol `nm -D --defined-only` lists carries the libscan_ prefix
#       (issue #20: one public family, one dialect). Offenders are listed.
#   check_exports.sh complete LIBSCAN_SO CC HEADER... -- CFLAG...
#       every function the public headers declare is exported (a consumer
#       linking libscan::libscan must find every family). The headers go
#       through the C preprocessor first, so comments and #if'd-out text
#       never count as declarations. Missing names are listed.
#
# No filtering of "harmless" names: a symbol without the prefix (_edata,
# _init, a C++ runtime symbol) is fixed at the cause, the linker version
# script libscan/libscan.map.
set -euo pipefail

die() { echo "check_exports.sh: $*" >&2; exit 2; }

[[ $# -ge 2 ]] || die "usage: check_exports.sh prefix|complete LIBSCAN_SO [CC HEADER... -- CFLAG...]"
mode=$1 so=$2
shift 2
[[ -f $so ]] || die "$so does not exist"
command -v nm >/dev/null || die "nm (binutils) is not installed"

# Defined dynamic symbols, names only (versions such as @@V1 cut off).
exported=$(nm -D --defined-only "$so" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u)
[[ -n $exported ]] || die "nm -D lists no defined symbol in $so"

case $mode in
prefix)
    offenders=$(grep -v '^libscan_' <<<"$exported" || true)
    if [[ -n $offenders ]]; then
        echo "FAIL: $so exports $(wc -l <<<"$offenders") symbol(s) without the libscan_ prefix:"
        sed 's/^/  /' <<<"$offenders"
        exit 1
    fi
    echo "ok: all $(wc -l <<<"$exported") exported symbols of $so start with libscan_"
    ;;
complete)
    [[ $# -ge 1 ]] || die "complete needs CC, the headers, -- and the compile flags"
    cc=$1
    shift
    headers=()
    while [[ $# -gt 0 && $1 != -- ]]; do
        headers+=("$1")
        shift
    done
    [[ $# -gt 0 ]] && shift # the --
    [[ ${#headers[@]} -gt 0 ]] || die "no headers given"
    tu=$(mktemp --suffix=.c)
    trap 'rm -f "$tu"' EXIT
    for h in "${headers[@]}"; do
        [[ -f $h ]] || die "header $h does not exist"
        echo "#include \"$h\"" >>"$tu"
    done
    # A declaration is a libscan_ name directly followed by its parameter
    # list. Types (libscan_*_t) are never followed by '(' in these headers.
    declared=$("$cc" -E -P "$@" "$tu" | grep -oE '\blibscan_[a-z0-9_]+[[:space:]]*\(' |
        sed -E 's/[[:space:]]*\($//' | grep -vE '_t$' | sort -u)
    [[ -n $declared ]] || die "found no libscan_ function in ${headers[*]}"
    missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
    if [[ -n $missing ]]; then
        echo "FAIL: $(wc -l <<<"$missing") function(s) declared in the public headers are not exported by $so"
        echo "(declared without LIBSCAN_API, so the hidden default visibility keeps them inside the library):"
        sed 's/^/  /' <<<"$missing"
        exit 1
    fi
    echo "ok: all $(wc -l <<<"$declared") functions of the public headers are exported by $so"
    ;;
*)
    die "unknown mode '$mode' (prefix or complete)"
    ;;
esac
