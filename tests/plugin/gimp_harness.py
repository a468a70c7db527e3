# gimp-gpu-filters: run GIMP 3 headless against the plug-in in the build.
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Every run gets a fresh profile (GIMP3_DIRECTORY in a temporary folder)
# whose gimprc adds the build's plug-in folder to GIMP's own plug-in path,
# so nothing the user has installed is seen or touched.

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
'''

PYTHON_EPILOGUE = r'''
json.dump(R, open(os.path.join(W, 'result.json'), 'w'), default=str)
print('%s', flush=True)
''' % DONE


class GimpRunError(Exception):
    pass


def gimp_console():
    exe = os.environ.get('GIMP_CONSOLE') or shutil.which('gimp-console-3.0')
    if not exe:
        raise GimpRunError('gimp-console-3.0 not found')
    return exe


def make_profile(workdir):
    plugin_path = os.environ['GPU_FILTERS_PLUGIN_PATH']
    profile = os.path.join(workdir, 'profile')
    os.makedirs(profile, exist_ok=True)
    with open(os.path.join(profile, 'gimprc'), 'w') as f:
        f.write('(plug-in-path "${gimp_dir}/plug-ins:${gimp_plug_in_dir}/plug-ins:%s")\n'
                % plugin_path)
    return profile


def run_gimp(workdir, interpreter, batch, params=None, timeout=120, env=None):
    """Runs one GIMP batch; returns (output, seconds).  Raises GimpRunError
    with GIMP's output when it fails, hangs or never reaches the end."""
    profile = make_profile(workdir)
    params = dict(params or {}, workdir=workdir)
    params_file = os.path.join(workdir, 'params.json')
    with open(params_file, 'w') as f:
        json.dump(params, f)
    e = dict(os.environ, GIMP3_DIRECTORY=profile, GPUFX_TEST_PARAMS=params_file,
             LANG='C.UTF-8', NO_AT_BRIDGE='1')
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
