/* gimp-gpu-filters: CPU backend (first cut: exact separable Gaussian).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gpufx-private.h"
#include "border.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double *
cpu_gaussian_weights (double sigma, int radius)
{
  double *w = malloc (sizeof (double) * (2 * radius + 1));
  double  sum = 0;

  if (! w)
    return NULL;
  for (int k = -radius; k <= radius; k++)
    sum += w[k + radius] = radius ? exp (-0.5 * k * k / (sigma * sigma)) : 1.0;
  for (int k = 0; k <= 2 * radius; k++)
    w[k] /= sum;
  return w;
}

static GpufxStatus
cpu_gaussian (const GpufxJob *job, GpufxReport *report)
{
  const int  ch = job->channels;
  const int  rx = gpufx_gaussian_radius (job->filter.gaussian.std_dev_x);
  const int  ry = gpufx_gaussian_radius (job->filter.gaussian.std_dev_y);
  GpufxRect  s = job->src_rect, d = job->dst_rect;
  double    *wx = cpu_gaussian_weights (job->filter.gaussian.std_dev_x, rx);
  double    *wy = cpu_gaussian_weights (job->filter.gaussian.std_dev_y, ry);
  double    *tmp = malloc (sizeof (double) * (size_t) s.height * d.width * ch);
  GpufxStatus status = GPUFX_OK;

  if (! wx || ! wy || ! tmp)
    {
      status = gpufx_fail (report, GPUFX_ERROR_OUT_OF_MEMORY,
                           "out of memory for the Gaussian's buffers");
      goto out;
    }

  for (int y = 0; y < s.height; y++)
    {
      const float *row = job->src + (ptrdiff_t) y * job->src_stride;

      for (int x = 0; x < d.width; x++)
        for (int c = 0; c < ch; c++)
          {
            double acc = 0;

            for (int k = -rx; k <= rx; k++)
              {
                int i = gpufx_border_index (d.x + x + k, job->image_width,
                                            job->filter.border);
                if (i >= 0)
                  acc += wx[k + rx] * row[(ptrdiff_t) (i - s.x) * ch + c];
              }
            tmp[((size_t) y * d.width + x) * ch + c] = acc;
          }
      if (! gpufx_job_progress (job, 0.5 * (y + 1) / s.height))
        {
          status = gpufx_fail (report, GPUFX_ERROR_CANCELLED, "cancelled");
          goto out;
        }
    }

  for (int y = 0; y < d.height; y++)
    {
      float *out = job->dst + (ptrdiff_t) y * job->dst_stride;

      for (int x = 0; x < d.width; x++)
        for (int c = 0; c < ch; c++)
          {
            double acc = 0;

            for (int k = -ry; k <= ry; k++)
              {
                int j = gpufx_border_index (d.y + y + k, job->image_height,
                                            job->filter.border);
                if (j >= 0)
                  acc += wy[k + ry] * tmp[((size_t) (j - s.y) * d.width + x)
                                          * ch + c];
              }
            out[(ptrdiff_t) x * ch + c] = (float) acc;
          }
    }
  gpufx_job_progress (job, 1.0);

out:
  free (wx);
  free (wy);
  free (tmp);
  return status;
}

GpufxStatus
gpufx_cpu_run (const GpufxJob *job, GpufxReport *report)
{
  switch (job->filter.kind)
    {
    case GPUFX_FILTER_GAUSSIAN_BLUR:
      return cpu_gaussian (job, report);
    default:
      return gpufx_fail (report, GPUFX_ERROR_BACKEND_UNAVAILABLE,
                         "%s is not implemented on the CPU yet",
                         gpufx_filter_name (job->filter.kind));
    }
}
