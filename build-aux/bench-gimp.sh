#!/usr/bin/env bash
# The GIMP benchmark: build, install the plug-in and the GEGL module into a
# throwaway profile, then run GIMP 3 headless ONCE with a Python-Fu batch
# (tests/bench/gimp/bench_gimp.py) that times, on photos of 1920 x 1080 and
# 6000 x 4000 at 8-bit and 32-bit float: our operations through
# Gimp.DrawableFilter, our PDB procedures, and GIMP's built-in equivalents.
# Prints a Markdown table (also written to OUT_DIR/bench-gimp.md).
#
# usage: build-aux/bench-gimp.sh [--quick] [BUILD_DIR [OUT_DIR [MESON_OPTION...]]]
#        (defaults: ./build and ./out/bench-gimp; --quick: small size only)
#
# Runs natively where GIMP 3 development files exist, otherwise in the
# cached Debian trixie build root (build-aux/gimp3-root.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")

if [ "${1:-}" != --here ]; then
  # git is not in the build root: name the commit here.
  COMMIT=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)
  exec "$HERE/gimp3-root.sh" "$HERE/bench-gimp.sh" --here "$COMMIT" "$@"
fi
shift
COMMIT=$1; shift
QUICK=0
if [ "${1:-}" = --quick ]; then QUICK=1; shift; fi
BUILD=${1:-$TOP/build}; [ $# -gt 0 ] && shift
OUT=${1:-$TOP/out/bench-gimp}; [ $# -gt 0 ] && shift
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
case $OUT in /*) ;; *) OUT=$TOP/$OUT ;; esac

cd "$TOP"
. "$HERE/build-common.sh"
# The plug-in and the module in a throwaway profile of their own.
gpufx_gimp_session "$BUILD" "$OUT" "$@" || exit 1

echo "== GIMP 3 headless, one session: $("$GIMP_CONSOLE" --version 2>/dev/null | head -1)"
t0=$(date +%s)
GIMP3_DIRECTORY=$PROFILE XDG_DATA_HOME=$XDG XDG_CACHE_HOME=$CACHE LANG=C.UTF-8 \
GPUFX_BENCH_IN=$TOP/tests/data/coffee.png GPUFX_BENCH_OUT=$OUT/bench-gimp.md \
GPUFX_BENCH_COMMIT=$COMMIT GPUFX_BENCH_QUICK=$QUICK \
  timeout 3000 "$GIMP_CONSOLE" -i -n -d -f \
    --batch-interpreter=python-fu-eval \
    -b "exec(open('$TOP/tests/bench/gimp/bench_gimp.py').read())" --quit \
  > "$OUT/gimp.log" 2>&1 || { tail -50 "$OUT/gimp.log"; echo "bench-gimp: GIMP failed"; exit 1; }
grep -q '^bench: done' "$OUT/gimp.log" || { tail -50 "$OUT/gimp.log"; echo "bench-gimp: no result"; exit 1; }
cat "$OUT/bench-gimp.md"
echo "== GIMP session: $(( $(date +%s) - t0 )) s; table in $OUT/bench-gimp.md, log in $OUT/gimp.log"
