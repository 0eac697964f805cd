#!/usr/bin/env bash
# test_radixsort_segments_cli.sh -- radixsort --segments OFFSETS_FILE on real
# files: keys of several dtypes, offsets of several shapes (one segment,
# empty segments, many tiny ones, power-law sizes, segments of several
# thousand keys) in .npy, text and raw files; -r, --values/--values-out,
# --argsort, --in-place; and every bad offsets file and refused combination
# (exit 1, one line naming the file or option, no output left behind, the
# input untouched). Files are made and checked by an independent Python
# reference written here (stdlib only: each segment sorted by a total-order
# key with the input position breaking ties).
# usage: test_radixsort_segments_cli.sh RADIXSORT [--gpu]
# With --gpu the cases run with --device gpu (exit 77, skipped, where there
# is no usable GPU); without, with --device cpu.
set -u
RS=${1:?usage: test_radixsort_segments_cli.sh RADIXSORT [--gpu]}
dev=cpu
[[ ${2-} == --gpu ]] && dev=gpu
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to make and check the files"; exit 77; }
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
cli_init "$RS"
SEED=${LIBSCAN_TEST_SEED:-$RANDOM$RANDOM}
echo "# seed $SEED (LIBSCAN_TEST_SEED=$SEED replays)"
ok() { echo "ok: $*"; }
if [[ $dev == gpu ]]; then
    printf '2\n1\n' >"$tmp/probe.txt"
    printf '0\n2\n' >"$tmp/probe_off.txt"
    if ! "$RS" "$tmp/probe.txt" -o "$tmp/probe_out.txt" --segments "$tmp/probe_off.txt" --device gpu --quiet >/dev/null 2>&1; then
        echo "SKIP: no usable GPU: the --device gpu cases of --segments were not run"
        [[ ${LIBSCAN_REQUIRE_GPU-} == 1 ]] && exit 1
        exit 77
    fi
fi
D="--device $dev"

PY="$tmp/seg.py"
cat > "$PY" <<'PYEOF'
import struct, sys, random
CODES = {'u1':'B','u2':'H','u4':'I','u8':'Q','i1':'b','i2':'h','i4':'i','i8':'q','f4':'f','f8':'d','b1':'?'}
def write_npy(path, descr, vals):
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(vals))
    hdr = hdr + ' ' * (64 - (10 + len(hdr) + 1) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode())
        f.write(struct.pack(descr[0].replace('|', '<') + CODES[descr[1:]] * len(vals), *vals))
def read_npy(path):
    b = open(path, 'rb').read()
    hl = struct.unpack('<H', b[8:10])[0]
    descr = b[10:10 + hl].decode().split("'descr':")[1].split("'")[1]
    data = b[10 + hl:]
    n = len(data) // int(descr[2:])
    return descr, list(struct.unpack(descr[0].replace('|', '<') + CODES[descr[1:]] * n, data))
def order_key(descr, x):
    # IEEE total order for floats: -NaN < -inf < ... < -0.0 < +0.0 < ... < +NaN
    if descr[1] != 'f':
        return x
    w = int(descr[2:]) * 8
    b = struct.unpack('<' + ('I' if w == 32 else 'Q'), struct.pack('<' + CODES[descr[1:]], x))[0]
    return ((1 << w) - 1) ^ b if b >> (w - 1) else b | (1 << (w - 1))
def gen_keys(descr, n, r):
    t = descr[1:]
    if t == 'f4' or t == 'f8':
        sp = [float('nan'), -float('nan'), float('inf'), -float('inf'), 0.0, -0.0, -3.5, 2.25]
        return [r.choice(sp) if r.random() < 0.3 else r.uniform(-1e3, 1e3) for _ in range(n)]
    w = int(t[1:]) * 8
    lo, hi = (-(1 << (w - 1)), 1 << (w - 1)) if t[0] == 'i' else (0, 1 << w)
    if r.random() < 0.5:  # few distinct keys: stability shows
        pool = [r.randrange(lo, hi) for _ in range(7)]
        return [r.choice(pool) for _ in range(n)]
    return [r.randrange(lo, hi) for _ in range(n)]
def gen_offsets(shape, n, r):
    off = [0]
    if shape == 'one':
        return [0, n]
    if shape == 'empty':
        off += [0, 0]
    while off[-1] < n:
        if shape == 'empty': z = 0 if r.random() < 0.3 else r.randrange(1, 30)
        elif shape == 'tiny': z = r.randrange(0, 5)
        elif shape == 'power': z = int(1 / (1 - r.random()) ** 2)
        elif shape == 'big': z = r.choice([4095, 4096, 4097, 9000, 1, 0])
        else: raise SystemExit('bad shape')
        off.append(min(n, off[-1] + z))
    if shape == 'empty':
        off += [n, n]
    return off
def write_any(path, descr, vals):
    if path.endswith('.npy'): write_npy(path, descr, vals)
    elif path.endswith('.txt'): open(path, 'w').write(''.join('%d\n' % v for v in vals))
    else: open(path, 'wb').write(struct.pack('<' + CODES[descr[1:]] * len(vals), *vals))
def read_offsets(path):
    if path.endswith('.npy'): return read_npy(path)[1]
    if path.endswith('.txt'): return [int(l) for l in open(path)]
    b = open(path, 'rb').read(); return list(struct.unpack('<%dI' % (len(b) // 4), b))
cmd = sys.argv[1]
if cmd == 'keys':      # keys PATH DESCR N SEED
    r = random.Random(int(sys.argv[5]))
    write_npy(sys.argv[2], sys.argv[3], gen_keys(sys.argv[3], int(sys.argv[4]), r))
elif cmd == 'vals':    # vals PATH N SEED
    r = random.Random(int(sys.argv[4]))
    write_npy(sys.argv[2], '<i8', [r.randrange(-(1 << 63), 1 << 63) for _ in range(int(sys.argv[3]))])
elif cmd == 'offsets': # offsets PATH DESCR SHAPE N SEED
    r = random.Random(int(sys.argv[6]))
    write_any(sys.argv[2], sys.argv[3], gen_offsets(sys.argv[4], int(sys.argv[5]), r))
elif cmd == 'list':    # list PATH DESCR V0 V1 ...
    write_any(sys.argv[2], sys.argv[3], [int(v) for v in sys.argv[4:]])
elif cmd == 'check':   # check KEYS OFFSETS OUT [desc] [argsort] [values=IN,OUT]
    descr, keys = read_npy(sys.argv[2])
    off = read_offsets(sys.argv[3])
    flags = sys.argv[5:]
    desc, arg = 'desc' in flags, 'argsort' in flags
    perm = []
    for s in range(len(off) - 1):
        seg = range(off[s], off[s + 1])
        k = lambda i: order_key(descr, keys[i])
        perm += sorted(seg, key=lambda i: (-k(i) if desc else k(i), i))
    odescr, out = read_npy(sys.argv[4])
    bits = lambda x: struct.pack('<' + CODES[descr[1:]], x)
    if arg:
        good = odescr == '<i8' and out == perm
    else:
        good = odescr == descr and [bits(x) for x in out] == [bits(keys[i]) for i in perm]
    vals = [f for f in flags if f.startswith('values=')]
    if good and vals:
        vin, vout = vals[0][7:].split(',')
        good = read_npy(vout)[1] == [read_npy(vin)[1][i] for i in perm]
    if not good:
        raise SystemExit('mismatch')
else:
    raise SystemExit('bad command')
PYEOF
py() { python3 "$PY" "$@"; }
check() { # check NAME KEYS OFFSETS OUT FLAGS...
    local name=$1; shift
    if py check "$@"; then ok "$name"; else fail "$name: output differs from the reference"; fi
}
expect_error() { # expect_error NAME OUTFILE MENTION CMD...
    local name=$1 out=$2 mention=$3 before=$failures
    shift 3
    expect_cmd 1 "$name" "$@" && one_line "$name" "$mention" && no_file "$name" "$out"
    if ((failures == before)); then ok "$name: $(cat "$tmp/err")"; fi
}

# ---- good cases -----------------------------------------------------------
n=12007
i=0
for descr in '<u4' '<f4' '<i2' '|u1' '<f8' '<i8'; do
    for shape in one empty tiny power big; do
        i=$((i + 1))
        py keys "$tmp/k.npy" "$descr" $n $((SEED + i))
        py offsets "$tmp/off.npy" '<i8' $shape $n $((SEED + i))
        name="$descr $shape"
        expect_cmd 0 "$name" "$RS" "$tmp/k.npy" -o "$tmp/o.npy" --segments "$tmp/off.npy" $D --quiet &&
            check "$name" "$tmp/k.npy" "$tmp/off.npy" "$tmp/o.npy" asc
        expect_cmd 0 "$name -r" "$RS" "$tmp/k.npy" -r -o "$tmp/o.npy" --segments "$tmp/off.npy" $D --quiet &&
            check "$name -r" "$tmp/k.npy" "$tmp/off.npy" "$tmp/o.npy" asc desc
    done
done
# Offsets in every file format and integer dtype.
py keys "$tmp/k.npy" '<u4' $n "$SEED"
for f in "off.txt int64" "off.npy <u8" "off.npy <i4" "off.npy >i8" "off.bin <u4"; do
    set -- $f
    py offsets "$tmp/$1" "$2" power $n "$SEED"
    extra=()
    [[ $1 == off.bin ]] && extra=(--dtype u32)
    expect_cmd 0 "offsets $f" "$RS" "$tmp/k.npy" -o "$tmp/o.npy" --segments "$tmp/$1" "${extra[@]}" $D --quiet &&
        check "offsets $f" "$tmp/k.npy" "$tmp/$1" "$tmp/o.npy" asc
done
# --values, --argsort, --in-place.
py offsets "$tmp/off.npy" '<i8' empty $n "$SEED"
py vals "$tmp/v.npy" $n "$SEED"
expect_cmd 0 "--values" "$RS" "$tmp/k.npy" --values "$tmp/v.npy" --values-out "$tmp/vo.npy" -o "$tmp/o.npy" \
    --segments "$tmp/off.npy" $D --quiet &&
    check "--values" "$tmp/k.npy" "$tmp/off.npy" "$tmp/o.npy" asc "values=$tmp/v.npy,$tmp/vo.npy"
expect_cmd 0 "--values -r" "$RS" "$tmp/k.npy" -r --values "$tmp/v.npy" --values-out "$tmp/vo.npy" -o "$tmp/o.npy" \
    --segments "$tmp/off.npy" $D --quiet &&
    check "--values -r" "$tmp/k.npy" "$tmp/off.npy" "$tmp/o.npy" asc desc "values=$tmp/v.npy,$tmp/vo.npy"
expect_cmd 0 "--argsort" "$RS" "$tmp/k.npy" --argsort -o "$tmp/o.npy" --segments "$tmp/off.npy" $D --quiet &&
    check "--argsort" "$tmp/k.npy" "$tmp/off.npy" "$tmp/o.npy" asc argsort
cp "$tmp/k.npy" "$tmp/k_in.npy"
expect_cmd 0 "--in-place" "$RS" "$tmp/k_in.npy" --in-place --segments "$tmp/off.npy" $D --quiet &&
    check "--in-place" "$tmp/k.npy" "$tmp/off.npy" "$tmp/k_in.npy" asc
# No keys: offsets [0] or [0, 0, 0].
py list "$tmp/k0.npy" '<u4'
py list "$tmp/z1.txt" '<i8' 0
py list "$tmp/z3.txt" '<i8' 0 0 0
for z in z1 z3; do
    expect_cmd 0 "no keys, $z" "$RS" "$tmp/k0.npy" -o "$tmp/o0.npy" --segments "$tmp/$z.txt" $D --quiet &&
        check "no keys, $z" "$tmp/k0.npy" "$tmp/$z.txt" "$tmp/o0.npy" asc
done

# ---- bad offsets and refused combinations ----------------------------------
rm -f "$tmp/o.npy"
py keys "$tmp/k.npy" '<u4' 100 "$SEED"
cp "$tmp/k.npy" "$tmp/k_orig.npy"
bad() { # bad NAME MENTION DESCR VALUES...
    local name=$1 mention=$2 descr=$3
    shift 3
    py list "$tmp/bad.npy" "$descr" "$@"
    expect_error "$name" "$tmp/o.npy" "$mention" "$RS" "$tmp/k.npy" -o "$tmp/o.npy" --segments "$tmp/bad.npy" $D
}
bad "first offset not 0" "first offset is 1" '<i8' 1 50 100
bad "decreasing offsets" "less than offset 1" '<i8' 0 60 50 100
bad "last offset short" "the last offset is 99" '<i8' 0 50 99
bad "last offset beyond" "the last offset is 101" '<i8' 0 50 101
bad "negative offset" "negative" '<i8' 0 -5 100
bad "float offsets" "must be integers" '<f8' 0 50 100
bad "bool offsets" "must be integers" '|b1' 0 1
bad "no offsets" "no offsets" '<i8'
printf '0\n50\nabc\n100\n' >"$tmp/bad.txt"
expect_error "malformed text offsets" "$tmp/o.npy" "bad.txt" "$RS" "$tmp/k.npy" -o "$tmp/o.npy" --segments "$tmp/bad.txt" $D
expect_error "missing offsets file" "$tmp/o.npy" "nope.npy" "$RS" "$tmp/k.npy" -o "$tmp/o.npy" --segments "$tmp/nope.npy" $D
expect_error "--segments without a value" "$tmp/o.npy" "segments" "$RS" "$tmp/k.npy" -o "$tmp/o.npy" $D --segments
py list "$tmp/good.npy" '<i8' 0 50 100
expect_error "--unique with --segments" "$tmp/o.npy" "--unique" "$RS" "$tmp/k.npy" -u -o "$tmp/o.npy" --segments "$tmp/good.npy" $D
expect_cmd 1 "--check with --segments" "$RS" "$tmp/k.npy" -c --segments "$tmp/good.npy" $D &&
    one_line "--check with --segments" "--check"
expect_error "over the memory limit" "$tmp/o.npy" "in memory only" "$RS" "$tmp/k.npy" -o "$tmp/o.npy" \
    --segments "$tmp/good.npy" --mem-limit 100 $D
cmp -s "$tmp/k.npy" "$tmp/k_orig.npy" || fail "an error case changed the input"
# An existing output survives every error.
echo "keep me" >"$tmp/keep.npy"
py list "$tmp/bad.npy" '<i8' 0 60 50 100
expect_cmd 1 "old output kept" "$RS" "$tmp/k.npy" -o "$tmp/keep.npy" --segments "$tmp/bad.npy" $D
[[ $(cat "$tmp/keep.npy") == "keep me" ]] || fail "an error replaced the existing output"

cli_finish "radixsort --segments ($dev)"
