#!/usr/bin/env bash
# Run a command where GIMP 3 development files exist.
#
# On a host that already has gimp-3.0 >= 3.0 and a GIMP 3 console (Debian 13,
# Ubuntu 25.04+) the command runs natively.  Elsewhere (Debian 12) it runs
# inside a cached Debian root made once with debootstrap: trixie (GIMP 3.0)
# by default, or sid (GIMP 3.2) with GIMP_GPU_FILTERS_SUITE=sid.  Each suite
# has its own root outside the checkout, so that every clone shares it; a
# stamp written last tells a finished root from one whose first run was
# interrupted.
#
# usage: build-aux/gimp3-root.sh COMMAND [ARG...]
#        build-aux/gimp3-root.sh --ensure      (only make the root)
#        build-aux/gimp3-root.sh --where       (print native or the root path)
# environment: GIMP_GPU_FILTERS_SUITE=trixie|sid  (default trixie)
#              GIMP_GPU_FILTERS_ROOT=DIR          (default /var/cache/gimp-gpu-filters/SUITE)
#              GIMP_GPU_FILTERS_FORCE_ROOT=1      (use the root even where GIMP 3 is native)
set -euo pipefail

SUITE=${GIMP_GPU_FILTERS_SUITE:-trixie}
case $SUITE in
  trixie|sid) ;;
  *) printf 'gimp3-root: GIMP_GPU_FILTERS_SUITE=%s: expected trixie (GIMP 3.0) or sid (GIMP 3.2)\n' \
       "$SUITE" >&2; exit 2 ;;
esac
ROOT=${GIMP_GPU_FILTERS_ROOT:-/var/cache/gimp-gpu-filters/$SUITE}
MIRROR=${GIMP_GPU_FILTERS_MIRROR:-http://deb.debian.org/debian}
# sid's Release file as the mirror serves it may be past its Valid-Until date.
APT_OPTS=
[ "$SUITE" = sid ] && APT_OPTS="-o Acquire::Check-Valid-Until=false"
# Bump when PACKAGES changes so that existing roots are completed.
ROOT_VERSION=4
PACKAGES="gimp libgimp-3.0-dev libgegl-dev libgtk-3-dev meson ninja-build gcc g++
  pkg-config gettext xvfb xauth python3-gi gir1.2-gimp-3.0 gir1.2-gegl-0.4
  python3-numpy python3-scipy python3-skimage python3-pil gegl ca-certificates"
# sid's gcc (16) is newer than CUDA 13.0's nvcc accepts (15 at most): nvcc
# gets g++-15 there as its host compiler (NVCC_CCBIN, set in inner below).
if [ "$SUITE" = sid ]; then
  PACKAGES="$PACKAGES g++-15"
  ROOT_VERSION=$ROOT_VERSION-sid1
fi
STAMP="$ROOT/.gimp-gpu-filters-ready"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-common.sh"

log () { printf 'gimp3-root: %s\n' "$*" >&2; }

# GIMP 3 here already: its development files and its console, whatever
# suffix the console carries (build-common.sh).  A suite asked for by name
# always uses its root.
host_has_gimp3 ()
{
  [ -z "${GIMP_GPU_FILTERS_FORCE_ROOT:-}" ] \
    && [ -z "${GIMP_GPU_FILTERS_SUITE:-}" ] \
    && command -v pkg-config >/dev/null 2>&1 \
    && pkg-config --atleast-version=3.0 gimp-3.0 gimpui-3.0 2>/dev/null \
    && gpufx_gimp_console >/dev/null 2>&1
}

root_is_ready ()
{
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$ROOT_VERSION" ]
}

make_root ()
{
  if [ "$(id -u)" != 0 ]; then
    log "making the GIMP 3 build root needs root (it runs debootstrap and chroot)"
    exit 1
  fi
  if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap"
    apt-get update -q >/dev/null && apt-get install -y -q debootstrap >/dev/null
  fi
  local t0=$SECONDS
  # A root without the stamp is half made: the package set may be partial,
  # so start again rather than guess what is missing.
  if [ -e "$ROOT" ] && [ ! -f "$ROOT/.debootstrap-done" ]; then
    log "removing a half-made root at $ROOT"
    umount_all
    rm -rf --one-file-system "$ROOT"
  fi
  if [ ! -e "$ROOT" ]; then
    log "debootstrap $SUITE into $ROOT (once; a minute or two)"
    mkdir -p "$(dirname "$ROOT")"
    debootstrap --variant=minbase "$SUITE" "$ROOT.tmp" "$MIRROR" >/tmp/gimp3-root-$SUITE-debootstrap.log 2>&1 \
      || { log "debootstrap failed; see /tmp/gimp3-root-$SUITE-debootstrap.log"; rm -rf --one-file-system "$ROOT.tmp"; exit 1; }
    touch "$ROOT.tmp/.debootstrap-done"
    mv "$ROOT.tmp" "$ROOT"
  fi
  log "installing GIMP 3 ($SUITE) and build tools into the root (once; a few minutes)"
  cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
  in_root_raw env DEBIAN_FRONTEND=noninteractive bash -c \
    "apt-get $APT_OPTS update -q && apt-get $APT_OPTS install -y -q --no-install-recommends $(echo $PACKAGES)" \
    >/tmp/gimp3-root-$SUITE-apt.log 2>&1 \
    || { log "apt-get in the root failed; see /tmp/gimp3-root-$SUITE-apt.log"; exit 1; }
  in_root_raw apt-get clean >/dev/null 2>&1 || true
  echo "$ROOT_VERSION" > "$STAMP"
  log "root ready in $((SECONDS - t0)) s ($(du -sh --one-file-system "$ROOT" | cut -f1))"
}

# Mounts are made in a private mount namespace (unshare), so they vanish when
# the command ends whatever way it ends; the trap unmounts them explicitly too.
MOUNTS=()
umount_all ()
{
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    umount -l "${MOUNTS[$i]}" 2>/dev/null || true
  done
  MOUNTS=()
}

bind ()
{
  local src=$1 dst="$ROOT$2" opt=${3:-}
  mkdir -p "$dst"
  mount --bind "$src" "$dst"
  [ "$opt" = ro ] && mount -o remount,bind,ro "$dst" 2>/dev/null || true
  MOUNTS+=("$dst")
}

in_root_raw ()
{
  unshare --mount --propagation private -- "$0" --inner "$PWD" "$@"
}

inner ()
{
  local cwd=$1; shift
  trap umount_all EXIT
  bind /proc /proc
  bind /dev /dev
  mount -t tmpfs tmpfs "$ROOT/dev/shm" 2>/dev/null && MOUNTS+=("$ROOT/dev/shm") || true
  mkdir -p "$ROOT/tmp"; chmod 1777 "$ROOT/tmp"
  # The checkout keeps its own path inside the root so that build folders and
  # error messages mean the same thing on both sides.
  local top
  top=$(git -C "$cwd" rev-parse --show-toplevel 2>/dev/null || echo "$cwd")
  bind "$top" "$top"
  [ -d /usr/local/cuda/ ] && bind "$(readlink -f /usr/local/cuda)" /usr/local/cuda ro
  # Results written to $OUT or a --out folder outside the checkout survive.
  [ -n "${GPUFX_OUT:-}" ] && mkdir -p "$GPUFX_OUT" && bind "$GPUFX_OUT" "$GPUFX_OUT"
  local status=0
  [ "$SUITE" = sid ] && [ -z "${NVCC_CCBIN:-}" ] && NVCC_CCBIN=g++-15
  chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/cuda/bin \
    CI="${CI:-}" GPUFX_OUT="${GPUFX_OUT:-}" GPUFX_IN_ROOT=1 \
    ${NVCC_CCBIN:+NVCC_CCBIN="$NVCC_CCBIN"} \
    bash -c 'cd "$0" && exec "$@"' "$cwd" "$@" || status=$?
  exit $status
}

case "${1:-}" in
  --inner) shift; inner "$@" ;;
  --ensure) host_has_gimp3 || root_is_ready || make_root; exit 0 ;;
  --where) if host_has_gimp3; then echo native; else echo "$ROOT"; fi; exit 0 ;;
  "") echo "usage: $0 COMMAND [ARG...] | --ensure | --where" >&2; exit 2 ;;
esac

if host_has_gimp3 || [ -n "${GPUFX_IN_ROOT:-}" ]; then
  exec "$@"
fi
root_is_ready || make_root
in_root_raw "$@"
