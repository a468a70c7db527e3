#!/usr/bin/env python3
# gimp-gpu-filters: the GEGL operations (gpufx:*) inside a real GIMP 3,
# through libgimp's GimpDrawableFilter and through the PDB procedures,
# checked against independent float64 references (references.py).
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# usage: op-tests.py TEST   (see TESTS at the end)
#
# Each test is one GIMP start (2 to 6 s) that runs several cases; the GIMP
# side saves its input and output pixels as .npy files and the checks run
# here.  Inputs are read back from GIMP as linear float (GIMP's own
# conversion of the file), so that the reference sees exactly what the
# operation saw; 8-bit results are compared in 8-bit sRGB levels against a
# reference made from the PNG file with the sRGB formula.

import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gimp_harness as gh  # noqa: E402
import references as rf  # noqa: E402

DATA = os.environ.get('GPU_FILTERS_TEST_DATA',
                      os.path.join(os.path.dirname(__file__), '..', 'data'))
COFFEE = os.path.abspath(os.path.join(DATA, 'coffee.png'))

# An asymmetric 5 x 3 matrix (a flipped or transposed matrix shows), an even
# 4 x 4 one, and a zero-sum one (normalize then means offset 0.5).
MATRIX_5X3 = '1,2,0,-1,3;0,1,4,1,0;2,0,1,0,1'
MATRIX_4X4 = '1,0,2,0;0,3,0,1;2,1,1,0;0,0,1,2'
MATRIX_LAPLACE = '0,1,0;1,-4,1;0,1,0'

FLOAT_TOL = 1e-4   # the engine's contract on [0, 1] images (sigma <= 32)
U8_TOL = 0.55      # 8-bit: rounding to the nearest level, plus float32 sums


# ---------------------------------------------------------------- checks

check = gh.check


def note(what):
    print('NOTE   ' + what, flush=True)


def load_npy(w, name):
    return np.load(os.path.join(w, name + '.npy')).astype(np.float64)


# ---------------------------------------------------------------- inputs

def coffee_u8():
    return np.asarray(Image.open(COFFEE).convert('RGB'))


def rgba_png(w):
    """coffee.png with an alpha channel that matters everywhere: a ramp
    from 0.25 to 1 across, a fully transparent rectangle and a disc."""
    rgb = coffee_u8()
    h, wd = rgb.shape[:2]
    yy, xx = np.mgrid[0:h, 0:wd]
    a = 0.25 + 0.75 * xx / (wd - 1)
    a[120:260, 200:380] = 0
    a[((xx - 100) / 60.0) ** 2 + ((yy - 85) / 45.0) ** 2 <= 1] = 0
    alpha = np.round(a * 255).astype(np.uint8)
    path = os.path.join(w, 'rgba.png')
    Image.fromarray(np.dstack([rgb, alpha]), 'RGBA').save(path)
    return path


def big_png(w, tiles=(4, 4)):
    """coffee.png mirrored into a larger continuous photo (2400 x 1600)."""
    rgb = coffee_u8()
    row = np.concatenate([rgb if i % 2 == 0 else rgb[:, ::-1]
                          for i in range(tiles[0])], axis=1)
    big = np.concatenate([row if j % 2 == 0 else row[::-1]
                          for j in range(tiles[1])], axis=0)
    path = os.path.join(w, 'big.png')
    Image.fromarray(np.ascontiguousarray(big), 'RGB').save(path)
    return path


# ---------------------------------------------------------------- references

def reference(op, props, img, alpha):
    """The operation's result on img (straight linear float64), in the form
    the operation defines it: (array, 'pre') premultiplied, or
    (array, 'straight').  Kuwahara is compared with its own checker."""
    border = props.get('border', 'clamp')
    if op == 'gaussian-blur':
        return rf.gaussian(rf.premultiply(img, alpha), props.get('std-dev-x', 1.5),
                           props.get('std-dev-y', 1.5), border), 'pre'
    if op == 'convolve':
        return rf.convolve(rf.premultiply(img, alpha),
                           rf.parse_matrix(props['matrix']),
                           props.get('divisor', 1.0), props.get('offset', 0.0),
                           props.get('normalize', True), border, alpha), 'pre'
    if op == 'sobel':
        return rf.sobel(img, props.get('horizontal', True),
                        props.get('vertical', True),
                        props.get('keep-sign', False), border, alpha), 'straight'
    raise ValueError(op)


def in_space(img, alpha, space):
    return rf.premultiply(img, alpha) if space == 'pre' else img


def compare_float(label, op, props, src, got, alpha, tol=FLOAT_TOL, clip=False):
    """A float result against the reference: within tol everywhere (in the
    space the operation is defined in).  clip: the image stores integers,
    which hold 0..1 only (for images without alpha)."""
    if got.shape != src.shape:
        return check(False, '%s: result is %s, input %s' % (label, got.shape, src.shape))
    if op == 'kuwahara':
        ok, st = rf.kuwahara_compare(rf.premultiply(got, alpha),
                                     rf.premultiply(src, alpha),
                                     props.get('radius', 10),
                                     props.get('border', 'clamp'), alpha, tol)
        print('%s: max |diff| %.2e, mean %.2e; %d near-tie pixels took another '
              'quadrant; %d of %d failed' % (label, st['max'], st['mean'],
                                             st['near_ties'], st['failed'],
                                             st['pixels']))
        return check(ok, '%s matches the Kuwahara definition' % label)
    ref, space = reference(op, props, src, alpha)
    if clip:
        ref = np.clip(ref, 0.0, 1.0)
    d = np.abs(in_space(got, alpha, space) - ref)
    print('%s: max |diff| %.2e, mean %.2e (%s linear)' % (label, d.max(), d.mean(),
                                                        space))
    return check(d.max() <= tol, '%s within %.1e of the reference' % (label, tol))


def compare_u8(label, op, props, src_lin, got_u8, tol=U8_TOL):
    """An 8-bit sRGB result (no alpha) against the reference computed from
    the linear input, taken to 8-bit sRGB levels without rounding."""
    to8 = lambda a: rf.linear_to_srgb(a) * 255.0  # noqa: E731
    if op == 'kuwahara':
        ok, st = rf.kuwahara_compare(got_u8.astype(np.float64), src_lin,
                                     props.get('radius', 10),
                                     props.get('border', 'clamp'), None, tol,
                                     to_out=to8)
        print('%s: max |diff| %.3f levels, mean %.4f; %d near ties; %d failed'
              % (label, st['max'], st['mean'], st['near_ties'], st['failed']))
        return check(ok, '%s matches the Kuwahara definition (8-bit)' % label)
    ref, _ = reference(op, props, src_lin, None)
    d = np.abs(got_u8.astype(np.float64) - to8(ref))
    print('%s: max |diff| %.3f levels, mean %.4f levels (8-bit sRGB)'
          % (label, d.max(), d.mean()))
    return check(d.max() <= tol, '%s within %.2f level of the reference' % (label, tol))


def props_match(want, got):
    """The properties we set, read back from GIMP (floats to 1e-9, matrices
    by value)."""
    bad = []
    for k, v in want.items():
        g = got.get(k)
        if k == 'matrix' and isinstance(g, str):
            try:
                same = np.array_equal(rf.parse_matrix(g), rf.parse_matrix(v))
            except ValueError:
                same = False
        elif isinstance(v, float):
            same = isinstance(g, (int, float)) and abs(g - v) <= 1e-9
        else:
            same = g == v
        if not same:
            bad.append('%s: set %r, read %r' % (k, v, g))
    return bad


# The GIMP side: run (case key, op, props) on a fresh copy of the image,
# merged or appended, saving input and output.  Errors per case are kept so
# that one broken case does not hide the others.
GIMP_CASES = r'''
def fresh(path, prec, gray=False):
    img, drw = load(path)
    if gray:
        img.convert_grayscale()
    if prec is not None:
        img.convert_precision(getattr(Gimp.Precision, prec))
    return img, drw

def run_cases(cases, path, prec, fmt, nch, gray=False):
    for key, op, props in cases:
        R[key] = {}
        img, drw = fresh(path, prec, gray)
        try:
            if key == cases[0][0]:
                save('in', pixels(drw, fmt, nch, np.float32))
            f = new_filter(drw, 'gpufx:' + op, **props)
            drw.merge_filter(f)
            R[key]['left'] = len(drw.get_filters())
            R[key]['size'] = [drw.get_width(), drw.get_height()]
            save(key, pixels(drw, fmt, nch, np.float32))
        except Exception as e:
            R[key]['error'] = repr(e)
        img.delete()
'''


def case_error(r, key):
    if 'error' in r.get(key, {'error': 'not run'}):
        check(False, '%s: %s' % (key, r.get(key, {}).get('error', 'not run')))
        return True
    return False


# ---------------------------------------------------------------- tests

MERGE_CASES = [
    ('gauss-clamp', 'gaussian-blur', {'std-dev-x': 3.0, 'std-dev-y': 1.5}),
    ('gauss-mirror', 'gaussian-blur', {'std-dev-x': 4.0, 'std-dev-y': 4.0,
                                       'border': 'mirror'}),
    ('gauss-wrap', 'gaussian-blur', {'std-dev-x': 5.0, 'std-dev-y': 2.0,
                                     'border': 'wrap'}),
    ('gauss-zero', 'gaussian-blur', {'std-dev-x': 2.0, 'std-dev-y': 0.0,
                                     'border': 'zero', 'backend': 'cpu'}),
    ('conv-5x3', 'convolve', {'matrix': MATRIX_5X3, 'normalize': True}),
    ('conv-4x4', 'convolve', {'matrix': MATRIX_4X4, 'normalize': False,
                              'divisor': 3.0, 'offset': 0.1,
                              'border': 'mirror'}),
    ('conv-laplace', 'convolve', {'matrix': MATRIX_LAPLACE, 'normalize': True,
                                  'border': 'wrap'}),
    ('sobel-both', 'sobel', {'horizontal': True, 'vertical': True,
                             'keep-sign': False}),
    ('sobel-h-sign', 'sobel', {'horizontal': True, 'vertical': False,
                               'keep-sign': True, 'border': 'mirror'}),
    ('sobel-v', 'sobel', {'horizontal': False, 'vertical': True,
                          'keep-sign': False, 'border': 'zero'}),
    ('kuw-3', 'kuwahara', {'radius': 3}),
    ('kuw-6-mirror', 'kuwahara', {'radius': 6, 'border': 'mirror'}),
]


def test_merge():
    """Every operation, several settings and all four borders, through
    Gimp.DrawableFilter + merge_filter on a 32-bit linear RGBA image whose
    alpha matters everywhere."""
    w = gh.temp_workdir('op-merge')
    body = GIMP_CASES + '''
run_cases(P['cases'], P['rgba'], 'FLOAT_LINEAR', 'RGBA float', 4)
'''
    gh.run_gimp(w, 'python', body, {'rgba': rgba_png(w), 'cases': MERGE_CASES})
    r = gh.result(w)
    src = load_npy(w, 'in')
    check((src[..., 3] == 0).sum() > 20000 and (src[..., 3] < 1).mean() > 0.5,
          'the input has transparent and partly transparent parts')
    for key, op, props in MERGE_CASES:
        if case_error(r, key):
            continue
        check(r[key]['left'] == 0, '%s: no filter left after merge_filter' % key)
        got = load_npy(w, key)
        compare_float(key, op, props, src, got, 3)
    # The references must be able to tell the borders apart.
    a = rf.gaussian(rf.premultiply(src, 3), 4.0, 4.0, 'mirror')
    b = rf.gaussian(rf.premultiply(src, 3), 4.0, 4.0, 'clamp')
    check(np.abs(a - b).max() > 0.01, 'mirror and clamp differ by more than the tolerance')


ND_CASES = [
    ('gaussian-blur', {'std-dev-x': 3.0, 'std-dev-y': 5.0, 'border': 'mirror'}),
    ('convolve', {'matrix': MATRIX_5X3, 'normalize': True, 'border': 'clamp'}),
    ('sobel', {'horizontal': True, 'vertical': False, 'keep-sign': True}),
    ('kuwahara', {'radius': 4, 'border': 'wrap'}),
]


def test_nondestructive():
    """Gimp.DrawableFilter + append_filter: the drawable's own pixels stay
    as they were, the filter is listed with its properties, the image's
    projection shows it (Gimp.Layer.new_from_visible), and merge_filters()
    then writes the same result as merge_filter would."""
    w = gh.temp_workdir('op-nondestructive')
    body = '''
def projection(img):
    """The image's projection as a new layer's pixels.  GIMP may still be
    updating the projection after a filter changed (seen once in a few runs
    after set_visible(False)), so capture until two captures agree; how
    many it took is reported."""
    last = None
    for k in range(1, 7):
        Gimp.displays_flush()
        vis = Gimp.Layer.new_from_visible(img, img, 'visible')
        img.insert_layer(vis, None, 0)
        px = pixels(vis, 'RGBA float', 4, np.float32)
        img.remove_layer(vis)
        if last is not None and np.array_equal(px, last):
            return px, k
        last = px
        time.sleep(0.1)
    return px, k

for op, props in P['cases']:
    R[op] = {}
    img, drw = load(P['rgba'])
    img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
    before = pixels(drw, 'RGBA float', 4, np.float32)
    save('in', before)
    try:
        f = new_filter(drw, 'gpufx:' + op, **props)
        drw.append_filter(f)
        R[op]['unchanged'] = bool(np.array_equal(before, pixels(drw, 'RGBA float', 4, np.float32)))
        R[op]['filters'] = filters_of(drw)
        px, R[op]['captures_visible'] = projection(img)
        save(op + '-visible', px)
        f.set_visible(False)
        px, R[op]['captures_hidden'] = projection(img)
        save(op + '-hidden', px)
        f.set_visible(True)
        drw.merge_filters()
        R[op]['left'] = len(drw.get_filters())
        save(op, pixels(drw, 'RGBA float', 4, np.float32))
    except Exception as e:
        R[op]['error'] = repr(e)
    img.delete()
'''
    gh.run_gimp(w, 'python', body, {'rgba': rgba_png(w), 'cases': ND_CASES})
    r = gh.result(w)
    src = load_npy(w, 'in')
    for op, props in ND_CASES:
        if case_error(r, op):
            continue
        f = r[op]
        check(f['unchanged'], '%s: appended, the drawable\'s pixels are unchanged' % op)
        names = [x['op'] for x in f['filters']]
        check(names == ['gpufx:' + op], '%s: the filter list is %s' % (op, names))
        if names:
            bad = props_match(props, f['filters'][0]['props'])
            check(not bad, '%s: properties read back as set %s' % (op, bad or ''))
        for k in ('visible', 'hidden'):
            if f['captures_' + k] > 2:
                note('%s: the projection with the filter %s took %d captures to '
                     'settle' % (op, k, f['captures_' + k]))
        vis = load_npy(w, op + '-visible')
        compare_float(op + ' (projection, filter visible)', op, props, src, vis, 3,
                      tol=2e-4)
        hid = load_npy(w, op + '-hidden')
        d = np.abs(rf.premultiply(hid, 3) - rf.premultiply(src, 3)).max()
        check(d <= 1e-5, '%s: filter hidden, the projection is the input (max %.1e)'
              % (op, d))
        check(f['left'] == 0, '%s: merge_filters() leaves no filter' % op)
        compare_float(op + ' after merge_filters()', op, props, src,
                      load_npy(w, op), 3)


PDB_CASES = [
    ('gaussian-blur', {'std-dev-x': 2.5, 'std-dev-y': 6.0, 'border': 'mirror'}),
    ('convolve', {'matrix': MATRIX_4X4, 'divisor': 5.0, 'offset': 0.05,
                  'normalize': False, 'border': 'wrap'}),
    ('sobel', {'horizontal': False, 'vertical': True, 'keep-sign': True,
               'border': 'clamp'}),
    ('kuwahara', {'radius': 5, 'border': 'mirror'}),
]


def test_pdb_nondestructive():
    """The PDB procedures: non-destructive=TRUE leaves one gpufx filter
    with the arguments as its properties and the pixels untouched (until
    merged); non-destructive=FALSE merges and leaves no filter.  Both give
    the reference result."""
    w = gh.temp_workdir('op-pdb-nondestructive')
    body = '''
for name, props in P['cases']:
    R[name] = {}
    for nd in (True, False):
        key = name + ('-nd' if nd else '-merged')
        img, drw = load(P['rgba'])
        img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
        before = pixels(drw, 'RGBA float', 4, np.float32)
        save('in', before)
        try:
            status, out, ms = run('plug-in-gpu-' + name, img, [drw],
                                  non_destructive=nd, **props)
            R[key] = {'status': status.value_nick, 'out': [str(o) for o in out],
                      'unchanged': bool(np.array_equal(before, pixels(drw, 'RGBA float', 4, np.float32))),
                      'filters': filters_of(drw)}
            drw.merge_filters()
            save(key, pixels(drw, 'RGBA float', 4, np.float32))
        except Exception as e:
            R[key] = {'error': repr(e)}
        img.delete()
'''
    gh.run_gimp(w, 'python', body, {'rgba': rgba_png(w), 'cases': PDB_CASES})
    r = gh.result(w)
    src = load_npy(w, 'in')
    for name, props in PDB_CASES:
        for nd in (True, False):
            key = name + ('-nd' if nd else '-merged')
            if case_error(r, key):
                continue
            f = r[key]
            print('%s: status %s, returned %s' % (key, f['status'], f['out']))
            if not check(f['status'] == 'success', '%s: success' % key):
                continue
            check(bool(f['out']) and f['out'][0] in ('cpu', 'cuda'),
                  '%s: returns the backend (cpu or cuda)' % key)
            names = [x['op'] for x in f['filters']]
            if nd:
                check(f['unchanged'], '%s: pixels untouched' % key)
                check(names == ['gpufx:' + name], '%s: filter list %s' % (key, names))
                if names:
                    bad = props_match(props, f['filters'][0]['props'])
                    check(not bad, '%s: the filter carries the arguments %s'
                          % (key, bad or ''))
            else:
                check(not f['unchanged'], '%s: pixels changed' % key)
                check(names == [], '%s: no filter left (%s)' % (key, names))
            compare_float(key, name, props, src, load_npy(w, key), 3)


XCF_CASES = [
    ('gaussian-blur', {'std-dev-x': 7.5, 'std-dev-y': 2.25, 'border': 'wrap'}),
    ('convolve', {'matrix': MATRIX_5X3, 'divisor': 2.0, 'offset': 0.125,
                  'normalize': False, 'border': 'mirror'}),
    ('sobel', {'horizontal': True, 'vertical': False, 'keep-sign': True,
               'border': 'zero'}),
    ('kuwahara', {'radius': 7, 'border': 'clamp'}),
]


def test_xcf():
    """Non-destructive gpufx filters saved to XCF and loaded back: still
    there, same properties, same merged pixels.  Then what a GIMP without
    the module does with that file (reported, and whether the layers'
    pixels survive), and what is left of the filters after such a GIMP
    saved the file again and ours reopens it."""
    w = gh.temp_workdir('op-xcf')
    xcf = os.path.join(w, 'filters.xcf')
    xcf2 = os.path.join(w, 'filters-resaved.xcf')
    body = '''
img, base = load(P['rgba'])
img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
save('in', pixels(base, 'RGBA float', 4, np.float32))
R['before'] = {}
for op, props in P['cases']:
    layer = base.copy()
    img.insert_layer(layer, None, 0)
    layer.set_name(op)
    layer.append_filter(new_filter(layer, 'gpufx:' + op, **props))
    R['before'][op] = filters_of(layer)
img.remove_layer(base)
Gimp.file_save(Gimp.RunMode.NONINTERACTIVE, img, Gio.File.new_for_path(P['xcf']), None)
img2 = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path(P['xcf']))
R['after'] = {}
for layer in img2.get_layers():
    R['after'][layer.get_name()] = filters_of(layer)
    save('unmerged-' + layer.get_name(), pixels(layer, 'RGBA float', 4, np.float32))
    layer.merge_filters()
    save('reloaded-' + layer.get_name(), pixels(layer, 'RGBA float', 4, np.float32))
'''
    params = {'rgba': rgba_png(w), 'cases': XCF_CASES, 'xcf': xcf}
    gh.run_gimp(w, 'python', body, params)
    r = gh.result(w)
    src = load_npy(w, 'in')
    for op, props in XCF_CASES:
        before = r['before'].get(op, [])
        after = r['after'].get(op)
        check(after is not None, '%s: the layer is in the reloaded XCF' % op)
        if after is None:
            continue
        check([x['op'] for x in after] == ['gpufx:' + op],
              '%s: reloaded filter list %s' % (op, [x['op'] for x in after]))
        if after and before:
            bad = props_match(props, after[0]['props'])
            check(not bad, '%s: reloaded properties as saved %s' % (op, bad or ''))
            check(after[0]['props'] == before[0]['props'],
                  '%s: every property (backend included) survives the XCF' % op)
        check(np.array_equal(load_npy(w, 'unmerged-' + op), src),
              '%s: the layer\'s own pixels are saved unfiltered' % op)
        compare_float(op + ' merged after reload', op, props, src,
                      load_npy(w, 'reloaded-' + op), 3)

    # A GIMP without the module opens the file: report what it does.
    w2 = gh.temp_workdir('op-xcf-no-module')
    body2 = '''
R['has_op'] = bool(Gegl.has_operation('gpufx:gaussian-blur'))
try:
    img = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path(P['xcf']))
except Exception as e:
    img = None
    R['load_error'] = repr(e)
R['loaded'] = img is not None
if img is not None:
    R['layers'] = {}
    for layer in img.get_layers():
        try:
            R['layers'][layer.get_name()] = [{'name': f.get_name(), 'op': f.get_operation_name()}
                                             for f in layer.get_filters()]
        except Exception as e:
            R['layers'][layer.get_name()] = repr(e)
        save('nomod-' + layer.get_name(), pixels(layer, 'RGBA float', 4, np.float32))
    try:
        Gimp.file_save(Gimp.RunMode.NONINTERACTIVE, img, Gio.File.new_for_path(P['xcf2']), None)
        R['resaved'] = True
    except Exception as e:
        R['resaved'] = repr(e)
'''
    try:
        log, secs = gh.run_gimp(w2, 'python', body2, {'xcf': xcf, 'xcf2': xcf2},
                                with_module=False)
        r2 = gh.result(w2)
    except gh.GimpRunError as e:
        note('GIMP without the module failed on the XCF: %s' % str(e)[-3000:])
        return
    check(not r2['has_op'], 'the second GIMP really runs without the module')
    note('GIMP without the module: XCF loaded: %s %s'
         % (r2['loaded'], r2.get('load_error', '')))
    for line in log.splitlines():
        if 'gpufx' in line or 'filter' in line.lower() or 'operation' in line.lower():
            note('  GIMP said: ' + line.strip())
    for op, flist in r2.get('layers', {}).items():
        note('  layer %-14s filters: %s' % (op, flist))
        same = np.array_equal(load_npy(w2, 'nomod-' + op), src)
        note('  layer %-14s own pixels intact: %s' % (op, same))
        check(same, 'without the module, layer %s keeps its pixels' % op)
    note('  saved again by that GIMP: %s' % r2.get('resaved'))
    if r2.get('resaved') is not True:
        return
    # Our GIMP opens what the module-less GIMP saved.
    w3 = gh.temp_workdir('op-xcf-resaved')
    body3 = '''
img = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path(P['xcf2']))
R['layers'] = {l.get_name(): filters_of(l) for l in img.get_layers()}
'''
    try:
        gh.run_gimp(w3, 'python', body3, {'xcf2': xcf2})
        for op, flist in gh.result(w3)['layers'].items():
            note('  after a round trip through a GIMP without the module, layer '
                 '%s has filters %s' % (op, [(f['op'], f['props']) for f in flist]))
    except gh.GimpRunError as e:
        note('reopening the re-saved XCF with the module failed: %s' % str(e)[-2000:])


def test_selection_undo():
    """A rectangle selection: only inside changes.  Through a
    Gimp.DrawableFilter (merged or appended) GIMP 3.0 feeds the operation
    the selection's bounding box only (as it does for its own filters), so
    inside equals the operation on that box; the PDB procedures, which apply
    the operation the same way, too.  Undo:
    libgimp 3.0 has no call that undoes or counts undo steps; what it
    offers (dirty flag, undo enable/disable, groups) is checked."""
    w = gh.temp_workdir('op-selection-undo')
    x, y, sw, sh = 150, 100, 200, 120
    body = '''
x, y, sw, sh = P['rect']
def fresh():
    img, drw = load(P['coffee'])
    img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
    img.select_rectangle(Gimp.ChannelOps.REPLACE, x, y, sw, sh)
    return img, drw
for key, how, op, props in P['cases']:
    img, drw = fresh()
    try:
        if how == 'merge':
            drw.merge_filter(new_filter(drw, 'gpufx:' + op, **props))
        elif how == 'gimp':
            drw.merge_filter(new_filter(drw, op, **props))
        elif how == 'append':
            drw.append_filter(new_filter(drw, 'gpufx:' + op, **props))
            Gimp.Selection.none(img)
            drw.merge_filters()
        else:
            status, out, ms = run('plug-in-gpu-' + op, img, [drw],
                                  non_destructive=(how == 'pdb-nd'), **props)
            R[key + '-status'] = status.value_nick
            if how == 'pdb-nd':
                Gimp.Selection.none(img)
                drw.merge_filters()
        save(key, pixels(drw, 'RGB float', 3, np.float32))
    except Exception as e:
        R[key + '-error'] = repr(e)
    img.delete()

# Undo, as far as libgimp 3.0 lets a plug-in see it.
U = R['undo'] = {}
img, drw = load(P['coffee'])
img.clean_all()
U['clean_before'] = not img.is_dirty()
status, out, ms = run('plug-in-gpu-gaussian-blur', img, [drw], std_dev_x=2.0, std_dev_y=2.0)
U['status'] = status.value_nick
U['dirty_after'] = img.is_dirty()
U['enabled_after'] = img.undo_is_enabled()
img.undo_disable()
status, out, ms = run('plug-in-gpu-gaussian-blur', img, [drw], std_dev_x=2.0, std_dev_y=2.0)
U['status_disabled'] = status.value_nick
U['still_disabled'] = not img.undo_is_enabled()
img.undo_enable()
U['group_start'] = img.undo_group_start()
status, out, ms = run('plug-in-gpu-sobel', img, [drw])
f = new_filter(drw, 'gpufx:kuwahara', radius=2)
drw.merge_filter(f)
U['group_end'] = img.undo_group_end()
U['status_group'] = status.value_nick
U['enabled_end'] = img.undo_is_enabled()
U['api'] = [m for m in dir(Gimp.Image) if 'undo' in m]
img.delete()
'''
    cases = [
        ('gauss-merge', 'merge', 'gaussian-blur', {'std-dev-x': 8.0, 'std-dev-y': 8.0}),
        ('kuw-merge', 'merge', 'kuwahara', {'radius': 5}),
        ('gauss-append', 'append', 'gaussian-blur', {'std-dev-x': 8.0, 'std-dev-y': 8.0}),
        ('conv-pdb', 'pdb', 'convolve', {'matrix': MATRIX_5X3, 'normalize': True}),
        ('sobel-pdb-nd', 'pdb-nd', 'sobel', {'horizontal': True, 'vertical': True}),
        ('gimp-gauss', 'gimp', 'gegl:gaussian-blur',
         {'std-dev-x': 8.0, 'std-dev-y': 8.0, 'filter': 'fir', 'abyss-policy': 'clamp'}),
    ]
    gh.run_gimp(w, 'python', body, {'coffee': COFFEE, 'rect': [x, y, sw, sh],
                                    'cases': cases})
    r = gh.result(w)
    src = rf.srgb_to_linear(coffee_u8().astype(np.float64) / 255.0)
    inside = np.zeros(src.shape[:2], bool)
    inside[y:y + sh, x:x + sw] = True
    crop = src[y:y + sh, x:x + sw]
    for key, how, op, props in cases:
        if key + '-error' in r:
            check(False, '%s: %s' % (key, r[key + '-error']))
            continue
        if key + '-status' in r:
            check(r[key + '-status'] == 'success', '%s: success' % key)
        got = load_npy(w, key)
        d_out = np.abs(got[~inside] - src[~inside]).max()
        check(d_out <= 1e-6, '%s: outside the selection unchanged (max %.1e)'
              % (key, d_out))
        g = got[inside].reshape(sh, sw, 3)
        if how == 'gimp':
            # GIMP's own blur (FIR, truncated at 3.25 sigma): which rule?
            d_full = np.abs(g - rf.gaussian(src, 8.0, 8.0)[inside].reshape(sh, sw, 3)).max()
            d_crop = np.abs(g - rf.gaussian(crop, 8.0, 8.0)).max()
            note('GIMP\'s own gegl:gaussian-blur with a selection: max %.1e from '
                 'the whole-image blur, %.1e from a blur of the selection\'s '
                 'bounds alone' % (d_full, d_crop))
            check(d_crop < d_full / 10, 'GIMP 3.0 filters take the selection\'s '
                  'bounds as their input (its own Gaussian does)')
            continue
        # What the operation gives on the whole image, and on the selection's
        # bounding box taken as the whole image (GIMP 3.0's DrawableFilter
        # crops its input to the selection: GimpFilterRegion "selection",
        # which libgimp 3.0 cannot change).
        if op == 'kuwahara':
            on_full = rf.kuwahara(src, props['radius'])[0][inside].reshape(sh, sw, 3)
            on_crop = rf.kuwahara(crop, props['radius'])[0]
        else:
            on_full = reference(op, props, src, None)[0][inside].reshape(sh, sw, 3)
            on_crop = reference(op, props, crop, None)[0]
        # Kuwahara's near ties: at most 0.1 % of the pixels may differ.
        score = lambda a: (np.abs(g - a).max(axis=-1) <= FLOAT_TOL).mean()  # noqa: E731
        s_full, s_crop = score(on_full), score(on_crop)
        print('%s: %.2f %% of the selected pixels match the whole-image result, '
              '%.2f %% the selection-only result' % (key, 100 * s_full, 100 * s_crop))
        # GIMP's own filters and ours, through the PDB or not, alike.
        check(s_crop >= 0.999, '%s: inside equals the operation on the '
              'selection\'s bounds (GIMP 3.0\'s rule for filters)' % key)
    # Context matters: a blur of the rectangle alone would differ.
    alone = rf.gaussian(crop, 8.0, 8.0)
    full = rf.gaussian(src, 8.0, 8.0)[y:y + sh, x:x + sw]
    check(np.abs(alone - full).max() > 0.02,
          'the test can tell real context from edge clamping')

    u = r['undo']
    print('undo: %s' % u)
    note('libgimp 3.0 offers %s: no call undoes or counts undo steps, so '
         '"one undo step" is not checked here' % u['api'])
    check(u['clean_before'] and u['dirty_after'],
          'the procedure marks a clean image dirty (it went through undo)')
    check(u['status'] == 'success' and u['enabled_after'], 'undo stays enabled')
    check(u['status_disabled'] == 'success' and u['still_disabled'],
          'with undo disabled the procedure works and leaves it disabled')
    check(u['group_start'] and u['group_end'] and u['status_group'] == 'success'
          and u['enabled_end'], 'the procedure and a filter nest inside an undo group')


def test_precision():
    """8-bit, 16-bit (linear and gamma), 32-bit float (linear and gamma),
    gray, gray with alpha and 8-bit with alpha: results within tolerance of
    the references, and the precision kept."""
    w = gh.temp_workdir('op-precision')
    g = {'std-dev-x': 3.0, 'std-dev-y': 3.0}
    conv = {'matrix': MATRIX_5X3, 'normalize': True}
    sob = {'horizontal': True, 'vertical': True, 'keep-sign': False}
    sob_sign = {'horizontal': True, 'vertical': False, 'keep-sign': True}
    kuw = {'radius': 3}
    # (name, source, precision, gray, read format, channels, alpha, cases)
    sets = [
        ('u8', 'coffee', None, False, "R'G'B' u8", 3, None,
         [('gaussian-blur', g), ('convolve', conv), ('sobel', sob),
          ('kuwahara', kuw)]),
        ('u16', 'coffee', 'U16_LINEAR', False, 'RGB float', 3, None,
         [('gaussian-blur', g), ('convolve', conv), ('sobel', sob_sign)]),
        ('u16g', 'coffee', 'U16_NON_LINEAR', False, 'RGB float', 3, None,
         [('gaussian-blur', g), ('kuwahara', kuw)]),
        ('f32g', 'coffee', 'FLOAT_NON_LINEAR', False, 'RGB float', 3, None,
         [('gaussian-blur', g), ('convolve', conv)]),
        ('f32', 'coffee', 'FLOAT_LINEAR', False, 'RGB float', 3, None,
         [('sobel', sob_sign), ('kuwahara', kuw)]),
        ('gray8', 'coffee', None, True, "Y' u8", 1, None,
         [('gaussian-blur', g), ('kuwahara', kuw)]),
        ('grayaf', 'rgba', 'FLOAT_LINEAR', True, 'YA float', 2, 1,
         [('gaussian-blur', g), ('convolve', conv), ('sobel', sob),
          ('kuwahara', kuw)]),
        ('rgba8', 'rgba', None, False, "R'G'B'A u8", 4, 3,
         [('gaussian-blur', g), ('sobel', sob)]),
    ]
    body = '''
for name, source, prec, gray, fmt, nch, alpha, cases in P['sets']:
    R[name] = {}
    lin = {1: 'Y float', 2: 'YA float', 3: 'RGB float', 4: 'RGBA float'}[nch]
    u8 = "u8" in fmt
    for op, props in cases:
        key = name + '-' + op
        img, drw = load(P[source])
        if gray:
            img.convert_grayscale()
        if prec:
            img.convert_precision(getattr(Gimp.Precision, prec))
        try:
            R[name]['precision'] = img.get_precision().value_nick
            R[name]['gray'] = drw.is_gray()
            save(name + '-in', pixels(drw, lin, nch, np.float32))
            drw.merge_filter(new_filter(drw, 'gpufx:' + op, **props))
            if u8:
                save(key, pixels(drw, fmt, nch, np.uint8))
            else:
                save(key, pixels(drw, lin, nch, np.float32))
            R[name]['gray_after'] = drw.is_gray()
        except Exception as e:
            R[key + '-error'] = repr(e)
        img.delete()
'''
    params = {'coffee': COFFEE, 'rgba': rgba_png(w), 'sets': sets}
    gh.run_gimp(w, 'python', body, params, timeout=240)
    r = gh.result(w)
    rgba8 = np.asarray(Image.open(params['rgba'])).astype(np.float64) / 255.0
    for name, source, prec, gray, fmt, nch, alpha, cases in sets:
        info = r.get(name, {})
        print('-- %s: precision %s, gray %s' % (name, info.get('precision'),
                                                 info.get('gray')))
        if gray and 'gray_after' in info:
            check(info['gray_after'], '%s: the image is still gray' % name)
        src = load_npy(w, name + '-in') if os.path.exists(
            os.path.join(w, name + '-in.npy')) else None
        for op, props in cases:
            key = name + '-' + op
            if key + '-error' in r:
                check(False, '%s: %s' % (key, r[key + '-error']))
                continue
            got = np.load(os.path.join(w, key + '.npy'))
            if name == 'u8':
                # The reference from the file itself, sRGB by formula.
                lin = rf.srgb_to_linear(coffee_u8().astype(np.float64) / 255.0)
                compare_u8(key, op, props, lin, got)
            elif name == 'gray8':
                compare_u8(key, op, props, src, got)
            elif name == 'rgba8':
                compare_rgba8(key, op, props, rgba8, got)
            else:
                tol = {'u16': FLOAT_TOL + 1.0 / 65535,
                       'u16g': FLOAT_TOL + 2.3 * 0.5 / 65535}.get(name, FLOAT_TOL)
                compare_float(key, op, props, src, got.astype(np.float64),
                              alpha, tol, clip=name.startswith('u16'))
                levels = len(np.unique(got[..., 0]))
                need = 1024 if name.startswith('u16') else 256
                check(levels > need, '%s: %d distinct levels (> %d: not '
                      'quantised to a lower precision)' % (key, levels, need))


def compare_rgba8(key, op, props, src8, got):
    """8-bit RGBA: the reference from the PNG (sRGB by formula, alpha
    straight), compared as straight 8-bit colour where the result's alpha is
    at least 0.1, and alpha in levels."""
    lin = src8.copy()
    lin[..., :3] = rf.srgb_to_linear(src8[..., :3])
    ref, space = reference(op, props, lin, 3)
    if space == 'pre':
        a = ref[..., 3:4]
        ref = np.where(a > 1e-9, ref / np.maximum(a, 1e-9), 0.0)
        ref[..., 3] = a[..., 0]
    ref8 = np.dstack([rf.linear_to_srgb(ref[..., :3]) * 255.0,
                      np.clip(ref[..., 3], 0, 1) * 255.0])
    g = got.astype(np.float64)
    mask = ref[..., 3] >= 0.1
    dc = np.abs(g[..., :3] - ref8[..., :3])[mask]
    da = np.abs(g[..., 3] - ref8[..., 3])
    print('%s: colour max %.3f levels (alpha >= 0.1), alpha max %.3f levels'
          % (key, dc.max(), da.max()))
    # Straight colour in 8 bits where alpha is small carries the float32
    # rounding of the division: 0.55 level plus a little where alpha < 0.5.
    tol = np.where(ref[..., 3] >= 0.5, U8_TOL, 1.0)[mask]
    check((dc.max(axis=-1) <= tol).all(), '%s: colour within tolerance' % key)
    check(da.max() <= U8_TOL, '%s: alpha within %.2f level' % (key, U8_TOL))


def test_chunks():
    """A 2400 x 1600 photo, which GIMP renders through the operation in
    chunks and tiles, against whole-image references: a Gaussian whose
    reach (121 pixels) is near a tile, Kuwahara with mirror, a 7 x 7
    convolution with wrap (each chunk needs the far side) and Sobel with
    zero."""
    w = gh.temp_workdir('op-chunks')
    rng = np.random.default_rng(7)
    m7 = rng.integers(-3, 6, (7, 7))
    m7[0, 0] = 9
    m7 = ';'.join(','.join(str(v) for v in row) for row in m7)
    cases = [('gauss-30', 'gaussian-blur', {'std-dev-x': 30.0, 'std-dev-y': 30.0}),
             ('kuw-8', 'kuwahara', {'radius': 8, 'border': 'mirror'}),
             ('conv-7x7', 'convolve', {'matrix': m7, 'normalize': True,
                                       'border': 'wrap'}),
             ('sobel', 'sobel', {'border': 'zero'})]
    body = '''
src_img, drw = load(P['big'])
src_img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
save('in', pixels(drw, 'RGB float', 3, np.float32))
for key, op, props in P['cases']:
    img = src_img.duplicate()
    d = img.get_layers()[0]
    try:
        t = time.monotonic()
        d.merge_filter(new_filter(d, 'gpufx:' + op, **props))
        R[key] = {'ms': (time.monotonic() - t) * 1000}
        save(key, pixels(d, 'RGB float', 3, np.float32))
    except Exception as e:
        R[key] = {'error': repr(e)}
    img.delete()
'''
    gh.run_gimp(w, 'python', body, {'big': big_png(w), 'cases': cases}, timeout=300)
    r = gh.result(w)
    src = load_npy(w, 'in')
    print('input %d x %d' % (src.shape[1], src.shape[0]))
    for key, op, props in cases:
        if case_error(r, key):
            continue
        print('%s: %.0f ms in GIMP' % (key, r[key]['ms']))
        compare_float(key, op, props, src, load_npy(w, key), None)


TESTS = {
    'op-merge': test_merge,
    'op-nondestructive': test_nondestructive,
    'op-pdb-nondestructive': test_pdb_nondestructive,
    'op-xcf': test_xcf,
    'op-selection-undo': test_selection_undo,
    'op-precision': test_precision,
    'op-chunks': test_chunks,
}


if __name__ == '__main__':
    sys.exit(gh.main(TESTS, need_module=True))
