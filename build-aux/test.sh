#!/usr/bin/env bash
# Build everything and run the whole test suite (engine, CLI, plug-in in a
# headless GIMP 3, GPU where there is one); prints meson's test summary.
#
# usage: build-aux/test.sh [BUILD_DIR] [MESON_OPTION...]
#        (default build folder: ./build; options e.g. -Dcuda=disabled)
#
# Where the host lacks GIMP 3 development files (Debian 12) this runs in the
# cached Debian trixie build root (build-aux/gimp3-root.sh), natively
# elsewhere.  Making the root the first time needs root and a few minutes.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")

if [ "${1:-}" != --here ]; then
  exec "$HERE/gimp3-root.sh" "$HERE/test.sh" --here "$@"
fi
shift
BUILD=${1:-$TOP/build}
[ $# -gt 0 ] && shift
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac

cd "$TOP"
. "$HERE/build-common.sh"
t0=$SECONDS
gpufx_build "$BUILD" "$@"
echo "== meson test (all suites)"
status=0
meson test -C "$BUILD" --no-rebuild --print-errorlogs \
  --num-processes "$( [ -n "${CI:-}" ] && echo 2 || nproc )" || status=$?
echo "== tests: $((SECONDS - t0)) s in all; log: $BUILD/meson-logs/testlog.txt"
python3 "$HERE/test-summary.py" "$BUILD" || status=1
exit $status
