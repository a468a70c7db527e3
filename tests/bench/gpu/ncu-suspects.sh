#!/bin/bash
# gimp-gpu-filters: ncu on the GPU machine for the kernels NOTES-gpu.md
# suspects, run over bench-gpu (4K device-resident launches).
#   tests/bench/gpu/ncu-suspects.sh BUILD OUTDIR [what ...]
# what: gauss (cosines, σ = 50, row and column pass), sobel, conv, kuwa
# (r = 10).
# Each is named by its index among the kernel's launches on the stream of
# bench-gpu's device-resident rows (the first launch's): the host-to-host
# rows (gpufx_run) launch the same kernels on the backend's own streams, a
# number of times that depends on the backend's banding, so a plain skip
# count over all launches lands on them.  A first pass (one cheap metric
# per launch) lists every launch with its stream; the second profiles the
# launch found.  The indices assume bench-gpu's order: 1080p before 4K,
# and each row timed twice (time_both: the GPU's time, then the call from
# an idle GPU), each time 3 warm-ups then the timed launches.
set -u
B=$1; O=$2; shift 2
# ncu waits for each launch: bench-gpu's blocking kernel would wait for it.
export GPUFX_BENCH_NO_HOLD=1
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
[ -n "$NCU" ] || { echo "no ncu"; exit 1; }
S=(--section SpeedOfLight --section Occupancy --section LaunchStats
   --section WarpStateStats --section ComputeWorkloadAnalysis
   --section MemoryWorkloadAnalysis --section SchedulerStats
   --section InstructionStats)
for w in "$@"; do
  case $w in
    # Cosine σ 16, 25, 50, 100, 120, 150, 200, 500, 1500, each 2 x 13
    # launches of a row and a column pass: 1080p 9 x 52, 4K σ = 16, 25:
    # 2 x 52, then σ = 50's 3 warm-ups (6 launches) and its first timed
    # pair.
    gauss) k=lines_cosines; idx=$((9 * 52 + 2 * 52 + 6)); cnt=2;;
    # 1080p: 66 launches (2 x (3 + 30)), then the 4K row's first launch.
    sobel) k=sobel_kernel; idx=66; cnt=1;;
    conv) k=conv_kernel; idx=66; cnt=1;;
    # 1080p: r = 1, 2, 10, 30, 2 x 13 launches each; 4K: r = 1, 2 (52),
    # then r = 10's first timed launch.
    kuwa) k=kuwa_fused; idx=$((104 + 52 + 3)); cnt=1;;
    *) continue;;
  esac
  # Pass 1: every launch of the kernel, with its stream.
  timeout 150 "$NCU" -k "regex:$k" --metrics launch__grid_size \
    "$B/tests/bench/gpu/bench-gpu" > "$O/ncu-$w-launches.txt" 2>&1
  skip=$(awk -v want="$idx" '/ Stream [0-9]+/ && / Context / {
      match ($0, / Stream [0-9]+/); s = substr ($0, RSTART + 8, RLENGTH - 8)
      if (n == 0) first = s
      if (s == first) { if (on == want) { print n; exit } on++ }
      n++ }' "$O/ncu-$w-launches.txt")
  if [ -z "$skip" ]; then
    echo "ncu $w: launch $idx on the first stream not found (see ncu-$w-launches.txt)"
    continue
  fi
  timeout 150 "$NCU" -k "regex:$k" -s "$skip" -c "$cnt" "${S[@]}" \
    "$B/tests/bench/gpu/bench-gpu" > "$O/ncu-$w.txt" 2>&1
  echo "ncu $w rc=$? (launch $skip of all, $idx on the bench's stream)"
done
