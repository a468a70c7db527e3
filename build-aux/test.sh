#!/usr/bin/env bash
# Build everything and run the whole test suite (engine, CLI, plug-in in a
# headless GIMP 3, GPU where there is one); prints meson's test summary.
#
# usage: build-aux/test.sh [BUILD_DIR] [MESON_OPTION...]
#        (default build folder: ./build; options e.g. -Dcuda=disabled)
#        GIMP_GPU_FILTERS_SUITE=sid build-aux/test.sh build-sid -Dcuda=disabled
#        (the same against GIMP 3.2 in a Debian sid root; trixie, GIMP 3.0,
#        is the default)
#
# Where the host lacks GIMP 3 development files (Debian 12), or a suite is
# named, this runs in that suite's cached Debian build root
# (build-aux/gimp3-root.sh), natively elsewhere.  Making a root the first
# time needs root and a few minutes.  The plug-in tests are part of every
# run: a build without them (no GIMP 3, no console) fails.
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
status=0
if console=$(gpufx_gimp_console); then
  echo "== GIMP: $("$console" --version 2>/dev/null | head -n 1) ($console)"
else
  status=1
fi
# A build without the plug-in (no GIMP 3 development files, -Dgimp=disabled)
# registers no plug-in tests; its green summary would prove nothing.
if ! meson test -C "$BUILD" --no-rebuild --list --suite plugin 2>/dev/null | grep -q .; then
  echo "FAILED: $BUILD has no plug-in tests (suite plugin): GIMP 3 development files missing or -Dgimp=disabled"
  status=1
fi
echo "== meson test (all suites)"
meson test -C "$BUILD" --no-rebuild --print-errorlogs \
  --num-processes "$( [ -n "${CI:-}" ] && echo 2 || nproc )" || status=$?
echo "== tests: $((SECONDS - t0)) s in all; log: $BUILD/meson-logs/testlog.txt"
python3 "$HERE/test-summary.py" "$BUILD" || status=1
exit $status
