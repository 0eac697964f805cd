#!/usr/bin/env python3
"""png_pixels.py -- PNG files for sat_blur's CLI tests, written and read with
zlib only (independent of the program's readers and writers).

  png_pixels.py pattern W H COLOR_TYPE BITS FILE [SEED]
      sample (x, y, c) is ((x * 37 + y * 11 + c * 90 + SEED * 53) % 256),
      scaled to 16 bits by 257; alpha is 255 but 128 on every third column
      (png_gen.sh's `png`).
  png_pixels.py sweep BITS COLOR_TYPE FILE
      writes a sweep image: 8-bit, every colour (x) at every alpha (y,
      0..255); 16-bit, every 16th colour and 65535 (x) at the alphas
      0 1 2 3 5 17 255 256 4097 32768 65534 65535 (y). Colour types 0
      (gray), 2 (RGB), 4 (gray + alpha), 6 (RGBA); other colours of a pixel
      vary with x and y.
  png_pixels.py same TOL A B...
      exit 0 when every B holds A's pixels: same size, depth and layout,
      alpha exact, colour within TOL where alpha > 0 and 0 where alpha is 0
      (the blur's transparent black); prints the largest colour difference.
      Exit 1 with the first difference otherwise.
"""
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}
ALPHAS16 = [0, 1, 2, 3, 5, 17, 255, 256, 4097, 32768, 65534, 65535]


def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)


def write(path, w, h, bits, ct, rows):
    raw = b''.join(b'\0' + r for r in rows)
    data = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, bits, ct, 0, 0, 0))
    data += chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
    with open(path, 'wb') as f:
        f.write(data)


def pattern(w, h, ct, bits, path, seed):
    ch = CHANNELS[ct]
    scale = 257 if bits == 16 else 1
    fmt = '>' + ('B' if bits == 8 else 'H') * ch
    rows = []
    for y in range(h):
        row = bytearray()
        for x in range(w):
            px = [((x * 37 + y * 11 + c * 90 + seed * 53) % 256) * scale for c in range(ch)]
            if ch in (2, 4):
                px[-1] = (255 if x % 3 else 128) * scale
            row += struct.pack(fmt, *px)
        rows.append(bytes(row))
    write(path, w, h, bits, ct, rows)


def sweep(bits, ct, path):
    ch = CHANNELS[ct]
    alpha = ch in (2, 4)
    if bits == 8:
        xs, ys, top = list(range(256)), list(range(256)) if alpha else [0, 1], 255
    else:
        xs, ys, top = list(range(0, 65536, 16)) + [65535], ALPHAS16 if alpha else [0, 1], 65535
    fmt = '>' + ('B' if bits == 8 else 'H') * ch
    rows = []
    for j, y in enumerate(ys):
        row = bytearray()
        for v in xs:
            px = [v]
            if ch >= 3:
                px += [top - v, (v * 37 + j * 11) % (top + 1)]
            if alpha:
                px.append(y)
            row += struct.pack(fmt, *px)
        rows.append(bytes(row))
    write(path, len(xs), len(ys), bits, ct, rows)


def pixels(path):
    """(w, h, bits, channels, [samples]) of a non-interlaced PNG of colour type 0, 2, 4 or 6."""
    d = open(path, 'rb').read()
    i, idat, hdr = 8, b'', None
    while i < len(d):
        n, = struct.unpack('>I', d[i:i + 4])
        kind, body = d[i + 4:i + 8], d[i + 8:i + 8 + n]
        i += 12 + n
        if kind == b'IHDR':
            hdr = body
        elif kind == b'IDAT':
            idat += body
    w, h, bits, ct, _, _, interlace = struct.unpack('>IIBBBBB', hdr)
    if interlace or ct not in CHANNELS or bits not in (8, 16):
        sys.exit(f'{path}: not a plain 8/16-bit gray/RGB(A) PNG')
    ch = CHANNELS[ct]
    bpp = ch * bits // 8
    stride = w * bpp
    raw = zlib.decompress(idat)
    prev = bytearray(stride)
    out = bytearray()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
        out += line
        prev = line
    n = w * h * ch
    samples = list(out) if bits == 8 else list(struct.unpack('>%dH' % n, bytes(out)))
    return w, h, bits, ch, samples


def same(tol, a_path, b_paths):
    worst = 0
    wa, ha, ba, ca, a = pixels(a_path)
    for b_path in b_paths:
        worst = max(worst, same_one(tol, a_path, (wa, ha, ba, ca, a), b_path))
    print(f'largest colour difference {worst}')


def same_one(tol, a_path, a_pixels, b_path):
    wa, ha, ba, ca, a = a_pixels
    wb, hb, bb, cb, b = pixels(b_path)
    if (wa, ha, ba, ca) != (wb, hb, bb, cb):
        sys.exit(f'{b_path}: {wb}x{hb} {bb}-bit {cb} channels, {a_path} is {wa}x{ha} {ba}-bit {ca} channels')
    alpha = ca in (2, 4)
    worst = 0
    for p in range(wa * ha):
        px_a, px_b = a[p * ca:(p + 1) * ca], b[p * ca:(p + 1) * ca]
        al = px_a[-1] if alpha else 1
        for c in range(ca):
            is_alpha = alpha and c == ca - 1
            want = 0 if (alpha and al == 0 and not is_alpha) else px_a[c]
            e = abs(px_b[c] - want)
            if e > (0 if is_alpha else tol):
                sys.exit(f'{b_path}: pixel {p} channel {c}: {px_b[c]}, {a_path} had {px_a[c]} (alpha {al})')
            if not is_alpha:
                worst = max(worst, e)
    return worst


if __name__ == '__main__':
    if sys.argv[1] == 'pattern':
        pattern(*[int(v) for v in sys.argv[2:6]], sys.argv[6], int(sys.argv[7]) if len(sys.argv) > 7 else 0)
    elif sys.argv[1] == 'sweep':
        sweep(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif sys.argv[1] == 'same':
        same(int(sys.argv[2]), sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)
