# gimp-gpu-filters: the main job's GIMP side (run by build-aux/demo.sh in
# gimp-console-3.0 through python-fu-eval).  Every filter runs on the photo
# twice: as its GEGL operation applied with Gimp.DrawableFilter (what the
# Filters > GPU menu does) and through its PDB procedure plug-in-gpu-*
# (what scripts call).  Each result is exported as a PNG; GIMP's own
# Gaussian blur is timed beside.
import os
import time

import gi
gi.require_version('Gimp', '3.0')
from gi.repository import Gimp, Gio

SRC = os.environ['GPUFX_DEMO_IN']
OUT = os.environ['GPUFX_DEMO_OUT']
FILTERS = ('gaussian-blur', 'convolve', 'sobel', 'kuwahara')
SETTINGS = {'gaussian-blur': {'std-dev-x': 5.0, 'std-dev-y': 5.0},
            'convolve': {'matrix': '0,-1,0;-1,5,-1;0,-1,0'}}  # sharpen


def say(text):
    print('demo: ' + text, flush=True)


def load():
    img = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path(SRC))
    return img, img.get_layers()[0]


def export(img, name):
    path = os.path.join(OUT, name + '.png')
    Gimp.file_save(Gimp.RunMode.NONINTERACTIVE, img, Gio.File.new_for_path(path), None)
    return path


def through_operation(name):
    img, drw = load()
    f = Gimp.DrawableFilter.new(drw, 'gpufx:' + name, None)
    if f is None:
        say('%-14s operation gpufx:%s is not installed' % (name, name))
        return
    cfg = f.get_config()
    for k, v in SETTINGS.get(name, {}).items():
        cfg.set_property(k, v)
    t = time.monotonic()
    f.update()
    drw.merge_filter(f)
    ms = (time.monotonic() - t) * 1000
    say('%-14s %-10s %-8s %7.0f ms  %s'
        % (name, 'operation', 'auto', ms, export(img, name + '-op')))
    img.delete()


def through_pdb(name):
    proc = pdb.lookup_procedure('plug-in-gpu-' + name)
    if proc is None:
        say('%-14s plug-in-gpu-%s is not registered' % (name, name))
        return
    img, drw = load()
    cfg = proc.create_config()
    cfg.set_property('run-mode', Gimp.RunMode.NONINTERACTIVE)
    cfg.set_property('image', img)
    cfg.set_core_object_array('drawables', [drw])
    for k, v in SETTINGS.get(name, {}).items():
        cfg.set_property(k, v)
    t = time.monotonic()
    res = proc.run(cfg)
    ms = (time.monotonic() - t) * 1000
    if res.index(0) == Gimp.PDBStatusType.SUCCESS:
        say('%-14s %-10s %-8s %7.0f ms  %s'
            % (name, 'PDB', res.index(1), ms, export(img, name)))
    else:
        say('%-14s failed: %s'
            % (name, res.index(1) if res.length() > 1 else res.index(0)))
    img.delete()


pdb = Gimp.get_pdb()
img, drw = load()
say('%s: %d x %d' % (os.path.basename(SRC), img.get_width(), img.get_height()))
img.delete()
say('%-14s %-10s %-8s %10s  %s' % ('filter', 'through', 'backend', 'time',
                                   'result (time: the whole call, plug-in start included for the PDB)'))
for name in FILTERS:
    through_operation(name)
    through_pdb(name)

# GIMP's own Gaussian blur, for comparison (the same way as the operations).
img, drw = load()
f = Gimp.DrawableFilter.new(drw, 'gegl:gaussian-blur', None)
c = f.get_config()
c.set_property('std-dev-x', 5.0)
c.set_property('std-dev-y', 5.0)
t = time.monotonic()
f.update()
drw.merge_filter(f)
ms = (time.monotonic() - t) * 1000
say('%-14s %-10s %-8s %7.0f ms  %s' % ('GIMP gaussian', 'operation', 'gegl', ms,
                                       export(img, 'gimp-gaussian-blur')))
img.delete()
say('done')
