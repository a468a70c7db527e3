#!/usr/bin/env python3
# gimp-gpu-filters: the plug-in inside a real GIMP 3, checked against
# independent references.
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# usage: plugin-tests.py TEST   (see TESTS at the end)
#
# References are computed here with numpy/scipy from the PNG file itself:
# sRGB -> linear with the sRGB formula, scipy.ndimage.gaussian_filter with
# truncate=4 (the engine's definition), back to sRGB.  GIMP's own colour
# conversions (babl) are not used for the reference.

import os
import sys

import numpy as np
import scipy.ndimage as ndi
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gimp_harness as gh  # noqa: E402

DATA = os.environ.get('GPU_FILTERS_TEST_DATA',
                      os.path.join(os.path.dirname(__file__), '..', 'data'))
COFFEE = os.path.abspath(os.path.join(DATA, 'coffee.png'))
HAVE_CUDA = os.environ.get('GPU_FILTERS_HAVE_CUDA', '0') == '1'


# ---------------------------------------------------------------- references

def srgb_to_linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v):
    v = np.clip(v, 0.0, 1.0)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def coffee_u8():
    return np.asarray(Image.open(COFFEE).convert('RGB'))


def blur_linear(lin, sx, sy, mode='nearest'):
    """The engine's Gaussian on a linear (h, w, c) float64 image."""
    return ndi.gaussian_filter(lin, sigma=(sy, sx, 0), truncate=4.0, mode=mode)


def reference_u8(u8, sx, sy):
    """8-bit sRGB in, blurred in linear light (no alpha: nothing to
    premultiply), 8-bit sRGB out, float64 throughout."""
    lin = srgb_to_linear(u8.astype(np.float64) / 255.0)
    return linear_to_srgb(blur_linear(lin, sx, sy)) * 255.0


check = gh.check


def compare_u8(name, got, ref_float):
    """8-bit results against a float reference: GIMP rounds to the nearest
    level, so a correct result is within 0.5 level, plus a little for
    float32 sums."""
    d = np.abs(got.astype(np.float64) - ref_float)
    print('%s: max |diff| %.3f levels, mean %.4f levels (8-bit sRGB)'
          % (name, d.max(), d.mean()))
    check(d.max() <= 0.55, '%s within 0.55 level of the scipy reference' % name)
    return d


# ---------------------------------------------------------------- tests

def test_script_fu():
    """Script-Fu, named arguments, export to PNG, compare with scipy."""
    w = gh.temp_workdir('script-fu')
    out = os.path.join(w, 'blurred.png')
    batch = '''
(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE "%s")))
       (drw (vector-ref (car (gimp-image-get-layers img)) 0))
       (res (plug-in-gpu-gaussian-blur #:run-mode RUN-NONINTERACTIVE
                                       #:image img
                                       #:drawables (vector drw)
                                       #:std-dev-x 5.0
                                       #:std-dev-y 3.0
                                       #:border "clamp"
                                       #:backend "auto")))
  (display (string-append "BACKEND=" (car res) "\\n"))
  (gimp-file-save RUN-NONINTERACTIVE img "%s" -1)
  (gimp-image-delete img))
''' % (COFFEE, out)
    log, secs = gh.run_gimp(w, 'scheme', batch)
    print('GIMP run: %.1f s' % secs)
    backend = [l for l in log.splitlines() if 'BACKEND=' in l]
    print(backend[0].strip() if backend else 'no backend printed')
    check(bool(backend) and backend[0].split('BACKEND=')[1].strip()
          in ('cpu', 'cuda'), 'the backend return value names cpu or cuda')
    got = np.asarray(Image.open(out).convert('RGB'))
    compare_u8('Script-Fu blur 5 x 3', got, reference_u8(coffee_u8(), 5.0, 3.0))


def test_python_fu():
    """Python-Fu through the PDB with a procedure config."""
    w = gh.temp_workdir('python-fu')
    body = '''
img, drw = load(P['coffee'])
status, out, ms = run('plug-in-gpu-gaussian-blur', img, [drw],
                      std_dev_x=4.0, std_dev_y=4.0, border='clamp',
                      backend='auto')
R['status'] = status.value_nick
R['backend'] = out[0]
R['ms'] = ms
save('blurred', pixels(drw, "R'G'B' u8", 3, np.uint8))
img.delete()
'''
    log, secs = gh.run_gimp(w, 'python', body, {'coffee': COFFEE})
    r = gh.result(w)
    print('GIMP run: %.1f s; the call: %.0f ms on %s' % (secs, r['ms'], r['backend']))
    check(r['status'] == 'success', 'status success (%s)' % r['status'])
    check(r['backend'] in ('cpu', 'cuda'), 'backend cpu or cuda (%s)' % r['backend'])
    got = np.load(os.path.join(w, 'blurred.npy'))
    compare_u8('Python-Fu blur 4', got, reference_u8(coffee_u8(), 4.0, 4.0))


def test_selection():
    """A rectangle selection: only inside changes, and inside equals the
    blur of the selection's bounding box (GIMP 3.0 gives a filter, its own
    or ours, the selection's bounds as its input)."""
    w = gh.temp_workdir('selection')
    x, y, sw, sh = 150, 100, 200, 120
    body = '''
img, drw = load(P['coffee'])
img.select_rectangle(Gimp.ChannelOps.REPLACE, %d, %d, %d, %d)
status, out, ms = run('plug-in-gpu-gaussian-blur', img, [drw],
                      std_dev_x=8.0, std_dev_y=8.0)
R['status'] = status.value_nick
save('blurred', pixels(drw, "R'G'B' u8", 3, np.uint8))
img.delete()
''' % (x, y, sw, sh)
    gh.run_gimp(w, 'python', body, {'coffee': COFFEE})
    r = gh.result(w)
    check(r['status'] == 'success', 'status success')
    got = np.load(os.path.join(w, 'blurred.npy'))
    orig = coffee_u8()
    inside = np.zeros(orig.shape[:2], bool)
    inside[y:y + sh, x:x + sw] = True
    check(np.array_equal(got[~inside], orig[~inside]),
          'pixels outside the selection are unchanged')
    crop = reference_u8(orig[y:y + sh, x:x + sw], 8.0, 8.0)
    compare_u8('inside the selection vs the blur of its bounds',
               got[inside], crop.reshape(-1, 3))
    # The check above means something only if the rule matters here: the
    # whole-image blur differs from a blur of the selected rectangle alone.
    full = reference_u8(orig, 8.0, 8.0)
    gap = np.abs(crop - full[y:y + sh, x:x + sw]).max()
    print('the whole-image blur would differ by up to %.1f levels' % gap)
    check(gap > 5, 'the test can tell the two rules apart')


def test_errors():
    """Refused arguments and engine errors leave the image as it was."""
    w = gh.temp_workdir('errors')
    body = '''
img, drw = load(P['coffee'])
before = pixels(drw, "R'G'B' u8", 3, np.uint8)
# An engine error during the run: CUDA asked for where it is not built, or
# a convolution with a zero divisor (refused before any pixel is read).
status, out, ms = run('plug-in-gpu-gaussian-blur', img, [drw],
                      std_dev_x=3.0, std_dev_y=3.0, backend='cuda')
R['cuda_status'] = status.value_nick
R['cuda_out'] = [str(o) for o in out]
R['cuda_unchanged'] = bool(np.array_equal(before, pixels(drw, "R'G'B' u8", 3, np.uint8)))
status, out, ms = run('plug-in-gpu-convolve', img, [drw],
                      matrix='0,1,0;1,1,1;0,1,0', divisor=0.0, normalize=False)
R['div0_status'] = status.value_nick
R['div0_out'] = [str(o) for o in out]
R['div0_unchanged'] = bool(np.array_equal(before, pixels(drw, "R'G'B' u8", 3, np.uint8)))
status, out, ms = run('plug-in-gpu-convolve', img, [drw], matrix='1,2;3')
R['ragged_status'] = status.value_nick
R['ragged_out'] = [str(o) for o in out]
# Two drawables at once are refused with a message.
layer2 = drw.copy()
img.insert_layer(layer2, None, 0)
status, out, ms = run('plug-in-gpu-gaussian-blur', img, [drw, layer2])
R['two_status'] = status.value_nick
R['two_out'] = [str(o) for o in out]
R['unchanged'] = bool(np.array_equal(before, pixels(drw, "R'G'B' u8", 3, np.uint8)))
img.delete()
'''
    gh.run_gimp(w, 'python', body, {'coffee': COFFEE})
    r = gh.result(w)
    for k in ('cuda', 'div0', 'ragged', 'two'):
        print('%-6s -> %s %s' % (k, r[k + '_status'], r[k + '_out']))
    if HAVE_CUDA:
        print('CUDA is built: backend=cuda may succeed here; not an error case')
    else:
        check(r['cuda_status'] == 'execution-error',
              'backend=cuda without CUDA: execution error')
        check(any('CUDA' in o or 'cuda' in o for o in r['cuda_out']),
              "the error carries the engine's message")
    check(r['cuda_unchanged'], 'image unchanged after the cuda run')
    check(r['div0_status'] in ('calling-error', 'execution-error'),
          'divisor 0 without normalize: refused')
    check(r['div0_unchanged'], 'image unchanged after divisor 0')
    check(r['ragged_status'] == 'calling-error' and
          any('matrix' in o for o in r['ragged_out']),
          "a ragged matrix: calling error naming the matrix")
    check(r['two_status'] == 'calling-error', 'two drawables: refused')
    check(r['unchanged'], 'image unchanged at the end')

    # Out of range through Script-Fu: the PDB refuses it before the
    # plug-in runs.
    w = gh.temp_workdir('errors-range')
    out = os.path.join(w, 'after.png')
    batch = '''
(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE "%s")))
       (drw (vector-ref (car (gimp-image-get-layers img)) 0)))
  (display (string-append "CAUGHT="
    (catch "error-caught"
      (plug-in-gpu-gaussian-blur #:run-mode RUN-NONINTERACTIVE #:image img
                                 #:drawables (vector drw)
                                 #:std-dev-x 2000.0 #:std-dev-y 1.0)
      "no-error")
    "\\n"))
  (gimp-file-save RUN-NONINTERACTIVE img "%s" -1)
  (gimp-image-delete img))
''' % (COFFEE, out)
    log, secs = gh.run_gimp(w, 'scheme', batch)
    caught = [l for l in log.splitlines() if 'CAUGHT=' in l]
    print(caught[0].strip() if caught else log[-2000:])
    check(bool(caught) and 'error-caught' in caught[0],
          'std-dev-x 2000 (range 0..1500) is refused')
    check(np.array_equal(np.asarray(Image.open(out).convert('RGB')), coffee_u8()),
          'image unchanged after the refused call')


def test_precision():
    """16-bit linear and 32-bit float images keep their precision."""
    w = gh.temp_workdir('precision')
    body = '''
R['runs'] = {}
for name, prec in (('u16', Gimp.Precision.U16_LINEAR),
                   ('f32', Gimp.Precision.FLOAT_LINEAR)):
    img, drw = load(P['coffee'])
    img.convert_precision(prec)
    save(name + '-in', pixels(drw, 'RGB float', 3, np.float32))
    status, out, ms = run('plug-in-gpu-gaussian-blur', img, [drw],
                          std_dev_x=3.0, std_dev_y=3.0)
    R['runs'][name] = status.value_nick
    save(name + '-out', pixels(drw, 'RGB float', 3, np.float32))
    img.delete()
'''
    gh.run_gimp(w, 'python', body, {'coffee': COFFEE})
    r = gh.result(w)
    # u16 storage rounds to 1/65535; the engine's contract is 1e-4.
    for name, tol in (('u16', 1e-4 + 1.0 / 65535), ('f32', 1e-4)):
        check(r['runs'][name] == 'success', '%s run: success' % name)
        src = np.load(os.path.join(w, name + '-in.npy')).astype(np.float64)
        got = np.load(os.path.join(w, name + '-out.npy')).astype(np.float64)
        ref = blur_linear(src, 3.0, 3.0)
        d = np.abs(got - ref)
        print('%s: max |diff| %.2e, mean %.2e (linear 0..1); tolerance %.2e'
              % (name, d.max(), d.mean(), tol))
        check(d.max() <= tol, '%s matches scipy on its own input' % name)
        levels = len(np.unique(got[..., 1]))
        print('%s: %d distinct green values' % (name, levels))
        check(levels > 1024, '%s result is not quantised to 8 bits' % name)


def test_gray_alpha():
    """A gray image with transparency: colour is weighted by alpha
    (premultiplied), as GIMP's own blur does, so no dark fringes."""
    w = gh.temp_workdir('gray-alpha')
    body = """
img, drw = load(P['coffee'])
img.convert_grayscale()
img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
drw.add_alpha()
img.select_rectangle(Gimp.ChannelOps.REPLACE, 200, 120, 180, 140)
drw.edit_clear()
img.select_ellipse(Gimp.ChannelOps.REPLACE, 40, 40, 120, 90)
drw.edit_clear()
Gimp.Selection.none(img)
save('in', pixels(drw, 'YA float', 2, np.float32))
status, out, ms = run('plug-in-gpu-gaussian-blur', img, [drw],
                      std_dev_x=4.0, std_dev_y=4.0)
R['status'] = status.value_nick
save('out', pixels(drw, 'YA float', 2, np.float32))
img.delete()
"""
    gh.run_gimp(w, 'python', body, {'coffee': COFFEE})
    check(gh.result(w)['status'] == 'success', 'status success')
    src = np.load(os.path.join(w, 'in.npy')).astype(np.float64)
    got = np.load(os.path.join(w, 'out.npy')).astype(np.float64)
    check((src[..., 1] == 0).sum() > 20000, 'the input has transparent parts')
    pre = np.stack([src[..., 0] * src[..., 1], src[..., 1]], axis=-1)
    ref = blur_linear(pre, 4.0, 4.0)
    got_pre = np.stack([got[..., 0] * got[..., 1], got[..., 1]], axis=-1)
    d = np.abs(got_pre - ref)
    print('premultiplied gray and alpha: max |diff| %.2e, mean %.2e'
          % (d.max(), d.mean()))
    check(d.max() <= 1e-4, 'gray + alpha matches the premultiplied reference')
    # Blurring straight colour would darken the edges of the holes: the
    # test must be able to see that.
    straight = blur_linear(src, 4.0, 4.0)
    gap = np.abs(straight[..., 0] * straight[..., 1] - ref[..., 0]).max()
    print('a straight-colour blur would differ by up to %.3f' % gap)
    check(gap > 0.01, 'the test can tell premultiplied from straight')


def test_bands():
    """A large image, which GIMP hands to the operation in chunks (tiles of
    its own choosing) when the PDB procedure applies it: the result equals
    the whole-image reference.  The wrap border makes every chunk near an
    edge need pixels from the far side of the image, and sigma 12 (a reach
    of 48 pixels) makes chunks need their neighbours."""
    w = gh.temp_workdir('bands')
    rgb = coffee_u8()
    row = np.concatenate([rgb, rgb[:, ::-1], rgb, rgb[:, ::-1]], axis=1)
    big = np.concatenate([row, row[::-1], row, row[::-1]], axis=0)
    path = os.path.join(w, 'big.png')
    Image.fromarray(np.ascontiguousarray(big), 'RGB').save(path)
    body = '''
img, drw = load(P['big'])
img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
save('in', pixels(drw, 'RGB float', 3, np.float32))
status, out, ms = run('plug-in-gpu-gaussian-blur', img, [drw],
                      std_dev_x=12.0, std_dev_y=12.0, border='wrap')
R['status'] = status.value_nick
R['ms'] = ms
save('out', pixels(drw, 'RGB float', 3, np.float32))
img.delete()
'''
    gh.run_gimp(w, 'python', body, {'big': path}, timeout=240)
    r = gh.result(w)
    check(r['status'] == 'success', 'status success')
    src = np.load(os.path.join(w, 'in.npy')).astype(np.float64)
    got = np.load(os.path.join(w, 'out.npy')).astype(np.float64)
    print('%d x %d image, the call took %.0f ms' % (src.shape[1], src.shape[0], r['ms']))
    ref = blur_linear(src, 12.0, 12.0, mode='grid-wrap')
    d = np.abs(got - ref)
    print('whole-image reference vs GIMP: max |diff| %.2e, mean %.2e'
          % (d.max(), d.mean()))
    check(d.max() <= 1e-4, 'the large image matches the whole-image reference')
    # Wrap must matter here, or the check above proves little.
    gap = np.abs(blur_linear(src, 12.0, 12.0, mode='nearest') - ref).max()
    print('a clamp border would differ by up to %.3f' % gap)
    check(gap > 0.01, 'the test can tell wrap from clamp')


def test_gimp_builtin():
    """Against GIMP's own Gaussian blur (gegl:gaussian-blur), on a 32-bit
    linear copy so that only the algorithms differ.  GIMP's default ("auto")
    is an IIR approximation (Young / van Vliet) for sigma >= 1; its "fir"
    filter samples the same Gaussian as ours, truncated at 3.25 sigma
    instead of 4."""
    w = gh.temp_workdir('gimp-builtin')
    sigmas = (1.5, 5.0, 20.0)
    body = """
for sigma in %r:
    img, drw = load(P['coffee'])
    img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
    status, out, ms = run('plug-in-gpu-gaussian-blur', img, [drw],
                          std_dev_x=sigma, std_dev_y=sigma, border='clamp')
    save('ours-%%g' %% sigma, pixels(drw, 'RGB float', 3, np.float32))
    img.delete()
    for kind in ('auto', 'fir'):
        img, drw = load(P['coffee'])
        img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
        f = Gimp.DrawableFilter.new(drw, 'gegl:gaussian-blur', None)
        c = f.get_config()
        c.set_property('std-dev-x', sigma)
        c.set_property('std-dev-y', sigma)
        c.set_property('abyss-policy', 'clamp')
        c.set_property('clip-extent', True)
        c.set_property('filter', kind)
        f.update()
        drw.merge_filter(f)
        save('gimp-%%s-%%g' %% (kind, sigma), pixels(drw, 'RGB float', 3, np.float32))
        img.delete()
""" % (sigmas,)
    gh.run_gimp(w, 'python', body, {'coffee': COFFEE})
    for sigma in sigmas:
        ours = np.load(os.path.join(w, 'ours-%g.npy' % sigma)).astype(np.float64)
        for kind in ('auto', 'fir'):
            gimp = np.load(os.path.join(w, 'gimp-%s-%g.npy' % (kind, sigma))).astype(np.float64)
            d = np.abs(ours - gimp)
            ds = np.abs(linear_to_srgb(ours) - linear_to_srgb(gimp)) * 255
            m = int(4 * sigma + 1)
            inner = d[m:-m, m:-m]
            print('sigma %4.1f vs GIMP %-4s: linear max %.2e mean %.2e '
                  '(away from edges: max %.2e); 8-bit sRGB max %.2f mean %.3f levels'
                  % (sigma, kind, d.max(), d.mean(), inner.max(), ds.max(), ds.mean()))
            if kind == 'fir':
                # The same sampled Gaussian: only GEGL's shorter truncation
                # (3.25 sigma: 0.1 % of the weight) and float32 sums differ.
                check(d.max() <= 2e-3,
                      'sigma %g: within 2e-3 (linear) of GIMP\'s FIR blur' % sigma)
            else:
                # The IIR's own approximation error, worst at small sigma
                # and on hard edges; a wrong colour space or sigma convention
                # gives a mean error several times larger.
                check(d.mean() <= 3e-3,
                      'sigma %g: mean within 3e-3 (linear) of GIMP\'s default blur' % sigma)


def test_sobel_builtin():
    """Against GIMP's own Sobel (gegl:edge-sobel), on a 32-bit linear copy,
    for three settings.  GEGL 0.4's edge-sobel centres each output on the
    input pixel one up and one left of it (it indexes its source buffer,
    which starts at the halo, with the output's coordinates) and clamps at
    the edges of each chunk it renders; so its output is compared one pixel
    shifted, away from the image edge, and its chunk seams are tolerated:
    at least 99 % of the pixels must agree to 1e-4.  Our own result is held
    to the definition exactly by the engine tests."""
    w = gh.temp_workdir('sobel-builtin')
    cases = ((True, True, True), (True, False, True), (False, True, False))
    body = """
for i, (hor, ver, keep) in enumerate(%r):
    img, drw = load(P['coffee'])
    img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
    status, out, ms = run('plug-in-gpu-sobel', img, [drw], horizontal=hor,
                          vertical=ver, keep_sign=keep, border='clamp')
    save('ours-%%d' %% i, pixels(drw, 'RGB float', 3, np.float32))
    img.delete()
    img, drw = load(P['coffee'])
    img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
    f = Gimp.DrawableFilter.new(drw, 'gegl:edge-sobel', None)
    c = f.get_config()
    c.set_property('horizontal', hor)
    c.set_property('vertical', ver)
    c.set_property('keep-sign', keep)
    f.update()
    drw.merge_filter(f)
    save('gimp-%%d' %% i, pixels(drw, 'RGB float', 3, np.float32))
    img.delete()
""" % (cases,)
    gh.run_gimp(w, 'python', body, {'coffee': COFFEE})
    for i, case in enumerate(cases):
        ours = np.load(os.path.join(w, 'ours-%d.npy' % i)).astype(np.float64)
        gimp = np.load(os.path.join(w, 'gimp-%d.npy' % i)).astype(np.float64)
        # edge-sobel leaves its bounding box unclipped: the layer grows by
        # one pixel on each side, its origin moving to (-1, -1).
        gy = (gimp.shape[0] - ours.shape[0]) // 2
        gx = (gimp.shape[1] - ours.shape[1]) // 2
        gimp = gimp[gy + 1:gy + 1 + ours.shape[0], gx + 1:gx + 1 + ours.shape[1]]
        d = np.abs(ours - gimp)[3:-3, 3:-3].max(axis=2)
        agree = (d <= 1e-4).mean()
        print('sobel horizontal=%s vertical=%s keep-sign=%s vs gegl:edge-sobel'
              ' (shifted one pixel): %.2f %% agree to 1e-4, max %.2e, mean %.2e'
              % (case + (100 * agree, d.max(), d.mean())))
        check(agree >= 0.99, 'sobel %s matches gegl:edge-sobel' % (case,))


CONVOLVE_MATRIX = '1,2,0,-1,3;0,1,4,1,0;2,0,1,0,1'


def test_all_filters():
    """Every filter of the table is registered with the table's arguments
    and runs; the convolution (an asymmetric 5 x 3 matrix, so that a flipped
    or transposed matrix shows) is checked against scipy's correlate."""
    w = gh.temp_workdir('all-filters')
    body = """
R['filters'] = {}
pdb = Gimp.get_pdb()
settings = {'convolve': {'matrix': %r, 'normalize': True}}
for name in ('convolve', 'gaussian-blur', 'sobel', 'kuwahara'):
    proc = pdb.lookup_procedure('plug-in-gpu-' + name)
    if proc is None:
        R['filters'][name] = {'registered': False}
        continue
    args = [a.name for a in proc.get_arguments()]
    img, drw = load(P['coffee'])
    img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
    before = pixels(drw, 'RGB float', 3, np.float32)
    status, out, ms = run('plug-in-gpu-' + name, img, [drw],
                          **settings.get(name, {}))
    after = pixels(drw, 'RGB float', 3, np.float32)
    save(name + '-in', before)
    save(name + '-out', after)
    R['filters'][name] = {'registered': True, 'args': args,
                          'status': status.value_nick,
                          'out': [str(o) for o in out], 'ms': ms,
                          'changed': bool(np.abs(after - before).max() > 1e-3),
                          'finite': bool(np.isfinite(after).all())}
    img.delete()
""" % (CONVOLVE_MATRIX,)
    gh.run_gimp(w, 'python', body, {'coffee': COFFEE})
    expected = {
        'convolve': ['matrix', 'divisor', 'offset', 'normalize'],
        'gaussian-blur': ['std-dev-x', 'std-dev-y'],
        'sobel': ['horizontal', 'vertical', 'keep-sign'],
        'kuwahara': ['radius'],
    }
    for name, f in gh.result(w)['filters'].items():
        print('%-14s %s' % (name, f))
        check(f['registered'], '%s registered' % name)
        if not f['registered']:
            continue
        # The table's arguments, then non-destructive (TRUE: leave the
        # operation as a non-destructive filter instead of merging it).
        check(f['args'] == ['run-mode', 'image', 'drawables'] + expected[name]
              + ['border', 'backend', 'non-destructive'],
              '%s arguments follow the table' % name)
        check(f['status'] == 'success' and f['changed'] and f['finite'],
              '%s runs and changes the image' % name)
    if gh.result(w)['filters'].get('convolve', {}).get('status') == 'success':
        m = np.array([[float(v) for v in row.split(',')]
                      for row in CONVOLVE_MATRIX.split(';')])
        src = np.load(os.path.join(w, 'convolve-in.npy')).astype(np.float64)
        got = np.load(os.path.join(w, 'convolve-out.npy')).astype(np.float64)
        ref = np.stack([ndi.correlate(src[..., c], m / m.sum(), mode='nearest')
                        for c in range(3)], axis=-1)
        d = np.abs(got - ref)
        print('convolve vs scipy.ndimage.correlate: max |diff| %.2e' % d.max())
        check(d.max() <= 1e-4, 'convolve matches scipy (linear float)')


TESTS = {
    'script-fu': test_script_fu,
    'python-fu': test_python_fu,
    'selection': test_selection,
    'errors': test_errors,
    'precision': test_precision,
    'gray-alpha': test_gray_alpha,
    'bands': test_bands,
    'gimp-builtin': test_gimp_builtin,
    'sobel-builtin': test_sobel_builtin,
    'all-filters': test_all_filters,
}


if __name__ == '__main__':
    sys.exit(gh.main(TESTS))
