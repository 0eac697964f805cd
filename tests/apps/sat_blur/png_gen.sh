# shellcheck shell=bash
# png_gen.sh -- small PNG files for sat_blur's CLI tests, written by python3
# (struct + zlib only), so the inputs never come from the code under test.
# Sourced, not run:
#
#   png W H COLOR_TYPE BITS FILE [SEED]
#
# COLOR_TYPE: 0 gray, 2 RGB, 4 gray + alpha, 6 RGBA; BITS 8 or 16. Sample
# (x, y, c) is ((x * 37 + y * 11 + c * 90 + SEED * 53) % 256), scaled to 16
# bits by 257; alpha is 255 but 128 on every third column. SEED (default 0)
# gives different frames of one size.
png() {
    python3 - "$@" <<'EOF'
import struct, sys, zlib
w, h, ct, bits, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
seed = int(sys.argv[6]) if len(sys.argv) > 6 else 0
ch = {0: 1, 2: 3, 4: 2, 6: 4}[ct]
bps = bits // 8
raw = bytearray()
for y in range(h):
    raw.append(0)
    for x in range(w):
        for c in range(ch):
            v = ((x * 37 + y * 11 + c * 90 + seed * 53) % 256) * (257 if bps == 2 else 1)
            if ch in (2, 4) and c == ch - 1:
                v = (255 if x % 3 else 128) * (257 if bps == 2 else 1)
            raw += v.to_bytes(bps, 'big')
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
data = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, bits, ct, 0, 0, 0))
data += chunk(b'IDAT', zlib.compress(bytes(raw))) + chunk(b'IEND', b'')
open(path, 'wb').write(data)
EOF
}
