#!/usr/bin/env bash
# run_gpu.sh -- the one script to run on the GPU machine, from the repository root:
# unpack cmocka, build (Release, sm_90, -Werror), run the whole ctest suite with
# GPU tests required, compute-sanitizer on the GPU tests, and the benchmarks.
#
#   bash bench/run_gpu.sh [LOGDIR] [options]
#
# LOGDIR: the first non-option argument, else $OUT if set, else ./gpu-logs.
# It receives at most these 8 files (earlier copies are removed first):
#   build.log  ctest.log  sanitizer-memcheck.log  sanitizer-racecheck.log
#   bench.md  bench-small.md  bench.csv  summary.txt
# (synccheck output goes into sanitizer-racecheck.log; bench.csv holds the rows
# of both benchmark runs, column `mode` = full | small.)
#
# Options:
#   --large          also run the tests labelled `large` in ctest
#   --quick          benchmark table only at 2^16, 2^20, 2^24, 2^28
#   --no-sanitizer   skip compute-sanitizer
#   --no-bench       skip both benchmark runs
#   --no-small       skip the latency run (bench_scan --small)
#   --no-scan-bench  skip bench_scan's full table (keeps --small unless --no-small)
#   --no-app-bench   skip the segmented, compact, radixsort and SAT benchmarks
#   --bench-only     build bench_scan and run the benchmarks only (no ctest, no sanitizer)
#   --leak-check     memcheck with --leak-check full
#   --budget S       seconds for the whole script (default 540); each stage is
#                    bounded by `timeout`, and later stages keep a reserve
#   --jobs N         build parallelism (default: all cores)
#
# Environment: LIBSCAN_COMMIT names the commit in the outputs (default: git
# rev-parse --short HEAD where .git exists, with -dirty if tracked files differ).
# Exit status 0 when every stage that ran passed, else 1. The last lines on
# stdout are summary.txt.
set -u
set -o pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 1
usage() { sed -n '2,/^[^#]/p' "$SCRIPT_DIR/run_gpu.sh" | sed -e '/^[^#]/d' -e 's/^# \{0,1\}//'; }

ROOT=$(cd "$SCRIPT_DIR/.." && pwd) || exit 1
cd "$ROOT" || exit 1

LOGDIR="" LARGE=0 QUICK=0 SANITIZE=1 BENCH=1 SMALL=1 TESTS=1 LEAK=0 BUDGET=540 APPS=1 SCANBENCH=1
JOBS=$(nproc 2>/dev/null || echo 4)
ARGS="$*"
while (($#)); do
    case $1 in
        --large) LARGE=1 ;;
        --quick) QUICK=1 ;;
        --no-sanitizer) SANITIZE=0 ;;
        --no-bench) BENCH=0 ;;
        --no-small) SMALL=0 ;;
        --no-scan-bench) SCANBENCH=0 ;;
        --no-app-bench) APPS=0 ;;
        --bench-only) TESTS=0 SANITIZE=0 BENCH=1 ;;
        --leak-check) LEAK=1 ;;
        --budget | --jobs)
            [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || { echo "run_gpu.sh: $1 needs a number" >&2; exit 2; }
            if [[ $1 == --budget ]]; then BUDGET=$2; else JOBS=$2; fi
            shift ;;
        -h | --help) usage; exit 0 ;;
        -*) echo "run_gpu.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *)
            [[ -z $LOGDIR ]] || { echo "run_gpu.sh: more than one log folder given ($LOGDIR, $1)" >&2; exit 2; }
            LOGDIR=$1 ;;
    esac
    shift
done
LOGDIR=${LOGDIR:-${OUT:-./gpu-logs}}
if ! mkdir -p "$LOGDIR" || ! LOGDIR=$(cd "$LOGDIR" && pwd); then
    echo "run_gpu.sh: cannot use log folder $LOGDIR" >&2
    exit 2
fi
for f in build.log ctest.log sanitizer-memcheck.log sanitizer-racecheck.log bench.md bench-small.md bench.csv summary.txt; do
    rm -f "${LOGDIR:?}/$f"
done
TMPD=$(mktemp -d /tmp/libscan-gpu.XXXXXX) || exit 1
trap 'rm -rf "$TMPD"' EXIT

T0=$SECONDS
DEPS=/tmp/deps
export LIBSCAN_REQUIRE_GPU=1
export LD_LIBRARY_PATH="$DEPS/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

COMMIT=${LIBSCAN_COMMIT:-}
if [[ -z $COMMIT ]] && command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    COMMIT=$(git rev-parse --short HEAD 2>/dev/null || true)
    if [[ -n $COMMIT && -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then COMMIT="$COMMIT-dirty"; fi
fi
COMMIT=${COMMIT:-unknown}
[[ $COMMIT != unknown ]] && export LIBSCAN_COMMIT=$COMMIT

# ---- stage bookkeeping ---------------------------------------------------------

STAGES=() # "name|status|seconds|detail"
OVERALL_OK=1
record() { # name status seconds detail
    STAGES+=("$1|$2|$3|$4")
    [[ $2 == ok ]] || OVERALL_OK=0
    printf '== %-12s %-10s %4ss  %s\n' "$1" "$2" "$3" "$4"
}
remaining() { echo $((BUDGET - (SECONDS - T0))); }
# Minimum seconds each later stage keeps back from the stages before it.
stage_min() {
    local m=0
    case $1 in
        ctest) if ((TESTS)); then m=60; fi ;;
        memcheck | racecheck) if ((SANITIZE)); then m=45; fi ;;
        bench) if ((BENCH)); then m=$((QUICK ? 45 : 90)); fi ;;
        small) if ((BENCH && SMALL)); then m=40; fi ;;
    esac
    echo "$m"
}
# limit CAP STAGE: seconds for STAGE = min(CAP, time left - reserve of later stages), at least 10.
limit() {
    local cap=$1 stage=$2 reserve=0 later=0 s r
    for s in build ctest memcheck racecheck bench small; do
        if ((later)); then reserve=$((reserve + $(stage_min "$s"))); fi
        [[ $s == "$stage" ]] && later=1
    done
    r=$(($(remaining) - reserve))
    ((r > cap)) && r=$cap
    ((r < 10)) && r=10
    echo "$r"
}
logline() { printf '%s\n' "$@" >>"$LOG"; }
# step DESCRIPTION CMD...: run CMD under the current stage deadline, output to $LOG.
step() {
    local desc=$1 left rc
    shift
    left=$((DEADLINE - SECONDS))
    ((left < 5)) && left=5
    logline "" "===== $desc" "===== \$ $*" "===== (time limit ${left}s)"
    timeout -k 10 "$left" "$@" >>"$LOG" 2>&1
    rc=$?
    ((rc == 124 || rc == 137)) && logline "===== TIMED OUT after ${left}s"
    logline "===== rc=$rc"
    return "$rc"
}

echo "run_gpu.sh: logs in $LOGDIR; commit $COMMIT; budget ${BUDGET}s; jobs $JOBS; options: ${ARGS:-none}"

# ---- 0. cmocka from .deps --------------------------------------------------------

t=$SECONDS
if compgen -G ".deps/*.deb" >/dev/null; then
    mkdir -p "$DEPS"
    deps_ok=1
    debs=(.deps/*.deb)
    for f in "${debs[@]}"; do dpkg -x "$f" "$DEPS" || deps_ok=0; done
    if ((deps_ok)); then
        record deps ok $((SECONDS - t)) "unpacked ${#debs[@]} .deb into $DEPS"
    else
        record deps FAILED $((SECONDS - t)) "dpkg -x failed"
    fi
else
    record deps MISSING $((SECONDS - t)) "no .deps/*.deb (carry .deps); the tests will not find cmocka"
fi

# ---- 1. configure and build -----------------------------------------------------

LOG=$LOGDIR/build.log
t=$SECONDS
DEADLINE=$((SECONDS + $(limit 300 build)))
COMMON=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_PREFIX_PATH=$DEPS/usr")
FULL_CONFIGURED=0 BUILD_ALL=skipped BENCH_BIN="" BUILD_NOTE=""
{ echo "cmake: $(cmake --version | head -1)"; echo "nvcc: $(nvcc --version 2>/dev/null | tail -1)"; } >>"$LOG"

keep_going() { # the generator's keep-going flag for build dir $1
    if grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja' "$1/CMakeCache.txt" 2>/dev/null; then echo "-k 0"; else echo "-k"; fi
}

if step "configure build-gpu (tests, apps, bench; -Werror)" cmake -S . -B build-gpu "${COMMON[@]}" \
    -DLIBSCAN_WERROR=ON -DLIBSCAN_BUILD_TESTS=ON -DLIBSCAN_BUILD_APPS=ON -DLIBSCAN_BUILD_BENCH=ON; then
    FULL_CONFIGURED=1
    if ((TESTS)); then
        # shellcheck disable=SC2046 # keep_going prints one or two words on purpose
        if step "build everything" cmake --build build-gpu -j "$JOBS" -- $(keep_going build-gpu); then
            BUILD_ALL=ok
        else
            BUILD_ALL=FAILED
        fi
    fi
    # Always ask for the bench target itself, so a stale binary is never used.
    if step "build bench_scan" cmake --build build-gpu -j "$JOBS" --target bench_scan; then
        BENCH_BIN=$ROOT/build-gpu/bench/bench_scan
    fi
else
    BUILD_ALL="FAILED (configure)"
fi
# Fallbacks, so that the benchmarks run whatever state tests/ and apps/ are in:
# without tests and apps when the full configure failed, then without -Werror.
if [[ -z $BENCH_BIN ]] && ((!FULL_CONFIGURED)); then
    if step "fallback: configure build-gpu-bench (no tests, no apps; -Werror)" cmake -S . -B build-gpu-bench \
        "${COMMON[@]}" -DLIBSCAN_WERROR=ON -DLIBSCAN_BUILD_TESTS=OFF -DLIBSCAN_BUILD_APPS=OFF -DLIBSCAN_BUILD_BENCH=ON &&
        step "fallback: build bench_scan" cmake --build build-gpu-bench -j "$JOBS" --target bench_scan; then
        BENCH_BIN=$ROOT/build-gpu-bench/bench/bench_scan
        BUILD_NOTE="bench_scan built without tests/apps"
    fi
fi
if [[ -z $BENCH_BIN ]]; then
    if step "fallback: configure build-gpu-bench-nowerror (no tests, no apps, no -Werror)" cmake -S . \
        -B build-gpu-bench-nowerror "${COMMON[@]}" -DLIBSCAN_WERROR=OFF -DLIBSCAN_BUILD_TESTS=OFF \
        -DLIBSCAN_BUILD_APPS=OFF -DLIBSCAN_BUILD_BENCH=ON &&
        step "fallback: build bench_scan" cmake --build build-gpu-bench-nowerror -j "$JOBS" --target bench_scan; then
        BENCH_BIN=$ROOT/build-gpu-bench-nowerror/bench/bench_scan
        BUILD_NOTE="bench_scan built only WITHOUT -Werror"
    else
        BUILD_NOTE="bench_scan could not be built"
    fi
fi
first_errors() { grep -m "${2:-5}" -E '(error|Error|ERROR)[: ]' "$1" | cut -c1-200; }
if ((TESTS)); then
    detail="full configure: $([[ $FULL_CONFIGURED == 1 ]] && echo ok || echo FAILED); build all: $BUILD_ALL"
    build_status=$([[ $BUILD_ALL == ok && -n $BENCH_BIN ]] && echo ok || echo FAILED)
else
    detail="bench_scan only"
    build_status=$([[ -n $BENCH_BIN && -z $BUILD_NOTE ]] && echo ok || echo FAILED)
fi
[[ -n $BUILD_NOTE ]] && detail="$detail; $BUILD_NOTE"
[[ -n $BENCH_BIN ]] || detail="$detail; NO bench_scan"
record build "$build_status" $((SECONDS - t)) "$detail"
BUILD_ERRORS=$(first_errors "$LOG" 8)

# ---- 2. ctest ----------------------------------------------------------------------

CT_TOTAL=0 CT_FAILED=0 CT_SKIPPED=0 CT_CMOCKA_SKIPPED=0 CT_PASSED=0 CT_FAILED_NAMES=""
if ((TESTS)); then
    t=$SECONDS
    LOG=$LOGDIR/ctest.log
    if ((FULL_CONFIGURED)); then
        lim=$(limit 180 ctest)
        labels=(-LE large)
        jobs=4
        if ((LARGE)); then labels=(); jobs=2; fi
        {
            echo "ctest in build-gpu, LIBSCAN_REQUIRE_GPU=$LIBSCAN_REQUIRE_GPU, LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
            echo "label filter: ${labels[*]:-none (--large)}; time limit ${lim}s"
        } >"$LOG"
        (cd build-gpu && timeout -k 10 "$lim" ctest -V -j "$jobs" "${labels[@]}") >>"$LOG" 2>&1
        rc=$?
        ((rc == 124 || rc == 137)) && echo "===== ctest TIMED OUT after ${lim}s" >>"$LOG"
        # ctest writes "100% tests passed out of N" when none failed, else
        # "K% tests passed, F tests failed out of N".
        sum=$(grep -E '[0-9]+% tests passed(, [0-9]+ tests? failed)? out of [0-9]+' "$LOG" | tail -1)
        if [[ -n $sum ]]; then
            CT_TOTAL=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$sum")
            CT_FAILED=0
            [[ $sum == *failed* ]] && CT_FAILED=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$sum")
        fi
        CT_SKIPPED=$(grep -cE '^[[:space:]]*[0-9]+ - .*\((Skipped|Disabled)\)[[:space:]]*$' "$LOG")
        CT_CMOCKA_SKIPPED=$(grep -oE '\[  SKIPPED \] [0-9]+ test\(s\), listed below' "$LOG" | awk '{s += $4} END {print s + 0}')
        CT_PASSED=$((CT_TOTAL - CT_FAILED - CT_SKIPPED))
        CT_FAILED_NAMES=$(sed -n '/The following tests FAILED:/,/^Errors while running/p' "$LOG" |
            grep -E '^[[:space:]]*[0-9]+ - ' | sed -E 's/^[[:space:]]+//' | head -20 | tr '\n' ';')
        detail="passed $CT_PASSED, failed $CT_FAILED, skipped $CT_SKIPPED (ctest) + $CT_CMOCKA_SKIPPED (cmocka), total $CT_TOTAL; ${labels[*]:-all labels}"
        if ((rc == 124 || rc == 137)); then
            record ctest TIMEOUT $((SECONDS - t)) "after ${lim}s; $detail"
        elif ((CT_TOTAL == 0)); then
            record ctest FAILED $((SECONDS - t)) "no tests ran (rc=$rc)"
        elif ((rc == 0 && CT_FAILED == 0 && CT_SKIPPED == 0 && CT_CMOCKA_SKIPPED == 0)); then
            record ctest ok $((SECONDS - t)) "$detail"
        else
            record ctest FAILED $((SECONDS - t)) "$detail (rc=$rc)"
        fi
    else
        echo "ctest not run: the full configure (with tests) failed; see build.log" >"$LOG"
        record ctest FAILED 0 "not run: configure with tests failed (see build.log)"
    fi
fi

# ---- 3. compute-sanitizer -------------------------------------------------------------

# The runs: every gpu-labelled test (not `large`) as ctest would start it,
# plus bench_scan on small sizes. One line each: name, dir, env, command, separated
# by the ASCII unit separator (0x1f; a tab would let `read` merge an empty env field).
make_run_list() {
    local list=$TMPD/runs.tsv
    : >"$list"
    if ((FULL_CONFIGURED)); then
        if command -v python3 >/dev/null 2>&1 &&
            (cd build-gpu && ctest -L gpu -LE large -N --show-only=json-v1) >"$TMPD/tests.json" 2>/dev/null; then
            python3 - "$TMPD/tests.json" >>"$list" <<'PY'
import json, shlex, sys
data = json.load(open(sys.argv[1]))
for t in data.get("tests", []):
    props = {p.get("name"): p.get("value") for p in t.get("properties", [])}
    labels = props.get("LABELS") or []
    labels = [labels] if isinstance(labels, str) else labels
    cmd = t.get("command") or []
    if "gpu" not in labels or "large" in labels or not cmd:
        continue
    env = props.get("ENVIRONMENT") or []
    env = [env] if isinstance(env, str) else env
    wd = props.get("WORKING_DIRECTORY") or "."
    print("\x1f".join([t.get("name", cmd[0]), wd, shlex.join(env), shlex.join(cmd)]))
PY
        else
            # No python3: the commands from ctest's verbose listing (arguments with spaces not kept).
            (cd build-gpu && ctest -L gpu -LE large -N -V 2>/dev/null) |
                sed -n -E 's/^[0-9]+: Test command: (.*)$/\1/p' |
                while read -r cmd; do printf '%s\x1f%s\x1f\x1f%s\n' "$(basename "${cmd%% *}")" "$ROOT/build-gpu" "$cmd"; done >>"$list"
        fi
    fi
    if [[ -n $BENCH_BIN ]]; then
        printf 'bench_scan-small-sizes\x1f%s\x1f\x1f%q --types u32,u64,f32 --logs 10,13,16 --reps 2 --warmup 1 --graph --graph-calls 2 --watchdog 0\n' \
            "$ROOT" "$BENCH_BIN" >>"$list"
    fi
    echo "$list"
}

SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
declare -A SAN_SUMMARY=()
# sanitize TOOL LIST STAGE_DEADLINE: run every line of LIST under TOOL, append to $LOG.
sanitize() {
    local tool=$1 list=$2 stage_deadline=$3 name wd envs cmd left out rc errs warns
    local runs=0 errors=0 timeouts=0 appfail=0 unparsed=0 notrun=0 extra=()
    [[ $tool == memcheck ]] && ((LEAK)) && extra=(--leak-check full)
    while IFS=$'\x1f' read -r name wd envs cmd; do
        left=$((stage_deadline - SECONDS))
        ((left > 120)) && left=120
        if ((left < 10)); then
            notrun=$((notrun + 1))
            logline "" "===== $tool: $name NOT RUN (stage time limit)"
            continue
        fi
        out=$TMPD/san.out
        logline "" "===== $tool: $name" "===== in $wd: ${envs:+env $envs }$SAN --tool $tool ${extra[*]} $cmd (limit ${left}s)"
        # envs and cmd are shell-quoted by make_run_list.
        (cd "$wd" && eval "env $envs timeout -k 10 $left \"\$SAN\" --tool $tool --error-exitcode 86 --print-limit 20 ${extra[*]} $cmd") >"$out" 2>&1
        rc=$?
        cat "$out" >>"$LOG"
        runs=$((runs + 1))
        errs=$(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$out" | tail -1 | grep -oE '[0-9]+')
        [[ -z $errs ]] && errs=$(grep -oE '\([0-9]+ errors?' "$out" | tail -1 | grep -oE '[0-9]+')
        warns=$(grep -oE '[0-9]+ warnings?\)' "$out" | tail -1 | grep -oE '[0-9]+')
        if ((rc == 124 || rc == 137)); then
            timeouts=$((timeouts + 1))
            logline "===== $tool: $name TIMED OUT after ${left}s"
        elif [[ -z $errs ]]; then
            unparsed=$((unparsed + 1))
            logline "===== $tool: $name: no sanitizer summary found (rc=$rc)"
        else
            errors=$((errors + errs))
            ((rc != 0 && rc != 86)) && appfail=$((appfail + 1))
            logline "===== $tool: $name: $errs error(s)${warns:+, $warns warning(s)}, rc=$rc"
        fi
    done <"$list"
    SAN_SUMMARY[$tool]="$tool: $runs runs, $errors errors, $timeouts timed out, $appfail nonzero exits, $unparsed without summary, $notrun not run"
    ((runs > 0 && errors == 0 && timeouts == 0 && appfail == 0 && unparsed == 0 && notrun == 0))
}

if ((SANITIZE)); then
    list=$(make_run_list)
    nruns=$(wc -l <"$list")
    for tool in memcheck racecheck; do
        t=$SECONDS
        LOG=$LOGDIR/sanitizer-$tool.log
        if [[ $tool == memcheck ]]; then lim=$(limit 120 memcheck); else lim=$(limit 150 racecheck); fi # synccheck shares racecheck's
        deadline=$((SECONDS + lim))
        {
            echo "compute-sanitizer: $SAN ($("$SAN" --version 2>/dev/null | grep -m1 -i version || echo 'not found'))"
            echo "$nruns runs (gpu-labelled tests without 'large', then bench_scan on small sizes); stage limit ${lim}s"
        } >"$LOG"
        if [[ ! -x $SAN ]]; then
            record "$tool" MISSING 0 "compute-sanitizer not found"
            continue
        fi
        if ((nruns == 0)); then
            record "$tool" FAILED 0 "nothing to run (no test list, no bench_scan)"
            continue
        fi
        status=ok
        sanitize "$tool" "$list" "$deadline" || status=FAILED
        detail=${SAN_SUMMARY[$tool]}
        if [[ $tool == racecheck ]]; then
            # synccheck if time is left (into the same log).
            if ((deadline - SECONDS >= 20)); then
                logline "" "######## synccheck ########"
                sanitize synccheck "$list" "$deadline" || status=FAILED
                detail="$detail; ${SAN_SUMMARY[synccheck]}"
            else
                detail="$detail; synccheck not run (time)"
            fi
        fi
        record "$tool" "$status" $((SECONDS - t)) "$detail"
    done
fi

# ---- 4. benchmarks ----------------------------------------------------------------------

BENCH_RESULT="" SMALL_RESULT="" TARGET_LINES=""
# run_bench NAME OUTFILE CAP ARGS...: bench_scan ARGS > OUTFILE, stderr appended as a block.
run_bench() {
    local name=$1 file=$2 cap=$3 lim rc status result
    shift 3
    t=$SECONDS
    if [[ -z $BENCH_BIN ]]; then
        echo "bench_scan was not built; see build.log" >"$file"
        record "$name" FAILED 0 "bench_scan not built"
        return
    fi
    lim=$(limit "$cap" "$name")
    timeout -k 10 "$lim" "$BENCH_BIN" "$@" >"$file" 2>"$TMPD/bench.err"
    rc=$?
    {
        echo
        echo "## bench_scan stderr (\$ bench_scan $*; rc=$rc; limit ${lim}s)"
        echo
        echo '```'
        cat "$TMPD/bench.err"
        echo '```'
    } >>"$file"
    result=$(grep -E '^RESULT:' "$file" | tail -1)
    case $rc in
        0) status=ok ;;
        3) status=WRONG ;;
        124 | 137) status=TIMEOUT; result="RESULT: TIMEOUT after ${lim}s (rows so far are in the table)" ;;
        *) status=FAILED ;;
    esac
    record "$name" "$status" $((SECONDS - t)) "${result:-no RESULT line (rc=$rc)}"
    if [[ $name == bench ]]; then BENCH_RESULT=$result; else SMALL_RESULT=$result; fi
    TARGET_LINES+="$(sed -n '/^## Targets/,/^Targets:/p' "$file" | grep -E '^(- |Targets:)' | sed "s/^/  [$name] /")"$'\n'
}

if ((BENCH)); then
    args=(--csv "$LOGDIR/bench.csv")
    if ((QUICK)); then args+=(--logs "16,20,24,28"); fi
    if ((SCANBENCH)); then run_bench bench "$LOGDIR/bench.md" 240 "${args[@]}"; fi
    if ((SMALL)); then
        run_bench small "$LOGDIR/bench-small.md" 120 --small --csv "$LOGDIR/bench.csv"
    fi
fi

# ---- 4b. benchmarks of the programs' libraries and the segmented scan -------------------

# run_app_bench NAME TARGET CAP ARGS...: build TARGET in build-gpu, run it, output to NAME.md.
run_app_bench() {
    local name=$1 target=$2 cap=$3 bin rc lim status
    shift 3
    t=$SECONDS
    LOG=$LOGDIR/build.log
    DEADLINE=$((SECONDS + 120))
    if ! ((FULL_CONFIGURED)) || ! step "build $target" cmake --build build-gpu -j "$JOBS" --target "$target"; then
        record "$name" FAILED $((SECONDS - t)) "$target not built"
        return
    fi
    bin=$(find build-gpu/bench -type f -name "$target" -perm -u+x | head -1)
    lim=$(limit "$cap" bench)
    timeout -k 10 "$lim" "$bin" "$@" >"$LOGDIR/$name.md" 2>"$TMPD/app.err"
    rc=$?
    { echo; echo "## $target stderr (rc=$rc; limit ${lim}s)"; echo; echo '```'; cat "$TMPD/app.err"; echo '```'; } >>"$LOGDIR/$name.md"
    case $rc in 0) status=ok ;; 3) status=WRONG ;; 124 | 137) status=TIMEOUT ;; *) status=FAILED ;; esac
    record "$name" "$status" $((SECONDS - t)) "$LOGDIR/$name.md"
}

if ((BENCH && APPS)); then
    run_app_bench bench-segmented bench_segmented 120
    run_app_bench bench-compact bench_compact 120
    run_app_bench bench-radixsort bench_radixsort 180
    run_app_bench bench-sat bench_sat 120
fi

# ---- 5. summary ------------------------------------------------------------------------

GPU=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
[[ -z $GPU && -f $LOGDIR/bench.md ]] && GPU=$(sed -n 's/^- GPU: //p' "$LOGDIR/bench.md" | head -1)
{
    echo "libscan GPU run: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "gpu: ${GPU:-unknown (nvidia-smi failed)}"
    echo "commit: $COMMIT"
    echo "options: ${ARGS:-none}; budget ${BUDGET}s; total $((SECONDS - T0))s"
    if ((TESTS && !FULL_CONFIGURED)); then
        echo "tests: not run (the configure with tests failed; see build.log)"
    elif ((TESTS)); then
        echo "tests: passed $CT_PASSED, failed $CT_FAILED, skipped $CT_SKIPPED (+ $CT_CMOCKA_SKIPPED cmocka skips), total $CT_TOTAL"
    else
        echo "tests: not run (--bench-only)"
    fi
    [[ -n $CT_FAILED_NAMES ]] && echo "failed tests: $CT_FAILED_NAMES"
    for tool in memcheck racecheck synccheck; do
        [[ -n ${SAN_SUMMARY[$tool]:-} ]] && echo "sanitizer ${SAN_SUMMARY[$tool]}"
    done
    echo "stages:"
    for s in "${STAGES[@]}"; do
        IFS='|' read -r n st sec d <<<"$s"
        printf '  %-10s %-9s %4ss  %s\n' "$n" "$st" "$sec" "$d"
    done
    if [[ -n $BUILD_ERRORS && ( $build_status != ok ) ]]; then
        echo "first build errors:"
        while IFS= read -r line; do echo "  $line"; done <<<"$BUILD_ERRORS"
    fi
    [[ -n $BENCH_RESULT ]] && echo "bench: $BENCH_RESULT"
    [[ -n $SMALL_RESULT ]] && echo "bench --small: $SMALL_RESULT"
    if [[ -n ${TARGET_LINES//$'\n'/} ]]; then
        echo "targets:"
        printf '%s' "$TARGET_LINES" | grep -v '^$'
    fi
    if ((OVERALL_OK)); then echo "OVERALL: OK"; else
        echo "OVERALL: FAILED ($(for s in "${STAGES[@]}"; do IFS='|' read -r n st _ _ <<<"$s"; [[ $st == ok ]] || printf '%s=%s ' "$n" "$st"; done | sed 's/ $//'))"
    fi
} >"$LOGDIR/summary.txt"
echo
cat "$LOGDIR/summary.txt"
((OVERALL_OK)) && exit 0 || exit 1
