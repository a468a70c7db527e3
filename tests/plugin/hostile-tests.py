#!/usr/bin/env python3
# gimp-gpu-filters: hostile and unusual input inside a real GIMP 3: bad
# arguments to every procedure (plug-in-gpu-*) and operation (gpufx:*), and
# drawables that are not a plain RGB layer.
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# usage: hostile-tests.py TEST   (see TESTS at the end)
#
# Bad input must give a clear error that names what was wrong and change
# nothing: every drawable of the image is read back before and after each
# call and compared, and no filter may be left on it.  A valid but unusual
# drawable must be processed like GIMP's own filters process it (checked
# against the float64 references of references.py, or against GIMP's own
# gegl:gaussian-blur where only GIMP can say what is right), or refused
# with a message.  Each test is one GIMP start covering many cases.

import glob
import os
import re
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gimp_harness as gh  # noqa: E402
import references as rf  # noqa: E402

DATA = os.environ.get('GPU_FILTERS_TEST_DATA',
                      os.path.join(os.path.dirname(__file__), '..', 'data'))
COFFEE = os.path.abspath(os.path.join(DATA, 'coffee.png'))
HAVE_CUDA = os.environ.get('GPU_FILTERS_HAVE_CUDA', '0') == '1'
MATRIX_5X3 = '1,2,0,-1,3;0,1,4,1,0;2,0,1,0,1'
FLOAT_TOL = 1e-4

check = gh.check


def note(what):
    print('NOTE   ' + what, flush=True)


def load_npy(w, name):
    return np.load(os.path.join(w, name + '.npy')).astype(np.float64)


# The GIMP side: snapshots of every drawable of the images a case may
# touch, a call that records status and message, and the real PDB reached
# through Script-Fu (whose values GIMP checks itself, unlike a Python
# procedure config, which refuses them before any call is made).
GIMP_HELPERS = r'''
import warnings
pdb = Gimp.get_pdb()

def fmt_of(d):
    return ("R'G'B'A float", 4) if d.is_rgb() or d.is_indexed() else ("Y'A float", 2)

def snap(d):
    f, n = fmt_of(d)
    return pixels(d, f, n, np.float32)

def all_drawables(img):
    out = []
    def walk(items):
        for it in items:
            out.append(it)
            if it.is_group():
                walk(it.get_children())
            elif isinstance(it, Gimp.Layer) and it.get_mask() is not None:
                out.append(it.get_mask())
    walk(img.get_layers())
    out.extend(img.get_channels())
    out.append(img.get_selection())
    return out

class Watch:
    """Every drawable of some images, to see that a refused call changed
    nothing and left no filter anywhere."""
    def __init__(self, *images):
        self.items = [d for img in images for d in all_drawables(img)]
        self.before = [None if d.is_group() else snap(d) for d in self.items]

    def changes(self):
        changed, filters = [], 0
        for d, b in zip(self.items, self.before):
            filters += len(d.get_filters())
            if b is None:
                continue
            a = snap(d)
            if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
                changed.append(d.get_name())
        return changed, filters

def call(name, img, drws, **kw):
    """Status nick and message (or first return value) of one call."""
    try:
        status, out, ms = run(name, img, drws, **kw)
        return status.value_nick, (str(out[0]) if out else '')
    except Exception as e:
        return 'exception', repr(e)

def script_fu(code):
    proc = pdb.lookup_procedure('plug-in-script-fu-eval')
    cfg = proc.create_config()
    cfg.set_property('run-mode', Gimp.RunMode.NONINTERACTIVE)
    cfg.set_property('script', code)
    res = proc.run(cfg)
    msg = str(res.index(1)) if res.length() > 1 else ''
    return res.index(0).value_nick, msg or (pdb.get_last_error() or '')

def strict_set(config, prop, value):
    """Sets a property: the warning GLib gives a script when it refuses the
    value (the script goes on), or None when the value was taken."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter('always')
        config.set_property(prop, value)
    return '; '.join(str(m.message) for m in seen) or None

def image_from(arr, base, precision, fmt):
    """A new image of one layer holding arr (h, w, c) in format fmt."""
    h, w, c = arr.shape
    img = Gimp.Image.new_with_precision(w, h, base, getattr(Gimp.Precision, precision))
    kinds = {1: 'GRAY_IMAGE', 2: 'GRAYA_IMAGE', 3: 'RGB_IMAGE', 4: 'RGBA_IMAGE'}
    layer = Gimp.Layer.new(img, 'in', w, h, getattr(Gimp.ImageType, kinds[c]),
                           100, Gimp.LayerMode.NORMAL)
    img.insert_layer(layer, None, 0)
    buf = layer.get_buffer()
    buf.set(Gegl.Rectangle.new(0, 0, w, h), fmt,
            np.ascontiguousarray(arr, np.float32).tobytes())
    buf.flush()
    return img, layer

def merge_op(d, op, **props):
    f = new_filter(d, op, **props)
    d.merge_filter(f)
    return pdb.get_last_error()
'''


def case_table(r, key):
    """Prints and returns the recorded cases of one group."""
    rows = r[key]
    for c in rows:
        print('%-44s %-16s %s' % (c['label'][:44], c['status'],
                                  c['msg'].replace('\n', ' ')[:150]))
    return rows


def check_refused(c, words, statuses=('calling-error', 'execution-error')):
    """A refused call: an error status, a message with one of words (what
    was wrong), nothing changed and no filter left."""
    label = c['label']
    check(c['status'] in statuses,
          '%s: refused (%s)' % (label, c['status']))
    found = [wd for wd in words if wd.lower() in c['msg'].lower()]
    check(bool(found), '%s: the message names %s' % (label, ' or '.join(words)))
    check(not c['changed'], '%s: no pixel changed (%s)' % (label, c['changed']))
    check(c['filters'] == 0, '%s: no filter left (%d)' % (label, c['filters']))


# ---------------------------------------------------------------- arguments

# (label, matrix text, words one of which the message must contain)
NOT_A_WEIGHT = ['finite', 'number was expected']
MATRIX_CASES = [
    ('empty', '', ['empty']),
    ('blanks', ' \t\n ', ['empty']),
    ('letters', 'abc', ['number was expected']),
    ('ragged', '1,2;3', ['row 2 has 1']),
    ('double comma', '1,,2', ['number was expected']),
    ('only separators', ';;', ['number was expected']),
    ('empty row', '1;;2', ['number was expected']),
    ('nan', 'nan', NOT_A_WEIGHT),
    ('nan among numbers', '1,2,3;4,nan,6', NOT_A_WEIGHT),
    ('inf', 'inf', NOT_A_WEIGHT),
    ('-infinity', '1,-infinity', NOT_A_WEIGHT),
    ('hexadecimal', '0x10', NOT_A_WEIGHT + ['unexpected']),
    ('control byte', '1,2\x01', ['unexpected']),
    ('overflow 1e39', '1e39', ['finite']),
    ('underscore separator', '1_2', ["unexpected '_'"]),
    ('spaces only between', '1 2 3', ["unexpected '2'"]),
    ('64 columns', ','.join(['1'] * 64), ['more than 63 columns']),
    ('64 rows', ';'.join(['1'] * 64), ['more than 63 rows']),
    ('1 MB of weights', ','.join(['1'] * 500000), ['more than 63']),
    ('1 MB of digits', '1' * (1 << 20), ['finite']),
    ('non-ASCII', '1,\u00bd', ['number was expected']),
    ('trailing garbage', '1,2;3,4x', ["unexpected 'x'"]),
]

OUT_OF_RANGE = [
    # procedure, property, value, words in GLib's refusal
    ('gaussian-blur', 'std-dev-x', -5.0, 'std-dev-x'),
    ('gaussian-blur', 'std-dev-x', 1e9, 'std-dev-x'),
    ('gaussian-blur', 'std-dev-x', float('nan'), 'std-dev-x'),
    ('gaussian-blur', 'std-dev-y', float('inf'), 'std-dev-y'),
    ('gaussian-blur', 'std-dev-y', -1e-9, 'std-dev-y'),
    ('kuwahara', 'radius', 0, 'radius'),
    ('kuwahara', 'radius', 256, 'radius'),
    ('kuwahara', 'radius', -1, 'radius'),
    ('convolve', 'divisor', 2e6, 'divisor'),
    ('convolve', 'divisor', float('nan'), 'divisor'),
    ('convolve', 'offset', float('-inf'), 'offset'),
    ('sobel', 'border', 'bogus', 'border'),
    ('sobel', 'border', 'CLAMP', 'border'),
    ('gaussian-blur', 'backend', 'gpu', 'backend'),
]


def test_args():
    """Every procedure with bad arguments, three ways: values a Python
    procedure config refuses (GLib does, before any call), values the
    plug-in refuses (matrix text, divisor, backend, drawables) and values
    sent to the PDB as they are (Script-Fu), which GIMP checks."""
    w = gh.temp_workdir('hostile-args')
    body = GIMP_HELPERS + r'''
def small_coffee():
    # 160 x 120: every drawable is read back after every call.
    img, drw = load(P['coffee'])
    img.crop(160, 120, 220, 140)
    return img, img.get_layers()[0]
img, drw = small_coffee()
second = drw.copy(); img.insert_layer(second, None, 0); second.set_name('second')
locked = drw.copy(); img.insert_layer(locked, None, 0); locked.set_name('locked')
locked.set_lock_content(True)
masked = drw.copy(); img.insert_layer(masked, None, 0); masked.set_name('masked')
masked.add_mask(masked.create_mask(Gimp.AddMaskType.COPY))
group = Gimp.GroupLayer.new(img, 'group'); img.insert_layer(group, None, 0)
inner = drw.copy(); img.insert_layer(inner, group, 0); inner.set_name('inner')
free = Gimp.Layer.new(img, 'free', 20, 20, Gimp.ImageType.RGB_IMAGE, 100,
                      Gimp.LayerMode.NORMAL)
img2, drw2 = small_coffee(); drw2.set_name('elsewhere')

def record(key, label, status, msg):
    changed, filters = watch.changes()
    R.setdefault(key, []).append({'label': label, 'status': status, 'msg': msg,
                                  'changed': changed, 'filters': filters})

# Drawables the procedures must refuse.
locked_mask = drw.copy(); img.insert_layer(locked_mask, None, 0)
locked_mask.set_name('locked-mask')
locked_mask.add_mask(locked_mask.create_mask(Gimp.AddMaskType.WHITE))
locked_mask.set_lock_content(True)
watch = Watch(img, img2)
R['watched'] = len(watch.items)
for name in ('gaussian-blur', 'convolve', 'sobel', 'kuwahara'):
    for label, drws in (('no drawable', []),
                        ('two drawables', [drw, second]),
                        ('the same drawable twice', [drw, drw]),
                        ('a drawable of another image', [drw2]),
                        ('a layer never added to an image', [free]),
                        ('a layer with locked pixels', [locked]),
                        ('the mask of a locked layer', [locked_mask.get_mask()]),
                        ('a layer group, merged', [group])):
        record('drawables', name + ': ' + label,
               *call('plug-in-gpu-' + name, img, drws))

# Arguments the plug-in refuses, for each procedure where they apply.
for name in ('gaussian-blur', 'convolve', 'sobel', 'kuwahara'):
    record('plugin', name + ': backend cuda',
           *call('plug-in-gpu-' + name, img, [drw], backend='cuda'))
for label, text, words in P['matrices']:
    record('plugin', 'matrix ' + label,
           *call('plug-in-gpu-convolve', img, [drw], matrix=text, normalize=True))
for label, kw in (('divisor 0', dict(matrix='1,1;1,1', divisor=0.0, normalize=False)),
                  ('ragged, non-destructive', dict(matrix='1;2,3', non_destructive=True)),
                  ('divisor 1e-300', dict(matrix='1', divisor=1e-300, normalize=False)),
                  ('weights 3e38', dict(matrix='3e38,3e38;3e38,3e38', normalize=False)),
                  ('zero-sum 3e38', dict(matrix='3e38,-3e38;3e38,-3e38', normalize=True))):
    record('plugin', label, *call('plug-in-gpu-convolve', img, [drw], **kw))

# Values a Python procedure config refuses: the warning the script gets
# (it goes on: the config keeps the value it had), and what the config
# holds afterwards.
for name, prop, value, word in P['out_of_range']:
    proc = pdb.lookup_procedure('plug-in-gpu-' + name)
    cfg = proc.create_config()
    default = cfg.get_property(prop)
    err = strict_set(cfg, prop, value)
    R.setdefault('config', []).append({'label': '%s %s=%r' % (name, prop, value),
        'error': err, 'kept': cfg.get_property(prop) == default})

# The PDB itself, with the values as given (Script-Fu, by ids).
I, D, D2 = img.get_id(), drw.get_id(), drw2.get_id()
def sf(label, proc, args):
    code = ('(plug-in-gpu-%s #:run-mode RUN-NONINTERACTIVE #:image %d '
            '#:drawables (vector %d) %s)' % (proc, I, D, args))
    record('pdb', label, *script_fu(code))
sf('std-dev-x -5', 'gaussian-blur', '#:std-dev-x -5.0')
sf('std-dev-x 1e9', 'gaussian-blur', '#:std-dev-x 1e9')
sf('std-dev-y 1501', 'gaussian-blur', '#:std-dev-y 1501.0')
sf('radius 0', 'kuwahara', '#:radius 0')
sf('radius 256', 'kuwahara', '#:radius 256')
sf('divisor -2e6', 'convolve', '#:divisor -2e6')
sf('offset 2e6', 'convolve', '#:offset 2e6')
sf('matrix of 64 columns', 'convolve', '#:matrix "%s"' % ','.join(['1'] * 64))
sf('matrix nan', 'convolve', '#:matrix "nan"')
sf('divisor 0', 'convolve', '#:divisor 0.0')
sf('backend cuda', 'sobel', '#:backend "cuda"')
record('pdb', 'no drawable', *script_fu(
    '(plug-in-gpu-sobel #:run-mode RUN-NONINTERACTIVE #:image %d #:drawables (vector))' % I))
record('pdb', 'drawable of another image', *script_fu(
    '(plug-in-gpu-sobel #:run-mode RUN-NONINTERACTIVE #:image %d #:drawables (vector %d))' % (I, D2)))
# A choice GIMP does not know: Script-Fu's config refuses it with a
# warning and runs with the default (GIMP's doing, recorded as such).
record('choice', 'border bogus', *script_fu(
    '(plug-in-gpu-sobel #:run-mode RUN-NONINTERACTIVE #:image %d #:drawables (vector %d) '
    '#:border "bogus")' % (I, D)))

# Valid if unusual text: accepted.
img3, drw3 = load(P['coffee'])
for label, text in (('trailing ;', '1,2;3,4;'), ('spaces', ' 1 , 2 ;\n 3 , 4 '),
                    ('signs and exponents', '+1,-1e-3;2E0,.5'), ('63 x 63', P['m63'])):
    R.setdefault('valid', []).append([label] + list(call(
        'plug-in-gpu-convolve', img3, [drw3], matrix=text, normalize=True)))
'''
    params = {'coffee': COFFEE, 'matrices': MATRIX_CASES,
              'out_of_range': OUT_OF_RANGE,
              'm63': ';'.join([','.join(['1'] * 63)] * 63)}
    log, secs = gh.run_gimp(w, 'python', body, params, timeout=300)
    print('GIMP run: %.1f s' % secs)
    r = gh.result(w)
    check(r['watched'] >= 9, 'every drawable of both images is watched (%d)'
          % r['watched'])

    rows = case_table(r, 'drawables')
    check(len(rows) == 32, '8 refused drawables for each of the 4 procedures')
    words = {'no drawable': ['exactly one'], 'two drawables': ['exactly one'],
             'the same drawable twice': ['exactly one'],
             'a drawable of another image': ["'drawables'", 'another image'],
             'a layer never added to an image': ['not been added to an image'],
             'a layer with locked pixels': ["'locked'", 'locked'],
             'the mask of a locked layer': ["'locked-mask'"],
             'a layer group, merged': ["'group'", 'layer group']}
    for c in rows:
        check_refused(c, words[c['label'].split(': ', 1)[1]])

    rows = case_table(r, 'plugin')
    matrix_words = {'matrix ' + m[0]: m[2] for m in MATRIX_CASES}
    for c in rows:
        if c['label'].endswith('backend cuda'):
            if HAVE_CUDA:
                note('%s: CUDA is built, so this may run' % c['label'])
                continue
            check_refused(c, ['CUDA'])
        elif c['label'] in matrix_words:
            check_refused(c, ["'matrix'"])
            check_refused(c, matrix_words[c['label']])
        elif c['label'] == 'divisor 0':
            check_refused(c, ['divisor'])
        elif c['label'] == 'ragged, non-destructive':
            check_refused(c, ["'matrix'"])
        else:
            check_refused(c, ['divided by the divisor'])

    print('Python procedure config, out-of-range values:')
    for c in r['config']:
        print('  %-40s kept the default: %-5s error: %s'
              % (c['label'], c['kept'], (c['error'] or '')[:110]))
        check(c['error'] is not None and c['kept'],
              '%s: refused with an error, the config unchanged' % c['label'])
        prop = c['label'].split(' ')[1].split('=')[0]
        check(c['error'] is not None and prop in c['error'],
              '%s: the error names %s' % (c['label'], prop))

    rows = case_table(r, 'pdb')
    for c in rows:
        lab = c['label']
        if lab == 'backend cuda' and HAVE_CUDA:
            continue
        if lab in ('no drawable',):
            want = ['exactly one']
        elif lab == 'drawable of another image':
            want = ['another image']
        elif lab.startswith('matrix') or lab == 'divisor 0':
            want = [lab.split(' ')[0]]
        elif lab == 'backend cuda':
            want = ['CUDA']
        else:
            # Script-Fu's own check: "argument N in call to ... has value V
            # out of range: MIN to MAX".
            want = ['out of range']
        check_refused(c, want)

    c = case_table(r, 'choice')[0]
    note('Script-Fu with border "bogus": %s; GIMP\'s config (in Script-Fu) '
         'refuses the choice with a GLib warning and the call runs with the '
         'default: not something the plug-in can see' % c['status'])
    check(c['status'] == 'success' or 'border' in c['msg'],
          'border "bogus" through Script-Fu: run with the default (GIMP 3.0) '
          'or refused naming border')
    check(not c['changed'] or c['status'] == 'success',
          'border "bogus": a refusal changed nothing')

    for label, status, out in r['valid']:
        print('valid %-24s %s %s' % (label, status, out))
        check(status == 'success', 'matrix %s: accepted' % label)


# ---------------------------------------------------------------- operations

def test_op():
    """The operations through Gimp.DrawableFilter: out-of-range property
    values (refused by GLib in the config), bad matrix text (the operation
    leaves the pixels as they were and says why in GIMP's log), and
    out-of-range values through the PDB (Script-Fu's merge-new-filter)."""
    w = gh.temp_workdir('hostile-op')
    body = GIMP_HELPERS + r'''
img, drw = load(P['coffee'])
img.convert_precision(Gimp.Precision.FLOAT_LINEAR)
watch = Watch(img)

for name, prop, value, word in P['out_of_range']:
    f = Gimp.DrawableFilter.new(drw, 'gpufx:' + name, None)
    cfg = f.get_config()
    default = cfg.get_property(prop)
    err = strict_set(cfg, prop, value)
    R.setdefault('config', []).append({'label': 'gpufx:%s %s=%r' % (name, prop, value),
        'error': err, 'kept': cfg.get_property(prop) == default})
    f.delete()
changed, filters = watch.changes()
R['config_changed'] = [changed, filters]

for label, text, words in P['matrices']:
    err = merge_op(drw, 'gpufx:convolve', matrix=text, normalize=True)
    changed, filters = watch.changes()
    R.setdefault('matrix', []).append({'label': label, 'status': err, 'msg': '',
                                       'changed': changed, 'filters': filters})

# append_filter: a refused matrix stays listed (the user's filter, to put
# right later) and renders nothing; merging it then changes nothing.
for label, text in (('ragged', '1;2,3'), ('nan', 'nan'), ('1 MB', ','.join(['1'] * 500000))):
    f = new_filter(drw, 'gpufx:convolve', matrix=text)
    drw.append_filter(f)
    listed = [g.get_operation_name() for g in drw.get_filters()]
    changed_appended, _ = watch.changes()
    drw.merge_filters()
    changed, filters = watch.changes()
    R.setdefault('append', []).append({'label': label, 'listed': listed,
        'changed_appended': changed_appended, 'changed': changed, 'filters': filters})

for label, kw in (('divisor 1e-300', dict(matrix='1', divisor=1e-300, normalize=False)),
                  ('weights 3e38', dict(matrix='3e38,3e38;3e38,3e38', normalize=False))):
    img4, d4 = load(P['coffee'])
    img4.convert_precision(Gimp.Precision.FLOAT_LINEAR)
    merge_op(d4, 'gpufx:convolve', **kw)
    a = pixels(d4, 'RGB float', 3, np.float32)
    R.setdefault('overflow', []).append([label, int(np.isnan(a).sum()), int(np.isinf(a).sum())])
    img4.delete()

I, D = img.get_id(), drw.get_id()
for label, op, args in (('std-dev-x -5', 'gaussian-blur', '"std-dev-x" -5.0'),
                        ('std-dev-y 1e9', 'gaussian-blur', '"std-dev-y" 1e9'),
                        ('radius 0', 'kuwahara', '"radius" 0'),
                        ('divisor 2e6', 'convolve', '"divisor" 2e6'),
                        ('no such property', 'sobel', '"nosuch" 1')):
    st, msg = script_fu('(gimp-drawable-merge-new-filter %d "gpufx:%s" "" '
                        'LAYER-MODE-REPLACE 1.0 %s)' % (D, op, args))
    changed, filters = watch.changes()
    R.setdefault('pdb', []).append({'label': label, 'status': st, 'msg': msg,
                                    'changed': changed, 'filters': filters})
'''
    params = {'coffee': COFFEE, 'matrices': MATRIX_CASES,
              'out_of_range': OUT_OF_RANGE}
    log, secs = gh.run_gimp(w, 'python', body, params, timeout=300)
    print('GIMP run: %.1f s' % secs)
    r = gh.result(w)
    print('Gimp.DrawableFilter config, out-of-range values:')
    for c in r['config']:
        print('  %-44s kept the default: %-5s error: %s'
              % (c['label'], c['kept'], (c['error'] or '')[:100]))
        prop = c['label'].split(' ')[1].split('=')[0]
        check(c['error'] is not None and c['kept'] and prop in c['error'],
              '%s: refused with an error naming %s, the config unchanged'
              % (c['label'], prop))
    check(r['config_changed'] == [[], 0], 'the image unchanged after the '
          'refused configs (%s)' % r['config_changed'])

    # Each refused matrix: pixels as they were, no filter, and the reason
    # in GIMP's log, once per filter, naming the operation.
    warned = re.findall(r'gpufx:convolve: ([^\n]*)', log)
    for c in r['matrix']:
        label = c['label']
        words = [m[2] for m in MATRIX_CASES if m[0] == label][0]
        print('gpufx:convolve matrix %-22s changed %s, filters %d'
              % (label, c['changed'], c['filters']))
        check(not c['changed'] and c['filters'] == 0,
              'gpufx:convolve, matrix %s: pixels unchanged, no filter left' % label)
        check(any(wd in m for m in warned for wd in words),
              'gpufx:convolve, matrix %s: GIMP\'s log says why (%s)'
              % (label, ' or '.join(words)))

    for c in r['append']:
        print('append_filter gpufx:convolve matrix %-8s listed %s; changed %s, '
              'after merge_filters %s, filters %d'
              % (c['label'], c['listed'], c['changed_appended'], c['changed'],
                 c['filters']))
        check(c['listed'] == ['gpufx:convolve'] and not c['changed_appended'],
              'append_filter, matrix %s: listed, the drawable unchanged' % c['label'])
        check(not c['changed'] and c['filters'] == 0,
              'append_filter, matrix %s: merge_filters() changes nothing' % c['label'])

    for label, nans, infs in r['overflow']:
        print('gpufx:convolve %s on a float image: %d NaN, %d inf values'
              % (label, nans, infs))
        if nans or infs:
            note('gpufx:convolve %s writes non-finite pixels: the engine\'s '
                 'gpufx_filter_validate does not bound the weights over the '
                 'divisor (the PDB procedure refuses it; see the report)' % label)

    for c in case_table(r, 'pdb'):
        check_refused(c, ['out of range', 'Invalid argument name'])


# ---------------------------------------------------------------- drawables

def fonts_conf(w):
    """A fontconfig file naming a folder of TrueType fonts, for the text
    layer: the build root has no system fonts, but matplotlib (pulled in by
    scikit-image) ships DejaVu."""
    dirs = sorted(set(os.path.dirname(p) for pat in (
        '/usr/share/fonts/truetype/*/*.ttf',
        '/usr/share/matplotlib/mpl-data/fonts/ttf/DejaVuSans.ttf',
        '/usr/lib/python3/dist-packages/matplotlib/mpl-data/fonts/ttf/DejaVuSans.ttf')
        for p in glob.glob(pat)))
    path = os.path.join(w, 'fonts.conf')
    with open(path, 'w') as f:
        f.write('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n'
                '<fontconfig>%s<cachedir>%s</cachedir></fontconfig>\n'
                % (''.join('<dir>%s</dir>' % d for d in dirs),
                   os.path.join(w, 'fc-cache')))
    return path, dirs


def test_drawables():
    """Gaussian blur (procedure, operation, and GIMP's own
    gegl:gaussian-blur with its FIR filter) on drawables that are not a
    plain layer.  Float linear images, so that the references hold to
    1e-4, except the indexed one."""
    w = gh.temp_workdir('hostile-drawables')
    conf, font_dirs = fonts_conf(w)
    body = GIMP_HELPERS + r'''
S = 3.0
def blur_by(path, img, d):
    """Gaussian blur S by our procedure, our operation or GIMP's own
    (gegl:gaussian-blur, its FIR filter, our border and extent)."""
    if path == 'proc':
        return call('plug-in-gpu-gaussian-blur', img, [d], std_dev_x=S, std_dev_y=S)
    if path == 'op':
        return merge_op(d, 'gpufx:gaussian-blur', std_dev_x=S, std_dev_y=S), ''
    return merge_op(d, 'gegl:gaussian-blur', std_dev_x=S, std_dev_y=S,
                    filter='fir', abyss_policy='clamp', clip_extent=True), ''

def blur_three(make, fmt, nch):
    """make() -> (img, drawable); the input, and per path the result, its
    status and the filters left."""
    out = {}
    for path in ('proc', 'op', 'gimp'):
        img, d = make()
        before = pixels(d, fmt, nch, np.float32)
        st, msg = blur_by(path, img, d)
        out[path] = {'status': st, 'msg': msg, 'filters': len(d.get_filters()),
                     'text': bool(d.is_text_layer())}
        out['before'] = before
        out[path]['after'] = pixels(d, fmt, nch, np.float32)
        img.delete()
    return out

def coffee(prec='FLOAT_LINEAR'):
    img, drw = load(P['coffee'])
    if prec:
        img.convert_precision(getattr(Gimp.Precision, prec))
    return img, drw

def k_mask():
    img, drw = coffee(); drw.add_alpha()
    m = drw.create_mask(Gimp.AddMaskType.COPY); drw.add_mask(m)
    return img, m
def k_channel():
    img, drw = coffee()
    ch = Gimp.Channel.new_from_component(img, Gimp.ChannelType.GREEN, 'green')
    img.insert_channel(ch, None, 0)
    return img, ch
def k_selection():
    img, drw = coffee()
    img.select_ellipse(Gimp.ChannelOps.REPLACE, 100, 80, 300, 200)
    sel = img.get_selection()
    # The selection is the drawable; nothing else is selected.
    return img, sel
def k_offcanvas():
    img, drw = coffee(); drw.set_offsets(-150, -90)
    return img, drw
def k_offset():
    img, drw = coffee()
    small = Gimp.Layer.new_from_drawable(drw, img); img.insert_layer(small, None, 0)
    small.resize(220, 150, -130, -70); small.set_offsets(37, 21)
    return img, small
def k_beyond():
    img, drw = coffee()
    big = Gimp.Layer.new_from_drawable(drw, img); img.insert_layer(big, None, 0)
    big.add_alpha(); big.resize(800, 560, 100, 80); big.set_offsets(-100, -80)
    return img, big
def k_empty_selection():
    img, drw = coffee()
    img.select_rectangle(Gimp.ChannelOps.REPLACE, 50, 50, 40, 40)
    img.select_rectangle(Gimp.ChannelOps.SUBTRACT, 50, 50, 40, 40)
    return img, drw
def k_floating():
    img, drw = coffee()
    img.select_rectangle(Gimp.ChannelOps.REPLACE, 30, 40, 200, 150)
    Gimp.edit_copy([drw])
    Gimp.edit_paste(drw, False)
    return img, img.get_floating_sel()
def k_alpha_locked():
    img, drw = coffee(); drw.add_alpha()
    img.select_ellipse(Gimp.ChannelOps.REPLACE, 150, 100, 250, 160)
    drw.edit_clear(); Gimp.Selection.none(img)
    drw.set_lock_alpha(True)
    return img, drw
def k_text():
    img, drw = coffee()
    font = Gimp.context_get_font()
    t = Gimp.TextLayer.new(img, 'Hostile', font, 60.0, Gimp.Unit.pixel())
    img.insert_layer(t, None, 0); t.set_offsets(20, 30)
    return img, t

RGBA = ('RGBA float', 4)
Y = ('Y float', 1)
YA = ('YA float', 2)
kinds = [('mask', k_mask, Y), ('channel', k_channel, Y), ('selection', k_selection, Y),
         ('off-canvas', k_offcanvas, RGBA), ('offset', k_offset, RGBA),
         ('larger than the canvas', k_beyond, RGBA),
         ('empty selection', k_empty_selection, RGBA), ('floating', k_floating, RGBA),
         ('alpha locked', k_alpha_locked, RGBA)]
if P['fonts']:
    Gimp.fonts_refresh()
    for i in range(100):
        if Gimp.fonts_get_list(''):
            break
        time.sleep(0.1)
    R['fonts'] = len(Gimp.fonts_get_list(''))
    if R['fonts']:
        kinds.append(('text', k_text, RGBA))
R['kinds'] = [k[0] for k in kinds]
for name, make, (fmt, nch) in kinds:
    try:
        res = blur_three(make, fmt, nch)
    except Exception as e:
        R[name] = repr(e)
        continue
    save(name + '-before', res.pop('before'))
    for path in res:
        save(name + '-' + path, res[path].pop('after'))
    R[name] = res

# The other filters on some of them, through the procedures.
R['more'] = {}
for name, make, (fmt, nch) in kinds:
    if name not in P['more_kinds']:
        continue
    for fname, props in P['filters'][1:]:
        key = 'more-%s-%s' % (name.replace(' ', '-'), fname)
        img, d = make()
        save(key + '-in', pixels(d, fmt, nch, np.float32))
        R['more'][key] = list(call('plug-in-gpu-' + fname, img, [d],
                                   **{k.replace('-', '_'): v for k, v in props.items()}))
        save(key, pixels(d, fmt, nch, np.float32))
        img.delete()

# A selection that misses the layer.
R['miss'] = {}
for path in ('proc', 'op', 'gimp'):
    img, drw = coffee(None)
    small = Gimp.Layer.new_from_drawable(drw, img); img.insert_layer(small, None, 0)
    small.resize(60, 40, -200, -150); small.set_offsets(10, 10)
    img.select_rectangle(Gimp.ChannelOps.REPLACE, 300, 200, 50, 50)
    watch = Watch(img)
    st, msg = blur_by(path, img, small)
    R['miss'][path] = [st, msg, watch.changes()]
    save('miss-' + path, pixels(small, 'RGB float', 3, np.float32))
    img.delete()

# Indexed: GIMP's filters run on it (Filters > Blur is open to indexed
# images in GIMP 3.0) and GIMP maps the result back to the palette.
R['indexed'] = {}
for path in ('proc', 'op', 'gimp'):
    img, drw = coffee(None)
    img.convert_indexed(Gimp.ConvertDitherType.NONE, Gimp.ConvertPaletteType.GENERATE,
                        32, False, False, '')
    before = pixels(drw, "R'G'B' u8", 3, np.uint8)
    st, msg = blur_by(path, img, drw)
    R['indexed'][path] = [st, msg, bool(img.get_base_type() == Gimp.ImageBaseType.INDEXED)]
    save('indexed-before', before)
    save('indexed-' + path, pixels(drw, "R'G'B' u8", 3, np.uint8))
    img.delete()

# A layer group: kept as a layer effect (non-destructive) it is allowed,
# as GIMP's own Gaussian blur is on a group.
img, drw = coffee()
g = Gimp.GroupLayer.new(img, 'group'); img.insert_layer(g, None, 0)
img.reorder_item(drw, g, 0)
st, msg = call('plug-in-gpu-gaussian-blur', img, [g], non_destructive=True)
R['group'] = [st, msg, [f.get_operation_name() for f in g.get_filters()]]
img.delete()
'''
    more_kinds = ['mask', 'offset', 'larger than the canvas', 'floating']
    params = {'coffee': COFFEE, 'fonts': bool(font_dirs), 'filters': FILTERS,
              'more_kinds': more_kinds}
    log, secs = gh.run_gimp(w, 'python', body, params, timeout=300,
                            env={'FONTCONFIG_FILE': conf})
    print('GIMP run: %.1f s' % secs)
    r = gh.result(w)
    check(bool(font_dirs) and r.get('fonts', 0) > 0,
          'fonts for the text layer (%s: %d)' % (font_dirs, r.get('fonts', 0)))
    alpha_of = {4: 3, 2: 1, 1: None}
    for name in r['kinds']:
        res = r[name]
        if isinstance(res, str):
            check(False, '%s: the case ran (%s)' % (name, res))
            continue
        src = load_npy(w, name + '-before')
        alpha = alpha_of[src.shape[2]]
        ref = rf.gaussian(rf.premultiply(src, alpha), 3.0, 3.0)
        for path in ('proc', 'op', 'gimp'):
            st = res[path]['status']
            check(st == 'success', '%s, %s: success (%s %s)'
                  % (name, path, st, res[path]['msg']))
            check(res[path]['filters'] == 0, '%s, %s: no filter left' % (name, path))
        got = {p: rf.premultiply(load_npy(w, '%s-%s' % (name, p)), alpha)
               for p in ('proc', 'op', 'gimp')}
        if name == 'empty selection':
            note('empty selection: GIMP treats a selection with nothing in '
                 'it as no selection, so the whole layer is blurred')
        d_proc = np.abs(got['proc'] - ref).max()
        d_op = np.abs(got['op'] - ref).max()
        d_gimp = np.abs(got['gimp'] - ref).max()
        d_ours_gimp = np.abs(got['proc'] - got['gimp']).max()
        print('%-24s %s: vs the whole-drawable reference: procedure %.2e, '
              'operation %.2e, GIMP\'s FIR %.2e; procedure vs GIMP %.2e'
              % (name, 'x'.join(map(str, src.shape)), d_proc, d_op, d_gimp,
                 d_ours_gimp))
        check(np.array_equal(got['proc'], got['op']),
              '%s: the procedure and the operation agree exactly' % name)
        check(d_ours_gimp <= 2e-3, '%s: as GIMP\'s own blur (FIR, within 2e-3)'
              % name)
        if name in ('selection', 'alpha locked'):
            # The selection filtered is also the selection that limits the
            # filter, or GIMP keeps the alpha as it was: GIMP blends the
            # result, so only GIMP can say.
            check(d_proc > 0.1, '%s: the whole-drawable rule would differ '
                  '(%.2f): GIMP\'s rule decides here' % (name, d_proc))
            if name == 'alpha locked':
                check(np.array_equal(got['proc'][..., 3], src[..., 3]),
                      'alpha locked: the alpha is kept')
            continue
        check(d_proc <= FLOAT_TOL, '%s: the procedure blurs the whole drawable, '
              'borders at its own edges (GIMP\'s rule, as the FIR shows)' % name)
        if name == 'text':
            check(res['proc']['text'] == res['gimp']['text'],
                  'text: merged, a text layer afterwards exactly when GIMP\'s '
                  'own filter leaves one (3.0: a pixel layer, 3.2: a text '
                  'layer; proc %s, GIMP %s)'
                  % (res['proc']['text'], res['gimp']['text']))

    for name in more_kinds:
        for fname, props in FILTERS[1:]:
            key = 'more-%s-%s' % (name.replace(' ', '-'), fname)
            st, msg = r['more'][key]
            if not check(st == 'success', '%s: success (%s %s)' % (key, st, msg)):
                continue
            src = load_npy(w, key + '-in')
            ok, d = compare(fname, props, src, load_npy(w, key),
                            {4: 3, 2: 1}.get(src.shape[2]), FLOAT_TOL)
            print('%-40s max |diff| %.2e' % (key, d))
            check(ok, '%s: the whole-drawable reference' % key)

    for path, (st, msg, (changed, filters)) in r['miss'].items():
        print('selection missing the layer, %-4s: %s %s changed %s filters %d'
              % (path, st, msg, changed, filters))
        check(st == 'success' and filters == 0,
              'selection missing the layer, %s: success, no filter left' % path)
    st, msg, (changed, filters) = r['miss']['proc']
    check(msg == 'none' and not changed, 'selection missing the layer: the '
          'procedure changes nothing and returns backend "none"')
    # Through a DrawableFilter GIMP 3.0 itself decides, for its own
    # filters and ours alike: the operation must do what gegl's does.
    d = np.abs(load_npy(w, 'miss-op') - load_npy(w, 'miss-gimp')).max()
    note('selection missing the layer: merge_filter changed the layer for '
         'GIMP\'s own blur: %s; for the operation: %s (max difference %.2e)'
         % (bool(r['miss']['gimp'][2][0]), bool(r['miss']['op'][2][0]), d))
    check(d <= 2e-3 and bool(r['miss']['gimp'][2][0]) == bool(r['miss']['op'][2][0]),
          'selection missing the layer: the operation does what GIMP\'s own does')

    before = load_npy(w, 'indexed-before')
    gimp = load_npy(w, 'indexed-gimp')
    palette = set(map(tuple, gimp.reshape(-1, 3).astype(int)))
    for path in ('proc', 'op'):
        st, msg, still = r['indexed'][path]
        got = load_npy(w, 'indexed-' + path)
        same = (got == gimp).all(axis=2).mean()
        colours = set(map(tuple, got.reshape(-1, 3).astype(int)))
        print('indexed, %s: %s; %.2f %% of pixels the same colour as GIMP\'s '
              'own blur; %d colours, changed %.1f %%'
              % (path, st, 100 * same, len(colours),
                 100 * (got != before).any(axis=2).mean()))
        check(st == 'success' and still, 'indexed, %s: success, still indexed' % path)
        check(same >= 0.98, 'indexed, %s: as GIMP\'s own blur on an indexed '
              'image (>= 98 %% same palette entry)' % path)
        check(colours <= palette | set(map(tuple, before.reshape(-1, 3).astype(int))),
              'indexed, %s: only palette colours' % path)

    st, msg, ops = r['group']
    print('group, non-destructive: %s %s %s' % (st, msg, ops))
    check(st == 'success' and ops == ['gpufx:gaussian-blur'],
          'a layer group, non-destructive: the filter is kept on the group')


# ---------------------------------------------------------------- precision

def crop_rgba():
    """96 x 64 of coffee.png with a ramped alpha and a transparent hole,
    as linear float."""
    rgb = rf.srgb_to_linear(np.asarray(Image.open(COFFEE).convert('RGB'),
                                       np.float64)[150:214, 250:346] / 255.0)
    h, w = rgb.shape[:2]
    a = np.tile(np.linspace(0.2, 1.0, w), (h, 1))
    a[20:40, 30:50] = 0
    return np.dstack([rgb, a])


PREC_SETS = [
    # name, precision, channels of the input, tolerance
    ('1x1 rgb u8', 'U8_NON_LINEAR', 3, 1.0 / 255),
    ('1x1 rgba float', 'FLOAT_LINEAR', 4, FLOAT_TOL),
    ('1x1 gray u16', 'U16_LINEAR', 1, FLOAT_TOL),
    ('half', 'HALF_LINEAR', 4, FLOAT_TOL + 1e-3),
    ('u16 gamma', 'U16_NON_LINEAR', 4, FLOAT_TOL + 3.0 / 65535),
    ('u32', 'U32_LINEAR', 4, FLOAT_TOL),
    ('double', 'DOUBLE_LINEAR', 4, FLOAT_TOL),
    ('float gamma', 'FLOAT_NON_LINEAR', 3, FLOAT_TOL),
    # 8-bit straight colour and alpha are each rounded: in premultiplied
    # terms, up to a level.
    ('gray alpha u8', 'U8_LINEAR', 2, FLOAT_TOL + 1.0 / 255),
    ('gray alpha float', 'FLOAT_LINEAR', 2, FLOAT_TOL),
]
FILTERS = [('gaussian-blur', {'std-dev-x': 2.5, 'std-dev-y': 1.5}),
           ('convolve', {'matrix': MATRIX_5X3, 'normalize': True}),
           ('sobel', {'horizontal': True, 'vertical': False, 'keep-sign': True}),
           ('kuwahara', {'radius': 3})]


def prec_input(name, nch):
    src = crop_rgba()
    if name.startswith('1x1'):
        src = src[10:11, 10:11]
    if nch <= 2:
        gray = src[..., :3] @ np.array([0.2126, 0.7152, 0.0722])
        src = np.dstack([gray, src[..., 3]])
    keep = {1: [0], 2: [0, 1], 3: [0, 1, 2], 4: [0, 1, 2, 3]}[nch]
    return np.ascontiguousarray(src[..., keep])


def test_precision():
    """Every procedure, and every operation, on 1 x 1 images and on
    16-bit, half, 32-bit integer, double and gray-with-alpha images made
    here: results within the storage's precision of the references,
    computed from what GIMP stored."""
    w = gh.temp_workdir('hostile-precision')
    sets = []
    for name, prec, nch, tol in PREC_SETS:
        arr = prec_input(name, nch)
        key = name.replace(' ', '-')
        np.save(os.path.join(w, key + '-src.npy'), arr)
        sets.append([key, prec, nch])
    body = GIMP_HELPERS + r'''
FMT = {1: 'Y float', 2: 'YA float', 3: 'RGB float', 4: 'RGBA float'}
for key, prec, nch in P['sets']:
    arr = np.load(os.path.join(W, key + '-src.npy'))
    base = Gimp.ImageBaseType.GRAY if nch <= 2 else Gimp.ImageBaseType.RGB
    for name, props in P['filters']:
        for path in ('proc', 'op'):
            img, layer = image_from(arr, base, prec, FMT[nch])
            save('%s-%s-%s-in' % (key, name, path), pixels(layer, FMT[nch], nch, np.float32))
            if path == 'proc':
                st, msg = call('plug-in-gpu-' + name, img, [layer],
                               **{k.replace('-', '_'): v for k, v in props.items()})
            else:
                st, msg = merge_op(layer, 'gpufx:' + name,
                                   **{k.replace('-', '_'): v for k, v in props.items()}), ''
            R['%s-%s-%s' % (key, name, path)] = [st, msg, str(img.get_precision().value_nick),
                                                 len(layer.get_filters())]
            save('%s-%s-%s' % (key, name, path), pixels(layer, FMT[nch], nch, np.float32))
            img.delete()
'''
    gh.run_gimp(w, 'python', body, {'sets': sets, 'filters': FILTERS},
                timeout=300)
    r = gh.result(w)
    for (name, prec, nch, tol), (key, _, _) in zip(PREC_SETS, sets):
        alpha = {2: 1, 4: 3}.get(nch)
        for fname, props in FILTERS:
            for path in ('proc', 'op'):
                k = '%s-%s-%s' % (key, fname, path)
                st, msg, got_prec, left = r[k]
                if not check(st == 'success', '%s: success (%s %s)' % (k, st, msg)):
                    continue
                check(left == 0, '%s: no filter left' % k)
                check(got_prec.replace('-', '_').upper() == prec,
                      '%s: precision kept (%s)' % (k, got_prec))
                src = load_npy(w, k + '-in')
                got = load_npy(w, k)
                ok, d = compare(fname, props, src, got, alpha, tol)
                print('%-40s max |diff| %.2e (tolerance %.1e)' % (k, d, tol))
                check(ok, '%s: matches the reference' % k)


def compare(fname, props, src, got, alpha, tol):
    """(ok, max difference) of one result against its reference, in the
    filter's own colour (premultiplied but for Sobel)."""
    if fname == 'sobel':
        ref = rf.sobel(src, props['horizontal'], props['vertical'],
                       props['keep-sign'], alpha=alpha)
        d = np.abs(got - ref)
        return bool(d.max() <= tol), float(d.max())
    pre = rf.premultiply(src, alpha)
    got_pre = rf.premultiply(got, alpha)
    if fname == 'kuwahara':
        ok, stats = rf.kuwahara_compare(got_pre, pre, props['radius'],
                                        alpha=alpha, tol=tol)
        return ok, stats['max']
    if fname == 'gaussian-blur':
        ref = rf.gaussian(pre, props['std-dev-x'], props['std-dev-y'])
    else:
        ref = rf.convolve(pre, rf.parse_matrix(props['matrix']),
                          normalize=props['normalize'], alpha=alpha)
    d = np.abs(got_pre - ref)
    return bool(d.max() <= tol), float(d.max())


# Memory that runs short (GPUFX_MEMORY_LIMIT caps the engine's large
# buffers in GIMP's process): first a cap that the whole image's buffers
# pass but its halves do not, then one that only small buffers pass.
MEMORY_RUNS = [
    ('4M', [('gauss-60', 'gaussian-blur',
             {'std-dev-x': 60.0, 'std-dev-y': 60.0}, 'filtered')]),
    ('1M', [('gauss-100', 'gaussian-blur',
             {'std-dev-x': 100.0, 'std-dev-y': 100.0}, 'refused'),
            ('sobel', 'sobel',
             {'horizontal': True, 'vertical': True, 'keep-sign': False},
             'filtered')]),
]


def test_memory():
    """The procedures when the engine's buffers cannot be had: an image
    whose whole-image buffers do not fit is filtered in pieces, exactly;
    one that no piece fits gives a PDB error naming memory and is left
    unchanged (no half-filtered image, no filter left)."""
    w = gh.temp_workdir('hostile-memory')
    rng = np.random.default_rng(11)
    # 600 x 400 RGB float: 2.9 MB a buffer; smooth enough to see a blur.
    arr = rng.random((40, 60, 3)).repeat(10, 0).repeat(10, 1)
    arr = (arr + rng.random(arr.shape) * 0.2).astype(np.float32)
    np.save(os.path.join(w, 'src.npy'), arr)
    body = GIMP_HELPERS + r"""
arr = np.load(os.path.join(W, 'src.npy'))
for key, name, props, want in P['cases']:
    img, layer = image_from(arr, Gimp.ImageBaseType.RGB, 'FLOAT_LINEAR', 'RGB float')
    save(key + '-in', pixels(layer, 'RGB float', 3, np.float32))
    watch = Watch(img)
    st, msg = call('plug-in-gpu-' + name, img, [layer],
                   **{k.replace('-', '_'): v for k, v in props.items()})
    changed, filters = watch.changes()
    R[key] = [st, msg, changed, filters]
    save(key, pixels(layer, 'RGB float', 3, np.float32))
    img.delete()
"""
    for limit, cases in MEMORY_RUNS:
        gh.run_gimp(w, 'python', body, {'cases': cases}, timeout=300,
                    env={'GPUFX_MEMORY_LIMIT': limit})
        r = gh.result(w)
        for key, name, props, want in cases:
            st, msg, changed, filters = r[key]
            label = '%s under GPUFX_MEMORY_LIMIT=%s' % (key, limit)
            print('%-40s %-16s %s' % (label, st, msg[:150]))
            check(filters == 0, '%s: no filter left (%d)' % (label, filters))
            if want == 'refused':
                check_refused({'label': label, 'status': st, 'msg': msg,
                               'changed': changed, 'filters': filters},
                              ['memory'], ('execution-error',))
                continue
            if not check(st == 'success', '%s: success (%s %s)'
                         % (label, st, msg)):
                continue
            check(msg == 'cpu', '%s: the backend that ran is returned (%s)'
                  % (label, msg))
            ok, d = compare(name, props, load_npy(w, key + '-in'),
                            load_npy(w, key), None, FLOAT_TOL)
            print('%-40s max |diff| %.2e (tolerance %.1e)' % (label, d, FLOAT_TOL))
            check(ok, '%s: matches the reference' % label)


TESTS = {
    'hostile-args': test_args,
    'hostile-op': test_op,
    'hostile-drawables': test_drawables,
    'hostile-precision': test_precision,
    'hostile-memory': test_memory,
}


if __name__ == '__main__':
    sys.exit(gh.main(TESTS, need_module=True))
