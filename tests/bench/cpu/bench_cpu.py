#!/usr/bin/python3
# gimp-gpu-filters: the CPU benchmark of issue 3.
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Times the engine's CPU backend (through bench-engine) and, in the same run
# on the same machine, the same operations in OpenCV, scipy.ndimage and the
# `gegl' command, on RGBA float32 images with the clamp border everywhere.
# Prints a Markdown table of medians and ratios (peer time / our time: > 1
# means we are faster) and whether each goal of issue 3 is met.
#
# Run it with the system Python (/usr/bin/python3), which has Debian's
# python3-opencv and python3-scipy.  A missing peer is skipped with a note.
#
#   /usr/bin/python3 tests/bench/cpu/bench_cpu.py \
#       --engine BUILD/tests/bench/cpu/bench-engine [--quick] [--threads N]
#       [--only gaussian,sobel,convolve,kuwahara] [--out FILE]

import argparse
import glob
import json
import math
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:  # nothing but our own engine can run then
    np = None


# --------------------------------------------------------------------------
# What is measured

FULL_SIZES = [(1920, 1080), (3840, 2160)]
QUICK_SIZES = [(320, 180), (640, 360)]

# (group, label, filter, parameters).  Kuwahara has no peers.
def make_cases(quick):
    cases = []
    for s in ([2, 10, 50] if quick else [2, 10, 50, 200]):
        cases.append(("gaussian", "Gaussian σ=%g" % s, "gaussian-blur",
                      {"std_dev": s}))
    cases.append(("sobel", "Sobel (dx, dy, magnitude)", "sobel", {}))
    for n in [3, 5, 13]:
        cases.append(("convolve", "Convolve %d×%d" % (n, n), "convolve",
                      {"n": n}))
    for r in ([2, 10] if quick else [2, 5, 10, 20, 30]):
        cases.append(("kuwahara", "Kuwahara r=%d" % r, "kuwahara",
                      {"radius": r}))
    return cases


def gaussian_radius(sigma):
    return int(math.floor(4 * sigma + 0.5))


def gaussian_taps(sigma):
    """The engine's taps (kernels/gpufx.h): exp(-k^2/2s^2), |k| <= r, sum 1."""
    r = gaussian_radius(sigma)
    k = np.arange(-r, r + 1, dtype=np.float64)
    w = np.exp(-0.5 * k * k / (sigma * sigma))
    return w / w.sum()


def random_matrix(n, seed=1234):
    return np.random.default_rng(seed + n).uniform(-1, 1, (n, n)).astype(
        np.float32)


def matrix_text(m):
    return ";".join(",".join(repr(float(v)) for v in row) for row in m)


# --------------------------------------------------------------------------
# Timing

def median_ms(fn, repeats, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


class Result:
    def __init__(self, ms=None, note=None):
        self.ms = ms
        self.note = note


# --------------------------------------------------------------------------
# Our engine

def run_engine(args, case, size):
    _, _, filt, p = case
    cmd = [args.engine, filt, "--size", "%dx%d" % size, "--border", "clamp",
           "--backend", "cpu", "--threads", str(args.threads),
           "--repeats", str(args.repeats), "--warmup", str(args.warmup)]
    if filt == "gaussian-blur":
        cmd += ["--std-dev", repr(p["std_dev"])]
    elif filt == "kuwahara":
        cmd += ["--radius", str(p["radius"])]
    elif filt == "convolve":
        if np is not None:
            cmd += ["--matrix", matrix_text(random_matrix(p["n"]))]
        else:
            cmd += ["--matrix-size", str(p["n"])]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=args.engine_timeout)
    except subprocess.TimeoutExpired:
        return Result(None, "ours: timed out after %d s" % args.engine_timeout)
    line = proc.stdout.strip().splitlines()[-1:] or [""]
    try:
        js = json.loads(line[0])
    except ValueError:
        return Result(None, "ours: bench-engine failed (%d): %s"
                      % (proc.returncode, (proc.stderr or proc.stdout)
                         .strip()[:160]))
    if "error" in js:
        return Result(None, "ours: " + js["error"])
    return Result(js["median_ms"])


# --------------------------------------------------------------------------
# OpenCV and scipy.ndimage

def load_cv2(threads):
    try:
        import cv2
    except ImportError as e:
        return None, "OpenCV missing (%s); install python3-opencv" % e
    if threads > 0:
        cv2.setNumThreads(threads)
    return cv2, None


def load_scipy():
    try:
        import scipy
        import scipy.ndimage as ndi
    except ImportError as e:
        return None, "scipy missing (%s); install python3-scipy" % e
    return ndi, None


def opencv_ops(cv2, case, img):
    """{column: callable} for one case; the first key is the goal's peer."""
    _, _, filt, p = case
    B = cv2.BORDER_REPLICATE
    if filt == "gaussian-blur":
        s = p["std_dev"]
        k = 2 * gaussian_radius(s) + 1
        taps = gaussian_taps(s).astype(np.float32)
        return {
            "GaussianBlur": lambda: cv2.GaussianBlur(img, (k, k), s, sigmaY=s,
                                                     borderType=B),
            "sepFilter2D": lambda: cv2.sepFilter2D(img, -1, taps, taps,
                                                   borderType=B),
        }
    if filt == "sobel":
        scale = 1 / math.sqrt(32)  # our output: sqrt(Gx² + Gy²) / sqrt(32)

        def sobel():
            gx = cv2.Sobel(img, -1, 1, 0, ksize=3, scale=scale, borderType=B)
            gy = cv2.Sobel(img, -1, 0, 1, ksize=3, scale=scale, borderType=B)
            return cv2.magnitude(gx, gy)
        return {"Sobel dx+dy+magnitude": sobel}
    if filt == "convolve":
        m = random_matrix(p["n"])
        return {"filter2D": lambda: cv2.filter2D(img, -1, m, borderType=B)}
    return {}


def scipy_op(ndi, case, img):
    _, _, filt, p = case
    if filt == "gaussian-blur":
        s = p["std_dev"]
        return lambda: ndi.gaussian_filter(img, (s, s, 0), truncate=4.0,
                                           mode="nearest")
    if filt == "sobel":
        scale = np.float32(1 / math.sqrt(32))

        # ndimage.sobel smooths along every other axis, the channel axis of
        # an H x W x 4 array included, so it is spelt out on axes 0 and 1
        # (the same two correlate1d calls that ndimage.sobel makes).
        def one(x, along, across):
            d = ndi.correlate1d(x, [-1, 0, 1], axis=along, mode="nearest")
            return ndi.correlate1d(d, [1, 2, 1], axis=across, mode="nearest")

        def sobel():
            gx = one(img, 1, 0)
            gy = one(img, 0, 1)
            return np.hypot(gx, gy) * scale
        return sobel
    if filt == "convolve":
        m = random_matrix(p["n"])[:, :, None]
        return lambda: ndi.correlate(img, m, mode="nearest")
    return None


def scipy_taps_per_pixel(case):
    _, _, filt, p = case
    if filt == "gaussian-blur":
        return 2 * (2 * gaussian_radius(p["std_dev"]) + 1)
    if filt == "convolve":
        return p["n"] ** 2
    return 18


# --------------------------------------------------------------------------
# GEGL, through the `gegl' command

def write_float_tiff(path, img):
    """An uncompressed little-endian RGBA float32 TIFF, alpha unassociated,
    which gegl:tiff-load reads as RGBA float without guessing."""
    h, w, c = img.shape
    data = np.ascontiguousarray(img, dtype="<f4").tobytes()
    entries = []  # (tag, type, count, value or bytes)
    extra = b""
    header = 8
    n_tags = 12
    ifd_size = 2 + n_tags * 12 + 4
    extra_base = header + ifd_size

    def short_array(values):
        nonlocal extra
        off = extra_base + len(extra)
        extra += struct.pack("<%dH" % len(values), *values)
        return off

    bits = short_array([32] * c)
    fmt = short_array([3] * c)
    data_off = extra_base + len(extra)
    entries = [
        (256, 4, 1, w), (257, 4, 1, h), (258, 3, c, bits), (259, 3, 1, 1),
        (262, 3, 1, 2), (273, 4, 1, data_off), (277, 3, 1, c),
        (278, 4, 1, h), (279, 4, 1, len(data)), (284, 3, 1, 1),
        (338, 3, 1, 2), (339, 3, c, fmt),
    ]
    assert len(entries) == n_tags
    ifd = struct.pack("<H", n_tags)
    for tag, typ, count, value in entries:
        if typ == 3 and count == 1:
            ifd += struct.pack("<HHIHH", tag, typ, count, value, 0)
        else:
            ifd += struct.pack("<HHII", tag, typ, count, value)
    ifd += struct.pack("<I", 0)
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", header) + ifd + extra + data)


class Gegl:
    def __init__(self, args, workdir):
        self.exe = shutil.which("gegl")
        self.args = args
        self.workdir = workdir
        self.env = dict(os.environ)
        self.env["GEGL_THREADS"] = str(args.threads or os.cpu_count() or 1)
        self.null = {}
        self.inputs = {}
        self.version = None
        if self.exe:
            try:
                self.version = subprocess.run(
                    ["dpkg-query", "-W", "-f=${Version}", "gegl"],
                    capture_output=True, text=True).stdout.strip() or None
            except OSError:
                pass

    def prepare(self, size, img):
        path = os.path.join(self.workdir, "in-%dx%d.tif" % size)
        write_float_tiff(path, img)
        self.inputs[size] = path

    def _cmd(self, size, ops):
        return [self.exe, "-i", self.inputs[size],
                "-o", os.path.join(self.workdir, "out.npy"), "--"] + ops

    def _time(self, size, ops):
        cmd = self._cmd(size, ops)

        def once():
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=self.env)
            if proc.returncode != 0:
                raise RuntimeError(proc.stderr.decode(errors="replace")[-200:])
        return median_ms(once, self.args.gegl_repeats, 1)

    def null_ms(self, size):
        if size not in self.null:
            self.null[size] = self._time(size, ["gegl:nop"])
        return self.null[size]

    def ops(self, case):
        _, _, filt, p = case
        if filt == "gaussian-blur":
            s = p["std_dev"]
            return ["gegl:gaussian-blur", "std-dev-x=%g" % s,
                    "std-dev-y=%g" % s, "abyss-policy=clamp"]
        if filt == "sobel":
            return ["gegl:edge-sobel", "horizontal=true", "vertical=true",
                    "keep-sign=false"]
        if filt == "convolve" and p["n"] in (3, 5):
            m = np.zeros((5, 5))
            o = (5 - p["n"]) // 2
            m[o:o + p["n"], o:o + p["n"]] = random_matrix(p["n"])
            # gegl names rows a..e and columns 1..5: a1 is the top-left.
            props = ["%s%d=%r" % ("abcde"[j], i + 1, float(m[j, i]))
                     for j in range(5) for i in range(5)]
            return ["gegl:convolution-matrix"] + props + [
                "divisor=1", "offset=0", "normalize=false",
                "alpha-weight=false", "border=clamp"]
        return None

    def run(self, case, size):
        ops = self.ops(case)
        if ops is None:
            return None
        try:
            gross = self._time(size, ops)
            null = self.null_ms(size)
        except RuntimeError as e:
            return Result(None, "gegl failed: %s" % str(e).strip())
        r = Result(gross - null)
        r.gross = gross
        if gross - null < 0.05 * null:
            r.ms = None
            r.note = ("gegl: net time below the noise of its start-up "
                      "(gross %.1f ms, null %.1f ms)" % (gross, null))
        return r


# --------------------------------------------------------------------------
# The report

def fmt_ms(ms):
    if ms is None:
        return "—"
    return "%.1f" % ms if ms >= 10 else "%.2f" % ms


def fmt_ratio(peer, ours):
    if peer is None or ours is None or ours <= 0:
        return "—"
    return "%.2f×" % (peer / ours)


def machine_lines(args):
    model = platform.processor() or "?"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    lines = ["- CPU: %s, %d logical CPUs (os.cpu_count)"
             % (model, os.cpu_count() or 0),
             "- threads asked: %s" % (args.threads or "all cores (0)"),
             "- Python %s, numpy %s" % (platform.python_version(),
                                         np.__version__ if np else "missing")]
    return lines


def find_engine():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", "..", ".."))
    env = os.environ.get("BENCH_ENGINE")
    if env:
        return env
    for pat in [os.path.join(root, "*", "tests", "bench", "cpu",
                             "bench-engine"),
                "/tmp/*/tests/bench/cpu/bench-engine"]:
        hits = sorted(glob.glob(pat), key=os.path.getmtime, reverse=True)
        if hits:
            return hits[0]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--engine", help="the bench-engine executable "
                    "(default: $BENCH_ENGINE or the newest build found)")
    ap.add_argument("--quick", action="store_true",
                    help="small images, 1 repeat: a smoke test in seconds")
    ap.add_argument("--threads", type=int, default=0,
                    help="threads for us, OpenCV and GEGL; 0 = all cores")
    ap.add_argument("--repeats", type=int, default=None,
                    help="timed runs for us and OpenCV (default 7; quick 1)")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--scipy-repeats", type=int, default=None,
                    help="default 3; quick 1")
    ap.add_argument("--gegl-repeats", type=int, default=None,
                    help="default 3; quick 1")
    ap.add_argument("--scipy-all-sizes", action="store_true",
                    help="also run scipy's slow cases (more than 50 taps "
                    "per pixel) at 3840×2160; by default they run at "
                    "1920×1080 only")
    ap.add_argument("--only", default="gaussian,sobel,convolve,kuwahara",
                    help="comma-separated groups")
    ap.add_argument("--sizes", help="e.g. 1920x1080,3840x2160")
    ap.add_argument("--no-opencv", action="store_true")
    ap.add_argument("--no-scipy", action="store_true")
    ap.add_argument("--no-gegl", action="store_true")
    ap.add_argument("--engine-timeout", type=int, default=600)
    ap.add_argument("--out", help="also write the Markdown to this file")
    args = ap.parse_args()

    if args.repeats is None:
        args.repeats = 1 if args.quick else 7
    if args.scipy_repeats is None:
        args.scipy_repeats = 1 if args.quick else 3
    if args.gegl_repeats is None:
        args.gegl_repeats = 1 if args.quick else 3
    if args.engine is None:
        args.engine = find_engine()
    if args.sizes:
        sizes = [tuple(int(v) for v in s.split("x"))
                 for s in args.sizes.split(",")]
    else:
        sizes = QUICK_SIZES if args.quick else FULL_SIZES
    groups = set(args.only.split(","))
    cases = [c for c in make_cases(args.quick) if c[0] in groups]

    notes = []
    if not args.engine or not os.access(args.engine, os.X_OK):
        notes.append("bench-engine not found (--engine); our column is "
                     "empty")
        args.engine = None
    if np is None:
        notes.append("numpy missing: no peers (run with /usr/bin/python3)")
    cv2 = ndi = None
    if np is not None and not args.no_opencv:
        cv2, why = load_cv2(args.threads)
        if why:
            notes.append(why)
    if np is not None and not args.no_scipy:
        ndi, why = load_scipy()
        if why:
            notes.append(why)
    workdir = tempfile.mkdtemp(prefix="gpufx-bench-")
    gegl = None
    if np is not None and not args.no_gegl:
        gegl = Gegl(args, workdir)
        if not gegl.exe:
            notes.append("the gegl command is missing; install gegl")
            gegl = None

    rows = []     # (case, size, ours, {peer: Result}, best cv column)
    t_start = time.time()
    try:
        for size in sizes:
            img = None
            if np is not None:
                rng = np.random.default_rng(7)
                img = rng.random((size[1], size[0], 4), dtype=np.float32)
                img[..., :3] *= img[..., 3:]  # premultiplied, like GIMP's
                if gegl:
                    gegl.prepare(size, img)
            for case in cases:
                ours = run_engine(args, case, size) if args.engine else \
                    Result(None)
                peers = {}
                if cv2 is not None:
                    for name, fn in opencv_ops(cv2, case, img).items():
                        peers["cv2." + name] = Result(
                            median_ms(fn, args.repeats, args.warmup))
                if ndi is not None:
                    fn = scipy_op(ndi, case, img)
                    if fn is not None:
                        if (size[0] * size[1] > 1920 * 1080
                                and scipy_taps_per_pixel(case) > 50
                                and not args.scipy_all_sizes):
                            peers["scipy"] = Result(
                                None, "scipy skipped at this size")
                        else:
                            peers["scipy"] = Result(
                                median_ms(fn, args.scipy_repeats, 0))
                if gegl is not None:
                    r = gegl.run(case, size)
                    if r is not None:
                        peers["gegl"] = r
                rows.append((case, size, ours, peers))
                print("# %-28s %4dx%-4d ours %s ms; %s" % (
                    case[1], size[0], size[1], fmt_ms(ours.ms),
                    ", ".join("%s %s" % (k, fmt_ms(v.ms))
                              for k, v in peers.items())),
                    file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    md = report(args, rows, notes, gegl, sizes, time.time() - t_start)
    print(md)
    if args.out:
        with open(args.out, "w") as f:
            f.write(md + "\n")
    return 0


def best_cv(peers):
    """The faster of the OpenCV columns: the ratio is against the stronger
    OpenCV way of doing the operation."""
    cands = [(r.ms, k) for k, r in peers.items()
             if k.startswith("cv2.") and r.ms is not None]
    return min(cands) if cands else (None, None)


def report(args, rows, notes, gegl, sizes, seconds):
    out = []
    out.append("## CPU benchmark: gpufx vs OpenCV, scipy.ndimage, GEGL")
    out.append("")
    out += machine_lines(args)
    try:
        import cv2
        out.append("- OpenCV %s (%d threads), " % (cv2.__version__,
                                                    cv2.getNumThreads())
                   + ("scipy %s, " % __import__("scipy").__version__
                      if not args.no_scipy else "")
                   + "gegl %s (GEGL_THREADS=%s)" % (
                       gegl.version if gegl else "not run",
                       gegl.env["GEGL_THREADS"] if gegl else "-"))
    except ImportError:
        pass
    out.append("- repeats: ours and OpenCV %d (after %d warm-up), scipy %d, "
               "gegl %d; figures are medians in ms; %s; total %.0f s"
               % (args.repeats, args.warmup, args.scipy_repeats,
                  args.gegl_repeats, "QUICK smoke test" if args.quick
                  else "full run", seconds))
    out.append("- command: `%s`" % " ".join(
        [sys.executable] + [a if " " not in a else repr(a)
                            for a in sys.argv]))
    out.append("")
    out.append("Ratio = peer time / our time: above 1 we are faster.  "
               "OpenCV's ratio uses the faster of its columns (for the "
               "Gaussian: GaussianBlur or sepFilter2D with our exact taps).")
    out.append("")
    out.append("| Filter | Size | ours | OpenCV | ×OpenCV | scipy | ×scipy "
               "| GEGL (net) | ×GEGL |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for case, size, ours, peers in rows:
        cv_ms, cv_name = best_cv(peers)
        sc = peers.get("scipy", Result())
        gg = peers.get("gegl", Result())
        out.append("| %s | %d×%d | %s | %s | %s | %s | %s | %s | %s |" % (
            case[1], size[0], size[1], fmt_ms(ours.ms),
            fmt_ms(cv_ms) + (" (%s)" % cv_name[4:] if cv_name else ""),
            fmt_ratio(cv_ms, ours.ms), fmt_ms(sc.ms),
            fmt_ratio(sc.ms, ours.ms), fmt_ms(gg.ms),
            fmt_ratio(gg.ms, ours.ms)))
    out.append("")

    # Every OpenCV column, for the Gaussian's two ways.
    detail = [(c, s, p) for c, s, _, p in rows
              if sum(k.startswith("cv2.") for k in p) > 1]
    if detail:
        out.append("OpenCV, each way (ms):")
        out.append("")
        out.append("| Filter | Size | GaussianBlur | sepFilter2D (our taps) |")
        out.append("|---|---|---:|---:|")
        for c, s, p in detail:
            out.append("| %s | %d×%d | %s | %s |" % (
                c[1], s[0], s[1],
                fmt_ms(p.get("cv2.GaussianBlur", Result()).ms),
                fmt_ms(p.get("cv2.sepFilter2D", Result()).ms)))
        out.append("")
    if gegl and gegl.null:
        out.append("GEGL's gross times (ms): " + "; ".join(
            "%s %d×%d %s" % (c[1], s[0], s[1],
                             fmt_ms(getattr(p["gegl"], "gross", None)))
            for c, s, _, p in rows if "gegl" in p) + ".")
        out.append("")
        out.append("GEGL's times are the `gegl` command's wall time minus, "
                   "in the same run, a null pipeline (`gegl -i in.tif -o "
                   "out.npy -- gegl:nop`: process start-up, TIFF load, NPY "
                   "save): %s ms.  GEGL also converts to and from its working "
                   "format inside the filter's time." % ", ".join(
                       "%d×%d %s" % (s[0], s[1], fmt_ms(v))
                       for s, v in gegl.null.items()))
        out.append("")

    # Goals of issue 3.
    out.append("### Goals")
    out.append("")
    by = {(c[2], tuple(sorted(c[3].items())), s): (o, p)
          for c, s, o, p in rows}

    def goal(text, checks):
        vals = [v for v in checks if v is not None]
        if not vals:
            status = "not measured"
        elif all(ok for ok, _ in vals):
            status = "**met**"
        else:
            status = "**not met**"
        detail = "; ".join(d for _, d in vals)
        out.append("- %s: %s%s" % (text, status,
                                   " (%s)" % detail if detail else ""))

    def ratio_check(filt, params, size, peer_pick, need, label):
        key = (filt, tuple(sorted(params.items())), size)
        if key not in by:
            return None
        ours, peers = by[key]
        peer_ms = peer_pick(peers)
        if ours.ms is None or peer_ms is None:
            return None
        r = peer_ms / ours.ms
        return (r >= need, "%s %d×%d %.2f×" % (label, size[0], size[1], r))

    cv_pick = lambda p: best_cv(p)[0]
    sc_pick = lambda p: p.get("scipy", Result()).ms
    for s in [2, 10, 50]:
        goal("Gaussian σ=%g at least as fast as OpenCV" % s,
             [ratio_check("gaussian-blur", {"std_dev": s}, z, cv_pick, 1.0,
                          "") for z in sizes])
    goal("Sobel at least as fast as OpenCV (Sobel dx + Sobel dy + "
         "magnitude)",
         [ratio_check("sobel", {}, z, cv_pick, 1.0, "") for z in sizes])
    goal("13×13 convolution at least as fast as cv2.filter2D",
         [ratio_check("convolve", {"n": 13}, z, cv_pick, 1.0, "")
          for z in sizes])
    sc_checks = []
    for c, z, o, p in rows:
        if "scipy" in p:
            sc_checks.append(ratio_check(c[2], c[3], z, sc_pick, 10.0,
                                         c[1]))
    worst = [x for x in sc_checks if x is not None]
    worst.sort(key=lambda x: float(x[1].rsplit(" ", 1)[1][:-1]))
    goal("at least 10× faster than scipy (%d cases; the 3 slowest shown)"
         % len(worst), worst[:3])
    kw = []
    for z in sizes:
        a = by.get(("kuwahara", (("radius", 2),), z))
        b = by.get(("kuwahara", (("radius", 10),), z))
        if a and b and a[0].ms and b[0].ms:
            r = b[0].ms / a[0].ms
            kw.append((r <= 1.5, "%d×%d r10/r2 = %.2f" % (z[0], z[1], r)))
    goal("Kuwahara r=10 within 1.5× of r=2", kw)
    out.append("")

    msgs = list(notes)
    for c, z, o, p in rows:
        if o.note:
            msgs.append("%s %d×%d: %s" % (c[1], z[0], z[1], o.note))
        for k, r in p.items():
            if r.note and "skipped" not in r.note:
                msgs.append("%s %d×%d %s: %s" % (c[1], z[0], z[1], k,
                                                 r.note))
    if any(r.note and "skipped" in r.note
           for _, _, _, p in rows for r in p.values()):
        msgs.append("scipy's cases with more than 50 taps per pixel ran at "
                    "1920×1080 only (--scipy-all-sizes runs them all)")
    msgs.append("Kuwahara: no peer (OpenCV and scipy have none; `gegl "
                "--list-all` lists no Kuwahara in this GEGL)")
    msgs.append("GEGL: gegl:convolution-matrix is 5×5 only, so it runs the "
                "3×3 (zero-padded to 5×5) and 5×5 cases; gegl:gaussian-blur "
                "runs with filter=auto (IIR above σ=1), not the exact "
                "sampled kernel; edge-sobel has no border option.  scipy's "
                "Sobel is correlate1d [-1,0,1] then [1,2,1] per axis (what "
                "ndimage.sobel does, kept off the channel axis), then hypot")
    out.append("### Notes")
    out.append("")
    out += ["- " + m for m in msgs]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
