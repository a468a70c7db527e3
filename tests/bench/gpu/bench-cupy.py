#!/usr/bin/env python3
"""CuPy peer timings (cupyx.scipy.ndimage), device-resident, median of CUDA
events, for the same sizes and filters as bench-gpu (RGBA float32)."""
import sys
try:
    import cupy as cp
    from cupyx.scipy import ndimage as ndi
except Exception as e:  # noqa: BLE001
    print("SKIP: cupy not available:", e)
    sys.exit(0)


def timeit(f, reps=10):
    f(); f()
    t = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); f(); b.record(); b.synchronize()
        t.append(cp.cuda.get_elapsed_time(a, b))
    t.sort()
    return t[len(t) // 2]


for (w, h) in [(1920, 1080), (3840, 2160)]:
    x = cp.random.random((h, w, 4), dtype=cp.float32)
    out = cp.empty_like(x)
    k = cp.asarray((cp.arange(169) * 37 % 11 / 100.0).reshape(13, 13, 1), dtype=cp.float32)
    rows = []
    rows.append(("sobel (x and y)", timeit(lambda: (ndi.sobel(x, 0, output=out, mode="nearest"), ndi.sobel(x, 1, output=out, mode="nearest")))))
    for s in (2, 10, 50, 200):
        reps = 3 if s >= 50 else 10
        rows.append((f"gaussian s={s}", timeit(lambda: ndi.gaussian_filter(x, (s, s, 0), output=out, mode="nearest", truncate=4.0), reps)))
    rows.append(("convolve 13x13", timeit(lambda: ndi.correlate(x, k, output=out, mode="nearest"), 5)))
    for name, ms in rows:
        print(f"| {w}x{h} | {name:24s} | cupy | {ms:9.3f} |")
