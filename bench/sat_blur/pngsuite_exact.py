#!/usr/bin/env python3
"""pngsuite_exact.py -- issue #22's precision check: `sat_blur --radius 0` must
give back every pixel of every PNG it accepts, and refuse every corrupt one.

    python3 bench/sat_blur/pngsuite_exact.py SAT_BLUR DIR... [--device cpu|gpu]
                                             [--compare-device] [--report FILE]

DIR: folders of PNG files, searched recursively (libpng's contrib/pngsuite and
contrib/testpngs: `fetch github:pnggroup/libpng`; they are not committed here).
Files whose name starts with "x" (PngSuite's corrupt files) must be refused:
exit 1, one line on stderr, no output file. Files under testpngs' crashers/
and badpal/ are damaged in ways libpng tolerates (short palettes, empty
ancillary chunks): each must be either refused that way or decoded and
given back exactly like a valid file.

Every other file goes through `sat_blur IN OUT.png --radius 0`. Input and
output are decoded by pypng (pure Python, independent of libpng and of
sat_blur's reader), expanded to RGBA by the rules of the PNG specification
(palette + tRNS, grey, tRNS colour key; sBIT and gAMA ignored, as libpng does
by default) and compared sample by sample on the scale [0, 1]:
  - 8-bit or smaller sources: every sample exact (error 0 in 1/255 steps);
  - 16-bit sources: within 2/65535, and the output must be 16-bit;
  - colour is not compared where alpha is 0 (premultiplied blur leaves it
    undefined), alpha always is.
With --compare-device the GPU output is also checked byte for byte against
the CPU output.

Needs pypng (`pip install pypng`; the GPU machine gets it as a wheel in .deps/).
Exit status: 0 all files as expected, 1 some not, 2 bad usage.
"""
import argparse
import os
import subprocess
import sys
import tempfile

try:
    import png  # pypng
except ImportError:
    sys.exit("pngsuite_exact.py: needs pypng (pip install pypng)")


def expected_corrupt(path):
    return os.path.basename(path).startswith("x")


def may_be_refused(path):
    parts = path.split(os.sep)
    return "crashers" in parts or "badpal" in parts


def to_rgba(path):
    """(width, height, bitdepth, rows of RGBA ints) by the PNG spec's rules."""
    r = png.Reader(filename=path)
    w, h, rows, info = r.read()
    bd = info["bitdepth"]
    planes = info["planes"]
    out = []
    pal = None
    if info.get("palette"):
        pal = [tuple(p) + ((255,) if len(p) == 3 else ()) for p in info["palette"]]
    key = info.get("transparent")
    maxv = (1 << bd) - 1
    for row in rows:
        row = list(row)
        px = []
        for x in range(w):
            s = row[x * planes:(x + 1) * planes]
            if pal is not None:
                px.append(pal[s[0]])
                continue
            if info["greyscale"]:
                g = s[0]
                a = s[1] if info["alpha"] else (0 if key is not None and g == (key if isinstance(key, int) else key[0]) else maxv)
                px.append((g, g, g, a))
            else:
                if info["alpha"]:
                    px.append(tuple(s))
                else:
                    a = 0 if key is not None and tuple(s) == tuple(key) else maxv
                    px.append((s[0], s[1], s[2], a))
        out.append(px)
    depth = 8 if pal is not None else bd
    return w, h, depth, out


def compare(src, dst):
    """Largest error in the source's units (1/255 or 1/65535), or a string."""
    sw, sh, sbd, sp = src
    dw, dh, dbd, dp = dst
    if (sw, sh) != (dw, dh):
        return "size %dx%d, output %dx%d" % (sw, sh, dw, dh)
    if sbd == 16 and dbd != 16:
        return "16-bit source written as %d-bit" % dbd
    unit = 65535 if sbd == 16 else 255
    smax, dmax = (1 << sbd) - 1, (1 << dbd) - 1
    worst = 0.0
    for y in range(sh):
        for x in range(sw):
            s, d = sp[y][x], dp[y][x]
            chans = range(4) if s[3] != 0 else (3,)
            for c in chans:
                e = abs(s[c] / smax - d[c] / dmax) * unit
                worst = max(worst, e)
    return worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sat_blur")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--compare-device", action="store_true")
    ap.add_argument("--report")
    a = ap.parse_args()
    files = sorted(os.path.join(dp, f) for d in a.dirs for dp, _, fs in os.walk(d) for f in fs if f.endswith(".png"))
    if not files:
        print("pngsuite_exact.py: no PNG files under %s" % " ".join(a.dirs), file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="pngsuite-exact.")
    bad = []
    n_ok = n_refused = 0
    worst8 = worst16 = 0.0
    lines = []
    for f in files:
        out = os.path.join(tmp, "out.png")
        if os.path.exists(out):
            os.unlink(out)
        p = subprocess.run([a.sat_blur, f, out, "--radius", "0", "--device", a.device, "--quiet"],
                           capture_output=True, text=True, errors="replace")
        err = p.stderr.strip().splitlines()
        refused_cleanly = p.returncode == 1 and not os.path.exists(out) and len(err) == 1
        if may_be_refused(f) and refused_cleanly:
            n_refused += 1
            continue
        if expected_corrupt(f):
            if refused_cleanly and not os.path.exists(out) and len(err) == 1:
                n_refused += 1
            else:
                bad.append("%s: corrupt file not refused cleanly (exit %d, %d stderr lines, output %s)" %
                           (f, p.returncode, len(err), "written" if os.path.exists(out) else "absent"))
            continue
        if p.returncode != 0:
            bad.append("%s: exit %d: %s" % (f, p.returncode, err[0] if err else ""))
            continue
        try:
            src = to_rgba(f)
        except Exception as e:  # pypng refuses what sat_blur accepted: report, do not judge
            lines.append("%s: pypng cannot read the source (%s); sat_blur accepted it" % (f, e))
            continue
        dst = to_rgba(out)
        r = compare(src, dst)
        if isinstance(r, str):
            bad.append("%s: %s" % (f, r))
            continue
        limit = 2.0 if src[2] == 16 else 0.0
        if src[2] == 16:
            worst16 = max(worst16, r)
        else:
            worst8 = max(worst8, r)
        if r > limit + 1e-9:
            bad.append("%s: off by %.2f/%d (limit %g)" % (f, r, 65535 if src[2] == 16 else 255, limit))
        if a.compare_device:
            out2 = os.path.join(tmp, "out_cpu.png")
            subprocess.run([a.sat_blur, f, out2, "--radius", "0", "--device", "cpu", "--quiet"], check=False)
            if open(out, "rb").read() != open(out2, "rb").read():
                bad.append("%s: --device %s and --device cpu wrote different bytes" % (f, a.device))
        n_ok += 1
    summary = [
        "files: %d (%d accepted and compared, %d corrupt refused)" % (len(files), n_ok, n_refused),
        "largest error, sources of 8 bits or fewer: %.2f/255 (limit 0)" % worst8,
        "largest error, 16-bit sources: %.2f/65535 (limit 2)" % worst16,
        "failures: %d" % len(bad),
    ] + ["  " + b for b in bad] + lines
    text = "\n".join(summary)
    print(text)
    if a.report:
        with open(a.report, "w") as fh:
            fh.write(text + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
