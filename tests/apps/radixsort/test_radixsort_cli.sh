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
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
cli_init "$RS"
SEED=${LIBSCAN_TEST_SEED:-$RANDOM$RANDOM}
echo "# seed $SEED (LIBSCAN_TEST_SEED=$SEED replays)"
ok() { echo "ok: $*"; }

PY="$tmp/npy.py"
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

# Expect an error: exit 1, exactly one line on stderr, and no file at $2 (or
# none new) nor a temporary one in $tmp.
expect_error() { # expect_error NAME OUTFILE CMD...
    local name=$1 out=$2 before=$failures
    shift 2
    expect_cmd 1 "$name" "$@" && one_line "$name" && no_file "$name" "$out"
    if ((failures == before)); then ok "$name: $(cat "$tmp/err")"; fi
}
check() { # check NAME IN OUT FLAGS...
    local name=$1; shift
    if py check "$@"; then ok "$name"; else fail "$name: output differs from the reference"; fi
}

D="--device cpu"
# --device auto uses the GPU when there is one (same results), so run both.
for DEV in "--device cpu" "--device auto"; do
  tag=${DEV#--device }
  py make "$tmp/u4.npy" '<u4' u4 20011 "$SEED"
  expect_cmd 0 "$tag u32" "$RS" "$tmp/u4.npy" -o "$tmp/o.npy" $DEV --quiet && check "$tag u32 ascending" "$tmp/u4.npy" "$tmp/o.npy"
  expect_cmd 0 "$tag -r" "$RS" "$tmp/u4.npy" -r -o "$tmp/o.npy" $DEV --quiet && check "$tag -r" "$tmp/u4.npy" "$tmp/o.npy" desc
  expect_cmd 0 "$tag --reverse" "$RS" "$tmp/u4.npy" --reverse --output "$tmp/o.npy" $DEV --quiet && check "$tag --reverse" "$tmp/u4.npy" "$tmp/o.npy" desc
  py make "$tmp/dup.npy" '<u4' u4dup 5000 "$SEED"
  py iota "$tmp/vals.npy" '<i8' 5000
  expect_cmd 0 "$tag --values" "$RS" "$tmp/dup.npy" --values "$tmp/vals.npy" --values-out "$tmp/vo.npy" -o "$tmp/o.npy" $DEV --quiet &&
    check "$tag --values (stable)" "$tmp/dup.npy" "$tmp/o.npy" "values=$tmp/vals.npy,$tmp/vo.npy"
  expect_cmd 0 "$tag --values -r" "$RS" "$tmp/dup.npy" --values="$tmp/vals.npy" --values-out="$tmp/vo.npy" -r -o "$tmp/o.npy" $DEV --quiet &&
    check "$tag --values -r (stable)" "$tmp/dup.npy" "$tmp/o.npy" desc "values=$tmp/vals.npy,$tmp/vo.npy"
  expect_cmd 0 "$tag --argsort" "$RS" "$tmp/dup.npy" --argsort -o "$tmp/o.npy" $DEV --quiet && check "$tag --argsort" "$tmp/dup.npy" "$tmp/o.npy" argsort
  expect_cmd 0 "$tag -u" "$RS" "$tmp/dup.npy" -u -o "$tmp/o.npy" $DEV --quiet && check "$tag -u" "$tmp/dup.npy" "$tmp/o.npy" unique
  expect_cmd 0 "$tag --unique --values" "$RS" "$tmp/dup.npy" --unique --values "$tmp/vals.npy" --values-out "$tmp/vo.npy" -o "$tmp/o.npy" $DEV --quiet &&
    check "$tag --unique --values" "$tmp/dup.npy" "$tmp/o.npy" unique "values=$tmp/vals.npy,$tmp/vo.npy"
  for spec in "<i8 i8" "<i2 i2" "<f4 f4" "<f8 f8" ">u4 u4"; do
    set -- $spec
    py make "$tmp/t.npy" "$1" "$2" 7001 "$SEED" 2
    expect_cmd 0 "$tag $1" "$RS" "$tmp/t.npy" -o "$tmp/o.npy" $DEV --quiet && check "$tag $1 (npy v2)" "$tmp/t.npy" "$tmp/o.npy"
    expect_cmd 0 "$tag $1 -r" "$RS" "$tmp/t.npy" -o "$tmp/o.npy" -r $DEV --quiet && check "$tag $1 -r" "$tmp/t.npy" "$tmp/o.npy" desc
  done
done

# Chunk-and-merge: a memory limit far below the input forces it; same results.
py make "$tmp/big.npy" '<f4' f4 30000 "$SEED"
py make "$tmp/bigdup.npy" '<u4' u4dup 30000 "$SEED"
py iota "$tmp/bigv.npy" '<u4' 30000
expect_cmd 0 "chunked" "$RS" "$tmp/big.npy" -o "$tmp/o.npy" --mem-limit 20000 --device cpu &&
  { grep -q "chunks" "$tmp/err" && ok "chunked: note on stderr" || fail "chunked: no note about chunks"; } &&
  check "chunked f32 (--mem-limit)" "$tmp/big.npy" "$tmp/o.npy"
expect_cmd 0 "chunked env" env RADIXSORT_MEM_LIMIT=50000 "$RS" "$tmp/bigdup.npy" -r --values "$tmp/bigv.npy" --values-out "$tmp/vo.npy" -o "$tmp/o.npy" --quiet &&
  check "chunked -r --values (RADIXSORT_MEM_LIMIT, auto device)" "$tmp/bigdup.npy" "$tmp/o.npy" desc "values=$tmp/bigv.npy,$tmp/vo.npy"
# Values spilled with their runs: 8-byte values, ascending, and with --unique.
py iota "$tmp/bigv8.npy" '<i8' 30000
expect_cmd 0 "chunked --values i8" "$RS" "$tmp/bigdup.npy" --values "$tmp/bigv8.npy" --values-out "$tmp/vo8.npy" -o "$tmp/o.npy" --mem-limit 30000 --quiet --device cpu &&
  check "chunked --values i8 (stable)" "$tmp/bigdup.npy" "$tmp/o.npy" "values=$tmp/bigv8.npy,$tmp/vo8.npy"
expect_cmd 0 "chunked -u --values" "$RS" "$tmp/bigdup.npy" -u --values "$tmp/bigv8.npy" --values-out "$tmp/vo8.npy" -o "$tmp/o.npy" --mem-limit 30000 --quiet --device cpu &&
  check "chunked -u --values" "$tmp/bigdup.npy" "$tmp/o.npy" unique "values=$tmp/bigv8.npy,$tmp/vo8.npy"
expect_cmd 0 "chunked argsort" "$RS" "$tmp/bigdup.npy" --argsort -o "$tmp/o.npy" --mem-limit 30000 --quiet --device cpu &&
  check "chunked --argsort" "$tmp/bigdup.npy" "$tmp/o.npy" argsort
expect_cmd 0 "chunked unique" "$RS" "$tmp/bigdup.npy" -u -o "$tmp/o.npy" --mem-limit 30000 --quiet --device cpu &&
  check "chunked -u" "$tmp/bigdup.npy" "$tmp/o.npy" unique

# Text and raw files.
printf '5\n-3\n10\n0\n-3\n' > "$tmp/k.txt"
expect_cmd 0 "text" "$RS" "$tmp/k.txt" -o "$tmp/o.txt" --device cpu --quiet &&
  { [ "$(tr '\n' ' ' < "$tmp/o.txt")" = "-3 -3 0 5 10 " ] && ok "text" || fail "text: got $(tr '\n' ' ' < "$tmp/o.txt")"; }
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<5H',9,1,65535,3,1))" "$tmp/k.bin"
expect_cmd 0 "raw" "$RS" "$tmp/k.bin" --dtype u16 -o "$tmp/o.bin" --device cpu --quiet &&
  { python3 -c "import struct,sys; assert struct.unpack('<5H',open(sys.argv[1],'rb').read())==(1,1,3,9,65535)" "$tmp/o.bin" && ok "raw --dtype u16" || fail "raw --dtype u16"; }
expect_cmd 0 "text --format" "$RS" "$tmp/k.txt" --format text -o "$tmp/o.dat" --device cpu --quiet &&
  { [ "$(head -1 "$tmp/o.dat")" = "-3" ] && ok "--format text" || fail "--format text"; }
expect_cmd 0 "stdout" "$RS" "$tmp/k.txt" --format text -o - --device cpu --quiet && { [ "$(head -1 "$tmp/out")" = "-3" ] && ok "-o -" || fail "-o -"; }

# -c / --check
py make "$tmp/s.npy" '<u4' u4 1000 "$SEED"
"$RS" "$tmp/s.npy" -c >"$tmp/out" 2>"$tmp/err"; [ $? -eq 1 ] && grep -q "not sorted" "$tmp/out" && ok "-c unsorted: exit 1" || fail "-c unsorted"
"$RS" "$tmp/s.npy" -o "$tmp/outrted.npy" --device cpu --quiet
"$RS" "$tmp/outrted.npy" --check >"$tmp/out" 2>"$tmp/err"; [ $? -eq 0 ] && grep -q "sorted" "$tmp/out" && ok "--check sorted: exit 0" || fail "--check sorted"
"$RS" "$tmp/outrted.npy" --check -r --quiet >"$tmp/out" 2>&1; [ $? -eq 1 ] && [ ! -s "$tmp/out" ] && ok "--check -r --quiet: exit 1, silent" || fail "--check -r --quiet"
"$RS" "$tmp/k.txt" -c >/dev/null 2>&1; [ $? -eq 1 ] && ok "-c text unsorted" || fail "-c text unsorted"

# --timing, --quiet, --help, --version
expect_cmd 0 "timing" "$RS" "$tmp/u4.npy" -o "$tmp/o.npy" --timing --device cpu && grep -q "timing" "$tmp/err" && ok "--timing" || fail "--timing: $(cat "$tmp/err")"
expect_cmd 0 "quiet" "$RS" "$tmp/u4.npy" -o "$tmp/o.npy" --quiet --device cpu && { [ ! -s "$tmp/err" ] && ok "--quiet: silent" || fail "--quiet printed: $(cat "$tmp/err")"; }
# Outputs read whole before grep -q, which would stop a pipe early (SIGPIPE).
"$RS" --help >"$tmp/help.txt" && grep -q "usage: radixsort" "$tmp/help.txt" && ok "--help" || fail "--help"
"$RS" --version >"$tmp/version.txt" && grep -q "radixsort" "$tmp/version.txt" && ok "--version" || fail "--version"

# --device gpu: sorts when there is a GPU, else exit 2 with one line.
"$RS" "$tmp/u4.npy" -o "$tmp/g.npy" --device gpu --quiet >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ]; then check "--device gpu" "$tmp/u4.npy" "$tmp/g.npy"
elif [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ ! -e "$tmp/g.npy" ]; then ok "--device gpu without a GPU: exit 2, $(cat "$tmp/err")"
else fail "--device gpu: exit $rc: $(cat "$tmp/err")"; fi

# In place: refused without --in-place, done with it.
cp "$tmp/u4.npy" "$tmp/ip.npy"; cp "$tmp/u4.npy" "$tmp/ip.orig.npy"
expect_error "overwrite IN refused" "" "$RS" "$tmp/ip.npy" -o "$tmp/ip.npy" --device cpu
cmp -s "$tmp/ip.npy" "$tmp/ip.orig.npy" && ok "IN untouched" || fail "IN changed"
expect_error "overwrite IN via ./ refused" "" "$RS" "$tmp/ip.npy" -o "$tmp/./ip.npy" --device cpu
expect_error "--values-out over --values refused" "" "$RS" "$tmp/dup.npy" --values "$tmp/vals.npy" --values-out "$tmp/vals.npy" -o "$tmp/o2.npy" --device cpu
expect_cmd 0 "--in-place" "$RS" "$tmp/ip.npy" --in-place --device cpu --quiet && check "--in-place" "$tmp/ip.orig.npy" "$tmp/ip.npy"

# Bad input and usage: one line, exit 1, nothing written.
py make "$tmp/tr.npy" '<u4' u4 100 "$SEED"; py truncate "$tmp/tr.npy" 3
expect_error "truncated npy" "$tmp/x.npy" "$RS" "$tmp/tr.npy" -o "$tmp/x.npy" --device cpu
py npyhdr "$tmp/c8.npy" '<c8' 10
expect_error "bad dtype (complex)" "$tmp/x.npy" "$RS" "$tmp/c8.npy" -o "$tmp/x.npy" --device cpu
py make "$tmp/f2.npy" '<f2' f8 10 "$SEED"
expect_error "unsupported key dtype (float16)" "$tmp/x.npy" "$RS" "$tmp/f2.npy" -o "$tmp/x.npy" --device cpu
py iota "$tmp/v99.npy" '<u4' 99
expect_error "mismatched key/value lengths" "$tmp/x.npy" "$RS" "$tmp/dup.npy" --values "$tmp/v99.npy" --values-out "$tmp/xv.npy" -o "$tmp/x.npy" --device cpu
[ ! -e "$tmp/xv.npy" ] || fail "values output left behind"
expect_error "mismatched lengths (chunked)" "$tmp/x.npy" "$RS" "$tmp/bigdup.npy" --values "$tmp/v99.npy" --values-out "$tmp/xv.npy" -o "$tmp/x.npy" --mem-limit 20000 --device cpu
expect_error "missing output dir" "" "$RS" "$tmp/u4.npy" -o "$tmp/nodir/x.npy" --device cpu
expect_error "missing output dir (chunked)" "" "$RS" "$tmp/big.npy" -o "$tmp/nodir/x.npy" --mem-limit 20000 --device cpu
expect_error "missing input" "$tmp/x.npy" "$RS" "$tmp/none.npy" -o "$tmp/x.npy" --device cpu
expect_error "raw without --dtype" "$tmp/x.bin" "$RS" "$tmp/k.bin" -o "$tmp/x.bin" --device cpu
printf '1\nabc\n' > "$tmp/bad.txt"
expect_error "malformed text" "$tmp/x.txt" "$RS" "$tmp/bad.txt" -o "$tmp/x.txt" --device cpu
cp "$tmp/outrted.npy" "$tmp/keep.npy"
expect_error "failed run keeps existing OUT" "" "$RS" "$tmp/tr.npy" -o "$tmp/keep.npy" --device cpu
cmp -s "$tmp/keep.npy" "$tmp/outrted.npy" && ok "existing OUT untouched" || fail "existing OUT changed"
expect_error "no input" "" "$RS" -o "$tmp/x.npy"
expect_error "no output" "" "$RS" "$tmp/u4.npy"
expect_error "two inputs" "" "$RS" "$tmp/u4.npy" "$tmp/dup.npy" -o "$tmp/x.npy"
expect_error "unknown option" "$tmp/x.npy" "$RS" "$tmp/u4.npy" -o "$tmp/x.npy" --bogus
expect_error "-o without value" "" "$RS" "$tmp/u4.npy" -o
expect_error "--values without value" "" "$RS" "$tmp/u4.npy" -o "$tmp/x.npy" --values
expect_error "--values without --values-out" "$tmp/x.npy" "$RS" "$tmp/dup.npy" --values "$tmp/vals.npy" -o "$tmp/x.npy"
expect_error "--values-out without --values" "$tmp/x.npy" "$RS" "$tmp/dup.npy" --values-out "$tmp/vo2.npy" -o "$tmp/x.npy"
expect_error "bad --device" "$tmp/x.npy" "$RS" "$tmp/u4.npy" -o "$tmp/x.npy" --device tpu
expect_error "bad --dtype" "$tmp/x.npy" "$RS" "$tmp/k.bin" -o "$tmp/x.npy" --dtype u17
expect_error "bad --format" "$tmp/x.npy" "$RS" "$tmp/u4.npy" -o "$tmp/x.npy" --format xml
expect_error "bad --mem-limit" "$tmp/x.npy" "$RS" "$tmp/u4.npy" -o "$tmp/x.npy" --mem-limit 12x
expect_error "zero --mem-limit" "$tmp/x.npy" "$RS" "$tmp/u4.npy" -o "$tmp/x.npy" --mem-limit 0
expect_error "bad RADIXSORT_MEM_LIMIT" "$tmp/x.npy" env RADIXSORT_MEM_LIMIT=-5 "$RS" "$tmp/u4.npy" -o "$tmp/x.npy"

# --- option forms (issue 21, item 4): getopt_long in every spelling ---------
# k.txt holds 5 -3 10 0 -3: descending and unique is "10 5 0 -3".
text_is() { # text_is NAME FILE WANT (lines joined by spaces)
    local got
    got=$(tr '\n' ' ' <"$2" | sed 's/ $//')
    [[ $got == "$3" ]] && ok "$1" || fail "$1: got '$got', expected '$3'"
}
in_tmp() { (cd "$tmp" && "$@"); }
rm -f "$tmp"/f*.txt
expect_cmd 0 "bundled -ru" "$RS" "$tmp/k.txt" -ru -o "$tmp/f1.txt" --device cpu --quiet && text_is "bundled -ru" "$tmp/f1.txt" "10 5 0 -3"
expect_cmd 0 "-oFILE" "$RS" "$tmp/k.txt" -o"$tmp/f2.txt" --device cpu --quiet && text_is "-oFILE" "$tmp/f2.txt" "-3 -3 0 5 10"
expect_cmd 0 "bundle ending in -o, value apart" "$RS" "$tmp/k.txt" -ruo "$tmp/f3.txt" --device cpu --quiet && text_is "-ruo FILE" "$tmp/f3.txt" "10 5 0 -3"
expect_cmd 0 "bundle ending in -o, value attached" "$RS" "$tmp/k.txt" -ruo"$tmp/f4.txt" --device cpu --quiet && text_is "-ruoFILE" "$tmp/f4.txt" "10 5 0 -3"
expect_cmd 0 "--output=" "$RS" "$tmp/k.txt" --output="$tmp/f5.txt" --device=cpu --quiet && text_is "--output=FILE" "$tmp/f5.txt" "-3 -3 0 5 10"
expect_cmd 0 "options before IN" "$RS" --device cpu --quiet -r --output "$tmp/f6.txt" "$tmp/k.txt" && text_is "options before IN" "$tmp/f6.txt" "10 5 0 -3 -3"
cp "$tmp/k.txt" "$tmp/-k.txt"
expect_cmd 0 "-- then a file named -k.txt" in_tmp "$RS" --device cpu --quiet -o -out.txt -- -k.txt &&
    text_is "-- ends the options" "$tmp/-out.txt" "-3 -3 0 5 10"
expect_error "-k.txt without --" "$tmp/f7.txt" in_tmp "$RS" --device cpu -o f7.txt -k.txt
grep -qF -- "'-k'" "$tmp/err" || fail "-k.txt without --: does not name '-k': $(cat "$tmp/err")"
expect_cmd 0 "-c in a bundle" "$RS" "$tmp/f1.txt" -rc --quiet && ok "-rc: sorted descending"
expect_error "unknown short option in a bundle" "$tmp/f8.txt" "$RS" "$tmp/k.txt" -rx -o "$tmp/f8.txt"
grep -qF -- "'-x'" "$tmp/err" || fail "-rx: does not name '-x': $(cat "$tmp/err")"
expect_error "--output without value" "" "$RS" "$tmp/k.txt" --output
grep -qF -- "--output" "$tmp/err" || fail "--output without value: does not name --output: $(cat "$tmp/err")"
expect_error "unknown long option with =" "$tmp/f9.txt" "$RS" "$tmp/k.txt" -o "$tmp/f9.txt" --bogus=3
grep -qF -- "--bogus" "$tmp/err" || fail "--bogus=3: does not name --bogus: $(cat "$tmp/err")"
expect_error "flag given a value" "$tmp/f9.txt" "$RS" "$tmp/k.txt" -o "$tmp/f9.txt" --quiet=1
grep -qF -- "--quiet" "$tmp/err" || fail "--quiet=1: does not name --quiet: $(cat "$tmp/err")"

# --- outputs that clash (issue 21, item 3): -o X --values-out X -------------
py make "$tmp/ck.npy" '<u4' u4dup 500 "$SEED"
py iota "$tmp/cv.npy" '<i8' 500
expect_error "-o X --values-out X refused" "$tmp/same.npy" "$RS" "$tmp/ck.npy" --values "$tmp/cv.npy" -o "$tmp/same.npy" --values-out "$tmp/same.npy" --device cpu
expect_error "-o X --values-out ./X refused" "$tmp/same.npy" "$RS" "$tmp/ck.npy" --values "$tmp/cv.npy" -o "$tmp/same.npy" --values-out "$tmp/./same.npy" --device cpu
cp "$tmp/cv.npy" "$tmp/same.npy"; cp "$tmp/cv.npy" "$tmp/same.orig.npy"
ln -sf same.npy "$tmp/samelink.npy"
expect_error "-o X --values-out link-to-X refused" "" "$RS" "$tmp/ck.npy" --values "$tmp/cv.npy" -o "$tmp/same.npy" --values-out "$tmp/samelink.npy" --device cpu
cmp -s "$tmp/same.npy" "$tmp/same.orig.npy" && ok "existing X untouched" || fail "existing X changed"
expect_error "-o - --values-out - refused" "" "$RS" "$tmp/ck.npy" --values "$tmp/cv.npy" -o - --values-out - --device cpu
expect_error "keys over the --values file refused" "" "$RS" "$tmp/ck.npy" --values "$tmp/same.npy" -o "$tmp/same.npy" --values-out "$tmp/cvo.npy" --device cpu
cmp -s "$tmp/same.npy" "$tmp/same.orig.npy" && ok "--values file untouched" || fail "--values file changed"
expect_error "values over IN refused" "" "$RS" "$tmp/ck.npy" --values "$tmp/cv.npy" -o "$tmp/cko.npy" --values-out "$tmp/ck.npy" --device cpu
expect_error "values over IN refused with --in-place too" "" "$RS" "$tmp/ck.npy" --in-place --values "$tmp/cv.npy" --values-out "$tmp/ck.npy" --device cpu
cp "$tmp/ck.npy" "$tmp/ipk.npy"; cp "$tmp/cv.npy" "$tmp/ipv.npy"
expect_cmd 0 "--in-place with values in place" "$RS" "$tmp/ipk.npy" --in-place --values "$tmp/ipv.npy" --values-out "$tmp/ipv.npy" --device cpu --quiet &&
    check "--in-place keys and values" "$tmp/ck.npy" "$tmp/ipk.npy" "values=$tmp/cv.npy,$tmp/ipv.npy"

# --- a failing output leaves every old file (issue 21, item 3) ---------------
# Old files to keep: the values and keys from the previous run.
for mode in "in memory:" "chunked:--mem-limit 4000"; do
    label=${mode%%:*} extra=${mode#*:}
    cp "$tmp/cv.npy" "$tmp/oldv.npy"; cp "$tmp/cv.npy" "$tmp/oldv.orig.npy"
    # shellcheck disable=SC2086
    expect_error "$label: -o into a missing folder" "" "$RS" "$tmp/ck.npy" --values "$tmp/cv.npy" --values-out "$tmp/oldv.npy" -o "$tmp/nodir/k.npy" --device cpu $extra
    cmp -s "$tmp/oldv.npy" "$tmp/oldv.orig.npy" && ok "$label: existing --values-out kept when -o fails" ||
        fail "$label: existing --values-out was $([[ -e $tmp/oldv.npy ]] && echo changed || echo deleted) when -o failed"
done
# The keys fail while being written (file size limit: the keys as text are
# about 55 KB, the values as .npy 10 KB, the limit 30 blocks), after the
# values file is complete: both old files must stay.
limited() { (trap '' XFSZ; ulimit -f "$1"; shift; exec "$@"); }
py make "$tmp/lk.npy" '<u4' u4 5000 "$SEED"
py iota "$tmp/lv.npy" '<u2' 5000
cp "$tmp/lv.npy" "$tmp/lvo.orig.npy"
for extra in "" "--mem-limit 8000"; do
    printf 'old keys\n' >"$tmp/lko.txt"; cp "$tmp/lvo.orig.npy" "$tmp/lvo.npy"
    # shellcheck disable=SC2086
    if expect_cmd 2 "keys write fails ($extra)" limited 30 "$RS" "$tmp/lk.npy" --values "$tmp/lv.npy" --values-out "$tmp/lvo.npy" --format auto -o "$tmp/lko.txt" --device cpu --quiet $extra; then
        one_line "keys write fails ($extra)" "lko.txt"
        no_file "keys write fails ($extra): no temporary file" ""
    fi
    [[ $(cat "$tmp/lko.txt") == "old keys" ]] && ok "failed keys write ($extra): old keys file kept" || fail "failed keys write ($extra): old keys file changed"
    cmp -s "$tmp/lvo.npy" "$tmp/lvo.orig.npy" && ok "failed keys write ($extra): old values file kept" ||
        fail "failed keys write ($extra): old values file $([[ -e $tmp/lvo.npy ]] && echo changed || echo deleted)"
done

# --- file-format and output fixes of apps/common, end to end (issue 21, item 3) ---
# NaN's sign survives text: the program's own sorted text output passes --check.
printf '1.5\n-nan\nnan\n-0\n0\n-inf\n' >"$tmp/nan.txt"
expect_cmd 0 "text with -nan" "$RS" "$tmp/nan.txt" -o "$tmp/nan_sorted.txt" --device cpu --quiet &&
    expect_cmd 0 "--check of its own text output" "$RS" "$tmp/nan_sorted.txt" --check --device cpu --quiet &&
    ok "-nan round-trips through text (--check accepts the sorted output)"
head -1 "$tmp/nan_sorted.txt" | grep -q '^-nan' && ok "-nan sorts first and is written as -nan" ||
    fail "-nan not first or not written as -nan: $(tr '\n' ' ' <"$tmp/nan_sorted.txt")"
# An integer beyond int64 no longer turns exact integers into float64.
printf '9007199254740993\n18446744073709551615\n3\n' >"$tmp/big.txt"
expect_cmd 0 "integers beyond int64" "$RS" "$tmp/big.txt" -o "$tmp/big_sorted.txt" --device cpu --quiet &&
    { [[ $(tr '\n' ' ' <"$tmp/big_sorted.txt") == "3 9007199254740993 18446744073709551615 " ]] &&
        ok "integers beyond int64 read as uint64, exactly" ||
        fail "integers beyond int64 changed: $(tr '\n' ' ' <"$tmp/big_sorted.txt")"; }
# A .npy header padded with NUL bytes is read.
python3 - "$tmp/nul.npy" <<'PYEOF'
import struct, sys
d = b"{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }"
pad = 64 - (10 + len(d) + 1) % 64
hdr = d + b'\0' * pad + b'\n'
open(sys.argv[1], 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr + struct.pack('<3I', 5, 1, 3))
PYEOF
expect_cmd 0 "NUL-padded .npy header" "$RS" "$tmp/nul.npy" -o "$tmp/nul_sorted.txt" --device cpu --quiet &&
    { [[ $(tr '\n' ' ' <"$tmp/nul_sorted.txt") == "1 3 5 " ]] && ok "NUL-padded .npy header read" || fail "NUL-padded .npy: $(cat "$tmp/nul_sorted.txt")"; }
# Control characters from a file are escaped in the message.
python3 - "$tmp/esc.npy" <<'PYEOF'
import struct, sys
d = b"{'descr': '<u4\x1b[31m', 'fortran_order': False, 'shape': (1,), }"
pad = 64 - (10 + len(d) + 1) % 64
hdr = d + b' ' * pad + b'\n'
open(sys.argv[1], 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr + b'\0\0\0\0')
PYEOF
expect_error "ESC in a .npy dtype" "$tmp/esc_out.npy" "$RS" "$tmp/esc.npy" -o "$tmp/esc_out.npy" --device cpu
if grep -q $'\x1b' "$tmp/err"; then fail "ESC from the file echoed raw: $(od -c "$tmp/err" | head -3)"; else ok "ESC from the file escaped in the message"; fi
# A device is written in place, never replaced, and a full disk is exit 2.
# The device is a private node of /dev/full's kind (1, 7) in $tmp, so a
# program that replaced it could not harm the machine's /dev/full.
if mknod "$tmp/full" c 1 7 2>/dev/null; then
    expect_cmd 2 "-o a full device" "$RS" "$tmp/u4.npy" -o "$tmp/full" --device cpu --quiet && one_line "-o a full device" "$tmp/full"
    [[ -c $tmp/full ]] && ok "the full device is still a character device" || fail "the full device was replaced by a file"
fi

cli_finish "radixsort CLI"
