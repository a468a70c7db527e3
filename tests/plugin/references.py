# gimp-gpu-filters: float64 references for the GIMP-side tests, written
# from the definitions in kernels/gpufx.h with numpy and scipy.ndimage only
# (no GIMP, no babl, none of our C code).
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Images are (h, w, c) float64 arrays.  Functions that premultiply take the
# index of the alpha channel (or None) and work on the colour the filter is
# defined on: premultiplied for gaussian-blur, convolve and kuwahara,
# straight for sobel.

import numpy as np
import scipy.ndimage as ndi

# Our border names -> scipy.ndimage's modes and numpy.pad's.
SCIPY_MODE = {'clamp': 'nearest', 'mirror': 'mirror', 'wrap': 'grid-wrap',
              'zero': 'constant'}
PAD_MODE = {'clamp': 'edge', 'mirror': 'reflect', 'wrap': 'wrap',
            'zero': 'constant'}


def srgb_to_linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v):
    v = np.clip(v, 0.0, 1.0)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


# babl (GIMP's pixel conversions) multiplies colour by alpha, but by 2^-16
# where |alpha| is at most that, so that the colour of a transparent pixel
# survives a round trip; what a premultiplied operation sees inside GIMP.
BABL_ALPHA_FLOOR = 1.0 / 65536


def premultiply(img, alpha):
    """Straight -> premultiplied as babl does it (the inverse of babl's
    division, so that it also turns a result GIMP stored as straight colour
    back into exactly what the operation wrote)."""
    if alpha is None:
        return img.copy()
    a = img[..., alpha:alpha + 1]
    used = np.where(np.abs(a) <= BABL_ALPHA_FLOOR, BABL_ALPHA_FLOOR, a)
    out = img * used
    out[..., alpha] = img[..., alpha]
    return out


def parse_matrix(text):
    return np.array([[float(v) for v in row.split(',')]
                     for row in text.split(';')], np.float64)


def gaussian(img, sx, sy, border='clamp'):
    """scipy.ndimage.gaussian_filter with truncate 4 per axis; sigma 0 leaves
    that axis alone."""
    return ndi.gaussian_filter(img, sigma=(sy, sx, 0), truncate=4.0,
                               mode=SCIPY_MODE[border], cval=0.0)


def resolve_normalize(m, divisor, offset, normalize):
    """GEGL's rules, as kernels/gpufx.c applies them."""
    if not normalize:
        return divisor, offset
    s = m.sum()
    if s > 0:
        return s, 0.0
    if s < 0:
        return -s, 1.0
    return 1.0, 0.5


def convolve(img, m, divisor=1.0, offset=0.0, normalize=True,
             border='clamp', alpha=None):
    """Correlation with the matrix as written, / divisor + offset; the
    offset is not added to alpha."""
    divisor, offset = resolve_normalize(m, divisor, offset, normalize)
    out = np.stack([ndi.correlate(img[..., c], m, mode=SCIPY_MODE[border],
                                  cval=0.0)
                    for c in range(img.shape[2])], axis=-1) / divisor
    for c in range(img.shape[2]):
        if c != alpha:
            out[..., c] += offset
    return out


SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float64)
SOBEL_Y = np.array([[1, 2, 1], [0, 0, 0], [-1, -2, -1]], np.float64)


def sobel(img, horizontal, vertical, keep_sign, border='clamp', alpha=None):
    """On straight colour; alpha copied."""
    out = img.copy()
    mode = SCIPY_MODE[border]
    for c in range(img.shape[2]):
        if c == alpha:
            continue
        gx = ndi.correlate(img[..., c], SOBEL_X, mode=mode, cval=0.0)
        gy = ndi.correlate(img[..., c], SOBEL_Y, mode=mode, cval=0.0)
        if horizontal and vertical:
            v = np.sqrt(gx * gx + gy * gy) / np.sqrt(32.0)
        elif horizontal or vertical:
            g = gx if horizontal else gy
            v = 0.5 + g / 8.0 if keep_sign else np.abs(g) / 4.0
        else:
            v = np.zeros_like(gx)
        out[..., c] = v
    return out


def kuwahara_quadrants(img, r, border='clamp', alpha=None):
    """The four quadrants' means (4, h, w, c) and variances of V (4, h, w),
    in the order top-left, top-right, bottom-left, bottom-right."""
    h, w, nch = img.shape
    colour = [c for c in range(nch) if c != alpha][:3] or [0]
    v = img[..., colour].max(axis=2)
    stack = np.concatenate([img, v[..., None], (v * v)[..., None]], axis=2)
    p = np.pad(stack, ((r, r), (r, r), (0, 0)), mode=PAD_MODE[border])
    s = np.zeros((p.shape[0] + 1, p.shape[1] + 1, p.shape[2]))
    s[1:, 1:] = p.cumsum(0).cumsum(1)
    n = float((r + 1) * (r + 1))
    means, var = [], []
    for oy, ox in ((0, 0), (0, r), (r, 0), (r, r)):
        y0, x0, y1, x1 = oy, ox, oy + r + 1, ox + r + 1
        box = (s[y1:y1 + h, x1:x1 + w] - s[y0:y0 + h, x1:x1 + w]
               - s[y1:y1 + h, x0:x0 + w] + s[y0:y0 + h, x0:x0 + w]) / n
        means.append(box[..., :nch])
        var.append(np.maximum(box[..., nch + 1] - box[..., nch] ** 2, 0.0))
    return np.stack(means), np.stack(var)


def kuwahara(img, r, border='clamp', alpha=None):
    means, var = kuwahara_quadrants(img, r, border, alpha)
    win = np.argmin(var, axis=0)  # the first on ties
    return np.take_along_axis(means, win[None, ..., None], 0)[0], means, var


def kuwahara_compare(got, img, r, border='clamp', alpha=None, tol=1e-4,
                     to_out=None, tie=1e-6):
    """Kuwahara results against the definition.  A pixel passes when it is
    within tol of the winning quadrant's mean, or of another quadrant's
    whose variance is within `tie' (relative to the quadrant's mean V^2,
    plus 1e-9) of the smallest: float32 sums may break such near-ties the
    other way.  to_out maps the reference into got's units (e.g. to 8-bit
    sRGB levels).  Returns (ok, stats)."""
    ref, means, var = kuwahara(img, r, border, alpha)
    f = to_out or (lambda a: a)
    err = [np.abs(got - f(means[q])).max(axis=-1) for q in range(4)]
    best = np.abs(got - f(ref)).max(axis=-1)
    vmin = var.min(axis=0)
    scale = np.abs(means[..., :].max(axis=-1)) ** 2 + 1e-9
    near = [(var[q] - vmin) <= tie * scale[q] + 1e-9 for q in range(4)]
    ok_alt = np.zeros(best.shape, bool)
    for q in range(4):
        ok_alt |= near[q] & (err[q] <= tol)
    passed = (best <= tol) | ok_alt
    stats = {'max': float(best.max()), 'mean': float(best.mean()),
             'near_ties': int(((best > tol) & ok_alt).sum()),
             'failed': int((~passed).sum()), 'pixels': int(best.size)}
    return bool(passed.all()), stats
