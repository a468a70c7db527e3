# Sourced by demo.sh and test.sh once they run where GIMP 3 is (natively or
# in the build root): configure and build one build folder.
#
#   gpufx_build BUILD_DIR [MESON_OPTION...]

gpufx_build ()
{
  local build=$1; shift
  local t0=$SECONDS
  if [ ! -f "$build/build.ninja" ]; then
    echo "== meson setup $build $*"
    meson setup "$build" "$@" || return 1
  elif [ $# -gt 0 ]; then
    meson configure "$build" "$@" >/dev/null || return 1
  fi
  echo "== building in $build ($(nproc) cores)"
  local jobs=$(nproc)
  [ -n "${CI:-}" ] && jobs=2
  meson compile -C "$build" -j "$jobs" || return 1
  echo "== build: $((SECONDS - t0)) s"
}
