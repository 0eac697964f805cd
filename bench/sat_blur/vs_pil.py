#!/usr/bin/env python3
"""vs_pil.py -- issue #22's targets: sat_blur end to end against PIL, on the
same files, in the same run, interleaved (A B A B ...), medians, every output
checked. Writes a markdown table to stdout.

    python3 bench/sat_blur/vs_pil.py BUILD_DIR [--rounds 5] [--frames 32]
                                     [--batch-rounds 3] [--keep DIR]

BUILD_DIR holds apps/sat_blur/sat_blur and data/scene/make_scene. Needs numpy
and PIL (both on the GPU machine).

Input: a 3840x2160 RGB "photograph": the sample scene rendered at 4K
(make_scene --scale 4) with film grain (Gaussian luminance noise of sigma 5
levels at half resolution, upscaled; seed 1) so that it compresses like a
photo (about 5.5 MB as PNG at zlib level 6, as the issue's photograph), and
the scene's depth map.

Contenders (wall time of the whole job; sat_blur as a process, as a user runs
it, PIL in this process, which spares PIL the interpreter start):
  sat_blur photo.png out.png --depth depth.png --focus 0.5     vs PIL BoxBlur(8) + PNG save
  sat_blur photo.png out.jpg --radius 8                        vs PIL BoxBlur(8) + JPEG q90 save
  sat_blur ... --depth ... --device cpu                        vs PIL BoxBlur(8) + PNG save
  sat_blur photo.png out.png --radius 8 (for the table)
  sat_blur --batch FRAMES/ -o OUT/ --radius 8 --format png|jpg: frames per second
Targets (issue #22): PNG with depth <= 0.2x PIL+PNG; JPEG <= 0.3x PIL+JPEG;
CPU PNG <= 0.5x PIL+PNG; batch >= 10 frames/s to PNG, >= 30 to JPEG.
Checks: every output decodes (PIL) at the right size; GPU and CPU outputs of
the same job are pixel-identical; batch outputs equal the single-image
outputs of the same frame; the PNG's size beside PIL's level-6 PNG of the
same pixels.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image, ImageFilter


def sh(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit("vs_pil.py: %s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[:400]))
    return dt, p.stderr


def pil_job(src, dst, **save):
    t = time.perf_counter()
    im = Image.open(src)
    im.filter(ImageFilter.BoxBlur(8)).save(dst, **save)
    return time.perf_counter() - t


def make_frame(args):
    scene, path, seed, level = args
    rng = np.random.default_rng(seed)
    a = np.asarray(Image.open(scene).convert("RGB"), dtype=np.float32)
    h, w, _ = a.shape
    # Film grain: luminance noise at half resolution, upscaled, so the PNG
    # compresses like a photograph (i.i.d. noise per sample would not).
    n = rng.normal(0, 5, (h // 2, w // 2)).astype(np.float32)
    n = np.asarray(Image.fromarray(n, mode="F").resize((w, h), Image.BILINEAR))
    a = np.clip(a + n[:, :, None], 0, 255).astype(np.uint8)
    Image.fromarray(a).save(path, compress_level=level)
    return path


def pixels(path):
    return np.asarray(Image.open(path))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--frames", type=int, default=32)
    ap.add_argument("--batch-rounds", type=int, default=3)
    ap.add_argument("--keep")
    a = ap.parse_args()
    blur = os.path.join(a.build, "apps/sat_blur/sat_blur")
    scene_bin = os.path.join(a.build, "data/scene/make_scene")
    for p in (blur, scene_bin):
        if not os.access(p, os.X_OK):
            sys.exit("vs_pil.py: %s not built" % p)
    tmp = a.keep or tempfile.mkdtemp(prefix="vs-pil.")
    os.makedirs(tmp, exist_ok=True)
    subprocess.run([scene_bin, "--scale", "4", tmp], check=True, capture_output=True)
    photo, depth = os.path.join(tmp, "photo.png"), os.path.join(tmp, "depth.png")
    make_frame((os.path.join(tmp, "scene.png"), photo, 1, 6))
    w, h = Image.open(photo).size
    print("## sat_blur against PIL, %dx%d RGB photo (%.2f MB PNG) with depth map" % (w, h, os.path.getsize(photo) / 1e6))
    print()
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except OSError:
        gpu = ""
    print("GPU: %s; %d CPU cores; commit %s; %s; %d rounds interleaved, medians of wall time." % (
        gpu or "none", os.cpu_count(), os.environ.get("LIBSCAN_COMMIT", "unknown"),
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), a.rounds))
    print()
    for f in (photo, depth):  # warm the page cache
        open(f, "rb").read()

    o = lambda n: os.path.join(tmp, n)
    jobs = [
        ("sat_blur PNG, depth map", lambda: sh([blur, photo, o("sb_depth.png"), "--depth", depth, "--focus", "0.5", "--quiet"])[0]),
        ("PIL BoxBlur(8) + PNG", lambda: pil_job(photo, o("pil.png"))),
        ("sat_blur JPEG, radius 8", lambda: sh([blur, photo, o("sb_r8.jpg"), "--radius", "8", "--quiet"])[0]),
        ("PIL BoxBlur(8) + JPEG q90", lambda: pil_job(photo, o("pil.jpg"), quality=90)),
        ("sat_blur --device cpu PNG, depth map", lambda: sh([blur, photo, o("sb_depth_cpu.png"), "--depth", depth, "--focus", "0.5", "--device", "cpu", "--quiet"])[0]),
        ("sat_blur PNG, radius 8", lambda: sh([blur, photo, o("sb_r8.png"), "--radius", "8", "--quiet"])[0]),
    ]
    for _, fn in jobs:  # warm-up: CUDA context, libraries, page cache
        fn()
    times = {name: [] for name, _ in jobs}
    for _ in range(a.rounds):
        for name, fn in jobs:
            times[name].append(fn())
    med = {k: statistics.median(v) for k, v in times.items()}

    # --timing breakdown of the main job (one extra run)
    _, timing = sh([blur, photo, o("sb_depth.png"), "--depth", depth, "--focus", "0.5", "--timing"])

    checks = []
    for n in ("sb_depth.png", "sb_r8.jpg", "sb_depth_cpu.png", "sb_r8.png"):
        im = Image.open(o(n))
        im.load()
        checks.append("%s decodes (PIL): %dx%d %s %s" % (n, im.size[0], im.size[1], im.mode,
                                                       "ok" if im.size == (w, h) else "WRONG SIZE"))
    same = np.array_equal(pixels(o("sb_depth.png")), pixels(o("sb_depth_cpu.png")))
    checks.append("GPU and CPU depth-map outputs pixel-identical: %s" % ("yes" if same else "NO"))
    Image.open(o("sb_r8.png")).save(o("pil_l6_of_sb.png"), compress_level=6)
    size_ratio = os.path.getsize(o("sb_r8.png")) / os.path.getsize(o("pil_l6_of_sb.png"))
    checks.append("sat_blur PNG (radius 8) %.2f MB = %.3fx PIL's level-6 PNG of the same pixels" % (
        os.path.getsize(o("sb_r8.png")) / 1e6, size_ratio))

    print("| job | median s | runs |")
    print("| --- | --- | --- |")
    for name, _ in jobs:
        print("| %s | %.3f | %s |" % (name, med[name], " ".join("%.3f" % t for t in times[name])))
    print()
    targets = [
        ("4K PNG -> PNG with depth map / PIL BoxBlur+PNG", med["sat_blur PNG, depth map"] / med["PIL BoxBlur(8) + PNG"], 0.2),
        ("4K PNG -> JPEG / PIL BoxBlur+JPEG", med["sat_blur JPEG, radius 8"] / med["PIL BoxBlur(8) + JPEG q90"], 0.3),
        ("--device cpu 4K PNG -> PNG / PIL BoxBlur+PNG", med["sat_blur --device cpu PNG, depth map"] / med["PIL BoxBlur(8) + PNG"], 0.5),
    ]

    # batch: frames/s
    frames = o("frames")
    shutil.rmtree(frames, ignore_errors=True)
    os.makedirs(frames)
    from multiprocessing import Pool
    with Pool(min(16, os.cpu_count() or 1)) as pool:
        pool.map(make_frame, [(o("scene.png"), os.path.join(frames, "f%03d.png" % i), 100 + i, 6) for i in range(a.frames)])
    for f in os.listdir(frames):
        open(os.path.join(frames, f), "rb").read()
    fps = {}
    for fmt in ("png", "jpg"):
        outdir = o("batch_" + fmt)
        ts = []
        for r in range(a.batch_rounds + 1):
            shutil.rmtree(outdir, ignore_errors=True)
            os.makedirs(outdir)
            dt, _ = sh([blur, "--batch", frames, "-o", outdir + "/", "--radius", "8", "--format", fmt, "--quiet"])
            if r:
                ts.append(dt)
        fps[fmt] = a.frames / statistics.median(ts)
        got = sorted(os.listdir(outdir))
        checks.append("batch %s: %d outputs of %d frames" % (fmt, len(got), a.frames))
    # frame 0 of the PNG batch equals a single run on the same frame
    sh([blur, os.path.join(frames, "f000.png"), o("single_f000.png"), "--radius", "8", "--quiet"])
    same = np.array_equal(pixels(o("single_f000.png")), pixels(os.path.join(o("batch_png"), "f000.png")))
    checks.append("batch frame 0 equals the single-image output: %s" % ("yes" if same else "NO"))
    targets += [
        ("batch of %d 4K frames to PNG, frames/s" % a.frames, fps["png"], 10),
        ("batch of %d 4K frames to JPEG, frames/s" % a.frames, fps["jpg"], 30),
    ]

    print("| target | measured | limit | met |")
    print("| --- | --- | --- | --- |")
    for name, v, lim in targets:
        ok = v >= lim if "frames/s" in name else v <= lim
        print("| %s | %.3f | %s %g | %s |" % (name, v, ">=" if "frames/s" in name else "<=", lim, "yes" if ok else "NO"))
    print()
    print("Checks:")
    for c in checks:
        print("- " + c)
    print()
    print("`sat_blur --timing` of the depth-map job:")
    print()
    print("```")
    print(timing.strip())
    print("```")
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
