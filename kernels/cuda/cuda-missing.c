/* gimp-gpu-filters: the CUDA backend when the build had no nvcc.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gpufx-private.h"

#include <stdio.h>

bool
gpufx_cuda_probe (char *why, size_t why_size)
{
  if (why && why_size)
    snprintf (why, why_size,
              "this build has no CUDA backend (built without nvcc)");
  return false;
}

GpufxStatus
gpufx_cuda_run (const GpufxJob *job, GpufxReport *report)
{
  (void) job;
  return gpufx_fail (report, GPUFX_ERROR_BACKEND_UNAVAILABLE,
                     "this build has no CUDA backend (built without nvcc)");
}

void
gpufx_cuda_release (void)
{
}

void *
gpufx_cuda_host_alloc (size_t bytes)
{
  (void) bytes;
  return NULL;
}

void
gpufx_cuda_host_free (void *p)
{
  (void) p;
}
