# gimp-gpu-filters: run GIMP 3 headless against the plug-in in the build.
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Every run gets a fresh profile (GIMP3_DIRECTORY in a temporary folder)
# whose gimprc adds the build's plug-in folder to GIMP's own plug-in path,
# and a fresh XDG_DATA_HOME whose gegl-0.4/plug-ins/ holds a link to the
# build's GEGL module (GPU_FILTERS_GEGL_MODULE), where GEGL inside GIMP
# looks for user modules; so nothing the user has installed is seen or
# touched.

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DONE = 'GPUFX-TEST-DONE'

# The GIMP side of every Python-Fu test: helpers, then the test's body.
PYTHON_PRELUDE = r'''
import json, os, sys, time
import gi
gi.require_version('Gimp', '3.0')
gi.require_version('Gegl', '0.4')
from gi.repository import Gimp, Gio, Gegl
import numpy as np

P = json.load(open(os.environ['GPUFX_TEST_PARAMS']))
W = P['workdir']
R = {}

def load(path):
    img = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path(path))
    return img, img.get_layers()[0]

def pixels(drw, fmt, nch, dtype):
    buf = drw.get_buffer()
    r = buf.get_extent()
    data = buf.get(r, 1.0, fmt, Gegl.AbyssPolicy.NONE)
    return np.frombuffer(bytes(data), dtype).reshape(r.height, r.width, nch).copy()

def run(name, img, drws, **kw):
    proc = Gimp.get_pdb().lookup_procedure(name)
    if proc is None:
        raise RuntimeError('procedure %s is not registered' % name)
    cfg = proc.create_config()
    cfg.set_property('run-mode', Gimp.RunMode.NONINTERACTIVE)
    cfg.set_property('image', img)
    cfg.set_core_object_array('drawables', drws)
    for k, v in kw.items():
        cfg.set_property(k.replace('_', '-'), v)
    t = time.monotonic()
    res = proc.run(cfg)
    ms = (time.monotonic() - t) * 1000
    out = [res.index(i) for i in range(1, res.length())]
    return res.index(0), out, ms

def save(name, arr):
    np.save(os.path.join(W, name + '.npy'), arr)

def new_filter(drw, op, **props):
    """A GimpDrawableFilter running the GEGL operation op, its config set
    (names with '_' for '-'), not yet appended nor merged."""
    f = Gimp.DrawableFilter.new(drw, op, None)
    if f is None:
        raise RuntimeError('GIMP made no filter for %s' % op)
    c = f.get_config()
    for k, v in props.items():
        k = k.replace('_', '-')
        pspec = c.find_property(k)
        if pspec is None:
            raise RuntimeError('the config of %s has no property %r (it has %s)'
                               % (op, k, [p.name for p in c.list_properties()]))
        c.set_property(k, v)
    f.update()
    return f

def filter_props(f):
    """A filter's operation properties as plain values."""
    c = f.get_config()
    out = {}
    for p in c.list_properties():
        v = c.get_property(p.name)
        out[p.name] = v if isinstance(v, (bool, int, float, str)) or v is None else str(v)
    return out

def filters_of(drw):
    return [{'name': f.get_name(), 'op': f.get_operation_name(),
             'visible': f.get_visible(), 'props': filter_props(f)}
            for f in drw.get_filters()]
'''

PYTHON_EPILOGUE = r'''
json.dump(R, open(os.path.join(W, 'result.json'), 'w'), default=str)
print('%s', flush=True)
''' % DONE


class GimpRunError(Exception):
    pass


# GIMP's console binary carries its version in its name, or not at all.
GIMP_CONSOLE_NAMES = ('gimp-console-3.0', 'gimp-console-3.2', 'gimp-console-3',
                      'gimp-console')


def gimp_console():
    exe = os.environ.get('GIMP_CONSOLE')
    if not exe:
        for name in GIMP_CONSOLE_NAMES:
            exe = shutil.which(name)
            if exe:
                break
    if not exe:
        raise GimpRunError('no GIMP console found (looked for %s in PATH and '
                           'the GIMP_CONSOLE variable)'
                           % ', '.join(GIMP_CONSOLE_NAMES))
    return exe


def gegl_module():
    """The build's GEGL module (gpufx-ops.so), or None when the build has
    none.  A path that names no file is an error, not a silent skip."""
    path = os.environ.get('GPU_FILTERS_GEGL_MODULE')
    if not path:
        return None
    if not os.path.isfile(path):
        raise GimpRunError('GPU_FILTERS_GEGL_MODULE names %s, which does not '
                           'exist: build first' % path)
    return os.path.abspath(path)


def make_data_home(workdir, with_module=True):
    """A fresh XDG_DATA_HOME; with the build's GEGL module linked in unless
    with_module is false (to see what GIMP does without it)."""
    xdg = os.path.join(workdir, 'xdg')
    shutil.rmtree(xdg, ignore_errors=True)
    plug_ins = os.path.join(xdg, 'gegl-0.4', 'plug-ins')
    os.makedirs(plug_ins)
    module = gegl_module() if with_module else None
    if module:
        os.symlink(module, os.path.join(plug_ins, 'gpufx-ops.so'))
    return xdg


def make_profile(workdir):
    plugin_path = os.environ['GPU_FILTERS_PLUGIN_PATH']
    profile = os.path.join(workdir, 'profile')
    os.makedirs(profile, exist_ok=True)
    with open(os.path.join(profile, 'gimprc'), 'w') as f:
        f.write('(plug-in-path "${gimp_dir}/plug-ins:${gimp_plug_in_dir}/plug-ins:%s")\n'
                % plugin_path)
    return profile


def run_gimp(workdir, interpreter, batch, params=None, timeout=120, env=None,
             with_module=True):
    """Runs one GIMP batch; returns (output, seconds).  Raises GimpRunError
    with GIMP's output when it fails, hangs or never reaches the end."""
    profile = make_profile(workdir)
    xdg = make_data_home(workdir, with_module)
    params = dict(params or {}, workdir=workdir)
    params_file = os.path.join(workdir, 'params.json')
    with open(params_file, 'w') as f:
        json.dump(params, f)
    # babl's fish cache ($XDG_CACHE_HOME/babl) belongs to the test too: a
    # long-used shared one makes babl_init build its lookup tables (about
    # 350 MB touched, 0.3 s) in every process, and GIMP 3.2 starts babl in
    # each of its ~130 plug-ins when a fresh profile queries them (3.0 does
    # not), which took a GIMP 3.2 start from 18 s to 60 s.
    cache = os.path.join(workdir, 'cache')
    os.makedirs(cache, exist_ok=True)
    e = dict(os.environ, GIMP3_DIRECTORY=profile, GPUFX_TEST_PARAMS=params_file,
             XDG_DATA_HOME=xdg, XDG_CACHE_HOME=cache, LANG='C.UTF-8',
             NO_AT_BRIDGE='1')
    e.pop('DISPLAY', None)
    if env:
        e.update(env)
    if interpreter == 'python':
        script = os.path.join(workdir, 'batch.py')
        with open(script, 'w') as f:
            f.write(PYTHON_PRELUDE + batch + PYTHON_EPILOGUE)
        interp, command = 'python-fu-eval', "exec(open(%r).read())" % script
    else:
        interp, command = 'plug-in-script-fu-eval', batch
    argv = [gimp_console(), '-i', '-n', '-d', '-f',
            '--batch-interpreter=' + interp, '-b', command, '--quit']
    t0 = time.monotonic()
    # A session of its own, so that a timeout ends GIMP's plug-ins too.
    p = subprocess.Popen(argv, env=e, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, errors='replace', start_new_session=True)
    try:
        log, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        log, _ = p.communicate()
        raise GimpRunError('GIMP did not finish in %d s; its output:\n%s'
                           % (timeout, log))
    seconds = time.monotonic() - t0
    if p.returncode != 0 or 'execution error' in log \
       or (interpreter == 'python' and DONE not in log):
        raise GimpRunError('GIMP batch failed (exit %d); its output:\n%s'
                           % (p.returncode, log))
    return log, seconds


def result(workdir):
    with open(os.path.join(workdir, 'result.json')) as f:
        return json.load(f)


def temp_workdir(name):
    base = os.environ.get('GPU_FILTERS_TEST_WORK') or tempfile.gettempdir()
    d = os.path.join(base, 'plugin-work', name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


# ---------------------------------------------------------------- test runs

def check(cond, what):
    """One verdict line; a test fails if any of its checks did."""
    print(('ok     ' if cond else 'FAILED ') + what, flush=True)
    if not cond:
        check.failed = True
    return cond


check.failed = False


def main(tests, need_module=False):
    """Runs the test named on the command line; exit status 0, 1 or 2."""
    if len(sys.argv) != 2 or sys.argv[1] not in tests:
        print('usage: %s {%s}' % (sys.argv[0], ','.join(tests)))
        return 2
    try:
        if need_module and gegl_module() is None:
            print('FAILED GPU_FILTERS_GEGL_MODULE is not set: this build has no '
                  'GEGL module (operations/), so the gpufx operations cannot be '
                  'tested')
            return 1
        tests[sys.argv[1]]()
    except GimpRunError as e:
        print('FAILED ' + str(e))
        return 1
    return 1 if check.failed else 0
