/* gimp-gpu-filters: page-locked host memory, kept for reuse.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA backend copies page-locked buffers straight to and from the
 * device; ordinary memory goes through its staging copies, one memcpy at
 * a time.  Locking hundreds of megabytes costs about as much as filtering
 * them, so freed blocks wait in a small pool for the next call of a
 * similar size, up to a limit of memory held.
 */
#include "gpufx-private.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#define HOST_MAX_BLOCKS 32

typedef struct
{
  void  *p;
  size_t bytes;
  bool   in_use;
} HostBlock;

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static HostBlock       host_blocks[HOST_MAX_BLOCKS];

/* What idle blocks may hold: an eighth of the machine's memory, at most
 * 2 GiB (two 24-megapixel float images, in and out). */
static size_t
host_idle_limit (void)
{
  long   pages = sysconf (_SC_PHYS_PAGES);
  long   page = sysconf (_SC_PAGESIZE);
  size_t limit = (size_t) 2 << 30;

  if (pages > 0 && page > 0 && (size_t) pages * page / 8 < limit)
    limit = (size_t) pages * page / 8;
  return limit;
}

static size_t
host_idle_bytes_locked (void)
{
  size_t idle = 0;

  for (int i = 0; i < HOST_MAX_BLOCKS; i++)
    if (host_blocks[i].p && ! host_blocks[i].in_use)
      idle += host_blocks[i].bytes;
  return idle;
}

void *
gpufx_cuda_host_alloc (size_t bytes)
{
  int   best = -1, slot = -1;
  void *p = NULL;

  pthread_mutex_lock (&host_lock);
  /* The smallest idle block that fits without wasting more than half. */
  for (int i = 0; i < HOST_MAX_BLOCKS; i++)
    {
      HostBlock *b = &host_blocks[i];

      if (! b->p)
        slot = slot < 0 ? i : slot;
      else if (! b->in_use && b->bytes >= bytes && b->bytes / 2 <= bytes
               && (best < 0 || b->bytes < host_blocks[best].bytes))
        best = i;
    }
  if (best >= 0)
    {
      host_blocks[best].in_use = true;
      p = host_blocks[best].p;
    }
  else if (slot >= 0 && gpufx_cuda_probe (NULL, 0))
    {
      if (cudaHostAlloc (&p, bytes, cudaHostAllocPortable) == cudaSuccess)
        host_blocks[slot] = (HostBlock) { p, bytes, true };
      else
        {
          cudaGetLastError ();
          p = NULL;
        }
    }
  pthread_mutex_unlock (&host_lock);
  return p;
}

bool
gpufx_cuda_host_free (void *p)
{
  bool ours = false;

  pthread_mutex_lock (&host_lock);
  for (int i = 0; i < HOST_MAX_BLOCKS && ! ours; i++)
    if (host_blocks[i].p == p)
      {
        ours = true;
        host_blocks[i].in_use = false;
        /* Past the limit this block goes back rather than waits. */
        if (host_idle_bytes_locked () > host_idle_limit ())
          {
            cudaFreeHost (p);
            host_blocks[i] = (HostBlock) { NULL, 0, false };
          }
      }
  pthread_mutex_unlock (&host_lock);
  return ours;
}

void
gpufx_cuda_host_release (void)
{
  pthread_mutex_lock (&host_lock);
  for (int i = 0; i < HOST_MAX_BLOCKS; i++)
    if (host_blocks[i].p && ! host_blocks[i].in_use)
      {
        cudaFreeHost (host_blocks[i].p);
        host_blocks[i] = (HostBlock) { NULL, 0, false };
      }
  cudaGetLastError ();
  pthread_mutex_unlock (&host_lock);
}
