#!/usr/bin/env bash
# Pack a minimal root that runs tests/bench/gegl/bench-gegl (our GEGL module
# against GEGL's own filters) on a machine that has no GEGL: the GPU machine.
#
# Runs here, as root, through the trixie build root of build-aux/gimp3-root.sh
# (GEGL 0.4.62, babl).  It builds BUILD (our module gpufx-ops.so, which must
# be configured already: for the GPU, -Dcuda=enabled -Dgpu_archs=90) and the
# bench program, then copies into one tree: the program, the dynamic loader,
# the ldd closure of the program, libgegl, babl, babl's extensions, GEGL's op
# modules that hold the filters the benchmark uses (gegl-common*,
# gegl-common-gpl3*, gegl-common-cxx*, gegl-core, gegl-generated*) and our
# module as a user plug-in ($XDG_DATA_HOME=/xdg).  Nothing of the NVIDIA
# driver goes in: build-aux/gpu-machine-gegl.sh adds the GPU machine's own.
#
# usage: build-aux/gegl-mini-root.sh [BUILD [TARBALL]]
#   BUILD    default build-gegl
#   TARBALL  default .device-gegl/gegl-mini-root.tar.gz (.device-gegl/ is
#            ignored through .git/info/exclude; name it in the run tool's carry)
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
BUILD=${1:-build-gegl}
TARBALL=${2:-.device-gegl/gegl-mini-root.tar.gz}
ROOTSH=build-aux/gimp3-root.sh

log () { printf 'gegl-mini-root: %s\n' "$*" >&2; }

mkdir -p "$(dirname "$TARBALL")"
case $TARBALL in
  .device-gegl/*)
    exclude=$(git rev-parse --git-path info/exclude)
    mkdir -p "$(dirname "$exclude")"
    grep -qx '/.device-gegl/' "$exclude" 2>/dev/null \
      || echo '/.device-gegl/' >> "$exclude" ;;
esac

[ -f "$BUILD/build.ninja" ] || { log "$BUILD is not configured (meson setup $BUILD -Dcuda=enabled -Dgpu_archs=90 -Dgimp=disabled, through $ROOTSH)"; exit 1; }
log "building $BUILD"
$ROOTSH meson compile -C "$BUILD" -j2 >/dev/null
mkdir -p "$BUILD/bench-gegl-mini"
$ROOTSH bash -c "gcc -O2 -Wall -Wextra -Wno-unused-parameter \
  -o $BUILD/bench-gegl-mini/bench-gegl tests/bench/gegl/bench-gegl.c \
  \$(pkg-config --cflags --libs gegl-0.4) -lm"

MODULE=$BUILD/operations/gpufx-ops.so
[ -f "$MODULE" ] || { log "no $MODULE: the tree gets GEGL's filters only"; MODULE=; }

# Everything else happens inside the build root, where ldd resolves what the
# root has; the tree is staged in the root's /tmp and packed from there.
$ROOTSH env TOP="$TOP" BUILD="$BUILD" MODULE="$MODULE" TARBALL="$TARBALL" bash -c '
set -euo pipefail
S=/tmp/gegl-mini-stage
ML=/usr/lib/x86_64-linux-gnu
rm -rf $S
mkdir -p $S/bin $S/xdg/gegl-0.4/plug-ins $S$ML/gegl-0.4 $S$ML/babl-0.1 \
  $S/usr/lib64 $S/tmp $S/dev $S/proc $S/sys $S/nvidia $S/etc
chmod 1777 $S/tmp
ln -s usr/lib $S/lib
ln -s usr/lib64 $S/lib64
cp $BUILD/bench-gegl-mini/bench-gegl $S/bin/
for m in gegl-common gegl-common-gpl3 gegl-common-cxx gegl-core gegl-generated; do
  cp $ML/gegl-0.4/$m.so $ML/gegl-0.4/$m-x86_64-v*.so $S$ML/gegl-0.4/ 2>/dev/null \
    || cp $ML/gegl-0.4/$m.so $S$ML/gegl-0.4/
done
cp $ML/babl-0.1/*.so $S$ML/babl-0.1/
[ -n "$MODULE" ] && cp "$MODULE" $S/xdg/gegl-0.4/plug-ins/
# glibc pieces that libcuda (added on the GPU machine) may ask for by name.
extra="$ML/libdl.so.2 $ML/libpthread.so.0 $ML/librt.so.1"
{
  for f in $S/bin/bench-gegl $S$ML/gegl-0.4/*.so $S$ML/babl-0.1/*.so \
           $S/xdg/gegl-0.4/plug-ins/*.so; do
    [ -f "$f" ] && ldd "$f"
  done
} | awk "/=> \\//{print \$3} /^[ \t]*\\/lib64\\//{print \$1}" | sort -u > /tmp/gegl-mini-libs
for lib in $(cat /tmp/gegl-mini-libs) $extra; do
  case $lib in
    */ld-linux-x86-64.so.2) cp -L "$lib" $S/usr/lib64/ ;;
    *) cp -L "$lib" $S$ML/ ;;
  esac
done
# A minimal /etc: some libraries look up the user or the hosts file.
echo "root:x:0:0:root:/tmp:/bin/sh" > $S/etc/passwd
echo "root:x:0:" > $S/etc/group
printf "GEGL mini root, made %s from the trixie build root\n" "$(date -u +%F)" > $S/etc/gegl-mini-root
# Check that the loader finds everything without the host.
if ! LD_LIBRARY_PATH=$ML:/nvidia chroot $S /usr/lib64/ld-linux-x86-64.so.2 --list /bin/bench-gegl >/tmp/gegl-mini-ldd 2>&1 \
   || grep -q "not found" /tmp/gegl-mini-ldd; then
  cat /tmp/gegl-mini-ldd; echo "gegl-mini-root: the tree misses libraries" >&2; exit 1
fi
strip --strip-unneeded $S/bin/bench-gegl 2>/dev/null || true
tar -C $S -czf "$TOP/$TARBALL" .
echo "files: $(find $S -type f | wc -l), unpacked $(du -sh $S | cut -f1)"
rm -rf $S
'
log "packed $TARBALL: $(du -h "$TARBALL" | cut -f1)"
