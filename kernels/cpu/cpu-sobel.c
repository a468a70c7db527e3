/* gimp-gpu-filters: Sobel edge detection on the CPU.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Bands of rows copied with a one-pixel border, then both gradients across
 * x * channels in one vectorisable loop; alpha is copied afterwards.
 */
#include "cpu-pool.h"
#include "cpu-filters.h"

#include <stdlib.h>
#include <string.h>

#define SOBEL_BAND 32

typedef struct
{
  const GpufxJob *job;
  ptrdiff_t      *xmap;
} SobelCtx;

CPU_HOT static bool
sobel_band (void *data, int begin, int end)
{
  SobelCtx              *s = data;
  const GpufxJob        *job = s->job;
  const GpufxSobelParams p = job->filter.sobel;
  const GpufxRect        d = job->dst_rect;
  const int              ch = job->channels;
  const int              pw = (d.width + 2) * ch;
  const int              n = d.width * ch;
  const int              y0 = begin * SOBEL_BAND;
  const int   y1 = end * SOBEL_BAND < d.height ? end * SOBEL_BAND : d.height;
  const int   rows = y1 - y0 + 2;
  float      *pad = malloc (sizeof (float) * (size_t) pw * rows);
  const float norm = (float) (1.0 / sqrt (32.0));

  if (! pad)
    return false;
  for (int r = 0; r < rows; r++)
    cpu_fill_row (job, s->xmap, d.width + 2, d.y + y0 - 1 + r,
                  pad + (size_t) r * pw);

  for (int y = y0; y < y1; y++)
    {
      const float *t = pad + (size_t) (y - y0) * pw;
      const float *m = t + pw;
      const float *b = m + pw;
      float       *out = job->dst + (ptrdiff_t) y * job->dst_stride;
      const int    c2 = 2 * ch;

      if (p.horizontal && p.vertical)
        for (int q = 0; q < n; q++)
          {
            float gx = (t[q + c2] - t[q]) + 2.0f * (m[q + c2] - m[q])
                       + (b[q + c2] - b[q]);
            float gy = (t[q] + 2.0f * t[q + ch] + t[q + c2])
                       - (b[q] + 2.0f * b[q + ch] + b[q + c2]);

            out[q] = sqrtf (gx * gx + gy * gy) * norm;
          }
      else if (p.horizontal || p.vertical)
        for (int q = 0; q < n; q++)
          {
            float g;

            if (p.horizontal)
              g = (t[q + c2] - t[q]) + 2.0f * (m[q + c2] - m[q])
                  + (b[q + c2] - b[q]);
            else
              g = (t[q] + 2.0f * t[q + ch] + t[q + c2])
                  - (b[q] + 2.0f * b[q + ch] + b[q + c2]);
            out[q] = p.keep_sign ? 0.5f + g * 0.125f : fabsf (g) * 0.25f;
          }
      else
        memset (out, 0, sizeof (float) * n);

      if (job->alpha >= 0)
        for (int x = 0; x < d.width; x++)
          out[x * ch + job->alpha] = m[(x + 1) * ch + job->alpha];
    }
  free (pad);
  return true;
}

GpufxStatus
cpu_sobel (const GpufxJob *job, GpufxReport *report)
{
  SobelCtx    s;
  GpufxStatus status;

  s.job = job;
  s.xmap = cpu_column_map (job, job->dst_rect.x - 1, job->dst_rect.width + 2);
  if (! s.xmap)
    return gpufx_fail (report, GPUFX_ERROR_OUT_OF_MEMORY,
                       "out of memory for Sobel's buffers");
  status = cpu_parallel_for (
    job, report, (job->dst_rect.height + SOBEL_BAND - 1) / SOBEL_BAND, 1,
    sobel_band, &s, 0.0, 1.0);
  free (s.xmap);
  return status;
}
