#!/usr/bin/python3
"""Expected values from scipy.ndimage (and a short numpy Kuwahara) for
test-scipy.c.  Run with a python that has numpy and scipy:

    /usr/bin/python3 tests/engine/make_scipy_data.py > tests/engine/data/scipy-cases.txt
"""
import numpy as np
from scipy import ndimage

MODES = {'clamp': 'nearest', 'mirror': 'mirror', 'wrap': 'grid-wrap',
         'zero': 'constant'}
rng = np.random.default_rng(20261121)


def fmt(a):
    return ' '.join('%.9g' % v for v in np.asarray(a, np.float64).ravel())


def image(w, h):
    return rng.random((h, w)).astype(np.float32)


def kuwahara(img, r, mode):
    """Classic Kuwahara, one channel: pad, then four quadrants per pixel."""
    p = np.pad(img.astype(np.float64), r,
               mode={'nearest': 'edge', 'mirror': 'reflect',
                     'grid-wrap': 'wrap', 'constant': 'constant'}[mode])
    h, w = img.shape
    out = np.zeros((h, w))
    for y in range(h):
        for x in range(w):
            cy, cx = y + r, x + r
            quads = [p[cy - r:cy + 1, cx - r:cx + 1], p[cy - r:cy + 1, cx:cx + r + 1],
                     p[cy:cy + r + 1, cx - r:cx + 1], p[cy:cy + r + 1, cx:cx + r + 1]]
            var = [q.var() for q in quads]
            out[y, x] = quads[int(np.argmin(var))].mean()
    return out


out = []
for border, mode in MODES.items():
    # Asymmetric and even-sized matrices, one larger than the image.
    for (mw, mh, w, h) in [(3, 3, 11, 7), (4, 3, 9, 6), (5, 2, 4, 3)]:
        img = image(w, h)
        m = rng.integers(-4, 5, (mh, mw)).astype(np.float32)
        m[0, 0] = 7  # never symmetric
        div = 3.0
        # ndimage's origin 0 centres at size // 2, as our w/2 does.
        exp = ndimage.correlate(img.astype(np.float64), m.astype(np.float64),
                                mode=mode, cval=0.0) / div
        out.append('convolve %s %d %d %d %d %.17g' % (border, w, h, mw, mh, div))
        out += [fmt(m), fmt(img), fmt(exp)]
    for (sx, sy, w, h) in [(1.5, 0.0, 13, 9), (0.0, 2.0, 8, 12), (2.5, 1.2, 10, 10),
                           (6.0, 5.0, 17, 11)]:
        img = image(w, h)
        # axis 0 is y: sigma=(sy, sx)
        exp = ndimage.gaussian_filter(img.astype(np.float64), (sy, sx),
                                      mode=mode, cval=0.0, truncate=4.0)
        out.append('gaussian %s %d %d %.17g %.17g' % (border, w, h, sx, sy))
        out += [fmt(img), fmt(exp)]
    w, h = 9, 7
    img = image(w, h).astype(np.float64)
    gx = ndimage.correlate(img, np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1.]]),
                           mode=mode, cval=0.0)
    gy = ndimage.correlate(img, np.array([[1, 2, 1], [0, 0, 0], [-1, -2, -1.]]),
                           mode=mode, cval=0.0)
    for (hor, ver, keep) in [(1, 1, 0), (1, 0, 1), (0, 1, 1), (0, 1, 0)]:
        if hor and ver:
            exp = np.sqrt(gx * gx + gy * gy) / np.sqrt(32)
        else:
            g = gx if hor else gy
            exp = 0.5 + g / 8 if keep else np.abs(g) / 4
        out.append('sobel %s %d %d %d %d %d' % (border, w, h, hor, ver, keep))
        out += [fmt(img), fmt(exp)]
    for r in (1, 2, 4):
        w, h = 8, 6
        img = image(w, h)
        out.append('kuwahara %s %d %d %d' % (border, w, h, r))
        out += [fmt(img), fmt(kuwahara(img, r, mode))]
print('\n'.join(out))
