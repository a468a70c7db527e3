/* gimp-gpu-filters: page-locked host memory for the engine's pool.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gpufx-private.h"

#include <cuda_runtime.h>

void *
gpufx_cuda_host_alloc (size_t bytes)
{
  void *p = NULL;

  if (! gpufx_cuda_probe (NULL, 0))
    return NULL;
  if (cudaHostAlloc (&p, bytes, cudaHostAllocPortable) != cudaSuccess)
    {
      cudaGetLastError ();
      return NULL;
    }
  return p;
}

void
gpufx_cuda_host_free (void *p)
{
  cudaFreeHost (p);
  cudaGetLastError ();
}
