#!/usr/bin/env python3
"""sort_ref.py -- an independent reference for radixsort's tests (Python
stdlib only: struct and sorted(), no numpy, which CI does not install).

  make PATH DESCR KIND N SEED   write a 1-D .npy of N values of DESCR
                                ('<u4', '|i1', '|b1', '>f8', ...); KIND:
                                rand     random bits of the type (floats:
                                         every class, NaN payloads included)
                                special  floats: +-NaN, +-inf, +-0.0,
                                         denormals, a few numbers, repeated
                                dup      only 5 distinct values (many equal
                                         keys in every run)
                                same     one value N times
                                sorted / rsorted   ascending / descending
  iota PATH DESCR N             0, 1, ..., N-1 (values that name their input
                                position, so stability shows)
  check IN OUT [desc] [unique] [argsort] [values=VIN,VOUT]
                                exit 0 when OUT (and VOUT) is the stable sort
                                of IN in the library's order (sort.h:
                                -NaN < -inf < ... < -0.0 < +0.0 < ... < +NaN,
                                NaNs by their bits; descending reverses the
                                order, not the ties), else print the first
                                difference and exit 1.
"""
import random
import struct
import sys

CODES = {'b1': '?', 'u1': 'B', 'u2': 'H', 'u4': 'I', 'u8': 'Q', 'i1': 'b', 'i2': 'h', 'i4': 'i', 'i8': 'q',
         'f2': 'e', 'f4': 'f', 'f8': 'd'}


def fmt_of(descr):
    return ('<' if descr[0] == '|' else descr[0]) + CODES[descr[1:]]


def write_npy(path, descr, raw):
    """raw: the values as unsigned bit patterns of the type's width."""
    size = int(descr[2:])
    ufmt = ('<' if descr[0] == '|' else descr[0]) + {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}[size]
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(raw))
    hdr += ' ' * (64 - (10 + len(hdr) + 1) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode())
        f.write(struct.pack(ufmt[0] + ufmt[1] * len(raw), *raw))


def read_npy(path):
    """(descr, bit patterns as unsigned ints)."""
    b = open(path, 'rb').read()
    assert b[:6] == b'\x93NUMPY', path
    v = b[6]
    hl, off = (struct.unpack('<H', b[8:10])[0], 10) if v == 1 else (struct.unpack('<I', b[8:12])[0], 12)
    h = b[off:off + hl].decode()
    descr = h.split("'descr':")[1].split("'")[1]
    size = int(descr[2:])
    data = b[off + hl:]
    n = len(data) // size
    e = '<' if descr[0] == '|' else descr[0]
    return descr, list(struct.unpack(e + {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}[size] * n, data))


def order_key(descr, u):
    """The library's order-preserving map of the bit pattern u."""
    kind, size = descr[1], int(descr[2:])
    w = 8 * size
    sign = 1 << (w - 1)
    if kind in 'ub':
        return u
    if kind == 'i':
        return u ^ sign
    return ((1 << w) - 1) ^ u if u & sign else u | sign


def gen(descr, kind, n, seed):
    r = random.Random(seed)
    size = int(descr[2:])
    w = 8 * size
    if descr[1] == 'b':
        return [r.randrange(2) for _ in range(n)] if kind != 'same' else [1] * n
    floats = descr[1] == 'f'

    def bits(x):  # a float as its bit pattern
        return struct.unpack('<' + {4: 'I', 8: 'Q'}[size], struct.pack('<' + {4: 'f', 8: 'd'}[size], x))[0]

    if kind == 'rand':
        vals = [r.getrandbits(w) for _ in range(n)]
    elif kind == 'special':
        assert floats
        nan, sign = bits(float('nan')), 1 << (w - 1)
        pool = [nan, nan | sign, nan | 1, (nan | 1) | sign, bits(float('inf')), bits(-float('inf')), 0, sign, 1,
                sign | 1, bits(1.5), bits(-1.5), bits(1e-30), bits(-2.0)]
        vals = [r.choice(pool) for _ in range(n)]
    elif kind == 'dup':
        pool = [r.getrandbits(w) for _ in range(5)]
        vals = [r.choice(pool) for _ in range(n)]
    elif kind == 'same':
        vals = [r.getrandbits(w)] * n
    elif kind in ('sorted', 'rsorted'):
        vals = sorted((r.getrandbits(w) for _ in range(n)), key=lambda u: order_key(descr, u),
                      reverse=kind == 'rsorted')
    else:
        raise SystemExit('sort_ref: unknown kind ' + kind)
    return vals


def check(args):
    din, keys = read_npy(args[0])
    dout, out = read_npy(args[1])
    flags = args[2:]
    desc, uniq, arg = 'desc' in flags, 'unique' in flags, 'argsort' in flags
    k = [order_key(din, u) for u in keys]
    perm = sorted(range(len(keys)), key=(lambda i: (-k[i], i)) if desc else (lambda i: (k[i], i)))
    if uniq:
        kept = []
        for i in perm:
            if not kept or k[kept[-1]] != k[i]:
                kept.append(i)
        perm = kept
    if arg:
        want, wdescr = perm, '<i8'
    else:
        want, wdescr = [keys[i] for i in perm], din
    if dout[1:] != wdescr[1:]:
        raise SystemExit('dtype %s, expected %s' % (dout, wdescr))
    pairs = [('keys', out, want)]
    for v in flags:
        if v.startswith('values='):
            vin, vout = v[7:].split(',')
            vals = read_npy(vin)[1]
            pairs.append(('values', read_npy(vout)[1], [vals[i] for i in perm]))
    for name, got, exp in pairs:
        if got != exp:
            if len(got) != len(exp):
                raise SystemExit('%s: %d records, expected %d' % (name, len(got), len(exp)))
            i = next(j for j in range(len(got)) if got[j] != exp[j])
            raise SystemExit('%s: record %d is %#x, expected %#x' % (name, i, got[i], exp[i]))


def main():
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == 'make':
        write_npy(a[0], a[1], gen(a[1], a[2], int(a[3]), int(a[4])))
    elif cmd == 'iota':
        write_npy(a[0], a[1], list(range(int(a[2]))))
    elif cmd == 'check':
        check(a)
    else:
        raise SystemExit('sort_ref: unknown command ' + cmd)


if __name__ == '__main__':
    main()
