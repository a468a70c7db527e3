#!/usr/bin/env python3
# gimp-gpu-filters: run the README's scripting examples in a headless GIMP 3.
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Every indented code block that follows a line `<!-- readme-example: KIND -->`
# (KIND script-fu or python-fu) in README.md is run as it stands, with
# "photo.png" and "blurred.png" replaced by real paths; a Python-Fu block
# gets `image` and `layer` from the photo.  Each must succeed and change the
# picture, so the README cannot drift from what works.

import os
import re
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gimp_harness as gh  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DATA = os.environ.get('GPU_FILTERS_TEST_DATA', os.path.join(TOP, 'tests', 'data'))
PHOTO = os.path.abspath(os.path.join(DATA, 'coffee.png'))

PYTHON_RUN = r'''
image, layer = load(%(photo)r)
before = pixels(layer, "R'G'B' u8", 3, np.uint8)
%(code)s
after = pixels(layer, "R'G'B' u8", 3, np.uint8)
R['changed'] = float(np.abs(after.astype(float) - before).mean())
R['filters'] = [f.get_operation_name() for f in layer.get_filters()]
'''


def examples(readme):
    """(kind, code) for each marked block, in order."""
    lines = open(readme, encoding='utf-8').read().splitlines()
    found = []
    for i, line in enumerate(lines):
        m = re.match(r'<!-- readme-example: ([a-z-]+) -->', line.strip())
        if not m:
            continue
        block = []
        for nxt in lines[i + 1:]:
            if nxt.startswith('    ') or (nxt == '' and block == []):
                block.append(nxt[4:])
            else:
                break
        found.append((m.group(1), '\n'.join(block).strip('\n')))
    return found


def run_one(n, kind, code):
    w = gh.temp_workdir('readme-%d' % n)
    out = os.path.join(w, 'blurred.png')
    if kind == 'script-fu':
        batch = code.replace('"photo.png"', '"%s"' % PHOTO) \
                    .replace('"blurred.png"', '"%s"' % out)
        gh.run_gimp(w, 'scheme', batch)
        got = np.asarray(Image.open(out).convert('RGB'), dtype=float)
        ref = np.asarray(Image.open(PHOTO).convert('RGB'), dtype=float)
        changed = float(np.abs(got - ref).mean())
        detail = 'wrote %s' % os.path.basename(out)
    elif kind == 'python-fu':
        gh.run_gimp(w, 'python', PYTHON_RUN % {'photo': PHOTO, 'code': code})
        r = gh.result(w)
        changed = r['changed']
        detail = 'non-destructive filters left: %s' % (r['filters'] or 'none')
    else:
        raise SystemExit('README example %d: unknown kind %r' % (n, kind))
    ok = changed > 0.5
    print('%s README example %d (%s): mean change %.2f levels; %s'
          % ('ok    ' if ok else 'FAILED', n, kind, changed, detail), flush=True)
    return ok


def main():
    found = examples(os.path.join(TOP, 'README.md'))
    if len(found) < 4:
        print('FAILED: expected at least 4 marked examples in README.md, found %d'
              % len(found))
        return 1
    failed = 0
    for n, (kind, code) in enumerate(found, 1):
        try:
            failed += not run_one(n, kind, code)
        except gh.GimpRunError as e:
            print('FAILED README example %d (%s):\n%s' % (n, kind, e))
            failed += 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
