/* gimp-gpu-filters: host memory for images the engine filters.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A front end that filters one region after another (GEGL's chunks, a
 * preview redrawn on every change) asks for buffers of much the same size
 * each time.  New memory costs a page fault and a zeroed page per 4 KiB,
 * and page-locking it for the GPU costs about as much as filtering it, so
 * large blocks are kept after use, in a small pool, for the next request
 * that fits, up to a limit of idle memory.
 */
#include "gpufx-private.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this a block is plain malloc: faults are few, locking not worth it. */
#define HOST_POOLED_MIN ((size_t) 2 << 20)
#define HOST_HUGE_PAGE  ((size_t) 2 << 20)
#define HOST_MAX_BLOCKS 32

typedef struct
{
  void  *p;
  size_t bytes;
  bool   pinned;
  bool   in_use;
} HostBlock;

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static HostBlock       host_blocks[HOST_MAX_BLOCKS];

/* Idle blocks may hold an eighth of the machine's memory, at most 2 GiB
 * (a 24-megapixel float image in and out). */
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

/* GPUFX_MEMORY_LIMIT (bytes, or with a K, M or G suffix) caps the large
 * buffers in use at once: for a user who shares a machine, and for tests
 * of what happens when memory runs short.  0: no cap. */
static size_t host_limit;

static void
host_read_limit (void)
{
  const char        *text = getenv ("GPUFX_MEMORY_LIMIT");
  char              *end = NULL;
  unsigned long long v;

  if (! text || ! *text)
    return;
  v = strtoull (text, &end, 10);
  if (end && *end)
    {
      int shift = strchr ("kK", *end)   ? 10
                  : strchr ("mM", *end) ? 20
                  : strchr ("gG", *end) ? 30
                                        : -1;
      if (shift < 0 || end[1])
        return; /* not a size: no cap rather than a surprise */
      v <<= shift;
    }
  host_limit = (size_t) v;
}

static size_t
host_use_limit (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;

  pthread_once (&once, host_read_limit);
  return host_limit;
}

/* Bytes of the pool's blocks in use; under host_lock. */
static size_t
host_in_use (void)
{
  size_t sum = 0;

  for (int i = 0; i < HOST_MAX_BLOCKS; i++)
    if (host_blocks[i].p && host_blocks[i].in_use)
      sum += host_blocks[i].bytes;
  return sum;
}

/* In huge pages the kernel maps a large block with a few hundred faults
 * instead of tens of thousands. */
static void *
host_huge_alloc (size_t bytes)
{
  void *p = NULL;

  bytes = (bytes + HOST_HUGE_PAGE - 1) / HOST_HUGE_PAGE * HOST_HUGE_PAGE;
  if (posix_memalign (&p, HOST_HUGE_PAGE, bytes) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise (p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

static void
host_block_free (HostBlock *b)
{
  if (b->pinned)
    gpufx_cuda_host_free (b->p);
  else
    free (b->p);
  *b = (HostBlock){ NULL, 0, false, false };
}

void *
gpufx_host_alloc (size_t bytes, GpufxBackend backend)
{
  bool   want_pinned;
  bool   pooled = false;
  int    best = -1;
  void  *p = NULL;
  size_t limit = host_use_limit ();

  if (bytes < HOST_POOLED_MIN)
    return malloc (bytes ? bytes : 1);
  /* The probe runs once; after that this is a look at a flag. */
  want_pinned = backend != GPUFX_BACKEND_CPU && gpufx_cuda_probe (NULL, 0);

  pthread_mutex_lock (&host_lock);
  if (limit && (bytes > limit || host_in_use () > limit - bytes))
    {
      pthread_mutex_unlock (&host_lock);
      return NULL;
    }
  /* The smallest idle block that fits without wasting more than half;
   * page-locked memory serves the CPU as well as any. */
  for (int i = 0; i < HOST_MAX_BLOCKS; i++)
    {
      HostBlock *b = &host_blocks[i];

      if (b->p && ! b->in_use && b->bytes >= bytes && b->bytes / 2 <= bytes
          && (b->pinned || ! want_pinned)
          && (best < 0 || b->bytes < host_blocks[best].bytes))
        best = i;
    }
  if (best >= 0)
    {
      host_blocks[best].in_use = true;
      p = host_blocks[best].p;
    }
  pthread_mutex_unlock (&host_lock);
  if (p)
    return p;

  /* Allocating (and locking) is slow: not under the lock. */
  if (want_pinned)
    p = gpufx_cuda_host_alloc (bytes);
  want_pinned = p != NULL;
  if (! p)
    p = host_huge_alloc (bytes);
  if (! p)
    {
      /* Idle blocks kept for reuse must not be what makes this fail. */
      gpufx_host_release ();
      p = host_huge_alloc (bytes);
    }
  if (! p)
    return NULL;

  pthread_mutex_lock (&host_lock);
  for (int i = 0; i < HOST_MAX_BLOCKS && ! pooled; i++)
    if (! host_blocks[i].p)
      {
        host_blocks[i] = (HostBlock){ p, bytes, want_pinned, true };
        pooled = true;
      }
  pthread_mutex_unlock (&host_lock);
  if (! pooled && want_pinned)
    {
      /* A full table could not say later that this block is page-locked:
       * plain memory instead, which free () takes back. */
      gpufx_cuda_host_free (p);
      p = host_huge_alloc (bytes);
    }
  return p;
}

void
gpufx_host_free (void *p)
{
  size_t idle = 0;
  int    mine = -1;

  if (! p)
    return;
  pthread_mutex_lock (&host_lock);
  for (int i = 0; i < HOST_MAX_BLOCKS; i++)
    {
      if (host_blocks[i].p == p)
        {
          mine = i;
          host_blocks[i].in_use = false;
        }
      if (host_blocks[i].p && ! host_blocks[i].in_use)
        idle += host_blocks[i].bytes;
    }
  /* Past the limit this block goes back rather than waits. */
  if (mine >= 0 && idle > host_idle_limit ())
    host_block_free (&host_blocks[mine]);
  pthread_mutex_unlock (&host_lock);
  if (mine < 0)
    free (p); /* small, or not pooled: plain malloc's or posix_memalign's */
}

void
gpufx_host_release (void)
{
  pthread_mutex_lock (&host_lock);
  for (int i = 0; i < HOST_MAX_BLOCKS; i++)
    if (host_blocks[i].p && ! host_blocks[i].in_use)
      host_block_free (&host_blocks[i]);
  pthread_mutex_unlock (&host_lock);
}
