#!/usr/bin/env bash
# bench_files.sh -- radixsort and compact end to end on 1 GiB .npy files
# (issue 21's targets), beside cp of the same file and what a user would run
# instead (numpy), in one run with a warm page cache. Writes a markdown table
# with medians and ratios to stdout, then each program's --timing breakdown.
#
#   bash bench/programs/bench_files.sh BUILD_DIR [WORK_DIR] [--rounds N] [--no-4g] [--keep] [--small]
#                                      [--budget S]
#
# BUILD_DIR holds apps/radixsort/radixsort and apps/compact/compact. WORK_DIR
# (default BUILD_DIR/bench_files) receives the inputs, made once with numpy
# and kept between runs unless missing or of another size (seed 21): k.npy, 2^28 random uint32
# (1 GiB); x.npy, 2^28 normal float32 (1 GiB); big.npy, 2^30 random uint32
# (4 GiB, for the out-of-core sort; --no-4g leaves it out). The outputs are
# deleted at the end (--keep keeps them and the inputs stay anyway).
# --small runs everything on 2^22-element inputs (16 MiB, 64 MiB), to try
# the script itself on a small machine; its numbers mean nothing.
#
# Method: every input is read once (cat) so the page cache holds it; every
# command runs once untimed (CUDA context, calibration of --mem-limit to 8
# chunks); then the commands of a group run interleaved (A B C A B C ...),
# --rounds times (default 5; fewer where a group's rounds would not fit its
# share of --budget, default 420 s: the table says how many ran), each with its
# output deleted and the earlier outputs written back (sync) beforehand
# (outside the timing). Times are wall seconds of
# the whole process (bash's EPOCHREALTIME). Every output of the last round
# is checked against numpy (np.sort, x[x > 0.5]) before the table is shown.
#
# Targets (issue 21): radixsort on k.npy <= 1.5x cp and <= 0.7 s;
# compact --gt 0.5 on x.npy <= 1.5x cp; radixsort --device cpu <= 0.5x
# numpy load+sort+save; big.npy with --mem-limit forcing 8 chunks <= 2.5x cp.
set -euo pipefail
export LC_ALL=C
usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; }
build="" work="" rounds=5 with4g=1 keep=0 log2n=28 budget=420
while (($#)); do
    case $1 in
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    --no-4g) with4g=0; shift ;;
    --budget) budget=${2:?--budget needs seconds}; shift 2 ;;
    --keep) keep=1; shift ;;
    --small) log2n=22; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "bench_files.sh: unknown option $1" >&2; exit 2 ;;
    *) if [[ -z $build ]]; then build=$1; elif [[ -z $work ]]; then work=$1; else echo "bench_files.sh: too many arguments" >&2; exit 2; fi; shift ;;
    esac
done
[[ -n $build ]] || { usage >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench_files.sh: --rounds must be a positive integer" >&2; exit 2; }
[[ $budget =~ ^[1-9][0-9]*$ ]] || { echo "bench_files.sh: --budget must be a positive number of seconds" >&2; exit 2; }
RS=$build/apps/radixsort/radixsort
CP=$build/apps/compact/compact
for p in "$RS" "$CP"; do [[ -x $p ]] || { echo "bench_files.sh: $p is not built" >&2; exit 2; }; done
python3 -c 'import numpy' 2>/dev/null || { echo "bench_files.sh: python3 with numpy is needed (inputs, the numpy rows, the checks)" >&2; exit 2; }
work=${work:-$build/bench_files}
mkdir -p "$work"
start=$EPOCHREALTIME
elapsed() { awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }
note() { echo "bench_files.sh: $* (at $(elapsed) s)" >&2; }

# ---- inputs ---------------------------------------------------------------------
need_gb=$(((with4g ? 18 : 6) >> (28 - log2n)))
avail_gb=$(df -Pk "$work" | awk 'NR == 2 { printf "%d", $4 / 1048576 }')
if ((avail_gb < need_gb)); then
    if ((with4g)); then note "only ${avail_gb} GiB free in $work: leaving out the 4 GiB case"; with4g=0; fi
fi
note "making inputs in $work (once; kept for later runs)"
python3 - "$work" "$with4g" "$log2n" <<'PYEOF'
import os, sys
import numpy as np
work, with4g, log2n = sys.argv[1], sys.argv[2] == '1', int(sys.argv[3])
rng = np.random.default_rng(21)
def have(path, n, itemsize):
    # a .npy of n elements: 128-byte header + data
    return os.path.exists(path) and os.path.getsize(path) == 128 + n * itemsize
n = 1 << log2n
if not have(f'{work}/k.npy', n, 4):
    np.save(f'{work}/k.npy', rng.integers(0, 1 << 32, size=n, dtype=np.uint32))
if not have(f'{work}/x.npy', n, 4):
    np.save(f'{work}/x.npy', rng.standard_normal(n, dtype=np.float32))
if with4g and not have(f'{work}/big.npy', 4 * n, 4):
    np.save(f'{work}/big.npy', rng.integers(0, 1 << 32, size=4 * n, dtype=np.uint32))
PYEOF
inputs=("$work/k.npy" "$work/x.npy")
((with4g)) && inputs+=("$work/big.npy")
cat "${inputs[@]}" >/dev/null # into the page cache
# Inputs just made are still being written back (GiBs of dirty pages): that
# would compete with the first timed rounds, so it finishes first.
sync

# ---- the commands -------------------------------------------------------------------
declare -A CMD OUT
add() { # add NAME OUTPUT COMMAND...
    local name=$1 out=$2
    shift 2
    OUT[$name]=$out
    CMD[$name]=$(printf '%q ' "$@")
}
NPSORT='import numpy as np, sys; a = np.load(sys.argv[1]); a.sort(); np.save(sys.argv[2], a)'
NPFILT='import numpy as np, sys; a = np.load(sys.argv[1]); np.save(sys.argv[2], a[a > 0.5])'
add cp_k "$work/o_cp_k.npy" cp "$work/k.npy" "$work/o_cp_k.npy"
add rs "$work/o_rs.npy" "$RS" "$work/k.npy" -o "$work/o_rs.npy" --quiet
add rs_cpu "$work/o_rs_cpu.npy" "$RS" "$work/k.npy" -o "$work/o_rs_cpu.npy" --device cpu --quiet
add np_sort "$work/o_np_sort.npy" python3 -c "$NPSORT" "$work/k.npy" "$work/o_np_sort.npy"
add cp_x "$work/o_cp_x.npy" cp "$work/x.npy" "$work/o_cp_x.npy"
add compact "$work/o_compact.npy" "$CP" "$work/x.npy" "$work/o_compact.npy" --gt 0.5 --quiet
add np_filter "$work/o_np_filter.npy" python3 -c "$NPFILT" "$work/x.npy" "$work/o_np_filter.npy"
if ((with4g)); then
    add cp_big "$work/o_cp_big.npy" cp "$work/big.npy" "$work/o_cp_big.npy"
    # --mem-limit for 8 chunks: radixsort's in-memory budget is about 17
    # bytes per u32 key (4 buffers of keys and a look-back byte); calibrated
    # below from the note it prints ("sorted N chunks").
    memlimit=$(((1 << (log2n - 1)) * 17))
fi

# run NAME: runs it once, output deleted first; prints the wall seconds.
run() {
    local name=$1
    rm -f "${OUT[$name]}"
    # The last command's GiB of output is still being written back to the
    # disk; it finishes first, so that no command pays for its predecessor.
    sync
    local t0=$EPOCHREALTIME
    if ! eval "${CMD[$name]}" >"$work/last.out" 2>"$work/last.err"; then
        echo "bench_files.sh: $name failed: $(head -c 400 "$work/last.err")" >&2
        exit 1
    fi
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f\n", b - a }'
}

if ((with4g)); then
    add rs_big "$work/o_rs_big.npy" "$RS" "$work/big.npy" -o "$work/o_rs_big.npy" --mem-limit "$memlimit"
    for try in 1 2 3; do
        note "calibrating --mem-limit $memlimit (try $try)"
        run rs_big >/dev/null
        chunks=$(sed -n 's/.*sorted \([0-9]*\) chunks.*/\1/p' "$work/last.err" | head -1)
        [[ -z $chunks || $chunks == 8 ]] && break
        memlimit=$((memlimit * chunks / 8))
        add rs_big "$work/o_rs_big.npy" "$RS" "$work/big.npy" -o "$work/o_rs_big.npy" --mem-limit "$memlimit"
    done
    [[ ${chunks:-} == 8 ]] || note "warning: --mem-limit $memlimit gives ${chunks:-no} chunks, not 8"
fi

# ---- timed rounds, interleaved per group ------------------------------------------------
declare -A TIMES ROUNDS
group() { # group BUDGET_S NAME...: warm-up, then interleaved rounds within the budget
    local budget=$1
    shift
    local n est=0 r
    for n in "$@"; do
        note "warm-up: $n"
        t=$(run "$n")
        est=$(awk -v a="$est" -v b="$t" 'BEGIN { print a + b }')
        TIMES[$n]=""
    done
    r=$(awk -v e="$est" -v b="$budget" -v m="$rounds" 'BEGIN { k = int(b / (e > 0 ? e : 1)); if (k > m) k = m; if (k < 1) k = 1; print k }')
    local i
    for ((i = 1; i <= r; ++i)); do
        note "round $i of $r: $*"
        for n in "$@"; do TIMES[$n]+="$(run "$n") "; done
    done
    for n in "$@"; do ROUNDS[$n]=$r; done
}
# The groups' shares of --budget (default 420 s): 40%, 20%, 40%.
group $((budget * 40 / 100)) cp_k rs rs_cpu np_sort
group $((budget * 20 / 100)) cp_x compact np_filter
((with4g)) && group $((budget * 40 / 100)) cp_big rs_big

# ---- every output of the last round against numpy ----------------------------------------
note "checking the outputs against numpy"
check_args=("$work" "$with4g")
python3 - "${check_args[@]}" <<'PYEOF'
import sys
import numpy as np
work, with4g = sys.argv[1], sys.argv[2] == '1'
bad = []
def same(path, want):
    got = np.load(path)
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
        bad.append(f'{path}: differs from numpy ({got.dtype}{got.shape} vs {want.dtype}{want.shape})')
k = np.load(f'{work}/k.npy')
ks = np.sort(k)
for o in ('o_rs', 'o_rs_cpu', 'o_np_sort'):
    same(f'{work}/{o}.npy', ks)
del k, ks
x = np.load(f'{work}/x.npy')
xf = x[x > 0.5]
for o in ('o_compact', 'o_np_filter'):
    same(f'{work}/{o}.npy', xf)
del x, xf
if with4g:
    same(f'{work}/o_rs_big.npy', np.sort(np.load(f'{work}/big.npy')))
for b in bad:
    print('bench_files.sh: ' + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF

# ---- the table ---------------------------------------------------------------------------
stats() { # stats NAME -> "median min max"
    tr ' ' '\n' <<<"${TIMES[$1]}" | awk 'NF' | sort -n | awk '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f", m, v[1], v[NR] }'
}
med() { stats "$1" | awk '{ print $1 }'; }
ratio() { awk -v a="$(med "$1")" -v b="$(med "$2")" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v ok="$1" 'BEGIN { print (ok ? "**met**" : "not met") }'; }
row() { # row LABEL NAME BASELINE_LABEL BASELINE_NAME TARGET_TEXT MET(0/1 or -)
    read -r m lo hi <<<"$(stats "$2")"
    local vs="" v=""
    [[ -n $4 ]] && vs="$(ratio "$2" "$4")x $3"
    [[ $6 != - ]] && v=$(verdict "$6")
    echo "| $1 | $m | $lo .. $hi | ${ROUNDS[$2]} | $vs | $5 | $v |"
}
le() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? 1 : 0 }'; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
commit=${LIBSCAN_COMMIT:-$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)} # the GPU machine's copy of .git may be stale
echo "## radixsort and compact end to end (issue 21), 2^$log2n-element inputs"
echo
echo "GPU: ${gpu:-none}; $(nproc) CPUs; commit $commit; $(date -u '+%Y-%m-%d %H:%M UTC'); warm page cache;"
echo "wall seconds of the whole process, median of interleaved rounds (after one untimed run each);"
echo "every output checked against numpy. LIBSCAN_IO_THREADS=${LIBSCAN_IO_THREADS:-default}, LIBSCAN_STREAM_CHUNK=${LIBSCAN_STREAM_CHUNK:-default}."
echo
echo "| command | median s | range s | rounds | ratio | target | |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
rs_ok=$(($(le "$(ratio rs cp_k)" 1.5) && $(le "$(med rs)" 0.7)))
mib=$(((4 << log2n) >> 20))
row "\`cp\` k.npy ($mib MiB u32)" cp_k "" "" "" -
row "\`radixsort k.npy -o o.npy\`" rs "cp" cp_k "<= 1.5x cp and <= 0.7 s" "$rs_ok"
row "\`radixsort k.npy -o o.npy --device cpu\`" rs_cpu "numpy" np_sort "<= 0.5x numpy" "$(le "$(ratio rs_cpu np_sort)" 0.5)"
row "numpy load + sort + save" np_sort "cp" cp_k "" -
row "\`cp\` x.npy ($mib MiB f32)" cp_x "" "" "" -
row "\`compact x.npy c.npy --gt 0.5\`" compact "cp" cp_x "<= 1.5x cp" "$(le "$(ratio compact cp_x)" 1.5)"
row "numpy load + x[x > 0.5] + save" np_filter "cp" cp_x "" -
if ((with4g)); then
    row "\`cp\` big.npy ($((4 * mib)) MiB u32)" cp_big "" "" "" -
    row "\`radixsort big.npy --mem-limit $memlimit\` (${chunks:-?} chunks)" rs_big "cp" cp_big "<= 2.5x cp" "$(le "$(ratio rs_big cp_big)" 2.5)"
fi
echo
echo "Extra ratios: radixsort vs numpy $(ratio rs np_sort)x; compact vs numpy $(ratio compact np_filter)x."

# ---- where the time goes (--timing of one more run each) -----------------------------------
echo
echo "### --timing of one more run each"
timed=(rs rs_cpu compact)
((with4g)) && timed+=(rs_big)
for n in "${timed[@]}"; do
    rm -f "${OUT[$n]}"
    eval "${CMD[$n]} --timing" >/dev/null 2>"$work/timing.txt" || true
    echo
    echo "\`$n\`:"
    echo '```'
    grep -v '^radixsort: note' "$work/timing.txt" || true
    echo '```'
done

if ((keep == 0)); then rm -f "$work"/o_*.npy "$work/last.out" "$work/last.err" "$work/timing.txt"; fi
note "done"
