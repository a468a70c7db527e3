/* gimp-gpu-filters: gpufx_host_alloc and its pool: every block is usable
 * and its own while held, a freed block serves the next request of a
 * similar size, and several threads at once neither share nor lose one.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine-test.h"

#include <pthread.h>
#include <stdint.h>

#define THREADS 4
#define ROUNDS  200

/* Fills a block with a pattern of its owner and checks it back. */
static bool
host_fill_check (unsigned char *p, size_t bytes, unsigned tag)
{
  bool ok = true;

  for (size_t i = 0; i < bytes; i += 4096)
    p[i] = (unsigned char) (tag + i / 4096);
  p[bytes - 1] = (unsigned char) tag;
  for (size_t i = 0; i < bytes; i += 4096)
    ok &= p[i] == (unsigned char) (tag + i / 4096);
  return ok && p[bytes - 1] == (unsigned char) tag;
}

static void *
host_worker (void *data)
{
  unsigned tag = (unsigned) (uintptr_t) data;
  unsigned seed = tag * 2654435761u;
  int      bad = 0;

  for (int r = 0; r < ROUNDS; r++)
    {
      size_t         bytes = ((size_t) 1 << 20) + (seed % (8u << 20));
      GpufxBackend   b = (seed & 1) ? GPUFX_BACKEND_AUTO : GPUFX_BACKEND_CPU;
      unsigned char *p = gpufx_host_alloc (bytes, b);

      seed = seed * 1103515245u + 12345u;
      if (! p || ! host_fill_check (p, bytes, tag + r))
        bad++;
      gpufx_host_free (p);
    }
  return (void *) (uintptr_t) bad;
}

int
main (void)
{
  pthread_t      threads[THREADS];
  unsigned char *a, *b, *c;

  /* Small, large, zero: all usable. */
  a = gpufx_host_alloc (100, GPUFX_BACKEND_AUTO);
  b = gpufx_host_alloc ((size_t) 24 << 20, GPUFX_BACKEND_CPU);
  c = gpufx_host_alloc (0, GPUFX_BACKEND_CPU);
  CHECK (a && b && c, "allocation failed");
  CHECK (host_fill_check (a, 100, 1), "small block");
  CHECK (host_fill_check (b, (size_t) 24 << 20, 2), "large block");
  CHECK (a != b && b != c && a != c, "blocks shared");

  /* A freed large block serves the next request that fits... */
  gpufx_host_free (b);
  gpufx_host_free (c);
  c = gpufx_host_alloc ((size_t) 20 << 20, GPUFX_BACKEND_CPU);
  CHECK (c == b, "a freed 24 MiB block was not reused for 20 MiB");
  /* ...but is not handed out twice. */
  b = gpufx_host_alloc ((size_t) 20 << 20, GPUFX_BACKEND_CPU);
  CHECK (b && b != c, "a block in use was handed out again");
  /* A request too small for it gets a block of its own. */
  gpufx_host_free (c);
  gpufx_host_free (a);
  a = gpufx_host_alloc ((size_t) 4 << 20, GPUFX_BACKEND_CPU);
  CHECK (a && a != c, "a 24 MiB block wasted on 4 MiB");
  gpufx_host_free (a);
  gpufx_host_free (b);
  gpufx_host_free (NULL);

  for (int t = 0; t < THREADS; t++)
    pthread_create (&threads[t], NULL, host_worker,
                    (void *) (uintptr_t) (t * 1000 + 7));
  for (int t = 0; t < THREADS; t++)
    {
      void *bad;

      pthread_join (threads[t], &bad);
      CHECK (bad == NULL, "thread %d: %d blocks overwritten or missing", t,
             (int) (uintptr_t) bad);
    }

  gpufx_release ();
  return test_summary ("test-host-memory");
}
