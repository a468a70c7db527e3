#!/usr/bin/env bash
# The main job: build, install the plug-in and the GEGL module into a
# throwaway GIMP profile, run GIMP 3 headless on tests/data/coffee.png with
# every GPU filter, through its GEGL operation and through its PDB
# procedure, and write the results into ./out/, printing backend and time.
#
# usage: build-aux/demo.sh [BUILD_DIR [OUT_DIR [MESON_OPTION...]]]
#        (defaults: ./build and ./out)
#
# Runs natively where GIMP 3 development files exist, otherwise in the
# cached Debian trixie build root (build-aux/gimp3-root.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")

if [ "${1:-}" != --here ]; then
  exec "$HERE/gimp3-root.sh" "$HERE/demo.sh" --here "$@"
fi
shift
BUILD=${1:-$TOP/build}; [ $# -gt 0 ] && shift
OUT=${1:-$TOP/out}; [ $# -gt 0 ] && shift
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
case $OUT in /*) ;; *) OUT=$TOP/$OUT ;; esac

cd "$TOP"
. "$HERE/build-common.sh"
# The plug-in and the module in a throwaway profile of their own.
gpufx_gimp_session "$BUILD" "$OUT" "$@" || exit 1
echo "== plug-in installed into the throwaway profile $PROFILE"
echo "== GEGL module installed into $XDG/gegl-0.4/plug-ins"

echo "== GIMP 3 headless: $("$GIMP_CONSOLE" --version 2>/dev/null | head -1)"
t0=$(date +%s.%N)
GIMP3_DIRECTORY=$PROFILE XDG_DATA_HOME=$XDG XDG_CACHE_HOME=$CACHE GPUFX_DEMO_IN=$TOP/tests/data/coffee.png \
GPUFX_DEMO_OUT=$OUT LANG=C.UTF-8 GPU_FILTERS_VERBOSE=1 \
  timeout 600 "$GIMP_CONSOLE" -i -n -d -f \
    --batch-interpreter=python-fu-eval \
    -b "exec(open('$HERE/demo-batch.py').read())" --quit \
  > "$OUT/gimp.log" 2>&1 || { cat "$OUT/gimp.log"; echo "demo: GIMP failed"; exit 1; }
grep -E '^demo:' "$OUT/gimp.log" | sed 's/^demo: //'
# The operations say where each piece of work ran (GPU_FILTERS_VERBOSE).
echo "== where the operations ran (chunks per operation and backend):"
sed -n 's/^gpufx: \(gpufx:[a-z-]*\) .* on \([a-z]*\):.*/\1 on \2/p' "$OUT/gimp.log" | sort | uniq -c
grep -q '^demo: done' "$OUT/gimp.log" || { cat "$OUT/gimp.log"; exit 1; }
echo "== GIMP session: $(python3 -c "import time; print('%.1f' % (time.time() - $t0))") s; results in $OUT"
ls -l "$OUT"/*.png
