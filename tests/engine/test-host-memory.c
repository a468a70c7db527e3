/* gimp-gpu-filters: gpufx_host_alloc and its pool: every block is usable
 * and its own while held, a freed block serves the next request of a
 * similar size, and several threads at once neither share nor lose one.
 * With the argument "limit": GPUFX_MEMORY_LIMIT caps the large blocks in
 * use, and a region that cannot have its buffers fails cleanly.
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

static int
host_limit_main (void)
{
  const size_t mib = (size_t) 1 << 20;
  void        *a, *b, *c, *small;
  float       *pixels, *result;
  GpufxImage   view, out;
  GpufxFilter  f;
  GpufxOptions o;
  GpufxReport  r;

  /* Read once, at the first request. */
  setenv ("GPUFX_MEMORY_LIMIT", "16M", 1);
  a = gpufx_host_alloc (8 * mib, GPUFX_BACKEND_CPU);
  b = gpufx_host_alloc (8 * mib, GPUFX_BACKEND_CPU);
  CHECK (a && b, "two 8 MiB blocks refused under a 16 MiB cap");
  c = gpufx_host_alloc (4 * mib, GPUFX_BACKEND_CPU);
  CHECK (! c, "a 4 MiB block past a 16 MiB cap in use");
  small = gpufx_host_alloc (100, GPUFX_BACKEND_CPU);
  CHECK (small != NULL, "a small block refused: only large ones count");
  gpufx_host_free (b);
  c = gpufx_host_alloc (4 * mib, GPUFX_BACKEND_CPU);
  CHECK (c != NULL, "4 MiB refused with 8 MiB of 16 in use");
  gpufx_host_free (c);
  gpufx_host_free (a);
  gpufx_host_free (small);
  a = gpufx_host_alloc (17 * mib, GPUFX_BACKEND_CPU);
  CHECK (! a, "one 17 MiB block under a 16 MiB cap");
  gpufx_host_free (a);
  a = gpufx_host_alloc (16 * mib, GPUFX_BACKEND_CPU);
  CHECK (a != NULL, "16 MiB refused with nothing in use");
  gpufx_host_free (a);

  /* The engine's own use is not capped (GIMP's operation splits its work
   * by what it gets), so a filter still runs. */
  pixels = calloc (512 * 512 * 4, sizeof (float));
  result = calloc (512 * 512 * 4, sizeof (float));
  view = (GpufxImage){ pixels, 512, 512, 4, 512 * 4, 3, true };
  out = view;
  out.data = result;
  gpufx_filter_init (&f, GPUFX_FILTER_SOBEL);
  gpufx_options_init (&o);
  o.backend = GPUFX_BACKEND_CPU;
  CHECK (gpufx_run (&f, &view, &out, &o, &r) == GPUFX_OK, "sobel: %s",
         r.message);
  free (pixels);
  free (result);
  gpufx_release ();
  return test_summary ("test-host-memory limit");
}

int
main (int argc, char **argv)
{
  pthread_t      threads[THREADS];
  unsigned char *a, *b, *c;

  if (argc > 1 && strcmp (argv[1], "limit") == 0)
    return host_limit_main ();

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
