#!/usr/bin/env bash
# run_gpu.sh -- the one script to run on the GPU machine, from the repository root:
# unpack the carried .deb files (.deps/*.deb: cmocka, stb, and the codec libraries the README lists), build (Release, sm_90,
# -Werror), run the whole ctest suite with GPU tests required, compute-sanitizer on
# the GPU tests, and every benchmark.
#
#   bash bench/run_gpu.sh [LOGDIR] [options]
#
# What it builds and runs (the layout of issue #20): one library (libscan_static,
# libscan_shared), the programs in apps/, the suites in tests/{libscan, sort,
# compact, sat, apps, consumer} (gpu-labelled: test_api_gpu, test_warp_block,
# test_device_scan, test_segmented, test_sort_lib, test_compact_lib, test_sat_lib,
# test_blur), and the benchmarks bench_scan, bench_segmented, bench_compact,
# bench_radixsort, bench_segsort, bench_sat.
#
# Time: every stage is bounded (`timeout`) so the script ends within --budget
# seconds (default 540) plus a few seconds for the summary, inside a 10-minute
# command. On the 2-GPU H200 machine at a816b04 the build took 121 s and ctest
# about 1000 s, nearly all of it under the GPU lock (test_sort_lib 120 s,
# test_sort_identity_pass 72, test_segsort_lib 65, the programs' GPU scripts
# 30-160 s each; the scripts have since left the lock), the benchmarks ~300 s.
# So the run takes several commands on a machine kept warm (build-gpu stays):
# the build and part of ctest (--no-sanitizer --no-bench --exclude-tests RE;
# with neither later stage, ctest gets the whole budget, else at most 300 s,
# 420 with --large), then --prebuilt with --tests RE (and --large), the
# benchmarks (--prebuilt --bench-only, --app-benches) and the sanitizer
# (--prebuilt --sanitizer-only, --san-suites; the programs' scripts only by
# name). Asked for everything at once, later stages get only what the budget
# leaves and say so (TIMEOUT / NOT RUN).
#
# LOGDIR: the first non-option argument, else $OUT if set, else ./gpu-logs.
# It receives at most these 8 files (earlier copies are removed first; the
# device machine hands back at most 8):
#   build.log  ctest.log  sanitizer.log  bench.md  bench-small.md  bench.csv
#   bench-apps.md  summary.txt
# (sanitizer.log: memcheck, racecheck and synccheck output, one section per
# run; bench.csv holds the rows of both bench_scan runs, column `mode` =
# full | small; bench-apps.md: the segmented, compact, radixsort and SAT
# benchmarks, one section each.)
#
# Options:
#   --large          also run the tests labelled `large` in ctest
#   --tests REGEX    ctest runs only the tests whose names match REGEX (ctest -R)
#   --exclude-tests REGEX
#                    ctest leaves out the tests whose names match REGEX (ctest -E);
#                    the two split the suite over commands (see Time above)
#   --quick          benchmark table only at 2^16, 2^20, 2^24, 2^28
#   --no-sanitizer   skip compute-sanitizer (tests + benchmarks)
#   --no-bench       skip both benchmark runs
#   --no-small       skip the latency run (bench_scan --small)
#   --no-scan-bench  skip bench_scan's full table (keeps --small unless --no-small)
#   --no-app-bench   skip the segmented, compact, radixsort and SAT benchmarks
#   --app-benches LIST
#                    only these of them: a comma list of segmented, compact,
#                    radixsort, segsort, sat (to split the benchmarks over commands)
#   --bench-only     build the benchmarks and run them only (no ctest, no sanitizer)
#   --sanitizer-only [TOOLS]
#                    build the gpu test suites and bench_scan, then only compute-sanitizer
#                    (no ctest, no benchmarks), with the whole budget; TOOLS: a comma
#                    list of memcheck, racecheck, synccheck (default all three; also
#                    --sanitizer-only=TOOLS)
#   --san-suites REGEX
#                    only the sanitizer runs whose names (ctest's, and
#                    bench_scan-small-sizes) match the extended regular expression
#                    REGEX in full, e.g. 'test_sort_lib|test_segsort_lib': the
#                    runs of one command get the whole stage, and the rest
#                    follow in other commands
#   --san-max-n N    LIBSCAN_TEST_MAX_N=N for every sanitizer run (default 1048576):
#                    the suites leave out sizes above N elements (tests/README.md);
#                    0 = no cap (the full sizes). ctest always runs the full sizes.
#   --leak-check     memcheck with --leak-check full
#   --budget S       seconds for the whole script (default 540); each stage is
#                    bounded by `timeout`, and later stages keep a reserve
#   --jobs N         build parallelism (default: all cores)
#   --prebuilt       use build-gpu as it is, without configuring or building it:
#                    binaries built on the development machine with the same
#                    toolkit (../shared/GPU.md, way A) and carried along, which
#                    saves the device the build's minutes. The build tree must
#                    be at the path it was configured in (its CTestTestfiles
#                    and RPATHs name it: link it there). A benchmark that
#                    did not come built is reported as NOT RUN.
#
# compute-sanitizer: every gpu-labelled ctest entry (not `large`, and not the
# programs' scripts, label `cli`: each starts a hundred processes or more, which
# no share of a stage holds under a sanitizer; --san-suites runs them by name)
# and bench_scan on small sizes (its first opts = NULL calls included, so the temp cache runs
# under each tool), one after another; each run gets a weighted share of the
# time left (san_weight, per tool: test_sort_lib and test_sort_identity_pass 8,
# racecheck's test_device_scan and test_sat_lib 4 and 8, test_segmented 2 and
# racecheck's test_compact_lib 2, the rest 1; recomputed before each run, so
# runs that finish early leave their time to the rest and one slow suite
# cannot starve the others; at least 10 s, else the run is reported as not
# run). The log says when a suite named there
# is not among the runs (renamed?). Without --sanitizer-only, memcheck gets a
# 120 s stage and racecheck + synccheck share a 150 s one; with it, the chosen
# tools share everything the build leaves of the budget. summary.txt names
# every suite with its result per tool (errors, timed out, not run, skipped
# tests). A suite that exits 77 under the sanitizer skipped some of its tests
# (cases above LIBSCAN_TEST_MAX_N, or too little memory): ok, with the count.
# memcheck reports no CUDA API errors in test_nccl_lib: NCCL's own failing
# probes (san_flags says why); kernels' memory accesses are still checked.
#
# Environment: LIBSCAN_COMMIT names the commit in the outputs (default: git
# rev-parse --short HEAD where .git exists, with -dirty if tracked files differ).
# LIBSCAN_REQUIRE_GPU defaults to 1 (GPU tests fail without a GPU); set it to 0
# to try the script on a machine without one (the gpu suites then skip, and
# every sanitizer run is reported as "tests skipped: no usable GPU").
# Exit status 0 when every stage that ran passed, else 1. The last lines on
# stdout are summary.txt.
set -u
set -o pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 1
usage() { sed -n '2,/^[^#]/p' "$SCRIPT_DIR/run_gpu.sh" | sed -e '/^[^#]/d' -e 's/^# \{0,1\}//'; }

ROOT=$(cd "$SCRIPT_DIR/.." && pwd) || exit 1
cd "$ROOT" || exit 1

LOGDIR="" LARGE=0 QUICK=0 SANITIZE=1 BENCH=1 SMALL=1 TESTS=1 LEAK=0 BUDGET=540 APPS=1 SCANBENCH=1
PREBUILT=0 SANONLY=0 SAN_TOOLS_ARG=memcheck,racecheck,synccheck SAN_MAX_N=1048576 BENCHONLY=0 NOSAN=0
SAN_SUITES="" APP_BENCH_LIST=segmented,compact,radixsort,segsort,sat CT_ONLY="" CT_EXCLUDE=""
JOBS=$(nproc 2>/dev/null || echo 4)
ARGS="$*"
SAN_TOOL_RE='^(memcheck|racecheck|synccheck)(,(memcheck|racecheck|synccheck))*$'
while (($#)); do
    case $1 in
        --sanitizer-only)
            SANONLY=1
            # The next word is TOOLS only when it is a list of tool names (else it is LOGDIR or an option).
            if [[ $# -ge 2 && $2 =~ $SAN_TOOL_RE ]]; then SAN_TOOLS_ARG=$2; shift; fi ;;
        --sanitizer-only=*)
            SANONLY=1 SAN_TOOLS_ARG=${1#*=}
            [[ $SAN_TOOLS_ARG =~ $SAN_TOOL_RE ]] ||
                { echo "run_gpu.sh: --sanitizer-only=$SAN_TOOLS_ARG: TOOLS is a comma list of memcheck, racecheck, synccheck" >&2; exit 2; } ;;
        --san-max-n)
            [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || { echo "run_gpu.sh: --san-max-n needs a number of elements" >&2; exit 2; }
            SAN_MAX_N=$((10#$2))
            # The suites refuse caps below 65536 (tests/support/harness.h); say so here, before the build.
            ((SAN_MAX_N == 0 || SAN_MAX_N >= 65536)) ||
                { echo "run_gpu.sh: --san-max-n $2: use 0 (no cap) or at least 65536" >&2; exit 2; }
            shift ;;
        --san-suites)
            [[ $# -ge 2 && -n $2 ]] || { echo "run_gpu.sh: --san-suites needs a regular expression" >&2; exit 2; }
            # grep's own check: a malformed expression is refused here, not after the build.
            grep -qE -- "$2" </dev/null 2>/dev/null; (($? == 2)) && { echo "run_gpu.sh: --san-suites $2: not an extended regular expression" >&2; exit 2; }
            SAN_SUITES=$2
            shift ;;
        --app-benches)
            [[ $# -ge 2 && $2 =~ ^(segmented|compact|radixsort|segsort|sat)(,(segmented|compact|radixsort|segsort|sat))*$ ]] ||
                { echo "run_gpu.sh: --app-benches needs a comma list of segmented, compact, radixsort, segsort, sat" >&2; exit 2; }
            APP_BENCH_LIST=$2
            shift ;;
        --tests | --exclude-tests)
            [[ $# -ge 2 && -n $2 ]] || { echo "run_gpu.sh: $1 needs a regular expression" >&2; exit 2; }
            if [[ $1 == --tests ]]; then CT_ONLY=$2; else CT_EXCLUDE=$2; fi
            shift ;;
        --large) LARGE=1 ;;
        --quick) QUICK=1 ;;
        --no-sanitizer) SANITIZE=0 NOSAN=1 ;;
        --no-bench) BENCH=0 ;;
        --no-small) SMALL=0 ;;
        --no-scan-bench) SCANBENCH=0 ;;
        --no-app-bench) APPS=0 ;;
        --bench-only) TESTS=0 SANITIZE=0 BENCH=1 BENCHONLY=1 ;;
        --leak-check) LEAK=1 ;;
        --prebuilt) PREBUILT=1 ;;
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
if ((SANONLY)); then
    ((BENCHONLY || NOSAN)) && { echo "run_gpu.sh: --sanitizer-only does not go with --bench-only or --no-sanitizer" >&2; exit 2; }
    TESTS=0 BENCH=0 SANITIZE=1
fi
# The tools in the order given, each once.
SAN_TOOLS=()
for tool in ${SAN_TOOLS_ARG//,/ }; do
    [[ " ${SAN_TOOLS[*]} " == *" $tool "* ]] || SAN_TOOLS+=("$tool")
done
LOGDIR=${LOGDIR:-${OUT:-./gpu-logs}}
if ! mkdir -p "$LOGDIR" || ! LOGDIR=$(cd "$LOGDIR" && pwd); then
    echo "run_gpu.sh: cannot use log folder $LOGDIR" >&2
    exit 2
fi
for f in build.log ctest.log sanitizer.log bench.md bench-small.md bench.csv bench-apps.md summary.txt; do
    rm -f "${LOGDIR:?}/$f"
done
TMPD=$(mktemp -d /tmp/libscan-gpu.XXXXXX) || exit 1
trap 'rm -rf "$TMPD"' EXIT

T0=$SECONDS
DEPS=/tmp/deps
export LIBSCAN_REQUIRE_GPU=${LIBSCAN_REQUIRE_GPU:-1}
# ctest runs the full sizes; only the sanitizer runs get a cap (--san-max-n).
unset LIBSCAN_TEST_MAX_N
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
# A stage that would start with less than this much of the budget left is not
# run (reported as NOT RUN), so that stages given their 10-second minimum
# (plus `timeout -k 10`) cannot carry the script past the 10-minute command.
MIN_START=20
out_of_budget() { (($(remaining) < MIN_START)); }
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

# ---- 0. the carried packages (.deps/*.deb) -------------------------------------

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
# radixsort --gpus N's test sorts across every GPU the machine has (its default, 1, is for
# machines that cannot tell; it skips without NCCL or with fewer GPUs).
NGPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
((NGPUS >= 1)) && COMMON+=("-DLIBSCAN_TEST_GPUS=$NGPUS")
FULL_CONFIGURED=0 BUILD_ALL=skipped BENCH_BIN="" BUILD_NOTE=""
{ echo "cmake: $(cmake --version | head -1)"; echo "nvcc: $(nvcc --version 2>/dev/null | tail -1)"; } >>"$LOG"

# The benchmarks besides bench_scan, in the order they run (run_app_bench).
APP_BENCHES=(bench_segmented bench_compact bench_radixsort bench_segsort bench_sat)
# build_targets DIR: the names of DIR's build targets, one a line (Makefiles and Ninja).
build_targets() {
    cmake --build "$1" --target help 2>/dev/null |
        sed -n -E 's/^\.\.\. ([^ ]+).*$/\1/p; s/^([A-Za-z0-9_.+-]+): (phony|CUSTOM_COMMAND).*$/\1/p' | sort -u
}
keep_going() { # the generator's keep-going flag for build dir $1
    if grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja' "$1/CMakeCache.txt" 2>/dev/null; then echo "-k 0"; else echo "-k"; fi
}

if ((PREBUILT)); then
    # Way A: the tree came built; a missing bench_scan or CTestTestfile says it did not.
    if [[ -f build-gpu/CTestTestfile.cmake && -x build-gpu/bench/bench_scan ]]; then
        FULL_CONFIGURED=1 BUILD_ALL=ok BENCH_BIN=$ROOT/build-gpu/bench/bench_scan
        logline "prebuilt build-gpu: configured in $(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' build-gpu/CMakeCache.txt)"
    else
        logline "prebuilt build-gpu: no build-gpu/CTestTestfile.cmake or build-gpu/bench/bench_scan"
        BUILD_ALL=FAILED
    fi
elif step "configure build-gpu (tests, apps, bench; -Werror)" cmake -S . -B build-gpu "${COMMON[@]}" \
    -DLIBSCAN_WERROR=ON -DLIBSCAN_BUILD_TESTS=ON -DLIBSCAN_BUILD_APPS=ON -DLIBSCAN_BUILD_BENCH=ON; then
    FULL_CONFIGURED=1
    if ((TESTS)); then
        # shellcheck disable=SC2046 # keep_going prints one or two words on purpose
        if step "build everything" cmake --build build-gpu -j "$JOBS" -- $(keep_going build-gpu); then
            BUILD_ALL=ok
        else
            BUILD_ALL=FAILED
        fi
    elif ((SANONLY)); then
        # Only what the sanitizer runs: the gpu-labelled suites. Their targets carry the
        # tests' names (libscan_add_suite), or the name without _gpu where one executable
        # is registered twice (test_api_gpu runs test_api); everything if that fails.
        build_targets build-gpu >"$TMPD/targets"
        GPU_TARGETS=()
        while read -r name; do
            for cand in "$name" "${name%_gpu}"; do
                if grep -qx -- "$cand" "$TMPD/targets"; then
                    [[ " ${GPU_TARGETS[*]} " == *" $cand "* ]] || GPU_TARGETS+=("$cand")
                    break
                fi
            done
        done < <(cd build-gpu && ctest -L gpu -LE large -N 2>/dev/null |
            sed -n -E 's/^[[:space:]]*Test[[:space:]]+#[0-9]+: ([^[:space:]]+).*$/\1/p' | sort -u)
        # shellcheck disable=SC2046 # keep_going prints one or two words on purpose
        if ((${#GPU_TARGETS[@]})) && step "build the gpu suites: ${GPU_TARGETS[*]}" \
            cmake --build build-gpu -j "$JOBS" --target "${GPU_TARGETS[@]}"; then
            BUILD_ALL=ok
        elif step "build everything (the gpu suites by name failed)" cmake --build build-gpu -j "$JOBS" -- $(keep_going build-gpu); then
            BUILD_ALL=ok
        else
            BUILD_ALL=FAILED
        fi
    fi
    # Always ask for the bench target itself, so a stale binary is never used. With
    # --bench-only, the other benchmarks in the same build (one parallel build, not
    # one after another in the benchmark stage).
    bench_targets=(bench_scan)
    if ((BENCHONLY && APPS)); then
        build_targets build-gpu >"$TMPD/targets"
        for b in "${APP_BENCHES[@]}"; do
            grep -qx -- "$b" "$TMPD/targets" && bench_targets+=("$b")
        done
    fi
    if step "build ${bench_targets[*]}" cmake --build build-gpu -j "$JOBS" --target "${bench_targets[@]}"; then
        BENCH_BIN=$ROOT/build-gpu/bench/bench_scan
    elif ((${#bench_targets[@]} > 1)) && step "build bench_scan" cmake --build build-gpu -j "$JOBS" --target bench_scan; then
        BENCH_BIN=$ROOT/build-gpu/bench/bench_scan
    fi
else
    BUILD_ALL="FAILED (configure)"
fi
# Fallbacks, so that the benchmarks run whatever state tests/ and apps/ are in:
# without tests and apps when the full configure failed, then without -Werror.
if [[ -z $BENCH_BIN ]] && ((!FULL_CONFIGURED && !PREBUILT)); then
    if step "fallback: configure build-gpu-bench (no tests, no apps; -Werror)" cmake -S . -B build-gpu-bench \
        "${COMMON[@]}" -DLIBSCAN_WERROR=ON -DLIBSCAN_BUILD_TESTS=OFF -DLIBSCAN_BUILD_APPS=OFF -DLIBSCAN_BUILD_BENCH=ON &&
        step "fallback: build bench_scan" cmake --build build-gpu-bench -j "$JOBS" --target bench_scan; then
        BENCH_BIN=$ROOT/build-gpu-bench/bench/bench_scan
        BUILD_NOTE="bench_scan built without tests/apps"
    fi
fi
if [[ -z $BENCH_BIN ]] && ((!PREBUILT)); then
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
elif ((SANONLY)); then
    detail="full configure: $([[ $FULL_CONFIGURED == 1 ]] && echo ok || echo FAILED); gpu suites: $BUILD_ALL"
    build_status=$([[ $BUILD_ALL == ok ]] && echo ok || echo FAILED)
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
    if ((FULL_CONFIGURED)) && [[ $BUILD_ALL == FAILED ]]; then
        # A failed build leaves stale or missing executables: their results
        # would mean nothing, and the suites' timeouts would eat the budget.
        echo "ctest not run: the build failed (build.log)" >"$LOG"
        record ctest "NOT RUN" 0 "the build failed"
    elif ((FULL_CONFIGURED)) && out_of_budget; then
        echo "ctest not run: $(remaining)s of the budget left after the build" >"$LOG"
        record ctest "NOT RUN" 0 "budget: $(remaining)s left after the build"
    elif ((FULL_CONFIGURED)); then
        # The suite took ~180 s on the H100 (consumer_subdirectory alone 90 s) and ~1000 s on
        # the H200 at a816b04 (Time, above); the large tests about a minute. The cap leaves
        # the sanitizer and the benchmarks their share; with neither, ctest gets the budget.
        cap=$((LARGE ? 420 : 300))
        ((SANITIZE || BENCH)) || cap=$BUDGET
        lim=$(limit "$cap" ctest)
        labels=(-LE large)
        # The GPU suites hold one lock (tests/CMakeLists.txt); the other slots go to the
        # CPU suites and the programs' scripts, which spend their time starting processes.
        jobs=8
        if ((LARGE)); then labels=(); jobs=2; fi
        [[ -n $CT_ONLY ]] && labels+=(-R "$CT_ONLY")
        [[ -n $CT_EXCLUDE ]] && labels+=(-E "$CT_EXCLUDE")
        {
            echo "ctest in build-gpu, LIBSCAN_REQUIRE_GPU=$LIBSCAN_REQUIRE_GPU, LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
            echo "filter: ${labels[*]:-none (--large)}; time limit ${lim}s"
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

# The runs: every gpu-labelled test (not `large`, not `cli` unless --san-suites) as ctest would start it,
# plus bench_scan on small sizes, eager launches only (--no-graph; the captured
# grid scan is covered by test_device_scan). One line each: name, dir, env, command, separated
# by the ASCII unit separator (0x1f; a tab would let `read` merge an empty env field).
# A suite whose executable was not built gets an empty command (reported as not run).
make_run_list() {
    local list=$TMPD/runs.tsv
    : >"$list"
    if ((FULL_CONFIGURED)); then
        if command -v python3 >/dev/null 2>&1 &&
            (cd build-gpu && ctest -L gpu -LE large -N --show-only=json-v1) >"$TMPD/tests.json" 2>/dev/null; then
            python3 - "$TMPD/tests.json" "$SAN_SUITES" >>"$list" <<'PY'
import json, shlex, sys
data = json.load(open(sys.argv[1]))
named = sys.argv[2] != ""  # --san-suites: its names decide, the programs' scripts included
for t in data.get("tests", []):
    props = {p.get("name"): p.get("value") for p in t.get("properties", [])}
    labels = props.get("LABELS") or []
    labels = [labels] if isinstance(labels, str) else labels
    cmd = t.get("command") or []
    if "gpu" not in labels or "large" in labels or ("cli" in labels and not named):
        continue
    env = props.get("ENVIRONMENT") or []
    env = [env] if isinstance(env, str) else env
    wd = props.get("WORKING_DIRECTORY") or "."
    print("\x1f".join([t.get("name") or cmd[0], wd, shlex.join(env), shlex.join(cmd)]))
PY
        else
            # No python3: the commands from ctest's verbose listing (arguments with spaces not kept).
            (cd build-gpu && ctest -L gpu -LE large -N -V 2>/dev/null) |
                sed -n -E 's/^[0-9]+: Test command: (.*)$/\1/p' |
                while read -r cmd; do printf '%s\x1f%s\x1f\x1f%s\n' "$(basename "${cmd%% *}")" "$ROOT/build-gpu" "$cmd"; done >>"$list"
        fi
    fi
    if [[ -n $BENCH_BIN && -x $BENCH_BIN ]]; then
        printf 'bench_scan-small-sizes\x1f%s\x1f\x1f%q --types u32,u64,f32 --logs 10,13,16 --reps 2 --warmup 1 --no-graph --watchdog 0\n' \
            "$ROOT" "$BENCH_BIN" >>"$list"
    else
        printf 'bench_scan-small-sizes\x1f%s\x1f\x1f\n' "$ROOT" >>"$list"
    fi
    if [[ -n $SAN_SUITES ]]; then
        # Names matched in full; the lines left out are not runs of this command at all.
        local re="^($SAN_SUITES)\$" line
        while IFS= read -r line; do
            [[ ${line%%$'\x1f'*} =~ $re ]] && printf '%s\n' "$line"
        done <"$list" >"$list.kept"
        mv "$list.kept" "$list"
    fi
    echo "$list"
}

SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SAN_ENV="" # what every sanitizer run gets in its environment
((SAN_MAX_N > 0)) && SAN_ENV="LIBSCAN_TEST_MAX_N=$SAN_MAX_N"
SAN_MIN_SLICE=10
declare -A SAN_SUMMARY=()
SAN_RUNS=() # "tool|name|seconds|result" for each run, in order
san_log() { echo "$LOGDIR/sanitizer.log"; } # every tool: the device hands back 8 files at most

# san_weight TOOL NAME: a suite's share of TOOL's time against the others'.
# On the H100 (bench/results/2026-11-25-h100-9f5e6d6/): memcheck took 33 s for
# the sort's GPU suite (then test_radixsort_lib, now test_sort_lib) at
# LIBSCAN_TEST_MAX_N=262144, 8 s for test_segmented and 0-3 s for each other
# suite, synccheck about the same; racecheck took 33 s for test_device_scan at
# 131072, 22-42 s for test_compact_lib, and did not finish the sort's or the
# SAT library's suite in 73-95 s. An equal share timed the sort out. The names
# are ctest's (exact); SAN_WEIGHTED lists them so that a renamed suite shows up
# in the log instead of silently falling back to weight 1.
# test_sort_identity_pass: at LIBSCAN_TEST_MAX_N=65536 on the H200 (2026-11-30)
# memcheck took 52 s and synccheck 44 s, against 16 s and 12 s for test_sort_lib:
# at weight 1 its 45 s share timed memcheck out with most of the stage unused.
SAN_WEIGHTED=(test_sort_lib test_sort_identity_pass test_sat_lib test_device_scan test_segmented test_compact_lib)
# racecheck runs each suite several times slower than memcheck and synccheck
# (on the H200, 2026-11-25: memcheck and synccheck finished all nine runs in
# about 30 s each, racecheck timed four of them out after 10-76 s with 200 s
# of the budget unused), so its weights are scaled by RACE_FACTOR: a tool
# that finishes early then leaves its time to racecheck, not to itself.
RACE_FACTOR=4
san_weight() {
    local w
    case $1:$2 in
    *:test_sort_lib | *:test_sort_identity_pass) w=8 ;;
    racecheck:test_sat_lib) w=8 ;;
    racecheck:test_device_scan) w=4 ;;
    *:test_segmented | racecheck:test_compact_lib) w=2 ;;
    *) w=1 ;;
    esac
    [[ $1 == racecheck ]] && w=$((w * RACE_FACTOR))
    echo "$w"
}
# san_flags TOOL NAME: options one suite's runs add. NCCL's own host code makes
# CUDA calls that fail by design and handles the failures (on the H200 at
# d192eeb: cudaFuncGetAttributes on kernels built for other architectures,
# error 209, and peer access it has already enabled, error 704, each
# allgather). memcheck reported 234 errors in test_nccl_lib; the 20 it printed
# were all such calls, with NCCL's frames under them, and with API errors off
# it reported none. They are not libscan's errors, and the suite checks every
# libscan call's status itself, so memcheck there reports no API errors and
# still checks every kernel's memory accesses (libscan's and NCCL's).
san_flags() {
    case $1:$2 in
    memcheck:test_nccl_lib) echo --report-api-errors no ;;
    esac
}
# run_weight TOOL LIST: the summed weight of the lines of LIST that have a command.
run_weight() {
    local name wd envs cmd sum=0
    while IFS=$'\x1f' read -r name wd envs cmd; do
        [[ -n $cmd ]] && sum=$((sum + $(san_weight "$1" "$name")))
    done <"$2"
    echo "$sum"
}

# sanitize TOOL LIST DEADLINE LATER: run every line of LIST under TOOL before
# DEADLINE (in $SECONDS), output appended to $LOG. LATER: the other tools
# (space-separated) that still run LIST before the same deadline. Each run's
# time limit is the time left times its weight (san_weight) over the weight
# of the runs left (these and LATER's), recomputed before each run.
sanitize() {
    local tool=$1 list=$2 deadline=$3 later=$4 name wd envs cmd left slice out rc errs warns skipped result t1 w
    local wleft runs=0 errors=0 timeouts=0 appfail=0 unparsed=0 notrun=0 skips=0 extra=()
    [[ $tool == memcheck ]] && ((LEAK)) && extra=(--leak-check full)
    local base_extra=("${extra[@]}")
    wleft=$(run_weight "$tool" "$list")
    local later_w=0 other
    for other in $later; do later_w=$((later_w + $(run_weight "$other" "$list"))); done
    while IFS=$'\x1f' read -r name wd envs cmd; do
        t1=$SECONDS
        if [[ -z $cmd ]]; then
            notrun=$((notrun + 1))
            SAN_RUNS+=("$tool|$name|0|NOT RUN (not built)")
            logline "" "===== $tool: $name NOT RUN (its executable was not built)"
            continue
        fi
        w=$(san_weight "$tool" "$name")
        extra=("${base_extra[@]}" $(san_flags "$tool" "$name"))
        left=$((deadline - SECONDS))
        slice=$((left * w / (wleft + later_w)))
        wleft=$((wleft - w))
        ((slice < SAN_MIN_SLICE)) && slice=$SAN_MIN_SLICE
        if ((left < SAN_MIN_SLICE)); then
            notrun=$((notrun + 1))
            SAN_RUNS+=("$tool|$name|0|NOT RUN (time)")
            logline "" "===== $tool: $name NOT RUN (stage time limit)"
            continue
        fi
        out=$TMPD/san.out
        logline "" "===== $tool: $name" \
            "===== in $wd: env ${SAN_ENV:+$SAN_ENV }${envs:+$envs }$SAN --tool $tool ${extra[*]} $cmd (limit ${slice}s of ${left}s left)"
        # envs and cmd are shell-quoted by make_run_list; the suite's own env comes after SAN_ENV and wins.
        (cd "$wd" && eval "env $SAN_ENV $envs timeout -k 10 $slice \"\$SAN\" --tool $tool --error-exitcode 86 --print-limit 20 ${extra[*]} $cmd") >"$out" 2>&1
        rc=$?
        cat "$out" >>"$LOG"
        runs=$((runs + 1))
        # Past --print-limit the tool adds "ERROR SUMMARY: K errors were not
        # printed" after the total's line: the total is the line without it.
        errs=$(grep -E 'ERROR SUMMARY: [0-9]+ error' "$out" | grep -v 'not printed' | tail -1 | grep -oE 'SUMMARY: [0-9]+' | grep -oE '[0-9]+')
        [[ -z $errs ]] && errs=$(grep -oE '\([0-9]+ errors?' "$out" | tail -1 | grep -oE '[0-9]+')
        warns=$(grep -oE '[0-9]+ warnings?\)' "$out" | tail -1 | grep -oE '[0-9]+')
        skipped=$(grep -oE '\[  SKIPPED \] [0-9]+ test\(s\)' "$out" | awk '{s += $4} END {print s + 0}')
        if ((rc == 124 || rc == 137)); then
            timeouts=$((timeouts + 1))
            result="TIMED OUT after ${slice}s"
        elif [[ -z $errs ]]; then
            unparsed=$((unparsed + 1))
            result="NO SANITIZER SUMMARY (rc=$rc)"
        else
            errors=$((errors + errs))
            result="$errs error(s)${warns:+, $warns warning(s)}"
            if ((rc == 77)) && grep -q 'SKIPPED because needs a GPU' "$out"; then
                appfail=$((appfail + 1))
                result="$result; tests skipped: no usable GPU"
            elif ((rc == 77 && skipped > 0)); then
                # Skips with a GPU present: cases above LIBSCAN_TEST_MAX_N, or too little memory.
                skips=$((skips + skipped))
                result="$result, $skipped test(s) skipped"
            elif ((rc != 0 && rc != 86)); then
                appfail=$((appfail + 1))
                result="$result; FAILED (exit $rc)"
            fi
            ((errs == 0 && rc != 86)) || result="ERRORS: $result"
        fi
        SAN_RUNS+=("$tool|$name|$((SECONDS - t1))|$result")
        logline "===== $tool: $name: $result, rc=$rc"
    done <"$list"
    SAN_SUMMARY[$tool]="$tool: $runs runs, $errors errors, $timeouts timed out, $appfail failed exits, $unparsed without summary, $notrun not run, $skips tests skipped"
    ((runs > 0 && errors == 0 && timeouts == 0 && appfail == 0 && unparsed == 0 && notrun == 0))
}

if ((SANITIZE)); then
    list=$(make_run_list)
    nruns=$(wc -l <"$list")
    SAN_UNWEIGHTED=""
    # With --san-suites the weighted suites left out are meant to be; the check would only mislead.
    [[ -n $SAN_SUITES ]] && SAN_WEIGHTED=()
    for w in "${SAN_WEIGHTED[@]}"; do
        cut -d $'\x1f' -f1 "$list" | grep -qx -- "$w" || SAN_UNWEIGHTED+="${SAN_UNWEIGHTED:+ }$w"
    done
    if [[ -n $SAN_UNWEIGHTED ]]; then
        echo "note: san_weight names suites that are not among the runs: $SAN_UNWEIGHTED" \
            "(renamed, or not built?)" >>"$(san_log)"
    fi
    # Stages, each with its own deadline: memcheck, then racecheck + synccheck;
    # with --sanitizer-only, the chosen tools in one stage with all the time left.
    if ((SANONLY)); then stages=("${SAN_TOOLS[*]}"); else stages=(memcheck "racecheck synccheck"); fi
    for stage in "${stages[@]}"; do
        read -ra tools <<<"$stage"
        if ((SANONLY)); then
            lim=$(($(remaining) - 5)) # a few seconds for the summary
            ((lim < SAN_MIN_SLICE)) && lim=$SAN_MIN_SLICE
        elif [[ $stage == memcheck ]]; then
            lim=$(limit 120 memcheck)
        else
            lim=$(limit 150 racecheck)
        fi
        deadline=$((SECONDS + lim))
        for ((ti = 0; ti < ${#tools[@]}; ti++)); do
            tool=${tools[ti]}
            later="${tools[*]:ti+1}"
            t=$SECONDS
            LOG=$(san_log "$tool")
            {
                echo "######## $tool ########"
                echo "compute-sanitizer: $SAN ($("$SAN" --version 2>/dev/null | grep -m1 -i version || echo 'not found'))"
                echo "$nruns runs (gpu-labelled tests without 'large', then bench_scan on small sizes);" \
                    "${SAN_ENV:-no LIBSCAN_TEST_MAX_N}; stage limit ${lim}s shared by: ${tools[*]}; LIBSCAN_REQUIRE_GPU=$LIBSCAN_REQUIRE_GPU"
            } >>"$LOG"
            if [[ ! -x $SAN ]]; then
                record "$tool" MISSING 0 "compute-sanitizer not found"
                continue
            fi
            if ((nruns == 0)); then
                record "$tool" FAILED 0 "nothing to run (no test list, no bench_scan${SAN_SUITES:+, or none named by --san-suites $SAN_SUITES})"
                continue
            fi
            status=ok
            sanitize "$tool" "$list" "$deadline" "$later" || status=FAILED
            record "$tool" "$status" $((SECONDS - t)) "${SAN_SUMMARY[$tool]}"
        done
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
    if out_of_budget; then
        echo "bench_scan $* not run: $(remaining)s of the budget left" >"$file"
        record "$name" "NOT RUN" 0 "budget: $(remaining)s left"
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

# run_app_bench NAME TARGET CAP ARGS...: build TARGET in build-gpu, run it, its
# output appended to bench-apps.md under "# NAME".
run_app_bench() {
    local name=$1 target=$2 cap=$3 bin rc lim status
    shift 3
    t=$SECONDS
    if out_of_budget; then
        record "$name" "NOT RUN" 0 "budget: $(remaining)s left"
        return
    fi
    LOG=$LOGDIR/build.log
    # Built already with everything (or, with --bench-only, with bench_scan): this
    # only makes sure the binary is current.
    DEADLINE=$((SECONDS + $(limit 120 bench)))
    if ((PREBUILT)); then
        if [[ -z $(find build-gpu/bench -type f -name "$target" -perm -u+x 2>/dev/null | head -1) ]]; then
            record "$name" "NOT RUN" 0 "--prebuilt: $target did not come built"
            return
        fi
    elif ! ((FULL_CONFIGURED)) || ! step "build $target" cmake --build build-gpu -j "$JOBS" --target "$target"; then
        record "$name" FAILED $((SECONDS - t)) "$target not built"
        return
    fi
    bin=$(find build-gpu/bench -type f -name "$target" -perm -u+x | head -1)
    if [[ -z $bin ]]; then
        record "$name" FAILED $((SECONDS - t)) "$target built, but no executable found under build-gpu/bench"
        return
    fi
    if out_of_budget; then
        record "$name" "NOT RUN" $((SECONDS - t)) "budget: $(remaining)s left"
        return
    fi
    lim=$(limit "$cap" bench)
    timeout -k 10 "$lim" "$bin" "$@" >"$TMPD/app.md" 2>"$TMPD/app.err"
    rc=$?
    {
        echo "# $name"
        echo
        cat "$TMPD/app.md"
        echo; echo "## $target stderr (rc=$rc; limit ${lim}s)"; echo; echo '```'; cat "$TMPD/app.err"; echo '```'; echo
    } >>"$LOGDIR/bench-apps.md"
    case $rc in 0) status=ok ;; 3) status=WRONG ;; 124 | 137) status=TIMEOUT ;; *) status=FAILED ;; esac
    record "$name" "$status" $((SECONDS - t)) "$LOGDIR/bench-apps.md#$name"
}

if ((BENCH && APPS)); then
    # in_list WORD: WORD is one of --app-benches' names.
    in_list() { [[ ,$APP_BENCH_LIST, == *,$1,* ]]; }
    in_list segmented && run_app_bench bench-segmented bench_segmented 120
    in_list compact && run_app_bench bench-compact bench_compact 120
    in_list radixsort && run_app_bench bench-radixsort bench_radixsort 180
    in_list segsort && run_app_bench bench-segsort bench_segsort 180
    in_list sat && run_app_bench bench-sat bench_sat 120
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
    elif ((SANONLY)); then
        echo "tests: not run (--sanitizer-only ${SAN_TOOLS[*]})"
    else
        echo "tests: not run (--bench-only)"
    fi
    [[ -n $CT_FAILED_NAMES ]] && echo "failed tests: $CT_FAILED_NAMES"
    for tool in memcheck racecheck synccheck; do
        [[ -n ${SAN_SUMMARY[$tool]:-} ]] && echo "sanitizer ${SAN_SUMMARY[$tool]}"
    done
    [[ -n ${SAN_UNWEIGHTED:-} ]] && echo "sanitizer note: san_weight names suites not among the runs: $SAN_UNWEIGHTED"
    if ((${#SAN_RUNS[@]})); then
        echo "sanitizer runs (${SAN_ENV:-no LIBSCAN_TEST_MAX_N}):"
        for s in "${SAN_RUNS[@]}"; do
            IFS='|' read -r tl nm sec res <<<"$s"
            printf '  %-9s %-24s %4ss  %s\n' "$tl" "$nm" "$sec" "$res"
        done
    fi
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
