#!/usr/bin/env python3
# gimp-gpu-filters: tests of gpufx, the command line.
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test_gpufx.py --list | GPUFX CASE
# Standard library only: the files are written and read here with struct,
# independently of gpufx's own readers, and the expected pixels come from
# naive float64 references written from the definitions in kernels/gpufx.h.
# Exit status 0 pass, 1 fail, 77 skip.

import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

GPUFX = None
WORK = None
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise AssertionError(what)


# ---------------------------------------------------------------- files

def write_pfm(path, img, big_endian=False):
    """img: rows top to bottom of pixels (tuples of 1 or 3 floats)."""
    h, w, ch = len(img), len(img[0]), len(img[0][0])
    fmt = ('>' if big_endian else '<') + 'f' * (w * ch)
    with open(path, 'wb') as f:
        f.write(b'%s\n%d %d\n%s\n' % (b'PF' if ch == 3 else b'Pf', w, h,
                                      b'1.0' if big_endian else b'-1.0'))
        for row in reversed(img):
            f.write(struct.pack(fmt, *[v for px in row for v in px]))


def read_header_tokens(data, count):
    """Netpbm header tokens (with # comments) and the data offset."""
    toks, i = [], 0
    while len(toks) < count:
        while data[i:i + 1].isspace():
            i += 1
        if data[i:i + 1] == b'#':
            while data[i:i + 1] not in (b'\n', b''):
                i += 1
            continue
        j = i
        while not data[j:j + 1].isspace():
            j += 1
        toks.append(data[i:j].decode())
        i = j
    return toks, i + 1


def read_pfm(path):
    data = open(path, 'rb').read()
    (magic, w, h, scale), off = read_header_tokens(data, 4)
    ch = 3 if magic == 'PF' else 1
    w, h = int(w), int(h)
    endian = '<' if float(scale) < 0 else '>'
    check(len(data) - off == w * h * ch * 4,
          'PFM %s: %d bytes of pixels, expected %d'
          % (path, len(data) - off, w * h * ch * 4))
    vals = struct.unpack(endian + 'f' * (w * h * ch), data[off:])
    rows = []
    for r in range(h):
        flat = vals[r * w * ch:(r + 1) * w * ch]
        rows.append([tuple(flat[x * ch:(x + 1) * ch]) for x in range(w)])
    return rows[::-1]


TUPLTYPES = {1: 'GRAYSCALE', 2: 'GRAYSCALE_ALPHA', 3: 'RGB', 4: 'RGB_ALPHA'}


def pack_samples(img, maxval):
    flat = [v for row in img for px in row for v in px]
    return struct.pack(('>%dH' if maxval > 255 else '>%dB') % len(flat), *flat)


def write_pam(path, img, maxval, tupltype=None):
    h, w, ch = len(img), len(img[0]), len(img[0][0])
    with open(path, 'wb') as f:
        f.write(('P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\n'
                 'ENDHDR\n' % (w, h, ch, maxval, tupltype or TUPLTYPES[ch]))
                .encode())
        f.write(pack_samples(img, maxval))


def write_pnm(path, img, maxval, header_extra=b''):
    h, w, ch = len(img), len(img[0]), len(img[0][0])
    with open(path, 'wb') as f:
        f.write(b'P%d\n%s%d %d\n%d\n' % (5 if ch == 1 else 6, header_extra,
                                         w, h, maxval))
        f.write(pack_samples(img, maxval))


def unpack_samples(data, w, h, ch, maxval):
    n = w * h * ch
    size = 2 if maxval > 255 else 1
    check(len(data) == n * size, 'expected %d bytes of pixels, got %d'
          % (n * size, len(data)))
    flat = struct.unpack(('>%dH' if size == 2 else '>%dB') % n, data)
    return [[tuple(flat[(y * w + x) * ch:(y * w + x + 1) * ch])
             for x in range(w)] for y in range(h)]


def read_pam(path):
    data = open(path, 'rb').read()
    end = data.index(b'ENDHDR\n') + len(b'ENDHDR\n')
    fields = dict(line.split(None, 1) for line in
                  data[:end].decode().splitlines()[1:-1])
    w, h = int(fields['WIDTH']), int(fields['HEIGHT'])
    ch, maxval = int(fields['DEPTH']), int(fields['MAXVAL'])
    check(fields['TUPLTYPE'] == TUPLTYPES[ch], 'TUPLTYPE %s for depth %d'
          % (fields['TUPLTYPE'], ch))
    return unpack_samples(data[end:], w, h, ch, maxval), maxval


def read_pnm(path):
    data = open(path, 'rb').read()
    (magic, w, h, maxval), off = read_header_tokens(data, 4)
    ch = 1 if magic == 'P5' else 3
    check(magic in ('P5', 'P6'), 'magic %s' % magic)
    return unpack_samples(data[off:], int(w), int(h), ch,
                          int(maxval)), int(maxval)


def png_chunk(kind, payload):
    return (struct.pack('>I', len(payload)) + kind + payload
            + struct.pack('>I', zlib.crc32(kind + payload) & 0xffffffff))


def write_png(path, img):
    """8-bit gray, gray+alpha, RGB or RGBA PNG, filter 0."""
    h, w, ch = len(img), len(img[0]), len(img[0][0])
    colour_type = {1: 0, 2: 4, 3: 2, 4: 6}[ch]
    raw = b''.join(b'\0' + bytes(v for px in row for v in px) for row in img)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n')
        f.write(png_chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8,
                                               colour_type, 0, 0, 0)))
        f.write(png_chunk(b'IDAT', zlib.compress(raw)))
        f.write(png_chunk(b'IEND', b''))


# ---------------------------------------------------------------- running

def run(*args):
    p = subprocess.run([GPUFX] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return (p.returncode, p.stdout.decode(errors='backslashreplace'),
            p.stderr.decode(errors='backslashreplace'))


def run_ok(*args):
    rc, out, err = run(*args)
    check(rc == 0, 'gpufx %s: exit %d: %s'
          % (' '.join(map(str, args)), rc, err.strip()))
    return out, err


def leftovers(out_path):
    d = os.path.dirname(out_path) or '.'
    base = os.path.basename(out_path)
    if not os.path.isdir(d):
        return []
    return [n for n in os.listdir(d) if n.startswith('.' + base + '.gpufx-')]


def expect_fail(args, out_path, mention=None):
    """Non-zero exit, one line on stderr starting 'gpufx: ', no output."""
    if out_path and os.path.exists(out_path):
        os.unlink(out_path)
    rc, out, err = run(*args)
    lines = err.splitlines()
    what = 'gpufx %s' % ' '.join(map(str, args))
    check(rc != 0, '%s: exit 0, expected failure' % what)
    check(rc < 128, '%s: crashed (exit %d)' % (what, rc))
    check(len(lines) == 1 and lines[0].startswith('gpufx: '),
          '%s: stderr is not one "gpufx: " line: %r' % (what, err))
    if out_path:
        check(not os.path.exists(out_path), '%s: left %s' % (what, out_path))
        check(not leftovers(out_path), '%s: left temporary files %s'
              % (what, leftovers(out_path)))
    if mention:
        check(mention.lower() in lines[0].lower(),
              '%s: message %r does not mention %r' % (what, lines[0], mention))
    return lines[0]


def p(name):
    return os.path.join(WORK, name)


# ---------------------------------------------------------------- references

def border_index(i, n, border):
    if 0 <= i < n:
        return i
    if border == 'clamp':
        return min(max(i, 0), n - 1)
    if border == 'wrap':
        return i % n
    if border == 'mirror':
        if n == 1:
            return 0
        period = 2 * n - 2
        i %= period
        return period - i if i >= n else i
    return -1  # zero


def sample(img, x, y, c, border):
    h, w = len(img), len(img[0])
    xi, yi = border_index(x, w, border), border_index(y, h, border)
    if xi < 0 or yi < 0:
        return 0.0
    return img[yi][xi][c]


def ref_correlate(img, m, divisor=1.0, offset=0.0, border='clamp'):
    h, w, ch = len(img), len(img[0]), len(img[0][0])
    mh, mw = len(m), len(m[0])
    return [[tuple(sum(m[j][i] * sample(img, x + i - mw // 2,
                                        y + j - mh // 2, c, border)
                       for j in range(mh) for i in range(mw)) / divisor
                   + offset for c in range(ch))
             for x in range(w)] for y in range(h)]


def gauss_weights(sigma):
    if sigma <= 0:
        return [1.0]
    r = int(math.floor(4 * sigma + 0.5))
    k = [math.exp(-(i * i) / (2 * sigma * sigma)) for i in range(-r, r + 1)]
    s = sum(k)
    return [v / s for v in k]


def ref_gaussian(img, sx, sy, border='clamp'):
    wx, wy = gauss_weights(sx), gauss_weights(sy)
    return ref_correlate(img, [[a * b for b in wx] for a in wy],
                         border=border)


def ref_sobel(img, horizontal=True, vertical=True, keep_sign=True,
              border='clamp'):
    gx = ref_correlate(img, [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]],
                       border=border)
    gy = ref_correlate(img, [[1, 2, 1], [0, 0, 0], [-1, -2, -1]],
                       border=border)
    out = []
    for y in range(len(img)):
        row = []
        for x in range(len(img[0])):
            px = []
            for c in range(len(img[0][0])):
                a, b = gx[y][x][c], gy[y][x][c]
                if horizontal and vertical:
                    v = math.sqrt(a * a + b * b) / math.sqrt(32)
                elif horizontal or vertical:
                    g = a if horizontal else b
                    v = 0.5 + g / 8 if keep_sign else abs(g) / 4
                else:
                    v = 0.0
                px.append(v)
            row.append(tuple(px))
        out.append(row)
    return out


def ref_kuwahara(img, r, border='clamp'):
    h, w, ch = len(img), len(img[0]), len(img[0][0])
    out = []
    for y in range(h):
        row = []
        for x in range(w):
            best = None
            for qx0, qy0 in ((x - r, y - r), (x, y - r), (x - r, y), (x, y)):
                pix = [[sample(img, qx0 + i, qy0 + j, c, border)
                        for c in range(ch)]
                       for j in range(r + 1) for i in range(r + 1)]
                vs = [max(px) for px in pix]
                mean_v = sum(vs) / len(vs)
                var = sum((v - mean_v) ** 2 for v in vs) / len(vs)
                if best is None or var < best[0]:
                    best = (var, tuple(sum(px[c] for px in pix) / len(pix)
                                       for c in range(ch)))
            row.append(best[1])
        out.append(row)
    return out


def random_image(w, h, ch, seed):
    rnd = random.Random(seed)
    return [[tuple(rnd.random() for _ in range(ch)) for _ in range(w)]
            for _ in range(h)]


def max_diff(a, b):
    check(len(a) == len(b) and len(a[0]) == len(b[0])
          and len(a[0][0]) == len(b[0][0]),
          'sizes differ: %dx%dx%d vs %dx%dx%d'
          % (len(a[0]), len(a), len(a[0][0]), len(b[0]), len(b), len(b[0][0])))
    return max(abs(u - v) for ra, rb in zip(a, b) for pa, pb in zip(ra, rb)
               for u, v in zip(pa, pb))


def filter_matches(args, img, ref, tol=2e-5, what=''):
    write_pfm(p('f-in.pfm'), img)
    run_ok(*args, p('f-in.pfm'), p('f-out.pfm'))
    d = max_diff(read_pfm(p('f-out.pfm')), ref)
    check(d <= tol, '%s %s: max difference %.3g > %.3g'
          % (what, ' '.join(args), d, tol))


# ---------------------------------------------------------------- formats

# The identity for format tests: the Gaussian with no blur.
IDENTITY = ['gaussian-blur', '--std-dev-x', '0', '--std-dev-y', '0']

ASYM = [[(0.0, 0.1, 0.2), (0.3, 0.4, 0.5), (0.6, 0.7, 0.8)],
        [(1.0, 1.5, -2.0), (3.25, 0.125, 7.0), (100.0, -0.5, 0.0625)]]


@case
def pfm_orientation():
    write_pfm(p('a.pfm'), ASYM)
    for args in (['gaussian-blur', '--std-dev-x', '0', '--std-dev-y', '0'],):
        run_ok(*args, p('a.pfm'), p('b.pfm'))
        out = read_pfm(p('b.pfm'))
        check(out == [[tuple(struct.unpack('<3f', struct.pack('<3f', *px)))
                       for px in row] for row in ASYM],
              '%s changed the image (rows flipped?): %r' % (args[0], out))
        raw = open(p('b.pfm'), 'rb').read()
        check(raw.startswith(b'PF\n3 2\n-'), 'header %r' % raw[:12])
        # The bottom row comes first in the file.
        check(struct.unpack('<f', raw[-36:-32])[0] == 0.0
              and struct.unpack('<f', raw[-4:])[0] == struct.unpack(
                  '<f', struct.pack('<f', 0.8))[0],
              'the last row in the file is not the top row')
    gray = [[(float(x + 10 * y),) for x in range(4)] for y in range(3)]
    write_pfm(p('g.pfm'), gray)
    run_ok('gaussian-blur', '--std-dev-x=0', '--std-dev-y=0', p('g.pfm'),
           p('g2.pfm'))
    check(read_pfm(p('g2.pfm')) == gray, 'gray PFM changed')
    check(open(p('g2.pfm'), 'rb').read(2) == b'Pf', 'gray PFM is not Pf')


@case
def pfm_gaussian_gradient():
    # A vertical gradient, so a flip would show, blurred along y only;
    # expected values from the sampled Gaussian in float64.
    w, h = 5, 24
    img = [[(y / (h - 1.0), 0.5, x / 4.0) for x in range(w)]
           for y in range(h)]
    write_pfm(p('grad.pfm'), img)
    for border in ('clamp', 'mirror', 'wrap', 'zero'):
        run_ok('gaussian-blur', '--std-dev-x', '0', '--std-dev-y', '1.7',
               '--border', border, p('grad.pfm'), p('grad-out.pfm'))
        out = read_pfm(p('grad-out.pfm'))
        ref = ref_gaussian(img, 0, 1.7, border)
        for (x, y) in ((0, 0), (2, 1), (4, 12), (1, 22), (3, 23)):
            for c in range(3):
                check(abs(out[y][x][c] - ref[y][x][c]) < 1e-5,
                      'border %s pixel (%d, %d) channel %d: %.7f, expected '
                      '%.7f' % (border, x, y, c, out[y][x][c], ref[y][x][c]))
    # Away from the edges a linear ramp stays itself.
    check(abs(out[12][2][0] - 12 / 23.0) < 1e-5, 'ramp moved')


@case
def pfm_big_endian():
    write_pfm(p('be.pfm'), ASYM, big_endian=True)
    run_ok('gaussian-blur', '--std-dev-x', '0', '--std-dev-y', '0',
           p('be.pfm'), p('le.pfm'))
    check(open(p('le.pfm'), 'rb').read().split(b'\n')[2].startswith(b'-'),
          'output is not little-endian')
    write_pfm(p('le-ref.pfm'), ASYM)
    check(read_pfm(p('le.pfm')) == read_pfm(p('le-ref.pfm')),
          'big-endian input read wrongly')


@case
def pam16_roundtrip():
    rnd = random.Random(16)
    rgba = [[(rnd.randrange(65536), rnd.randrange(65536), rnd.randrange(65536),
              rnd.randrange(1, 65536)) for _ in range(7)] for _ in range(5)]
    rgb = [[px[:3] for px in row] for row in rgba]
    for name, img in (('rgba16', rgba), ('rgb16', rgb)):
        write_pam(p(name + '.pam'), img, 65535)
        run_ok('gaussian-blur', '--std-dev-x', '0', '--std-dev-y', '0',
               p(name + '.pam'), p(name + '-out.pam'))
        out, maxval = read_pam(p(name + '-out.pam'))
        check(maxval == 65535, '16-bit input gave MAXVAL %d' % maxval)
        check(out == img, '%s: 16-bit round trip is not exact' % name)
    # A maxval of 1000 is read as n / 1000 and written at 16 bits.
    write_pam(p('m1000.pam'), [[(0,), (500,), (1000,)]], 1000)
    run_ok(*IDENTITY, p('m1000.pam'), p('m1000.pfm'))
    vals = [px[0] for px in read_pfm(p('m1000.pfm'))[0]]
    check(max(abs(a - b) for a, b in zip(vals, (0, 0.5, 1))) < 1e-7,
          'MAXVAL 1000 scaled wrongly: %r' % vals)


@case
def pnm8():
    rnd = random.Random(8)
    gray = [[(rnd.randrange(256),) for _ in range(6)] for _ in range(4)]
    rgb = [[tuple(rnd.randrange(256) for _ in range(3)) for _ in range(6)]
           for _ in range(4)]
    write_pnm(p('g8.pgm'), gray, 255)
    write_pnm(p('c8.ppm'), rgb, 255)
    run_ok('gaussian-blur', '--std-dev-x', '0', '--std-dev-y', '0',
           p('g8.pgm'), p('g8-out.pgm'))
    run_ok('gaussian-blur', '--std-dev-x', '0', '--std-dev-y', '0',
           p('c8.ppm'), p('c8-out.ppm'))
    check(read_pnm(p('g8-out.pgm')) == (gray, 255), 'PGM round trip')
    check(read_pnm(p('c8-out.ppm')) == (rgb, 255), 'PPM round trip')
    check(open(p('c8-out.ppm'), 'rb').read(2) == b'P6', 'not P6')
    # --depth 16 scales by 257; 8-bit PAM output from 8-bit input.
    run_ok('gaussian-blur', '--std-dev-x', '0', '--std-dev-y', '0',
           '--depth', '16', p('c8.ppm'), p('c16.ppm'))
    out, maxval = read_pnm(p('c16.ppm'))
    check(maxval == 65535 and out == [[tuple(v * 257 for v in px)
                                       for px in row] for row in rgb],
          '--depth 16 output wrong')
    run_ok('gaussian-blur', '--std-dev-x', '0', '--std-dev-y', '0',
           p('c8.ppm'), p('c8.pam'))
    check(read_pam(p('c8.pam')) == (rgb, 255), 'PPM to PAM')
    # Float to 8 bits rounds and clamps.
    write_pfm(p('clamp.pfm'), [[(-0.5,), (0.5 / 255,), (1.49 / 255,),
                                (2.51 / 255,), (1.7,)]])
    run_ok(*IDENTITY, '--depth', '8', p('clamp.pfm'),
           p('clamp.pgm'))
    check(read_pnm(p('clamp.pgm'))[0] == [[(0,), (1,), (1,), (3,), (255,)]],
          'rounding or clamping: %r' % read_pnm(p('clamp.pgm'))[0])


@case
def pnm_comments():
    gray = [[(10,), (20,), (30,)], [(40,), (50,), (60,)]]
    with open(p('comment.pgm'), 'wb') as f:
        f.write(b'P5\n# made by hand\n3 # width\n2\n# maxval next\n255\n')
        f.write(bytes(v for row in gray for px in row for v in px))
    run_ok(*IDENTITY, p('comment.pgm'), p('comment2.pgm'))
    check(read_pnm(p('comment2.pgm'))[0] == gray, 'comments broke the header')
    with open(p('comment.pam'), 'wb') as f:
        f.write(b'P7\n# a comment\nWIDTH 3\nHEIGHT 2\n\nDEPTH 1\nMAXVAL 255\n'
                b'ENDHDR\n' + bytes(v for row in gray for px in row
                                   for v in px))
    run_ok(*IDENTITY, p('comment.pam'), p('comment2.pam'))
    check(read_pam(p('comment2.pam'))[0] == gray, 'PAM without TUPLTYPE')


def alpha_case(tupltype, opaque, ch):
    # Left: opaque colour; right: transparent black.  Blurred, every pixel
    # with some alpha keeps the opaque colour: no dark fringe.
    w, h = 12, 3
    img = [[opaque + (255,) if x < 6 else (0,) * (ch - 1) + (0,)
            for x in range(w)] for _ in range(h)]
    write_pam(p('alpha.pam'), img, 255, tupltype)
    run_ok('gaussian-blur', '--std-dev-x', '2', '--std-dev-y', '0',
           p('alpha.pam'), p('alpha-out.pam'))
    out, maxval = read_pam(p('alpha-out.pam'))
    check(maxval == 255, 'MAXVAL %d' % maxval)
    for x in range(w):
        px = out[1][x]
        if px[-1] >= 3:  # 8-bit alpha; below that colour is ill-defined
            check(all(abs(a - b) <= 1 for a, b in zip(px[:-1], opaque)),
                  '%s: pixel %d is %r, colour should stay %r'
                  % (tupltype, x, px, opaque))
    alphas = [out[1][x][-1] for x in range(w)]
    check(alphas[0] > 250 and 0 < alphas[6] < 255 and alphas[11] < 3
          and alphas == sorted(alphas, reverse=True),
          'alpha not blurred as expected: %r' % alphas)
    # Alpha itself is blurred like any channel: float reference.
    ref = ref_gaussian([[(1.0 if x < 6 else 0.0,) for x in range(w)]],
                       2, 0)
    check(all(abs(alphas[x] - round(ref[0][x][0] * 255)) <= 1
              for x in range(w)), 'alpha values %r' % alphas)


@case
def alpha_rgba():
    alpha_case('RGB_ALPHA', (230, 40, 10), 4)


@case
def alpha_gray():
    alpha_case('GRAYSCALE_ALPHA', (200,), 2)


# ---------------------------------------------------------------- filters

@case
def filter_convolve():
    img = random_image(7, 5, 3, 1)
    filter_matches(['convolve', '--matrix', '1'], img, img, 1e-7, 'identity')
    m = [[1, 2, 0], [-1, 3, 4], [0.5, 0, -2]]
    filter_matches(['convolve', '--matrix', '1,2,0; -1,3,4; 0.5,0,-2',
                    '--divisor', '7', '--offset', '0.25', '--border',
                    'mirror'], img, ref_correlate(img, m, 7, 0.25, 'mirror'))
    m = [[1, 2, 3, 4]]
    filter_matches(['convolve', '--matrix=1,2,3,4', '--normalize',
                    '--border=wrap'], img,
                   ref_correlate(img, m, 10, 0, 'wrap'))
    m = [[0, 1], [1, -1]]
    filter_matches(['convolve', '--matrix', '0,1;1,-1', '--border', 'zero'],
                   img, ref_correlate(img, m, 1, 0, 'zero'))


@case
def filter_sobel():
    img = random_image(6, 5, 3, 2)
    for flags, kw in (([], {}),
                      (['--no-vertical'], dict(vertical=False)),
                      (['--no-horizontal', '--keep-sign'],
                       dict(horizontal=False)),
                      (['--no-vertical', '--no-keep-sign'],
                       dict(vertical=False, keep_sign=False)),
                      (['--horizontal=false', '--vertical=0'],
                       dict(horizontal=False, vertical=False))):
        filter_matches(['sobel'] + flags, img, ref_sobel(img, **kw))


@case
def filter_kuwahara():
    img = random_image(7, 6, 3, 3)
    filter_matches(['kuwahara', '--radius', '1'], img, ref_kuwahara(img, 1))
    filter_matches(['kuwahara', '--radius=2', '--border', 'mirror'], img,
                   ref_kuwahara(img, 2, 'mirror'))
    gray = random_image(5, 5, 1, 4)
    filter_matches(['kuwahara', '--radius', '2'], gray, ref_kuwahara(gray, 2))


@case
def filter_gaussian():
    img = random_image(9, 7, 3, 5)
    for border in ('clamp', 'mirror', 'wrap', 'zero'):
        filter_matches(['gaussian-blur', '--std-dev-x', '1.3', '--std-dev-y',
                        '0.8', '--border', border], img,
                       ref_gaussian(img, 1.3, 0.8, border))
    # The table's default, 1.5 both ways.
    filter_matches(['gaussian-blur'], img, ref_gaussian(img, 1.5, 1.5))


@case
def option_forms():
    img = random_image(8, 6, 3, 6)
    write_pfm(p('o.pfm'), img)
    run_ok('gaussian-blur', '--std-dev-x', '2', '--std-dev-y=1', '--threads',
           '1', p('o.pfm'), p('o1.pfm'))
    run_ok('gaussian-blur', p('o.pfm'), '--std-dev-y', '1', '--std-dev-x=2',
           '--threads=0', p('o2.pfm'))
    check(open(p('o1.pfm'), 'rb').read() == open(p('o2.pfm'), 'rb').read(),
          'option order, --name=value or --threads changed the result')
    # "--" ends options; later values win.
    run_ok('gaussian-blur', '--std-dev-x', '9', '--std-dev-x', '2',
           '--std-dev-y', '1', '--', p('o.pfm'), p('o3.pfm'))
    check(open(p('o3.pfm'), 'rb').read() == open(p('o1.pfm'), 'rb').read(),
          'the last --std-dev-x should win')
    # Output replaces an existing file, with ordinary permissions.
    os.chmod(p('o3.pfm'), 0o600)
    run_ok('gaussian-blur', p('o.pfm'), p('o3.pfm'))
    mode = os.stat(p('o3.pfm')).st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    check(mode == 0o666 & ~umask, 'output mode %o' % mode)
    check(not leftovers(p('o3.pfm')), 'temporary files left')


# ---------------------------------------------------------------- errors

def error_inputs():
    write_pfm(p('in.pfm'), ASYM)
    return p('in.pfm'), p('err-out.pfm')


BAD_ARGS = {
    'unknown_option': (['gaussian-blur', '--frobnicate', 1], 'frobnicate'),
    'option_of_other_filter': (['gaussian-blur', '--radius', '3'], 'radius'),
    'missing_value': (['gaussian-blur', 'IN', 'OUT', '--std-dev-x'],
                      'needs a value'),
    'out_of_range': (['gaussian-blur', '--std-dev-x', '1500.5'], 'std-dev-x'),
    'negative': (['kuwahara', '--radius', '0'], 'radius'),
    'radius_too_big': (['kuwahara', '--radius', '256'], 'radius'),
    'not_whole': (['kuwahara', '--radius', '2.5'], 'radius'),
    'not_numeric': (['gaussian-blur', '--std-dev-y', 'abc'], 'std-dev-y'),
    'trailing_junk': (['gaussian-blur', '--std-dev-y', '2px'], 'std-dev-y'),
    'nan': (['gaussian-blur', '--std-dev-x', 'nan'], 'std-dev-x'),
    'inf': (['convolve', '--matrix', '1', '--offset', 'inf'], 'offset'),
    'hex': (['gaussian-blur', '--std-dev-x', '0x10'], 'std-dev-x'),
    'empty_value': (['gaussian-blur', '--std-dev-x='], 'std-dev-x'),
    'bad_border': (['gaussian-blur', '--border', 'reflect'], 'border'),
    'bad_backend': (['gaussian-blur', '--backend', 'opencl'], 'backend'),
    'bad_bool': (['sobel', '--keep-sign=maybe'], 'keep-sign'),
    'no_on_value': (['sobel', '--no-keep-sign=1'], 'keep-sign'),
    'no_on_number': (['gaussian-blur', '--no-std-dev-x'], 'no-std-dev-x'),
    'matrix_missing': (['convolve'], 'matrix'),
    'matrix_ragged': (['convolve', '--matrix', '1,2;3'], 'matrix'),
    'matrix_text': (['convolve', '--matrix', '1,a'], 'matrix'),
    'matrix_too_big': (['convolve', '--matrix', ','.join(['1'] * 64)],
                       'matrix'),
    'divisor_zero': (['convolve', '--matrix', '1', '--divisor', '0'],
                     'divisor'),
    'bad_depth': (['gaussian-blur', '--depth', '12'], 'depth'),
    'bad_repeat': (['gaussian-blur', '--repeat', '0'], 'repeat'),
    'bad_threads': (['gaussian-blur', '--threads', '-1'], 'threads'),
    'short_option': (['gaussian-blur', '-x'], '-x'),
    'unknown_filter': (['blur'], 'blur'),
}


def bad_args_case(name):
    args, mention = BAD_ARGS[name]
    i, o = error_inputs()
    full = [a for a in args if a not in ('IN', 'OUT')]
    if 'IN' in args:
        full = [i if a == 'IN' else o if a == 'OUT' else a for a in args]
    else:
        full = full + [i, o]
    expect_fail(full, o, mention)


for _name in BAD_ARGS:
    CASES['bad_args_' + _name] = (lambda n: lambda: bad_args_case(n))(_name)


@case
def bad_file_count():
    i, o = error_inputs()
    expect_fail(['gaussian-blur', i], None, 'expected')
    expect_fail(['gaussian-blur'], None, 'expected')
    expect_fail(['gaussian-blur', i, o, p('third.pfm')], o, 'too many')
    check(not os.path.exists(p('third.pfm')), 'third file written')
    expect_fail([], None)
    expect_fail(['--bogus'], None, 'bogus')


@case
def bad_input_files():
    _, o = error_inputs()
    expect_fail(['gaussian-blur', p('does-not-exist.pfm'), o], o,
                'does-not-exist')
    expect_fail(['gaussian-blur', WORK, o], o, 'directory')
    open(p('empty.pfm'), 'wb').close()
    expect_fail(['gaussian-blur', p('empty.pfm'), o], o, 'empty')
    with open(p('noise.pfm'), 'wb') as f:
        f.write(b'\x00\x01garbage')
    expect_fail(['gaussian-blur', p('noise.pfm'), o], o)
    if os.geteuid() != 0:
        with open(p('secret.pfm'), 'wb') as f:
            f.write(b'PF\n1 1\n-1.0\n' + b'\0' * 12)
        os.chmod(p('secret.pfm'), 0)
        expect_fail(['gaussian-blur', p('secret.pfm'), o], o, 'secret')


def truncated(name, data, mention=None):
    with open(p(name), 'wb') as f:
        f.write(data)
    for out in ('t-out.pfm', 't-out.pam'):
        expect_fail(['gaussian-blur', p(name), p(out)], p(out), mention)


@case
def truncated_pfm():
    truncated('t1.pfm', b'PF\n4 4\n-1.0\n' + b'\0' * 100, 'truncated')
    truncated('t2.pfm', b'Pf\n4 4\n', 'truncated')
    truncated('t3.pfm', b'PF\n4', 'truncated')
    truncated('t4.pfm', b'PF', 'truncated')
    truncated('t5.pfm', b'PF\n4 4\n0.0\n' + b'\0' * 192, 'scale')
    truncated('t6.pfm', b'PF\n-4 4\n-1.0\n' + b'\0' * 192, 'width')


@case
def truncated_pgm():
    truncated('t1.pgm', b'P5\n4 4\n255\n' + b'\0' * 15, 'truncated')
    truncated('t2.pgm', b'P5\n4 4\n65535\n' + b'\0' * 31, 'truncated')
    truncated('t3.pgm', b'P5\n4 4\n', 'truncated')
    truncated('t4.pgm', b'P5\n4 4\n70000\n' + b'\0' * 64, 'maxval')
    truncated('t5.pgm', b'P2\n2 1\n255\n1 2\n', 'P2')


@case
def truncated_ppm():
    truncated('t1.ppm', b'P6\n4 4\n255\n' + b'\0' * 47, 'truncated')
    truncated('t2.ppm', b'P6\n4 x\n255\n' + b'\0' * 48, 'height')
    truncated('t3.ppm', b'P6 4 4 255', 'truncated')


@case
def truncated_pam():
    head = b'P7\nWIDTH 2\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\n'
    truncated('t1.pam', head + b'ENDHDR\n' + b'\0' * 15, 'truncated')
    truncated('t2.pam', head, 'ENDHDR')
    truncated('t3.pam', head.replace(b'RGB_ALPHA', b'CMYK') + b'ENDHDR\n'
              + b'\0' * 16, 'CMYK')
    truncated('t4.pam', head.replace(b'DEPTH 4', b'DEPTH 3') + b'ENDHDR\n'
              + b'\0' * 16, 'DEPTH')
    truncated('t5.pam', b'P7\nWIDTH 2\nENDHDR\n', 'required')


@case
def absurd_sizes():
    # Huge headers must fail before allocating anything.
    truncated('huge.pgm', b'P5\n100000 100000\n255\n' + b'\0' * 10,
              'too large')
    truncated('huge2.pgm', b'P5\n40000 40000\n255\n' + b'\0' * 10,
              'truncated')
    truncated('huge.pfm', b'PF\n2147483647 2147483647\n-1.0\n', 'too large')
    truncated('over.pfm', b'PF\n4294967297 1\n-1.0\n' + b'\0' * 12, 'width')
    truncated('huge.pam', b'P7\nWIDTH 65536\nHEIGHT 65536\nDEPTH 4\n'
              b'MAXVAL 65535\nENDHDR\n' + b'\0' * 64, 'too large')
    truncated('long.pam', b'P7\n' + b'#' * 100000 + b'\nWIDTH 1\n', None)


@case
def bad_outputs():
    i, _ = error_inputs()
    expect_fail(['gaussian-blur', i, p('no-such-dir/out.pfm')],
                p('no-such-dir/out.pfm'), 'no-such-dir')
    expect_fail(['gaussian-blur', i, p('in.pfm/out.pfm')], None)
    expect_fail(['gaussian-blur', i, p('out.xyz')], p('out.xyz'), 'xyz')
    expect_fail(['gaussian-blur', i, p('noext')], p('noext'), 'extension')
    expect_fail(['gaussian-blur', i, p('rgb.pgm')], p('rgb.pgm'), 'PGM')
    expect_fail(['gaussian-blur', '--depth', '8', i, p('d.pfm')], p('d.pfm'),
                'depth')
    write_pam(p('rgba.pam'), [[(1, 2, 3, 4)]], 255)
    expect_fail(['gaussian-blur', p('rgba.pam'), p('a.pfm')], p('a.pfm'),
                'alpha')
    expect_fail(['gaussian-blur', p('rgba.pam'), p('a.ppm')], p('a.ppm'),
                'alpha')
    write_pam(p('ga.pam'), [[(1, 4)]], 255)
    expect_fail(['gaussian-blur', p('ga.pam'), p('a.pgm')], p('a.pgm'),
                'alpha')
    write_pnm(p('g.pgm'), [[(1,)]], 255)
    expect_fail(['gaussian-blur', p('g.pgm'), p('g.ppm')], p('g.ppm'), 'gray')


# ---------------------------------------------------------------- hostile

FUZZ_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        '..', 'fuzz')


def help_options(filt):
    """The options `gpufx FILT --help` lists: (name, kind, extra), kind one
    of bool, matrix, choice, int, double, enum, flag."""
    out, _ = run_ok(filt, '--help')
    opts = []
    for line in out.splitlines():
        if not line.startswith('  --'):
            continue
        left, _, help_text = line.strip().partition('  ')
        help_text = help_text.strip()
        if left.startswith('--[no-]'):
            opts.append((left[7:], 'bool', None))
            continue
        name, _, meta = left[2:].partition(' ')
        if not meta:
            opts.append((name, 'flag', None))
        elif meta.startswith("'"):
            opts.append((name, 'matrix', None))
        elif meta == 'NAME':
            names = help_text[help_text.rindex(':') + 1:]
            opts.append((name, 'choice', [c.replace('(default)', '').strip()
                                          for c in names.split(',')]))
        elif '|' in meta:
            opts.append((name, 'enum', meta.split('|')))
        else:
            check(' to ' in help_text, '%s --%s: no range in %r'
                  % (filt, name, help_text))
            tail = help_text[help_text.rindex('(') + 1:]
            lo, _, rest = tail.partition(' to ')
            rng = (float(lo), float(rest.split(',')[0].rstrip(')')))
            opts.append((name, 'int' if meta == 'N' else 'double',
                         (rng, '(not 0)' in help_text)))
    return opts


LONG = 30000  # one argument may have at most 128 KiB
# Wrong for any number option: not finite, not decimal, not one number.
HOSTILE_NUMBERS = [
    '', ' ', 'nan', 'NaN', '-nan', 'nan(1)', 'inf', '-inf', 'Infinity',
    '1e309', '-1e309', '1e999999', '9' * 400, '-' + '9' * 400, '0x10',
    '0x1p3', '1e', 'e5', '.', '-', '+', '--', '1,5', '1;5', '1 5', ' 1',
    '1 ', '1\t', '1\n2', '\u0661', '\uff11', '1_000', '1..5', '1e5e5', '++1',
    '1.5px', 'null', '\x1b[31m1', 'x' * LONG, '1' * LONG, '1' + '0' * LONG,
]
HOSTILE_WORDS = [
    '', ' ', 'maybe', '2', '-1', 'nan', 'inf', 'TRUE', 'Yes ', ' on', '1\n',
    '\x1b[2J', 'true,false', '0x1', 'x' * LONG, '\u043e\u043d',
]
HOSTILE_MATRICES = [
    '', ' ', ';', ',', ';;', ',,', '1,,2', '1;;2', ',1', '1,', '1;2,3',
    '1,2;3', 'nan', 'inf', '1,inf', '-inf', '1,nan;2,3', '1e39', '-1e39',
    '1e309', '3.00001e38', '-3.4e38', '0x10', '1,0x1p3',
    ','.join(['1'] * 64), ';'.join(['1'] * 64),
    '1;' * 64, ','.join(['1'] * LONG), '1' * LONG, 'x' * LONG, '1 2',
    '\uff11', 'a', '--', '1;\n;2', '[1,2]', '1|2', '1:2', '1/2', '1\x1b',
]


def hostile_values(kind, extra):
    if kind == 'matrix':
        return HOSTILE_MATRICES
    if kind in ('bool', 'choice'):
        values = list(HOSTILE_WORDS)
        if kind == 'choice':
            values += [c.upper() for c in extra] + [c + ' ' for c in extra] \
                + [c[:-1] for c in extra] + [','.join(extra), '0', '1']
        return values
    if kind == 'enum':
        return HOSTILE_NUMBERS + ['0', '7', '12', '24', '32', '-16', '1e1',
                                  '8,16', '8|16']
    (lo, hi), not_zero = extra
    values = HOSTILE_NUMBERS + [repr(lo - max(1.0, abs(lo))),
                                repr(hi + max(1.0, abs(hi))), repr(hi * 2 + 1),
                                '%.17g' % (hi * 1.0000001 + 1e-9), '1e300',
                                '-1e300']
    if lo == 0:
        values += ['-1e-300', '-0.001']
    if not_zero:
        values += ['0', '-0', '0.0', '0e5']
    if kind == 'int':
        values += [repr(lo + 0.5), repr(hi - 0.5)]
    return values


@case
def hostile_arguments():
    """Every option of every filter, as --help lists it, with values no
    option accepts, and hostile file arguments: each must give a one-line
    error, a non-zero exit and no output file."""
    i, o = error_inputs()
    filters = [l.split()[0] for l in run_ok('--help')[0].split('Filters:')[1]
               .split('\n\n')[0].strip().splitlines()]
    check(len(filters) == 4, 'filters in gpufx --help: %r' % filters)
    count = 0
    for filt in filters:
        base = ['--matrix', '1'] if filt == 'convolve' else []
        options = help_options(filt)
        check(len(options) >= 8, '%s: only %d options' % (filt, len(options)))
        for name, kind, extra in options:
            if kind == 'flag':
                for v in ('1', '', 'x' * LONG):
                    expect_fail([filt] + base + ['--%s=%s' % (name, v), i, o],
                                o, name)
                    count += 1
                continue
            for v in hostile_values(kind, extra):
                forms = [['--%s=%s' % (name, v)]]
                if kind != 'bool':
                    forms.append(['--' + name, v])
                else:
                    forms.append(['--no-%s=%s' % (name, v)])
                for form in forms:
                    args = [filt] + (base if name != 'matrix' else []) + form
                    expect_fail(args + [i, o], o, name)
                    count += 1
            if kind != 'bool' and kind != 'flag':
                expect_fail([filt] + base + [i, o, '--' + name], o,
                            'needs a value')
                count += 1

    # File arguments: a path the file system refuses, or files that are not
    # images.
    open(p('empty.pfm'), 'wb').close()
    with open(p('garbage.pgm'), 'wb') as f:
        f.write(b'P5\n\xff\xfe 1\n255\n')
    os.mkdir(p('dir.pfm'))
    bad_inputs = [
        p('missing.pfm'), p('dir.pfm'), p('empty.pfm'), p('garbage.pgm'),
        '/dev/null', '', '-', p('x' * 300 + '.pfm'),
        p('/'.join(['d'] * 3000) + '.pfm'), p('new\nline\x1b[31m.pfm'),
        p('missing'), i + '/',
    ]
    for bad in bad_inputs:
        expect_fail(['gaussian-blur', bad, o], o)
        count += 1
    bad_outputs = [
        p('missing/out.pfm'), p('dir.pfm'), p('out.xyz'), p('noext'), '',
        p('o' * 300 + '.pfm'), p('/'.join(['d'] * 3000) + '.pfm'),
        p('out.pfm/'), i + '/out.pfm', '/dev/null',
        p('new\nline\x1b[31m.xyz'),
    ]
    for bad in bad_outputs:
        # Not a path expect_fail may remove: a folder, a device, nothing.
        plain = bad and not os.path.isdir(bad) and not bad.startswith('/dev/')
        expect_fail(['gaussian-blur', i, bad], bad if plain else None)
        check(plain or not bad or not leftovers(bad.rstrip('/')),
              'temporary files next to %r' % bad)
        count += 1
    check(os.path.isdir(p('dir.pfm')) and not os.listdir(p('dir.pfm')),
          'the directory given as output was changed')
    print('%d hostile command lines, each refused in one line' % count)


def pnm_file_of(fuzz_input, magic):
    """The file a reader harness (tests/fuzz/fuzz-pnm.c) reads for an input:
    the first two bytes replaced by the format's magic number."""
    if magic == b'PF' and fuzz_input[1:2] == b'f':
        magic = b'Pf'
    return magic + fuzz_input[2:]


@case
def fuzz_reproducers():
    """Every reader input the fuzzers kept (seeds and the reproducers of
    the bugs they found), through gpufx itself: a good image is filtered,
    a bad one refused in one line with nothing written."""
    count = 0
    for fmt, magic in (('pfm', b'PF'), ('pam', b'P7'), ('ppm', b'P6'),
                       ('pgm', b'P5')):
        for folder in ('seeds', 'regressions'):
            d = os.path.join(FUZZ_DIR, folder, fmt)
            if not os.path.isdir(d):
                continue
            for n in sorted(os.listdir(d)):
                with open(os.path.join(d, n), 'rb') as f:
                    data = pnm_file_of(f.read(), magic)
                src = p('in.' + fmt)
                with open(src, 'wb') as f:
                    f.write(data)
                out = p('out.pam')
                rc, _, err = run('gaussian-blur', src, out)
                if folder == 'seeds':
                    check(rc == 0, 'seed %s/%s: %s' % (fmt, n, err.strip()))
                elif rc != 0:
                    expect_fail(['gaussian-blur', src, out], out)
                if os.path.exists(out):
                    os.unlink(out)
                count += 1
    check(count >= 8, 'only %d reader inputs found in %s' % (count, FUZZ_DIR))
    print('%d reader inputs' % count)


@case
def pipe_input():
    """A pipe is read as it comes (it cannot be opened twice), and a header
    claiming a huge image costs no memory before its pixels arrive: under a
    1 GiB address-space limit a 40000 x 40000 PGM header with ten bytes
    behind it must fail as truncated, not run out of memory."""
    import resource

    img = random_image(5, 4, 1, 3)
    write_pfm(p('in.pfm'), img)
    run_ok('gaussian-blur', p('in.pfm'), p('ref.pfm'))
    data = open(p('in.pfm'), 'rb').read()
    r = subprocess.run([GPUFX, 'gaussian-blur', '/dev/stdin', p('piped.pfm')],
                       input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    check(r.returncode == 0, 'a piped PFM: %s' % r.stderr.decode().strip())
    check(read_pfm(p('piped.pfm')) == read_pfm(p('ref.pfm')),
          'a piped PFM gave other pixels than the file')

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    # AddressSanitizer reserves terabytes of shadow address space, so under
    # it the same 1 GiB bound is its own malloc limit (a larger allocation
    # aborts, which fails the check below).
    env, preexec = None, limit
    with open(GPUFX, 'rb') as f:
        if b'__asan_init' in f.read():
            env = dict(os.environ)
            env['ASAN_OPTIONS'] = (env.get('ASAN_OPTIONS', '') +
                                   ':malloc_limit_mb=1024').lstrip(':')
            preexec = None
    for header in (b'P5\n40000 40000\n255\n', b'P5\n46340 46340\n65535\n',
                   b'PF\n46340 46340\n-1\n',
                   b'P7\nWIDTH 46340\nHEIGHT 46340\nDEPTH 4\nMAXVAL 65535\n'
                   b'ENDHDR\n'):
        out = p('huge.pfm')
        r = subprocess.run([GPUFX, 'gaussian-blur', '/dev/stdin', out],
                           input=header + b'\0' * 10, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, preexec_fn=preexec, env=env)
        err = r.stderr.decode()
        check(r.returncode == 1 and err.count('\n') == 1
              and 'truncated' in err,
              'a piped huge header %r: exit %d: %r'
              % (header[:12], r.returncode, err))
        check(not os.path.exists(out), 'a piped huge header left %s' % out)


# ---------------------------------------------------------------- misc

@case
def help_and_version():
    out, _ = run_ok('--help')
    for name in ('convolve', 'gaussian-blur', 'sobel', 'kuwahara', '.pfm',
                 '.pam', 'Exit status'):
        check(name in out, 'gpufx --help lacks %s' % name)
    expected = {
        'convolve': ['--matrix', '--divisor', '--offset', '--[no-]normalize',
                     'default: off'],
        'gaussian-blur': ['--std-dev-x', '--std-dev-y', '0 to 1500',
                          'default 1.5'],
        'sobel': ['--[no-]horizontal', '--[no-]vertical', '--[no-]keep-sign',
                  'default: on'],
        'kuwahara': ['--radius', '1 to 255', 'default 3'],
    }
    for f, names in expected.items():
        for args in ([f, '--help'], [f, '-h'], [f, '--radius=x', '--help']):
            if f != 'kuwahara' and '--radius=x' in args:
                continue
            out, err = run_ok(*args)
            for n in names + ['--border', 'clamp (default)', '--backend',
                              '--report', '--repeat', '--threads',
                              '--depth']:
                check(n in out, 'gpufx %s --help lacks %r' % (f, n))
            check(err == '', 'help wrote to stderr')
    out, _ = run_ok('--version')
    check(out.startswith('gpufx ') and len(out.splitlines()) == 1,
          'version: %r' % out)
    out, _ = run_ok('--list-backends')
    check('cpu: available' in out and 'cuda:' in out, 'list-backends: %r'
          % out)


def cuda_available():
    out, _ = run_ok('--list-backends')
    return 'cuda: available' in out


@case
def report_json():
    img = random_image(9, 4, 3, 7)
    write_pfm(p('r.pfm'), img)
    out, err = run_ok('gaussian-blur', '--report', '--repeat', '3',
                      p('r.pfm'), p('r-out.pfm'))
    lines = out.splitlines()
    check(len(lines) == 1, 'report is not one line: %r' % out)
    r = json.loads(lines[0])
    check(r['filter'] == 'gaussian-blur' and r['width'] == 9
          and r['height'] == 4 and r['channels'] == 3, 'report %r' % r)
    check(isinstance(r['milliseconds'], (int, float))
          and r['milliseconds'] >= 0, 'milliseconds %r' % r)
    check(r['backend'] == ('cuda' if cuda_available() else 'cpu'),
          'auto used %s' % r['backend'])
    out, _ = run_ok('gaussian-blur', p('r.pfm'), p('r-out2.pfm'))
    check(out == '', 'output without --report: %r' % out)
    check(os.path.exists(p('r-out.pfm')), 'no output with --report')


@case
def backend_cuda_missing():
    if cuda_available():
        raise Skip('CUDA is available here')
    i, o = error_inputs()
    expect_fail(['gaussian-blur', '--backend', 'cuda', i, o], o, 'CUDA')
    out, err = run_ok('gaussian-blur', '--backend', 'auto', '--report', i, o)
    check(json.loads(out)['backend'] == 'cpu', 'auto did not use the CPU')
    out, err = run_ok('gaussian-blur', '--backend=cpu', '--report', i, o)
    check(json.loads(out)['backend'] == 'cpu', '--backend cpu')


@case
def gegl_png():
    out, _ = run_ok('--version')
    if 'GEGL file formats yes' not in out:
        raise Skip('built without GEGL')
    rnd = random.Random(9)
    for ch in (1, 2, 3, 4):
        img = [[tuple(rnd.randrange(256) for _ in range(ch)) for _ in range(5)]
               for _ in range(4)]
        if ch in (2, 4):  # colour under alpha 0 is not kept
            img = [[px[:-1] + (max(px[-1], 1),) for px in row] for row in img]
        write_png(p('in.png'), img)
        run_ok(*IDENTITY, p('in.png'), p('out.png'))
        run_ok(*IDENTITY, p('out.png'), p('back.pam'))
        out, maxval = read_pam(p('back.pam'))
        check(maxval == 255, 'PNG gave MAXVAL %d' % maxval)
        check(out == img, '%d-channel PNG round trip is not lossless' % ch)
    expect_fail(IDENTITY + [p('in.png'), p('x.jpg')],
                p('x.jpg'), 'alpha')
    with open(p('bad.png'), 'wb') as f:
        f.write(open(p('in.png'), 'rb').read()[:40])
    expect_fail(IDENTITY + [p('bad.png'), p('y.pam')],
                p('y.pam'))


@case
def gegl_convolution_orientation():
    """Our matrix is laid over the image as written; gegl:convolution-matrix
    (what GIMP's Convolution Matrix runs) names its 5 x 5 weights a1..e5.
    A single weight off centre is a pure shift, so it pins the orientation
    down exactly, with no colour-space conversion in the way: GEGL's letter
    must be our column and its digit our row (gpufx.h)."""
    import shutil
    gegl = shutil.which('gegl')
    if not gegl:
        raise Skip('the gegl command is not installed')
    rng = random.Random(7)
    w, h = 7, 5
    img = [[tuple(rng.randint(0, 65535) for _ in range(3)) for _ in range(w)]
           for _ in range(h)]
    p = lambda n: os.path.join(WORK, n)
    write_pnm(p('in.ppm'), img, 65535)
    # row 0, column 3 of a 5 x 5: reads in(x + 1, y - 2)
    rows = ['0,0,0,1,0'] + ['0,0,0,0,0'] * 4
    run_ok('convolve', '--matrix', ';'.join(rows), '--depth', '16',
           p('in.ppm'), p('ours.ppm'))
    g = subprocess.run([gegl, p('in.ppm'), '-o', p('gegl.ppm'), '--',
                        'convolution-matrix', 'c3=0', 'd1=1',
                        'normalize=false', 'alpha-weight=false'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(g.returncode == 0 and os.path.exists(p('gegl.ppm')),
          'gegl failed: %s' % g.stderr.decode()[-300:])
    ours, _ = read_pnm(p('ours.ppm'))
    theirs, _ = read_pnm(p('gegl.ppm'))

    def at(x, y):
        return img[min(max(y, 0), h - 1)][min(max(x, 0), w - 1)]

    want = [[at(x + 1, y - 2) for x in range(w)] for y in range(h)]
    check(ours == want, 'our shift is not in(x + 1, y - 2)')
    check(theirs == want, 'gegl:convolution-matrix d1 is not in(x + 1, y - 2)')


def main():
    global GPUFX, WORK
    if sys.argv[1:] == ['--list']:
        print('\n'.join(CASES))
        return 0
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        print('usage: test_gpufx.py --list | GPUFX CASE', file=sys.stderr)
        return 2
    GPUFX = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix='gpufx-test-') as WORK:
        try:
            CASES[sys.argv[2]]()
        except Skip as e:
            print('SKIP:', e)
            return 77
        except AssertionError as e:
            print('FAIL:', e)
            return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
