# Sourced by demo.sh and test.sh once they run where GIMP 3 is (natively or
# in the build root): configure and build one build folder.
#
#   gpufx_build BUILD_DIR [MESON_OPTION...]
#   gpufx_install_profile BUILD_DIR PROFILE_DIR XDG_DATA_DIR
#   gpufx_gimp_console            (prints the console binary's path)
#   gpufx_gimp_session BUILD_DIR OUT_DIR [MESON_OPTION...]

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

# The plug-in (with its catalogs) into PROFILE/plug-ins/ and the GEGL module
# into XDG/gegl-0.4/plug-ins/, where GEGL looks for one user's modules: a
# throwaway GIMP profile laid out exactly as `meson install' lays things
# out, without touching the build's settings.  Both folders start empty.
gpufx_install_profile ()
{
  local build=$1 profile=$2 xdg=$3 stage plugin module
  stage=$(mktemp -d)
  rm -rf "$profile" "$xdg"
  mkdir -p "$profile/plug-ins" "$xdg/gegl-0.4/plug-ins"
  DESTDIR=$stage meson install -C "$build" --no-rebuild --quiet --tags plugin,i18n \
    || { rm -rf "$stage"; return 1; }
  plugin=$(gpufx_installed_path "$build" /gpu-filters/gpu-filters)
  module=$(gpufx_installed_path "$build" /gpufx-ops.so)
  cp -r "$stage$(dirname "$plugin")" "$profile/plug-ins/" \
    && cp "$stage$module" "$xdg/gegl-0.4/plug-ins/"
  local status=$?
  rm -rf "$stage"
  return $status
}

# Where `meson install' puts the file whose path ends with SUFFIX.
gpufx_installed_path ()
{
  meson introspect "$1" --installed \
    | python3 -c 'import json,sys; print([v for v in json.load(sys.stdin).values() if v.endswith(sys.argv[1])][0])' "$2"
}

# GIMP 3.0 names its console gimp-console-3.0; 3.2 gimp-console-3.2,
# gimp-console-3 and gimp-console.
gpufx_gimp_console ()
{
  local c
  for c in gimp-console-3.0 gimp-console-3.2 gimp-console-3 gimp-console; do
    if command -v "$c" >/dev/null 2>&1; then
      command -v "$c"
      return 0
    fi
  done
  echo "no GIMP 3 console (gimp-console-3.0, -3.2, -3 or gimp-console) found" >&2
  return 1
}

# What demo.sh and bench-gimp.sh share: build, then a throwaway profile in
# OUT_DIR with the plug-in and the module installed.  Sets PROFILE, XDG (the
# data folder GEGL finds the module in), CACHE (babl's cache, kept per
# OUT_DIR) and GIMP_CONSOLE.
gpufx_gimp_session ()
{
  local build=$1 out=$2
  shift 2
  gpufx_build "$build" "$@" || return 1
  mkdir -p "$out"
  PROFILE=$out/gimp-profile
  XDG=$out/xdg-data
  CACHE=$out/xdg-cache
  gpufx_install_profile "$build" "$PROFILE" "$XDG" || return 1
  GIMP_CONSOLE=$(gpufx_gimp_console)
}
