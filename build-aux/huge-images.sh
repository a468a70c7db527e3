#!/usr/bin/env bash
# gimp-gpu-filters: peak memory and time of the CLI on a huge image.
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: build-aux/huge-images.sh BUILD [SIZE] [CHANNELS]
#        build-aux/huge-images.sh --gimp BUILD [SIZE] [AS_LIMIT]
#
# The first form: the CLI.  BUILD is a build folder with cli/gpufx (a
# native one is enough: meson setup build-huge -Dgimp=disabled
# -Dcuda=disabled -Dgegl_io=disabled -Dgegl_ops=disabled); SIZE the image's
# width and height (default 20000); CHANNELS 1 (gray Pf), 3 (RGB PF) or 4
# (RGBA, a 16-bit PAM held as float), default 1, which at 20000 x 20000 is
# the 1.6 GB image of tests/bench/RESULTS-huge.md.  Writes the image in
# $TMPDIR (default /tmp), runs Gaussian blur (sigma 50) and Kuwahara (r 10)
# on it with each backend of HUGE_BACKENDS (default cpu; "cpu cuda" on the
# GPU machine), prints each run's wall time and peak resident set size,
# and deletes the input and outputs.
#
# The second form: GIMP 3, headless, in build-aux/gimp3-root.sh.  BUILD is
# a GIMP build (it is installed, not rebuilt, into a throwaway profile as
# build-aux/demo.sh does).  A SIZE x SIZE (default 12000) RGB float image
# goes through each filter's PDB procedure on the CPU; prints the time and
# GIMP's peak memory per filter (VmHWM of gimp-console, reset before each
# filter) and the plug-in process's peak.  The tile cache is set to 4 GiB
# (gimprc tile-cache-size) so that GIMP stays within ~10 GiB.  With
# AS_LIMIT in bytes (e.g. 5368709120) GIMP runs under prlimit
# --as=AS_LIMIT with a 1 GiB tile cache, so that the filters' buffers
# cannot all be allocated; Gaussian blur and Kuwahara run, and the image
# is compared before and after each (histogram statistics, 9 patches).
#
# Everything runs niced: the machine may be shared.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --gimp ]; then
  exec "$HERE/gimp3-root.sh" "$HERE/huge-images.sh" --gimp-here "$@"
fi
if [ "${1:-}" = --gimp-here ]; then
  shift 2
  build=$(cd "${1:?usage: build-aux/huge-images.sh --gimp BUILD [SIZE] [AS_LIMIT]}" && pwd)
  size=${2:-12000}
  limit=${3:-}
  . "$HERE/build-common.sh"
  work=$(mktemp -d "${TMPDIR:-/tmp}/huge-gimp.XXXXXX")
  trap 'kill "$sampler" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
  gpufx_install_profile "$build" "$work/profile" "$work/xdg"
  # 4 GiB keeps GIMP within ~10 GiB; under a limit, 1 GiB keeps GIMP's
  # own tiles well inside it, so that what fails is the filters' buffers.
  cache=4096M
  [ -n "$limit" ] && cache=1024M
  echo "(tile-cache-size $cache)" >>"$work/profile/gimprc"
  mkdir -p "$work/cache"
  cat >"$work/batch.py" <<'EOF'
# Runs inside GIMP (python-fu-eval): a SIZE x SIZE RGB float image through
# each filter's PDB procedure; GIMP's peak memory per filter (VmHWM of the
# gimp-console process, reset before each filter through clear_refs).
import json, os, time
import gi
gi.require_version('Gimp', '3.0')
gi.require_version('Gegl', '0.4')
from gi.repository import Gimp, Gegl

S = int(os.environ['HUGE_SIZE'])
MODE = os.environ['HUGE_MODE']
GIMP_PID = os.getppid()
FILTERS = [('gaussian-blur', {'std-dev-x': 50.0, 'std-dev-y': 50.0}),
           ('kuwahara', {'radius': 10}),
           ('convolve', {'matrix': '1,2,1;2,4,2;1,2,1', 'normalize': True}),
           ('sobel', {})]
if MODE == 'oom':
    FILTERS = FILTERS[:2]

def status_kb(pid, key):
    for line in open('/proc/%d/status' % pid):
        if line.startswith(key + ':'):
            return int(line.split()[1])
    return -1

def reset_peak(pid):
    with open('/proc/%d/clear_refs' % pid, 'w') as f:
        f.write('5')

def say(*a):
    print('huge:', *a, flush=True)

def fingerprint(drw):
    """The histogram's statistics over every pixel, and 9 small patches."""
    h = drw.histogram(Gimp.HistogramChannel.VALUE, 0.0, 1.0)
    buf = drw.get_buffer()
    patches = []
    for fy in (0.0, 0.5, 0.99):
        for fx in (0.0, 0.5, 0.99):
            r = Gegl.Rectangle.new(int(fx * S), int(fy * S), 32, 32)
            patches.append(bytes(buf.get(r, 1.0, 'RGB float',
                                         Gegl.AbyssPolicy.NONE)))
    return list(h[1:4]), patches

t0 = time.monotonic()
img = Gimp.Image.new_with_precision(S, S, Gimp.ImageBaseType.RGB,
                                    Gimp.Precision.FLOAT_LINEAR)
layer = Gimp.Layer.new(img, 'huge', S, S, Gimp.ImageType.RGB_IMAGE, 100,
                       Gimp.LayerMode.NORMAL)
img.insert_layer(layer, None, 0)
layer.fill(Gimp.FillType.WHITE)
f = Gimp.DrawableFilter.new(layer, 'gegl:noise-rgb', None)
f.update()
layer.merge_filter(f)
say('image %d x %d RGB float linear made in %.1f s; gimp VmHWM %d MB, VmRSS %d MB'
    % (S, S, time.monotonic() - t0, status_kb(GIMP_PID, 'VmHWM') // 1000,
       status_kb(GIMP_PID, 'VmRSS') // 1000))

pdb = Gimp.get_pdb()
for name, kw in FILTERS:
    before = fingerprint(layer) if MODE == 'oom' else None
    proc = pdb.lookup_procedure('plug-in-gpu-' + name)
    cfg = proc.create_config()
    cfg.set_property('run-mode', Gimp.RunMode.NONINTERACTIVE)
    cfg.set_property('image', img)
    cfg.set_core_object_array('drawables', [layer])
    for k, v in kw.items():
        cfg.set_property(k, v)
    cfg.set_property('backend', 'cpu')
    reset_peak(GIMP_PID)
    rss0 = status_kb(GIMP_PID, 'VmRSS')
    t = time.monotonic()
    res = proc.run(cfg)
    secs = time.monotonic() - t
    status = res.index(0).value_nick
    msg = ''
    if status != 'success':
        msg = str(res.index(1)) if res.length() > 1 else ''
    say('%s: %s in %.1f s; gimp VmRSS before %d MB, peak %d MB, after %d MB %s'
        % (name, status, secs, rss0 // 1000,
           status_kb(GIMP_PID, 'VmHWM') // 1000,
           status_kb(GIMP_PID, 'VmRSS') // 1000, msg))
    if MODE == 'oom':
        after = fingerprint(layer)
        say('%s: image unchanged: %s (histogram mean/std/median before %s after %s)'
            % (name, before == after, before[0], after[0]))
say('done in %.1f s' % (time.monotonic() - t0))
EOF
  # The plug-in process's peak, sampled twice a second.
  (
    peak=0
    while :; do
      for d in /proc/[0-9]*; do
        [ "$(cat "$d/comm" 2>/dev/null)" = gpu-filters ] || continue
        # This GIMP's plug-in, not another one running on the machine.
        grep -qzx "GIMP3_DIRECTORY=$work/profile" "$d/environ" 2>/dev/null \
          || continue
        kb=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "$d/status" 2>/dev/null)
        [ -n "$kb" ] && [ "$kb" -gt "$peak" ] && peak=$kb \
          && echo "$peak" >"$work/plugin-peak"
      done
      sleep 0.5
    done
  ) &
  sampler=$!
  set -- nice -n 10
  mode=measure
  if [ -n "$limit" ]; then
    set -- "$@" prlimit --as="$limit"
    mode=oom
  fi
  echo "GIMP: $("$(gpufx_gimp_console)" --version | head -1); image ${size} x ${size} RGB float (no alpha, $((size * size * 12 / 1000000)) MB); tile cache $cache${limit:+; address space limit $limit}"
  t0=$(date +%s)
  status=0
  GIMP3_DIRECTORY=$work/profile XDG_DATA_HOME=$work/xdg \
  XDG_CACHE_HOME=$work/cache LANG=C.UTF-8 NO_AT_BRIDGE=1 HUGE_SIZE=$size \
  HUGE_MODE=$mode \
    timeout 1500 "$@" "$(gpufx_gimp_console)" -i -n -d -f \
    --batch-interpreter=python-fu-eval \
    -b "exec(open('$work/batch.py').read())" --quit \
    >"$work/gimp.log" 2>&1 || status=$?
  echo "GIMP exit status $status after $(($(date +%s) - t0)) s"
  grep -v '^huge:' "$work/gimp.log" | grep -v '^$' | head -40
  sed -n 's/^huge: //p' "$work/gimp.log"
  echo "plug-in process (gpu-filters) peak VmHWM: $(($(cat "$work/plugin-peak" 2>/dev/null || echo 0) / 1000)) MB"
  exit "$status"
fi

build=${1:?usage: build-aux/huge-images.sh BUILD [SIZE] [CHANNELS]}
size=${2:-20000}
channels=${3:-1}
gpufx=$build/cli/gpufx
tmp=$(mktemp -d "${TMPDIR:-/tmp}/huge-images.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

[ -x "$gpufx" ] || { echo "huge-images: no $gpufx" >&2; exit 1; }

# 1 or 3 channels: a float PFM; 4: a 16-bit RGB_ALPHA PAM, which the CLI
# holds as RGBA float (the file is half the image in memory).  Written a
# row at a time (a few MB of memory): 64 random rows, reused with a shift,
# so that the pixels vary in x and in y.
ext=pfm
[ "$channels" = 4 ] && ext=pam
python3 - "$tmp/in.$ext" "$size" "$channels" <<'EOF'
import array, random, sys
path, size, ch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(9)
if ch == 4:
    rows = [array.array('H', (rng.randrange(65536) for _ in range(size * ch)))
            for _ in range(64)]
    for r in rows:
        r.byteswap()  # PAM is big-endian
    rows = [r.tobytes() for r in rows]
    head = (b'P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 65535\n'
            b'TUPLTYPE RGB_ALPHA\nENDHDR\n' % (size, size))
    px = 2 * ch
else:
    rows = [array.array('f', (rng.random() for _ in range(size * ch))).tobytes()
            for _ in range(64)]
    head = b'%s\n%d %d\n-1.0\n' % (b'Pf' if ch == 1 else b'PF', size, size)
    px = 4 * ch
with open(path, 'wb') as f:
    f.write(head)
    for y in range(size):
        r = rows[y % 64]
        s = (y // 64) % size * px
        f.write(r[s:] + r[:s])
EOF
image_mb=$((size * size * channels * 4 / 1000000))
echo "input: ${size} x ${size} x ${channels} float in memory, ${image_mb} MB" \
  "(file .$ext, $(($(stat -c %s "$tmp/in.$ext") / 1000000)) MB)"
echo "cores: $(nproc)"

# Wall time, user time and peak RSS of one run (Python's rusage of its
# child: no /usr/bin/time needed).
run ()
{
  name=$1
  shift
  python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
rc = subprocess.call(sys.argv[2:])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.1f %.1f %d\n" % (time.monotonic() - t, u.ru_utime, u.ru_maxrss))
sys.exit(rc)' "$tmp/stats.txt" nice -n 10 "$gpufx" "$@" "$tmp/in.$ext" \
    "$tmp/out.$ext" >"$tmp/stdout.txt" 2>"$tmp/stderr.txt" \
    || { echo "$name: FAILED"; cat "$tmp/stderr.txt"; return 1; }
  read -r wall user rss_kb <"$tmp/stats.txt"
  echo "$name: wall ${wall} s, user ${user} s, peak RSS $((rss_kb / 1000)) MB" \
    "($(awk "BEGIN { printf \"%.2f\", $rss_kb * 1000 / ($image_mb * 1e6) }") x the image)," \
    "engine: $(cat "$tmp/stdout.txt")"
  rm -f "$tmp/out.$ext"
}

# HUGE_BACKENDS="cpu cuda" on the GPU machine.
for backend in ${HUGE_BACKENDS:-cpu}; do
  run "gaussian-blur sigma 50 $backend" gaussian-blur --std-dev-x 50 \
    --std-dev-y 50 --backend "$backend" --report
  run "kuwahara r 10 $backend" kuwahara --radius 10 --backend "$backend" \
    --report
done
