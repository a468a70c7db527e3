#!/bin/bash
# gimp-gpu-filters: ncu on the GPU machine for the kernels NOTES-gpu.md
# suspects, run over bench-gpu (4K launches: the 1080p ones are skipped).
#   tests/bench/gpu/ncu-suspects.sh BUILD OUTDIR [what ...]
# what: gauss (cosines, σ = 50, row and column pass), sobel, conv, kuwa.
# The skip counts assume bench-gpu's order of launches; for sobel and kuwa
# they land on a 1080p host-to-host band (gpufx_run launches those kernels
# too), not on the 4K device-resident launch: fix before trusting them.
set -u
B=$1; O=$2; shift 2
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
[ -n "$NCU" ] || { echo "no ncu"; exit 1; }
S="--section SpeedOfLight --section Occupancy --section LaunchStats \
   --section WarpStateStats --section ComputeWorkloadAnalysis \
   --section MemoryWorkloadAnalysis --section SchedulerStats \
   --section InstructionStats"
for w in "$@"; do
  case $w in
    # 1080p: σ = 50, 200 and 1500, 13 launches of each pass: skip 78.
    gauss) k=regex:lines_cosines; skip=78; cnt=2;;
    sobel) k=regex:sobel_kernel; skip=33; cnt=1;;
    conv) k=regex:conv_kernel; skip=33; cnt=1;;
    kuwa) k=regex:kuwa_fused; skip=52; cnt=1;;
    *) continue;;
  esac
  timeout 150 "$NCU" -k "$k" -s $skip -c $cnt $S "$B/tests/bench/gpu/bench-gpu" \
    > "$O/ncu-$w.txt" 2>&1
  echo "ncu $w rc=$?"
done
