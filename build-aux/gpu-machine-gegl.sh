#!/bin/bash
# gimp-gpu-filters: our GEGL operations with the CUDA backend in a real GEGL,
# on a machine that has no GEGL (the GPU machine).  Unpacks the tree that
# build-aux/gegl-mini-root.sh packed, adds this machine's NVIDIA user-space
# driver (libcuda and what it loads), binds /dev, /proc and /sys in a
# private mount namespace, and runs tests/bench/gegl/bench-gegl inside.
# The table goes to stdout and $OUT/gegl-bench$TAG.md, the log (every run's
# time, anything GEGL or the module said) to $OUT/gegl-bench$TAG.log (OUT
# defaults to /tmp/gpufx-run; TAG is GEGL_BENCH_TAG, default empty).
#
#   build-aux/gpu-machine-gegl.sh [BENCH-ARG...]
# Environment: GEGL_MINI_TAR (default .device-gegl/gegl-mini-root.tar.gz),
# GEGL_MINI_DIR (where it is unpacked, default /tmp/gegl-mini-root),
# GEGL_BENCH_TIMEOUT (seconds, default 300; rc 124 means it ran out);
# GPU_FILTERS_VERBOSE=1 passes on (the module then logs each chunk's times).
# Without a driver (a machine with no GPU) it still runs: the cuda rows then
# show what the module does when CUDA is missing.
set -u
cd "$(dirname "$0")/.."
TAR=${GEGL_MINI_TAR:-.device-gegl/gegl-mini-root.tar.gz}
R=${GEGL_MINI_DIR:-/tmp/gegl-mini-root}
OUTDIR=${OUT:-/tmp/gpufx-run}
TAG=${GEGL_BENCH_TAG:-}
mkdir -p "$OUTDIR"

if [ "${1:-}" != --inner ]; then
  [ -f "$TAR" ] || { echo "gpu-machine-gegl: no $TAR (make it with build-aux/gegl-mini-root.sh)"; exit 1; }
  rm -rf "$R"; mkdir -p "$R"
  tar -xzf "$TAR" -C "$R" || exit 1
  # The driver's user-space libraries, found the way the loader finds them,
  # copied whole (links resolved) under the names the loader asks for.
  mkdir -p "$R/nvidia"
  libs=$(ldconfig -p 2>/dev/null | awk '/x86-64/ && /(libcuda|libnvidia-ptxjitcompiler|libnvidia-gpucomp|libnvidia-nvvm|libnvidia-ml)\.so/ {print $NF}')
  [ -z "$libs" ] && libs=$(find /usr/local/nvidia /usr/lib/x86_64-linux-gnu /usr/lib64 -maxdepth 2 \
    \( -name 'libcuda.so*' -o -name 'libnvidia-ptxjitcompiler.so*' -o -name 'libnvidia-gpucomp.so*' \
       -o -name 'libnvidia-nvvm.so*' -o -name 'libnvidia-ml.so*' \) 2>/dev/null)
  for l in $libs; do cp -L "$l" "$R/nvidia/$(basename "$l")" 2>/dev/null; done
  echo "driver libraries: $(ls "$R/nvidia" | tr '\n' ' ')"
  [ -e "$R/nvidia/libcuda.so.1" ] || echo "gpu-machine-gegl: no libcuda.so.1 here: CUDA cannot run"
  echo "tree: $(du -sh "$R" | cut -f1) unpacked from $(du -h "$TAR" | cut -f1)"
  exec unshare --mount --propagation private -- "$0" --inner "$@"
fi

shift
mount --bind /dev "$R/dev" && mount --bind /proc "$R/proc" && mount --bind /sys "$R/sys" \
  || { echo "gpu-machine-gegl: bind mounts failed (not root?)"; exit 1; }
mount -t tmpfs tmpfs "$R/dev/shm" 2>/dev/null || true
CHROOT=$(command -v chroot || echo /usr/sbin/chroot)
run_in ()
{
  timeout "${GEGL_BENCH_TIMEOUT:-300}" env -i HOME=/tmp LANG=C TMPDIR=/tmp XDG_DATA_HOME=/xdg XDG_CACHE_HOME=/tmp/cache \
    GEGL_SWAP=/tmp/gegl-swap LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/nvidia \
    ${GPU_FILTERS_VERBOSE:+GPU_FILTERS_VERBOSE=$GPU_FILTERS_VERBOSE} \
    "$CHROOT" "$R" "$@"
}
if [ -e "$R/nvidia/libcuda.so.1" ]; then
  run_in /usr/lib64/ld-linux-x86-64.so.2 --list /nvidia/libcuda.so.1 2>&1 | grep -i "not found" \
    && echo "gpu-machine-gegl: libcuda misses libraries in the tree"
fi
cat "$R/etc/gegl-mini-root" 2>/dev/null
echo "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo no nvidia-smi)"
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
echo "devices: $(ls /dev/nvidia* 2>/dev/null | tr '\n' ' ')"
echo "command: bench-gegl $*"
set -o pipefail
run_in /bin/bench-gegl "$@" 2> "$OUTDIR/gegl-bench$TAG.log" | tee "$OUTDIR/gegl-bench$TAG.md"
rc=$?
echo "bench-gegl rc=$rc"
# The log holds the per-run times and anything GEGL or the module said.
grep -v "^  \|^ *[0-9.]*$\|^$" "$OUTDIR/gegl-bench$TAG.log" | grep -v ":$" | sed "s/[0-9][0-9]:[0-9][0-9]:[0-9.]*: //" | sort | uniq -c | sort -rn | head -12
exit $rc
