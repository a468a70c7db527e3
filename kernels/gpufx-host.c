/* gimp-gpu-filters: host memory for images the engine filters.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gpufx-private.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Below this the backend's own staging costs less than locking pages. */
#define HOST_PINNED_MIN ((size_t) 4 << 20)
#define HOST_HUGE_PAGE  ((size_t) 2 << 20)

void *
gpufx_host_alloc (size_t bytes, GpufxBackend backend)
{
  void *p = NULL;

  if (bytes == 0)
    bytes = 1;
  if (backend != GPUFX_BACKEND_CPU && bytes >= HOST_PINNED_MIN)
    {
      p = gpufx_cuda_host_alloc (bytes);
      if (p)
        return p;
    }
  if (bytes < HOST_HUGE_PAGE)
    return malloc (bytes);
  /* Large and short-lived: in huge pages the kernel maps it with a few
   * hundred faults instead of tens of thousands. */
  bytes = (bytes + HOST_HUGE_PAGE - 1) / HOST_HUGE_PAGE * HOST_HUGE_PAGE;
  if (posix_memalign (&p, HOST_HUGE_PAGE, bytes) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise (p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

void
gpufx_host_free (void *p)
{
  if (p && ! gpufx_cuda_host_free (p))
    free (p);
}
