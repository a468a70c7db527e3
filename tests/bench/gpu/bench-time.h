/* gimp-gpu-filters: the GPU benchmarks' device-resident timing: CUDA events
 * around each call, 3 warm-ups, the median of reps.  Two ways:
 * - time_ms: the call from an idle GPU, so the events also hold the time the
 *   host takes to submit the launches;
 * - time_gpu_ms: the GPU's own time for the call.  A blocking kernel holds
 *   the stream while the host enqueues the start event, the call and the
 *   stop event, then lets go, so that the call's launches are queued before
 *   the start event is stamped (nvbench's way).  The call must not wait on
 *   the stream itself: a call that does would deadlock, and the blocking
 *   kernel gives up after about a second and the run fails.  The same
 *   happens under a profiler that waits for each launch to finish (ncu):
 *   there set GPUFX_BENCH_NO_HOLD=1, and time_gpu_ms times as time_ms
 *   does (the same launches, in the same order).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef BENCH_TIME_H
#define BENCH_TIME_H

#include "bench-check.h"

#include <algorithm>
#include <vector>

/* Spins until the host sets flag[0]; sets flag[1] if it gave up. */
static __global__ void
bench_time_block (volatile int *flag)
{
  long long t0 = clock64 ();

  while (! flag[0])
    if (clock64 () - t0 > 2000000000LL)
      {
        flag[1] = 1;
        return;
      }
}

/* The blocking kernel's flags, in mapped host memory: one pair for every
 * caller (a static inside the template would be one per call site). */
static volatile int *
bench_time_flag (void)
{
  static volatile int *flag;

  if (! flag)
    CK (cudaHostAlloc ((void **) &flag, 2 * sizeof (int), cudaHostAllocMapped));
  return flag;
}

/* f (i) runs call i (i rotates the inputs); milliseconds.  hold: the
 * blocking kernel holds the stream while the call is enqueued. */
template <class F>
static double
bench_time_events (F f, int reps, bool hold)
{
  volatile int      *flag = hold ? bench_time_flag () : NULL;
  std::vector<float> t;
  cudaEvent_t        a, b;

  CK (cudaEventCreate (&a));
  CK (cudaEventCreate (&b));
  for (int i = 0; i < 3; i++)
    f (i);
  if (hold)
    flag[1] = 0;
  for (int i = 0; i < reps; i++)
    {
      float ms;

      if (hold)
        {
          flag[0] = 0;
          bench_time_block<<<1, 1>>> (flag);
        }
      CK (cudaEventRecord (a));
      f (i);
      CK (cudaEventRecord (b));
      if (hold)
        flag[0] = 1;
      CK (cudaEventSynchronize (b));
      CK (cudaEventElapsedTime (&ms, a, b));
      t.push_back (ms);
    }
  CK (cudaGetLastError ());
  if (hold && flag[1])
    {
      fprintf (stderr, "time_gpu_ms: the call waited on its own stream (or a "
                       "profiler waited on each launch: then set "
                       "GPUFX_BENCH_NO_HOLD=1)\n");
      exit (1);
    }
  std::sort (t.begin (), t.end ());
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return t[t.size () / 2];
}

template <class F>
static double
time_ms (F f, int reps = 30)
{
  return bench_time_events (f, reps, false);
}

template <class F>
static double
time_gpu_ms (F f, int reps = 30)
{
  return bench_time_events (f, reps, ! getenv ("GPUFX_BENCH_NO_HOLD"));
}

#endif
