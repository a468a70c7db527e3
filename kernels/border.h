/* gimp-gpu-filters: border semantics, shared by the CPU and CUDA backends.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both backends map an out-of-image coordinate through this one function,
 * so they cannot disagree about borders.  It is defined for any distance
 * from the image, as scipy.ndimage defines its modes, so a mask larger than
 * the image works too.
 */
#ifndef GPUFX_BORDER_H
#define GPUFX_BORDER_H

#include "gpufx.h"

#if defined(__CUDACC__)
#define GPUFX_HD __host__ __device__ __forceinline__
#else
#define GPUFX_HD static inline
#endif

/* The image coordinate that coordinate i (of an axis of n pixels) reads
 * under border mode b, or -1 where it reads zero. */
GPUFX_HD int
gpufx_border_index (int i, int n, int b)
{
  if (i >= 0 && i < n)
    return i;

  switch (b)
    {
    case GPUFX_BORDER_CLAMP: return i < 0 ? 0 : n - 1;

    case GPUFX_BORDER_MIRROR:
      {
        /* Period 2n - 2: d c b | a b c d | c b a.  A 1-pixel axis has
         * nothing to reflect and repeats its only pixel, as scipy does. */
        int period;

        if (n == 1)
          return 0;
        period = 2 * n - 2;
        i %= period;
        if (i < 0)
          i += period;
        return i < n ? i : period - i;
      }

    case GPUFX_BORDER_WRAP: i %= n; return i < 0 ? i + n : i;

    default: return -1;
    }
}

#endif /* GPUFX_BORDER_H */
