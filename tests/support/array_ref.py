#!/usr/bin/env python3
"""array_ref.py -- the independent reference of the programs' CLI tests:
writes array files (.npy of any version and byte order, raw, text) from
seeded random data, and checks what radixsort and compact wrote against
results computed here from the input's values (standard library only:
struct, random, math; no numpy, which CI does not install).

  array_ref.py make PATH DESCR KIND N SEED [VERSION]
      DESCR as numpy's ('<u4', '>f8', '|u1', '|b1'); PATH's extension picks
      the format (.npy, .txt/.csv, anything else raw in DESCR's byte order).
      KIND: rand (the type's whole range; floats with NaNs of both signs,
      +-0, +-inf, denormals mixed in), runs (runs of 1..9 equal values from
      a small alphabet, NaN and +-0 runs included: --unique's boundaries),
      norm (normal floats), flags (0/1 with other non-zero values), iota
      (0, 1, 2, ...: values that name their position, so a stable sort's
      ties show), same (one rand value N times), sorted and rsorted (rand
      values in radixsort's ascending or descending order).
  array_ref.py compact IN OUT OUT_DESCR [options as compact's] [--flags F]
      Checks OUT (any format; OUT_DESCR is its element type, for raw
      files) against IN compacted with compact's rules; prints the expected
      summary ("kept K of N", "split K") on stdout.
  array_ref.py sort IN OUT [desc] [unique] [argsort] [values=VIN,VOUT]
      Checks radixsort's OUT (stable sort in IEEE total order).
Exit status 0 when the output matches, 1 (with the first difference on
stderr) when not."""
import math
import random
import struct
import sys

CODES = {'u1': 'B', 'u2': 'H', 'u4': 'I', 'u8': 'Q', 'i1': 'b', 'i2': 'h', 'i4': 'i', 'i8': 'q',
         'f2': 'e', 'f4': 'f', 'f8': 'd', 'b1': '?'}
UINT = {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}


def fmt_of(descr):
    return CODES[descr[1:]]


def size_of(descr):
    return struct.calcsize(fmt_of(descr))


def endian(descr):
    return '>' if descr[0] == '>' else '<'


def kind_of(path):
    p = path.lower()
    if p.endswith('.npy'):
        return 'npy'
    if p.endswith(('.txt', '.csv', '.text')):
        return 'text'
    return 'raw'


# ---- element bits: floats are compared by their bits, NaN payloads too -----

def to_bits(descr, x):
    """The element's bits as an unsigned integer (what the file holds)."""
    f = fmt_of(descr)
    if f == '?':
        return 1 if x else 0
    return struct.unpack('<' + UINT[size_of(descr)], struct.pack('<' + f, x))[0]


def from_bits(descr, b):
    return struct.unpack('<' + fmt_of(descr), struct.pack('<' + UINT[size_of(descr)], b))[0]


def is_float(descr):
    return descr[1] == 'f'


# ---- files ------------------------------------------------------------------

def npy_bytes(descr, bits_list, version=1):
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(bits_list))
    pre = 10 if version == 1 else 12
    hdr += ' ' * (64 - (pre + len(hdr) + 1) % 64) + '\n'
    out = b'\x93NUMPY' + bytes([version, 0])
    out += struct.pack('<H' if version == 1 else '<I', len(hdr)) + hdr.encode()
    return out + raw_bytes(descr, bits_list)


def raw_bytes(descr, bits_list):
    return struct.pack(endian(descr) + UINT[size_of(descr)] * len(bits_list), *bits_list)


def text_of(descr, b):
    """A value as the programs' text form (exact: floats via repr, which
    round-trips; NaN in the nan[:0xHEX] form, see apps/common/README.md)."""
    x = from_bits(descr, b)
    if not is_float(descr):
        return str(int(x))
    if math.isnan(x):
        w = size_of(descr) * 8
        frac_bits = {16: 10, 32: 23, 64: 52}[w]
        frac = b & ((1 << frac_bits) - 1)
        sign = '-' if b >> (w - 1) else ''
        quiet = 1 << (frac_bits - 1)
        return sign + ('nan' if frac == quiet else 'nan:0x%x' % frac)
    if math.isinf(x):
        return '-inf' if x < 0 else 'inf'
    return repr(x)


def write_file(path, descr, bits_list, version=1):
    k = kind_of(path)
    with open(path, 'wb') as f:
        if k == 'npy':
            f.write(npy_bytes(descr, bits_list, version))
        elif k == 'raw':
            f.write(raw_bytes(descr, bits_list))
        else:
            f.write(''.join(text_of(descr, b) + '\n' for b in bits_list).encode())


def parse_text_token(descr, tok):
    """The bits of one text token read as descr (the inverse of text_of)."""
    t = tok.strip()
    if not is_float(descr):
        return int(t) & ((1 << (8 * size_of(descr))) - 1)
    w = size_of(descr) * 8
    frac_bits = {16: 10, 32: 23, 64: 52}[w]
    low = t.lower()
    neg = low.startswith('-')
    body = low[1:] if neg or low.startswith('+') else low
    if body.startswith('nan'):
        frac = int(body[6:], 16) if body.startswith('nan:0x') else 1 << (frac_bits - 1)
        return (1 << (w - 1) if neg else 0) | (((1 << (w - 1 - frac_bits)) - 1) << frac_bits) | frac
    return to_bits(descr, float(t))


def read_file(path, descr=None):
    """(descr, list of element bits). descr is needed for raw and text."""
    k = kind_of(path)
    data = open(path, 'rb').read()
    if k == 'npy':
        if data[:6] != b'\x93NUMPY':
            raise SystemExit('%s: not a .npy file' % path)
        v = data[6]
        hl = struct.unpack('<H', data[8:10])[0] if v == 1 else struct.unpack('<I', data[8:12])[0]
        off = 10 if v == 1 else 12
        h = data[off:off + hl].decode('latin-1')
        d = h.split("'descr':")[1].split("'")[1]
        shape = h.split("'shape':")[1].split(')')[0].strip(' (,')
        n = int(shape) if shape else 1
        body = data[off + hl:]
        if len(body) != n * size_of(d):
            raise SystemExit('%s: %d data bytes for shape (%d,) of %s' % (path, len(body), n, d))
        return d, list(struct.unpack(endian(d) + UINT[size_of(d)] * n, body))
    if k == 'raw':
        n = len(data) // size_of(descr)
        if n * size_of(descr) != len(data):
            raise SystemExit('%s: %d bytes is not a whole number of %s' % (path, len(data), descr))
        return descr, list(struct.unpack(endian(descr) + UINT[size_of(descr)] * n, data))
    return descr, [parse_text_token(descr, t) for t in data.decode().split()]


# ---- data -------------------------------------------------------------------

def specials(descr):
    w = size_of(descr) * 8
    frac_bits = {16: 10, 32: 23, 64: 52}[w]
    exp_all = ((1 << (w - 1 - frac_bits)) - 1) << frac_bits
    sign = 1 << (w - 1)
    qnan = exp_all | (1 << (frac_bits - 1))
    return [qnan, sign | qnan, exp_all | 1, exp_all, sign | exp_all, 0, sign, 1, sign | 1]


def gen(descr, kind, n, seed):
    r = random.Random(seed)
    w = size_of(descr) * 8
    f = fmt_of(descr)
    if f == '?':
        return [r.randrange(2) for _ in range(n)]
    if kind == 'flags':
        return [r.choice([0, 0, 1, 1, 2, (1 << w) - 1]) for _ in range(n)]
    if kind == 'runs':
        if is_float(descr):
            alphabet = [to_bits(descr, x) for x in (0.5, 1.0, -2.0)] + specials(descr)[:2] + [0, 1 << (w - 1)]
        else:
            alphabet = [0, 1, 2, (1 << w) - 1]
        out = []
        while len(out) < n:
            out += [r.choice(alphabet)] * r.randint(1, 9)
        return out[:n]
    if kind == 'norm':
        return [to_bits(descr, r.gauss(0.0, 1.0)) for _ in range(n)]
    if kind == 'iota':
        return [i % (1 << w) for i in range(n)]
    if kind == 'same':
        return gen(descr, 'rand', 1, seed) * n
    if kind in ('sorted', 'rsorted'):
        return sorted(gen(descr, 'rand', n, seed), key=lambda b: order_key(descr, b), reverse=kind == 'rsorted')
    if is_float(descr):
        sp = specials(descr)
        return [r.choice(sp) if r.random() < 0.2 else to_bits(descr, r.uniform(-3.0, 3.0)) for _ in range(n)]
    return [r.getrandbits(w) for _ in range(n)]


# ---- compact's rules --------------------------------------------------------

def value_of(descr, b):
    """The element's value: a Python int (exact) or float (exact for f32/f64)."""
    x = from_bits(descr, b)
    return float(x) if is_float(descr) else int(x)


def parse_opt_value(descr, s):
    return float(s) if is_float(descr) else int(s)


def same(descr, a, b):
    """--unique's equality: by value, NaN equals NaN, -0 equals +0."""
    x, y = value_of(descr, a), value_of(descr, b)
    if is_float(descr) and math.isnan(x) and math.isnan(y):
        return True
    return x == y


def keep_pred(descr, opt, vals):
    def test(b):
        x = value_of(descr, b)
        fl = is_float(descr)
        nan = fl and math.isnan(x)
        if opt == '--gt': return not nan and x > vals[0]
        if opt == '--ge': return not nan and x >= vals[0]
        if opt == '--lt': return not nan and x < vals[0]
        if opt == '--le': return not nan and x <= vals[0]
        if opt == '--eq': return not nan and x == vals[0]
        if opt == '--ne': return nan or x != vals[0]
        if opt == '--range': return not nan and vals[0] <= x <= vals[1]
        if opt == '--nonzero': return nan or x != 0
        if opt == '--finite': return not fl or (not nan and not math.isinf(x))
        if opt == '--nan': return nan
        raise SystemExit('unknown criterion ' + opt)
    return test


def compact_cmd(args):
    inp, out, out_descr = args[0], args[1], args[2]
    rest = args[3:]
    descr, xs = read_file(inp, out_descr if kind_of(inp) != 'npy' else None)
    partition = '--partition' in rest
    indices = '--indices' in rest
    # Options that only say how files are read or written.
    kept_args = []
    skip = False
    for a in rest:
        if skip:
            skip = False
        elif a in ('--dtype', '--out-format', '--format'):
            skip = True
        elif a not in ('--partition', '--indices'):
            kept_args.append(a)
    rest = kept_args
    n = len(xs)
    if rest[0] == '--unique':
        keep = [i == 0 or not same(descr, xs[i], xs[i - 1]) for i in range(n)]
    elif rest[0] == '--flags':
        fpath = rest[1]
        fdescr = rest[2] if len(rest) > 2 else '|u1'
        _, fl = read_file(fpath, fdescr)
        keep = [f != 0 for f in fl]
    else:
        opt = rest[0]
        vals = [parse_opt_value(descr, v) for v in rest[1:]]
        t = keep_pred(descr, opt, vals)
        keep = [t(b) for b in xs]
    kept = [i for i in range(n) if keep[i]]
    order = kept + ([i for i in range(n) if not keep[i]] if partition else [])
    want = order if indices else [xs[i] for i in order]
    wdescr = '<u8' if indices else out_descr
    if out != '-':
        gd, got = read_file(out, wdescr)
        if kind_of(out) == 'npy' and gd[1:] != wdescr[1:]:
            raise SystemExit('%s: written as %s, expected %s' % (out, gd, wdescr))
        if got != want:
            first = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), min(len(got), len(want)))
            sys.stderr.write('%s: %d elements, expected %d; first difference at %d\n' % (out, len(got), len(want), first))
            sys.exit(1)
    print('kept %d of %d' % (len(kept), n))
    if partition:
        print('split %d' % len(kept))


# ---- radixsort's order ------------------------------------------------------

def order_key(descr, b):
    """IEEE total order for floats (-NaN < -inf < ... < -0 < +0 < ... < +NaN),
    value order for integers."""
    if is_float(descr):
        w = size_of(descr) * 8
        return ((1 << w) - 1) ^ b if b >> (w - 1) else b | (1 << (w - 1))
    return value_of(descr, b)


def sort_cmd(args):
    inp, out = args[0], args[1]
    flags = args[2:]
    descr, keys = read_file(inp)
    desc, uniq, arg = 'desc' in flags, 'unique' in flags, 'argsort' in flags
    k = [order_key(descr, b) for b in keys]
    perm = sorted(range(len(keys)), key=lambda i: (-k[i] if desc else k[i], i))
    if uniq:
        p2 = []
        for i in perm:
            if not p2 or k[p2[-1]] != k[i]:
                p2.append(i)
        perm = p2
    if arg:
        _, got = read_file(out, '<i8')
        want = perm
    else:
        gd, got = read_file(out, descr)
        if gd[1:] != descr[1:]:
            raise SystemExit('%s: written as %s, expected %s' % (out, gd, descr))
        want = [keys[i] for i in perm]
    if got != want:
        first = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), min(len(got), len(want)))
        sys.stderr.write('%s: %d keys, expected %d; first difference at %d\n' % (out, len(got), len(want), first))
        sys.exit(1)
    for f in flags:
        if f.startswith('values='):
            vin, vout = f[7:].split(',')
            _, v = read_file(vin)
            _, vo = read_file(vout)
            if vo != [v[i] for i in perm]:
                sys.stderr.write('%s: values not permuted with their keys\n' % vout)
                sys.exit(1)


def main():
    cmd = sys.argv[1]
    a = sys.argv[2:]
    if cmd == 'make':
        path, descr, kind, n, seed = a[0], a[1], a[2], int(a[3]), int(a[4])
        write_file(path, descr, gen(descr, kind, n, seed), int(a[5]) if len(a) > 5 else 1)
    elif cmd == 'compact':
        compact_cmd(a)
    elif cmd == 'sort':
        sort_cmd(a)
    else:
        raise SystemExit('unknown command ' + cmd)


if __name__ == '__main__':
    main()
