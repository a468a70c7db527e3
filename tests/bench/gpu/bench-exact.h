/* gimp-gpu-filters: the GPU benchmarks' exact float64 reference for a
 * one-dimensional Gaussian, at sampled outputs.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef BENCH_EXACT_H
#define BENCH_EXACT_H

#include "border.h"
#include "gaussian-plan.h"
#include <vector>

/* The exact float64 Gaussian (the plan's taps) of the host image hi (w x
 * h pixels of c floats) along axis (0: rows, 1: columns) at 4096 sampled
 * outputs, the first and last 64 of the axis among them, drawn from seed;
 * f (index, exact) for each. */
template <class F>
static void
bench_exact_samples (const std::vector<float> &hi,
                     int                       w,
                     int                       h,
                     int                       c,
                     const GpufxGaussianPlan  &p,
                     int                       axis,
                     GpufxBorder               bd,
                     unsigned long long        seed,
                     F                         f)
{
  const int along = axis ? h : w, across = axis ? w : h;

  for (int q = 0; q < 4096; q++)
    {
      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      int    b = (int) (seed % across), ch = (int) ((seed >> 20) % c);
      int    a = q < 64    ? q
                 : q < 128 ? along - 1 - (q - 64)
                           : (int) ((seed >> 32) % along);
      int    x = axis ? b : a, y = axis ? a : b;
      double acc = 0;

      for (int kk = -p.radius; kk <= p.radius; kk++)
        {
          int m = gpufx_border_index (a + kk, along, bd);

          acc += p.taps[kk + p.radius]
                 * hi[((size_t) (axis ? m : y) * w + (axis ? x : m)) * c + ch];
        }
      f (((size_t) y * w + x) * c + ch, acc);
    }
}

#endif
