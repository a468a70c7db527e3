#!/usr/bin/env bash
# Reproduce the GUI screenshots in docs/: install an already built plug-in
# and GEGL module into a throwaway GIMP profile, start the real GIMP 3 GUI on
# tests/data/coffee.png under Xvfb (with openbox as window manager), drive it
# with xdotool and crop the screenshots with ImageMagick.
#
# usage: build-aux/gui-screenshots.sh [BUILD_DIR [OUT_DIR]]
#        (defaults: ./build and ./out/gui-screenshots; nothing is rebuilt:
#        BUILD_DIR must hold a finished build)
#
# The PNGs land in OUT_DIR with the names used in docs/; copy the ones you
# want into docs/ after looking at them.  See docs/gui-check.md for what the
# screenshots show and what was checked by hand.
#
# The clicks are at fixed screen positions: they hold for GIMP 3.0.4 with a
# fresh profile, LANG=C.UTF-8, a 1600x1000 screen and the window maximized.
# Menus are reached with the keyboard (Alt+R opens Filters, Up wraps to its
# last entry, GPU), so their widths do not matter.
#
# Runs natively where GIMP 3 exists, otherwise in the cached Debian trixie
# root (build-aux/gimp3-root.sh); installs xdotool, ImageMagick, openbox and
# wmctrl there with apt-get when they are missing.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")

if [ "${1:-}" != --here ]; then
  exec "$HERE/gimp3-root.sh" "$HERE/gui-screenshots.sh" --here "$@"
fi
shift
BUILD=${1:-$TOP/build}
OUT=${2:-$TOP/out/gui-screenshots}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
case $OUT in /*) ;; *) OUT=$TOP/$OUT ;; esac
DPY=${GPUFX_SHOTS_DISPLAY:-:57}
IMAGE=$TOP/tests/data/coffee.png

missing=
for tool in xdotool convert import openbox wmctrl Xvfb; do
  command -v $tool >/dev/null 2>&1 || missing=1
done
if [ -n "$missing" ]; then
  echo "== installing xdotool imagemagick openbox wmctrl xvfb"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    xdotool imagemagick openbox wmctrl x11-utils xvfb >/dev/null
fi

# The same layout as build-aux/demo.sh: plug-in into the profile's plug-ins/,
# module where GEGL looks for one user's modules.
W=$OUT/work
rm -rf "$W"
mkdir -p "$W/profile/plug-ins" "$W/xdg/gegl-0.4/plug-ins" "$W/stage"
DESTDIR=$W/stage meson install -C "$BUILD" --no-rebuild --quiet --tags plugin,i18n
installed () {
  meson introspect "$BUILD" --installed \
    | python3 -c 'import json,sys; print([v for v in json.load(sys.stdin).values() if v.endswith(sys.argv[1])][0])' "$1"
}
cp -r "$W/stage$(dirname "$(installed /gpu-filters/gpu-filters)")" "$W/profile/plug-ins/"
cp "$W/stage$(installed /gpufx-ops.so)" "$W/xdg/gegl-0.4/plug-ins/"

export DISPLAY=$DPY
PIDS=()
cleanup () {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
Xvfb "$DPY" -screen 0 1600x1000x24 -nolisten tcp >"$W/xvfb.log" 2>&1 &
PIDS+=($!)
sleep 2
openbox >"$W/openbox.log" 2>&1 &
PIDS+=($!)
sleep 1
GIMP3_DIRECTORY=$W/profile XDG_DATA_HOME=$W/xdg LANG=C.UTF-8 \
  gimp-3.0 "$IMAGE" >"$W/gimp.log" 2>&1 &
GIMP_PID=$!
PIDS=("$GIMP_PID" "${PIDS[@]}")

# Waits until a window whose title matches the regex exists; prints its id.
wait_window () {
  local i id
  for ((i = 0; i < ${2:-120}; i++)); do
    id=$(wmctrl -l | grep -E -- "$1" | head -1 | cut -d' ' -f1) || true
    [ -n "$id" ] && { echo "$id"; return 0; }
    sleep 1
  done
  echo "gui-screenshots: no window matching '$1'" >&2
  return 1
}
shot () { sleep "${2:-1}"; import -window root "$W/$1.png"; }
# crop SHOT WxH+X+Y NAME [extra convert options]
crop () {
  local src=$1 geom=$2 name=$3; shift 3
  convert "$W/$src.png" -crop "$geom" +repage -strip "$@" \
    -define png:compression-level=9 "$OUT/$name.png"
  echo "== $OUT/$name.png ($(stat -c %s "$OUT/$name.png") bytes)"
}
away () { xdotool mousemove 1000 950; }
click () { xdotool mousemove "$1" "$2" click 1; sleep "${3:-1}"; }
# The dialog's first numeric field (Size X, linked to Size Y).
set_size () { click 365 438 0.3; xdotool key ctrl+a type "$1"; xdotool key Tab; sleep 4; }
# Filters > GPU > entry N (1 Convolution Matrix, 2 Gaussian Blur,
# 3 Kuwahara, 4 Sobel), by keyboard; the dialog is moved to the left.
gpu_filter () {
  local i id
  away
  xdotool key alt+r; sleep 1
  xdotool key Up; sleep 0.5
  xdotool key Right; sleep 0.5
  for ((i = 1; i < $1; i++)); do xdotool key Down; sleep 0.2; done
  xdotool key Return
  id=$(wait_window "$2" 60)
  sleep 1
  wmctrl -i -r "$id" -e 0,10,330,-1,-1
  sleep 3
}

main=$(wait_window ' – GIMP$')
wait_window 'Welcome to GIMP' 30 >/dev/null && wmctrl -c 'Welcome to GIMP' || true
sleep 1
wmctrl -i -r "$main" -b add,maximized_vert,maximized_horz
sleep 3

# 1. The Filters > GPU submenu.
away
xdotool key alt+r; sleep 1; xdotool key Up; sleep 0.5; xdotool key Right
shot menu 1.5
xdotool key Escape Escape Escape
crop menu 820x620+300+0 screenshot-menu

# 2. The three generated dialogs with their on-canvas previews.
gpu_filter 4 'Sobel \(GPU\)'
away; shot sobel 2
click 240 622 2                                   # Cancel
crop sobel 1080x410+5+325 screenshot-sobel-dialog -colors 256

gpu_filter 3 'Kuwahara \(GPU\)'
away; shot kuwahara 2
click 261 584 2                                   # Cancel
crop kuwahara 1080x410+5+325 screenshot-kuwahara-dialog -colors 256

gpu_filter 2 'Gaussian Blur \(GPU\)'
set_size 8
click 367 574 3                                   # Split view
away; shot gaussian 1
crop gaussian 1090x410+5+325 screenshot-gaussian-dialog -resize 80%

# 3. OK keeps it as a non-destructive filter (Merge filter unticked); the
# Layers dock's fx icon lists it and reopens its dialog for editing.
click 420 609 4                                   # OK
click 1447 756 2                                  # the layer's fx icon
shot layers 0
crop layers 1130x470+470+320 screenshot-layers-nde -resize 80%
click 1290 658 0.5                                # the filter's row
click 1328 711 3                                  # Edit
away; shot edit 1
crop edit 1600x470+0+320 screenshot-layers-edit -resize 70%
click 327 609 2                                   # Cancel
xdotool key Escape

# 4. Presets: save the current values under a name, change them, list.
gpu_filter 2 'Gaussian Blur \(GPU\)'
set_size 7
click 429 405 2                                   # + (save as named preset)
wait_window 'Save Settings as Named Preset' 20 >/dev/null
xdotool key ctrl+a type 'sigma seven'
xdotool key Return; sleep 2
set_size 2
click 240 405 1.5                                 # the Presets combo
shot presets 0
xdotool key Escape; sleep 1
crop presets 470x310+5+330 screenshot-presets
click 327 609 2                                   # Cancel

# 5. A rectangle selection on a fresh copy of the image, then the blur.
xdotool key ctrl+o; sleep 3
xdotool key ctrl+l; sleep 0.5
xdotool type --delay 20 "$IMAGE"; xdotool key Return; sleep 5
away; xdotool key r; sleep 0.5
xdotool mousemove 629 424 mousedown 1 sleep 0.3 mousemove 700 480 sleep 0.2 \
  mousemove 829 574 sleep 0.3 mouseup 1
sleep 1
gpu_filter 2 'Gaussian Blur \(GPU\)'
set_size 8
away; shot selection 1
crop selection 1080x410+5+325 screenshot-selection -colors 256
click 327 637 2                                   # Cancel

xdotool key ctrl+q; sleep 2; xdotool key ctrl+d
for ((i = 0; i < 30; i++)); do kill -0 "$GIMP_PID" 2>/dev/null || break; sleep 1; done
echo "== done: screenshots in $OUT (raw screens and logs in $W)"
