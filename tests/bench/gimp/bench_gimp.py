# gimp-gpu-filters: the GIMP benchmark's GIMP side (run by
# build-aux/bench-gimp.sh in gimp-console through python-fu-eval, once).
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# For each photo size (coffee.png scaled up by GIMP) and precision (8-bit
# sRGB, 32-bit float linear), and each filter, it times on a fresh duplicate
# of the image:
#   (a) our operation: Gimp.DrawableFilter.new + config + merge_filter
#   (b) our PDB procedure plug-in-gpu-* (its plug-in process starts for
#       every call: that and the argument round trip are the PDB overhead)
#   (c) GIMP's built-in equivalent, through DrawableFilter + merge_filter
# Each time is the whole call as a script sees it, from creating the filter
# (or calling the procedure) until the merged pixels are in the drawable.
# The small size: 1 warm-up, then the median of 3; the big one: 1 warm-up,
# then the faster of 2 (the machine may be shared: the load average is
# printed at the start and the end).  Prints a Markdown table and writes it to GPUFX_BENCH_OUT.
import os
import platform
import statistics
import time

import gi
gi.require_version('Gimp', '3.0')
gi.require_version('Gegl', '0.4')
from gi.repository import Gegl, Gimp, Gio

SRC = os.environ['GPUFX_BENCH_IN']
OUT = os.environ.get('GPUFX_BENCH_OUT')
COMMIT = os.environ.get('GPUFX_BENCH_COMMIT', 'unknown')
QUICK = os.environ.get('GPUFX_BENCH_QUICK', '0') == '1'

SIZES = [(1920, 1080), (6000, 4000)]
if QUICK:
    SIZES = SIZES[:1]
PRECISIONS = [('8-bit sRGB', 'U8_NON_LINEAR'), ('32-bit float linear', 'FLOAT_LINEAR')]

# A 5 x 5 matrix that is not rank 1 (so that our convolution cannot split it
# into two 1-D passes), with a positive sum: both sides normalise.
MATRIX = [[1, 2, 3, 2, 1],
          [2, 0, 4, 0, 2],
          [3, 4, 8, 4, 3],
          [2, 0, 4, 0, 2],
          [1, 2, 3, 2, 1]]
MATRIX_TEXT = ';'.join(','.join(str(v) for v in row) for row in MATRIX)


def gegl_matrix_props():
    """gegl:convolution-matrix reads property letter i+1, digit j+1 as our
    matrix[j][i] (kernels/gpufx.h)."""
    props = {}
    for j in range(5):
        for i in range(5):
            props['%s%d' % ('abcde'[i], j + 1)] = float(MATRIX[j][i])
    props.update({'normalize': True, 'border': 'extend'})
    return props


# (label, our op / PDB name, our settings, GIMP's op, GIMP's settings)
FILTERS = [
    ('Gaussian σ=2', 'gaussian-blur', {'std-dev-x': 2.0, 'std-dev-y': 2.0},
     'gegl:gaussian-blur', {'std-dev-x': 2.0, 'std-dev-y': 2.0,
                            'abyss-policy': 'clamp', 'clip-extent': True}),
    ('Gaussian σ=20', 'gaussian-blur', {'std-dev-x': 20.0, 'std-dev-y': 20.0},
     'gegl:gaussian-blur', {'std-dev-x': 20.0, 'std-dev-y': 20.0,
                            'abyss-policy': 'clamp', 'clip-extent': True}),
    ('Gaussian σ=100', 'gaussian-blur',
     {'std-dev-x': 100.0, 'std-dev-y': 100.0},
     'gegl:gaussian-blur', {'std-dev-x': 100.0, 'std-dev-y': 100.0,
                            'abyss-policy': 'clamp', 'clip-extent': True}),
    ('Sobel', 'sobel', {'horizontal': True, 'vertical': True, 'keep-sign': False},
     'gegl:edge-sobel', {'horizontal': True, 'vertical': True, 'keep-sign': False}),
    ('Convolve 5×5', 'convolve', {'matrix': MATRIX_TEXT, 'normalize': True},
     'gegl:convolution-matrix', gegl_matrix_props()),
]


def say(text):
    print('bench: ' + text, flush=True)


def new_filter(drw, op, props):
    f = Gimp.DrawableFilter.new(drw, op, None)
    c = f.get_config()
    for k, v in props.items():
        if c.find_property(k) is None:
            raise RuntimeError('%s has no property %s' % (op, k))
        c.set_property(k, v)
    f.update()
    return f


def time_op(drw, op, props):
    t = time.perf_counter()
    drw.merge_filter(new_filter(drw, op, props))
    return time.perf_counter() - t


def time_pdb(img, drw, name, props):
    proc = Gimp.get_pdb().lookup_procedure('plug-in-gpu-' + name)
    if proc is None:
        raise RuntimeError('plug-in-gpu-%s is not registered' % name)
    cfg = proc.create_config()
    cfg.set_property('run-mode', Gimp.RunMode.NONINTERACTIVE)
    cfg.set_property('image', img)
    cfg.set_core_object_array('drawables', [drw])
    for k, v in props.items():
        cfg.set_property(k, v)
    t = time.perf_counter()
    res = proc.run(cfg)
    dt = time.perf_counter() - t
    if res.index(0) != Gimp.PDBStatusType.SUCCESS:
        raise RuntimeError('plug-in-gpu-%s: %s' % (name, [res.index(i) for i in range(1, res.length())]))
    time_pdb.backend = res.index(1)
    return dt


time_pdb.backend = '?'


def once(base, how):
    """Seconds for one run of a method on a fresh duplicate of base."""
    img = base.duplicate()
    drw = img.get_layers()[0]
    try:
        return how(img, drw)
    finally:
        img.delete()


def measure(base, methods, runs, warmup):
    """{key: seconds} for each method: the median of `runs' (the minimum
    when runs == 2) after `warmup' unmeasured rounds.  The methods take turns
    round by round, so that a change in the machine's load (it may be
    shared) falls on all of them alike.  A method that fails gets None and
    its error."""
    times = {k: [] for k, _ in methods}
    errors = {}
    for r in range(warmup + runs):
        for key, how in methods:
            if key in errors:
                continue
            try:
                dt = once(base, how)
            except Exception as e:  # reported in the table, not fatal
                errors[key] = str(e)
                continue
            if r >= warmup:
                times[key].append(dt)
    res = {}
    for key, t in times.items():
        if key in errors or not t:
            res[key] = None
        else:
            res[key] = min(t) if runs == 2 else statistics.median(t)
    return res, errors


def cpu_model():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or 'unknown'


def fmt_ms(s):
    return '—' if s is None else ('%.0f' % (s * 1000) if s >= 0.0995 else '%.1f' % (s * 1000))


def ratio(a, b):
    return '—' if a is None or b is None or b <= 0 else '%.2f×' % (a / b)


lines = []


def out(text=''):
    lines.append(text)
    print(text, flush=True)


say('start')
t_start = time.perf_counter()
out('# GIMP benchmark: gpufx operations vs PDB procedures vs GIMP built-ins')
out()
out('- commit: `%s`' % COMMIT)
out('- CPU: %s, %d cores (os.cpu_count); load average at start: %s'
    % (cpu_model(), os.cpu_count(), ' '.join('%.2f' % v for v in os.getloadavg())))
out('- GIMP %s, GEGL %s, Python %s' % (Gimp.version(), '.'.join(str(v) for v in Gegl.get_version()),
                                        platform.python_version()))
out('- each time: the whole call as a script sees it, until the merged pixels are in '
    'the layer, on a fresh duplicate of the image; (a), (b), (c) take turns round by round; '
    'small size: 1 warm-up round + median of 3, '
    'big size: 1 warm-up round + the faster of 2')
out('- (a) op: `Gimp.DrawableFilter` with gpufx:NAME + `merge_filter`; (b) PDB: '
    '`plug-in-gpu-NAME` (non-destructive FALSE); (c) GIMP: its own operation the same '
    'way as (a): gegl:gaussian-blur (default IIR/auto filter, clamp), gegl:edge-sobel, '
    'gegl:convolution-matrix (5×5, extend border); convolve 5×5 matrix `%s`' % MATRIX_TEXT)
out('- PDB overhead = (b) − (a): the plug-in process start and the PDB round trip')
out()

src = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path(SRC))
for (w, h) in SIZES:
    small = w * h < 4e6
    runs, warmup = (3, 1) if small else (2, 1)
    for plabel, prec in PRECISIONS:
        base = src.duplicate()
        base.scale(w, h)
        base.convert_precision(getattr(Gimp.Precision, prec))
        out('## %d × %d, %s' % (w, h, plabel))
        out()
        out('| filter | (a) op ms | (b) PDB ms | PDB overhead ms | (c) GIMP built-in ms '
            '| built-in / op | built-in / PDB | PDB backend |')
        out('|---|---:|---:|---:|---:|---:|---:|---|')
        for label, name, ours, gop, gprops in FILTERS:
            res, errors = measure(base, (
                ('op', lambda i, d: time_op(d, 'gpufx:' + name, ours)),
                ('pdb', lambda i, d: time_pdb(i, d, name, ours)),
                ('gimp', lambda i, d: time_op(d, gop, gprops))), runs, warmup)
            over = (res['pdb'] - res['op']) if res['op'] is not None and res['pdb'] is not None else None
            out('| %s | %s | %s | %s | %s | %s | %s | %s |'
                % (label, fmt_ms(res['op']), fmt_ms(res['pdb']),
                   '—' if over is None else '%.0f' % (over * 1000),
                   fmt_ms(res['gimp']), ratio(res['gimp'], res['op']),
                   ratio(res['gimp'], res['pdb']), time_pdb.backend))
            for key, e in errors.items():
                say('error: %s %s: %s' % (label, key, e))
        out()
        base.delete()
src.delete()
out('- load average at the end: %s; benchmark session %.0f s'
    % (' '.join('%.2f' % v for v in os.getloadavg()), time.perf_counter() - t_start))
if OUT:
    with open(OUT, 'w') as f:
        f.write('\n'.join(lines) + '\n')
say('done')
