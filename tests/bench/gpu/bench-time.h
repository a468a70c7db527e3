/* gimp-gpu-filters: the GPU benchmarks' device-resident timing: CUDA events
 * around each call, 3 warm-ups, the median of reps.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef BENCH_TIME_H
#define BENCH_TIME_H

#include "bench-check.h"

#include <algorithm>
#include <vector>

/* f (i) runs call i (i rotates the inputs); milliseconds. */
template <class F>
static double
time_ms (F f, int reps = 30)
{
  std::vector<float> t;
  cudaEvent_t        a, b;

  CK (cudaEventCreate (&a));
  CK (cudaEventCreate (&b));
  for (int i = 0; i < 3; i++)
    f (i);
  for (int i = 0; i < reps; i++)
    {
      float ms;

      CK (cudaEventRecord (a));
      f (i);
      CK (cudaEventRecord (b));
      CK (cudaEventSynchronize (b));
      CK (cudaEventElapsedTime (&ms, a, b));
      t.push_back (ms);
    }
  CK (cudaGetLastError ());
  std::sort (t.begin (), t.end ());
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return t[t.size () / 2];
}

#endif
