#!/usr/bin/env bash
# test_sat_blur_jpeg_cli.sh -- sat_blur and JPEG end to end: --quality and
# --subsampling as the written frame and quantisation tables show them
# (parsed here, tables computed from the JPEG standard and IJG's scaling),
# every PNG layout to JPEG (alpha dropped), JPEG output decoded by stb_image
# (test_stb_decode) against the PNG output of the same blur, JPEG input
# (told by its bytes, not its name) against stb_image's decode, corrupt and
# truncated JPEG input (one line, exit 1, no output, an existing output kept),
# pipes, write errors, and on a GPU the nvJPEG output against the CPU's.
#
#   test_sat_blur_jpeg_cli.sh SAT_BLUR STB_DECODE SCENE_DIR FIXTURE_DIR
set -euo pipefail

prog=$1
stb=$2
scene=$3
fixtures=$4
# shellcheck source-path=SCRIPTDIR source=../../support/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_lib.sh"
cli_init "$prog"

img="$scene/scene.png"
depth="$scene/depth.png"

# bad NAME STRINGS... -- ARGS: exit 1, one line naming the strings, no o.jpg left.
bad() {
    local name=$1
    shift
    local words=()
    while [[ $1 != -- ]]; do words+=("$1"); shift; done
    shift
    rm -f "$tmp/o.jpg" "$tmp"/.o.jpg.*
    if expect 1 "$name" -- "$@"; then one_line "$name" "${words[@]}"; fi
    no_file "$name" "$tmp/o.jpg"
}

# run_ok NAME OUT ARGS...: exit 0, OUT written, nothing on stderr.
run_ok() {
    local name=$1 o=$2
    shift 2
    rm -f "$o"
    if expect 0 "$name" -- "$@" "$o"; then
        [[ -s $o ]] || fail "$name: no output file"
        [[ ! -s $tmp/err ]] || fail "$name: unexpected stderr: $(cat "$tmp/err")"
    fi
}

# jpeg_frame FILE QUALITY SUBSAMPLING COMPONENTS: FILE is a baseline JPEG with
# that many components, the luma sampling factors of SUBSAMPLING (420, 422,
# 444; chroma 1x1) and IJG's tables for QUALITY (JPEG standard Annex K).
jpeg_frame() {
    python3 - "$@" <<'EOF'
import sys
path, quality, sub, comps = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
d = open(path, 'rb').read()
zigzag = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14,
          21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60,
          61, 54, 47, 55, 62, 63]
luma = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29,
        51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121,
        120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
chroma = [17, 18, 24, 47] + [99] * 4 + [18, 21, 26, 66] + [99] * 4 + [24, 26, 56] + [99] * 5 + [47, 66] + [99] * 38
assert len(chroma) == 64
scale = 5000 // quality if quality < 50 else 200 - 2 * quality
def ijg(base):
    return [min(255, max(1, (b * scale + 50) // 100)) for b in base]
assert d[:2] == b'\xff\xd8', 'no SOI'
i, tables, frame = 2, {}, None
while i + 4 <= len(d) and d[i] == 0xff:
    m, n = d[i + 1], (d[i + 2] << 8) | d[i + 3]
    body = d[i + 4:i + 2 + n]
    if m == 0xda:
        break
    if m == 0xdb:
        j = 0
        while j < len(body):
            tid = body[j] & 15
            vals = body[j + 1:j + 65]
            nat = [0] * 64
            for k in range(64):
                nat[zigzag[k]] = vals[k]
            tables[tid] = nat
            j += 65
    if 0xc0 <= m <= 0xcf and m not in (0xc4, 0xc8, 0xcc):
        frame = (m, body)
    i += 2 + n
assert frame, 'no frame header'
m, body = frame
errors = []
if m != 0xc0:
    errors.append('frame 0x%02x is not baseline' % m)
if body[5] != comps:
    errors.append('%d components, expected %d' % (body[5], comps))
want_h, want_v = {'420': (2, 2), '422': (2, 1), '444': (1, 1)}[sub] if comps == 3 else (1, 1)
for c in range(body[5]):
    hv, tq = body[7 + 3 * c], body[8 + 3 * c]
    h, v = hv >> 4, hv & 15
    want = (want_h, want_v) if c == 0 else (1, 1)
    if (h, v) != want:
        errors.append('component %d sampled %dx%d, expected %dx%d' % (c, h, v, want[0], want[1]))
    if tables.get(tq) != ijg(luma if c == 0 else chroma):
        errors.append('component %d: table %d is not IJG quality %d' % (c, tq, quality))
if errors:
    print('; '.join(errors))
    sys.exit(1)
EOF
}

# close A B MIN_PSNR [MAX_MEAN]: two images (PNG, or PNM from test_stb_decode)
# of the same size and channels, PSNR >= MIN_PSNR dB, mean |a-b| <= MAX_MEAN.
close() {
    python3 - "$@" <<'EOF'
import math, struct, sys, zlib
def pnm(d):
    parts, i = [], 0
    while len(parts) < 4:
        while d[i:i + 1].isspace():
            i += 1
        j = i
        while not d[j:j + 1].isspace():
            j += 1
        parts.append(d[i:j]); i = j
    i += 1
    w, h = int(parts[1]), int(parts[2])
    return w, h, 1 if parts[0] == b'P5' else 3, d[i:]
def png(d):
    i, idat, hdr = 8, b'', None
    while i < len(d):
        n, = struct.unpack('>I', d[i:i + 4]); t = d[i + 4:i + 8]; body = d[i + 8:i + 8 + n]; i += 12 + n
        if t == b'IHDR': hdr = body
        if t == b'IDAT': idat += body
    w, h, bits, ct = struct.unpack('>IIBB', hdr[:10])
    assert bits == 8, 'only 8-bit PNGs here'
    ch = {0: 1, 2: 3, 4: 2, 6: 4}[ct]
    raw, out, prev, stride = zlib.decompress(idat), [], bytearray(w * ch), w * ch
    for y in range(h):
        f = raw[y * (stride + 1)]; line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - ch] if x >= ch else 0; b = prev[x]; c = prev[x - ch] if x >= ch else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
        out.append(bytes(line)); prev = line
    px = b''.join(out)
    if ch in (2, 4):  # alpha is not compared: JPEG has none
        px = bytes(v for k, v in enumerate(px) if k % ch != ch - 1); ch -= 1
    return w, h, ch, px
def load(p):
    d = open(p, 'rb').read()
    return png(d) if d[:4] == b'\x89PNG' else pnm(d)
a, b = load(sys.argv[1]), load(sys.argv[2])
min_psnr = float(sys.argv[3]); max_mean = float(sys.argv[4]) if len(sys.argv) > 4 else 1e9
if a[:3] != b[:3]:
    print('shapes differ: %s vs %s' % (a[:3], b[:3])); sys.exit(1)
n = len(a[3]); sq = sum((x - y) ** 2 for x, y in zip(a[3], b[3])); ab = sum(abs(x - y) for x, y in zip(a[3], b[3]))
psnr = 999 if sq == 0 else 10 * math.log10(255 * 255 * n / sq)
if psnr < min_psnr or ab / n > max_mean:
    print('%.2f dB, mean %.3f (bounds %.1f dB, %.2f)' % (psnr, ab / n, min_psnr, max_mean)); sys.exit(1)
EOF
}

# PNG writer: png W H COLOR_TYPE FILE (8-bit; alpha, when present, in stripes)
png() {
    python3 - "$@" <<'EOF'
import struct, sys, zlib
w, h, ct, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ch = {0: 1, 2: 3, 4: 2, 6: 4}[ct]
raw = bytearray()
for y in range(h):
    raw.append(0)
    for x in range(w):
        for c in range(ch):
            v = (x * 3 + y * 2 + c * 60) % 256
            if ch in (2, 4) and c == ch - 1:
                v = (0, 128, 255)[(x // 8) % 3]
            raw.append(v)
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
data = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, ct, 0, 0, 0))
data += chunk(b'IDAT', zlib.compress(bytes(raw))) + chunk(b'IEND', b'')
open(path, 'wb').write(data)
EOF
}

frame_is() { # NAME FILE QUALITY SUB COMPONENTS
    local name=$1
    shift
    local why
    why=$(jpeg_frame "$@") || fail "$name: $why"
}
close_to() { # NAME A B MIN_PSNR [MAX_MEAN]
    local name=$1
    shift
    local why
    why=$(close "$@") || fail "$name: $why"
}
decode() { # JPEG PNM: stb_image's decode
    "$stb" "$1" "$2" || fail "stb_image cannot decode $1"
}

# --- help and options ------------------------------------------------------------
if expect 0 help -- --help; then
    for s in "--subsampling" "420" "4:4:4" "--quality" "alpha" "nvJPEG" "--jpeg-encoder" "IN.{png,jpg}"; do
        grep -qF -- "$s" "$tmp/out" || fail "help: does not mention '$s'"
    done
fi
bad "subsampling 411" "--subsampling" "411" -- --subsampling 411 "$img" "$tmp/o.jpg"
bad "subsampling empty" "--subsampling" -- --subsampling= "$img" "$tmp/o.jpg"
bad "subsampling missing" "--subsampling" -- "$img" "$tmp/o.jpg" --subsampling
bad "quality 0" "--quality" -- --quality 0 "$img" "$tmp/o.jpg"
bad "jpeg-encoder libjpeg" "--jpeg-encoder" "libjpeg" -- --jpeg-encoder libjpeg "$img" "$tmp/o.jpg"
bad "jpeg-encoder missing" "--jpeg-encoder" -- "$img" "$tmp/o.jpg" --jpeg-encoder

# --- what --quality and --subsampling write ---------------------------------------------
run_ok "default" "$tmp/def.jpg" --device cpu --radius 2 "$img"
frame_is "default (quality 90, 4:2:0)" "$tmp/def.jpg" 90 420 3
for spec in "50 444" "100 422" "75 420" "1 444"; do
    set -- $spec
    run_ok "quality $1 subsampling $2" "$tmp/q$1_$2.jpg" --device cpu --radius 2 --quality "$1" --subsampling "$2" "$img"
    frame_is "quality $1 subsampling $2" "$tmp/q$1_$2.jpg" "$1" "$2" 3
done
run_ok "subsampling 4:2:2 spelling" "$tmp/colon.jpg" --device cpu --radius 2 --subsampling=4:2:2 "$img"
frame_is "subsampling 4:2:2 spelling" "$tmp/colon.jpg" 90 422 3
# --subsampling changes nothing for PNG output
run_ok "subsampling with a PNG" "$tmp/sub.png" --device cpu --radius 2 --subsampling 444 "$img"
run_ok "no subsampling with a PNG" "$tmp/nosub.png" --device cpu --radius 2 "$img"
cmp -s "$tmp/sub.png" "$tmp/nosub.png" || fail "--subsampling changed a PNG output"

# --- pixels: the JPEG decodes (stb_image) to the PNG of the same blur ----------------------
decode "$tmp/q100_422.jpg" "$tmp/q100.pnm"
close_to "quality 100 vs the PNG" "$tmp/q100.pnm" "$tmp/nosub.png" 38 1.5
run_ok "quality 95 4:4:4" "$tmp/q95.jpg" --device cpu --radius 2 --quality 95 --subsampling 444 "$img"
decode "$tmp/q95.jpg" "$tmp/q95.pnm"
close_to "quality 95 4:4:4 vs the PNG" "$tmp/q95.pnm" "$tmp/nosub.png" 40 1.2
decode "$tmp/def.jpg" "$tmp/def.pnm"
close_to "default vs the PNG" "$tmp/def.pnm" "$tmp/nosub.png" 35 2.5

# --- every PNG layout to JPEG: gray stays one component, alpha is dropped --------------------
for ct in 0 4 2 6; do
    png 45 31 "$ct" "$tmp/in_$ct.png"
    comps=3
    [[ $ct == 0 || $ct == 4 ]] && comps=1
    run_ok "layout $ct" "$tmp/out_$ct.jpg" --device cpu --radius 0 --no-linear --quality 100 --subsampling 444 "$tmp/in_$ct.png"
    frame_is "layout $ct" "$tmp/out_$ct.jpg" 100 444 "$comps"
    decode "$tmp/out_$ct.jpg" "$tmp/out_$ct.pnm"
    # --radius 0 --no-linear keeps opaque pixels exactly; transparent ones come back
    # without their colour (premultiplied blur), so compare opaque inputs only.
    if [[ $ct == 0 || $ct == 2 ]]; then close_to "layout $ct pixels" "$tmp/out_$ct.pnm" "$tmp/in_$ct.png" 40 1.0; fi
done

# --- JPEG input: by its bytes, decoded as stb_image decodes it -----------------------------------
for f in s444.jpg baseline_420.jpg progressive.jpg gray.jpg cmyk.jpg; do
    run_ok "read $f" "$tmp/from_$f.png" --device cpu --radius 0 --no-linear "$fixtures/$f"
    decode "$fixtures/$f" "$tmp/$f.pnm"
    close_to "read $f vs stb_image" "$tmp/from_$f.png" "$tmp/$f.pnm" 38 1.0
done
cp "$fixtures/s444.jpg" "$tmp/jpeg_named.png"
run_ok "a JPEG named .png" "$tmp/named1.png" --device cpu --radius 0 --no-linear "$tmp/jpeg_named.png"
cmp -s "$tmp/named1.png" "$tmp/from_s444.jpg.png" || fail "a JPEG named .png did not read as the same JPEG"
cp "$img" "$tmp/png_named.jpg"
run_ok "a PNG named .jpg" "$tmp/named2.png" --device cpu --radius 2 "$tmp/png_named.jpg"
cmp -s "$tmp/named2.png" "$tmp/nosub.png" || fail "a PNG named .jpg did not read as the same PNG"
# a JPEG depth map, and JPEG in to JPEG out
run_ok "gray JPEG depth" "$tmp/depth.jpg" --device cpu --radius 0 --no-linear --quality 95 "$depth"
run_ok "JPEG depth map" "$tmp/dof.jpg" --device cpu --depth "$tmp/depth.jpg" --focus 0.3 "$tmp/q95.jpg"
frame_is "JPEG depth map" "$tmp/dof.jpg" 90 420 3
# a pipe is read once: its name decides (.jpg is JPEG, anything else PNG)
if [[ -e /dev/stdin ]]; then
    rm -f "$tmp/stdin.png"
    expect_cmd 0 "PNG on stdin" bash -c '"$0" --device cpu --radius 2 /dev/stdin "$1" <"$2"' "$prog" "$tmp/stdin.png" "$img" &&
        { cmp -s "$tmp/stdin.png" "$tmp/nosub.png" || fail "PNG on stdin: not the file's output"; }
fi
mkfifo "$tmp/fifo.jpg"
cat "$fixtures/s444.jpg" >"$tmp/fifo.jpg" &
feeder=$!
run_ok "JPEG through a FIFO named .jpg" "$tmp/fifo_out.png" --device cpu --radius 0 --no-linear "$tmp/fifo.jpg"
wait "$feeder" || true
cmp -s "$tmp/fifo_out.png" "$tmp/from_s444.jpg.png" || fail "JPEG through a FIFO: not the file's output"

# --- corrupt and truncated JPEG input ---------------------------------------------------------------
src="$fixtures/baseline_420.jpg"
size=$(wc -c <"$src")
head -c $((size - 2)) "$src" >"$tmp/noeoi.jpg"
head -c 300 "$src" >"$tmp/cut.jpg"
printf '\xff\xd8' >"$tmp/soi.jpg"
printf '\xff\xd8\xff\xe0\x00\x10JFIF\x00garbage garbage garbage' >"$tmp/junk.jpg"
python3 - "$src" "$tmp/damaged.jpg" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
for i in range(len(d) // 2, len(d) // 2 + 16, 2):
    d[i], d[i + 1] = 0xff, 0xd0 + (i // 2) % 8  # restart markers where none belong
open(sys.argv[2], 'wb').write(bytes(d))
EOF
for f in noeoi.jpg cut.jpg soi.jpg junk.jpg damaged.jpg; do
    bad "corrupt input $f" "$f" "JPEG" -- --device cpu --radius 2 "$tmp/$f" "$tmp/o.jpg"
done
bad "corrupt JPEG depth map" "cut.jpg" -- --device cpu --depth "$tmp/cut.jpg" "$img" "$tmp/o.jpg"
# a failed run keeps the user's existing output
cp "$tmp/def.jpg" "$tmp/keep.jpg"
expect 1 "corrupt input, existing output" -- --device cpu "$tmp/cut.jpg" "$tmp/keep.jpg" || true
cmp -s "$tmp/def.jpg" "$tmp/keep.jpg" || fail "a failed run changed the existing output"
no_file "corrupt input, existing output" ""

# --- timing names the encoder; a failed JPEG write is exit 2 --------------------------------------
if expect 0 "timing" -- --device cpu --timing --radius 2 "$img" "$tmp/t.jpg"; then
    grep -q "JPEG encoder: TurboJPEG" "$tmp/err" || fail "timing: no 'JPEG encoder: TurboJPEG' line: $(cat "$tmp/err")"
fi
limited() { (trap '' XFSZ; ulimit -f "$1"; shift; exec "$@"); }
rm -f "$tmp/w.jpg"
if expect_cmd 2 "JPEG write error" limited 1 "$prog" --device cpu --quiet --radius 2 --quality 100 "$img" "$tmp/w.jpg"; then
    one_line "JPEG write error" "w.jpg"
fi
no_file "JPEG write error" "$tmp/w.jpg"

# --- GPU: TurboJPEG by default (the CPU's bytes), nvJPEG (where built) when asked ------------------
if "$prog" --device gpu --radius 1 "$img" "$tmp/probe.png" 2>/dev/null; then
    for sub in 420 444; do
        rm -f "$tmp/d.jpg" "$tmp/c.jpg"
        if expect 0 "gpu jpeg default $sub" -- --device gpu --timing --radius 2 --subsampling "$sub" "$img" "$tmp/d.jpg"; then
            grep -q "JPEG encoder: TurboJPEG" "$tmp/err" || fail "gpu jpeg default $sub: encoder not TurboJPEG: $(cat "$tmp/err")"
            "$prog" --device cpu --radius 2 --subsampling "$sub" "$img" "$tmp/c.jpg" || fail "cpu jpeg $sub"
            cmp -s "$tmp/d.jpg" "$tmp/c.jpg" || fail "gpu jpeg default $sub: not the CPU run's bytes"
        fi
        rm -f "$tmp/g.jpg"
        if expect 0 "gpu jpeg $sub" -- --device gpu --jpeg-encoder nvjpeg --timing --radius 2 --subsampling "$sub" "$img" "$tmp/g.jpg"; then
            enc=$(sed -n 's/^.*JPEG encoder: //p' "$tmp/err")
            echo "GPU run, --subsampling $sub: JPEG encoder $enc"
            grep -q "note:" "$tmp/err" && fail "gpu jpeg $sub: $(grep note: "$tmp/err")"
            "$prog" --device cpu --radius 2 --subsampling "$sub" "$img" "$tmp/c.jpg" || fail "cpu jpeg $sub"
            frame_is "gpu jpeg $sub" "$tmp/g.jpg" 90 "$sub" 3
            decode "$tmp/g.jpg" "$tmp/g.pnm"
            decode "$tmp/c.jpg" "$tmp/c.pnm"
            close_to "gpu ($enc) vs cpu JPEG, $sub" "$tmp/g.pnm" "$tmp/c.pnm" 33 2.0
        fi
    done
else
    echo "no usable GPU: nvJPEG output not compared (CPU checks only)"
    [[ ${LIBSCAN_REQUIRE_GPU:-0} == 1 ]] && fail "LIBSCAN_REQUIRE_GPU=1 but the GPU run failed"
fi

cli_finish "sat_blur JPEG CLI"
