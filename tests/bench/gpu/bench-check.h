/* gimp-gpu-filters: the GPU benchmarks' check of a CUDA call: a benchmark
 * that goes on after a failed call would print figures for work never done.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef BENCH_CHECK_H
#define BENCH_CHECK_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                  \
  do                                                                           \
    {                                                                          \
      cudaError_t e_ = (x);                                                    \
      if (e_ != cudaSuccess)                                                   \
        {                                                                      \
          fprintf (stderr, "%s:%d %s\n", __FILE__, __LINE__,                   \
                   cudaGetErrorString (e_));                                   \
          exit (1);                                                            \
        }                                                                      \
    }                                                                          \
  while (0)

/* n uniform floats in [0, 1) from a xorshift64 state s (advanced). */
static inline void
bench_noise (float *v, size_t n, unsigned long long *s)
{
  for (size_t i = 0; i < n; i++)
    {
      *s ^= *s << 13;
      *s ^= *s >> 7;
      *s ^= *s << 17;
      v[i] = (float) (*s >> 40) * (1.0f / 16777216.0f);
    }
}

#endif
