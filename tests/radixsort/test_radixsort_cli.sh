#!/usr/bin/env bash
# test_radixsort_cli.sh -- the radixsort program on real files: every flag,
# the chunk-and-merge path (--mem-limit and RADIXSORT_MEM_LIMIT), and bad
# input (one line on stderr, exit 1, no output file left behind, input
# untouched). Files are made and checked by an independent Python reference
# (stdlib only: struct, sorted with a total-order key).
# usage: test_radixsort_cli.sh path/to/radixsort
set -u
RS=${1:?usage: test_radixsort_cli.sh RADIXSORT}
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to make and check the files"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SEED=${LIBSCAN_TEST_SEED:-$RANDOM$RANDOM}
echo "# seed $SEED (LIBSCAN_TEST_SEED=$SEED replays)"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

PY="$T/npy.py"
cat > "$PY" <<'PYEOF'
import struct, sys, random, math
CODES = {'u1':'B','u2':'H','u4':'I','u8':'Q','i1':'b','i2':'h','i4':'i','i8':'q','f4':'f','f8':'d','f2':'e'}
def write_npy(path, descr, vals, version=1, endian='<'):
    fmt = CODES[descr[1:]]
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(vals))
    pre = 10 if version == 1 else 12
    pad = 64 - (pre + len(hdr) + 1) % 64
    hdr = hdr + ' ' * pad + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY' + bytes([version, 0]))
        f.write(struct.pack('<H' if version == 1 else '<I', len(hdr)))
        f.write(hdr.encode())
        f.write(struct.pack(descr[0] + fmt * len(vals), *vals))
def read_npy(path):
    b = open(path, 'rb').read()
    v = b[6]
    hl = struct.unpack('<H', b[8:10])[0] if v == 1 else struct.unpack('<I', b[8:12])[0]
    off = 10 if v == 1 else 12
    h = b[off:off + hl].decode()
    descr = h.split("'descr':")[1].split("'")[1]
    data = b[off + hl:]
    size = int(descr[2:])
    n = len(data) // size
    return descr, list(struct.unpack(descr[0] + CODES[descr[1:]] * n, data))
def bits(descr, x):
    fmt = CODES[descr[1:]]
    u = {'f':'I','d':'Q','e':'H'}.get(fmt)
    return struct.unpack('<' + u, struct.pack('<' + fmt, x))[0] if u else x
def order_key(descr, x):
    # total order: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN (by bits within NaNs)
    if descr[1] != 'f':
        return x
    w = int(descr[2:]) * 8
    b = bits(descr, x)
    return ((1 << w) - 1) ^ b if b >> (w - 1) else b | (1 << (w - 1))
def gen(kind, n, seed):
    r = random.Random(seed)
    if kind == 'u4': return [r.randrange(1 << 32) for _ in range(n)]
    if kind == 'u4dup': return [r.randrange(16) for _ in range(n)]
    if kind == 'i8': return [r.randrange(-(1 << 63), 1 << 63) for _ in range(n)]
    if kind == 'i2': return [r.randrange(-(1 << 15), 1 << 15) for _ in range(n)]
    if kind == 'f4':
        sp = [float('nan'), -float('nan'), float('inf'), -float('inf'), 0.0, -0.0, 1e-45, -1e-45, 1e-40, -3.5]
        return [r.choice(sp) if r.random() < 0.3 else struct.unpack('<f', struct.pack('<f', r.uniform(-1e6, 1e6)))[0] for _ in range(n)]
    if kind == 'f8': return [r.uniform(-1, 1) for _ in range(n)]
    raise SystemExit('bad kind')
cmd = sys.argv[1]
if cmd == 'make':          # make PATH DESCR KIND N SEED [version endian]
    path, descr, kind, n, seed = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
    ver = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    write_npy(path, sys.argv[8] + descr[1:] if len(sys.argv) > 8 else descr, gen(kind, n, seed), ver)
elif cmd == 'iota':        # iota PATH DESCR N
    write_npy(sys.argv[2], sys.argv[3], list(range(int(sys.argv[4]))))
elif cmd == 'check':       # check IN OUT [desc] [unique] [argsort] [VALUES VALUES_OUT]
    _, keys = read_npy(sys.argv[2]); descr, _ = read_npy(sys.argv[2])
    odescr, out = read_npy(sys.argv[3])
    flags = sys.argv[4:]
    desc, uniq, arg = 'desc' in flags, 'unique' in flags, 'argsort' in flags
    k = lambda i: order_key(descr, keys[i])
    perm = sorted(range(len(keys)), key=lambda i: (-k(i) if desc else k(i), i))
    if uniq:
        p2 = []
        for i in perm:
            if not p2 or k(p2[-1]) != k(i): p2.append(i)
        perm = p2
    if arg:
        ok = out == perm
    else:
        ok = [bits(descr, x) for x in out] == [bits(descr, keys[i]) for i in perm] and odescr[1:] == descr[1:]
    vals = [f for f in flags if f.startswith('values=')]
    if ok and vals:
        vin, vout = vals[0][7:].split(',')
        _, v = read_npy(vin); _, vo = read_npy(vout)
        ok = vo == [v[i] for i in perm]
    if not ok:
        raise SystemExit('mismatch')
elif cmd == 'truncate':    # truncate PATH BYTES
    b = open(sys.argv[2], 'rb').read(); open(sys.argv[2], 'wb').write(b[:len(b) - int(sys.argv[3])])
elif cmd == 'npyhdr':      # npyhdr PATH DESCR N (header only + n*8 bytes)
    write_npy(sys.argv[2], '<u8', [0] * int(sys.argv[4]))
    b = bytearray(open(sys.argv[2], 'rb').read())
    s = b.replace(b"'<u8'", ("'%s'" % sys.argv[3]).encode().ljust(5))
    open(sys.argv[2], 'wb').write(s)
PYEOF
py() { python3 "$PY" "$@"; }

# Expect an error: exit 1, exactly one line on stderr, and no file at $2 (or none new).
expect_error() { # expect_error NAME OUTFILE CMD...
    local name=$1 out=$2; shift 2
    "$@" >"$T/so" 2>"$T/se"; local rc=$?
    local lines; lines=$(wc -l <"$T/se")
    if [ $rc -ne 1 ]; then fail "$name: exit $rc, expected 1 ($(cat "$T/se"))"; return; fi
    if [ "$lines" -ne 1 ]; then fail "$name: $lines lines on stderr: $(cat "$T/se")"; return; fi
    if [ -n "$out" ] && [ -e "$out" ]; then fail "$name: output $out left behind"; return; fi
    if ls -a "$T" | grep -q '^\.[^.].*\.[A-Za-z0-9]\{6\}$'; then fail "$name: temporary file left in $T"; return; fi
    ok "$name: $(cat "$T/se")"
}
run_ok() { # run_ok NAME CMD...
    local name=$1; shift
    "$@" >"$T/so" 2>"$T/se"; local rc=$?
    if [ $rc -ne 0 ]; then fail "$name: exit $rc: $(cat "$T/se")"; return 1; fi
    return 0
}
check() { # check NAME IN OUT FLAGS...
    local name=$1; shift
    if py check "$@"; then ok "$name"; else fail "$name: output differs from the reference"; fi
}

D="--device cpu"
# --device auto uses the GPU when there is one (same results), so run both.
for DEV in "--device cpu" "--device auto"; do
  tag=${DEV#--device }
  py make "$T/u4.npy" '<u4' u4 20011 "$SEED"
  run_ok "$tag u32" "$RS" "$T/u4.npy" -o "$T/o.npy" $DEV --quiet && check "$tag u32 ascending" "$T/u4.npy" "$T/o.npy"
  run_ok "$tag -r" "$RS" "$T/u4.npy" -r -o "$T/o.npy" $DEV --quiet && check "$tag -r" "$T/u4.npy" "$T/o.npy" desc
  run_ok "$tag --reverse" "$RS" "$T/u4.npy" --reverse --output "$T/o.npy" $DEV --quiet && check "$tag --reverse" "$T/u4.npy" "$T/o.npy" desc
  py make "$T/dup.npy" '<u4' u4dup 5000 "$SEED"
  py iota "$T/vals.npy" '<i8' 5000
  run_ok "$tag --values" "$RS" "$T/dup.npy" --values "$T/vals.npy" --values-out "$T/vo.npy" -o "$T/o.npy" $DEV --quiet &&
    check "$tag --values (stable)" "$T/dup.npy" "$T/o.npy" "values=$T/vals.npy,$T/vo.npy"
  run_ok "$tag --values -r" "$RS" "$T/dup.npy" --values="$T/vals.npy" --values-out="$T/vo.npy" -r -o "$T/o.npy" $DEV --quiet &&
    check "$tag --values -r (stable)" "$T/dup.npy" "$T/o.npy" desc "values=$T/vals.npy,$T/vo.npy"
  run_ok "$tag --argsort" "$RS" "$T/dup.npy" --argsort -o "$T/o.npy" $DEV --quiet && check "$tag --argsort" "$T/dup.npy" "$T/o.npy" argsort
  run_ok "$tag -u" "$RS" "$T/dup.npy" -u -o "$T/o.npy" $DEV --quiet && check "$tag -u" "$T/dup.npy" "$T/o.npy" unique
  run_ok "$tag --unique --values" "$RS" "$T/dup.npy" --unique --values "$T/vals.npy" --values-out "$T/vo.npy" -o "$T/o.npy" $DEV --quiet &&
    check "$tag --unique --values" "$T/dup.npy" "$T/o.npy" unique "values=$T/vals.npy,$T/vo.npy"
  for spec in "<i8 i8" "<i2 i2" "<f4 f4" "<f8 f8" ">u4 u4"; do
    set -- $spec
    py make "$T/t.npy" "$1" "$2" 7001 "$SEED" 2
    run_ok "$tag $1" "$RS" "$T/t.npy" -o "$T/o.npy" $DEV --quiet && check "$tag $1 (npy v2)" "$T/t.npy" "$T/o.npy"
    run_ok "$tag $1 -r" "$RS" "$T/t.npy" -o "$T/o.npy" -r $DEV --quiet && check "$tag $1 -r" "$T/t.npy" "$T/o.npy" desc
  done
done

# Chunk-and-merge: a memory limit far below the input forces it; same results.
py make "$T/big.npy" '<f4' f4 30000 "$SEED"
py make "$T/bigdup.npy" '<u4' u4dup 30000 "$SEED"
py iota "$T/bigv.npy" '<u4' 30000
run_ok "chunked" "$RS" "$T/big.npy" -o "$T/o.npy" --mem-limit 20000 --device cpu &&
  { grep -q "chunks" "$T/se" && ok "chunked: note on stderr" || fail "chunked: no note about chunks"; } &&
  check "chunked f32 (--mem-limit)" "$T/big.npy" "$T/o.npy"
run_ok "chunked env" env RADIXSORT_MEM_LIMIT=50000 "$RS" "$T/bigdup.npy" -r --values "$T/bigv.npy" --values-out "$T/vo.npy" -o "$T/o.npy" --quiet &&
  check "chunked -r --values (RADIXSORT_MEM_LIMIT, auto device)" "$T/bigdup.npy" "$T/o.npy" desc "values=$T/bigv.npy,$T/vo.npy"
run_ok "chunked argsort" "$RS" "$T/bigdup.npy" --argsort -o "$T/o.npy" --mem-limit 30000 --quiet --device cpu &&
  check "chunked --argsort" "$T/bigdup.npy" "$T/o.npy" argsort
run_ok "chunked unique" "$RS" "$T/bigdup.npy" -u -o "$T/o.npy" --mem-limit 30000 --quiet --device cpu &&
  check "chunked -u" "$T/bigdup.npy" "$T/o.npy" unique

# Text and raw files.
printf '5\n-3\n10\n0\n-3\n' > "$T/k.txt"
run_ok "text" "$RS" "$T/k.txt" -o "$T/o.txt" --device cpu --quiet &&
  { [ "$(tr '\n' ' ' < "$T/o.txt")" = "-3 -3 0 5 10 " ] && ok "text" || fail "text: got $(tr '\n' ' ' < "$T/o.txt")"; }
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<5H',9,1,65535,3,1))" "$T/k.bin"
run_ok "raw" "$RS" "$T/k.bin" --dtype u16 -o "$T/o.bin" --device cpu --quiet &&
  { python3 -c "import struct,sys; assert struct.unpack('<5H',open(sys.argv[1],'rb').read())==(1,1,3,9,65535)" "$T/o.bin" && ok "raw --dtype u16" || fail "raw --dtype u16"; }
run_ok "text --format" "$RS" "$T/k.txt" --format text -o "$T/o.dat" --device cpu --quiet &&
  { [ "$(head -1 "$T/o.dat")" = "-3" ] && ok "--format text" || fail "--format text"; }
run_ok "stdout" "$RS" "$T/k.txt" --format text -o - --device cpu --quiet && { [ "$(head -1 "$T/so")" = "-3" ] && ok "-o -" || fail "-o -"; }

# -c / --check
py make "$T/s.npy" '<u4' u4 1000 "$SEED"
"$RS" "$T/s.npy" -c >"$T/so" 2>"$T/se"; [ $? -eq 1 ] && grep -q "not sorted" "$T/so" && ok "-c unsorted: exit 1" || fail "-c unsorted"
"$RS" "$T/s.npy" -o "$T/sorted.npy" --device cpu --quiet
"$RS" "$T/sorted.npy" --check >"$T/so" 2>"$T/se"; [ $? -eq 0 ] && grep -q "sorted" "$T/so" && ok "--check sorted: exit 0" || fail "--check sorted"
"$RS" "$T/sorted.npy" --check -r --quiet >"$T/so" 2>&1; [ $? -eq 1 ] && [ ! -s "$T/so" ] && ok "--check -r --quiet: exit 1, silent" || fail "--check -r --quiet"
"$RS" "$T/k.txt" -c >/dev/null 2>&1; [ $? -eq 1 ] && ok "-c text unsorted" || fail "-c text unsorted"

# --timing, --quiet, --help, --version
run_ok "timing" "$RS" "$T/u4.npy" -o "$T/o.npy" --timing --device cpu && grep -q "timing" "$T/se" && ok "--timing" || fail "--timing: $(cat "$T/se")"
run_ok "quiet" "$RS" "$T/u4.npy" -o "$T/o.npy" --quiet --device cpu && { [ ! -s "$T/se" ] && ok "--quiet: silent" || fail "--quiet printed: $(cat "$T/se")"; }
"$RS" --help | grep -q "usage: radixsort" && ok "--help" || fail "--help"
"$RS" --version | grep -q "radixsort" && ok "--version" || fail "--version"

# --device gpu: sorts when there is a GPU, else exit 2 with one line.
"$RS" "$T/u4.npy" -o "$T/g.npy" --device gpu --quiet >"$T/so" 2>"$T/se"; rc=$?
if [ $rc -eq 0 ]; then check "--device gpu" "$T/u4.npy" "$T/g.npy"
elif [ $rc -eq 2 ] && [ "$(wc -l < "$T/se")" -eq 1 ] && [ ! -e "$T/g.npy" ]; then ok "--device gpu without a GPU: exit 2, $(cat "$T/se")"
else fail "--device gpu: exit $rc: $(cat "$T/se")"; fi

# In place: refused without --in-place, done with it.
cp "$T/u4.npy" "$T/ip.npy"; cp "$T/u4.npy" "$T/ip.orig.npy"
expect_error "overwrite IN refused" "" "$RS" "$T/ip.npy" -o "$T/ip.npy" --device cpu
cmp -s "$T/ip.npy" "$T/ip.orig.npy" && ok "IN untouched" || fail "IN changed"
expect_error "overwrite IN via ./ refused" "" "$RS" "$T/ip.npy" -o "$T/./ip.npy" --device cpu
expect_error "--values-out over --values refused" "" "$RS" "$T/dup.npy" --values "$T/vals.npy" --values-out "$T/vals.npy" -o "$T/o2.npy" --device cpu
run_ok "--in-place" "$RS" "$T/ip.npy" --in-place --device cpu --quiet && check "--in-place" "$T/ip.orig.npy" "$T/ip.npy"

# Bad input and usage: one line, exit 1, nothing written.
py make "$T/tr.npy" '<u4' u4 100 "$SEED"; py truncate "$T/tr.npy" 3
expect_error "truncated npy" "$T/x.npy" "$RS" "$T/tr.npy" -o "$T/x.npy" --device cpu
py npyhdr "$T/c8.npy" '<c8' 10
expect_error "bad dtype (complex)" "$T/x.npy" "$RS" "$T/c8.npy" -o "$T/x.npy" --device cpu
py make "$T/f2.npy" '<f2' f8 10 "$SEED"
expect_error "unsupported key dtype (float16)" "$T/x.npy" "$RS" "$T/f2.npy" -o "$T/x.npy" --device cpu
py iota "$T/v99.npy" '<u4' 99
expect_error "mismatched key/value lengths" "$T/x.npy" "$RS" "$T/dup.npy" --values "$T/v99.npy" --values-out "$T/xv.npy" -o "$T/x.npy" --device cpu
[ ! -e "$T/xv.npy" ] || fail "values output left behind"
expect_error "mismatched lengths (chunked)" "$T/x.npy" "$RS" "$T/bigdup.npy" --values "$T/v99.npy" --values-out "$T/xv.npy" -o "$T/x.npy" --mem-limit 20000 --device cpu
expect_error "missing output dir" "" "$RS" "$T/u4.npy" -o "$T/nodir/x.npy" --device cpu
expect_error "missing output dir (chunked)" "" "$RS" "$T/big.npy" -o "$T/nodir/x.npy" --mem-limit 20000 --device cpu
expect_error "missing input" "$T/x.npy" "$RS" "$T/none.npy" -o "$T/x.npy" --device cpu
expect_error "raw without --dtype" "$T/x.bin" "$RS" "$T/k.bin" -o "$T/x.bin" --device cpu
printf '1\nabc\n' > "$T/bad.txt"
expect_error "malformed text" "$T/x.txt" "$RS" "$T/bad.txt" -o "$T/x.txt" --device cpu
cp "$T/sorted.npy" "$T/keep.npy"
expect_error "failed run keeps existing OUT" "" "$RS" "$T/tr.npy" -o "$T/keep.npy" --device cpu
cmp -s "$T/keep.npy" "$T/sorted.npy" && ok "existing OUT untouched" || fail "existing OUT changed"
expect_error "no input" "" "$RS" -o "$T/x.npy"
expect_error "no output" "" "$RS" "$T/u4.npy"
expect_error "two inputs" "" "$RS" "$T/u4.npy" "$T/dup.npy" -o "$T/x.npy"
expect_error "unknown option" "$T/x.npy" "$RS" "$T/u4.npy" -o "$T/x.npy" --bogus
expect_error "-o without value" "" "$RS" "$T/u4.npy" -o
expect_error "--values without value" "" "$RS" "$T/u4.npy" -o "$T/x.npy" --values
expect_error "--values without --values-out" "$T/x.npy" "$RS" "$T/dup.npy" --values "$T/vals.npy" -o "$T/x.npy"
expect_error "--values-out without --values" "$T/x.npy" "$RS" "$T/dup.npy" --values-out "$T/vo2.npy" -o "$T/x.npy"
expect_error "bad --device" "$T/x.npy" "$RS" "$T/u4.npy" -o "$T/x.npy" --device tpu
expect_error "bad --dtype" "$T/x.npy" "$RS" "$T/k.bin" -o "$T/x.npy" --dtype u17
expect_error "bad --format" "$T/x.npy" "$RS" "$T/u4.npy" -o "$T/x.npy" --format xml
expect_error "bad --mem-limit" "$T/x.npy" "$RS" "$T/u4.npy" -o "$T/x.npy" --mem-limit 12x
expect_error "zero --mem-limit" "$T/x.npy" "$RS" "$T/u4.npy" -o "$T/x.npy" --mem-limit 0
expect_error "bad RADIXSORT_MEM_LIMIT" "$T/x.npy" env RADIXSORT_MEM_LIMIT=-5 "$RS" "$T/u4.npy" -o "$T/x.npy"

echo "# $fails failure(s)"
[ $fails -eq 0 ]
