/* gimp-gpu-filters: the CPU backend's entry point.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cpu-filters.h"

GpufxStatus
gpufx_cpu_run (const GpufxJob *job, GpufxReport *report)
{
  GpufxStatus status;

  if (! gpufx_job_progress (job, 0.0))
    return gpufx_fail (report, GPUFX_ERROR_CANCELLED, "cancelled");
  switch (job->filter.kind)
    {
    case GPUFX_FILTER_CONVOLVE: status = cpu_convolve (job, report); break;
    case GPUFX_FILTER_GAUSSIAN_BLUR: status = cpu_gaussian (job, report); break;
    case GPUFX_FILTER_SOBEL: status = cpu_sobel (job, report); break;
    case GPUFX_FILTER_KUWAHARA: status = cpu_kuwahara (job, report); break;
    default:
      return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                         "unknown filter kind %d", (int) job->filter.kind);
    }
  if (status == GPUFX_OK)
    gpufx_job_progress (job, 1.0);
  return status;
}
