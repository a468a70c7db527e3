#!/bin/bash
# gimp-gpu-filters: everything the GPU machine is for, in one call:
# build natively with CUDA (sm_90 only), run the gpu and engine suites,
# compute-sanitizer (memcheck, racecheck, synccheck) on the quick gpu test,
# the benchmarks (before the sanitizers, so that a slow sanitizer cannot
# cost them), and a short table last.  Full logs go to $OUT when set
# (at most 8 files come back), else to /tmp/gpufx-run.
#   build-aux/gpu-machine-run.sh [--no-sanitizers] [--no-bench] [--no-engine]
#                                [--gegl | --gegl-only]
# --gegl adds, last, our GEGL operations against GEGL's own filters in a
# real GEGL (build-aux/gpu-machine-gegl.sh, which needs the tree that
# build-aux/gegl-mini-root.sh packs into .device-gegl/: name .device-gegl in
# the run tool's carry); --gegl-only runs that step alone, with no build.
# GEGL_BENCH_ARGS passes arguments to the GEGL benchmark.
# BASELINE=DIR (relative to the root) holds another version of
# kernels/cuda (DIR/cuda; name DIR in the run tool's carry when git ignores
# it): its bench-gpu is built beside this tree's and run in the same call,
# right after this tree's, and compare.md puts the two side by side.
# PEERS=0 skips the NPP and CuPy peers.  With BASELINE, the peers and
# racecheck there are 10 files: pack some (env.txt, tests.log,
# racecheck.log) into one archive after the script for the run tool.
# Environment: GPUFX_NO_BENCH=1 is --no-bench; SAN_TOOLS (default
# "memcheck racecheck synccheck") picks the sanitizer tools, in order;
# SAN_TIMEOUT (seconds, default 300) limits each tool's run; SAN_ARGS
# (default --quick) are the gpu test's arguments under the sanitizers, e.g.
# "--quick --only gaussian" for the group a change touched.  A tool's
# rc=124 means that timeout, not a crash.  The racecheck log is kept whole
# (racecheck.log: every comparison with its time).
# The NPP peer (tests/bench/gpu/bench-npp) is built only where the toolkit
# has npp.h; ninja -k 0 lets everything else build if it fails.
set -u
cd "$(dirname "$0")/.."
OUTDIR=${OUT:-/tmp/gpufx-run}
mkdir -p "$OUTDIR"
BUILD=/tmp/build-gpu
SAN=1; BENCH=1; ENGINE=1; GEGL=0; GEGL_ONLY=0
[ "${GPUFX_NO_BENCH:-0}" = 1 ] && BENCH=0
for a in "$@"; do
  case $a in
    --no-sanitizers) SAN=0;; --no-bench) BENCH=0;; --no-engine) ENGINE=0;;
    --gegl) GEGL=1;; --gegl-only) GEGL=1; GEGL_ONLY=1;;
  esac
done
SAN_TOOLS=${SAN_TOOLS:-memcheck racecheck synccheck}
SAN_TIMEOUT=${SAN_TIMEOUT:-300}
export PATH=/usr/local/cuda/bin:$PATH
MESON=meson
command -v meson >/dev/null || MESON="python3 -m mesonbuild.mesonmain"
summary=()
step () { summary+=("$(printf '%-28s %s' "$1" "$2")"); }

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -1; gcc --version | head -1; $MESON --version
} > "$OUTDIR/env.txt" 2>&1
cat "$OUTDIR/env.txt"

gegl_step ()
{
  # Word splitting of GEGL_BENCH_ARGS is wanted: it is a list of arguments.
  # shellcheck disable=SC2086
  bash build-aux/gpu-machine-gegl.sh ${GEGL_BENCH_ARGS:-}
}
if [ $GEGL_ONLY = 1 ]; then
  gegl_step
  exit $?
fi

if [ -n "${BASELINE:-}" ] && [ $BENCH = 1 ]; then
  # The baseline bench builds in the background, beside this tree's build.
  (rm -rf /tmp/gpufx-base-src /tmp/build-base && mkdir -p /tmp/gpufx-base-src \
   && tar --exclude=.git --exclude="./build*" --exclude=./.baseline -cf - . \
        | tar -xf - -C /tmp/gpufx-base-src \
   && rm -rf /tmp/gpufx-base-src/kernels/cuda \
   && cp -r "$BASELINE/cuda" /tmp/gpufx-base-src/kernels/cuda \
   && cd /tmp/gpufx-base-src \
   && $MESON setup /tmp/build-base -Dcuda=enabled -Dgimp=disabled \
        -Dgegl_io=disabled -Dgpu_archs=90 \
   && ninja -C /tmp/build-base tests/bench/gpu/bench-gpu) \
    > /tmp/gpufx-build-base.log 2>&1 &
  BASE_PID=$!
fi
rm -rf $BUILD
if $MESON setup $BUILD -Dcuda=enabled -Dgimp=disabled -Dgegl_io=disabled \
     -Dgpu_archs=90 > "$OUTDIR/build.log" 2>&1 \
   && ninja -C $BUILD -k 0 >> "$OUTDIR/build.log" 2>&1; then
  step build ok
else
  step build FAILED; grep -E "error|FAILED" "$OUTDIR/build.log" | head -30
fi
readelf -d $BUILD/cli/gpufx 2>/dev/null | grep -q libcudart && step "static cudart" "NO (libcudart.so needed)" || step "static cudart" ok

$MESON test -C $BUILD --suite gpu --print-errorlogs > "$OUTDIR/tests.log" 2>&1
step "gpu suite" "$(grep -E '^(Ok|Fail|Skipped|Timeout):' "$OUTDIR/tests.log" | tr -s ' ' | tr '\n' ' ')"
if [ $ENGINE = 1 ]; then
  $MESON test -C $BUILD --suite engine --timeout-multiplier 0.4 --print-errorlogs >> "$OUTDIR/tests.log" 2>&1
  step "engine suite" "$(grep -E '^(Ok|Fail|Skipped|Timeout):' "$OUTDIR/tests.log" | tr -s ' ' | tr '\n' ' ')"
fi
grep -E "FAIL|SKIP:|comparisons" "$OUTDIR/tests.log" | head -20

if [ $BENCH = 1 ]; then
  $BUILD/tests/bench/gpu/bench-gpu > "$OUTDIR/bench.md" 2>&1
  step bench "rc=$?"
  if [ -n "${BASE_PID:-}" ]; then
    wait $BASE_PID
    { echo "== baseline build"; cat /tmp/gpufx-build-base.log; } >> "$OUTDIR/build.log"
    /tmp/build-base/tests/bench/gpu/bench-gpu > "$OUTDIR/bench-base.md" 2>&1
    step "bench baseline" "rc=$?"
    # Rows of both, keyed by size, filter and implementation.
    awk -F'|' 'FNR == 1 { f++ } /^\| [0-9]+x[0-9]+ / {
        k = $2 "|" $3 "|" $4; gsub (/  +/, " ", k)
        if (f == 1) base[k] = $5; else if (k in base) {
          printf "| %s | %s | %s | %.2fx |\n", k, base[k] + 0, $5 + 0,
                 ($5 > 0 ? base[k] / $5 : 0) } }' \
      "$OUTDIR/bench-base.md" "$OUTDIR/bench.md" > "$OUTDIR/compare.md"
  fi
  if [ "${PEERS:-1}" = 0 ]; then
    step peers "skipped (PEERS=0)"
  elif [ -x $BUILD/tests/bench/gpu/bench-npp ]; then
    timeout 150 $BUILD/tests/bench/gpu/bench-npp > "$OUTDIR/bench-npp.md" 2>&1
    step bench-npp "rc=$?"
  else
    echo "bench-npp not built (no npp.h or NPP libraries, or it failed to compile: see build.log)" > "$OUTDIR/bench-npp.md"
    step bench-npp "not built"
  fi
  if [ "${PEERS:-1}" != 0 ]; then
    PYTHONUNBUFFERED=1 timeout 90 python3 tests/bench/gpu/bench-cupy.py > "$OUTDIR/bench-cupy.md" 2>&1
    step bench-cupy "rc=$?"
    cat "$OUTDIR/bench-npp.md" "$OUTDIR/bench-cupy.md"
  fi
  cat "$OUTDIR/bench.md"
  [ -f "$OUTDIR/compare.md" ] && { echo "| size | filter | impl | baseline ms | ms | speed-up |"; cat "$OUTDIR/compare.md"; }
fi

if [ $SAN = 1 ] && command -v compute-sanitizer >/dev/null; then
  : > "$OUTDIR/sanitizer.log"
  for tool in $SAN_TOOLS; do
    extra=""; [ $tool = memcheck ] && extra="--leak-check full"
    # Line-buffered and verbose: if the target dies, the log shows where.
    t0=$(date +%s)
    VERBOSE=1 timeout $SAN_TIMEOUT compute-sanitizer --tool $tool $extra --error-exitcode 9 \
      $BUILD/tests/gpu/test-gpu-vs-cpu ${SAN_ARGS:---quick} > /tmp/gpufx-san-$tool.log 2>&1
    rc=$?
    secs=$(( $(date +%s) - t0 ))
    grep -v "^ok " /tmp/gpufx-san-$tool.log >> "$OUTDIR/sanitizer.log"
    [ $tool = racecheck ] && cp /tmp/gpufx-san-$tool.log "$OUTDIR/racecheck.log"
    [ $rc != 0 ] && { echo "== $tool rc=$rc, last lines:"; tail -4 /tmp/gpufx-san-$tool.log; }
    step "sanitizer $tool" "$([ $rc = 0 ] && echo clean || echo "rc=$rc")$([ $rc = 124 ] && echo ' (timeout)') ${secs}s"
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|========= [A-Z]" "$OUTDIR/sanitizer.log" | sort | uniq -c | head -20
fi

if [ $GEGL = 1 ]; then
  gegl_step
  step "gegl bench" "rc=$?"
fi

echo; echo "== summary =="
printf '%s\n' "${summary[@]}"
